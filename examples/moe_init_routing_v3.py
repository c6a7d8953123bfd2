"""aclnnMoeInitRoutingV3 from Python: the official C++ sample ported line by line with the mirror layer, then
the same computation in one call of the high-level API.

The official sample declares expandedX as INT8 while quantMode = -1 copies FLOAT rows unchanged (a device
would write 96 bytes into a 24-byte tensor), creates its (1,)-element offset with the scale's shape (3,) and
reads the INT64 counts as INT32. The stub refuses the INT8 expandedX in phase 1 with 161002; this port first
shows that, then runs the sample with the types it means: expandedX FLOAT (12, 2), offset (1,), counts INT64.
"""

import numpy as np

import aclnn_py
from aclnn_py import AclnnError, acl, aclnn

# What a correct device computes (spec moe_init_routing_v3.md, section 5): every slot is active (range [0, 4)),
# the stable order by expert is [2, 4, 8, 0, 6, 9, 1, 5, 11, 3, 7, 10], the rows are those slots' tokens, the
# scatter index is that order, each expert gets 3 tokens and the per-token scales are copied row by row.
ORDER = [2, 4, 8, 0, 6, 9, 1, 5, 11, 3, 7, 10]
X = np.array([[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]], dtype=np.float32)
EXPERT_IDX = np.array([[1, 2, 0, 3], [0, 2, 1, 3], [0, 1, 3, 2]], dtype=np.int32)
SCALE = np.array([0.3423, 0.1652, 0.2652], dtype=np.float32)
EXPECTED = (X[np.array(ORDER) // 4], np.array(ORDER, dtype=np.int32), np.array([3, 3, 3, 3], dtype=np.int64),
            SCALE[np.array(ORDER) // 4])


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

    # 2. inputs, attributes and outputs
    active_num = 12
    expert_capacity = 4
    expert_num = 256
    drop_pad_mode = 0
    expert_tokens_num_type = 1
    expert_tokens_num_flag = True
    quant_mode = -1
    active_expert_range = acl.aclCreateIntArray([0, 4], 2)
    row_idx_type = 1
    x_addr, x = create_acl_tensor(X, acl.ACL_FLOAT)
    expert_idx_addr, expert_idx = create_acl_tensor(EXPERT_IDX, acl.ACL_INT32)
    scale_addr, scale = create_acl_tensor(SCALE, acl.ACL_FLOAT)
    offset_addr, offset = create_acl_tensor(np.array([1.8369], dtype=np.float32), acl.ACL_FLOAT)
    expanded_x_host = np.zeros((12, 2), dtype=np.float32)
    expanded_x_out_addr, expanded_x_out = create_acl_tensor(expanded_x_host, acl.ACL_FLOAT)
    expanded_row_idx_host = np.zeros(12, dtype=np.int32)
    expanded_row_idx_out_addr, expanded_row_idx_out = create_acl_tensor(expanded_row_idx_host, acl.ACL_INT32)
    counts_host = np.zeros(4, dtype=np.int64)
    counts_out_addr, counts_out = create_acl_tensor(counts_host, acl.ACL_INT64)
    expanded_scale_host = np.zeros(12, dtype=np.float32)
    expanded_scale_out_addr, expanded_scale_out = create_acl_tensor(expanded_scale_host, acl.ACL_FLOAT)

    def phase1(expanded):
        return aclnn.aclnnMoeInitRoutingV3GetWorkspaceSize(
            x, expert_idx, scale, offset, active_num, expert_capacity, expert_num, drop_pad_mode,
            expert_tokens_num_type, expert_tokens_num_flag, quant_mode, active_expert_range, row_idx_type,
            expanded, expanded_row_idx_out, counts_out, expanded_scale_out)

    # The official declaration (INT8 expandedX with quantMode -1) is refused before anything runs.
    int8_addr, int8_out = create_acl_tensor(np.zeros((12, 2), dtype=np.int8), acl.ACL_INT8)
    try:
        phase1(int8_out)
        raise AssertionError("an INT8 expandedX with quantMode -1 must be refused")
    except AclnnError as e:
        assert e.status == 161002, e
        print(f"official INT8 expandedX with quantMode -1: {e.status} (ACLNN_ERR_PARAM_INVALID)")
    acl.aclDestroyTensor(int8_out)
    acl.aclrtFree(int8_addr)

    # 3. the two phases
    workspace_size, executor = phase1(expanded_x_out)
    workspace_addr = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if workspace_size > 0 else None
    aclnn.aclnnMoeInitRoutingV3(workspace_addr, workspace_size, executor, stream)

    # 4. wait for the stream
    acl.aclrtSynchronizeStream(stream)

    # 5. copy the results back and print them
    copy_to_host(expanded_x_host, expanded_x_out_addr)
    print_result("expandedXData", expanded_x_host, "%f")
    copy_to_host(expanded_row_idx_host, expanded_row_idx_out_addr)
    print_result("expandedRowIdxData", expanded_row_idx_host, "%d")
    copy_to_host(counts_host, counts_out_addr)
    print_result("expertTokenIdxData", counts_host, "%d")
    copy_to_host(expanded_scale_host, expanded_scale_out_addr)
    print_result("dynamicQuantScaleData", expanded_scale_host, "%f")

    # 6. release tensors, the int array and device resources
    for tensor in (x, expert_idx, scale, offset, expanded_x_out, expanded_row_idx_out, counts_out,
                   expanded_scale_out):
        acl.aclDestroyTensor(tensor)
    acl.aclDestroyIntArray(active_expert_range)
    for addr in (x_addr, expert_idx_addr, scale_addr, offset_addr, expanded_x_out_addr, expanded_row_idx_out_addr,
                 counts_out_addr, expanded_scale_out_addr):
        acl.aclrtFree(addr)
    if workspace_size > 0:
        acl.aclrtFree(workspace_addr)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(device_id)
    acl.aclFinalize()
    return expanded_x_host, expanded_row_idx_host, counts_host, expanded_scale_host


def high_level():
    expanded_x, row_idx, counts, expanded_scale = aclnn_py.moe_init_routing_v3(
        X, EXPERT_IDX, SCALE, np.array([1.8369], dtype=np.float32), active_num=12, expert_capacity=4,
        expert_num=256, drop_pad_mode=0, expert_tokens_num_type=1, expert_tokens_num_flag=True, quant_mode=-1,
        active_expert_range=[0, 4], row_idx_type=1)
    print("high-level: expanded_x[:, 0] =", np.round(expanded_x[:, 0].astype(np.float64), 6).tolist(),
          "expanded_row_idx =", row_idx.tolist(), "counts =", counts.tolist())
    return expanded_x, row_idx, counts, expanded_scale


def main():
    ported = mirror_port()
    names = ("expandedXOut", "expandedRowIdxOut", "expertTokensCountOrCumsumOut", "expandedScaleOut")
    for name, got, want in zip(names, ported, EXPECTED):
        check(name, got, want)
    quick = high_level()
    for name, a, b in zip(names, ported, quick):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"the two layers disagree on {name}"


if __name__ == "__main__":
    main()
