/* Base types, status codes and data-type helpers of AscendCL. */
#ifndef ACL_ACL_BASE_H_
#define ACL_ACL_BASE_H_

/* The official samples call printf while including only C++ headers. */
#include <stdio.h>

#include "acl/acl_base_rt.h"
#include "acl/error_codes/rt_error_codes.h"

#endif /* ACL_ACL_BASE_H_ */
