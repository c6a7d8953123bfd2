/*
 * ops-nn index/scatter_elements and index/gather_elements: aclnnMaxUnpool2d/3d (a scatter of self into zeros)
 * and aclnnMaxUnpool2dBackward/3dBackward (a gather of gradOutput), as the op_api builds them: every tensor seen
 * as (rows, spatial) with the spatial dimensions (the last 2 or 3) flattened, indices positions in the flattened
 * output plane, [0, prod(outputSize)). An index out of that range fails the kernel (aclStubIndexLoad). Duplicate
 * indices of the forward operator: the last in row-major order wins (deterministic).
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "aclnnop/aclnn_max_unpool3d.h"
#include "aclnnop/aclnn_max_unpool3d_backward.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define INDEX_DT (DT(ACL_INT32) | DT(ACL_INT64))
#define UNPOOL_DT                                                                                            \
    (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT16) | DT(ACL_INT32) |         \
     DT(ACL_INT64) | DT(ACL_DOUBLE))
#define UNPOOL2D_GRAD_DT                                                                                     \
    (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT16) | DT(ACL_INT32) |         \
     DT(ACL_INT64) | DT(ACL_BOOL))

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define OUT_CONTIGUOUS(name) {name, ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0}
#define ARRAY(name) {name, ACLSTUB_INT_ARRAY, 0, NULL, 0, 0, 0}

typedef struct {
    int64_t rows, in_plane, out_plane; /* (rows, in_plane) self/indices/out-of-backward; (rows, out_plane) the other */
} UnpoolPlan;

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

static int64_t tail_product(const aclStubTensorDesc *t, uint32_t k) {
    int64_t p = 1;
    for (uint32_t i = t->ndim - k; i < t->ndim; i++) p *= t->dims[i];
    return p;
}

/* The (N, C) of a 3-D/4-D (2d) or 4-D/5-D (3d) tensor, as the op_api reads them. */
static void batch_channels(const aclStubTensorDesc *t, uint32_t k, int64_t *n, int64_t *c) {
    bool batched = t->ndim == k + 2;
    *n = batched ? t->dims[0] : 1;
    *c = batched ? t->dims[1] : t->dims[0];
}

/* ---- forward: aclnnMaxUnpool2d, aclnnMaxUnpool3d -------------------------------------------------------------- */

static aclnnStatus unpool_check(aclStubOpCall *call) {
    bool three = call->op->num_params == 6;
    uint32_t k = three ? 3 : 2;
    const aclStubTensorDesc *self = T(0), *indices = T(1), *out = T(three ? 5 : 3);
    const aclStubValue *osize = &call->v[2];
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, UNPOOL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, three ? "outRef" : "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    if (self->ndim != k + 1 && self->ndim != k + 2)
        return aclStubOpFail(call, INVALID, "Expected self to be a %ud or %ud Tensor, instead got: %u", k + 1, k + 2,
                             self->ndim);
    if (indices->ndim != self->ndim)
        return aclStubOpFail(call, INVALID, "Expected dim of self and indices to be equal, instead got self: %u, "
                             "indices: %u", self->ndim, indices->ndim);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "indices", indices, self->dims, self->ndim));
    for (uint32_t i = 1; i < self->ndim; i++)
        if (self->dims[i] <= 0)
            return aclStubOpFail(call, INVALID, "expected input to have non-empty spatial dimensions, but input has "
                                 "sizes %s with dimension %u being empty", aclStubShapeText(self->dims, self->ndim, a,
                                 sizeof a), i);
    if (osize->size != k)
        return aclStubOpFail(call, INVALID, "outputSize length should be %u, but now is %llu.", k,
                             (unsigned long long)osize->size);
    if (three) {
        if (call->v[3].size != 3 || call->v[4].size != 3)
            return aclStubOpFail(call, INVALID, "There should be exactly three elements (depth, height, width) in %s, "
                                 "but got %llu elements", call->v[3].size != 3 ? "stride" : "padding",
                                 (unsigned long long)(call->v[3].size != 3 ? call->v[3].size : call->v[4].size));
        for (int i = 0; i < 3; i++) {
            if (call->v[3].ints[i] <= 0)
                return aclStubOpFail(call, INVALID, "strides[%d] shoule be greater than zero, but got %lld.", i,
                                     (long long)call->v[3].ints[i]);
            if (osize->ints[i] <= 0)
                return aclStubOpFail(call, INVALID, "outputSize[%d] should be greater than zero, but got %lld.", i,
                                     (long long)osize->ints[i]);
        }
    } else {
        for (uint32_t i = 0; i < k; i++)
            if (osize->ints[i] <= 0)
                return aclStubOpFail(call, INVALID, "outputSize value should greater than 0, but the sizes of %u is "
                                     "%lld.", i, (long long)osize->ints[i]);
    }
    int64_t in_plane = tail_product(self, k), out_plane = 1;
    for (uint32_t i = 0; i < k; i++) out_plane *= osize->ints[i];
    if (out_plane < in_plane)
        return aclStubOpFail(call, INVALID, "The output sizes %s should be greater than or equal to self's %s.",
                             aclStubShapeText(osize->ints, k, a, sizeof a),
                             aclStubShapeText(self->dims + self->ndim - k, k, b, sizeof b));
    int64_t rows = aclStubNumel(self) / (in_plane ? in_plane : 1);
    if (three) {
        int64_t n, c, on, oc;
        if (out->ndim != self->ndim)
            return aclStubOpFail(call, INVALID, "Out should be same in dimensions with self, but self is %u, outRef "
                                 "is %u", self->ndim, out->ndim);
        batch_channels(self, k, &n, &c);
        batch_channels(out, k, &on, &oc);
        if (n != on || c != oc)
            return aclStubOpFail(call, INVALID, "Out should be same in N, C dimensions with self");
        if (memcmp(out->dims + out->ndim - 3, osize->ints, 3 * sizeof(int64_t)) != 0)
            return aclStubOpFail(call, INVALID, "Out should be same in D, H, W dimensions with outputSize %s, but "
                                 "outRef is %s", aclStubShapeText(osize->ints, 3, a, sizeof a),
                                 aclStubShapeText(out->dims, out->ndim, b, sizeof b));
    }
    if (aclStubNumel(self) == 0) return nothing(call);
    if (aclStubNumel(out) != rows * out_plane) /* the op_api's Reshape of out fails */
        return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "out %s can not be viewed as (%lld, %lld)",
                             aclStubShapeText(out->dims, out->ndim, a, sizeof a), (long long)rows,
                             (long long)out_plane);
    UnpoolPlan *p = call->plan;
    p->rows = rows;
    p->in_plane = in_plane;
    p->out_plane = out_plane;
    return OK;
}

static aclnnStatus unpool_kernel(const aclStubOpCall *call) {
    const UnpoolPlan *p = call->plan;
    const aclStubTensorDesc *self = T(0), *indices = T(1), *out = T(call->op->num_params - 1);
    const int64_t *idx;
    ACLSTUB_TRY(aclStubIndexLoad(call, indices, p->out_plane, false, "indices", &idx));
    aclStubTensorDesc src, buf;
    ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    uint64_t zero[2] = {0, 0};
    ACLSTUB_TRY(aclStubFillView(call, &buf, ACL_INT64, zero));
    int64_t dshape[2] = {p->rows, p->out_plane}, sshape[2] = {p->rows, p->in_plane};
    ACLSTUB_TRY(aclStubScatterElements(call, aclStubViewBase(&buf), dshape, aclStubViewBase(&src), sshape, NULL, idx,
                                       sshape, 2, 1, self->dtype, ACLSTUB_SCATTER_COPY));
    return aclStubOutputEnd(call, out, &buf);
}

/* ---- backward: aclnnMaxUnpool2dBackward, aclnnMaxUnpool3dBackward -------------------------------------------- */

enum { G_GRAD, G_SELF, G_INDICES, G_OSIZE };

static aclnnStatus unpool2d_grad_check(aclStubOpCall *call) {
    const aclStubTensorDesc *grad = T(G_GRAD), *self = T(G_SELF), *indices = T(G_INDICES), *out = T(4);
    const aclStubValue *osize = &call->v[G_OSIZE];
    char a[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "gradOutput", grad, UNPOOL2D_GRAD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, UNPOOL2D_GRAD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, UNPOOL2D_GRAD_DT));
    if (!aclStubCanCast(grad->dtype, out->dtype))
        return aclStubOpFail(call, INVALID, "Result type %s can't be cast to the desired output type %s.",
                             aclStubDtypeName(grad->dtype), aclStubDtypeName(out->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "gradOutput", grad, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    if (self->ndim != 3 && self->ndim != 4)
        return aclStubOpFail(call, INVALID, "Expected self to be a 3d or 4d Tensor, instead got: %u", self->ndim);
    if (grad->ndim != self->ndim)
        return aclStubOpFail(call, INVALID, "Expected dim of self and gradOutput to be equal, instead got self: %u, "
                             "gradOutput: %u", self->ndim, grad->ndim);
    int64_t n, c, gn, gc;
    batch_channels(self, 2, &n, &c);
    batch_channels(grad, 2, &gn, &gc);
    if (n != gn || c != gc)
        return aclStubOpFail(call, INVALID, "Expected (N, C) of self and gradOutput to be equal, instead got self: "
                             "(%lld, %lld), gradOutput: (%lld, %lld)", (long long)n, (long long)c, (long long)gn,
                             (long long)gc);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "indices", indices, self->dims, self->ndim));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    if (osize->size != 2)
        return aclStubOpFail(call, INVALID, "Expected size of outputSize must be 2, but got: %llu",
                             (unsigned long long)osize->size);
    if (osize->ints[0] != grad->dims[grad->ndim - 2] || osize->ints[1] != grad->dims[grad->ndim - 1])
        return aclStubOpFail(call, INVALID, "Inconsistent gradOutput size. output height = %lld, output width = %lld, "
                             "but got gradOutput: %s", (long long)osize->ints[0], (long long)osize->ints[1],
                             aclStubShapeText(grad->dims, grad->ndim, a, sizeof a));
    if (aclStubNumel(grad) == 0 && aclStubNumel(self) != 0)
        return aclStubOpFail(call, INVALID, "gradOutput is empty tensor, self should be empty tensor.");
    if (aclStubNumel(self) == 0) return nothing(call);
    UnpoolPlan *p = call->plan;
    p->in_plane = tail_product(self, 2);
    p->out_plane = tail_product(grad, 2);
    p->rows = aclStubNumel(self) / p->in_plane;
    return OK;
}

static aclnnStatus unpool3d_grad_check(aclStubOpCall *call) {
    const aclStubTensorDesc *grad = T(G_GRAD), *self = T(G_SELF), *indices = T(G_INDICES), *out = T(6);
    const aclStubValue *osize = &call->v[G_OSIZE], *stride = &call->v[4], *padding = &call->v[5];
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "gradOutput", grad, UNPOOL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, UNPOOL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, UNPOOL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "self", self, "gradOutput", grad));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "gradOutput", grad));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, DT(ACL_INT64)));
    if (self->ndim != 4 && self->ndim != 5)
        return aclStubOpFail(call, INVALID, "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor "
                             "with dim %u", self->ndim);
    if (indices->ndim != self->ndim)
        return aclStubOpFail(call, INVALID, "Expected shape of indices to be: %u, but got: %u", self->ndim, indices->ndim);
    if (out->ndim != self->ndim)
        return aclStubOpFail(call, INVALID, "Expected shape of out to be: %u, but got: %u", self->ndim, out->ndim);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "indices", indices, self->dims, self->ndim));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    for (uint32_t i = 1; i < self->ndim; i++)
        if (self->dims[i] <= 0)
            return aclStubOpFail(call, INVALID, "max_unpool3d(): Expected input to have non-zero size for non-batch "
                                 "dimensions, but got %s with dimension %u being empty.",
                                 aclStubShapeText(self->dims, self->ndim, a, sizeof a), i);
    const char *which = osize->size != 3 ? "output_size" : stride->size != 3 ? "stride" : "padding";
    uint64_t got = osize->size != 3 ? osize->size : stride->size != 3 ? stride->size : padding->size;
    if (got != 3)
        return aclStubOpFail(call, INVALID, "There should be exactly three elements (depth, height, width) in %s, but "
                             "got %llu elements", which, (unsigned long long)got);
    for (int i = 0; i < 3; i++) {
        if (stride->ints[i] <= 0)
            return aclStubOpFail(call, INVALID, "strides[%d] shoule be greater than zero, but got %lld.", i,
                                 (long long)stride->ints[i]);
        if (osize->ints[i] <= 0)
            return aclStubOpFail(call, INVALID, "outputSize[%d] should be greater than zero, but got %lld.", i,
                                 (long long)osize->ints[i]);
    }
    int64_t in_plane = tail_product(self, 3), out_plane = osize->ints[0] * osize->ints[1] * osize->ints[2];
    if (out_plane < in_plane)
        return aclStubOpFail(call, INVALID, "The output dimensions are of size %s, should be greater than or equal to "
                             "self of size %s.", aclStubShapeText(osize->ints, 3, a, sizeof a),
                             aclStubShapeText(self->dims + self->ndim - 3, 3, b, sizeof b));
    if (grad->ndim != self->ndim)
        return aclStubOpFail(call, INVALID, "Expected gradOutput to have %u dimensions, but got %u", self->ndim,
                             grad->ndim);
    if (memcmp(grad->dims + grad->ndim - 3, osize->ints, 3 * sizeof(int64_t)) != 0)
        return aclStubOpFail(call, INVALID, "Inconsistant gradOutput size. outputSize %s, gradOutput: %s",
                             aclStubShapeText(osize->ints, 3, a, sizeof a),
                             aclStubShapeText(grad->dims, grad->ndim, b, sizeof b));
    /* the op_api reads (N, C) of a 4-D tensor as (dim 0, 1) */
    int64_t n = self->dims[0], c = self->ndim == 5 ? self->dims[1] : 1;
    int64_t gn = grad->dims[0], gc = grad->ndim == 5 ? grad->dims[1] : 1;
    if (n != gn || c != gc)
        return aclStubOpFail(call, INVALID, "gradOutput and input Tensors should have same number of dimensions and "
                             "also the same number of channels/slices.");
    if (aclStubNumel(grad) == 0) return nothing(call);
    UnpoolPlan *p = call->plan;
    p->in_plane = in_plane;
    p->out_plane = out_plane;
    p->rows = aclStubNumel(self) / in_plane;
    return OK;
}

static aclnnStatus unpool_grad_kernel(const aclStubOpCall *call) {
    const UnpoolPlan *p = call->plan;
    const aclStubTensorDesc *grad = T(G_GRAD), *indices = T(G_INDICES), *out = T(call->op->num_params - 1);
    const int64_t *idx;
    ACLSTUB_TRY(aclStubIndexLoad(call, indices, p->out_plane, false, "indices", &idx));
    aclStubTensorDesc src, buf;
    ACLSTUB_TRY(aclStubInputApart(call, grad, ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, grad->dtype, false, &buf));
    int64_t ishape[2] = {p->rows, p->in_plane}, sshape[2] = {p->rows, p->out_plane};
    ACLSTUB_TRY(aclStubGatherElements(call, aclStubViewBase(&buf), aclStubViewBase(&src), idx, ishape, sshape, 2, 1,
                                      aclDataTypeSize(grad->dtype)));
    return aclStubOutputEnd(call, out, &buf);
}

/* ---- tables ------------------------------------------------------------------------------------------------ */

static const aclStubParam kUnpool2dParams[] = {IN("self"), IN("indices"), ARRAY("outputSize"), OUT("out")};
static const aclStubParam kUnpool3dParams[] = {IN("self"), IN("indices"), ARRAY("outputSize"), ARRAY("stride"),
                                               ARRAY("padding"), OUT_CONTIGUOUS("outRef")};
static const aclStubParam kUnpool2dGradParams[] = {IN("gradOutput"), IN("self"), IN("indices"), ARRAY("outputSize"),
                                                   OUT("out")};
static const aclStubParam kUnpool3dGradParams[] = {IN("gradOutput"), IN("self"), IN("indices"), ARRAY("outputSize"),
                                                   ARRAY("stride"), ARRAY("padding"), OUT_CONTIGUOUS("out")};

static const aclStubOpDef kUnpool2d = {"aclnnMaxUnpool2d", kUnpool2dParams, 4, NULL, unpool_check, unpool_kernel,
                                       sizeof(UnpoolPlan)};
static const aclStubOpDef kUnpool3d = {"aclnnMaxUnpool3d", kUnpool3dParams, 6, NULL, unpool_check, unpool_kernel,
                                       sizeof(UnpoolPlan)};
static const aclStubOpDef kUnpool2dGrad = {"aclnnMaxUnpool2dBackward", kUnpool2dGradParams, 5, NULL,
                                           unpool2d_grad_check, unpool_grad_kernel, sizeof(UnpoolPlan)};
static const aclStubOpDef kUnpool3dGrad = {"aclnnMaxUnpool3dBackward", kUnpool3dGradParams, 7, NULL,
                                           unpool3d_grad_check, unpool_grad_kernel, sizeof(UnpoolPlan)};

ACLSTUB_DEFINE_OP(aclnnMaxUnpool2d, kUnpool2d, (const aclTensor *, self), (const aclTensor *, indices),
                  (const aclIntArray *, outputSize), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnMaxUnpool3d, kUnpool3d, (const aclTensor *, self), (const aclTensor *, indices),
                  (const aclIntArray *, outputSize), (const aclIntArray *, stride), (const aclIntArray *, padding),
                  (aclTensor *, outRef))
ACLSTUB_DEFINE_OP(aclnnMaxUnpool2dBackward, kUnpool2dGrad, (const aclTensor *, gradOutput), (const aclTensor *, self),
                  (const aclTensor *, indices), (const aclIntArray *, outputSize), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnMaxUnpool3dBackward, kUnpool3dGrad, (const aclTensor *, gradOutput), (const aclTensor *, self),
                  (const aclTensor *, indices), (const aclIntArray *, outputSize), (const aclIntArray *, stride),
                  (const aclIntArray *, padding), (aclTensor *, out))
