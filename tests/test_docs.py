"""The documentation cannot drift from the code: the operator list (generated from the headers, the stub's
libraries and the operator table) states each operator and high-level signature as the code has them; the README
stays a first-visit page whose commands, links and Python tour work; every page is in the site's navigation."""

import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import aclnn_py
from aclnn_py._optable import OPS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
GENERATED = {"index.md", "operators.md", "reference/mirror.md", "reference/ops.md", "reference/pyacl.md"}  # written at build time


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # for its dataclasses
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def operator_page() -> str:
    return load_script("gen_operators").render()


def documented_operators(page: str) -> dict:
    rows = re.findall(r"^\| (aclnn\w+) \| (?:`(\w+)\((.*?)\)`)? \| (.*?) \| `([\w/.]+)` \|$", page, re.M)
    return {c_name: (py_name, params, c_params, header) for c_name, py_name, params, c_params, header in rows}


def test_operator_list_gives_every_operator_with_its_real_signature(operator_page):
    documented = documented_operators(operator_page)
    declared = {m for h in (Path(aclnn_py.get_include()) / "aclnnop").glob("aclnn_*.h")
                for m in re.findall(r"\b(aclnn\w+)GetWorkspaceSize\s*\(", h.read_text())}
    assert {op.c_name for op in OPS} <= declared
    assert set(documented) == declared
    for op in OPS:
        py_name, params, c_params, header = documented[op.c_name]
        assert py_name == op.py_name
        assert header == op.header
        real = str(inspect.signature(getattr(aclnn_py, op.py_name)))[1:-1]
        assert params == real, op.c_name
        # the C parameters, grouped by role, name every parameter of the table
        assert set(re.findall(r"`(\w+)`", c_params)) == {p.name for p in op.params}, op.c_name


def test_operator_list_groups_by_the_stub_library(operator_page):
    sections = re.findall(r"^## (\S+)\n\n(\d+) operators\.", operator_page, re.M)
    assert sum(int(n) for _, n in sections) == len(documented_operators(operator_page))
    assert ("opapi_transformer" in dict(sections)) and all(name.startswith(("opapi", "declared")) for name, _ in sections)


def test_reference_pages_render_every_generated_function():
    gen = load_script("gen_reference")
    ops_page, mirror_page = gen.render_ops(), gen.render_mirror()
    for op in OPS:
        assert f"### `{op.py_name}(" in ops_page
    from aclnn_py import acl, aclnn

    for name in (*acl._mirror.names, *aclnn._mirror.names):
        assert f"### `{name}(" in mirror_page, name


def test_readme_is_a_first_visit_page_with_the_two_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    assert "pip install . && python -m aclnn_py demo" in text
    assert "pip install '.[test,torch]' && pytest" in text
    # the index page of the site is the README with its links into docs/ made relative to it
    index = load_script("gen_index").render()
    assert "](docs/" not in index and index.count("](") == text.count("](")


def test_readme_links_point_to_files():
    for target in re.findall(r"\]\(([^)#]+)\)", README.read_text()):
        if "://" in target:
            continue
        assert (ROOT / target).is_file(), target


def test_every_page_is_in_the_navigation():
    nav = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))
    written = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert written | GENERATED == nav
    assert not written & GENERATED  # a generated page is not also a file


def test_docs_links_between_pages_resolve():
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")} | GENERATED
    for page in DOCS.rglob("*.md"):
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            resolved = (page.parent / target).resolve().relative_to(DOCS.resolve())
            assert str(resolved) in pages or (DOCS / resolved).is_file(), (page, target)


def test_readme_python_tour_runs():
    """The README's Python blocks, in order, in one fresh process (the tour initialises and finalises ACL)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 3
    if importlib.util.find_spec("torch") is None:  # the torch extra is optional
        blocks = [b for b in blocks if "import torch" not in b]
    script = "\n".join(blocks)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    # the printed values the tour promises in its comments
    for promised in re.findall(r"print\(.*?\)\s+# (.+)$", script, re.M):
        assert promised.strip() in result.stdout


def test_mirror_docstrings_say_what_each_parameter_is():
    from aclnn_py import acl, aclnn

    for module in (acl, aclnn):
        for name in module._mirror.names:
            fn = getattr(module, name)
            doc = fn.__doc__
            params = list(inspect.signature(fn).parameters)
            described = re.findall(r"^  (\w+): (.+)$", doc.split("\n\nReturns")[0], re.M)
            assert [n for n, _ in described] == params, name
            assert all(len(words) > 4 for _, words in described), name
