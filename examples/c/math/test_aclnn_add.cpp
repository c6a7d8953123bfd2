// aclnnAdd in the style of the ops-math samples: out = self + alpha * other, other broadcast over self's rows.
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

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

int main()
{
    aclrtStream stream;
    CHECK_RET(aclInit(nullptr) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtSetDevice(0) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtCreateStream(&stream) == ACL_SUCCESS, return 1);

    void *selfDev = nullptr, *otherDev = nullptr, *outDev = nullptr;
    aclTensor *self = CreateTensor({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}, &selfDev);
    aclTensor *other = CreateTensor({1, 2}, {2}, &otherDev);
    aclTensor *out = CreateTensor(std::vector<float>(8, 0), {4, 2}, &outDev);
    float alphaValue = 1.5f;
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    CHECK_RET(self && other && out && alpha, return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    auto ret = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, printf("aclnnAddGetWorkspaceSize failed. ERROR: %d\n", ret); return 1);
    void *workspace = nullptr;
    if (workspaceSize > 0) CHECK_RET(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == 0, return 1);
    ret = aclnnAdd(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, printf("aclnnAdd failed. ERROR: %d\n", ret); return 1);
    CHECK_RET(aclrtSynchronizeStream(stream) == ACL_SUCCESS, return 1);

    std::vector<float> result(8);
    aclrtMemcpy(result.data(), result.size() * sizeof(float), outDev, result.size() * sizeof(float),
                ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; i < result.size(); i++) printf("result[%zu] is: %f\n", i, result[i]);

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
    aclrtFree(selfDev);
    aclrtFree(otherDev);
    aclrtFree(outDev);
    if (workspace) aclrtFree(workspace);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
