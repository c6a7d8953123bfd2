/* aclnnAddN (ops-math math/add_n). */
#ifndef ACLNNOP_ACLNN_ADD_N_H_
#define ACLNNOP_ACLNN_ADD_N_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddNGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAddN(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_N_H_ */
