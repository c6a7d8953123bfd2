"""The vendor's own op_api gtests, replayed against the stub: every case its tests/ut/op_api files check (our
data, extracted by tools/extract_gtest_cases.py) whose operator the loaded stub exports, with the status the
vendor expects from phase 1. Cases the vendor's unit-test environment answers with ACLNN_ERR_INNER_NULLPTR
(561103: a kernel its stubs do not register) pass with that status or with success, which a device gives."""

import json
import pathlib
import struct
from collections import defaultdict

import pytest

from aclnn_py import acl
from aclnn_py._native import ffi, lib

DATA = pathlib.Path(__file__).parent / "data" / "gtest_cases"
INNER_NULLPTR = 561103

# dtype -> (struct code, element size) of a scalar's bytes
SCALAR_PACK = {0: "f", 1: "e", 2: "b", 3: "i", 4: "B", 6: "h", 7: "H", 8: "I", 9: "q", 10: "Q", 11: "d", 12: "?",
               27: None}


def registered_ops() -> set:
    names = set()
    while (name := acl.aclStubRegisteredOp(len(names))) is not None:
        names.add(name)
    return names


def load_cases() -> dict:
    by_op = defaultdict(list)
    for path in sorted(DATA.glob("*.json")):
        for case in json.loads(path.read_text()):
            by_op[case["op"]].append(case)
    return by_op


CASES = load_cases()
# Cases the extractor records wrongly (a variable reassigned between calls, a NULL out-pointer, a status name it
# misreads): not replayed; each must still name a case of the data.
MISEXTRACTED = {k: v for k, v in json.loads((DATA.parent / "gtest_misextracted.json").read_text()).items()
                if not k.startswith("_")}
EXPORTED = sorted(op for op in registered_ops() if op in CASES)

# Cases the extraction attributes to Atlas A2/A3 whose expectation does not hold there, one reason each (the
# extractor does not see these constructs; the vendor's op_api source is the reference).
NOT_A2_EXPECTATIONS = {
    # `if (GetSocVersion() == ASCEND910B) {} else { EXPECT_EQ(..., ACLNN_ERR_PARAM_INVALID) }`: BF16 is refused on
    # the other SoCs only
    **{f"math/equal:{t}": "expectation in the else branch of a SoC == ASCEND910B test" for t in (
        "l2_eq_tensor_test.test_eq_tensor_normal_bf16_to_float16", "l2_eq_tensor_test.test_eq_tensor_normal_bf16_to_float",
        "l2_eq_tensor_test.test_eq_tensor_normal_1971support_bf16",
        "l2_inplace_eq_tensor_test.test_inplace_eq_tensor_normal_1971support_input_bf16",
        "l2_inplace_eq_tensor_test.test_inplace_eq_tensor_normal_input_float16_bf16",
        "l2_inplace_eq_tensor_test.test_inplace_eq_tensor_normal_input_float_bf16")},
    # BF16 refused by the vendor UT's default SoC; ASCEND910B's list holds BF16 (the ascend910B2_ twin of the same
    # call to aclnnLtTensor expects success)
    "math/less:l2_lt_scalar_test.aclnnLtScalar_009_bf16": "BF16 refusal of another SoC",
    # named for Ascend910 ("_910"), whose list has no BF16
    "math/maximum:l2_maximum_test.case_bf16_910": "Ascend910 case",
    "math/maximum:l2_maximum_test.case_flaot_bf16_910": "Ascend910 case",
    # the op_api's CheckShape refuses a selfRef of [2] for a [4, 2] result (out = selfRef); the expected success
    # comes from the unit-test harness, not from the op_api
    "math/atan2:l2_inplace_atan2_test.ascend910B2_atan2_self_broadcast": "contradicts the op_api's CheckShape",
    # commented out in the vendor source
    "math/logical_or:l2_logical_or_test.aclnnLogicalOr_input_output_nullptr_testcase027": "test commented out",
    # named for Ascend910 ("_910"), whose list has no BF16; Atlas A2/A3's list holds BF16 (the ascend910B2_ twins
    # of the log calls expect success)
    "math/log:l2_log_test.case_bf16_910": "Ascend910 case",
    "math/log:l2_log_test.case_flaot_bf16_910": "Ascend910 case",
    "math/log:l2_inplace_log_test.case_bf16_910": "Ascend910 case",
    # reciprocal's op_api takes BF16 from ASCEND910B to ASCEND910E only
    "math/reciprocal:l2_reciprocal_test.case_bf16_ascend910": "Ascend910 case",
    # NHWC gradOut of the input's own size with scales 1.0: the op_api's DAV_2201 NHWC path transposes to NCHW,
    # computes and transposes back to out's shape, which every check of the op_api accepts; the refusal the test
    # expects comes from the unit-test harness's stand-in kernels, not from a rule of the op_api
    "image/upsample_bilinear2d_grad:l2_upsample_bilinear2d_backward_v2_test.Ascend910B2_l2_upsample_bilinear2d_backward_v2_test_037":
        "refusal of the test harness, not of the op_api",
    # AdaLayerNormBackward: its op_api refuses these calls (CheckDtype: rstd and mean must have gradOut's dtype;
    # ValidateScaleShiftShapes: B, S, H > 0 and scale/shift [B..., 1, H] or [B..., H]); the expected successes do
    # not come from the op_api of the same version
    **{f"norm/ada_layer_norm_grad:l2_ada_layer_norm_backward_test.ascend910B2_aclnnAdaLayerNormBackward_{t}":
       "contradicts the op_api's CheckDtype / ValidateScaleShiftShapes" for t in (
        "bf16_nd", "m_zero_n_positive", "scale_shift_b1h_shape")},
    # the test sets NpuArch DAV_2002 (Atlas inference, 310P), which the extraction does not record; on Atlas A2/A3
    # (DAV_2201) the same call is accepted (its ascend910B2_tbmm_weight_nz_case_* twins)
    "matmul/transpose_batch_mat_mul:l2_transpose_batch_mat_mul_test.ascend910B2_tbmm_weightnz_unsupported_arch":
        "NpuArch DAV_2002 case",
}


def twin_statuses() -> dict:
    """Every status the vendor expects for one call: identical arguments in several tests (a test per SoC with
    one name, or cases the extraction could not tell apart) may expect different statuses, and a device gives
    one of them."""
    seen = defaultdict(set)
    for op, cases in CASES.items():
        for case in cases:
            seen[(op, json.dumps(case["args"], sort_keys=True))].add(case["status"])
    return seen


TWINS = twin_statuses()


def contiguous(shape):
    strides, s = [], 1
    for d in reversed(shape):
        strides.append(s)
        s *= max(d, 1)
    return list(reversed(strides))


class Args:
    """The C arguments of one case, released on exit."""

    def __init__(self):
        self.release = []
        self.keep = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for fn, handle in reversed(self.release):
            fn(handle)

    def tensor(self, d):
        shape = d["shape"]
        strides = d.get("strides") or contiguous(shape)
        storage = d.get("storage_shape") or shape
        t = lib.aclCreateTensor(shape, len(shape), d["dtype"], strides, d.get("offset", 0), d["format"], storage,
                                len(storage), ffi.NULL)
        assert t != ffi.NULL, f"aclCreateTensor({d}) failed: {acl.aclGetRecentErrMsg()}"
        self.release.append((lib.aclDestroyTensor, t))
        return t

    def scalar(self, d):
        code = SCALAR_PACK.get(d["dtype"])
        if d["dtype"] == 27:  # bf16: the top half of the float32
            raw = struct.pack("<f", float(d["value"]))[2:]
        elif code is None:
            raw = struct.pack("<d", float(d["value"]))
        else:
            value = d["value"]
            raw = struct.pack("<" + code, bool(value) if code == "?" else float(value) if code in "efd" else int(value))
        buf = ffi.new("char[]", raw + b"\0" * 16)
        self.keep.append(buf)
        s = lib.aclCreateScalar(buf, d["dtype"])
        assert s != ffi.NULL
        self.release.append((lib.aclDestroyScalar, s))
        return s

    def arg(self, d):
        kind = d["kind"]
        if kind == "null":
            return ffi.NULL
        if kind in ("int", "float", "bool"):
            return d["value"]
        if kind == "string":
            buf = ffi.new("char[]", d["value"].encode())
            self.keep.append(buf)
            return buf
        if kind == "tensor":
            return self.tensor(d)
        if kind == "scalar":
            return self.scalar(d)
        if kind == "int_array":
            a = lib.aclCreateIntArray(d["values"], len(d["values"]))
            self.release.append((lib.aclDestroyIntArray, a))
            return a
        if kind == "float_array":
            a = lib.aclCreateFloatArray(d["values"], len(d["values"]))
            self.release.append((lib.aclDestroyFloatArray, a))
            return a
        if kind == "bool_array":
            a = lib.aclCreateBoolArray(d["values"], len(d["values"]))
            self.release.append((lib.aclDestroyBoolArray, a))
            return a
        if kind == "tensor_list":
            items = [self.tensor(t) for t in d["items"]]
            for t in items:  # the list owns its tensors
                self.release.remove((lib.aclDestroyTensor, t))
            a = lib.aclCreateTensorList(items, len(items))
            self.release.append((lib.aclDestroyTensorList, a))
            return a
        if kind == "scalar_list":
            items = [self.scalar(s) for s in d["items"]]
            for s in items:
                self.release.remove((lib.aclDestroyScalar, s))
            a = lib.aclCreateScalarList(items, len(items))
            self.release.append((lib.aclDestroyScalarList, a))
            return a
        raise AssertionError(f"unknown argument kind {kind}")


def phase1(case) -> tuple:
    fn = getattr(lib, case["op"] + "GetWorkspaceSize")
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    with Args() as a:
        args = [a.arg(d) for d in case["args"]]
        status = fn(*args, ws, ex)
        message = acl.aclGetRecentErrMsg() if status else ""
        if status == 0 and ex[0] != ffi.NULL:
            lib.aclDestroyAclOpExecutor(ex[0])
    return status, message


def agrees(expected, status) -> bool:
    if expected == "error":
        return status != 0
    if expected == INNER_NULLPTR:
        return status in (0, INNER_NULLPTR)
    return status == expected


def base_name(test: str) -> str:
    """The test's name without the extraction's case suffix (#n)."""
    return test.split("#")[0]


@pytest.mark.parametrize("op", EXPORTED)
def test_vendor_gtest_statuses(op):
    wrong = []
    for case in CASES[op]:
        if case["test"] in MISEXTRACTED or base_name(case["test"]) in NOT_A2_EXPECTATIONS:
            continue
        status, message = phase1(case)
        expected = TWINS[(op, json.dumps(case["args"], sort_keys=True))]
        if not any(agrees(e, status) for e in expected):
            wrong.append(f"{case['test']}: expected {case['status']}, got {status} {message}")
    assert not wrong, f"{len(wrong)} of {len(CASES[op])} cases disagree:\n" + "\n".join(wrong)


def test_misextracted_cases_exist():
    """Every case listed as misextracted is a case of the data (a stale entry would hide nothing)."""
    known = {case["test"] for cases in CASES.values() for case in cases}
    assert set(MISEXTRACTED) <= known, sorted(set(MISEXTRACTED) - known)


def test_the_replayed_operators_are_exported():
    """The replay runs for every operator the stub registers that has vendor cases: at least the first rows."""
    assert {"aclnnAdd", "aclnnMul", "aclnnRelu"} <= set(EXPORTED)
