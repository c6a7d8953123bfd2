"""Mirror of the AscendCL runtime and the tensor meta API, named as in C so a C++ sample ports line by line.

    from aclnn_py import acl
    acl.aclInit(None)
    acl.aclrtSetDevice(0)
    stream = acl.aclrtCreateStream()            # out-parameters are returned
    dev = acl.aclrtMalloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.aclrtMemcpy(dev, nbytes, host_ptr, nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    t = acl.aclCreateTensor(shape, len(shape), acl.ACL_BF16, strides, 0, acl.ACL_FORMAT_ND,
                            shape, len(shape), dev)

A non-zero status raises ``aclnn_py.AclError`` (runtime) or ``aclnn_py.AclnnError`` (tensor meta).
Enum values and status codes keep their C names (``ACL_BF16``, ``ACL_FORMAT_ND``, ``ACL_SUCCESS``...).
Functions with the ``aclStub`` prefix exist only in the stub (introspection).
"""

from ._mirror import HostSpan, MirrorModule, constants, make_wrapper

_mirror = MirrorModule(globals(), "acl")
globals().update(constants(_mirror.constant_prefixes))
__getattr__ = _mirror.getattr
__dir__ = _mirror.dir
_c_functions: dict = {}


def _c(name: str):
    """The plain mirror wrapper of C function ``name`` (the functions below add the layers' sharing to it)."""
    fn = _c_functions.get(name)
    if fn is None:
        fn = _c_functions[name] = make_wrapper(name, __name__)
    return fn


def _mirror_doc(name: str) -> str:
    from _aclnn_py_native.mirror_rules import doc

    from ._native import SIGNATURES

    return doc(name, SIGNATURES[name]["result"], SIGNATURES[name]["params"])


def aclInit(configPath):
    from .runtime import mirror_init

    mirror_init(_c("aclInit"), configPath)


def aclFinalize():
    from .runtime import mirror_finalize

    mirror_finalize(_c("aclFinalize"))


# The mirror's documentation (from the signatures, without loading the libraries), then how the runtime is
# shared with aclnn_py's objects (docs/guide/layers.md).
aclInit.__doc__ = _mirror_doc("aclInit") + (
    "\n\nThe runtime is shared with aclnn_py's objects: on a runtime they started, this succeeds and the mirror layer "
    "holds it too (docs/guide/layers.md, \"How the layers mix\"); a second aclInit of the mirror's raises 100002 "
    "as in C.")
aclFinalize.__doc__ = _mirror_doc("aclFinalize") + (
    "\n\nWhile aclnn_py's objects still use the runtime, the mirror layer only lets go of it (they finalise it when "
    "done); otherwise it ends the runtime, as in C.")


def host_ptr(obj) -> HostSpan:
    """A host buffer (numpy array, bytes, bytearray, memoryview) lent to C, like ``hostData.data()`` in C,
    for the pointer parameters of ``aclrtMemcpy`` and friends. The buffer is not copied; the span keeps the
    object alive. The mirror checks each count against the span's size (``ValueError``) and refuses to let
    C write into a read-only object such as ``bytes`` (``TypeError``). ``.ptr`` is the raw address."""
    return HostSpan(obj)
