/* aclnnStridedSlice (ops-math conversion/strided_slice). */
#ifndef ACLNNOP_ACLNN_STRIDED_SLICE_H_
#define ACLNNOP_ACLNN_STRIDED_SLICE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnStridedSliceGetWorkspaceSize(const aclTensor *self, const aclIntArray *begin,
                                                        const aclIntArray *end, const aclIntArray *strides,
                                                        int64_t beginMask, int64_t endMask, int64_t ellipsisMask,
                                                        int64_t newAxisMask, int64_t shrinkAxisMask, aclTensor *out,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnStridedSlice(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_STRIDED_SLICE_H_ */
