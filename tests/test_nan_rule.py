"""NaN payloads in the backward kernels: a sum whose running value is NaN keeps that NaN (made quiet),
whatever the added term is, at every position of a row and for every thread count; the numpy references
follow the same rule (aclnn_py.reference._rounding.add_f32)."""

import importlib

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import acl
from aclnn_py.reference._rounding import add_f32

H = 37  # a vector body and a scalar tail in every row kernel
QUIET = np.uint32(0x400000)


def nan_rows(rows: int, seed: int) -> np.ndarray:
    """float32 rows full of NaNs with distinct payloads and signs (some signalling), and a few numbers."""
    rng = np.random.default_rng(seed)
    payload = rng.integers(1, 0x3FFFFF, size=(rows, H), dtype=np.uint32)
    sign = rng.integers(0, 2, size=(rows, H), dtype=np.uint32) << np.uint32(31)
    quiet = rng.integers(0, 2, size=(rows, H), dtype=np.uint32) * QUIET
    bits = sign | np.uint32(0x7F800000) | quiet | payload
    numbers = rng.random((rows, H)) < 0.1
    bits[numbers] = rng.standard_normal(int(numbers.sum())).astype(np.float32).view(np.uint32)
    return bits.view(np.float32)


def reference(name):
    return getattr(importlib.import_module(f"aclnn_py.reference.{name}"), name)


def test_add_f32_keeps_the_running_sums_nan():
    a = np.array([0x7FC00001, 0xFF800002, 0x3F800000, 0x7F800000], np.uint32).view(np.float32)
    b = np.array([0xFFC00003, 0x7FC00004, 0x7F800005, 0xFF800000], np.uint32).view(np.float32)
    got = add_f32(a, b).view(np.uint32)
    assert got[0] == 0x7FC00001 and got[1] == 0xFFC00002  # the running sum's NaN, quiet
    assert got[2] == 0x7FC00005  # a number plus a NaN: the NaN, quiet
    assert np.isnan(got.view(np.float32)[3])  # inf + -inf: the hardware's default NaN


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("threads", [1, 2])
def test_backward_nan_sums_match_the_reference(dtype, threads):
    p, k = 24, 4
    grad = nan_rows(p, 1).astype(dtype) if dtype is not np.float32 else nan_rows(p, 1)
    idx = np.random.default_rng(2).permutation(p).astype(np.int32)
    previous = acl.aclStubSetNumThreads(threads)
    try:
        got = aclnn_py.moe_token_permute_grad(grad, idx, k)
        want = reference("moe_token_permute_grad")(grad, idx, k)
        np.testing.assert_array_equal(got.view(np.uint16 if got.itemsize == 2 else np.uint32),
                                      want.view(np.uint16 if want.itemsize == 2 else np.uint32))
        got = aclnn_py.moe_init_routing_v2_grad(grad, idx, k)
        want = reference("moe_init_routing_v2_grad")(grad, idx, k)
        np.testing.assert_array_equal(got.view(np.uint16 if got.itemsize == 2 else np.uint32),
                                      want.view(np.uint16 if want.itemsize == 2 else np.uint32))
    finally:
        acl.aclStubSetNumThreads(previous if previous > 0 else 0)


def test_float32_nan_plus_nan_is_the_first_rows_payload_at_every_position():
    p, k = 2, 2
    grad = nan_rows(p, 3)
    grad[:] = np.where(np.isnan(grad), grad, np.float32(np.nan))  # every element NaN
    idx = np.arange(p, dtype=np.int32)
    got = aclnn_py.moe_token_permute_grad(grad, idx, k).view(np.uint32)
    assert (got[0] == (grad[0].view(np.uint32) | QUIET)).all()


def test_routing_map_pad_mode_sums_in_ascending_rows():
    t, e, cap = 3, 2, 4
    p = e * cap
    grad = nan_rows(p, 4)
    idx = np.array([0, 0, 1, 0, 2, 1, 0, 2], np.int32)  # token 0 receives four rows
    got, _ = aclnn_py.moe_token_permute_with_routing_map_grad(grad, None, idx, None, e, t, True)
    want, _ = reference("moe_token_permute_with_routing_map_grad")(grad, None, idx, None, e, t, True)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
