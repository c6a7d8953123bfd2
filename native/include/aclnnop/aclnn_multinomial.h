/* aclnnMultinomial, aclnnMultinomialTensor (ops-math random/stateless_sample_multinomial). */
#ifndef ACLNNOP_ACLNN_MULTINOMIAL_H_
#define ACLNNOP_ACLNN_MULTINOMIAL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMultinomialGetWorkspaceSize(const aclTensor *self, int64_t numsamples, bool replacement,
                                                       int64_t seed, int64_t offset, aclTensor *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMultinomial(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

ACLNN_API aclnnStatus aclnnMultinomialTensorGetWorkspaceSize(
    const aclTensor *self, int64_t numsamples, bool replacement, const aclTensor *seedTensor, const aclTensor
    *offsetTensor, int64_t offset, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMultinomialTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MULTINOMIAL_H_ */
