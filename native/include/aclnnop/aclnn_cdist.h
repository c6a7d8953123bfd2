/* aclnnCdist (ops-math math/cdist). */
#ifndef ACLNNOP_ACLNN_CDIST_H_
#define ACLNNOP_ACLNN_CDIST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCdistGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, float p,
                                                 int64_t compute_mode, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnCdist(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CDIST_H_ */
