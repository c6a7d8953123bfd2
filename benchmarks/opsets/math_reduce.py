"""ops-math reductions, scans and sorts (the reduction engine: stubs/sdk/reduce.c, stubs/sdk/sort.c).

Every case works along the last axis (dim -1) of one operand, whatever shape the driver picks: issue 23 states its
targets for last-axis reductions (sum, mean and amax at least 0.8 of memcpy's read bandwidth) and for sort and topk
(within 1.5x of torch CPU). The outputs are shaped and typed as torch's results (out_like_torch). Operators with an
output dtype run once per input dtype, each with its own dtype attribute: a 16-bit tensor accumulates in float32 and
is rounded once at the end."""

import numpy as np
import torch

from . import BenchCase


ROW = 1024             # every case works on rows of this many elements: (n // ROW, ROW)
READ = ("sum", "mean", "amax", "argmax", "logsumexp", "var")   # outputs ROW times smaller: bound by reading
TARGETS = {"sum": ("memcpy", 0.8), "mean": ("memcpy", 0.8), "amax": ("memcpy", 0.8),
           "sort": ("torch", 1 / 1.5), "topk10": ("torch", 1 / 1.5)}


def _case(name, op, torch_fn, numpy_fn, attrs, dtypes=("float32", "float16", "bfloat16")):
    return BenchCase(name, op, torch_fn, numpy_fn, arity=1, attrs=attrs, dtypes=dtypes, out_like_torch=True,
                     row=ROW, bandwidth="read" if name in READ else "moved", target=TARGETS.get(name))


def _per_dtype(name, op, torch_fn, numpy_fn):
    """One case per input dtype, the output dtype the input's (bfloat16 has no numpy dtype: its name, no numpy)."""
    return [_case(name, op, torch_fn, numpy_fn if d != "bfloat16" else None,
                  ([-1], False, np.dtype(d) if d != "bfloat16" else d), (d,))
            for d in ("float32", "float16", "bfloat16")]


CASES = [
    *_per_dtype("sum", "aclnnReduceSum", lambda a: torch.sum(a, -1), lambda a: np.sum(a, -1)),
    *_per_dtype("mean", "aclnnMean", lambda a: torch.mean(a, -1), lambda a: np.mean(a, -1)),
    _case("amax", "aclnnAmax", lambda a: torch.amax(a, -1), lambda a: np.max(a, -1), ([-1], False)),
    _case("argmax", "aclnnArgMax", lambda a: torch.argmax(a, -1), lambda a: np.argmax(a, -1), (-1, False)),
    _case("logsumexp", "aclnnLogSumExp", lambda a: torch.logsumexp(a, -1), None, ([-1], False)),
    _case("var", "aclnnVar", lambda a: torch.var(a, -1), lambda a: np.var(a, -1, ddof=1), ([-1], True, False),
          ("float32", "float16")),
    _case("cumsum", "aclnnCumsum", lambda a: torch.cumsum(a, -1), lambda a: np.cumsum(a, -1),
          (-1, np.dtype(np.float32)), ("float32",)),
    _case("sort", "aclnnSort", lambda a: torch.sort(a, -1), None, (False, -1, False), ("float32", "float16")),
    _case("topk10", "aclnnTopk", lambda a: torch.topk(a, 10, -1), None, (10, -1, True, True), ("float32", "float16")),
]
