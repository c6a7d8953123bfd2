"""aclnnMoeTokenUnpermuteGrad from Python: the official C++ sample ported line by line with the mirror layer
(with genuinely BF16 data, where the C sample copies float bytes into BF16 tensors), then the same
computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn
from aclnn_py.dtypes import bfloat16


def create_acl_tensor(host: np.ndarray, acl_dtype):
    """The sample's CreateAclTensor: device memory, host-to-device copy, contiguous aclTensor."""
    size = host.nbytes
    device_addr = acl.aclrtMalloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.aclrtMemcpy(device_addr, size, acl.host_ptr(host), size, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    shape = list(host.shape)
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    tensor = acl.aclCreateTensor(shape, len(shape), acl_dtype, strides, 0, acl.ACL_FORMAT_ND,
                                 shape, len(shape), device_addr)
    return device_addr, tensor


def read_back(host: np.ndarray, device_addr):
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for i, value in enumerate(host.reshape(-1)):
        print(f"mean result[{i}] is: {float(value):f}")


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs and outputs: one token, three slots, every row, gradient and weight 1
    permuted_tokens_addr, permuted_tokens = create_acl_tensor(np.ones((3, 2), dtype=bfloat16), acl.ACL_BF16)
    unpermuted_tokens_grad_addr, unpermuted_tokens_grad = create_acl_tensor(np.ones((1, 2), dtype=bfloat16),
                                                                            acl.ACL_BF16)
    probs_addr, probs = create_acl_tensor(np.ones((1, 3), dtype=bfloat16), acl.ACL_BF16)
    sorted_indices_addr, sorted_indices = create_acl_tensor(np.array([0, 1, 2], dtype=np.int32), acl.ACL_INT32)
    padded_mode = False
    permuted_tokens_grad_host = np.zeros((3, 2), dtype=bfloat16)
    permuted_tokens_grad_addr, permuted_tokens_grad = create_acl_tensor(permuted_tokens_grad_host, acl.ACL_BF16)
    probs_grad_host = np.zeros((1, 3), dtype=bfloat16)
    probs_grad_addr, probs_grad = create_acl_tensor(probs_grad_host, acl.ACL_BF16)

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeTokenUnpermuteGradGetWorkspaceSize(
        permuted_tokens, unpermuted_tokens_grad, sorted_indices, probs, padded_mode, None, permuted_tokens_grad,
        probs_grad)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenUnpermuteGrad(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy both results back and print them
    read_back(permuted_tokens_grad_host, permuted_tokens_grad_addr)
    read_back(probs_grad_host, probs_grad_addr)

    # 6. release tensors and device resources
    for tensor in (permuted_tokens, unpermuted_tokens_grad, sorted_indices, probs, permuted_tokens_grad, probs_grad):
        acl.aclDestroyTensor(tensor)
    for addr in (permuted_tokens_addr, unpermuted_tokens_grad_addr, probs_addr, sorted_indices_addr,
                 permuted_tokens_grad_addr, probs_grad_addr):
        acl.aclrtFree(addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return permuted_tokens_grad_host, probs_grad_host


def high_level():
    ones = np.ones
    grads = aclnn_py.moe_token_unpermute_grad(ones((3, 2), bfloat16), ones((1, 2), bfloat16),
                                              np.array([0, 1, 2], dtype=np.int32), ones((1, 3), bfloat16))
    print("high-level:", [g.astype(np.float32).tolist() for g in grads])
    return grads


def main():
    ported = mirror_port()
    quick = high_level()
    assert all(a.tobytes() == b.tobytes() for a, b in zip(ported, quick)), "the two layers disagree"
    assert quick[0].astype(np.float32).tolist() == [[1.0, 1.0]] * 3, "each row: the gradient times its weight 1"
    assert quick[1].astype(np.float32).tolist() == [[2.0, 2.0, 2.0]], "each weight: <row, gradient> = 2"


if __name__ == "__main__":
    main()
