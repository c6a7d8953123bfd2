/* Identification of the stub, looked up at run time by clients that want to know what they loaded. */
#include "rt_internal.h"

const char *aclStubVersion(void) {
    return "aclnn-py stub 0.1.0";
}
