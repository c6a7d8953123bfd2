"""`install()`: `import torch_npu` gives `aclnn_py.torch_npu`, so a test suite written for an NPU runs unchanged."""
from __future__ import annotations

import sys

import torch

_MODULES = ("torch_npu", "torch_npu.npu")
_saved: list = []


def install():
    """Put `aclnn_py.torch_npu` at `sys.modules["torch_npu"]` (and `torch_npu.npu`, `torch.npu`); returns it.

    Whatever those names held is kept and `uninstall()` puts it back; installing twice is harmless."""
    from .. import torch_npu as module
    from . import npu

    if sys.modules.get("torch_npu") is module:
        return module
    _saved.append(({name: sys.modules.get(name) for name in _MODULES}, getattr(torch, "npu", None),
                   hasattr(torch, "npu")))
    sys.modules["torch_npu"] = module
    sys.modules["torch_npu.npu"] = npu
    torch.npu = npu
    return module


def uninstall() -> None:
    """Undo the last `install()`."""
    if not _saved:
        return
    modules, npu_attr, had_npu = _saved.pop()
    for name, value in modules.items():
        if value is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = value
    if had_npu:
        torch.npu = npu_attr
    elif hasattr(torch, "npu"):
        del torch.npu
