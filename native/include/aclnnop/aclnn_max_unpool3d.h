/* aclnnMaxUnpool3d (ops-nn index/scatter_elements). */
#ifndef ACLNNOP_ACLNN_MAX_UNPOOL3D_H_
#define ACLNNOP_ACLNN_MAX_UNPOOL3D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMaxUnpool3dGetWorkspaceSize(const aclTensor *self, const aclTensor *indices,
                                                       const aclIntArray *outputSize, const aclIntArray *stride,
                                                       const aclIntArray *padding, aclTensor *outRef,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMaxUnpool3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MAX_UNPOOL3D_H_ */
