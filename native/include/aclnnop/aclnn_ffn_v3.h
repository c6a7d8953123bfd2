/* aclnnFFNV3 (ops-transformer ffn/ffn). */
#ifndef ACLNNOP_ACLNN_FFN_V3_H_
#define ACLNNOP_ACLNN_FFN_V3_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnFFNV3GetWorkspaceSize(const aclTensor *x, const aclTensor *weight1,
                                                 const aclTensor *weight2, const aclTensor *expertTokensOptional,
                                                 const aclTensor *bias1Optional, const aclTensor *bias2Optional,
                                                 const aclTensor *scaleOptional, const aclTensor *offsetOptional,
                                                 const aclTensor *deqScale1Optional,
                                                 const aclTensor *deqScale2Optional,
                                                 const aclTensor *antiquantScale1Optional,
                                                 const aclTensor *antiquantScale2Optional,
                                                 const aclTensor *antiquantOffset1Optional,
                                                 const aclTensor *antiquantOffset2Optional, const char *activation,
                                                 int64_t innerPrecise, bool tokensIndexFlag, const aclTensor *y,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnFFNV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FFN_V3_H_ */
