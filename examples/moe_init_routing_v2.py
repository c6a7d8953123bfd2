"""aclnnMoeInitRoutingV2 from Python: the official C++ sample ported line by line with the mirror layer
(this sample's host data already match the declared FLOAT/INT32 dtypes), then the same computation in
one call of the high-level API."""

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn

# What a correct device computes for the sample's data (spec moe_init_routing_v2.md, section 6): drop/pad
# mode with 3 experts of capacity 2; the expert ids [[1, 2], [0, 1], [0, 2]] give expert 0 tokens 1, 2,
# expert 1 tokens 0, 1, expert 2 tokens 0, 2 (nothing dropped, no padding).
EXPECTED_ROWS = [0.2, 0.3, 0.1, 0.2, 0.1, 0.3]
EXPECTED_ROW_IDX = [2, 4, 0, 3, 1, 5]
EXPECTED_BEFORE_CAPACITY = [2, 2, 2]


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


def check(name, got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape and got.tobytes() == expected.tobytes(), \
        f"{name}: got {got.tolist()}, a correct device gives {expected.tolist()}"


def mirror_port():
    # 1. device/stream initialisation
    device_id = 0
    acl.aclInit(None)
    acl.aclrtSetDevice(device_id)
    stream = acl.aclrtCreateStream()

    # 2. inputs and outputs
    active_num = 0
    expert_capacity = 2
    expert_num = 3
    drop_pad_mode = 1
    expert_tokens_count_or_cumsum_flag = 0
    expert_tokens_before_capacity_flag = True
    x_addr, x = create_acl_tensor(
        np.array([[0.1] * 4, [0.2] * 4, [0.3] * 4], dtype=np.float32), acl.ACL_FLOAT)
    expert_idx_addr, expert_idx = create_acl_tensor(np.array([[1, 2], [0, 1], [0, 2]], dtype=np.int32),
                                                    acl.ACL_INT32)
    expanded_x_host = np.zeros((3, 2, 4), dtype=np.float32)
    expanded_x_out_addr, expanded_x_out = create_acl_tensor(expanded_x_host, acl.ACL_FLOAT)
    expanded_row_idx_host = np.zeros(6, dtype=np.int32)
    expanded_row_idx_out_addr, expanded_row_idx_out = create_acl_tensor(expanded_row_idx_host, acl.ACL_INT32)
    expert_token_idx_host = np.zeros(3, dtype=np.int32)
    expert_tokens_before_capacity_out_addr, expert_tokens_before_capacity_out = create_acl_tensor(
        expert_token_idx_host, acl.ACL_INT32)

    # 3. the two phases (no count/cumsum output: NULL)
    workspace_size, executor = aclnn.aclnnMoeInitRoutingV2GetWorkspaceSize(
        x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode,
        expert_tokens_count_or_cumsum_flag, expert_tokens_before_capacity_flag,
        expanded_x_out, expanded_row_idx_out, None, expert_tokens_before_capacity_out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeInitRoutingV2(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the results back and print them
    copy_to_host(expanded_x_host, expanded_x_out_addr)
    print_result("expandedXData", expanded_x_host, "%f")
    copy_to_host(expanded_row_idx_host, expanded_row_idx_out_addr)
    print_result("expandedRowIdxData", expanded_row_idx_host, "%d")
    copy_to_host(expert_token_idx_host, expert_tokens_before_capacity_out_addr)
    print_result("expertTokenIdxData", expert_token_idx_host, "%d")

    # 6. release tensors and device resources
    acl.aclDestroyTensor(x)
    acl.aclDestroyTensor(expert_idx)
    acl.aclDestroyTensor(expanded_x_out)
    acl.aclDestroyTensor(expanded_row_idx_out)
    acl.aclDestroyTensor(expert_tokens_before_capacity_out)
    acl.aclrtFree(x_addr)
    acl.aclrtFree(expert_idx_addr)
    acl.aclrtFree(expanded_x_out_addr)
    acl.aclrtFree(expanded_row_idx_out_addr)
    acl.aclrtFree(expert_tokens_before_capacity_out_addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return expanded_x_host, expanded_row_idx_host, expert_token_idx_host


def high_level():
    x = np.array([[0.1] * 4, [0.2] * 4, [0.3] * 4], dtype=np.float32)
    expert_idx = np.array([[1, 2], [0, 1], [0, 2]], dtype=np.int32)
    expanded_x, expanded_row_idx, count_or_cumsum, before_capacity = aclnn_py.moe_init_routing_v2(
        x, expert_idx, active_num=0, expert_capacity=2, expert_num=3, drop_pad_mode=1,
        expert_tokens_count_or_cumsum_flag=0, expert_tokens_before_capacity_flag=True)
    assert count_or_cumsum is None
    print("high-level: expanded_x[:, :, 0] =", np.round(expanded_x[:, :, 0].astype(np.float64), 6).tolist(),
          "expanded_row_idx =", expanded_row_idx.tolist(), "expert_tokens_before_capacity =", before_capacity.tolist())
    return expanded_x, expanded_row_idx, before_capacity


def main():
    ported = mirror_port()
    expected = (np.repeat(np.array(EXPECTED_ROWS, dtype=np.float32)[:, None], 4, axis=1).reshape(3, 2, 4),
                np.array(EXPECTED_ROW_IDX, dtype=np.int32),
                np.array(EXPECTED_BEFORE_CAPACITY, dtype=np.int32))
    names = ("expandedXOut", "expandedRowIdxOut", "expertTokensBeforeCapacityOutOptional")
    for name, got, want in zip(names, ported, expected):
        check(name, got, want)
    quick = high_level()
    for name, a, b in zip(names, ported, quick):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"the two layers disagree on {name}"


if __name__ == "__main__":
    main()
