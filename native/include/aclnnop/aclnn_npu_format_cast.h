/* aclnnNpuFormatCast, aclnnNpuFormatCastCalculateSizeAndFormat (ops-math conversion/npu_format_cast). */
#ifndef ACLNNOP_ACLNN_NPU_FORMAT_CAST_H_
#define ACLNNOP_ACLNN_NPU_FORMAT_CAST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNpuFormatCastGetWorkspaceSize(const aclTensor *srcTensor, aclTensor *dstTensor,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNpuFormatCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

ACLNN_API aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(
    const aclTensor *srcTensor, const int dstFormat, int additionalDtype, int64_t **dstShape, uint64_t
    *dstShapeSize, int *actualFormat);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NPU_FORMAT_CAST_H_ */
