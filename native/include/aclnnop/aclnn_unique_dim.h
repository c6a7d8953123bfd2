/* aclnnUniqueDim (ops-nn index/unique_with_counts_ext2). */
#ifndef ACLNNOP_ACLNN_UNIQUE_DIM_H_
#define ACLNNOP_ACLNN_UNIQUE_DIM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUniqueDimGetWorkspaceSize(const aclTensor *self, bool sorted, bool returnInverse,
                                                     int64_t dim, aclTensor *valueOut, aclTensor *inverseOut,
                                                     aclTensor *countsOut, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUniqueDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UNIQUE_DIM_H_ */
