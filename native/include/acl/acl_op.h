/*
 * The aclop (single-operator model) API is not part of this project. CANN's runtime ships this header empty
 * for compatibility unless the aclop package is installed; acl/acl.h includes it, and so may samples.
 */
#ifndef ACL_ACL_OP_H_
#define ACL_ACL_OP_H_

#include "acl/acl_base.h"

#endif /* ACL_ACL_OP_H_ */
