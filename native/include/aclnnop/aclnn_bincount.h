/* aclnnBincount (ops-math math/bincount). */
#ifndef ACLNNOP_ACLNN_BINCOUNT_H_
#define ACLNNOP_ACLNN_BINCOUNT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBincountGetWorkspaceSize(const aclTensor *self, const aclTensor *weights,
                                                    int64_t minlength, aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBincount(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BINCOUNT_H_ */
