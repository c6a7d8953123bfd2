/* aclnnClippedSwiglu (ops-nn activation/clipped_swiglu). */
#ifndef ACLNNOP_ACLNN_CLIPPED_SWIGLU_H_
#define ACLNNOP_ACLNN_CLIPPED_SWIGLU_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnClippedSwigluGetWorkspaceSize(const aclTensor *x, const aclTensor *groupIndexOptional,
                                                         int64_t dim, double alpha, double limit, double bias,
                                                         bool interleaved, const aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnClippedSwiglu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CLIPPED_SWIGLU_H_ */
