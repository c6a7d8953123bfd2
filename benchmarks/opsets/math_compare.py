"""ops-math comparisons, logical and bitwise operators."""

import numpy as np
import torch

from . import BenchCase

CASES = [
    BenchCase("eq", "aclnnEqTensor", lambda a, b, out=None: torch.eq(a, b, out=out), np.equal, domain=(0, 4)),
    BenchCase("ne", "aclnnNeTensor", lambda a, b, out=None: torch.ne(a, b, out=out), np.not_equal, domain=(0, 4)),
    BenchCase("gt", "aclnnGtTensor", lambda a, b, out=None: torch.gt(a, b, out=out), np.greater),
    BenchCase("ge", "aclnnGeTensor", lambda a, b, out=None: torch.ge(a, b, out=out), np.greater_equal),
    BenchCase("lt", "aclnnLtTensor", lambda a, b, out=None: torch.lt(a, b, out=out), np.less),
    BenchCase("le", "aclnnLeTensor", lambda a, b, out=None: torch.le(a, b, out=out), np.less_equal),
    BenchCase("isclose", "aclnnIsClose", lambda a, b: torch.isclose(a, b, 1e-3, 1e-3),
              lambda a, b: np.isclose(a, b, 1e-3, 1e-3), attrs=(1e-3, 1e-3, False)),
    BenchCase("logical_and", "aclnnLogicalAnd", lambda a, b, out=None: torch.logical_and(a, b, out=out),
              np.logical_and, domain=(0, 2)),
    BenchCase("logical_xor", "aclnnLogicalXor", lambda a, b, out=None: torch.logical_xor(a, b, out=out),
              np.logical_xor, domain=(0, 2)),
    BenchCase("bitwise_and", "aclnnBitwiseAndTensor", lambda a, b, out=None: torch.bitwise_and(a, b, out=out),
              np.bitwise_and, dtypes=("int32",), domain=(-1000, 1000)),
    BenchCase("bitwise_xor", "aclnnBitwiseXorTensor", lambda a, b, out=None: torch.bitwise_xor(a, b, out=out),
              np.bitwise_xor, dtypes=("int32",), domain=(-1000, 1000)),
    BenchCase("left_shift", "aclnnLeftShift", lambda a, b, out=None: torch.bitwise_left_shift(a, b, out=out),
              np.left_shift, dtypes=("int32",), domain=(0, 7)),
]
