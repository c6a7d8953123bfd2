/*
 * The synchronised batch norm of ops-nn norm/ (torch's batch_norm_* functions, each a step of SyncBatchNorm):
 * BatchNormReduce (per-channel sum and sum of squares), SyncBatchNormGatherStats and BatchNormGatherStatsWithCounts
 * (the statistics of every rank combined, running statistics updated), BatchNormElemt (normalise with given
 * statistics), BatchNormReduceBackward (per-channel sums of dy and dy * (x - mean)) and BatchNormElemtBackward (the
 * input gradient from those sums).
 *
 * Layout: an input is read in row-major order as N x C x inner (channel dimension 1; BatchNormReduce's NHWC input
 * through an NCHW view). Values are widened to float32; a channel's sum gathers its terms in row-major order and
 * adds them in the reduction engine's order (aclStubSumF32), so no result depends on the thread count. Each result
 * is rounded once to its output's dtype.
 *   BatchNormElemt:        y = (x - mean) * invstd * w + b
 *   BatchNormReduce:       sum = sum(x), squareSum = sum(x * x)
 *   SyncBatchNormGatherStats: n = sum(sampleCount), batchMean = sum(totalSum) / n,
 *                          batchVar = sum(totalSquareSum) / n - batchMean^2, batchInvstd = 1 / sqrt(batchVar + eps),
 *                          mean = (1 - m) mean + m batchMean, variance = (1 - m) variance + m batchVar n / (n - 1)
 *   BatchNormGatherStatsWithCounts: n = sum(counts), meanAll = sum(counts * mean) / n,
 *                          var = sum(counts * (1 / invstd^2 - eps + (mean - meanAll)^2)) / n,
 *                          invstdAll = 1 / sqrt(var + eps), running statistics as above (when given)
 *   BatchNormReduceBackward: sumDy = sum(dy), sumDyXmu = sum(dy * (x - mean)), gradWeight = sumDyXmu * invstd,
 *                          gradBias = sumDy (each only when its flag is set)
 *   BatchNormElemtBackward: n = sum(counter), dx = (dy - sumDy / n - (x - mean) * invstd^2 * sumDyXmu / n) * invstd * w
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_reduce.h"
#include "aclnnop/aclnn_sync_batch_norm_gather_stats.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define NULLPTR ACLNN_ERR_PARAM_NULLPTR
#define DT ACLSTUB_DT
#define FL ACLSTUB_DT_FLOATS
#define F32 ACLSTUB_DT(ACL_FLOAT)

typedef enum { K_ELEMT, K_REDUCE, K_GATHER, K_GATHER_COUNTS, K_REDUCE_BWD, K_ELEMT_BWD } Kind;

typedef struct {
    Kind kind;
} Row;

typedef struct {
    int64_t n, c, inner; /* input as n x c x inner; gather: n ranks */
    float eps, momentum;
    bool nhwc;
    bool flags[3]; /* ReduceBackward: inputG, weightG, biasG */
} Plan;

static const aclStubTensorDesc *T(const aclStubOpCall *c, int i) { return c->v[i].tensor; }
static const char *NAME(const aclStubOpCall *c, int i) { return c->op->params[i].name; }
static float ld(const aclStubTensorDesc *t, int64_t i) {
    const void *p = aclStubElemAt(t, i);
    return t->dtype == ACL_INT32 ? (float)*(const int32_t *)p : aclStubLoadPtrF32(t->dtype, p);
}
static void st(const aclStubTensorDesc *t, int64_t i, float v) { aclStubStorePtrF32(t->dtype, aclStubElemAt(t, i), v); }

/* ---- checks ---------------------------------------------------------------------------------------------------- */

static aclnnStatus dtype_in(aclStubOpCall *c, int i, uint64_t set) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    char buf[128];
    ACLSTUB_RETURN_ERROR_IF(!(set & DT(t->dtype)), c, INVALID, "%s has data type %s; must be one of %s", NAME(c, i),
                            aclStubDtypeName(t->dtype), aclStubDtypeSetName(set, buf, sizeof buf));
    return OK;
}

static aclnnStatus same_dtype(aclStubOpCall *c, int i, int ref) {
    const aclStubTensorDesc *t = T(c, i), *r = T(c, ref);
    if (t == NULL || r == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(t->dtype != r->dtype, c, INVALID, "%s has data type %s; must be %s's %s", NAME(c, i),
                            aclStubDtypeName(t->dtype), NAME(c, ref), aclStubDtypeName(r->dtype));
    return OK;
}

static aclnnStatus shape_is(aclStubOpCall *c, int i, const int64_t *dims, uint32_t nd) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(t->dims, t->ndim, dims, nd), c, INVALID, "%s has shape %s; must be %s",
                            NAME(c, i), aclStubShapeText(t->dims, t->ndim, a, sizeof a),
                            aclStubShapeText(dims, nd, b, sizeof b));
    return OK;
}

static aclnnStatus rank_in(aclStubOpCall *c, int i, uint32_t lo, uint32_t hi) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(t->ndim < lo || t->ndim > hi, c, INVALID, "%s has %u dimensions; must have %u to %u",
                            NAME(c, i), t->ndim, lo, hi);
    return OK;
}

static aclnnStatus private_format(aclStubOpCall *c, int i) {
    const aclStubTensorDesc *t = T(c, i);
    ACLSTUB_RETURN_ERROR_IF(t && aclStubIsPrivateFormat(t->format), c, INVALID, "%s's format must be ND, NCHW, NCL or NCDHW",
                            NAME(c, i));
    return OK;
}

/* the N x C x inner view of a 2-8 dimensional input (channel dimension 1) */
static void nc_layout(Plan *p, const aclStubTensorDesc *x) {
    p->n = x->dims[0];
    p->c = x->dims[1];
    p->inner = 1;
    for (uint32_t d = 2; d < x->ndim; d++) p->inner *= x->dims[d];
}

enum { EL_X, EL_W, EL_B, EL_MEAN, EL_INVSTD, EL_EPS, EL_OUT };
static aclnnStatus check_elemt(aclStubOpCall *c, Plan *p) {
    /* the op_api reports a NULL input, mean, invstd or output as ACLNN_ERR_PARAM_INVALID */
    int req[] = {EL_X, EL_MEAN, EL_INVSTD, EL_OUT};
    for (size_t k = 0; k < ACLSTUB_LEN(req); k++)
        ACLSTUB_RETURN_ERROR_IF(T(c, req[k]) == NULL, c, INVALID, "%s must not be NULL", NAME(c, req[k]));
    int all[] = {EL_X, EL_W, EL_B, EL_MEAN, EL_INVSTD, EL_OUT};
    for (size_t k = 0; k < ACLSTUB_LEN(all); k++) ACLSTUB_TRY(dtype_in(c, all[k], FL));
    const aclStubTensorDesc *x = T(c, EL_X), *y = T(c, EL_OUT);
    ACLSTUB_RETURN_ERROR_IF(x->format != y->format, c, INVALID, "input's and output's formats must be equal");
    ACLSTUB_TRY(private_format(c, EL_X));
    ACLSTUB_TRY(rank_in(c, EL_X, 2, 8));
    ACLSTUB_TRY(rank_in(c, EL_OUT, 2, 8));
    ACLSTUB_TRY(shape_is(c, EL_OUT, x->dims, x->ndim));
    ACLSTUB_RETURN_ERROR_IF(x->dims[1] == 0, c, INVALID, "input's channel dimension must not be 0");
    int64_t cdim[1] = {x->dims[1]};
    int vec[] = {EL_W, EL_B, EL_MEAN, EL_INVSTD};
    for (size_t k = 0; k < ACLSTUB_LEN(vec); k++) {
        const aclStubTensorDesc *t = T(c, vec[k]);
        ACLSTUB_RETURN_ERROR_IF(t && t->ndim != 1, c, INVALID, "%s must have 1 dimension", NAME(c, vec[k]));
    }
    for (size_t k = 0; k < ACLSTUB_LEN(vec); k++) ACLSTUB_TRY(shape_is(c, vec[k], cdim, 1));
    nc_layout(p, x);
    p->eps = (float)aclStubOpFloat(c, EL_EPS);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

enum { RD_X, RD_SUM, RD_SQ };
static aclnnStatus check_reduce(aclStubOpCall *c, Plan *p) {
    ACLSTUB_TRY(dtype_in(c, RD_X, FL));
    ACLSTUB_TRY(dtype_in(c, RD_SUM, F32));
    ACLSTUB_TRY(dtype_in(c, RD_SQ, F32));
    const aclStubTensorDesc *x = T(c, RD_X);
    ACLSTUB_RETURN_ERROR_IF(x->format != ACL_FORMAT_NCHW && x->format != ACL_FORMAT_NHWC, c, INVALID,
                            "x's format must be NCHW or NHWC");
    ACLSTUB_RETURN_ERROR_IF(T(c, RD_SUM)->format != ACL_FORMAT_ND || T(c, RD_SQ)->format != ACL_FORMAT_ND, c, INVALID,
                            "sum's and squareSum's formats must be ND");
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 4, c, INVALID, "x has %u dimensions; must have 4", x->ndim);
    for (int i = RD_SUM; i <= RD_SQ; i++)
        ACLSTUB_RETURN_ERROR_IF(T(c, i)->ndim != 1, c, INVALID, "%s must have 1 dimension", NAME(c, i));
    p->nhwc = x->format == ACL_FORMAT_NHWC;
    int64_t cdim[1] = {x->dims[p->nhwc ? 3 : 1]};
    ACLSTUB_TRY(shape_is(c, RD_SUM, cdim, 1));
    ACLSTUB_TRY(shape_is(c, RD_SQ, cdim, 1));
    p->n = x->dims[0];
    p->c = cdim[0];
    p->inner = p->nhwc ? x->dims[1] * x->dims[2] : x->dims[2] * x->dims[3];
    return OK;
}

enum { GS_SUM, GS_SQ, GS_COUNT, GS_MEAN, GS_VAR, GS_MOM, GS_EPS, GS_BMEAN, GS_BINV };
static aclnnStatus check_gather(aclStubOpCall *c, Plan *p) {
    static const uint64_t F2 = DT(ACL_FLOAT) | DT(ACL_FLOAT16);
    int f[] = {GS_SUM, GS_SQ};
    for (size_t k = 0; k < 2; k++) ACLSTUB_TRY(dtype_in(c, f[k], F2));
    ACLSTUB_TRY(dtype_in(c, GS_COUNT, F2 | DT(ACL_INT32)));
    int g[] = {GS_MEAN, GS_VAR, GS_BMEAN, GS_BINV};
    for (size_t k = 0; k < 4; k++) ACLSTUB_TRY(dtype_in(c, g[k], F2));
    ACLSTUB_TRY(same_dtype(c, GS_SQ, GS_SUM));
    ACLSTUB_TRY(same_dtype(c, GS_MEAN, GS_SUM));
    ACLSTUB_TRY(same_dtype(c, GS_VAR, GS_SUM));
    ACLSTUB_TRY(same_dtype(c, GS_BINV, GS_BMEAN));
    for (int i = GS_SUM; i <= GS_VAR; i++) ACLSTUB_TRY(private_format(c, i));
    for (int i = GS_SUM; i <= GS_BINV; i++) {
        if (i == GS_MOM || i == GS_EPS) continue;
        uint32_t want = i <= GS_SQ ? 2 : 1;
        ACLSTUB_RETURN_ERROR_IF(T(c, i)->ndim != want, c, INVALID, "%s has %u dimensions; must have %u", NAME(c, i),
                                T(c, i)->ndim, want);
    }
    const aclStubTensorDesc *s = T(c, GS_SUM);
    int64_t n = s->dims[0], ch = s->dims[1];
    int64_t two[2] = {n, ch}, rk[1] = {n}, cd[1] = {ch};
    ACLSTUB_TRY(shape_is(c, GS_SQ, two, 2));
    ACLSTUB_TRY(shape_is(c, GS_COUNT, rk, 1));
    int o[] = {GS_MEAN, GS_VAR, GS_BMEAN, GS_BINV};
    for (size_t k = 0; k < 4; k++) ACLSTUB_TRY(shape_is(c, o[k], cd, 1));
    ACLSTUB_RETURN_ERROR_IF(n == 0, c, INVALID, "totalSum's first dimension must not be 0");
    ACLSTUB_RETURN_ERROR_IF(ch == 0, c, INVALID, "totalSum's second dimension must not be 0");
    p->n = n, p->c = ch, p->inner = 1;
    p->momentum = (float)aclStubOpFloat(c, GS_MOM);
    p->eps = (float)aclStubOpFloat(c, GS_EPS);
    return OK;
}

enum { GC_X, GC_MEAN, GC_INVSTD, GC_RMEAN, GC_RVAR, GC_MOM, GC_EPS, GC_COUNTS, GC_MEANALL, GC_INVALL };
static aclnnStatus check_gather_counts(aclStubOpCall *c, Plan *p) {
    int all[] = {GC_X, GC_MEAN, GC_INVSTD, GC_RMEAN, GC_RVAR, GC_COUNTS, GC_MEANALL, GC_INVALL};
    for (size_t k = 0; k < ACLSTUB_LEN(all); k++) ACLSTUB_TRY(dtype_in(c, all[k], FL));
    int fm[] = {GC_X, GC_MEAN, GC_INVSTD, GC_COUNTS};
    for (size_t k = 0; k < ACLSTUB_LEN(fm); k++) ACLSTUB_TRY(private_format(c, fm[k]));
    const aclStubTensorDesc *x = T(c, GC_X), *m = T(c, GC_MEAN), *is = T(c, GC_INVSTD), *cn = T(c, GC_COUNTS);
    ACLSTUB_TRY(rank_in(c, GC_X, 2, 8));
    ACLSTUB_TRY(rank_in(c, GC_MEAN, 2, 2));
    ACLSTUB_TRY(rank_in(c, GC_INVSTD, 2, 2));
    ACLSTUB_RETURN_ERROR_IF(m->dims[0] != is->dims[0] || cn->dims[0] != m->dims[0], c, INVALID,
                            "the first dimensions of mean, invstd and counts must be equal");
    int64_t ch = x->dims[1];
    ACLSTUB_RETURN_ERROR_IF(m->dims[1] != ch || is->dims[1] != ch, c, INVALID, "the second dimensions of mean and "
                            "invstd must be input's channel size %lld", (long long)ch);
    int64_t cd[1] = {ch};
    ACLSTUB_TRY(shape_is(c, GC_RMEAN, cd, 1));
    ACLSTUB_TRY(shape_is(c, GC_RVAR, cd, 1));
    ACLSTUB_RETURN_ERROR_IF(cn->ndim != 1, c, INVALID, "counts must have 1 dimension");
    ACLSTUB_TRY(shape_is(c, GC_MEANALL, cd, 1));
    ACLSTUB_TRY(shape_is(c, GC_INVALL, cd, 1));
    p->n = m->dims[0], p->c = ch, p->inner = 1;
    p->momentum = (float)aclStubOpFloat(c, GC_MOM);
    p->eps = (float)aclStubOpFloat(c, GC_EPS);
    if (p->n == 0 || ch == 0) return aclStubOpNothingToDo(c);
    return OK;
}

enum { RB_DY, RB_X, RB_MEAN, RB_INVSTD, RB_W, RB_IG, RB_WG, RB_BG, RB_SUMDY, RB_SUMDYXMU, RB_GW, RB_GB };
static aclnnStatus check_reduce_bwd(aclStubOpCall *c, Plan *p) {
    bool mask[3] = {aclStubOpBool(c, RB_IG), aclStubOpBool(c, RB_WG), aclStubOpBool(c, RB_BG)};
    int outs[4] = {RB_SUMDY, RB_SUMDYXMU, RB_GW, RB_GB};
    bool omask[4] = {mask[0], mask[0], mask[1], mask[2]};
    for (int k = 0; k < 4; k++)
        ACLSTUB_RETURN_ERROR_IF(omask[k] && T(c, outs[k]) == NULL, c, NULLPTR, "%s must not be NULL when its flag is "
                                "set", NAME(c, outs[k]));
    int ins[] = {RB_DY, RB_X, RB_MEAN, RB_INVSTD, RB_W};
    for (size_t k = 0; k < ACLSTUB_LEN(ins); k++) ACLSTUB_TRY(dtype_in(c, ins[k], FL));
    ACLSTUB_TRY(same_dtype(c, RB_DY, RB_X));
    for (int k = 0; k < 4; k++)
        if (omask[k]) ACLSTUB_TRY(dtype_in(c, outs[k], FL));
    const aclStubTensorDesc *dy = T(c, RB_DY), *x = T(c, RB_X);
    ACLSTUB_RETURN_ERROR_IF(dy->format != x->format, c, INVALID, "gradOut's and input's formats must be equal");
    for (size_t k = 0; k < ACLSTUB_LEN(ins); k++) ACLSTUB_TRY(private_format(c, ins[k]));
    for (int k = 0; k < 4; k++)
        if (omask[k]) ACLSTUB_TRY(private_format(c, outs[k]));
    ACLSTUB_TRY(rank_in(c, RB_DY, 2, 8));
    ACLSTUB_TRY(rank_in(c, RB_X, 2, 8));
    ACLSTUB_RETURN_ERROR_IF(x->dims[1] == 0, c, INVALID, "input's channel dimension must not be 0");
    int64_t cd[1] = {x->dims[1]};
    for (int k = 0; k < 4; k++)
        if (omask[k]) ACLSTUB_TRY(shape_is(c, outs[k], cd, 1));
    for (int k = 0; k < 4; k++)
        if (!omask[k] && T(c, outs[k])) aclStubOpIgnore(c, outs[k]);
    nc_layout(p, x);
    memcpy(p->flags, mask, sizeof mask);
    if (!mask[0] && !mask[1] && !mask[2]) return aclStubOpNothingToDo(c);
    return OK;
}

enum { EB_DY, EB_X, EB_MEAN, EB_INVSTD, EB_W, EB_SUMDY, EB_SUMDYXMU, EB_COUNTER, EB_DX };
static aclnnStatus check_elemt_bwd(aclStubOpCall *c, Plan *p) {
    int fl[] = {EB_DY, EB_X, EB_MEAN, EB_INVSTD, EB_W, EB_SUMDY, EB_SUMDYXMU};
    for (size_t k = 0; k < ACLSTUB_LEN(fl); k++) ACLSTUB_TRY(dtype_in(c, fl[k], FL));
    ACLSTUB_TRY(dtype_in(c, EB_COUNTER, FL | DT(ACL_INT32)));
    ACLSTUB_TRY(dtype_in(c, EB_DX, FL));
    int fm[] = {EB_DY, EB_X, EB_DX};
    for (size_t k = 0; k < ACLSTUB_LEN(fm); k++) ACLSTUB_TRY(private_format(c, fm[k]));
    const aclStubTensorDesc *x = T(c, EB_X);
    ACLSTUB_TRY(rank_in(c, EB_X, 2, 8));
    ACLSTUB_TRY(rank_in(c, EB_DY, 0, 8));
    ACLSTUB_TRY(rank_in(c, EB_DX, 0, 8));
    ACLSTUB_TRY(rank_in(c, EB_COUNTER, 0, 8));
    ACLSTUB_RETURN_ERROR_IF(x->dims[1] == 0, c, INVALID, "input's channel dimension must not be 0");
    ACLSTUB_TRY(shape_is(c, EB_DY, x->dims, x->ndim));
    ACLSTUB_TRY(shape_is(c, EB_DX, x->dims, x->ndim));
    int64_t cd[1] = {x->dims[1]};
    int vec[] = {EB_MEAN, EB_INVSTD, EB_W, EB_SUMDY, EB_SUMDYXMU};
    for (size_t k = 0; k < ACLSTUB_LEN(vec); k++) ACLSTUB_TRY(shape_is(c, vec[k], cd, 1));
    nc_layout(p, x);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    Plan *p = c->plan;
    switch (row->kind) {
    case K_ELEMT: return check_elemt(c, p);
    case K_REDUCE: return check_reduce(c, p);
    case K_GATHER: return check_gather(c, p);
    case K_GATHER_COUNTS: return check_gather_counts(c, p);
    case K_REDUCE_BWD: return check_reduce_bwd(c, p);
    case K_ELEMT_BWD: return check_elemt_bwd(c, p);
    }
    return OK;
}

/* ---- kernels -------------------------------------------------------------------------------------------------- */

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t s = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != s) return false;
        s *= t->dims[d];
    }
    return true;
}

/* n elements of t from row-major element `start`, every `step`-th one, as float32 (contiguous runs: row loads) */
static void load_run(float *dst, const aclStubTensorDesc *t, int64_t start, int64_t n, int64_t step) {
    if (step == 1 && contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowLoadF32(dst, (const char *)t->data + (t->offset + start) * (int64_t)es, t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) dst[j] = ld(t, start + j * step);
}

static void store_run(const aclStubTensorDesc *t, int64_t start, const float *src, int64_t n) {
    if (contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowStoreF32((char *)t->data + (t->offset + start) * (int64_t)es, src, t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) st(t, start + j, src[j]);
}

/* channel ch's elements of an N x C x inner tensor in row-major order (NHWC: every C-th element) */
static void load_channel(float *dst, const aclStubTensorDesc *t, const Plan *p, int64_t ch) {
    for (int64_t s = 0; s < p->n; s++) {
        if (p->nhwc) load_run(dst + s * p->inner, t, s * p->inner * p->c + ch, p->inner, p->c);
        else load_run(dst + s * p->inner, t, (s * p->c + ch) * p->inner, p->inner, 1);
    }
}

/* per-channel sums: BatchNormReduce sum(x), sum(x * x); BatchNormReduceBackward sum(dy), sum(dy * (x - mean)) */
typedef struct {
    const aclStubOpCall *c;
    const Plan *p;
    bool backward;
    float *out; /* 2 x C */
    int failed;
} ChanSum;

static void chan_sums(void *arg, int64_t begin, int64_t end) {
    ChanSum *cs = arg;
    const aclStubOpCall *c = cs->c;
    const Plan *p = cs->p;
    int64_t m = p->n * p->inner;
    float *a = malloc((size_t)(2 * m + 1) * sizeof(float)), *b = a ? a + m : NULL;
    if (a == NULL) {
        __atomic_store_n(&cs->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t ch = begin; ch < end; ch++) {
        if (cs->backward) {
            load_channel(a, T(c, RB_X), p, ch);
            load_channel(b, T(c, RB_DY), p, ch);
            float mean = ld(T(c, RB_MEAN), ch);
            cs->out[ch] = aclStubSumF32(b, m);
            for (int64_t j = 0; j < m; j++) a[j] = b[j] * (a[j] - mean);
        } else {
            load_channel(a, T(c, RD_X), p, ch);
            cs->out[ch] = aclStubSumF32(a, m);
            for (int64_t j = 0; j < m; j++) a[j] *= a[j];
        }
        cs->out[p->c + ch] = aclStubSumF32(a, m);
    }
    free(a);
}

static bool run_chan_sums(const aclStubOpCall *c, const Plan *p, bool backward, float *out) {
    ChanSum cs = {c, p, backward, out, 0};
    int64_t m = p->n * p->inner;
    aclStubParallelFor(p->c, m > 0 ? 1 + 65536 / m : 1, chan_sums, &cs);
    return !cs.failed;
}

/* elementwise rows: (sample, channel) rows of `inner` elements */
typedef struct {
    const aclStubOpCall *c;
    const Plan *p;
    const float *a, *b; /* per channel: y = (x - mean) * a + b; backward dx = (dy - k1 - (x - mean) * k2) * a */
    const float *k1, *k2, *mean;
    int failed;
} Rows;

static void elemt_rows(void *arg, int64_t begin, int64_t end) {
    Rows *r = arg;
    const aclStubOpCall *c = r->c;
    const Plan *p = r->p;
    bool bwd = ((const Row *)aclStubFamilyRow(c))->kind == K_ELEMT_BWD;
    int64_t n = p->inner;
    float *x = malloc((size_t)(2 * n + 1) * sizeof(float)), *dy = x ? x + n : NULL;
    if (x == NULL) {
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t row = begin; row < end; row++) {
        int64_t ch = row % p->c, base = row * n;
        float m = r->mean[ch], a = r->a[ch];
        load_run(x, T(c, bwd ? EB_X : EL_X), base, n, 1);
        if (bwd) {
            float k1 = r->k1[ch], k2 = r->k2[ch];
            load_run(dy, T(c, EB_DY), base, n, 1);
            for (int64_t k = 0; k < n; k++) x[k] = ((dy[k] - k1) - (x[k] - m) * k2) * a;
        } else {
            float b = r->b[ch];
            for (int64_t k = 0; k < n; k++) x[k] = (x[k] - m) * a + b;
        }
        store_run(T(c, bwd ? EB_DX : EL_OUT), base, x, n);
    }
    free(x);
}

static void load_c(float *dst, const aclStubTensorDesc *t, int64_t n, float fill) {
    for (int64_t j = 0; j < n; j++) dst[j] = t ? ld(t, j) : fill;
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    const Plan *p = c->plan;
    int64_t C = p->c;
    float *v = aclStubKernelScratch(c, (size_t)(8 * C + 1) * sizeof(float));
    if (v == NULL) return aclStubKernelOutOfMemory(c);
    float *a = v, *b = v + C, *m = v + 2 * C, *k1 = v + 3 * C, *k2 = v + 4 * C, *s = v + 5 * C;
    int64_t chunk = p->inner > 0 ? 1 + 65536 / p->inner : 1;
    switch (row->kind) {
    case K_ELEMT: {
        load_c(m, T(c, EL_MEAN), C, 0.0f);
        load_c(a, T(c, EL_INVSTD), C, 1.0f);
        load_c(b, T(c, EL_W), C, 1.0f);
        for (int64_t j = 0; j < C; j++) a[j] *= b[j];
        load_c(b, T(c, EL_B), C, 0.0f);
        Rows r = {c, p, a, b, NULL, NULL, m, 0};
        aclStubParallelFor(p->n * C, chunk, elemt_rows, &r);
        return r.failed ? aclStubKernelOutOfMemory(c) : OK;
    }
    case K_REDUCE:
        if (!run_chan_sums(c, p, false, s)) return aclStubKernelOutOfMemory(c);
        for (int64_t j = 0; j < C; j++) st(T(c, RD_SUM), j, s[j]), st(T(c, RD_SQ), j, s[C + j]);
        return OK;
    case K_REDUCE_BWD: {
        if (!run_chan_sums(c, p, true, s)) return aclStubKernelOutOfMemory(c);
        for (int64_t j = 0; j < C; j++) {
            if (p->flags[0]) st(T(c, RB_SUMDY), j, s[j]), st(T(c, RB_SUMDYXMU), j, s[C + j]);
            if (p->flags[1]) st(T(c, RB_GW), j, s[C + j] * ld(T(c, RB_INVSTD), j));
            if (p->flags[2]) st(T(c, RB_GB), j, s[j]);
        }
        return OK;
    }
    case K_ELEMT_BWD: {
        const aclStubTensorDesc *cnt = T(c, EB_COUNTER);
        int64_t nc = aclStubNumel(cnt);
        float *cv = malloc((size_t)(nc + 1) * sizeof(float));
        if (cv == NULL) return aclStubKernelOutOfMemory(c);
        for (int64_t j = 0; j < nc; j++) cv[j] = ld(cnt, j);
        float n = aclStubSumF32(cv, nc);
        free(cv);
        load_c(m, T(c, EB_MEAN), C, 0.0f);
        load_c(b, T(c, EB_INVSTD), C, 1.0f);
        load_c(a, T(c, EB_W), C, 1.0f);
        for (int64_t j = 0; j < C; j++) {
            k1[j] = ld(T(c, EB_SUMDY), j) / n;
            k2[j] = (b[j] * b[j]) * (ld(T(c, EB_SUMDYXMU), j) / n);
            a[j] = b[j] * a[j];
        }
        Rows r = {c, p, a, NULL, k1, k2, m, 0};
        aclStubParallelFor(p->n * C, chunk, elemt_rows, &r);
        return r.failed ? aclStubKernelOutOfMemory(c) : OK;
    }
    case K_GATHER: {
        const aclStubTensorDesc *ts = T(c, GS_SUM), *tq = T(c, GS_SQ), *tc = T(c, GS_COUNT);
        float *col = malloc((size_t)(p->n + 1) * sizeof(float));
        if (col == NULL) return aclStubKernelOutOfMemory(c);
        for (int64_t r = 0; r < p->n; r++) col[r] = ld(tc, r);
        float n = aclStubSumF32(col, p->n), mom = p->momentum;
        for (int64_t j = 0; j < C; j++) {
            for (int64_t r = 0; r < p->n; r++) col[r] = ld(ts, r * C + j);
            float mean = aclStubSumF32(col, p->n) / n;
            for (int64_t r = 0; r < p->n; r++) col[r] = ld(tq, r * C + j);
            float var = aclStubSumF32(col, p->n) / n - mean * mean;
            st(T(c, GS_BMEAN), j, mean);
            st(T(c, GS_BINV), j, 1.0f / sqrtf(var + p->eps));
            st(T(c, GS_MEAN), j, ld(T(c, GS_MEAN), j) * (1.0f - mom) + mom * mean);
            st(T(c, GS_VAR), j, ld(T(c, GS_VAR), j) * (1.0f - mom) + mom * (var * (n / (n - 1.0f))));
        }
        free(col);
        return OK;
    }
    case K_GATHER_COUNTS: {
        const aclStubTensorDesc *tm = T(c, GC_MEAN), *ti = T(c, GC_INVSTD), *tc = T(c, GC_COUNTS);
        const aclStubTensorDesc *rm = T(c, GC_RMEAN), *rv = T(c, GC_RVAR);
        float *col = malloc((size_t)(2 * p->n + 1) * sizeof(float));
        if (col == NULL) return aclStubKernelOutOfMemory(c);
        float *cw = col + p->n;
        for (int64_t r = 0; r < p->n; r++) cw[r] = ld(tc, r);
        float n = aclStubSumF32(cw, p->n), mom = p->momentum;
        for (int64_t j = 0; j < C; j++) {
            for (int64_t r = 0; r < p->n; r++) col[r] = cw[r] * ld(tm, r * C + j);
            float mean = aclStubSumF32(col, p->n) / n;
            for (int64_t r = 0; r < p->n; r++) {
                float is = ld(ti, r * C + j), d = ld(tm, r * C + j) - mean;
                col[r] = cw[r] * ((1.0f / (is * is) - p->eps) + d * d);
            }
            float var = aclStubSumF32(col, p->n) / n;
            st(T(c, GC_MEANALL), j, mean);
            st(T(c, GC_INVALL), j, 1.0f / sqrtf(var + p->eps));
            if (rm) st(rm, j, ld(rm, j) * (1.0f - mom) + mom * mean);
            if (rv) st(rv, j, ld(rv, j) * (1.0f - mom) + mom * (var * (n / (n - 1.0f))));
        }
        free(col);
        return OK;
    }
    }
    return OK;
}

/* ---- the table ------------------------------------------------------------------------------------------------ */

#define IN(n, dt) {n, ACLSTUB_INPUT, dt, NULL, 0, 0, 0}
#define OPT(n, dt) {n, ACLSTUB_OPTIONAL_INPUT, dt, NULL, 0, 0, 0}
#define OUT(n, dt) {n, ACLSTUB_OUTPUT, dt, NULL, 0, 0, 0}
#define OUTOPT(n, dt) {n, ACLSTUB_OPTIONAL_OUTPUT, dt, NULL, 0, 0, 0}
#define REF(n, dt) {n, ACLSTUB_INPLACE, dt, NULL, 0, 0, 0}
#define ATTR(n, role) {n, role, 0, NULL, 0, 0, 0}
/* dtype rules run in check (in the op_api's order), so the table accepts any dtype */

static const aclStubParam P_ELEMT[] = {OPT("input", 0), OPT("weight", 0), OPT("bias", 0), OPT("mean", 0),
                                       OPT("invstd", 0), ATTR("eps", ACLSTUB_FLOAT), OUTOPT("output", 0)};
static const aclStubParam P_REDUCE[] = {IN("x", 0), OUT("sum", 0), OUT("squareSum", 0)};
static const aclStubParam P_GATHER[] = {IN("totalSum", 0), IN("totalSquareSum", 0), IN("sampleCount", 0),
                                        REF("mean", 0), REF("variance", 0), ATTR("momentum", ACLSTUB_FLOAT),
                                        ATTR("eps", ACLSTUB_FLOAT), OUT("batchMean", 0), OUT("batchInvstd", 0)};
static const aclStubParam P_GATHERC[] = {IN("input", 0), IN("mean", 0), IN("invstd", 0),
                                         {"runningMean", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, 0, 0, 0},
                                         {"runningVar", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, 0, 0, 0},
                                         ATTR("momentum", ACLSTUB_FLOAT), ATTR("eps", ACLSTUB_FLOAT),
                                         IN("counts", 0), OUT("meanAll", 0), OUT("invstdAll", 0)};
static const aclStubParam P_REDUCEB[] = {IN("gradOut", 0), IN("input", 0), IN("mean", 0), IN("invstd", 0),
                                         OPT("weight", 0), ATTR("inputG", ACLSTUB_BOOL),
                                         ATTR("weightG", ACLSTUB_BOOL), ATTR("biasG", ACLSTUB_BOOL),
                                         OUTOPT("sumDy", 0), OUTOPT("sumDyXmu", 0), OUTOPT("gradWeight", 0),
                                         OUTOPT("gradBias", 0)};
static const aclStubParam P_ELEMTB[] = {IN("gradOut", 0), IN("input", 0), IN("mean", 0), IN("invstd", 0),
                                        OPT("weight", 0), IN("sumDy", 0), IN("sumDyXmu", 0), IN("counter", 0),
                                        OUT("gradInput", 0)};

static const Row R_ELEMT = {K_ELEMT}, R_REDUCE = {K_REDUCE}, R_GATHER = {K_GATHER}, R_GATHERC = {K_GATHER_COUNTS},
                 R_REDUCEB = {K_REDUCE_BWD}, R_ELEMTB = {K_ELEMT_BWD};

#define DEF(var, name, params, row) \
    static const aclStubFamilyOp var = {{name, params, ACLSTUB_LEN(params), NULL, check, kernel, sizeof(Plan)}, &row}
DEF(OP_ELEMT, "aclnnBatchNormElemt", P_ELEMT, R_ELEMT);
DEF(OP_REDUCE, "aclnnBatchNormReduce", P_REDUCE, R_REDUCE);
DEF(OP_GATHER, "aclnnSyncBatchNormGatherStats", P_GATHER, R_GATHER);
DEF(OP_GATHERC, "aclnnBatchNormGatherStatsWithCounts", P_GATHERC, R_GATHERC);
DEF(OP_REDUCEB, "aclnnBatchNormReduceBackward", P_REDUCEB, R_REDUCEB);
DEF(OP_ELEMTB, "aclnnBatchNormElemtBackward", P_ELEMTB, R_ELEMTB);

#define T_(n) (const aclTensor *, n)
#define M_(n) (aclTensor *, n)
ACLSTUB_DEFINE_OP(aclnnBatchNormElemt, OP_ELEMT.def, T_(input), T_(weight), T_(bias), M_(mean), M_(invstd),
                  (double, eps), M_(output))
ACLSTUB_DEFINE_OP(aclnnBatchNormReduce, OP_REDUCE.def, T_(x), M_(sum), M_(squareSum))
ACLSTUB_DEFINE_OP(aclnnSyncBatchNormGatherStats, OP_GATHER.def, T_(totalSum), T_(totalSquareSum), T_(sampleCount),
                  M_(mean), M_(variance), (float, momentum), (float, eps), M_(batchMean), M_(batchInvstd))
ACLSTUB_DEFINE_OP(aclnnBatchNormGatherStatsWithCounts, OP_GATHERC.def, T_(input), T_(mean), T_(invstd),
                  M_(runningMean), M_(runningVar), (double, momentum), (double, eps), T_(counts), M_(meanAll),
                  M_(invstdAll))
ACLSTUB_DEFINE_OP(aclnnBatchNormReduceBackward, OP_REDUCEB.def, T_(gradOut), T_(input), T_(mean), T_(invstd),
                  T_(weight), (const bool, inputG), (const bool, weightG), (const bool, biasG), M_(sumDy),
                  M_(sumDyXmu), M_(gradWeight), M_(gradBias))
ACLSTUB_DEFINE_OP(aclnnBatchNormElemtBackward, OP_ELEMTB.def, T_(gradOut), T_(input), T_(mean), T_(invstd),
                  T_(weight), T_(sumDy), T_(sumDyXmu), M_(counter), M_(gradInput))
