/*
 * ops-nn index/embedding_dense_grad(_v2): aclnnEmbeddingDenseBackward (torch's embedding_dense_backward).
 * out[w, :] = sum over the rows r of grad (its leading dimensions flattened) with indices[r] == w of grad[r, :]
 * (scaled by 1 / count(w) with scaleGradByFreq), rows whose index equals paddingIdx left out. Indices of any
 * supported dtype are truncated to integers (the op_api's Cast); one outside [0, numWeights) that is not paddingIdx
 * fails the kernel. Sums run in float32 in increasing r, each thread owning a slice of the columns, so the result
 * does not depend on the thread count; rounded once to out's dtype.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define GRAD_DT ACLSTUB_DT_FLOATS
#define INDICES_DT                                                                                           \
    (DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_DOUBLE) | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT16) |        \
     DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_BOOL))

enum { EG_GRAD, EG_INDICES, EG_NUM, EG_PAD, EG_SCALE, EG_OUT };

typedef struct {
    int64_t rows, dim, num;
    bool empty;
} EmbGradPlan;

static aclnnStatus emb_grad_check(aclStubOpCall *call) {
    const aclStubTensorDesc *grad = T(EG_GRAD), *indices = T(EG_INDICES), *out = T(EG_OUT);
    uint64_t num = (uint64_t)call->v[EG_NUM].i;
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "grad", grad, GRAD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDICES_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, GRAD_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "grad", grad, 8));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "indices", indices, 8));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, 8));
    if (grad->ndim == 0) return aclStubOpFail(call, INVALID, "grad must have at least 1 dimension");
    int64_t dim = grad->dims[grad->ndim - 1], rows = aclStubDimProduct(grad->dims, 0, grad->ndim - 1);
    if (dim != 0 && rows != aclStubNumel(indices))
        return aclStubOpFail(call, INVALID, "grad shape [%s] is not match with indices shape [%s].",
                             aclStubShapeText(grad->dims, grad->ndim, a, sizeof a),
                             aclStubShapeText(indices->dims, indices->ndim, b, sizeof b));
    if (out->ndim != 2) return aclStubOpFail(call, INVALID, "outDim shape is not equal to 2");
    if ((uint64_t)out->dims[0] != num || out->dims[1] != dim)
        return aclStubOpFail(call, INVALID, "outshape [%s] is not match with infershape {%llu, %lld}.",
                             aclStubShapeText(out->dims, out->ndim, a, sizeof a), (unsigned long long)num,
                             (long long)dim);
    if (aclStubIsPrivateFormat(grad->format) || aclStubIsPrivateFormat(indices->format) ||
        aclStubIsPrivateFormat(out->format))
        return aclStubOpFail(call, INVALID, "Format only support ND.");
    EmbGradPlan *p = call->plan;
    p->rows = rows, p->dim = dim, p->num = (int64_t)num;
    p->empty = aclStubNumel(grad) == 0 || aclStubNumel(indices) == 0;
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const EmbGradPlan *p;
    const float *grad;  /* (rows, dim) */
    const int64_t *idx; /* per row: the weight, or -1 (padding) */
    const float *scale; /* per weight (scaleGradByFreq) or NULL */
    float *acc;         /* (num, dim), zeroed */
} EmbGradCtx;

static void emb_grad_cols(void *arg, int64_t begin, int64_t end) {
    const EmbGradCtx *c = arg;
    int64_t dim = c->p->dim;
    for (int64_t r = 0; r < c->p->rows; r++) {
        int64_t w = c->idx[r];
        if (w < 0) continue;
        const float *g = c->grad + r * dim;
        float *o = c->acc + w * dim, s = c->scale ? c->scale[w] : 1.0f;
        if (c->scale)
            for (int64_t j = begin; j < end; j++) o[j] += g[j] * s;
        else
            for (int64_t j = begin; j < end; j++) o[j] += g[j];
    }
}

static aclnnStatus emb_grad_kernel(const aclStubOpCall *call) {
    const EmbGradPlan *p = call->plan;
    const aclStubTensorDesc *grad = T(EG_GRAD), *indices = T(EG_INDICES), *out = T(EG_OUT);
    uint64_t pad = (uint64_t)call->v[EG_PAD].i;
    aclStubTensorDesc acc;
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &acc));
    float zero = 0.0f;
    ACLSTUB_TRY(aclStubFillView(call, &acc, ACL_FLOAT, &zero));
    if (!p->empty && p->dim > 0) {
        aclStubTensorDesc g, iv;
        ACLSTUB_TRY(aclStubInputApart(call, grad, ACL_FLOAT, out, &g));
        ACLSTUB_TRY(aclStubContiguousIn(call, indices, ACL_INT64, &iv));
        int64_t *idx = aclStubKernelScratch(call, (size_t)p->rows * sizeof(int64_t));
        float *scale = call->v[EG_SCALE].b ? aclStubKernelScratch(call, (size_t)(p->num ? p->num : 1) * sizeof(float))
                                           : NULL;
        if (idx == NULL || (call->v[EG_SCALE].b && scale == NULL)) return aclStubKernelOutOfMemory(call);
        const int64_t *raw = (const int64_t *)aclStubViewBase(&iv);
        for (int64_t r = 0; r < p->rows; r++) {
            int64_t v = raw[r];
            if ((uint64_t)v == pad) {
                idx[r] = -1;
                continue;
            }
            if (v < 0 || v >= p->num) return aclStubIndexOutOfRange(call, "indices", v, r, 0, p->num);
            idx[r] = v;
        }
        if (scale != NULL) { /* torch counts every index, padding ones included */
            for (int64_t w = 0; w < p->num; w++) scale[w] = 0.0f;
            for (int64_t r = 0; r < p->rows; r++)
                if ((uint64_t)raw[r] < (uint64_t)p->num) scale[raw[r]] += 1.0f;
            for (int64_t w = 0; w < p->num; w++) scale[w] = scale[w] > 0.0f ? 1.0f / scale[w] : 0.0f;
        }
        EmbGradCtx c = {p, (const float *)aclStubViewBase(&g), idx, scale, (float *)aclStubViewBase(&acc)};
        int64_t min_cols = p->rows > 0 ? 1 + 65536 / p->rows : p->dim;
        aclStubParallelFor(p->dim, min_cols < 16 ? 16 : min_cols, emb_grad_cols, &c);
    }
    return aclStubOutputEnd(call, out, &acc);
}

static const aclStubParam kEmbGradParams[] = {
    {"grad", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},          {"indices", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"numWeights", ACLSTUB_INT, 0, NULL, 0, 0, 0},      {"paddingIdx", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"scaleGradByFreq", ACLSTUB_BOOL, 0, NULL, 0, 0, 0}, {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kEmbGrad = {"aclnnEmbeddingDenseBackward", kEmbGradParams, 6, NULL, emb_grad_check,
                                      emb_grad_kernel, sizeof(EmbGradPlan)};
ACLSTUB_DEFINE_OP(aclnnEmbeddingDenseBackward, kEmbGrad, (const aclTensor *, grad), (const aclTensor *, indices),
                  (uint64_t, numWeights), (uint64_t, paddingIdx), (bool, scaleGradByFreq), (const aclTensor *, out))

/* ---- aclnnEmbeddingBag (index/embedding_bag) ----------------------------------------------------------------------
 * torch._embedding_bag's forward: bag b holds indices[offsets[b] .. offsets[b+1]) (the last bag runs to the end of
 * indices); entries equal to paddingIdx are left out. output[b] = sum (times perSampleWeights), mean or max of the
 * weight rows; offset2bag[i] = the bag of entry i; bagSize[b] = the bag's count (0 for sum, as torch); maxIndices:
 * the row of each column's first maximum (max; 0 for an empty bag), bagSize (mean) or 0 (sum). Sums in float32 in
 * the order of indices, rounded once. An index outside [0, numWeights) or offsets not in [0, len(indices)] and
 * non-decreasing fail the kernel.
 */
#include "aclnnop/aclnn_embedding_bag.h"

#define BAG_INT_ALL (DT(ACL_INT64) | DT(ACL_INT32) | DT(ACL_INT16) | DT(ACL_INT8) | DT(ACL_UINT8))
#define BAG_INT (DT(ACL_INT64) | DT(ACL_INT32))

enum { EB_WEIGHT, EB_INDICES, EB_OFFSETS, EB_SCALE, EB_MODE, EB_SPARSE, EB_PSW, EB_LAST, EB_PAD, EB_OUT, EB_O2B,
       EB_SIZE, EB_MAXI };

typedef struct {
    int64_t bags, dim, n, num;
    int mode; /* 0 sum, 1 mean, 2 max */
    bool empty;
} BagPlan;

static aclnnStatus bag_numel_is(aclStubOpCall *call, const char *name, const aclStubTensorDesc *t, int64_t n) {
    if (aclStubNumel(t) != n)
        return aclStubOpFail(call, INVALID, "%s shape size should be %lld, but got %lld.", name, (long long)n,
                             (long long)aclStubNumel(t));
    return OK;
}

static aclnnStatus bag_check(aclStubOpCall *call) {
    const aclStubTensorDesc *w = T(EB_WEIGHT), *ind = T(EB_INDICES), *off = T(EB_OFFSETS), *psw = T(EB_PSW),
                            *out = T(EB_OUT), *o2b = T(EB_O2B), *bsz = T(EB_SIZE), *maxi = T(EB_MAXI);
    int64_t mode = call->v[EB_MODE].i;
    int m = mode == 0 ? 0 : mode == 1 ? 1 : 2;
    bool last = call->v[EB_LAST].b;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "weight", w, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", ind, BAG_INT_ALL));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "offsets", off, BAG_INT_ALL));
    if (!(BAG_INT & DT(ind->dtype)) && !(BAG_INT & DT(off->dtype)))
        return aclStubOpFail(call, INVALID, "indices or offsets must has one dtype in [int32, int64], but get indices "
                             "dtype %s, offsets dtype %s.", aclStubDtypeName(ind->dtype), aclStubDtypeName(off->dtype));
    if (psw != NULL && psw->dtype != w->dtype)
        return aclStubOpFail(call, INVALID, "perSampleWeights dtype %s should be in same with weight dtype %s.",
                             aclStubDtypeName(psw->dtype), aclStubDtypeName(w->dtype));
    if (out->dtype != w->dtype)
        return aclStubOpFail(call, INVALID, "output dtype %s should be in same with weight dtype %s.",
                             aclStubDtypeName(out->dtype), aclStubDtypeName(w->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "offset2bag", o2b, BAG_INT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "bagSize", bsz, BAG_INT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "maxIndices", maxi, BAG_INT));
    if (w->ndim != 2) return aclStubOpFail(call, INVALID, "weight must be 2-D, not %u-D", w->ndim);
    if (ind->ndim > 1) return aclStubOpFail(call, INVALID, "indices must have at most 1 dimension");
    if (off->ndim > 1) return aclStubOpFail(call, INVALID, "offsets must have at most 1 dimension");
    if (psw != NULL && psw->ndim != 1) return aclStubOpFail(call, INVALID, "perSampleWeights must be 1-D");
    if (out->ndim != 2) return aclStubOpFail(call, INVALID, "output must be 2-D, not %u-D", out->ndim);
    if (o2b->ndim > 1 || bsz->ndim > 1) return aclStubOpFail(call, INVALID, "offset2bag and bagSize must be at most 1-D");
    if (m == 2 ? maxi->ndim != 2 : maxi->ndim > 1)
        return aclStubOpFail(call, INVALID, "maxIndices must be %s", m == 2 ? "2-D in max mode" : "at most 1-D");
    if (m != 0 && psw != NULL) return aclStubOpFail(call, INVALID, "per_sample_weights only supported with mode='sum'");
    if (psw != NULL && aclStubNumel(psw) != aclStubNumel(ind))
        return aclStubOpFail(call, INVALID, "Expected indices->GetViewShape().GetShapeSize() == perSampleWeights"
                             "->GetViewShape().GetShapeSize() to be true, but got false");
    int64_t bags = aclStubNumel(off) - (last ? 1 : 0), shape[2] = {bags, w->dims[1]};
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "output", out, shape, 2));
    if (aclStubNumel(o2b) != 0) ACLSTUB_TRY(bag_numel_is(call, "offset2bag", o2b, aclStubNumel(ind)));
    ACLSTUB_TRY(bag_numel_is(call, "bagSize", bsz, bags));
    if (m == 2)
        ACLSTUB_TRY(aclStubCheckShapeIs(call, "maxIndices", maxi, shape, 2));
    else
        ACLSTUB_TRY(bag_numel_is(call, "maxIndices", maxi, bags));
    if (aclStubNumel(w) == 0 || aclStubNumel(ind) == 0 || aclStubNumel(off) == 0) return aclStubOpNothingToDo(call);
    BagPlan *p = call->plan;
    *p = (BagPlan){bags, w->dims[1], aclStubNumel(ind), w->dims[0], m, false};
    return OK;
}

static aclnnStatus bag_kernel(const aclStubOpCall *call) {
    const BagPlan *p = call->plan;
    const aclStubTensorDesc *out = T(EB_OUT), *o2b = T(EB_O2B), *bsz = T(EB_SIZE), *maxi = T(EB_MAXI);
    int64_t pad = call->v[EB_PAD].i, D = p->dim, n = p->n, B = p->bags;
    aclStubTensorDesc w, iv, ov, pv, acc, o2b_buf, size_buf, maxi_buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, T(EB_WEIGHT), ACL_FLOAT, &w));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(EB_INDICES), ACL_INT64, &iv));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(EB_OFFSETS), ACL_INT64, &ov));
    const float *wt = (const float *)aclStubViewBase(&w), *ps = NULL;
    if (T(EB_PSW) != NULL) {
        ACLSTUB_TRY(aclStubContiguousIn(call, T(EB_PSW), ACL_FLOAT, &pv));
        ps = (const float *)aclStubViewBase(&pv);
    }
    const int64_t *idx = (const int64_t *)aclStubViewBase(&iv), *offs = (const int64_t *)aclStubViewBase(&ov);
    for (int64_t i = 0; i < n; i++)
        if (idx[i] != pad && (idx[i] < 0 || idx[i] >= p->num))
            return aclStubIndexOutOfRange(call, "indices", idx[i], i, 0, p->num);
    for (int64_t b = 0; b < aclStubNumel(T(EB_OFFSETS)); b++)
        if (offs[b] < (b ? offs[b - 1] : 0) || offs[b] > n)
            return aclStubIndexOutOfRange(call, "offsets", offs[b], b, b ? offs[b - 1] : 0, n + 1);
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &acc));
    ACLSTUB_TRY(aclStubOutputBegin(call, bsz, ACL_INT64, false, &size_buf));
    ACLSTUB_TRY(aclStubOutputBegin(call, maxi, ACL_INT64, false, &maxi_buf));
    bool want_o2b = aclStubNumel(o2b) != 0;
    if (want_o2b) ACLSTUB_TRY(aclStubOutputBegin(call, o2b, ACL_INT64, false, &o2b_buf));
    float *o = (float *)aclStubViewBase(&acc);
    int64_t *sz = (int64_t *)aclStubViewBase(&size_buf), *mi = (int64_t *)aclStubViewBase(&maxi_buf);
    for (int64_t b = 0; b < B; b++) {
        int64_t lo = offs[b], hi = b + 1 < B ? offs[b + 1] : n, count = 0;
        float *row = o + b * D;
        int64_t *arg = p->mode == 2 ? mi + b * D : NULL;
        for (int64_t j = 0; j < D; j++) row[j] = 0.0f;
        if (arg) for (int64_t j = 0; j < D; j++) arg[j] = 0;
        for (int64_t i = lo; i < hi; i++) {
            if (want_o2b) ((int64_t *)aclStubViewBase(&o2b_buf))[i] = b;
            if (idx[i] == pad) continue;
            const float *src = wt + idx[i] * D;
            if (p->mode == 2) {
                for (int64_t j = 0; j < D; j++)
                    if (count == 0 || src[j] > row[j]) row[j] = src[j], arg[j] = idx[i];
            } else {
                float s = ps ? ps[i] : 1.0f;
                for (int64_t j = 0; j < D; j++) row[j] += ps ? src[j] * s : src[j];
            }
            count++;
        }
        if (p->mode == 1 && count > 0)
            for (int64_t j = 0; j < D; j++) row[j] /= (float)count;
        sz[b] = p->mode == 0 ? 0 : count;
        if (p->mode != 2) mi[b] = p->mode == 1 ? count : 0;
    }
    if (want_o2b) /* entries before offsets[0] belong to no bag: torch leaves them 0 */
        for (int64_t i = 0; i < (B ? offs[0] : n); i++) ((int64_t *)aclStubViewBase(&o2b_buf))[i] = 0;
    ACLSTUB_TRY(aclStubOutputEnd(call, out, &acc));
    ACLSTUB_TRY(aclStubOutputEnd(call, bsz, &size_buf));
    ACLSTUB_TRY(aclStubOutputEnd(call, maxi, &maxi_buf));
    if (want_o2b) ACLSTUB_TRY(aclStubOutputEnd(call, o2b, &o2b_buf));
    return OK;
}

#define BAG_OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
static const aclStubParam kBagParams[] = {
    {"weight", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},       {"indices", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"offsets", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},      {"scaleGradByFreq", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    {"mode", ACLSTUB_INT, 0, NULL, 0, 0, 0},           {"sparse", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    {"perSampleWeights", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    {"includeLastOffset", ACLSTUB_BOOL, 0, NULL, 0, 0, 0}, {"paddingIdx", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    BAG_OUT("output"), BAG_OUT("offset2bag"), BAG_OUT("bagSize"), BAG_OUT("maxIndices")};
static const aclStubOpDef kBag = {"aclnnEmbeddingBag", kBagParams, 13, NULL, bag_check, bag_kernel, sizeof(BagPlan)};
ACLSTUB_DEFINE_OP(aclnnEmbeddingBag, kBag, (const aclTensor *, weight), (const aclTensor *, indices),
                  (const aclTensor *, offsets), (bool, scaleGradByFreq), (int64_t, mode), (bool, sparse),
                  (const aclTensor *, perSampleWeights), (bool, includeLastOffset), (int64_t, paddingIdx),
                  (aclTensor *, output), (aclTensor *, offset2bag), (aclTensor *, bagSize), (aclTensor *, maxIndices))
