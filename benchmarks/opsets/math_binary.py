"""ops-math binary math and pointwise operators."""

import numpy as np
import torch

from . import BenchCase


def np_xlogy(x, y, out=None):
    r = np.where(x == 0, np.zeros_like(x), x * np.log(y))
    if out is None:
        return r
    out[...] = r
    return out


CASES = [
    BenchCase("pow", "aclnnPowTensorTensor", lambda a, b, out=None: torch.pow(a, b, out=out), np.power,
              domain=(0.5, 2.0)),
    BenchCase("atan2", "aclnnAtan2", lambda a, b, out=None: torch.atan2(a, b, out=out), np.arctan2),
    BenchCase("logaddexp", "aclnnLogAddExp", lambda a, b, out=None: torch.logaddexp(a, b, out=out), np.logaddexp),
    BenchCase("xlogy", "aclnnXLogYTensor", lambda a, b, out=None: torch.xlogy(a, b, out=out), np_xlogy,
              domain=(0.0, 4.0)),
    BenchCase("maximum", "aclnnMaximum", lambda a, b, out=None: torch.maximum(a, b, out=out), np.maximum),
    BenchCase("minimum", "aclnnMinimum", lambda a, b, out=None: torch.minimum(a, b, out=out), np.minimum),
    BenchCase("addcmul", "aclnnAddcmul", lambda a, b, c, out=None: torch.addcmul(a, b, c, value=0.5, out=out),
              lambda a, b, c, out=None: np.add(a, 0.5 * b * c, out=out), arity=3, attrs=(0.5,)),
    BenchCase("addcdiv", "aclnnAddcdiv", lambda a, b, c, out=None: torch.addcdiv(a, b, c, value=0.5, out=out),
              lambda a, b, c, out=None: np.add(a, 0.5 * b / c, out=out), arity=3, attrs=(0.5,), domain=(0.5, 2.0)),
    BenchCase("lerp", "aclnnLerp", lambda a, b, c, out=None: torch.lerp(a, b, c, out=out),
              lambda a, b, c, out=None: np.add(a, c * (b - a), out=out), arity=3, domain=(0.0, 1.0)),
    BenchCase("gcd", "aclnnGcd", lambda a, b, out=None: torch.gcd(a, b, out=out), np.gcd, dtypes=("int32",),
              domain=(1, 1000)),
]
