/* aclnnSliceV2 (ops-math conversion/strided_slice_v3). */
#ifndef ACLNNOP_ACLNN_SLICE_V2_H_
#define ACLNNOP_ACLNN_SLICE_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSliceV2GetWorkspaceSize(const aclTensor *self, const aclIntArray *starts,
                                                   const aclIntArray *ends, const aclIntArray *axes,
                                                   const aclIntArray *steps, aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSliceV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SLICE_V2_H_ */
