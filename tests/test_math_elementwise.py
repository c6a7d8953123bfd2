"""Rules of the ops-math elementwise operators that torch does not share, each checked against a small reference of
the rule: integer division and remainder by 0 and MIN / -1 (never a trap), the op_api's 16-bit intermediate
roundings, the variants the operator database cannot drive (aclnnInplaceAddV3 writes its tensor operand), the
in-place comparisons' 0/1 results in selfRef's dtype, and refusals the op_api makes where torch would compute."""

from __future__ import annotations

import numpy as np
import pytest

import aclnn_py
from aclnn_py.dtypes import bfloat16

I32_MIN = np.iinfo(np.int32).min


# ---- integer division: x / 0 = -1, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0 -------------------------------------

def trunc_div(a: int, b: int, bits: int) -> int:
    if b == 0:
        return -1
    if b == -1:
        return wrap(-a, bits)
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def wrap(x: int, bits: int) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >= 1 << (bits - 1) else x


def trunc_mod(a: int, b: int, bits: int) -> int:
    if b == 0:
        return a
    if b == -1:
        return 0
    return a - trunc_div(a, b, bits) * b


def floor_div(a: int, b: int, bits: int) -> int:
    q, r = trunc_div(a, b, bits), trunc_mod(a, b, bits)
    return q - 1 if b != 0 and r != 0 and (r < 0) != (b < 0) else q


def floor_mod(a: int, b: int, bits: int) -> int:
    r = trunc_mod(a, b, bits)
    return r + b if b != 0 and r != 0 and (r < 0) != (b < 0) else r


DIVIDENDS = [7, -7, 0, 5, I32_MIN, I32_MIN, 3, -9]
DIVISORS = [0, 0, 0, -1, -1, 1, 2, 4]

# (operator, extra attributes before out, element rule)
INT_DIVISION = [
    ("aclnnDivMod", (1,), trunc_div),
    ("aclnnDivMod", (2,), floor_div),
    ("aclnnFloorDivide", (), floor_div),
    ("aclnnRemainderTensorTensor", (), floor_mod),
    ("aclnnFmodTensor", (), trunc_mod),
]


@pytest.mark.parametrize("op, attrs, rule", INT_DIVISION, ids=[f"{o}{a}" for o, a, _ in INT_DIVISION])
def test_integer_division_never_traps(op, attrs, rule):
    a = np.array(DIVIDENDS, np.int32)
    b = np.array(DIVISORS, np.int32)
    out = np.zeros_like(a)
    aclnn_py.run(op, a, b, *attrs, out=out)
    expected = [rule(int(x), int(y), 32) for x, y in zip(a, b)]
    assert out.tolist() == expected


def test_int64_floor_division_by_zero_and_min():
    a = np.array([np.iinfo(np.int64).min, 9, -9], np.int64)
    b = np.array([-1, 0, 0], np.int64)
    out = np.zeros_like(a)
    aclnn_py.run("aclnnFloorDivide", a, b, out=out)
    assert out.tolist() == [floor_div(int(x), int(y), 64) for x, y in zip(a, b)]


# ---- float remainders: exact fmod, signed zeros kept, infinite divisors leave the dividend -------------------------

FLOAT_DIVIDENDS = np.array([7, -7, -4, 4, -0.0, 0, 5.5, -5.5, np.inf, np.nan, 1e30, 7], np.float32)
FLOAT_DIVISORS = np.array([np.inf, -np.inf, 2, -2, 2, -2, 0, 2, 3, 3, 3e-45, np.nan], np.float32)


def np_floor_mod(a, b):
    r = np.fmod(a, b)
    return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


@pytest.mark.parametrize("op, rule", [("aclnnFmodTensor", np.fmod), ("aclnnRemainderTensorTensor", np_floor_mod)])
def test_float_remainder_special_values(op, rule):
    out = np.zeros_like(FLOAT_DIVIDENDS)
    aclnn_py.run(op, FLOAT_DIVIDENDS, FLOAT_DIVISORS, out=out)
    with np.errstate(invalid="ignore"):
        expected = rule(FLOAT_DIVIDENDS, FLOAT_DIVISORS).astype(np.float32)
    np.testing.assert_array_equal(out, expected)  # NaN where expected
    real = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(out[real]), np.signbit(expected[real]))  # -0 kept


# ---- 16-bit intermediate results of the op_api's kernel chains --------------------------------------------------

def to_bf16(x):
    return np.asarray(x, np.float32).astype(bfloat16)


def test_add_bf16_rounds_alpha_times_other_first():
    """aclnnAdd with a BF16 computation and alpha != 1 runs Mul then Add: the product is a BF16 tensor."""
    a, b = to_bf16([3.484375, 2.53125, -1.6015625]), to_bf16([-3.09375, -1.2421875, 1.0703125])
    out = np.zeros(3, bfloat16)
    aclnn_py.run("aclnnAdd", a, b, 3, out=out)
    prod = (b.astype(np.float32) * np.float32(3)).astype(bfloat16).astype(np.float32)
    expected = (a.astype(np.float32) + prod).astype(bfloat16)
    once = (a.astype(np.float32) + b.astype(np.float32) * np.float32(3)).astype(bfloat16)
    assert (expected != once).all()  # the rows are chosen where the two orders differ
    np.testing.assert_array_equal(out, expected)


def test_divmod_fp16_rounds_the_quotient_before_flooring():
    """RealDiv (a FLOAT16 result), then Trunc/Floor: 2.999 / 1 rounds to 3.0 in FLOAT16 before flooring."""
    a = np.array([2.999, -2.999], np.float16)
    b = np.array([1.0, 1.0], np.float16)
    for mode, fn in ((1, np.trunc), (2, np.floor)):
        out = np.zeros(2, np.float16)
        aclnn_py.run("aclnnDivMod", a, b, mode, out=out)
        q = (a.astype(np.float32) / b.astype(np.float32)).astype(np.float16)
        np.testing.assert_array_equal(out, fn(q))


def test_sub_fp16_with_alpha_computes_in_float():
    """aclnnSub promotes a FLOAT16 computation to FLOAT when alpha is not 1: one rounding."""
    a, b = np.array([1.0, 3.0], np.float16), np.array([0.3, 0.7], np.float16)
    out = np.zeros(2, np.float16)
    aclnn_py.run("aclnnSub", a, b, 3, out=out)
    expected = (a.astype(np.float32) - np.float32(3) * b.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out, expected)


# ---- variants the database cannot drive --------------------------------------------------------------------------

def test_inplace_add_v3_writes_other():
    other = np.array([1.0, 2.0, 3.0], np.float32)
    aclnn_py.run("aclnnInplaceAddV3", 0.5, other, 2, outputs=["other"])
    np.testing.assert_array_equal(other, np.array([2.5, 4.5, 6.5], np.float32))


@pytest.mark.parametrize("op, other, expected", [
    ("aclnnInplaceEqTensor", np.array([1.0, 0.0, 3.0], np.float32), [1.0, 0.0, 1.0]),
    ("aclnnInplaceLtScalar", 2.5, [1.0, 1.0, 0.0]),
    ("aclnnInplaceGeTensor", np.array([0.0, 9.0, 3.0], np.float32), [1.0, 0.0, 1.0]),
])
def test_inplace_comparison_writes_zero_one_in_self_dtype(op, other, expected):
    target = np.array([1.0, 2.0, 3.0], np.float32)
    aclnn_py.run(op, target, other)
    assert target.tolist() == expected


def test_nan_to_num_leaves_integers():
    x = np.array([1, -2, 3], np.int32)
    out = np.zeros_like(x)
    aclnn_py.run("aclnnNanToNum", x, 0.0, 1.0, -1.0, out=out)
    assert out.tolist() == [1, -2, 3]


def test_equal_is_one_bool():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = np.zeros(1, bool)
    aclnn_py.run("aclnnEqual", a, a.copy(), out=out)
    assert out.tolist() == [True]
    aclnn_py.run("aclnnEqual", a, a[:1].copy(), out=out)
    assert out.tolist() == [False]


def test_isin_scalar_tensor_promotes_by_the_test_elements_count():
    """Fewer than 10 FLOAT16 test elements: the element is rounded to FLOAT16 (0.1 is found); 10 or more: both are
    promoted with the DOUBLE element (FLOAT16 0.1 != 0.1)."""
    out = np.zeros((), bool)
    for n, found in ((9, True), (10, False)):
        aclnn_py.run("aclnnIsInScalarTensor", 0.1, np.full(n, 0.1, np.float16), False, False, out=out)
        assert bool(out) is found, n


def test_isin_tensor_scalar_keeps_a_floating_tensors_dtype():
    x = np.array([0.1, 0.2], np.float16)
    out = np.zeros(2, bool)
    aclnn_py.run("aclnnIsInTensorScalar", x, 0.1, False, False, out=out)
    assert out.tolist() == [True, False]


# ---- refusals ----------------------------------------------------------------------------------------------------

REFUSED = [
    ("aclnnDivMod", (np.ones(2, np.complex64), np.ones(2, np.complex64), 1), np.zeros(2, np.complex64),
     "complex operands with a rounding mode"),
    ("aclnnDivMod", (np.ones(2, np.float32), np.ones(2, np.float32), 3), np.zeros(2, np.float32), "mode 3"),
    ("aclnnPowTensorTensor", (np.ones(2, bool), np.ones(2, bool)), np.zeros(2, bool), "two BOOL operands"),
    ("aclnnGcd", (np.ones(2, np.int32), np.ones(2, np.int32)), np.zeros(2, np.float32), "a float out"),
    ("aclnnAddcmul", (np.ones(2, np.int16), np.ones(2, np.int16), np.ones(2, np.int16), 1), np.zeros(2, np.int16),
     "INT16"),
    ("aclnnIsInScalarTensor", (1, np.ones(2, np.int32), False, False), np.zeros(1, bool), "out of rank 1"),
    ("aclnnIsInTensorScalar", (np.ones(2, np.int32), 1, False, False), np.zeros(2, np.int32), "an INT32 out"),
    ("aclnnIsInTensorScalar", (np.ones(2, bool), 1, False, False), np.zeros(2, bool), "BOOL elements"),
]


@pytest.mark.parametrize("op, args, out, why", REFUSED, ids=[r[3] for r in REFUSED])
def test_refused(op, args, out, why):
    with pytest.raises(aclnn_py.AclnnError) as exc:
        aclnn_py.run(op, *args, out=out)
    assert exc.value.status == 161002, why
