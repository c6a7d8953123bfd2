/*
 * The RMS-norm family of ops-nn norm/: RmsNorm, GemmaRmsNorm, RmsNormGrad, AddRmsNorm, InplaceAddRmsNorm,
 * AddRmsNormCast, AddRmsNormQuant, AddRmsNormDynamicQuant, RmsNormQuant, RmsNormDynamicQuant. One table row per
 * operator names the parameters in their roles; one check and one kernel serve them all.
 *
 * A row is the trailing gamma.ndim dimensions of x (n = numel(gamma) elements). Everything is computed in
 * float32 from the widened inputs: x = x1 + x2 (one rounding), the sum of squares accumulated in 16 lanes
 * (element j into lane j % 16, the lanes then added in order), rstd = 1 / sqrt(sum / n + eps) (correctly
 * rounded sqrt and division), y = (x * rstd) * g with g = gamma (1 + gamma for Gemma), plus
 * beta where the operator has one; each result is rounded once to its output dtype. Quantised outputs: q = y / s (divMode) or y * s, plus the zero point, rounded half
 * to even and saturated to INT8; the dynamic form scales each row by max|y * smooth| / 127.
 */
#include <math.h>
#include <stdlib.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_add_rms_norm_cast.h"
#include "aclnnop/aclnn_add_rms_norm_dynamic_quant.h"
#include "aclnnop/aclnn_add_rms_norm_quant.h"
#include "aclnnop/aclnn_gemma_rms_norm.h"
#include "aclnnop/aclnn_inplace_add_rms_norm.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_dynamic_quant.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "aclnnop/aclnn_rms_norm_quant.h"
#include "cpu_dispatch.h"

/* Parameter indices of an operator's roles, plus one (0: none). */
typedef struct {
    int x1, x2, gamma, eps, y, y2, rstd, xout; /* y2: AddRmsNormCast's y2Out (x dtype), quant's y2Out */
    int scales1, scales2, zp1, zp2, div;       /* static quantisation */
    int smooth1, smooth2, qscale1, qscale2;    /* dynamic quantisation */
    int dy;                                    /* the grad: dy; rstd is then an input, y is dx, y2 is dgamma */
    int beta, dst_type;                        /* RmsNormQuant, RmsNormDynamicQuant: beta; dstType */
    bool gemma, cast, quant, dynamic, grad;
    bool always_div; /* RmsNormQuant: y / scale, always */
    bool last_dim;   /* a row is x's last dimension; gamma [H] or [1, H] (RmsNormQuant, RmsNormDynamicQuant) */
} Row;

typedef struct {
    int64_t rows, n;
    float eps;
} Plan;

#define INVALID ACLNN_ERR_PARAM_INVALID

#include "norm_rows.h"
    for (int64_t j = 0; j < n; j++) aclStubStorePtrF32(t->dtype, aclStubElemAt(t, r * n + j), src[j]);
}

/* a per-channel vector (n values, or 1 broadcast) as float32 */
static void load_vec(float *dst, const aclStubTensorDesc *t, int64_t n) {
    int64_t m = aclStubNumel(t);
    for (int64_t j = 0; j < n; j++) {
        const void *p = aclStubElemAt(t, m == 1 ? 0 : j);
        dst[j] = t->dtype == ACL_INT32  ? (float)*(const int32_t *)p
                 : t->dtype == ACL_INT8 ? (float)*(const int8_t *)p
                                        : aclStubLoadPtrF32(t->dtype, p);
    }
}

STUB_CLONED static float sum_squares(const float *x, int64_t n) {
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) lanes[k] += x[j + k] * x[j + k];
    for (int k = 0; j + k < n; k++) lanes[k] += x[j + k] * x[j + k];
    float s = 0.0f;
    for (int k = 0; k < 16; k++) s += lanes[k];
    return s;
}

STUB_CLONED static void scale_mul(float *y, const float *x, float r, const float *g, int64_t n) {
    for (int64_t j = 0; j < n; j++) y[j] = (x[j] * r) * g[j];
}

static int8_t q8(float v) {
    if (v != v) return 0;
    float r = nearbyintf(v);
    return r > 127.0f ? 127 : r < -128.0f ? -128 : (int8_t)r;
}

/* ---- the kernel ---------------------------------------------------------------------------------------------- */

typedef struct {
    const aclStubOpCall *c;
    const Row *row;
    const Plan *p;
    float *gamma, *s1, *s2, *z1, *z2, *m1, *m2, *beta; /* per-channel vectors (n floats each; NULL absent) */
    int failed;
} Ctx;

static void forward_rows(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const aclStubOpCall *c = x->c;
    const Row *row = x->row;
    int64_t n = x->p->n;
    float *buf = malloc((size_t)(3 * n + 1) * sizeof(float));
    int8_t *qb = malloc((size_t)n + 1);
    if (!buf || !qb) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        free(buf), free(qb);
        return;
    }
    float *v = buf, *y = buf + n, *t = buf + 2 * n;
    const aclStubTensorDesc *x1 = T(c, row->x1), *x2 = T(c, row->x2), *rstd = T(c, row->rstd);
    const aclStubTensorDesc *xo = T(c, row->xout), *yo = T(c, row->y), *y2 = T(c, row->y2);
    for (int64_t r = begin; r < end; r++) {
        load_row(v, x1, r, n);
        if (x2) {
            load_row(t, x2, r, n);
            for (int64_t j = 0; j < n; j++) v[j] += t[j];
        }
        if (xo) store_row(xo, r, v, n);
        float rs = 1.0f / sqrtf(sum_squares(v, n) / (float)n + x->p->eps);
        if (rstd) *(float *)aclStubElemAt(rstd, r) = rs;
        scale_mul(y, v, rs, x->gamma, n);
        if (x->beta)
            for (int64_t j = 0; j < n; j++) y[j] += x->beta[j];
        if (!row->quant) {
            if (yo) store_row(yo, r, y, n);
            if (y2) store_row(y2, r, y, n);
            continue;
        }
        for (int q = 0; q < 2; q++) {
            const aclStubTensorDesc *out = T(c, q ? row->y2 : row->y);
            const float *s = q ? x->s2 : x->s1, *z = q ? x->z2 : x->z1, *m = q ? x->m2 : x->m1;
            if (out == NULL || (row->dynamic ? m == NULL && q : s == NULL)) continue;
            if (row->dynamic) {
                for (int64_t j = 0; j < n; j++) t[j] = y[j];
                float ds = aclStubRowQuantInt8Dynamic(qb, t, m, n);
                const aclStubTensorDesc *so = T(c, q ? row->qscale2 : row->qscale1);
                if (so) *(float *)aclStubElemAt(so, r) = ds;
            } else {
                bool div = row->always_div || aclStubOpBool(c, row->div - 1);
                for (int64_t j = 0; j < n; j++) {
                    float w = div ? y[j] / s[j] : y[j] * s[j];
                    qb[j] = q8(z ? w + z[j] : w);
                }
            }
            for (int64_t j = 0; j < n; j++) *(int8_t *)aclStubElemAt(out, r * n + j) = qb[j];
        }
    }
    free(buf);
    free(qb);
}

/* dx = rstd * (dy*g - x*rstd * mean(dy*g * x*rstd)) */
static void grad_rows(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const aclStubOpCall *c = x->c;
    const Row *row = x->row;
    int64_t n = x->p->n;
    float *buf = malloc((size_t)(2 * n + 1) * sizeof(float));
    if (!buf) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *xv = buf, *dv = buf + n;
    const aclStubTensorDesc *xs = T(c, row->x1), *dy = T(c, row->dy), *rstd = T(c, row->rstd), *dx = T(c, row->y);
    for (int64_t r = begin; r < end; r++) {
        load_row(xv, xs, r, n);
        load_row(dv, dy, r, n);
        float rs = *(const float *)aclStubElemAt(rstd, r), acc = 0.0f;
        for (int64_t j = 0; j < n; j++) acc += (dv[j] * x->gamma[j]) * (xv[j] * rs);
        float mean = acc / (float)n;
        for (int64_t j = 0; j < n; j++) dv[j] = rs * (dv[j] * x->gamma[j] - (xv[j] * rs) * mean);
        store_row(dx, r, dv, n);
    }
    free(buf);
}

/* dgamma[j] = sum over rows (in order) of dy * x * rstd, per column range */
static void dgamma_cols(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const aclStubOpCall *c = x->c;
    const Row *row = x->row;
    int64_t n = x->p->n;
    const aclStubTensorDesc *xs = T(c, row->x1), *dy = T(c, row->dy), *rstd = T(c, row->rstd), *dg = T(c, row->y2);
    for (int64_t j = begin; j < end; j++) {
        float acc = 0.0f;
        for (int64_t r = 0; r < x->p->rows; r++) {
            float rs = *(const float *)aclStubElemAt(rstd, r);
            float a = aclStubLoadPtrF32(dy->dtype, aclStubElemAt(dy, r * n + j));
            float b = aclStubLoadPtrF32(xs->dtype, aclStubElemAt(xs, r * n + j));
            acc += a * (b * rs);
        }
        aclStubStorePtrF32(dg->dtype, aclStubElemAt(dg, j), acc);
    }
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    const Plan *p = c->plan;
    int64_t n = p->n;
    float *vec = aclStubKernelScratch(c, (size_t)(8 * n + 1) * sizeof(float));
    if (vec == NULL) return aclStubKernelOutOfMemory(c);
    Ctx x = {c, row, p, vec, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0};
    load_vec(x.gamma, T(c, row->gamma), n);
    if (row->gemma)
        for (int64_t j = 0; j < n; j++) x.gamma[j] += 1.0f;
    int roles[7] = {row->scales1, row->scales2, row->zp1, row->zp2, row->smooth1, row->smooth2, row->beta};
    float **dst[7] = {&x.s1, &x.s2, &x.z1, &x.z2, &x.m1, &x.m2, &x.beta};
    for (int k = 0; k < 7; k++)
        if (T(c, roles[k])) {
            *dst[k] = vec + (k + 1) * n;
            load_vec(*dst[k], T(c, roles[k]), n);
        }
    int64_t chunk = n > 0 ? 1 + 65536 / n : 1;
    if (row->grad) {
        aclStubParallelFor(p->rows, chunk, grad_rows, &x);
        aclStubParallelFor(n, 64, dgamma_cols, &x);
    } else {
        aclStubParallelFor(p->rows, chunk, forward_rows, &x);
    }
    if (x.failed) return aclStubKernelOutOfMemory(c);
    return OK;
}

/* ---- checks -------------------------------------------------------------------------------------------------- */

static aclnnStatus same_shape(aclStubOpCall *c, int i, const aclStubTensorDesc *ref, const char *what) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(t->dims, t->ndim, ref->dims, ref->ndim), c, INVALID,
                            "%s has shape %s; must be %s's %s", NAME(c, i),
                            aclStubShapeText(t->dims, t->ndim, a, sizeof a), what,
                            aclStubShapeText(ref->dims, ref->ndim, b, sizeof b));
    return OK;
}

/* a per-channel vector: n elements (gamma's shape) or a single one */
static aclnnStatus channel_vec(aclStubOpCall *c, int i, const aclStubTensorDesc *gamma) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    int64_t m = aclStubNumel(t);
    ACLSTUB_RETURN_ERROR_IF(m != 1 && m != aclStubNumel(gamma), c, INVALID, "%s has %lld elements; must have gamma's "
                            "%lld or 1", NAME(c, i), (long long)m, (long long)aclStubNumel(gamma));
    return OK;
}

/* RmsNormQuant and RmsNormDynamicQuant: their rules, the row x's last dimension */
static aclnnStatus check_last_dim(aclStubOpCall *c, const Row *row, Plan *p) {
    const aclStubTensorDesc *x = T(c, row->x1), *g = T(c, row->gamma), *y = T(c, row->y);
    uint32_t min_rank = row->dynamic ? 2 : 1;
    ACLSTUB_RETURN_ERROR_IF(x->ndim < min_rank || x->ndim > 8, c, INVALID, "x has %u dimensions; must have %u to 8",
                            x->ndim, min_rank);
    int64_t h = x->dims[x->ndim - 1];
    for (int k = 0; k < 2; k++) {
        int i = k ? row->beta : row->gamma;
        const aclStubTensorDesc *t = T(c, i);
        if (t == NULL) continue;
        uint32_t max_rank = row->dynamic ? 1 : 2;
        ACLSTUB_RETURN_ERROR_IF(t->ndim < 1 || t->ndim > max_rank, c, INVALID, "%s has %u dimensions; must have 1 "
                                "to %u", NAME(c, i), t->ndim, max_rank);
        ACLSTUB_RETURN_ERROR_IF(t->dims[t->ndim - 1] != h || (t->ndim == 2 && t->dims[0] != 1), c, INVALID,
                                "%s's last dimension %lld must equal x's last dimension %lld (shape [H] or [1, H])",
                                NAME(c, i), (long long)t->dims[t->ndim - 1], (long long)h);
    }
    ACLSTUB_TRY(same_shape(c, row->beta, g, "gamma"));
    ACLSTUB_TRY(same_shape(c, row->smooth1, g, "gamma"));
    if (row->dynamic) {
        ACLSTUB_RETURN_ERROR_IF(aclStubOpInt(c, row->dst_type - 1) != ACL_INT8, c, INVALID, "dstType is %lld; must "
                                "be %d (INT8)", (long long)aclStubOpInt(c, row->dst_type - 1), (int)ACL_INT8);
        ACLSTUB_TRY(same_shape(c, row->y, x, "x"));
        const aclStubTensorDesc *so = T(c, row->qscale1);
        char a[128], b[128];
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(so->dims, so->ndim, x->dims, x->ndim - 1), c, INVALID,
                                "scaleOut has shape %s; must be x's without its last dimension, %s",
                                aclStubShapeText(so->dims, so->ndim, a, sizeof a),
                                aclStubShapeText(x->dims, x->ndim - 1, b, sizeof b));
    } else {
        const aclStubTensorDesc *o = T(c, row->zp1);
        ACLSTUB_RETURN_ERROR_IF(y->ndim < 1 || y->ndim > 8, c, INVALID, "y has %u dimensions; must have 1 to 8",
                                y->ndim);
        ACLSTUB_RETURN_ERROR_IF(y->dims[y->ndim - 1] != h, c, INVALID, "y's last dimension %lld must equal x's "
                                "last dimension %lld", (long long)y->dims[y->ndim - 1], (long long)h);
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(y) != aclStubNumel(x), c, INVALID, "y must have x's %lld elements",
                                (long long)aclStubNumel(x));
        ACLSTUB_TRY(same_shape(c, row->zp1, T(c, row->scales1), "scale"));
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(o) != 1, c, INVALID, "scale and offset must hold one element (%lld)",
                                (long long)aclStubNumel(o));
    }
    p->n = h;
    p->rows = h > 0 ? aclStubNumel(x) / h : 0;
    p->eps = (float)aclStubOpFloat(c, row->eps - 1);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    Plan *p = c->plan;
    if (row->last_dim) return check_last_dim(c, row, p);
    const aclStubTensorDesc *x = T(c, row->x1), *g = T(c, row->gamma);
    ACLSTUB_RETURN_ERROR_IF(g->ndim < 1 || g->ndim > x->ndim, c,
                            INVALID, "gamma has %u dimensions; must have 1 to x's %u", g->ndim, x->ndim);
    for (uint32_t d = 0; d < g->ndim; d++) {
        int64_t xd = x->dims[x->ndim - g->ndim + d];
        ACLSTUB_RETURN_ERROR_IF(g->dims[d] != xd, c, INVALID, "gamma.shape[%u] = %lld must equal x's trailing "
                                "dimension %lld (gamma's shape is x.shape[n:])", d, (long long)g->dims[d],
                                (long long)xd);
    }
    ACLSTUB_RETURN_ERROR_IF(g->dtype != x->dtype && g->dtype != ACL_FLOAT, c, INVALID, "gamma has data type %s; must "
                            "be x's %s or FLOAT", aclStubDtypeName(g->dtype), aclStubDtypeName(x->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->dtype == ACL_FLOAT && g->dtype != ACL_FLOAT, c, INVALID, "gamma must be FLOAT with a "
                            "FLOAT x");
    int64_t n = aclStubNumel(g), total = aclStubNumel(x);
    p->n = n;
    p->rows = n > 0 ? total / n : 0;
    p->eps = row->eps > 0 ? (float)aclStubOpFloat(c, row->eps - 1) : 0.0f;
    ACLSTUB_TRY(same_shape(c, row->x2, x, "x1"));
    if (row->x2 > 0) ACLSTUB_RETURN_ERROR_IF(T(c, row->x2)->dtype != x->dtype, c, INVALID, "x2 must have x1's data type");
    ACLSTUB_TRY(same_shape(c, row->xout, x, "x"));
    ACLSTUB_TRY(same_shape(c, row->dy, x, "x"));
    if (row->grad) {
        ACLSTUB_TRY(same_shape(c, row->y, x, "x"));
        ACLSTUB_TRY(same_shape(c, row->y2, g, "gamma"));
    } else {
        ACLSTUB_TRY(same_shape(c, row->y, x, "x"));
        ACLSTUB_TRY(same_shape(c, row->y2, x, "x"));
    }
    /* rstd: x's shape with the normalised dimensions 1 */
    const aclStubTensorDesc *rs = T(c, row->rstd);
    if (rs) {
        int64_t want[ACLSTUB_MAX_DIMS];
        for (uint32_t d = 0; d < x->ndim; d++) want[d] = d + g->ndim >= x->ndim ? 1 : x->dims[d];
        char a[128], b[128];
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(rs) != p->rows || (rs->ndim == x->ndim && !aclStubShapeEqual(rs->dims,
                                rs->ndim, want, x->ndim)), c, INVALID, "%s has shape %s; must be %s",
                                NAME(c, row->rstd), aclStubShapeText(rs->dims, rs->ndim, a, sizeof a),
                                aclStubShapeText(want, x->ndim, b, sizeof b));
    }
    if (row->quant) {
        ACLSTUB_TRY(channel_vec(c, row->scales1, g));
        ACLSTUB_TRY(channel_vec(c, row->scales2, g));
        ACLSTUB_TRY(channel_vec(c, row->zp1, g));
        ACLSTUB_TRY(channel_vec(c, row->zp2, g));
        ACLSTUB_TRY(channel_vec(c, row->smooth1, g));
        ACLSTUB_TRY(channel_vec(c, row->smooth2, g));
        if (row->dynamic) {
            ACLSTUB_RETURN_ERROR_IF(T(c, row->smooth2) && !T(c, row->smooth1), c, INVALID, "smoothScale2Optional "
                                    "needs smoothScale1Optional");
            for (int q = 0; q < 2; q++) {
                const aclStubTensorDesc *so = T(c, q ? row->qscale2 : row->qscale1);
                if (so) ACLSTUB_RETURN_ERROR_IF(aclStubNumel(so) != p->rows, c, INVALID, "%s must have one element per "
                                                "row (%lld)", NAME(c, q ? row->qscale2 : row->qscale1),
                                                (long long)p->rows);
            }
            if (!T(c, row->smooth2)) {
                aclStubOpIgnore(c, row->y2 - 1);
                aclStubOpIgnore(c, row->qscale2 - 1);
            }
        } else if (!T(c, row->scales2)) {
            aclStubOpIgnore(c, row->y2 - 1);
        }
    }
    if (total == 0) return aclStubOpNothingToDo(c);
    return OK;
}

/* ---- the table ------------------------------------------------------------------------------------------------ */

#define IN(n, dt) {n, ACLSTUB_INPUT, dt, NULL, 0, 0, 0}
#define OPT(n, dt) {n, ACLSTUB_OPTIONAL_INPUT, dt, NULL, 0, 0, 0}
#define OUT(n, dt, same) {n, ACLSTUB_OUTPUT, dt, same, 0, 0, 0}
#define REF(n, dt, same) {n, ACLSTUB_INPLACE, dt, same, 0, 0, 0}
#define ATTR(n, role) {n, role, 0, NULL, 0, 0, 0}
#define F ACLSTUB_DT_FLOATS
#define F32 ACLSTUB_DT(ACL_FLOAT)
#define I8 ACLSTUB_DT(ACL_INT8)
#define F16S (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))

static const aclStubParam P_RMS[] = {IN("x", F), IN("gamma", F), ATTR("epsilon", ACLSTUB_FLOAT),
                                     OUT("yOut", F, "x"), OUT("rstdOut", F32, NULL)};
static const Row R_RMS = {.x1 = 1, .gamma = 2, .eps = 3, .y = 4, .rstd = 5};
static const Row R_GEMMA = {.x1 = 1, .gamma = 2, .eps = 3, .y = 4, .rstd = 5, .gemma = true};

static const aclStubParam P_GRAD[] = {IN("dy", F), {"x", ACLSTUB_INPUT, F, "dy", 0, 0, 0},
                                      IN("rstd", F32), IN("gamma", F),
                                      OUT("dxOut", F, "dy"), OUT("dgammaOut", F32, NULL)};
static const Row R_GRAD = {.dy = 1, .x1 = 2, .rstd = 3, .gamma = 4, .y = 5, .y2 = 6, .grad = true};

static const aclStubParam P_ADD[] = {IN("x1", F), IN("x2", F), IN("gamma", F),
                                     ATTR("epsilon", ACLSTUB_FLOAT), OUT("yOut", F, "x1"),
                                     OUT("rstdOut", F32, NULL), OUT("xOut", F, "x1")};
static const Row R_ADD = {.x1 = 1, .x2 = 2, .gamma = 3, .eps = 4, .y = 5, .rstd = 6, .xout = 7};

static const aclStubParam P_INPLACE[] = {REF("x1Ref", F, NULL), REF("x2Ref", F, "x1Ref"),
                                         IN("gamma", F), ATTR("epsilon", ACLSTUB_FLOAT),
                                         OUT("rstdOut", F32, NULL)};
static const Row R_INPLACE = {.x1 = 1, .x2 = 2, .gamma = 3, .eps = 4, .y = 1, .rstd = 5, .xout = 2};

static const aclStubParam P_CAST[] = {IN("x1", F), IN("x2", F), IN("gamma", F),
                                      ATTR("epsilon", ACLSTUB_FLOAT), OUT("y1Out", F32, NULL),
                                      OUT("y2Out", F, "x1"), OUT("rstdOut", F32, NULL),
                                      OUT("xOut", F, "x1")};
static const Row R_CAST = {.x1 = 1, .x2 = 2, .gamma = 3, .eps = 4, .y = 5, .y2 = 6, .rstd = 7, .xout = 8,
                           .cast = true};

static const aclStubParam P_QUANT[] = {
    IN("x1", F), IN("x2", F), IN("gamma", F), IN("scales1", F),
    OPT("scales2Optional", F), OPT("zeroPoints1Optional", F | ACLSTUB_DT(ACL_INT32)),
    OPT("zeroPoints2Optional", F | ACLSTUB_DT(ACL_INT32)), ATTR("axis", ACLSTUB_INT),
    ATTR("epsilon", ACLSTUB_FLOAT), ATTR("divMode", ACLSTUB_BOOL), OUT("y1Out", I8, NULL),
    OUT("y2Out", I8, NULL), OUT("xOut", F, "x1")};
static const Row R_QUANT = {.x1 = 1, .x2 = 2, .gamma = 3, .scales1 = 4, .scales2 = 5, .zp1 = 6, .zp2 = 7,
                            .eps = 9, .div = 10, .y = 11, .y2 = 12, .xout = 13, .quant = true};

static const aclStubParam P_DYNQ[] = {
    IN("x1", F), IN("x2", F), IN("gamma", F),
    OPT("smoothScale1Optional", F), OPT("smoothScale2Optional", F),
    ATTR("epsilon", ACLSTUB_FLOAT), OUT("y1Out", I8, NULL), OUT("y2Out", I8, NULL),
    OUT("xOut", F, "x1"), OUT("scale1Out", F32, NULL), OUT("scale2Out", F32, NULL)};
static const Row R_DYNQ = {.x1 = 1, .x2 = 2, .gamma = 3, .smooth1 = 4, .smooth2 = 5, .eps = 6, .y = 7, .y2 = 8,
                           .xout = 9, .qscale1 = 10, .qscale2 = 11, .quant = true, .dynamic = true};

/* RmsNormQuant (Atlas A2/A3): x FLOAT16 or BF16, gamma, beta and scale x's dtype, offset INT8, y INT8 */
static const aclStubParam P_RMSQ[] = {IN("x", F16S), {"gamma", ACLSTUB_INPUT, F16S, "x", 0, 0, 0},
                                      {"beta", ACLSTUB_INPUT, F16S, "x", 0, 0, 0},
                                      {"scale", ACLSTUB_INPUT, F16S, "x", 0, 0, 0}, IN("offset", I8),
                                      ATTR("epsilon", ACLSTUB_FLOAT), OUT("y", I8, NULL)};
static const Row R_RMSQ = {.x1 = 1, .gamma = 2, .beta = 3, .scales1 = 4, .zp1 = 5, .eps = 6, .y = 7, .quant = true,
                           .always_div = true, .last_dim = true};

/* RmsNormDynamicQuant: x, gamma, smoothScales, beta FLOAT16 or BF16 (one dtype), yOut INT8, scaleOut FLOAT */
static const aclStubParam P_RMSDQ[] = {IN("x", F16S), {"gamma", ACLSTUB_INPUT, F16S, "x", 0, 0, 0},
                                       {"smoothScalesOptional", ACLSTUB_OPTIONAL_INPUT, F16S, "x", 0, 0, 0},
                                       {"betaOptional", ACLSTUB_OPTIONAL_INPUT, F16S, "x", 0, 0, 0},
                                       ATTR("epsilon", ACLSTUB_FLOAT), ATTR("dstType", ACLSTUB_INT),
                                       OUT("yOut", I8, NULL), OUT("scaleOut", F32, NULL)};
static const Row R_RMSDQ = {.x1 = 1, .gamma = 2, .smooth1 = 3, .beta = 4, .eps = 5, .dst_type = 6, .y = 7,
                            .qscale1 = 8, .quant = true, .dynamic = true, .last_dim = true};

#define DEF(var, name, params, row) \
    static const aclStubFamilyOp var = {{name, params, ACLSTUB_LEN(params), NULL, check, kernel, sizeof(Plan)}, &row}
DEF(OP_RMS, "aclnnRmsNorm", P_RMS, R_RMS);
DEF(OP_GEMMA, "aclnnGemmaRmsNorm", P_RMS, R_GEMMA);
DEF(OP_GRAD, "aclnnRmsNormGrad", P_GRAD, R_GRAD);
DEF(OP_ADD, "aclnnAddRmsNorm", P_ADD, R_ADD);
DEF(OP_INPLACE, "aclnnInplaceAddRmsNorm", P_INPLACE, R_INPLACE);
DEF(OP_CAST, "aclnnAddRmsNormCast", P_CAST, R_CAST);
DEF(OP_QUANT, "aclnnAddRmsNormQuant", P_QUANT, R_QUANT);
DEF(OP_DYNQ, "aclnnAddRmsNormDynamicQuant", P_DYNQ, R_DYNQ);
DEF(OP_RMSQ, "aclnnRmsNormQuant", P_RMSQ, R_RMSQ);
DEF(OP_RMSDQ, "aclnnRmsNormDynamicQuant", P_RMSDQ, R_RMSDQ);

#define T_(n) (const aclTensor *, n)
#define M_(n) (aclTensor *, n)
ACLSTUB_DEFINE_OP(aclnnRmsNorm, OP_RMS.def, T_(x), T_(gamma), (double, epsilon), T_(yOut), T_(rstdOut))
ACLSTUB_DEFINE_OP(aclnnGemmaRmsNorm, OP_GEMMA.def, T_(x), T_(gamma), (double, epsilon), T_(yOut), T_(rstdOut))
ACLSTUB_DEFINE_OP(aclnnRmsNormGrad, OP_GRAD.def, T_(dy), T_(x), T_(rstd), T_(gamma), T_(dxOut), T_(dgammaOut))
ACLSTUB_DEFINE_OP(aclnnAddRmsNorm, OP_ADD.def, T_(x1), T_(x2), T_(gamma), (double, epsilon), M_(yOut), M_(rstdOut),
                  M_(xOut))
ACLSTUB_DEFINE_OP(aclnnInplaceAddRmsNorm, OP_INPLACE.def, M_(x1Ref), M_(x2Ref), T_(gamma), (double, epsilon),
                  T_(rstdOut))
ACLSTUB_DEFINE_OP(aclnnAddRmsNormCast, OP_CAST.def, T_(x1), T_(x2), T_(gamma), (double, epsilon), T_(y1Out),
                  T_(y2Out), T_(rstdOut), T_(xOut))
ACLSTUB_DEFINE_OP(aclnnAddRmsNormQuant, OP_QUANT.def, T_(x1), T_(x2), T_(gamma), T_(scales1), T_(scales2Optional),
                  T_(zeroPoints1Optional), T_(zeroPoints2Optional), (int64_t, axis), (double, epsilon),
                  (bool, divMode), M_(y1Out), M_(y2Out), M_(xOut))
ACLSTUB_DEFINE_OP(aclnnAddRmsNormDynamicQuant, OP_DYNQ.def, T_(x1), T_(x2), T_(gamma), T_(smoothScale1Optional),
                  T_(smoothScale2Optional), (double, epsilon), M_(y1Out), M_(y2Out), M_(xOut), M_(scale1Out),
                  M_(scale2Out))
ACLSTUB_DEFINE_OP(aclnnRmsNormQuant, OP_RMSQ.def, T_(x), T_(gamma), T_(beta), T_(scale), T_(offset),
                  (double, epsilon), M_(y))
ACLSTUB_DEFINE_OP(aclnnRmsNormDynamicQuant, OP_RMSDQ.def, T_(x), T_(gamma), T_(smoothScalesOptional),
                  T_(betaOptional), (double, epsilon), (int64_t, dstType), T_(yOut), T_(scaleOut))
