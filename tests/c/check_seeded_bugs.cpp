// Seeded bugs for check mode, in the style of the official aclnn samples: `check_seeded_bugs NAME` runs one
// scenario. Each scenario is a complete program (init, work, cleanup) with exactly one bug, on the line
// marked "// BUG: <what>" (or several "// LEAK: <what>" lines); "clean" and "events" have none.
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute.h"
#include <cstdio>
#include <cstring>
#include <string>
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

extern "C" aclnnStatus aclnnScratchCopyGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);
extern "C" aclnnStatus aclnnScratchCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

static int Init(int32_t deviceId, aclrtStream *stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

static void Finalize(int32_t deviceId, aclrtStream stream) {
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
}

// A contiguous tensor over `bytes` of fresh device memory, filled from hostData when it is not empty.
template <typename T>
static int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape, size_t bytes,
                           void **deviceAddr, aclDataType dataType, aclTensor **tensor, int64_t offset = 0) {
  auto ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  if (!hostData.empty()) {
    ret = aclrtMemcpy(*deviceAddr, bytes, hostData.data(), hostData.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  }
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), offset, aclFormat::ACL_FORMAT_ND,
                            shape.data(), shape.size(), *deviceAddr);
  return 0;
}

// The tensors of aclnnMoeTokenPermute: x (3, 4) bf16, indices (3, 2) int32 -> out (6, 4), sortedIndices (6).
struct Permute {
  void *xDev = nullptr, *idxDev = nullptr, *outDev = nullptr, *sortedDev = nullptr;
  aclTensor *x = nullptr, *idx = nullptr, *out = nullptr, *sorted = nullptr;

  int Create(bool fillX = true, size_t xBytes = 3 * 4 * 2, int64_t xOffset = 0) {
    std::vector<uint16_t> xHost(3 * 4, 0x3f80);  // bf16 1.0
    std::vector<int32_t> idxHost = {1, 2, 0, 1, 0, 2};
    int ret = CreateAclTensor(fillX ? xHost : std::vector<uint16_t>(), {3, 4}, xBytes, &xDev, ACL_BF16, &x, xOffset);
    ret = ret ? ret : CreateAclTensor(idxHost, {3, 2}, 6 * 4, &idxDev, ACL_INT32, &idx);
    ret = ret ? ret : CreateAclTensor(std::vector<uint16_t>(), {6, 4}, 6 * 4 * 2, &outDev, ACL_BF16, &out);
    ret = ret ? ret : CreateAclTensor(std::vector<int32_t>(), {6}, 6 * 4, &sortedDev, ACL_INT32, &sorted);
    return ret;
  }

  void Destroy(bool freeMemory = true) {
    aclDestroyTensor(x);
    aclDestroyTensor(idx);
    aclDestroyTensor(out);
    aclDestroyTensor(sorted);
    if (!freeMemory) return;
    for (void *p : {xDev, idxDev, outDev, sortedDev})
      if (p != nullptr) aclrtFree(p);
  }
};

static aclOpExecutor *PlanPermute(Permute &p) {
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  auto ret = aclnnMoeTokenPermuteGetWorkspaceSize(p.x, p.idx, 0, false, p.out, p.sorted, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("GetWorkspaceSize failed. ERROR: %d\n", ret); return nullptr);
  return executor;
}

static int RunPermute(Permute &p, aclrtStream stream) {
  aclOpExecutor *executor = PlanPermute(p);
  CHECK_RET(executor != nullptr, return 1);
  auto ret = aclnnMoeTokenPermute(nullptr, 0, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMoeTokenPermute failed. ERROR: %d\n", ret); return ret);
  return 0;
}

static int Clean(aclrtStream stream) {
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  CHECK_RET(RunPermute(p, stream) == 0, return 1);
  aclrtSynchronizeStream(stream);
  std::vector<uint16_t> out(6 * 4);
  aclrtMemcpy(out.data(), out.size() * 2, p.outDev, out.size() * 2, ACL_MEMCPY_DEVICE_TO_HOST);
  p.Destroy();
  return 0;
}

static int OutOfBounds(aclrtStream) {
  void *dev = nullptr;
  std::vector<char> host(128, 1);
  aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST);  // 96 bytes with the padding a device adds
  aclrtMemcpy(dev, 128, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE);  // BUG: out-of-bounds
  aclrtFree(dev);
  return 0;
}

// Legal on a device (aclrtMalloc pads 32 bytes to 64), as the official aclnnMoeTokenPermuteWithEp sample does.
static int Padding(aclrtStream) {
  void *dev = nullptr;
  std::vector<char> host(64, 1);
  aclrtMalloc(&dev, 32, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(dev, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE);  // BUG: padding-access
  aclrtFree(dev);
  return 0;
}

static int UseAfterFree(aclrtStream) {
  void *dev = nullptr;
  std::vector<char> host(64, 1);
  aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(dev, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtFree(dev);
  aclrtMemcpy(host.data(), 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST);  // BUG: use-after-free
  return 0;
}

static int DoubleFree(aclrtStream) {
  void *dev = nullptr;
  aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtFree(dev);
  aclrtFree(dev);  // BUG: double-free
  return 0;
}

static int ViewLargerThanBuffer(aclrtStream stream) {
  Permute p;
  CHECK_RET(p.Create(false, 16, 24) == 0, return 1);  // x's view: bytes [48, 72) of 16 (64 with the padding)
  aclOpExecutor *executor = PlanPermute(p);
  aclnnMoeTokenPermute(nullptr, 0, executor, stream);  // BUG: out-of-bounds
  aclrtSynchronizeStream(stream);
  p.Destroy();
  return 0;
}

static int WorkspaceTooSmall(aclrtStream stream) {
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  aclnnScratchCopyGetWorkspaceSize(p.x, p.x, &workspaceSize, &executor);
  void *workspace = nullptr;
  aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
  aclnnScratchCopy(workspace, workspaceSize / 2, executor, stream);  // BUG: workspace-too-small
  aclDestroyAclOpExecutor(executor);
  aclrtSynchronizeStream(stream);
  aclrtFree(workspace);
  p.Destroy();
  return 0;
}

static int UninitializedInput(aclrtStream stream) {
  Permute p;
  CHECK_RET(p.Create(false) == 0, return 1);  // x is never written
  aclOpExecutor *executor = PlanPermute(p);
  aclnnMoeTokenPermute(nullptr, 0, executor, stream);  // BUG: uninitialized-read
  aclrtSynchronizeStream(stream);
  p.Destroy();
  return 0;
}

static int UninitializedCopy(aclrtStream) {
  void *dev = nullptr;
  std::vector<char> host(64);
  aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemset(dev, 64, 0, 32);
  aclrtMemcpy(host.data(), 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST);  // BUG: uninitialized-read
  aclrtFree(dev);
  return 0;
}

static int ReadBeforeSync(aclrtStream stream) {
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  CHECK_RET(RunPermute(p, stream) == 0, return 1);
  std::vector<uint16_t> out(6 * 4);
  aclrtMemcpy(out.data(), out.size() * 2, p.outDev, out.size() * 2, ACL_MEMCPY_DEVICE_TO_HOST);  // BUG: host-read-before-sync
  aclrtSynchronizeStream(stream);
  p.Destroy();
  return 0;
}

static int WriteBeforeSync(aclrtStream stream) {
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  CHECK_RET(RunPermute(p, stream) == 0, return 1);
  std::vector<uint16_t> x(3 * 4, 0);
  aclrtMemcpy(p.xDev, x.size() * 2, x.data(), x.size() * 2, ACL_MEMCPY_HOST_TO_DEVICE);  // BUG: host-write-before-sync
  aclrtSynchronizeStream(stream);
  p.Destroy();
  return 0;
}

static int FreeBeforeSync(aclrtStream stream) {
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  CHECK_RET(RunPermute(p, stream) == 0, return 1);
  aclrtFree(p.outDev);  // BUG: free-with-queued-work
  p.outDev = nullptr;
  aclrtSynchronizeStream(stream);
  p.Destroy();
  return 0;
}

static int DestroyStreamBeforeSync(aclrtStream) {
  aclrtStream second = nullptr;
  aclrtCreateStream(&second);
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  CHECK_RET(RunPermute(p, second) == 0, return 1);
  aclrtDestroyStream(second);  // BUG: release-with-queued-work
  p.Destroy();
  return 0;
}

static int ResetDeviceBeforeSync(aclrtStream stream) {
  aclrtDestroyStream(stream);  // the work goes to the default stream, which the reset releases
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  CHECK_RET(RunPermute(p, nullptr) == 0, return 1);
  aclrtResetDevice(0);  // BUG: release-with-queued-work
  p.Destroy();
  aclFinalize();
  return 2;  // the device is gone: main must not finalize again
}

// x is written on one stream and read on another; with `useEvent`, an event orders them.
static int TwoStreams(aclrtStream stream, bool useEvent) {
  aclrtStream copier = nullptr;
  aclrtEvent copied = nullptr;
  aclrtCreateStream(&copier);
  aclrtCreateEventWithFlag(&copied, ACL_EVENT_SYNC);
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  std::vector<uint16_t> x(3 * 4, 0x4000);
  aclrtMemcpyAsync(p.xDev, x.size() * 2, x.data(), x.size() * 2, ACL_MEMCPY_HOST_TO_DEVICE, copier);
  if (useEvent) {
    aclrtRecordEvent(copied, copier);
    aclrtStreamWaitEvent(stream, copied);
  }
  aclOpExecutor *executor = PlanPermute(p);
  aclnnMoeTokenPermute(nullptr, 0, executor, stream);  // BUG: unordered-streams
  aclrtSynchronizeStream(stream);
  aclrtSynchronizeStream(copier);
  p.Destroy();
  aclrtDestroyEvent(copied);
  aclrtDestroyStream(copier);
  return 0;
}

static int Leaks(aclrtStream stream) {
  void *dev = nullptr;
  aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST);  // LEAK: leaked-device-memory
  aclrtStream extra = nullptr;
  aclrtCreateStream(&extra);  // LEAK: leaked-stream
  aclrtEvent event = nullptr;
  aclrtCreateEvent(&event);  // LEAK: leaked-event
  Permute p;
  CHECK_RET(p.Create() == 0, return 1);
  PlanPermute(p);  // LEAK: executor-never-run
  int64_t shape[1] = {4}, strides[1] = {1};
  aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, dev);  // LEAK: leaked-tensor
  aclrtSynchronizeStream(stream);
  p.Destroy();
  return 0;
}

int main(int argc, char **argv) {
  std::string name = argc > 1 ? argv[1] : "clean";
  int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);
  int rc;
  if (name == "clean") rc = Clean(stream);
  else if (name == "out-of-bounds") rc = OutOfBounds(stream);
  else if (name == "padding") rc = Padding(stream);
  else if (name == "use-after-free") rc = UseAfterFree(stream);
  else if (name == "double-free") rc = DoubleFree(stream);
  else if (name == "view-larger-than-buffer") rc = ViewLargerThanBuffer(stream);
  else if (name == "workspace-too-small") rc = WorkspaceTooSmall(stream);
  else if (name == "uninitialized-input") rc = UninitializedInput(stream);
  else if (name == "uninitialized-copy") rc = UninitializedCopy(stream);
  else if (name == "read-before-sync") rc = ReadBeforeSync(stream);
  else if (name == "write-before-sync") rc = WriteBeforeSync(stream);
  else if (name == "free-before-sync") rc = FreeBeforeSync(stream);
  else if (name == "destroy-stream-before-sync") rc = DestroyStreamBeforeSync(stream);
  else if (name == "reset-device-before-sync") rc = ResetDeviceBeforeSync(stream);
  else if (name == "two-streams") rc = TwoStreams(stream, false);
  else if (name == "events") rc = TwoStreams(stream, true);
  else if (name == "leaks") rc = Leaks(stream);
  else {
    LOG_PRINT("unknown scenario %s\n", name.c_str());
    rc = 1;
  }
  if (rc == 2) return 0;
  Finalize(deviceId, stream);
  return rc;
}
