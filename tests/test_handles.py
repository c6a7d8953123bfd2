"""Handles stay invalid forever (issue: a handle's identity was its address) and every shape, stride and offset
is handled without overflow. Tensors, int arrays and executors destroyed after phase 1 fail phase 2 with
161002 whatever the allocator does with their memory; huge dims, strides and offsets fail cleanly."""

import numpy as np
import pytest

from aclnn_py import acl, aclnn, errors
from aclnn_py._native import ffi

from helpers_acl import NULL, Arena, discard_executor, status_of

INT64_MAX = 2**63 - 1
P, H, K = 6, 4, 2
N = P // K


def grad_case(a: Arena):
    grad = np.arange(P * H, dtype=np.float32).reshape(P, H)
    idx = np.arange(P, dtype=np.int32)[::-1].copy()
    t_grad, _ = a.from_numpy(grad)
    t_idx, _ = a.from_numpy(idx)
    t_out, p_out = a.zeros((N, H), np.float32)
    return t_grad, t_idx, t_out, p_out


def handle_value(h) -> int:
    return int(ffi.cast("uintptr_t", h))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_tensor_destroyed_after_phase1_stays_dead_when_a_bigger_one_is_created(which):
    with Arena() as a:
        tensors = grad_case(a)
        t_out, p_out = tensors[2], tensors[3]
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(tensors[0], tensors[1], K, False, t_out)
        dead = tensors[which]
        a.destroy(dead)
        # New, larger tensors: an allocator may well hand out the memory of the destroyed one.
        bigger = [a.zeros((P * 8, H * 8), np.float32)[0] for _ in range(16)]
        assert handle_value(dead) not in {handle_value(t) for t in bigger}
        try:
            with pytest.raises(errors.AclnnErrParamInvalid) as ei:
                aclnn.aclnnMoeTokenPermuteGrad(NULL, ws, ex, NULL)
            assert ei.value.status == 161002 and "destroyed" in str(ei.value)
        finally:
            discard_executor(ex)
        if which != 2:
            assert (a.download(p_out, (N, H), np.float32) == 0).all()


def test_int_array_destroyed_after_phase1_fails_phase2():
    n, k, h = 4, 2, 3
    with Arena() as a:
        t_tokens, _ = a.from_numpy(np.ones((n, h), np.float32))
        t_idx, _ = a.from_numpy(np.arange(n * k, dtype=np.int32).reshape(n, k))
        t_out, p_out = a.zeros((n * k, h), np.float32)
        t_sorted, _ = a.zeros((n * k,), np.int32)
        t_pout, _ = a.zeros((n * k,), np.float32)
        rng = acl.aclCreateIntArray([0, n * k], 2)
        ws, ex = aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize(t_tokens, t_idx, NULL, rng, 0, False, t_out,
                                                                  t_sorted, t_pout)
        acl.aclDestroyIntArray(rng)
        bigger = [acl.aclCreateIntArray(list(range(64)), 64) for _ in range(16)]
        try:
            assert handle_value(rng) not in {handle_value(b) for b in bigger}
            with pytest.raises(errors.AclnnErrParamInvalid) as ei:
                aclnn.aclnnMoeTokenPermuteWithEp(NULL, ws, ex, NULL)
            assert "int array 'rangeOptional'" in str(ei.value) and "destroyed" in str(ei.value)
        finally:
            discard_executor(ex)
            for b in bigger:
                acl.aclDestroyIntArray(b)
        assert (a.download(p_out, (n * k, h), np.float32) == 0).all()


def test_executor_destroyed_stays_dead_when_a_new_one_is_created():
    with Arena() as a:
        t_grad, t_idx, t_out, p_out = grad_case(a)
        ws, old = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_grad, t_idx, K, False, t_out)
        acl.aclDestroyAclOpExecutor(old)
        ws, new = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_grad, t_idx, K, False, t_out)
        assert handle_value(new) != handle_value(old)
        assert status_of(aclnn.aclnnMoeTokenPermuteGrad, NULL, ws, old, NULL) == 161002
        assert status_of(acl.aclSetAclOpExecutorRepeatable, old) == 561000
        aclnn.aclnnMoeTokenPermuteGrad(NULL, ws, new, NULL)
        acl.aclrtSynchronizeStream(NULL)  # phase 2 is queued: results exist after this
        assert (a.download(p_out, (N, H), np.float32) != 0).any()


def test_null_strides_whose_dims_product_overflows():
    dims = [2**40, 2**40, 2**40]
    t = acl.aclCreateTensor(dims, 3, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, dims, 3, NULL)
    try:
        assert acl.aclGetViewStrides(t) == [INT64_MAX, 2**40, 1]  # saturated: no buffer can back it anyway
    finally:
        acl.aclDestroyTensor(t)


@pytest.mark.parametrize("offset, strides", [
    (INT64_MAX // 4, None), (INT64_MAX // 4 + 1, None), (-(INT64_MAX // 4), None), (INT64_MAX, None),
    (-INT64_MAX - 1, None), (0, [INT64_MAX, 1]), (0, [INT64_MAX // 4, -INT64_MAX // 4]), (INT64_MAX - 3, [1, 1]),
])
def test_phase2_rejects_views_whose_byte_range_overflows(offset, strides):
    with Arena() as a:
        t_grad_ok, t_idx, t_out, p_out = grad_case(a)
        p_grad = a.malloc(P * H * 4)
        t_grad = a.tensor((P, H), acl.ACL_FLOAT, p_grad, strides=strides, offset=offset)
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_grad, t_idx, K, False, t_out)
        try:
            assert status_of(aclnn.aclnnMoeTokenPermuteGrad, NULL, ws, ex, NULL) == 161002
        finally:
            discard_executor(ex)
        assert (a.download(p_out, (N, H), np.float32) == 0).all()
