#include "acl/acl.h"
#include "aclnnop/aclnn_moe_init_routing_v3.h"
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

// Prints n elements of a device buffer of element type T after copying them to the host.
template <typename T>
int PrintDeviceData(const char *name, const char *format, void *deviceAddr, int64_t n) {
  std::vector<T> hostData(n, 0);
  auto ret = aclrtMemcpy(hostData.data(), hostData.size() * sizeof(T), deviceAddr,
                         n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(
      ret == ACL_SUCCESS,
      LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
      return ret);
  for (int64_t i = 0; i < n; i++) {
    LOG_PRINT("%s[%ld] is: ", name, i);
    LOG_PRINT(format, hostData[i]);
    LOG_PRINT("\n");
  }
  return 0;
}

int main() {
  // 1. （固定写法）device/stream初始化，参考AscendCL对外接口列表
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret);
            return ret);

  // 2. 构造输入与输出: the official data, with expandedX declared as x's type (FLOAT)
  // since quantMode = -1 copies rows unchanged, a one-element offset, and INT64 counts read as INT64.
  std::vector<int64_t> xShape = {3, 2};
  std::vector<int64_t> expertIdxShape = {3, 4};
  std::vector<int64_t> scaleShape = {3};
  std::vector<int64_t> offsetShape = {1};
  std::vector<int64_t> expandedXOutShape = {12, 2};
  std::vector<int64_t> expandedRowIdxOutShape = {12};
  std::vector<int64_t> expertTokensCountOrCumsumOutShape = {4};
  std::vector<int64_t> expandedScaleOutShape = {12};
  std::vector<int64_t> activeExpertRangeArray = {0, 4};
  void *xDeviceAddr = nullptr;
  void *expertIdxDeviceAddr = nullptr;
  void *scaleDeviceAddr = nullptr;
  void *offsetDeviceAddr = nullptr;
  void *expandedXOutDeviceAddr = nullptr;
  void *expandedRowIdxOutDeviceAddr = nullptr;
  void *expertTokensCountOrCumsumOutDeviceAddr = nullptr;
  void *expandedScaleOutDeviceAddr = nullptr;
  aclTensor *x = nullptr;
  aclTensor *expertIdx = nullptr;
  aclTensor *scale = nullptr;
  aclTensor *offset = nullptr;
  aclTensor *expandedXOut = nullptr;
  aclTensor *expandedRowIdxOut = nullptr;
  aclTensor *expertTokensCountOrCumsumOut = nullptr;
  aclTensor *expandedScaleOut = nullptr;
  int64_t activeNum = 12;
  int64_t expertCapacity = 4;
  int64_t expertNum = 256;
  int64_t dropPadMode = 0;
  int64_t expertTokensNumType = 1;
  bool expertTokensNumFlag = true;
  int64_t quantMode = -1;
  int64_t rowIdxType = 1;
  aclIntArray *activeExpertRange =
      aclCreateIntArray(activeExpertRangeArray.data(), activeExpertRangeArray.size());
  CHECK_RET(activeExpertRange != nullptr, LOG_PRINT("aclCreateIntArray failed.\n"); return -1);
  std::vector<float> xHostData = {0.1, 0.1, 0.2, 0.2, 0.3, 0.3};
  std::vector<int> expertIdxHostData = {1, 2, 0, 3, 0, 2, 1, 3, 0, 1, 3, 2};
  std::vector<float> scaleHostData = {0.3423, 0.1652, 0.2652};
  std::vector<float> offsetHostData = {1.8369};
  std::vector<float> expandedXOutHostData(24, 0);
  std::vector<int> expandedRowIdxOutHostData(12, 0);
  std::vector<int64_t> expertTokensCountOrCumsumOutHostData(4, 0);
  std::vector<float> expandedScaleOutHostData(12, 0);

  ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT, &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expertIdxHostData, expertIdxShape, &expertIdxDeviceAddr,
                        aclDataType::ACL_INT32, &expertIdx);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(scaleHostData, scaleShape, &scaleDeviceAddr, aclDataType::ACL_FLOAT, &scale);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(offsetHostData, offsetShape, &offsetDeviceAddr, aclDataType::ACL_FLOAT, &offset);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expandedXOutHostData, expandedXOutShape, &expandedXOutDeviceAddr,
                        aclDataType::ACL_FLOAT, &expandedXOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expandedRowIdxOutHostData, expandedRowIdxOutShape, &expandedRowIdxOutDeviceAddr,
                        aclDataType::ACL_INT32, &expandedRowIdxOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expertTokensCountOrCumsumOutHostData, expertTokensCountOrCumsumOutShape,
                        &expertTokensCountOrCumsumOutDeviceAddr, aclDataType::ACL_INT64,
                        &expertTokensCountOrCumsumOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(expandedScaleOutHostData, expandedScaleOutShape, &expandedScaleOutDeviceAddr,
                        aclDataType::ACL_FLOAT, &expandedScaleOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. 调用CANN算子库API
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  ret = aclnnMoeInitRoutingV3GetWorkspaceSize(
      x, expertIdx, scale, offset, activeNum, expertCapacity, expertNum, dropPadMode,
      expertTokensNumType, expertTokensNumFlag, quantMode, activeExpertRange, rowIdxType,
      expandedXOut, expandedRowIdxOut, expertTokensCountOrCumsumOut, expandedScaleOut,
      &workspaceSize, &executor);
  CHECK_RET(
      ret == ACL_SUCCESS,
      LOG_PRINT("aclnnMoeInitRoutingV3GetWorkspaceSize failed. ERROR: %d\n", ret);
      return ret);
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnMoeInitRoutingV3(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMoeInitRoutingV3 failed. ERROR: %d\n", ret);
            return ret);

  // 4. （固定写法）同步等待任务执行结束
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  // 5. 获取输出的值
  ret = PrintDeviceData<float>("expandedXData", "%f", expandedXOutDeviceAddr,
                               GetShapeSize(expandedXOutShape));
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = PrintDeviceData<int32_t>("expandedRowIdxData", "%d", expandedRowIdxOutDeviceAddr,
                                 GetShapeSize(expandedRowIdxOutShape));
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = PrintDeviceData<int64_t>("expertTokenIdxData", "%ld", expertTokensCountOrCumsumOutDeviceAddr,
                                 GetShapeSize(expertTokensCountOrCumsumOutShape));
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = PrintDeviceData<float>("dynamicQuantScaleData", "%f", expandedScaleOutDeviceAddr,
                               GetShapeSize(expandedScaleOutShape));
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 6. 释放aclTensor和aclIntArray
  aclDestroyTensor(x);
  aclDestroyTensor(expertIdx);
  aclDestroyTensor(scale);
  aclDestroyTensor(offset);
  aclDestroyTensor(expandedXOut);
  aclDestroyTensor(expandedRowIdxOut);
  aclDestroyTensor(expertTokensCountOrCumsumOut);
  aclDestroyTensor(expandedScaleOut);
  aclDestroyIntArray(activeExpertRange);

  // 7. 释放device资源
  aclrtFree(xDeviceAddr);
  aclrtFree(expertIdxDeviceAddr);
  aclrtFree(scaleDeviceAddr);
  aclrtFree(offsetDeviceAddr);
  aclrtFree(expandedXOutDeviceAddr);
  aclrtFree(expandedRowIdxOutDeviceAddr);
  aclrtFree(expertTokensCountOrCumsumOutDeviceAddr);
  aclrtFree(expandedScaleOutDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();

  return 0;
}
