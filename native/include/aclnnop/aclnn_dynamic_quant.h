/* aclnnDynamicQuant (ops-nn quant/dynamic_quant). */
#ifndef ACLNNOP_ACLNN_DYNAMIC_QUANT_H_
#define ACLNNOP_ACLNN_DYNAMIC_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDynamicQuantGetWorkspaceSize(const aclTensor *x, const aclTensor *smoothScalesOptional,
                                                        const aclTensor *yOut, const aclTensor *scaleOut,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDynamicQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DYNAMIC_QUANT_H_ */
