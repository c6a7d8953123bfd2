/* aclnnMoeDistributeDispatch: send each token to the ranks of its top-K experts (and of the shared experts) of the
 * expert-parallel group groupEp, optionally quantised, then all-gather across the tensor-parallel group groupTp;
 * expandIdx tells aclnnMoeDistributeCombine where each token's rows went. */
#ifndef ACLNNOP_ACLNN_MOE_DISTRIBUTE_DISPATCH_H_
#define ACLNNOP_ACLNN_MOE_DISTRIBUTE_DISPATCH_H_

#include "aclnn/acl_meta.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeDistributeDispatchGetWorkspaceSize(
    const aclTensor *x, const aclTensor *expertIds, const aclTensor *scales, const aclTensor *xActiveMask,
    const aclTensor *expertScales, const char *groupEp, int64_t epWorldSize, int64_t epRankId, int64_t moeExpertNum,
    const char *groupTp, int64_t tpWorldSize, int64_t tpRankId, int64_t expertShardType, int64_t sharedExpertNum,
    int64_t sharedExpertRankNum, int64_t quantMode, int64_t globalBs, int64_t expertTokenNumsType, aclTensor *expandX,
    aclTensor *dynamicScales, aclTensor *expandIdx, aclTensor *expertTokenNums, aclTensor *epRecvCounts,
    aclTensor *tpRecvCounts, aclTensor *expandScales, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeDistributeDispatch(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_DISTRIBUTE_DISPATCH_H_ */
