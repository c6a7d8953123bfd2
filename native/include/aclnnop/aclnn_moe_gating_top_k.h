/* aclnnMoeGatingTopK (ops-transformer moe/moe_gating_top_k). */
#ifndef ACLNNOP_ACLNN_MOE_GATING_TOP_K_H_
#define ACLNNOP_ACLNN_MOE_GATING_TOP_K_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeGatingTopKGetWorkspaceSize(const aclTensor *x, const aclTensor *biasOptional,
                                                         int64_t k, int64_t kGroup, int64_t groupCount,
                                                         int64_t groupSelectMode, int64_t renorm, int64_t normType,
                                                         bool outFlag, double routedScalingFactor, double eps,
                                                         const aclTensor *yOut, const aclTensor *expertIdxOut,
                                                         const aclTensor *outOut, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeGatingTopK(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_GATING_TOP_K_H_ */
