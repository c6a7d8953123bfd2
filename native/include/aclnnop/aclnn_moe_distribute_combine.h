/* aclnnMoeDistributeCombine: the way back of aclnnMoeDistributeDispatch. The experts' output rows (expandX) return
 * to their tokens' ranks over groupEp (after a reduce across the tensor-parallel group groupTp), where each token's
 * rows are summed, weighted by expertScales, into x. */
#ifndef ACLNNOP_ACLNN_MOE_DISTRIBUTE_COMBINE_H_
#define ACLNNOP_ACLNN_MOE_DISTRIBUTE_COMBINE_H_

#include "aclnn/acl_meta.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeDistributeCombineGetWorkspaceSize(
    const aclTensor *expandX, const aclTensor *expertIds, const aclTensor *expandIdx, const aclTensor *epSendCounts,
    const aclTensor *expertScales, const aclTensor *tpSendCounts, const aclTensor *xActiveMask,
    const aclTensor *activationScale, const aclTensor *weightScale, const aclTensor *groupList,
    const aclTensor *expandScales, const char *groupEp, int64_t epWorldSize, int64_t epRankId, int64_t moeExpertNum,
    const char *groupTp, int64_t tpWorldSize, int64_t tpRankId, int64_t expertShardType, int64_t sharedExpertNum,
    int64_t sharedExpertRankNum, int64_t globalBs, int64_t outDtype, int64_t commQuantMode, int64_t groupListType,
    aclTensor *x, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeDistributeCombine(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_DISTRIBUTE_COMBINE_H_ */
