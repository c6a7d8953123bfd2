"""ops-math arithmetic."""

import numpy as np
import torch

from . import BenchCase

CASES = [
    BenchCase("add", "aclnnAdd", lambda a, b: torch.add(a, b), np.add, attrs=(1,)),
    BenchCase("mul", "aclnnMul", torch.mul, np.multiply),
]
