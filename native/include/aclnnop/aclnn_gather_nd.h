/* aclnnGatherNd (ops-nn index/gather_nd). */
#ifndef ACLNNOP_ACLNN_GATHER_ND_H_
#define ACLNNOP_ACLNN_GATHER_ND_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGatherNdGetWorkspaceSize(const aclTensor *self, const aclTensor *indices,
                                                    bool negativeIndexSupport, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGatherNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GATHER_ND_H_ */
