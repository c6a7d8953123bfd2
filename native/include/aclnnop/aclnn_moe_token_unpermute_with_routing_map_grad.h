/* aclnnMoeTokenUnpermuteWithRoutingMapGrad: backward of aclnnMoeTokenUnpermuteWithRoutingMap (a generated aclnn
 * API: const outputs, default visibility). */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_ROUTING_MAP_GRAD_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_ROUTING_MAP_GRAD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((visibility("default"))) aclnnStatus aclnnMoeTokenUnpermuteWithRoutingMapGradGetWorkspaceSize(
    const aclTensor *unpermutedTokensGrad, const aclTensor *outIndex, const aclTensor *permuteTokenId,
    const aclTensor *routingMapOptional, const aclTensor *permutedTokensOptional, const aclTensor *probsOptional,
    bool dropAndPad, const aclIntArray *restoreShapeOptional, const aclTensor *permutedTokensGradOut,
    const aclTensor *probsGradOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor);

__attribute__((visibility("default"))) aclnnStatus aclnnMoeTokenUnpermuteWithRoutingMapGrad(
    void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_ROUTING_MAP_GRAD_H_ */
