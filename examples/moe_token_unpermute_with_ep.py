"""aclnnMoeTokenUnpermuteWithEp from Python: the official C++ sample ported line by line with the mirror
layer, then the same computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn

# What a correct device computes for the sample's data (spec moe_token_unpermute_with_ep.md, section 5):
# with the window range = [1, 5), slot t*2 + k of token t reads permuted row sortedIndices[t*2 + k] - 1
# when that rank lies in the window; each token sums its rows (unit probs).
EXPECTED_OUT = [[1, 1], [4, 4], [3, 3]]


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


def print_out_result(host: np.ndarray, device_addr):
    """The sample's PrintOutResult: one `mean result[i] is: value` line per element."""
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for i, v in enumerate(host.reshape(-1)):
        print(f"mean result[{i}] is: {float(v):f}")


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs, outputs and the range attribute
    permuted_tokens_addr, permuted_tokens = create_acl_tensor(
        np.array([[2, 2], [1, 1], [3, 3], [2, 2]], dtype=np.float32), acl.ACL_FLOAT)
    sorted_indices_addr, sorted_indices = create_acl_tensor(np.array([2, 0, 4, 1, 5, 3], dtype=np.int32),
                                                            acl.ACL_INT32)
    probs_addr, probs = create_acl_tensor(np.ones((3, 2), dtype=np.float32), acl.ACL_FLOAT)
    num_topk = 2
    range_host = [1, 5]
    range_ = acl.aclCreateIntArray(range_host, len(range_host))
    out_host = np.zeros((3, 2), dtype=np.float32)
    out_addr, out = create_acl_tensor(out_host, acl.ACL_FLOAT)

    # 3. the two phases (restoreShapeOptional NULL)
    workspace_size, executor = aclnn.aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize(
        permuted_tokens, sorted_indices, probs, num_topk, range_, False, None, out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenUnpermuteWithEp(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the result back and print it
    print_out_result(out_host, out_addr)

    # 6. release the tensors and the attribute
    acl.aclDestroyTensor(permuted_tokens)
    acl.aclDestroyTensor(sorted_indices)
    acl.aclDestroyTensor(probs)
    acl.aclDestroyTensor(out)
    acl.aclDestroyIntArray(range_)

    # 7. release device memory and resources
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
    out = aclnn_py.moe_token_unpermute_with_ep(
        np.array([[2, 2], [1, 1], [3, 3], [2, 2]], dtype=np.float32),
        np.array([2, 0, 4, 1, 5, 3], dtype=np.int32),
        np.ones((3, 2), dtype=np.float32), num_topk=2, range=[1, 5])
    print("high-level: out =", out.tolist())
    return out


def main():
    ported = mirror_port()
    expected = np.array(EXPECTED_OUT, dtype=np.float32)
    assert ported.tobytes() == expected.tobytes(), f"out: got {ported.tolist()}, a correct device gives {EXPECTED_OUT}"
    quick = high_level()
    assert quick.dtype == ported.dtype and quick.tobytes() == ported.tobytes(), "the two layers disagree on out"


if __name__ == "__main__":
    main()
