/* aclnnStdMeanCorrection (ops-math math/reduce_std_with_mean). */
#ifndef ACLNNOP_ACLNN_STD_MEAN_CORRECTION_H_
#define ACLNNOP_ACLNN_STD_MEAN_CORRECTION_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnStdMeanCorrectionGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *dim, int64_t correction, bool keepdim, aclTensor *stdOut, aclTensor
    *meanOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnStdMeanCorrection(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_STD_MEAN_CORRECTION_H_ */
