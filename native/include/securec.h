/*
 * The bounds-checking C library's header, which a CANN toolkit installs beside the AscendCL headers and a
 * few official samples include without calling anything from it. Only its types and return code are here;
 * the *_s functions themselves live in that library (libc_sec), which the stub does not provide.
 */
#ifndef ACLNN_SECUREC_H_
#define ACLNN_SECUREC_H_

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#ifndef EOK
#define EOK 0
#endif

#ifndef __STDC_LIB_EXT1__
typedef int errno_t;
#endif

#endif /* ACLNN_SECUREC_H_ */
