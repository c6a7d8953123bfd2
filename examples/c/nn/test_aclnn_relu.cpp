// aclnnRelu and aclnnInplaceRelu in the style of the ops-nn samples.
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_relu.h"

#define CHECK_RET(cond, expr) \
    do {                      \
        if (!(cond)) {        \
            expr;             \
        }                     \
    } while (0)

static aclTensor *CreateTensor(const std::vector<float> &host, const std::vector<int64_t> &shape, void **dev)
{
    size_t bytes = host.size() * sizeof(float);
    if (aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return nullptr;
    aclrtMemcpy(*dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = (int64_t)shape.size() - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                           shape.size(), *dev);
}

// Phase 2 of an operator whose phase 1 returned `status` with `executor` and `workspaceSize`.
static int Run(aclnnStatus status, aclOpExecutor *executor, uint64_t workspaceSize,
               aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), aclrtStream stream)
{
    CHECK_RET(status == ACL_SUCCESS, printf("GetWorkspaceSize failed. ERROR: %d\n", status); return 1);
    void *workspace = nullptr;
    if (workspaceSize > 0) CHECK_RET(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == 0, return 1);
    auto ret = phase2(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, printf("phase 2 failed. ERROR: %d\n", ret); return 1);
    CHECK_RET(aclrtSynchronizeStream(stream) == ACL_SUCCESS, return 1);
    if (workspace) aclrtFree(workspace);
    return 0;
}

static void Print(const char *what, void *dev, size_t n)
{
    std::vector<float> host(n);
    aclrtMemcpy(host.data(), n * sizeof(float), dev, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; i < n; i++) printf("%s[%zu] is: %f\n", what, i, host[i]);
}

int main()
{
    aclrtStream stream;
    CHECK_RET(aclInit(nullptr) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtSetDevice(0) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtCreateStream(&stream) == ACL_SUCCESS, return 1);

    std::vector<float> data = {-2.5f, -1, 0, 0.5f, 1, -0.0f, 3, -7};
    void *selfDev = nullptr, *outDev = nullptr;
    aclTensor *self = CreateTensor(data, {2, 4}, &selfDev);
    aclTensor *out = CreateTensor(std::vector<float>(8, 0), {2, 4}, &outDev);
    CHECK_RET(self && out, return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    aclnnStatus status = aclnnReluGetWorkspaceSize(self, out, &workspaceSize, &executor);
    CHECK_RET(Run(status, executor, workspaceSize, aclnnRelu, stream) == 0, return 1);
    Print("relu", outDev, data.size());
    status = aclnnInplaceReluGetWorkspaceSize(self, &workspaceSize, &executor);
    CHECK_RET(Run(status, executor, workspaceSize, aclnnInplaceRelu, stream) == 0, return 1);
    Print("inplace relu", selfDev, data.size());

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
