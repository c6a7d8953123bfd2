"""Tensor addresses between the phases: aclSetRawTensorAddr / aclGetRawTensorAddr, the executor setters
(aclSetInputTensorAddr, aclSetOutputTensorAddr, aclSetTensorAddr and their Acl... aliases) that give a
repeatable executor new data, and aclInitTensor (a tensor re-described after phase 1 fails phase 2)."""

import importlib

import numpy as np
import pytest

from aclnn_py import acl, aclnn, errors
from aclnn_py._native import ffi, lib

from helpers_acl import NULL, Arena, discard_executor, status_of

reference = importlib.import_module("aclnn_py.reference.moe_token_permute_grad").moe_token_permute_grad
P, H, K = 6, 4, 2
N = P // K


def addr(p) -> int:
    return int(ffi.cast("uintptr_t", p))


def inputs(seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((P, H)).astype(np.float32), rng.permutation(P).astype(np.int32)


def test_raw_address_round_trip():
    with Arena() as a:
        p1, p2 = a.malloc(64), a.malloc(64)
        t = a.tensor((4,), acl.ACL_FLOAT, p1)
        assert addr(acl.aclGetRawTensorAddr(t)) == addr(p1)
        acl.aclSetRawTensorAddr(t, p2)
        assert addr(acl.aclGetRawTensorAddr(t)) == addr(p2)
        acl.aclSetRawTensorAddr(t, NULL)
        assert addr(acl.aclGetRawTensorAddr(t)) == 0
        assert status_of(acl.aclSetRawTensorAddr, NULL, p1) == 161001
        assert status_of(acl.aclGetRawTensorAddr, NULL) == 161001
        a.destroy(t)
        assert status_of(acl.aclSetRawTensorAddr, t, p1) == 161002
        assert status_of(acl.aclGetRawTensorAddr, t) == 161002


def returns_status(name):
    """The C function itself (the mirror raises; here every call returns its status)."""
    fn = getattr(lib, name)

    def call(*args):
        status = fn(*args)
        if status:
            acl.aclGetRecentErrMsg()
        return status
    return call


@pytest.mark.parametrize("setter", ["acl", "Acl"])
def test_repeatable_executor_runs_on_new_addresses(setter):
    set_input = returns_status(f"{setter}SetInputTensorAddr")
    set_output = returns_status(f"{setter}SetOutputTensorAddr")
    set_any = returns_status(f"{setter}SetTensorAddr")
    grad, idx = inputs(0)
    grad2, idx2 = inputs(1)
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        t_out, p_out = a.zeros((N, H), np.float32)
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_grad, t_idx, K, False, t_out)
        acl.aclSetAclOpExecutorRepeatable(ex)
        try:
            aclnn.aclnnMoeTokenPermuteGrad(NULL, ws, ex, NULL)
            acl.aclrtSynchronizeStream(NULL)  # phase 2 is queued: results exist after this
            np.testing.assert_array_equal(a.download(p_out, (N, H), np.float32), reference(grad, idx, K))
            p_out2 = a.malloc(N * H * 4)
            assert set_input(ex, 0, t_grad, a.upload(grad2)) == 0
            assert set_input(ex, 1, t_idx, a.upload(idx2)) == 0
            assert set_output(ex, 0, t_out, p_out2) == 0
            aclnn.aclnnMoeTokenPermuteGrad(NULL, ws, ex, NULL)
            acl.aclrtSynchronizeStream(NULL)  # phase 2 is queued: results exist after this
            np.testing.assert_array_equal(a.download(p_out2, (N, H), np.float32), reference(grad2, idx2, K))
            assert set_any(ex, 2, t_out, p_out) == 0  # inputs first, then outputs
            aclnn.aclnnMoeTokenPermuteGrad(NULL, ws, ex, NULL)
            acl.aclrtSynchronizeStream(NULL)  # phase 2 is queued: results exist after this
            np.testing.assert_array_equal(a.download(p_out, (N, H), np.float32), reference(grad2, idx2, K))
            # Misuse: an index the operator does not have, a tensor the executor did not record there.
            assert set_input(ex, 2, t_grad, NULL) == 161002
            assert set_output(ex, 1, t_out, NULL) == 161002
            assert set_input(ex, 0, t_idx, NULL) == 161002
            assert set_any(ex, 3, t_out, NULL) == 161002
            assert set_input(ex, 0, NULL, NULL) == 561103
            assert set_input(NULL, 0, t_grad, NULL) == 561103
            # The refused calls changed nothing.
            assert addr(acl.aclGetRawTensorAddr(t_out)) == addr(p_out)
        finally:
            acl.aclDestroyAclOpExecutor(ex)
        assert set_input(ex, 0, t_grad, NULL) == 561000


def test_address_set_to_host_memory_fails_phase2():
    grad, idx = inputs(2)
    host = np.zeros((P, H), np.float32)
    with Arena() as a:
        t_grad, _ = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        t_out, _ = a.zeros((N, H), np.float32)
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_grad, t_idx, K, False, t_out)
        acl.aclSetInputTensorAddr(ex, 0, t_grad, ffi.from_buffer(host))
        assert status_of(aclnn.aclnnMoeTokenPermuteGrad, NULL, ws, ex, NULL) == 161002


def test_init_tensor_redescribes_a_live_tensor():
    with Arena() as a:
        p = a.malloc(256)
        t = a.tensor((2, 3), acl.ACL_FLOAT, p)
        acl.aclInitTensor(t, [4, 2, 2], 3, acl.ACL_FLOAT16, NULL, 1, acl.ACL_FORMAT_ND, [17], 1, p)
        assert acl.aclGetViewShape(t) == [4, 2, 2]
        assert acl.aclGetViewStrides(t) == [4, 2, 1]
        assert acl.aclGetViewOffset(t) == 1
        assert acl.aclGetDataType(t) == acl.ACL_FLOAT16
        assert acl.aclGetStorageShape(t) == [17]
        many = list(range(1, 12))  # more dimensions than fit inline
        acl.aclInitTensor(t, many, len(many), acl.ACL_INT8, NULL, 0, acl.ACL_FORMAT_ND, many, len(many), NULL)
        assert acl.aclGetViewShape(t) == many
        assert status_of(acl.aclInitTensor, NULL, [1], 1, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, [1], 1, p) == 161001
        assert status_of(acl.aclInitTensor, t, NULL, 2, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, [1], 1, p) == 161001
        assert acl.aclGetViewShape(t) == many  # a refused call changes nothing


def test_tensor_redescribed_after_phase1_fails_phase2():
    grad, idx = inputs(3)
    with Arena() as a:
        t_grad, p_grad = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        t_out, p_out = a.zeros((N, H), np.float32)
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_grad, t_idx, K, False, t_out)
        acl.aclInitTensor(t_grad, [P * 4, H], 2, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, [P * 4, H], 2, p_grad)
        with pytest.raises(errors.AclnnErrParamInvalid) as ei:
            aclnn.aclnnMoeTokenPermuteGrad(NULL, ws, ex, NULL)
        assert "changed after" in str(ei.value)
        assert (a.download(p_out, (N, H), np.float32) == 0).all()


def bare_tensor(shape, data):
    """A tensor the Arena does not own (a list takes it over)."""
    return acl.aclCreateTensor(list(shape), len(shape), acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, list(shape),
                               len(shape), data)


@pytest.mark.parametrize("name", ["aclSetDynamicInputTensorAddr", "aclSetDynamicOutputTensorAddr",
                                  "aclSetDynamicTensorAddr", "AclSetDynamicInputTensorAddr",
                                  "AclSetDynamicOutputTensorAddr", "AclSetDynamicTensorAddr"])
def test_list_setters_set_the_element_address_in_cann_order(name):
    setter = returns_status(name)
    grad, idx = inputs(3)
    with Arena() as a:
        p1, p2, p3 = a.malloc(16), a.malloc(16), a.malloc(16)
        t1, t2 = bare_tensor((4,), p1), bare_tensor((4,), p2)
        tensors = acl.aclCreateTensorList([t1, t2], 2)
        t_grad, _ = a.from_numpy(grad)
        t_idx, _ = a.from_numpy(idx)
        t_out, _ = a.zeros((N, H), np.float32)
        _, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_grad, t_idx, K, False, t_out)
        try:
            assert setter(ex, 0, 1, tensors, p3) == 0
            assert addr(acl.aclGetRawTensorAddr(t2)) == addr(p3)
            assert addr(acl.aclGetRawTensorAddr(t1)) == addr(p1)
            # CANN's order: the list, the index, then the element's address is set, then the executor.
            assert setter(ex, 0, 0, NULL, p3) == 561103
            assert setter(ex, 0, 2, tensors, p3) == 161002
            assert setter(NULL, 0, 0, tensors, p3) == 561103
            assert addr(acl.aclGetRawTensorAddr(t1)) == addr(p3)  # set before the executor was looked at
        finally:
            discard_executor(ex)
        assert setter(ex, 0, 0, tensors, p1) == 561000  # an executor no longer live
        acl.aclDestroyTensorList(tensors)
        assert setter(NULL, 0, 0, tensors, p1) == 161002  # a list no longer live


def test_dump_op_tensors_checks_its_arguments_and_writes_nothing():
    dump = returns_status("aclDumpOpTensors")
    with Arena() as a:
        p = a.malloc(16)
        t1, t2 = a.tensor((4,), acl.ACL_FLOAT, p), a.tensor((4,), acl.ACL_FLOAT, p)
        stream = acl.aclrtCreateStream()
        try:
            arr = ffi.new("aclTensor *[]", [t1, t2])
            before = a.download(p, (4,), np.float32)
            assert dump(b"Abs", b"abs_0", arr, 1, 1, stream) == 0
            np.testing.assert_array_equal(a.download(p, (4,), np.float32), before)
            assert acl.aclDumpOpTensors("Abs", "abs_0", [t1, t2], 1, 1, stream) is None  # through the mirror
            assert dump(NULL, b"abs_0", arr, 1, 1, stream) == 161001
            assert dump(b"Abs", b"abs_0", NULL, 0, 0, stream) == 161001
            assert dump(b"Abs", b"abs_0", arr, 1, 1, NULL) == 161001
            assert dump(b"Abs", b"abs_0", arr, 2 ** 64 - 1, 1, stream) == 161002  # the count overflows
            a.destroy(t2)
            assert dump(b"Abs", b"abs_0", arr, 1, 1, stream) == 161002  # tensors[1] destroyed
        finally:
            acl.aclrtDestroyStream(stream)
        assert dump(b"Abs", b"abs_0", arr, 1, 0, stream) == 161002  # a stream no longer live
