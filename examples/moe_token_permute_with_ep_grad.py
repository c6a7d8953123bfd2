"""aclnnMoeTokenPermuteWithEpGrad from Python: the official C++ sample ported line by line with the
mirror layer (with genuinely BF16 grads, where the C sample copies float bytes into BF16 tensors), then
the same computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn
from aclnn_py.dtypes import bfloat16

# What a correct device computes for the sample's data (spec moe_token_permute_with_ep_grad.md,
# section 5): with the window range = [1, 5), slot t*2 + k of token t reads grad row
# sortedIndices[t*2 + k] - 1 when that rank lies in the window; token grads sum over the two slots,
# probs grads are copied per slot (0 outside the window).
EXPECTED_TOKEN_GRAD = [[1, 1], [4, 4], [3, 3]]
EXPECTED_PROBS_GRAD = [[0.5, 0], [0.4, 0.2], [0, 0.4]]


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
    """The sample's PrintOutResult (`mean result[i] is: value`), one line per row."""
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    width = host.shape[-1]
    for r, row in enumerate(host.reshape(-1, width)):
        print(f"mean result[{r * width}..{(r + 1) * width - 1}] is: " + " ".join(f"{float(v):f}" for v in row))


def check(name, got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape and got.tobytes() == expected.tobytes(), \
        f"{name}: got {got.astype(np.float32).tolist()}, a correct device gives {expected.astype(np.float32).tolist()}"


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs, outputs and the range attribute
    num_topk = 2
    permuted_token_output_grad_addr, permuted_token_output_grad = create_acl_tensor(
        np.array([[2, 2], [1, 1], [3, 3], [2, 2]], dtype=bfloat16), acl.ACL_BF16)
    permuted_prob_output_grad_addr, permuted_prob_output_grad = create_acl_tensor(
        np.array([0.2, 0.5, 0.4, 0.4], dtype=bfloat16), acl.ACL_BF16)
    sorted_indices_addr, sorted_indices = create_acl_tensor(np.array([2, 0, 4, 1, 5, 3], dtype=np.int32),
                                                            acl.ACL_INT32)
    range_host = [1, 5]
    range_ = acl.aclCreateIntArray(range_host, len(range_host))
    token_out_host = np.zeros((3, 2), dtype=bfloat16)
    token_out_addr, token_out = create_acl_tensor(token_out_host, acl.ACL_BF16)
    prob_out_host = np.zeros((3, 2), dtype=bfloat16)
    prob_out_addr, prob_out = create_acl_tensor(prob_out_host, acl.ACL_BF16)

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize(
        permuted_token_output_grad, sorted_indices, permuted_prob_output_grad, num_topk, range_, False,
        token_out, prob_out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenPermuteWithEpGrad(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the results back and print them
    print_out_result(token_out_host, token_out_addr)
    print_out_result(prob_out_host, prob_out_addr)

    # 6. release the tensors and the attribute
    acl.aclDestroyTensor(permuted_token_output_grad)
    acl.aclDestroyTensor(permuted_prob_output_grad)
    acl.aclDestroyTensor(sorted_indices)
    acl.aclDestroyTensor(token_out)
    acl.aclDestroyTensor(prob_out)
    acl.aclDestroyIntArray(range_)

    # 7. release device memory and resources
    acl.aclrtFree(permuted_token_output_grad_addr)
    acl.aclrtFree(permuted_prob_output_grad_addr)
    acl.aclrtFree(sorted_indices_addr)
    acl.aclrtFree(token_out_addr)
    acl.aclrtFree(prob_out_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return token_out_host, prob_out_host


def high_level():
    token_grad, probs_grad = aclnn_py.moe_token_permute_with_ep_grad(
        np.array([[2, 2], [1, 1], [3, 3], [2, 2]], dtype=bfloat16),
        np.array([2, 0, 4, 1, 5, 3], dtype=np.int32),
        np.array([0.2, 0.5, 0.4, 0.4], dtype=bfloat16),
        num_topk=2, range=[1, 5])
    print("high-level: token_grad =", token_grad.astype(np.float32).tolist(),
          "probs_grad =", probs_grad.astype(np.float32).tolist())
    return token_grad, probs_grad


def main():
    ported = mirror_port()
    expected = (np.array(EXPECTED_TOKEN_GRAD, dtype=bfloat16), np.array(EXPECTED_PROBS_GRAD, dtype=bfloat16))
    names = ("tokenGradOut", "probsGradOut")
    for name, got, want in zip(names, ported, expected):
        check(name, got, want)
    quick = high_level()
    for name, a, b in zip(names, ported, quick):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"the two layers disagree on {name}"


if __name__ == "__main__":
    main()
