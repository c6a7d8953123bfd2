"""The matmul engine (stubs/sdk/matmul.c) on OpenBLAS: results bitwise the same for every stub thread count (tiles
fixed by the shape, one single-threaded BLAS call per tile), transposed views read without a copy giving the same
bits as contiguous operands, 16-bit operands multiplied exactly and accumulated in float32, and the BLAS shipped
beside the stub libraries; and the host function aclnnTransQuantParam, whose array QuantMatmulV2 takes."""

import ctypes
import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import acl, aclnn
from aclnn_py._native import ffi

from helpers_proc import run_json

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


BLAS_PROBE = '''
import numpy as np
import aclnn_py

def blas_mapped():
    return any(ln.rstrip().endswith("/libscipy_openblas.so") for ln in open("/proc/self/maps"))

def threads():
    import os
    return len(os.listdir("/proc/self/task"))

aclnn_py.backend()
loaded = {"at_load": blas_mapped()}
before = threads()
grad = np.arange(8, dtype=np.float32).reshape(4, 2)
aclnn_py.moe_token_permute_grad(grad, np.array([3, 0, 1, 3], np.int32), 2)
loaded["after_other_operator"] = blas_mapped()
a = np.arange(6, dtype=np.float32).reshape(2, 3)
out = np.empty((2, 2), np.float32)
loaded["matmul"] = error(lambda: aclnn_py.run("aclnnMatmul", a, a.T.copy(), 0, out=out))
loaded["product"] = out.tolist()
loaded["after_matmul"] = blas_mapped()
emit(loaded)
'''


def test_openblas_ships_beside_the_stub_libraries_and_loads_on_first_use():
    lib64 = Path(aclnn_py.get_include()).parent / "lib64"
    blas = lib64 / "libscipy_openblas.so"
    assert blas.is_file() and (lib64 / "libscipy_openblas.LICENSE.txt").is_file()
    # libnnopbase does not link it: loading the stub, and operators that multiply nothing, leave it unloaded (and
    # its threads unstarted); the first product loads it from beside libnnopbase
    r = run_json(BLAS_PROBE, env={"ACLNN_PY_BACKEND": "stub"})
    assert r == {"at_load": False, "after_other_operator": False, "matmul": None,
                 "product": [[5.0, 14.0], [14.0, 50.0]], "after_matmul": True}


def test_a_missing_blas_fails_the_product_with_the_loaders_reason(tmp_path):
    for lib in Path(aclnn_py.get_lib_dir()).glob("*.so"):
        if not lib.name.startswith(("libscipy_openblas", "libgfortran")):
            shutil.copy2(lib, tmp_path / lib.name)
    r = run_json(BLAS_PROBE, env={"ACLNN_PY_LIB_DIR": str(tmp_path), "LD_LIBRARY_PATH": ""})
    assert r["at_load"] is False and r["after_other_operator"] is False and r["after_matmul"] is False
    err = r["matmul"]
    # a failed kernel, as on a device: the stream reports it (507015) with the kernel's message
    assert err["status"] == 507015, err
    assert "aclnnMatmul" in err["text"] and "libscipy_openblas.so could not be loaded" in err["text"], err


BIT46 = 1 << 46
ONE, HALF, TWO = 0x3F800000, 0x3F000000, 0x40000000  # float32 bits


def trans_quant_param(scale, offset):
    """(the packed array as Python ints, its length), the malloc'ed array freed."""
    ptr, n = aclnn.aclnnTransQuantParam(scale, len(scale), offset, len(offset or ()))
    try:
        return [int(v) for v in ffi.unpack(ptr, n)], n
    finally:
        ctypes.CDLL(None).free(ctypes.c_void_p(int(ffi.cast("uintptr_t", ptr))))


def off(v):
    return (v & 0x1FF) << 37


# (scale, offset, expected array): as the op_api writes it: max(scaleSize, offsetSize) entries rounded up to 16
# unless it is 1, zeros past the given values (no broadcasting), all 32 bits of a scale, offsets rounded half away
# from zero and clamped to [-256, 255]
TQP_CASES = [
    ([1.0, 1.0, 1.0], None, [ONE | BIT46] * 3 + [0] * 13),
    ([0.5], None, [HALF | BIT46]),
    ([1.1], None, [0x3F8CCCCD | BIT46]),
    ([1.0] * 17, None, [ONE | BIT46] * 17 + [0] * 15),
    ([2.0], [1.5, -2.5, 300.0], [TWO | BIT46 | off(2), off(-3), off(255)] + [0] * 13),
    ([1.0, 2.0], [-1000.0], [ONE | BIT46 | off(-256), TWO | BIT46] + [0] * 14),
]


@pytest.mark.parametrize("scale, offset, want", TQP_CASES, ids=range(len(TQP_CASES)))
def test_trans_quant_param_packs_as_its_op_api(scale, offset, want):
    assert trans_quant_param(scale, offset) == (want, len(want))


@pytest.mark.parametrize("args", [(None, 0, None, 0), ([1.0], 0, None, 0), ([1.0], 1, [1.0], 0)])
def test_trans_quant_param_rejects_empty_arrays(args):
    with pytest.raises(aclnn_py.AclnnError) as info:
        aclnn.aclnnTransQuantParam(*args)
    assert info.value.status == 161002


def test_quant_matmul_v2_takes_the_trans_quant_param_array():
    """The official sample's flow: n = 3 scales give the 16-entry deqScale QuantMatmulV2 requires."""
    x1, x2 = np.ones((5, 2), np.int8), np.ones((2, 3), np.int8)
    packed, n = trans_quant_param([1.0, 0.5, 2.0], None)
    out = np.empty((5, 3), np.float16)
    aclnn_py.run("aclnnQuantMatmulV2", x1, x2, np.ones(3, np.int32), np.array(packed, np.uint64), False, False,
                 out=out)
    np.testing.assert_array_equal(out, np.tile(np.array([3.0, 1.5, 6.0], np.float16), (5, 1)))


def test_the_blas_loads_in_a_forked_child_and_its_parent():
    """The first product of each process loads the BLAS: a child forked before any product, and the parent after."""
    r = run_json('''
        import os
        import numpy as np
        import aclnn_py

        def product():
            a = np.arange(6, dtype=np.float32).reshape(2, 3)
            out = np.empty((2, 2), np.float32)
            aclnn_py.run("aclnnMatmul", a, a.T.copy(), 0, out=out)
            return out.tolist()

        aclnn_py.moe_token_permute_grad(np.ones((4, 2), np.float32), np.array([3, 0, 1, 3], np.int32), 2)
        pid = os.fork()
        if pid == 0:
            os._exit(0 if product() == [[5.0, 14.0], [14.0, 50.0]] else 3)
        _, code = os.waitpid(pid, 0)
        emit({"child": os.waitstatus_to_exitcode(code), "parent": product()})
    ''', env={"ACLNN_PY_BACKEND": "stub"})
    assert r == {"child": 0, "parent": [[5.0, 14.0], [14.0, 50.0]]}
