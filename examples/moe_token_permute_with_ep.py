"""aclnnMoeTokenPermuteWithEp from Python: the official C++ sample ported line by line with the mirror
layer (with genuinely BF16 tokens and probs, where the C sample copies float bytes into BF16 tensors),
then the same computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn
from aclnn_py.dtypes import bfloat16

# What a correct device computes for the sample's data (spec moe_token_permute_with_ep.md, section 5):
# the expert ids [[1, 2], [3, 1], [2, 3]] sort stably to slots [0, 3, 1, 4, 2, 5]; sortedIndicesOut
# is the rank of every slot; the window range = [1, 5) keeps sorted rows 1..4 = slots 3, 1, 4, 2, i.e.
# tokens [1, 0, 2, 1] and the probs of those slots.
EXPECTED_ROWS = [0.2, 0.1, 0.3, 0.2]
EXPECTED_SORTED_INDICES = [0, 2, 4, 1, 3, 5]
EXPECTED_PROBS = [0.2, 0.3, 0.5, 0.4]


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


def print_out_result(name, host: np.ndarray, device_addr, fmt):
    """The sample's PrintOutResult (`name[i] is: value`), one line per row instead of one per element."""
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
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

    # 2. inputs, outputs and the range attribute
    num_out_tokens = 6
    padded_mode = False
    x_addr, x = create_acl_tensor(
        np.array([[0.1] * 4, [0.2] * 4, [0.3] * 4], dtype=bfloat16), acl.ACL_BF16)
    indices_addr, indices = create_acl_tensor(np.array([[1, 2], [3, 1], [2, 3]], dtype=np.int32), acl.ACL_INT32)
    probs_addr, probs = create_acl_tensor(
        np.array([[0.5, 0.3], [0.4, 0.2], [0.5, 0.4]], dtype=bfloat16), acl.ACL_BF16)
    expanded_x_host = np.zeros((4, 4), dtype=bfloat16)
    expanded_x_out_addr, expanded_x_out = create_acl_tensor(expanded_x_host, acl.ACL_BF16)
    sorted_indices_host = np.zeros(6, dtype=np.int32)
    sorted_indices_out_addr, sorted_indices_out = create_acl_tensor(sorted_indices_host, acl.ACL_INT32)
    expanded_probs_host = np.zeros(4, dtype=bfloat16)
    expanded_probs_out_addr, expanded_probs_out = create_acl_tensor(expanded_probs_host, acl.ACL_BF16)
    range_host = [1, 5]
    range_ = acl.aclCreateIntArray(range_host, len(range_host))

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize(
        x, indices, probs, range_, num_out_tokens, padded_mode, expanded_x_out, sorted_indices_out,
        expanded_probs_out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenPermuteWithEp(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the results back and print them
    print_out_result("expandedXData", expanded_x_host, expanded_x_out_addr, "%f")
    print_out_result("sortedIndicesData", sorted_indices_host, sorted_indices_out_addr, "%d")
    print_out_result("expandedProbsData", expanded_probs_host, expanded_probs_out_addr, "%f")

    # 6. release the tensors and the attribute
    acl.aclDestroyTensor(x)
    acl.aclDestroyTensor(indices)
    acl.aclDestroyTensor(probs)
    acl.aclDestroyTensor(expanded_x_out)
    acl.aclDestroyTensor(sorted_indices_out)
    acl.aclDestroyTensor(expanded_probs_out)
    acl.aclDestroyIntArray(range_)

    # 7. release device memory and resources
    acl.aclrtFree(x_addr)
    acl.aclrtFree(indices_addr)
    acl.aclrtFree(probs_addr)
    acl.aclrtFree(expanded_x_out_addr)
    acl.aclrtFree(sorted_indices_out_addr)
    acl.aclrtFree(expanded_probs_out_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return expanded_x_host, sorted_indices_host, expanded_probs_host


def high_level():
    tokens = np.array([[0.1] * 4, [0.2] * 4, [0.3] * 4], dtype=bfloat16)
    indices = np.array([[1, 2], [3, 1], [2, 3]], dtype=np.int32)
    probs = np.array([[0.5, 0.3], [0.4, 0.2], [0.5, 0.4]], dtype=bfloat16)
    permuted, sorted_indices, permuted_probs = aclnn_py.moe_token_permute_with_ep(
        tokens, indices, probs, [1, 5], num_out_tokens=6)
    print("high-level: permute_tokens[:, 0] =", permuted[:, 0].astype(np.float32).tolist(),
          "sorted_indices =", sorted_indices.tolist(),
          "permute_probs =", permuted_probs.astype(np.float32).tolist())
    return permuted, sorted_indices, permuted_probs


def main():
    ported = mirror_port()
    expected = (np.repeat(np.array(EXPECTED_ROWS, dtype=bfloat16)[:, None], 4, axis=1),
                np.array(EXPECTED_SORTED_INDICES, dtype=np.int32),
                np.array(EXPECTED_PROBS, dtype=bfloat16))
    names = ("permuteTokensOut", "sortedIndicesOut", "permuteProbsOut")
    for name, got, want in zip(names, ported, expected):
        check(name, got, want)
    quick = high_level()
    for name, a, b in zip(names, ported, quick):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"the two layers disagree on {name}"


if __name__ == "__main__":
    main()
