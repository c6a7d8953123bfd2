/* aclnnBinaryCrossEntropy (ops-nn op_api header: its Reduction enum and the two entry points). */
#ifndef OP_API_INC_BINARY_CROSS_ENTROPY_H_
#define OP_API_INC_BINARY_CROSS_ENTROPY_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

enum Reduction { None = 0, Mean = 1, Sum = 2 };

ACLNN_API aclnnStatus aclnnBinaryCrossEntropyGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                                              const aclTensor *weight, int64_t reduction,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnBinaryCrossEntropy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_BINARY_CROSS_ENTROPY_H_ */
