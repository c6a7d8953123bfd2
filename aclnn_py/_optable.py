"""The operator table: one row per aclnn operator, the single description that drives the mirror
functions' documentation, the high-level numpy functions (``aclnn_py.ops``) and the tests.

A row lists the parameters of ``aclnn<Name>GetWorkspaceSize`` in C order (their C types come from the
headers; the generated signature table is checked against this one by the tests) with their roles:
``In`` (tensor input), ``Opt`` (optional tensor input, may be None), ``Attr`` (scalar attribute, with a
Python default or required), ``IntArray`` (an ``aclIntArray``, optional) and ``Out`` (an output tensor:
dtype and shape rules evaluated on the call's arguments, and whether the high-level function returns it).
Rules see the arguments under their C names: tensors as numpy arrays (or None), attributes as values.
High-level parameter names are the C names in snake_case without the ``Optional`` suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

REQUIRED = object()

FLOATS = ("float32", "float16", "bfloat16")
INT32 = ("int32",)
INDEX = ("int32", "int64")


@dataclass(frozen=True)
class Param:
    name: str                       # C name
    role: str                       # "in", "attr", "intarray", "out"
    optional: bool = False
    dtypes: tuple[str, ...] = ()    # inputs: the dtypes the operator accepts (documentation)
    default: Any = REQUIRED         # attributes (and optional inputs): Python default
    dtype: Any = None               # outputs: a dtype name, or the C name of the input whose dtype it takes
    shape: Callable | None = None   # outputs: args -> shape tuple
    returned: Callable | None = None  # outputs: args -> bool; False makes the high-level result None
    result_shape: Callable | None = None  # outputs: args -> shape returned, when not the C tensor's

    @property
    def py_name(self) -> str:
        base = self.name[: -len("Optional")] if self.name.endswith("Optional") else self.name
        return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()


def In(name, dtypes):
    return Param(name, "in", dtypes=dtypes)


def Opt(name, dtypes):
    return Param(name, "in", optional=True, dtypes=dtypes)


def Attr(name, default=REQUIRED):
    return Param(name, "attr", default=default)


def IntArray(name):
    return Param(name, "intarray", optional=True)


def Out(name, dtype, shape, returned=None, optional=False, result_shape=None):
    return Param(name, "out", optional=optional, dtype=dtype, shape=shape, returned=returned,
                 result_shape=result_shape)


@dataclass(frozen=True)
class Op:
    name: str        # without the aclnn prefix
    summary: str
    params: tuple[Param, ...]
    spec: str = ""   # spec file stem

    @property
    def c_name(self) -> str:
        return "aclnn" + self.name

    @property
    def py_name(self) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.name).lower().replace("v_2", "v2")

    @property
    def header(self) -> str:
        return f"aclnnop/aclnn_{self.py_name}.h"

    def by_role(self, *roles) -> list[Param]:
        return [p for p in self.params if p.role in roles]


# ---- shape helpers ----------------------------------------------------------------------------------

def _topk(a_indices) -> int:
    return 1 if a_indices.ndim == 1 else a_indices.shape[1]


def _permute_rows(a) -> int:
    total = a.indices.size
    m = a.numOutTokens if a.numOutTokens > 0 else a.numOutTokens + total
    return min(max(m, 0), total)


def _routing_map_rows(a) -> int:
    t, e = a.routingMap.shape
    align = max(e if a.dropAndPad else t, 1)
    return max(a.numOutTokens // align * align, 0)  # a negative count reaches the operator's own check


def _ep_window_rows(a) -> int:
    length = a.indices.size
    if a.rangeOptional is not None and len(a.rangeOptional) != 2:
        return 0  # not a window: the operator itself rejects the range (561002)
    start, end = a.rangeOptional if a.rangeOptional is not None else (0, a.numOutTokens)
    n = end - start
    if n <= 0:
        n += length
    return min(max(n, 0), length)


def _v2_rows(a) -> tuple:
    h = a.x.shape[1] if a.x.ndim == 2 else 0  # a bad rank reaches the operator's own check
    t = a.expertIdx.size
    if a.dropPadModeOptional == 1:
        return (max(a.expertNumOptional, 0), max(a.expertCapacityOptional, 0), h)
    return (t if a.activeNumOptional <= 0 else min(a.activeNumOptional, t), h)


def _tokens(slots: int, k: int) -> int:
    """Rows of a per-token output: slots / K; for K < 1 one row, so the operator (not an empty-output
    shortcut) reports the bad attribute."""
    return slots // k if k > 0 else 1


OPS: tuple[Op, ...] = (
    Op("MoeTokenPermute", "Replicate each token once per selected expert and sort the copies by expert.", (
        In("tokens", FLOATS + ("int8",)),
        In("indices", INDEX),
        Attr("numOutTokens", 0),
        Attr("paddedMode", False),
        # The operator needs a 2-D output even for 1-D tokens (rows of one element); numpy gets (M,).
        Out("permuteTokensOut", "tokens", lambda a: (_permute_rows(a),) + (a.tokens.shape[1:] or (1,)),
            result_shape=lambda a: (_permute_rows(a),) + a.tokens.shape[1:]),
        Out("sortedIndicesOut", "int32", lambda a: (a.indices.size,)),
    ), "moe_token_permute"),
    Op("MoeTokenPermuteGrad", "Backward of aclnnMoeTokenPermute: gather the rows of each token and sum them.", (
        In("permutedOutputGrad", FLOATS),
        In("sortedIndices", INT32),
        Attr("numTopk"),
        Attr("paddedMode", False),
        Out("out", "permutedOutputGrad",
            lambda a: (_tokens(a.sortedIndices.size, a.numTopk), a.permutedOutputGrad.shape[1])),
    ), "moe_token_permute_grad"),
    Op("MoeTokenPermuteWithRoutingMap", "Permute driven by a dense token-to-expert routing map.", (
        In("tokens", FLOATS),
        In("routingMap", ("int8", "bool")),
        Opt("probsOptional", FLOATS),
        Attr("numOutTokens"),
        Attr("dropAndPad", False),
        Out("permuteTokensOut", "tokens", lambda a: (_routing_map_rows(a), a.tokens.shape[1])),
        Out("permuteProbsOutOptional", "probsOptional", lambda a: (_routing_map_rows(a),),
            returned=lambda a: a.probsOptional is not None, optional=True),
        Out("sortedIndicesOut", "int32", lambda a: (_routing_map_rows(a),)),
    ), "moe_token_permute_with_routing_map"),
    Op("MoeTokenPermuteWithRoutingMapGrad", "Backward of aclnnMoeTokenPermuteWithRoutingMap.", (
        In("permutedTokenOutputGrad", FLOATS),
        Opt("permutedProbsOutputGradOptional", FLOATS),
        In("sortedIndices", INT32),
        Opt("routingMapOptional", ("int8", "bool")),
        Attr("numExperts"),
        Attr("tokensNum"),
        Attr("dropAndPad", False),
        Out("tokensGradOut", "permutedTokenOutputGrad",
            lambda a: (max(a.tokensNum, 0), a.permutedTokenOutputGrad.shape[1])),
        Out("probsGradOutOptional", "permutedTokenOutputGrad", lambda a: (max(a.tokensNum, 0), max(a.numExperts, 0)),
            returned=lambda a: a.permutedProbsOutputGradOptional is not None, optional=True),
    ), "moe_token_permute_with_routing_map_grad"),
    Op("MoeTokenPermuteWithEp", "Permute by expert id, keeping the sorted rows of an expert-parallel range.", (
        In("tokens", FLOATS),
        In("indices", INDEX),
        Opt("probsOptional", FLOATS),
        IntArray("rangeOptional"),
        Attr("numOutTokens"),
        Attr("paddedMode", False),
        Out("permuteTokensOut", "tokens", lambda a: (_ep_window_rows(a), a.tokens.shape[1])),
        Out("sortedIndicesOut", "int32", lambda a: (a.indices.size,)),
        Out("permuteProbsOut", "tokens", lambda a: (_ep_window_rows(a),),
            returned=lambda a: a.probsOptional is not None),
    ), "moe_token_permute_with_ep"),
    Op("MoeTokenPermuteWithEpGrad", "Backward of aclnnMoeTokenPermuteWithEp.", (
        In("permutedTokensOutputGrad", FLOATS),
        In("sortedIndices", INT32),
        Opt("permutedProbsOutputGradOptional", FLOATS),
        Attr("numTopk"),
        IntArray("rangeOptional"),
        Attr("paddedMode", False),
        Out("tokenGradOut", "permutedTokensOutputGrad",
            lambda a: (_tokens(a.sortedIndices.size, a.numTopk), a.permutedTokensOutputGrad.shape[1])),
        Out("probsGradOut", "permutedTokensOutputGrad",
            lambda a: (_tokens(a.sortedIndices.size, a.numTopk), max(a.numTopk, 1)),
            returned=lambda a: a.permutedProbsOutputGradOptional is not None),
    ), "moe_token_permute_with_ep_grad"),
    Op("MoeInitRoutingV2", "Sort token-expert assignments by expert and build the expanded token matrix.", (
        In("x", FLOATS),
        In("expertIdx", INT32),
        Attr("activeNumOptional", 0),
        Attr("expertCapacityOptional", 0),
        Attr("expertNumOptional", 0),
        Attr("dropPadModeOptional", 0),
        Attr("expertTokensCountOrCumsumFlagOptional", 0),
        Attr("expertTokensBeforeCapacityFlagOptional", False),
        Out("expandedXOut", "x", _v2_rows),
        Out("expandedRowIdxOut", "int32", lambda a: (a.expertIdx.size,)),
        Out("expertTokensCountOrCumsumOutOptional", "int32", lambda a: (max(a.expertNumOptional, 0),),
            returned=lambda a: a.dropPadModeOptional == 0 and a.expertTokensCountOrCumsumFlagOptional in (1, 2),
            optional=True),
        Out("expertTokensBeforeCapacityOutOptional", "int32", lambda a: (max(a.expertNumOptional, 0),),
            returned=lambda a: a.dropPadModeOptional == 1 and bool(a.expertTokensBeforeCapacityFlagOptional),
            optional=True),
    ), "moe_init_routing_v2"),
    Op("MoeInitRoutingV2Grad", "Backward of aclnnMoeInitRoutingV2: sum the K expanded rows of each token.", (
        In("gradExpandedX", FLOATS),
        In("expandedRowIdx", INT32),
        Attr("topK"),
        Attr("dropPadMode", 0),
        Attr("activeNum", 0),
        Out("out", "gradExpandedX", lambda a: (_tokens(a.expandedRowIdx.size, a.topK), a.gradExpandedX.shape[-1])),
    ), "moe_init_routing_v2_grad"),
)

OPS_BY_NAME = {op.py_name: op for op in OPS}
