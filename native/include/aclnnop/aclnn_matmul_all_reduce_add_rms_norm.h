/* aclnnMatmulAllReduceAddRmsNorm (ops-transformer mc2/matmul_all_reduce_add_rms_norm). */
#ifndef ACLNNOP_ACLNN_MATMUL_ALL_REDUCE_ADD_RMS_NORM_H_
#define ACLNNOP_ACLNN_MATMUL_ALL_REDUCE_ADD_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMatmulAllReduceAddRmsNormGetWorkspaceSize(
    const aclTensor *x1, const aclTensor *x2, const aclTensor *bias, const aclTensor *residual, const aclTensor
    *gamma, double epsilon, const char *group, const char *reduceOp, int64_t commTurn, int64_t streamMode, const
    aclTensor *y, const aclTensor *normOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMatmulAllReduceAddRmsNorm(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MATMUL_ALL_REDUCE_ADD_RMS_NORM_H_ */
