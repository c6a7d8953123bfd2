/* aclnnIndexPutImpl (ops-nn index/index_put_v2). */
#ifndef ACLNNOP_ACLNN_INDEX_PUT_IMPL_H_
#define ACLNNOP_ACLNN_INDEX_PUT_IMPL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexPutImplGetWorkspaceSize(aclTensor *selfRef, const aclTensorList *indices,
                                                        const aclTensor *values, const bool accumulate,
                                                        const bool unsafe, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnIndexPutImpl(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_PUT_IMPL_H_ */
