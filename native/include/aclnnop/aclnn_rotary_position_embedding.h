/* aclnnRotaryPositionEmbedding (ops-transformer posembedding/rotary_position_embedding). */
#ifndef ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H_
#define ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(
    const aclTensor *x, const aclTensor *cos, const aclTensor *sin, int64_t mode, aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H_ */
