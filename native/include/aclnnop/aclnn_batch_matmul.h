/* aclnnBatchMatMul, aclnnBatchMatMulWeightNz (ops-nn matmul/batch_mat_mul_v3). */
#ifndef ACLNNOP_ACLNN_BATCH_MATMUL_H_
#define ACLNNOP_ACLNN_BATCH_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                       int8_t cubeMathType, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBatchMatMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

ACLNN_API aclnnStatus aclnnBatchMatMulWeightNzGetWorkspaceSize(
    const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBatchMatMulWeightNz(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_MATMUL_H_ */
