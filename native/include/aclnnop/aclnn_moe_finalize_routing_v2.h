/* aclnnMoeFinalizeRoutingV2: MoE combine, the weighted sum of each token's expert rows plus optional skip inputs. */
#ifndef ACLNNOP_ACLNN_MOE_FINALIZE_ROUTING_V2_H_
#define ACLNNOP_ACLNN_MOE_FINALIZE_ROUTING_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeFinalizeRoutingV2GetWorkspaceSize(const aclTensor *expandedX,
                                                                 const aclTensor *expandedRowIdx,
                                                                 const aclTensor *x1Optional,
                                                                 const aclTensor *x2Optional,
                                                                 const aclTensor *biasOptional,
                                                                 const aclTensor *scalesOptional,
                                                                 const aclTensor *expertIdxOptional,
                                                                 int64_t dropPadMode, const aclTensor *out,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeFinalizeRoutingV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_FINALIZE_ROUTING_V2_H_ */
