"""From the table to torch operators and Python functions.

Each row with an operator becomes a torch custom operator `torch.ops.aclnn_npu.<name>` defined by the row's schema:
its CPU kernel allocates the outputs with torch (the row's shape rule) and calls the aclnn operator through
`aclnn_py.run` (torch CPU tensors are lent to the stub in place, through DLPack), its fake kernel applies the same
shape rule to fake tensors. Each row becomes a Python function with torch_npu's signature that binds the
arguments and calls the operator (or raises NotImplementedError naming what the stub lacks).
"""
from __future__ import annotations

import functools
from types import SimpleNamespace

import torch

from . import _schema, npu
from ._table import ROWS, SCALAR_TYPES, Row

NAMESPACE = "aclnn_npu"
_lib = torch.library.Library(NAMESPACE, "DEF")


def _bind(sig, args, kwargs) -> SimpleNamespace:
    b = sig.bind(*args, **kwargs)
    b.apply_defaults()
    return SimpleNamespace(**b.arguments)


def _op_name(row: Row, a) -> str:
    return row.op(a) if callable(row.op) else row.op


def _allocate(row: Row, a, device):
    """{C output name: tensor, list of tensors or None} by the row's shape rule."""
    outs = {}
    for name, shape, dtype in row.outs(a):
        if shape is None:
            outs[name] = None
        elif isinstance(shape, str):  # the caller's tensor (an argument written in place)
            outs[name] = getattr(a, shape)
        elif shape and isinstance(shape[0], list):  # a tensor list
            outs[name] = [torch.zeros(s, dtype=dtype, device=device) for s in shape]
        else:  # zeros: what an operator leaves unwritten (an output its flags turn off) reads the same every time
            outs[name] = torch.zeros(shape, dtype=dtype, device=device)
    return outs


def _result(row: Row, a, outs):
    if row.ret is not None:
        return row.ret(a, outs)
    vals = tuple(outs.values())
    return vals[0] if len(vals) == 1 else vals


def _device(a):
    for v in vars(a).values():
        if isinstance(v, torch.Tensor):
            return v.device
        if isinstance(v, (list, tuple)) and v and isinstance(v[0], torch.Tensor):
            return v[0].device
    return torch.device("cpu")


def _kernel(row: Row, params):
    from .. import generic

    sig = _schema.signature(params)

    def kernel(*args, **kwargs):
        a = _bind(sig, args, kwargs)
        for k, v in vars(a).items():  # DLPack exports no tensor that requires grad (autograd is above this kernel)
            if isinstance(v, torch.Tensor):
                setattr(a, k, v.detach())
            elif isinstance(v, (list, tuple)) and v and isinstance(v[0], torch.Tensor):
                setattr(a, k, [t.detach() for t in v])
        if row.check is not None:
            row.check(a)
        outs = _allocate(row, a, _device(a))
        name = _op_name(row, a)
        c_sig = generic.signature(name, tuple(outs))  # the row names the outputs (some headers declare them const)
        out = tuple(outs[c_sig.params[i][0]] for i in c_sig.outputs)
        stream = npu._stream()
        if out:
            generic.run(name, **row.args(a), out=out[0] if len(out) == 1 else out, outputs=tuple(outs),
                        stream=stream)
        else:
            generic.run(name, **row.args(a), stream=stream)
        return _result(row, a, outs)

    return kernel


def _fake(row: Row, params):
    sig = _schema.signature(params)

    def fake(*args, **kwargs):
        a = _bind(sig, args, kwargs)
        if row.check is not None:
            row.check(a)
        return _result(row, a, _allocate(row, a, _device(a)))

    return fake


def _normalise(v, typ: str):
    """torch_npu's int dtype arguments also take torch.dtype (ours take the ScalarType number); a Tensor argument
    given as a list of ints (npu_grouped_matmul's group_list overload) becomes an int64 tensor."""
    if isinstance(v, torch.dtype) and typ.startswith("int"):
        return SCALAR_TYPES.index(v)
    if typ.startswith("Tensor") and not typ.startswith("Tensor[]") and isinstance(v, (list, tuple)):
        return torch.tensor(v, dtype=torch.int64)
    return v


def _python_function(row: Row, params, op):
    sig = _schema.signature(params, row.renames)
    names = [p.name for p in params]
    types = [p.type for p in params]

    def fn(*args, **kwargs):
        b = sig.bind(*args, **kwargs)
        b.apply_defaults()
        values = [b.arguments[row.renames.get(n, n)] for n in names]
        if row.via is not None:
            return row.via(getattr(torch.ops, NAMESPACE), SimpleNamespace(**dict(zip(names, values))))
        if op is None:
            return _missing(row, values)
        return op(*[_normalise(v, t) for v, t in zip(values, types)])

    fn.__signature__ = sig
    fn.__name__ = fn.__qualname__ = row.name
    what = f"the aclnn operator {row.op}" if isinstance(row.op, str) else (
        "an aclnn operator chosen by the arguments" if row.op else "the functions it is made of" if row.via
        else f"nothing yet: it raises NotImplementedError (it needs {row.missing})")
    fn.__doc__ = f"torch_npu.{row.name}: `{row.schema}`.\n\nComputed by {what}."
    return fn


def _missing(row: Row, values):
    raise NotImplementedError(f"torch_npu.{row.name} is not implemented: it needs {row.missing}")


def _autograd_rules():
    from . import _autograd
    return _autograd.RULES


@functools.lru_cache(maxsize=None)
def build() -> dict:
    """{name: Python function}; defines and registers the torch operators once."""
    functions = {}
    rules = _autograd_rules()
    for row in ROWS:
        name, params, _ = _schema.parse(row.schema)
        assert name == row.name, (name, row.name)
        op = None
        if row.op is not None:
            # The operator takes every argument positionally (register_autograd refuses keyword-only tensors);
            # the Python function keeps torch_npu's keyword-only ones.
            op_schema = row.schema.replace(", *,", ",")
            params = _schema.parse(op_schema)[1]
            _lib.define(op_schema)
            qualname = f"{NAMESPACE}::{name}"
            _lib.impl(name, _kernel(row, params), "CPU")
            torch.library.register_fake(qualname, _fake(row, params), lib=_lib)
            if name in rules:
                setup, backward = rules[name]
                torch.library.register_autograd(qualname, backward, setup_context=setup, lib=_lib)
            op = getattr(getattr(torch.ops, NAMESPACE), name)
        functions[name] = _python_function(row, _schema.parse(row.schema)[1], op)
    return functions


