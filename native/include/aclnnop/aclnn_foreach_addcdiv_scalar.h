/* aclnnForeachAddcdivScalar (ops-nn foreach/foreach_addcdiv_scalar). */
#ifndef ACLNNOP_ACLNN_FOREACH_ADDCDIV_SCALAR_H_
#define ACLNNOP_ACLNN_FOREACH_ADDCDIV_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachAddcdivScalarGetWorkspaceSize(
    const aclTensorList *x1, const aclTensorList *x2, const aclTensorList *x3, const aclTensor *scalar,
    aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachAddcdivScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_ADDCDIV_SCALAR_H_ */
