"""The operator table: one row per aclnn operator, the single description that drives the mirror
functions' documentation, the high-level numpy functions (``aclnn_py.ops``) and the tests.

A row lists the parameters of ``aclnn<Name>GetWorkspaceSize`` in C order (their C types come from the
headers; the generated signature table is checked against this one by the tests) with their roles:
``In`` (tensor input), ``Opt`` (optional tensor input, may be None), ``Attr`` (scalar attribute, with a
Python default or required), ``IntArray`` (an ``aclIntArray``, optional) and ``Out`` (an output tensor:
dtype and shape rules evaluated on the call's arguments, and whether the high-level function returns it).
Rules see the arguments under their C names: tensors as numpy arrays (or None), attributes as values.

Validity is stated once per argument, as the operator documents it: an input's accepted ranks (``ndim``)
and an attribute's or int array's ``Rule`` (a predicate, the rule in words and the status the operator
returns when it is broken). The high-level functions apply them before calling, so an invalid call fails
with the operator's own exception class and code whatever the shapes (the operator skips its checks when
every output is empty).
High-level parameter names are the C names in snake_case without the ``Optional`` suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable

REQUIRED = object()

# Status codes the operators return for a broken rule (aclnn/opdev/op_errno.h).
PARAM_INVALID = 161002  # ACLNN_ERR_PARAM_INVALID: checked by the op_api layer
TILING = 561002         # ACLNN_ERR_INNER_TILING_ERROR: checked by the operator's tiling

FLOATS = ("float32", "float16", "bfloat16")
INT32 = ("int32",)
INDEX = ("int32", "int64")


@dataclass(frozen=True)
class Rule:
    """``check(args)`` is true for a valid call; ``text`` completes "argument 'x' ..."; ``status`` is the
    operator's code for the violation."""

    check: Callable
    text: str
    status: int = TILING


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
    writes_all: Any = False         # outputs: True (or args -> bool) when the operator writes every element
    writes_all_if: Callable | None = None  # outputs: args -> bool on the values (checked per call, cheap scans)
    ndim: tuple[int, ...] = ()      # inputs: the ranks the operator accepts (empty: any)
    rules: tuple[Rule, ...] = ()    # attributes and int arrays: what makes them valid

    @property
    def py_name(self) -> str:
        base = self.name[: -len("Optional")] if self.name.endswith("Optional") else self.name
        return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()


def In(name, dtypes, ndim=()):
    return Param(name, "in", dtypes=dtypes, ndim=ndim)


def Opt(name, dtypes, ndim=()):
    return Param(name, "in", optional=True, dtypes=dtypes, ndim=ndim)


def Attr(name, default=REQUIRED, *rules):
    return Param(name, "attr", default=default, rules=rules)


def IntArray(name, *rules):
    return Param(name, "intarray", optional=True, rules=rules)


def Out(name, dtype, shape, returned=None, optional=False, result_shape=None, writes_all=True, writes_all_if=None):
    """An output. ``writes_all=False`` (or a rule of the arguments' shapes and attributes) marks one whose elements
    the operator may leave untouched: the high-level functions then hand the operator zeros there, as they promise.
    ``writes_all_if`` (a rule of the arguments' values, evaluated on every call, so a cheap scan of index tensors)
    says when the operator writes every element even so: then nothing is zeroed."""
    return Param(name, "out", optional=optional, dtype=dtype, shape=shape, returned=returned,
                 result_shape=result_shape, writes_all=writes_all, writes_all_if=writes_all_if)


def PartialOut(*args, writes_all=False, **kwargs):
    """An output whose elements the operator may leave untouched (rows of dropped slots, say), in every mode but
    those ``writes_all`` names (and the calls ``writes_all_if`` accepts)."""
    return Out(*args, writes_all=writes_all, **kwargs)


def _covers(indices, n: int, lo: int = 0) -> bool:
    """Every row of [lo, lo + n) is named by some value of ``indices`` (an index tensor's values; others ignored):
    a scatter by them writes every row."""
    import numpy as np

    v = np.asarray(indices).reshape(-1)
    if n <= 0:
        return True
    if v.size < n:
        return False
    hit = np.zeros(n, bool)
    hit[v[(v >= lo) & (v < lo + n)] - lo] = True
    return bool(hit.all())


@dataclass(frozen=True)
class Op:
    name: str        # without the aclnn prefix
    summary: str
    params: tuple[Param, ...]
    spec: str = ""   # spec file stem
    rank_status: int = TILING  # the code the operator returns for an input of the wrong rank

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


# ---- attribute rules ------------------------------------------------------------------------------------

def _divides(k: str, indices: str) -> Rule:
    return Rule(lambda a: getattr(a, indices).size % getattr(a, k) == 0,
                f"must divide the length of {indices}")


_TOPK_LIMIT = Rule(lambda a: 1 <= a.numTopk <= 512, "must be in [1, 512]")
_NOT_PADDED = Rule(lambda a: not a.paddedMode, "must be False (padded mode is not supported)")
_DROP_PAD_MODE = "must be 0 (dropless) or 1 (drop/pad)"


def _range_window(a) -> bool:
    """rangeOptional: None (the default [0, 0]: the whole permutation) or [start, end] inside [0, L]."""
    r = a.rangeOptional
    return r is None or (len(r) == 2 and all(0 <= v <= a.indices.size for v in r))


def _ep_window_plain(a) -> bool:
    """The window does not wrap around (start > end leaves the rows past its end untouched)."""
    r = a.rangeOptional
    return r is None or r[0] <= r[1]


def _grad_range_window(a) -> bool:
    """rangeOptional of the EP backward: two values; a non-empty window must lie inside [0, L]."""
    r = a.rangeOptional
    if r is None:
        return True
    if len(r) != 2:
        return False
    start, end = r
    return start >= end or (start >= 0 and end <= a.sortedIndices.size)


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
    # None reaches the operator as the default [0, 0]: the full permutation, numOutTokens unused.
    start, end = a.rangeOptional if a.rangeOptional is not None else (0, 0)
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


# ---- the expert-parallel combine (aclnnMoeTokenUnpermuteWithEp and its backward) ----------------------

def _trunc32(v: int) -> int:
    """An int64 attribute as a tiling that reads it through a 32-bit int sees it."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _unpermute_ep_tokens(a) -> int:
    """Rows N of the combine's output: probs.shape[0], or L // numTopk without probs."""
    if a.probsOptional is not None:
        return a.probsOptional.shape[0]
    return _tokens(a.sortedIndices.size, _trunc32(a.numTopk))


def _unpermute_ep_grad_window(a) -> tuple[int, int]:
    """(start, rows) of the backward's window: negative values count from L, both clamped to [0, L]; None
    is the OpDef default [-1, -1] (an empty window); a start other than 0 ends it at end, else at the
    rows of permutedTokens (or L). (0, 0) for a range the operator rejects itself."""
    total = a.sortedIndices.size
    r = (-1, -1) if a.rangeOptional is None else tuple(a.rangeOptional)
    if len(r) != 2:
        return 0, 0
    start, end = (min(max(v + total if v < 0 else v, 0), total) for v in r)
    if end < start:
        return 0, 0
    num_out = end if start != 0 else (total if a.permutedTokensOptional is None else a.permutedTokensOptional.shape[0])
    return start, max(min(end, num_out) - start, 0)


def _unpermute_ep_grad_topk(a) -> int:
    return a.probsOptional.shape[1] if a.probsOptional is not None else max(a.topkNum, 1)
def _unpermute_rm_rows(a) -> int:
    """Rows of MoeTokenUnpermuteWithRoutingMap's output: T of probs, else of restoreShape (non-pad); in padded
    mode any count works, the high-level function takes restoreShape[0] when given, else T of probs."""
    rs, probs = a.restoreShapeOptional, a.probsOptional
    if a.paddedMode and rs is not None and len(rs) >= 1:
        return rs[0]
    if probs is not None:
        return probs.shape[0] if probs.ndim == 2 else 0  # a bad rank reaches the operator's own check
    return rs[0] if rs is not None and len(rs) >= 1 else 1


_NULLPTR = 161001        # ACLNN_ERR_PARAM_NULLPTR
_INNER_NULLPTR = 561103  # ACLNN_ERR_INNER_NULLPTR: an l0 operator returned no output
_UNPERMUTE_RM_RESTORE = (
    Rule(lambda a: a.probsOptional is not None or a.restoreShapeOptional is not None,
         "must be given when probs is None (it gives the number of tokens)", _NULLPTR),
    Rule(lambda a: a.paddedMode or a.probsOptional is not None or len(a.restoreShapeOptional) == 2,
         "must hold 2 values (T, H) without probs", _INNER_NULLPTR),
)


# Operators every rank of a communicator calls together (they exchange tokens through HCCL): they have no numpy
# function of their own; each rank calls them through aclnn_py.run or the aclnn mirror (tests/test_moe_distribute.py).
DISTRIBUTED_OPS = ("aclnnMoeDistributeDispatch", "aclnnMoeDistributeCombine", "aclnnMoeDistributeDispatchV2",
                   "aclnnMoeDistributeCombineV2")

OPS: tuple[Op, ...] = (
    Op("MoeTokenPermute", "Replicate each token once per selected expert and sort the copies by expert.", (
        In("tokens", FLOATS + ("int8",)),
        In("indices", INDEX, ndim=(1, 2)),
        Attr("numOutTokens", 0),
        Attr("paddedMode", False, _NOT_PADDED),
        # The operator needs a 2-D output even for 1-D tokens (rows of one element); numpy gets (M,).
        Out("permuteTokensOut", "tokens", lambda a: (_permute_rows(a),) + (a.tokens.shape[1:] or (1,)),
            result_shape=lambda a: (_permute_rows(a),) + a.tokens.shape[1:]),
        Out("sortedIndicesOut", "int32", lambda a: (a.indices.size,)),
    ), "moe_token_permute"),
    Op("MoeTokenPermuteGrad", "Backward of aclnnMoeTokenPermute: gather the rows of each token and sum them.", (
        In("permutedOutputGrad", FLOATS, ndim=(2,)),
        In("sortedIndices", INT32, ndim=(1,)),
        Attr("numTopk", REQUIRED, _TOPK_LIMIT, _divides("numTopk", "sortedIndices")),
        Attr("paddedMode", False, Rule(_NOT_PADDED.check, _NOT_PADDED.text, PARAM_INVALID)),
        Out("out", "permutedOutputGrad",
            lambda a: (_tokens(a.sortedIndices.size, a.numTopk), a.permutedOutputGrad.shape[1])),
    ), "moe_token_permute_grad"),
    Op("MoeTokenPermuteWithRoutingMap", "Permute driven by a dense token-to-expert routing map.", (
        In("tokens", FLOATS, ndim=(2,)),
        In("routingMap", ("int8", "bool"), ndim=(2,)),
        Opt("probsOptional", FLOATS, ndim=(2,)),
        Attr("numOutTokens", REQUIRED, Rule(lambda a: 0 <= a.numOutTokens <= a.routingMap.size,
                                            "must be in [0, tokens x experts]", PARAM_INVALID)),
        Attr("dropAndPad", False),
        Out("permuteTokensOut", "tokens", lambda a: (_routing_map_rows(a), a.tokens.shape[1])),
        Out("permuteProbsOutOptional", "probsOptional", lambda a: (_routing_map_rows(a),),
            returned=lambda a: a.probsOptional is not None, optional=True),
        Out("sortedIndicesOut", "int32", lambda a: (_routing_map_rows(a),)),
    ), "moe_token_permute_with_routing_map", rank_status=PARAM_INVALID),
    Op("MoeTokenPermuteWithRoutingMapGrad", "Backward of aclnnMoeTokenPermuteWithRoutingMap.", (
        In("permutedTokenOutputGrad", FLOATS, ndim=(2,)),
        Opt("permutedProbsOutputGradOptional", FLOATS, ndim=(1,)),
        In("sortedIndices", INT32, ndim=(1,)),
        Opt("routingMapOptional", ("int8", "bool"), ndim=(2,)),
        Attr("numExperts", REQUIRED, Rule(lambda a: a.numExperts > 0, "must be > 0", PARAM_INVALID)),
        Attr("tokensNum", REQUIRED, Rule(lambda a: a.tokensNum > 0, "must be > 0", PARAM_INVALID)),
        Attr("dropAndPad", False),
        Out("tokensGradOut", "permutedTokenOutputGrad",
            lambda a: (max(a.tokensNum, 0), a.permutedTokenOutputGrad.shape[1])),
        Out("probsGradOutOptional", "permutedTokenOutputGrad", lambda a: (max(a.tokensNum, 0), max(a.numExperts, 0)),
            returned=lambda a: a.permutedProbsOutputGradOptional is not None, optional=True),
    ), "moe_token_permute_with_routing_map_grad", rank_status=PARAM_INVALID),
    Op("MoeTokenPermuteWithEp", "Permute by expert id, keeping the sorted rows of an expert-parallel range.", (
        In("tokens", FLOATS, ndim=(2,)),
        In("indices", INDEX, ndim=(1, 2)),
        Opt("probsOptional", FLOATS, ndim=(1, 2)),
        IntArray("rangeOptional", Rule(_range_window, "must be None or [start, end] within [0, indices.size]")),
        Attr("numOutTokens"),
        Attr("paddedMode", False, _NOT_PADDED),
        Out("permuteTokensOut", "tokens", lambda a: (_ep_window_rows(a), a.tokens.shape[1]),
            writes_all=_ep_window_plain),
        Out("sortedIndicesOut", "int32", lambda a: (a.indices.size,)),
        Out("permuteProbsOut", "tokens", lambda a: (_ep_window_rows(a),),
            returned=lambda a: a.probsOptional is not None, writes_all=_ep_window_plain),
    ), "moe_token_permute_with_ep"),
    Op("MoeTokenPermuteWithEpGrad", "Backward of aclnnMoeTokenPermuteWithEp.", (
        In("permutedTokensOutputGrad", FLOATS, ndim=(2,)),
        In("sortedIndices", INT32),
        Opt("permutedProbsOutputGradOptional", FLOATS, ndim=(1,)),
        Attr("numTopk", REQUIRED, _TOPK_LIMIT, _divides("numTopk", "sortedIndices")),
        IntArray("rangeOptional", Rule(_grad_range_window, "must be None or [start, end] with a non-empty "
                                                           "window within [0, sortedIndices.size]")),
        Attr("paddedMode", False),
        Out("tokenGradOut", "permutedTokensOutputGrad",
            lambda a: (_tokens(a.sortedIndices.size, a.numTopk), a.permutedTokensOutputGrad.shape[1])),
        Out("probsGradOut", "permutedTokensOutputGrad",
            lambda a: (_tokens(a.sortedIndices.size, a.numTopk), max(a.numTopk, 1)),
            returned=lambda a: a.permutedProbsOutputGradOptional is not None),
    ), "moe_token_permute_with_ep_grad"),
    Op("MoeInitRoutingV2", "Sort token-expert assignments by expert and build the expanded token matrix.", (
        In("x", FLOATS, ndim=(2,)),
        In("expertIdx", INT32, ndim=(2,)),
        Attr("activeNumOptional", 0, Rule(lambda a: a.activeNumOptional >= 0, "must be >= 0")),
        Attr("expertCapacityOptional", 0,
             Rule(lambda a: a.expertCapacityOptional >= 0, "must be >= 0"),
             Rule(lambda a: a.dropPadModeOptional != 1 or 1 <= a.expertCapacityOptional <= a.x.shape[0],
                  "must be in [1, number of tokens] in drop/pad mode")),
        Attr("expertNumOptional", 0,
             Rule(lambda a: a.expertNumOptional >= 0, "must be >= 0"),
             Rule(lambda a: a.dropPadModeOptional != 1 or a.expertNumOptional >= 1, "must be >= 1 in drop/pad mode"),
             Rule(lambda a: a.expertTokensCountOrCumsumFlagOptional not in (1, 2) or a.expertNumOptional > 0,
                  "must be > 0 when expert token counts are requested")),
        Attr("dropPadModeOptional", 0, Rule(lambda a: a.dropPadModeOptional in (0, 1), _DROP_PAD_MODE)),
        Attr("expertTokensCountOrCumsumFlagOptional", 0,
             Rule(lambda a: a.expertTokensCountOrCumsumFlagOptional in (0, 1, 2), "must be 0, 1 or 2")),
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
        In("gradExpandedX", FLOATS, ndim=(2, 3)),
        In("expandedRowIdx", INT32, ndim=(1,)),
        Attr("topK", REQUIRED, Rule(lambda a: a.topK > 0, "must be > 0"), _divides("topK", "expandedRowIdx")),
        Attr("dropPadMode", 0, Rule(lambda a: a.dropPadMode in (0, 1), _DROP_PAD_MODE)),
        Attr("activeNum", 0, Rule(lambda a: a.activeNum >= 0, "must be >= 0")),
        Out("out", "gradExpandedX", lambda a: (_tokens(a.expandedRowIdx.size, a.topK), a.gradExpandedX.shape[-1])),
    ), "moe_init_routing_v2_grad"),
    Op("MoeTokenUnpermuteWithEp", "Combine one expert-parallel rank's window of sorted rows back into per-token "
       "partial sums, weighted by the routing probabilities.", (
        In("permutedTokens", FLOATS, ndim=(2,)),
        In("sortedIndices", INT32, ndim=(1,)),
        Opt("probsOptional", FLOATS, ndim=(2,)),  # any float dtype, independent of permutedTokens
        Attr("numTopk", REQUIRED, Rule(lambda a: _trunc32(a.numTopk) >= 1,
                                       "must be >= 1 (read as a 32-bit int)")),
        IntArray("rangeOptional", Rule(lambda a: a.rangeOptional is None or len(a.rangeOptional) == 2,
                                       "must be None (the default [0, 0]: an all-zero result) or [start, end]")),
        Attr("paddedMode", False),  # ignored by the operator
        Param("restoreShapeOptional", "intarray", optional=True, default=None),  # never read by the operator
        Out("out", "permutedTokens", lambda a: (_unpermute_ep_tokens(a), a.permutedTokens.shape[1])),
    ), "moe_token_unpermute_with_ep"),
    Op("MoeTokenUnpermuteWithEpGrad", "Backward of aclnnMoeTokenUnpermuteWithEp.", (
        In("unpermutedTokensGrad", FLOATS, ndim=(2,)),
        In("sortedIndices", INT32, ndim=(1,)),
        Opt("permutedTokensOptional", FLOATS, ndim=(2,)),
        Opt("probsOptional", FLOATS, ndim=(2,)),  # any float dtype, independent of the gradient
        Attr("paddedMode", False),  # ignored by the operator
        Param("restoreShapeOptional", "intarray", optional=True, default=None),  # never read by the operator
        # None is the OpDef default [-1, -1]: an empty window (pass the forward's range explicitly).
        Param("rangeOptional", "intarray", optional=True, default=None, rules=(
            Rule(lambda a: a.rangeOptional is None or len(a.rangeOptional) == 2, "must be None or [start, end]"),)),
        Attr("topkNum", 1, Rule(lambda a: a.probsOptional is not None or 1 <= a.topkNum <= 512,
                                "must be in [1, 512] when probs is None")),
        # the rows of the window no slot names keep their bytes
        PartialOut("permutedTokensGradOut", "unpermutedTokensGrad",
            lambda a: (_unpermute_ep_grad_window(a)[1], a.unpermutedTokensGrad.shape[1]),
            writes_all_if=lambda a: _covers(
                a.sortedIndices[:a.unpermutedTokensGrad.shape[0] * _unpermute_ep_grad_topk(a)],
                _unpermute_ep_grad_window(a)[1], _unpermute_ep_grad_window(a)[0])),
        Out("probsGradOut", "probsOptional",
            lambda a: (a.unpermutedTokensGrad.shape[0], _unpermute_ep_grad_topk(a)),
            returned=lambda a: a.probsOptional is not None),
    ), "moe_token_unpermute_with_ep_grad"),
    Op("MoeTokenUnpermuteWithRoutingMap", "Combine the permuted rows of a routing-map dispatch back into tokens, "
       "weighted by their routing probabilities.", (
        In("permutedTokens", FLOATS, ndim=(2,)),
        In("sortedIndices", INT32, ndim=(1,)),
        Opt("routingMapOptional", ("int8", "bool"), ndim=(2,)),
        Opt("probsOptional", FLOATS, ndim=(2,)),
        Attr("paddedMode", False),
        replace(IntArray("restoreShapeOptional", *_UNPERMUTE_RM_RESTORE), default=None),
        # optional in C only because the op_api reports a NULL output after the dtype checks
        Out("unpermutedTokens", "permutedTokens", lambda a: (_unpermute_rm_rows(a), a.permutedTokens.shape[1]),
            optional=True),
        # Written in padded mode only; permuteProbs only with probs.
        Out("outIndex", "int32", lambda a: (a.sortedIndices.size,), returned=lambda a: a.paddedMode, optional=True),
        Out("permuteTokenId", "int32", lambda a: (a.sortedIndices.size,), returned=lambda a: a.paddedMode,
            optional=True),
        Out("permuteProbs", "probsOptional", lambda a: (a.sortedIndices.size,),
            returned=lambda a: a.probsOptional is not None, optional=True),
    ), "moe_token_unpermute_with_routing_map", rank_status=PARAM_INVALID),
    Op("MoeTokenUnpermuteWithRoutingMapGrad", "Backward of aclnnMoeTokenUnpermuteWithRoutingMap: the token gradient "
       "scattered to the permuted rows and, with probs, the probs gradient as row dot products.", (
        In("unpermutedTokensGrad", FLOATS, ndim=(2,)),
        In("outIndex", INT32, ndim=(1,)),
        In("permuteTokenId", INT32, ndim=(1,)),
        Opt("routingMapOptional", ("int8", "bool"), ndim=(2,)),
        Opt("permutedTokensOptional", FLOATS, ndim=(2,)),
        Opt("probsOptional", FLOATS, ndim=(2,)),
        Attr("dropAndPad", False),
        replace(IntArray("restoreShapeOptional"), default=None),  # never read
        PartialOut("permutedTokensGradOut", "unpermutedTokensGrad",
            lambda a: (a.outIndex.size, a.unpermutedTokensGrad.shape[1])),
        PartialOut("probsGradOutOptional", "unpermutedTokensGrad", lambda a: a.probsOptional.shape,
            returned=lambda a: a.probsOptional is not None, optional=True),
    ), "moe_token_unpermute_with_routing_map_grad"),
)


# ---- the combine half: MoeTokenUnpermute and its backward ------------------------------------------------

def _unpermute_tokens(a) -> int:
    """T of the unpermute pair: probs.shape[0], or one token per index without probs (K = 1)."""
    return a.sortedIndices.size if a.probsOptional is None else a.probsOptional.shape[0]


_NOT_PADDED_PARAM = Rule(_NOT_PADDED.check, _NOT_PADDED.text, PARAM_INVALID)

def _unpermute_grad_slots(a) -> int:
    """T x K, the slots of MoeTokenUnpermuteGrad (K = 1 without probs)."""
    g = a.unpermutedTokensGrad
    t = g.shape[0] if g.ndim else 0
    return t * (a.probsOptional.shape[1] if a.probsOptional is not None and a.probsOptional.ndim == 2 else 1)


OPS += (
    Op("MoeTokenUnpermute", "Combine each token's expert rows, weighted by the router probabilities (the "
                            "inverse of aclnnMoeTokenPermute). Slots whose row was dropped or whose weight is "
                            "zero are skipped.", (
        In("permutedTokens", FLOATS, ndim=(2,)),
        In("sortedIndices", INT32, ndim=(1,)),
        Param("probsOptional", "in", optional=True, dtypes=FLOATS, ndim=(2,), default=None),
        Attr("paddedMode", False, _NOT_PADDED_PARAM),
        Param("restoreShapeOptional", "intarray", optional=True, default=None),  # ignored by the operator
        Out("out", "permutedTokens", lambda a: (_unpermute_tokens(a), a.permutedTokens.shape[1])),
    ), "moe_token_unpermute"),
    Op("MoeTokenUnpermuteGrad", "Backward of aclnnMoeTokenUnpermute: the weighted gradient rows scattered back to "
                                "the permuted rows (rows no slot points at stay zero) and, with probs, the "
                                "probabilities' gradient.", (
        In("permuteTokens", FLOATS, ndim=(2,)),
        In("unpermutedTokensGrad", FLOATS, ndim=(2,)),
        In("sortedIndices", INT32, ndim=(1,)),
        Param("probsOptional", "in", optional=True, dtypes=FLOATS, ndim=(2,), default=None),
        Attr("paddedMode", False, _NOT_PADDED_PARAM),
        Param("restoreShapeOptional", "intarray", optional=True, default=None),  # ignored by the operator
        # rows no slot names keep their bytes
        PartialOut("permutedTokensGradOut", "permuteTokens",
            lambda a: (a.permuteTokens.shape[0], a.unpermutedTokensGrad.shape[1]),
            writes_all_if=lambda a: _covers(a.sortedIndices[:_unpermute_grad_slots(a)], a.permuteTokens.shape[0])),
        # Required by the operator even without probs: then an empty tensor it never writes.
        Out("probsGradOut", "probsOptional",
            lambda a: (0,) if a.probsOptional is None else a.probsOptional.shape,
            returned=lambda a: a.probsOptional is not None),
    ), "moe_token_unpermute_grad"),
)



# ---- aclnnMoeInitRoutingV3 ------------------------------------------------------------------------------

@dataclass(frozen=True)
class DtypeBy:
    """An output dtype chosen by an attribute: ``choices`` maps attribute values to a dtype name or the C name
    of the input whose dtype the output takes; other values take ``otherwise``."""

    attr: str
    choices: tuple[tuple[int, str], ...]
    otherwise: str

    def __call__(self, a) -> str:
        return dict(self.choices).get(getattr(a, self.attr), self.otherwise)

    def names(self) -> set[str]:
        return {v for _, v in self.choices} | {self.otherwise}


def _with_default(p: Param, default) -> Param:
    from dataclasses import replace

    return replace(p, default=default)


def _v3_range(a) -> tuple[int, int]:
    r = a.activeExpertRangeOptional
    return (0, a.expertNum) if not r else tuple(r)


def _v3_range_ok(a) -> bool:
    r = a.activeExpertRangeOptional
    if not r:
        return True
    return len(r) == 2 and 0 <= r[0] < r[1] <= a.expertNum


def _v3_rows(a) -> int:
    """Rows of expandedX: A = min(activeNum, N*K) (all slots for 0 / -1) dropless, E*C in drop/pad."""
    t = a.expertIdx.size
    if a.dropPadMode == 1:
        return a.expertNum * a.expertCapacity
    return t if a.activeNum in (0, -1) else min(a.activeNum, t)


def _v3_expanded_shape(a) -> tuple:
    h = a.x.shape[1] if a.x.ndim == 2 else 0  # a bad rank reaches the operator's own check
    if a.dropPadMode == 1:
        return (a.expertNum, a.expertCapacity, h)
    return (_v3_rows(a), h)


def _v3_counts_shape(a) -> tuple:
    if not a.expertTokensNumFlag:
        return (0,)  # neither checked nor written
    if a.expertTokensNumType == 2:
        return (a.expertNum, 2)
    s, e = _v3_range(a)
    return (e - s,)


def _v3_fills_rows(a) -> bool:
    """Dropless: the slots whose expert is in the active range fill the A rows of expandedX (and expandedScale)."""
    import numpy as np

    s, e = _v3_range(a)
    ids = a.expertIdx
    return int(np.count_nonzero((ids >= s) & (ids < e))) >= _v3_rows(a)


def _v3_writes_scale(a) -> bool:
    return a.quantMode == 1 or (a.quantMode == -1 and a.scaleOptional is not None)


OPS += (
    Op("MoeInitRoutingV3", "Route tokens to an active expert range: dropless / active / drop-and-pad layouts, gather or "
       "scatter row indices, expert statistics, optional INT8 quantisation (static or dynamic per row).", (
        In("x", FLOATS + ("int8",), ndim=(2,)),
        In("expertIdx", INT32, ndim=(2,)),
        _with_default(Opt("scaleOptional", ("float32",)), None),
        _with_default(Opt("offsetOptional", ("float32",)), None),
        Attr("activeNum", -1, Rule(lambda a: a.dropPadMode != 0 or a.activeNum >= -1, "must be >= -1")),
        Attr("expertCapacity", -1,
             Rule(lambda a: a.dropPadMode != 1 or 1 <= a.expertCapacity <= a.x.shape[0],
                  "must be in [1, number of tokens] in drop/pad mode")),
        Attr("expertNum", -1, Rule(lambda a: a.expertNum > 0, "must be > 0")),
        Attr("dropPadMode", 0, Rule(lambda a: a.dropPadMode in (0, 1), _DROP_PAD_MODE)),
        Attr("expertTokensNumType", 0, Rule(lambda a: a.expertTokensNumType in (0, 1, 2),
                                            "must be 0 (cumsum), 1 (count) or 2 (key-value)")),
        Attr("expertTokensNumFlag", False),
        Attr("quantMode", -1, Rule(lambda a: a.quantMode in (-1, 0, 1),
                                   "must be -1 (none), 0 (static INT8) or 1 (dynamic INT8)")),
        _with_default(IntArray("activeExpertRangeOptional",
                               Rule(_v3_range_ok, "must be empty or [start, end] with 0 <= start < end <= expertNum")),
                      None),
        Attr("rowIdxType", 0, Rule(lambda a: a.rowIdxType in (0, 1), "must be 0 (gather) or 1 (scatter)")),
        # drop/pad writes every row (padding rows as zeros); dropless writes the first min(active slots, A) rows
        PartialOut("expandedXOut", DtypeBy("quantMode", ((-1, "x"),), "int8"), _v3_expanded_shape,
                   writes_all=lambda a: a.dropPadMode == 1, writes_all_if=_v3_fills_rows),
        Out("expandedRowIdxOut", "int32", lambda a: (a.expertIdx.size,)),
        Out("expertTokensCountOrCumsumOut", "int64", _v3_counts_shape,
            returned=lambda a: bool(a.expertTokensNumFlag)),
        PartialOut("expandedScaleOut", "float32", lambda a: (_v3_rows(a),) if _v3_writes_scale(a) else (0,),
            returned=_v3_writes_scale, writes_all=lambda a: a.dropPadMode == 1, writes_all_if=_v3_fills_rows),
    ), "moe_init_routing_v3"),
)
# ---- MoeFinalizeRoutingV2 and its backward ----------------------------------------------------------------

def _finalize_out(a) -> tuple:
    """(N, H): N = len(expandedRowIdx) // K, K = scales.shape[1] (1 without scales)."""
    s = a.scalesOptional
    k = s.shape[1] if s is not None and s.ndim == 2 else 1
    h = a.expandedX.shape[-1] if a.expandedX.ndim else 0
    return (_tokens(a.expandedRowIdx.size, k), h)


def _finalize_grad_rows(a) -> tuple:
    """gradExpandedX: (expertNum, expertCapacity, H) in drop/pad mode, else (D, H) with D = activeNum when
    0 < activeNum < L, else L."""
    h = a.gradY.shape[1] if a.gradY.ndim == 2 else 0
    if a.dropPadMode == 1:
        return (max(a.expertNum, 0), max(a.expertCapacity, 0), h)
    length = a.expandedRowIdx.size
    return (a.activeNum if 0 < a.activeNum < length else length, h)


def _opt_none(name, dtypes, ndim=()):
    """An optional input that defaults to None in the high-level function (every later parameter has a default)."""
    return Param(name, "in", optional=True, dtypes=dtypes, ndim=ndim, default=None)


OPS += (
    Op("MoeFinalizeRoutingV2", "MoE combine: x1 + x2 + the scaled, biased expert rows of every token.", (
        In("expandedX", FLOATS, ndim=(2, 3)),
        In("expandedRowIdx", INT32, ndim=(1,)),
        _opt_none("x1Optional", FLOATS, ndim=(2,)),
        _opt_none("x2Optional", FLOATS, ndim=(2,)),
        _opt_none("biasOptional", FLOATS, ndim=(2,)),
        _opt_none("scalesOptional", FLOATS, ndim=(2,)),
        _opt_none("expertIdxOptional", INT32, ndim=(2,)),
        Attr("dropPadMode", 0, Rule(lambda a: 0 <= a.dropPadMode <= 3,
                                    "must be 0 or 1 (column-major slots, 2-D or 3-D expandedX) or 2 or 3 "
                                    "(row-major slots)")),
        Out("out", "expandedX", _finalize_out),
    ), "moe_finalize_routing_v2"),
    Op("MoeFinalizeRoutingV2Grad", "Backward of aclnnMoeFinalizeRoutingV2 (row-major slots): gradients of "
                                   "expandedX and scales.", (
        In("gradY", FLOATS, ndim=(2,)),
        In("expandedRowIdx", INT32, ndim=(1,)),
        _opt_none("expandedXOptional", FLOATS, ndim=(2, 3)),
        _opt_none("scalesOptional", FLOATS, ndim=(2,)),
        _opt_none("expertIdxOptional", INT32),
        _opt_none("biasOptional", FLOATS),
        Attr("dropPadMode", 0, Rule(lambda a: a.dropPadMode in (0, 1), _DROP_PAD_MODE)),
        Attr("activeNum", 0),
        Attr("expertNum", 0, Rule(lambda a: a.dropPadMode != 1 or a.expertNum > 0, "must be > 0 in drop/pad mode")),
        Attr("expertCapacity", 0,
             Rule(lambda a: a.dropPadMode != 1 or a.expertCapacity > 0, "must be > 0 in drop/pad mode")),
        # drop/pad zeroes the rows no slot writes; otherwise they keep their bytes
        PartialOut("gradExpandedXOut", "gradY", _finalize_grad_rows, writes_all=lambda a: a.dropPadMode == 1,
                   writes_all_if=lambda a: _covers(a.expandedRowIdx, _finalize_grad_rows(a)[0])),
        # Required by the operator even without scales (then neither checked nor written): an empty one.
        Out("gradScalesOut", "gradY", lambda a: a.scalesOptional.shape if a.scalesOptional is not None else (0,),
            returned=lambda a: a.scalesOptional is not None),
    ), "moe_finalize_routing_v2_grad"),
)


# Every block above has added its rows: the lookup by Python name.
OPS_BY_NAME = {op.py_name: op for op in OPS}
