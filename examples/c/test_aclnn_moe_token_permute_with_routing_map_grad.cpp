/*
 * Official-style sample of aclnnMoeTokenPermuteWithRoutingMapGrad (spec ops/moe_token_permute_with_routing_map_grad.md,
 * section 5), the newest documentation's version: 4096 tokens, hidden size 7168, 256 experts of capacity 16, pad mode.
 * Every grad row is 0 and every sorted index is 0, so all rows go to token 0: tokensGradOut[0, :] is 0 and row 0 of
 * probsGradOut holds 0.1 for every expert. The program prints the first 10 values of each output.
 */
#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map_grad.h"
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
  for (int64_t i = 0; i < 10; i++) {
    LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
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
  int64_t num_token = 4096;
  int64_t hidden_size = 7168;
  int64_t num_expert = 256;
  int64_t num_capacity = 16;
  std::vector<float> permuted_output_grad_Data(num_expert * num_capacity * hidden_size, 0);
  std::vector<int64_t> permuted_output_grad_Shape = {num_expert * num_capacity, hidden_size};
  void *permuted_output_grad_Addr = nullptr;
  aclTensor *permuted_output_grad = nullptr;
  ret = CreateAclTensor(permuted_output_grad_Data, permuted_output_grad_Shape, &permuted_output_grad_Addr,
                        aclDataType::ACL_FLOAT, &permuted_output_grad);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<float> permutedProbsOutputGradOptional(num_expert * num_capacity, 0.1);
  std::vector<int64_t> permutedProbsOutputGradOptionalShape = {num_expert * num_capacity};
  void *permutedProbsOutputGrad_Addr = nullptr;
  aclTensor *ppermutedProbsOutputGrad = nullptr;
  ret = CreateAclTensor(permutedProbsOutputGradOptional, permutedProbsOutputGradOptionalShape,
                        &permutedProbsOutputGrad_Addr, aclDataType::ACL_FLOAT, &ppermutedProbsOutputGrad);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<int> sortedIndicesData(num_expert * num_capacity, 0);
  std::vector<int64_t> sortedIndicesShape = {num_expert * num_capacity};
  void *sortedIndicesAddr = nullptr;
  aclTensor *sortedIndices = nullptr;
  ret = CreateAclTensor(sortedIndicesData, sortedIndicesShape, &sortedIndicesAddr, aclDataType::ACL_INT32,
                        &sortedIndices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<char> routingMapOptionalData(num_token * num_expert, 1);
  std::vector<int64_t> routingMapOptionalShape = {num_token, num_expert};
  void *routingMapOptionalAddr = nullptr;
  aclTensor *proutingMapOptional = nullptr;
  ret = CreateAclTensor(routingMapOptionalData, routingMapOptionalShape, &routingMapOptionalAddr,
                        aclDataType::ACL_INT8, &proutingMapOptional);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<float> outData(num_token * hidden_size, 0.0f);
  std::vector<int64_t> outShape = {num_token, hidden_size};
  void *outAddr = nullptr;
  aclTensor *out = nullptr;
  ret = CreateAclTensor(outData, outShape, &outAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<float> outData2(num_token * num_expert, 0.0f);
  std::vector<int64_t> outShape2 = {num_token, num_expert};
  void *outAddr2 = nullptr;
  aclTensor *out2 = nullptr;
  ret = CreateAclTensor(outData2, outShape2, &outAddr2, aclDataType::ACL_FLOAT, &out2);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the operator: phase 1 validates and plans, phase 2 runs.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  ret = aclnnMoeTokenPermuteWithRoutingMapGradGetWorkspaceSize(permuted_output_grad, ppermutedProbsOutputGrad,
                                                               sortedIndices, proutingMapOptional, num_expert,
                                                               num_token, true, out, out2, &workspaceSize,
                                                               &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMoeTokenPermuteWithRoutingMapGradGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);

  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }

  ret = aclnnMoeTokenPermuteWithRoutingMapGrad(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermuteWithRoutingMapGrad failed. ERROR: %d\n", ret);
            return ret);

  // 4. Wait for the stream (fixed step).
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. Copy the outputs back and print the first values of each.
  PrintOutResult(outShape, &outAddr);
  PrintOutResult(outShape2, &outAddr2);

  // 6. Release the tensors.
  aclDestroyTensor(permuted_output_grad);
  aclDestroyTensor(ppermutedProbsOutputGrad);
  aclDestroyTensor(sortedIndices);
  aclDestroyTensor(proutingMapOptional);
  aclDestroyTensor(out);
  aclDestroyTensor(out2);

  // 7. Release the device resources.
  aclrtFree(permuted_output_grad_Addr);
  aclrtFree(permutedProbsOutputGrad_Addr);
  aclrtFree(sortedIndicesAddr);
  aclrtFree(routingMapOptionalAddr);
  aclrtFree(outAddr);
  aclrtFree(outAddr2);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();

  return 0;
}
