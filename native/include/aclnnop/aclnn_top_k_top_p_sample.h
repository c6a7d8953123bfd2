/* aclnnTopKTopPSample (ops-nn index/top_k_top_p_sample). */
#ifndef ACLNNOP_ACLNN_TOP_K_TOP_P_SAMPLE_H_
#define ACLNNOP_ACLNN_TOP_K_TOP_P_SAMPLE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTopKTopPSampleGetWorkspaceSize(const aclTensor *logits, const aclTensor *topK,
                                                          const aclTensor *topP, const aclTensor *q, double eps,
                                                          bool isNeedLogits, int64_t topKGuess,
                                                          const aclTensor *logitsSelectIdx,
                                                          const aclTensor *logitsTopKPSelect,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnTopKTopPSample(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TOP_K_TOP_P_SAMPLE_H_ */
