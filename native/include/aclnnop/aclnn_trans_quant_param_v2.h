/* aclnnTransQuantParamV2 (ops-nn quant/trans_quant_param_v2). */
#ifndef ACLNNOP_ACLNN_TRANS_QUANT_PARAM_V2_H_
#define ACLNNOP_ACLNN_TRANS_QUANT_PARAM_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTransQuantParamV2GetWorkspaceSize(
    const aclTensor *scale, const aclTensor *offset, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnTransQuantParamV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TRANS_QUANT_PARAM_V2_H_ */
