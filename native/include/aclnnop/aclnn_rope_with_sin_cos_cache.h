/* aclnnRopeWithSinCosCache (ops-transformer posembedding/rope_with_sin_cos_cache). */
#ifndef ACLNNOP_ACLNN_ROPE_WITH_SIN_COS_CACHE_H_
#define ACLNNOP_ACLNN_ROPE_WITH_SIN_COS_CACHE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRopeWithSinCosCacheGetWorkspaceSize(
    const aclTensor *positions, const aclTensor *queryIn, const aclTensor *keyIn, const aclTensor *cosSinCache,
    const aclIntArray *mropeSection, int64_t headSize, bool isNeoxStyle, aclTensor *queryOut, aclTensor *keyOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRopeWithSinCosCache(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ROPE_WITH_SIN_COS_CACHE_H_ */
