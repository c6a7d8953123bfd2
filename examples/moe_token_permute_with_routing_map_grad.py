"""aclnnMoeTokenPermuteWithRoutingMapGrad from Python: the official C++ sample ported line by line with
the mirror layer, then the same computation in one call of the high-level API.

The official sample runs drop-and-pad mode on 4096 tokens x 7168 hidden, 256 experts of capacity 16
(FP32 grads, INT8 routing map: its data types are already right). This port keeps its structure and
data pattern (zero token grads, probs grads of 0.1, all-zero sortedIndices, an all-ones routing map,
E * capacity == tokens) at a small size, 32 tokens x 16 hidden, 16 experts of capacity 2, so that it
runs instantly."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn

NUM_TOKEN = 32       # official sample: 4096
HIDDEN_SIZE = 16     # official sample: 7168
NUM_EXPERT = 16      # official sample: 256
NUM_CAPACITY = 2     # official sample: 16


def expected_outputs():
    """What a correct device computes (spec moe_token_permute_with_routing_map_grad.md, section 5): all
    token grads are 0 and all go to token 0; permuted row i (expert i // capacity) sends its probs grad
    0.1 to (token 0, expert i // capacity), so row 0 of probsGradOut is 0.1 everywhere, the rest 0."""
    tokens_grad = np.zeros((NUM_TOKEN, HIDDEN_SIZE), dtype=np.float32)
    probs_grad = np.zeros((NUM_TOKEN, NUM_EXPERT), dtype=np.float32)
    probs_grad[0, :] = np.float32(0.1)
    return tokens_grad, probs_grad


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
    """The sample's PrintOutResult: copy the whole output back, print its first 10 elements."""
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    first = host.reshape(-1)[:10]
    print("result[0..9] is: " + " ".join(f"{float(v):f}" for v in first))


def show(a):
    return a.astype(np.float32).tolist()


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
    permuted_output_grad_addr, permuted_output_grad = create_acl_tensor(
        np.zeros((NUM_EXPERT * NUM_CAPACITY, HIDDEN_SIZE), dtype=np.float32), acl.ACL_FLOAT)
    permuted_probs_output_grad_addr, permuted_probs_output_grad = create_acl_tensor(
        np.full(NUM_EXPERT * NUM_CAPACITY, 0.1, dtype=np.float32), acl.ACL_FLOAT)
    # All zeros (the hicann mirror's older copy of the sample first tries to read ./sortedIndices.bin,
    # which is not shipped, and keeps these zeros; the newest doc's version, in examples/c, has no read).
    sorted_indices_addr, sorted_indices = create_acl_tensor(
        np.zeros(NUM_EXPERT * NUM_CAPACITY, dtype=np.int32), acl.ACL_INT32)
    routing_map_addr, routing_map = create_acl_tensor(
        np.ones((NUM_TOKEN, NUM_EXPERT), dtype=np.int8), acl.ACL_INT8)
    out_host = np.zeros((NUM_TOKEN, HIDDEN_SIZE), dtype=np.float32)
    out_addr, out = create_acl_tensor(out_host, acl.ACL_FLOAT)
    out2_host = np.zeros((NUM_TOKEN, NUM_EXPERT), dtype=np.float32)
    out2_addr, out2 = create_acl_tensor(out2_host, acl.ACL_FLOAT)

    # 3. the two phases (dropAndPad = true)
    workspace_size, executor = aclnn.aclnnMoeTokenPermuteWithRoutingMapGradGetWorkspaceSize(
        permuted_output_grad, permuted_probs_output_grad, sorted_indices, routing_map, NUM_EXPERT, NUM_TOKEN, True,
        out, out2)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenPermuteWithRoutingMapGrad(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the results back and print the first 10 values of each
    print_out_result(out_host, out_addr)
    print_out_result(out2_host, out2_addr)

    # 6. release tensors and device resources
    acl.aclDestroyTensor(permuted_output_grad)
    acl.aclDestroyTensor(permuted_probs_output_grad)
    acl.aclDestroyTensor(sorted_indices)
    acl.aclDestroyTensor(routing_map)
    acl.aclDestroyTensor(out)
    acl.aclDestroyTensor(out2)
    acl.aclrtFree(permuted_output_grad_addr)
    acl.aclrtFree(permuted_probs_output_grad_addr)
    acl.aclrtFree(sorted_indices_addr)
    acl.aclrtFree(routing_map_addr)
    acl.aclrtFree(out_addr)
    acl.aclrtFree(out2_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return out_host, out2_host


def high_level():
    tokens_grad, probs_grad = aclnn_py.moe_token_permute_with_routing_map_grad(
        np.zeros((NUM_EXPERT * NUM_CAPACITY, HIDDEN_SIZE), dtype=np.float32),
        np.full(NUM_EXPERT * NUM_CAPACITY, 0.1, dtype=np.float32),
        np.zeros(NUM_EXPERT * NUM_CAPACITY, dtype=np.int32),
        np.ones((NUM_TOKEN, NUM_EXPERT), dtype=np.int8),
        num_experts=NUM_EXPERT, tokens_num=NUM_TOKEN, drop_and_pad=True)
    print(f"high-level: tokens_grad {tokens_grad.shape} sum = {float(tokens_grad.sum()):f}, "
          f"probs_grad {probs_grad.shape} row 0 = {float(probs_grad[0, 0]):f} x {NUM_EXPERT}, "
          f"other rows sum = {float(probs_grad[1:].sum()):f}")
    return tokens_grad, probs_grad


def main():
    ported = mirror_port()
    expected = expected_outputs()
    check("tokensGradOut", ported[0], expected[0])
    check("probsGradOutOptional", ported[1], expected[1])
    quick = high_level()
    for name, a, b in zip(("tokensGradOut", "probsGradOutOptional"), ported, quick):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"the two layers disagree on {name}"


if __name__ == "__main__":
    main()
