"""High-level operator functions: numpy arrays in, numpy arrays out, one per row of the operator table.

    grad_x = aclnn_py.moe_token_permute_grad(grad, sorted_indices, num_topk=2)

Inputs and attributes in C order with snake_case names; optional tensors accept None; outputs are
allocated (zero-filled), computed on the device (or the stub), copied back and returned (a tuple when
there are several, None for an optional output the call does not produce). Everything created for the
call is released before it returns, also when the operator raises.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from . import dtypes
from ._mirror import _raise_aclnn
from ._native import ffi, lib
from ._optable import OPS, REQUIRED, Op
from .runtime import Tensor, _check_acl, _handle_of, default_device, DeviceBuffer


def _output_dtype(param, ns):
    if param.dtype in ("int32", "int64", "float32", "float16", "bfloat16", "bool", "int8"):
        return dtypes.as_numpy_dtype(param.dtype)
    ref = getattr(ns, param.dtype)
    return ref.dtype if ref is not None else getattr(ns, _first_input(ns)).dtype


def _first_input(ns):
    return next(iter(vars(ns)))


def call(op: Op, values: tuple, stream=None):
    """Run ``op`` on ``values`` (one per non-output parameter, in C order) and return its outputs."""
    device = default_device()
    params = op.params
    ns = SimpleNamespace()
    it = iter(values)
    for p in params:
        if p.role != "out":
            v = next(it)
            if p.role == "in" and v is not None:
                v = np.asarray(v)
            setattr(ns, p.name, v)
    owned = []   # resources to release, in creation order
    arrays = []  # aclIntArray handles
    c_args = []
    outputs = []
    try:
        for p in params:
            if p.role == "in":
                v = getattr(ns, p.name)
                if v is None:
                    c_args.append(ffi.NULL)
                else:
                    t = Tensor.from_numpy(v, device)
                    owned.append(t)
                    c_args.append(t.handle)
            elif p.role == "attr":
                c_args.append(getattr(ns, p.name))
            elif p.role == "intarray":
                v = getattr(ns, p.name)
                if v is None:
                    c_args.append(ffi.NULL)
                else:
                    vals = [int(x) for x in v]
                    h = lib.aclCreateIntArray(ffi.new("int64_t[]", vals or [0]), len(vals))
                    if h == ffi.NULL:
                        _raise_aclnn(lib.ACLNN_ERR_INNER_NULLPTR, "aclCreateIntArray")
                    arrays.append(h)
                    c_args.append(h)
            else:
                wanted = p.returned is None or p.returned(ns)
                if p.optional and not wanted:
                    c_args.append(ffi.NULL)
                    outputs.append(None)
                    continue
                try:
                    shape = tuple(int(d) for d in p.shape(ns))
                except (ZeroDivisionError, TypeError, ValueError, IndexError, AttributeError) as exc:
                    raise ValueError(f"{op.py_name}: cannot derive the shape of output {p.py_name!r} from the "
                                     f"arguments ({type(exc).__name__}: {exc})") from None
                if min(shape, default=1) < 0:
                    raise ValueError(f"{op.py_name}: output {p.py_name!r} would have a negative shape {shape}")
                t = Tensor(shape, _output_dtype(p, ns), device=device)
                owned.append(t)
                c_args.append(t.handle)
                outputs.append(t if wanted else None)
        ws_size = ffi.new("uint64_t *")
        executor = ffi.new("aclOpExecutor **")
        status = getattr(lib, op.c_name + "GetWorkspaceSize")(*c_args, ws_size, executor)
        if status:
            _raise_aclnn(status, op.c_name + "GetWorkspaceSize")
        workspace = DeviceBuffer(ws_size[0], device) if ws_size[0] else None
        if workspace is not None:
            owned.append(workspace)
        handle = _handle_of(stream)
        status = getattr(lib, op.c_name)(workspace.ptr if workspace else ffi.NULL, ws_size[0], executor[0], handle)
        if status:
            _raise_aclnn(status, op.c_name)
        _check_acl(lib.aclrtSynchronizeStream(handle), "aclrtSynchronizeStream")
        results = tuple(t.numpy() if t is not None else None for t in outputs)
    finally:
        for h in arrays:
            lib.aclDestroyIntArray(h)
        for r in reversed(owned):
            r.close()
    return results[0] if len(results) == 1 else results


def _make_function(op: Op):
    """A Python function with the operator's real signature (so help() and errors read naturally)."""
    args, sig = [], []
    for p in op.params:
        if p.role == "out":
            continue
        args.append(p.py_name)
        sig.append(p.py_name if p.default is REQUIRED else f"{p.py_name}={p.default!r}")
    src = (f"def {op.py_name}({', '.join(sig + ['*', 'stream=None'])}):\n"
           f"    return _call(_op, ({', '.join(args)}{',' if len(args) == 1 else ''}), stream)\n")
    ns = {"_call": call, "_op": op}
    exec(compile(src, f"<aclnn_py.ops.{op.py_name}>", "exec"), ns)
    fn = ns[op.py_name]
    fn.__module__ = __name__
    fn.__doc__ = _docstring(op)
    fn.op = op
    return fn


def _docstring(op: Op) -> str:
    lines = [f"{op.summary}", "", f"Runs ``{op.c_name}`` (header ``{op.header}``).", "", "Parameters:"]
    for p in op.params:
        if p.role == "in":
            opt = ", or None" if p.optional else ""
            lines.append(f"  {p.py_name}: numpy array ({'/'.join(p.dtypes)}{opt}) -> C {p.name}")
        elif p.role == "attr":
            lines.append(f"  {p.py_name}: attribute -> C {p.name}")
        elif p.role == "intarray":
            lines.append(f"  {p.py_name}: sequence of ints, or None -> C {p.name} (aclIntArray)")
    outs = [p for p in op.params if p.role == "out"]
    lines.append("")
    lines.append("Returns: " + ", ".join(p.py_name + (" (or None)" if p.returned else "") for p in outs))
    lines.append("  stream: a Stream to run on (default: the default stream).")
    return "\n".join(lines)


FUNCTIONS = {op.py_name: _make_function(op) for op in OPS}
globals().update(FUNCTIONS)
__all__ = sorted(FUNCTIONS)
