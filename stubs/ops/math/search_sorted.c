/*
 * ops-math math/search_sorted: aclnnSearchSorted and aclnnSearchSorteds (torch.searchsorted). For every value v
 * of self (its row r when sortedSequence is N-D: the leading dimensions match), the index of the first element
 * of sortedSequence's row with !(s < v) (right: with v < s), the row read through sorter when given. Both operands
 * are cast to PromoteType(sortedSequence, self) first, then compared exactly (integers as int64, floats as double).
 * A sorter entry outside [0, M) fails the kernel. SearchSorteds converts its scalar as the op_api does (ToFloat,
 * then sortedSequence's dtype) and gives out the shape {1}, as the op_api sets it.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_searchsorted.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define SEARCH_DT                                                                                            \
    (DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_INT16) | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT32) |         \
     DT(ACL_INT64) | DT(ACL_DOUBLE))

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OPT_IN(name) {name, ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

enum { SS_SEQ, SS_SELF, SS_INT32, SS_RIGHT, SS_SORTER, SS_OUT };

typedef struct {
    aclDataType promote;
    bool empty;                   /* out is zeros */
    aclStubScalarDesc value;      /* SearchSorteds: the value in sortedSequence's dtype */
} SearchPlan;

static aclnnStatus search_common(aclStubOpCall *call, const aclStubTensorDesc *seq, const aclStubTensorDesc *self,
                                 const int64_t *self_dims, uint32_t self_ndim, aclDataType self_dtype) {
    const aclStubTensorDesc *out = T(SS_OUT), *sorter = T(SS_SORTER);
    SearchPlan *p = call->plan;
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "sortedSequence", seq, SEARCH_DT));
    if (self != NULL) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SEARCH_DT));
    aclDataType od = call->v[SS_INT32].b ? ACL_INT32 : ACL_INT64;
    if (out->dtype != od)
        return aclStubOpFail(call, INVALID, "out dtype %s should be %s.", aclStubDtypeName(out->dtype),
                             aclStubDtypeName(od));
    if (sorter != NULL && sorter->dtype != ACL_INT64)
        return aclStubOpFail(call, INVALID, "sorter dtype %s should be ACL_INT64.", aclStubDtypeName(sorter->dtype));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "sortedSequence", seq, 8));
    if (self_ndim > 8) return aclStubOpFail(call, INVALID, "self has more than 8 dimensions");
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self_dims, self_ndim));
    if (sorter != NULL) ACLSTUB_TRY(aclStubCheckShapeIs(call, "sorter", sorter, seq->dims, seq->ndim));
    if (self_ndim == 1 && self_dims[0] == 1 && seq->ndim != 1)
        return aclStubOpFail(call, INVALID, "self value can be a scalar only when sortedSequence tensor dimension is 1, "
                             "but we got sortedSequence tensor dim(%s) and self value's dim(%s).",
                             aclStubShapeText(seq->dims, seq->ndim, a, sizeof a),
                             aclStubShapeText(self_dims, self_ndim, b, sizeof b));
    bool matched = seq->ndim == self_ndim;
    for (uint32_t d = 0; matched && d + 1 < seq->ndim; d++) matched = seq->dims[d] == self_dims[d];
    if (seq->ndim != 1 && !matched)
        return aclStubOpFail(call, INVALID, "sortedSequence tensor should be 1 dimension or the first N-1 dimension of "
                             "sortedSequence tensor and self value tensor must match, but we got sortedSequence tensor "
                             "%s and self value tensor %s.", aclStubShapeText(seq->dims, seq->ndim, a, sizeof a),
                             aclStubShapeText(self_dims, self_ndim, b, sizeof b));
    aclDataType promote = aclStubPromoteType(seq->dtype, self_dtype);
    if ((int)promote < 0)
        return aclStubOpFail(call, INVALID, "sortedSequence dtype %s and self dtype %s can not promote dtype.",
                             aclStubDtypeName(seq->dtype), aclStubDtypeName(self_dtype));
    if (!(SEARCH_DT & DT(promote)))
        return aclStubOpFail(call, INVALID, "promoteType dtype %s not in dtype support list.", aclStubDtypeName(promote));
    int64_t self_numel = aclStubDimProduct(self_dims, 0, self_ndim);
    p->promote = promote;
    p->empty = aclStubNumel(seq) == 0 || self_numel == 0 || aclStubNumel(out) == 0;
    if (seq->ndim == 0) return aclStubOpFail(call, INVALID, "sortedSequence must have at least 1 dimension");
    return OK;
}

typedef struct {
    const void *seq, *val;  /* (rows or 1, m) and (rows, k): int64 or double */
    const int64_t *sorter;  /* (rows or 1, m) or NULL */
    void *out;              /* (rows, k): int32 or int64 */
    int64_t m, k;
    bool shared, right, ints, out32;
} SearchCtx;

#define SEARCH_ROW(T)                                                                                        \
    {                                                                                                        \
        const T *s = (const T *)c->seq + (c->shared ? 0 : r * c->m), *v = (const T *)c->val + r * c->k;      \
        for (int64_t j = 0; j < c->k; j++) {                                                                 \
            int64_t lo = 0, hi = c->m;                                                                       \
            T x = v[j];                                                                                      \
            while (lo < hi) {                                                                                \
                int64_t mid = lo + (hi - lo) / 2;                                                            \
                T y = srt ? s[srt[mid]] : s[mid];                                                            \
                bool go_right = c->right ? !(x < y) : (y < x);                                               \
                if (go_right)                                                                                \
                    lo = mid + 1;                                                                            \
                else                                                                                         \
                    hi = mid;                                                                                \
            }                                                                                                \
            if (c->out32)                                                                                    \
                ((int32_t *)c->out)[r * c->k + j] = (int32_t)lo;                                             \
            else                                                                                             \
                ((int64_t *)c->out)[r * c->k + j] = lo;                                                      \
        }                                                                                                    \
    }

static void search_rows(void *arg, int64_t begin, int64_t end) {
    const SearchCtx *c = arg;
    for (int64_t r = begin; r < end; r++) {
        const int64_t *srt = c->sorter ? c->sorter + (c->shared ? 0 : r * c->m) : NULL;
        if (c->ints)
            SEARCH_ROW(int64_t)
        else
            SEARCH_ROW(double)
    }
}

/* t (any layout) as a contiguous buffer of `dt`, its values first cast to `via`. */
static aclnnStatus staged(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dt, aclDataType via,
                          aclStubTensorDesc *res) {
    *res = *t;
    res->dtype = dt;
    res->offset = 0;
    res->data = aclStubKernelScratch(call, (size_t)(aclStubNumel(t) ? aclStubNumel(t) : 1) * aclDataTypeSize(dt));
    if (res->data == NULL) return aclStubKernelOutOfMemory(call);
    aclStubContiguousStrides(res);
    return aclStubCopyView(call, res, t, via);
}

static aclnnStatus search_run(const aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubTensorDesc *out) {
    const SearchPlan *p = call->plan;
    const aclStubTensorDesc *seq = T(SS_SEQ), *sorter = T(SS_SORTER);
    aclStubTensorDesc buf;
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    if (p->empty) {
        uint64_t zero = 0;
        ACLSTUB_TRY(aclStubFillView(call, &buf, ACL_INT64, &zero));
        return aclStubOutputEnd(call, out, &buf);
    }
    bool ints = aclStubIsIntegral(p->promote, true);
    aclDataType wide = ints ? ACL_INT64 : ACL_DOUBLE;
    aclStubTensorDesc s, v;
    ACLSTUB_TRY(staged(call, seq, wide, p->promote, &s));
    ACLSTUB_TRY(staged(call, self, wide, p->promote, &v));
    int64_t m = seq->dims[seq->ndim - 1], k = self->ndim ? self->dims[self->ndim - 1] : 1;
    int64_t rows = k ? aclStubNumel(self) / k : 0;
    const int64_t *srt = NULL;
    if (sorter != NULL) ACLSTUB_TRY(aclStubIndexLoad(call, sorter, m, false, "sorter", &srt)); /* row-relative */
    SearchCtx c = {s.data, v.data, srt, aclStubViewBase(&buf), m, k, seq->ndim == 1, call->v[SS_RIGHT].b, ints,
                   out->dtype == ACL_INT32};
    aclStubParallelFor(rows, 1 + 4096 / (k ? k : 1), search_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

/* ---- aclnnSearchSorted ------------------------------------------------------------------------------------- */

static aclnnStatus search_sorted_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(SS_SELF);
    return search_common(call, T(SS_SEQ), self, self->dims, self->ndim, self->dtype);
}

static aclnnStatus search_sorted_kernel(const aclStubOpCall *call) { return search_run(call, T(SS_SELF), T(SS_OUT)); }

static const aclStubParam kSearchSortedParams[] = {IN("sortedSequence"), IN("self"), ATTR("outInt32", ACLSTUB_BOOL),
                                                   ATTR("right", ACLSTUB_BOOL), OPT_IN("sorter"), OUT("out")};
static const aclStubOpDef kSearchSorted = {"aclnnSearchSorted", kSearchSortedParams, 6, NULL, search_sorted_check,
                                           search_sorted_kernel, sizeof(SearchPlan)};
ACLSTUB_DEFINE_OP(aclnnSearchSorted, kSearchSorted, (const aclTensor *, sortedSequence), (const aclTensor *, self),
                  (bool, outInt32), (bool, right), (const aclTensor *, sorter), (aclTensor *, out))

/* ---- aclnnSearchSorteds ------------------------------------------------------------------------------------ */

static aclnnStatus search_sorteds_check(aclStubOpCall *call) {
    const aclStubTensorDesc *seq = T(SS_SEQ), *out = T(SS_OUT);
    SearchPlan *p = call->plan;
    const aclStubValue *sv = &call->v[SS_SELF];
    if (!aclStubCanConvert(seq->dtype))
        return aclStubOpFail(call, INVALID, "Convert to tensor failed. not support sortedSequence data type[%s].",
                             aclStubDtypeName(seq->dtype));
    if (aclStubNumel(out) == 0) return aclStubOpFail(call, INVALID, "The shape of out tensor should be {1}.");
    float f = (float)aclStubScalarToDouble(sv->dtype, sv->scalar);
    memset(&p->value, 0, sizeof p->value);
    p->value.dtype = seq->dtype;
    union {
        max_align_t align;
        unsigned char bytes[16];
    } v;
    memset(v.bytes, 0, sizeof v.bytes);
    aclStubCastStrided(v.bytes, 0, seq->dtype, &f, 0, ACL_FLOAT, 1);
    memcpy(p->value.value, v.bytes, sizeof p->value.value);
    if (out->dtype != (call->v[SS_INT32].b ? ACL_INT32 : ACL_INT64))
        return aclStubOpFail(call, INVALID, "out dtype %s should be %s.", aclStubDtypeName(out->dtype),
                             call->v[SS_INT32].b ? "ACL_INT32" : "ACL_INT64");
    /* the shape rules of aclnnSearchSorted with self of shape {1} and out of shape {1} */
    const aclStubTensorDesc *sorter = T(SS_SORTER);
    if (sorter != NULL && sorter->dtype != ACL_INT64)
        return aclStubOpFail(call, INVALID, "sorter dtype %s should be ACL_INT64.", aclStubDtypeName(sorter->dtype));
    if (sorter != NULL) ACLSTUB_TRY(aclStubCheckShapeIs(call, "sorter", sorter, seq->dims, seq->ndim));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "sortedSequence", seq, SEARCH_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "sortedSequence", seq, 8));
    if (seq->ndim != 1)
        return aclStubOpFail(call, INVALID, "self value can be a scalar only when sortedSequence tensor dimension is 1");
    p->promote = seq->dtype;
    p->empty = aclStubNumel(seq) == 0;
    return OK;
}

static aclnnStatus search_sorteds_kernel(const aclStubOpCall *call) {
    const SearchPlan *p = call->plan;
    const aclStubTensorDesc *out = T(SS_OUT);
    union {
        max_align_t align;
        unsigned char bytes[16];
    } v; /* an aligned element */
    memcpy(v.bytes, p->value.value, sizeof v.bytes);
    aclStubTensorDesc self = {.dtype = p->value.dtype, .format = ACL_FORMAT_ND, .ndim = 1, .offset = 0,
                              .data = v.bytes};
    self.dims[0] = 1, self.strides[0] = 1;
    aclStubTensorDesc o1 = *out; /* its first element */
    o1.ndim = 1, o1.dims[0] = 1, o1.strides[0] = 1;
    int64_t one = 1;
    aclStubKernelSetOutputShape(call, SS_OUT, &one, 1);
    return search_run(call, &self, &o1);
}

static const aclStubParam kSearchSortedsParams[] = {IN("sortedSequence"), ATTR("self", ACLSTUB_SCALAR),
                                                    ATTR("outInt32", ACLSTUB_BOOL), ATTR("right", ACLSTUB_BOOL),
                                                    OPT_IN("sorter"), OUT("out")};
static const aclStubOpDef kSearchSorteds = {"aclnnSearchSorteds", kSearchSortedsParams, 6, NULL, search_sorteds_check,
                                            search_sorteds_kernel, sizeof(SearchPlan)};
ACLSTUB_DEFINE_OP(aclnnSearchSorteds, kSearchSorteds, (const aclTensor *, sortedSequence), (const aclScalar *, self),
                  (const bool, outInt32), (const bool, right), (const aclTensor *, sorter), (aclTensor *, out))
