"""``import aclnn_py`` is cheap: it loads neither numpy nor the libraries; the submodules and the objects are
attributes resolved on first use (PEP 562)."""

from helpers_proc import run_json


def test_import_loads_nothing_heavy_and_attributes_resolve_lazily():
    result = run_json('''
        import sys
        import aclnn_py
        from aclnn_py import loader
        first = {"numpy": "numpy" in sys.modules, "ops": "aclnn_py.ops" in sys.modules,
                 "loaded": loader.loaded() is not None, "listed": all(n in dir(aclnn_py) for n in
                 ("acl", "aclnn", "reference", "testing", "Tensor", "run", "moe_token_permute"))}
        modules = {n: type(getattr(aclnn_py, n)).__name__ for n in ("acl", "aclnn", "reference", "testing")}
        emit({"first": first, "modules": modules, "names": [aclnn_py.acl.__name__, aclnn_py.testing.__name__],
              "tensor": aclnn_py.Tensor.__module__, "run": aclnn_py.run.__module__,
              "op": aclnn_py.moe_token_permute.__module__, "cached": "Tensor" in vars(aclnn_py),
              "missing": error(getattr, aclnn_py, "no_such_name")})
    ''')
    assert result["first"] == {"numpy": False, "ops": False, "loaded": False, "listed": True}
    assert result["modules"] == {"acl": "module", "aclnn": "module", "reference": "module", "testing": "module"}
    assert result["names"] == ["aclnn_py.acl", "aclnn_py.testing"]
    assert (result["tensor"], result["run"], result["op"]) == ("aclnn_py.runtime", "aclnn_py.generic", "aclnn_py.ops")
    assert result["cached"] is True
    assert result["missing"]["type"] == "AttributeError" and "no_such_name" in result["missing"]["text"]


def test_star_import_gives_every_public_name():
    result = run_json('''
        ns = {}
        exec("from aclnn_py import *", ns)
        import aclnn_py
        emit(sorted(set(aclnn_py.__all__) - set(ns)))
    ''')
    assert result == []


def test_version_is_the_distributions():
    import importlib.metadata
    import re
    import subprocess
    import sys
    from pathlib import Path

    import aclnn_py

    pyproject = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    declared = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    assert aclnn_py.__version__ == declared == importlib.metadata.version("aclnn-py")
    out = subprocess.run([sys.executable, "-m", "aclnn_py", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == f"aclnn-py {declared}\n"
