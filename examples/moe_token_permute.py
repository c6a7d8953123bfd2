"""aclnnMoeTokenPermute from Python: the official C++ sample ported line by line with the mirror layer
(with genuinely BF16 tokens, where the C sample copies float bytes into a BF16 tensor), then the same
computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn
from aclnn_py.dtypes import bfloat16

# What a correct device computes for the sample's data (spec moe_token_permute.md, section 6): the
# expert ids [[1, 2], [0, 1], [0, 2]] sort stably to slots [2, 4, 0, 3, 1, 5], i.e. token rows
# [1, 2, 0, 1, 0, 2], and sortedIndicesOut is that permutation's inverse (here the same list).
EXPECTED_ROWS = [0.2, 0.3, 0.1, 0.2, 0.1, 0.3]
EXPECTED_SORTED_INDICES = [2, 4, 0, 3, 1, 5]


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


def copy_to_host(host: np.ndarray, device_addr):
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)


def print_result(name, host, fmt):
    """The sample's print loop (`name[i] is: value`), one line per row instead of one per element."""
    rows = host.reshape(-1, host.shape[-1]) if host.ndim > 1 else host.reshape(1, -1)
    width = rows.shape[1]
    for r, row in enumerate(rows):
        values = " ".join(fmt % (int(v) if fmt == "%d" else float(v)) for v in row)
        print(f"{name}[{r * width}..{(r + 1) * width - 1}] is: {values}")


def show(a):
    return a.tolist() if a.dtype.kind in "iub" else a.astype(np.float32).tolist()


def check(name, got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape and got.tobytes() == expected.tobytes(), \
        f"{name}: got {show(got)}, a correct device gives {show(expected)}"


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs and outputs
    num_token_out = 0
    pad_mode = False
    x_addr, x = create_acl_tensor(
        np.array([[0.1] * 4, [0.2] * 4, [0.3] * 4], dtype=bfloat16), acl.ACL_BF16)
    indices_addr, indices = create_acl_tensor(np.array([[1, 2], [0, 1], [0, 2]], dtype=np.int32), acl.ACL_INT32)
    expanded_x_host = np.zeros((6, 4), dtype=bfloat16)
    expanded_x_out_addr, expanded_x_out = create_acl_tensor(expanded_x_host, acl.ACL_BF16)
    sorted_indices_host = np.zeros(6, dtype=np.int32)
    sorted_indices_out_addr, sorted_indices_out = create_acl_tensor(sorted_indices_host, acl.ACL_INT32)

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeTokenPermuteGetWorkspaceSize(
        x, indices, num_token_out, pad_mode, expanded_x_out, sorted_indices_out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenPermute(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the results back and print them
    copy_to_host(expanded_x_host, expanded_x_out_addr)
    print_result("expandedXData", expanded_x_host, "%f")
    copy_to_host(sorted_indices_host, sorted_indices_out_addr)
    print_result("sortedIndicesData", sorted_indices_host, "%d")

    # 6. release tensors and device resources
    acl.aclDestroyTensor(x)
    acl.aclDestroyTensor(indices)
    acl.aclDestroyTensor(expanded_x_out)
    acl.aclDestroyTensor(sorted_indices_out)
    acl.aclrtFree(x_addr)
    acl.aclrtFree(indices_addr)
    acl.aclrtFree(expanded_x_out_addr)
    acl.aclrtFree(sorted_indices_out_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return expanded_x_host, sorted_indices_host


def high_level():
    x = np.array([[0.1] * 4, [0.2] * 4, [0.3] * 4], dtype=bfloat16)
    indices = np.array([[1, 2], [0, 1], [0, 2]], dtype=np.int32)
    permuted, sorted_indices = aclnn_py.moe_token_permute(x, indices, num_out_tokens=0, padded_mode=False)
    print("high-level: permute_tokens[:, 0] =", permuted[:, 0].astype(np.float32).tolist(),
          "sorted_indices =", sorted_indices.tolist())
    return permuted, sorted_indices


def main():
    ported = mirror_port()
    expected = (np.repeat(np.array(EXPECTED_ROWS, dtype=bfloat16)[:, None], 4, axis=1),
                np.array(EXPECTED_SORTED_INDICES, dtype=np.int32))
    check("permuteTokensOut", ported[0], expected[0])
    check("sortedIndicesOut", ported[1], expected[1])
    quick = high_level()
    for name, a, b in zip(("permuteTokensOut", "sortedIndicesOut"), ported, quick):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"the two layers disagree on {name}"


if __name__ == "__main__":
    main()
