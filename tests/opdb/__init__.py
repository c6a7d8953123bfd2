"""The operator database of the test suite, in the manner of PyTorch's OpInfo: one entry per operator (with its
scalar and in-place variants), its supported dtypes, its torch oracle and its tolerances; the samples are
generated from the entry's kind. tests/test_opdb.py runs every entry for every supported dtype, checks that an
unsupported dtype is refused with ACLNN_ERR_PARAM_INVALID, and that every operator the stub exports has an
entry. Entries live in one module per family (math_*.py, nn_*.py, ...), collected in ENTRIES.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Callable

import numpy as np

from aclnn_py.dtypes import bfloat16

FLOATS = ("float32", "float16", "bfloat16")
REALS = FLOATS + ("float64",)
INTS = ("int8", "int16", "int32", "int64", "uint8")
COMPLEX = ("complex64", "complex128")
ALL = REALS + INTS + ("bool",) + COMPLEX
EVERY_DTYPE = ALL + ("uint16", "uint32", "uint64")

# Default tolerances: (rtol, atol) by dtype; integers and bool are exact.
TOL = {
    "float32": (1.3e-6, 1e-5), "float64": (1e-12, 1e-12), "float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3),
    "complex64": (1.3e-6, 1e-5), "complex128": (1e-12, 1e-12),
}


def np_dtype(name: str) -> np.dtype:
    return bfloat16 if name == "bfloat16" else np.dtype(name)


@dataclasses.dataclass(frozen=True)
class Sample:
    """One call: operands (arrays or Python numbers) in C order, then attributes; kw extra keyword arguments
    (by C parameter name: run() takes them, and the oracle receives them as keywords too)."""

    operands: tuple
    attrs: tuple = ()
    name: str = ""
    kw: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class OpInfo:
    name: str                      # the main variant, e.g. "aclnnAdd"
    ref: Callable                  # torch oracle: ref(*operands, *attrs) on torch tensors / numbers
    dtypes: tuple                  # the operator's supported input dtypes (op_api list, Atlas A2/A3)
    kind: str = "binary"           # unary | binary | ternary | custom | outputs (ref gives the outputs: test_opdb)
    attrs: tuple = ((),)           # attribute tuples (in C order) to try
    scalar: str | None = None      # the variant taking the last operand as an aclScalar
    inplace: str | None = None     # the in-place variant (first operand written)
    inplace_scalar: str | None = None
    domain: tuple = (-4.0, 4.0)    # float input range
    int_domain: tuple = (-8, 8)    # integer input range (clipped to the dtype)
    out_dtype: Callable | None = None  # result dtype from the operand dtype name (default: what torch gives)
    tol: dict = dataclasses.field(default_factory=dict)  # overrides of TOL
    samples: Callable | None = None    # custom: samples(dtype, rng) -> list of Sample
    also: tuple = ()               # further entry points this entry's tests reach (other variants)
    native16: bool = False         # the oracle runs on 16-bit tensors as they are (not in float32)
    # custom calls: call(sample, expected) runs the operator and returns its result(s) (an array or a sequence of
    # arrays: outputs of any layout, in-place targets, output lists); expected is the oracle's result (ref's
    # tensors, e.g. to shape the outputs), which the results are compared with
    call: Callable | None = None
    outputs: tuple | None = None   # run()'s outputs= (C names), for outputs the header's roles do not mark
    # several outputs checked by name: run() gets each as a keyword, the oracle returns one result per name (in its
    # final dtype: such entries round 16-bit results themselves) and receives the sample's keywords too
    named_outputs: tuple = ()
    nonzero: bool = False          # operands after the first hold no zero (divisors: torch raises on integer / 0)
    scalar_dtypes: tuple | None = None  # the scalar variants' dtypes when fewer than the tensor variant's
    mixed: bool = True             # a mixed-dtype sample (False: the op_api wants one dtype for every operand)
    extra: Callable | None = None  # further samples beside the generated ones: extra(dtype, rng) -> list of Sample
    any_rank: bool = False         # no rank limit: a rank-9 call is computed, not refused
    broadcast: bool = True         # generated samples broadcast operands (False: every operand has one shape)
    kwargs: dict = dataclasses.field(default_factory=dict)  # further keyword arguments of every call (buffer=None)

    def variants(self) -> list[str]:
        return [v for v in (self.name, self.scalar, self.inplace, self.inplace_scalar) if v] + list(self.also)

    def scalar_supports(self, dtype: str) -> bool:
        return self.scalar_dtypes is None or dtype in self.scalar_dtypes

    def tolerance(self, dtype: str) -> tuple:
        return self.tol.get(dtype, TOL.get(dtype, (0, 0)))


def random_array(rng: np.random.Generator, shape, dtype: str, domain, int_domain) -> np.ndarray:
    return np.asarray(_random(rng, shape, dtype, domain, int_domain))


def _random(rng, shape, dtype, domain, int_domain):
    dt = np_dtype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype in INTS or dtype.startswith("uint"):
        info = np.iinfo(dt)
        lo, hi = max(int_domain[0], info.min), min(int_domain[1], info.max)
        return rng.integers(lo, hi + 1, size=shape).astype(dt)
    if dtype in COMPLEX:
        re = rng.uniform(*domain, size=shape)
        im = rng.uniform(*domain, size=shape)
        return (re + 1j * im).astype(dt)
    return rng.uniform(*domain, size=shape).astype(np.float32).astype(dt)


# Shapes of the elementwise samples: same shape, broadcasting both ways, a 0-d operand, empty, a long run
# (vector loops and threads), and a non-contiguous view.
BINARY_SHAPES = [((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((7,), ()), ((0, 3), (3,)), ((2, 17000), (17000,))]
UNARY_SHAPES = [(2, 3), (), (0, 4), (5, 1, 7), (34000,)]


def without_zeros(a: np.ndarray) -> np.ndarray:
    """a with every zero replaced by one (of its dtype)."""
    a = np.array(a, copy=True)
    a[a == 0] = 1
    return a


def elementwise_samples(info: OpInfo, dtype: str, rng: np.random.Generator) -> list[Sample]:
    arity = {"unary": 1, "binary": 2, "ternary": 3}[info.kind]
    out = []
    arr = lambda shape: random_array(rng, shape, dtype, info.domain, info.int_domain)  # noqa: E731
    shapes = UNARY_SHAPES if arity == 1 else BINARY_SHAPES
    if arity > 1 and not info.broadcast:
        shapes = [(s, s) for s in UNARY_SHAPES]
    for attrs in info.attrs:
        for s in shapes:
            if arity == 1:
                out.append(Sample((arr(s),), attrs, f"shape{s}"))
            else:
                first, second = s
                ops = (arr(first), arr(second)) + tuple(arr(second) for _ in range(arity - 2))
                out.append(Sample(ops, attrs, f"shapes{s}"))
        # a transposed (non-contiguous) first operand
        base = arr((5, 6))
        ops = (base.T,) + tuple(arr((6, 5)) for _ in range(arity - 1))
        out.append(Sample(ops, attrs, "transposed"))
        # mixed dtypes: the other operands in another supported dtype (promotion and the casts it implies)
        other = next((d for d in ("float32", "int32", "float16") if d != dtype and d in info.dtypes), None)
        # (CANN's table promotes no unsigned 16-64-bit dtype with another dtype)
        if arity > 1 and other is not None and info.mixed and dtype not in ("uint16", "uint32", "uint64"):
            rest = tuple(random_array(rng, (3, 4), other, info.domain, info.int_domain) for _ in range(arity - 1))
            out.append(Sample((arr((3, 4)),) + rest, attrs, f"mixed with {other}"))
    if info.nonzero:
        out = [dataclasses.replace(s, operands=s.operands[:1] + tuple(map(without_zeros, s.operands[1:])))
               for s in out]
    return out


def samples_for(info: OpInfo, dtype: str, rng: np.random.Generator) -> list[Sample]:
    out = info.samples(dtype, rng) if info.samples is not None else elementwise_samples(info, dtype, rng)
    return out + (info.extra(dtype, rng) if info.extra is not None else [])


# Values where functions are special or their implementations struggle: signed zeros, infinities, NaN, float32
# subnormals, values near 1 and large arguments (given as float64, converted with the dtype's rounding).
SPECIAL = (0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-30, -1e-7, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5,
           1 - 2**-24, 1 + 2**-23, 3.1415927, 88.72, -103.9, 1e5, -1e5, 3e38, -3e38)


def special_values(dtype: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.array(SPECIAL, np.float64).astype(np_dtype(dtype))


def collect() -> list[OpInfo]:
    entries = []
    for mod in pkgutil.iter_modules(__path__):
        entries.extend(importlib.import_module(f"{__name__}.{mod.name}").ENTRIES)
    return entries
