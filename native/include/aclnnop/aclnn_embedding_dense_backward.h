/* aclnnEmbeddingDenseBackward (ops-nn index/embedding_dense_grad_v2). */
#ifndef ACLNNOP_ACLNN_EMBEDDING_DENSE_BACKWARD_H_
#define ACLNNOP_ACLNN_EMBEDDING_DENSE_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(
    const aclTensor *grad, const aclTensor *indices, uint64_t numWeights, uint64_t paddingIdx, bool
    scaleGradByFreq, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnEmbeddingDenseBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EMBEDDING_DENSE_BACKWARD_H_ */
