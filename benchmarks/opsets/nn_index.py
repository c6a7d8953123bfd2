"""ops-nn index/: the operators that fit the family benchmark's format (operands of one shape and dtype). The
gathers, scatters and embeddings take index tensors: benchmarks/data_index.py measures them against torch."""

import numpy as np
import torch

from . import BenchCase

CASES = [
    BenchCase("flip", "aclnnFlip", lambda a: torch.flip(a, [0]), lambda a: np.flip(a, 0).copy(), arity=1,
              attrs=([0],)),
]
