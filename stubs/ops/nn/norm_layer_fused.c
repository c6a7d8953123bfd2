/*
 * The fused layer norms of ops-nn norm/: AddLayerNorm, DeepNorm, AdaLayerNorm (V1, V2 and Quant), LayerNormQuant and the
 * backward operators AddLayerNormGrad, DeepNormGrad and AdaLayerNormBackward. One table row per operator names the parameters in their roles; one
 * check and two kernels (forward, backward) serve them all.
 *
 * A row is the trailing n elements of x (n = numel(gamma), or x's last dimension for AdaLayerNorm). Everything is
 * computed in float32 from the widened inputs:
 *   v = alpha * x1 + x2 + bias           (DeepNorm: alpha * x + gx; AddLayerNorm: x1 + x2 + bias; Ada: x)
 *   mean = sum(v) / n, var = sum((v - mean)^2) / n, rstd = 1 / sqrt(var + eps)    (sums: aclStubSumF32's order)
 *   y = ((v - mean) * rstd) * gamma + beta, then for AdaLayerNorm y * (1 + scale[b]) + shift[b], b the batch of
 *   the row (x is [B..., S, H]; scale and shift [B..., H] or [B..., 1, H]); LayerNormQuant (static, its only mode)
 *   writes round(y / scale + zeroPoint) saturated to INT8 (half to even), scale and zero point one element each;
 *   AdaLayerNormQuant quantises each row of y * smoothScales dynamically (aclStubRowQuantInt8Dynamic: the row's
 *   scale max|v| / 127 in quantScale).
 * Backward (xhat = (v - mean) * rstd with the given mean and rstd, g = dy * gamma):
 *   dv = rstd * ((g - sum(g) / n) - xhat * sum(g * xhat) / n) (+ dsum);  DeepNormGrad: dgx = dv, dx = alpha * dgx;
 *   dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy (each column's terms in row order, added in
 *   aclStubSumF32's order), so no result depends on the thread count.
 *   AdaLayerNormBackward (k = 1 + scale[b]): g = dy * gamma * k, dx as above, dgamma = sum of dy * k * xhat, dbeta =
 *   sum of dy * k over every row; dscale[b] = sum of dy * (xhat * gamma + beta), dshift[b] = sum of dy over the S
 *   rows of batch b.
 * Each result is rounded once to its output's dtype.
 *
 * Checks. The operators with generated entry points (AddLayerNorm, AddLayerNormGrad, DeepNorm, DeepNormGrad) take
 * their OpDef's dtype combinations (161002) and then their tiling's shape rules (ACLNN_ERR_INNER_TILING_ERROR, or
 * 161002 where the document names it); AdaLayerNorm and V2 follow their op_api (dtypes, then shapes, 161002).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_ada_layer_norm.h"
#include "aclnnop/aclnn_ada_layer_norm_backward.h"
#include "aclnnop/aclnn_ada_layer_norm_quant.h"
#include "aclnnop/aclnn_ada_layer_norm_v2.h"
#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_layer_norm_grad.h"
#include "aclnnop/aclnn_deep_norm.h"
#include "aclnnop/aclnn_deep_norm_grad.h"
#include "aclnnop/aclnn_layer_norm_quant.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define TILING ACLNN_ERR_INNER_TILING_ERROR
#define MAXC 12 /* parameters a dtype combination covers */

enum { F32 = ACL_FLOAT, F16 = ACL_FLOAT16, B16 = ACL_BF16, NONE = -1 };

/* Parameter indices of an operator's roles, plus one (0: none). */
typedef struct {
    int x1, x2, bias, gamma, beta, scale, shift; /* forward inputs (Ada: scale and shift) */
    int eps, alpha, addout;                      /* attributes */
    int y, mean, rstd, xout;                     /* forward outputs; the backward reads mean and rstd */
    int dy, dsum, dx, dgx, dgamma, dbeta;        /* backward */
    int dscale, dshift, nshape;                  /* AdaLayerNormBackward */
    int qscale, qzero, qmode;                    /* LayerNormQuant */
    int smooth, dscale_out, qoffset;             /* AdaLayerNormQuant: smoothScales, quantScale, quantOffsetOptional */
    bool ada, grad, generated;
    aclnnStatus shape_status;                    /* the status of the shape rules */
    float alpha_default;
    /* OpDef dtype combinations: combos[k][i] is the dtype of parameter cparams[i] - 1 (an absent optional skips) */
    int ncombos, ncparams;
    int cparams[MAXC];
    const int8_t (*combos)[MAXC];
} Row;

typedef struct {
    int64_t rows, n, seq; /* seq: Ada's S (rows of one batch) */
    float eps, alpha;
} Plan;

#include "norm_rows.h"
    for (int64_t j = 0; j < n; j++) aclStubStorePtrF32(t->dtype, aclStubElemAt(t, r * n + j), src[j]);
}

static void load_vec(float *dst, const aclStubTensorDesc *t, int64_t n, float fill) {
    if (t == NULL) {
        for (int64_t j = 0; j < n; j++) dst[j] = fill;
        return;
    }
    load_row(dst, t, 0, n);
}

/* v = alpha * x1 + x2 + bias for row r (t: n floats of scratch) */
static void input_row(const aclStubOpCall *c, const Row *row, const Plan *p, const float *bias_vec, int64_t r,
                      float *v, float *t) {
    int64_t n = p->n;
    load_row(v, T(c, row->x1), r, n);
    if (row->alpha)
        for (int64_t j = 0; j < n; j++) v[j] *= p->alpha;
    if (row->x2) {
        load_row(t, T(c, row->x2), r, n);
        for (int64_t j = 0; j < n; j++) v[j] += t[j];
    }
    const aclStubTensorDesc *b = T(c, row->bias);
    if (b) {
        if (bias_vec == NULL) {
            load_row(t, b, r, n);
            bias_vec = t;
        }
        for (int64_t j = 0; j < n; j++) v[j] += bias_vec[j];
    }
}

/* ---- forward ------------------------------------------------------------------------------------------------- */

typedef struct {
    const aclStubOpCall *c;
    const Row *row;
    const Plan *p;
    const float *gamma, *beta, *bias; /* bias: NULL unless a per-channel vector */
    float qs, qz;                     /* LayerNormQuant: scale and zero point */
    float *dyx, *dys, *dsc, *dsh;     /* backward: staged dy * k * xhat, dy * k, dy * (xhat * g + b), dy (rows x n) */
    int failed;
} Ctx;

static void forward_rows(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const aclStubOpCall *c = x->c;
    const Row *row = x->row;
    const Plan *p = x->p;
    int64_t n = p->n;
    float *buf = malloc((size_t)(3 * n + 1) * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *v = buf, *t = buf + n, *u = buf + 2 * n;
    const aclStubTensorDesc *mo = T(c, row->mean), *ro = T(c, row->rstd), *xo = T(c, row->xout);
    const aclStubTensorDesc *sc = T(c, row->scale), *sh = T(c, row->shift);
    for (int64_t r = begin; r < end; r++) {
        input_row(c, row, p, x->bias, r, v, t);
        if (xo) store_row(xo, r, v, n);
        float mean = aclStubSumF32(v, n) / (float)n;
        for (int64_t j = 0; j < n; j++) t[j] = (v[j] - mean) * (v[j] - mean);
        float rstd = 1.0f / sqrtf(aclStubSumF32(t, n) / (float)n + p->eps);
        for (int64_t j = 0; j < n; j++) t[j] = ((v[j] - mean) * rstd) * x->gamma[j] + x->beta[j];
        if (row->ada) {
            int64_t b = r / p->seq;
            load_row(u, sc, b, n);
            for (int64_t j = 0; j < n; j++) t[j] *= 1.0f + u[j];
            load_row(u, sh, b, n);
            for (int64_t j = 0; j < n; j++) t[j] += u[j];
        }
        if (row->dscale_out) {
            int8_t *q = (int8_t *)u;
            float ds = aclStubRowQuantInt8Dynamic(q, t, x->bias, n); /* x->bias: the smooth scales here */
            const aclStubTensorDesc *so = T(c, row->dscale_out);
            aclStubStorePtrF32(so->dtype, aclStubElemAt(so, r), ds);
            for (int64_t j = 0; j < n; j++) *(int8_t *)aclStubElemAt(T(c, row->y), r * n + j) = q[j];
            continue;
        }
        if (row->qscale) {
            int8_t *q = (int8_t *)u;
            for (int64_t j = 0; j < n; j++) {
                float w = nearbyintf(t[j] / x->qs + x->qz);
                q[j] = w != w ? 0 : w > 127.0f ? 127 : w < -128.0f ? -128 : (int8_t)w;
            }
            for (int64_t j = 0; j < n; j++) *(int8_t *)aclStubElemAt(T(c, row->y), r * n + j) = q[j];
        } else {
            store_row(T(c, row->y), r, t, n);
        }
        if (mo) aclStubStorePtrF32(mo->dtype, aclStubElemAt(mo, r), mean);
        if (ro) aclStubStorePtrF32(ro->dtype, aclStubElemAt(ro, r), rstd);
    }
    free(buf);
}

/* ---- backward ------------------------------------------------------------------------------------------------ */

static void backward_rows(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const aclStubOpCall *c = x->c;
    const Row *row = x->row;
    const Plan *p = x->p;
    int64_t n = p->n;
    float *buf = malloc((size_t)(5 * n + 1) * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *v = buf, *dy = buf + n, *g = buf + 2 * n, *t = buf + 3 * n, *k = buf + 4 * n;
    const aclStubTensorDesc *mt = T(c, row->mean), *rt = T(c, row->rstd), *ds = T(c, row->dsum);
    const aclStubTensorDesc *dx = T(c, row->dx);
    for (int64_t r = begin; r < end; r++) {
        input_row(c, row, p, NULL, r, v, t);
        load_row(dy, T(c, row->dy), r, n);
        float mean = aclStubLoadPtrF32(mt->dtype, aclStubElemAt(mt, r));
        float rstd = aclStubLoadPtrF32(rt->dtype, aclStubElemAt(rt, r));
        if (row->ada) {
            load_row(k, T(c, row->scale), r / p->seq, n);
            for (int64_t j = 0; j < n; j++) k[j] += 1.0f;
        }
        for (int64_t j = 0; j < n; j++) {
            v[j] = (v[j] - mean) * rstd; /* xhat */
            g[j] = dy[j] * x->gamma[j];
        }
        if (row->ada) {
            for (int64_t j = 0; j < n; j++) {
                x->dsc[r * n + j] = dy[j] * (v[j] * x->gamma[j] + x->beta[j]);
                x->dsh[r * n + j] = dy[j];
                g[j] *= k[j];
                dy[j] *= k[j];
            }
        }
        float s1 = aclStubSumF32(g, n) / (float)n;
        for (int64_t j = 0; j < n; j++) t[j] = g[j] * v[j];
        float s2 = aclStubSumF32(t, n) / (float)n;
        for (int64_t j = 0; j < n; j++) t[j] = rstd * ((g[j] - s1) - v[j] * s2);
        if (ds) {
            load_row(g, ds, r, n);
            for (int64_t j = 0; j < n; j++) t[j] += g[j];
        }
        if (row->dgx) {
            store_row(T(c, row->dgx), r, t, n);
            for (int64_t j = 0; j < n; j++) t[j] *= p->alpha;
        }
        if (dx) store_row(dx, r, t, n);
        for (int64_t j = 0; j < n; j++) x->dyx[r * n + j] = dy[j] * v[j];
        memcpy(x->dys + r * n, dy, (size_t)n * sizeof(float));
    }
    free(buf);
}

/* column sums of the staged terms over segments of `seg` rows: out[s * n + j] = sum over the rows r of segment s
 * of a[r * n + j], in row order (an absent output: nothing) */
typedef struct {
    const float *a;
    int64_t seg, n;
    const aclStubTensorDesc *out;
    int failed;
} ColSum;

static void col_sums(void *arg, int64_t begin, int64_t end) {
    ColSum *s = arg;
    float *col = malloc((size_t)(s->seg + 1) * sizeof(float));
    if (col == NULL) {
        __atomic_store_n(&s->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t i = begin; i < end; i++) {
        int64_t sg = i / s->n, j = i % s->n;
        for (int64_t r = 0; r < s->seg; r++) col[r] = s->a[(sg * s->seg + r) * s->n + j];
        aclStubStorePtrF32(s->out->dtype, aclStubElemAt(s->out, i), aclStubSumF32(col, s->seg));
    }
    free(col);
}

static bool run_col_sums(const float *a, int64_t rows, int64_t seg, int64_t n, const aclStubTensorDesc *out) {
    if (out == NULL) return true;
    ColSum s = {a, seg, n, out, 0};
    aclStubParallelFor(rows / seg * n, 1 + 65536 / seg, col_sums, &s);
    return !s.failed;
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    const Plan *p = c->plan;
    int64_t n = p->n, total = p->rows * n;
    const aclStubTensorDesc *bias = T(c, row->bias);
    bool bias_vec = bias && aclStubNumel(bias) == n && p->rows > 1;
    size_t floats = 3 * (size_t)n + 1 + (row->grad ? (row->ada ? 4 : 2) * (size_t)total : 0);
    float *vec = aclStubKernelScratch(c, floats * sizeof(float));
    if (vec == NULL) return aclStubKernelOutOfMemory(c);
    Ctx x = {c, row, p, vec, vec + n, NULL, 0.0f, 0.0f, NULL, NULL, NULL, NULL, 0};
    if (row->qscale) {
        const aclStubTensorDesc *qs = T(c, row->qscale), *qz = T(c, row->qzero);
        x.qs = aclStubLoadPtrF32(qs->dtype, aclStubElemAt(qs, 0));
        x.qz = qz ? (float)*(const int8_t *)aclStubElemAt(qz, 0) : 0.0f;
    }
    load_vec(vec, T(c, row->gamma), n, 1.0f);
    load_vec(vec + n, T(c, row->beta), n, 0.0f);
    if (bias_vec) {
        load_vec(vec + 2 * n, bias, n, 0.0f);
        x.bias = vec + 2 * n;
    }
    if (row->smooth && T(c, row->smooth)) {
        load_vec(vec + 2 * n, T(c, row->smooth), n, 1.0f);
        x.bias = vec + 2 * n;
    }
    int64_t chunk = n > 0 ? 1 + 65536 / n : 1;
    if (!row->grad) {
        aclStubParallelFor(p->rows, chunk, forward_rows, &x);
        return x.failed ? aclStubKernelOutOfMemory(c) : OK;
    }
    x.dyx = vec + 3 * n;
    x.dys = x.dyx + total;
    if (row->ada) x.dsc = x.dys + total, x.dsh = x.dsc + total;
    aclStubParallelFor(p->rows, chunk, backward_rows, &x);
    if (x.failed) return aclStubKernelOutOfMemory(c);
    if (!run_col_sums(x.dyx, p->rows, p->rows, n, T(c, row->dgamma)) ||
        !run_col_sums(x.dys, p->rows, p->rows, n, T(c, row->dbeta)))
        return aclStubKernelOutOfMemory(c);
    if (row->ada && (!run_col_sums(x.dsc, p->rows, p->seq, n, T(c, row->dscale)) ||
                     !run_col_sums(x.dsh, p->rows, p->seq, n, T(c, row->dshift))))
        return aclStubKernelOutOfMemory(c);
    return OK;
}

/* ---- checks -------------------------------------------------------------------------------------------------- */

static aclnnStatus check_combos(aclStubOpCall *c, const Row *row) {
    for (int k = 0; k < row->ncombos; k++) {
        bool ok = true;
        for (int i = 0; i < row->ncparams && ok; i++) {
            const aclStubTensorDesc *t = T(c, row->cparams[i]);
            ok = t == NULL || row->combos[k][i] == NONE || (int)t->dtype == row->combos[k][i];
        }
        if (ok) return OK;
    }
    char text[512];
    size_t used = 0;
    for (int i = 0; i < row->ncparams && used < sizeof text; i++) {
        const aclStubTensorDesc *t = T(c, row->cparams[i]);
        if (t)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s %s", used ? ", " : "",
                                     NAME(c, row->cparams[i]), aclStubDtypeName(t->dtype));
    }
    return aclStubOpFail(c, INVALID, "the data types (%s) are not a combination the operator supports", text);
}

static aclnnStatus same_shape(aclStubOpCall *c, const Row *row, int i, const int64_t *dims, uint32_t nd,
                              const char *what) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(t->dims, t->ndim, dims, nd), c, row->shape_status,
                            "%s has shape %s; must be %s (%s)", NAME(c, i),
                            aclStubShapeText(t->dims, t->ndim, a, sizeof a), aclStubShapeText(dims, nd, b, sizeof b),
                            what);
    return OK;
}

static aclnnStatus same_dtype(aclStubOpCall *c, int i, int ref) {
    const aclStubTensorDesc *t = T(c, i), *r = T(c, ref);
    if (t == NULL || r == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(t->dtype != r->dtype, c, INVALID, "%s has data type %s; must be %s's %s", NAME(c, i),
                            aclStubDtypeName(t->dtype), NAME(c, ref), aclStubDtypeName(r->dtype));
    return OK;
}

/* AdaLayerNorm (V1 and V2): the op_api's dtype and shape rules */
static aclnnStatus check_ada(aclStubOpCall *c, const Row *row, Plan *p) {
    const aclStubTensorDesc *x = T(c, row->x1), *w = T(c, row->gamma), *b = T(c, row->beta);
    bool v2 = row->mean != 0, quant = row->dscale_out != 0;
    ACLSTUB_TRY(same_dtype(c, row->scale, row->x1));
    ACLSTUB_TRY(same_dtype(c, row->shift, row->x1));
    if (quant) { /* AdaLayerNormQuant: weight, bias and smoothScales x's dtype; out INT8 and quantScale FLOAT by the
                  * table; no quantOffsetOptional */
        ACLSTUB_TRY(same_dtype(c, row->gamma, row->x1));
        ACLSTUB_TRY(same_dtype(c, row->beta, row->x1));
        ACLSTUB_TRY(same_dtype(c, row->smooth, row->x1));
        ACLSTUB_RETURN_ERROR_IF(T(c, row->qoffset) != NULL, c, INVALID, "quantOffsetOptional must be NULL");
    }
    if (!quant) ACLSTUB_TRY(same_dtype(c, row->gamma, row->beta));
    if (w && (!v2 || w->dtype != ACL_FLOAT)) ACLSTUB_TRY(same_dtype(c, row->gamma, row->x1));
    if (b && (!v2 || b->dtype != ACL_FLOAT)) ACLSTUB_TRY(same_dtype(c, row->beta, row->x1));
    if (!quant) ACLSTUB_TRY(same_dtype(c, row->y, row->x1));
    ACLSTUB_TRY(same_dtype(c, row->mean, row->x1));
    ACLSTUB_TRY(same_dtype(c, row->rstd, row->x1));
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2 || x->ndim > 8, c, INVALID, "x has %u dimensions; must have 2 to 8", x->ndim);
    int64_t B = 1, S = x->dims[x->ndim - 2], H = x->dims[x->ndim - 1];
    for (uint32_t d = 0; d + 2 < x->ndim; d++) B *= x->dims[d];
    ACLSTUB_RETURN_ERROR_IF(B <= 0 || S <= 0 || H <= 0, c, INVALID, "x's sizes must be greater than 0");
    int64_t e1[ACLSTUB_MAX_DIMS], e2[ACLSTUB_MAX_DIMS];
    for (uint32_t d = 0; d + 2 < x->ndim; d++) e1[d] = e2[d] = x->dims[d];
    e1[x->ndim - 2] = 1, e1[x->ndim - 1] = H, e2[x->ndim - 2] = H;
    for (int k = 0; k < 2; k++) {
        int i = k ? row->shift : row->scale;
        const aclStubTensorDesc *t = T(c, i);
        char a[128], s1[128], s2[128];
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(t->dims, t->ndim, e1, x->ndim) &&
                                    !aclStubShapeEqual(t->dims, t->ndim, e2, x->ndim - 1),
                                c, INVALID, "%s has shape %s; must be %s or %s", NAME(c, i),
                                aclStubShapeText(t->dims, t->ndim, a, sizeof a),
                                aclStubShapeText(e1, x->ndim, s1, sizeof s1),
                                aclStubShapeText(e2, x->ndim - 1, s2, sizeof s2));
    }
    int64_t h[1] = {H};
    ACLSTUB_TRY(same_shape(c, row, row->gamma, h, 1, "[H], H the last dimension of x"));
    ACLSTUB_TRY(same_shape(c, row, row->beta, h, 1, "[H], H the last dimension of x"));
    ACLSTUB_TRY(same_shape(c, row, row->smooth, h, 1, "[H], H the last dimension of x"));
    ACLSTUB_TRY(same_shape(c, row, row->y, x->dims, x->ndim, "x's"));
    if (quant) {
        ACLSTUB_TRY(same_shape(c, row, row->dscale_out, x->dims, x->ndim - 1, "x's without its last dimension"));
        const char *mode = c->v[row->qmode - 1].s;
        ACLSTUB_RETURN_ERROR_IF(mode != NULL && strcmp(mode, "dynamic") != 0, c, INVALID, "quantMode is \"%s\"; only "
                                "\"dynamic\" is supported", mode);
    }
    int64_t st[ACLSTUB_MAX_DIMS];
    memcpy(st, x->dims, sizeof(int64_t) * x->ndim);
    st[x->ndim - 1] = 1;
    ACLSTUB_TRY(same_shape(c, row, row->mean, st, x->ndim, "x's with the last dimension 1"));
    ACLSTUB_TRY(same_shape(c, row, row->rstd, st, x->ndim, "x's with the last dimension 1"));
    p->n = H;
    p->seq = S;
    p->rows = B * S;
    return OK;
}

/* AdaLayerNormBackward: the op_api's dtype rules, then its shape rules (161002) */
static aclnnStatus check_ada_grad(aclStubOpCall *c, const Row *row, Plan *p) {
    const aclStubTensorDesc *x = T(c, row->x1), *w = T(c, row->gamma), *b = T(c, row->beta);
    int rest[] = {row->x1, row->rstd, row->mean, row->scale, row->shift};
    for (size_t i = 0; i < ACLSTUB_LEN(rest); i++) ACLSTUB_TRY(same_dtype(c, rest[i], row->dy));
    if (w && w->dtype != ACL_FLOAT) ACLSTUB_TRY(same_dtype(c, row->gamma, row->x1));
    if (b && b->dtype != ACL_FLOAT) ACLSTUB_TRY(same_dtype(c, row->beta, row->x1));
    ACLSTUB_TRY(same_dtype(c, row->gamma, row->beta));
    ACLSTUB_TRY(same_dtype(c, row->dx, row->x1));
    ACLSTUB_TRY(same_dtype(c, row->dscale, row->scale));
    ACLSTUB_TRY(same_dtype(c, row->dshift, row->shift));
    for (int k = 0; k < 2; k++) { /* gradWeightOut, gradBiasOut: weight's, else bias's, else FLOAT or input's */
        int o = k ? row->dbeta : row->dgamma;
        if (T(c, o) == NULL) continue;
        if (w || b) ACLSTUB_TRY(same_dtype(c, o, w ? row->gamma : row->beta));
        else if (T(c, o)->dtype != ACL_FLOAT) ACLSTUB_TRY(same_dtype(c, o, row->x1));
    }
    int all[] = {row->dy, row->x1, row->mean, row->rstd, row->scale, row->shift, row->dx, row->dscale, row->dshift,
                 row->dgamma, row->dbeta};
    for (size_t i = 0; i < ACLSTUB_LEN(all); i++) {
        const aclStubTensorDesc *t = T(c, all[i]);
        ACLSTUB_RETURN_ERROR_IF(t && t->ndim > 8, c, INVALID, "%s has %u dimensions; must have at most 8",
                                NAME(c, all[i]), t->ndim);
    }
    ACLSTUB_TRY(same_shape(c, row, row->dy, x->dims, x->ndim, "input's"));
    const aclStubTensorDesc *m = T(c, row->mean);
    ACLSTUB_TRY(same_shape(c, row, row->rstd, m->dims, m->ndim, "mean's"));
    const aclStubValue *ns = &c->v[row->nshape - 1];
    ACLSTUB_RETURN_ERROR_IF(ns->size != 1, c, INVALID, "normalizedShape has %llu entries; must have 1",
                            (unsigned long long)ns->size);
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2, c, INVALID, "input has %u dimensions; must have at least 2", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(ns->ints[0] != x->dims[x->ndim - 1], c, INVALID, "normalizedShape[0] = %lld must equal "
                            "input's last dimension %lld", (long long)ns->ints[0], (long long)x->dims[x->ndim - 1]);
    for (int k = 0; k < 2; k++) {
        const aclStubTensorDesc *t = k ? b : w;
        ACLSTUB_RETURN_ERROR_IF(t && (t->ndim > 8 || t->ndim != 1), c, INVALID, "%s has %u dimensions; must have 1 "
                                "(normalizedShape's length)", NAME(c, k ? row->beta : row->gamma), t->ndim);
    }
    /* scale, shift, mean and the outputs: as AdaLayerNorm's forward and the op_api give them */
    int64_t B = 1, S = x->dims[x->ndim - 2], H = x->dims[x->ndim - 1];
    for (uint32_t d = 0; d + 2 < x->ndim; d++) B *= x->dims[d];
    ACLSTUB_RETURN_ERROR_IF(B <= 0 || S <= 0 || H <= 0, c, INVALID, "input's sizes must be greater than 0");
    int64_t e1[ACLSTUB_MAX_DIMS], e2[ACLSTUB_MAX_DIMS];
    for (uint32_t d = 0; d + 2 < x->ndim; d++) e1[d] = e2[d] = x->dims[d];
    e1[x->ndim - 2] = 1, e1[x->ndim - 1] = H, e2[x->ndim - 2] = H;
    for (int k = 0; k < 2; k++) {
        const aclStubTensorDesc *t = T(c, k ? row->shift : row->scale);
        char a[128], s1[128], s2[128];
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(t->dims, t->ndim, e1, x->ndim) &&
                                    !aclStubShapeEqual(t->dims, t->ndim, e2, x->ndim - 1),
                                c, INVALID, "%s has shape %s; must be %s or %s", NAME(c, k ? row->shift : row->scale),
                                aclStubShapeText(t->dims, t->ndim, a, sizeof a),
                                aclStubShapeText(e1, x->ndim, s1, sizeof s1),
                                aclStubShapeText(e2, x->ndim - 1, s2, sizeof s2));
    }
    int64_t st[ACLSTUB_MAX_DIMS];
    memcpy(st, x->dims, sizeof(int64_t) * x->ndim);
    st[x->ndim - 1] = 1;
    ACLSTUB_TRY(same_shape(c, row, row->mean, st, x->ndim, "input's with the last dimension 1"));
    ACLSTUB_TRY(same_shape(c, row, row->dx, x->dims, x->ndim, "input's"));
    const aclStubTensorDesc *sc = T(c, row->scale), *sh = T(c, row->shift);
    ACLSTUB_TRY(same_shape(c, row, row->dscale, sc->dims, sc->ndim, "scale's"));
    ACLSTUB_TRY(same_shape(c, row, row->dshift, sh->dims, sh->ndim, "shift's"));
    for (int k = 0; k < 2; k++) {
        const aclStubTensorDesc *t = T(c, k ? row->dbeta : row->dgamma);
        ACLSTUB_RETURN_ERROR_IF(t && aclStubNumel(t) != H, c, INVALID, "%s has %lld elements; must have %lld",
                                NAME(c, k ? row->dbeta : row->dgamma), (long long)aclStubNumel(t), (long long)H);
    }
    p->n = H;
    p->seq = S;
    p->rows = B * S;
    if (!T(c, row->dx) && !T(c, row->dscale) && !T(c, row->dshift) && !T(c, row->dgamma) && !T(c, row->dbeta))
        return aclStubOpNothingToDo(c);
    return OK;
}

/* LayerNormQuant (Atlas A2/A3): the op_api's NULL, dtype and shape rules; a row is x's last dimension */
static aclnnStatus check_layer_norm_quant(aclStubOpCall *c, const Row *row, Plan *p) {
    int64_t mode = aclStubOpInt(c, row->qmode - 1);
    const aclStubTensorDesc *x = T(c, row->x1), *g = T(c, row->gamma), *b = T(c, row->beta), *s = T(c, row->qscale);
    const aclStubTensorDesc *z = T(c, row->qzero), *y = T(c, row->y);
    ACLSTUB_RETURN_ERROR_IF(mode == 0 && z == NULL, c, ACLNN_ERR_PARAM_NULLPTR, "zeroPointsOptional must not be NULL "
                            "with quantMode 0");
    ACLSTUB_TRY(same_dtype(c, row->gamma, row->x1));
    ACLSTUB_TRY(same_dtype(c, row->beta, row->x1));
    ACLSTUB_TRY(same_dtype(c, row->qscale, row->x1));
    ACLSTUB_RETURN_ERROR_IF(x->ndim > 8, c, INVALID, "x has %u dimensions; must have at most 8", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(g->ndim > 2, c, INVALID, "gammma has %u dimensions; must have at most 2", g->ndim);
    ACLSTUB_RETURN_ERROR_IF(mode != 0, c, INVALID, "quantMode is %lld; only the static mode 0 is supported",
                            (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 1 || g->ndim < 1 || x->dims[x->ndim - 1] != g->dims[g->ndim - 1], c, INVALID,
                            "gammma's last dimension must equal x's last dimension");
    ACLSTUB_TRY(same_shape(c, row, row->beta, g->dims, g->ndim, "gammma's"));
    ACLSTUB_RETURN_ERROR_IF(s->ndim != 1 || s->dims[0] != 1, c, INVALID, "scale must have shape [1]");
    ACLSTUB_RETURN_ERROR_IF(z && z->ndim != s->ndim, c, INVALID, "zeroPointsOptional must have scale's rank");
    ACLSTUB_TRY(same_shape(c, row, row->y, x->dims, x->ndim, "x's"));
    (void)b, (void)y;
    p->n = x->dims[x->ndim - 1];
    p->rows = p->n > 0 ? aclStubNumel(x) / p->n : 0;
    p->seq = 1;
    p->eps = (float)aclStubOpFloat(c, row->eps - 1);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    Plan *p = c->plan;
    p->eps = row->eps ? (float)aclStubOpFloat(c, row->eps - 1) : 0.0f;
    p->alpha = row->alpha ? (float)aclStubOpFloat(c, row->alpha - 1) : 1.0f;
    if (row->ncombos) ACLSTUB_TRY(check_combos(c, row));
    if (row->qscale) return check_layer_norm_quant(c, row, p);
    if (row->ada) return row->grad ? check_ada_grad(c, row, p) : check_ada(c, row, p);
    const aclStubTensorDesc *x = T(c, row->x1), *g = T(c, row->gamma);
    aclnnStatus st = row->shape_status;
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 1 || x->ndim > 8, c, st, "%s has %u dimensions; must have 1 to 8",
                            NAME(c, row->x1), x->ndim);
    ACLSTUB_RETURN_ERROR_IF(g->ndim < 1 || g->ndim > x->ndim, c, st, "gamma has %u dimensions; must have 1 to %s's %u",
                            g->ndim, NAME(c, row->x1), x->ndim);
    for (uint32_t d = 0; d < g->ndim; d++) {
        int64_t xd = x->dims[x->ndim - g->ndim + d];
        ACLSTUB_RETURN_ERROR_IF(g->dims[d] != xd, c, st, "gamma.shape[%u] = %lld must equal %s's trailing dimension "
                                "%lld (gamma's shape is the normalised dimensions)", d, (long long)g->dims[d],
                                NAME(c, row->x1), (long long)xd);
    }
    for (uint32_t d = 0; d < x->ndim; d++)
        ACLSTUB_RETURN_ERROR_IF(x->dims[d] == 0, c, st, "%s.shape[%u] is 0; the operator takes no empty dimension",
                                NAME(c, row->x1), d);
    const char *xs = "x1's";
    ACLSTUB_TRY(same_shape(c, row, row->x2, x->dims, x->ndim, xs));
    ACLSTUB_TRY(same_shape(c, row, row->beta, g->dims, g->ndim, "gamma's"));
    ACLSTUB_TRY(same_shape(c, row, row->dy, x->dims, x->ndim, xs));
    ACLSTUB_TRY(same_shape(c, row, row->dsum, x->dims, x->ndim, xs));
    ACLSTUB_TRY(same_shape(c, row, row->y, x->dims, x->ndim, xs));
    ACLSTUB_TRY(same_shape(c, row, row->xout, x->dims, x->ndim, xs));
    ACLSTUB_TRY(same_shape(c, row, row->dx, x->dims, x->ndim, xs));
    ACLSTUB_TRY(same_shape(c, row, row->dgx, x->dims, x->ndim, xs));
    ACLSTUB_TRY(same_shape(c, row, row->dgamma, g->dims, g->ndim, "gamma's"));
    ACLSTUB_TRY(same_shape(c, row, row->dbeta, g->dims, g->ndim, "gamma's"));
    const aclStubTensorDesc *b = T(c, row->bias);
    if (b) {
        char a[128];
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(b->dims, b->ndim, g->dims, g->ndim) &&
                                    !aclStubShapeEqual(b->dims, b->ndim, x->dims, x->ndim),
                                c, st, "biasOptional has shape %s; must be gamma's or x1's",
                                aclStubShapeText(b->dims, b->ndim, a, sizeof a));
    }
    /* mean and rstd: x's shape with the normalised dimensions 1 */
    int64_t want[ACLSTUB_MAX_DIMS];
    for (uint32_t d = 0; d < x->ndim; d++) want[d] = d + g->ndim >= x->ndim ? 1 : x->dims[d];
    ACLSTUB_TRY(same_shape(c, row, row->mean, want, x->ndim, "x's with the normalised dimensions 1"));
    ACLSTUB_TRY(same_shape(c, row, row->rstd, want, x->ndim, "x's with the normalised dimensions 1"));
    p->n = aclStubNumel(g);
    p->rows = aclStubNumel(x) / p->n;
    p->seq = 1;
    if (row->addout && !aclStubOpBool(c, row->addout - 1)) aclStubOpIgnore(c, row->xout - 1); /* x not written */
    return OK;
}

/* ---- the table ------------------------------------------------------------------------------------------------ */

#define IN(n, dt) {n, ACLSTUB_INPUT, dt, NULL, 0, 0, 0}
#define OPT(n, dt) {n, ACLSTUB_OPTIONAL_INPUT, dt, NULL, 0, 0, 0}
#define OUT(n, dt) {n, ACLSTUB_OUTPUT, dt, NULL, 0, 0, 0}
#define OUTOPT(n, dt) {n, ACLSTUB_OPTIONAL_OUTPUT, dt, NULL, 0, 0, 0}
#define ATTR(n, role) {n, role, 0, NULL, 0, 0, 0}
#define FL ACLSTUB_DT_FLOATS
#define FL32 ACLSTUB_DT(ACL_FLOAT)

/* AddLayerNorm: (x1, x2, gamma, beta, bias, y, x) per its OpDef (mean and rstd FLOAT) */
static const int8_t C_ADD[][MAXC] = {
    {F32, F16, F32, F32, F32, F32, F32}, {F32, B16, F32, F32, F32, F32, F32}, {F16, F32, F32, F32, F32, F32, F32},
    {B16, F32, F32, F32, F32, F32, F32}, {F16, F16, F32, F32, F16, F16, F16}, {B16, B16, F32, F32, B16, B16, B16},
    {F16, F16, F16, F16, F16, F16, F16}, {B16, B16, B16, B16, B16, B16, B16}, {F32, F32, F32, F32, F32, F32, F32}};
static const aclStubParam P_ADD[] = {IN("x1", FL), IN("x2", FL), IN("gamma", FL), IN("beta", FL),
                                     OPT("biasOptional", FL), ATTR("epsilon", ACLSTUB_FLOAT),
                                     ATTR("additionalOutput", ACLSTUB_BOOL), OUT("yOut", FL), OUT("meanOut", FL32),
                                     OUT("rstdOut", FL32), OUT("xOut", FL)};
static const Row R_ADD = {.x1 = 1, .x2 = 2, .gamma = 3, .beta = 4, .bias = 5, .eps = 6, .addout = 7, .y = 8, .mean = 9,
                          .rstd = 10, .xout = 11, .generated = true, .shape_status = TILING, .ncombos = 9,
                          .ncparams = 7, .cparams = {1, 2, 3, 4, 5, 8, 11}, .combos = C_ADD};

/* DeepNorm: x, gx, beta, gamma, y share one dtype (FLOAT16, FLOAT, BF16) */
static const aclStubParam P_DEEP[] = {IN("x", FL), {"gx", ACLSTUB_INPUT, FL, "x", 0, 0, 0},
                                      {"beta", ACLSTUB_INPUT, FL, "x", 0, 0, 0},
                                      {"gamma", ACLSTUB_INPUT, FL, "x", 0, 0, 0}, ATTR("alpha", ACLSTUB_FLOAT),
                                      ATTR("epsilon", ACLSTUB_FLOAT), OUT("meanOut", FL32), OUT("rstdOut", FL32),
                                      {"yOut", ACLSTUB_OUTPUT, FL, "x", 0, 0, 0}};
static const Row R_DEEP = {.x1 = 1, .x2 = 2, .beta = 3, .gamma = 4, .alpha = 5, .eps = 6, .mean = 7, .rstd = 8,
                           .y = 9, .generated = true, .shape_status = INVALID};

/* AddLayerNormGrad: dy, x1, x2, gamma, dsum, dx share one dtype; rstd, mean, dgamma, dbeta FLOAT */
static const aclStubParam P_ADDG[] = {IN("dy", FL), {"x1", ACLSTUB_INPUT, FL, "dy", 0, 0, 0},
                                      {"x2", ACLSTUB_INPUT, FL, "dy", 0, 0, 0}, IN("rstd", FL32), IN("mean", FL32),
                                      {"gamma", ACLSTUB_INPUT, FL, "dy", 0, 0, 0},
                                      {"dsumOptional", ACLSTUB_OPTIONAL_INPUT, FL, "dy", 0, 0, 0},
                                      {"dxOut", ACLSTUB_OUTPUT, FL, "dy", 0, 0, 0}, OUT("dgammaOut", FL32),
                                      OUT("dbetaOut", FL32)};
static const Row R_ADDG = {.dy = 1, .x1 = 2, .x2 = 3, .rstd = 4, .mean = 5, .gamma = 6, .dsum = 7, .dx = 8,
                           .dgamma = 9, .dbeta = 10, .grad = true, .generated = true, .shape_status = TILING};

/* DeepNormGrad: dy, x, gx, gamma, dx, dgx share one dtype; mean, rstd, dbeta, dgamma FLOAT */
static const aclStubParam P_DEEPG[] = {IN("dy", FL), {"x", ACLSTUB_INPUT, FL, "dy", 0, 0, 0},
                                       {"gx", ACLSTUB_INPUT, FL, "dy", 0, 0, 0},
                                       {"gamma", ACLSTUB_INPUT, FL, "dy", 0, 0, 0}, IN("mean", FL32),
                                       IN("rstd", FL32), ATTR("alpha", ACLSTUB_FLOAT),
                                       {"dxOut", ACLSTUB_OUTPUT, FL, "dy", 0, 0, 0},
                                       {"dgxOut", ACLSTUB_OUTPUT, FL, "dy", 0, 0, 0}, OUT("dbetaOut", FL32),
                                       OUT("dgammaOut", FL32)};
static const Row R_DEEPG = {.dy = 1, .x1 = 2, .x2 = 3, .gamma = 4, .mean = 5, .rstd = 6, .alpha = 7, .dx = 8,
                            .dgx = 9, .dbeta = 10, .dgamma = 11, .grad = true, .generated = true,
                            .shape_status = INVALID};

/* AdaLayerNorm (V1) and V2: the op_api's rules in check_ada */
static const aclStubParam P_ADA[] = {IN("x", FL), IN("scale", FL), IN("shift", FL), OPT("weightOptional", FL),
                                     OPT("biasOptional", FL), ATTR("epsilon", ACLSTUB_FLOAT), OUT("out", FL)};
static const Row R_ADA = {.x1 = 1, .scale = 2, .shift = 3, .gamma = 4, .beta = 5, .eps = 6, .y = 7, .ada = true,
                          .shape_status = INVALID};
static const aclStubParam P_ADA2[] = {IN("x", FL), IN("scale", FL), IN("shift", FL), OPT("weightOptional", FL),
                                      OPT("biasOptional", FL), ATTR("epsilon", ACLSTUB_FLOAT), OUT("out", FL),
                                      OUTOPT("meanOutOptional", FL), OUTOPT("rstdOutOptional", FL)};
static const Row R_ADA2 = {.x1 = 1, .scale = 2, .shift = 3, .gamma = 4, .beta = 5, .eps = 6, .y = 7, .mean = 8,
                           .rstd = 9, .ada = true, .shape_status = INVALID};

/* AdaLayerNormBackward: the op_api's rules in check_ada_grad */
static const aclStubParam P_ADAG[] = {IN("gradOut", FL), IN("input", FL),
                                      {"normalizedShape", ACLSTUB_INT_ARRAY, 0, NULL, 0, 0, 0}, IN("rstd", FL),
                                      IN("mean", FL), IN("scale", FL), IN("shift", FL), OPT("weightOptional", FL),
                                      OPT("biasOptional", FL), OUTOPT("gradInputOut", FL),
                                      OUTOPT("gradScaleOut", FL), OUTOPT("gradShiftOut", FL),
                                      OUTOPT("gradWeightOut", FL), OUTOPT("gradBiasOut", FL)};
static const Row R_ADAG = {.dy = 1, .x1 = 2, .nshape = 3, .rstd = 4, .mean = 5, .scale = 6, .shift = 7, .gamma = 8,
                           .beta = 9, .dx = 10, .dscale = 11, .dshift = 12, .dgamma = 13, .dbeta = 14, .ada = true,
                           .grad = true, .shape_status = INVALID};

/* LayerNormQuant: x FLOAT16 or BF16 (Atlas A2/A3), gammma, beta and scale x's dtype, zero point and res INT8 */
#define F16S (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))
static const aclStubParam P_LNQ[] = {IN("x", F16S), IN("gammma", FL), IN("beta", FL), IN("scale", FL),
                                     OPT("zeroPointsOptional", ACLSTUB_DT(ACL_INT8)), ATTR("quantMode", ACLSTUB_INT),
                                     ATTR("epsilon", ACLSTUB_FLOAT), OUT("res", ACLSTUB_DT(ACL_INT8)),
                                     OUTOPT("scaleOut", 0)};
static const Row R_LNQ = {.x1 = 1, .gamma = 2, .beta = 3, .qscale = 4, .qzero = 5, .qmode = 6, .eps = 7, .y = 8,
                          .shape_status = INVALID};

/* AdaLayerNormQuant (Atlas A2/A3): x FLOAT16 or BF16, out INT8, quantScale FLOAT; the op_api's rules in check_ada */
static const aclStubParam P_ADAQ[] = {IN("x", F16S), IN("scale", FL), IN("shift", FL), OPT("weightOptional", FL),
                                      OPT("biasOptional", FL), OPT("smoothScalesOptional", FL),
                                      ATTR("epsilon", ACLSTUB_FLOAT), {"quantMode", ACLSTUB_STRING, 0, NULL,
                                      ACLSTUB_NULLABLE, 0, 0}, OUT("out", ACLSTUB_DT(ACL_INT8)),
                                      OUT("quantScale", FL32), OUTOPT("quantOffsetOptional", 0)};
static const Row R_ADAQ = {.x1 = 1, .scale = 2, .shift = 3, .gamma = 4, .beta = 5, .smooth = 6, .eps = 7, .qmode = 8,
                           .y = 9, .dscale_out = 10, .qoffset = 11, .ada = true, .shape_status = INVALID};

#define DEF(var, name, params, row) \
    static const aclStubFamilyOp var = {{name, params, ACLSTUB_LEN(params), NULL, check, kernel, sizeof(Plan)}, &row}
DEF(OP_ADD, "aclnnAddLayerNorm", P_ADD, R_ADD);
DEF(OP_DEEP, "aclnnDeepNorm", P_DEEP, R_DEEP);
DEF(OP_ADDG, "aclnnAddLayerNormGrad", P_ADDG, R_ADDG);
DEF(OP_DEEPG, "aclnnDeepNormGrad", P_DEEPG, R_DEEPG);
DEF(OP_ADA, "aclnnAdaLayerNorm", P_ADA, R_ADA);
DEF(OP_ADA2, "aclnnAdaLayerNormV2", P_ADA2, R_ADA2);
DEF(OP_ADAG, "aclnnAdaLayerNormBackward", P_ADAG, R_ADAG);
DEF(OP_LNQ, "aclnnLayerNormQuant", P_LNQ, R_LNQ);
DEF(OP_ADAQ, "aclnnAdaLayerNormQuant", P_ADAQ, R_ADAQ);

#define T_(n) (const aclTensor *, n)
#define M_(n) (aclTensor *, n)
ACLSTUB_DEFINE_OP(aclnnAddLayerNorm, OP_ADD.def, T_(x1), T_(x2), T_(gamma), T_(beta), T_(biasOptional),
                  (double, epsilon), (bool, additionalOutput), T_(yOut), T_(meanOut), T_(rstdOut), T_(xOut))
ACLSTUB_DEFINE_OP(aclnnDeepNorm, OP_DEEP.def, T_(x), T_(gx), T_(beta), T_(gamma), (double, alpha), (double, epsilon),
                  T_(meanOut), T_(rstdOut), T_(yOut))
ACLSTUB_DEFINE_OP(aclnnAddLayerNormGrad, OP_ADDG.def, T_(dy), T_(x1), T_(x2), T_(rstd), T_(mean), T_(gamma),
                  T_(dsumOptional), T_(dxOut), T_(dgammaOut), T_(dbetaOut))
ACLSTUB_DEFINE_OP(aclnnDeepNormGrad, OP_DEEPG.def, T_(dy), T_(x), T_(gx), T_(gamma), T_(mean), T_(rstd),
                  (double, alpha), T_(dxOut), T_(dgxOut), T_(dbetaOut), T_(dgammaOut))
ACLSTUB_DEFINE_OP(aclnnAdaLayerNorm, OP_ADA.def, T_(x), T_(scale), T_(shift), T_(weightOptional), T_(biasOptional),
                  (double, epsilon), M_(out))
ACLSTUB_DEFINE_OP(aclnnAdaLayerNormV2, OP_ADA2.def, T_(x), T_(scale), T_(shift), T_(weightOptional),
                  T_(biasOptional), (double, epsilon), M_(out), M_(meanOutOptional), M_(rstdOutOptional))
ACLSTUB_DEFINE_OP(aclnnAdaLayerNormBackward, OP_ADAG.def, T_(gradOut), T_(input), (const aclIntArray *, normalizedShape),
                  T_(rstd), T_(mean), T_(scale), T_(shift), T_(weightOptional), T_(biasOptional), M_(gradInputOut),
                  M_(gradScaleOut), M_(gradShiftOut), M_(gradWeightOut), M_(gradBiasOut))
ACLSTUB_DEFINE_OP(aclnnLayerNormQuant, OP_LNQ.def, T_(x), T_(gammma), T_(beta), T_(scale), T_(zeroPointsOptional),
                  (int, quantMode), (double, epsilon), M_(res), M_(scaleOut))
ACLSTUB_DEFINE_OP(aclnnAdaLayerNormQuant, OP_ADAQ.def, T_(x), T_(scale), T_(shift), T_(weightOptional),
                  T_(biasOptional), T_(smoothScalesOptional), (double, epsilon), (const char *, quantMode), M_(out),
                  M_(quantScale), M_(quantOffsetOptional))
