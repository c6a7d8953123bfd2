/* aclInit/aclFinalize and the single stub device. State is process-wide and guarded by one mutex. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_internal.h"

#define STUB_DEVICE_COUNT 1

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialised;
static bool device_set;

bool rt_device_is_set(void) {
    pthread_mutex_lock(&state_lock);
    bool set = device_set;
    pthread_mutex_unlock(&state_lock);
    return set;
}

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
    pthread_mutex_lock(&state_lock);
    aclError ret = ACL_SUCCESS;
    if (initialised) {
        aclStubSetErrMsg("aclInit: already initialised (call aclFinalize first)");
        ret = ACL_ERROR_REPEAT_INITIALIZE;
    } else if (configPath != NULL && configPath[0] != '\0') {
        ret = check_config_file(configPath);
    }
    if (ret == ACL_SUCCESS) initialised = true;
    pthread_mutex_unlock(&state_lock);
    return ret;
}

aclError aclFinalize(void) {
    pthread_mutex_lock(&state_lock);
    aclError ret = ACL_SUCCESS;
    if (!initialised) {
        aclStubSetErrMsg("aclFinalize: not initialised (aclInit was not called or aclFinalize already ran)");
        ret = ACL_ERROR_REPEAT_FINALIZE;
    } else {
        initialised = false;
        device_set = false;
    }
    pthread_mutex_unlock(&state_lock);
    return ret;
}

static bool valid_device_id(const char *func, int32_t deviceId) {
    if (deviceId >= 0 && deviceId < STUB_DEVICE_COUNT) return true;
    aclStubSetErrMsg("%s: argument 'deviceId' (%d) is not a valid device id (the stub has %d device, id 0)", func,
                     (int)deviceId, STUB_DEVICE_COUNT);
    return false;
}

aclError aclrtSetDevice(int32_t deviceId) {
    pthread_mutex_lock(&state_lock);
    aclError ret = ACL_SUCCESS;
    if (!initialised) {
        aclStubSetErrMsg("aclrtSetDevice: aclInit has not been called");
        ret = ACL_ERROR_UNINITIALIZE;
    } else if (!valid_device_id("aclrtSetDevice", deviceId)) {
        ret = ACL_ERROR_RT_INVALID_DEVICEID;
    } else {
        device_set = true;
    }
    pthread_mutex_unlock(&state_lock);
    return ret;
}

aclError aclrtResetDevice(int32_t deviceId) {
    if (!valid_device_id("aclrtResetDevice", deviceId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    pthread_mutex_lock(&state_lock);
    device_set = false;
    pthread_mutex_unlock(&state_lock);
    return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId) {
    if (deviceId == NULL) {
        aclStubSetErrMsg("aclrtGetDevice: argument 'deviceId' is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!rt_device_is_set()) {
        aclStubSetErrMsg("aclrtGetDevice: no current device (call aclrtSetDevice first)");
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *deviceId = 0;
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
    if (count == NULL) {
        aclStubSetErrMsg("aclrtGetDeviceCount: argument 'count' is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    *count = STUB_DEVICE_COUNT;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
    /* All work runs synchronously, so there is nothing to wait for. */
    if (!rt_device_is_set()) {
        aclStubSetErrMsg("aclrtSynchronizeDevice: no current device (call aclrtSetDevice first)");
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    return ACL_SUCCESS;
}
