"""The C operators' parameter tables (read through the stub's introspection, aclStubDescribeOp) and the
Python operator table (aclnn_py._optable) describe the same operators: names, order, roles, dtype sets."""

import pytest

from aclnn_py import acl
from aclnn_py._native import ffi
from aclnn_py._optable import DISTRIBUTED_OPS, OPS, REQUIRED

ACL_NAMES = {"float32": "ACL_FLOAT", "float16": "ACL_FLOAT16", "bfloat16": "ACL_BF16", "int8": "ACL_INT8",
             "int32": "ACL_INT32", "int64": "ACL_INT64", "bool": "ACL_BOOL"}
ATTRIBUTE_ROLES = {"int", "bool", "float", "string", "dtype"}


def c_table(name: str) -> list[dict]:
    need = acl.aclStubDescribeOp(name, ffi.NULL, 0)
    buf = ffi.new("char[]", need)
    assert acl.aclStubDescribeOp(name, buf, need) == need
    rows = []
    for line in ffi.string(buf).decode().splitlines():
        pname, role, dtypes, same = line.split("\t")
        rows.append({"name": pname, "role": role, "dtypes": set(filter(None, dtypes.split(","))), "same": same})
    return rows


def registered_ops() -> list[str]:
    names = []
    while (name := acl.aclStubRegisteredOp(len(names))) is not None:
        names.append(name)
    return names


def python_role(p) -> str:
    if p.role == "in":
        return "optional_input" if p.optional else "input"
    if p.role == "out":
        return "optional_output" if p.optional else "output"
    if p.role == "intarray":
        return "int_array"
    return "attr"


def same_dtype_chain(rows: dict, name: str) -> list[str]:
    """The parameter names whose dtype `name` must have, following the C same-dtype rules transitively."""
    chain = []
    while rows[name]["same"] and rows[name]["same"] not in chain:
        name = rows[name]["same"]
        chain.append(name)
    return chain


def test_every_python_operator_is_registered_once():
    """Every operator is registered once; each table-driven function's operator (and each distributed MoE
    operator) is registered; family operators (every other registered name) are reached through run() and the
    mirror."""
    names = registered_ops()
    assert len(names) == len(set(names))
    assert {op.c_name for op in OPS} | set(DISTRIBUTED_OPS) <= set(names)


def test_unknown_operator_has_no_description():
    assert acl.aclStubDescribeOp("aclnnNoSuchOperator", ffi.NULL, 0) == 1


def test_description_is_truncated_safely():
    full = acl.aclStubDescribeOp("aclnnMoeTokenPermute", ffi.NULL, 0)
    buf = ffi.new("char[]", 8)
    assert acl.aclStubDescribeOp("aclnnMoeTokenPermute", buf, 8) == full
    assert len(ffi.string(buf)) == 7


@pytest.mark.parametrize("op", OPS, ids=[op.c_name for op in OPS])
def test_tables_agree(op):
    rows = c_table(op.c_name)
    assert [r["name"] for r in rows] == [p.name for p in op.params], "names or order"
    by_name = {r["name"]: r for r in rows}
    for p, r in zip(op.params, rows):
        where = f"{op.c_name} parameter {p.name}"
        role = python_role(p)
        if role == "attr":
            assert r["role"] in ATTRIBUTE_ROLES, where
            if p.default is not REQUIRED:
                assert r["role"] == ("bool" if isinstance(p.default, bool) else "int"), where
            continue
        assert r["role"] == role, where
        if p.role == "in":
            assert r["dtypes"] == {ACL_NAMES[d] for d in p.dtypes}, where
        elif p.role == "out" and callable(p.dtype):  # chosen by an attribute: C accepts every choice
            accepted = set()
            for name in p.dtype.names():
                accepted |= by_name[name]["dtypes"] if name in by_name else {ACL_NAMES[name]}
            assert r["dtypes"] == accepted and not r["same"], where
        elif p.role == "out" and p.dtype in by_name:  # the dtype of an input: a same-dtype rule in C
            chain = same_dtype_chain(by_name, p.name)
            assert p.dtype in chain, where
            assert r["dtypes"] == by_name[chain[-1]]["dtypes"], where
        elif p.role == "out":  # a fixed dtype
            assert r["dtypes"] == {ACL_NAMES[p.dtype]} and not r["same"], where
