"""aclnnMoeFinalizeRoutingV2 from Python: the official C++ sample ported line by line with the mirror
layer (its host data already match the declared FLOAT/INT32 dtypes), then the same computation in one call
of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn

EXPANDED_X = np.array([[0.1, 1.1, 2.1, 3.1], [4.1, 5.1, 6.1, 7.1], [8.1, 9.1, 10.1, 11.1]] * 2, dtype=np.float32)
X1 = np.array([[0.2, 1.2, 2.2, 3.2], [4.2, 5.2, 6.2, 7.2], [8.2, 9.2, 10.2, 11.2]], dtype=np.float32)
BIAS = np.array([[0.2, 0.4, 0.2, 0.4], [0.2, 0.4, 0.2, 0.4]], dtype=np.float32)
SCALES = np.array([[1.3, 1.6], [1.2, 1.8], [1.2, 2.3]], dtype=np.float32)
EXPERT_IDX = np.array([[0, 1], [0, 1], [0, 1]], dtype=np.int32)
ROW_IDX = np.array([2, 1, 4, 3, 0, 5], dtype=np.int32)


def expected_out():
    """What a correct device computes (spec moe_finalize_routing_v2.md, section 5): dropPadMode 0 reads the
    rows of token i at expandedRowIdx[i] and [i + 3]; out[i] = ((x1 + x2) + (row + bias) * scale) + ...,
    every operation rounded to float32 in that order."""
    f = np.float32
    out = np.empty((3, 4), f)
    for i in range(3):
        acc = X1[i] + X1[i]
        for k in range(2):
            e = EXPERT_IDX[i, k]
            acc = acc + (EXPANDED_X[ROW_IDX[i + 3 * k]] + BIAS[e]) * SCALES[i, k]
        out[i] = acc
    return out


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

    # 2. inputs and outputs (N = 3, K = 2, H = 4, E = 2)
    expanded_x_addr, expanded_x = create_acl_tensor(EXPANDED_X, acl.ACL_FLOAT)
    x1_addr, x1 = create_acl_tensor(X1, acl.ACL_FLOAT)
    x2_addr, x2_optional = create_acl_tensor(X1.copy(), acl.ACL_FLOAT)
    bias_addr, bias = create_acl_tensor(BIAS, acl.ACL_FLOAT)
    scales_addr, scales = create_acl_tensor(SCALES, acl.ACL_FLOAT)
    expert_idx_addr, expanded_expert_idx = create_acl_tensor(EXPERT_IDX, acl.ACL_INT32)
    row_idx_addr, expanded_row_idx = create_acl_tensor(ROW_IDX, acl.ACL_INT32)
    out_host = np.zeros((3, 4), dtype=np.float32)
    out_addr, out = create_acl_tensor(out_host, acl.ACL_FLOAT)
    drop_pad_mode = 0

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeFinalizeRoutingV2GetWorkspaceSize(
        expanded_x, expanded_row_idx, x1, x2_optional, bias, scales, expanded_expert_idx, drop_pad_mode, out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeFinalizeRoutingV2(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the result back and print it
    acl.aclrtMemcpy(acl.host_ptr(out_host), out_host.nbytes, out_addr, out_host.nbytes,
                    acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for i, value in enumerate(out_host.reshape(-1)):
        print(f"result[{i}] is: {float(value):f}")

    # 6. release tensors and device resources
    for tensor in (expanded_x, x1, x2_optional, bias, scales, expanded_expert_idx, expanded_row_idx, out):
        acl.aclDestroyTensor(tensor)
    for addr in (expanded_x_addr, x1_addr, x2_addr, bias_addr, scales_addr, expert_idx_addr, row_idx_addr,
                 out_addr):
        acl.aclrtFree(addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return out_host


def high_level():
    out = aclnn_py.moe_finalize_routing_v2(EXPANDED_X, ROW_IDX, X1, X1, BIAS, SCALES, EXPERT_IDX, drop_pad_mode=0)
    print("high-level:", out.tolist())
    return out


def main():
    ported = mirror_port()
    expected = expected_out()
    assert ported.tobytes() == expected.tobytes(), f"out: got {ported.tolist()}, a correct device gives " \
                                                   f"{expected.tolist()}"
    quick = high_level()
    assert ported.dtype == quick.dtype and ported.tobytes() == quick.tobytes(), "the two layers disagree"


if __name__ == "__main__":
    main()
