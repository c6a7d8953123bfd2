"""The matmul engine (stubs/sdk/matmul.c) on OpenBLAS: results bitwise the same for every stub thread count (tiles
fixed by the shape, one single-threaded BLAS call per tile), transposed views read without a copy giving the same
bits as contiguous operands, 16-bit operands multiplied exactly and accumulated in float32, and the BLAS shipped
beside the stub libraries."""

import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import acl

# several row tiles (256), column tiles and k chunks (4096), with ragged edges
M, K, N = 300, 4500, 700


def matmul(a, b, threads):
    previous = acl.aclStubSetNumThreads(threads)
    try:
        out = np.empty(a.shape[:-1] + b.shape[-1:], a.dtype)
        aclnn_py.run("aclnnMatmul", a, b, 0, out=out)
        return out
    finally:
        acl.aclStubSetNumThreads(previous if previous > 0 else 0)


def bits(x):
    return x.view(np.uint16 if x.itemsize == 2 else np.uint32)


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
def test_results_do_not_depend_on_the_thread_count(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    one = matmul(a, b, 1)
    for threads in (2, 3, 5):
        np.testing.assert_array_equal(bits(matmul(a, b, threads)), bits(one))


def test_transposed_views_give_the_contiguous_bits():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, K)).astype(np.float32)
    bt = rng.standard_normal((N, K)).astype(np.float32)
    want = matmul(a, np.ascontiguousarray(bt.T), 2)
    np.testing.assert_array_equal(bits(matmul(a, bt.T, 2)), bits(want))  # the BLAS's transpose flag
    np.testing.assert_array_equal(bits(matmul(np.asfortranarray(a), bt.T, 2)), bits(want))


def test_bf16_products_are_exact_and_accumulated_in_float32():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 2000)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((2000, 48)).astype(ml_dtypes.bfloat16)
    got = matmul(a, b, 2).astype(np.float64)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    # float32 sums of exact products (error ~ k * 2^-24 * bound), then one rounding to bf16 (2^-8 relative)
    assert np.all(np.abs(got - exact) <= 2.0 ** -8 * np.abs(exact) + 2000 * 2.0 ** -24 * bound)


def test_openblas_ships_beside_the_stub_libraries():
    lib64 = Path(aclnn_py.get_include()).parent / "lib64"
    blas = lib64 / "libscipy_openblas.so"
    assert blas.is_file() and (lib64 / "libscipy_openblas.LICENSE.txt").is_file()
    # a fresh process loading libnnopbase finds the BLAS beside it through the $ORIGIN rpath
    code = ("import ctypes, sys; ctypes.CDLL(sys.argv[1]); "
            "print(any(l.endswith('/libscipy_openblas.so') for l in open('/proc/self/maps').read().split()))")
    out = subprocess.run([sys.executable, "-c", code, str(lib64 / "libnnopbase.so")], capture_output=True,
                         text=True, env={"PATH": "/usr/bin:/bin"}, check=True).stdout
    assert out.strip() == "True"
