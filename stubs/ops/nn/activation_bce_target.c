/*
 * BinaryCrossEntropyWithLogitsTargetBackward of ops-nn activation/log_sigmoid: the gradient of the BCE-with-logits
 * loss with respect to its target,
 *     gradTarget = gradOutput * (logsigmoid(-self) - posWeight * logsigmoid(self)) * weight   (/ numel for mean),
 * weight and posWeight 1 when absent, gradOutput, weight and posWeight broadcast to self's shape. As the op_api
 * does, every operand is cast to float32 (the promoted type, FLOAT16 and BF16 computed in float) and each step is a
 * float operation rounded once: the two log sigmoids, the products and the difference, then 1/numel as a float
 * factor for mean; the result is cast to gradTarget's type, which is the target's.
 */
#include <string.h>

#include "act_math.h"
#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"

#define DT ACLSTUB_DT

enum { BT_GRAD, BT_SELF, BT_TARGET, BT_WEIGHT, BT_POS_WEIGHT, BT_REDUCTION, BT_GRAD_TARGET, BT_N };

typedef struct {
    float scale; /* mean: 1/numel as a float; otherwise 1 (not applied) */
    bool mean;
} BceTargetPlan;

static bool present(const aclStubOpCall *call, int i) { return call->v[i].tensor != NULL; }

/* The op_api's order: ranks (at most 8), dtypes (FLOAT16, FLOAT, BF16; gradTarget is target's), formats (target's
 * and gradTarget's are self's), shapes (a non-empty self: target and gradTarget its shape, the others broadcast to
 * it), the reduction (0 to 2); an empty self is then nothing to do. */
static aclnnStatus bce_target_check(aclStubOpCall *call) {
    static const int TENSORS[] = {BT_GRAD, BT_SELF, BT_TARGET, BT_WEIGHT, BT_POS_WEIGHT, BT_GRAD_TARGET};
    char a[128], b[128];
    for (size_t k = 0; k < ACLSTUB_LEN(TENSORS); k++) {
        const aclStubTensorDesc *t = call->v[TENSORS[k]].tensor;
        ACLSTUB_RETURN_ERROR_IF(t && t->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has %u dimensions; "
                                "at most 8 are supported", aclStubOpName(call, TENSORS[k]), t->ndim);
    }
    for (size_t k = 0; k < ACLSTUB_LEN(TENSORS); k++) {
        const aclStubTensorDesc *t = call->v[TENSORS[k]].tensor;
        if (t && ((unsigned)t->dtype >= 64 || !(ACLSTUB_DT_FLOATS & DT(t->dtype))))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                                 aclStubOpName(call, TENSORS[k]), aclStubDtypeName(t->dtype),
                                 aclStubDtypeSetName(ACLSTUB_DT_FLOATS, a, sizeof a));
    }
    const aclStubTensorDesc *x = call->v[BT_SELF].tensor, *target = call->v[BT_TARGET].tensor,
                            *gt = call->v[BT_GRAD_TARGET].tensor;
    ACLSTUB_RETURN_ERROR_IF(gt->dtype != target->dtype, call, ACLNN_ERR_PARAM_INVALID, "gradTarget has data type %s "
                            "but must have target's %s", aclStubDtypeName(gt->dtype),
                            aclStubDtypeName(target->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->format != target->format, call, ACLNN_ERR_PARAM_INVALID, "Format of self and target "
                            "can't be different, self [%d], target [%d].", (int)x->format, (int)target->format);
    ACLSTUB_RETURN_ERROR_IF(x->format != gt->format, call, ACLNN_ERR_PARAM_INVALID, "Format of self and gradTarget "
                            "can't be different, self [%d], gradTarget [%d].", (int)x->format, (int)gt->format);
    if (aclStubNumel(x) != 0) {
        static const int SAME[] = {BT_TARGET, BT_GRAD_TARGET};
        for (size_t k = 0; k < ACLSTUB_LEN(SAME); k++) {
            int i = SAME[k];
            const aclStubTensorDesc *t = call->v[i].tensor;
            ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(t->dims, t->ndim, x->dims, x->ndim), call,
                                    ACLNN_ERR_PARAM_INVALID, "shape of %s should be %s, but current is %s",
                                    aclStubOpName(call, i), aclStubShapeText(x->dims, x->ndim, a, sizeof a),
                                    aclStubShapeText(t->dims, t->ndim, b, sizeof b));
        }
        static const int BROADCAST[] = {BT_GRAD, BT_WEIGHT, BT_POS_WEIGHT};
        for (size_t k = 0; k < ACLSTUB_LEN(BROADCAST); k++) {
            const aclStubTensorDesc *t = call->v[BROADCAST[k]].tensor;
            if (t == NULL) continue;
            int64_t bs[ACLSTUB_MAX_DIMS];
            uint32_t nb;
            ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(t->dims, t->ndim, x->dims, x->ndim, bs, &nb) ||
                                        !aclStubShapeEqual(bs, nb, x->dims, x->ndim),
                                    call, ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to self's "
                                    "shape %s", aclStubOpName(call, BROADCAST[k]),
                                    aclStubShapeText(t->dims, t->ndim, a, sizeof a),
                                    aclStubShapeText(x->dims, x->ndim, b, sizeof b));
        }
    }
    int64_t reduction = aclStubOpInt(call, BT_REDUCTION);
    ACLSTUB_RETURN_ERROR_IF(reduction < 0 || reduction > 2, call, ACLNN_ERR_PARAM_INVALID, "Reduction should be "
                            "between 0 and 2, but current is %lld", (long long)reduction);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    BceTargetPlan *p = call->plan;
    p->mean = reduction == 1;
    p->scale = (float)(1.0 / (double)aclStubNumel(target));
    return ACLNN_SUCCESS;
}

/* d: gradTarget, gradOutput, self, weight, posWeight (all float) */
static void bce_target_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const BceTargetPlan *p = ctx;
    for (int64_t i = 0; i < n; i++) {
        float g = *(const float *)(const void *)(d[1] + i * s[1]), x = *(const float *)(const void *)(d[2] + i * s[2]);
        float w = *(const float *)(const void *)(d[3] + i * s[3]);
        float pw = *(const float *)(const void *)(d[4] + i * s[4]);
        float ls_neg = (float)act_log_sigmoid(-(double)x), ls = (float)act_log_sigmoid((double)x);
        float r1 = ls * pw, r2 = ls_neg - r1, r3 = g * r2, t = r3 * w;
        *(float *)(void *)(d[0] + i * s[0]) = p->mean ? t * p->scale : t;
    }
}

static aclnnStatus bce_target_kernel(const aclStubOpCall *call) {
    static const float ONE = 1.0f;
    aclStubTensorDesc one;
    memset(&one, 0, sizeof one);
    one.dtype = ACL_FLOAT;
    one.format = ACL_FORMAT_ND;
    one.data = (void *)(uintptr_t)&ONE;
    static const int OPERANDS[] = {BT_GRAD_TARGET, BT_GRAD, BT_SELF, BT_WEIGHT, BT_POS_WEIGHT};
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 4;
    for (int k = 0; k < 5; k++) {
        it.tensor[k] = present(call, OPERANDS[k]) ? call->v[OPERANDS[k]].tensor : &one;
        it.loop_dtype[k] = ACL_FLOAT;
    }
    return aclStubIterRun(call, &it, bce_target_loop, call->plan);
}

static const aclStubParam BT_PARAMS[] = {
    [BT_GRAD] = {"gradOutput", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [BT_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [BT_TARGET] = {"target", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [BT_WEIGHT] = {"weightOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [BT_POS_WEIGHT] = {"posWeightOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [BT_REDUCTION] = {"reduction", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [BT_GRAD_TARGET] = {"gradTarget", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef BT_OP = {"aclnnBinaryCrossEntropyWithLogitsTargetBackward", BT_PARAMS, BT_N, NULL,
                                   bce_target_check, bce_target_kernel, sizeof(BceTargetPlan)};
ACLSTUB_DEFINE_OP(aclnnBinaryCrossEntropyWithLogitsTargetBackward, BT_OP, (const aclTensor *, gradOutput),
                  (const aclTensor *, self), (const aclTensor *, target), (const aclTensor *, weightOptional),
                  (const aclTensor *, posWeightOptional), (int64_t, reduction), (aclTensor *, gradTarget))
