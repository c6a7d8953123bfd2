/* aclnnConstantPadNd (ops-math conversion/pad_v3). */
#ifndef ACLNNOP_ACLNN_CONSTANT_PAD_ND_H_
#define ACLNNOP_ACLNN_CONSTANT_PAD_ND_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad,
                                                         const aclScalar *value, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnConstantPadNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CONSTANT_PAD_ND_H_ */
