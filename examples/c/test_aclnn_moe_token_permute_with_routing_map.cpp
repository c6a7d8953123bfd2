/*
 * Official-style sample of aclnnMoeTokenPermuteWithRoutingMap (spec ops/moe_token_permute_with_routing_map.md,
 * section 5), the CANN repository's version. As there, the BF16 tokens are filled from a float host vector and the
 * BOOL routing map from an int vector, so the operator sees raw bytes: tokens rows 0 and 1 hold the halves of 0.1,
 * row 2 those of 0.2, and the map is [[1, 0], [0, 0], [1, 0]]. That map has 2 set entries for 6 output rows, so
 * the stub's rule for ill-formed maps applies: sortedIndicesOut = 0..5 and the output rows are tokens 0, 0, 1, 1,
 * 2, 2. Read back as 24 floats, the output prints 0.1 eight times, 0.2 four times, then the untouched zeros.
 */
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map.h"
#include <iostream>
#include <vector>

#define CHECK_RET(cond, return_expr)                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      return_expr;                                                             \
    }                                                                          \
  } while (0)

#define LOG_PRINT(message, ...)                                                \
  do {                                                                         \
    printf(message, ##__VA_ARGS__);                                            \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t> &shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream *stream) {
  // Fixed steps: initialise ACL, pick the device, create a stream.
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape, void **deviceAddr,
                    aclDataType dataType, aclTensor **tensor) {
  // The byte size follows the host element type, not dataType (the sample's float-into-BF16 quirk).
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);

  // Row-major strides of a contiguous tensor.
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }

  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                            shape.data(), shape.size(), *deviceAddr);
  return 0;
}

int main() {
  // 1. Device and stream (fixed steps).
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Inputs and outputs.
  std::vector<int64_t> xShape = {3, 4};
  std::vector<int64_t> idxShape = {3, 2};
  std::vector<int64_t> expandedXOutShape = {6, 4};
  std::vector<int64_t> idxOutShape = {6};
  void *xDeviceAddr = nullptr;
  void *indicesDeviceAddr = nullptr;
  void *expandedXOutDeviceAddr = nullptr;
  void *sortedIndicesOutDeviceAddr = nullptr;
  aclTensor *x = nullptr;
  aclTensor *indices = nullptr;
  int64_t numTokenOut = 6;
  bool padMode = false;

  aclTensor *expandedXOut = nullptr;
  aclTensor *sortedIndicesOut = nullptr;
  std::vector<float> xHostData = {0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3};
  std::vector<int> indicesHostData = {1, 1, 1, 1, 1, 1};
  std::vector<float> expandedXOutHostData = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::vector<int> sortedIndicesOutHostData = {0, 0, 0, 0, 0, 0};
  ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_BF16, &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(indicesHostData, idxShape, &indicesDeviceAddr, aclDataType::ACL_BOOL, &indices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expandedXOutHostData, expandedXOutShape, &expandedXOutDeviceAddr, aclDataType::ACL_BF16,
                        &expandedXOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(sortedIndicesOutHostData, idxOutShape, &sortedIndicesOutDeviceAddr, aclDataType::ACL_INT32,
                        &sortedIndicesOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the operator: phase 1 validates and plans, phase 2 runs.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  ret = aclnnMoeTokenPermuteWithRoutingMapGetWorkspaceSize(x, indices, nullptr, numTokenOut, padMode, expandedXOut,
                                                           nullptr, sortedIndicesOut, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMoeTokenPermuteWithRoutingMapGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);

  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }

  ret = aclnnMoeTokenPermuteWithRoutingMap(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermuteWithRoutingMap failed. ERROR: %d\n", ret);
            return ret);

  // 4. Wait for the stream (fixed step).
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. Copy the outputs back (the BF16 output buffer is read as floats, as in the CANN sample) and print them.
  auto expandedXSize = GetShapeSize(expandedXOutShape);
  std::vector<float> expandedXData(expandedXSize, 0);
  ret = aclrtMemcpy(expandedXData.data(), expandedXData.size() * sizeof(expandedXData[0]), expandedXOutDeviceAddr,
                    expandedXSize * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
  for (int64_t i = 0; i < expandedXSize; i++) {
    LOG_PRINT("expandedXData[%ld] is: %f\n", i, expandedXData[i]);
  }
  auto sortedIndicesSize = GetShapeSize(idxOutShape);
  std::vector<int> sortedIndicesData(sortedIndicesSize, 0);
  ret = aclrtMemcpy(sortedIndicesData.data(), sortedIndicesData.size() * sizeof(sortedIndicesData[0]),
                    sortedIndicesOutDeviceAddr, sortedIndicesSize * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
  for (int64_t i = 0; i < sortedIndicesSize; i++) {
    LOG_PRINT("sortedIndicesData[%ld] is: %d\n", i, sortedIndicesData[i]);
  }

  // 6. Release the tensors.
  aclDestroyTensor(x);
  aclDestroyTensor(indices);
  aclDestroyTensor(expandedXOut);
  aclDestroyTensor(sortedIndicesOut);

  // 7. Release the device resources.
  aclrtFree(xDeviceAddr);
  aclrtFree(indicesDeviceAddr);
  aclrtFree(expandedXOutDeviceAddr);
  aclrtFree(sortedIndicesOutDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
