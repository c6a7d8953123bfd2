/* aclnnInplaceQuantScatter (ops-nn index/quant_update_scatter). */
#ifndef ACLNNOP_ACLNN_QUANT_SCATTER_H_
#define ACLNNOP_ACLNN_QUANT_SCATTER_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceQuantScatterGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *indices, const aclTensor *updates, const aclTensor *quantScales, const
    aclTensor *quantZeroPoints, int64_t axis, int64_t quantAxis, int64_t reduction, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceQuantScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_QUANT_SCATTER_H_ */
