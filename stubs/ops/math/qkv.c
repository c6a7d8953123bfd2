/*
 * ops-math math/transform_bias_rescale_qkv: aclnnTransformBiasRescaleQkv (torch._transform_bias_rescale_qkv), a
 * generated API: the operator definition's dtypes (qkv, qkvBias and the three outputs of one dtype) and its
 * tiling's rules (ACLNN_ERR_INNER_TILING_ERROR: numHeads > 0, the last dimension of qkv a multiple of 3 whose
 * third divides by numHeads, qkvBias 1-D of that length). qkv (B, T, 3D) and qkvBias (3D) give q, k, v of shape
 * (B, numHeads, T, D / numHeads):
 *   q = (qkv[..., :D] + bias[:D]) * s,  k = qkv[..., D:2D] + bias[D:2D],  v = qkv[..., 2D:] + bias[2D:],
 * with s = 1 / sqrt(D / numHeads) in float32, as the kernel multiplies (its documentation divides by the root).
 * Every step in float32 (16-bit inputs read as float32), each result rounded once to the dtype.
 */
#include <math.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_transform_bias_rescale_qkv.h"

#define TILING ACLNN_ERR_INNER_TILING_ERROR

enum { TQ_QKV, TQ_BIAS, TQ_HEADS, TQ_Q, TQ_K, TQ_V };

typedef struct {
    int64_t b, t, d, heads, dph;
} QkvPlan;

static aclnnStatus qkv_check(aclStubOpCall *call) {
    const aclStubTensorDesc *qkv = call->v[TQ_QKV].tensor, *bias = call->v[TQ_BIAS].tensor;
    QkvPlan *pl = call->plan;
    int64_t heads = call->v[TQ_HEADS].i;
    ACLSTUB_RETURN_ERROR_IF(qkv->ndim != 3, call, TILING, "qkv must be 3-D (B, T, 3 * D), got %u dimensions",
                            qkv->ndim);
    int64_t three_d = qkv->dims[2], d = three_d / 3;
    ACLSTUB_RETURN_ERROR_IF(heads <= 0, call, TILING, "numHeads must be positive, got %lld", (long long)heads);
    ACLSTUB_RETURN_ERROR_IF(d % heads != 0, call, TILING, "D = %lld is not a multiple of numHeads = %lld",
                            (long long)d, (long long)heads);
    ACLSTUB_RETURN_ERROR_IF(three_d % 3 != 0, call, TILING, "the last dimension of qkv (%lld) is not a multiple of 3",
                            (long long)three_d);
    ACLSTUB_RETURN_ERROR_IF(bias->ndim != 1 || bias->dims[0] != three_d, call, TILING,
                            "qkvBias must be 1-D of length %lld", (long long)three_d);
    int64_t want[4] = {qkv->dims[0], heads, qkv->dims[1], d / heads};
    for (int i = TQ_Q; i <= TQ_V; i++) ACLSTUB_TRY(aclStubCheckShapeIs(call, aclStubOpName(call, i), call->v[i].tensor,
                                                                       want, 4));
    *pl = (QkvPlan){qkv->dims[0], qkv->dims[1], d, heads, d / heads};
    if (aclStubNumel(qkv) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const QkvPlan *pl;
    const float *qkv, *bias;
    float *out[3];
    float scale;
} QkvCtx;

static void qkv_rows(void *arg, int64_t begin, int64_t end) {
    const QkvCtx *c = arg;
    const QkvPlan *pl = c->pl;
    for (int64_t row = begin; row < end; row++) { /* row = (b, t) */
        int64_t b = row / pl->t, t = row % pl->t;
        const float *x = c->qkv + row * 3 * pl->d;
        for (int p = 0; p < 3; p++)
            for (int64_t h = 0; h < pl->heads; h++) {
                float *o = c->out[p] + ((b * pl->heads + h) * pl->t + t) * pl->dph;
                const float *xi = x + p * pl->d + h * pl->dph, *bi = c->bias + p * pl->d + h * pl->dph;
                if (p == 0)
                    for (int64_t k = 0; k < pl->dph; k++) o[k] = (xi[k] + bi[k]) * c->scale;
                else
                    for (int64_t k = 0; k < pl->dph; k++) o[k] = xi[k] + bi[k];
            }
    }
}

static aclnnStatus qkv_kernel(const aclStubOpCall *call) {
    const QkvPlan *pl = call->plan;
    aclStubTensorDesc x, bias, bufs[3];
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[TQ_QKV].tensor, ACL_FLOAT, &x));
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[TQ_BIAS].tensor, ACL_FLOAT, &bias));
    QkvCtx c = {pl, (const float *)aclStubViewBase(&x), (const float *)aclStubViewBase(&bias), {NULL, NULL, NULL},
                1.0f / sqrtf((float)pl->dph)};
    for (int p = 0; p < 3; p++) {
        ACLSTUB_TRY(aclStubOutputBegin(call, call->v[TQ_Q + p].tensor, ACL_FLOAT, false, &bufs[p]));
        c.out[p] = (float *)aclStubViewBase(&bufs[p]);
    }
    aclStubParallelFor(pl->b * pl->t, 1 + 8192 / (3 * pl->d), qkv_rows, &c);
    for (int p = 0; p < 3; p++) ACLSTUB_TRY(aclStubOutputEnd(call, call->v[TQ_Q + p].tensor, &bufs[p]));
    return OK;
}

#define QKV_OUT(name) {name, ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "qkv", ACLSTUB_ANY_LAYOUT, 0, 0}
static const aclStubParam kQkvParams[] = {
    [TQ_QKV] = {"qkv", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, 0, 0, 0},
    [TQ_BIAS] = {"qkvBias", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "qkv", 0, 0, 0},
    [TQ_HEADS] = {"numHeads", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [TQ_Q] = QKV_OUT("qOut"),
    [TQ_K] = QKV_OUT("kOut"),
    [TQ_V] = QKV_OUT("vOut"),
};
static const aclStubOpDef kQkv = {"aclnnTransformBiasRescaleQkv", kQkvParams, ACLSTUB_LEN(kQkvParams), NULL,
                                  qkv_check, qkv_kernel, sizeof(QkvPlan)};
ACLSTUB_DEFINE_OP(aclnnTransformBiasRescaleQkv, kQkv, (const aclTensor *, qkv), (const aclTensor *, qkvBias),
                  (int64_t, numHeads), (const aclTensor *, qOut), (const aclTensor *, kOut), (const aclTensor *, vOut))
