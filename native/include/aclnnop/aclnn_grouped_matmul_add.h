/* aclnnGroupedMatmulAdd (ops-transformer gmm/grouped_matmul_add; the toolkit generates this header from the
   operator's definition: inputs x, weight, groupList, the in-place y, attributes transposeX, transposeWeight,
   groupType). */
#ifndef ACLNNOP_ACLNN_GROUPED_MATMUL_ADD_H_
#define ACLNNOP_ACLNN_GROUPED_MATMUL_ADD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedMatmulAddGetWorkspaceSize(const aclTensor *x, const aclTensor *weight,
                                                            const aclTensor *groupList, aclTensor *yRef,
                                                            bool transposeX, bool transposeWeight, int64_t groupType,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedMatmulAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MATMUL_ADD_H_ */
