/* Per-thread error text behind aclGetRecentErrMsg, and optional logging to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define ERRMSG_CAPACITY 1024

/* Thread-local so concurrent callers never see each other's messages; the buffer lives as long as
 * the thread, so a pointer returned by aclGetRecentErrMsg stays valid until the next error. */
static _Thread_local char errmsg_buf[ERRMSG_CAPACITY];
static _Thread_local bool errmsg_pending;

static bool logging_enabled(void) {
    /* Read on every error (not cached) so a test can switch logging on after the library loads. */
    const char *v = getenv("ACLNN_STUB_LOG");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

void aclStubSetErrMsgV(const char *fmt, va_list ap) {
    if (fmt == NULL) fmt = "(no message)";
    int n = vsnprintf(errmsg_buf, sizeof errmsg_buf, fmt, ap);
    if (n < 0) snprintf(errmsg_buf, sizeof errmsg_buf, "(unformattable message: %s)", fmt);
    errmsg_pending = true;
    if (CHECK_ON(CHECK_API)) check_api_error(errmsg_buf);
    if (logging_enabled()) fprintf(stderr, "[aclnn-stub] %s\n", errmsg_buf);
}

void aclStubSetErrMsg(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    aclStubSetErrMsgV(fmt, ap);
    va_end(ap);
}

const char *aclGetRecentErrMsg(void) {
    if (!errmsg_pending) return NULL;
    errmsg_pending = false;
    return errmsg_buf;
}
