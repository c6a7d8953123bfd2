/*
 * ops-math math/cdist and math/cdist_grad: aclnnCdist (torch.cdist) and aclnnCdistBackward (the gradient of x1).
 *
 * aclnnCdist: x1 (B1..., P, M) and x2 (B2..., R, M), the batch dimensions broadcast (aligned on the right);
 * out[b, i, j] = (sum_k |x1[b, i, k] - x2[b, j, k]|^p)^(1/p), with p = 0 the number of non-zero differences, p = inf
 * the largest one. The op_api checks no shape of out; its final ViewCopy fails (ACLNN_ERR_INNER_NULLPTR) when out
 * does not have the result's shape (B..., P, R). A zero batch dimension is an empty call (nothing is written);
 * M = 0 gives zeros. Sums run in double over contiguous double copies of the operands and each result is rounded
 * once to FLOAT, then to out's dtype (the op_api computes BF16 in FLOAT; FLOAT16 is read as FLOAT by the same rule).
 *
 * aclnnCdistBackward: grad and cdist (B..., P, R), x1 and out (B..., P, M), x2 (B2..., R, M) of the same rank;
 * out[b, i, :] = sum_j grad[b, i, j] * d(cdist[b, i, j]) / d(x1[b, i, :]) with the given cdist, torch's
 * _cdist_backward rules: p = 0 gives zeros; p = 1 sign(diff); p < 2 sign(diff) |diff|^(p-1) / cdist^(p-1)
 * (0 where diff is 0 and p < 1); p = 2 diff / cdist; p = inf (or -1, the value the forward op_api passes for it)
 * sign(diff) where |diff| equals cdist; otherwise diff |diff|^(p-2) / cdist^(p-1); every term is 0 where cdist is 0.
 * Terms are added in j order in double and rounded once like the forward.
 */
#include <math.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_cdist.h"
#include "aclnnop/aclnn_cdist_backward.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define F16S ACLSTUB_DT_FLOATS

typedef struct {
    int64_t nb, p_rows, r_rows, m; /* broadcast batch count, P, R, M */
    uint32_t nbd;                  /* batch rank (of the broadcast shape) */
    int64_t bdims[ACLSTUB_MAX_DIMS];
    double p;
} CdistPlan;

/* the batch offset (in rows of M elements, a matrix being `rows` of them) of broadcast batch b in t */
static void batch_offsets(const CdistPlan *pl, const aclStubTensorDesc *t, int64_t rows, int64_t *off) {
    uint32_t tb = t->ndim - 2;
    for (int64_t b = 0; b < pl->nb; b++) {
        int64_t rem = b, o = 0, stride = rows;
        for (uint32_t d = pl->nbd; d-- > 0;) {
            int64_t i = rem % pl->bdims[d];
            rem /= pl->bdims[d];
            uint32_t back = pl->nbd - 1 - d;
            if (back < tb) {
                int64_t td = t->dims[tb - 1 - back];
                if (td != 1) o += i * stride;
                stride *= td;
            }
        }
        off[b] = o;
    }
}

/* batch dims of x1 and x2 (all but the last two) broadcast into pl; false when they do not */
static bool broadcast_batches(CdistPlan *pl, const aclStubTensorDesc *a, const aclStubTensorDesc *b) {
    uint32_t nbd;
    if (!aclStubBroadcastShape(a->dims, a->ndim - 2, b->dims, b->ndim - 2, pl->bdims, &nbd)) return false;
    pl->nbd = nbd;
    pl->nb = aclStubDimProduct(pl->bdims, 0, nbd);
    return true;
}

/* rank at least 2 */
static aclnnStatus check_min_rank(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t) {
    ACLSTUB_RETURN_ERROR_IF(t->ndim < 2, call, INVALID, "argument '%s' has %u dimensions; at least 2 are needed", name,
                            t->ndim);
    return OK;
}

/* ---- aclnnCdist ---------------------------------------------------------------------------------------------- */

enum { CD_X1, CD_X2, CD_P, CD_MODE, CD_OUT };

static aclnnStatus cdist_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x1 = call->v[CD_X1].tensor, *x2 = call->v[CD_X2].tensor, *out = call->v[CD_OUT].tensor;
    CdistPlan *pl = call->plan;
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "x1", x1, F16S));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "x2", x2, F16S));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, F16S));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "x1", x1));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "x2", x2, "out", out));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "x1", x1, 8));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "x2", x2, 8));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, 8));
    ACLSTUB_TRY(check_min_rank(call, "x1", x1));
    ACLSTUB_TRY(check_min_rank(call, "x2", x2));
    ACLSTUB_TRY(check_min_rank(call, "out", out));
    int64_t m1 = x1->dims[x1->ndim - 1], m2 = x2->dims[x2->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(m1 != m2, call, INVALID,
                            "The dim num of X1 and X2 must be the same. X1 got: %lld, X2 got: %lld.", (long long)m1,
                            (long long)m2);
    float p = (float)call->v[CD_P].f;
    ACLSTUB_RETURN_ERROR_IF(p < 0 || isnan(p), call, INVALID, "cdist only supports non-negative p values.");
    ACLSTUB_RETURN_ERROR_IF(fabs(p - 2.0) < 1e-6 && call->v[CD_MODE].i != 2, call, INVALID,
                            "compute_mode %lld is not supported, only support 2 when pValue equals 2.0",
                            (long long)call->v[CD_MODE].i);
    for (uint32_t d = 0; d + 1 < x1->ndim; d++)
        if (x1->dims[d] == 0) return aclStubOpNothingToDo(call);
    for (uint32_t d = 0; d + 1 < x2->ndim; d++)
        if (x2->dims[d] == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(!broadcast_batches(pl, x1, x2), call, INVALID, "X1 shape: %s and X2 shape: %s cannot broadcast!",
                            aclStubShapeText(x1->dims, x1->ndim, a, sizeof a),
                            aclStubShapeText(x2->dims, x2->ndim, b, sizeof b));
    int64_t want[ACLSTUB_MAX_DIMS];
    memcpy(want, pl->bdims, pl->nbd * sizeof want[0]);
    want[pl->nbd] = x1->dims[x1->ndim - 2];
    want[pl->nbd + 1] = x2->dims[x2->ndim - 2];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, want, pl->nbd + 2), call,
                            ACLNN_ERR_INNER_NULLPTR, "the result of shape %s cannot be copied to out of shape %s",
                            aclStubShapeText(want, pl->nbd + 2, a, sizeof a),
                            aclStubShapeText(out->dims, out->ndim, b, sizeof b));
    pl->p_rows = want[pl->nbd];
    pl->r_rows = want[pl->nbd + 1];
    pl->m = m1;
    pl->p = p;
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const CdistPlan *pl;
    const double *x1, *x2;
    const int64_t *off1, *off2;
    float *out;
} CdistCtx;

static double cdist_one(const double *a, const double *b, int64_t m, double p) {
    double s = 0.0;
    if (p == 0.0) {
        for (int64_t k = 0; k < m; k++) s += a[k] != b[k];
        return s;
    }
    if (p == 1.0) {
        for (int64_t k = 0; k < m; k++) s += fabs(a[k] - b[k]);
        return s;
    }
    if (p == 2.0) {
        for (int64_t k = 0; k < m; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
        return sqrt(s);
    }
    if (isinf(p)) {
        for (int64_t k = 0; k < m; k++) {
            double d = fabs(a[k] - b[k]);
            if (d > s || isnan(d)) s = d;
        }
        return s;
    }
    for (int64_t k = 0; k < m; k++) s += pow(fabs(a[k] - b[k]), p);
    return pow(s, 1.0 / p);
}

static void cdist_rows(void *arg, int64_t begin, int64_t end) {
    const CdistCtx *c = arg;
    const CdistPlan *pl = c->pl;
    for (int64_t row = begin; row < end; row++) {
        int64_t b = row / pl->p_rows, i = row % pl->p_rows;
        const double *a = c->x1 + (c->off1[b] + i) * pl->m;
        const double *x2 = c->x2 + c->off2[b] * pl->m;
        float *o = c->out + row * pl->r_rows;
        for (int64_t j = 0; j < pl->r_rows; j++) o[j] = (float)cdist_one(a, x2 + j * pl->m, pl->m, pl->p);
    }
}

static aclnnStatus cdist_kernel(const aclStubOpCall *call) {
    const CdistPlan *pl = call->plan;
    const aclStubTensorDesc *out = call->v[CD_OUT].tensor;
    aclStubTensorDesc x1, x2, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[CD_X1].tensor, ACL_DOUBLE, &x1));
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[CD_X2].tensor, ACL_DOUBLE, &x2));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &buf));
    int64_t *off = aclStubKernelScratch(call, (size_t)pl->nb * 2 * sizeof(int64_t));
    if (off == NULL) return aclStubKernelOutOfMemory(call);
    batch_offsets(pl, &x1, x1.dims[x1.ndim - 2], off);
    batch_offsets(pl, &x2, x2.dims[x2.ndim - 2], off + pl->nb);
    CdistCtx c = {pl, (const double *)aclStubViewBase(&x1), (const double *)aclStubViewBase(&x2), off, off + pl->nb,
                  (float *)aclStubViewBase(&buf)};
    int64_t work = pl->r_rows * (pl->m ? pl->m : 1);
    aclStubParallelFor(pl->nb * pl->p_rows, 1 + 16384 / (work ? work : 1), cdist_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kCdistParams[] = {
    [CD_X1] = {"x1", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CD_X2] = {"x2", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CD_P] = {"p", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [CD_MODE] = {"compute_mode", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [CD_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kCdist = {"aclnnCdist", kCdistParams, ACLSTUB_LEN(kCdistParams), NULL, cdist_check,
                                    cdist_kernel, sizeof(CdistPlan)};
ACLSTUB_DEFINE_OP(aclnnCdist, kCdist, (const aclTensor *, x1), (const aclTensor *, x2), (float, p),
                  (int64_t, compute_mode), (aclTensor *, out))

/* ---- aclnnCdistBackward ---------------------------------------------------------------------------------------- */

enum { CB_GRAD, CB_X1, CB_X2, CB_CDIST, CB_P, CB_OUT };

static aclnnStatus cdist_backward_check(aclStubOpCall *call) {
    const aclStubTensorDesc *grad = call->v[CB_GRAD].tensor, *x1 = call->v[CB_X1].tensor,
                            *x2 = call->v[CB_X2].tensor, *cd = call->v[CB_CDIST].tensor, *out = call->v[CB_OUT].tensor;
    CdistPlan *pl = call->plan;
    char a[256], b[256];
    static const int order[] = {CB_GRAD, CB_X1, CB_X2, CB_CDIST, CB_OUT};
    for (size_t k = 0; k < ACLSTUB_LEN(order); k++)
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, aclStubOpName(call, order[k]), call->v[order[k]].tensor, F16S));
    for (size_t k = 1; k < ACLSTUB_LEN(order); k++)
        ACLSTUB_RETURN_ERROR_IF(call->v[order[k]].tensor->dtype != grad->dtype, call, INVALID,
                                "All tensors are expected to share the same datatype.");
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "grad", grad, 7));
    ACLSTUB_TRY(check_min_rank(call, "grad", grad));
    uint32_t n = grad->ndim;
    ACLSTUB_RETURN_ERROR_IF(n != x1->ndim || n != x2->ndim || n != cd->ndim || n != out->ndim, call, INVALID,
                            "All tensors are expected to share the same dim num.");
    /* x1 as (..., P, 1, M) and x2 as (..., 1, R, M) broadcast; cdist is the first n dimensions of the result */
    int64_t s1[ACLSTUB_MAX_DIMS], s2[ACLSTUB_MAX_DIMS], bs[ACLSTUB_MAX_DIMS];
    uint32_t nbs;
    memcpy(s1, x1->dims, n * sizeof s1[0]);
    memcpy(s2, x2->dims, n * sizeof s2[0]);
    s1[n] = s1[n - 1], s1[n - 1] = 1;
    s2[n] = s2[n - 1], s2[n - 1] = s2[n - 2], s2[n - 2] = 1;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(s1, n + 1, s2, n + 1, bs, &nbs), call, INVALID,
                            "Broadcast %s and %s failed.", aclStubShapeText(x2->dims, n, a, sizeof a),
                            aclStubShapeText(x1->dims, n, b, sizeof b));
    for (uint32_t i = 0; i < n; i++)
        ACLSTUB_RETURN_ERROR_IF(cd->dims[i] != bs[i], call, INVALID, "cdist[%u] : %lld should be equal to %lld .", i,
                                (long long)cd->dims[i], (long long)bs[i]);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "grad", grad, cd->dims, n));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, x1->dims, n));
    float p = (float)call->v[CB_P].f;
    ACLSTUB_RETURN_ERROR_IF(p != -1.0f && p < 0.0f, call, INVALID,
                            "aclnnCdistBackward only supports non-negative p values.");
    if (aclStubNumel(grad) == 0 || aclStubNumel(x1) == 0 || aclStubNumel(x2) == 0 || aclStubNumel(cd) == 0)
        return aclStubOpNothingToDo(call);
    /* the kernel's result has the broadcast shape without R: out (x1's shape) must be it for the ViewCopy */
    bool same = bs[n] == x1->dims[n - 1];
    for (uint32_t i = 0; i + 2 < n; i++) same = same && bs[i] == x1->dims[i];
    ACLSTUB_RETURN_ERROR_IF(!same, call, ACLNN_ERR_INNER_NULLPTR,
                            "the gradient of broadcast shape %s cannot be copied to out of shape %s",
                            aclStubShapeText(bs, nbs, a, sizeof a), aclStubShapeText(out->dims, n, b, sizeof b));
    ACLSTUB_RETURN_ERROR_IF(!broadcast_batches(pl, x1, x2), call, INVALID, "Broadcast %s and %s failed.",
                            aclStubShapeText(x2->dims, n, a, sizeof a), aclStubShapeText(x1->dims, n, b, sizeof b));
    pl->p_rows = x1->dims[n - 2];
    pl->r_rows = x2->dims[n - 2];
    pl->m = x1->dims[n - 1];
    pl->p = p == -1.0f ? INFINITY : p;
    return OK;
}

typedef struct {
    const CdistPlan *pl;
    const double *grad, *x1, *x2, *cd;
    const int64_t *off2;
    float *out;
    double *acc; /* one row of M per thread-independent row: scratch of rows x M */
} CdistGradCtx;

static double cdist_grad_term(double diff, double g, double dist, double p) {
    if (p == 0.0 || dist == 0.0) return 0.0;
    double sgn = (diff > 0) - (diff < 0);
    if (p == 1.0) return sgn * g;
    if (p == 2.0) return diff * g / dist;
    if (isinf(p)) return fabs(diff) == dist ? sgn * g : 0.0;
    if (p < 2.0) return (diff == 0.0 && p < 1.0) ? 0.0 : sgn * pow(fabs(diff), p - 1.0) * g / pow(dist, p - 1.0);
    return diff * pow(fabs(diff), p - 2.0) * g / pow(dist, p - 1.0);
}

static void cdist_grad_rows(void *arg, int64_t begin, int64_t end) {
    const CdistGradCtx *c = arg;
    const CdistPlan *pl = c->pl;
    int64_t m = pl->m, r = pl->r_rows;
    for (int64_t row = begin; row < end; row++) {
        int64_t b = row / pl->p_rows;
        const double *a = c->x1 + row * m, *g = c->grad + row * r, *dist = c->cd + row * r;
        const double *x2 = c->x2 + c->off2[b] * m;
        double *acc = c->acc + row * m;
        for (int64_t k = 0; k < m; k++) acc[k] = 0.0;
        for (int64_t j = 0; j < r; j++)
            for (int64_t k = 0; k < m; k++) acc[k] += cdist_grad_term(a[k] - x2[j * m + k], g[j], dist[j], pl->p);
        float *o = c->out + row * m;
        for (int64_t k = 0; k < m; k++) o[k] = (float)acc[k];
    }
}

static aclnnStatus cdist_backward_kernel(const aclStubOpCall *call) {
    const CdistPlan *pl = call->plan;
    const aclStubTensorDesc *out = call->v[CB_OUT].tensor;
    aclStubTensorDesc g, x1, x2, cd, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[CB_GRAD].tensor, ACL_DOUBLE, &g));
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[CB_X1].tensor, ACL_DOUBLE, &x1));
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[CB_X2].tensor, ACL_DOUBLE, &x2));
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[CB_CDIST].tensor, ACL_DOUBLE, &cd));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &buf));
    int64_t rows = pl->nb * pl->p_rows;
    int64_t *off2 = aclStubKernelScratch(call, (size_t)pl->nb * sizeof(int64_t));
    double *acc = aclStubKernelScratch(call, (size_t)(rows * pl->m) * sizeof(double));
    if (off2 == NULL || acc == NULL) return aclStubKernelOutOfMemory(call);
    batch_offsets(pl, &x2, x2.dims[x2.ndim - 2], off2);
    CdistGradCtx c = {pl,
                      (const double *)aclStubViewBase(&g),
                      (const double *)aclStubViewBase(&x1),
                      (const double *)aclStubViewBase(&x2),
                      (const double *)aclStubViewBase(&cd),
                      off2,
                      (float *)aclStubViewBase(&buf),
                      acc};
    int64_t work = pl->r_rows * pl->m;
    aclStubParallelFor(rows, 1 + 16384 / (work ? work : 1), cdist_grad_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kCdistBackwardParams[] = {
    [CB_GRAD] = {"grad", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CB_X1] = {"x1", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CB_X2] = {"x2", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CB_CDIST] = {"cdist", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CB_P] = {"p", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [CB_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kCdistBackward = {"aclnnCdistBackward", kCdistBackwardParams,
                                            ACLSTUB_LEN(kCdistBackwardParams), NULL, cdist_backward_check,
                                            cdist_backward_kernel, sizeof(CdistPlan)};
ACLSTUB_DEFINE_OP(aclnnCdistBackward, kCdistBackward, (const aclTensor *, grad), (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, cdist), (float, p), (aclTensor *, out))
