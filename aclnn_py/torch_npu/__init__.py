"""torch_npu's functions on the CPU, computed by the stub's aclnn operators.

Each function has torch_npu's signature (op-plugin's schema: names, positional and keyword-only arguments,
defaults, returned tuples) and takes torch CPU tensors, which the operators read and write in place (DLPack).
The functions are torch custom operators (`torch.ops.aclnn_npu.*`) with fake implementations (shapes propagate
under FakeTensorMode and torch.compile) and, for the pairs the stub has backward operators for, autograd.
`install()` makes `import torch_npu` return this module. A function whose operator the stub lacks raises
NotImplementedError naming it. See docs/guide/torch-npu.md.
"""
from __future__ import annotations

import enum as _enum

from . import npu
from ._install import install, uninstall
from ._ops import NAMESPACE, build as _build
from ._table import ROWS as _ROWS

_functions = _build()
globals().update(_functions)

#: The public functions (torch_npu's), in table order.
FUNCTIONS = tuple(name for name in _functions if not name.startswith("_aclnn"))
#: The functions whose operator the stub lacks: they raise NotImplementedError.
MISSING = tuple(row.name for row in _ROWS if row.op is None and row.via is None)


class Format(_enum.IntEnum):
    """torch_npu.Format: the storage formats `npu_format_cast` takes (ACL_FORMAT_* values)."""
    UNDEFINED = -1
    NCHW = 0
    NHWC = 1
    ND = 2
    NC1HWC0 = 3
    FRACTAL_Z = 4
    NC1HWC0_C04 = 12
    HWCN = 16
    NDHWC = 27
    FRACTAL_NZ = 29
    NCDHW = 30
    NDC1HWC0 = 32
    FRACTAL_Z_3D = 33
    NC = 35
    NCL = 47


__all__ = ["install", "uninstall", "npu", "Format", "FUNCTIONS", "MISSING", "NAMESPACE", *FUNCTIONS]
