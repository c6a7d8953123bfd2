"""aclnnMoeInitRoutingV2Grad from Python: the official C++ sample ported line by line with the mirror
layer (this sample's host data already match the declared FLOAT/INT32 dtypes), then the same
computation in one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn


def expected_grad_x():
    """What a correct device computes (spec moe_init_routing_v2_grad.md, section 6): token t sums the
    FP32 rows expandedRowIdx[2t] and expandedRowIdx[2t + 1]: out[0] = 0.2f + 0.1f, out[1] = 0.3f + 0.4f."""
    f = np.float32
    return np.array([[f(0.2) + f(0.1)] * 2, [f(0.3) + f(0.4)] * 2], dtype=np.float32)


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
    grad_expanded_x_addr, grad_expanded_x = create_acl_tensor(
        np.array([[0.1, 0.1], [0.3, 0.3], [0.2, 0.2], [0.4, 0.4]], dtype=np.float32), acl.ACL_FLOAT)
    expanded_row_idx_addr, expanded_row_idx = create_acl_tensor(np.array([2, 0, 1, 3], dtype=np.int32),
                                                                acl.ACL_INT32)
    # The sample creates three int32 aclScalars and only destroys them: the operator takes its
    # attributes as int64 parameters.
    k_value = np.array(2, dtype=np.int32)
    drop_pad_mode_value = np.array(0, dtype=np.int32)
    active_num_value = np.array(0, dtype=np.int32)
    k = acl.aclCreateScalar(acl.host_ptr(k_value), acl.ACL_INT32)
    drop_pad_mode = acl.aclCreateScalar(acl.host_ptr(drop_pad_mode_value), acl.ACL_INT32)
    active_num = acl.aclCreateScalar(acl.host_ptr(active_num_value), acl.ACL_INT32)
    grad_x_host = np.zeros((2, 2), dtype=np.float32)
    grad_x_addr, out = create_acl_tensor(grad_x_host, acl.ACL_FLOAT)

    # 3. the two phases
    workspace_size, executor = aclnn.aclnnMoeInitRoutingV2GradGetWorkspaceSize(
        grad_expanded_x, expanded_row_idx, int(k_value), int(drop_pad_mode_value), int(active_num_value), out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeInitRoutingV2Grad(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the result back and print it
    acl.aclrtMemcpy(acl.host_ptr(grad_x_host), grad_x_host.nbytes, grad_x_addr, grad_x_host.nbytes,
                    acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for i, value in enumerate(grad_x_host.reshape(-1)):
        print(f"gradXData[{i}] is: {float(value):f}")

    # 6. release tensors, scalars and device resources
    acl.aclDestroyTensor(grad_expanded_x)
    acl.aclDestroyTensor(expanded_row_idx)
    acl.aclDestroyScalar(k)
    acl.aclDestroyScalar(drop_pad_mode)
    acl.aclDestroyScalar(active_num)
    acl.aclDestroyTensor(out)
    acl.aclrtFree(grad_expanded_x_addr)
    acl.aclrtFree(expanded_row_idx_addr)
    acl.aclrtFree(grad_x_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return grad_x_host


def high_level():
    grad = np.array([[0.1, 0.1], [0.3, 0.3], [0.2, 0.2], [0.4, 0.4]], dtype=np.float32)
    out = aclnn_py.moe_init_routing_v2_grad(grad, np.array([2, 0, 1, 3], dtype=np.int32), top_k=2)
    print("high-level:", out.tolist())
    return out


def main():
    ported = mirror_port()
    expected = expected_grad_x()
    assert ported.tobytes() == expected.tobytes(), \
        f"gradXOut: got {ported.tolist()}, a correct device gives {expected.tolist()}"
    quick = high_level()
    assert ported.dtype == quick.dtype and ported.tobytes() == quick.tobytes(), "the two layers disagree"


if __name__ == "__main__":
    main()
