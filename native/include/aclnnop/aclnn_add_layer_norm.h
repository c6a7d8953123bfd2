/* aclnnAddLayerNorm (ops-nn norm/add_layer_norm). */
#ifndef ACLNNOP_ACLNN_ADD_LAYER_NORM_H_
#define ACLNNOP_ACLNN_ADD_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddLayerNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                        const aclTensor *gamma, const aclTensor *beta,
                                                        const aclTensor *biasOptional, double epsilon,
                                                        bool additionalOutput, const aclTensor *yOut,
                                                        const aclTensor *meanOut, const aclTensor *rstdOut,
                                                        const aclTensor *xOut, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAddLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_LAYER_NORM_H_ */
