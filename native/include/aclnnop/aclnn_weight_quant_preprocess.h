/* aclnnWeightQuantPreprocess (ops-math conversion/weight_quant_preprocess). */
#ifndef ACLNNOP_ACLNN_WEIGHT_QUANT_PREPROCESS_H_
#define ACLNNOP_ACLNN_WEIGHT_QUANT_PREPROCESS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnWeightQuantPreprocessGetWorkspaceSize(
    const aclTensor *weight, const aclTensor *weightScale, const aclTensor *weightOffsetOptional, const aclTensor
    *biasOptional, const aclDataType xDtype, const aclDataType xScaleDtype, const int64_t kGroupSize, aclTensor
    *outWeight, aclTensor *outWeightScale, aclTensor *outWeightOffsetOptional, aclTensor *outBiasOptional,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnWeightQuantPreprocess(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_WEIGHT_QUANT_PREPROCESS_H_ */
