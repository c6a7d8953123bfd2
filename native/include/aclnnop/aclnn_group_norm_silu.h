/* aclnnGroupNormSilu, aclnnGroupNormSiluV2 (ops-nn norm/group_norm_silu). */
#ifndef ACLNNOP_ACLNN_GROUP_NORM_SILU_H_
#define ACLNNOP_ACLNN_GROUP_NORM_SILU_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupNormSiluGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
                                                         const aclTensor *beta, int64_t group, double eps,
                                                         aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupNormSilu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

ACLNN_API aclnnStatus aclnnGroupNormSiluV2GetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
                                                           const aclTensor *beta, int64_t group, double eps,
                                                           bool activateSilu, aclTensor *out, aclTensor *meanOut,
                                                           aclTensor *rstdOut, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupNormSiluV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUP_NORM_SILU_H_ */
