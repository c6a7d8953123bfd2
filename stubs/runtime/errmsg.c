/* Per-thread error text behind aclGetRecentErrMsg, and optional logging to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define ERRMSG_CAPACITY 2048

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

/* Work run inline by a launching thread: the thread's pending message is set aside meanwhile and put back after,
 * so the work's messages (taken for its stream) never reach the caller. Not nested: queued work never runs other
 * work inline. */
static _Thread_local char saved_buf[ERRMSG_CAPACITY];
static _Thread_local bool saved_pending;

void rt_errmsg_suspend(void) {
    saved_pending = errmsg_pending;
    if (saved_pending) memcpy(saved_buf, errmsg_buf, strlen(errmsg_buf) + 1);
    errmsg_pending = false;
}

void rt_errmsg_resume(void) {
    errmsg_pending = saved_pending;
    if (saved_pending) memcpy(errmsg_buf, saved_buf, strlen(saved_buf) + 1);
}

const char *aclGetRecentErrMsg(void) {
    if (!errmsg_pending) return NULL;
    errmsg_pending = false;
    return errmsg_buf;
}
