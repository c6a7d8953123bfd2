/* aclnnInplaceMaskedScatter (ops-nn index/masked_scatter). */
#ifndef ACLNNOP_ACLNN_MASKED_SCATTER_H_
#define ACLNNOP_ACLNN_MASKED_SCATTER_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceMaskedScatterGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *mask, const aclTensor *source, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnInplaceMaskedScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MASKED_SCATTER_H_ */
