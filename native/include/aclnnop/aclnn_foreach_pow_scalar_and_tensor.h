/* aclnnForeachPowScalarAndTensor (ops-nn foreach/foreach_pow_scalar_and_tensor). */
#ifndef ACLNNOP_ACLNN_FOREACH_POW_SCALAR_AND_TENSOR_H_
#define ACLNNOP_ACLNN_FOREACH_POW_SCALAR_AND_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachPowScalarAndTensorGetWorkspaceSize(
    const aclScalar *scalar, const aclTensorList *x, const aclTensorList *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachPowScalarAndTensor(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_POW_SCALAR_AND_TENSOR_H_ */
