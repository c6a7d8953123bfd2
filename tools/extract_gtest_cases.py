#!/usr/bin/env python3
"""Turn a vendor operator repository's op_api gtests into our test data: one JSON case per phase-1 call.

    python tools/extract_gtest_cases.py --repo ../ops-math --out tests/data/gtest_cases/ops-math.json

Each ``TEST_F`` of ``<op>/tests/ut/op_api/*.cpp`` (outside ``experimental/``) that builds its arguments from
``TensorDesc``/``ScalarDesc``/array and list descriptions, calls ``OP_API_UT(aclnnX, INPUT(...), OUTPUT(...))``,
then ``TestGetWorkspaceSize`` and checks the status with ``EXPECT_EQ``/``EXPECT_NE``/``ASSERT_*`` becomes a case:
the operator, every argument (kind, shape, dtype, format, strides, offset, values), the expected status and the
SoC it runs on (the UT default, Atlas A2, unless the test sets another). Only the facts are kept: shapes, dtypes,
values and statuses. Tests written in other ways (loops, helper functions, data files) are counted as not
parsed; the summary says how many of each repository's tests became cases.
"""

import argparse
import json
import pathlib
import re
import sys

DTYPES = {
    "ACL_FLOAT": 0, "ACL_FLOAT16": 1, "ACL_INT8": 2, "ACL_INT32": 3, "ACL_UINT8": 4, "ACL_INT16": 6, "ACL_UINT16": 7,
    "ACL_UINT32": 8, "ACL_INT64": 9, "ACL_UINT64": 10, "ACL_DOUBLE": 11, "ACL_BOOL": 12, "ACL_STRING": 13,
    "ACL_COMPLEX64": 16, "ACL_COMPLEX128": 17, "ACL_BF16": 27, "ACL_INT4": 29, "ACL_UINT1": 30, "ACL_COMPLEX32": 33,
    "ACL_HIFLOAT8": 34, "ACL_FLOAT8_E5M2": 35, "ACL_FLOAT8_E4M3FN": 36, "ACL_FLOAT8_E8M0": 37, "ACL_FLOAT6_E3M2": 38,
    "ACL_FLOAT6_E2M3": 39, "ACL_FLOAT4_E2M1": 40, "ACL_FLOAT4_E1M2": 41, "ACL_DT_UNDEFINED": -1,
}
FORMATS = {
    "ACL_FORMAT_UNDEFINED": -1, "ACL_FORMAT_NCHW": 0, "ACL_FORMAT_NHWC": 1, "ACL_FORMAT_ND": 2, "ACL_FORMAT_NC1HWC0": 3,
    "ACL_FORMAT_FRACTAL_Z": 4, "ACL_FORMAT_NC1HWC0_C04": 12, "ACL_FORMAT_HWCN": 16, "ACL_FORMAT_NDHWC": 27,
    "ACL_FORMAT_FRACTAL_NZ": 29, "ACL_FORMAT_NCDHW": 30, "ACL_FORMAT_NDC1HWC0": 32, "ACL_FRACTAL_Z_3D": 33,
    "ACL_FORMAT_NC": 35, "ACL_FORMAT_NCL": 47, "ACL_FORMAT_FRACTAL_NZ_C0_16": 50, "ACL_FORMAT_FRACTAL_NZ_C0_32": 51,
}
STATUSES = {
    "ACL_SUCCESS": 0, "ACLNN_SUCCESS": 0, "ACL_ERROR_NONE": 0, "0": 0,
    "ACLNN_ERR_PARAM_NULLPTR": 161001, "ACLNN_ERR_PARAM_INVALID": 161002, "ACLNN_ERR_RUNTIME_ERROR": 361001,
    "ACLNN_ERR_INNER": 561000, "ACLNN_ERR_INNER_INFERSHAPE_ERROR": 561001, "ACLNN_ERR_INNER_TILING_ERROR": 561002,
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003, "ACLNN_ERR_INNER_CREATE_EXECUTOR": 561101,
    "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": 561102, "ACLNN_ERR_INNER_NULLPTR": 561103,
    "ACL_ERROR_INVALID_PARAM": 100000, "ACLNN_ERR_PARAM_NULL": 161001,
}
# SoCs whose dtype lists and rules are our default (Atlas A2 / A3)
A2_SOCS = {"ASCEND910B", "ASCEND910_93", "DAV_2201"}
CTYPE_SCALARS = {
    "int8_t": 2, "uint8_t": 4, "int16_t": 6, "uint16_t": 7, "int32_t": 3, "int": 3, "uint32_t": 8, "int64_t": 9,
    "long": 9, "uint64_t": 10, "float": 0, "double": 11, "bool": 12,
}


class Unparsed(Exception):
    pass


TOKEN = re.compile(r"""\s*(?:(?P<num>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fFuUlL]*)
                    |(?P<str>"(?:[^"\\]|\\.)*")|(?P<name>[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)
                    |(?P<op>::|->|[-+*/<>(){}\[\],.;&!=:?]))""", re.X)


def tokenize(text):
    pos, out = 0, []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise Unparsed(f"cannot tokenize at {text[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


class Double(float):
    """A floating literal without an f suffix: C's double (ScalarDesc(1.0) is the harness's ACL_DOUBLE scalar)."""

    def __neg__(self):
        return Double(-float(self))


def number(text):
    t = text.rstrip("fFuUlL") if not text.lower().startswith("0x") else text.rstrip("uUlL")
    if t.lower().startswith("0x"):
        return int(t, 16), True
    if re.fullmatch(r"0[0-7]+", t):  # an octal literal (C's leading zero)
        return int(t, 8), True
    if re.fullmatch(r"\d+", t):
        return int(t), not text.lower().endswith("f")
    return (float(t) if text.lower().endswith("f") else Double(t)), False


class Parser:
    """A small evaluator for the expressions gtests build their arguments with."""

    def __init__(self, tokens, env):
        self.t, self.i, self.env = tokens, 0, env

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else (None, None)

    def take(self, value=None):
        tok = self.peek()
        if tok[0] is None or (value is not None and tok[1] != value):
            raise Unparsed(f"expected {value!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def accept(self, value):
        if self.peek()[1] == value:
            self.i += 1
            return True
        return False

    def args(self, close=")"):
        out = []
        if self.accept(close):
            return out
        while True:
            out.append(self.expr())
            if self.accept(close):
                return out
            self.take(",")

    def skip_template(self):
        depth = 0
        if self.peek()[1] != "<":
            return
        while True:
            _, v = self.take()
            depth += v == "<"
            depth -= v == ">"
            if depth == 0:
                return

    def expr(self):
        value = self.unary()
        while self.peek()[1] in ("+", "-", "*", "/"):
            op = self.take()[1]
            right = self.unary()
            if not isinstance(value, (int, float)) or not isinstance(right, (int, float)):
                raise Unparsed("arithmetic on non-numbers")
            value = {"+": value + right, "-": value - right, "*": value * right,
                     "/": value / right if isinstance(value, float) or isinstance(right, float) else value // right}[op]
        return value

    def unary(self):
        if self.accept("-"):
            v = self.unary()
            if isinstance(v, dict) and v.get("kind") == "scalar":
                return dict(v, value=-v["value"])
            if not isinstance(v, (int, float)):
                raise Unparsed("negation of a non-number")
            return -v
        if self.accept("+"):
            return self.unary()
        if self.accept("&"):
            return self.postfix()
        return self.postfix()

    def postfix(self):
        value = self.primary()
        while True:
            if self.peek()[1] == "." and self.peek(1)[0] == "name":
                self.take(".")
                method = self.take()[1]
                self.skip_template()
                self.take("(")
                args = self.args()
                value = method_call(value, method, args)
            elif self.peek()[1] == "[":
                self.take("[")
                idx = self.expr()
                self.take("]")
                if not isinstance(value, list):
                    raise Unparsed("indexing a non-list")
                value = value[idx]
            else:
                return value

    def primary(self):
        kind, tok = self.peek()
        if kind == "num":
            self.take()
            value, is_int = number(tok)
            return value if is_int or isinstance(value, float) else float(value)
        if kind == "str":
            self.take()
            return {"kind": "string", "value": bytes(tok[1:-1], "utf-8").decode("unicode_escape")}
        if tok == "{":
            self.take("{")
            return self.args("}")
        if tok == "(":
            self.take("(")
            # a cast: (aclTensor*)nullptr, (int64_t)3
            if self.peek()[0] == "name" and self.peek(1)[1] in ("*", ")"):
                ctype = self.take()[1]
                while self.accept("*"):
                    ctype += "*"
                self.take(")")
                return cast(ctype, self.unary())
            value = self.expr()
            self.take(")")
            return value
        if kind != "name":
            raise Unparsed(f"unexpected {tok!r}")
        self.take()
        name = tok.split("::")[-1] if tok.startswith(("op::", "std::")) or "::" in tok else tok
        if name in ("true", "false"):
            return name == "true"
        if name in ("nullptr", "NULL"):
            return None
        if name in DTYPES and not self.peek()[1] == "(":
            return {"kind": "dtype", "value": DTYPES[name]}
        if name in FORMATS:
            return {"kind": "format", "value": FORMATS[name]}
        if name in ("static_cast", "reinterpret_cast"):
            self.take("<")
            ctype = self.take()[1]
            while self.accept("*"):
                ctype += "*"
            self.take(">")
            self.take("(")
            v = self.expr()
            self.take(")")
            return cast(ctype, v)
        if name in ("vector", "array", "initializer_list"):
            self.skip_template()
            if self.accept("{"):
                return self.args("}")
            self.take("(")
            args = self.args()
            if len(args) == 2 and isinstance(args[0], int):
                return [args[1]] * args[0]
            if len(args) == 1 and isinstance(args[0], list):
                return args[0]
            raise Unparsed("vector constructor")
        if name in CTYPE_SCALARS and self.peek()[1] == "(":
            self.take("(")
            v = self.expr()
            self.take(")")
            return cast(name, v)
        if self.peek()[1] == "(" or self.peek()[1] == "<":
            self.skip_template()
            self.take("(")
            return construct(name, self.args())
        if name in self.env:
            return self.env[name]
        raise Unparsed(f"unknown name {name}")


def cast(ctype, v):
    base = ctype.rstrip("*").replace("const", "").strip()
    if ctype.endswith("*"):
        if v is None:
            return None
        raise Unparsed("pointer cast of a value")
    if base in CTYPE_SCALARS and isinstance(v, (int, float, bool)):
        dt = CTYPE_SCALARS[base]
        value = bool(v) if dt == 12 else float(v) if dt in (0, 11) else int(v)
        return {"kind": "number", "dtype": dt, "value": value}
    if base == "aclDataType" and isinstance(v, dict) and v["kind"] == "dtype":
        return v
    if base == "aclDataType" and isinstance(v, int):
        return {"kind": "dtype", "value": v}
    if isinstance(v, dict) and v.get("kind") == "number":
        return cast(ctype, v["value"])
    raise Unparsed(f"cast to {ctype}")


def plain(v):
    """A number literal or cast number as a Python value."""
    if isinstance(v, dict) and v.get("kind") == "number":
        return v["value"]
    return v


def int_list(v):
    v = plain(v)
    if not isinstance(v, list) or not all(isinstance(plain(x), int) and not isinstance(plain(x), bool) for x in v):
        raise Unparsed("not a list of integers")
    return [plain(x) for x in v]


def construct(name, args):
    if name == "TensorDesc":
        if len(args) == 1 and isinstance(args[0], dict) and args[0].get("kind") == "tensor":
            return dict(args[0])
        shape = int_list(args[0]) if args else [1, 1, 16, 16]
        dtype = args[1]["value"] if len(args) > 1 and isinstance(args[1], dict) and args[1]["kind"] == "dtype" else 0
        fmt = args[2]["value"] if len(args) > 2 and isinstance(args[2], dict) and args[2]["kind"] == "format" else 0
        desc = {"kind": "tensor", "shape": shape, "dtype": dtype, "format": fmt}
        if len(args) > 3 and int_list(args[3]):
            desc["strides"] = int_list(args[3])
        if len(args) > 4:
            desc["offset"] = int(plain(args[4]))
        if len(args) > 5 and int_list(args[5]):
            desc["storage_shape"] = int_list(args[5])
        return desc
    if name == "TensorListDesc":
        if len(args) == 2 and isinstance(plain(args[0]), int):
            return {"kind": "tensor_list", "items": [args[1]] * plain(args[0])}
        if len(args) == 1 and isinstance(args[0], list):
            for item in args[0]:
                if not (isinstance(item, dict) and item.get("kind") == "tensor"):
                    raise Unparsed("tensor list of non-tensors")
            return {"kind": "tensor_list", "items": args[0]}
        raise Unparsed("TensorListDesc")
    if name == "ScalarDesc":
        if not args:
            return {"kind": "scalar", "dtype": 0, "value": 0.0}
        v = args[0]
        if len(args) == 2 and isinstance(args[1], dict) and args[1]["kind"] == "dtype":
            return {"kind": "scalar", "dtype": args[1]["value"], "value": float(plain(v))}
        if isinstance(v, dict) and v.get("kind") == "number":
            return {"kind": "scalar", "dtype": v["dtype"], "value": v["value"]}
        if isinstance(v, bool):
            return {"kind": "scalar", "dtype": 12, "value": v}
        if isinstance(v, int):  # an int literal: the int32_t constructor
            return {"kind": "scalar", "dtype": 3, "value": v}
        if isinstance(v, float):  # the float constructor; a double literal takes the double one (ACL_DOUBLE)
            return {"kind": "scalar", "dtype": 11 if isinstance(v, Double) else 0, "value": float(v)}
        raise Unparsed("ScalarDesc")
    if name == "ScalarListDesc":
        items = args[0] if args and isinstance(args[0], list) else args
        out = []
        for item in items:
            s = item if isinstance(item, dict) and item.get("kind") == "scalar" else construct("ScalarDesc", [item])
            out.append(s)
        return {"kind": "scalar_list", "items": out}
    for kind, conv in (("IntArrayDesc", int), ("BoolArrayDesc", bool), ("FloatArrayDesc", float)):
        if name == kind:
            if len(args) == 2 and isinstance(plain(args[0]), int):
                values = [plain(args[1])] * plain(args[0])
            elif len(args) == 1 and isinstance(plain(args[0]), list):
                values = [plain(x) for x in plain(args[0])]
            else:
                raise Unparsed(kind)
            return {"kind": kind[:-len("ArrayDesc")].lower() + "_array", "values": [conv(x) for x in values]}
    raise Unparsed(f"unknown constructor {name}")


def method_call(value, method, args):
    if isinstance(value, dict) and value.get("kind") == "tensor":
        if method in ("ValueRange", "Precision", "ValidCount", "ValueFile"):
            return value
        if method == "Value":
            return dict(value, values=[plain(x) for x in plain(args[0])] if args else [])
        if method == "ViewDims":
            return dict(value, shape=int_list(args[0]))
        if method == "Format":
            return dict(value, format=args[0]["value"])
    raise Unparsed(f"method {method}")


def test_blocks(text):
    """(suite, name, body) of each TEST/TEST_F."""
    for m in re.finditer(r"\bTEST(?:_F|_P)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += text[i] == "{"
            depth -= text[i] == "}"
            i += 1
        yield m.group(1), m.group(2), text[m.end():i - 1]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def soc_of(body, name):
    m = re.search(r"SetPlatform(?:SocVersion|NpuArch)\s*\(\s*(?:op::)?(?:SocVersion|NpuArch)::(\w+)", body)
    if m:
        return m.group(1)
    if re.search(r"SetPlatform", body):
        return "unknown"
    low = name.lower()
    for key, soc in (("910_95", "ASCEND950"), ("950", "ASCEND950"), ("310p", "ASCEND310P"), ("910_93", "ASCEND910_93"),
                     ("910b", "ASCEND910B"), ("ascend910_", "ASCEND910"), ("310b", "ASCEND310B")):
        if key in low:
            return soc
    return "ASCEND910B"


def parse_test(body):
    """The cases of one test body (several OP_API_UT calls are allowed)."""
    env, cases, uts, results = {}, [], {}, {}
    for stmt in body.split(";"):
        s = stmt.strip()
        if not s:
            continue
        # a plain assignment (selfDesc = TensorDesc(...): a variable given a new value) or a declaration
        m = (re.match(r"(\w+)\s*=(?!=)\s*(.*)$", s, re.S) or
             re.match(r"(?:const\s+)?(?:auto|[\w:<>]+(?:\s*<[^;=]*>)?)\s*[&*]?\s*(\w+)\s*=\s*(.*)$", s, re.S))
        scalar_tensor = re.search(r"\bCreateAclScalarTensor\s*<[\w:]+>\s*\(\s*\w+\s*,\s*(\w+)\s*,\s*&\w+\s*,\s*"
                                  r"(?:aclDataType::)?(\w+)\s*,\s*&(\w+)\s*\)", s)
        if scalar_tensor and scalar_tensor.group(2) in DTYPES:
            # the fixture's CreateAclScalarTensor: aclCreateTensor with no view dimensions (0-d) over storage shape
            storage = env.get(scalar_tensor.group(1))
            env[scalar_tensor.group(3)] = {"kind": "tensor", "shape": [], "dtype": DTYPES[scalar_tensor.group(2)],
                                           "format": FORMATS["ACL_FORMAT_ND"], "storage_shape": int_list(storage)}
            continue
        ut = re.search(r"OP_API_UT\s*\(\s*(\w+)\s*,(.*)\)\s*$", s, re.S)
        if ut and m:
            op, rest = ut.group(1), ut.group(2)
            toks = tokenize(rest)
            p = Parser(toks, env)
            groups = []
            while p.peek()[0] is not None:
                kind = p.take()[1]
                if kind not in ("INPUT", "OUTPUT"):
                    raise Unparsed(f"OP_API_UT part {kind}")
                p.take("(")
                groups.append(p.args())
                if not p.accept(","):
                    break
            args = [a for g in groups for a in g]
            uts[m.group(1)] = {"op": op, "args": [normalise_arg(a) for a in args]}
            continue
        call = re.match(r"(?:\w+\s+)?(\w+)\s*=\s*(\w+)\s*\.\s*TestGetWorkspaceSize\s*\(", s)
        if call:
            if call.group(2) not in uts:
                raise Unparsed("TestGetWorkspaceSize on an unknown ut")
            results[call.group(1)] = uts[call.group(2)]
            continue
        exp = re.match(r"(?:EXPECT|ASSERT)_(EQ|NE)\s*\(\s*(\w+)\s*,\s*([\w:]+)\s*\)", s)
        if exp and exp.group(2) in results:
            code = exp.group(3).split("::")[-1]
            if code not in STATUSES:
                raise Unparsed(f"status {code}")
            case = dict(results[exp.group(2)])
            if exp.group(1) == "EQ":
                case["status"] = STATUSES[code]
            elif STATUSES[code] == 0:
                case["status"] = "error"
            else:
                continue  # EXPECT_NE(ret, SOME_ERROR) says little
            cases.append(case)
            continue
        if m and not re.search(r"\b(ut|OP_API_UT|TestGetWorkspaceSize|TestPrecision)\b", s):
            try:
                env[m.group(1)] = Parser(tokenize(m.group(2)), env).expr()
            except Unparsed:
                pass  # a variable the calls may not use; a call that does use it fails below
    return cases


def normalise_arg(a):
    if a is None:
        return {"kind": "null"}
    if isinstance(a, bool):
        return {"kind": "bool", "value": a}
    if isinstance(a, int):
        return {"kind": "int", "value": a}
    if isinstance(a, float):
        return {"kind": "float", "value": a}
    if isinstance(a, dict):
        if a["kind"] == "number":
            k = "bool" if a["dtype"] == 12 else "float" if a["dtype"] in (0, 11) else "int"
            return {"kind": k, "value": a["value"]}
        if a["kind"] == "string":
            return a
        if a["kind"] in ("dtype",):
            return {"kind": "int", "value": a["value"]}
        return a
    if isinstance(a, list):
        raise Unparsed("a bare list argument")
    raise Unparsed(f"argument {a!r}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True, type=pathlib.Path)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--all-socs", action="store_true", help="keep cases of every SoC (default: Atlas A2/A3 only)")
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    cases, tests, parsed, other_soc = [], 0, 0, 0
    failures = {}
    for path in sorted(repo.rglob("*.cpp")):
        rel = path.relative_to(repo)
        if "experimental" in rel.parts or "op_api" not in rel.parts or "ut" not in rel.parts:
            continue
        text = strip_comments(path.read_text(errors="replace"))
        if "OP_API_UT" not in text:
            continue
        folder = "/".join(rel.parts[:2])
        for suite, name, body in test_blocks(text):
            if "OP_API_UT" not in body:
                continue
            tests += 1
            soc = soc_of(body, f"{suite}.{name}")
            try:
                found = parse_test(body)
            except (Unparsed, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError) as e:
                failures[str(e).split(" ")[0]] = failures.get(str(e).split(" ")[0], 0) + 1
                continue
            if not found:
                failures["no-status-check"] = failures.get("no-status-check", 0) + 1
                continue
            parsed += 1
            if soc not in A2_SOCS and not args.all_socs:
                other_soc += 1
                continue
            for k, case in enumerate(found):
                cases.append({"test": f"{folder}:{suite}.{name}" + (f"#{k}" if len(found) > 1 else ""),
                              "soc": soc, **case})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases) + "\n]\n")
    print(f"{repo.name}: {tests} tests, {parsed} parsed ({other_soc} for other SoCs), {len(cases)} cases written")
    for reason, count in sorted(failures.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  not parsed: {count:5d} {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
