/* aclnnDiagFlat (ops-math conversion/diag_flat). */
#ifndef ACLNNOP_ACLNN_DIAG_FLAT_H_
#define ACLNNOP_ACLNN_DIAG_FLAT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDiagFlatGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDiagFlat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DIAG_FLAT_H_ */
