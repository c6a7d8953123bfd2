/* aclnnIsInTensorScalar (ops-math math/equal). */
#ifndef ACLNNOP_ACLNN_ISIN_TENSOR_SCALAR_H_
#define ACLNNOP_ACLNN_ISIN_TENSOR_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIsInTensorScalarGetWorkspaceSize(const aclTensor *element, const aclScalar *testElement,
                                                            bool assumeUnique, bool invert, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnIsInTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ISIN_TENSOR_SCALAR_H_ */
