/*
 * ops-math conversion/transpose (aclnnChannelShuffle) and conversion/confusion_transpose_d
 * (aclnnConfusionTranspose): reshapes and transposes as one strided copy over the element iterator.
 *
 *   ChannelShuffle(self, g):              (N, C, *) -> view (N, g, C/g, *) -> swap 1, 2 -> (N, C, *)
 *   ConfusionTranspose(x, perm, shape, t):  t: reshape(transpose(x, perm), shape); else transpose(reshape(x, shape),
 *                                         perm). Shapes the op_api's kernel cannot infer (perm not a permutation,
 *                                         shape not x's element count, out not the result's shape) are its internal
 *                                         error, ACLNN_ERR_INNER_NULLPTR, in phase 1.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_channel_shuffle.h"
#include "aclnnop/aclnn_confusion_transpose.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define SHUFFLE_DT                                                                                           \
    (DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_DOUBLE) | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT16) |         \
     DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_BOOL) | DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128) | DT(ACL_BF16))
#define CONFUSION_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_FLOATS)

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* Dimension dim of t split into (a, t->dims[dim] / a). */
static void split_dim(aclStubTensorDesc *t, uint32_t dim, int64_t a) {
    int64_t b = t->dims[dim] / a, s = t->strides[dim];
    aclStubViewInsertDim(t, dim + 1, b, s);
    t->dims[dim] = a;
    t->strides[dim] = b * s;
}

/* ---- aclnnChannelShuffle --------------------------------------------------------------------------------------- */

static aclnnStatus channel_shuffle_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(2);
    int64_t groups = call->v[1].i;
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SHUFFLE_DT));
    if (groups <= 0)
        return aclStubOpFail(call, INVALID, "Number of groups to divide channels in must be positive. Value of groups: "
                             "%lld.", (long long)groups);
    int64_t channels = self->ndim > 1 ? self->dims[1] : 0;
    if (channels % groups != 0)
        return aclStubOpFail(call, INVALID, "Number of channels must be divisible by groups.Got %lld channels and %lld "
                             "groups.", (long long)channels, (long long)groups);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, 7));
    if (self->ndim < 3) return aclStubOpFail(call, INVALID, "self must have at least 3 dimensions, not %u", self->ndim);
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus channel_shuffle_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *out = T(2);
    int64_t g = call->v[1].i;
    aclStubTensorDesc src, dst = *out;
    ACLSTUB_TRY(aclStubInputApart(call, T(0), ACL_DT_UNDEFINED, out, &src));
    int64_t cpg = src.dims[1] / g;
    split_dim(&src, 1, g);   /* (N, g, C/g, *) */
    split_dim(&dst, 1, cpg); /* (N, C/g, g, *) */
    int64_t perm[ACLSTUB_MAX_DIMS];
    for (uint32_t i = 0; i < src.ndim; i++) perm[i] = i;
    perm[1] = 2, perm[2] = 1;
    aclStubViewPermute(&src, perm);
    return aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED);
}

static const aclStubParam kChannelShuffleParams[] = {IN("self"), ATTR("groups", ACLSTUB_INT), OUT("out")};
static const aclStubOpDef kChannelShuffle = {"aclnnChannelShuffle", kChannelShuffleParams, 3, NULL,
                                             channel_shuffle_check, channel_shuffle_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnChannelShuffle, kChannelShuffle, (const aclTensor *, self), (int64_t, groups),
                  (aclTensor *, out))

/* ---- aclnnConfusionTranspose ------------------------------------------------------------------------------------ */

enum { CT_X, CT_PERM, CT_SHAPE, CT_FIRST, CT_OUT };

static bool is_permutation(const int64_t *p, uint64_t n) {
    bool seen[ACLSTUB_MAX_DIMS] = {false};
    if (n > ACLSTUB_MAX_DIMS) return false;
    for (uint64_t i = 0; i < n; i++) {
        if (p[i] < 0 || (uint64_t)p[i] >= n || seen[p[i]]) return false;
        seen[p[i]] = true;
    }
    return true;
}

static aclnnStatus confusion_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = T(CT_X), *out = T(CT_OUT);
    const aclStubValue *perm = &call->v[CT_PERM], *shape = &call->v[CT_SHAPE];
    bool first = call->v[CT_FIRST].b;
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "x", x, CONFUSION_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "x", x));
    if (aclStubNumel(x) == 0) return nothing(call);
    uint64_t want = first ? x->ndim : shape->size;
    if (perm->size != want || !is_permutation(perm->ints, perm->size))
        return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "perm %s is not a permutation of %llu dimensions",
                             aclStubShapeText(perm->ints, (uint32_t)perm->size, a, sizeof a), (unsigned long long)want);
    int64_t numel = 1;
    for (uint64_t i = 0; i < shape->size; i++) numel = shape->ints[i] < 0 ? -1 : numel * shape->ints[i];
    if (shape->size > ACLSTUB_MAX_DIMS || numel != aclStubNumel(x))
        return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "shape %s does not hold the %lld elements of x",
                             aclStubShapeText(shape->ints, (uint32_t)shape->size, a, sizeof a),
                             (long long)aclStubNumel(x));
    int64_t res[ACLSTUB_MAX_DIMS];
    for (uint64_t i = 0; i < shape->size; i++) res[i] = first ? shape->ints[i] : shape->ints[perm->ints[i]];
    if (out->ndim != shape->size || memcmp(out->dims, res, shape->size * sizeof(int64_t)) != 0)
        return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "out has shape %s but the result has %s",
                             aclStubShapeText(out->dims, out->ndim, a, sizeof a),
                             aclStubShapeText(res, (uint32_t)shape->size, b, sizeof b));
    return OK;
}

static aclnnStatus confusion_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *out = T(CT_OUT);
    const aclStubValue *perm = &call->v[CT_PERM], *shape = &call->v[CT_SHAPE];
    aclStubTensorDesc src, buf;
    ACLSTUB_TRY(aclStubInputApart(call, T(CT_X), ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    aclStubTensorDesc dst = buf;
    if (call->v[CT_FIRST].b) { /* buf (contiguous, shape) read as the transposed shape */
        aclStubViewPermute(&src, perm->ints);
        aclStubViewReshape(&dst, src.dims, src.ndim);
    } else { /* src (contiguous) reshaped, then transposed */
        aclStubViewReshape(&src, shape->ints, (uint32_t)shape->size);
        aclStubViewPermute(&src, perm->ints);
    }
    ACLSTUB_TRY(aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED));
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kConfusionParams[] = {IN("x"), ATTR("perm", ACLSTUB_INT_ARRAY),
                                                ATTR("shape", ACLSTUB_INT_ARRAY), ATTR("transposeFirst", ACLSTUB_BOOL),
                                                OUT("out")};
static const aclStubOpDef kConfusion = {"aclnnConfusionTranspose", kConfusionParams, 5, NULL, confusion_check,
                                        confusion_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnConfusionTranspose, kConfusion, (const aclTensor *, x), (const aclIntArray *, perm),
                  (const aclIntArray *, shape), (bool, transposeFirst), (aclTensor *, out))
