"""Choose and load the library set behind the bindings: a real CANN toolkit or the bundled CPU stub.

Order (first match wins):
1. ``ACLNN_PY_LIB_DIR``: a directory holding the libraries;
2. ``ACLNN_PY_BACKEND=stub``: the bundled stub;
3. a CANN toolkit under ``ASCEND_HOME_PATH``, ``ASCEND_TOOLKIT_HOME`` or
   ``/usr/local/Ascend/ascend-toolkit/latest`` (libraries in its ``lib64`` and ``opp/lib64``);
4. the bundled stub (``ACLNN_PY_BACKEND=cann`` turns this fallback into an error).
Loading happens once per process, on the first call that needs the libraries.

What is loaded: the runtime (``libascendcl.so``, else ``libacl_rt.so``, its newer name), ``libnnopbase.so`` and
the operator libraries, so that every operator is reachable: from the bundled stub ``libopapi.so`` alone (it
holds every operator); elsewhere every one of ``libopapi.so`` and ``libopapi_{math,nn,cv,transformer}.so``
present (at least one); then ``libhccl.so`` (collectives) when present.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from . import _native
from .errors import BackendNotFoundError

# Loaded in this order, globally, so each resolves its dependencies on the previous ones.
RUNTIME_LIBRARIES = ("libascendcl.so", "libacl_rt.so")  # the first found; the stub's libacl_rt is a filter of it
BASE_LIBRARY = "libnnopbase.so"
OPERATOR_LIBRARIES = ("libopapi.so", "libopapi_math.so", "libopapi_nn.so", "libopapi_cv.so", "libopapi_transformer.so")
# The bundled stub's set: its libopapi.so holds every operator of the four repository libraries.
STUB_LIBRARIES = ("libascendcl.so", BASE_LIBRARY, "libopapi.so")
# Loaded after them when the same directories hold them (collectives: aclnn_py.hccl); their functions raise
# SymbolNotFoundError when absent.
OPTIONAL_LIBRARIES = ("libhccl.so",)
# Called directly by the object layer and the one-call fast path; a library set without them is refused
# at load time rather than failing on a NULL function pointer later.
REQUIRED_SYMBOLS = frozenset({
    "aclInit", "aclFinalize", "aclrtSetDevice", "aclrtResetDevice", "aclrtCreateStream", "aclrtDestroyStream",
    "aclrtSynchronizeStream", "aclrtMalloc", "aclrtFree", "aclrtMemcpy", "aclrtMemset", "aclCreateTensor",
    "aclDestroyTensor", "aclCreateIntArray", "aclDestroyIntArray", "aclDestroyAclOpExecutor",
    "aclrtGetCurrentContext", "aclrtSetCurrentContext",
})
DEFAULT_TOOLKIT = "/usr/local/Ascend/ascend-toolkit/latest"
TOOLKIT_VARIABLES = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")


_ENVIRON_DATA = getattr(os.environ, "_data", None)  # CPython on POSIX: the environment as bytes, kept current

if type(_ENVIRON_DATA) is dict:
    _env_bytes = _ENVIRON_DATA.get  # read on every operator call: without os.environ's per-call encoding
else:  # pragma: no cover - other platforms
    def _env_bytes(key: bytes) -> bytes | None:
        v = os.environ.get(key.decode())
        return None if v is None else os.fsencode(v)


@dataclass(frozen=True)
class Backend:
    """What was loaded: ``kind`` is ``"stub"`` or ``"cann"``; ``reason`` says which rule chose it."""

    kind: str
    reason: str
    libraries: tuple[Path, ...]
    root: Path | None = None
    missing_symbols: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_stub(self) -> bool:
        """True when the libraries are the aclnn-py stub (also when found through a toolkit path)."""
        return "aclStubVersion" not in self.missing_symbols

    @property
    def malloc_zero_fills(self) -> bool:
        """True when fresh aclrtMalloc memory reads as zeros: the stub's does, except in check mode (which
        fills it with 0xff, as undefined as a device's)."""
        return self.is_stub and not _env_bytes(b"ACLNN_CHECK")

    @property
    def lends_host_memory(self) -> bool:
        """True when host buffers can be lent to the device for a call instead of copied: the stub's
        ``aclStubLendHostMemory`` (its device memory is host memory), unless ``ACLNN_PY_ZERO_COPY=0``."""
        return "aclStubLendHostMemory" not in self.missing_symbols and _env_bytes(b"ACLNN_PY_ZERO_COPY") != b"0"


def _find(name: str, dirs) -> Path | None:
    for d in dirs:
        p = Path(d) / name
        if p.exists():
            return p
    return None


def _toolkit_candidates() -> list[tuple[str, Path]]:
    found = [(var, Path(os.environ[var])) for var in TOOLKIT_VARIABLES if os.environ.get(var)]
    found.append(("default location", Path(DEFAULT_TOOLKIT)))
    return found


def _toolkit_dirs(root: Path) -> list[Path]:
    dirs = [root / "lib64", root / "opp" / "lib64"]
    if os.environ.get("ASCEND_OPP_PATH"):
        dirs.append(Path(os.environ["ASCEND_OPP_PATH"]) / "lib64")
    return dirs


def _resolve(dirs, what: str, stub: bool = False) -> tuple[Path, ...]:
    """The library set in dirs: the runtime, libnnopbase, the operator libraries (see the module docstring)."""
    if stub:
        groups = [(name,) for name in STUB_LIBRARIES]
    else:
        groups = [RUNTIME_LIBRARIES, (BASE_LIBRARY,)]
    paths, missing = [], []
    for names in groups:
        p = next(filter(None, (_find(name, dirs) for name in names)), None)
        (paths if p else missing).append(p or " or ".join(names))
    if not stub:
        ops = [p for p in (_find(name, dirs) for name in OPERATOR_LIBRARIES) if p]
        paths += ops
        if not ops:
            missing.append("an operator library (" + ", ".join(OPERATOR_LIBRARIES) + ")")
    if missing:
        raise BackendNotFoundError(
            f"{what}: {', '.join(map(str, missing))} not found in {', '.join(str(d) for d in dirs)}"
        )
    return tuple(paths) + tuple(p for p in (_find(name, dirs) for name in OPTIONAL_LIBRARIES) if p)


def _complete(dirs) -> bool:
    try:
        _resolve(dirs, "")
    except BackendNotFoundError:
        return False
    return True


def choose() -> tuple[str, str, tuple[Path, ...], Path | None]:
    """(kind, reason, library paths, toolkit root) per the rules above, without loading anything."""
    lib_dir = os.environ.get("ACLNN_PY_LIB_DIR")
    backend = os.environ.get("ACLNN_PY_BACKEND", "").strip().lower()
    if backend not in ("", "auto", "stub", "cann"):
        raise BackendNotFoundError(f"ACLNN_PY_BACKEND={backend!r}: expected 'stub', 'cann' or 'auto'")
    if lib_dir:
        return "custom", "ACLNN_PY_LIB_DIR", _resolve([Path(lib_dir)], f"ACLNN_PY_LIB_DIR={lib_dir}"), Path(lib_dir)
    stub = _resolve([_native.STUB_LIB_DIR], "bundled stub", stub=True)
    if backend == "stub":
        return "stub", "ACLNN_PY_BACKEND=stub", stub, None
    # Every toolkit variable is listed, set or not, so the message says where a toolkit was expected.
    looked = [f"{var} (not set)" for var in TOOLKIT_VARIABLES if not os.environ.get(var)]
    for source, root in _toolkit_candidates():
        dirs = _toolkit_dirs(root)
        looked.extend(f"{d} ({source})" for d in dirs)
        if _complete(dirs):
            return "cann", f"toolkit from {source}", _resolve(dirs, source), root
    if backend == "cann":
        raise BackendNotFoundError(
            "ACLNN_PY_BACKEND=cann but no CANN toolkit with " + " or ".join(RUNTIME_LIBRARIES) + ", "
            + BASE_LIBRARY + " and an operator library (" + ", ".join(OPERATOR_LIBRARIES) + ") was found; looked in: "
            + "; ".join(looked)
        )
    return "stub", "no CANN toolkit found", stub, None


_lock = threading.Lock()
_backend: Backend | None = None


def load() -> Backend:
    """Load the chosen libraries and bind every symbol; idempotent and thread-safe."""
    global _backend
    if _backend is not None:
        return _backend
    with _lock:
        if _backend is None:
            kind, reason, paths, root = choose()
            lib, ffi = _native.lib, _native.ffi
            for p in paths:
                err = lib.aclnnpy_open(str(p).encode())
                if err != ffi.NULL:
                    raise BackendNotFoundError(f"cannot load {p}: {ffi.string(err).decode(errors='replace')}")
            lib.aclnnpy_bind()
            missing = frozenset(
                ffi.string(lib.aclnnpy_symbol_name(i)).decode()
                for i in range(lib.aclnnpy_symbol_count())
                if lib.aclnnpy_symbol_library(i) == ffi.NULL
            )
            if missing & REQUIRED_SYMBOLS:
                raise BackendNotFoundError(
                    f"{reason}: the libraries {', '.join(map(str, paths))} lack "
                    + ", ".join(sorted(missing & REQUIRED_SYMBOLS))
                )
            if kind == "custom":
                kind = "stub" if "aclStubVersion" not in missing else "cann"
            _backend = Backend(kind, reason, paths, root, missing)
    if os.environ.get("ACLNN_CHECK") and _backend.is_stub:
        from . import check

        check.install_site_hook()  # findings name the Python line, not the interpreter's C frames
    return _backend


def loaded() -> Backend | None:
    """The backend if the libraries are already loaded, else None (never loads)."""
    return _backend
