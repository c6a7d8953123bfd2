/* aclnnQuantMatmul, aclnnQuantMatmulV2 (ops-nn matmul/quant_matmul). */
#ifndef ACLNNOP_ACLNN_QUANT_MATMUL_H_
#define ACLNNOP_ACLNN_QUANT_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnQuantMatmulGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                       const aclTensor *bias, float deqScale, aclTensor *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnQuantMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

ACLNN_API aclnnStatus aclnnQuantMatmulV2GetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                         const aclTensor *bias, const aclTensor *deqScale,
                                                         bool adjX1, bool adjX2, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnQuantMatmulV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_QUANT_MATMUL_H_ */
