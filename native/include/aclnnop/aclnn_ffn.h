/* aclnnFFN (ops-transformer ffn/ffn). */
#ifndef ACLNNOP_ACLNN_FFN_H_
#define ACLNNOP_ACLNN_FFN_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnFFNGetWorkspaceSize(const aclTensor *x, const aclTensor *weight1,
                                               const aclTensor *weight2, const aclIntArray *expertTokens,
                                               const aclTensor *bias1, const aclTensor *bias2,
                                               const aclTensor *scale, const aclTensor *offset,
                                               const aclTensor *deqScale1, const aclTensor *deqScale2,
                                               const aclTensor *antiquantScale1, const aclTensor *antiquantScale2,
                                               const aclTensor *antiquantOffset1, const aclTensor *antiquantOffset2,
                                               const char *activation, int64_t innerPrecise, const aclTensor *y,
                                               uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnFFN(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FFN_H_ */
