/* Streams: handles to small structs, tracked so unknown or destroyed handles are rejected without being
 * dereferenced. Work is executed synchronously when enqueued, so synchronising only validates. */
#include <pthread.h>
#include <stdlib.h>

#include "ptr_set.h"
#include "rt_internal.h"

#define STREAM_MAGIC 0x5354524dU /* "STRM" */

/* Destroyed handles are parked here for a while before their memory is released, so the allocator does
 * not hand the same address to the next aclrtCreateStream and a stale handle keeps failing with 107000. */
#define STREAM_QUARANTINE 64

typedef struct {
    uint32_t magic;
} StubStream;

static PtrSet live_streams = PTR_SET_INIT;
static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static StubStream *quarantine[STREAM_QUARANTINE];
static size_t quarantine_next;

static void retire(StubStream *s) {
    s->magic = 0;
    pthread_mutex_lock(&quarantine_lock);
    StubStream *evicted = quarantine[quarantine_next];
    quarantine[quarantine_next] = s;
    quarantine_next = (quarantine_next + 1) % STREAM_QUARANTINE;
    pthread_mutex_unlock(&quarantine_lock);
    free(evicted);
}

aclError aclrtCreateStream(aclrtStream *stream) {
    if (stream == NULL) {
        aclStubSetErrMsg("aclrtCreateStream: argument 'stream' is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!rt_device_is_set()) {
        aclStubSetErrMsg("aclrtCreateStream: no current device (call aclrtSetDevice first)");
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    StubStream *s = malloc(sizeof *s);
    if (s == NULL || !ptr_set_insert(&live_streams, s)) {
        free(s);
        aclStubSetErrMsg("aclrtCreateStream: out of host memory");
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    s->magic = STREAM_MAGIC;
    *stream = s;
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
    if (stream == NULL) {
        aclStubSetErrMsg("aclrtDestroyStream: argument 'stream' is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    /* Removal is the ownership test: of two racing destroys only one succeeds. */
    if (!ptr_set_remove(&live_streams, stream)) {
        aclStubSetErrMsg("aclrtDestroyStream: argument 'stream' (%p) is not a live stream "
                         "(never created or already destroyed)", stream);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    retire(stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    if (!aclStubStreamIsLive(stream)) {
        aclStubSetErrMsg("aclrtSynchronizeStream: argument 'stream' (%p) is not a live stream "
                         "(never created or already destroyed)", stream);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

aclError aclStubStreamLaunch(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg)) {
    aclError status = ACL_ERROR_RT_PARAM_INVALID;
    if (!aclStubStreamIsLive(stream))
        aclStubSetErrMsg("argument 'stream' (%p) is not a live stream (never created or already destroyed)", stream);
    else
        status = fn(arg); /* streams are synchronous for now: the work runs inside the launch */
    if (release) release(arg);
    return status;
}

bool aclStubStreamIsLive(aclrtStream stream) {
    return stream == NULL || ptr_set_contains(&live_streams, stream);
}

uint64_t aclStubLiveStreams(void) {
    return ptr_set_count(&live_streams);
}
