/* aclnnSlice (ops-math conversion/slice). */
#ifndef ACLNNOP_ACLNN_SLICE_H_
#define ACLNNOP_ACLNN_SLICE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start, int64_t end,
                                                 int64_t step, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSlice(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SLICE_H_ */
