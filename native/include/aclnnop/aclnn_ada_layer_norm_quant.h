/* aclnnAdaLayerNormQuant (ops-nn norm/ada_layer_norm_quant). */
#ifndef ACLNNOP_ACLNN_ADA_LAYER_NORM_QUANT_H_
#define ACLNNOP_ACLNN_ADA_LAYER_NORM_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAdaLayerNormQuantGetWorkspaceSize(
    const aclTensor *x, const aclTensor *scale, const aclTensor *shift, const aclTensor *weightOptional, const
    aclTensor *biasOptional, const aclTensor *smoothScalesOptional, double epsilon, const char *quantMode,
    aclTensor *out, aclTensor *quantScale, aclTensor *quantOffsetOptional, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnAdaLayerNormQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADA_LAYER_NORM_QUANT_H_ */
