/* aclnnLinalgVectorNorm (ops-nn norm/lp_norm_v2). */
#ifndef ACLNNOP_ACLNN_LINALG_VECTOR_NORM_H_
#define ACLNNOP_ACLNN_LINALG_VECTOR_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLinalgVectorNormGetWorkspaceSize(const aclTensor *self, const aclScalar *ord,
                                                            const aclIntArray *dims, bool keepDims,
                                                            const aclDataType dtype, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLinalgVectorNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LINALG_VECTOR_NORM_H_ */
