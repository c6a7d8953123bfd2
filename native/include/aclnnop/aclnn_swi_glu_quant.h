/* aclnnSwiGluQuant (ops-nn quant/swi_glu_quant). */
#ifndef ACLNNOP_ACLNN_SWI_GLU_QUANT_H_
#define ACLNNOP_ACLNN_SWI_GLU_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSwiGluQuantGetWorkspaceSize(const aclTensor *x, const aclTensor *smoothScalesOptional,
                                                       const aclTensor *offsetsOptional,
                                                       const aclTensor *groupIndexOptional, bool activateLeft,
                                                       char *quantModeOptional, const aclTensor *yOut,
                                                       const aclTensor *scaleOut, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSwiGluQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SWI_GLU_QUANT_H_ */
