/*
 * Official-style sample of aclnnMoeTokenPermuteWithEpGrad (spec ops/moe_token_permute_with_ep_grad.md,
 * section 5). As in the CANN sample, the BF16 tensors are filled from float host vectors, so the operator
 * sees the raw bytes of the floats as BF16 halves, and each output buffer is read back as floats.
 */
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep_grad.h"
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

void PrintOutResult(std::vector<int64_t> &shape, void **deviceAddr) {
  auto size = GetShapeSize(shape);
  std::vector<float> resultData(size, 0);
  auto ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), *deviceAddr,
                         size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return);
  for (int64_t i = 0; i < size; i++) {
    LOG_PRINT("mean result[%ld] is: %f\n", i, resultData[i]);
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
  int64_t numTopk = 2;
  std::vector<float> permutedTokenOutputGradData = {2, 2, 1, 1, 3, 3, 2, 2};
  std::vector<float> permutedProbOutputGradData = {0.2, 0.5, 0.4, 0.4};
  std::vector<int64_t> permutedTokenOutputGradShape = {4, 2};
  std::vector<int64_t> permutedProbOutputGradShape = {4};
  void *permutedTokenOutputGradAddr = nullptr;
  void *permutedProbOutputGradAddr = nullptr;
  aclTensor *permutedTokenOutputGrad = nullptr;
  aclTensor *permutedProbOutputGrad = nullptr;
  ret = CreateAclTensor(permutedTokenOutputGradData, permutedTokenOutputGradShape, &permutedTokenOutputGradAddr,
                        aclDataType::ACL_BF16, &permutedTokenOutputGrad);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(permutedProbOutputGradData, permutedProbOutputGradShape, &permutedProbOutputGradAddr,
                        aclDataType::ACL_BF16, &permutedProbOutputGrad);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<int> sortedIndicesData = {2, 0, 4, 1, 5, 3};
  std::vector<int64_t> sortedIndicesShape = {6};
  void *sortedIndicesAddr = nullptr;
  aclTensor *sortedIndices = nullptr;
  ret = CreateAclTensor(sortedIndicesData, sortedIndicesShape, &sortedIndicesAddr, aclDataType::ACL_INT32,
                        &sortedIndices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  aclIntArray *range = nullptr;
  std::vector<int64_t> rangeHostData = {1, 5};
  ret = CreateAclIntArray(rangeHostData, &range);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<float> tokenOutData = {0, 0, 0, 0, 0, 0};
  std::vector<int64_t> tokenOutShape = {3, 2};
  void *tokenOutAddr = nullptr;
  aclTensor *tokenOut = nullptr;
  ret = CreateAclTensor(tokenOutData, tokenOutShape, &tokenOutAddr, aclDataType::ACL_BF16, &tokenOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<float> probOutData = {0, 0, 0, 0, 0, 0};
  std::vector<int64_t> probOutShape = {3, 2};
  void *probOutAddr = nullptr;
  aclTensor *probOut = nullptr;
  ret = CreateAclTensor(probOutData, probOutShape, &probOutAddr, aclDataType::ACL_BF16, &probOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the operator: phase 1 (workspace size and executor), then phase 2.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  ret = aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize(permutedTokenOutputGrad, sortedIndices, permutedProbOutputGrad,
                                                       numTopk, range, false, tokenOut, probOut, &workspaceSize,
                                                       &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnMoeTokenPermuteWithEpGrad(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermuteWithEpGrad failed. ERROR: %d\n", ret); return ret);

  // 4. Wait for the stream.
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. Copy the outputs back (as floats, like the CANN sample) and print them.
  PrintOutResult(tokenOutShape, &tokenOutAddr);
  PrintOutResult(probOutShape, &probOutAddr);

  // 6. Release the tensors and the attribute.
  aclDestroyTensor(permutedTokenOutputGrad);
  aclDestroyTensor(permutedProbOutputGrad);
  aclDestroyTensor(sortedIndices);
  aclDestroyTensor(tokenOut);
  aclDestroyTensor(probOut);
  aclDestroyIntArray(range);

  // 7. Release device memory and resources.
  aclrtFree(permutedTokenOutputGradAddr);
  aclrtFree(permutedProbOutputGradAddr);
  aclrtFree(sortedIndicesAddr);
  aclrtFree(tokenOutAddr);
  aclrtFree(probOutAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
