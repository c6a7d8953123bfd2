/* aclnnGroupQuant (ops-nn quant/group_quant). */
#ifndef ACLNNOP_ACLNN_GROUP_QUANT_H_
#define ACLNNOP_ACLNN_GROUP_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupQuantGetWorkspaceSize(const aclTensor *x, const aclTensor *scale,
                                                      const aclTensor *groupIndex, const aclTensor *offsetOptional,
                                                      int32_t dstType, aclTensor *y, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUP_QUANT_H_ */
