"""The C headers: each compiles on its own as C and C++, and the host number types of aclnn/opdev convert
exactly as specified (fp16_t against numpy's IEEE half; Float4E2M1 against a table of the official rule)."""

import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

INCLUDE = Path(__file__).resolve().parent.parent / "native" / "include"
HEADERS = sorted(p.relative_to(INCLUDE).as_posix() for p in INCLUDE.rglob("*.h"))
CC, CXX = os.environ.get("CC", "gcc"), os.environ.get("CXX", "g++")
STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-I", str(INCLUDE)]


@pytest.mark.parametrize("lang, std", [("c", "c99"), ("c", "gnu11"), ("c++", "c++11"), ("c++", "c++17")])
def test_every_header_compiles_alone(lang, std, tmp_path):
    compiler = CC if lang == "c" else CXX
    assert shutil.which(compiler), f"{compiler} is needed"
    sources = []
    for i, header in enumerate(HEADERS):  # one translation unit per header, included twice (guards)
        src = tmp_path / (f"t{i}.c" if lang == "c" else f"t{i}.cpp")
        src.write_text(f'#include "{header}"\n#include "{header}"\nint main(void) {{ return 0; }}\n')
        sources.append(str(src))
    proc = subprocess.run([compiler, f"-std={std}", *STRICT, *sources], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_headers_the_samples_include_exist():
    for header in ("acl/acl.h", "acl/acl_op.h", "aclnn/acl_meta.h", "aclnn/aclnn_base.h", "aclnn/opdev/fp16_t.h",
                   "aclnn/opdev/float4_e2m1.h", "securec.h"):
        assert header in HEADERS


def test_deprecated_message_marks_a_declaration(tmp_path):
    src = tmp_path / "d.c"
    src.write_text('#include "acl/acl.h"\nACL_DEPRECATED_MESSAGE("use g instead") int f(void);\n'
                   "int main(void) { return f(); }\n")
    proc = subprocess.run([CC, "-std=gnu11", "-fsyntax-only", "-I", str(INCLUDE), str(src)], capture_output=True,
                          text=True)
    assert proc.returncode == 0
    assert "deprecated" in proc.stderr and "use g instead" in proc.stderr


# ---- host number types ---------------------------------------------------------------------------------

PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "aclnn/opdev/fp16_t.h"
#include "aclnn/opdev/float4_e2m1.h"

// Reads commands from stdin, one per line, and prints one result per line.
int main() {
    char cmd[16];
    while (std::scanf("%15s", cmd) == 1) {
        if (!std::strcmp(cmd, "d2h")) {          // double (as its bits) -> half bits
            unsigned long long bits; std::scanf("%llx", &bits);
            double d; std::memcpy(&d, &bits, 8);
            std::printf("%04x\n", op::fp16_t(d).val);
        } else if (!std::strcmp(cmd, "f2h")) {   // float (as its bits) -> half bits
            unsigned bits; std::scanf("%x", &bits);
            float f; std::memcpy(&f, &bits, 4);
            op::fp16_t h; h = f;
            std::printf("%04x\n", h.val);
        } else if (!std::strcmp(cmd, "h2f")) {   // half bits -> float bits
            unsigned bits; std::scanf("%x", &bits);
            float f = static_cast<float>(op::fp16_t(static_cast<uint16_t>(bits)));
            unsigned out; std::memcpy(&out, &f, 4);
            std::printf("%08x\n", out);
        } else if (!std::strcmp(cmd, "h2i")) {   // half bits -> int32
            unsigned bits; std::scanf("%x", &bits);
            std::printf("%d\n", static_cast<int>(static_cast<int32_t>(op::fp16_t(static_cast<uint16_t>(bits)))));
        } else if (!std::strcmp(cmd, "f2e")) {   // float (as its bits) -> E2M1 bits
            unsigned bits; std::scanf("%x", &bits);
            float f; std::memcpy(&f, &bits, 4);
            std::printf("%x\n", op::Float4E2M1(f).value);
        } else if (!std::strcmp(cmd, "e2f")) {   // E2M1 bits -> float
            unsigned bits; std::scanf("%x", &bits);
            std::printf("%g\n", static_cast<float>(op::Float4E2M1(static_cast<uint8_t>(bits), op::Float4E2M1::FromBits())));
        } else if (!std::strcmp(cmd, "sample")) { // what the official samples write
            std::vector<op::fp16_t> ones(3, 1.0), zeros(2, 0);
            op::fp16_t sum = ones[0] + ones[1];
            std::printf("%04x %04x %04x %d %d\n", ones[2].val, zeros[1].val, sum.val, sum > ones[0],
                        static_cast<int>(sizeof(op::fp16_t)));
        }
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    exe = tmp_path_factory.mktemp("numbers") / "numbers"
    src = exe.with_suffix(".cpp")
    src.write_text(PROGRAM)
    subprocess.run([CXX, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", str(INCLUDE), str(src), "-o", str(exe)],
                   check=True)

    def run(commands: list[str]) -> list[str]:
        out = subprocess.run([str(exe)], input="\n".join(commands) + "\n", capture_output=True, text=True,
                             check=True).stdout
        return out.split()

    return run


def f32_bits(x) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def expected_half(values: np.ndarray) -> list[int]:
    with np.errstate(over="ignore", invalid="ignore"):
        bits = values.astype(np.float16).view(np.uint16).astype(np.int64)
    nan = np.isnan(values)
    bits[nan] = np.where(np.signbit(values[nan]), 0xFFFF, 0x7FFF)  # every mantissa bit set, sign kept
    return [int(b) for b in bits]


def interesting_doubles(rng) -> np.ndarray:
    edges = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, 65536.0, 1e300, -1e300, np.inf, -np.inf, np.nan,
             -np.nan, 2.0 ** -24, 2.0 ** -25, 2.0 ** -25 * 1.0000001, 2.0 ** -26, 2.0 ** -14, 2.0 ** -14 * (1 - 2 ** -11),
             1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -40, 5e-324, 2.5, 3.5]
    halves = np.arange(0, 0x7C01, dtype=np.uint16).view(np.float16).astype(np.float64)
    midpoints = (halves[:-1] + halves[1:]) / 2  # exact ties: round to even
    return np.concatenate([edges, midpoints, -midpoints[::97], rng.standard_normal(2000) * 1000,
                           rng.standard_normal(500) * 1e-5])


def test_fp16_from_double_is_ieee_round_to_nearest_even(run):
    values = interesting_doubles(np.random.default_rng(1))
    got = [int(x, 16) for x in run([f"d2h {f64_bits(v):x}" for v in values])]
    assert got == expected_half(values)


def test_fp16_from_float_is_ieee_round_to_nearest_even(run):
    with np.errstate(over="ignore"):
        values = interesting_doubles(np.random.default_rng(2)).astype(np.float32)
    got = [int(x, 16) for x in run([f"f2h {f32_bits(v):x}" for v in values])]
    assert got == expected_half(values.astype(np.float64))


def test_fp16_to_float_is_exact_for_every_pattern(run):
    patterns = range(0x10000)
    got = [int(x, 16) for x in run([f"h2f {p:x}" for p in patterns])]
    want = np.arange(0x10000, dtype=np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
    finite = ~np.isnan(np.arange(0x10000, dtype=np.uint16).view(np.float16))
    assert [g for g, f in zip(got, finite) if f] == [int(w) for w, f in zip(want, finite) if f]
    assert all(np.isnan(np.uint32(g).view(np.float32)) for g, f in zip(got, finite) if not f)


def test_fp16_to_int32_rounds_half_to_even_and_saturates(run):
    cases = {1.5: 2, 2.5: 2, 3.5: 4, -2.5: -2, -0.5: 0, 0.49: 0, 65504.0: 65504, np.inf: 2**31 - 1,
             -np.inf: -(2**31), np.nan: 2**31 - 1}
    halves = [int(np.float16(v).view(np.uint16)) for v in cases]
    assert [int(x) for x in run([f"h2i {h:x}" for h in halves])] == list(cases.values())


# Float4E2M1: value -> bits by the official rule (module docstring of the header), derived by hand.
E2M1_CASES = {
    0.0: 0x0, 0.5: 0x1, 1.0: 0x2, 1.5: 0x3, 2.0: 0x4, 3.0: 0x5, 4.0: 0x6, 6.0: 0x7, -6.0: 0xF,
    -0.5: 0x9, -1.0: 0xA,
    1.25: 0x2, 1.75: 0x4, 2.5: 0x4, 3.5: 0x6, 5.0: 0x6, 5.5: 0x7, 7.0: 0x7, 100.0: 0x7, -100.0: 0xF,  # ties to even
    0.75: 0x1, 0.8: 0x1, 0.875: 0x2, 0.9: 0x2, 0.4375: 0x1, 0.45: 0x1, 0.4: 0x0, 0.25: 0x0, 0.1: 0x0,  # below 1
    -0.75: 0x9, -0.1: 0x8, 1e-40: 0x0, float("inf"): 0x7, float("-inf"): 0xF, float("nan"): 0x7,
}


def test_float4_e2m1_from_float(run):
    got = [int(x, 16) for x in run([f"f2e {f32_bits(v):x}" for v in E2M1_CASES])]
    assert dict(zip(E2M1_CASES, got)) == E2M1_CASES
    assert run([f"f2e {f32_bits(-0.0):x}"]) == ["8"]  # the sign of zero is kept


def test_float4_e2m1_to_float_for_every_pattern(run):
    magnitudes = [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    got = [float(x) for x in run([f"e2f {b:x}" for b in range(16)])]
    assert got == magnitudes + [-m for m in magnitudes]


def test_fp16_as_the_samples_use_it(run):
    assert run(["sample"]) == ["3c00", "0000", "4000", "1", "2"]
