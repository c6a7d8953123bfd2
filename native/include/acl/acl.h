/* Umbrella header of the AscendCL runtime subset spoken by aclnn-py. */
#ifndef ACL_ACL_H_
#define ACL_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"

#endif /* ACL_ACL_H_ */
