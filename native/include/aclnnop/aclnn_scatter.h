/* aclnnScatter, aclnnScatterValue, aclnnInplaceScatter, aclnnInplaceScatterValue (ops-nn index/scatter_elements_v2). */
#ifndef ACLNNOP_ACLNN_SCATTER_H_
#define ACLNNOP_ACLNN_SCATTER_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                   const aclTensor *src, int64_t reduce, aclTensor *out,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   const aclrtStream stream);

ACLNN_API aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                        const aclScalar *value, int64_t reduce, aclTensor *out,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnScatterValue(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        const aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                          const aclTensor *src, int64_t reduce,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceScatterValueGetWorkspaceSize(
    aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclScalar *value, int64_t reduce, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceScatterValue(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SCATTER_H_ */
