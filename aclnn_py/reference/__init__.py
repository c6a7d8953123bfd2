"""numpy references of every operator, with the same signatures as the high-level functions.

They follow the normative references of the specification bit for bit (float32 accumulation order,
round-to-nearest-even narrowing, the stub's rules for out-of-range indices), so tests compare the
library against them exactly; they are also the numpy baseline of the benchmarks.

    from aclnn_py import reference
    expected = reference.moe_token_permute_grad(grad, sorted_indices, 2)
"""

from importlib import import_module

from .._optable import OPS

__all__ = [op.py_name for op in OPS]
for _name in __all__:
    globals()[_name] = getattr(import_module(f".{_name}", __name__), _name)
