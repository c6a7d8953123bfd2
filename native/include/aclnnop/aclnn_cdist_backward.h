/* aclnnCdistBackward (ops-math math/cdist_grad). */
#ifndef ACLNNOP_ACLNN_CDIST_BACKWARD_H_
#define ACLNNOP_ACLNN_CDIST_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCdistBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *x1,
                                                         const aclTensor *x2, const aclTensor *cdist, float p,
                                                         aclTensor *out, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnCdistBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CDIST_BACKWARD_H_ */
