/* aclnnAdaLayerNorm (ops-nn norm/ada_layer_norm). */
#ifndef ACLNNOP_ACLNN_ADA_LAYER_NORM_H_
#define ACLNNOP_ACLNN_ADA_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAdaLayerNormGetWorkspaceSize(const aclTensor *x, const aclTensor *scale,
                                                        const aclTensor *shift, const aclTensor *weightOptional,
                                                        const aclTensor *biasOptional, double epsilon,
                                                        aclTensor *out, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAdaLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADA_LAYER_NORM_H_ */
