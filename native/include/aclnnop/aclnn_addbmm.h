/* aclnnAddbmm, aclnnInplaceAddbmm (ops-nn matmul/batch_mat_mul_v3). */
#ifndef ACLNNOP_ACLNN_ADDBMM_H_
#define ACLNNOP_ACLNN_ADDBMM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddbmmGetWorkspaceSize(const aclTensor *self, const aclTensor *batch1,
                                                  const aclTensor *batch2, const aclScalar *beta,
                                                  const aclScalar *alpha, aclTensor *out, int8_t cubeMathType,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAddbmm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceAddbmmGetWorkspaceSize(aclTensor *selfRef, const aclTensor *batch1,
                                                         const aclTensor *batch2, const aclScalar *beta,
                                                         const aclScalar *alpha, int8_t cubeMathType,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceAddbmm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADDBMM_H_ */
