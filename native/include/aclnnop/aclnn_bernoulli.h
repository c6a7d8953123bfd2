/* aclnnBernoulli, aclnnBernoulliTensor, aclnnInplaceBernoulli, aclnnInplaceBernoulliTensor (ops-math random/dsa_gen_bit_mask). */
#ifndef ACLNNOP_ACLNN_BERNOULLI_H_
#define ACLNNOP_ACLNN_BERNOULLI_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBernoulliGetWorkspaceSize(const aclTensor *self, const aclScalar *prob, int64_t seed,
                                                     int64_t offset, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBernoulli(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

ACLNN_API aclnnStatus aclnnBernoulliTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *prob,
                                                           int64_t seed, int64_t offset, aclTensor *out,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBernoulliTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceBernoulliGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *prob,
                                                            int64_t seed, int64_t offset, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceBernoulli(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceBernoulliTensorGetWorkspaceSize(
    const aclTensor *selfRef, const aclTensor *prob, int64_t seed, int64_t offset, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceBernoulliTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BERNOULLI_H_ */
