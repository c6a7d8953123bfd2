/* aclnnAbs: element-wise absolute value, out = |self| (a user operator built on the stub's operator SDK). */
#ifndef ACLNNOP_ACLNN_ABS_H_
#define ACLNNOP_ACLNN_ABS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* self: FLOAT, FLOAT16, DOUBLE, BF16, INT8, INT16, INT32, INT64, UINT8 or BOOL, ND, at most 8 dimensions.
 * out: the shape and data type of self. */
ACLNN_API aclnnStatus aclnnAbsGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAbs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ABS_H_ */
