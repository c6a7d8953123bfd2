#!/usr/bin/env python3
"""Write the type stub of the high-level operator functions, ``aclnn_py/ops.pyi``, from the operator table
(``aclnn_py/_optable.py``) and the installed extension's C signatures: one function per row with its real
parameters, overloaded on the first tensor argument, whose kind the results take (numpy arrays,
``aclnn_py.Tensor``, torch tensors; anything else array-like gives numpy arrays).

    python tools/gen_ops_stub.py            # rewrite aclnn_py/ops.pyi
    python tools/gen_ops_stub.py --check    # exit 1 when it is out of date (tests/test_typing.py runs this)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parent.parent / "aclnn_py" / "ops.pyi"

_HEADER = '''"""Generated from the operator table by tools/gen_ops_stub.py. Do not edit."""

from typing import Any, Protocol, Sequence, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from aclnn_py.runtime import Stream, Tensor

# torch is optional: without it this import does not resolve and its overloads read as Any.
from torch import Tensor as _TorchTensor


class _SupportsDLPack(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...


_TensorLike = ArrayLike | _SupportsDLPack | Tensor

'''

# The kinds of the first tensor argument and what the results are then.
_KINDS = (("NDArray[Any]", "NDArray[Any]"), ("Tensor", "Tensor"), ("_TorchTensor", "_TorchTensor"),
          ("_TensorLike", "NDArray[Any]"))


def load_optable():
    from aclnn_py import _optable

    return _optable


def _attr_type(ctype: str | None, default) -> str:
    base = (ctype or "").replace("const ", "").strip()
    if base == "bool" or isinstance(default, bool):
        return "bool"
    if base in ("float", "double") or isinstance(default, float):
        return "float"
    return "int"


def function_stub(op, table, signatures) -> str:
    ctypes = dict(signatures.get(op.c_name + "GetWorkspaceSize", {}).get("params", []))
    first = next(p for p in op.params if p.role == "in")
    outs = [p for p in op.params if p.role == "out"]
    lines = []
    for kind, result in _KINDS:
        args = []
        for p in op.params:
            if p.role == "out":
                continue
            if p.role == "in":
                t = kind if p is first else "_TensorLike"
                t += " | None" if p.optional else ""
            elif p.role == "intarray":
                t = "Sequence[int] | None"
            else:
                t = _attr_type(ctypes.get(p.name), p.default)
            default = "" if p.default is table.REQUIRED else f" = {p.default!r}" if p.role == "attr" else " = None"
            if p.role == "in" and p.optional and p.default is table.REQUIRED:
                default = ""
            args.append(f"{p.py_name}: {t}{default}")
        rets = [result + (" | None" if p.returned is not None else "") for p in outs]
        ret = rets[0] if len(rets) == 1 else f"tuple[{', '.join(rets)}]"
        keywords = ['*', 'stream: Stream | None = None', 'sync: bool = True']
        lines.append(f"@overload\ndef {op.py_name}({', '.join(args + keywords)}) -> {ret}: ...\n")
    return "".join(lines)


def module_stub(signatures: dict) -> str:
    table = load_optable()
    names = [op.py_name for op in table.OPS]
    return (_HEADER + "".join(function_stub(op, table, signatures) + "\n" for op in table.OPS)
            + f"\nFUNCTIONS: dict[str, Any]\n__all__ = {sorted(names)!r}\n")




def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="write aclnn_py/ops.pyi")
    ap.add_argument("--check", action="store_true", help="only compare: exit 1 when the file is out of date")
    args = ap.parse_args(argv)
    from _aclnn_py_native.signatures import SIGNATURES

    text = module_stub(SIGNATURES)
    if args.check:
        if TARGET.read_text() != text:
            print(f"{TARGET} is out of date: run python tools/gen_ops_stub.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
