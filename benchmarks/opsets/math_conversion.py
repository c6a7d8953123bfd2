"""ops-math conversion/: the operators that fit the family benchmark's format (operands of one shape and dtype).
Copies, cat, pads and the other shape-changing operators are measured by benchmarks/data_index.py."""

import numpy as np
import torch

from . import BenchCase

CASES = [
    BenchCase("clamp", "aclnnClamp", lambda a: torch.clamp(a, -1.0, 1.0), lambda a: np.clip(a, -1.0, 1.0), arity=1,
              attrs=(-1.0, 1.0)),
    BenchCase("clamp_tensor", "aclnnClampTensor", lambda a, lo, hi: torch.clamp(a, lo, hi),
              lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi), arity=3),
    BenchCase("hardtanh", "aclnnHardtanh", lambda a: torch.nn.functional.hardtanh(a, -1.0, 1.0),
              lambda a: np.clip(a, -1.0, 1.0), arity=1, attrs=(-1.0, 1.0)),
    BenchCase("tril", "aclnnTril", torch.tril, np.tril, arity=1, attrs=(0,), row=1024),
    BenchCase("triu", "aclnnTriu", torch.triu, np.triu, arity=1, attrs=(0,), row=1024),
    BenchCase("roll", "aclnnRoll", lambda a: torch.roll(a, 3, 0), lambda a: np.roll(a, 3, 0), arity=1,
              attrs=([3], [0])),
]
