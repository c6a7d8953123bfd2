"""The type stubs generated with the extension (aclnn_py/acl.pyi, aclnn_py/aclnn.pyi) describe the mirror modules
as they are at run time: the same functions with the same parameters, the same constants, results that match."""

import ast
import inspect
from pathlib import Path

import pytest

import _aclnn_py_native
from aclnn_py import acl, aclnn

# Installed beside the package built with the extension (the source tree has no generated files).
STUB_DIR = Path(_aclnn_py_native.__file__).resolve().parent.parent / "aclnn_py"


def parse(module) -> tuple[dict, set]:
    tree = ast.parse((STUB_DIR / f"{module.__name__.rsplit('.', 1)[1]}.pyi").read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    constants = {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and ast.unparse(n.annotation) == "int"}
    return functions, constants


@pytest.mark.parametrize("module, extra", [(acl, {"host_ptr"}), (aclnn, {"describe", "__getattr__"})])
def test_stubs_list_every_function_and_constant(module, extra):
    functions, constants = parse(module)
    assert set(functions) == set(module._mirror.names) | extra
    runtime_constants = {n for n, v in vars(module).items() if isinstance(v, int) and not n.startswith("_")}
    assert constants == runtime_constants


@pytest.mark.parametrize("module", [acl, aclnn])
def test_stub_parameters_are_the_wrappers_parameters(module):
    functions, _ = parse(module)
    for name in module._mirror.names:
        stub = [a.arg for a in functions[name].args.args]
        assert stub == list(inspect.signature(getattr(module, name)).parameters), name


@pytest.mark.parametrize("name, params, result", [
    ("aclrtCreateStream", "", "CData"),
    ("aclGetViewShape", "tensor: CData | None", "list[int]"),
    ("aclrtGetMemInfo", "attr: int", "tuple[int, int]"),
    ("aclCreateIntArray", "value: Sequence[int] | CData | None, size: int", "CData"),
    ("aclCreateTensorList", "value: Sequence[CData | None] | CData | None, size: int", "CData"),
    ("aclCreateScalar", "value: CData | HostSpan | float | None, dataType: int", "CData"),
    ("aclGetRecentErrMsg", "", "str | None"),
    ("aclrtSynchronizeStream", "stream: CData | HostSpan | None", "None"),
])
def test_stub_types_follow_the_mirror_rules(name, params, result):
    node = parse(acl)[0][name]
    assert ast.unparse(node.args) == params and ast.unparse(node.returns) == result


def test_operator_stub():
    node = parse(aclnn)[0]["aclnnMoeTokenPermuteGradGetWorkspaceSize"]
    assert ast.unparse(node.returns) == "tuple[int, CData]"
    assert [a.arg for a in node.args.args] == ["permutedOutputGrad", "sortedIndices", "numTopk", "paddedMode", "out"]
    assert ast.unparse(node.args.args[3].annotation) == "bool"
