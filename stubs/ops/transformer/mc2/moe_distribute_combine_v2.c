/*
 * aclnnMoeDistributeCombineV2: the way back of aclnnMoeDistributeDispatchV2 (moe_distribute_combine_impl.h).
 */
#include "aclnnop/aclnn_moe_distribute_combine_v2.h"
#include "moe_distribute_common.h"

enum {
    EXPAND_X, EXPERT_IDS, ASSIST, EP_SEND, EXPERT_SCALES, TP_SEND, MASK, ACT_SCALE, WEIGHT_SCALE, GROUP_LIST,
    EXPAND_SCALES, SHARED_X, GROUP_EP, EP_WORLD, EP_RANK, MOE_EXPERTS, GROUP_TP, TP_WORLD, TP_RANK, SHARD_TYPE,
    SHARED_NUM, SHARED_RANKS, GLOBAL_BS, OUT_DTYPE, COMM_QUANT, GROUP_LIST_TYPE, COMM_ALG, X_OUT, NPARAMS
};

#define DT_HALVES (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))

static const aclStubParam PARAMS[] = {
    [EXPAND_X] = {"expandX", ACLSTUB_INPUT, DT_HALVES, NULL, 0, 2, 2},
    [EXPERT_IDS] = {"expertIds", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 2, 2},
    [ASSIST] = {"assistInfoForCombine", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [EP_SEND] = {"epSendCounts", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [EXPERT_SCALES] = {"expertScales", ACLSTUB_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL, 0, 2, 2},
    [TP_SEND] = {"tpSendCountsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [MASK] = {"xActiveMaskOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_BOOL), NULL, 0, 1, 2},
    [ACT_SCALE] = {"activationScaleOptional", ACLSTUB_OPTIONAL_INPUT},
    [WEIGHT_SCALE] = {"weightScaleOptional", ACLSTUB_OPTIONAL_INPUT},
    [GROUP_LIST] = {"groupListOptional", ACLSTUB_OPTIONAL_INPUT},
    [EXPAND_SCALES] = {"expandScalesOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT)},
    [SHARED_X] = {"sharedExpertXOptional", ACLSTUB_OPTIONAL_INPUT, DT_HALVES, "expandX", 0, 2, 2},
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
    [X_OUT] = {"xOut", ACLSTUB_OUTPUT, DT_HALVES, "expandX", 0, 2, 2},
};

#define MD_V1 0
#define MD_OP_NAME "aclnnMoeDistributeCombineV2"
#define MD_SHARED_X(call) aclStubOpTensor(call, SHARED_X)
#include "moe_distribute_combine_impl.h"

static const aclStubOpDef OP = {"aclnnMoeDistributeCombineV2", PARAMS, NPARAMS, NULL, check, kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeDistributeCombineV2, OP, (const aclTensor *, expandX), (const aclTensor *, expertIds),
                  (const aclTensor *, assistInfoForCombine), (const aclTensor *, epSendCounts),
                  (const aclTensor *, expertScales), (const aclTensor *, tpSendCountsOptional),
                  (const aclTensor *, xActiveMaskOptional), (const aclTensor *, activationScaleOptional),
                  (const aclTensor *, weightScaleOptional), (const aclTensor *, groupListOptional),
                  (const aclTensor *, expandScalesOptional), (const aclTensor *, sharedExpertXOptional),
                  (const char *, groupEp), (int64_t, epWorldSize), (int64_t, epRankId), (int64_t, moeExpertNum),
                  (const char *, groupTp), (int64_t, tpWorldSize), (int64_t, tpRankId), (int64_t, expertShardType),
                  (int64_t, sharedExpertNum), (int64_t, sharedExpertRankNum), (int64_t, globalBs),
                  (int64_t, outDtype), (int64_t, commQuantMode), (int64_t, groupListType), (const char *, commAlg),
                  (aclTensor *, xOut))
