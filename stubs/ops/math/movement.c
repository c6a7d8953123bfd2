/*
 * Data movement of ops-math conversion/ and math/: copy, cat, stack, split, slice, permute, roll, flatten,
 * expand, repeat, zero and fill. Every operator is a view of its input copied into its output by the element
 * iterator (aclstub/op_index.h), so strided inputs and outputs, broadcasting and the op_api's casts come from
 * one place. Checks follow each op_api in its order; all outputs may be strided (the op_api ends in a
 * ViewCopy).
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_expand.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_fill_tensor.h"
#include "aclnnop/aclnn_flatten.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_repeat.h"
#include "aclnnop/aclnn_roll.h"
#include "aclnnop/aclnn_slice.h"
#include "aclnnop/aclnn_slice_v2.h"
#include "aclnnop/aclnn_split_tensor.h"
#include "aclnnop/aclnn_split_with_size.h"
#include "aclnnop/aclnn_stack.h"
#include "aclnnop/aclnn_strided_slice.h"
#include "aclnnop/aclnn_strided_slice_assign_v2.h"
#include "aclnnop/aclnn_zero.h"

#define MAX_DIM 8 /* the op_api's MAX_SUPPORT_DIMS_NUMS */
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID

/* Support lists for Atlas A2/A3 (ASCEND910B / DAV_2201) of each op_api. */
#define DT_8BIT_FLOATS (DT(ACL_FLOAT8_E5M2) | DT(ACL_FLOAT8_E4M3FN) | DT(ACL_HIFLOAT8))
#define COPY_DT                                                                                              \
    (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX | DT_8BIT_FLOATS | \
     DT(ACL_FLOAT8_E8M0))
#define CAT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_COMPLEX64) | DT(ACL_BOOL))
#define STACK_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define SPLIT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define SLICE_DT                                                                                             \
    (ACLSTUB_DT_FLOATS | DT(ACL_INT64) | DT(ACL_INT8) | DT(ACL_INT32) | DT(ACL_UINT8) | DT(ACL_BOOL))
#define PERMUTE_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX | DT_8BIT_FLOATS)
#define ROLL_DT                                                                                              \
    (ACLSTUB_DT_FLOATS | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT32) | DT(ACL_UINT32) | DT(ACL_BOOL) |          \
     DT(ACL_INT64) | DT(ACL_INT16))
#define FLATTEN_DT (ACLSTUB_DT_FLOATS | ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | DT(ACL_BOOL))
#define EXPAND_DT (ACLSTUB_DT_FLOATS | DT(ACL_UINT8) | DT(ACL_INT8) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_BOOL))
#define REPEAT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define ZERO_DT                                                                                              \
    (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | DT(ACL_UINT16) | ACLSTUB_DT_COMPLEX)
#define FILL_SCALAR_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define FILL_TENSOR_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)

/* A parameter table entry: outputs and in-place tensors take any layout (the op_api ends in a ViewCopy). */
#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define INPLACE(name) {name, ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

/* ---- shared pieces ----------------------------------------------------------------------------------------- */

/* src as the kernel may read it while writing dst: src itself, or a contiguous copy when the two overlap. */
static aclnnStatus apart(const aclStubOpCall *call, const aclStubTensorDesc *src, const aclStubTensorDesc *dst,
                         aclStubTensorDesc *out) {
    if (!aclStubViewsOverlap(src, dst)) {
        *out = *src;
        return OK;
    }
    aclStubTensorDesc tmp = *src;
    tmp.data = aclStubKernelScratch(call, (size_t)aclStubNumel(src) * aclDataTypeSize(src->dtype));
    if (tmp.data == NULL) return aclStubKernelOutOfMemory(call);
    tmp.offset = 0;
    aclStubContiguousStrides(&tmp);
    ACLSTUB_TRY(aclStubCopyView(call, &tmp, src, ACL_DT_UNDEFINED));
    *out = tmp;
    return OK;
}

/* dst = src with dst's shape (same number of elements, row-major order), cast to dst's dtype. */
static aclnnStatus copy_reshaped(const aclStubOpCall *call, const aclStubTensorDesc *dst,
                                 const aclStubTensorDesc *src) {
    aclStubTensorDesc c;
    ACLSTUB_TRY(aclStubContiguousIn(call, src, ACL_DT_UNDEFINED, &c));
    if (!aclStubViewIsContiguous(&c) || aclStubViewsOverlap(&c, dst)) ACLSTUB_TRY(apart(call, &c, dst, &c));
    aclStubViewReshape(&c, dst->dims, dst->ndim);
    return aclStubCopyView(call, dst, &c, ACL_DT_UNDEFINED);
}

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* The op_api's promotion of a tensor list's dtypes (PromoteType from entry 0 on); ACL_DT_UNDEFINED when none. */
static aclDataType promote_list(const aclStubValue *v, int64_t *bad) {
    aclDataType p = v->tensors[0].dtype;
    for (uint64_t k = 1; k < v->size; k++) {
        p = aclStubPromoteType(v->tensors[k].dtype, p);
        if ((int)p < 0) {
            *bad = (int64_t)k;
            return p;
        }
    }
    return p;
}

static const char *entry_name(char *buf, size_t size, const char *list, uint64_t k) {
    snprintf(buf, size, "%s[%llu]", list, (unsigned long long)k);
    return buf;
}

/* A NULL entry of a tensor list (the SDK describes it with dtype ACL_DT_UNDEFINED and no data). */
static bool null_entry(const aclStubTensorDesc *t) {
    return (int)t->dtype < 0 && t->ndim == 0 && t->data == NULL;
}

/* ---- aclnnInplaceCopy ---------------------------------------------------------------------------------------- */

enum { CP_SELF, CP_SRC };

static aclnnStatus copy_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(CP_SELF), *src = T(CP_SRC);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, COPY_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "src", src, COPY_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "src", src, MAX_DIM));
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t n;
    char a[256], b[256];
    if (!aclStubBroadcastShape(self->dims, self->ndim, src->dims, src->ndim, shape, &n))
        return aclStubOpFail(call, INVALID, "the shape of 'src' %s can not broadcast to 'selfRef' %s",
                             aclStubShapeText(src->dims, src->ndim, a, sizeof a),
                             aclStubShapeText(self->dims, self->ndim, b, sizeof b));
    if (!aclStubShapeEqual(shape, n, self->dims, self->ndim))
        return aclStubOpFail(call, INVALID, "shape of broadcast result should be %s, but self is %s",
                             aclStubShapeText(shape, n, a, sizeof a), aclStubShapeText(self->dims, self->ndim, b, sizeof b));
    if (aclStubNumel(self) == 0 || aclStubNumel(src) == 0) return nothing(call);
    return OK;
}

static aclnnStatus copy_kernel(const aclStubOpCall *call) {
    aclStubTensorDesc src;
    ACLSTUB_TRY(apart(call, T(CP_SRC), T(CP_SELF), &src));
    return aclStubCopyView(call, T(CP_SELF), &src, ACL_DT_UNDEFINED);
}

static const aclStubParam kCopyParams[] = {INPLACE("selfRef"), IN("src")};
static const aclStubOpDef kCopy = {"aclnnInplaceCopy", kCopyParams, 2, NULL, copy_check, copy_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceCopy, kCopy, (aclTensor *, selfRef), (const aclTensor *, src))

/* ---- aclnnCat -------------------------------------------------------------------------------------------------- */

enum { CAT_TENSORS, CAT_DIM, CAT_OUT };

typedef struct {
    int64_t dim;
    aclDataType via; /* the promoted dtype the inputs are cast to before the output's */
} CatPlan;

/* A 1-D tensor of size 0 takes no part in a cat (torch's legacy rule, which the op_api keeps). */
static bool cat_skipped(const aclStubTensorDesc *t) { return t->ndim == 1 && t->dims[0] == 0; }

static aclnnStatus cat_check(aclStubOpCall *call) {
    const aclStubValue *list = &call->v[CAT_TENSORS];
    const aclStubTensorDesc *out = T(CAT_OUT);
    char nb[64], nb2[64];
    /* NULL entries would crash the op_api here; they are refused. */
    for (uint64_t k = 0; k < list->size; k++)
        if (null_entry(&list->tensors[k]))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'tensors[%llu]' is NULL", (unsigned long long)k);
    /* only 1-D empty tensors: nothing to do, whatever the output */
    int64_t kept[4096], nk = 0;
    for (uint64_t k = 0; k < list->size; k++) {
        if (cat_skipped(&list->tensors[k])) continue;
        if (nk == (int64_t)(sizeof kept / sizeof kept[0]))
            return aclStubOpFail(call, INVALID, "at most %zu tensors are supported", sizeof kept / sizeof kept[0]);
        kept[nk++] = (int64_t)k;
    }
    if (nk == 0) return nothing(call);
    if (out == NULL) return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'out' is NULL");
    const aclStubTensorDesc *t0 = &list->tensors[kept[0]];
    for (int64_t k = 0; k < nk; k++)
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, entry_name(nb, sizeof nb, "tensors", (uint64_t)kept[k]),
                                        &list->tensors[kept[k]], CAT_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, CAT_DT));
    aclDataType promote = t0->dtype;
    for (int64_t k = 1; k < nk; k++) {
        const aclStubTensorDesc *t = &list->tensors[kept[k]];
        aclDataType p = aclStubPromoteType(t->dtype, promote);
        if ((int)p < 0)
            return aclStubOpFail(call, INVALID, "tensor %lld dtype %s and dtype %s can not promote dtype",
                                 (long long)kept[k], aclStubDtypeName(t->dtype), aclStubDtypeName(promote));
        if (p == ACL_COMPLEX128)
            return aclStubOpFail(call, INVALID, "tensor dtype has been promoted to %s, which is not supported",
                                 aclStubDtypeName(p));
        promote = p;
    }
    if (!aclStubCanCast(promote, out->dtype))
        return aclStubOpFail(call, INVALID, "promote dtype %s can't be cast to the desired output type %s",
                             aclStubDtypeName(promote), aclStubDtypeName(out->dtype));
    if (aclStubIsPrivateFormat(t0->format))
        return aclStubOpFail(call, INVALID, "format only supports ND, NCHW, NHWC, HWCN, NDHWC and NCDHW");
    for (int64_t k = 1; k < nk; k++)
        if (list->tensors[kept[k]].format != t0->format)
            return aclStubOpFail(call, INVALID, "format of tensors should be equal, tensor %lld [%d], tensor 0 [%d]",
                                 (long long)kept[k], (int)list->tensors[kept[k]].format, (int)t0->format);
    if (out->format != t0->format)
        return aclStubOpFail(call, INVALID, "format of input and output should be equal");
    ACLSTUB_TRY(aclStubCheckMaxRank(call, entry_name(nb, sizeof nb, "tensors", (uint64_t)kept[0]), t0, MAX_DIM));
    int64_t dim = call->v[CAT_DIM].i, rank = t0->ndim;
    if (!aclStubWrapDim(&dim, rank))
        return aclStubOpFail(call, INVALID, "dim %lld exceeds the dim range of the tensor %lld",
                             (long long)call->v[CAT_DIM].i, (long long)rank);
    int64_t total = 0, nonempty = 0;
    for (int64_t k = 0; k < nk; k++) {
        const aclStubTensorDesc *t = &list->tensors[kept[k]];
        if ((int64_t)t->ndim != rank)
            return aclStubOpFail(call, INVALID, "dimnum of tensor %lld is [%u], should be equal to tensor 0 [%lld]",
                                 (long long)kept[k], t->ndim, (long long)rank);
        for (int64_t j = 0; j < rank; j++)
            if (j != dim && t->dims[j] != t0->dims[j])
                return aclStubOpFail(call, INVALID, "dim %lld of %s is [%lld], should be equal to %s [%lld]",
                                     (long long)j, entry_name(nb, sizeof nb, "tensors", (uint64_t)kept[k]),
                                     (long long)t->dims[j], entry_name(nb2, sizeof nb2, "tensors", (uint64_t)kept[0]),
                                     (long long)t0->dims[j]);
        total += t->dims[dim];
        nonempty += aclStubNumel(t) > 0;
    }
    if (nonempty == 0) return nothing(call);
    int64_t shape[ACLSTUB_MAX_DIMS];
    memcpy(shape, t0->dims, (size_t)rank * sizeof shape[0]);
    shape[dim] = total;
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, (uint32_t)rank));
    CatPlan *plan = call->plan;
    plan->dim = dim;
    /* one non-empty input is cast straight to the output's dtype; several go through the promoted dtype */
    plan->via = nonempty > 1 ? promote : ACL_DT_UNDEFINED;
    if (aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus cat_kernel(const aclStubOpCall *call) {
    const CatPlan *plan = call->plan;
    const aclStubValue *list = &call->v[CAT_TENSORS];
    const aclStubTensorDesc *out = T(CAT_OUT);
    int64_t at = 0;
    for (uint64_t k = 0; k < list->size; k++) {
        const aclStubTensorDesc *t = &list->tensors[k];
        if (cat_skipped(t)) continue;
        int64_t len = t->dims[plan->dim];
        if (aclStubNumel(t) > 0) {
            aclStubTensorDesc dst = *out, src;
            aclStubViewNarrow(&dst, (uint32_t)plan->dim, at, len);
            ACLSTUB_TRY(apart(call, t, out, &src));
            ACLSTUB_TRY(aclStubCopyView(call, &dst, &src, plan->via));
        }
        at += len;
    }
    return OK;
}

static const aclStubParam kCatParams[] = {
    ATTR("tensors", ACLSTUB_TENSOR_LIST), ATTR("dim", ACLSTUB_INT),
    {"out", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kCat = {"aclnnCat", kCatParams, 3, NULL, cat_check, cat_kernel, sizeof(CatPlan)};
ACLSTUB_DEFINE_OP(aclnnCat, kCat, (const aclTensorList *, tensors), (int64_t, dim), (aclTensor *, out))

/* ---- aclnnStack ------------------------------------------------------------------------------------------------ */

enum { ST_TENSORS, ST_DIM, ST_OUT };

static aclnnStatus stack_check(aclStubOpCall *call) {
    const aclStubValue *list = &call->v[ST_TENSORS];
    const aclStubTensorDesc *out = T(ST_OUT);
    char nb[64];
    /* the op_api answers a NULL list or output with ACLNN_ERR_INNER_NULLPTR */
    if (!list->present) return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "argument 'tensors' is NULL");
    if (out == NULL) return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "argument 'out' is NULL");
    if (list->size == 0) return aclStubOpFail(call, INVALID, "argument 'tensors' is empty");
    for (uint64_t k = 0; k < list->size; k++)
        if (null_entry(&list->tensors[k]))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'tensors[%llu]' is NULL", (unsigned long long)k);
    for (uint64_t k = 0; k < list->size; k++)
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, entry_name(nb, sizeof nb, "tensors", k), &list->tensors[k], STACK_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, STACK_DT));
    int64_t bad = 0;
    aclDataType promote = promote_list(list, &bad);
    if ((int)promote < 0)
        return aclStubOpFail(call, INVALID, "tensor %lld dtype %s can not promote with the dtypes before it",
                             (long long)bad, aclStubDtypeName(list->tensors[bad].dtype));
    if (!aclStubCanCast(promote, out->dtype))
        return aclStubOpFail(call, INVALID, "promote dtype %s can't be cast to the desired output type %s",
                             aclStubDtypeName(promote), aclStubDtypeName(out->dtype));
    const aclStubTensorDesc *t0 = &list->tensors[0];
    int64_t rank = t0->ndim;
    if (rank > MAX_DIM) return aclStubOpFail(call, INVALID, "dim of self is %lld, can't be greater than 8", (long long)rank);
    int64_t dim = call->v[ST_DIM].i;
    if (!aclStubWrapDim(&dim, rank + 1))
        return aclStubOpFail(call, INVALID, "dim %lld exceeds the range [%lld, %lld]", (long long)call->v[ST_DIM].i,
                             (long long)-(rank + 1), (long long)rank);
    for (uint64_t k = 1; k < list->size; k++) {
        const aclStubTensorDesc *t = &list->tensors[k];
        if ((int64_t)t->ndim != rank)
            return aclStubOpFail(call, INVALID, "dimnum of tensor %llu is [%u], should be equal to tensor 0 [%lld]",
                                 (unsigned long long)k, t->ndim, (long long)rank);
        for (int64_t j = 0; j < rank; j++)
            if (t->dims[j] != t0->dims[j])
                return aclStubOpFail(call, INVALID, "dim %lld of tensor %llu is [%lld], should be equal to tensor 0 "
                                     "[%lld]", (long long)j, (unsigned long long)k, (long long)t->dims[j],
                                     (long long)t0->dims[j]);
    }
    if (aclStubNumel(t0) == 0) return nothing(call);
    int64_t shape[ACLSTUB_MAX_DIMS];
    memcpy(shape, t0->dims, (size_t)rank * sizeof shape[0]);
    memmove(shape + dim + 1, shape + dim, (size_t)(rank - dim) * sizeof shape[0]);
    shape[dim] = (int64_t)list->size;
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, (uint32_t)rank + 1));
    CatPlan *plan = call->plan;
    plan->dim = dim;
    plan->via = list->size > 1 ? promote : ACL_DT_UNDEFINED;
    return OK;
}

static aclnnStatus stack_kernel(const aclStubOpCall *call) {
    const CatPlan *plan = call->plan;
    const aclStubValue *list = &call->v[ST_TENSORS];
    const aclStubTensorDesc *out = T(ST_OUT);
    for (uint64_t k = 0; k < list->size; k++) {
        aclStubTensorDesc dst = *out, src;
        aclStubViewNarrow(&dst, (uint32_t)plan->dim, (int64_t)k, 1);
        aclStubViewRemoveDim(&dst, (uint32_t)plan->dim);
        ACLSTUB_TRY(apart(call, &list->tensors[k], out, &src));
        ACLSTUB_TRY(aclStubCopyView(call, &dst, &src, plan->via));
    }
    return OK;
}

static const aclStubParam kStackParams[] = {
    {"tensors", ACLSTUB_TENSOR_LIST, 0, NULL, ACLSTUB_NULLABLE, 0, 0}, ATTR("dim", ACLSTUB_INT),
    {"out", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kStack = {"aclnnStack", kStackParams, 3, NULL, stack_check, stack_kernel, sizeof(CatPlan)};
ACLSTUB_DEFINE_OP(aclnnStack, kStack, (const aclTensorList *, tensors), (int64_t, dim), (aclTensor *, out))

/* ---- aclnnSplitTensor, aclnnSplitWithSize ------------------------------------------------------------------------ */

#define MAX_PIECES 65536

typedef struct {
    int64_t dim;
    int64_t pieces; /* outputs written: out[0 .. pieces) */
    int64_t chunk;  /* SplitTensor: the size of every piece but the last */
} SplitPlan;

/* The rules both splits share: ranks, dim, then the pieces' shapes against the outputs. */
static aclnnStatus split_ranks(aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubValue *out,
                               int64_t *dim, int64_t dim_arg) {
    char nb[64];
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (self->ndim < 1) return aclStubOpFail(call, INVALID, "argument 'self' must have at least 1 dimension");
    for (uint64_t k = 0; k < out->size; k++)
        ACLSTUB_TRY(aclStubCheckMaxRank(call, entry_name(nb, sizeof nb, "out", k), &out->tensors[k], MAX_DIM));
    *dim = dim_arg;
    if (!aclStubWrapDim(dim, self->ndim))
        return aclStubOpFail(call, INVALID, "dim value %lld must be in range [%d, %u)", (long long)dim_arg,
                             -(int)self->ndim, self->ndim);
    return OK;
}

static aclnnStatus split_piece_shape(aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubValue *out,
                                     int64_t k, int64_t dim, int64_t len) {
    char nb[64];
    int64_t shape[ACLSTUB_MAX_DIMS];
    memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
    shape[dim] = len;
    return aclStubCheckShapeIs(call, entry_name(nb, sizeof nb, "out", (uint64_t)k), &out->tensors[k], shape, self->ndim);
}

enum { SPT_SELF, SPT_SECTIONS, SPT_DIM, SPT_OUT };

static aclnnStatus split_tensor_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(SPT_SELF);
    const aclStubValue *out = &call->v[SPT_OUT];
    char nb[64];
    for (uint64_t k = 0; k < out->size; k++)
        if (null_entry(&out->tensors[k]))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'out[%llu]' is NULL", (unsigned long long)k);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SPLIT_DT));
    for (uint64_t k = 0; k < out->size; k++)
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, entry_name(nb, sizeof nb, "out", k), &out->tensors[k], SPLIT_DT));
    for (uint64_t k = 1; k < out->size; k++)
        ACLSTUB_TRY(aclStubCheckDtypeSame(call, entry_name(nb, sizeof nb, "out", k), &out->tensors[k], "out[0]",
                                          &out->tensors[0]));
    int64_t dim;
    ACLSTUB_TRY(split_ranks(call, self, out, &dim, call->v[SPT_DIM].i));
    uint64_t sections = (uint64_t)call->v[SPT_SECTIONS].i;
    int64_t size = self->dims[dim];
    if (size != 0 && sections == 0)
        return aclStubOpFail(call, INVALID, "splitSections must not be zero while the split dimension (%lld) is not",
                             (long long)size);
    if (size == 0 && sections != 0)
        return aclStubOpFail(call, INVALID, "splitSections must be zero while the split dimension is zero, got %llu",
                             (unsigned long long)sections);
    if (aclStubNumel(self) == 0) return nothing(call);
    SplitPlan *plan = call->plan;
    plan->dim = dim;
    int64_t chunk = sections > (uint64_t)size ? size : (int64_t)sections;
    int64_t pieces = size == chunk ? 1 : (size + chunk - 1) / chunk;
    if (out->size < (uint64_t)pieces)
        return aclStubOpFail(call, INVALID, "the split gives %lld pieces but 'out' holds %llu tensors",
                             (long long)pieces, (unsigned long long)out->size);
    for (int64_t k = 0; k < pieces; k++)
        ACLSTUB_TRY(split_piece_shape(call, self, out, k, dim, k + 1 < pieces ? chunk : size - chunk * (pieces - 1)));
    plan->pieces = pieces;
    plan->chunk = chunk;
    return OK;
}

static aclnnStatus split_kernel_sizes(const aclStubOpCall *call, const aclStubTensorDesc *self,
                                      const aclStubValue *out, const int64_t *sizes, int64_t chunk) {
    const SplitPlan *plan = call->plan;
    int64_t at = 0;
    for (int64_t k = 0; k < plan->pieces; k++) {
        int64_t len = sizes ? sizes[k] : out->tensors[k].dims[plan->dim];
        (void)chunk;
        aclStubTensorDesc src = *self, piece;
        aclStubViewNarrow(&src, (uint32_t)plan->dim, at, len);
        ACLSTUB_TRY(apart(call, &src, &out->tensors[k], &piece));
        ACLSTUB_TRY(aclStubCopyView(call, &out->tensors[k], &piece, ACL_DT_UNDEFINED));
        at += len;
    }
    return OK;
}

static aclnnStatus split_tensor_kernel(const aclStubOpCall *call) {
    const SplitPlan *plan = call->plan;
    return split_kernel_sizes(call, T(SPT_SELF), &call->v[SPT_OUT], NULL, plan->chunk);
}

static const aclStubParam kSplitTensorParams[] = {
    IN("self"), ATTR("splitSections", ACLSTUB_INT), ATTR("dim", ACLSTUB_INT), ATTR("out", ACLSTUB_OUTPUT_LIST)};
static const aclStubOpDef kSplitTensor = {"aclnnSplitTensor", kSplitTensorParams, 4, NULL, split_tensor_check,
                                          split_tensor_kernel, sizeof(SplitPlan)};
ACLSTUB_DEFINE_OP(aclnnSplitTensor, kSplitTensor, (const aclTensor *, self), (uint64_t, splitSections),
                  (int64_t, dim), (aclTensorList *, out))

enum { SPS_SELF, SPS_SIZES, SPS_DIM, SPS_OUT };

static aclnnStatus split_sizes_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(SPS_SELF);
    const aclStubValue *out = &call->v[SPS_OUT], *sizes = &call->v[SPS_SIZES];
    char nb[64];
    for (uint64_t k = 0; k < out->size; k++)
        if (null_entry(&out->tensors[k]))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'out[%llu]' is NULL", (unsigned long long)k);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SPLIT_DT));
    for (uint64_t k = 0; k < out->size; k++)
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, entry_name(nb, sizeof nb, "out", k), &out->tensors[k], SPLIT_DT));
    int64_t dim;
    ACLSTUB_TRY(split_ranks(call, self, out, &dim, call->v[SPS_DIM].i));
    int64_t sum = 0;
    for (uint64_t k = 0; k < sizes->size; k++) sum += sizes->ints[k];
    if (sum != self->dims[dim])
        return aclStubOpFail(call, INVALID, "the split sizes sum to %lld but dimension %lld has %lld elements",
                             (long long)sum, (long long)dim, (long long)self->dims[dim]);
    if (sizes->size != out->size)
        return aclStubOpFail(call, INVALID, "splitSize has %llu entries but 'out' holds %llu tensors",
                             (unsigned long long)sizes->size, (unsigned long long)out->size);
    if (aclStubNumel(self) == 0) return nothing(call);
    for (uint64_t k = 0; k < sizes->size; k++)
        if (sizes->ints[k] < 0) /* the SplitV kernel refuses it: the op_api's step fails */
            return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "splitSize[%llu] is negative (%lld)",
                                 (unsigned long long)k, (long long)sizes->ints[k]);
    for (uint64_t k = 0; k < sizes->size; k++)
        ACLSTUB_TRY(split_piece_shape(call, self, out, (int64_t)k, dim, sizes->size == 1 ? self->dims[dim] : sizes->ints[k]));
    SplitPlan *plan = call->plan;
    plan->dim = dim;
    plan->pieces = (int64_t)sizes->size;
    return OK;
}

static aclnnStatus split_sizes_kernel(const aclStubOpCall *call) {
    return split_kernel_sizes(call, T(SPS_SELF), &call->v[SPS_OUT], call->v[SPS_SIZES].ints, 0);
}

static const aclStubParam kSplitSizesParams[] = {
    IN("self"), ATTR("splitSize", ACLSTUB_INT_ARRAY), ATTR("dim", ACLSTUB_INT), ATTR("out", ACLSTUB_OUTPUT_LIST)};
static const aclStubOpDef kSplitSizes = {"aclnnSplitWithSize", kSplitSizesParams, 4, NULL, split_sizes_check,
                                         split_sizes_kernel, sizeof(SplitPlan)};
ACLSTUB_DEFINE_OP(aclnnSplitWithSize, kSplitSizes, (const aclTensor *, self), (const aclIntArray *, splitSize),
                  (int64_t, dim), (aclTensorList *, out))

/* ---- aclnnSlice, aclnnSliceV2 ---------------------------------------------------------------------------------- */

typedef struct {
    int n;
    int64_t dim[MAX_DIM], start[MAX_DIM], len[MAX_DIM], step[MAX_DIM];
} SlicePlan;

/* start and end of a slice of a dimension of `size` elements (negative ones count from the end), clamped into
 * [0, size] with end >= start; the number of elements taken every `step`. */
static int64_t slice_bounds(int64_t size, int64_t *start, int64_t end, int64_t step) {
    int64_t s = *start, e = end;
    if (s < 0) s += size;
    if (e < 0) e += size;
    s = s < 0 ? 0 : s > size ? size : s;
    e = e < s ? s : e > size ? size : e;
    *start = s;
    return e == s ? 0 : (e - s - 1) / step + 1;
}

static aclnnStatus slice_kernel(const aclStubOpCall *call) {
    const SlicePlan *plan = call->plan;
    aclStubTensorDesc view = *T(0), src;
    for (int k = 0; k < plan->n; k++)
        aclStubViewStep(&view, (uint32_t)plan->dim[k], plan->start[k], plan->len[k], plan->step[k]);
    const aclStubTensorDesc *out = T(call->op->num_params - 1);
    ACLSTUB_TRY(apart(call, &view, out, &src));
    return aclStubCopyView(call, out, &src, ACL_DT_UNDEFINED);
}

enum { SL_SELF, SL_DIM, SL_START, SL_END, SL_STEP, SL_OUT };

static aclnnStatus slice_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(SL_SELF), *out = T(SL_OUT);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SLICE_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (self->ndim < 1) return aclStubOpFail(call, INVALID, "argument 'self' must have at least 1 dimension");
    int64_t dim = call->v[SL_DIM].i, step = call->v[SL_STEP].i, start = call->v[SL_START].i;
    if (!aclStubWrapDim(&dim, self->ndim))
        return aclStubOpFail(call, INVALID, "dim value %lld must be in range [%d, %u]", (long long)call->v[SL_DIM].i,
                             -(int)self->ndim, self->ndim - 1);
    if (step <= 0) return aclStubOpFail(call, INVALID, "step must be positive, got %lld", (long long)step);
    int64_t len = slice_bounds(self->dims[dim], &start, call->v[SL_END].i, step);
    int64_t shape[ACLSTUB_MAX_DIMS];
    memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
    shape[dim] = len;
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, self->ndim));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return nothing(call);
    SlicePlan *plan = call->plan;
    *plan = (SlicePlan){1, {dim}, {start}, {len}, {step}};
    return OK;
}

static const aclStubParam kSliceParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), ATTR("start", ACLSTUB_INT),
                                            ATTR("end", ACLSTUB_INT), ATTR("step", ACLSTUB_INT), OUT("out")};
static const aclStubOpDef kSlice = {"aclnnSlice", kSliceParams, 6, NULL, slice_check, slice_kernel, sizeof(SlicePlan)};
ACLSTUB_DEFINE_OP(aclnnSlice, kSlice, (const aclTensor *, self), (int64_t, dim), (int64_t, start), (int64_t, end),
                  (int64_t, step), (aclTensor *, out))

enum { SL2_SELF, SL2_STARTS, SL2_ENDS, SL2_AXES, SL2_STEPS, SL2_OUT };

static aclnnStatus slice_v2_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(SL2_SELF), *out = T(SL2_OUT);
    const aclStubValue *starts = &call->v[SL2_STARTS], *ends = &call->v[SL2_ENDS], *axes = &call->v[SL2_AXES],
                       *steps = &call->v[SL2_STEPS];
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SLICE_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t rank = self->ndim;
    bool seen[MAX_DIM] = {false};
    for (uint64_t k = 0; k < axes->size; k++) {
        int64_t a = axes->ints[k];
        if (!aclStubWrapDim(&a, rank))
            return aclStubOpFail(call, INVALID, "axes value %lld is not in the range of the input's %lld dimensions",
                                 (long long)axes->ints[k], (long long)rank);
        if (seen[a]) return aclStubOpFail(call, INVALID, "axes value %lld appears more than once", (long long)a);
        seen[a] = true;
    }
    if (starts->size != axes->size)
        return aclStubOpFail(call, INVALID, "starts has %llu entries but axes has %llu",
                             (unsigned long long)starts->size, (unsigned long long)axes->size);
    if (ends->size != axes->size)
        return aclStubOpFail(call, INVALID, "ends has %llu entries but axes has %llu", (unsigned long long)ends->size,
                             (unsigned long long)axes->size);
    for (uint64_t k = 0; k < steps->size; k++)
        if (steps->ints[k] <= 0) return aclStubOpFail(call, INVALID, "steps must be positive, got %lld", (long long)steps->ints[k]);
    /* the op_api reads axes, starts and ends at every index of steps */
    if (steps->size > axes->size)
        return aclStubOpFail(call, INVALID, "steps has %llu entries but axes has %llu", (unsigned long long)steps->size,
                             (unsigned long long)axes->size);
    SlicePlan *plan = call->plan;
    int64_t shape[ACLSTUB_MAX_DIMS];
    memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
    plan->n = (int)steps->size;
    for (uint64_t k = 0; k < steps->size; k++) {
        int64_t a = axes->ints[k], start = starts->ints[k];
        aclStubWrapDim(&a, rank);
        int64_t len = slice_bounds(self->dims[a], &start, ends->ints[k], steps->ints[k]);
        shape[a] = len;
        plan->dim[k] = a;
        plan->start[k] = start;
        plan->len[k] = len;
        plan->step[k] = steps->ints[k];
    }
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, self->ndim));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static const aclStubParam kSliceV2Params[] = {IN("self"), ATTR("starts", ACLSTUB_INT_ARRAY),
                                              ATTR("ends", ACLSTUB_INT_ARRAY), ATTR("axes", ACLSTUB_INT_ARRAY),
                                              ATTR("steps", ACLSTUB_INT_ARRAY), OUT("out")};
static const aclStubOpDef kSliceV2 = {"aclnnSliceV2", kSliceV2Params, 6, NULL, slice_v2_check, slice_kernel,
                                      sizeof(SlicePlan)};
ACLSTUB_DEFINE_OP(aclnnSliceV2, kSliceV2, (const aclTensor *, self), (const aclIntArray *, starts),
                  (const aclIntArray *, ends), (const aclIntArray *, axes), (const aclIntArray *, steps),
                  (aclTensor *, out))

/* ---- aclnnStridedSliceAssignV2: varRef[begin:end:strides] = inputValue -------------------------------------------- */

#define SSA_DT                                                                                               \
    (DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_BF16) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_DOUBLE) | DT(ACL_INT8))

enum { SSA_VAR, SSA_VALUE, SSA_BEGIN, SSA_END, SSA_STRIDES, SSA_AXES };

/* Its tiling's rules (phase 1 on a device: ACLNN_ERR_INNER_TILING_ERROR): begin and end as in Python (negative ones
 * count from the end, clamped to the dimension), positive strides, 1 on the last dimension, inputValue of the
 * slice's shape; without axes, begin/end/strides give every dimension. */
static aclnnStatus strided_slice_assign_check(aclStubOpCall *call) {
    const aclStubTensorDesc *var = T(SSA_VAR), *value = T(SSA_VALUE);
    const aclStubValue *begin = &call->v[SSA_BEGIN], *end = &call->v[SSA_END], *strides = &call->v[SSA_STRIDES],
                       *axes = &call->v[SSA_AXES];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "varRef", var, SSA_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "inputValue", value, SSA_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "inputValue", value, "varRef", var));
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    uint32_t n = var->ndim;
    if (n != value->ndim) return aclStubOpFail(call, TILING, "Var's dim num must equal to input_value's");
    if (n == 0 || n > MAX_DIM) return aclStubOpFail(call, TILING, "Var's dim num must be in [1, 8], not %u", n);
    for (uint32_t i = 0; i < n; i++)
        if (var->dims[i] <= 0) return aclStubOpFail(call, TILING, "Input var shape can not less or equal 0.");
    uint64_t k = axes->present ? axes->size : n;
    if (begin->size != k || end->size != k || strides->size != k)
        return aclStubOpFail(call, TILING, "begin, end and strides must have %llu entries (%llu, %llu, %llu)",
                             (unsigned long long)k, (unsigned long long)begin->size, (unsigned long long)end->size,
                             (unsigned long long)strides->size);
    int64_t b[MAX_DIM], e[MAX_DIM], s[MAX_DIM];
    for (uint32_t i = 0; i < n; i++) b[i] = 0, e[i] = var->dims[i], s[i] = 1;
    bool used[MAX_DIM] = {false};
    for (uint64_t i = 0; i < k; i++) {
        int64_t a = axes->present ? axes->ints[i] : (int64_t)i;
        if (a < 0) a += n;
        if (a < 0 || a >= (int64_t)n)
            return aclStubOpFail(call, TILING, "axes[%llu] value %lld is out of range [-%u, %u).", (unsigned long long)i,
                                 (long long)axes->ints[i], n, n);
        if (used[a]) return aclStubOpFail(call, TILING, "axes[%llu] value %lld is duplicated.", (unsigned long long)i,
                                          (long long)axes->ints[i]);
        used[a] = true;
        b[a] = begin->ints[i], e[a] = end->ints[i], s[a] = strides->ints[i];
    }
    SlicePlan *plan = call->plan;
    plan->n = (int)n;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] <= 0) return aclStubOpFail(call, TILING, "strides must be positive, got %lld", (long long)s[i]);
        int64_t d = var->dims[i];
        b[i] = b[i] < 0 ? b[i] + d : b[i], e[i] = e[i] < 0 ? e[i] + d : e[i];
        b[i] = b[i] < 0 ? 0 : b[i] > d ? d : b[i], e[i] = e[i] < 0 ? 0 : e[i] > d ? d : e[i];
        int64_t len = e[i] > b[i] ? (e[i] - b[i] + s[i] - 1) / s[i] : 0;
        if (len != value->dims[i]) return aclStubOpFail(call, TILING, "Input shape does not match, please check!");
        plan->dim[i] = i, plan->start[i] = b[i], plan->len[i] = len, plan->step[i] = s[i];
    }
    if (s[n - 1] != 1) return aclStubOpFail(call, TILING, "The stride of last dim must be 1.");
    if (aclStubNumel(value) == 0) return nothing(call);
    return OK;
}

static aclnnStatus strided_slice_assign_kernel(const aclStubOpCall *call) {
    const SlicePlan *plan = call->plan;
    aclStubTensorDesc view = *T(SSA_VAR), src;
    for (int k = 0; k < plan->n; k++)
        aclStubViewStep(&view, (uint32_t)plan->dim[k], plan->start[k], plan->len[k], plan->step[k]);
    ACLSTUB_TRY(apart(call, T(SSA_VALUE), &view, &src));
    return aclStubCopyView(call, &view, &src, ACL_DT_UNDEFINED);
}

static const aclStubParam kStridedSliceAssignParams[] = {
    INPLACE("varRef"), IN("inputValue"), ATTR("begin", ACLSTUB_INT_ARRAY), ATTR("end", ACLSTUB_INT_ARRAY),
    ATTR("strides", ACLSTUB_INT_ARRAY), {"axesOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE, 0, 0}};
static const aclStubOpDef kStridedSliceAssign = {"aclnnStridedSliceAssignV2", kStridedSliceAssignParams, 6, NULL,
                                                 strided_slice_assign_check, strided_slice_assign_kernel,
                                                 sizeof(SlicePlan)};
ACLSTUB_DEFINE_OP(aclnnStridedSliceAssignV2, kStridedSliceAssign, (aclTensor *, varRef), (const aclTensor *, inputValue),
                  (const aclIntArray *, begin), (const aclIntArray *, end), (const aclIntArray *, strides),
                  (const aclIntArray *, axesOptional))

/* ---- aclnnStridedSlice: Ascend 950 only (its op_api refuses other devices after the NULL checks) ---------------- */

static aclnnStatus strided_slice_check(aclStubOpCall *call) {
    return aclStubOpFail(call, INVALID, "aclnnStridedSlice only support ASCEND950.");
}

static const aclStubParam kStridedSliceParams[] = {
    IN("self"), ATTR("begin", ACLSTUB_INT_ARRAY), ATTR("end", ACLSTUB_INT_ARRAY), ATTR("strides", ACLSTUB_INT_ARRAY),
    ATTR("beginMask", ACLSTUB_INT), ATTR("endMask", ACLSTUB_INT), ATTR("ellipsisMask", ACLSTUB_INT),
    ATTR("newAxisMask", ACLSTUB_INT), ATTR("shrinkAxisMask", ACLSTUB_INT), OUT("out")};
static const aclStubOpDef kStridedSlice = {"aclnnStridedSlice", kStridedSliceParams, 10, NULL, strided_slice_check,
                                           slice_kernel, sizeof(SlicePlan)};
ACLSTUB_DEFINE_OP(aclnnStridedSlice, kStridedSlice, (const aclTensor *, self), (const aclIntArray *, begin),
                  (const aclIntArray *, end), (const aclIntArray *, strides), (int64_t, beginMask),
                  (int64_t, endMask), (int64_t, ellipsisMask), (int64_t, newAxisMask), (int64_t, shrinkAxisMask),
                  (aclTensor *, out))

/* ---- aclnnPermute --------------------------------------------------------------------------------------------- */

enum { PM_SELF, PM_DIMS, PM_OUT };

typedef struct {
    int64_t perm[ACLSTUB_MAX_DIMS];
} PermutePlan;

static aclnnStatus permute_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(PM_SELF), *out = T(PM_OUT);
    const aclStubValue *dims = &call->v[PM_DIMS];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, PERMUTE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, PERMUTE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    if (self->ndim != out->ndim)
        return aclStubOpFail(call, INVALID, "self has %u dimensions but out has %u", self->ndim, out->ndim);
    if (dims->size != self->ndim)
        return aclStubOpFail(call, INVALID, "dims has %llu entries but self has %u dimensions",
                             (unsigned long long)dims->size, self->ndim);
    for (uint64_t i = 0; i < dims->size; i++)
        for (uint64_t j = 0; j < i; j++)
            if (dims->ints[i] == dims->ints[j])
                return aclStubOpFail(call, INVALID, "dims holds %lld twice", (long long)dims->ints[i]);
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t n = self->ndim;
    int64_t hi = n - 1 > -n ? n - 1 : -n, lo = n - 1 < -n ? n - 1 : -n;
    PermutePlan *plan = call->plan;
    bool seen[MAX_DIM] = {false};
    for (uint64_t i = 0; i < dims->size; i++) {
        int64_t d = dims->ints[i];
        if (d > hi || d < lo)
            return aclStubOpFail(call, INVALID, "the values of dims should be in range [%lld, %lld], got %lld",
                                 (long long)lo, (long long)hi, (long long)d);
        if (d < 0) d += n;
        if (seen[d]) return aclStubOpFail(call, INVALID, "each dimension in perm should not be repeated");
        seen[d] = true;
        plan->perm[i] = d;
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) shape[i] = self->dims[plan->perm[i]];
    if (aclStubNumel(self) == 0) {
        if (aclStubNumel(out) != 0)
            return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "out must be empty when self is empty");
        return nothing(call);
    }
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, (uint32_t)n));
    return OK;
}

static aclnnStatus permute_kernel(const aclStubOpCall *call) {
    const PermutePlan *plan = call->plan;
    aclStubTensorDesc view = *T(PM_SELF), src;
    aclStubViewPermute(&view, plan->perm);
    ACLSTUB_TRY(apart(call, &view, T(PM_OUT), &src));
    return aclStubCopyView(call, T(PM_OUT), &src, ACL_DT_UNDEFINED);
}

static const aclStubParam kPermuteParams[] = {IN("self"), ATTR("dims", ACLSTUB_INT_ARRAY), OUT("out")};
static const aclStubOpDef kPermute = {"aclnnPermute", kPermuteParams, 3, NULL, permute_check, permute_kernel,
                                      sizeof(PermutePlan)};
ACLSTUB_DEFINE_OP(aclnnPermute, kPermute, (const aclTensor *, self), (const aclIntArray *, dims), (aclTensor *, out))

/* ---- aclnnRoll -------------------------------------------------------------------------------------------------- */

enum { RL_X, RL_SHIFTS, RL_DIMS, RL_OUT };

typedef struct {
    bool flat;                       /* dims empty: the flattened tensor rolls */
    int64_t shift[ACLSTUB_MAX_DIMS]; /* per dimension (or [0] for flat), in [0, size) */
} RollPlan;

static int64_t wrap_shift(int64_t shift, int64_t size) {
    if (size <= 0) return 0;
    int64_t s = shift % size;
    return s < 0 ? s + size : s;
}

static aclnnStatus roll_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = T(RL_X), *out = T(RL_OUT);
    const aclStubValue *shifts = &call->v[RL_SHIFTS], *dims = &call->v[RL_DIMS];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "x", x, ROLL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, ROLL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "x", x, "out", out));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, x->dims, x->ndim));
    if (shifts->size != dims->size && dims->size != 0)
        return aclStubOpFail(call, INVALID, "the size of shifts and dims should be the same when dims is not empty");
    if (dims->size == 0 && shifts->size != 1)
        return aclStubOpFail(call, INVALID, "the size of shifts must be 1 if dims is empty");
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "x", x, MAX_DIM));
    if (aclStubNumel(x) == 0) return nothing(call);
    RollPlan *plan = call->plan;
    if (x->ndim == 0) {
        if (dims->size != 0 || shifts->size != 1)
            return aclStubOpFail(call, INVALID, "a 0-d x takes one shift and no dims");
        plan->flat = true;
        return OK;
    }
    int64_t n = x->ndim;
    int64_t hi = n - 1 > -n ? n - 1 : -n, lo = n - 1 < -n ? n - 1 : -n;
    for (uint64_t k = 0; k < dims->size; k++)
        if (dims->ints[k] > hi || dims->ints[k] < lo)
            return aclStubOpFail(call, INVALID, "the values of dims should be in range [%lld, %lld], got %lld",
                                 (long long)lo, (long long)hi, (long long)dims->ints[k]);
    if (dims->size == 0) {
        plan->flat = true;
        plan->shift[0] = wrap_shift(shifts->ints[0], aclStubNumel(x));
        return OK;
    }
    for (uint64_t k = 0; k < dims->size; k++) {
        int64_t d = dims->ints[k] < 0 ? dims->ints[k] + n : dims->ints[k];
        plan->shift[d] = wrap_shift(plan->shift[d] + wrap_shift(shifts->ints[k], x->dims[d]), x->dims[d]);
    }
    return OK;
}

static aclnnStatus roll_kernel(const aclStubOpCall *call) {
    const RollPlan *plan = call->plan;
    const aclStubTensorDesc *out = T(RL_OUT);
    aclStubTensorDesc x, o = *out;
    ACLSTUB_TRY(apart(call, T(RL_X), out, &x));
    if (plan->flat) { /* the roll of the row-major flattening: two contiguous pieces */
        int64_t n = aclStubNumel(&x), s = plan->shift[0];
        aclStubTensorDesc xc, ob;
        ACLSTUB_TRY(aclStubContiguousIn(call, &x, ACL_DT_UNDEFINED, &xc));
        ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &ob));
        aclStubViewReshape(&xc, &n, 1);
        aclStubTensorDesc flat = ob;
        aclStubViewReshape(&flat, &n, 1);
        aclStubTensorDesc a = flat, b = xc;
        aclStubViewNarrow(&a, 0, s, n - s);
        aclStubViewNarrow(&b, 0, 0, n - s);
        ACLSTUB_TRY(aclStubCopyView(call, &a, &b, ACL_DT_UNDEFINED));
        a = flat;
        b = xc;
        aclStubViewNarrow(&a, 0, 0, s);
        aclStubViewNarrow(&b, 0, n - s, s);
        ACLSTUB_TRY(aclStubCopyView(call, &a, &b, ACL_DT_UNDEFINED));
        return aclStubOutputEnd(call, out, &ob);
    }
    /* every combination of the two pieces of each rolled dimension */
    uint32_t rolled[ACLSTUB_MAX_DIMS], nr = 0;
    for (uint32_t d = 0; d < x.ndim; d++)
        if (plan->shift[d]) rolled[nr++] = d;
    for (uint32_t mask = 0; mask < (1u << nr); mask++) {
        aclStubTensorDesc dst = o, src = x;
        for (uint32_t k = 0; k < nr; k++) {
            uint32_t d = rolled[k];
            int64_t size = x.dims[d], s = plan->shift[d];
            if (mask & (1u << k)) { /* the tail of the input wraps to the front */
                aclStubViewNarrow(&dst, d, 0, s);
                aclStubViewNarrow(&src, d, size - s, s);
            } else {
                aclStubViewNarrow(&dst, d, s, size - s);
                aclStubViewNarrow(&src, d, 0, size - s);
            }
        }
        ACLSTUB_TRY(aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED));
    }
    return OK;
}

static const aclStubParam kRollParams[] = {IN("x"), ATTR("shifts", ACLSTUB_INT_ARRAY), ATTR("dims", ACLSTUB_INT_ARRAY),
                                           OUT("out")};
static const aclStubOpDef kRoll = {"aclnnRoll", kRollParams, 4, NULL, roll_check, roll_kernel, sizeof(RollPlan)};
ACLSTUB_DEFINE_OP(aclnnRoll, kRoll, (const aclTensor *, x), (const aclIntArray *, shifts), (const aclIntArray *, dims),
                  (aclTensor *, out))

/* ---- aclnnFlatten ------------------------------------------------------------------------------------------------ */

enum { FL_SELF, FL_AXIS, FL_OUT };

static aclnnStatus flatten_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(FL_SELF), *out = T(FL_OUT);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, FLATTEN_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t rank = self->ndim, axis = call->v[FL_AXIS].i;
    if (axis < 0) axis += rank > 0 ? rank : 1;
    if ((rank <= 1 && axis > 0) || axis < 0 || (rank > 1 && axis >= rank))
        return aclStubOpFail(call, INVALID, "dimension out of range (expected to be in range of [%lld, %lld], but got "
                             "%lld)", (long long)-(rank > 1 ? rank : 1), (long long)(rank > 1 ? rank - 1 : 0),
                             (long long)call->v[FL_AXIS].i);
    int64_t shape[2] = {1, 1};
    for (int64_t d = 0; d < rank; d++) {
        int64_t *p = &shape[d < axis ? 0 : 1];
        if (self->dims[d] > 0 && *p > INT64_MAX / self->dims[d])
            return aclStubOpFail(call, INVALID, "the output shape exceeds the int64_t range");
        *p *= self->dims[d];
    }
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, 2));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus flatten_kernel(const aclStubOpCall *call) { return copy_reshaped(call, T(FL_OUT), T(FL_SELF)); }

static const aclStubParam kFlattenParams[] = {IN("self"), ATTR("axis", ACLSTUB_INT), OUT("out")};
static const aclStubOpDef kFlatten = {"aclnnFlatten", kFlattenParams, 3, NULL, flatten_check, flatten_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnFlatten, kFlatten, (const aclTensor *, self), (int64_t, axis), (aclTensor *, out))

/* ---- aclnnExpand ------------------------------------------------------------------------------------------------- */

enum { EX_SELF, EX_SIZE, EX_OUT };

static aclnnStatus expand_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(EX_SELF), *out = T(EX_OUT);
    const aclStubValue *size = &call->v[EX_SIZE];
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, EXPAND_DT));
    if (size->size > ACLSTUB_MAX_DIMS) return aclStubOpFail(call, INVALID, "size has too many entries");
    uint32_t n = (uint32_t)size->size;
    if (!(aclStubShapeEqual(self->dims, self->ndim, size->ints, n) && aclStubShapeEqual(out->dims, out->ndim, size->ints, n))) {
        if (n < self->ndim)
            return aclStubOpFail(call, INVALID, "size has %u entries, fewer than the %u dimensions of self", n, self->ndim);
        uint32_t off = n - self->ndim;
        int64_t expect[ACLSTUB_MAX_DIMS];
        for (uint32_t i = 0; i < self->ndim; i++) {
            if (self->dims[i] != size->ints[off + i] && self->dims[i] != 1)
                return aclStubOpFail(call, INVALID, "the self shape %s does not match size %s",
                                     aclStubShapeText(self->dims, self->ndim, a, sizeof a),
                                     aclStubShapeText(size->ints, n, b, sizeof b));
            expect[off + i] = size->ints[off + i];
        }
        for (uint32_t i = 0; i < off; i++) expect[i] = size->ints[i];
        ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, expect, n));
    }
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus expand_kernel(const aclStubOpCall *call) {
    aclStubTensorDesc src;
    ACLSTUB_TRY(apart(call, T(EX_SELF), T(EX_OUT), &src));
    return aclStubCopyView(call, T(EX_OUT), &src, ACL_DT_UNDEFINED);
}

static const aclStubParam kExpandParams[] = {IN("self"), ATTR("size", ACLSTUB_INT_ARRAY), OUT("out")};
static const aclStubOpDef kExpand = {"aclnnExpand", kExpandParams, 3, NULL, expand_check, expand_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnExpand, kExpand, (const aclTensor *, self), (const aclIntArray *, size), (aclTensor *, out))

/* ---- aclnnRepeat ------------------------------------------------------------------------------------------------- */

enum { RP_SELF, RP_REPEATS, RP_OUT };

static aclnnStatus repeat_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(RP_SELF), *out = T(RP_OUT);
    const aclStubValue *rep = &call->v[RP_REPEATS];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, REPEAT_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    if (self->ndim > rep->size)
        return aclStubOpFail(call, INVALID, "repeats has %llu entries, fewer than the %u dimensions of self",
                             (unsigned long long)rep->size, self->ndim);
    for (uint64_t k = 0; k < rep->size; k++)
        if (rep->ints[k] < 0)
            return aclStubOpFail(call, INVALID, "repeats[%llu] is %lld; expected >= 0", (unsigned long long)k,
                                 (long long)rep->ints[k]);
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (rep->size > MAX_DIM)
        return aclStubOpFail(call, INVALID, "repeats has %llu entries; at most 8 are supported", (unsigned long long)rep->size);
    bool zero = false;
    for (uint64_t k = 0; k < rep->size; k++) zero |= rep->ints[k] == 0;
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0 || zero) return nothing(call);
    if (rep->size == 0) {
        if (aclStubNumel(out) != 1) return aclStubOpFail(call, INVALID, "out must hold one element");
        return OK;
    }
    int64_t shape[MAX_DIM];
    uint32_t off = (uint32_t)rep->size - self->ndim;
    for (uint32_t i = 0; i < rep->size; i++) {
        int64_t d = i < off ? 1 : self->dims[i - off];
        if (__builtin_mul_overflow(d, rep->ints[i], &shape[i]))
            return aclStubOpFail(call, INVALID, "the repeated shape exceeds the int64_t range");
    }
    return aclStubCheckShapeIs(call, "out", out, shape, (uint32_t)rep->size);
}

static aclnnStatus repeat_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(RP_SELF), *out = T(RP_OUT);
    const aclStubValue *rep = &call->v[RP_REPEATS];
    aclStubTensorDesc x;
    ACLSTUB_TRY(apart(call, self, out, &x));
    if (rep->size == 0) {
        aclStubTensorDesc o = *out;
        return copy_reshaped(call, &o, &x);
    }
    /* out as (repeat, size) pairs per dimension; the input broadcast along every repeat */
    aclStubTensorDesc dst = *out, src = x;
    uint32_t r = (uint32_t)rep->size, off = r - x.ndim;
    dst.ndim = src.ndim = 2 * r;
    for (uint32_t i = 0; i < r; i++) {
        int64_t d = i < off ? 1 : x.dims[i - off], s = i < off ? 0 : x.strides[i - off];
        dst.dims[2 * i] = rep->ints[i];
        dst.dims[2 * i + 1] = d;
        dst.strides[2 * i] = d * out->strides[i];
        dst.strides[2 * i + 1] = out->strides[i];
        src.dims[2 * i] = rep->ints[i];
        src.strides[2 * i] = 0;
        src.dims[2 * i + 1] = d;
        src.strides[2 * i + 1] = s;
    }
    return aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED);
}

static const aclStubParam kRepeatParams[] = {IN("self"), ATTR("repeats", ACLSTUB_INT_ARRAY), OUT("out")};
static const aclStubOpDef kRepeat = {"aclnnRepeat", kRepeatParams, 3, NULL, repeat_check, repeat_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnRepeat, kRepeat, (const aclTensor *, self), (const aclIntArray *, repeats), (aclTensor *, out))

/* ---- aclnnInplaceZero, aclnnInplaceFillScalar, aclnnInplaceFillTensor ------------------------------------------- */

static aclnnStatus zero_check(aclStubOpCall *call) {
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", T(0), ZERO_DT));
    if (aclStubNumel(T(0)) == 0) return nothing(call);
    return OK;
}

static aclnnStatus zero_kernel(const aclStubOpCall *call) {
    const int64_t zero = 0;
    return aclStubFillView(call, T(0), ACL_INT64, &zero);
}

static const aclStubParam kZeroParams[] = {INPLACE("selfRef")};
static const aclStubOpDef kZero = {"aclnnInplaceZero", kZeroParams, 1, NULL, zero_check, zero_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceZero, kZero, (aclTensor *, selfRef))

static aclnnStatus fill_scalar_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, FILL_SCALAR_DT));
    if ((int)aclStubPromoteType(self->dtype, call->v[1].dtype) < 0)
        return aclStubOpFail(call, INVALID, "self dtype %s and value dtype %s can not promote dtype",
                             aclStubDtypeName(self->dtype), aclStubDtypeName(call->v[1].dtype));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    if (aclStubNumel(self) == 0) return nothing(call);
    return OK;
}

static aclnnStatus fill_scalar_kernel(const aclStubOpCall *call) {
    return aclStubFillView(call, T(0), call->v[1].dtype, call->v[1].scalar);
}

static const aclStubParam kFillScalarParams[] = {INPLACE("selfRef"), ATTR("value", ACLSTUB_SCALAR)};
static const aclStubOpDef kFillScalar = {"aclnnInplaceFillScalar", kFillScalarParams, 2, NULL, fill_scalar_check,
                                         fill_scalar_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceFillScalar, kFillScalar, (aclTensor *, selfRef), (const aclScalar *, value))

static aclnnStatus fill_tensor_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *value = T(1);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, FILL_TENSOR_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    if (value->ndim > 1 || (value->ndim == 1 && value->dims[0] != 1))
        return aclStubOpFail(call, INVALID, "value shape should be 0-D or 1-D with size 1");
    if (aclStubNumel(self) == 0) return nothing(call);
    if (!aclStubCanConvert(value->dtype) && value->dtype != self->dtype)
        return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "value's data type %s can not be cast to %s",
                             aclStubDtypeName(value->dtype), aclStubDtypeName(self->dtype));
    return OK;
}

static aclnnStatus fill_tensor_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *value = T(1);
    aclStubTensorDesc v = *value;
    v.ndim = 0; /* one element, broadcast */
    aclStubTensorDesc staged;
    ACLSTUB_TRY(apart(call, &v, self, &staged));
    return aclStubCopyView(call, self, &staged, ACL_DT_UNDEFINED);
}

static const aclStubParam kFillTensorParams[] = {INPLACE("selfRef"), IN("value")};
static const aclStubOpDef kFillTensor = {"aclnnInplaceFillTensor", kFillTensorParams, 2, NULL, fill_tensor_check,
                                         fill_tensor_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceFillTensor, kFillTensor, (aclTensor *, selfRef), (const aclTensor *, value))
