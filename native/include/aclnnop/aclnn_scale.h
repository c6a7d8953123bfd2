/* aclnnScale (ops-math math/scale). */
#ifndef ACLNNOP_ACLNN_SCALE_H_
#define ACLNNOP_ACLNN_SCALE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnScaleGetWorkspaceSize(const aclTensor *x, const aclTensor *scale, const aclTensor *bias,
                                                 int64_t axis, int64_t numAxes, bool scaleFromBlob, aclTensor *y,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnScale(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SCALE_H_ */
