/* aclnnGroupedMatMulAlltoAllv (ops-transformer mc2/grouped_mat_mul_allto_allv). */
#ifndef ACLNNOP_ACLNN_GROUPED_MAT_MUL_ALLTO_ALLV_H_
#define ACLNNOP_ACLNN_GROUPED_MAT_MUL_ALLTO_ALLV_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedMatMulAlltoAllvGetWorkspaceSize(
    const aclTensor *gmmX, const aclTensor *gmmWeight, const aclTensor *sendCountsTensorOptional, const aclTensor
    *recvCountsTensorOptional, const aclTensor *mmXOptional, const aclTensor *mmWeightOptional, const char *group,
    int64_t epWorldSize, const aclIntArray *sendCounts, const aclIntArray *recvCounts, bool transGmmWeight, bool
    transMmWeight, aclTensor *y, aclTensor *mmYOptional, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedMatMulAlltoAllv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MAT_MUL_ALLTO_ALLV_H_ */
