/* aclnnScatterNd (ops-nn index/scatter_nd). */
#ifndef ACLNNOP_ACLNN_SCATTER_ND_H_
#define ACLNNOP_ACLNN_SCATTER_ND_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnScatterNdGetWorkspaceSize(const aclTensor *data, const aclTensor *indices,
                                                     const aclTensor *updates, aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnScatterNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SCATTER_ND_H_ */
