/* aclnnGroupedMatmulV4 and the activation types of the grouped matmuls (ops-transformer gmm/grouped_matmul). */
#ifndef ACLNNOP_ACLNN_GROUPED_MATMUL_V4_H_
#define ACLNNOP_ACLNN_GROUPED_MATMUL_V4_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GMM_ACT_TYPE_NONE = 0,
    GMM_ACT_TYPE_RELU = 1,
    GMM_ACT_TYPE_GELU_TANH = 2,
    GMM_ACT_TYPE_GELU_ERR_FUNC = 3,
    GMM_ACT_TYPE_FAST_GELU = 4,
    GMM_ACT_TYPE_SILU = 5,
} GMMActType;

ACLNN_API aclnnStatus aclnnGroupedMatmulV4GetWorkspaceSize(
    const aclTensorList *x, const aclTensorList *weight, const aclTensorList *biasOptional,
    const aclTensorList *scaleOptional, const aclTensorList *offsetOptional, const aclTensorList *antiquantScaleOptional,
    const aclTensorList *antiquantOffsetOptional, const aclTensorList *perTokenScaleOptional,
    const aclTensor *groupListOptional, const aclTensorList *activationInputOptional,
    const aclTensorList *activationQuantScaleOptional, const aclTensorList *activationQuantOffsetOptional,
    int64_t splitItem, int64_t groupType, int64_t groupListType, int64_t actType, aclTensorList *out,
    aclTensorList *activationFeatureOutOptional, aclTensorList *dynQuantScaleOutOptional, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedMatmulV4(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MATMUL_V4_H_ */
