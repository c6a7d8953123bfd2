/*
 * The official aclnnMoeTokenPermuteWithEp sample with every device buffer allocated at the size of its tensor
 * (a BF16 (4, 4) output: 32 bytes), while the copies keep the sample's float sizes: 64 bytes uploaded into and
 * read back out of that 32-byte output. Legal on a device, where aclrtMalloc rounds the size up to 32 bytes
 * and adds 32; the program prints what the official sample prints.
 */
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep.h"
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

template <typename T>
void PrintOutResult(const char *name, std::vector<int64_t> &shape, void **deviceAddr, const char *format) {
  auto size = GetShapeSize(shape);
  std::vector<T> resultData(size, 0);
  auto ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), *deviceAddr,
                         size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return);
  for (int64_t i = 0; i < size; i++) {
    LOG_PRINT("%s[%ld] is: ", name, i);
    LOG_PRINT(format, resultData[i]);
    LOG_PRINT("\n");
  }
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
  // The tensor's own size is allocated; the copy follows the host element type (the sample's float-into-BF16
  // quirk), twice the size for a BF16 tensor: the rest lands in the padding aclrtMalloc adds.
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, GetShapeSize(shape) * aclDataTypeSize(dataType), ACL_MEM_MALLOC_HUGE_FIRST);
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
  CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed.\n"); return -1);
  return 0;
}

int CreateAclIntArray(const std::vector<int64_t> &hostData, aclIntArray **intArray) {
  // An aclIntArray is a host-side attribute: its values are copied at creation.
  *intArray = aclCreateIntArray(hostData.data(), hostData.size());
  CHECK_RET(*intArray != nullptr, LOG_PRINT("aclCreateIntArray failed.\n"); return -1);
  return 0;
}

int main() {
  // 1. Device and stream.
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Inputs and outputs.
  std::vector<int64_t> xShape = {3, 4};
  std::vector<int64_t> idxShape = {3, 2};
  std::vector<int64_t> probsShape = {3, 2};
  std::vector<int64_t> expandedXOutShape = {4, 4};
  std::vector<int64_t> idxOutShape = {6};
  std::vector<int64_t> expandedProbsOutShape = {4};
  void *xDeviceAddr = nullptr;
  void *indicesDeviceAddr = nullptr;
  void *probsDeviceAddr = nullptr;
  void *expandedXOutDeviceAddr = nullptr;
  void *sortedIndicesOutDeviceAddr = nullptr;
  void *expandedProbsOutDeviceAddr = nullptr;
  aclTensor *x = nullptr;
  aclTensor *indices = nullptr;
  aclTensor *probs = nullptr;
  aclTensor *expandedXOut = nullptr;
  aclTensor *sortedIndicesOut = nullptr;
  aclTensor *expandedProbsOut = nullptr;
  aclIntArray *range = nullptr;
  int64_t numOutTokens = 6;
  bool paddedMode = false;

  std::vector<float> xHostData = {0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3};
  std::vector<int> indicesHostData = {1, 2, 3, 1, 2, 3};
  std::vector<float> probsHostData = {0.5, 0.3, 0.4, 0.2, 0.5, 0.4};
  std::vector<float> expandedXOutHostData(16, 0);
  std::vector<int> sortedIndicesOutHostData(6, 0);
  std::vector<float> expandedProbsOutHostData(4, 0);
  std::vector<int64_t> rangeHostData = {1, 5};

  ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_BF16, &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(indicesHostData, idxShape, &indicesDeviceAddr, aclDataType::ACL_INT32, &indices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(probsHostData, probsShape, &probsDeviceAddr, aclDataType::ACL_BF16, &probs);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expandedXOutHostData, expandedXOutShape, &expandedXOutDeviceAddr, aclDataType::ACL_BF16,
                        &expandedXOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(sortedIndicesOutHostData, idxOutShape, &sortedIndicesOutDeviceAddr, aclDataType::ACL_INT32,
                        &sortedIndicesOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expandedProbsOutHostData, expandedProbsOutShape, &expandedProbsOutDeviceAddr,
                        aclDataType::ACL_BF16, &expandedProbsOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclIntArray(rangeHostData, &range);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the operator: phase 1 (workspace size and executor), then phase 2.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  ret = aclnnMoeTokenPermuteWithEpGetWorkspaceSize(x, indices, probs, range, numOutTokens, paddedMode, expandedXOut,
                                                   sortedIndicesOut, expandedProbsOut, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMoeTokenPermuteWithEpGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnMoeTokenPermuteWithEp(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermuteWithEp failed. ERROR: %d\n", ret); return ret);

  // 4. Wait for the stream.
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. Copy the outputs back (as float / int, like the CANN sample) and print them.
  PrintOutResult<float>("expandedXData", expandedXOutShape, &expandedXOutDeviceAddr, "%f");
  PrintOutResult<int>("sortedIndicesData", idxOutShape, &sortedIndicesOutDeviceAddr, "%d");
  PrintOutResult<float>("expandedProbsData", expandedProbsOutShape, &expandedProbsOutDeviceAddr, "%f");

  // 6. Release the tensors and the attribute.
  aclDestroyTensor(x);
  aclDestroyTensor(indices);
  aclDestroyTensor(probs);
  aclDestroyTensor(expandedXOut);
  aclDestroyTensor(sortedIndicesOut);
  aclDestroyTensor(expandedProbsOut);
  aclDestroyIntArray(range);

  // 7. Release device memory and resources.
  aclrtFree(xDeviceAddr);
  aclrtFree(indicesDeviceAddr);
  aclrtFree(probsDeviceAddr);
  aclrtFree(expandedXOutDeviceAddr);
  aclrtFree(sortedIndicesOutDeviceAddr);
  aclrtFree(expandedProbsOutDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
