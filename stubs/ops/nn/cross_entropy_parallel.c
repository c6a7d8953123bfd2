/*
 * The vocabulary-parallel cross entropy pieces of ops-nn loss/: aclnnFusedCrossEntropyLossWithMaxSum.
 *
 * With the per-row statistics a vocabulary-parallel step gathered (logitsMax, sumExpLogits, predictedLogits: [N],
 * FLOAT):
 *   lossOut[n]          = log(sumExpLogits[n]) - predictedLogits[n]
 *   softMaxOut[n, v]    = exp(vocabParallelLogits[n, v] - logitsMax[n]) / sumExpLogits[n]   (when given)
 * computed in double from the float32 (or widened 16-bit) inputs and rounded once to FLOAT. inputOptional and
 * weightOptional are not read (the op_api passes them on unused); labelSmoothing must be 0. The op_api does not
 * compare vocabParallelLogits' first dimension with N: a different one fails the launch (ACLNN_ERR_PARAM_INVALID)
 * rather than read past logitsMax.
 */
#include <math.h>

#include "aclnnop/aclnn_fused_cross_entropy_loss_with_max_sum.h"
#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"

#define DT ACLSTUB_DT
#define INVALID ACLNN_ERR_PARAM_INVALID
#define T(i) (call->v[i].tensor)

enum { FC_MAX, FC_SUM, FC_PRED, FC_SMOOTH, FC_INPUT, FC_WEIGHT, FC_VOCAB, FC_LOSS, FC_SOFTMAX };
static const aclStubParam kFusedParams[] = {
    [FC_MAX] = {"logitsMax", ACLSTUB_INPUT, 0},
    [FC_SUM] = {"sumExpLogits", ACLSTUB_INPUT, 0},
    [FC_PRED] = {"predictedLogits", ACLSTUB_INPUT, 0},
    [FC_SMOOTH] = {"labelSmoothing", ACLSTUB_FLOAT},
    [FC_INPUT] = {"inputOptional", ACLSTUB_OPTIONAL_INPUT, 0},
    [FC_WEIGHT] = {"weightOptional", ACLSTUB_OPTIONAL_INPUT, 0},
    [FC_VOCAB] = {"vocabParallelLogitsOptional", ACLSTUB_OPTIONAL_INPUT, 0},
    [FC_LOSS] = {"lossOut", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
    [FC_SOFTMAX] = {"softMaxOutOptional", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus same_shape(aclStubOpCall *call, int i, int j) {
    const aclStubTensorDesc *a = T(i), *b = T(j);
    char x[160], y[160];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(a->dims, a->ndim, b->dims, b->ndim), call, INVALID,
                            "%s's shape %s must be %s's %s", call->op->params[j].name,
                            aclStubShapeText(b->dims, b->ndim, x, sizeof x), call->op->params[i].name,
                            aclStubShapeText(a->dims, a->ndim, y, sizeof y));
    return OK;
}

static aclnnStatus fused_check(aclStubOpCall *call) {
    bool vocab = T(FC_VOCAB) != NULL;
    ACLSTUB_RETURN_ERROR_IF(vocab && T(FC_SOFTMAX) == NULL, call, ACLNN_ERR_PARAM_NULLPTR,
                            "softMaxOutOptional must not be NULL when vocabParallelLogitsOptional is given");
    for (int i = FC_MAX; i <= FC_PRED; i++) ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, i, DT(ACL_FLOAT)));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, FC_LOSS, DT(ACL_FLOAT)));
    if (vocab) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, FC_VOCAB, ACLSTUB_DT_FLOATS));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, FC_SOFTMAX, DT(ACL_FLOAT)));
    }
    ACLSTUB_RETURN_ERROR_IF(T(FC_MAX)->ndim != 1, call, INVALID, "logitsMax must be 1-D, got %u-D", T(FC_MAX)->ndim);
    ACLSTUB_TRY(same_shape(call, FC_MAX, FC_SUM));
    ACLSTUB_TRY(same_shape(call, FC_MAX, FC_PRED));
    ACLSTUB_TRY(same_shape(call, FC_MAX, FC_LOSS));
    if (vocab) {
        ACLSTUB_RETURN_ERROR_IF(T(FC_VOCAB)->ndim != 2, call, INVALID, "vocabParallelLogitsOptional must be 2-D, "
                                "got %u-D", T(FC_VOCAB)->ndim);
        ACLSTUB_TRY(same_shape(call, FC_VOCAB, FC_SOFTMAX));
    }
    ACLSTUB_RETURN_ERROR_IF((float)call->v[FC_SMOOTH].f != 0.0f, call, INVALID,
                            "Currently, only labelSmoothing=0 are supported.");
    return OK;
}

typedef struct {
    const float *mx, *sum;
    const float *x;
    float *y;
    int64_t v;
} SoftmaxCtx;

static void softmax_rows(void *ctxp, int64_t begin, int64_t end) {
    const SoftmaxCtx *c = ctxp;
    for (int64_t n = begin; n < end; n++) {
        double m = c->mx[n], s = c->sum[n];
        const float *x = c->x + n * c->v;
        float *y = c->y + n * c->v;
        for (int64_t j = 0; j < c->v; j++) y[j] = (float)(exp((double)x[j] - m) / s);
    }
}

static aclnnStatus fused_kernel(const aclStubOpCall *call) {
    aclStubTensorDesc mx, sum, pred, loss;
    ACLSTUB_TRY(aclStubContiguousIn(call, T(FC_MAX), ACL_FLOAT, &mx));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(FC_SUM), ACL_FLOAT, &sum));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(FC_PRED), ACL_FLOAT, &pred));
    int64_t N = aclStubNumel(&mx);
    const float *m = (const float *)aclStubViewBase(&mx), *s = (const float *)aclStubViewBase(&sum);
    const float *p = (const float *)aclStubViewBase(&pred);
    const aclStubTensorDesc *vocab = T(FC_VOCAB);
    if (vocab != NULL) {
        if (vocab->dims[0] != N)
            return aclStubKernelFail(call, INVALID, "vocabParallelLogitsOptional has %lld rows, logitsMax %lld",
                                     (long long)vocab->dims[0], (long long)N);
        aclStubTensorDesc x, y;
        ACLSTUB_TRY(aclStubContiguousIn(call, vocab, ACL_FLOAT, &x));
        ACLSTUB_TRY(aclStubOutputBegin(call, T(FC_SOFTMAX), ACL_FLOAT, false, &y));
        SoftmaxCtx c = {m, s, (const float *)aclStubViewBase(&x), (float *)aclStubViewBase(&y), vocab->dims[1]};
        if (c.v > 0) aclStubParallelFor(N, (4096 + c.v - 1) / c.v, softmax_rows, &c);
        ACLSTUB_TRY(aclStubOutputEnd(call, T(FC_SOFTMAX), &y));
    }
    ACLSTUB_TRY(aclStubOutputBegin(call, T(FC_LOSS), ACL_FLOAT, false, &loss));
    float *l = (float *)aclStubViewBase(&loss);
    for (int64_t n = 0; n < N; n++) l[n] = (float)(log((double)s[n]) - (double)p[n]);
    return aclStubOutputEnd(call, T(FC_LOSS), &loss);
}

static const aclStubOpDef kFused = {"aclnnFusedCrossEntropyLossWithMaxSum", kFusedParams, ACLSTUB_LEN(kFusedParams),
                                    NULL, fused_check, fused_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnFusedCrossEntropyLossWithMaxSum, kFused, (const aclTensor *, logitsMax),
                  (const aclTensor *, sumExpLogits), (const aclTensor *, predictedLogits), (float, labelSmoothing),
                  (const aclTensor *, inputOptional), (const aclTensor *, weightOptional),
                  (const aclTensor *, vocabParallelLogitsOptional), (aclTensor *, lossOut),
                  (aclTensor *, softMaxOutOptional))
