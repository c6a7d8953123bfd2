/* State shared between the source files of libascendcl.so (hidden: not exported). */
#ifndef ACLNN_STUB_RT_INTERNAL_H_
#define ACLNN_STUB_RT_INTERNAL_H_

#include <stdbool.h>

#include "stub_internal.h"

/* true while aclrtSetDevice(0) is in force (process-wide, like the stub's single context). */
bool rt_device_is_set(void);

#endif /* ACLNN_STUB_RT_INTERNAL_H_ */
