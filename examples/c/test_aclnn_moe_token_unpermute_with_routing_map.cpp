/*
 * Official-style sample of aclnnMoeTokenUnpermuteWithRoutingMap (spec ops/moe_token_unpermute_with_routing_map.md,
 * section 5): padded mode, two experts of capacity 1 that both picked token 1, unit probs. Token 1 receives both
 * rows ([1, 1] twice), token 0 none: unpermutedTokens = [[0, 0], [2, 2]]. The program prints unpermutedTokens.
 */
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_routing_map.h"
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
  auto size = GetShapeSize(shape) * sizeof(T);
  // Allocate device memory and copy the host data into it.
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
  std::vector<int64_t> permutedTokensShape = {2, 2};
  std::vector<int64_t> sortedIndicesShape = {2};
  std::vector<int64_t> routingMapShape = {2, 2};
  std::vector<int64_t> probsShape = {2, 2};
  std::vector<int64_t> unpermutedTokensShape = {2, 2};
  std::vector<int64_t> outIndexShape = {2};
  std::vector<int64_t> permuteTokenIdShape = {2};
  std::vector<int64_t> permuteProbsShape = {2};
  void *permutedTokensAddr = nullptr, *sortedIndicesAddr = nullptr, *routingMapAddr = nullptr, *probsAddr = nullptr;
  void *unpermutedTokensAddr = nullptr, *outIndexAddr = nullptr, *permuteTokenIdAddr = nullptr;
  void *permuteProbsAddr = nullptr;
  aclTensor *permutedTokens = nullptr, *sortedIndices = nullptr, *routingMap = nullptr, *probs = nullptr;
  aclTensor *unpermutedTokens = nullptr, *outIndex = nullptr, *permuteTokenId = nullptr, *permuteProbs = nullptr;
  bool paddedMode = true;
  std::vector<int64_t> restoreShapeData = {2, 2};
  aclIntArray *restoreShape = aclCreateIntArray(restoreShapeData.data(), restoreShapeData.size());

  std::vector<float> permutedTokensData = {1, 1, 1, 1};
  std::vector<int> sortedIndicesData = {1, 1};
  std::vector<char> routingMapData = {1, 1, 1, 1};
  std::vector<float> probsData = {1, 1, 1, 1};
  std::vector<float> unpermutedTokensData = {0, 0, 0, 0};
  std::vector<int> outIndexData = {0, 0};
  std::vector<int> permuteTokenIdData = {0, 0};
  std::vector<float> permuteProbsData = {0, 0};

  ret = CreateAclTensor(permutedTokensData, permutedTokensShape, &permutedTokensAddr, aclDataType::ACL_FLOAT,
                        &permutedTokens);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(sortedIndicesData, sortedIndicesShape, &sortedIndicesAddr, aclDataType::ACL_INT32,
                        &sortedIndices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(routingMapData, routingMapShape, &routingMapAddr, aclDataType::ACL_INT8, &routingMap);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(probsData, probsShape, &probsAddr, aclDataType::ACL_FLOAT, &probs);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(unpermutedTokensData, unpermutedTokensShape, &unpermutedTokensAddr, aclDataType::ACL_FLOAT,
                        &unpermutedTokens);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outIndexData, outIndexShape, &outIndexAddr, aclDataType::ACL_INT32, &outIndex);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(permuteTokenIdData, permuteTokenIdShape, &permuteTokenIdAddr, aclDataType::ACL_INT32,
                        &permuteTokenId);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(permuteProbsData, permuteProbsShape, &permuteProbsAddr, aclDataType::ACL_FLOAT,
                        &permuteProbs);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the operator: phase 1 validates and plans, phase 2 runs.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  ret = aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize(permutedTokens, sortedIndices, routingMap, probs,
                                                             paddedMode, restoreShape, unpermutedTokens, outIndex,
                                                             permuteTokenId, permuteProbs, &workspaceSize,
                                                             &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);

  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnMoeTokenUnpermuteWithRoutingMap(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenUnpermuteWithRoutingMap failed. ERROR: %d\n", ret);
            return ret);

  // 4. Wait for the stream (fixed step).
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. Copy unpermutedTokens back and print it.
  auto size = GetShapeSize(unpermutedTokensShape);
  std::vector<float> resultData(size, 0);
  ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), unpermutedTokensAddr,
                    size * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
  for (int64_t i = 0; i < size; i++) {
    LOG_PRINT("unpermutedTokensData[%ld] is: %f\n", i, resultData[i]);
  }

  // 6. Release the tensors and the int array.
  aclDestroyTensor(permutedTokens);
  aclDestroyTensor(sortedIndices);
  aclDestroyTensor(routingMap);
  aclDestroyTensor(probs);
  aclDestroyTensor(unpermutedTokens);
  aclDestroyTensor(outIndex);
  aclDestroyTensor(permuteTokenId);
  aclDestroyTensor(permuteProbs);
  aclDestroyIntArray(restoreShape);

  // 7. Release the device resources.
  aclrtFree(permutedTokensAddr);
  aclrtFree(sortedIndicesAddr);
  aclrtFree(routingMapAddr);
  aclrtFree(probsAddr);
  aclrtFree(unpermutedTokensAddr);
  aclrtFree(outIndexAddr);
  aclrtFree(permuteTokenIdAddr);
  aclrtFree(permuteProbsAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
