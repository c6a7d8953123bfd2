/* aclnnGroupedMatmulV5 (ops-transformer gmm/grouped_matmul). */
#ifndef ACLNNOP_ACLNN_GROUPED_MATMUL_V5_H_
#define ACLNNOP_ACLNN_GROUPED_MATMUL_V5_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedMatmulV5GetWorkspaceSize(const aclTensorList *x, const aclTensorList *weight,
                                                           const aclTensorList *biasOptional,
                                                           const aclTensorList *scaleOptional,
                                                           const aclTensorList *offsetOptional,
                                                           const aclTensorList *antiquantScaleOptional,
                                                           const aclTensorList *antiquantOffsetOptional,
                                                           const aclTensorList *perTokenScaleOptional,
                                                           const aclTensor *groupListOptional,
                                                           const aclTensorList *activationInputOptional,
                                                           const aclTensorList *activationQuantScaleOptional,
                                                           const aclTensorList *activationQuantOffsetOptional,
                                                           int64_t splitItem, int64_t groupType,
                                                           int64_t groupListType, int64_t actType,
                                                           aclIntArray *tuningConfigOptional, aclTensorList *out,
                                                           aclTensorList *activationFeatureOutOptional,
                                                           aclTensorList *dynQuantScaleOutOptional,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedMatmulV5(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MATMUL_V5_H_ */
