/* aclnnAddRmsNormCast (ops-nn norm/add_rms_norm_cast). */
#ifndef ACLNNOP_ACLNN_ADD_RMS_NORM_CAST_H_
#define ACLNNOP_ACLNN_ADD_RMS_NORM_CAST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddRmsNormCastGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                          const aclTensor *gamma, double epsilon,
                                                          const aclTensor *y1Out, const aclTensor *y2Out,
                                                          const aclTensor *rstdOut, const aclTensor *xOut,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAddRmsNormCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_RMS_NORM_CAST_H_ */
