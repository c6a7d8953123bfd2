/* Test operator taking every parameter type of the aclnn operator API, written the way operator
 * repositories write their headers: C++ standard includes, an internal include that is not installed. */
#ifndef PYTEST_ACLNN_EVERY_TYPE_H_
#define PYTEST_ACLNN_EVERY_TYPE_H_

#include <string>
#include <array>
#include <vector>
#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"
#include "pytest_internal/op_def.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PYTEST_MODE_SUM = 0,
    PYTEST_MODE_MEAN = 7,
} PytestReduceMode;

ACLNN_API aclnnStatus aclnnPytestEveryTypeGetWorkspaceSize(
    const aclTensor *self, const aclTensorList *tensors, const aclScalar *alpha, const aclIntArray *dims,
    const aclBoolArray *mask, const aclFloatArray *weights, double eps, const char *reduction, int64_t groups,
    bool keepDim, aclDataType dtype, PytestReduceMode mode, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnPytestEveryType(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
