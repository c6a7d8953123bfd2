/* aclInit/aclFinalize, devices (reference-counted aclrtSetDevice), contexts and each thread's current
 * context. A context is a never-reused token; a thread's current context is a token too, so a context
 * destroyed (or a device reset) behind a thread's back turns into "no current context", never into a
 * dangling pointer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_internal.h"

#define DEFAULT_DEVICE_COUNT 8
#define DEFAULT_SOC_NAME "Ascend910B1"

pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
HandleTable rt_contexts = HANDLE_TABLE_INIT(HANDLE_CONTEXT);

static bool initialised;
static struct {
    uint32_t refs;         /* aclrtSetDevice calls not yet matched by aclrtResetDevice */
    const void *primary;   /* the default context while refs > 0 */
} devices[RT_MAX_DEVICES];
static uint64_t explicit_contexts;

/* Token of the calling thread's current context (may be stale: always looked up). */
static _Thread_local const void *current_context;

/* ---- configuration ------------------------------------------------------------------------------ */

static int32_t device_count;
static pthread_once_t device_count_once = PTHREAD_ONCE_INIT;

static void read_device_count(void) {
    device_count = DEFAULT_DEVICE_COUNT;
    const char *v = getenv("ACLNN_STUB_DEVICE_COUNT");
    if (v != NULL && v[0] != '\0') {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno == 0 && *end == '\0' && n >= 1 && n <= RT_MAX_DEVICES) device_count = (int32_t)n;
    }
}

int32_t rt_device_count(void) {
    pthread_once(&device_count_once, read_device_count);
    return device_count;
}

const char *aclrtGetSocName(void) {
    const char *v = getenv("ACLNN_STUB_SOC_NAME");
    return v != NULL && v[0] != '\0' ? v : DEFAULT_SOC_NAME;
}

/* ---- contexts (rt_lock held) --------------------------------------------------------------------- */

RtContext *rt_current_context_locked(void) {
    if (current_context == NULL) return NULL;
    RtContext *c = handle_acquire(&rt_contexts, current_context);
    if (c != NULL) handle_release(&rt_contexts);
    return c; /* safe to use while rt_lock is held: contexts are only freed under it */
}

static RtContext *context_new_locked(int32_t device, bool is_default) {
    RtContext *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->device = device;
    c->is_default = is_default;
    c->token = handle_insert(&rt_contexts, c);
    if (c->token != NULL) c->stream = rt_stream_new_locked(device, c->token, 0);
    if (c->token == NULL || c->stream == NULL) {
        if (c->token != NULL) handle_remove(&rt_contexts, c->token);
        free(c);
        return NULL;
    }
    return c;
}

/* Waits for the work of the context's streams, then frees them and the context. */
static void context_free_locked(RtContext *c) {
    handle_remove(&rt_contexts, c->token);
    rt_streams_of_context_free_locked(c->token);
    rt_stream_free_locked(c->stream);
    free(c);
}

aclError rt_require_device(const char *func, int32_t *device) {
    pthread_mutex_lock(&rt_lock);
    RtContext *c = rt_current_context_locked();
    if (c != NULL) *device = c->device;
    pthread_mutex_unlock(&rt_lock);
    if (c == NULL) {
        aclStubSetErrMsg("%s: the calling thread has no current device or context (call aclrtSetDevice or "
                         "aclrtSetCurrentContext in this thread first)", func);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    return ACL_SUCCESS;
}

/* ---- aclInit / aclFinalize ----------------------------------------------------------------------- */

/* The stub never parses the configuration; it only has to be a readable file, as CANN requires. */
static aclError check_config_file(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        aclStubSetErrMsg("aclInit: argument 'configPath' (\"%s\") cannot be opened for reading: %s", path,
                         strerror(errno));
        return ACL_ERROR_INVALID_FILE;
    }
    struct stat st;
    bool is_dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    close(fd);
    if (is_dir) {
        aclStubSetErrMsg("aclInit: argument 'configPath' (\"%s\") is a directory, not a configuration file",
                         path);
        return ACL_ERROR_INVALID_FILE;
    }
    return ACL_SUCCESS;
}

aclError aclInit(const char *configPath) {
    aclError ret = ACL_SUCCESS;
    if (configPath != NULL && configPath[0] != '\0') ret = check_config_file(configPath);
    pthread_mutex_lock(&rt_lock);
    if (initialised) {
        aclStubSetErrMsg("aclInit: already initialised (call aclFinalize first)");
        ret = ACL_ERROR_REPEAT_INITIALIZE;
    }
    if (ret == ACL_SUCCESS) initialised = true;
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

/* Release a device's default context and its streams (rt_lock held). */
static void device_release_locked(const char *call, int32_t device) {
    if (CHECK_ON(CHECK_SYNC | CHECK_LEAK)) rt_check_device_release_locked(call, device);
    devices[device].refs = 0;
    RtContext *c = handle_acquire(&rt_contexts, devices[device].primary);
    if (c != NULL) handle_release(&rt_contexts);
    devices[device].primary = NULL;
    if (c != NULL) context_free_locked(c);
}

aclError aclFinalize(void) {
    if (CHECK_ON(CHECK_SYNC)) check_site_prepare();
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    if (!initialised) {
        aclStubSetErrMsg("aclFinalize: not initialised (aclInit was not called or aclFinalize already ran)");
        ret = ACL_ERROR_REPEAT_FINALIZE;
    } else {
        initialised = false;
        if (CHECK_ON(CHECK_LEAK)) check_leaks("aclFinalize");
        for (int32_t d = 0; d < RT_MAX_DEVICES; d++)
            if (devices[d].refs > 0) device_release_locked("aclFinalize", d);
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

/* ---- devices ------------------------------------------------------------------------------------- */

static bool valid_device_id(const char *func, int32_t deviceId) {
    int32_t n = rt_device_count();
    if (deviceId >= 0 && deviceId < n) return true;
    aclStubSetErrMsg("%s: argument 'deviceId' (%d) is not a valid device id (the stub has %d devices, ids 0..%d; "
                     "ACLNN_STUB_DEVICE_COUNT sets the count)", func, (int)deviceId, (int)n, (int)n - 1);
    return false;
}

aclError aclrtSetDevice(int32_t deviceId) {
    if (CHECK_ON(CHECK_LEAK)) check_site_prepare();
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    if (!initialised) {
        aclStubSetErrMsg("aclrtSetDevice: aclInit has not been called");
        ret = ACL_ERROR_UNINITIALIZE;
    } else if (!valid_device_id("aclrtSetDevice", deviceId)) {
        ret = ACL_ERROR_RT_INVALID_DEVICEID;
    } else if (devices[deviceId].refs == UINT32_MAX) {
        aclStubSetErrMsg("aclrtSetDevice: device %d has been set %u times without a reset", (int)deviceId,
                         UINT32_MAX);
        ret = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    } else {
        if (devices[deviceId].refs == 0) {
            RtContext *c = context_new_locked(deviceId, true);
            if (c == NULL) {
                aclStubSetErrMsg("aclrtSetDevice: out of host memory creating the default context");
                ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
            } else {
                devices[deviceId].primary = c->token;
            }
        }
        if (ret == ACL_SUCCESS) {
            devices[deviceId].refs++;
            current_context = devices[deviceId].primary;
        }
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

static aclError reset_device(const char *func, int32_t deviceId, bool force) {
    if (!valid_device_id(func, deviceId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    if (CHECK_ON(CHECK_SYNC)) check_site_prepare();
    pthread_mutex_lock(&rt_lock);
    /* Resetting a device that is not set succeeds and changes nothing, as on CANN. */
    if (devices[deviceId].refs > 0 && (force || --devices[deviceId].refs == 0)) device_release_locked(func, deviceId);
    pthread_mutex_unlock(&rt_lock);
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) { return reset_device("aclrtResetDevice", deviceId, false); }

aclError aclrtResetDeviceForce(int32_t deviceId) { return reset_device("aclrtResetDeviceForce", deviceId, true); }

aclError aclrtGetDevice(int32_t *deviceId) {
    RT_RETURN_IF_NULL("aclrtGetDevice", deviceId);
    return rt_require_device("aclrtGetDevice", deviceId);
}

aclError aclrtGetDeviceCount(uint32_t *count) {
    RT_RETURN_IF_NULL("aclrtGetDeviceCount", count);
    *count = (uint32_t)rt_device_count();
    return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode *runMode) {
    RT_RETURN_IF_NULL("aclrtGetRunMode", runMode);
    *runMode = ACL_HOST; /* the application runs on the host and drives the devices, as with a PCIe card */
    return ACL_SUCCESS;
}

/* Every stub device shares the host's memory, so any pair can reach each other. */
aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
    RT_RETURN_IF_NULL("aclrtDeviceCanAccessPeer", canAccessPeer);
    if (!valid_device_id("aclrtDeviceCanAccessPeer", deviceId) ||
        !valid_device_id("aclrtDeviceCanAccessPeer", peerDeviceId))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    *canAccessPeer = deviceId != peerDeviceId;
    return ACL_SUCCESS;
}

static aclError peer_access(const char *func, int32_t peerDeviceId, uint32_t flags) {
    if (flags != 0) {
        aclStubSetErrMsg("%s: argument 'flags' (%u) must be 0", func, flags);
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t device;
    aclError ret = rt_require_device(func, &device);
    if (ret != ACL_SUCCESS) return ret;
    if (!valid_device_id(func, peerDeviceId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    if (peerDeviceId == device) {
        aclStubSetErrMsg("%s: argument 'peerDeviceId' (%d) is the current device", func, (int)peerDeviceId);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
    return peer_access("aclrtDeviceEnablePeerAccess", peerDeviceId, flags);
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
    return peer_access("aclrtDeviceDisablePeerAccess", peerDeviceId, 0);
}

/* ---- contexts ------------------------------------------------------------------------------------ */

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
    RT_RETURN_IF_NULL("aclrtCreateContext", context);
    if (CHECK_ON(CHECK_LEAK)) check_site_prepare();
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    if (!initialised) {
        aclStubSetErrMsg("aclrtCreateContext: aclInit has not been called");
        ret = ACL_ERROR_UNINITIALIZE;
    } else if (!valid_device_id("aclrtCreateContext", deviceId)) {
        ret = ACL_ERROR_RT_INVALID_DEVICEID;
    } else {
        RtContext *c = context_new_locked(deviceId, false);
        if (c == NULL) {
            aclStubSetErrMsg("aclrtCreateContext: out of host memory");
            ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
        } else {
            explicit_contexts++;
            current_context = c->token; /* the new context becomes the thread's current one */
            *context = (aclrtContext)c->token;
        }
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

aclError aclrtDestroyContext(aclrtContext context) {
    RT_RETURN_IF_NULL("aclrtDestroyContext", context);
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    RtContext *c = handle_acquire(&rt_contexts, context);
    if (c != NULL) handle_release(&rt_contexts);
    if (c == NULL) {
        aclStubSetErrMsg("aclrtDestroyContext: argument 'context' (%p) is not a live context (never created or "
                         "already destroyed)", context);
        ret = ACL_ERROR_RT_PARAM_INVALID;
    } else if (c->is_default) {
        aclStubSetErrMsg("aclrtDestroyContext: argument 'context' (%p) is the default context of device %d, "
                         "which only aclrtResetDevice releases", context, (int)c->device);
        ret = ACL_ERROR_RT_PARAM_INVALID;
    } else {
        explicit_contexts--;
        context_free_locked(c);
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
    RT_RETURN_IF_NULL("aclrtSetCurrentContext", context);
    if (!handle_is_live(&rt_contexts, context)) {
        aclStubSetErrMsg("aclrtSetCurrentContext: argument 'context' (%p) is not a live context (never created, "
                         "destroyed, or the default context of a device since reset)", context);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    current_context = context;
    return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
    RT_RETURN_IF_NULL("aclrtGetCurrentContext", context);
    pthread_mutex_lock(&rt_lock);
    RtContext *c = rt_current_context_locked();
    if (c != NULL) *context = (aclrtContext)c->token;
    pthread_mutex_unlock(&rt_lock);
    if (c == NULL) {
        aclStubSetErrMsg("aclrtGetCurrentContext: the calling thread has no current context");
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    return ACL_SUCCESS;
}

void *aclStubCurrentContext(void) {
    pthread_mutex_lock(&rt_lock);
    RtContext *c = rt_current_context_locked();
    void *token = c ? (void *)c->token : NULL;
    pthread_mutex_unlock(&rt_lock);
    return token;
}

uint64_t aclStubLiveContexts(void) {
    pthread_mutex_lock(&rt_lock);
    uint64_t n = explicit_contexts;
    pthread_mutex_unlock(&rt_lock);
    return n;
}

/* ---- fork ---------------------------------------------------------------------------------------- */

/* The child of a fork has only the forking thread: every lock is taken before the fork (so no other
 * thread holds one mid-update) and re-initialised in the child. Order: rt_lock, then the tables (taken
 * only under rt_lock), then device memory. */
static void atfork_prepare(void) {
    pthread_mutex_lock(&rt_lock);
    pthread_rwlock_wrlock(&rt_contexts.lock);
    pthread_rwlock_wrlock(&rt_streams.lock);
    pthread_rwlock_wrlock(&rt_events.lock);
    rt_memory_atfork_prepare();
}

static void atfork_parent(void) {
    rt_memory_atfork_parent();
    pthread_rwlock_unlock(&rt_events.lock);
    pthread_rwlock_unlock(&rt_streams.lock);
    pthread_rwlock_unlock(&rt_contexts.lock);
    pthread_mutex_unlock(&rt_lock);
}

static void atfork_child(void) {
    rt_memory_atfork_child();
    handle_table_reset_after_fork(&rt_events);
    handle_table_reset_after_fork(&rt_streams);
    handle_table_reset_after_fork(&rt_contexts);
    pthread_mutex_init(&rt_lock, NULL);
    rt_sched_atfork_child();
}

__attribute__((constructor)) static void register_fork_handlers(void) {
    (void)rt_device_count(); /* settled now, so no fork can catch a thread inside its pthread_once */
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}
