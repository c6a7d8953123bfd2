"""The generic call: any operator, numpy (or torch, or device tensors) in, results written to the outputs.

    aclnn_py.run("aclnnAdd", x, y, 1.0, out=z)                  # inputs in C order, outputs by out=
    aclnn_py.run("aclnnAdd", self=x, other=y, alpha=1.0, out=z)  # or by parameter name (C or snake_case)

The operator is any function of ``aclnn_py.aclnn`` (compiled, or declared by a header found at run time):
``run`` converts each argument by the parameter's C type, calls both phases through the mirror, waits for
the stream, writes the outputs back and releases what it created, also when the operator raises. With
``sync=False`` a call whose tensors are all device ``Tensor``s returns as soon as the work is queued: read the
outputs after ``Stream.synchronize()`` (a failure of the work is reported there, as 507015), and chain calls on
the same stream meanwhile. A call with a tensor in host memory waits for the stream (its outputs are written
back, the device memory it used is released) before it returns.

Arguments by C type:
- tensor: a numpy array, anything with ``__dlpack__`` (torch CPU tensors of every aclnn dtype, bfloat16
  included, are read through DLPack, not numpy), anything with the buffer protocol or a sequence (inputs
  only), an ``aclnn_py.Tensor`` (used in place: no copy, so operators chain on the device), or None (NULL).
  Host memory is uploaded (the bytes the view spans, strides kept) and, for an output, written back; on
  the stub it is lent to the device for the call instead, so nothing is copied (``ACLNN_PY_ZERO_COPY=0``
  turns that off).
- tensor list: a sequence of the above (a None element is a NULL entry) or an ``aclnn_py.TensorList``;
- scalar: a number (dtype inferred as ``aclnn_py.Scalar`` does) or a ``Scalar``; scalar list: a sequence of
  them or a ``ScalarList``; int, bool and float arrays: sequences or ``IntArray``/``BoolArray``/``FloatArray``;
- ``aclDataType``: a numpy dtype, its name or the enum value; strings: ``str``; other values as the mirror.

Which tensors are outputs (the rule, in order):
1. ``outputs=`` (C or snake_case names) when given: exactly those tensor and tensor-list parameters;
2. otherwise the header: a non-const ``aclTensor *``, or a tensor whose name reads as an output (``out``,
   ``y``, ``...Out``, ``...Output``, ``...OutOptional``, ``...Out<n>``, ``gradInput``) or an in-place operand
   (``...Ref``, as ``selfRef``, which in-place variants read and write, const or not), but for the incoming
   gradient of a backward operator (``gradOutput``, ``gradOut``, ``gradY``); an ``aclTensorList *`` with such a
   name, const or not (``aclnn_py.aclnn.describe(name)`` shows the roles).
Positional arguments are the inputs in C order, or every parameter in C order (outputs included, as a C
call lists them). Outputs are filled by ``out=`` (one value, or a sequence in C order) or by name; the caller allocates
them (run does not know output shapes). Every host output is uploaded before the call too, so operators
that read and write one tensor (in-place ``selfRef``) see its contents. Parameters whose name ends in
``Optional`` may be left out (None). The result is the outputs in C order (one value, or a tuple): the
caller's arrays, written back, and Tensors as given.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Sequence

import numpy as np

from . import aclnn, dtypes, errors, loader
from ._native import ffi, lib
from .runtime import (BoolArray, FloatArray, IntArray, Scalar, ScalarList, Stream, Tensor, TensorList, _span,
                      stream_handle)

_TENSOR_ROLES = ("input tensor", "output tensor", "tensor list", "output tensor list")
_PHASE1_ONLY = ("workspace size", "executor")
_ARRAY_CLASSES = {"int array": IntArray, "bool array": BoolArray, "float array": FloatArray}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class _Signature:
    """What ``run`` needs of one operator: its parameters (name, C type, role) in C order, which are
    outputs, and every accepted keyword."""

    def __init__(self, name: str, outputs):
        self.name = name
        params = [p for p in aclnn.describe(name + "GetWorkspaceSize") if p["role"] not in _PHASE1_ONLY]
        self.params = [(p["name"], p["ctype"], p["role"]) for p in params]
        keywords = {}
        for i, (pname, _, _) in enumerate(self.params):
            keywords[pname] = keywords[snake(pname)] = i
        self.keywords = keywords
        if outputs is None:
            self.outputs = [i for i, (_, _, role) in enumerate(self.params) if role.startswith("output tensor")]
        else:
            if isinstance(outputs, str):
                outputs = (outputs,)
            chosen = set()
            for o in outputs:
                if o not in keywords:
                    raise ValueError(f"run({name!r}): outputs= names {o!r}, which is not a parameter of "
                                     f"{name}GetWorkspaceSize ({', '.join(p for p, _, _ in self.params)})")
                if self.params[keywords[o]][2] not in _TENSOR_ROLES:
                    raise ValueError(f"run({name!r}): outputs= names {o!r}, which is not a tensor or tensor list")
                chosen.add(keywords[o])
            self.outputs = sorted(chosen)
        self.inputs = [i for i in range(len(self.params)) if i not in self.outputs]


_signatures: dict = {}
_lock = threading.Lock()


def signature(name: str, outputs=None) -> _Signature:
    key = (name, None if outputs is None else tuple([outputs] if isinstance(outputs, str) else outputs))
    sig = _signatures.get(key)
    if sig is None:
        if not isinstance(name, str) or not name.startswith("aclnn") or name.endswith("GetWorkspaceSize"):
            raise ValueError(f"run: the operator must be named as in C without the phase suffix (e.g. "
                             f"'aclnnAdd'), got {name!r}")
        sig = _Signature(name, outputs)
        with _lock:
            _signatures[key] = sig
    return sig


def _bind(sig: _Signature, args, out, kwargs) -> list:
    """The value of every parameter, in C order."""
    values = [_MISSING] * len(sig.params)
    every = len(args) == len(sig.params) and out is None and sig.outputs  # all parameters, as in C
    if len(args) > len(sig.inputs) and not every:
        raise TypeError(f"run({sig.name!r}) takes {len(sig.inputs)} positional arguments (the inputs "
                        f"{', '.join(sig.params[i][0] for i in sig.inputs)}), or all {len(sig.params)} "
                        f"parameters in C order, got {len(args)}")
    for i, v in zip(range(len(sig.params)) if every else sig.inputs, args):
        values[i] = v
    if out is not None:
        outs = [out] if len(sig.outputs) == 1 else out
        if len(sig.outputs) != 1 and (not isinstance(outs, (list, tuple)) or len(outs) != len(sig.outputs)):
            raise TypeError(f"run({sig.name!r}): out= must be a sequence of {len(sig.outputs)} outputs "
                            f"({', '.join(sig.params[i][0] for i in sig.outputs)})")
        for i, v in zip(sig.outputs, outs):
            values[i] = v
    for key, v in kwargs.items():
        i = sig.keywords.get(key)
        if i is None:
            raise TypeError(f"run({sig.name!r}) got an unexpected keyword argument {key!r}; parameters: "
                            f"{', '.join(p for p, _, _ in sig.params)}")
        if values[i] is not _MISSING:
            raise TypeError(f"run({sig.name!r}) got multiple values for argument {sig.params[i][0]!r}")
        values[i] = v
    missing = []
    for i, (pname, ctype, _) in enumerate(sig.params):
        if values[i] is _MISSING:
            if pname.endswith("Optional") and ctype.endswith("*"):
                values[i] = None
            else:
                missing.append(pname)
    if missing:
        raise TypeError(f"run({sig.name!r}) missing arguments: {', '.join(missing)}")
    return values


_MISSING = object()


class _Upload:
    """A host view uploaded for one call (the bytes it spans, strides kept) and the aclTensor describing it:
    plain handles released by the call, cheaper than a Tensor object (the call owns them for its duration).
    Described first (``describe``), placed once every tensor of the call is known (``place``): on the stub the
    host bytes are lent to the device for the call (nothing is copied, and an output is written in place)
    where that is safe, otherwise (and off the stub) the device memory comes from the client's pool
    (aclnn_py.memory), kept for the call's stream, with the bytes copied in and an output copied back."""

    __slots__ = ("handle", "ptr", "address", "shape", "strides", "dtype", "lo", "nbytes", "stream", "is_output",
                 "lend", "stub", "lent")

    def __init__(self, stream):
        self.handle = self.ptr = ffi.NULL
        self.lo = self.nbytes = 0
        self.stream = stream
        self.lent = self.lend = self.stub = False

    def describe(self, address: int, shape, strides, dtype: np.dtype, is_output: bool, lend: bool, stub: bool):
        """``lend``: lending is wanted (the operator may write the bytes only where they are an output);
        ``stub``: the backend lends host memory (its copies then infer their kind: the host bytes may be device
        memory, an array over a Tensor's buffer, say)."""
        self.address, self.shape, self.strides, self.dtype = address, tuple(shape), tuple(strides), dtype
        self.lo, hi = _span(shape, strides, dtype.itemsize)
        self.nbytes = hi - self.lo
        self.is_output, self.lend, self.stub = is_output, lend, stub

    def span(self) -> tuple[int, int]:
        start = self.address + self.lo
        return start, start + self.nbytes

    def place(self, lend: bool):
        """Lend the bytes (when ``lend`` and the stub accepts) or copy them into a pool block, then make the
        aclTensor. A span the stub refuses to lend is copied: lending never makes a call fail."""
        item = self.dtype.itemsize
        if self.nbytes:
            cell = ffi.new("void **")
            host = ffi.cast("char *", self.address + self.lo)
            self.lent = lend and lib.aclStubLendHostMemory(host, self.nbytes, cell) == 0
            if not self.lent:
                errors.check(lib.aclnnpy_pool_malloc(self.stream, self.nbytes, cell, ffi.new("int *")),
                             "aclrtMalloc")
            self.ptr = cell[0]
            if not self.lent:
                errors.check(lib.aclrtMemcpy(self.ptr, self.nbytes, host, self.nbytes, lib.ACL_MEMCPY_DEFAULT
                                             if self.stub else lib.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")
        dims, steps = ffi.new("int64_t[]", list(self.shape) or [0]), ffi.new("int64_t[]", list(self.strides) or [0])
        self.handle = errors.check_handle(lib.aclCreateTensor(
            dims, len(self.shape), dtypes.to_acl(self.dtype), steps, -self.lo // item, lib.ACL_FORMAT_ND, dims,
            len(self.shape), self.ptr), "aclCreateTensor")

    def write_back(self, address: int):
        if self.nbytes and not self.lent:
            errors.check(lib.aclrtMemcpy(ffi.cast("char *", address + self.lo), self.nbytes, self.ptr, self.nbytes,
                                         lib.ACL_MEMCPY_DEFAULT if self.stub else lib.ACL_MEMCPY_DEVICE_TO_HOST),
                         "aclrtMemcpy")

    def close(self):
        if self.handle != ffi.NULL:
            lib.aclDestroyTensor(self.handle)
            self.handle = ffi.NULL
        if self.ptr != ffi.NULL:
            if self.lent:
                lib.aclStubReclaimHostMemory(self.ptr)  # waits for queued work that still uses it
            else:
                lib.aclnnpy_pool_free(self.stream, self.ptr, self.nbytes)
            self.ptr = ffi.NULL


def _lendable(uploads: list, copied: list) -> list[bool]:
    """Which uploads of one call may be lent: those that want it, whose first byte is aligned to their elements
    (a device tensor's data is), and that share no byte with an output of the call (or, for an output, with any
    other tensor of it, the ``copied`` ones of tensor lists included). Lent and copied tensors then never alias,
    so the results and the order of the write-backs are the copying path's."""
    every = uploads + copied
    spans = [u.span() for u in every]
    ok = []
    for i, u in enumerate(uploads):
        lo, hi = spans[i]
        fine = u.lend and u.nbytes > 0 and lo % u.dtype.itemsize == 0
        for j, v in enumerate(every):
            if fine and j != i and (u.is_output or v.is_output) and spans[j][0] < hi and lo < spans[j][1]:
                fine = False
        ok.append(fine)
    return ok


class _Call:
    """The temporaries of one call: what to release, and the host outputs to write back."""

    def __init__(self, name: str, stream):
        self.name = name
        self.stream = stream  # the C handle the call's device memory is pooled for
        self.lend = loader.load().lends_host_memory
        self.temps = []
        self.uploads = []  # described, placed by place()
        self.copied = []  # the host spans of tensor-list elements (copied at once), described for place()
        self.writebacks = []  # (uploaded tensor, host address, array to assign from the host copy or None)
        self.keep = []  # host arrays the call's tensors use

    def close(self):
        for t in reversed(self.temps):
            t.close()

    def place(self):
        """Lend or copy every described upload, now that all the call's tensors are known."""
        for u, lend in zip(self.uploads, _lendable(self.uploads, self.copied)):
            u.place(lend)

    def tensor(self, pname: str, value, is_output: bool, as_object: bool = False, writable: bool = True):
        """The device tensor for a tensor argument: a Tensor as given (None stays None), or the caller's host
        memory uploaded (a Tensor object when ``as_object``, for a TensorList; else call-scoped handles).
        ``writable``: the C parameter is not const, so the operator may write an input too (not lent then)."""
        if value is None or isinstance(value, Tensor):
            if value is not None:
                value._check_open()
            return value
        where = f"run({self.name!r})"
        if isinstance(value, np.ndarray):
            return self._host(pname, value, is_output, as_object, writable)
        if hasattr(value, "__dlpack__"):
            from ._dlpack import KDL_CPU, DLView

            device = value.__dlpack_device__() if hasattr(value, "__dlpack_device__") else (KDL_CPU, 0)
            if device[0] != KDL_CPU:  # device memory: shared, not copied
                t = Tensor.from_dlpack(value)
                self.temps.append(t)
                return t
            view = DLView(value, where)
            self.temps.append(view)  # the producer's memory stays valid until the write-back is done
            if is_output and view.readonly:
                raise ValueError(f"{where}: output {pname!r} is read-only (DLPack flags)")
            return self._upload(view.address, view.shape, view.strides, view.dtype, is_output, as_object, writable)
        if is_output:
            raise errors.type_error(where, pname, value, "a writable numpy array, an object with __dlpack__ or an "
                                    "aclnn_py.Tensor (outputs are written back into the caller's memory)")
        expected = "a numpy array, an object with __dlpack__ or the buffer protocol, or an aclnn_py.Tensor"
        try:
            arr = np.asarray(value)
        except Exception as exc:
            raise errors.type_error(where, pname, value, expected) from exc
        if arr.dtype == object:
            raise errors.type_error(where, pname, value, expected)
        return self._host(pname, arr, False, as_object, writable)

    def _host(self, pname, a: np.ndarray, is_output: bool, as_object: bool, writable: bool):
        if is_output and not a.flags.writeable:
            raise ValueError(f"run({self.name!r}): output {pname!r} is a read-only array")
        direct = a.dtype.isnative and not any(s % a.itemsize for s in a.strides) if a.ndim else a.dtype.isnative
        host = a if direct else np.ascontiguousarray(a.astype(a.dtype.newbyteorder("=")))
        self.keep.append(host)  # lent to the device until the call ends
        try:
            dtypes.to_acl(host.dtype)
        except TypeError as exc:
            raise TypeError(f"run({self.name!r}): argument {pname!r}: {exc}") from None
        t = self._upload(host.ctypes.data, host.shape, [s // host.itemsize for s in host.strides], host.dtype,
                         is_output, as_object, writable)
        if is_output and not direct:
            self.writebacks[-1] = (*self.writebacks[-1][:2], (a, host))  # assigned back after the copy
        return t

    def _upload(self, address: int, shape, strides, dtype, is_output: bool, as_object: bool, writable: bool):
        if as_object:
            t = Tensor._from_host(address, shape, strides, dtype)
            self.temps.append(t)
            span = _Upload(self.stream)
            span.describe(address, shape, strides, np.dtype(dtype), is_output, False, self.lend)
            self.copied.append(span)
        else:
            t = _Upload(self.stream)
            self.temps.append(t)  # released by the call even when the upload fails half-way
            # lent only where the operator's writes are wanted: outputs, and inputs it cannot write (const)
            t.describe(address, shape, strides, np.dtype(dtype), is_output, self.lend and (is_output or not writable),
                       self.lend)
            self.uploads.append(t)
        if is_output:
            self.writebacks.append((t, address, None))
        return t

    def convert(self, pname: str, ctype: str, role: str, value, is_output: bool):
        """The value the mirror takes for one parameter."""
        where = f"run({self.name!r})"
        if role in ("input tensor", "output tensor"):
            t = self.tensor(pname, value, is_output, writable=not ctype.startswith("const"))
            return t if isinstance(t, _Upload) else None if t is None else t.handle  # an upload's after place()
        if role in ("tensor list", "output tensor list"):
            if value is None or isinstance(value, TensorList):
                return value if value is None else value.handle
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise errors.type_error(where, pname, value, "a sequence of tensors or an aclnn_py.TensorList")
            lst = TensorList([self.tensor(f"{pname}[{i}]", v, is_output, as_object=True)
                              for i, v in enumerate(value)])
            self.temps.append(lst)
            return lst.handle
        if role == "scalar":
            if value is None or isinstance(value, Scalar):
                return value if value is None else value.handle
            s = _made(self, Scalar, value)
            return s.handle
        if role == "scalar list":
            if value is None or isinstance(value, ScalarList):
                return value if value is None else value.handle
            return _made(self, ScalarList, value).handle
        if role in _ARRAY_CLASSES:
            cls = _ARRAY_CLASSES[role]
            if value is None or isinstance(value, cls):
                return value if value is None else value.handle
            return _made(self, cls, value).handle
        if role == "fp16 array":
            if value is not None and not isinstance(value, ffi.CData):
                raise errors.type_error(where, pname, value, "an aclFp16Array handle or None")
            return value
        if role == "dtype":
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                return int(value)
            try:
                return dtypes.to_acl(dtypes.as_numpy_dtype(value))
            except TypeError as exc:
                raise TypeError(f"{where}: argument {pname!r}: {exc}") from None
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return value[()].item()
        return value

    def write_back(self):
        for t, address, assign in self.writebacks:
            if isinstance(t, Tensor):
                t._to_host(address)
            else:
                t.write_back(address)
            if assign is not None:
                target, host = assign
                target[...] = host


def _made(call: _Call, cls, value):
    obj = cls(value)
    call.temps.append(obj)
    return obj


def run(name: str, *args: Any, out: Any = None, outputs: Sequence[str] | None = None, stream: Stream | None = None,
        sync: bool = True, **kwargs: Any) -> Any:
    """Run operator ``name`` (e.g. ``"aclnnAdd"``); see the module documentation for the arguments."""
    if sync is not True and sync is not False:
        raise errors.type_error(f"run({name!r})", "sync", sync, "a bool")
    sig = signature(name, outputs)
    values = _bind(sig, args, out, kwargs)
    stream_handle(f"run({name!r})", stream)  # the stream argument's checks
    st = Stream.default() if stream is None else stream
    phase1 = getattr(aclnn, name + "GetWorkspaceSize")
    phase2 = getattr(aclnn, name)
    call = _Call(name, st.handle)
    with st._owner._on():  # the stream's context is current for every allocation and both phases
        try:
            outs = set(sig.outputs)
            cargs = [call.convert(pname, ctype, role, values[i], i in outs)
                     for i, (pname, ctype, role) in enumerate(sig.params)]
            call.place()
            ws_size, executor = phase1(*[a.handle if isinstance(a, _Upload) else a for a in cargs])
            try:
                workspace = st.workspace(ws_size) if ws_size else ffi.NULL
            except BaseException:
                lib.aclDestroyAclOpExecutor(executor)  # phase 2 never ran: the executor is still ours
                raise
            phase2(workspace, ws_size, executor, st.handle)
            # Without sync, work on device Tensors only is left queued. Host memory (lent, or copied into a pool
            # block that this stream's next call may refill before the work has run) waits for it.
            if sync or call.uploads or call.writebacks or call.copied:
                st.synchronize()
                call.write_back()
        finally:
            call.close()
    results = [values[i] for i in sig.outputs]
    return results[0] if len(results) == 1 else tuple(results)


__all__ = ["run", "signature"]
