"""Operator headers found at run time: where they are, what they declare, and the parsed result cached.

Search order for ``aclnnop`` headers (first header that declares a name wins):
1. directories the user adds: ``ACLNN_PY_INCLUDE_PATH`` (``os.pathsep``-separated), then
   ``aclnn_py.add_include_dir(path)`` in call order;
2. the loaded CANN toolkit: ``<root>/include/aclnnop``, ``<root>/opp/include/aclnnop``, the built-in op
   package's ``opp/built-in/op_impl/ai_core/tbe/op_api/include/aclnnop`` and every custom package's
   ``opp/vendors/*/op_api/include``;
3. our own headers (the compiled mirror).

A header is found by a cheap text scan (which ``aclnn*`` names it mentions); it is preprocessed only when one
of its names is used, alone (so duplicate declarations in another header never matter), with the same
command as the build's (``cc -E``, our include directory first). C++-only standard includes resolve to empty
files of a shim directory, internal includes that are not installed to empty files made on demand. The
result (every ``aclnn*`` function: result and parameters with C type, cffi ABI type and role) is cached as
JSON under ``ACLNN_PY_CACHE_DIR`` (default ``~/.cache/aclnn_py``), keyed by the sha256 of the preprocessed
text the parser reads (so a change in any header it includes is seen): a later process runs the preprocessor
but not the parser. A cache that cannot be written is skipped, an entry that is not a parse result is parsed
again and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import tempfile
import threading
from pathlib import Path

from . import _native

PARSER_VERSION = "3"  # bump when the cached result's shape or meaning changes

# Standard C++ headers that operator headers include although their declarations need none of them.
CXX_HEADERS = (
    "string", "array", "vector", "set", "map", "unordered_map", "unordered_set", "memory", "tuple", "utility",
    "functional", "algorithm", "cstdint", "cstddef", "cstdlib", "cstring", "iostream", "sstream", "list",
    "optional", "limits", "type_traits", "initializer_list", "mutex", "atomic", "numeric", "climits", "cmath",
)
_MISSING_INCLUDE = re.compile(r"fatal error: ([^:\s]+): No such file or directory")
_LINE_MARKER = re.compile(r'^# \d+ "(.*)"((?: \d)*)$')
_NAME_IN_TEXT = re.compile(r"\b(aclnn[A-Z]\w*)\s*\(")
# One aclnnStatus function declaration (no body), from the preprocessed text of a header that is not all C.
_ACLNN_DECLARATION = re.compile(r"\baclnnStatus\s+aclnn[A-Z]\w*\s*\([^;{}()&]*\)\s*;")

_lock = threading.RLock()
_user_dirs: list[Path] = []


def add_include_dir(path) -> None:
    """Search ``path`` for operator headers (``aclnn_*.h``, or ``aclnnop/aclnn_*.h`` under it) before the
    toolkit's and our own."""
    p = Path(path)
    if not p.is_dir():
        raise ValueError(f"add_include_dir: argument 'path' must be an existing directory, got {str(path)!r}")
    with _lock:
        if p not in _user_dirs:
            _user_dirs.append(p)
        _index.clear()


def cache_dir() -> Path:
    if os.environ.get("ACLNN_PY_CACHE_DIR"):
        return Path(os.environ["ACLNN_PY_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "aclnn_py"


def toolkit_include_dirs(root: Path) -> list[Path]:
    """Where a CANN toolkit installed at ``root`` keeps operator headers."""
    dirs = [root / "include" / "aclnnop", root / "opp" / "include" / "aclnnop",
            root / "opp" / "built-in" / "op_impl" / "ai_core" / "tbe" / "op_api" / "include" / "aclnnop"]
    opp = Path(os.environ["ASCEND_OPP_PATH"]) if os.environ.get("ASCEND_OPP_PATH") else root / "opp"
    dirs += sorted((opp / "vendors").glob("*/op_api/include"))
    return dirs


def search_dirs() -> list[tuple[str, Path]]:
    """(origin, directory) in search order; directories that do not exist are kept (the error lists them)."""
    from . import loader

    env = [Path(p) for p in os.environ.get("ACLNN_PY_INCLUDE_PATH", "").split(os.pathsep) if p]
    dirs = [("ACLNN_PY_INCLUDE_PATH", d) for d in env] + [("add_include_dir", d) for d in _user_dirs]
    backend = loader.loaded()
    root = backend.root if backend is not None else None
    if root is None and backend is None:
        try:
            root = loader.choose()[3]
        except Exception:  # no backend at all: the headers can still be listed
            root = None
    if root is not None:
        dirs += [("toolkit", d) for d in toolkit_include_dirs(Path(root))]
    dirs.append(("aclnn_py", Path(_native.INCLUDE_DIR) / "aclnnop"))
    return dirs


def _headers_in(d: Path) -> list[Path]:
    found = sorted(d.glob("aclnn_*.h")) + sorted(d.glob("aclnnop/aclnn_*.h"))
    return [p for p in found if p.is_file()]


# {name: [header, ...]} over every search directory in search order; rebuilt when the directories change.
_index: dict = {}


def index() -> dict[str, list[Path]]:
    with _lock:
        dirs = search_dirs()
        key = tuple(str(d) for _, d in dirs)
        if _index.get("key") != key:
            names: dict[str, list[Path]] = {}
            for _, d in dirs:
                for h in _headers_in(d):
                    try:
                        text = h.read_text(errors="replace")
                    except OSError:
                        continue
                    for n in dict.fromkeys(_NAME_IN_TEXT.findall(text)):
                        names.setdefault(n, []).append(h)
            _index.clear()
            _index.update(key=key, names=names)
        return _index["names"]


def preprocess(header: Path, cc: str | None = None) -> str:
    """The lines the header alone contributes, preprocessed like the build does (missing includes become
    empty files)."""
    cc = cc or os.environ.get("CC") or "cc"
    include = Path(_native.INCLUDE_DIR)
    with tempfile.TemporaryDirectory(prefix="aclnn_py-") as tmp:
        missing, shim = Path(tmp) / "missing", Path(tmp) / "cxx"
        missing.mkdir()
        shim.mkdir()
        for name in CXX_HEADERS:  # made per call: nothing here depends on a writable cache
            (shim / name).touch()
        src = Path(tmp) / "header.c"
        src.write_text(f'#include "{header.resolve()}"\n')
        cmd = shlex.split(cc) + [
            "-E", "-std=gnu11", "-x", "c", "-D__attribute__(x)=", "-DACL_DEPRECATED_MESSAGE(x)=",
            "-I", str(include), "-I", str(header.parent), "-I", str(header.parent.parent),
            "-idirafter", str(include / "aclnnop"), "-idirafter", str(shim), "-idirafter", str(missing), str(src)]
        for _ in range(32):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode == 0:
                return _own_lines(proc.stdout, str(header.resolve()), (str(include.resolve()), tmp))
            m = _MISSING_INCLUDE.search(proc.stderr)
            if not m or (missing / m.group(1)).exists():
                raise HeaderError(f"{header}: preprocessing failed: {proc.stderr.strip()[-400:]}")
            (missing / m.group(1)).parent.mkdir(parents=True, exist_ok=True)
            (missing / m.group(1)).touch()
        raise HeaderError(f"{header}: too many missing includes")


class HeaderError(Exception):
    """A header that could not be preprocessed or parsed."""


def _own_lines(text: str, header: str, excluded: tuple[str, ...]) -> str:
    """Lines of the preprocessed text that come from ``header`` or from files in neither system headers nor
    the ``excluded`` directories (our headers, the shims, the wrapper source)."""
    excluded = tuple(os.path.realpath(d) + os.sep for d in excluded)
    keep, current, out = False, None, []
    for line in text.splitlines():
        m = _LINE_MARKER.match(line)
        if m:
            path, flags = m.group(1), m.group(2).split()
            if current is not None and not ({"1", "2"} & set(flags)):
                continue  # same file (gcc marks a token expanded from a system macro): keep going as before
            current = path
            real = os.path.realpath(path)
            keep = real == header or ("3" not in flags and not path.startswith("<") and not real.startswith(excluded))
            continue
        if keep and line.strip() and not line.startswith("#"):
            out.append(line)
    return "\n".join(out)


# Value types of the C ABI that cffi passes as is (typedefs of our headers are mapped below).
_PRIMITIVES = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
               "size_t", "int", "unsigned int", "long", "unsigned long", "float", "double", "bool", "char",
               "short", "unsigned short", "long long", "unsigned long long", "_Bool"}
_ARRAYS = {"aclIntArray": "int array", "aclBoolArray": "bool array", "aclFloatArray": "float array",
           "aclFp16Array": "fp16 array"}
# names of written tensors: outputs, and the operand in-place variants write (selfRef, inputRef); the gradient of a
# forward output (gradOutput, gradOut, gradY) is a backward operator's input, the gradient of its input (gradInput,
# const in some headers) an output
_OUTPUT_NAME = re.compile(r"^(?!grad(Output|Out|Y)(Optional)?$)"
                          r"(out$|y$|.*Out$|.*Output$|.*OutOptional$|.*OutputOptional$|.*Out\d$|.*Ref$|gradInput$)")


def _native_kind(base: str) -> tuple[str, str] | None:
    """(cffi kind, C name) of a type our compiled headers know, else None."""
    try:
        t = _native.ffi.typeof(base)
    except Exception:
        return None
    return t.kind, t.cname


def classify(pname: str, ctype: str, local_enums=(), workspace_phase=False) -> tuple[str, str]:
    """(cffi ABI type, role) of one parameter; raises HeaderError for a type the ABI path cannot pass."""
    const = ctype.startswith("const ")
    stars = ctype.count("*")
    base = ctype.replace("const ", "").replace("*", "").strip()
    if stars == 0:
        if base in _PRIMITIVES:
            return ("bool" if base == "_Bool" else base), ("attribute" if base != "uint64_t" or pname != "workspaceSize"
                                                           else "workspace size")
        if base == "aclDataType":
            return "int", "dtype"
        if base in local_enums:
            return "int", "attribute"
        kind = _native_kind(base)
        if kind and kind[0] == "enum":
            return "int", "attribute"
        if kind and kind[0] == "pointer":
            return "void *", "stream" if base == "aclrtStream" else "handle"
        if kind and kind[0] == "primitive":
            return kind[1], "attribute"
        raise HeaderError(f"parameter {pname!r}: type {ctype!r} is not passable")
    if base == "char" and stars == 1:
        return "char *", "string"
    if stars == 2:
        return "void * *", "executor" if base == "aclOpExecutor" else "output handle"
    if base == "aclOpExecutor":
        return "void *", "executor"
    if base == "aclTensor":
        out = not const or bool(_OUTPUT_NAME.match(pname))
        return "void *", "output tensor" if out else "input tensor"
    if base == "aclTensorList":  # the foreach operators declare their output lists const
        out = bool(_OUTPUT_NAME.match(pname))
        return "void *", "output tensor list" if out else "tensor list"
    if base == "aclScalar":
        return "void *", "scalar"
    if base == "aclScalarList":
        return "void *", "scalar list"
    if base in _ARRAYS:
        return "void *", _ARRAYS[base]
    if base == "void":
        return "void *", "workspace" if workspace_phase or pname == "workspace" else "pointer"
    if base in _PRIMITIVES or base in local_enums:
        abi = "int" if base in local_enums else base
        if const:
            return f"{abi} *", "value array"
        return f"{abi} *", "workspace size" if pname == "workspaceSize" else "output value"
    kind = _native_kind(base)
    if kind and kind[0] in ("struct", "union"):
        return "void *", "handle"
    raise HeaderError(f"parameter {pname!r}: type {ctype!r} is not passable")


def parse(header: Path, cc: str | None = None, own: str | None = None) -> dict:
    """{name: {"result", "params": [[name, C type, ABI type, role], ...]}} of the header's aclnn functions;
    functions whose parameters cannot be passed are listed under "unsupported" with the reason. ``own``: the
    header's preprocessed text when already at hand."""
    import pycparser
    from pycparser import c_ast, c_generator

    if own is None:
        own = preprocess(header, cc)
    typedefs = sorted(set(_native.ffi.list_types()[0]) | {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
                      "uint16_t", "uint32_t", "uint64_t", "size_t", "bool", "intptr_t", "uintptr_t"})
    prelude = "".join(f"typedef int {n};\n" for n in typedefs)
    try:
        ast = pycparser.CParser().parse(prelude + own, str(header))
    except Exception as exc:  # pycparser's ParseError, and C++ left over after preprocessing
        # C++ elsewhere in the header (namespaces, references, inline bodies): the aclnn declarations alone.
        salvaged = "\n".join(m.group(0) for m in _ACLNN_DECLARATION.finditer(own))
        try:
            ast = pycparser.CParser().parse(prelude + salvaged, str(header))
        except Exception:
            ast = None
        if ast is None or not salvaged:
            raise HeaderError(f"{header}: not parseable as C: {exc}") from None
    gen = c_generator.CGenerator()
    local_enums = set()
    for node in ast.ext:
        if isinstance(node, c_ast.Typedef) and isinstance(getattr(node.type, "type", None), c_ast.Enum):
            local_enums.add(node.name)
    functions, unsupported = {}, {}
    for node in ast.ext:
        if not (isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl)
                and node.name and node.name.startswith("aclnn")):
            continue
        fn = node.type
        result = gen.visit(c_ast.Typename(None, [], None, _strip_name(fn.type))).strip()
        raw = []
        for p in fn.args.params if fn.args else []:
            if isinstance(p, c_ast.Typename) and gen.visit(p).strip() == "void":
                continue
            if isinstance(p, c_ast.EllipsisParam):
                unsupported[node.name] = "variadic"
                break
            ctype = gen.visit(c_ast.Typename(None, p.quals, None, _strip_name(p.type))).strip().replace("_Bool", "bool")
            raw.append((p.name or f"arg{len(raw)}", ctype))
        if node.name in unsupported:
            continue
        phase2 = [t for _, t in raw[:2]] in (["void *", "uint64_t"],)
        try:
            params = [[n, t, *classify(n, t, local_enums, phase2)] for n, t in raw]
            res_abi = "int" if result in ("aclnnStatus", "aclError") else classify("result", result, local_enums)[0]
        except HeaderError as exc:
            unsupported[node.name] = str(exc)
            continue
        functions[node.name] = {"result": result, "result_abi": res_abi, "params": params}
    return {"functions": functions, "unsupported": unsupported}


def _strip_name(t):
    import copy

    from pycparser import c_ast

    t = copy.deepcopy(t)
    node = t
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    node.declname = None
    return t


# Parsed headers of this process, by the hash of their preprocessed text.
_parsed: dict[str, dict] = {}


def _is_parse_result(result) -> bool:
    """True for what ``parse`` returns (a cache entry of another shape is ignored and rewritten)."""
    if not isinstance(result, dict) or not isinstance(result.get("functions"), dict):
        return False
    if not isinstance(result.get("unsupported"), dict) or not isinstance(result.get("error", ""), str):
        return False
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in result["unsupported"].items()):
        return False
    for decl in result["functions"].values():
        if not (isinstance(decl, dict) and isinstance(decl.get("result"), str)
                and isinstance(decl.get("result_abi"), str) and isinstance(decl.get("params"), list)):
            return False
        if not all(isinstance(p, list) and len(p) == 4 and all(isinstance(f, str) for f in p) for p in decl["params"]):
            return False
    return True


def _write_cache(path: Path, result: dict) -> None:
    """Store a parse result; a cache directory that cannot be written (read-only, a file in the way) is
    skipped: the next process parses again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(result))
        os.replace(tmp, path)
    except OSError:
        pass


def declarations(header: Path) -> dict:
    """The parsed header: preprocessed (every process), then parsed, or taken from this process or the on-disk
    cache, both keyed by the preprocessed text."""
    try:
        own = preprocess(header)
    except HeaderError as exc:
        return {"error": str(exc), "functions": {}, "unsupported": {}}
    # The result also depends on the type names our headers declare (they are the parser's typedefs).
    salt = f"\0aclnn_py parser {PARSER_VERSION}\0" + ",".join(sorted(_native.ffi.list_types()[0]))
    key = hashlib.sha256((own + salt).encode()).hexdigest()
    with _lock:
        if key in _parsed:
            return _parsed[key]
        path = cache_dir() / "headers" / f"{key}.json"
        try:
            result = json.loads(path.read_text())
        except (OSError, ValueError):
            result = None
        if not _is_parse_result(result):
            try:
                result = parse(header, own=own)
            except HeaderError as exc:
                result = {"error": str(exc), "functions": {}, "unsupported": {}}
            _write_cache(path, result)
        _parsed[key] = result
        return result
