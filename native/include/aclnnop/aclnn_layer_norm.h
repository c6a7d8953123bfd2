/* aclnnLayerNorm, aclnnLayerNormWithImplMode, aclnnFastLayerNorm (ops-nn norm/layer_norm_v4). */
#ifndef ACLNNOP_ACLNN_LAYER_NORM_H_
#define ACLNNOP_ACLNN_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                     const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                     double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                     aclTensor *rstdOutOptional, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(
    const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional, const aclTensor
    *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional, int32_t
    implMode, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnFastLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                         const aclTensor *weightOptional,
                                                         const aclTensor *biasOptional, double eps, aclTensor *out,
                                                         aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

ACLNN_API aclnnStatus aclnnLayerNormWithImplMode(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

ACLNN_API aclnnStatus aclnnFastLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LAYER_NORM_H_ */
