"""aclnnMoeTokenUnpermuteWithRoutingMap from Python: the official C++ sample ported line by line with the
mirror layer, then the same computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn

# What a correct device computes for the sample (spec moe_token_unpermute_with_routing_map.md, section 5):
# padded mode, both experts (capacity 1) hold token 1, unit probs: token 1 gets both rows, token 0 none.
EXPECTED_UNPERMUTED = [[0.0, 0.0], [2.0, 2.0]]


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

    # 2. inputs and outputs
    pad_mode = True
    restore_shape = acl.aclCreateIntArray([2, 2], 2)
    permuted_tokens_addr, permuted_tokens = create_acl_tensor(np.ones((2, 2), np.float32), acl.ACL_FLOAT)
    sorted_indices_addr, sorted_indices = create_acl_tensor(np.array([1, 1], np.int32), acl.ACL_INT32)
    routing_map_addr, routing_map = create_acl_tensor(np.ones((2, 2), np.int8), acl.ACL_INT8)
    probs_addr, probs = create_acl_tensor(np.ones((2, 2), np.float32), acl.ACL_FLOAT)
    unpermuted_host = np.zeros((2, 2), np.float32)
    unpermuted_addr, unpermuted = create_acl_tensor(unpermuted_host, acl.ACL_FLOAT)
    out_index_addr, out_index = create_acl_tensor(np.zeros(2, np.int32), acl.ACL_INT32)
    token_id_addr, token_id = create_acl_tensor(np.zeros(2, np.int32), acl.ACL_INT32)
    permute_probs_addr, permute_probs = create_acl_tensor(np.zeros(2, np.float32), acl.ACL_FLOAT)

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize(
        permuted_tokens, sorted_indices, routing_map, probs, pad_mode, restore_shape, unpermuted, out_index, token_id,
        permute_probs)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeTokenUnpermuteWithRoutingMap(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy unpermutedTokens back and print it
    acl.aclrtMemcpy(acl.host_ptr(unpermuted_host), unpermuted_host.nbytes, unpermuted_addr, unpermuted_host.nbytes,
                    acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for i, v in enumerate(unpermuted_host.reshape(-1)):
        print(f"unpermutedTokensData[{i}] is: {v:f}")

    # 6. release tensors and the int array, 7. device resources
    for t in (permuted_tokens, sorted_indices, routing_map, probs, unpermuted, out_index, token_id, permute_probs):
        acl.aclDestroyTensor(t)
    acl.aclDestroyIntArray(restore_shape)
    for a in (permuted_tokens_addr, sorted_indices_addr, routing_map_addr, probs_addr, unpermuted_addr,
              out_index_addr, token_id_addr, permute_probs_addr):
        acl.aclrtFree(a)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return unpermuted_host


def high_level():
    unpermuted, out_index, token_id, permute_probs = aclnn_py.moe_token_unpermute_with_routing_map(
        np.ones((2, 2), np.float32), np.array([1, 1], np.int32), np.ones((2, 2), np.int8),
        np.ones((2, 2), np.float32), padded_mode=True, restore_shape=[2, 2])
    print("high-level: unpermuted =", unpermuted.tolist(), "out_index =", out_index.tolist(),
          "permute_token_id =", token_id.tolist(), "permute_probs =", permute_probs.tolist())
    return unpermuted


def main():
    ported = mirror_port()
    assert ported.tolist() == EXPECTED_UNPERMUTED, f"got {ported.tolist()}, a correct device gives " \
                                                   f"{EXPECTED_UNPERMUTED}"
    quick = high_level()
    assert quick.tobytes() == ported.tobytes(), "the two layers disagree on unpermutedTokens"


if __name__ == "__main__":
    main()
