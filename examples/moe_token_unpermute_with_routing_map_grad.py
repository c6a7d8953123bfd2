"""aclnnMoeTokenUnpermuteWithRoutingMapGrad from Python: the official C++ sample ported line by line with the
mirror layer, then the same computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn

# What a correct device computes for the sample (spec moe_token_unpermute_with_routing_map_grad.md, section 5):
# one token routed to both experts with probs 1, rows of ones, a gradient of ones.
EXPECTED_PERMUTED_TOKENS_GRAD = [[1.0, 1.0], [1.0, 1.0]]
EXPECTED_PROBS_GRAD = [[2.0, 2.0]]


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


def copy_and_print(name, host, device_addr):
    """The sample's PrintOutResult after its header line."""
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    print(f"{name} ")
    for i, v in enumerate(host.reshape(-1)):
        print(f"result[{i}] is: {v:f}")


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs and outputs: T = 1, H = 2, E = 2, topK = 2
    padded_mode = False
    grad_addr, grad = create_acl_tensor(np.ones((1, 2), np.float32), acl.ACL_FLOAT)
    out_index_addr, out_index = create_acl_tensor(np.array([0, 1], np.int32), acl.ACL_INT32)
    token_id_addr, token_id = create_acl_tensor(np.array([0, 0], np.int32), acl.ACL_INT32)
    routing_map_addr, routing_map = create_acl_tensor(np.ones((1, 2), np.bool_), acl.ACL_BOOL)
    permuted_addr, permuted = create_acl_tensor(np.ones((2, 2), np.float32), acl.ACL_FLOAT)
    probs_addr, probs = create_acl_tensor(np.ones((1, 2), np.float32), acl.ACL_FLOAT)
    permuted_grad_host = np.zeros((2, 2), np.float32)
    permuted_grad_addr, permuted_grad = create_acl_tensor(permuted_grad_host, acl.ACL_FLOAT)
    probs_grad_host = np.zeros((1, 2), np.float32)
    probs_grad_addr, probs_grad = create_acl_tensor(probs_grad_host, acl.ACL_FLOAT)

    # 3. the two phases (no restore shape: it is never read)
    workspace_size, executor = aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGradGetWorkspaceSize(
        grad, out_index, token_id, routing_map, permuted, probs, padded_mode, None, permuted_grad, probs_grad)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGrad(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the outputs back and print them
    copy_and_print("permutedTokensGrad", permuted_grad_host, permuted_grad_addr)
    copy_and_print("probsGrad", probs_grad_host, probs_grad_addr)

    # 6. release tensors, 7. device resources
    for t in (grad, out_index, token_id, routing_map, permuted, probs, permuted_grad, probs_grad):
        acl.aclDestroyTensor(t)
    for a in (grad_addr, out_index_addr, token_id_addr, routing_map_addr, permuted_addr, probs_addr,
              permuted_grad_addr, probs_grad_addr):
        acl.aclrtFree(a)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return permuted_grad_host, probs_grad_host


def high_level():
    permuted_grad, probs_grad = aclnn_py.moe_token_unpermute_with_routing_map_grad(
        np.ones((1, 2), np.float32), np.array([0, 1], np.int32), np.array([0, 0], np.int32), np.ones((1, 2), np.bool_),
        np.ones((2, 2), np.float32), np.ones((1, 2), np.float32), drop_and_pad=False)
    print("high-level: permuted_tokens_grad =", permuted_grad.tolist(), "probs_grad =", probs_grad.tolist())
    return permuted_grad, probs_grad


def main():
    ported = mirror_port()
    assert ported[0].tolist() == EXPECTED_PERMUTED_TOKENS_GRAD, ported[0].tolist()
    assert ported[1].tolist() == EXPECTED_PROBS_GRAD, ported[1].tolist()
    quick = high_level()
    for name, a, b in zip(("permutedTokensGrad", "probsGrad"), ported, quick):
        assert a.tobytes() == b.tobytes(), f"the two layers disagree on {name}"


if __name__ == "__main__":
    main()
