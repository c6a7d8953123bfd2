/* aclnnMoeInitRoutingQuant (ops-transformer moe/moe_init_routing_quant). */
#ifndef ACLNNOP_ACLNN_MOE_INIT_ROUTING_QUANT_H_
#define ACLNNOP_ACLNN_MOE_INIT_ROUTING_QUANT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeInitRoutingQuantGetWorkspaceSize(
    const aclTensor *x, const aclTensor *rowIdx, const aclTensor *expertIdx, int64_t activeNum, double scale,
    double offset, const aclTensor *expandedXOut, const aclTensor *expandedRowIdxOut, const aclTensor
    *expandedExpertIdxOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeInitRoutingQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_INIT_ROUTING_QUANT_H_ */
