"""The stub's FLOAT transcendental functions give the same bits whichever way they are evaluated (glibc's AVX-512 or
AVX2 vector functions, or its scalar ones: ACLNN_STUB_MATH_VECTOR) and whatever the thread count: the rule
(aclstub/op_math.h) makes the result the correctly rounded float, not a property of the path."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import hashlib, numpy as np, aclnn_py
    from aclnn_py.dtypes import bfloat16
    ops = ["aclnnExp", "aclnnExpm1", "aclnnLog", "aclnnLog1p", "aclnnSin", "aclnnTan", "aclnnAsin", "aclnnAtan",
           "aclnnCosh", "aclnnTanh", "aclnnAsinh", "aclnnAtanh", "aclnnErf", "aclnnErfc", "aclnnLgamma",
           "aclnnDigamma", "aclnnSinc"]
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-4, 4, 60000), rng.uniform(-100, 100, 20000),
                        np.exp(rng.uniform(-90, 88, 20000)), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-45]])
    x = x.astype(np.float32)
    h = hashlib.sha256()
    for op in ops:
        for a in (x, x.astype(np.float16 if op in ("aclnnLgamma", "aclnnDigamma") else bfloat16)):
            out = np.empty_like(a)
            aclnn_py.run(op, a[::-1], out=out)  # strided input
            h.update(op.encode() + out.tobytes())
    print(h.hexdigest())
""")


def digest(**env) -> str:
    result = subprocess.run([sys.executable, "-c", SCRIPT], env={**os.environ, **env}, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's functions")
def test_vector_scalar_and_thread_count_give_the_same_bits():
    default = digest(ACLNN_STUB_NUM_THREADS="2")
    assert len(default) == len(hashlib.sha256().hexdigest())
    assert digest(ACLNN_STUB_MATH_VECTOR="0", ACLNN_STUB_NUM_THREADS="1") == default
    assert digest(ACLNN_STUB_MATH_VECTOR="avx2", ACLNN_STUB_NUM_THREADS="3") == default
