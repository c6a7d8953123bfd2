/* aclnnWeightQuantBatchMatmulV3 (ops-nn matmul/weight_quant_batch_matmul_v2). */
#ifndef ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V3_H_
#define ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V3_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV3GetWorkspaceSize(
    const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale, const aclTensor
    *antiquantOffsetOptional, const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional, const
    aclTensor *biasOptional, int antiquantGroupSize, int innerPrecise, const aclTensor *y, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V3_H_ */
