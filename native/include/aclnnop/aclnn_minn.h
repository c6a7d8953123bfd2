/* aclnnMinN (ops-math math/minimum). */
#ifndef ACLNNOP_ACLNN_MINN_H_
#define ACLNNOP_ACLNN_MINN_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMinNGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMinN(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MINN_H_ */
