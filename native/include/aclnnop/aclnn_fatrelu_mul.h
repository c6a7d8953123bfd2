/* aclnnFatreluMul (ops-nn activation/fatrelu_mul). */
#ifndef ACLNNOP_ACLNN_FATRELU_MUL_H_
#define ACLNNOP_ACLNN_FATRELU_MUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnFatreluMulGetWorkspaceSize(const aclTensor *input, const aclTensor *threshold,
                                                      const aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnFatreluMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FATRELU_MUL_H_ */
