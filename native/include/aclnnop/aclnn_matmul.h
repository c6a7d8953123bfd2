/* aclnnMatmul, aclnnMatmulWeightNz (ops-nn matmul/mat_mul_v3). */
#ifndef ACLNNOP_ACLNN_MATMUL_H_
#define ACLNNOP_ACLNN_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                  int8_t cubeMathType, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

ACLNN_API aclnnStatus aclnnMatmulWeightNzGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                          aclTensor *out, int8_t cubeMathType,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMatmulWeightNz(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MATMUL_H_ */
