"""Check mode: a sanitizer for aclnn programs that runs on the stub, without an NPU.

Four tools, as in NVIDIA's compute-sanitizer:

- ``memcheck``: copies, memsets and operator tensors outside one live ``aclrtMalloc`` block (out of bounds,
  use after free, host memory where device memory is needed), double and invalid frees, a workspace
  smaller than phase 1 asked for, a tensor destroyed between the two phases.
- ``initcheck``: fresh device memory is poisoned (0xff bytes), and reading bytes never written since
  ``aclrtMalloc`` (an operator input, a device-to-host or device-to-device copy) is reported.
- ``synccheck``: the host reading or writing device memory that queued work writes or reads without
  synchronising first; ``aclrtFree``, ``aclrtDestroyStream``, ``aclrtResetDevice`` or ``aclFinalize``
  while queued work still uses the memory or stream; two streams using the same bytes (one writing) with
  no event between them. The order is derived from the calls (vector clocks), not from when the stub's
  workers happen to run, so a race is reported every time, never by luck.
- ``leakcheck``: at ``aclFinalize`` (or process exit): device and host blocks, tensors, scalars, arrays,
  lists, executors never run, streams, events and contexts still live, each with its creation site.
- ``apicheck``: every call that returns an error status (``api-error``), as compute-sanitizer reports API
  errors, with the status and the library's message.

``padding-access`` (memcheck) is a warning, not an error: an access past the size requested from
``aclrtMalloc`` but inside the padding a device adds; warnings never set an error exit status.

Three ways to use it:

- ``python -m aclnn_py check [--tool ...] [--error-exitcode N] [--json FILE] -- PROGRAM [ARGS...]``
- environment variables, read once when the stub loads: ``ACLNN_CHECK=memcheck,initcheck|all``,
  ``ACLNN_CHECK_REPORT=FILE`` (JSON; ``%p`` becomes the process id; without it a summary goes to stderr),
  ``ACLNN_CHECK_ERROR_EXITCODE=N`` (a process with findings exits with N);
- in-process: ``findings = check.run(fn, *args)`` or ``with check.session() as s: ...`` (``s.findings``),
  and the pytest fixture ``aclnn_check`` (``pytest_plugins = ["aclnn_py.pytest_plugin"]``).
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

TOOLS = ("memcheck", "initcheck", "synccheck", "leakcheck", "apicheck")
WARNINGS = ("padding-access",)  # classes of legal but suspicious use: reported, never an error status
_PACKAGE_DIR = str(Path(__file__).resolve().parent)


@dataclass(frozen=True)
class Frame:
    """One frame of a call site: a Python frame (``file``, ``line``, ``function``) or a native one (also
    ``object`` and ``address``; ``file`` and ``line`` when the object has debug information)."""

    function: str | None
    file: str | None = None
    line: int | None = None
    object: str | None = None
    address: str | None = None

    @property
    def is_runtime_startup(self) -> bool:
        """A frame of the C library's start-up code (below main), left out of reports."""
        name = os.path.basename(self.object or "")
        return self.function in ("_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl") \
            or name.startswith(("libc.so", "ld-linux"))

    def __str__(self) -> str:
        file = self.file
        if file and os.path.isabs(file) and file.startswith(os.getcwd() + os.sep):
            file = os.path.relpath(file)
        where = f"{file}:{self.line}" if file and self.line else None
        name = self.function or "??"
        if self.object is None:
            return f"{where or '??'} in {name}"
        return f"{name} ({where})" if where else f"{name} ({self.object}+{self.address})"


@dataclass(frozen=True)
class Finding:
    """One distinct finding: the tool, the class of bug, the API call, what happened, how many times,
    where the program made the call, and a related site (where the block was allocated or freed, or where
    the conflicting work was queued)."""

    tool: str
    what: str
    call: str
    message: str
    count: int
    site: tuple[Frame, ...]
    related_label: str | None = None
    related_site: tuple[Frame, ...] = ()

    @property
    def severity(self) -> str:
        """``"warning"`` for legal but suspicious use (``padding-access``), else ``"error"``."""
        return "warning" if self.what in WARNINGS else "error"

    def to_dict(self) -> dict:
        def frames(site):
            return [{k: v for k, v in f.__dict__.items() if v is not None} for f in site]

        d = {"tool": self.tool, "what": self.what, "severity": self.severity, "call": self.call,
             "message": self.message, "count": self.count, "site": frames(self.site)}
        if self.related_label:
            d["related"] = {"label": self.related_label, "site": frames(self.related_site)}
        return d


NOTHING_CHECKED = 3  # exit status of ``check`` when no process loaded the stub (and the program exited with 0)


class CheckError(ValueError):
    """A bad argument to the check API (an unknown tool name)."""


def parse_tools(tools) -> str:
    """``"all"``, ``"memcheck,initcheck"`` or an iterable of names -> the spelling ACLNN_CHECK takes."""
    names = [tools] if isinstance(tools, str) else list(tools)
    names = [n.strip() for part in names for n in part.split(",") if n.strip()]
    bad = [n for n in names if n not in TOOLS + ("all",)]
    if bad or not names:
        raise CheckError(f"tools: {', '.join(bad) or '(none)'} is not one of {', '.join(TOOLS)}, all")
    return ",".join(names)


# ---- reading reports ---------------------------------------------------------------------------------------

def _elf_is_executable(path: str) -> bool:
    """ET_EXEC (a non-PIE executable): its addresses are absolute, not offsets from the load address."""
    try:
        with open(path, "rb") as f:
            head = f.read(18)
        return head[:4] == b"\x7fELF" and head[16] == 2
    except OSError:
        return False


def _addr2line(obj: str, addresses: list[int]) -> dict[int, tuple[str | None, str | None, int | None]]:
    """address -> (function, file, line) for one object; empty when addr2line is missing or fails."""
    tool = shutil.which("addr2line")
    if tool is None or not os.path.isfile(obj) or not addresses:
        return {}
    try:
        out = subprocess.run([tool, "-f", "-C", "-e", obj] + [hex(max(a - 1, 0)) for a in addresses],
                             capture_output=True, text=True, timeout=60).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return {}
    result = {}
    for i, a in enumerate(addresses):
        if 2 * i + 1 >= len(out):
            break
        func, loc = out[2 * i], out[2 * i + 1]
        file, _, line = loc.rpartition(":")
        line = line.split(" ")[0]
        ok = file and file != "??" and line.isdigit() and line != "0"
        result[a] = (None if func == "??" else func, file if ok else None, int(line) if ok else None)
    return result


def _python_frames(text: str) -> tuple[Frame, ...]:
    frames = []
    for entry in text.splitlines():
        loc, _, func = entry.partition(" in ")
        file, _, line = loc.rpartition(":")
        frames.append(Frame(func or None, file or loc, int(line) if line.isdigit() else None))
    return tuple(frames)


def _resolve_sites(findings: list[dict]) -> None:
    """Add function, file and line to the native frames of every site (one addr2line run per object)."""
    wanted: dict[str, set[int]] = {}
    sites = [f["site"] for f in findings] + [f["related"]["site"] for f in findings if f.get("related")]
    for site in sites:
        for fr in site.get("frames", []):
            obj = fr.get("object") or ""
            key = int(fr["address"], 16) if _elf_is_executable(obj) else int(fr["offset"], 16)
            fr["_key"] = key
            wanted.setdefault(obj, set()).add(key)
    table = {obj: _addr2line(obj, sorted(keys)) for obj, keys in wanted.items() if obj}
    for site in sites:
        frames = []
        for fr in site.get("frames", []):
            func, file, line = table.get(fr.get("object") or "", {}).get(fr["_key"], (None, None, None))
            frames.append(Frame(func or fr.get("function"), file, line, fr.get("object"), fr.get("offset")))
        site["_frames"] = tuple(frames) if frames else _python_frames(site.get("python") or "")
        if site.get("python"):
            site["_frames"] = _python_frames(site["python"])


def findings_from_reports(reports: list[dict]) -> list[Finding]:
    """Merge the JSON reports of one or more processes into findings (same tool, class, call and site: one
    finding with the counts added)."""
    raw = [f for r in reports for f in r.get("findings", [])]
    _resolve_sites(raw)
    merged: dict[tuple, Finding] = {}
    for f in raw:
        site = f["site"]["_frames"]
        rel = f.get("related")
        finding = Finding(f["tool"], f["what"], f["call"], f["message"], int(f["count"]), site,
                          rel["label"] if rel else None, rel["site"]["_frames"] if rel else ())
        key = (finding.tool, finding.what, finding.call, tuple(map(str, site)))
        if key in merged:
            old = merged[key]
            finding = Finding(old.tool, old.what, old.call, old.message, old.count + finding.count, old.site,
                              old.related_label, old.related_site)
        merged[key] = finding
    return list(merged.values())


def _shown(site: tuple[Frame, ...], limit: int) -> list[Frame]:
    frames = [fr for fr in site if not fr.is_runtime_startup]
    return (frames or list(site))[:limit]


def format_report(findings: list[Finding], tools: str = "all", exit_status: int | None = None,
                  dropped: int = 0, incomplete: tuple[int, ...] = ()) -> str:
    """The text report: one block per finding, then a summary line (with how many distinct findings a process
    could not keep, and the processes whose report ends early: they left through ``_exit`` or a signal)."""
    p = "========="
    lines = [f"{p} aclnn check ({tools})"]
    for f in findings:
        kind = " (warning)" if f.severity == "warning" else ""
        lines.append(f"{p} [{f.tool}] {f.what}{kind} in {f.call}" + (f" ({f.count} times)" if f.count > 1 else ""))
        lines.append(f"{p}     {f.message}")
        for i, fr in enumerate(_shown(f.site, 6)):
            lines.append(f"{p}     {'at' if i == 0 else '  '} {fr}")
        if f.related_label and f.related_site:
            lines.append(f"{p}     {f.related_label}:")
            for fr in _shown(f.related_site, 4):
                lines.append(f"{p}        {fr}")
    for pid in incomplete:
        lines.append(f"{p} process {pid} ended without running its exit handlers (_exit or a signal): its report "
                     "holds what it found until then, without leakcheck")
    per_tool = {t: sum(1 for f in findings if f.tool == t) for t in TOOLS}
    detail = ", ".join(f"{t} {n}" for t, n in per_tool.items() if n)
    total = sum(f.count for f in findings)
    warnings = sum(1 for f in findings if f.severity == "warning")
    summary = f"{p} SUMMARY: {len(findings)} finding(s), {total} occurrence(s)" + (f" ({detail})" if detail else "")
    if warnings:
        summary += f"; {warnings} of them warning(s)"
    if dropped:
        summary += f"; {dropped} more distinct finding(s) dropped (out of memory)"
    if exit_status is not None:
        summary += f"; program exit status {exit_status}"
    lines.append(summary)
    return "\n".join(lines)


# ---- running a program -------------------------------------------------------------------------------------

@dataclass
class ProgramResult:
    returncode: int
    findings: list[Finding]
    processes: int  # reports read (one per process that loaded the stub in check mode)
    dropped: int = 0  # distinct findings the processes could not keep
    incomplete: tuple[int, ...] = ()  # processes whose report ends early (_exit or a signal)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def _read_reports(directory: str) -> list[dict]:
    reports = []
    for path in sorted(glob.glob(os.path.join(directory, "report.*.json"))):
        try:
            with open(path) as fh:
                reports.append(json.load(fh))
        except (OSError, ValueError) as exc:  # a process killed in the middle of a write
            print(f"check: cannot read {path}: {exc}", file=sys.stderr)
    return reports


def run_program(argv: list[str], tools="all", env: dict | None = None) -> ProgramResult:
    """Run a program (any executable, or ``python script.py``) against the stub in check mode."""
    spec = parse_tools(tools)
    with tempfile.TemporaryDirectory(prefix="aclnn-check-") as tmp:
        e = dict(os.environ if env is None else env)
        e["ACLNN_CHECK"] = spec
        e["ACLNN_CHECK_REPORT"] = os.path.join(tmp, "report.%p.json")
        e.pop("ACLNN_CHECK_ERROR_EXITCODE", None)
        e.setdefault("ACLNN_PY_BACKEND", "stub")
        code = subprocess.run(argv, env=e).returncode
        reports = _read_reports(tmp)
    return ProgramResult(code, findings_from_reports(reports), len(reports),
                         sum(int(r.get("dropped", 0)) for r in reports),
                         tuple(r.get("pid", 0) for r in reports if r.get("complete") is False))


def _json_target(path: str) -> Path:
    """The --json file, checked before the program runs: a clear error instead of a lost report."""
    target = Path(path)
    if target.is_dir():
        raise CheckError(f"--json {path}: is a directory; give a file name")
    parent = target.parent
    if not parent.is_dir():
        raise CheckError(f"--json {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise CheckError(f"--json {path}: not writable")
    return target


def main(args) -> int:
    """``python -m aclnn_py check``: see the module's documentation."""
    argv = list(args.program)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("check: give the program to run after --", file=sys.stderr)
        return 2
    try:
        tools = parse_tools(args.tool)
        target = _json_target(args.json) if args.json else None
        result = run_program(argv, tools)
    except CheckError as exc:
        print(f"check: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"check: cannot run {argv[0]}: {exc}", file=sys.stderr)
        return 127
    print(format_report(result.findings, tools, result.returncode, result.dropped, result.incomplete),
          file=sys.stderr)
    if target is not None:
        try:
            target.write_text(json.dumps({"tools": tools, "exit_status": result.returncode,
                                          "processes": result.processes, "dropped": result.dropped,
                                          "incomplete": list(result.incomplete),
                                          "findings": [f.to_dict() for f in result.findings]}, indent=1))
        except OSError as exc:
            print(f"check: cannot write --json {args.json}: {exc}", file=sys.stderr)
            return 2
    if result.processes == 0:
        print("========= nothing was checked: no process loaded the aclnn stub in check mode (is the program "
              "linked against it, or does the script use aclnn_py?)", file=sys.stderr)
        return result.returncode or NOTHING_CHECKED
    if result.errors and args.error_exitcode is not None:
        return args.error_exitcode
    return result.returncode


# ---- in-process ----------------------------------------------------------------------------------------------

_HOOK_TYPE = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t)
_hook_lock = threading.Lock()
_hook_ref = None  # keeps the ctypes callback alive while the stub may call it


def _python_site(buf, cap):
    """The Python stack of the calling thread outside aclnn_py, innermost first: the stub's call site."""
    try:
        frame = sys._getframe(1)
        lines = []
        while frame is not None and len(lines) < 6:
            code = frame.f_code
            if not code.co_filename.startswith((_PACKAGE_DIR, "<aclnn_py")):
                lines.append(f"{code.co_filename}:{frame.f_lineno} in {code.co_name}")
            frame = frame.f_back
        data = "\n".join(lines).encode(errors="replace")[: max(cap - 1, 0)]
        ctypes.memmove(buf, data, len(data))
        return len(data)
    except Exception:  # noqa: BLE001 - never raise into the stub
        return 0


def _ascendcl():
    from . import loader

    backend = loader.load()
    if not backend.is_stub:
        raise CheckError("check mode needs the stub backend (ACLNN_PY_BACKEND=stub)")
    path = next((p for p in backend.libraries if Path(p).name.startswith(("libascendcl", "libacl_rt"))), None)
    if path is None:
        raise CheckError("check mode: the stub's libascendcl.so is not among the loaded libraries")
    lib = ctypes.CDLL(str(path))
    if not hasattr(lib, "aclStubCheckStart"):
        raise CheckError(f"check mode: {path} has no check mode (an older stub)")
    lib.aclStubCheckStart.argtypes = [ctypes.c_char_p]
    lib.aclStubCheckStart.restype = ctypes.c_int
    lib.aclStubCheckCollect.argtypes = [ctypes.c_int]
    lib.aclStubCheckCollect.restype = ctypes.c_void_p
    lib.aclStubCheckFreeText.argtypes = [ctypes.c_void_p]
    lib.aclStubCheckSetSiteHook.argtypes = [ctypes.c_void_p]
    lib.aclStubCheckApiError.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    lib.aclStubCheckApiError.restype = None
    return lib


def install_site_hook() -> None:
    """Make the stub report Python call sites (done by the loader when ACLNN_CHECK is set), and report the
    error statuses of calls (apicheck) from Python, where the call site and the status are known."""
    global _hook_ref
    with _hook_lock:
        if _hook_ref is None:
            lib = _ascendcl()
            _hook_ref = _HOOK_TYPE(_python_site)
            lib.aclStubCheckSetSiteHook(ctypes.cast(_hook_ref, ctypes.c_void_p))
            from . import errors

            def report(function, status, message, _fn=lib.aclStubCheckApiError):
                _fn(str(function).encode(errors="replace"), int(status),
                    (message or "").encode(errors="replace"))

            errors.api_error_hook = report
            import atexit

            atexit.register(_remove_site_hook, lib)  # no calls into an interpreter that is shutting down


def _remove_site_hook(lib) -> None:
    from . import errors

    errors.api_error_hook = None
    lib.aclStubCheckSetSiteHook(None)


@dataclass
class Session:
    """Findings of a ``session()`` block, filled when it ends."""

    tools: str
    leaks: bool
    findings: list[Finding] = field(default_factory=list)


class session:
    """``with session(tools="all", leaks=True) as s: ...`` runs the block in check mode; ``s.findings`` then
    holds what it found. Memory and objects created before the block are unknown to it; with ``leaks``,
    whatever the block created and left alive is reported, except what aclnn_py's runtime keeps for the
    process (a device's context and its pooled workspace)."""

    def __init__(self, tools="all", leaks: bool = True):
        self.result = Session(parse_tools(tools), leaks)

    def __enter__(self) -> Session:
        self._lib = _ascendcl()
        install_site_hook()
        if self._lib.aclStubCheckStart(self.result.tools.encode()) < 0:
            raise CheckError(f"tools: {self.result.tools} is not understood by the stub")
        return self.result

    def __exit__(self, *exc) -> None:
        lib = self._lib
        if self.result.leaks:
            from ._native import ffi, lib as native

            native.aclnnpy_stream_release(ffi.NULL)  # the client's workspace and pooled blocks are not the program's leaks
        text = lib.aclStubCheckCollect(1 if self.result.leaks else 0)
        try:
            report = json.loads(ctypes.string_at(text).decode(errors="replace"))
        finally:
            lib.aclStubCheckFreeText(text)
            if os.environ.get("ACLNN_CHECK"):  # the process runs in check mode: keep it on
                lib.aclStubCheckStart(os.environ["ACLNN_CHECK"].encode())
            else:
                lib.aclStubCheckStop()
        found = findings_from_reports([report])
        self.result.findings = [f for f in found if f.what != "leaked-context"]


def run(fn, *args, tools="all", leaks: bool = True, **kwargs) -> list[Finding]:
    """Call ``fn(*args, **kwargs)`` in check mode and return the findings."""
    with session(tools, leaks) as s:
        fn(*args, **kwargs)
    return s.findings
