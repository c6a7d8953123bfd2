"""Tensor addresses between the phases: aclSetRawTensorAddr / aclGetRawTensorAddr, the executor setters
(aclSetInputTensorAddr, aclSetOutputTensorAddr, aclSetTensorAddr and their Acl... aliases) that give a
repeatable executor new data, and aclInitTensor (a tensor re-described after phase 1 fails phase 2)."""

import importlib

import numpy as np
import pytest

from aclnn_py import acl, aclnn, errors
from aclnn_py._native import ffi, lib

from helpers_acl import NULL, Arena, status_of

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
