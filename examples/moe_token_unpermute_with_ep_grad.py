"""aclnnMoeTokenUnpermuteWithEpGrad from Python: the official C++ sample ported line by line with the
mirror layer (with genuinely BF16 data, where the C sample copies float bytes into BF16 tensors), then the
same call through the high-level API, and the call with an explicit window, which the backward of an
expert-parallel rank needs."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn
from aclnn_py.dtypes import bfloat16

# What a correct device computes for the sample's data (spec moe_token_unpermute_with_ep_grad.md,
# section 5): the sample passes rangeOptional NULL, which the generated API replaces by the OpDef default
# [-1, -1], an empty window: no row of permutedTokensGrad is written (it keeps its zeros) and every
# probs gradient is the dot product with a row of zeros, +0.0.
EXPECTED_PERMUTED_TOKENS_GRAD = [[0, 0], [0, 0], [0, 0]]
EXPECTED_PROBS_GRAD = [[0, 0, 0]]
# With the window [0, 3) every slot is valid: the grads are g * prob per row and <x_row, g> per slot.
EXPECTED_WINDOW = ([[1, 1], [1, 1], [1, 1]], [[2, 2, 2]])


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


def check(name, got, expected):
    expected = np.array(expected, dtype=got.dtype)
    assert got.shape == expected.shape and got.tobytes() == expected.tobytes(), \
        f"{name}: got {got.astype(np.float32).tolist()}, a correct device gives {expected.astype(np.float32).tolist()}"


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs and outputs
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

    # 3. the two phases (restoreShapeOptional and rangeOptional NULL, topkNum 1)
    workspace_size, executor = aclnn.aclnnMoeTokenUnpermuteWithEpGradGetWorkspaceSize(
        unpermuted_tokens_grad, sorted_indices, permuted_tokens, probs, padded_mode, None, None, 1,
        permuted_tokens_grad, probs_grad)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenUnpermuteWithEpGrad(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the results back and print them
    print_out_result(permuted_tokens_grad_host, permuted_tokens_grad_addr)
    print_out_result(probs_grad_host, probs_grad_addr)

    # 6. release the tensors
    acl.aclDestroyTensor(permuted_tokens)
    acl.aclDestroyTensor(unpermuted_tokens_grad)
    acl.aclDestroyTensor(sorted_indices)
    acl.aclDestroyTensor(probs)
    acl.aclDestroyTensor(permuted_tokens_grad)
    acl.aclDestroyTensor(probs_grad)

    # 7. release device memory and resources
    acl.aclrtFree(permuted_tokens_addr)
    acl.aclrtFree(unpermuted_tokens_grad_addr)
    acl.aclrtFree(probs_addr)
    acl.aclrtFree(sorted_indices_addr)
    acl.aclrtFree(permuted_tokens_grad_addr)
    acl.aclrtFree(probs_grad_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return permuted_tokens_grad_host, probs_grad_host


def high_level(window):
    ptg, pg = aclnn_py.moe_token_unpermute_with_ep_grad(
        np.ones((1, 2), dtype=bfloat16), np.array([0, 1, 2], dtype=np.int32), np.ones((3, 2), dtype=bfloat16),
        np.ones((1, 3), dtype=bfloat16), range=window)
    print(f"high-level, range={window}: permuted_tokens_grad =", ptg.astype(np.float32).tolist(),
          "probs_grad =", pg.astype(np.float32).tolist())
    return ptg, pg


def main():
    ptg, pg = mirror_port()
    check("permutedTokensGradOut", ptg, EXPECTED_PERMUTED_TOKENS_GRAD)
    check("probsGradOut", pg, EXPECTED_PROBS_GRAD)
    quick_ptg, quick_pg = high_level(None)  # an empty window: no permuted row at all
    assert quick_ptg.shape == (0, 2) and quick_pg.tobytes() == pg.tobytes(), "the two layers disagree"
    window_ptg, window_pg = high_level([0, 3])
    check("permutedTokensGradOut, range [0, 3)", window_ptg, EXPECTED_WINDOW[0])
    check("probsGradOut, range [0, 3)", window_pg, EXPECTED_WINDOW[1])


if __name__ == "__main__":
    main()
