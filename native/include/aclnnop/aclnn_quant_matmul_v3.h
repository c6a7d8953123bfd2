/* aclnnQuantMatmulV3 (ops-nn matmul/quant_batch_matmul_v3). */
#ifndef ACLNNOP_ACLNN_QUANT_MATMUL_V3_H_
#define ACLNNOP_ACLNN_QUANT_MATMUL_V3_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnQuantMatmulV3GetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                         const aclTensor *scale, const aclTensor *offset,
                                                         const aclTensor *bias, bool transposeX1, bool transposeX2,
                                                         const aclTensor *out, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnQuantMatmulV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_QUANT_MATMUL_V3_H_ */
