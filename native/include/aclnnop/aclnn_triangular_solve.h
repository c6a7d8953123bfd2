/* aclnnTriangularSolve (ops-math math/triangular_solve). */
#ifndef ACLNNOP_ACLNN_TRIANGULAR_SOLVE_H_
#define ACLNNOP_ACLNN_TRIANGULAR_SOLVE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self, const aclTensor *A, bool upper,
                                                           bool transpose, bool unitriangular, aclTensor *xOut,
                                                           aclTensor *mOut, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnTriangularSolve(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TRIANGULAR_SOLVE_H_ */
