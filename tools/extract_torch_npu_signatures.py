"""Extract the schemas of the torch_npu functions `aclnn_py.torch_npu` provides from an op-plugin checkout.

    python tools/extract_torch_npu_signatures.py OP_PLUGIN_CHECKOUT > tests/data/torch_npu_signatures.json

Reads `op_plugin/config/op_plugin_functions.yaml` (the `func:` schemas) and the ATB operators' registrations
(`op_plugin/ops/atb/*.cpp`, `m.def("schema")`). `npu_format_cast` lives in torch_npu itself, not in op-plugin:
its signature is the one torch_npu's documentation gives (`npu_format_cast(input, acl_format,
customize_dtype=None)`), written below. The output maps each function name to its schema and the parameters
as Python sees them: `[name, kind, default]` with kind "positional_or_keyword" or "keyword_only" and default
the Python value (absent: no default).
"""
from __future__ import annotations

import glob
import json
import os
import re
import sys

import yaml

# The functions the issue names, the other functions of the MoE, norm, quantisation and attention families
# whose operators the stub has, and every npu_moe_* function of the yaml (added below).
NAMED = [
    "npu_fusion_attention", "npu_fusion_attention_grad", "npu_format_cast", "_npu_flash_attention",
    "_npu_paged_attention_splitfuse", "_npu_paged_attention", "_npu_reshape_and_cache", "npu_scatter_pa_kv_cache", "npu_gather_pa_kv_cache",
    "npu_fused_infer_attention_score", "npu_quant_matmul", "npu_rms_norm", "npu_rms_norm_backward",
    "npu_swiglu", "npu_swiglu_backward", "npu_convert_weight_to_int4pack", "npu_grouped_matmul",
    "npu_dynamic_quant", "npu_dynamic_quant_asymmetric", "npu_add_rms_norm", "npu_rotary_mul",
    "npu_rotary_mul_backward",
]

# torch_npu's own function (torch_npu/csrc), documented in op-plugin's docs; schema written from the docs.
EXTRA = {"npu_format_cast": "npu_format_cast(Tensor self, int acl_format, int? customize_dtype=None) -> Tensor"}
# The Python names of npu_format_cast's parameters, as its documentation gives them.
RENAMES = {"npu_format_cast": {"self": "input"}}


def yaml_schemas(checkout: str) -> dict[str, str]:
    with open(os.path.join(checkout, "op_plugin", "config", "op_plugin_functions.yaml"), encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    found: dict[str, str] = {}
    for section in ("official", "custom", "symint", "quant"):
        for entry in doc.get(section) or []:
            func = entry.get("func", "")
            name = func.split("(", 1)[0]
            if "." in name:          # overloads (.out, .List) are not the Python function's signature
                continue
            found.setdefault(name, func)
    return found


def atb_schemas(checkout: str) -> dict[str, str]:
    found = {}
    for path in sorted(glob.glob(os.path.join(checkout, "op_plugin", "ops", "atb", "*.cpp"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r'm\.def\(\s*"([^"]+)"', text):
            schema = m.group(1)
            found.setdefault(schema.split("(", 1)[0], schema)
    return found


def split_top(text: str) -> list[str]:
    """Split on commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def default_value(text: str, typ: str):
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "'\"":
        return text[1:-1]
    if text.startswith("["):
        return [int(v) for v in text[1:-1].split(",") if v.strip()]
    if typ.startswith("float"):
        return float(text)
    return int(text)


def params(schema: str, renames: dict[str, str]) -> list[list]:
    inner = schema[schema.index("(") + 1:schema.rindex(") ->")]
    out, kw = [], False
    for arg in split_top(inner):
        if arg == "*":
            kw = True
            continue
        decl, _, dflt = arg.partition("=")
        typ, name = decl.rsplit(" ", 1)
        row = [renames.get(name, name), "keyword_only" if kw else "positional_or_keyword"]
        if dflt:
            row.append(default_value(dflt.strip(), typ))
        out.append(row)
    return out


def main(checkout: str) -> None:
    schemas = {**yaml_schemas(checkout), **atb_schemas(checkout), **EXTRA}
    names = NAMED + sorted(n for n in schemas if n.startswith("npu_moe_") and n not in NAMED)
    result = {}
    for name in names:
        schema = schemas[name]
        result[name] = {"schema": schema, "params": params(schema, RENAMES.get(name, {}))}
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
