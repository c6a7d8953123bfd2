"""The generic call against the table-driven function of the same operator, measured side by side in one run.

    python benchmarks/generic_call.py
    python benchmarks/generic_call.py --rows 4096 --hidden 1024

Interleaved samples of ``aclnn_py.moe_token_permute(x, idx)`` (one crossing into C) and
``aclnn_py.run("aclnnMoeTokenPermute", ...)`` on numpy arrays and on device Tensors; medians and ratios
are printed, nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make this package importable (aclnn_py stays the one installed)
    sys.path.append(str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import aclnn_py  # noqa: E402


def per_call(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=64)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--samples", type=int, default=15)
    p.add_argument("--calls", type=int, default=50)
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.rows, args.hidden)).astype(np.float32)
    idx = rng.integers(0, 8, (args.rows, 2)).astype(np.int32)
    expected = aclnn_py.moe_token_permute(x, idx)
    outs = tuple(np.empty_like(e) for e in expected)
    tx, ti = aclnn_py.Tensor.from_numpy(x), aclnn_py.Tensor.from_numpy(idx)
    touts = tuple(aclnn_py.Tensor(e.shape, e.dtype) for e in expected)
    cases = {
        "table-driven moe_token_permute": lambda: aclnn_py.moe_token_permute(x, idx),
        "run(), numpy arrays": lambda: aclnn_py.run("aclnnMoeTokenPermute", x, idx, 0, False, out=outs),
        "run(), device Tensors": lambda: aclnn_py.run("aclnnMoeTokenPermute", tx, ti, 0, False, out=touts),
    }
    for fn in cases.values():
        fn()
    assert all(np.array_equal(o, e) for o, e in zip(outs, expected))
    samples = {name: [] for name in cases}
    for _ in range(args.samples):
        for name, fn in cases.items():  # interleaved: a busy moment affects every case alike
            samples[name].append(per_call(fn, args.calls))
    base = statistics.median(samples["table-driven moe_token_permute"])
    print(f"{'call (' + str(args.rows) + 'x' + str(args.hidden) + ' float32)':36} {'median':>10} {'ratio':>7}")
    for name, values in samples.items():
        t = statistics.median(values)
        print(f"{name:36} {t * 1e6:7.1f} us {t / base:6.2f}x")


if __name__ == "__main__":
    main()
