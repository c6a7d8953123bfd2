/* aclnnForeachRoundOffNumber (ops-nn foreach/foreach_round_off_number). */
#ifndef ACLNNOP_ACLNN_FOREACH_ROUND_OFF_NUMBER_H_
#define ACLNNOP_ACLNN_FOREACH_ROUND_OFF_NUMBER_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachRoundOffNumberGetWorkspaceSize(
    const aclTensorList *x, const aclTensor *roundMode, const aclTensorList *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachRoundOffNumber(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_ROUND_OFF_NUMBER_H_ */
