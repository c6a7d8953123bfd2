/* aclnnQr (ops-math math/qr). */
#ifndef ACLNNOP_ACLNN_QR_H_
#define ACLNNOP_ACLNN_QR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnQrGetWorkspaceSize(const aclTensor *self, bool some, aclTensor *Q, aclTensor *R,
                                              uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnQr(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_QR_H_ */
