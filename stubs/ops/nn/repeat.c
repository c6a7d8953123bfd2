/*
 * aclnnRepeatInterleave and its variants (ops-nn index/repeat_interleave): every slice of self along dim (or every
 * element of the flattened self) repeated repeats[k] times (a tensor of one or per-slice counts, or one integer);
 * aclnnRepeatInterleaveTensor repeats the positions 0 .. n-1. The caller passes the output length (outputSize),
 * which must equal the sum of the repeats: a mismatch or a negative count fails the kernel with
 * ACLNN_ERR_PARAM_INVALID (the device's result is undefined there). A gather of slices (aclstub/op_index.h).
 *
 * aclnnRepeatInterleaveGrad (ops-nn index/repeat_interleave_grad, a generated API): the backward, yGrad's slices
 * along axis summed in consecutive groups of repeats[k] (one count: groups of that size). A sum on the reduction
 * engine (aclstub/op_reduce.h: 16-bit values accumulate in float32, rounded once; the engine's order). out may have
 * any shape of the right size (the docs: yGrad [64], repeats [2], axis 0 takes an out of [32], [2, 16], ...).
 * Phase 1 knows only the number of repeats; the kernel checks their values: a negative count, a count that does not
 * divide the axis, or counts that do not sum to it, or an out of the wrong size fail the launch with
 * ACLNN_ERR_PARAM_INVALID.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h" /* after op_index.h: it declares aclStubIsPrivateFormat again */
#include "aclnnop/aclnn_repeat_interleave.h"
#include "aclnnop/aclnn_repeat_interleave_grad.h"

#define MAX_DIM 8
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define RI_DT (DT(ACL_UINT8) | DT(ACL_INT8) | DT(ACL_INT16) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_BOOL) | \
               ACLSTUB_DT_FLOATS)
#define REPEATS_DT (DT(ACL_INT64) | DT(ACL_INT32))

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

typedef struct {
    bool flat;        /* the flattened self (no dim) */
    bool copy;        /* repeats of 1 everywhere: a copy of self (flattened when flat) */
    int64_t dim;
    int64_t scalar;   /* the integer repeats (tensor repeats: -1) */
    int64_t output;   /* outputSize */
} RepeatPlan;

/* The output shape for outputSize along dim (or flat). */
static uint32_t repeated_shape(const aclStubTensorDesc *self, const RepeatPlan *p, int64_t *shape) {
    if (p->flat) {
        shape[0] = p->output;
        return 1;
    }
    memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
    shape[p->dim] = p->output;
    return self->ndim;
}

/* out = self repeated: slice k of (outer, n, inner) copied counts[k] times, in order. */
static aclnnStatus repeat_run(const aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubTensorDesc *out,
                              const aclStubTensorDesc *repeats, int64_t scalar, const RepeatPlan *p) {
    int64_t n, outer, inner;
    if (p->flat || self->ndim == 0) {
        n = aclStubNumel(self);
        outer = inner = 1;
    } else {
        n = self->dims[p->dim];
        outer = aclStubDimProduct(self->dims, 0, p->dim);
        inner = aclStubDimProduct(self->dims, p->dim + 1, self->ndim);
    }
    const int64_t *counts = NULL;
    int64_t nc = 1;
    if (repeats) {
        aclStubTensorDesc c = {ACL_INT64, ACL_FORMAT_ND, 1, 0, NULL, {aclStubNumel(repeats)}, {1}, 0, {0}};
        nc = c.dims[0];
        c.data = aclStubKernelScratch(call, (size_t)(nc > 0 ? nc : 1) * sizeof(int64_t));
        if (c.data == NULL) return aclStubKernelOutOfMemory(call);
        aclStubTensorDesc r = *repeats;
        if (r.ndim == 0) { /* a 0-D count */
            r.ndim = 1;
            r.dims[0] = 1;
            r.strides[0] = 1;
        }
        ACLSTUB_TRY(aclStubCopyView(call, &c, &r, ACL_DT_UNDEFINED));
        counts = c.data;
    }
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = counts ? counts[nc == 1 ? 0 : k] : scalar;
        if (r < 0) return aclStubKernelFail(call, INVALID, "repeats[%lld] is negative (%lld)", (long long)k, (long long)r);
        total += r;
    }
    if (total != p->output)
        return aclStubKernelFail(call, INVALID, "the repeats sum to %lld but outputSize is %lld", (long long)total,
                                 (long long)p->output);
    int64_t *idx = aclStubKernelScratch(call, (size_t)(total > 0 ? total : 1) * sizeof(int64_t));
    if (idx == NULL) return aclStubKernelOutOfMemory(call);
    for (int64_t k = 0, at = 0; k < n; k++)
        for (int64_t r = counts ? counts[nc == 1 ? 0 : k] : scalar; r > 0; r--) idx[at++] = k;
    aclStubTensorDesc src, buf;
    ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    aclStubGatherBlocks(aclStubViewBase(&buf), aclStubViewBase(&src), idx, total, outer, n, inner,
                        aclDataTypeSize(self->dtype));
    return aclStubOutputEnd(call, out, &buf);
}

static aclnnStatus repeat_kernel(const aclStubOpCall *call) {
    const RepeatPlan *p = call->plan;
    const aclStubTensorDesc *self = T(0), *out = T(call->op->num_params - 1);
    if (p->copy) {
        aclStubTensorDesc src;
        ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &src));
        aclStubViewReshape(&src, out->dims, out->ndim);
        return aclStubCopyView(call, out, &src, ACL_DT_UNDEFINED);
    }
    return repeat_run(call, self, out, p->scalar < 0 ? T(1) : NULL, p->scalar, p);
}

static aclnnStatus check_dim(aclStubOpCall *call, const aclStubTensorDesc *self, int64_t *dim) {
    int64_t n = self->ndim, d = *dim;
    if (n == 0) return aclStubOpFail(call, INVALID, "dimension specified as %lld but self has no dimensions", (long long)d);
    int64_t lo = n - 1 < -n ? n - 1 : -n, hi = n - 1 > -n ? n - 1 : -n;
    if (d > hi || d < lo)
        return aclStubOpFail(call, INVALID, "dimension out of range (expected to be in range of [%lld, %lld], but got "
                             "%lld)", (long long)lo, (long long)hi, (long long)d);
    *dim = d < 0 ? d + n : d;
    return OK;
}

/* self, repeats (tensor), [dim], outputSize, out */
static aclnnStatus repeat_tensor_check(aclStubOpCall *call, bool with_dim) {
    const aclStubTensorDesc *self = T(0), *repeats = T(1), *out = T(call->op->num_params - 1);
    int64_t output = call->v[with_dim ? 3 : 2].i, dim = with_dim ? call->v[2].i : 0;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, RI_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "repeats", repeats, REPEATS_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "repeats", repeats, 1));
    int64_t nrep = repeats->ndim ? repeats->dims[0] : 1;
    if (with_dim) {
        ACLSTUB_TRY(check_dim(call, self, &dim));
        if (repeats->ndim && nrep != self->dims[dim] && nrep != 1)
            return aclStubOpFail(call, INVALID, "repeats must have size 1 or %lld (self along dim), got %lld",
                                 (long long)self->dims[dim], (long long)nrep);
    } else if (repeats->ndim && nrep != aclStubNumel(self) && nrep != 1) {
        return aclStubOpFail(call, INVALID, "repeats must have size 1 or %lld (the elements of self), got %lld",
                             (long long)aclStubNumel(self), (long long)nrep);
    }
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (!with_dim && aclStubNumel(self) == 0 && !(aclStubNumel(repeats) == 0 || repeats->ndim == 0 || nrep == 1))
        return aclStubOpFail(call, INVALID, "with an empty self, repeats must be empty, 0-D or hold one element");
    if (aclStubNumel(self) == 0 || (with_dim ? output == 0 : aclStubNumel(out) == 0)) return nothing(call);
    if (aclStubNumel(repeats) == 0) return aclStubOpFail(call, INVALID, "repeats must have the same size as input along dim");
    RepeatPlan *p = call->plan;
    *p = (RepeatPlan){!with_dim, false, dim, -1, output};
    if (!with_dim && output == aclStubNumel(self) && aclStubNumel(repeats) == 1) { /* the op_api's flattening copy */
        p->copy = true;
        if (aclStubNumel(out) != output) return aclStubOpFail(call, INVALID, "out must hold %lld elements", (long long)output);
        return OK;
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd = repeated_shape(self, p, shape);
    return aclStubCheckShapeIs(call, "out", out, shape, nd);
}

static aclnnStatus ri_check(aclStubOpCall *call) { return repeat_tensor_check(call, false); }
static aclnnStatus ri_dim_check(aclStubOpCall *call) { return repeat_tensor_check(call, true); }

/* self, repeats (int), [dim], outputSize, out */
static aclnnStatus repeat_int_check(aclStubOpCall *call, bool with_dim) {
    const aclStubTensorDesc *self = T(0), *out = T(call->op->num_params - 1);
    int64_t repeats = call->v[1].i, output = call->v[with_dim ? 3 : 2].i, dim = with_dim ? call->v[2].i : 0;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, RI_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    if (repeats < 0) return aclStubOpFail(call, INVALID, "repeats %lld can not be negative", (long long)repeats);
    if (with_dim) ACLSTUB_TRY(check_dim(call, self, &dim));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (aclStubNumel(self) == 0 || (with_dim ? output == 0 : aclStubNumel(out) == 0)) return nothing(call);
    RepeatPlan *p = call->plan;
    *p = (RepeatPlan){!with_dim, repeats == 1, dim, repeats, output};
    if (p->copy) {
        if (aclStubNumel(out) != aclStubNumel(self))
            return aclStubOpFail(call, INVALID, "out must hold the %lld elements of self", (long long)aclStubNumel(self));
        return OK;
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd = repeated_shape(self, p, shape);
    return aclStubCheckShapeIs(call, "out", out, shape, nd);
}

static aclnnStatus ri_int_check(aclStubOpCall *call) { return repeat_int_check(call, false); }
static aclnnStatus ri_int_dim_check(aclStubOpCall *call) { return repeat_int_check(call, true); }

/* aclnnRepeatInterleaveTensor(repeats, outputSize, out): the positions 0 .. n-1 repeated. */
static aclnnStatus ri_tensor_check(aclStubOpCall *call) {
    const aclStubTensorDesc *repeats = T(0), *out = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "repeats", repeats, REPEATS_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "repeats", repeats));
    if (!(aclStubNumel(repeats) == 0 || repeats->ndim == 1))
        return aclStubOpFail(call, INVALID, "repeats must be 1-D or empty, got %u dimensions", repeats->ndim);
    if (aclStubNumel(repeats) == 0 || aclStubNumel(out) == 0) return nothing(call);
    RepeatPlan *p = call->plan;
    *p = (RepeatPlan){true, false, 0, -1, call->v[1].i};
    int64_t shape[1] = {p->output};
    return aclStubCheckShapeIs(call, "out", out, shape, 1);
}

static aclnnStatus ri_tensor_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *repeats = T(0);
    int64_t n = aclStubNumel(repeats);
    aclStubTensorDesc pos = {repeats->dtype, ACL_FORMAT_ND, 1, 0, NULL, {n}, {1}, 0, {0}};
    pos.data = aclStubKernelScratch(call, (size_t)n * aclDataTypeSize(repeats->dtype));
    if (pos.data == NULL) return aclStubKernelOutOfMemory(call);
    for (int64_t k = 0; k < n; k++) aclStubStoreDouble((char *)pos.data + k * (int64_t)aclDataTypeSize(repeats->dtype),
                                                       repeats->dtype, (double)k);
    return repeat_run(call, &pos, T(2), repeats, -1, call->plan);
}

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name) {name, ACLSTUB_INT, 0, NULL, 0, 0, 0}

static const aclStubParam kRiParams[] = {IN("self"), IN("repeats"), ATTR("outputSize"), OUT("out")};
static const aclStubParam kRiDimParams[] = {IN("self"), IN("repeats"), ATTR("dim"), ATTR("outputSize"), OUT("out")};
static const aclStubParam kRiIntParams[] = {IN("self"), ATTR("repeats"), ATTR("outputSize"), OUT("out")};
static const aclStubParam kRiIntDimParams[] = {IN("self"), ATTR("repeats"), ATTR("dim"), ATTR("outputSize"), OUT("out")};
static const aclStubParam kRiTensorParams[] = {IN("repeats"), ATTR("outputSize"), OUT("out")};

static const aclStubOpDef kRi = {"aclnnRepeatInterleave", kRiParams, 4, NULL, ri_check, repeat_kernel, sizeof(RepeatPlan)};
static const aclStubOpDef kRiDim = {"aclnnRepeatInterleaveWithDim", kRiDimParams, 5, NULL, ri_dim_check, repeat_kernel,
                                    sizeof(RepeatPlan)};
static const aclStubOpDef kRiInt = {"aclnnRepeatInterleaveInt", kRiIntParams, 4, NULL, ri_int_check, repeat_kernel,
                                    sizeof(RepeatPlan)};
static const aclStubOpDef kRiIntDim = {"aclnnRepeatInterleaveIntWithDim", kRiIntDimParams, 5, NULL, ri_int_dim_check,
                                       repeat_kernel, sizeof(RepeatPlan)};
static const aclStubOpDef kRiTensor = {"aclnnRepeatInterleaveTensor", kRiTensorParams, 3, NULL, ri_tensor_check,
                                       ri_tensor_kernel, sizeof(RepeatPlan)};

ACLSTUB_DEFINE_OP(aclnnRepeatInterleave, kRi, (const aclTensor *, self), (const aclTensor *, repeats),
                  (int64_t, outputSize), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnRepeatInterleaveWithDim, kRiDim, (const aclTensor *, self), (const aclTensor *, repeats),
                  (int64_t, dim), (int64_t, outputSize), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnRepeatInterleaveInt, kRiInt, (const aclTensor *, self), (int64_t, repeats),
                  (int64_t, outputSize), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnRepeatInterleaveIntWithDim, kRiIntDim, (const aclTensor *, self), (int64_t, repeats),
                  (int64_t, dim), (int64_t, outputSize), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnRepeatInterleaveTensor, kRiTensor, (const aclTensor *, repeats), (int64_t, outputSize),
                  (aclTensor *, out))

/* ---- aclnnExpandIntoJaggedPermute (index/expand_into_jagged_permute) -------------------------------------------
 * out[outputOffset[i] + k] = inputOffset[permute[i]] + k for k < outputOffset[i+1] - outputOffset[i], all INT32.
 * permute outside [0, L) or offsets that decrease or leave [0, outputSize] fail the kernel. */
#include "aclnnop/aclnn_expand_into_jagged_permute.h"

enum { EJ_PERMUTE, EJ_IN_OFF, EJ_OUT_OFF, EJ_SIZE, EJ_OUT };

static aclnnStatus jagged_check(aclStubOpCall *call) {
    const aclStubTensorDesc *perm = T(EJ_PERMUTE), *in_off = T(EJ_IN_OFF), *out_off = T(EJ_OUT_OFF), *out = T(EJ_OUT);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "permute", perm, DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "inputOffset", in_off, DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "outputOffset", out_off, DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "outputPermuteOut", out, DT(ACL_INT32)));
    if (perm->ndim != 1 || in_off->ndim != 1 || out_off->ndim != 1)
        return aclStubOpFail(call, ACLNN_ERR_INNER_TILING_ERROR, "permute, inputOffset and outputOffset must be 1-D");
    if (in_off->dims[0] != perm->dims[0] + 1 || out_off->dims[0] != perm->dims[0] + 1)
        return aclStubOpFail(call, ACLNN_ERR_INNER_TILING_ERROR, "outputOffset and inputOffset should be one more "
                             "than permute");
    int64_t size = call->v[EJ_SIZE].i;
    if (out->ndim != 1 || out->dims[0] != size)
        return aclStubOpFail(call, ACLNN_ERR_INNER_TILING_ERROR, "outputPermuteOut must have shape (%lld,)",
                             (long long)size);
    if (size == 0 || perm->dims[0] == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus jagged_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *perm = T(EJ_PERMUTE), *out = T(EJ_OUT);
    int64_t L = perm->dims[0], size = call->v[EJ_SIZE].i;
    const int64_t *p, *io, *oo;
    ACLSTUB_TRY(aclStubIndexLoad(call, perm, L, false, "permute", &p));
    ACLSTUB_TRY(aclStubIndexLoad(call, T(EJ_IN_OFF), INT64_MAX, false, "inputOffset", &io));
    ACLSTUB_TRY(aclStubIndexLoad(call, T(EJ_OUT_OFF), size + 1, false, "outputOffset", &oo));
    aclStubTensorDesc buf;
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, true, &buf));
    int32_t *o = (int32_t *)aclStubViewBase(&buf);
    for (int64_t i = 0; i < L; i++) {
        if (oo[i + 1] < oo[i]) return aclStubIndexOutOfRange(call, "outputOffset", oo[i + 1], i + 1, oo[i], size + 1);
        for (int64_t k = 0; k < oo[i + 1] - oo[i]; k++) o[oo[i] + k] = (int32_t)(io[p[i]] + k);
    }
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kJaggedParams[] = {
    {"permute", ACLSTUB_INPUT, 0, NULL, 0, 0, 0}, {"inputOffset", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"outputOffset", ACLSTUB_INPUT, 0, NULL, 0, 0, 0}, {"outputSize", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"outputPermuteOut", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kJagged = {"aclnnExpandIntoJaggedPermute", kJaggedParams, 5, NULL, jagged_check,
                                     jagged_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnExpandIntoJaggedPermute, kJagged, (const aclTensor *, permute), (const aclTensor *, inputOffset),
                  (const aclTensor *, outputOffset), (int64_t, outputSize), (const aclTensor *, outputPermuteOut))

/* ---- aclnnRepeatInterleaveGrad ------------------------------------------------------------------------------ */

enum { RG_GRAD, RG_REPEATS, RG_AXIS, RG_OUT };
static const aclStubParam kRigParams[] = {
    [RG_GRAD] = {"yGrad", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [RG_REPEATS] = {"repeats", ACLSTUB_INPUT, REPEATS_DT},
    [RG_AXIS] = {"axis", ACLSTUB_INT},
    [RG_OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, NULL, ACLSTUB_ANY_LAYOUT},
};

typedef struct {
    int64_t axis, outer, len, inner;
} RigPlan;

static aclnnStatus rig_check(aclStubOpCall *call) {
    const aclStubTensorDesc *g = T(RG_GRAD), *r = T(RG_REPEATS), *out = T(RG_OUT);
    RigPlan *p = call->plan;
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, RG_OUT, g->dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, RG_GRAD, MAX_DIM));
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(r) == 0, call, ACLNN_ERR_INNER_TILING_ERROR, "repeats must not be empty");
    ACLSTUB_RETURN_ERROR_IF(r->ndim > 1, call, INVALID, "repeats must be 0-D or 1-D, got %u-D", r->ndim);
    int64_t n = g->ndim, axis = call->v[RG_AXIS].i;
    ACLSTUB_RETURN_ERROR_IF(axis < -(n > 0 ? n : 1) || axis >= (n > 0 ? n : 1), call, INVALID,
                            "axis %lld is out of range [%lld, %lld)", (long long)axis, (long long)-(n > 0 ? n : 1),
                            (long long)(n > 0 ? n : 1));
    if (axis < 0) axis += n > 0 ? n : 1;
    p->axis = axis;
    p->len = n > 0 ? g->dims[axis] : 1;
    p->outer = n > 0 ? aclStubDimProduct(g->dims, 0, axis) : 1;
    p->inner = n > 0 ? aclStubDimProduct(g->dims, axis + 1, n) : 1;
    int64_t groups = aclStubNumel(r);
    if (groups > 1) {
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) != p->outer * groups * p->inner, call, INVALID,
                                "out has %lld elements; the sums of %lld groups need %lld", (long long)aclStubNumel(out),
                                (long long)groups, (long long)(p->outer * groups * p->inner));
    }
    if (aclStubNumel(g) == 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* out[o, k, i] = the sum of grad[o, j, i] over group k's j, for groups of `size` (size > 0) or of counts cnt */
static aclnnStatus rig_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *g = T(RG_GRAD), *r = T(RG_REPEATS), *out = T(RG_OUT);
    const RigPlan *p = call->plan;
    int64_t n = aclStubNumel(r);
    int64_t *cnt = aclStubKernelScratch(call, (size_t)n * sizeof(int64_t));
    if (cnt == NULL) return aclStubKernelOutOfMemory(call);
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
        const void *e = aclStubElemAt(r, k);
        cnt[k] = r->dtype == ACL_INT64 ? *(const int64_t *)e : *(const int32_t *)e;
        if (cnt[k] < 0) return aclStubIndexOutOfRange(call, "repeats", cnt[k], k, 0, INT64_MAX);
        total += cnt[k];
    }
    int64_t size = n == 1 ? cnt[0] : 0, groups = n;
    if (n == 1) {
        if (size == 0 || p->len % size != 0)
            return aclStubKernelFail(call, INVALID, "repeats %lld must divide the size %lld of axis %lld",
                                     (long long)size, (long long)p->len, (long long)p->axis);
        groups = p->len / size;
    } else if (total != p->len) {
        return aclStubKernelFail(call, INVALID, "repeats sum to %lld, the size of axis %lld is %lld", (long long)total,
                                 (long long)p->axis, (long long)p->len);
    }
    if (aclStubNumel(out) != p->outer * groups * p->inner)
        return aclStubKernelFail(call, INVALID, "out has %lld elements; the sums of %lld groups need %lld",
                                 (long long)aclStubNumel(out), (long long)groups,
                                 (long long)(p->outer * groups * p->inner));
    aclStubTensorDesc src, dst;
    ACLSTUB_TRY(aclStubContiguousIn(call, g, ACL_DT_UNDEFINED, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &dst));
    if (size > 0) { /* one reduction: [outer, groups, size, inner] over dimension 2 */
        int64_t sd[4] = {p->outer, groups, size, p->inner}, dd[3] = {p->outer, groups, p->inner};
        aclStubViewReshape(&src, sd, 4);
        aclStubViewReshape(&dst, dd, 3);
        aclStubReduce red = {ACLSTUB_RED_SUM, &src, UINT64_C(1) << 2, g->dtype, &dst, NULL, 0, 0, 0};
        ACLSTUB_TRY(aclStubReduceRun(call, &red));
    } else { /* a reduction per group: [outer, count, inner] over dimension 1 */
        int64_t sd[3] = {p->outer, p->len, p->inner}, dd[3] = {p->outer, groups, p->inner};
        aclStubViewReshape(&src, sd, 3);
        aclStubViewReshape(&dst, dd, 3);
        int64_t start = 0;
        for (int64_t k = 0; k < groups; k++) {
            aclStubTensorDesc s = src, d = dst;
            aclStubViewNarrow(&s, 1, start, cnt[k]);
            aclStubViewNarrow(&d, 1, k, 1);
            start += cnt[k];
            if (cnt[k] == 0) {
                ACLSTUB_TRY(aclStubFill(call, &d, 0.0));
                continue;
            }
            aclStubReduce red = {ACLSTUB_RED_SUM, &s, UINT64_C(1) << 1, g->dtype, &d, NULL, 0, 0, 0};
            ACLSTUB_TRY(aclStubReduceRun(call, &red));
        }
    }
    return aclStubOutputEnd(call, out, &dst);
}

static const aclStubOpDef kRig = {"aclnnRepeatInterleaveGrad", kRigParams, ACLSTUB_LEN(kRigParams), NULL,
                                  rig_check, rig_kernel, sizeof(RigPlan)};
ACLSTUB_DEFINE_OP(aclnnRepeatInterleaveGrad, kRig, (const aclTensor *, yGrad), (const aclTensor *, repeats),
                  (int64_t, axis), (const aclTensor *, out))
