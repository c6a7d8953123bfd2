// aclnnUpsampleNearest2d in the style of the ops-cv samples: a 1x1x4x2 NCHW image resized to 8x4 by nearest
// neighbour (each input pixel becomes a 2x2 block).
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"

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
    return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_NCHW, shape.data(),
                           shape.size(), *dev);
}

int main()
{
    aclrtStream stream;
    CHECK_RET(aclInit(nullptr) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtSetDevice(0) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtCreateStream(&stream) == ACL_SUCCESS, return 1);

    std::vector<float> image = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<int64_t> size = {8, 4};
    void *selfDev = nullptr, *outDev = nullptr;
    aclTensor *self = CreateTensor(image, {1, 1, 4, 2}, &selfDev);
    aclTensor *out = CreateTensor(std::vector<float>(32, 0), {1, 1, 8, 4}, &outDev);
    aclIntArray *outputSize = aclCreateIntArray(size.data(), size.size());
    CHECK_RET(self && out && outputSize, return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    aclnnStatus ret = aclnnUpsampleNearest2dGetWorkspaceSize(self, outputSize, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, printf("aclnnUpsampleNearest2dGetWorkspaceSize failed. ERROR: %d\n", ret); return 1);
    void *workspace = nullptr;
    if (workspaceSize > 0) CHECK_RET(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == 0, return 1);
    ret = aclnnUpsampleNearest2d(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, printf("aclnnUpsampleNearest2d failed. ERROR: %d\n", ret); return 1);
    CHECK_RET(aclrtSynchronizeStream(stream) == ACL_SUCCESS, return 1);

    std::vector<float> result(32);
    aclrtMemcpy(result.data(), result.size() * sizeof(float), outDev, result.size() * sizeof(float),
                ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; i < result.size(); i++) printf("result[%zu] is: %f\n", i, result[i]);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(outputSize);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    if (workspace) aclrtFree(workspace);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
