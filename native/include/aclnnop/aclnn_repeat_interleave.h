/* aclnnRepeatInterleave, aclnnRepeatInterleaveWithDim, aclnnRepeatInterleaveInt, aclnnRepeatInterleaveIntWithDim, aclnnRepeatInterleaveTensor (ops-nn index/repeat_interleave). */
#ifndef ACLNNOP_ACLNN_REPEAT_INTERLEAVE_H_
#define ACLNNOP_ACLNN_REPEAT_INTERLEAVE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRepeatInterleaveGetWorkspaceSize(const aclTensor *self, const aclTensor *repeats,
                                                            int64_t outputSize, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRepeatInterleave(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

ACLNN_API aclnnStatus aclnnRepeatInterleaveWithDimGetWorkspaceSize(
    const aclTensor *self, const aclTensor *repeats, int64_t dim, int64_t outputSize, aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRepeatInterleaveWithDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

ACLNN_API aclnnStatus aclnnRepeatInterleaveIntGetWorkspaceSize(
    const aclTensor *self, int64_t repeats, int64_t outputSize, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRepeatInterleaveInt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

ACLNN_API aclnnStatus aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(
    const aclTensor *self, int64_t repeats, int64_t dim, int64_t outputSize, aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRepeatInterleaveIntWithDim(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnRepeatInterleaveTensorGetWorkspaceSize(
    const aclTensor *repeats, int64_t outputSize, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnRepeatInterleaveTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REPEAT_INTERLEAVE_H_ */
