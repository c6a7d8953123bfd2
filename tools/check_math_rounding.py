#!/usr/bin/env python3
"""Check that the stub's FLOAT transcendental functions are correctly rounded (aclstub/op_math.h), in two parts:

    python tools/check_math_rounding.py [--stride 251] [--samples 2000] [--lib DIR] [exp log ...]

1. tools/check_math_rounding.c: every `stride`-th float32 bit pattern (stride 1: all 2^32, a long run) through
   aclStubMathF32, the path the operators take (glibc's double functions, vector ones where the host has them, and
   the long double re-evaluation near halfway points), against the C library's long double function rounded
   once. Mismatches there mean the double evaluation erred by more than the margin the SDK assumes.
2. `--samples` random float32 arguments per function through the operator (aclnn_py.run) against mpmath at 200
   bits rounded to 24, which checks the long double reference itself. mpmath is a developer tool here, not a
   dependency of the project (pip install mpmath).

Prints one line per function and part; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OPS = {"exp": "aclnnExp", "exp2": "aclnnExp2", "expm1": "aclnnExpm1", "log": "aclnnLog", "log2": "aclnnLog2",
       "log10": "aclnnLog10", "log1p": "aclnnLog1p", "sin": "aclnnSin", "cos": "aclnnCos", "tan": "aclnnTan",
       "asin": "aclnnAsin", "acos": "aclnnAcos", "atan": "aclnnAtan", "sinh": "aclnnSinh", "cosh": "aclnnCosh",
       "tanh": "aclnnTanh", "asinh": "aclnnAsinh", "acosh": "aclnnAcosh", "atanh": "aclnnAtanh", "erf": "aclnnErf",
       "erfc": "aclnnErfc"}
# argument ranges where each function is finite and not trivially saturated (for the mpmath samples)
DOMAIN = {"exp": (-87, 88), "exp2": (-126, 127), "expm1": (-20, 88), "log": (1e-30, 1e30), "log2": (1e-30, 1e30),
          "log10": (1e-30, 1e30), "log1p": (-0.999, 1e30), "sin": (-1e4, 1e4), "cos": (-1e4, 1e4),
          "tan": (-1e4, 1e4), "asin": (-1, 1), "acos": (-1, 1), "atan": (-1e4, 1e4), "sinh": (-89, 89),
          "cosh": (-89, 89), "tanh": (-10, 10), "asinh": (-1e30, 1e30), "acosh": (1, 1e30), "atanh": (-1, 1),
          "erf": (-4, 4), "erfc": (-4, 9)}


def mp_reference(name: str, x: float):
    """The float32 nearest to name(x) by mpmath at 200 bits, or None outside float32's normal range."""
    import mpmath

    fns = {"exp2": lambda v: mpmath.power(2, v), "log2": lambda v: mpmath.log(v, 2),
           "log1p": lambda v: mpmath.log(1 + v)}
    with mpmath.workprec(200):
        v = fns.get(name, getattr(mpmath, name, None))(mpmath.mpf(float(x)))
        if v == 0 or not mpmath.isfinite(v) or abs(v) < mpmath.mpf(2) ** -126 or abs(v) >= mpmath.mpf(2) ** 128:
            return None
    with mpmath.workprec(24):
        r = +v
    return np.float32(float(r))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=list(OPS))
    ap.add_argument("--stride", type=int, default=251)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--lib", help="directory of the stub libraries (default: the installed package's)")
    args = ap.parse_args()
    import aclnn_py
    from aclnn_py import loader

    libdir = Path(args.lib) if args.lib else loader.load().libraries[0].parent
    include = ROOT / "native" / "include"
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "check_math_rounding"
        subprocess.run(["gcc", "-O2", str(ROOT / "tools" / "check_math_rounding.c"), "-I", str(include), "-L",
                        str(libdir), f"-Wl,-rpath,{libdir}", "-lnnopbase", "-lascendcl", "-lm", "-o", str(exe)],
                       check=True)
        out = subprocess.run([str(exe), str(args.stride), str(args.start), *args.names], check=True,
                             capture_output=True, text=True).stdout
        print(out, end="")
        failed |= any("mismatches" in line and "mismatches 0 " not in line for line in out.splitlines())
    if args.samples:
        rng = np.random.default_rng(1)
        for name in args.names:
            lo, hi = DOMAIN[name]
            if lo > 0 and hi / lo > 1e6:  # log-uniform over wide positive ranges
                x = np.exp(rng.uniform(np.log(lo), np.log(hi), args.samples)).astype(np.float32)
            else:
                x = rng.uniform(lo, hi, args.samples).astype(np.float32)
            got = aclnn_py.run(OPS[name], x, out=np.empty_like(x))
            wrong = checked = 0
            for xi, gi in zip(x, got):
                ref = mp_reference(name, xi)
                if ref is None:
                    continue
                checked += 1
                if ref.view(np.uint32) != gi.view(np.uint32):
                    wrong += 1
                    if wrong <= 3:
                        print(f"  {name}({float(xi)!r}): got {float(gi)!r}, mpmath {float(ref)!r}")
            print(f"{name:6s} mpmath samples {checked}  mismatches {wrong}")
            failed |= wrong > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
