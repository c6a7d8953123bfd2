// Sample for aclnnAddCustom in the style of the official operator samples: initialise ACL, copy host vectors to
// the device, run both phases on a stream (y broadcast over x's rows), copy the result back and print it. Built
// with the official link line plus the user operator library (libuser_add.so), it runs unchanged on the stub.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add_custom.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...) printf(message, ##__VA_ARGS__)

static int64_t ShapeSize(const std::vector<int64_t> &shape)
{
    int64_t n = 1;
    for (int64_t d : shape) {
        n *= d;
    }
    return n;
}

template <typename T>
static int CreateTensor(const std::vector<T> &host, const std::vector<int64_t> &shape, aclDataType dtype,
                        void **deviceAddr, aclTensor **tensor)
{
    size_t bytes = ShapeSize(shape) * sizeof(T);
    auto ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    *tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                              shape.size(), *deviceAddr);
    CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed.\n"); return -1);
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream = nullptr;
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
    ret = aclrtCreateStream(&stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> shape = {4, 2}, rowShape = {2};
    std::vector<float> xHost = {1.5f, -1.0f, -0.0f, -2.25f, 2.0f, -1e30f, -3.0f, 3.0f};
    std::vector<float> yHost = {0.5f, 0.25f};
    std::vector<float> zHost(xHost.size(), 0.0f);
    void *xDevice = nullptr;
    void *yDevice = nullptr;
    void *zDevice = nullptr;
    aclTensor *x = nullptr;
    aclTensor *y = nullptr;
    aclTensor *z = nullptr;
    ret = CreateTensor(xHost, shape, ACL_FLOAT, &xDevice, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateTensor(yHost, rowShape, ACL_FLOAT, &yDevice, &y);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateTensor(zHost, shape, ACL_FLOAT, &zDevice, &z);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnAddCustomGetWorkspaceSize(x, y, z, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnAddCustomGetWorkspaceSize failed. ERROR: %d\n[ERROR msg]%s\n", ret, aclGetRecentErrMsg());
              return ret);
    void *workspace = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnAddCustom(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnAddCustom failed. ERROR: %d\n[ERROR msg]%s\n", ret, aclGetRecentErrMsg()); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<float> result(xHost.size(), 0.0f);
    ret = aclrtMemcpy(result.data(), result.size() * sizeof(float), zDevice, result.size() * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
    for (size_t i = 0; i < result.size(); i++) {
        LOG_PRINT("result[%zu] is: %f\n", i, result[i]);
    }

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(z);
    aclrtFree(xDevice);
    aclrtFree(yDevice);
    aclrtFree(zDevice);
    if (workspace != nullptr) {
        aclrtFree(workspace);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
