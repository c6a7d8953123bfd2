/*
 * aclnnMoeDistributeDispatch: the tokens of each rank to the ranks of their experts (moe_distribute_dispatch_impl.h),
 * with expandIdx for aclnnMoeDistributeCombine.
 */
#include "aclnnop/aclnn_moe_distribute_dispatch.h"
#include "moe_distribute_common.h"

enum {
    X, EXPERT_IDS, SCALES, MASK, EXPERT_SCALES, GROUP_EP, EP_WORLD, EP_RANK, MOE_EXPERTS, GROUP_TP, TP_WORLD,
    TP_RANK, SHARD_TYPE, SHARED_NUM, SHARED_RANKS, QUANT_MODE, GLOBAL_BS, TOKEN_NUMS_TYPE, EXPAND_X, DYN_SCALES,
    ASSIST, TOKEN_NUMS, EP_RECV, TP_RECV, EXPAND_SCALES, NPARAMS
};

static const aclStubParam PARAMS[] = {
    [X] = {"x", ACLSTUB_INPUT, ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16), NULL, 0, 2, 2},
    [EXPERT_IDS] = {"expertIds", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 2, 2},
    [SCALES] = {"scales", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL, 0, 2, 2},
    [MASK] = {"xActiveMask", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_BOOL), NULL, 0, 1, 2},
    [EXPERT_SCALES] = {"expertScales", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL, 0, 2, 2},
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
    [QUANT_MODE] = {"quantMode", ACLSTUB_INT},
    [GLOBAL_BS] = {"globalBs", ACLSTUB_INT},
    [TOKEN_NUMS_TYPE] = {"expertTokenNumsType", ACLSTUB_INT},
    [EXPAND_X] = {"expandX", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16) | ACLSTUB_DT(ACL_INT8),
                  NULL, 0, 2, 2},
    [DYN_SCALES] = {"dynamicScales", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_FLOAT), NULL, 0, 1, 1},
    [ASSIST] = {"expandIdx", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [TOKEN_NUMS] = {"expertTokenNums", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT64), NULL, 0, 1, 1},
    [EP_RECV] = {"epRecvCounts", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [TP_RECV] = {"tpRecvCounts", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [EXPAND_SCALES] = {"expandScales", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_FLOAT), NULL, 0, 1, 1},
};

#define MD_V1 1
#define MD_OP_NAME "aclnnMoeDistributeDispatch"
#include "moe_distribute_dispatch_impl.h"

static const aclStubOpDef OP = {"aclnnMoeDistributeDispatch", PARAMS, NPARAMS, NULL, check, kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeDistributeDispatch, OP, (const aclTensor *, x), (const aclTensor *, expertIds),
                  (const aclTensor *, scales), (const aclTensor *, xActiveMask), (const aclTensor *, expertScales),
                  (const char *, groupEp), (int64_t, epWorldSize), (int64_t, epRankId), (int64_t, moeExpertNum),
                  (const char *, groupTp), (int64_t, tpWorldSize), (int64_t, tpRankId), (int64_t, expertShardType),
                  (int64_t, sharedExpertNum), (int64_t, sharedExpertRankNum), (int64_t, quantMode),
                  (int64_t, globalBs), (int64_t, expertTokenNumsType), (aclTensor *, expandX),
                  (aclTensor *, dynamicScales), (aclTensor *, expandIdx), (aclTensor *, expertTokenNums),
                  (aclTensor *, epRecvCounts), (aclTensor *, tpRecvCounts), (aclTensor *, expandScales))
