"""The two-phase contract of abi.md 4.6 (and the executor rules of 4.5), with aclnnMoeTokenPermuteGrad
called through the mirror layer."""

import importlib

import numpy as np
import pytest

from aclnn_py import acl, aclnn, errors
from aclnn_py._native import ffi, lib

from helpers_acl import NULL, Arena, discard_executor, host_ptr, status_of

reference = importlib.import_module("aclnn_py.reference.moe_token_permute_grad").moe_token_permute_grad

phase1 = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize


def phase2(workspace, workspace_size, executor, stream):
    """Phase 2, then a synchronisation of its stream: the kernel is queued, and its results exist after that."""
    aclnn.aclnnMoeTokenPermuteGrad(workspace, workspace_size, executor, stream)
    acl.aclrtSynchronizeStream(stream)


P, H, K = 6, 4, 2
N = P // K




def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    grad = rng.standard_normal((P, H)).astype(np.float32)
    idx = rng.permutation(P).astype(np.int32)
    return grad, idx


class Case:
    """Device tensors for one MoeTokenPermuteGrad call: grad (P, H) float32, idx (P,) int32, out (N, H)."""

    def __init__(self, arena: Arena, seed=0):
        self.a = arena
        self.grad, self.idx = make_inputs(seed)
        self.t_grad, self.p_grad = arena.from_numpy(self.grad)
        self.t_idx, self.p_idx = arena.from_numpy(self.idx)
        self.t_out, self.p_out = arena.zeros((N, H), np.float32)

    def phase1(self, k=K):
        return phase1(self.t_grad, self.t_idx, k, False, self.t_out)

    def result(self):
        return self.a.download(self.p_out, (N, H), np.float32)

    def expected(self):
        return reference(self.grad, self.idx, K)


@pytest.fixture
def case():
    with Arena() as a:
        yield Case(a)


# ---- the normal path ------------------------------------------------------------------------------------

def test_two_phases_compute_the_reference(case):
    before = acl.aclStubLiveExecutors()
    ws, ex = case.phase1()
    assert isinstance(ws, int) and ws == 0 and ex != NULL
    assert acl.aclStubLiveExecutors() == before + 1
    assert phase2(NULL, ws, ex, NULL) is None
    assert acl.aclStubLiveExecutors() == before  # consumed
    np.testing.assert_array_equal(case.result(), case.expected())


def test_phase1_does_not_touch_the_output(case):
    acl.aclrtMemset(case.p_out, N * H * 4, 0x7F, N * H * 4)
    ws, ex = case.phase1()
    try:
        assert (case.result().view(np.uint8) == 0x7F).all()
    finally:
        discard_executor(ex)


def test_phase2_with_a_workspace_and_a_live_stream(case):
    ws, ex = case.phase1()
    stream = acl.aclrtCreateStream()
    workspace = case.a.malloc(64)
    try:
        phase2(workspace, 64, ex, stream)  # a workspace larger than requested is fine
        acl.aclrtSynchronizeStream(stream)
    finally:
        acl.aclrtDestroyStream(stream)
    np.testing.assert_array_equal(case.result(), case.expected())


# ---- phase 2 argument rules ------------------------------------------------------------------------------

def test_phase2_consumes_the_executor(case):
    ws, ex = case.phase1()
    phase2(NULL, ws, ex, NULL)
    with pytest.raises(errors.AclnnErrParamInvalid) as ei:
        phase2(NULL, ws, ex, NULL)
    assert ei.value.status == 161002
    assert "aclnnMoeTokenPermuteGrad" in str(ei.value) and "executor" in str(ei.value)


def test_phase2_null_executor():
    with pytest.raises(errors.AclnnErrParamNullptr) as ei:
        phase2(NULL, 0, NULL, NULL)
    assert ei.value.status == 161001 and "executor" in str(ei.value)


def test_phase2_null_workspace_with_size(case):
    ws, ex = case.phase1()
    try:
        with pytest.raises(errors.AclnnErrParamNullptr) as ei:
            phase2(NULL, 1024, ex, NULL)
        assert "workspace" in str(ei.value)
    finally:
        discard_executor(ex)


def test_phase2_unknown_stream(case):
    ws, ex = case.phase1()
    not_a_stream = acl.aclrtMallocHost(64)
    try:
        assert status_of(phase2, NULL, ws, ex, not_a_stream) == 161002
    finally:
        discard_executor(ex)
        acl.aclrtFreeHost(not_a_stream)
    assert (case.result() == 0).all()


def test_phase2_destroyed_stream(case):
    ws, ex = case.phase1()
    stream = acl.aclrtCreateStream()
    acl.aclrtDestroyStream(stream)
    try:
        assert status_of(phase2, NULL, ws, ex, stream) == 161002
    finally:
        discard_executor(ex)


def test_executor_of_another_operator_is_rejected(case):
    ws, ex = case.phase1()
    try:
        with pytest.raises(errors.AclnnErrParamInvalid):
            aclnn.aclnnMoeInitRoutingV2Grad(NULL, ws, ex, NULL)
        with pytest.raises(errors.AclnnErrParamInvalid):
            aclnn.aclnnMoeTokenPermute(NULL, ws, ex, NULL)
    finally:
        discard_executor(ex)
    assert (case.result() == 0).all()


# ---- repeatable executors and aclDestroyAclOpExecutor ----------------------------------------------------

def test_repeatable_executor_runs_twice_with_new_data(case):
    before = acl.aclStubLiveExecutors()
    ws, ex = case.phase1()
    acl.aclSetAclOpExecutorRepeatable(ex)
    try:
        phase2(NULL, ws, ex, NULL)
        np.testing.assert_array_equal(case.result(), case.expected())
        assert acl.aclStubLiveExecutors() == before + 1  # survives phase 2
        # new input data in the same device buffers, same executor
        grad2 = (case.grad * 3 - 1).astype(np.float32)
        idx2 = case.idx[::-1].copy()
        case.a.upload(grad2, case.p_grad)
        case.a.upload(idx2, case.p_idx)
        phase2(NULL, ws, ex, NULL)
        np.testing.assert_array_equal(case.result(), reference(grad2, idx2, K))
    finally:
        acl.aclDestroyAclOpExecutor(ex)
    assert acl.aclStubLiveExecutors() == before
    assert status_of(phase2, NULL, ws, ex, NULL) == 161002
    assert status_of(acl.aclDestroyAclOpExecutor, ex) == 561000
    assert status_of(acl.aclSetAclOpExecutorRepeatable, ex) == 561000


def test_destroy_consumed_executor(case):
    ws, ex = case.phase1()
    phase2(NULL, ws, ex, NULL)
    with pytest.raises(errors.AclnnErrInner) as ei:
        acl.aclDestroyAclOpExecutor(ex)
    assert ei.value.status == 561000
    assert status_of(acl.aclSetAclOpExecutorRepeatable, ex) == 561000


def test_destroy_executor_before_phase2(case):
    before = acl.aclStubLiveExecutors()
    ws, ex = case.phase1()
    acl.aclDestroyAclOpExecutor(ex)
    assert acl.aclStubLiveExecutors() == before
    assert status_of(phase2, NULL, ws, ex, NULL) == 161002
    assert (case.result() == 0).all()


def test_null_executor_for_destroy_and_repeatable():
    with pytest.raises(errors.AclnnErrInnerNullptr) as ei:
        acl.aclDestroyAclOpExecutor(NULL)
    assert ei.value.status == 561103
    assert status_of(acl.aclSetAclOpExecutorRepeatable, NULL) == 561103


def test_unknown_executor_pointer():
    fake = acl.aclrtMallocHost(128)
    try:
        assert status_of(acl.aclDestroyAclOpExecutor, fake) == 561000
        assert status_of(acl.aclSetAclOpExecutorRepeatable, fake) == 561000
        assert status_of(phase2, NULL, 0, fake, NULL) == 161002
    finally:
        acl.aclrtFreeHost(fake)


# ---- tensors between the phases ----------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["t_grad", "t_idx", "t_out"])
def test_tensor_destroyed_between_phases(case, which):
    ws, ex = case.phase1()
    case.a.destroy(getattr(case, which))
    try:
        with pytest.raises(errors.AclnnErrParamInvalid) as ei:
            phase2(NULL, ws, ex, NULL)
        assert "destroyed" in str(ei.value)
    finally:
        discard_executor(ex)


def test_buffer_freed_between_phases(case):
    ws, ex = case.phase1()
    case.a.free(case.p_grad)
    try:
        assert status_of(phase2, NULL, ws, ex, NULL) == 161002
    finally:
        discard_executor(ex)
    assert (case.result() == 0).all()


def test_input_in_host_memory_fails_in_phase2():
    grad, idx = make_inputs()
    with Arena() as a:
        t_grad = a.tensor((P, H), acl.ACL_FLOAT, host_ptr(grad))  # not from aclrtMalloc
        t_idx, _ = a.from_numpy(idx)
        t_out, p_out = a.zeros((N, H), np.float32)
        ws, ex = phase1(t_grad, t_idx, K, False, t_out)  # phase 1 does not look at data
        try:
            with pytest.raises(errors.AclnnErrParamInvalid) as ei:
                phase2(NULL, ws, ex, NULL)
            assert "permutedOutputGrad" in str(ei.value)
        finally:
            discard_executor(ex)
        assert (a.download(p_out, (N, H), np.float32) == 0).all()


def test_output_in_host_memory_fails_in_phase2():
    grad, idx = make_inputs()
    out = np.full((N, H), 5.0, np.float32)
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        t_out = a.tensor((N, H), acl.ACL_FLOAT, host_ptr(out))
        ws, ex = phase1(t_grad, t_idx, K, False, t_out)
        try:
            assert status_of(phase2, NULL, ws, ex, NULL) == 161002
        finally:
            discard_executor(ex)
    assert (out == 5.0).all()  # never written


def test_view_larger_than_its_buffer_fails_in_phase2():
    grad, idx = make_inputs()
    with Arena() as a:
        small = a.upload(grad[:2])  # 2 rows of data, the tensor claims P rows
        t_grad = a.tensor((P, H), acl.ACL_FLOAT, small)
        t_idx, _ = a.from_numpy(idx)
        t_out, _ = a.zeros((N, H), np.float32)
        ws, ex = phase1(t_grad, t_idx, K, False, t_out)
        try:
            assert status_of(phase2, NULL, ws, ex, NULL) == 161002
        finally:
            discard_executor(ex)


def test_misaligned_data_fails_in_phase2():
    grad, idx = make_inputs()
    with Arena() as a:
        dev = a.upload(np.concatenate([np.zeros(1, np.float32), grad.reshape(-1)]))
        t_grad = a.tensor((P, H), acl.ACL_FLOAT, ffi.cast("char *", dev) + 2)  # inside the block, not 4-aligned
        t_idx, _ = a.from_numpy(idx)
        t_out, _ = a.zeros((N, H), np.float32)
        ws, ex = phase1(t_grad, t_idx, K, False, t_out)
        try:
            with pytest.raises(errors.AclnnErrParamInvalid) as ei:
                phase2(NULL, ws, ex, NULL)
            assert "aligned" in str(ei.value) and "permutedOutputGrad" in str(ei.value)
        finally:
            discard_executor(ex)


def test_null_data_of_a_non_empty_tensor_fails_in_phase2():
    _, idx = make_inputs()
    with Arena() as a:
        t_grad = a.tensor((P, H), acl.ACL_FLOAT, NULL)
        t_idx, _ = a.from_numpy(idx)
        t_out, _ = a.zeros((N, H), np.float32)
        ws, ex = phase1(t_grad, t_idx, K, False, t_out)
        try:
            assert status_of(phase2, NULL, ws, ex, NULL) == 161001
        finally:
            discard_executor(ex)


# ---- empty outputs ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [K, 4, 0])
def test_empty_output_gives_a_noop_executor(k):
    """Every output empty: workspace 0, no shape/attribute checks, phase 2 does nothing (NULL data is fine)."""
    before = acl.aclStubLiveExecutors()
    with Arena() as a:
        t_grad = a.tensor((5, H), acl.ACL_FLOAT, NULL)  # inconsistent with the output, never checked
        t_idx = a.tensor((3,), acl.ACL_INT32, NULL)
        t_out = a.tensor((0, H), acl.ACL_FLOAT, NULL)
        ws, ex = phase1(t_grad, t_idx, k, False, t_out)
        assert ws == 0 and ex != NULL
        phase2(NULL, 0, ex, NULL)
        assert acl.aclStubLiveExecutors() == before
        assert status_of(phase2, NULL, 0, ex, NULL) == 161002  # consumed like any other


def test_empty_output_still_checks_dtypes():
    with Arena() as a:
        t_grad = a.tensor((0, H), acl.ACL_INT32, NULL)
        t_idx = a.tensor((0,), acl.ACL_INT32, NULL)
        t_out = a.tensor((0, H), acl.ACL_FLOAT, NULL)
        assert status_of(phase1, t_grad, t_idx, K, False, t_out) == 161002


# ---- phase 1 rules ---------------------------------------------------------------------------------------

def test_phase1_null_tensors(case):
    assert status_of(phase1, NULL, case.t_idx, K, False, case.t_out) == 161001
    assert status_of(phase1, case.t_grad, NULL, K, False, case.t_out) == 161001
    with pytest.raises(errors.AclnnErrParamNullptr) as ei:
        phase1(case.t_grad, case.t_idx, K, False, NULL)
    assert "out" in str(ei.value)


def test_phase1_null_out_parameters(case):
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    f = lib.aclnnMoeTokenPermuteGradGetWorkspaceSize
    assert f(case.t_grad, case.t_idx, K, False, case.t_out, NULL, ex) == 161001
    assert f(case.t_grad, case.t_idx, K, False, case.t_out, ws, NULL) == 161001
    acl.aclGetRecentErrMsg()


@pytest.mark.parametrize("grad_dtype, idx_dtype, out_dtype", [
    (np.float64, np.int32, np.float64),
    (np.float32, np.int64, np.float32),
    (np.float32, np.float32, np.float32),
    (np.float32, np.int32, np.float16),   # out must match the gradient's dtype
    (np.int32, np.int32, np.int32),
])
def test_phase1_unsupported_dtypes(grad_dtype, idx_dtype, out_dtype):
    grad, idx = make_inputs()
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad.astype(grad_dtype))
        t_idx, _ = a.from_numpy(idx.astype(idx_dtype))
        t_out, _ = a.zeros((N, H), out_dtype)
        with pytest.raises(errors.AclnnErrParamInvalid) as ei:
            phase1(t_grad, t_idx, K, False, t_out)
        assert "GetWorkspaceSize" in str(ei.value)


def test_phase1_formats():
    grad, idx = make_inputs()
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad, fmt=acl.ACL_FORMAT_NCHW)  # ND-like: accepted
        t_idx, _ = a.from_numpy(idx, fmt=acl.ACL_FORMAT_NCL)
        t_out, p_out = a.zeros((N, H), np.float32)
        ws, ex = phase1(t_grad, t_idx, K, False, t_out)
        phase2(NULL, ws, ex, NULL)
        np.testing.assert_array_equal(a.download(p_out, (N, H), np.float32), reference(grad, idx, K))
        t_nz, _ = a.from_numpy(grad, fmt=acl.ACL_FORMAT_FRACTAL_NZ)
        assert status_of(phase1, t_nz, t_idx, K, False, t_out) == 161002


@pytest.mark.parametrize("k, out_shape", [(0, (N, H)), (4, (N, H)), (K, (N + 1, H)), (K, (N, H + 1)), (513, (N, H))])
def test_phase1_shape_and_attribute_errors_are_tiling_errors(k, out_shape):
    grad, idx = make_inputs()
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        t_out, _ = a.zeros(out_shape, np.float32)
        with pytest.raises(errors.AclnnErrInnerTilingError) as ei:
            phase1(t_grad, t_idx, k, False, t_out)
        assert ei.value.status == 561002


def test_phase1_non_contiguous_output():
    grad, idx = make_inputs()
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        p = a.malloc(N * H * 4)
        t_out = a.tensor((N, H), acl.ACL_FLOAT, p, strides=[1, N])
        assert status_of(phase1, t_grad, t_idx, K, False, t_out) == 161002


def test_strided_inputs_and_output_offset():
    """Inputs are read through view shape, strides and offset; a non-zero output offset is honoured."""
    grad, idx = make_inputs(3)
    with Arena() as a:
        # grad stored transposed (H, P) behind 3 padding elements; the view (P, H) has strides (1, P)
        storage = np.concatenate([np.full(3, np.nan, np.float32), grad.T.reshape(-1)])
        p_grad = a.upload(storage)
        t_grad = a.tensor((P, H), acl.ACL_FLOAT, p_grad, strides=[1, P], offset=3, storage=[storage.size])
        # idx every other element, read backwards: view element i lives at 2 * (P - 1 - i) + 1
        idx_storage = np.full(2 * P, -7, np.int32)
        idx_storage[1::2] = idx[::-1]
        p_idx = a.upload(idx_storage)
        t_idx = a.tensor((P,), acl.ACL_INT32, p_idx, strides=[-2], offset=2 * P - 1, storage=[2 * P])
        # output at an offset of 5 elements into a larger block
        p_out = a.malloc((5 + N * H + 2) * 4)
        t_out = a.tensor((N, H), acl.ACL_FLOAT, p_out, offset=5, storage=[5 + N * H + 2])
        ws, ex = phase1(t_grad, t_idx, K, False, t_out)
        phase2(NULL, ws, ex, NULL)
        raw = a.download(p_out, (5 + N * H + 2,), np.float32)
    assert (raw[:5] == 0).all() and (raw[-2:] == 0).all()
    np.testing.assert_array_equal(raw[5:5 + N * H].reshape(N, H), reference(grad, idx, K))


def test_phase1_failure_creates_no_executor():
    before = acl.aclStubLiveExecutors()
    grad, idx = make_inputs()
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        t_out, _ = a.zeros((N, H), np.float32)
        for k in (0, 5, -1):
            assert status_of(phase1, t_grad, t_idx, k, False, t_out) == 561002
        assert status_of(phase1, t_grad, t_idx, K, True, t_out) == 161002  # paddedMode unsupported
    assert acl.aclStubLiveExecutors() == before
