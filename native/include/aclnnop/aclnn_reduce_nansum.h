/* aclnnReduceNansum (ops-math math/reduce_nansum). */
#ifndef ACLNNOP_ACLNN_REDUCE_NANSUM_H_
#define ACLNNOP_ACLNN_REDUCE_NANSUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReduceNansumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                        aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnReduceNansum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REDUCE_NANSUM_H_ */
