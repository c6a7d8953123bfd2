/* aclnnGroupedMatmulSwigluQuant (ops-transformer gmm/grouped_matmul_swiglu_quant). */
#ifndef ACLNNOP_ACLNN_GROUPED_MATMUL_SWIGLU_QUANT_H_
#define ACLNNOP_ACLNN_GROUPED_MATMUL_SWIGLU_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedMatmulSwigluQuantGetWorkspaceSize(
    const aclTensor *x, const aclTensor *weight, const aclTensor *bias, const aclTensor *offset, const aclTensor
    *weightScale, const aclTensor *xScale, const aclTensor *groupList, aclTensor *output, aclTensor *outputScale,
    aclTensor *outputOffset, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedMatmulSwigluQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MATMUL_SWIGLU_QUANT_H_ */
