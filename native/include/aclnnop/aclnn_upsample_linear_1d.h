/* aclnnUpsampleLinear1d (ops-cv image/upsample_linear1d). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleLinear1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

ACLNN_API aclnnStatus aclnnUpsampleLinear1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                            const bool alignCorners, const double scale,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_ */
