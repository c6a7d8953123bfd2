/* aclnnGemm (ops-nn matmul/gemm). */
#ifndef ACLNNOP_ACLNN_GEMM_H_
#define ACLNNOP_ACLNN_GEMM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGemmGetWorkspaceSize(const aclTensor *A, const aclTensor *B, const aclTensor *C,
                                                float alpha, float beta, int64_t transA, int64_t transB,
                                                aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGemm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GEMM_H_ */
