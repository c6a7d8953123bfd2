/* aclnnInplaceFillDiagonal (ops-math conversion/fill_diagonal_v2). */
#ifndef ACLNNOP_ACLNN_FILL_DIAGONAL_H_
#define ACLNNOP_ACLNN_FILL_DIAGONAL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceFillDiagonalGetWorkspaceSize(
    aclTensor *selfRef, const aclScalar *fillValue, bool wrap, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceFillDiagonal(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FILL_DIAGONAL_H_ */
