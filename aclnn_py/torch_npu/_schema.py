"""torch_npu's function schemas (``name(Tensor x, *, int k=1) -> (Tensor, Tensor)``) as Python signatures."""
from __future__ import annotations

import inspect
from typing import Any, NamedTuple


class Param(NamedTuple):
    name: str
    type: str          # the schema type: "Tensor", "Tensor?", "int[]?", "Tensor(a!)"...
    keyword_only: bool
    default: Any       # inspect.Parameter.empty when the parameter has none


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        depth += ch in "([" and 1 or (ch in ")]" and -1 or 0)
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _default(text: str, typ: str) -> Any:
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "'\"":
        return text[1:-1]
    if text.startswith("["):
        return [int(v) for v in text[1:-1].split(",") if v.strip()]
    return float(text) if typ.startswith("float") else int(text)


def parse(schema: str) -> tuple[str, list[Param], str]:
    """(name, parameters, return annotation) of a schema."""
    name, rest = schema.split("(", 1)
    inner, ret = rest.rsplit(") ->", 1)
    params, kw = [], False
    for arg in _split_top(inner):
        if arg == "*":
            kw = True
            continue
        decl, eq, dflt = arg.partition("=")
        typ, pname = decl.strip().rsplit(" ", 1)
        params.append(Param(pname, typ, kw, _default(dflt.strip(), typ) if eq else inspect.Parameter.empty))
    return name.strip(), params, ret.strip()


def signature(params: list[Param], renames: dict[str, str] | None = None) -> inspect.Signature:
    renames = renames or {}
    return inspect.Signature([
        inspect.Parameter(renames.get(p.name, p.name),
                          inspect.Parameter.KEYWORD_ONLY if p.keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=p.default) for p in params])
