/*
 * ops-math math/segsum and math/exp_segsum_grad: aclnnExpSegsum and aclnnExpSegsumBackward (the segment sums of
 * state-space models, exp(segsum(x)) of Mamba-2).
 *
 * aclnnExpSegsum: self (N..., T), 3-D or 4-D, gives out (N..., T, T) with
 *   out[..., i, j] = exp(x[j+1] + ... + x[i])  for j <= i (1 on the diagonal),  0 for j > i,
 * the sums being the docs' cumulative sum along i (S[i][j] = S[i-1][j] + x[i], in float32), the exponential the
 * correctly rounded one (op_math.h). aclnnExpSegsumBackward: gradOutput and gradSelf (the forward's output) of shape
 * (N..., T, T), 4-D or 5-D, give gradInput (N..., T) with
 *   gradInput[..., i] = sum_{j < i} sum_{k >= i} gradOutput[..., k, j] * gradSelf[..., k, j],
 * the docs' order: products where k > j, a reversed cumulative sum along k, then the row sum over j in order, all
 * in float32. 16-bit tensors are read as float32 and the results rounded once. As in both op_apis, an empty
 * tensor returns success before any other rule is checked.
 */
#include "aclstub/op_index.h"
#include "aclstub/op_math.h"
#include "aclnnop/aclnn_exp_segsum_backward.h"
#include "aclnnop/aclnn_segsum.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define LATER ACLSTUB_CHECK_LATER

/* ---- aclnnExpSegsum ------------------------------------------------------------------------------------------ */

enum { ES_SELF, ES_OUT };

static aclnnStatus exp_segsum_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[ES_SELF].tensor, *out = call->v[ES_OUT].tensor;
    char a[256], b[256];
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_TRY(aclStubOpCheckTensor(call, ES_SELF));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    uint32_t n = self->ndim;
    ACLSTUB_RETURN_ERROR_IF(n != 3 && n != 4, call, INVALID,
                            "It is expected input size equals to 3 or 4, but got sizes %u.", n);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != n + 1, call, INVALID,
                            "It is expected output size is 1 large than input size, but got input size %u, output "
                            "size %u.", n, out->ndim);
    bool ok = out->dims[n] == self->dims[n - 1];
    for (uint32_t i = 0; i < n; i++) ok = ok && out->dims[i] == self->dims[i];
    ACLSTUB_RETURN_ERROR_IF(!ok, call, INVALID, "It is expected output shape %s to be input shape %s with its last "
                            "dimension repeated.", aclStubShapeText(out->dims, out->ndim, a, sizeof a),
                            aclStubShapeText(self->dims, n, b, sizeof b));
    ACLSTUB_RETURN_ERROR_IF(self->format != out->format, call, INVALID,
                            "Format of input and output should be equal.");
    ACLSTUB_RETURN_ERROR_IF(self->format != ACL_FORMAT_ND, call, INVALID, "Input format should be ND.");
    return OK;
}

typedef struct {
    const float *x;
    float *out;
    int64_t t;
} SegCtx;

static void exp_segsum_rows(void *arg, int64_t begin, int64_t end) {
    const SegCtx *c = arg;
    int64_t t = c->t;
    for (int64_t r = begin; r < end; r++) {
        const float *x = c->x + r * t;
        float *o = c->out + r * t * t;
        for (int64_t i = 0; i < t; i++) /* row i: the sums S[i][j], j < i, from row i - 1 */
            for (int64_t j = 0; j < t; j++)
                o[i * t + j] = j < i ? (i - 1 > j ? o[(i - 1) * t + j] : 0.0f) + x[i] : 0.0f;
        for (int64_t i = 0; i < t; i++) {
            aclStubMathF32(o + i * t, o + i * t, i + 1, ACLSTUB_MATH_EXP);
        }
    }
}

static aclnnStatus exp_segsum_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[ES_SELF].tensor, *out = call->v[ES_OUT].tensor;
    aclStubTensorDesc x, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_FLOAT, &x));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &buf));
    int64_t t = self->dims[self->ndim - 1];
    SegCtx c = {(const float *)aclStubViewBase(&x), (float *)aclStubViewBase(&buf), t};
    aclStubParallelFor(aclStubNumel(self) / t, 1 + 4096 / (t * t), exp_segsum_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kExpSegsumParams[] = {
    [ES_SELF] = {"self", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, LATER, 0, 0},
    [ES_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kExpSegsum = {"aclnnExpSegsum", kExpSegsumParams, ACLSTUB_LEN(kExpSegsumParams), NULL,
                                        exp_segsum_check, exp_segsum_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnExpSegsum, kExpSegsum, (const aclTensor *, self), (aclTensor *, out))

/* ---- aclnnExpSegsumBackward ---------------------------------------------------------------------------------- */

enum { EB_GRAD_OUT, EB_GRAD_SELF, EB_GRAD_IN };

static aclnnStatus exp_segsum_backward_check(aclStubOpCall *call) {
    const aclStubTensorDesc *go = call->v[EB_GRAD_OUT].tensor, *gs = call->v[EB_GRAD_SELF].tensor,
                            *gi = call->v[EB_GRAD_IN].tensor;
    char a[256], b[256];
    if (aclStubNumel(go) == 0 || aclStubNumel(gs) == 0 || aclStubNumel(gi) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_TRY(aclStubOpCheckTensor(call, EB_GRAD_OUT));
    ACLSTUB_TRY(aclStubOpCheckTensor(call, EB_GRAD_SELF));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "gradInput", gi, "gradOutput", go));
    uint32_t n = go->ndim;
    ACLSTUB_RETURN_ERROR_IF(n != 4 && n != 5, call, INVALID,
                            "It is expected dimNum of gradOutput equals to 4 or 5, but got sizes %u.", n);
    ACLSTUB_RETURN_ERROR_IF(gs->ndim != n, call, INVALID,
                            "It is expected dimNum of gradOutput equals to dimNum of gradSelf, but got gradOutput(%u), "
                            "gradSelf(%u).", n, gs->ndim);
    ACLSTUB_RETURN_ERROR_IF(gi->ndim + 1 != n, call, INVALID,
                            "It is expected dimNum of gradInput is 1 small than dimNum of gradOutput, but got "
                            "gradInput(%u), gradOutput(%u).", gi->ndim, n);
    ACLSTUB_RETURN_ERROR_IF(go->dims[n - 1] != go->dims[n - 2], call, INVALID,
                            "It is expected size of the last two dimensions of gradOutput are equal, but got "
                            "gradOutput: %s.", aclStubShapeText(go->dims, n, a, sizeof a));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(go->dims, n, gs->dims, n), call, INVALID,
                            "It is expected shape of gradSelf equals to shape of gradOutput, but got gradSelf: %s, "
                            "gradOutput %s.", aclStubShapeText(gs->dims, n, a, sizeof a),
                            aclStubShapeText(go->dims, n, b, sizeof b));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(go->dims, n - 1, gi->dims, n - 1), call, INVALID,
                            "It is expected size of gradInput equals to size of gradOutput, but got gradInput: %s, "
                            "gradOutput: %s.", aclStubShapeText(gi->dims, gi->ndim, a, sizeof a),
                            aclStubShapeText(go->dims, n, b, sizeof b));
    ACLSTUB_RETURN_ERROR_IF(go->format != ACL_FORMAT_ND, call, INVALID,
                            "It is expected format of gradOutput is ND.");
    ACLSTUB_RETURN_ERROR_IF(gs->format != go->format, call, INVALID,
                            "It is expected format of gradSelf equals to format of gradOutput.");
    ACLSTUB_RETURN_ERROR_IF(gi->format != go->format, call, INVALID,
                            "It is expected format of gradInput equals to format of gradOutput.");
    return OK;
}

typedef struct {
    const float *go, *gs;
    float *acc; /* per row: T x T running sums */
    float *out;
    int64_t t;
} SegGradCtx;

static void exp_segsum_grad_rows(void *arg, int64_t begin, int64_t end) {
    const SegGradCtx *c = arg;
    int64_t t = c->t;
    for (int64_t r = begin; r < end; r++) {
        const float *go = c->go + r * t * t, *gs = c->gs + r * t * t;
        float *s = c->acc + r * t * t, *o = c->out + r * t;
        for (int64_t k = t; k-- > 0;) /* C[k][j] = M[k][j] + C[k+1][j], M[k][j] = go * gs for k > j */
            for (int64_t j = 0; j < t; j++) {
                float m = k > j ? go[k * t + j] * gs[k * t + j] : 0.0f;
                s[k * t + j] = k + 1 < t ? m + s[(k + 1) * t + j] : m;
            }
        for (int64_t i = 0; i < t; i++) {
            float sum = 0.0f;
            for (int64_t j = 0; j < i; j++) sum += s[i * t + j];
            o[i] = sum;
        }
    }
}

static aclnnStatus exp_segsum_backward_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *gi = call->v[EB_GRAD_IN].tensor;
    aclStubTensorDesc go, gs, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[EB_GRAD_OUT].tensor, ACL_FLOAT, &go));
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[EB_GRAD_SELF].tensor, ACL_FLOAT, &gs));
    ACLSTUB_TRY(aclStubOutputBegin(call, gi, ACL_FLOAT, false, &buf));
    int64_t t = gi->dims[gi->ndim - 1], rows = aclStubNumel(gi) / t;
    float *acc = aclStubKernelScratch(call, (size_t)(rows * t * t) * sizeof(float));
    if (acc == NULL) return aclStubKernelOutOfMemory(call);
    SegGradCtx c = {(const float *)aclStubViewBase(&go), (const float *)aclStubViewBase(&gs), acc,
                    (float *)aclStubViewBase(&buf), t};
    aclStubParallelFor(rows, 1 + 4096 / (t * t), exp_segsum_grad_rows, &c);
    return aclStubOutputEnd(call, gi, &buf);
}

static const aclStubParam kExpSegsumBackwardParams[] = {
    [EB_GRAD_OUT] = {"gradOutput", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, LATER, 0, 0},
    [EB_GRAD_SELF] = {"gradSelf", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, LATER, 0, 0},
    [EB_GRAD_IN] = {"gradInput", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kExpSegsumBackward = {"aclnnExpSegsumBackward", kExpSegsumBackwardParams,
                                                ACLSTUB_LEN(kExpSegsumBackwardParams), NULL,
                                                exp_segsum_backward_check, exp_segsum_backward_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnExpSegsumBackward, kExpSegsumBackward, (const aclTensor *, gradOutput),
                  (const aclTensor *, gradSelf), (aclTensor *, gradInput))
