/* aclnnMatmulAllReduce (ops-transformer mc2/matmul_all_reduce). */
#ifndef ACLNNOP_ACLNN_MATMUL_ALL_REDUCE_H_
#define ACLNNOP_ACLNN_MATMUL_ALL_REDUCE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMatmulAllReduceGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                           const aclTensor *bias, const char *group,
                                                           const char *reduceOp, int64_t commTurn,
                                                           int64_t streamMode, const aclTensor *output,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMatmulAllReduce(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MATMUL_ALL_REDUCE_H_ */
