/* aclnnAddCustom: out = self + other with broadcasting (a user operator built on the stub's operator SDK). */
#ifndef ACLNNOP_ACLNN_ADD_CUSTOM_H_
#define ACLNNOP_ACLNN_ADD_CUSTOM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* self, other: FLOAT, FLOAT16, BF16, DOUBLE or INT32, ND, at most 8 dimensions, broadcastable to each other.
 * out: their broadcast shape, a dtype the promoted one casts to. */
ACLNN_API aclnnStatus aclnnAddCustomGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAddCustom(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_CUSTOM_H_ */
