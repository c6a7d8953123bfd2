/* aclnnLayerNormQuant (ops-nn norm/layer_norm_quant). */
#ifndef ACLNNOP_ACLNN_LAYER_NORM_QUANT_H_
#define ACLNNOP_ACLNN_LAYER_NORM_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLayerNormQuantGetWorkspaceSize(const aclTensor *x, const aclTensor *gammma,
                                                          const aclTensor *beta, const aclTensor *scale,
                                                          const aclTensor *zeroPointsOptional, int quantMode,
                                                          double epsilon, aclTensor *res, aclTensor *scaleOut,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLayerNormQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LAYER_NORM_QUANT_H_ */
