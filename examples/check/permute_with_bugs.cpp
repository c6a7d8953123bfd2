// A MoE permute step with bugs that a run on the CPU does not show, and `python -m aclnn_py check` does
// (README, "Checking a program"). Build: g++ -g permute_with_bugs.cpp $(python -m aclnn_py config --cflags --libs)
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute.h"
#include <cstdio>
#include <vector>

static aclTensor *Tensor(std::vector<int64_t> shape, aclDataType dtype, void *data) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = (int)shape.size() - 2; i >= 0; i--) strides[i] = strides[i + 1] * shape[i + 1];
  return aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                         shape.size(), data);
}

int main() {
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream;
  aclrtCreateStream(&stream);

  std::vector<uint16_t> tokens(3 * 4, 0x3f80);  // 3 tokens of hidden size 4, bf16 1.0
  std::vector<int32_t> experts = {1, 2, 0, 1, 0, 2};  // top-2 experts of each token
  void *x, *idx, *out, *order;
  aclrtMalloc(&x, 24, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&idx, 24, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&out, 48, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&order, 24, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(x, 24, tokens.data(), 24, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemcpy(idx, 24, experts.data(), experts.size() * 2, ACL_MEMCPY_HOST_TO_DEVICE);  // bf16's size, not int32's
  aclTensor *tx = Tensor({3, 4}, ACL_BF16, x), *ti = Tensor({3, 2}, ACL_INT32, idx);
  aclTensor *tout = Tensor({6, 4}, ACL_BF16, out), *torder = Tensor({6}, ACL_INT32, order);

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  aclnnMoeTokenPermuteGetWorkspaceSize(tx, ti, 0, false, tout, torder, &workspaceSize, &executor);
  aclnnMoeTokenPermute(nullptr, 0, executor, stream);

  std::vector<uint16_t> result(6 * 4);
  aclrtMemcpy(result.data(), 48, out, 48, ACL_MEMCPY_DEVICE_TO_HOST);  // no aclrtSynchronizeStream first
  printf("first element: 0x%04x\n", result[0]);

  aclDestroyTensor(tx);
  aclDestroyTensor(ti);
  aclDestroyTensor(tout);  // torder is never destroyed
  for (void *p : {x, idx, out, order}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
