/* aclnnDropout (ops-math random/dsa_gen_bit_mask). */
#ifndef ACLNNOP_ACLNN_DROPOUT_H_
#define ACLNNOP_ACLNN_DROPOUT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDropoutGetWorkspaceSize(const aclTensor *input, double p, bool train, int64_t seed,
                                                   int64_t offset, aclTensor *out, aclTensor *maskOut,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDropout(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DROPOUT_H_ */
