"""Operator benchmarks: input builders per operator, the bytes model, and the timed variants.

Every operator is measured on the same inputs five ways, interleaved:

- ``kernel``: phase 2 only, through the mirror layer (``aclnn_py.aclnn``): device tensors created
  once, one executor made repeatable with ``aclSetAclOpExecutorRepeatable`` and reused, then destroyed;
  each sample is ``aclnnXxx(...)`` + ``aclrtSynchronizeStream`` (a real device runs asynchronously);
- ``memcpy``: ``np.copyto`` of a buffer of half the operator's bytes (so read + write = the same bytes);
- ``high-level``: ``aclnn_py.<op>(...)``, the whole call (uploads, both phases, download);
- ``numpy``: ``aclnn_py.reference.<op>(...)`` on the same numpy inputs;
- ``torch``: a straightforward torch CPU implementation, when torch is importable.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn, dtypes, reference
from aclnn_py._native import SIGNATURES
from aclnn_py._optable import OPS, Op
from aclnn_py.errors import AclnnError, SymbolNotFoundError
from aclnn_py.runtime import Tensor, default_device

from . import timing

FLOAT_DTYPES = ("float32", "float16", "bfloat16")
FAST_BUDGET = 0.05   # seconds of samples a fast variant gets at least (see measure)
MAX_SAMPLES = 200


@dataclass(frozen=True)
class Shape:
    tokens: int   # N (T for the routing-map operators)
    hidden: int   # H
    topk: int     # K
    experts: int  # E

    @property
    def slots(self) -> int:  # L = N * K, rows of the permuted matrix
        return self.tokens * self.topk

    def __str__(self):
        return f"tokens={self.tokens}, hidden={self.hidden}, topK={self.topk}, experts={self.experts}"


BIG = Shape(4096, 7168, 8, 256)   # the specification's big shapes
QUICK = Shape(256, 512, 4, 32)    # a smoke run


# ---- input data ---------------------------------------------------------------------------------------

class Data:
    """Deterministic inputs. Float matrices repeat a random pool (generating a gigabyte of normal
    variates would dominate the run; values only have to be ordinary finite numbers). The pool length
    is odd so consecutive rows differ."""

    POOL = (1 << 22) + 37

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self._pool32 = self.rng.standard_normal(self.POOL, dtype=np.float32)
        self._pools: Dict[np.dtype, np.ndarray] = {}

    def floats(self, shape, dtype) -> np.ndarray:
        dt = dtypes.as_numpy_dtype(dtype)
        pool = self._pools.get(dt)
        if pool is None:
            pool = self._pools[dt] = self._pool32.astype(dt)
        n = int(np.prod(shape, dtype=np.int64))
        return np.resize(pool, n).reshape(shape)

    def expert_ids(self, s: Shape) -> np.ndarray:
        """(N, K) int32: K distinct experts per token, as a top-K router picks them."""
        return np.argsort(self.rng.random((s.tokens, s.experts), dtype=np.float32), axis=1)[:, : s.topk] \
            .astype(np.int32)


def _ranks(ids: np.ndarray) -> np.ndarray:
    """The forward's sortedIndicesOut: for every (token, slot), its row in the expert-sorted order."""
    flat = ids.reshape(-1)
    order = np.argsort(flat, kind="stable")
    ranks = np.empty(flat.size, np.int32)
    ranks[order] = np.arange(flat.size, dtype=np.int32)
    return ranks


def _routing_map(s: Shape, ids: np.ndarray) -> np.ndarray:
    m = np.zeros((s.tokens, s.experts), np.int8)
    m[np.arange(s.tokens)[:, None], ids] = 1
    return m


def _routing_map_ranks(routing_map: np.ndarray) -> np.ndarray:
    """sortedIndicesOut of the routing-map forward (non-pad): the stable argsort of the token ids
    scanned expert-major."""
    tok_ids = np.nonzero(routing_map.T)[1]
    return np.argsort(tok_ids, kind="stable").astype(np.int32)


# Builders: operator -> (shape, dtype, data) -> the high-level arguments in C order (every non-output
# parameter, defaults included, so the same tuple drives the mirror layer, the high-level function and
# the numpy reference). The scenarios are the common training ones: dropless, no padding, full window.

def _b_permute(s, dt, d):
    return (d.floats((s.tokens, s.hidden), dt), d.expert_ids(s), 0, False)


def _b_permute_grad(s, dt, d):
    return (d.floats((s.slots, s.hidden), dt), _ranks(d.expert_ids(s)), s.topk, False)


def _b_routing_map(s, dt, d):
    rm = _routing_map(s, d.expert_ids(s))
    return (d.floats((s.tokens, s.hidden), dt), rm, d.floats((s.tokens, s.experts), dt), s.slots, False)


def _b_routing_map_grad(s, dt, d):
    rm = _routing_map(s, d.expert_ids(s))
    return (d.floats((s.slots, s.hidden), dt), d.floats((s.slots,), dt), _routing_map_ranks(rm), rm,
            s.experts, s.tokens, False)


def _b_ep(s, dt, d):
    return (d.floats((s.tokens, s.hidden), dt), d.expert_ids(s), d.floats((s.tokens, s.topk), dt),
            (0, s.slots), s.slots, False)


def _b_ep_grad(s, dt, d):
    return (d.floats((s.slots, s.hidden), dt), _ranks(d.expert_ids(s)), d.floats((s.slots,), dt), s.topk,
            (0, s.slots), False)


def _b_v2(s, dt, d):
    # dropless, cumulative expert counts requested (the usual MoE dispatch call)
    return (d.floats((s.tokens, s.hidden), dt), d.expert_ids(s), 0, 0, s.experts, 0, 1, False)


def _b_v2_grad(s, dt, d):
    return (d.floats((s.slots, s.hidden), dt), _ranks(d.expert_ids(s)), s.topk, 0, 0)


# Bytes a perfect implementation must move: (description, (shape, itemsize) -> (read, written)).
# Index tensors are int32; the routing map is int8; each input element is read once.
BYTES_MODEL: Dict[str, Tuple[str, Callable[[Shape, int], Tuple[int, int]]]] = {
    "moe_token_permute": (
        "read N*H tokens + L idx; write L*H rows + L sorted idx",
        lambda s, e: (s.tokens * s.hidden * e + s.slots * 4, s.slots * s.hidden * e + s.slots * 4)),
    "moe_token_permute_grad": (
        "read L*H grad rows + L idx; write N*H",
        lambda s, e: (s.slots * s.hidden * e + s.slots * 4, s.tokens * s.hidden * e)),
    "moe_token_permute_with_routing_map": (
        "read N*H tokens + N*E map + L selected probs; write L*H rows + L probs + L idx",
        lambda s, e: (s.tokens * s.hidden * e + s.tokens * s.experts + s.slots * e,
                      s.slots * s.hidden * e + s.slots * e + s.slots * 4)),
    "moe_token_permute_with_routing_map_grad": (
        "read L*H grad + L probs grad + L idx + N*E map; write N*H + N*E probs grad",
        lambda s, e: (s.slots * s.hidden * e + s.slots * e + s.slots * 4 + s.tokens * s.experts,
                      s.tokens * s.hidden * e + s.tokens * s.experts * e)),
    "moe_token_permute_with_ep": (
        "read N*H tokens + L idx + L probs; write L*H rows + L sorted idx + L probs",
        lambda s, e: (s.tokens * s.hidden * e + s.slots * 4 + s.slots * e,
                      s.slots * s.hidden * e + s.slots * 4 + s.slots * e)),
    "moe_token_permute_with_ep_grad": (
        "read L*H grad + L idx + L probs grad; write N*H + N*K probs grad",
        lambda s, e: (s.slots * s.hidden * e + s.slots * 4 + s.slots * e,
                      s.tokens * s.hidden * e + s.slots * e)),
    "moe_init_routing_v2": (
        "read N*H x + L expert ids; write L*H rows + L row idx + E counts",
        lambda s, e: (s.tokens * s.hidden * e + s.slots * 4, s.slots * s.hidden * e + s.slots * 4 + s.experts * 4)),
    "moe_init_routing_v2_grad": (
        "read L*H grad rows + L row idx; write N*H",
        lambda s, e: (s.slots * s.hidden * e + s.slots * 4, s.tokens * s.hidden * e)),
}

BUILDERS: Dict[str, Callable] = {
    "moe_token_permute": _b_permute,
    "moe_token_permute_grad": _b_permute_grad,
    "moe_token_permute_with_routing_map": _b_routing_map,
    "moe_token_permute_with_routing_map_grad": _b_routing_map_grad,
    "moe_token_permute_with_ep": _b_ep,
    "moe_token_permute_with_ep_grad": _b_ep_grad,
    "moe_init_routing_v2": _b_v2,
    "moe_init_routing_v2_grad": _b_v2_grad,
}


# Extra rows of an operator: {operator: {variant: (builder, (description, bytes model))}}.
VARIANTS: Dict[str, Dict[str, Tuple[Callable, Tuple[str, Callable]]]] = {}


def op_dtypes(op: Op) -> Tuple[str, ...]:
    """The float dtypes the operator supports (those of its first tensor input)."""
    first = op.by_role("in")[0]
    return tuple(d for d in FLOAT_DTYPES if d in first.dtypes)


def resolve_ops(names) -> List[Op]:
    """Operators by snake_case name, C name (``aclnnMoeTokenPermuteGrad``) or CamelCase name."""
    if not names:
        return list(OPS)
    by_any = {}
    for op in OPS:
        for key in (op.py_name, op.c_name, op.name):
            by_any[key.lower()] = op
    out = []
    for n in names:
        op = by_any.get(n.lower())
        if op is None:
            raise SystemExit(f"unknown operator {n!r}; choose from: {', '.join(o.py_name for o in OPS)}")
        out.append(op)
    return out


def availability(op: Op) -> Optional[str]:
    """None when the operator can be benchmarked, else why not."""
    missing = [n for n in (op.c_name + "GetWorkspaceSize", op.c_name) if n not in SIGNATURES]
    if missing:
        return f"not in the bindings' signature table ({', '.join(missing)})"
    lost = [n for n in (op.c_name + "GetWorkspaceSize", op.c_name) if n in aclnn_py.backend().missing_symbols]
    if lost:
        return f"not exported by the loaded libraries ({', '.join(lost)})"
    if op.py_name not in BUILDERS:
        return "no input builder in benchmarks/kernels.py"
    return None


def _is_not_implemented(exc: BaseException) -> bool:
    if isinstance(exc, (SymbolNotFoundError, NotImplementedError)):
        return True
    return isinstance(exc, AclnnError) and "not implemented" in str(exc).lower()


# ---- the kernel (mirror layer, repeatable executor) ----------------------------------------------------

def _output_dtype(param, ns):
    name = param.dtype(ns) if callable(param.dtype) else param.dtype  # a DtypeBy rule picks by an attribute
    if name in FLOAT_DTYPES + ("int32", "int64", "int8", "bool"):
        return dtypes.as_numpy_dtype(name)
    return getattr(ns, name).dtype


class KernelRunner:
    """Device tensors for one set of inputs and a repeatable executor; ``run()`` is phase 2 only.

    Tensors are created with ``aclnn_py.Tensor`` (an upload and ``aclCreateTensor``); both phases go
    through the mirror layer exactly as a ported C++ sample calls them. ``close()`` destroys the
    executor, the workspace, the stream and the tensors.
    """

    def __init__(self, op: Op, args: tuple):
        self.op = op
        default_device()
        self._tensors: List[Tensor] = []
        self._arrays = []
        self.outputs: List[Optional[Tensor]] = []  # returned outputs, in table order (None if not)
        self.executor = None
        self.workspace = None
        self.stream = None
        try:
            self._setup(args)
        except BaseException:
            self.close()
            raise

    def _setup(self, args):
        op = self.op
        ns = SimpleNamespace()
        it = iter(args)
        for p in op.params:
            if p.role != "out":
                setattr(ns, p.name, next(it))
        c_args = []
        for p in op.params:
            v = getattr(ns, p.name, None)
            if p.role == "in":
                if v is None:
                    c_args.append(None)
                else:
                    t = Tensor.from_numpy(v)
                    self._tensors.append(t)
                    c_args.append(t.handle)
            elif p.role == "attr":
                c_args.append(v)
            elif p.role == "intarray":
                if v is None:
                    c_args.append(None)
                else:
                    vals = [int(x) for x in v]
                    h = acl.aclCreateIntArray(vals, len(vals))
                    self._arrays.append(h)
                    c_args.append(h)
            else:
                wanted = p.returned is None or p.returned(ns)
                if p.optional and not wanted:
                    c_args.append(None)
                    self.outputs.append(None)
                    continue
                t = Tensor(tuple(int(x) for x in p.shape(ns)), _output_dtype(p, ns))
                self._tensors.append(t)
                c_args.append(t.handle)
                self.outputs.append(t if wanted else None)
        self.ws_size, self.executor = getattr(aclnn, op.c_name + "GetWorkspaceSize")(*c_args)
        acl.aclSetAclOpExecutorRepeatable(self.executor)
        if self.ws_size:
            self.workspace = acl.aclrtMalloc(self.ws_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.stream = acl.aclrtCreateStream()
        self._phase2 = getattr(aclnn, op.c_name)
        self._sync = acl.aclrtSynchronizeStream

    def run(self):
        self._phase2(self.workspace, self.ws_size, self.executor, self.stream)
        self._sync(self.stream)

    def results(self) -> tuple:
        return tuple(None if t is None else t.numpy() for t in self.outputs)

    def close(self):
        if self.executor is not None:
            acl.aclDestroyAclOpExecutor(self.executor)
            self.executor = None
        if self.workspace is not None:
            acl.aclrtFree(self.workspace)
            self.workspace = None
        if self.stream is not None:
            acl.aclrtDestroyStream(self.stream)
            self.stream = None
        for h in self._arrays:
            acl.aclDestroyIntArray(h)
        self._arrays = []
        for t in reversed(self._tensors):
            t.close()
        self._tensors = []
        self.outputs = []


# ---- torch baselines ------------------------------------------------------------------------------------

def torch_module():
    try:
        import torch
    except Exception:  # ImportError, or a broken install
        return None
    return torch


def _to_torch(torch, a):
    if a is None or not isinstance(a, np.ndarray):
        return a
    if a.dtype == dtypes.bfloat16:  # torch.from_numpy does not know ml_dtypes' bfloat16
        return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)
    if a.dtype == np.int8:
        return torch.from_numpy(a).bool()
    return torch.from_numpy(np.ascontiguousarray(a))


def _inverse(torch, order):
    inv = torch.empty_like(order)
    inv[order] = torch.arange(order.numel(), dtype=order.dtype)
    return inv


def _t_permute(torch, tokens, indices, num_out_tokens, padded_mode):
    k = indices.shape[1]
    order = torch.sort(indices.reshape(-1), stable=True).indices
    return tokens.index_select(0, order // k), _inverse(torch, order).int()


def _t_gather_sum(torch, grad, idx, k):
    return grad.index_select(0, idx.long()).view(-1, k, grad.shape[1]).sum(1)


def _t_permute_grad(torch, grad, idx, num_topk, padded_mode):
    return _t_gather_sum(torch, grad, idx, num_topk)


def _t_routing_map(torch, tokens, routing_map, probs, num_out_tokens, drop_and_pad):
    mask_t = routing_map.t()                                   # (E, T), expert-major scan
    t = routing_map.shape[0]
    tok_ids = torch.arange(t).unsqueeze(0).expand_as(mask_t).masked_select(mask_t)
    sorted_idx = torch.sort(tok_ids, stable=True).indices.int()
    return tokens.index_select(0, tok_ids), probs.t().masked_select(mask_t), sorted_idx


def _t_routing_map_grad(torch, g, pg, idx, routing_map, num_experts, tokens_num, drop_and_pad):
    tokens_grad = _t_gather_sum(torch, g, idx, g.shape[0] // tokens_num)
    mask_t = routing_map.t()
    probs_grad = torch.zeros(mask_t.shape, dtype=pg.dtype).masked_scatter_(mask_t, pg).t()
    return tokens_grad, probs_grad


def _t_ep(torch, tokens, indices, probs, rng, num_out_tokens, padded_mode):
    k = indices.shape[1]
    order = torch.sort(indices.reshape(-1).float(), stable=True).indices
    window = order[rng[0]:rng[1]]
    return tokens.index_select(0, window // k), _inverse(torch, order).int(), probs.reshape(-1).index_select(0, window)


def _t_ep_grad(torch, g, idx, pg, num_topk, rng, padded_mode):
    d = idx.long() - rng[0]
    valid = (d >= 0) & (d < rng[1] - rng[0])
    d = d.clamp(0, g.shape[0] - 1)
    rows = g.index_select(0, d) * valid.unsqueeze(1).to(g.dtype)
    return rows.view(-1, num_topk, g.shape[1]).sum(1), (pg.index_select(0, d) * valid.to(pg.dtype)).view(-1, num_topk)


def _t_v2(torch, x, expert_idx, active_num, capacity, expert_num, mode, count_flag, before_flag):
    k = expert_idx.shape[1]
    flat = expert_idx.reshape(-1)
    order = torch.sort(flat, stable=True).indices
    counts = torch.bincount(flat.long(), minlength=expert_num).cumsum(0).int()
    return x.index_select(0, order // k), _inverse(torch, order).int(), counts


def _t_v2_grad(torch, grad, idx, top_k, mode, active_num):
    return _t_gather_sum(torch, grad, idx, top_k)


TORCH_IMPLS: Dict[str, Callable] = {
    "moe_token_permute": _t_permute,
    "moe_token_permute_grad": _t_permute_grad,
    "moe_token_permute_with_routing_map": _t_routing_map,
    "moe_token_permute_with_routing_map_grad": _t_routing_map_grad,
    "moe_token_permute_with_ep": _t_ep,
    "moe_token_permute_with_ep_grad": _t_ep_grad,
    "moe_init_routing_v2": _t_v2,
    "moe_init_routing_v2_grad": _t_v2_grad,
}



# ---- the expert-parallel combine (aclnnMoeTokenUnpermuteWithEp and its backward): one rank owning the
# whole window [0, L), the unsharded combine ----------------------------------------------------------------

def _b_unpermute_ep(s, dt, d):
    return (d.floats((s.slots, s.hidden), dt), _ranks(d.expert_ids(s)), d.floats((s.tokens, s.topk), dt), s.topk,
            (0, s.slots), False, None)


def _b_unpermute_ep_grad(s, dt, d):
    return (d.floats((s.tokens, s.hidden), dt), _ranks(d.expert_ids(s)), d.floats((s.slots, s.hidden), dt),
            d.floats((s.tokens, s.topk), dt), False, None, (0, s.slots), s.topk)


def _t_unpermute_ep(torch, x, idx, probs, num_topk, rng, padded_mode, restore_shape):
    rows = x.index_select(0, idx.long() - rng[0]).view(-1, num_topk, x.shape[1]).float()
    return (rows * probs.float().unsqueeze(2)).sum(1).to(x.dtype)


def _t_unpermute_ep_grad(torch, g, idx, x, probs, padded_mode, restore_shape, rng, topk_num):
    k = probs.shape[1]
    d = idx.long() - rng[0]
    g_rows = g.float().repeat_interleave(k, 0)
    ptg = torch.empty_like(x)
    ptg[d] = (g_rows * probs.float().reshape(-1, 1)).to(x.dtype)
    return ptg, (x.index_select(0, d).float() * g_rows).sum(1).view(-1, k).to(probs.dtype)


BUILDERS["moe_token_unpermute_with_ep"] = _b_unpermute_ep
BUILDERS["moe_token_unpermute_with_ep_grad"] = _b_unpermute_ep_grad
BYTES_MODEL["moe_token_unpermute_with_ep"] = (
    "read L*H rows + L idx + L probs; write N*H",
    lambda s, e: (s.slots * s.hidden * e + s.slots * 4 + s.slots * e, s.tokens * s.hidden * e))
BYTES_MODEL["moe_token_unpermute_with_ep_grad"] = (
    "read N*H grad + L*H rows + L idx + L probs; write L*H rows + L probs grad",
    lambda s, e: (s.tokens * s.hidden * e + s.slots * s.hidden * e + s.slots * 4 + s.slots * e,
                  s.slots * s.hidden * e + s.slots * e))
TORCH_IMPLS["moe_token_unpermute_with_ep"] = _t_unpermute_ep
TORCH_IMPLS["moe_token_unpermute_with_ep_grad"] = _t_unpermute_ep_grad
# ---- MoeTokenUnpermuteWithRoutingMap(+Grad): the combine of the routing-map dispatch (non-pad, with probs) ----

def _b_unpermute_routing_map(s, dt, d):
    rm = _routing_map(s, d.expert_ids(s))
    return (d.floats((s.slots, s.hidden), dt), _routing_map_ranks(rm), rm, d.floats((s.tokens, s.experts), dt),
            False, (s.tokens, s.hidden))


def _b_unpermute_routing_map_grad(s, dt, d):
    rm = _routing_map(s, d.expert_ids(s))
    ranks = _routing_map_ranks(rm)  # the forward's sortedIndices, passed as both index inputs (torch_npu)
    return (d.floats((s.tokens, s.hidden), dt), ranks, ranks, rm, d.floats((s.slots, s.hidden), dt),
            d.floats((s.tokens, s.experts), dt), False, None)


def _t_unpermute_routing_map(torch, permuted, sorted_idx, routing_map, probs, padded_mode, restore_shape):
    t, h = probs.shape[0], permuted.shape[1]
    w = probs.masked_select(routing_map.bool())  # token-major
    rows = permuted.index_select(0, sorted_idx.long()) * w.unsqueeze(1)
    return rows.view(t, -1, h).sum(1), w


def _t_unpermute_routing_map_grad(torch, g, out_index, token_id, routing_map, permuted, probs, pad, restore):
    mask = routing_map.bool()
    w = probs.masked_select(mask)
    idx = out_index.long()
    gt = g.repeat_interleave(idx.shape[0] // g.shape[0], 0)
    tokens_grad = torch.empty_like(permuted).index_copy_(0, idx, gt * w.unsqueeze(1))
    probs_grad = torch.zeros_like(probs).masked_scatter_(mask, (permuted.index_select(0, idx) * gt).sum(1))
    return tokens_grad, probs_grad


BYTES_MODEL["moe_token_unpermute_with_routing_map"] = (
    "read L*H rows + L idx + N*E map + L selected probs; write N*H + L probs",
    lambda s, e: (s.slots * s.hidden * e + s.slots * 4 + s.tokens * s.experts + s.slots * e,
                  s.tokens * s.hidden * e + s.slots * e))
BYTES_MODEL["moe_token_unpermute_with_routing_map_grad"] = (
    "read N*H grad + L*H rows + L idx + N*E map + L selected probs; write L*H + N*E probs grad",
    lambda s, e: (s.tokens * s.hidden * e + s.slots * s.hidden * e + s.slots * 4 + s.tokens * s.experts
                  + s.slots * e, s.slots * s.hidden * e + s.tokens * s.experts * e))
BUILDERS["moe_token_unpermute_with_routing_map"] = _b_unpermute_routing_map
BUILDERS["moe_token_unpermute_with_routing_map_grad"] = _b_unpermute_routing_map_grad
TORCH_IMPLS["moe_token_unpermute_with_routing_map"] = _t_unpermute_routing_map
TORCH_IMPLS["moe_token_unpermute_with_routing_map_grad"] = _t_unpermute_routing_map_grad


# ---- one measurement --------------------------------------------------------------------------------------

@dataclass
class Result:
    op: str
    dtype: str
    status: str = "ok"                       # "ok", "not implemented", "error"
    detail: str = ""                         # why not implemented / the error
    bytes: int = 0
    times: Dict[str, float] = field(default_factory=dict)   # median seconds per variant
    samples: Dict[str, int] = field(default_factory=dict)
    check: str = ""                          # outputs equal to the numpy reference?
    notes: List[str] = field(default_factory=list)
    pool_hit_rate: float = float("nan")      # memory pools' hits / requests over the timed samples

    def t(self, name):
        return self.times.get(name, float("nan"))

    @property
    def gbps(self):
        return timing.ratio(self.bytes, self.t("kernel")) / 1e9

    @property
    def memcpy_gbps(self):
        return timing.ratio(self.bytes, self.t("memcpy")) / 1e9


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _keep_first(fn, store, key):
    """Wrap ``fn`` so its first result (the warm-up call) is kept for checking and later results are
    dropped at once (holding each big output until the next call would double the memory)."""
    def call():
        r = fn()
        if key not in store:
            store[key] = r
    return call


def measure(op: Op, dtype: str, shape: Shape, data: Data, repeat: int, slow_repeat: int,
            baselines: bool = True, torch=None, variant: Optional[str] = None) -> Result:
    """Median times of the kernel and memcpy (``repeat`` samples each) and, with ``baselines``, of the
    whole calls: high-level, numpy reference and torch (``slow_repeat`` each), all interleaved.
    ``variant`` names one of the operator's extra modes in VARIANTS (no torch baseline there)."""
    key = op.py_name if variant is None else f"{op.py_name} [{variant}]"
    res = Result(key, dtype)
    why = availability(op)
    if why:
        res.status, res.detail = "not implemented", why
        return res
    builder, model = (BUILDERS[op.py_name], BYTES_MODEL[op.py_name]) if variant is None else VARIANTS[op.py_name][variant]
    if variant is not None:
        torch = None
    args = builder(shape, dtype, data)
    read, written = model[1](shape, dtypes.as_numpy_dtype(dtype).itemsize)
    res.bytes = read + written
    half = res.bytes // 2
    src = np.ones(half, np.uint8)   # touched, so page faults are not timed
    dst = np.zeros(half, np.uint8)
    runner = None
    kept: Dict[str, Any] = {}
    try:
        runner = KernelRunner(op, args)
        variants = {
            "kernel": (runner.run, repeat),
            "memcpy": (lambda: np.copyto(dst, src), repeat),
        }
        if baselines:
            hl = getattr(aclnn_py, op.py_name)
            ref = getattr(reference, op.py_name)
            variants["high-level"] = (_keep_first(lambda: hl(*args), kept, "high-level"), slow_repeat)
            variants["numpy"] = (_keep_first(lambda: ref(*args), kept, "numpy"), slow_repeat)
            if torch is not None:
                impl = TORCH_IMPLS[op.py_name]
                targs = tuple(_to_torch(torch, a) for a in args)
                variants["torch"] = (lambda: impl(torch, *targs), slow_repeat)
        # One warm-up call each (page faults, lazy binding; it also keeps the results to check). A
        # fast variant gets more samples, up to a small time budget: at small shapes a single call is
        # short enough for scheduler noise to dominate it.
        for name, (fn, n) in list(variants.items()):
            t0 = timing.now()
            try:
                fn()
            except Exception as exc:
                if name != "torch":
                    raise
                # a problem of the torch baseline must not hide the operator's numbers
                res.notes.append(f"torch baseline failed: {type(exc).__name__}: {exc}")
                del variants[name]
                continue
            dt = timing.now() - t0
            if name == "high-level":  # the first result is kept for the check: one more call fills the pools
                fn()
            if dt < FAST_BUDGET:  # a first call can be much slower (thread pools start): time a second
                t0 = timing.now()
                fn()
                dt = timing.now() - t0
            variants[name] = (fn, max(n, min(MAX_SAMPLES, int(FAST_BUDGET / max(dt, 1e-9)))))
        pools = (aclnn_py.get_memory_pool(), aclnn_py.get_host_memory_pool())
        hits = sum(p.hits() for p in pools)
        requests = hits + sum(p.misses() for p in pools)
        samples = timing.interleave(variants, warmup=0)
        hits = sum(p.hits() for p in pools) - hits
        requests = sum(p.hits() + p.misses() for p in pools) - requests
        if requests:
            res.pool_hit_rate = hits / requests
        res.times = {k: timing.median(v) for k, v in samples.items()}
        res.samples = {k: len(v) for k, v in samples.items()}
        if baselines:
            expected = _as_tuple(kept["numpy"])
            got_hl = _as_tuple(kept["high-level"])
            got_kernel = runner.results()
            bad = [name for name, got in (("kernel", got_kernel), ("high-level", got_hl))
                   if len(got) != len(expected) or not all(_same(g, e) for g, e in zip(got, expected))]
            res.check = "ok" if not bad else "DIFF(" + ",".join(bad) + ")"
    except Exception as exc:
        if _is_not_implemented(exc):
            res.status, res.detail = "not implemented", f"{type(exc).__name__}: {exc}"
        else:
            res.status = "error"
            res.detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    finally:
        if runner is not None:
            runner.close()
    return res


def sweep(ops, dts, base: Shape, hiddens, data: Data, repeat: int, progress=None):
    """Kernel and memcpy GB/s against the hidden size: {op: {dtype: [(H, kernel, memcpy)]}}."""
    curves: Dict[str, Dict[str, list]] = {}
    for op in ops:
        for dt in dts:
            if dt not in op_dtypes(op):
                continue
            for h in hiddens:
                s = Shape(base.tokens, h, base.topk, base.experts)
                r = measure(op, dt, s, data, repeat, 0, baselines=False)
                if progress:
                    progress(f"sweep {op.py_name} {dt} H={h}: {r.status}")
                if r.status == "error":
                    raise RuntimeError(f"{op.py_name} {dt} H={h}:\n{r.detail}")
                if r.status != "ok":
                    break
                curves.setdefault(op.py_name, {}).setdefault(dt, []).append((h, r.gbps, r.memcpy_gbps))
    return curves


# ---- the combine half: MoeTokenUnpermute and its backward -----------------------------------------------------------
# Inputs as the training step has them: the rows the experts produced (dropless: L = N*K), the permute's
# sortedIndicesOut, router weights of the tokens' dtype; no padded mode, no restore shape.

def _b_unpermute(s, dt, d):
    return (d.floats((s.slots, s.hidden), dt), _ranks(d.expert_ids(s)), d.floats((s.tokens, s.topk), dt), False, None)


def _b_unpermute_grad(s, dt, d):
    return (d.floats((s.slots, s.hidden), dt), d.floats((s.tokens, s.hidden), dt), _ranks(d.expert_ids(s)),
            d.floats((s.tokens, s.topk), dt), False, None)


def _t_unpermute(torch, x, idx, probs, padded_mode, restore_shape):
    rows = x.index_select(0, idx.long()).view(-1, probs.shape[1], x.shape[1]).float()
    return (rows * probs.float().unsqueeze(-1)).sum(1).to(x.dtype)


def _t_unpermute_grad(torch, x, g, idx, probs, padded_mode, restore_shape):
    k, h = probs.shape[1], x.shape[1]
    gf = g.float().unsqueeze(1)
    ptg = torch.zeros_like(x).index_copy_(0, idx.long(), (gf * probs.float().unsqueeze(-1)).view(-1, h).to(x.dtype))
    pg = (x.index_select(0, idx.long()).view(-1, k, h).float() * gf).sum(-1).to(probs.dtype)
    return ptg, pg


BYTES_MODEL.update({
    "moe_token_unpermute": (
        "read L*H rows + L idx + L probs; write N*H",
        lambda s, e: (s.slots * s.hidden * e + s.slots * 4 + s.slots * e, s.tokens * s.hidden * e)),
    "moe_token_unpermute_grad": (
        "read L*H rows + N*H grad + L idx + L probs; write L*H rows + L probs grad",
        lambda s, e: (s.slots * s.hidden * e + s.tokens * s.hidden * e + s.slots * 4 + s.slots * e,
                      s.slots * s.hidden * e + s.slots * e)),
})
BUILDERS.update({"moe_token_unpermute": _b_unpermute, "moe_token_unpermute_grad": _b_unpermute_grad})
TORCH_IMPLS.update({"moe_token_unpermute": _t_unpermute, "moe_token_unpermute_grad": _t_unpermute_grad})
# ---- aclnnMoeInitRoutingV3 ----------------------------------------------------------------------------------
# The unquantised row is the torch_npu call (dropless, full expert range, gather index, per-expert counts);
# the quantised modes are extra rows beside it (VARIANTS), so their throughput reads against the same bytes.

def _b_v3(s, dt, d, quant_mode=-1):
    x = d.floats((s.tokens, s.hidden), dt)
    scale, offset = (np.array([0.05], np.float32), np.array([0.5], np.float32)) if quant_mode == 0 else (None, None)
    return (x, d.expert_ids(s), scale, offset, -1, -1, s.experts, 0, 1, True, quant_mode, None, 0)


def _t_v3(torch, x, expert_idx, scale, offset, active_num, capacity, expert_num, mode, num_type, flag, quant_mode,
          expert_range, row_idx_type):
    k = expert_idx.shape[1]
    flat = expert_idx.reshape(-1)
    order = torch.sort(flat, stable=True).indices
    counts = torch.bincount(flat.long(), minlength=expert_num)
    return x.index_select(0, order // k), _inverse(torch, order).int(), counts


def _v3_bytes(scale_per_row: bool, out_itemsize: Optional[int]):
    """read N*H x + L expert ids; write L*H rows (of out_itemsize bytes, or x's) + L row idx + E counts (int64)
    (+ L row scales)."""
    def model(s, e):
        out = e if out_itemsize is None else out_itemsize
        return (s.tokens * s.hidden * e + s.slots * 4,
                s.slots * s.hidden * out + s.slots * 4 + s.experts * 8 + (s.slots * 4 if scale_per_row else 0))
    return model


BYTES_MODEL["moe_init_routing_v3"] = (
    "read N*H x + L expert ids; write L*H rows + L row idx + E int64 counts (INT8 rows quantised: + L row scales "
    "when dynamic)", _v3_bytes(False, None))
BUILDERS["moe_init_routing_v3"] = _b_v3
TORCH_IMPLS["moe_init_routing_v3"] = _t_v3
VARIANTS["moe_init_routing_v3"] = {
    "static INT8": (lambda s, dt, d: _b_v3(s, dt, d, 0), ("", _v3_bytes(False, 1))),
    "dynamic INT8": (lambda s, dt, d: _b_v3(s, dt, d, 1), ("", _v3_bytes(True, 1))),
}
# ---- MoeFinalizeRoutingV2 and its backward ------------------------------------------------------------
# The combine after a dropless MoeInitRoutingV2 (row-major slots, dropPadMode 2) with routing scales and a
# residual x1, and its backward (dropPadMode 0, gradients of expandedX and scales).

def _b_finalize(s, dt, d):
    return (d.floats((s.slots, s.hidden), dt), _ranks(d.expert_ids(s)), d.floats((s.tokens, s.hidden), dt), None,
            None, d.floats((s.tokens, s.topk), dt), None, 2)


def _b_finalize_grad(s, dt, d):
    return (d.floats((s.tokens, s.hidden), dt), _ranks(d.expert_ids(s)), d.floats((s.slots, s.hidden), dt),
            d.floats((s.tokens, s.topk), dt), None, None, 0, 0, 0, 0)


def _t_finalize(torch, ex, idx, x1, x2, bias, scales, expert_idx, mode):
    n, k = scales.shape
    rows = ex.index_select(0, idx.long()).view(n, k, ex.shape[1])
    return x1 + (rows * scales.unsqueeze(2)).sum(1)


def _t_finalize_grad(torch, gy, idx, ex, scales, expert_idx, bias, mode, active, expert_num, capacity):
    k = scales.shape[1]
    g = gy.repeat_interleave(k, 0)
    gex = torch.empty_like(ex)
    gex[idx.long()] = g * scales.reshape(-1, 1)
    return gex, (ex.index_select(0, idx.long()) * g).sum(1).view(scales.shape)


BYTES_MODEL.update({
    "moe_finalize_routing_v2": (
        "read L*H expert rows + N*H x1 + L idx + L scales; write N*H",
        lambda s, e: (s.slots * s.hidden * e + s.tokens * s.hidden * e + s.slots * 4 + s.slots * e,
                      s.tokens * s.hidden * e)),
    "moe_finalize_routing_v2_grad": (
        "read N*H gradY + L*H expandedX + L idx + L scales; write L*H + L gradScales",
        lambda s, e: (s.tokens * s.hidden * e + s.slots * s.hidden * e + s.slots * 4 + s.slots * e,
                      s.slots * s.hidden * e + s.slots * e)),
})
BUILDERS.update({"moe_finalize_routing_v2": _b_finalize, "moe_finalize_routing_v2_grad": _b_finalize_grad})
TORCH_IMPLS.update({"moe_finalize_routing_v2": _t_finalize, "moe_finalize_routing_v2_grad": _t_finalize_grad})
