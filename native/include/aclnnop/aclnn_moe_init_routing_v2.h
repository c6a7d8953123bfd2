/* aclnnMoeInitRoutingV2: sort token-expert assignments and build the expanded token matrix. */
#ifndef ACLNNOP_ACLNN_MOE_INIT_ROUTING_V2_H_
#define ACLNNOP_ACLNN_MOE_INIT_ROUTING_V2_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((visibility("default"))) aclnnStatus aclnnMoeInitRoutingV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *expertIdx, int64_t activeNumOptional, int64_t expertCapacityOptional,
    int64_t expertNumOptional, int64_t dropPadModeOptional, int64_t expertTokensCountOrCumsumFlagOptional,
    bool expertTokensBeforeCapacityFlagOptional, const aclTensor *expandedXOut, const aclTensor *expandedRowIdxOut,
    const aclTensor *expertTokensCountOrCumsumOutOptional, const aclTensor *expertTokensBeforeCapacityOutOptional,
    uint64_t *workspaceSize, aclOpExecutor **executor);

__attribute__((visibility("default"))) aclnnStatus aclnnMoeInitRoutingV2(void *workspace, uint64_t workspaceSize,
                                                                         aclOpExecutor *executor,
                                                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_INIT_ROUTING_V2_H_ */
