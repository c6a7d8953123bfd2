/* aclnnAddRmsNormDynamicQuant (ops-nn norm/add_rms_norm_dynamic_quant). */
#ifndef ACLNNOP_ACLNN_ADD_RMS_NORM_DYNAMIC_QUANT_H_
#define ACLNNOP_ACLNN_ADD_RMS_NORM_DYNAMIC_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddRmsNormDynamicQuantGetWorkspaceSize(
    const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, const aclTensor *smoothScale1Optional, const
    aclTensor *smoothScale2Optional, double epsilon, aclTensor *y1Out, aclTensor *y2Out, aclTensor *xOut,
    aclTensor *scale1Out, aclTensor *scale2Out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAddRmsNormDynamicQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_RMS_NORM_DYNAMIC_QUANT_H_ */
