"""Mirror of the aclnn operator API: both phases of every operator, named as in C.

    ws_size, executor = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(grad, idx, 2, False, out)
    workspace = acl.aclrtMalloc(ws_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if ws_size else None
    aclnn.aclnnMoeTokenPermuteGrad(workspace, ws_size, executor, stream)

Inputs and attributes in C order; ``workspaceSize`` and ``executor`` come back as a tuple; a non-zero
``aclnnStatus`` raises ``aclnn_py.AclnnError`` (``.status``, ``.name``, the library's message). Pass
``None`` for an absent optional tensor and for a NULL workspace. Status codes: ``ACLNN_*``.

Operators beyond the compiled ones resolve on first use from the headers found at run time (directories
added with ``ACLNN_PY_INCLUDE_PATH`` / ``aclnn_py.add_include_dir``, the CANN toolkit's), with symbols from
the loaded libraries and ``ACLNN_PY_OP_LIBS`` / ``aclnn_py.load_op_library``; ``describe(name)`` lists a
function's parameters with their C types and roles.
"""

from ._mirror import SIGNATURES, MirrorModule, constants

_mirror = MirrorModule(globals(), "aclnn")
globals().update(constants(_mirror.constant_prefixes))


def __getattr__(attr: str):
    from . import loader

    if attr.startswith("__") or attr in _mirror.names and attr not in loader.load().missing_symbols:
        return _mirror.getattr(attr)
    from . import _dynamic, _headers

    # Also a compiled function the backend lacks: looked up by name, so a library opened later can provide it.
    found = _dynamic.find(attr) if attr.startswith("aclnn") else None
    if found is None:
        if attr in _mirror.names:
            return _mirror.getattr(attr)
        dirs = [f"{d} ({origin})" for origin, d in _headers.search_dirs()]
        places = "; ".join(dirs if len(dirs) <= 12 else dirs[:10] + [f"... {len(dirs) - 11} more", dirs[-1]])
        raise AttributeError(f"module {__name__!r} has no attribute {attr!r}: no compiled function and no "
                             f"header declaring it in {places} (aclnn_py.add_include_dir or ACLNN_PY_INCLUDE_PATH "
                             f"add directories)")
    fn = _dynamic.make_wrapper(attr, *found)
    fn.__module__ = __name__
    globals()[attr] = fn
    return fn


def _forget_unbound() -> None:
    """Drop the functions made for symbols no library exported (after a library is opened, the next access
    looks them up again)."""
    for name, value in list(globals().items()):
        if name.startswith("aclnn") and callable(value) and getattr(value, "library", "") is None:
            del globals()[name]


def __dir__():
    from . import _headers

    return sorted(set(_mirror.dir()) | set(_headers.index()))


def describe(name: str) -> list[dict]:
    """The parameters of operator function ``name`` in C order: ``{"name", "ctype", "role"}`` where role is
    one of input tensor, output tensor, tensor list, output tensor list, scalar, scalar list, int array, bool array,
    float array, fp16 array, string, attribute, dtype, value array, workspace, workspace size, executor,
    stream, output value, output handle, handle, pointer."""
    from . import _dynamic, _headers

    if name in _mirror.names:
        return [{"name": n, "ctype": t, "role": _headers.classify(n, t, (), n == "workspace")[1]}
                for n, t in SIGNATURES[name]["params"]]
    found = _dynamic.find(name)
    if found is None:
        raise ValueError(f"describe: no operator function named {name!r} (see dir(aclnn_py.aclnn))")
    return _dynamic.describe(name, found[1])
