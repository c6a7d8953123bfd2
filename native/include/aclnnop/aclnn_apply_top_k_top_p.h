/* aclnnApplyTopKTopP (ops-nn index/apply_top_k_top_p_with_sorted). */
#ifndef ACLNNOP_ACLNN_APPLY_TOP_K_TOP_P_H_
#define ACLNNOP_ACLNN_APPLY_TOP_K_TOP_P_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnApplyTopKTopPGetWorkspaceSize(const aclTensor *logits, const aclTensor *p,
                                                         const aclTensor *k, aclTensor *out, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnApplyTopKTopP(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_APPLY_TOP_K_TOP_P_H_ */
