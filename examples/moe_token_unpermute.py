"""aclnnMoeTokenUnpermute from Python: the official C++ sample ported line by line with the mirror layer
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


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs and output: two permuted rows, both slots of one token, unit weights
    permuted_tokens_addr, permuted_tokens = create_acl_tensor(np.array([[1, 2], [3, 4]], dtype=bfloat16),
                                                              acl.ACL_BF16)
    sorted_indices_addr, sorted_indices = create_acl_tensor(np.array([0, 1], dtype=np.int32), acl.ACL_INT32)
    probs_addr, probs = create_acl_tensor(np.array([[1, 1]], dtype=bfloat16), acl.ACL_BF16)
    out_host = np.zeros((1, 2), dtype=bfloat16)
    out_addr, out = create_acl_tensor(out_host, acl.ACL_BF16)

    # 3. the two phases (paddedMode false, no restore shape)
    workspace_size, executor = aclnn.aclnnMoeTokenUnpermuteGetWorkspaceSize(
        permuted_tokens, sorted_indices, probs, False, None, out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenUnpermute(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the result back and print it
    acl.aclrtMemcpy(acl.host_ptr(out_host), out_host.nbytes, out_addr, out_host.nbytes,
                    acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for i, value in enumerate(out_host.reshape(-1)):
        print(f"mean result[{i}] is: {float(value):f}")

    # 6. release tensors and device resources
    acl.aclDestroyTensor(permuted_tokens)
    acl.aclDestroyTensor(sorted_indices)
    acl.aclDestroyTensor(probs)
    acl.aclDestroyTensor(out)
    acl.aclrtFree(permuted_tokens_addr)
    acl.aclrtFree(sorted_indices_addr)
    acl.aclrtFree(probs_addr)
    acl.aclrtFree(out_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return out_host


def high_level():
    out = aclnn_py.moe_token_unpermute(np.array([[1, 2], [3, 4]], dtype=bfloat16), np.array([0, 1], dtype=np.int32),
                                       np.array([[1, 1]], dtype=bfloat16))
    print("high-level:", out.astype(np.float32).tolist())
    return out


def main():
    ported = mirror_port()
    quick = high_level()
    assert ported.tobytes() == quick.tobytes(), "the two layers disagree"
    assert quick.astype(np.float32).tolist() == [[4.0, 6.0]], "rows [1, 2] + [3, 4] with unit weights"


if __name__ == "__main__":
    main()
