"""ops-nn loss/: the operators that fit the family benchmark's format (operands of one shape and dtype): Logit and
its gradient. The losses with reductions and index operands are measured by their opdb tests only."""

import torch

from . import BenchCase

CASES = [
    BenchCase("logit", "aclnnLogit", lambda x: torch.logit(x), None, arity=1, attrs=(-1.0,), domain=(0.05, 0.95)),
    BenchCase("logit_grad", "aclnnLogitGrad", lambda x, dy: torch.ops.aten.logit_backward(dy, x, None), None,
              arity=2, attrs=(-1.0,), domain=(0.05, 0.95)),
]
