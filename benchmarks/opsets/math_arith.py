"""ops-math arithmetic."""

import numpy as np
import torch

from . import BenchCase

CASES = [
    BenchCase("add", "aclnnAdd", lambda a, b, out=None: torch.add(a, b, out=out), np.add, attrs=(1,)),
    BenchCase("add alpha", "aclnnAdd", lambda a, b, out=None: torch.add(a, b, alpha=2.5, out=out),
              lambda a, b, out=None: np.add(a, 2.5 * b, out=out), attrs=(2.5,)),
    BenchCase("sub", "aclnnSub", lambda a, b, out=None: torch.sub(a, b, out=out), np.subtract, attrs=(1,)),
    BenchCase("mul", "aclnnMul", lambda a, b, out=None: torch.mul(a, b, out=out), np.multiply),
    BenchCase("div", "aclnnDiv", lambda a, b, out=None: torch.div(a, b, out=out), np.divide, domain=(0.5, 2.0)),
    BenchCase("div floor", "aclnnDivMod", lambda a, b, out=None: torch.div(a, b, rounding_mode="floor", out=out),
              np.floor_divide, attrs=(2,), domain=(0.5, 4.0)),
    BenchCase("floor_divide", "aclnnFloorDivide", lambda a, b, out=None: torch.floor_divide(a, b, out=out),
              np.floor_divide, domain=(0.5, 4.0)),
    BenchCase("remainder", "aclnnRemainderTensorTensor", lambda a, b, out=None: torch.remainder(a, b, out=out),
              np.remainder, domain=(0.5, 4.0)),
    BenchCase("fmod", "aclnnFmodTensor", lambda a, b, out=None: torch.fmod(a, b, out=out), np.fmod,
              domain=(0.5, 4.0)),
    BenchCase("add int32", "aclnnAdd", lambda a, b, out=None: torch.add(a, b, out=out), np.add, attrs=(1,),
              dtypes=("int32",), domain=(-1000, 1000)),
    BenchCase("floor_divide int32", "aclnnFloorDivide", lambda a, b, out=None: torch.floor_divide(a, b, out=out),
              np.floor_divide, dtypes=("int32",), domain=(1, 1000)),
]
