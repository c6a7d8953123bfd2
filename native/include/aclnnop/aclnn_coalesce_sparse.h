/* aclnnCoalesceSparse (ops-math conversion/coalesce_sparse). The vendor repository has no document or op_api
 * header for it: the prototype is the toolkit's generated form for the operator's definition (inputs unique_len,
 * unique_indices, indices, values; outputs new_indices, new_values), as the official sample calls it. */
#ifndef ACLNNOP_ACLNN_COALESCE_SPARSE_H_
#define ACLNNOP_ACLNN_COALESCE_SPARSE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCoalesceSparseGetWorkspaceSize(const aclTensor *uniqueLen, const aclTensor *uniqueIndices,
                                                          const aclTensor *indices, const aclTensor *values,
                                                          const aclTensor *newIndices, const aclTensor *newValues,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnCoalesceSparse(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_COALESCE_SPARSE_H_ */
