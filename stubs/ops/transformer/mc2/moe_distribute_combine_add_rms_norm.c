/*
 * aclnnMoeDistributeCombineAddRmsNorm: aclnnMoeDistributeCombineV2 (moe_distribute_combine_impl.h) followed by
 * aclnnAddRmsNorm on each token: c = the combine's float32 sum rounded to the data type (what the combine would
 * output), x = c + residualX in float32, xOut = x rounded once, the sum of squares of x accumulated in 16 lanes
 * (element j in lane j % 16, the lanes then added in order), rstd = 1 / sqrt(sum / H + normEps) (rstdOut, FLOAT),
 * yOut = (x * rstd) * gamma rounded once. residualX, yOut and xOut are (Bs, 1, H), rstdOut (Bs, 1, 1), gamma (H),
 * sharedExpertXOptional (Bs, H) or (Bs, 1, H).
 * Like the device's op_api, it is not available on Atlas A2 (an Ascend910B SoC name: set ACLNN_STUB_SOC_NAME to an
 * Atlas A3 name such as Ascend910_9391 to use it).
 */
#include <math.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_moe_distribute_combine_add_rms_norm.h"
#include "moe_distribute_common.h"

enum {
    EXPAND_X, EXPERT_IDS, ASSIST, EP_SEND, EXPERT_SCALES, RESIDUAL, GAMMA, TP_SEND, MASK, ACT_SCALE, WEIGHT_SCALE,
    GROUP_LIST, EXPAND_SCALES, SHARED_X, GROUP_EP, EP_WORLD, EP_RANK, MOE_EXPERTS, GROUP_TP, TP_WORLD, TP_RANK,
    SHARD_TYPE, SHARED_NUM, SHARED_RANKS, GLOBAL_BS, OUT_DTYPE, COMM_QUANT, GROUP_LIST_TYPE, COMM_ALG, NORM_EPS,
    Y_OUT, RSTD_OUT, X_OUT, NPARAMS
};

#define DT_HALVES (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))

static const aclStubParam PARAMS[] = {
    [EXPAND_X] = {"expandX", ACLSTUB_INPUT, DT_HALVES, NULL, 0, 2, 2},
    [EXPERT_IDS] = {"expertIds", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 2, 2},
    [ASSIST] = {"assistInfoForCombine", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [EP_SEND] = {"epSendCounts", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [EXPERT_SCALES] = {"expertScales", ACLSTUB_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL, 0, 2, 2},
    [RESIDUAL] = {"residualX", ACLSTUB_INPUT, DT_HALVES, "expandX", 0, 3, 3},
    [GAMMA] = {"gamma", ACLSTUB_INPUT, DT_HALVES, "expandX", 0, 1, 1},
    [TP_SEND] = {"tpSendCountsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [MASK] = {"xActiveMaskOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_BOOL), NULL, 0, 1, 2},
    [ACT_SCALE] = {"activationScaleOptional", ACLSTUB_OPTIONAL_INPUT},
    [WEIGHT_SCALE] = {"weightScaleOptional", ACLSTUB_OPTIONAL_INPUT},
    [GROUP_LIST] = {"groupListOptional", ACLSTUB_OPTIONAL_INPUT},
    [EXPAND_SCALES] = {"expandScalesOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT)},
    [SHARED_X] = {"sharedExpertXOptional", ACLSTUB_OPTIONAL_INPUT, DT_HALVES, "expandX", 0, 2, 3},
    [GROUP_EP] = {"groupEp", ACLSTUB_STRING},
    [EP_WORLD] = {"epWorldSize", ACLSTUB_INT},
    [EP_RANK] = {"epRankId", ACLSTUB_INT},
    [MOE_EXPERTS] = {"moeExpertNum", ACLSTUB_INT},
    [GROUP_TP] = {"groupTp", ACLSTUB_STRING},
    [TP_WORLD] = {"tpWorldSize", ACLSTUB_INT},
    [TP_RANK] = {"tpRankId", ACLSTUB_INT},
    [SHARD_TYPE] = {"expertShardType", ACLSTUB_INT},
    [SHARED_NUM] = {"sharedExpertNum", ACLSTUB_INT},
    [SHARED_RANKS] = {"sharedExpertRankNum", ACLSTUB_INT},
    [GLOBAL_BS] = {"globalBs", ACLSTUB_INT},
    [OUT_DTYPE] = {"outDtype", ACLSTUB_INT},
    [COMM_QUANT] = {"commQuantMode", ACLSTUB_INT},
    [GROUP_LIST_TYPE] = {"groupListType", ACLSTUB_INT},
    [COMM_ALG] = {"commAlg", ACLSTUB_STRING},
    [NORM_EPS] = {"normEps", ACLSTUB_FLOAT},
    [Y_OUT] = {"yOut", ACLSTUB_OUTPUT, DT_HALVES, "expandX", 0, 3, 3},
    [RSTD_OUT] = {"rstdOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_FLOAT), NULL, 0, 3, 3},
    [X_OUT] = {"xOut", ACLSTUB_OUTPUT, DT_HALVES, "expandX", 0, 3, 3},
};

static void add_rms_norm_row(const aclStubOpCall *call, int64_t t, float *x, float *tmp);

/* sharedExpertXOptional as the combine reads it: (Bs, H), or a (Bs, 1, H) tensor viewed as (Bs, H). */
static const aclStubTensorDesc *shared_x(const aclStubOpCall *call) {
    static _Thread_local aclStubTensorDesc flat;
    const aclStubTensorDesc *sx = aclStubOpTensor(call, SHARED_X);
    if (sx == NULL || sx->ndim != 3 || sx->dims[1] != 1) return sx;
    flat = *sx;
    flat.ndim = 2;
    flat.dims[1] = sx->dims[2];
    flat.strides[1] = sx->strides[2];
    return &flat;
}

#define MD_V1 0
#define MD_OP_NAME "aclnnMoeDistributeCombineAddRmsNorm"
#define MD_SHARED_X(call) shared_x(call)
#define MD_ROW_TAIL(call, t, x, tmp) add_rms_norm_row(call, t, x, tmp)
#include "moe_distribute_combine_impl.h"

static float load3(const aclStubTensorDesc *d, int64_t t, int64_t j) {
    return aclStubLoadPtrF32(d->dtype, (const char *)d->data + (size_t)(d->offset + t * d->strides[0] +
                                                                        j * d->strides[2]) * aclDataTypeSize(d->dtype));
}

static void add_rms_norm_row(const aclStubOpCall *call, int64_t t, float *x, float *tmp) {
    const aclStubTensorDesc *res = aclStubOpTensor(call, RESIDUAL), *g = aclStubOpTensor(call, GAMMA);
    const aclStubTensorDesc *y = aclStubOpTensor(call, Y_OUT), *rs = aclStubOpTensor(call, RSTD_OUT);
    const aclStubTensorDesc *xo = aclStubOpTensor(call, X_OUT);
    aclDataType dt = xo->dtype;
    int64_t h = xo->dims[2];
    size_t es = aclDataTypeSize(dt);
    aclStubRowStoreF32(tmp, x, dt, h); /* the combine's output, rounded (2-byte values in the float scratch) */
    aclStubRowLoadF32(x, tmp, dt, h);
    for (int64_t j = 0; j < h; j++) x[j] += load3(res, t, j);
    aclStubRowStoreF32((char *)xo->data + (size_t)(xo->offset + t * h) * es, x, dt, h);
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= h; j += 16)
        for (int k = 0; k < 16; k++) lanes[k] += x[j + k] * x[j + k];
    for (int k = 0; j + k < h; k++) lanes[k] += x[j + k] * x[j + k];
    float sum = 0.0f;
    for (int k = 0; k < 16; k++) sum += lanes[k];
    float r = 1.0f / sqrtf(sum / (float)h + (float)aclStubOpFloat(call, NORM_EPS));
    ((float *)rs->data)[rs->offset + t] = r;
    for (j = 0; j < h; j++) tmp[j] = (x[j] * r) * aclStubLoadPtrF32(g->dtype, aclStubElem1(g, j));
    aclStubRowStoreF32((char *)y->data + (size_t)(y->offset + t * h) * es, tmp, dt, h);
}

/* The op_api's platform rule, then the combine's checks and the norm's shapes. */
static aclnnStatus arn_check(aclStubOpCall *call) {
    const char *soc = aclrtGetSocName();
    ACLSTUB_RETURN_ERROR_IF(soc != NULL && strncmp(soc, "Ascend910B", 10) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "Not support 910B platform (SoC %s; set ACLNN_STUB_SOC_NAME to an Atlas A3 name)", soc);
    const char *tp = call->v[GROUP_TP].s;
    ACLSTUB_RETURN_ERROR_IF(tp != NULL && strnlen(tp, MD_GROUP_NAME_MAX) >= MD_GROUP_NAME_MAX, call,
                            ACLNN_ERR_PARAM_INVALID, "Required groupTp name exceeds %d.", MD_GROUP_NAME_MAX);
    ACLSTUB_TRY(check(call));
    const Plan *p = call->plan;
    const aclStubTensorDesc *res = aclStubOpTensor(call, RESIDUAL), *g = aclStubOpTensor(call, GAMMA);
    const aclStubTensorDesc *y = aclStubOpTensor(call, Y_OUT), *rs = aclStubOpTensor(call, RSTD_OUT);
    const aclnnStatus bad = ACLNN_ERR_INNER_TILING_ERROR;
    bool ok = res->dims[0] == p->bs && res->dims[1] == 1 && res->dims[2] == p->h && y->dims[0] == p->bs &&
              y->dims[1] == 1 && y->dims[2] == p->h;
    ACLSTUB_RETURN_ERROR_IF(!ok, call, bad, "residualX and yOut must be (Bs, 1, H) = (%lld, 1, %lld)",
                            (long long)p->bs, (long long)p->h);
    ACLSTUB_RETURN_ERROR_IF(g->dims[0] != p->h, call, bad, "gamma must be (H) = (%lld)", (long long)p->h);
    ACLSTUB_RETURN_ERROR_IF(rs->dims[0] != p->bs || rs->dims[1] != 1 || rs->dims[2] != 1, call, bad,
                            "rstdOut must be (Bs, 1, 1) = (%lld, 1, 1)", (long long)p->bs);
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeDistributeCombineAddRmsNorm", PARAMS, NPARAMS, NULL, arn_check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeDistributeCombineAddRmsNorm, OP, (const aclTensor *, expandX), (const aclTensor *, expertIds),
                  (const aclTensor *, assistInfoForCombine), (const aclTensor *, epSendCounts),
                  (const aclTensor *, expertScales), (const aclTensor *, residualX), (const aclTensor *, gamma),
                  (const aclTensor *, tpSendCountsOptional), (const aclTensor *, xActiveMaskOptional),
                  (const aclTensor *, activationScaleOptional), (const aclTensor *, weightScaleOptional),
                  (const aclTensor *, groupListOptional), (const aclTensor *, expandScalesOptional),
                  (const aclTensor *, sharedExpertXOptional), (const char *, groupEp), (int64_t, epWorldSize),
                  (int64_t, epRankId), (int64_t, moeExpertNum), (const char *, groupTp), (int64_t, tpWorldSize),
                  (int64_t, tpRankId), (int64_t, expertShardType), (int64_t, sharedExpertNum),
                  (int64_t, sharedExpertRankNum), (int64_t, globalBs), (int64_t, outDtype), (int64_t, commQuantMode),
                  (int64_t, groupListType), (const char *, commAlg), (float, normEps), (aclTensor *, yOut),
                  (aclTensor *, rstdOut), (aclTensor *, xOut))
