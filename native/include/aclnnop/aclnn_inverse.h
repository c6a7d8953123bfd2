/* aclnnInverse (ops-nn index/matrix_inverse). */
#ifndef ACLNNOP_ACLNN_INVERSE_H_
#define ACLNNOP_ACLNN_INVERSE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInverseGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInverse(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INVERSE_H_ */
