/* aclnnForeachNonFiniteCheckAndUnscale (ops-nn foreach/foreach_non_finite_check_and_unscale). */
#ifndef ACLNNOP_ACLNN_FOREACH_NON_FINITE_CHECK_AND_UNSCALE_H_
#define ACLNNOP_ACLNN_FOREACH_NON_FINITE_CHECK_AND_UNSCALE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachNonFiniteCheckAndUnscaleGetWorkspaceSize(
    const aclTensorList *scaledGrads, const aclTensor *foundInf, const aclTensor *invScale, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachNonFiniteCheckAndUnscale(void *workspace, uint64_t workspaceSize,
                                                           aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_NON_FINITE_CHECK_AND_UNSCALE_H_ */
