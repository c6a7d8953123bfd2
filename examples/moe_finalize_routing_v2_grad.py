"""aclnnMoeFinalizeRoutingV2Grad from Python: the official C++ sample ported line by line with the mirror
layer (its host data already match the declared FLOAT/INT32 dtypes), then the same computation in one call
of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn

GRAD_Y = np.array([[0.3816, 0.3939], [0.8474, 0.1652]], dtype=np.float32)
ROW_IDX = np.array([1, 3, 0, 2], dtype=np.int32)
EXPANDED_X = np.array([[0.6049, 0.3315], [0.4954, 0.3284], [0.7060, 0.4359], [0.6514, 0.9476]], dtype=np.float32)
SCALES = np.array([[0.4708, 0.0656], [0.9652, 0.9512]], dtype=np.float32)
EXPERT_IDX = np.array([[0, 1], [0, 1]], dtype=np.int32)
BIAS = np.array([[0.6452, 0.1981], [0.4159, 0.9575]], dtype=np.float32)


def expected_grads():
    """What a correct device computes (spec moe_finalize_routing_v2_grad.md, section 5): slot i (token i // 2)
    writes row expandedRowIdx[i] = gradY[i // 2] * scales[i], and gradScales[i] = <expandedX[row] + bias[e],
    gradY[i // 2]> (two elements: every summation order gives the same float32)."""
    gex = np.zeros((4, 2), np.float32)
    gsc = np.zeros(4, np.float32)
    for i in range(4):
        g = GRAD_Y[i // 2]
        gex[ROW_IDX[i]] = g * SCALES.reshape(-1)[i]
        p = (EXPANDED_X[ROW_IDX[i]] + BIAS[EXPERT_IDX.reshape(-1)[i]]) * g
        gsc[i] = np.float32(0) + (p[0] + p[1])
    return gex, gsc.reshape(2, 2)


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
    """The sample's PrintOutResult: the whole tensor back as floats, one line each."""
    acl.aclrtMemcpy(acl.host_ptr(host), host.nbytes, device_addr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for i, value in enumerate(host.reshape(-1)):
        print(f"result[{i}] is: {float(value):f}")


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs and outputs (N = 2, K = 2, H = 2, E = 2, dropless)
    grad_y_addr, grad_y = create_acl_tensor(GRAD_Y, acl.ACL_FLOAT)
    row_idx_addr, expanded_row_idx = create_acl_tensor(ROW_IDX, acl.ACL_INT32)
    expanded_x_addr, expanded_x = create_acl_tensor(EXPANDED_X, acl.ACL_FLOAT)
    scales_addr, scales = create_acl_tensor(SCALES, acl.ACL_FLOAT)
    expert_idx_addr, expert_idx = create_acl_tensor(EXPERT_IDX, acl.ACL_INT32)
    bias_addr, bias = create_acl_tensor(BIAS, acl.ACL_FLOAT)
    grad_expanded_x_host = np.zeros((4, 2), dtype=np.float32)
    grad_scales_host = np.zeros((2, 2), dtype=np.float32)
    grad_expanded_x_addr, grad_expanded_x = create_acl_tensor(grad_expanded_x_host, acl.ACL_FLOAT)
    grad_scales_addr, grad_scales = create_acl_tensor(grad_scales_host, acl.ACL_FLOAT)
    drop_pad_mode, active_num, expert_num, expert_capacity = 0, 0, 0, 0

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeFinalizeRoutingV2GradGetWorkspaceSize(
        grad_y, expanded_row_idx, expanded_x, scales, expert_idx, bias, drop_pad_mode, active_num, expert_num,
        expert_capacity, grad_expanded_x, grad_scales)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeFinalizeRoutingV2Grad(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy both results back and print them
    print("gradExpandedX result is: ")
    print_out_result(grad_expanded_x_host, grad_expanded_x_addr)
    print("gradScales result is: ")
    print_out_result(grad_scales_host, grad_scales_addr)

    # 6. release tensors and device resources
    for tensor in (grad_y, expanded_row_idx, expanded_x, scales, expert_idx, bias, grad_expanded_x, grad_scales):
        acl.aclDestroyTensor(tensor)
    for addr in (grad_y_addr, row_idx_addr, expanded_x_addr, scales_addr, expert_idx_addr, bias_addr,
                 grad_expanded_x_addr, grad_scales_addr):
        acl.aclrtFree(addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return grad_expanded_x_host, grad_scales_host


def high_level():
    gex, gsc = aclnn_py.moe_finalize_routing_v2_grad(GRAD_Y, ROW_IDX, EXPANDED_X, SCALES, EXPERT_IDX, BIAS)
    print("high-level:", gex.tolist(), gsc.tolist())
    return gex, gsc


def main():
    ported = mirror_port()
    for got, want, name in zip(ported, expected_grads(), ("gradExpandedX", "gradScales")):
        assert got.tobytes() == want.tobytes(), f"{name}: got {got.tolist()}, a correct device gives {want.tolist()}"
    quick = high_level()
    for got, fast in zip(ported, quick):
        assert got.dtype == fast.dtype and got.tobytes() == fast.tobytes(), "the two layers disagree"


if __name__ == "__main__":
    main()
