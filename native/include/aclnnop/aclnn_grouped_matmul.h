/* aclnnGroupedMatmul (ops-transformer gmm/grouped_matmul). */
#ifndef ACLNNOP_ACLNN_GROUPED_MATMUL_H_
#define ACLNNOP_ACLNN_GROUPED_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedMatmulGetWorkspaceSize(const aclTensorList *x, const aclTensorList *weight,
                                                         const aclTensorList *biasOptional,
                                                         const aclTensorList *scaleOptional,
                                                         const aclTensorList *offsetOptional,
                                                         const aclTensorList *antiquantScaleOptional,
                                                         const aclTensorList *antiquantOffsetOptional,
                                                         const aclIntArray *groupListOptional, int64_t splitItem,
                                                         const aclTensorList *y, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MATMUL_H_ */
