/* aclnnReflectionPad3d (ops-math conversion/mirror_pad). */
#ifndef ACLNNOP_ACLNN_REFLECTION_PAD3D_H_
#define ACLNNOP_ACLNN_REFLECTION_PAD3D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReflectionPad3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                                           aclTensor *out, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnReflectionPad3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REFLECTION_PAD3D_H_ */
