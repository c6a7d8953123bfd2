/* aclnnApplyRotaryPosEmb (ops-transformer posembedding/apply_rotary_pos_emb). */
#ifndef ACLNNOP_ACLNN_APPLY_ROTARY_POS_EMB_H_
#define ACLNNOP_ACLNN_APPLY_ROTARY_POS_EMB_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnApplyRotaryPosEmbGetWorkspaceSize(
    aclTensor *queryRef, aclTensor *keyRef, const aclTensor *cos, const aclTensor *sin, int64_t layout, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnApplyRotaryPosEmb(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_APPLY_ROTARY_POS_EMB_H_ */
