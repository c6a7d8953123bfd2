"""The reduction and lanes engines' documented properties, and the in-place creation and scan operators.

- A float32 sum takes the documented order (32 lanes per 4096-term chunk, adjacent-pair trees), emulated here
  in numpy float32 arithmetic: the results are equal bit for bit.
- Results do not depend on the thread count or on the layout of the input (a transposed view gives the same
  bits as its contiguous copy).
- aclnnInplaceZero, aclnnInplaceOne and aclnnInplaceCumprod write their selfRef.
"""

from __future__ import annotations

import numpy as np
import pytest

import aclnn_py
from helpers_ops import threads

CHUNK, LANES = 4096, 32


def tree(v: np.ndarray) -> np.float32:
    """The adjacent-pair tree, an odd last value passed up, in float32."""
    v = list(v.astype(np.float32))
    while len(v) > 1:
        nxt = [np.float32(v[2 * i] + v[2 * i + 1]) for i in range(len(v) // 2)]
        if len(v) % 2:
            nxt.append(v[-1])
        v = nxt
    return np.float32(v[0]) if v else np.float32(0)


def documented_sum(x: np.ndarray) -> np.float32:
    parts = []
    for c in range(0, len(x), CHUNK):
        chunk = x[c:c + CHUNK]
        lanes = np.zeros(LANES, np.float32)
        for r in range(0, len(chunk), LANES):
            row = chunk[r:r + LANES]
            lanes[:len(row)] = lanes[:len(row)] + row  # float32 adds, lane by lane
        parts.append(tree(lanes))
    return tree(np.array(parts, np.float32))


def reduce_sum(x, dims, keep=False):
    out_shape = tuple(1 if i in dims else s for i, s in enumerate(x.shape) if keep or i not in dims)
    out = np.zeros(out_shape, np.float32)
    aclnn_py.run("aclnnReduceSum", x, list(dims), keep, np.float32, out=out)
    return out


@pytest.mark.parametrize("n", [1, 7, 32, 33, 4096, 4097, 10000])
def test_float_sum_takes_the_documented_order(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32) * np.float32(1e3)
    got = reduce_sum(x, (0,))
    assert got.tobytes() == np.float32(documented_sum(x)).tobytes(), (got, documented_sum(x))


def test_sums_do_not_depend_on_layout_or_threads():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 5000)).astype(np.float32)
    want_rows, want_cols = reduce_sum(x, (1,)), reduce_sum(x, (0,))
    for n in (1, 2, 3):
        with threads(n):
            assert reduce_sum(x, (1,)).tobytes() == want_rows.tobytes()
            assert reduce_sum(x, (0,)).tobytes() == want_cols.tobytes()
    # the same logical reduction of a transposed view (read as columns) gives the same bits
    xt = np.ascontiguousarray(x.T).T
    assert reduce_sum(xt, (1,)).tobytes() == want_rows.tobytes()
    assert reduce_sum(xt, (0,)).tobytes() == want_cols.tobytes()
    # and a reduction over every dimension: chunks combined by the tree, any thread count
    total = reduce_sum(x, (0, 1))
    with threads(1):
        assert reduce_sum(x, (0, 1)).tobytes() == total.tobytes()


def test_softmax_does_not_depend_on_threads():
    x = np.random.default_rng(1).standard_normal((64, 9000)).astype(np.float32)
    out1, out2 = np.zeros_like(x), np.zeros_like(x)
    with threads(1):
        aclnn_py.run("aclnnSoftmax", x, -1, out=out1)
    with threads(2):
        aclnn_py.run("aclnnSoftmax", x, -1, out=out2)
    assert out1.tobytes() == out2.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bool", "complex64"])
def test_inplace_zero(dtype):
    x = (np.arange(12).reshape(3, 4) + 1).astype(dtype)
    aclnn_py.run("aclnnInplaceZero", outputs=("selfRef",), out=x)
    assert not x.any()


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "bool", "float64"])
def test_inplace_one(dtype):
    x = np.zeros((2, 5), dtype)
    view = x[:, ::2]  # a strided view: only its elements are written
    aclnn_py.run("aclnnInplaceOne", outputs=("selfRef",), out=view)
    np.testing.assert_array_equal(x[:, ::2], np.ones((2, 3), dtype))
    np.testing.assert_array_equal(x[:, 1::2], np.zeros((2, 2), dtype))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_inplace_cumprod(dim):
    x = np.random.default_rng(dim + 5).uniform(0.5, 1.5, (3, 4)).astype(np.float32)
    want = np.cumprod(x.astype(np.float64), axis=dim).astype(np.float32)
    aclnn_py.run("aclnnInplaceCumprod", dim, outputs=("input",), out=x)
    np.testing.assert_allclose(x, want, rtol=1e-6)


def test_inplace_zero_refuses_unsupported_dtype():
    x = np.zeros(3, np.uint32)
    with pytest.raises(aclnn_py.AclnnError) as exc:
        aclnn_py.run("aclnnInplaceZero", outputs=("selfRef",), out=x)
    assert exc.value.status == 161002
