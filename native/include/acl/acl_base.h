/* Base types, status codes and data-type helpers of AscendCL. */
#ifndef ACL_ACL_BASE_H_
#define ACL_ACL_BASE_H_

/* The official samples call printf while including only C++ headers. */
#include <stdio.h>

#include "acl/acl_base_rt.h"
#include "acl/error_codes/rt_error_codes.h"

/* Marks a declaration deprecated (operator headers mark their old entry points with it). */
#ifndef ACL_DEPRECATED
#if defined(__GNUC__) || defined(__clang__)
#define ACL_DEPRECATED __attribute__((deprecated))
#else
#define ACL_DEPRECATED
#endif
#endif
#ifndef ACL_DEPRECATED_MESSAGE
#if defined(__GNUC__) || defined(__clang__)
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED_MESSAGE(message)
#endif
#endif

#endif /* ACL_ACL_BASE_H_ */
