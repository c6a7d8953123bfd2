/* aclnnAlltoAllvGroupedMatMul (ops-transformer mc2/allto_allv_grouped_mat_mul). */
#ifndef ACLNNOP_ACLNN_ALLTO_ALLV_GROUPED_MAT_MUL_H_
#define ACLNNOP_ACLNN_ALLTO_ALLV_GROUPED_MAT_MUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAlltoAllvGroupedMatMulGetWorkspaceSize(
    const aclTensor *gmmX, const aclTensor *gmmWeight, const aclTensor *sendCountsTensorOptional, const aclTensor
    *recvCountsTensorOptional, const aclTensor *mmXOptional, const aclTensor *mmWeightOptional, const char *group,
    int64_t epWorldSize, const aclIntArray *sendCounts, const aclIntArray *recvCounts, bool transGmmWeight, bool
    transMmWeight, bool permuteOutFlag, aclTensor *gmmY, aclTensor *mmYOptional, aclTensor *permuteOutOptional,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAlltoAllvGroupedMatMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ALLTO_ALLV_GROUPED_MAT_MUL_H_ */
