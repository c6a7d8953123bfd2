/* aclnnAscendAntiQuant (ops-nn quant/ascend_anti_quant_v2). */
#ifndef ACLNNOP_ACLNN_ASCEND_ANTI_QUANT_H_
#define ACLNNOP_ACLNN_ASCEND_ANTI_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAscendAntiQuantGetWorkspaceSize(const aclTensor *x, const aclTensor *scale,
                                                           const aclTensor *offset, int64_t dstType, bool sqrtMode,
                                                           const aclTensor *y, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAscendAntiQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ASCEND_ANTI_QUANT_H_ */
