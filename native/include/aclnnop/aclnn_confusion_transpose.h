/* aclnnConfusionTranspose (ops-math conversion/confusion_transpose_d). */
#ifndef ACLNNOP_ACLNN_CONFUSION_TRANSPOSE_H_
#define ACLNNOP_ACLNN_CONFUSION_TRANSPOSE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConfusionTransposeGetWorkspaceSize(
    const aclTensor *x, const aclIntArray *perm, const aclIntArray *shape, bool transposeFirst, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnConfusionTranspose(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CONFUSION_TRANSPOSE_H_ */
