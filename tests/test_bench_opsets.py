"""The family benchmark (benchmarks/ops.py) times what it claims: every case of benchmarks/opsets, at a small
size and in every dtype it lists, gives the stub's result equal to torch's (the same call the benchmark times,
outputs allocated as the benchmark allocates them)."""

import sys

import numpy as np
import pytest

import aclnn_py

from test_c_samples import ROOT

sys.path.append(str(ROOT))
from benchmarks import ops, opsets  # noqa: E402

torch = pytest.importorskip("torch")

# the op_api rounds a floating quotient to its dtype before flooring it (docs/guide/elementwise.md); torch floors
# the exact quotient
ORACLES = {"div floor": lambda a, b: torch.floor(a / b), "floor_divide": lambda a, b: torch.floor(a / b)}
CASES = [(c, dt) for c in opsets.collect() for dt in c.dtypes]


def _np(t):
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy()


@pytest.mark.parametrize("case,dtype", CASES, ids=[f"{c.name}-{dt}" for c, dt in CASES])
def test_case_matches_torch(case, dtype):
    n = 2 * (case.row or 1024)
    args = ops.inputs(case, dtype, n, np.random.default_rng(1))
    outs = ops.outputs_like(torch, case, args, dtype)
    assert all(o.shape[:1] == args[0].shape[:1] or o.ndim == 0 for o in outs)
    out = (outs + [None] * case.unused_outs) if len(outs) + case.unused_outs > 1 else outs[0]
    aclnn_py.run(case.op, *args, *case.attrs, out=out)
    want = ORACLES.get(case.name, case.torch_fn)(*[ops.to_torch(torch, a) for a in args])
    want = list(want) if isinstance(want, tuple) else [want]
    if case.name in ("sort", "topk10"):   # ties may come in either order: compare the values, and the indices' values
        np.testing.assert_array_equal(np.take_along_axis(args[0], outs[1], -1).astype(np.float32),
                                      _np(want[0]).astype(np.float32))
        want, outs = want[:1], outs[:1]
    for got, exp in zip(outs, want):
        exp = _np(exp)
        assert got.shape == exp.shape, case.name
        if got.dtype.kind in "iub":
            np.testing.assert_array_equal(got, exp)
        else:
            rtol, atol = (1e-5, 1e-4) if dtype == "float32" else (2e-2, 2e-2)   # cumsum: 1024 terms in float32
            np.testing.assert_allclose(got.astype(np.float64), exp.astype(np.float64), rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=f"{case.name} {dtype}")
