#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute.h"
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
  // 固定写法，AscendCL初始化
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T> &hostData,
                    const std::vector<int64_t> &shape, void **deviceAddr,
                    aclDataType dataType, aclTensor **tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  // 调用aclrtMalloc申请device侧内存
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret);
            return ret);
  // 调用aclrtMemcpy将host侧数据拷贝到device侧内存上
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size,
                    ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret);
            return ret);

  // 计算连续tensor的strides
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }

  // 调用aclCreateTensor接口创建aclTensor
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType,
                            strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                            shape.data(), shape.size(), *deviceAddr);
  return 0;
}

int main() {
  // 1. （固定写法）device/stream初始化，参考AscendCL对外接口列表
  // 根据自己的实际device填写deviceId
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret);
            return ret);

  // 2. 构造输入与输出，需要根据API的接口自定义构造
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
  int64_t numTokenOut = 0;
  bool padMode = false;
  aclTensor *expandedXOut = nullptr;
  aclTensor *sortedIndicesOut = nullptr;
  // float数据按BF16类型创建tensor：device按BF16解释这些字节
  std::vector<float> xHostData = {0.1, 0.1, 0.1, 0.1, 0.2, 0.2,
                                  0.2, 0.2, 0.3, 0.3, 0.3, 0.3};
  std::vector<int> indicesHostData = {1, 2, 0, 1, 0, 2};
  std::vector<float> expandedXOutHostData(24, 0);
  std::vector<int> sortedIndicesOutHostData = {0, 0, 0, 0, 0, 0};

  ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_BF16,
                        &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(indicesHostData, idxShape, &indicesDeviceAddr,
                        aclDataType::ACL_INT32, &indices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expandedXOutHostData, expandedXOutShape,
                        &expandedXOutDeviceAddr, aclDataType::ACL_BF16,
                        &expandedXOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(sortedIndicesOutHostData, idxOutShape,
                        &sortedIndicesOutDeviceAddr, aclDataType::ACL_INT32,
                        &sortedIndicesOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. 调用CANN算子库API，需要修改为具体的Api名称
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;

  // 调用aclnnMoeTokenPermute第一段接口
  ret = aclnnMoeTokenPermuteGetWorkspaceSize(x, indices, numTokenOut, padMode,
                                             expandedXOut, sortedIndicesOut,
                                             &workspaceSize, &executor);
  CHECK_RET(
      ret == ACL_SUCCESS,
      LOG_PRINT("aclnnMoeTokenPermuteGetWorkspaceSize failed. ERROR: %d\n",
                ret);
      return ret);

  // 根据第一段接口计算出的workspaceSize申请device内存
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }

  // 调用aclnnMoeTokenPermute第二段接口
  ret = aclnnMoeTokenPermute(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMoeTokenPermute failed. ERROR: %d\n", ret);
            return ret);

  // 4. （固定写法）同步等待任务执行结束
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  // 5.获取输出的值，将device侧内存上的结果拷贝至host侧，需要根据具体API的接口定义修改
  auto expandedXSize = GetShapeSize(expandedXOutShape);
  std::vector<float> expandedXData(expandedXSize, 0);
  ret = aclrtMemcpy(expandedXData.data(),
                    expandedXData.size() * sizeof(expandedXData[0]),
                    expandedXOutDeviceAddr, expandedXSize * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(
      ret == ACL_SUCCESS,
      LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
      return ret);
  for (int64_t i = 0; i < expandedXSize; i++) {
    LOG_PRINT("expandedXData[%ld] is: %f\n", i, expandedXData[i]);
  }
  auto sortedIndicesSize = GetShapeSize(idxOutShape);
  std::vector<int> sortedIndicesData(sortedIndicesSize, 0);
  ret = aclrtMemcpy(sortedIndicesData.data(),
                    sortedIndicesData.size() * sizeof(sortedIndicesData[0]),
                    sortedIndicesOutDeviceAddr,
                    sortedIndicesSize * sizeof(int32_t),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(
      ret == ACL_SUCCESS,
      LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
      return ret);
  for (int64_t i = 0; i < sortedIndicesSize; i++) {
    LOG_PRINT("sortedIndicesData[%ld] is: %d\n", i, sortedIndicesData[i]);
  }

  // 6. 释放aclTensor和aclScalar，需要根据具体API的接口定义修改
  aclDestroyTensor(x);
  aclDestroyTensor(indices);
  aclDestroyTensor(expandedXOut);
  aclDestroyTensor(sortedIndicesOut);

  // 7. 释放device资源
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
