"""Operator sets of the family benchmark: one module per family lists its cases; benchmarks/ops.py runs them
against torch CPU and numpy on the same cores and prints ratios measured side by side in one run."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Callable


@dataclasses.dataclass(frozen=True)
class BenchCase:
    name: str                       # row label, e.g. "add"
    op: str                         # the aclnn operator run through aclnn_py.run
    torch_fn: Callable | None       # the same computation in torch (inputs as torch tensors, same order)
    numpy_fn: Callable | None       # ... and in numpy, or None where numpy has none
    arity: int = 2                  # tensor operands, all of the benchmark's shape and dtype
    attrs: tuple = ()               # attributes after the operands (alpha, ...)
    dtypes: tuple = ("float32", "float16", "bfloat16")
    domain: tuple = (-2.0, 2.0)     # input values
    out_like_torch: bool = False    # outputs shaped and typed as torch_fn's results (one or a tuple: reductions,
                                    # sorts); otherwise one output like the first operand
    row: int | None = None          # operands shaped (n // row, row) (last-axis reductions, softmax, sorts); else 1-D
    unused_outs: int = 0            # optional outputs after torch's, passed as None (layer norm's mean and rstd)
    bandwidth: str = "moved"        # "moved": inputs read + outputs written, against a memcpy of half those bytes;
                                    # "read": the inputs read, against a memcpy reading as many (a reduction)
    target: tuple | None = None     # the speed target for this case: ("memcpy", r): %memcpy >= r at 64 M
                                    # float32; ("torch", r): torch time / stub time >= r


def collect() -> list[BenchCase]:
    cases = []
    for mod in pkgutil.iter_modules(__path__):
        cases.extend(importlib.import_module(f"{__name__}.{mod.name}").CASES)
    return cases
