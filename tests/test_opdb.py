"""Every operator of the database (tests/opdb) against its torch oracle, for every supported dtype and variant;
unsupported dtypes refused with ACLNN_ERR_PARAM_INVALID; every operator the stub exports has an entry."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import aclnn_py  # noqa: E402
from aclnn_py import generic  # noqa: E402
from aclnn_py import acl  # noqa: E402
from aclnn_py.dtypes import bfloat16  # noqa: E402

import opdb  # noqa: E402

ENTRIES = opdb.collect()
BY_NAME = {e.name: e for e in ENTRIES}


def registered_ops() -> set:
    names = set()
    while (name := acl.aclStubRegisteredOp(len(names))) is not None:
        names.add(name)
    return names


# ---- numpy <-> torch ---------------------------------------------------------------------------------------

def to_torch(a):
    if not isinstance(a, np.ndarray):
        return a
    a = np.array(a, order="C")  # a copy, 0-d kept 0-d
    if a.dtype == bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def to_numpy(t) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(bfloat16)
    return t.numpy()


LOW = (torch.float16, torch.bfloat16)


def reference(info: opdb.OpInfo, operands, attrs, kw=None):
    """The oracle's result. 16-bit floating inputs are computed in float32 and the result rounded once, as the
    op_api's casts do (torch rounds some intermediate results of its 16-bit kernels, alpha * other among them).
    Entries with several outputs get their operands as they are (keywords included) and round themselves."""
    if info.named_outputs:
        return info.ref(*[to_torch(a) for a in operands], *attrs, **{k: to_torch(v) for k, v in (kw or {}).items()})
    args = [to_torch(a) for a in operands]
    low = [a.dtype for a in args if isinstance(a, torch.Tensor) and a.dtype in LOW]
    if not low or info.native16:
        return info.ref(*args, *attrs)
    up = [a.float() if isinstance(a, torch.Tensor) and a.dtype in LOW else a for a in args]
    result = info.ref(*up, *attrs)
    if isinstance(result, tuple):  # several outputs: each float32 one rounded to the dtype its probe gives
        dtypes = result_dtype(info, args, attrs, (low[0],) * len(result))
        return tuple(r.to(d) if isinstance(r, torch.Tensor) and r.dtype == torch.float32 else r
                     for r, d in zip(result, dtypes))
    if not isinstance(result, torch.Tensor) or result.dtype != torch.float32:
        return result
    return result.to(result_dtype(info, args, attrs, low[0]))


def result_dtype(info, args, attrs, fallback):
    """The dtype the oracle gives for these operands' dtypes (probed on one element of each; a tuple of dtypes for
    an oracle with several results)."""
    probe = [a.reshape(-1)[:1] if isinstance(a, torch.Tensor) and a.numel() else a for a in args]
    try:
        got = info.ref(*probe, *attrs)
    except (RuntimeError, NotImplementedError, IndexError, ValueError):  # a dim or shape the probe lacks
        return fallback
    if isinstance(got, tuple):
        return tuple(g.dtype if isinstance(g, torch.Tensor) else f for g, f in zip(got, fallback))
    return got.dtype


def assert_close(info, dtype, actual: np.ndarray, expected: np.ndarray, what: str):
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    if expected.size == 0:
        return
    if expected.dtype.kind in "biu" and str(expected.dtype) not in info.tol:  # integers exact unless tol says
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    if expected.dtype.kind in "biu":
        rtol, atol = info.tol[str(expected.dtype)]
        np.testing.assert_allclose(actual.astype(np.int64), expected.astype(np.int64), rtol=rtol, atol=atol,
                                   err_msg=what)
        return
    rtol, atol = info.tolerance(dtype if dtype in opdb.TOL else {"bfloat16": "bfloat16"}.get(str(expected.dtype), str(expected.dtype)))
    kind = np.complex128 if expected.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(actual.astype(kind), expected.astype(kind), rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=what)


def expected_result(info, dtype, sample):
    """The oracle's result as numpy: one array, or (for operators with several outputs or a tensor-list output) a
    tuple or list of them, None for an output the call leaves out."""
    exp = reference(info, sample.operands, sample.attrs)
    if isinstance(exp, (tuple, list)):
        return type(exp)(None if e is None else as_numpy(e) for e in exp)
    exp = as_numpy(exp)
    if info.out_dtype is not None:
        exp = exp.astype(opdb.np_dtype(info.out_dtype(dtype)))
    return exp


def as_numpy(e):
    if isinstance(e, (tuple, list)):
        return type(e)(as_numpy(x) for x in e)
    return to_numpy(e) if isinstance(e, torch.Tensor) else np.asarray(e)


def zeros_like_result(exp, fill=0):
    """Output arrays for the call: the structure of the expected result (None stays None), filled with fill."""
    if exp is None:
        return None
    if isinstance(exp, (tuple, list)):
        return type(exp)(zeros_like_result(e, fill) for e in exp)
    return np.full(exp.shape, fill, exp.dtype)


def assert_close_all(info, dtype, actual, expected, what):
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected), f"{what}: {len(actual)} outputs, expected {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            if e is not None:
                assert_close_all(info, dtype, a, e, f"{what} [output {i}]")
        return
    assert_close(info, dtype, actual, expected, what)


def scalar_of(a: np.ndarray):
    """The last operand as a Python number (the scalar variants' aclScalar)."""
    v = a.reshape(-1)[0] if a.size else np.zeros((), a.dtype)[()]
    return v.item() if a.dtype != bfloat16 else float(v)


# ---- the checks --------------------------------------------------------------------------------------------

def cases():
    for info in ENTRIES:
        for dtype in info.dtypes:
            yield pytest.param(info.name, dtype, id=f"{info.name}-{dtype}")


@pytest.mark.parametrize("name, dtype", list(cases()))
def test_operator_matches_torch(name, dtype):
    info = BY_NAME[name]
    rng = np.random.default_rng(zlib.crc32(f"{name}/{dtype}".encode()))
    for sample in opdb.samples_for(info, dtype, rng):
        what = f"{name} {dtype} {sample.name} attrs={sample.attrs}"
        if info.named_outputs or info.call is not None or info.kind == "outputs":
            check = check_outputs if info.named_outputs else check_custom_call if info.call else check_output_lists
            check(info, dtype, sample, what)
            continue
        expected = expected_result(info, dtype, sample)
        if name.startswith("aclnnInplace") and sample.operands:  # an in-place operator alone: it writes its first operand
            out = np.array(sample.operands[0], copy=True)
            aclnn_py.run(name, out, *sample.operands[1:], *sample.attrs)
            assert_close(info, dtype, out, expected, what)
            continue
        # creation operators (no operands) must write every element: their output starts at a value they never give
        out = zeros_like_result(expected, 0 if sample.operands else 7)
        extra = {**info.kwargs, **({"outputs": info.outputs} if info.outputs else {})}
        aclnn_py.run(name, *sample.operands, *sample.attrs, out=out, **extra)
        assert_close_all(info, dtype, out, expected, what)
        if not isinstance(expected, np.ndarray):
            continue

        if info.scalar and len(sample.operands) >= 2 and info.scalar_supports(dtype):
            value = scalar_of(sample.operands[-1])
            ops = sample.operands[:-1] + (value,)
            exp = expected_result(info, dtype, opdb.Sample(ops, sample.attrs))
            out = np.full(exp.shape, 0, exp.dtype)
            aclnn_py.run(info.scalar, *ops, *sample.attrs, out=out, **info.kwargs)
            assert_close(info, dtype, out, exp, what + " (scalar variant)")

        if not sample.operands:  # creation operators: nothing to write in place
            continue
        first = sample.operands[0]
        for variant, last in ((info.inplace, None), (info.inplace_scalar, "scalar")):
            if not variant or expected.shape != first.shape or expected.dtype != first.dtype:
                continue
            ops = sample.operands
            if last == "scalar":
                if len(ops) < 2 or not info.scalar_supports(dtype):
                    continue
                ops = ops[:-1] + (scalar_of(ops[-1]),)
            exp = expected_result(info, dtype, opdb.Sample(ops, sample.attrs)) if last else expected
            if exp.dtype != first.dtype:
                continue
            target = np.array(first, copy=True)
            aclnn_py.run(variant, target, *ops[1:], *sample.attrs, **info.kwargs)
            assert_close(info, dtype, target, exp, f"{what} ({variant})")


def check_outputs(info, dtype, sample, what):
    """An entry with several outputs: each named output against the oracle's result of the same position. Keywords
    starting with '_' go to the oracle only."""
    results = reference(info, sample.operands, sample.attrs, sample.kw)
    expected = [to_numpy(r) if isinstance(r, torch.Tensor) else np.asarray(r) for r in results]
    # an output the sample also gives (an in-place xRef) starts as a copy of it
    outs = {n: np.array(sample.kw[n], copy=True) if n in sample.kw else np.zeros(e.shape, e.dtype)
            for n, e in zip(info.named_outputs, expected)}
    inputs = {k: v for k, v in sample.kw.items() if not k.startswith("_") and k not in outs}  # "_": oracle only
    if "out" in outs:  # a parameter named like run()'s out=: every output goes through out=, in C order
        sig = generic.signature(info.name)
        by_name = {**inputs, **outs}
        order = [sig.params[i][0] for i in sig.outputs]
        outs_in_order = tuple(by_name.get(n) for n in order)
        aclnn_py.run(info.name, *sample.operands, *sample.attrs,
                     out=outs_in_order if len(order) > 1 else outs_in_order[0],
                     **{k: v for k, v in by_name.items() if k not in order})
    else:
        aclnn_py.run(info.name, *sample.operands, *sample.attrs, **inputs, **outs)
    for n, e in zip(info.named_outputs, expected):
        assert_close(info, dtype, outs[n], e, f"{what} output {n}")


def check_custom_call(info, dtype, sample, what):
    """An entry with its own call: every result it returns against the oracle's (one or a sequence)."""
    expected = reference(info, sample.operands, sample.attrs)
    actual = info.call(sample, expected)
    many = isinstance(actual, (list, tuple))
    actual = list(actual) if many else [actual]
    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    assert len(actual) == len(expected), f"{what}: {len(actual)} results, the oracle gives {len(expected)}"
    for k, (a, e) in enumerate(zip(actual, expected)):
        e = to_numpy(e) if isinstance(e, torch.Tensor) else np.asarray(e)
        assert_close(info, dtype, np.asarray(a), e, f"{what} result {k}" if many else what)


def check_output_lists(info, dtype, sample, what):
    """An operator of kind "outputs" (tensor lists, several outputs): its ref(*inputs, *initial outputs) gives the
    expected outputs (numpy in, numpy out) in C order, an array or a list of arrays each; sample.attrs holds the
    initial contents of the outputs where they matter (written in place, or their dtypes), else they start as
    zeros."""
    expected = info.ref(*sample.operands, *sample.attrs)
    outs: list = []
    for k, exp in enumerate(expected):
        init = sample.attrs[k] if k < len(sample.attrs) else None
        if isinstance(exp, list):
            outs.append([np.array(i, copy=True) if init is not None else np.zeros_like(e)
                         for e, i in zip(exp, init if init is not None else exp)])
        else:
            outs.append(np.array(init, copy=True) if init is not None else np.zeros_like(exp))
    aclnn_py.run(info.name, *sample.operands, out=outs[0] if len(outs) == 1 else tuple(outs), **info.kwargs)
    for k, (got, exp) in enumerate(zip(outs, expected)):
        pairs = zip(got, exp) if isinstance(exp, list) else [(got, exp)]
        for i, (g, e) in enumerate(pairs):
            assert_close(info, dtype, g, e, f"{what} output {k} entry {i}")


def unsupported():
    for info in ENTRIES:
        if info.samples is not None:
            continue
        for dtype in opdb.EVERY_DTYPE:
            if dtype not in info.dtypes:
                yield pytest.param(info.name, dtype, id=f"{info.name}-{dtype}")


@pytest.mark.parametrize("name, dtype", list(unsupported()))
def test_unsupported_dtype_is_refused(name, dtype):
    info = BY_NAME[name]
    rng = np.random.default_rng(0)
    arity = {"unary": 1, "binary": 2, "ternary": 3}[info.kind]
    operands = tuple(opdb.random_array(rng, (2, 3), dtype, info.domain, info.int_domain) for _ in range(arity))
    out = np.zeros((2, 3), opdb.np_dtype(info.dtypes[0]))
    with pytest.raises(aclnn_py.AclnnError) as exc:
        if name.startswith("aclnnInplace"):
            aclnn_py.run(name, *operands, *info.attrs[0])
        else:
            aclnn_py.run(name, *operands, *info.attrs[0], out=out, **info.kwargs)
    assert exc.value.status == 161002, exc.value


def elementwise_entries():
    return [pytest.param(e.name, id=e.name) for e in ENTRIES if e.samples is None]


@pytest.mark.parametrize("name", elementwise_entries())
def test_rank_above_8_is_refused(name):
    """Rank 9 is refused with 161002, or computed where the op_api has no rank limit (any_rank)."""
    info = BY_NAME[name]
    arity = {"unary": 1, "binary": 2, "ternary": 3}[info.kind]
    shape = (2,) + (1,) * 7 + (2,)
    dtype = info.dtypes[0]
    operands = tuple(opdb.random_array(np.random.default_rng(0), shape, dtype, info.domain, info.int_domain)
                     for _ in range(arity))
    # a strided first operand: some op_apis accept more than 8 dimensions when every tensor is contiguous
    operands = (operands[0].swapaxes(0, -1),) + operands[1:]
    if info.any_rank:
        sample = opdb.Sample(operands, info.attrs[0])
        expected = expected_result(info, dtype, sample)
        out = np.array(operands[0], copy=True) if name.startswith("aclnnInplace") else np.zeros_like(expected)
        args = (out,) + operands[1:] if name.startswith("aclnnInplace") else operands
        aclnn_py.run(name, *args, *info.attrs[0], **({} if name.startswith("aclnnInplace") else {"out": out}),
                     **info.kwargs)
        assert_close(info, dtype, out, expected, f"{name} rank 9")
        return
    out = np.zeros(shape, opdb.np_dtype(dtype))
    with pytest.raises(aclnn_py.AclnnError) as exc:
        if name.startswith("aclnnInplace"):
            aclnn_py.run(name, *operands, *info.attrs[0])
        else:
            aclnn_py.run(name, *operands, *info.attrs[0], out=out, **info.kwargs)
    assert exc.value.status == 161002, exc.value


def stub_operators() -> set:
    """Every operator the stub's libopapi.so exports (its dynamic symbol table)."""
    from pathlib import Path

    from aclnn_py import _elf

    return set(_elf.operators(_elf.dynamic_exports(Path(aclnn_py.get_lib_dir()) / "libopapi.so")))


# Operators that communicate: their numpy oracles run on several ranks at once (tests/test_mc2_matmul.py).
DISTRIBUTED = {
    "aclnnMatmulAllReduce", "aclnnMatmulAllReduceV2", "aclnnQuantMatmulAllReduce", "aclnnQuantMatmulAllReduceV2",
    "aclnnQuantMatmulAllReduceV3", "aclnnWeightQuantMatmulAllReduce", "aclnnAllGatherMatmul", "aclnnMatmulReduceScatter",
    "aclnnMatmulAllReduceAddRmsNorm", "aclnnQuantMatmulAllReduceAddRmsNorm", "aclnnWeightQuantMatmulAllReduceAddRmsNorm",
    "aclnnInplaceMatmulAllReduceAddRmsNorm", "aclnnInplaceQuantMatmulAllReduceAddRmsNorm",
    "aclnnInplaceWeightQuantMatmulAllReduceAddRmsNorm", "aclnnAlltoAllvGroupedMatMul", "aclnnGroupedMatMulAlltoAllv",
    "aclnnDistributeBarrier",
}
# Named outside the aclnn* family, so run() and the mirror do not reach it: tested through the C entry points
# against torch.stft in tests/test_math_misc.py.
OUTSIDE_ACLNN = {"aclStft"}


def test_every_exported_operator_has_an_entry():
    """An operator the stub exports is tested here (as an entry or a variant of one), or is a MoE operator
    with its own test module, a distributed operator tested on ranks in its own module, or aclStft (below)."""
    covered = {v for e in ENTRIES for v in e.variants()}
    exported = stub_operators()
    missing = {n for n in exported - covered if not n.startswith("aclnnMoe") and n not in DISTRIBUTED | OUTSIDE_ACLNN}
    assert missing == set(), f"exported without an opdb entry: {sorted(missing)}"
    assert covered - exported == set(), f"entries of operators not exported: {sorted(covered - exported)}"
