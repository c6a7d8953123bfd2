"""The README's operator table states each high-level signature: it must match the functions the
operator table generates, so the documentation cannot drift from the code."""

import inspect
import re
from pathlib import Path

import aclnn_py
from aclnn_py._optable import OPS

README = Path(__file__).resolve().parent.parent / "README.md"


def documented_signatures() -> dict:
    rows = re.findall(r"^\| (aclnn\w+) \| `(\w+)\((.*?)\)` \| `([\w/.]+)` \|$", README.read_text(), re.M)
    return {c_name: (py_name, params, header) for c_name, py_name, params, header in rows}


def test_readme_lists_every_operator_with_its_real_signature():
    documented = documented_signatures()
    assert set(documented) == {op.c_name for op in OPS}
    for op in OPS:
        py_name, params, header = documented[op.c_name]
        assert py_name == op.py_name
        assert header == op.header
        real = str(inspect.signature(getattr(aclnn_py, op.py_name)))[1:-1]
        assert real == f"{params}, *, stream=None", op.c_name
