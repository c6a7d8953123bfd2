/*
 * Advanced indexing of ops-nn index/: aclnnIndex (self[indices]) and aclnnIndexPutImpl (self[indices] = or +=
 * values), torch's rules: a list entry per leading dimension of self, an empty entry meaning the whole dimension,
 * integer entries (negative ones counted from the end) broadcast together, boolean masks standing for the
 * positions of their true elements over as many dimensions as they have. The indexed dimensions are gathered
 * (or scattered) as rows of self seen as (before, indexed, after); when they are not adjacent the indexed ones move
 * to the front, as in torch. An index out of range fails the kernel with ACLNN_ERR_PARAM_INVALID.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_index.h"
#include "aclnnop/aclnn_index_put_impl.h"

#define MAX_DIM 8
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID

#define INDEX_DT (ACLSTUB_DT_FLOATS | DT(ACL_INT64) | DT(ACL_INT32) | DT(ACL_BOOL) | DT(ACL_INT8) | DT(ACL_UINT8) | \
                  DT(ACL_DOUBLE) | DT(ACL_INT16))
#define INDEX_PUT_DT (DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_FLOAT16) | DT(ACL_INT16) | DT(ACL_INT8) | \
                      DT(ACL_UINT8) | DT(ACL_DOUBLE) | DT(ACL_BOOL) | DT(ACL_BF16))
#define INDICES_DT (DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_BOOL))

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* The indexing of one call, resolved at kernel time (masks need their data). */
typedef struct {
    uint32_t r;                         /* rank of self */
    int64_t *idx[ACLSTUB_MAX_DIMS];     /* per self dim: the (broadcast) row indices, or NULL */
    int64_t bshape[ACLSTUB_MAX_DIMS];   /* broadcast shape of the indices */
    uint32_t bnd;
    int64_t bcount;
    bool adjacent;
    int64_t perm[ACLSTUB_MAX_DIMS];     /* self dims in (before, indexed, after) order */
    uint32_t first, nidx;               /* position and number of the indexed dims in perm */
    int64_t rshape[2 * ACLSTUB_MAX_DIMS];
    uint32_t rnd;                       /* the result's shape */
} Plan;

/* Phase 1: the shape of the result when there is no mask (masks make it data-dependent); false with a mask. */
static bool static_result(const aclStubTensorDesc *self, const aclStubValue *list, int64_t *shape, uint32_t *nd,
                          aclStubOpCall *call, aclnnStatus *status) {
    *status = OK;
    int64_t b[ACLSTUB_MAX_DIMS];
    uint32_t bn = 0;
    int defined[ACLSTUB_MAX_DIMS], nd_def = 0;
    for (uint64_t k = 0; k < list->size && k < self->ndim; k++) {
        const aclStubTensorDesc *t = &list->tensors[k];
        if (aclStubNumel(t) == 0) continue;
        if (t->dtype == ACL_BOOL) return false;
        int64_t next[ACLSTUB_MAX_DIMS];
        uint32_t nn;
        if (!aclStubBroadcastShape(b, bn, t->dims, t->ndim, next, &nn)) {
            *status = aclStubOpFail(call, INVALID, "shape mismatch: indices can not be broadcast together");
            return false;
        }
        memcpy(b, next, nn * sizeof b[0]);
        bn = nn;
        defined[nd_def++] = (int)k;
    }
    bool adjacent = nd_def == 0 || defined[nd_def - 1] - defined[0] == nd_def - 1;
    uint32_t n = 0;
    if (nd_def == 0) {
        memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
        *nd = self->ndim;
        return true;
    }
    if (adjacent)
        for (int d = 0; d < defined[0]; d++) shape[n++] = self->dims[d];
    for (uint32_t i = 0; i < bn; i++) shape[n++] = b[i];
    for (uint32_t d = 0; d < self->ndim; d++) {
        bool is_def = false;
        for (int j = 0; j < nd_def; j++) is_def |= defined[j] == (int)d;
        if (is_def || (adjacent && (int)d < defined[0])) continue;
        shape[n++] = self->dims[d];
    }
    *nd = n;
    return true;
}

/* Kernel: expand masks, broadcast the indices, wrap and check them, and fill the plan. */
static aclnnStatus resolve(const aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubValue *list, Plan *p) {
    memset(p, 0, sizeof *p);
    p->r = self->ndim;
    const int64_t *raw[ACLSTUB_MAX_DIMS] = {0};
    int64_t rshape[ACLSTUB_MAX_DIMS][ACLSTUB_MAX_DIMS];
    uint32_t rnd[ACLSTUB_MAX_DIMS] = {0};
    uint32_t dim = 0;
    for (uint64_t k = 0; k < list->size && dim < self->ndim; k++) {
        const aclStubTensorDesc *t = &list->tensors[k];
        if (aclStubNumel(t) == 0 && !(t->dtype == ACL_BOOL && t->ndim > 0)) {
            dim++;
            continue;
        }
        if (t->dtype == ACL_BOOL) { /* positions of the true elements, one index array per mask dimension */
            aclStubTensorDesc m;
            ACLSTUB_TRY(aclStubContiguousIn(call, t, ACL_BOOL, &m));
            const uint8_t *mv = (const uint8_t *)aclStubViewBase(&m);
            int64_t total = aclStubNumel(t), cnt = 0;
            for (int64_t i = 0; i < total; i++) cnt += mv[i] != 0;
            for (uint32_t j = 0; j < t->ndim; j++) {
                int64_t *a = aclStubKernelScratch(call, (size_t)(cnt > 0 ? cnt : 1) * sizeof(int64_t));
                if (a == NULL) return aclStubKernelOutOfMemory(call);
                raw[dim + j] = a;
                rnd[dim + j] = 1;
                rshape[dim + j][0] = cnt;
            }
            int64_t pos[ACLSTUB_MAX_DIMS] = {0}, c = 0;
            for (int64_t i = 0; i < total; i++) {
                if (mv[i]) {
                    for (uint32_t j = 0; j < t->ndim; j++) ((int64_t *)raw[dim + j])[c] = pos[j];
                    c++;
                }
                for (uint32_t j = t->ndim; j-- > 0;) {
                    if (++pos[j] < t->dims[j]) break;
                    pos[j] = 0;
                }
            }
            dim += t->ndim;
            continue;
        }
        char what[32];
        snprintf(what, sizeof what, "indices[%llu]", (unsigned long long)k);
        ACLSTUB_TRY(aclStubIndexLoad(call, t, self->dims[dim], true, what, &raw[dim]));
        rnd[dim] = t->ndim;
        memcpy(rshape[dim], t->dims, t->ndim * sizeof rshape[dim][0]);
        dim++;
    }
    /* broadcast shape and the indexed dims */
    int defined[ACLSTUB_MAX_DIMS], nd_def = 0;
    for (uint32_t d = 0; d < self->ndim; d++) {
        if (!raw[d]) continue;
        int64_t next[ACLSTUB_MAX_DIMS];
        uint32_t nn;
        if (!aclStubBroadcastShape(p->bshape, p->bnd, rshape[d], rnd[d], next, &nn))
            return aclStubKernelFail(call, INVALID, "shape mismatch: indices can not be broadcast together");
        memcpy(p->bshape, next, nn * sizeof next[0]);
        p->bnd = nn;
        defined[nd_def++] = (int)d;
    }
    p->bcount = aclStubDimProduct(p->bshape, 0, p->bnd);
    p->nidx = (uint32_t)nd_def;
    p->adjacent = nd_def == 0 || defined[nd_def - 1] - defined[0] == nd_def - 1;
    /* broadcast each index array to bshape */
    for (int j = 0; j < nd_def; j++) {
        int d = defined[j];
        int64_t *b = aclStubKernelScratch(call, (size_t)(p->bcount > 0 ? p->bcount : 1) * sizeof(int64_t));
        if (b == NULL) return aclStubKernelOutOfMemory(call);
        aclStubTensorDesc src = {ACL_INT64, ACL_FORMAT_ND, rnd[d], 0, (void *)raw[d], {0}, {0}, 0, {0}};
        memcpy(src.dims, rshape[d], rnd[d] * sizeof src.dims[0]);
        aclStubContiguousStrides(&src);
        aclStubTensorDesc dst = {ACL_INT64, ACL_FORMAT_ND, p->bnd, 0, b, {0}, {0}, 0, {0}};
        memcpy(dst.dims, p->bshape, p->bnd * sizeof dst.dims[0]);
        aclStubContiguousStrides(&dst);
        if (p->bcount > 0) ACLSTUB_TRY(aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED));
        p->idx[d] = b;
    }
    /* permutation (before, indexed, after) and the result's shape */
    uint32_t n = 0;
    if (p->adjacent && nd_def > 0)
        for (int d = 0; d < defined[0]; d++) p->perm[n++] = d;
    p->first = n;
    for (int j = 0; j < nd_def; j++) p->perm[n++] = defined[j];
    for (uint32_t d = 0; d < self->ndim; d++)
        if (!raw[d] && !(p->adjacent && nd_def > 0 && (int)d < defined[0])) p->perm[n++] = d;
    uint32_t m = 0;
    for (uint32_t i = 0; i < p->first; i++) p->rshape[m++] = self->dims[p->perm[i]];
    for (uint32_t i = 0; i < p->bnd; i++) p->rshape[m++] = p->bshape[i];
    for (uint32_t i = p->first + p->nidx; i < self->ndim; i++) p->rshape[m++] = self->dims[p->perm[i]];
    p->rnd = m;
    return OK;
}

/* The row of self's indexed block selected by each broadcast index position. */
static aclnnStatus rows_of(const aclStubOpCall *call, const aclStubTensorDesc *self, const Plan *p, int64_t **rows) {
    int64_t *r = aclStubKernelScratch(call, (size_t)(p->bcount > 0 ? p->bcount : 1) * sizeof(int64_t));
    if (r == NULL) return aclStubKernelOutOfMemory(call);
    for (int64_t b = 0; b < p->bcount; b++) {
        int64_t row = 0;
        for (uint32_t j = 0; j < p->nidx; j++) {
            int64_t d = p->perm[p->first + j];
            row = row * self->dims[d] + p->idx[d][b];
        }
        r[b] = row;
    }
    *rows = r;
    return OK;
}

/* (before, indexed, after) sizes of self permuted by the plan. */
static void blocks(const aclStubTensorDesc *self, const Plan *p, int64_t *pre, int64_t *mid, int64_t *post) {
    *pre = *mid = *post = 1;
    for (uint32_t i = 0; i < self->ndim; i++) {
        int64_t s = self->dims[p->perm[i]];
        if (i < p->first) *pre *= s;
        else if (i < p->first + p->nidx) *mid *= s;
        else *post *= s;
    }
}

/* ---- aclnnIndex ---------------------------------------------------------------------------------------------------- */

static aclnnStatus index_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(2);
    const aclStubValue *list = &call->v[1];
    char nb[48];
    for (uint64_t k = 0; k < list->size; k++)
        if ((int)list->tensors[k].dtype < 0 && list->tensors[k].data == NULL && list->tensors[k].ndim == 0)
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'indices[%llu]' is NULL", (unsigned long long)k);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "self", self, "out", out));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, INDEX_DT));
    for (uint64_t k = 0; k < list->size; k++) {
        snprintf(nb, sizeof nb, "indices[%llu]", (unsigned long long)k);
        if (aclStubNumel(&list->tensors[k]) > 0) ACLSTUB_TRY(aclStubCheckDtypeIn(call, nb, &list->tensors[k], INDICES_DT));
    }
    if (aclStubIsPrivateFormat(self->format) || aclStubIsPrivateFormat(out->format))
        return aclStubOpFail(call, INVALID, "private formats are not supported");
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    for (uint64_t k = 0; k < list->size; k++) {
        snprintf(nb, sizeof nb, "indices[%llu]", (unsigned long long)k);
        ACLSTUB_TRY(aclStubCheckMaxRank(call, nb, &list->tensors[k], MAX_DIM));
    }
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return nothing(call);
    if (list->size > self->ndim) return aclStubOpFail(call, INVALID, "too many indices for a %u-D self", self->ndim);
    int64_t shape[2 * ACLSTUB_MAX_DIMS];
    uint32_t nd;
    aclnnStatus status;
    if (static_result(self, list, shape, &nd, call, &status)) {
        if (nd > MAX_DIM) return aclStubOpFail(call, INVALID, "the result would have %u dimensions; at most 8", nd);
        ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, nd));
    } else if (status != OK) {
        return status;
    }
    return OK;
}

static aclnnStatus index_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(2);
    Plan p;
    ACLSTUB_TRY(resolve(call, self, &call->v[1], &p));
    if (!aclStubShapeEqual(out->dims, out->ndim, p.rshape, p.rnd)) {
        char a[256], b[256];
        return aclStubKernelFail(call, INVALID, "out has shape %s but the indexing gives %s",
                                 aclStubShapeText(out->dims, out->ndim, a, sizeof a), aclStubShapeText(p.rshape, p.rnd, b, sizeof b));
    }
    if (aclStubNumel(out) == 0) return OK;
    int64_t *rows, pre, mid, post;
    ACLSTUB_TRY(rows_of(call, self, &p, &rows));
    blocks(self, &p, &pre, &mid, &post);
    aclStubTensorDesc view = *self, src, buf;
    aclStubViewPermute(&view, p.perm);
    ACLSTUB_TRY(aclStubInputApart(call, &view, ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    aclStubGatherBlocks(aclStubViewBase(&buf), aclStubViewBase(&src), rows, p.bcount, pre, mid, post,
                        aclDataTypeSize(self->dtype));
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kIndexParams[] = {{"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
                                            {"indices", ACLSTUB_TENSOR_LIST, 0, NULL, 0, 0, 0},
                                            {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kIndex = {"aclnnIndex", kIndexParams, 3, NULL, index_check, index_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnIndex, kIndex, (const aclTensor *, self), (const aclTensorList *, indices), (aclTensor *, out))

/* ---- aclnnIndexPutImpl ------------------------------------------------------------------------------------------------- */

static aclnnStatus index_put_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *values = T(2);
    const aclStubValue *list = &call->v[1];
    char nb[48];
    for (uint64_t k = 0; k < list->size; k++)
        if ((int)list->tensors[k].dtype < 0 && list->tensors[k].data == NULL && list->tensors[k].ndim == 0)
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'indices[%llu]' is NULL", (unsigned long long)k);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, INDEX_PUT_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "values", values, INDEX_PUT_DT));
    for (uint64_t k = 0; k < list->size; k++) {
        snprintf(nb, sizeof nb, "indices[%llu]", (unsigned long long)k);
        if (aclStubNumel(&list->tensors[k]) > 0) ACLSTUB_TRY(aclStubCheckDtypeIn(call, nb, &list->tensors[k], INDICES_DT));
    }
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "selfRef", self, "values", values));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    if (list->size > self->ndim && self->ndim > 0)
        return aclStubOpFail(call, INVALID, "too many indices for a %u-D selfRef", self->ndim);
    /* a bool mask must match the dimensions of selfRef it covers */
    uint32_t used = 0;
    for (uint64_t k = 0; k < list->size; k++) {
        const aclStubTensorDesc *t = &list->tensors[k];
        if (aclStubNumel(t) == 0) {
            used++;
            continue;
        }
        if (t->dtype != ACL_BOOL) {
            used++;
            continue;
        }
        if (used + t->ndim > self->ndim)
            return aclStubOpFail(call, INVALID, "the mask indices[%llu] covers more dimensions than selfRef has",
                                 (unsigned long long)k);
        for (uint32_t j = 0; j < t->ndim; j++)
            if (t->dims[j] != self->dims[used + j])
                return aclStubOpFail(call, INVALID, "the mask indices[%llu] does not match selfRef at dimension %u",
                                     (unsigned long long)k, used + j);
        used += t->ndim;
    }
    if (aclStubNumel(self) == 0 || aclStubNumel(values) == 0) return nothing(call);
    int64_t shape[2 * ACLSTUB_MAX_DIMS], bs[2 * ACLSTUB_MAX_DIMS];
    uint32_t nd, bnd;
    aclnnStatus status;
    if (static_result(self, list, shape, &nd, call, &status)) {
        if (!aclStubBroadcastShape(shape, nd, values->dims, values->ndim, bs, &bnd) || !aclStubShapeEqual(bs, bnd, shape, nd))
            return aclStubOpFail(call, INVALID, "values can not be broadcast to the indexed shape");
    } else if (status != OK) {
        return status;
    }
    return OK;
}

static aclnnStatus index_put_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *values = T(2);
    bool accumulate = call->v[3].b;
    Plan p;
    ACLSTUB_TRY(resolve(call, self, &call->v[1], &p));
    int64_t bs[2 * ACLSTUB_MAX_DIMS];
    uint32_t bnd;
    if (!aclStubBroadcastShape(p.rshape, p.rnd, values->dims, values->ndim, bs, &bnd) ||
        !aclStubShapeEqual(bs, bnd, p.rshape, p.rnd))
        return aclStubKernelFail(call, INVALID, "values can not be broadcast to the indexed shape");
    int64_t *rows, pre, mid, post;
    ACLSTUB_TRY(rows_of(call, self, &p, &rows));
    blocks(self, &p, &pre, &mid, &post);
    aclStubScatterOp op = accumulate ? ACLSTUB_SCATTER_ADD : ACLSTUB_SCATTER_COPY;
    aclDataType ct = accumulate && (self->dtype == ACL_FLOAT16 || self->dtype == ACL_BF16) ? ACL_FLOAT : self->dtype;
    /* values broadcast to the result's shape, contiguous, in the compute dtype */
    aclStubTensorDesc vals = {ct, ACL_FORMAT_ND, p.rnd, 0, NULL, {0}, {0}, 0, {0}};
    memcpy(vals.dims, p.rshape, p.rnd * sizeof vals.dims[0]);
    aclStubContiguousStrides(&vals);
    int64_t count = aclStubNumel(&vals);
    if (count == 0) return OK;
    vals.data = aclStubKernelScratch(call, (size_t)count * aclDataTypeSize(ct));
    if (vals.data == NULL) return aclStubKernelOutOfMemory(call);
    ACLSTUB_TRY(aclStubCopyView(call, &vals, values, ACL_DT_UNDEFINED));
    aclStubTensorDesc view = *self, buf;
    aclStubViewPermute(&view, p.perm);
    ACLSTUB_TRY(aclStubOutputBegin(call, &view, ct, true, &buf));
    ACLSTUB_TRY(aclStubScatterBlocks(call, aclStubViewBase(&buf), vals.data, NULL, rows, p.bcount, pre, mid, post, ct, op,
                                     1.0));
    return aclStubOutputEnd(call, &view, &buf);
}

static const aclStubParam kIndexPutParams[] = {{"selfRef", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
                                               {"indices", ACLSTUB_TENSOR_LIST, 0, NULL, 0, 0, 0},
                                               {"values", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
                                               {"accumulate", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
                                               {"unsafe", ACLSTUB_BOOL, 0, NULL, 0, 0, 0}};
static const aclStubOpDef kIndexPut = {"aclnnIndexPutImpl", kIndexPutParams, 5, NULL, index_put_check, index_put_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnIndexPutImpl, kIndexPut, (aclTensor *, selfRef), (const aclTensorList *, indices),
                  (const aclTensor *, values), (const bool, accumulate), (const bool, unsafe))

/* ---- aclnnInplaceMaskedScatter: selfRef's masked positions (row-major) take source's leading elements ------------- */

#include "aclnnop/aclnn_masked_scatter.h"

#define MASKED_SCATTER_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))

static aclnnStatus masked_scatter_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *mask = T(1), *source = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, MASKED_SCATTER_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "mask", mask, DT(ACL_UINT8) | DT(ACL_BOOL)));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "source", source, "selfRef", self));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "mask", mask, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "source", source, MAX_DIM));
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t n;
    if (!aclStubBroadcastShape(self->dims, self->ndim, mask->dims, mask->ndim, shape, &n) ||
        !aclStubShapeEqual(shape, n, self->dims, self->ndim))
        return aclStubOpFail(call, INVALID, "the shape of mask must be broadcastable to the shape of selfRef");
    if (aclStubNumel(self) == 0 || aclStubNumel(mask) == 0) return nothing(call);
    return OK;
}

static aclnnStatus masked_scatter_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *mask = T(1), *source = T(2);
    aclStubTensorDesc m = *self, src, buf;
    m.dtype = ACL_BOOL;
    m.offset = 0;
    aclStubContiguousStrides(&m);
    int64_t total = aclStubNumel(self), count = 0;
    m.data = aclStubKernelScratch(call, (size_t)total);
    if (m.data == NULL) return aclStubKernelOutOfMemory(call);
    ACLSTUB_TRY(aclStubCopyView(call, &m, mask, ACL_DT_UNDEFINED)); /* broadcast to selfRef's shape */
    const uint8_t *keep = m.data;
    for (int64_t i = 0; i < total; i++) count += keep[i] != 0;
    if (count > aclStubNumel(source))
        return aclStubKernelFail(call, INVALID, "mask selects %lld elements but source has %lld", (long long)count,
                                 (long long)aclStubNumel(source));
    ACLSTUB_TRY(aclStubInputApart(call, source, ACL_DT_UNDEFINED, self, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, self, ACL_DT_UNDEFINED, true, &buf));
    size_t es = aclDataTypeSize(self->dtype);
    char *o = aclStubViewBase(&buf);
    const char *s = aclStubViewBase(&src);
    for (int64_t i = 0, k = 0; i < total; i++)
        if (keep[i]) memcpy(o + i * (int64_t)es, s + k++ * (int64_t)es, es);
    return aclStubOutputEnd(call, self, &buf);
}

static const aclStubParam kMaskedScatterParams[] = {{"selfRef", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
                                                    {"mask", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
                                                    {"source", ACLSTUB_INPUT, 0, NULL, 0, 0, 0}};
static const aclStubOpDef kMaskedScatter = {"aclnnInplaceMaskedScatter", kMaskedScatterParams, 3, NULL,
                                            masked_scatter_check, masked_scatter_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceMaskedScatter, kMaskedScatter, (aclTensor *, selfRef), (const aclTensor *, mask),
                  (const aclTensor *, source))
