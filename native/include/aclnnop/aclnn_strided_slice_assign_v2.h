/* aclnnStridedSliceAssignV2 (ops-math conversion/strided_slice_assign_v2). */
#ifndef ACLNNOP_ACLNN_STRIDED_SLICE_ASSIGN_V2_H_
#define ACLNNOP_ACLNN_STRIDED_SLICE_ASSIGN_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnStridedSliceAssignV2GetWorkspaceSize(
    aclTensor *varRef, const aclTensor *inputValue, const aclIntArray *begin, const aclIntArray *end, const
    aclIntArray *strides, const aclIntArray *axesOptional, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnStridedSliceAssignV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_STRIDED_SLICE_ASSIGN_V2_H_ */
