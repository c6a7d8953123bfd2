/* aclnn operator-library initialisation. */
#ifndef ACLNN_ACLNN_BASE_H_
#define ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_ACLNN_BASE_H_ */
