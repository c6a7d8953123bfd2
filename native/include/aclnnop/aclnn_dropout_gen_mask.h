/* aclnnDropoutGenMask, aclnnDropoutGenMaskV2, aclnnDropoutGenMaskV2Tensor (ops-math random/dsa_gen_bit_mask). */
#ifndef ACLNNOP_ACLNN_DROPOUT_GEN_MASK_H_
#define ACLNNOP_ACLNN_DROPOUT_GEN_MASK_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDropoutGenMaskGetWorkspaceSize(const aclIntArray *shape, double prob, int64_t seed,
                                                          int64_t offset, aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDropoutGenMask(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

ACLNN_API aclnnStatus aclnnDropoutGenMaskV2GetWorkspaceSize(const aclIntArray *shape, double prob, int64_t seed,
                                                            int64_t offset, aclDataType probDataType, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDropoutGenMaskV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

ACLNN_API aclnnStatus aclnnDropoutGenMaskV2TensorGetWorkspaceSize(
    const aclIntArray *shape, double prob, const aclTensor *seedTensor, const aclTensor *offsetTensor, int64_t
    offset, aclDataType probDataType, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDropoutGenMaskV2Tensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DROPOUT_GEN_MASK_H_ */
