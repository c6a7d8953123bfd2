/* aclnnPrecisionCompare (ops-math math/precision_compare). */
#ifndef ACLNNOP_ACLNN_PRECISION_COMPARE_H_
#define ACLNNOP_ACLNN_PRECISION_COMPARE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPrecisionCompareGetWorkspaceSize(const aclTensor *golden, const aclTensor *realdata,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnPrecisionCompare(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_PRECISION_COMPARE_H_ */
