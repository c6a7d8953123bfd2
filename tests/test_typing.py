"""Type checkers see the real types of the public API: mypy checks a user program (tests/data/typing) against the
installed package and reveals, for each marked expression, the type its comment states (operator functions with
their real signatures, typed by the caller's kind; the objects; the per-code exception classes). The generated
stubs (ops.pyi, errors.pyi) match the modules at run time."""

from __future__ import annotations

import ast
import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import _aclnn_py_native
import aclnn_py
from aclnn_py import errors, ops
from aclnn_py._optable import OPS

SAMPLE = Path(__file__).resolve().parent / "data" / "typing" / "user_program.py"
# The installed package, where the generated stubs are (the source tree has none).
INSTALLED = Path(_aclnn_py_native.__file__).resolve().parent.parent / "aclnn_py"


def normalize(revealed: str) -> str:
    """mypy's spelling, less what varies between numpy and mypy versions: ``numpy.ndarray[...]`` is ``ndarray``,
    ``torch._tensor.Tensor`` is ``torch.Tensor``, ``builtins.`` goes."""
    out, i = [], 0
    while i < len(revealed):
        if revealed.startswith("numpy.ndarray[", i):
            depth, i = 1, i + len("numpy.ndarray[")
            while depth:
                depth += {"[": 1, "]": -1}.get(revealed[i], 0)
                i += 1
            out.append("ndarray")
        else:
            out.append(revealed[i])
            i += 1
    return "".join(out).replace("torch._tensor.Tensor", "torch.Tensor").replace("builtins.", "")


@pytest.fixture(scope="module")
def revealed(tmp_path_factory):
    pytest.importorskip("mypy")
    pytest.importorskip("torch")
    work = tmp_path_factory.mktemp("typing")
    shutil.copy(SAMPLE, work / SAMPLE.name)
    # Another process in another directory, so mypy finds the installed package, not a source tree on sys.path.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(SAMPLE.parent / "mypy.ini"),
                             "--cache-dir", str(work / "cache"), "--no-error-summary", SAMPLE.name],
                            cwd=work, env=env, capture_output=True, text=True, timeout=600)
    stdout, status = result.stdout, result.returncode
    assert status == 0, stdout + result.stderr
    return {int(m.group(1)): normalize(m.group(2))
            for m in re.finditer(r'^\S+:(\d+): note: Revealed type is "(.*)"$', stdout, re.M)}


def test_mypy_reveals_the_real_types(revealed):
    expected = {n: line.rsplit("  # ", 1)[1].strip()
                for n, line in enumerate(SAMPLE.read_text().splitlines(), 1) if "reveal_type(" in line}
    assert len(expected) >= 15
    assert revealed == expected


def parse(name: str) -> dict:
    tree = ast.parse((INSTALLED / f"{name}.pyi").read_text())
    found: dict = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.setdefault(node.name, []).append(node)
    return found


def test_ops_stub_gives_every_operator_function_its_runtime_parameters():
    stub = parse("ops")
    assert set(ops.__all__) <= set(stub) and {op.py_name for op in OPS} == set(ops.__all__)
    for op in OPS:
        params = inspect.signature(getattr(ops, op.py_name)).parameters
        for overload in stub[op.py_name]:
            a = overload.args
            names = [x.arg for x in a.args] + [x.arg for x in a.kwonlyargs]
            assert names == list(params), op.py_name
            defaults = [ast.literal_eval(d) for d in a.defaults]
            runtime = [p.default for p in params.values() if p.kind is p.POSITIONAL_OR_KEYWORD
                       and p.default is not p.empty]
            assert defaults == runtime, op.py_name


def test_errors_stub_declares_every_class_and_function_of_the_module():
    stub = parse("errors")
    public = {n for n, v in vars(errors).items() if not n.startswith("_") and getattr(v, "__module__", "") ==
              errors.__name__ and (inspect.isclass(v) or inspect.isfunction(v))}
    assert public == set(stub)
    for name in public:
        value = getattr(errors, name)
        if inspect.isclass(value):
            base = stub[name][0].bases[0]
            assert ast.unparse(base) == value.__mro__[1].__name__, name
        else:
            assert [x.arg for x in stub[name][0].args.args] == list(inspect.signature(value).parameters), name


def test_package_stub_lists_every_public_name():
    tree = ast.parse((Path(aclnn_py.__file__).parent / "__init__.pyi").read_text())
    names = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names}
    names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    names |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    star = any(a.name == "*" for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names)
    assert star  # the operator functions, from ops.pyi
    missing = set(aclnn_py.__all__) - names - set(ops.__all__)
    assert not missing
    assert set(aclnn_py._SUBMODULES) <= names


def test_ops_stub_is_what_the_generator_writes():
    """aclnn_py/ops.pyi is committed, generated from the operator table and the extension's signatures."""
    import subprocess
    import sys

    tool = Path(__file__).resolve().parent.parent / "tools" / "gen_ops_stub.py"
    r = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
