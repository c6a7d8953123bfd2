/* aclnnSignBitsUnpack (ops-math math/sign_bits_unpack). */
#ifndef ACLNNOP_ACLNN_SIGN_BITS_UNPACK_H_
#define ACLNNOP_ACLNN_SIGN_BITS_UNPACK_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSignBitsUnpackGetWorkspaceSize(const aclTensor *self, int64_t size, aclDataType dtype,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSignBitsUnpack(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SIGN_BITS_UNPACK_H_ */
