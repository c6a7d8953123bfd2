"""aclnn_py.torch_npu: torch_npu's signatures (against the reference list extracted from op-plugin's schemas), the
numbers (against pure-torch references), shapes under FakeTensorMode, gradients, NotImplementedError for what the
stub lacks, and install()."""
from __future__ import annotations

import importlib.util
import inspect
import json
import re
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from aclnn_py import torch_npu as tnpu  # noqa: E402
from aclnn_py.torch_npu import _schema, _table  # noqa: E402


@pytest.fixture(autouse=True)
def _devices_released():
    """Devices a test set with torch_npu.npu.set_device are released after it (later tests see a clean runtime)."""
    yield
    tnpu.npu._release()

HERE = Path(__file__).parent
REFERENCE = json.loads((HERE / "data" / "torch_npu_signatures.json").read_text())
I32, I64, F16, F32 = torch.int32, torch.int64, torch.float16, torch.float32


# ---- signatures ---------------------------------------------------------------------------------------------------

def _params(fn) -> list:
    rows = []
    for p in inspect.signature(fn).parameters.values():
        kind = {p.POSITIONAL_OR_KEYWORD: "positional_or_keyword", p.KEYWORD_ONLY: "keyword_only"}[p.kind]
        rows.append([p.name, kind] + ([] if p.default is p.empty else [p.default]))
    return rows


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_signature_is_torch_npus(name):
    assert name in tnpu.FUNCTIONS
    assert _params(getattr(tnpu, name)) == REFERENCE[name]["params"]


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_table_schema_is_op_plugins(name):
    row = next(r for r in _table.ROWS if r.name == name)
    assert row.schema == REFERENCE[name]["schema"]


def test_schema_parser():
    name, params, ret = _schema.parse("f(Tensor x, int[2] r=[], *, str? m='PA_NZ', float e=1., bool b=True) -> "
                                      "(Tensor, Tensor)")
    assert (name, ret) == ("f", "(Tensor, Tensor)")
    assert [(p.name, p.type, p.keyword_only, p.default) for p in params] == [
        ("x", "Tensor", False, inspect.Parameter.empty), ("r", "int[2]", False, []), ("m", "str?", True, "PA_NZ"),
        ("e", "float", True, 1.0), ("b", "bool", True, True)]


def test_signature_binds_like_torch_npu():
    x, g = torch.ones(2, 4), torch.ones(4)
    with pytest.raises(TypeError):
        tnpu.npu_moe_gating_top_k_softmax_v2(x, 2)  # k is keyword-only
    with pytest.raises(TypeError):
        tnpu.npu_rms_norm(x, g, 1e-6, 3)
    y, rstd = tnpu.npu_rms_norm(x, gamma=g, epsilon=1e-5)
    assert y.shape == (2, 4) and rstd.shape == (2, 1)


# ---- numbers ------------------------------------------------------------------------------------------------------

def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _randn(*shape, dtype=F32, seed=0):
    return torch.randn(*shape, generator=_gen(seed)).to(dtype)


def _rms(x, g, eps=1e-6):
    rstd = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
    return x.float() * rstd * g.float(), rstd


def _rope_half(x, c, s):
    h1, h2 = x.chunk(2, -1)
    return x * c + torch.cat([-h2, h1], -1) * s


def _rope_interleave(x, c, s):
    r = torch.stack([-x[..., 1::2], x[..., 0::2]], -1).flatten(-2)
    return x * c + r * s


def _topk_idx(n=6, e=8, k=2, seed=1):
    return torch.randn(n, e, generator=_gen(seed)).topk(k, -1).indices.to(I32)


def _slots(idx):
    """The stable expert order of the flattened (token, k) slots, and each slot's destination row."""
    order = torch.sort(idx.flatten().long(), stable=True).indices
    dest = torch.empty_like(order)
    dest[order] = torch.arange(order.numel())
    return order, dest


def _attn_ref(q, k, v, causal=False):
    """BSND attention in float32."""
    o = F.scaled_dot_product_attention(q.float().transpose(1, 2), k.float().transpose(1, 2),
                                       v.float().transpose(1, 2), is_causal=causal, scale=q.shape[-1] ** -0.5)
    return o.transpose(1, 2)


def _case_rms():
    x, g = _randn(4, 16), _randn(16, seed=1).abs() + 0.5
    return (x, g), {}, _rms(x, g)


def _case_add_rms():
    x1, x2, g = _randn(3, 8), _randn(3, 8, seed=1), _randn(8, seed=2)
    y, rstd = _rms(x1 + x2, g)
    return (x1, x2, g), {"epsilon": 1e-6}, (y, rstd, x1 + x2)


def _case_swiglu(dim):
    def case():
        x = _randn(4, 6, 8)
        a, b = x.chunk(2, dim)
        return (x,), {"dim": dim}, (F.silu(a) * b,)
    return case


def _case_rope(mode, ref):
    def case():
        x, c, s = _randn(2, 3, 4, 8), _randn(1, 3, 1, 8, seed=1), _randn(1, 3, 1, 8, seed=2)
        return (x, c, s, mode), {}, (ref(x, c, s),)
    return case


def _case_gating():
    x = _randn(6, 8)
    v, i = x.softmax(-1).topk(2, -1)
    rows = torch.arange(12, dtype=I32).view(2, 6).T
    return (x, None), {"k": 2}, (v, i.to(I32), rows)


def _case_gating_v2():
    x = _randn(6, 8)
    v, i = x.softmax(-1).topk(3, -1)
    return (x,), {"k": 3, "renorm": 0, "output_softmax": True}, (v, i.to(I32), x.softmax(-1))


def _case_gating_top_k():
    x = _randn(5, 8)
    v, i = x.softmax(-1).topk(2, -1)
    return (x, 2), {"k_group": 1, "group_count": 1}, (v, i.to(I32))


def _case_expert_tokens():
    s = torch.tensor([0, 0, 1, 3, 3, 3], dtype=I32)
    return (s, 5), {}, (torch.tensor([2, 3, 3, 6, 6], dtype=I32),)


def _case_init_routing_v1():
    x, idx = _randn(6, 4), _topk_idx()
    row = torch.arange(12, dtype=I32).view(2, 6).T.contiguous()
    order = torch.sort(idx.flatten().long(), stable=True).indices
    src = row.flatten()[order].long()
    dest = torch.empty(12, dtype=I32)
    dest[src] = torch.arange(12, dtype=I32)
    return (x, row, idx, 6), {}, (x[src % 6], dest, idx.flatten()[order])


def _case_init_routing_v2(count_type):
    def case():
        x, idx = _randn(6, 4), _topk_idx()
        order, dest = _slots(idx)
        counts = torch.bincount(idx.flatten().long(), minlength=8)
        counts = counts.cumsum(0) if count_type == 0 else counts
        kw = dict(active_num=12, expert_num=8, expert_tokens_num_type=count_type, expert_tokens_num_flag=True)
        return (x, idx), kw, (x[order // 2], dest.to(I32), counts)
    return case


def _case_finalize():
    x, idx = _randn(6, 4), _topk_idx()
    order, dest = _slots(idx)
    expanded, scales, skip = x[order // 2] * 3, _randn(6, 2, seed=3), _randn(6, 4, seed=4)
    ref = skip + (scales[..., None] * expanded[dest.view(6, 2)]).sum(1)
    return (expanded, skip, None, None, scales, dest.to(I32), idx), {"drop_pad_mode": 2, "k": 2}, (ref,)


def _case_permute(num_out):
    def case():
        x, idx = _randn(6, 4), _topk_idx()
        order, dest = _slots(idx)
        rows = 12 if not num_out else num_out if num_out > 0 else 12 + num_out
        return (x, idx, num_out), {}, (x[order // 2][:rows], dest.to(I32))
    return case


def _case_unpermute():
    x, idx = _randn(6, 4), _topk_idx()
    order, dest = _slots(idx)
    probs = _randn(6, 2, seed=5).softmax(-1)
    permuted = x[order // 2] * 2
    ref = (probs[..., None] * permuted[dest.view(6, 2)]).sum(1)
    return (permuted, dest.to(I32), probs), {}, (ref,)


def _case_permute_routing_map():
    x = _randn(5, 4)
    rmap = torch.zeros(5, 3, dtype=torch.bool)
    rmap[[0, 0, 1, 1, 2, 2, 3, 3, 4, 4], [0, 1, 0, 2, 1, 2, 0, 2, 0, 1]] = True  # two experts a token
    probs = _randn(5, 3, seed=2).softmax(-1)
    tokens_of = rmap.T.nonzero()[:, 1]          # expert by expert, tokens in order
    pp = probs.T[rmap.T]
    return (x, rmap), {"probs": probs, "num_out_tokens": 10}, (x[tokens_of], pp)


def _case_unpermute_routing_map():
    x, rmap_probs = _case_permute_routing_map()[0][0], _case_permute_routing_map()[1]
    rmap, probs = _case_permute_routing_map()[0][1], rmap_probs["probs"]
    permuted, pprobs, sorted_idx = tnpu.npu_moe_token_permute_with_routing_map(x, rmap, probs=probs, num_out_tokens=10)
    ref = x * (probs * rmap).sum(1, keepdim=True)
    return (permuted, sorted_idx, [5, 4]), {"probs": probs, "routing_map": rmap}, (ref,)


def _case_gmm_split():
    x, w = _randn(10, 4), _randn(3, 4, 6, seed=1)
    counts = torch.tensor([3, 0, 7])
    starts = counts.cumsum(0) - counts
    ref = torch.cat([x[s:s + c] @ w[e] for e, (s, c) in enumerate(zip(starts, counts))])
    kw = dict(group_list=counts, split_item=2, group_type=0, group_list_type=1)
    return ([x], [w]), kw, ([ref],)


def _case_gmm_lists():
    xs, ws = [_randn(3, 4), _randn(2, 5, seed=1)], [_randn(4, 6, seed=2), _randn(5, 2, seed=3)]
    return (xs, ws), {"split_item": 0}, ([x @ w for x, w in zip(xs, ws)],)


def _case_quant_matmul(out_dtype, pertoken):
    def case():
        a = torch.randint(-8, 8, (4, 16), generator=_gen(1), dtype=torch.int8)
        b = torch.randint(-8, 8, (16, 6), generator=_gen(2), dtype=torch.int8)
        scale = torch.rand(6, generator=_gen(3)) / 16
        pt = torch.rand(4, generator=_gen(4)) if pertoken else None
        ref = (a.float() @ b.float()) * scale * (pt[:, None] if pertoken else 1)
        return (a, b, scale), {"pertoken_scale": pt, "output_dtype": out_dtype}, (ref,)
    return case


def _case_dynamic_quant():
    x = _randn(4, 16, dtype=F16)
    scale = x.float().abs().amax(-1) / 127
    return (x,), {}, (torch.round(x.float() / scale[:, None]), scale)


def _case_fusion_attention(layout, causal):
    def case():
        b, s, n, d = 2, 5, 2, 8
        q, k, v = (_randn(b, s, n, d, seed=i) for i in range(3))
        ref = _attn_ref(q, k, v, causal)
        tr = {"BSND": lambda t: t, "BNSD": lambda t: t.transpose(1, 2).contiguous(),
              "BSH": lambda t: t.reshape(b, s, n * d)}[layout]
        kw = {"scale": d ** -0.5}
        if causal:
            kw.update(atten_mask=torch.ones(s, s, dtype=torch.bool).triu(1), sparse_mode=0)
        return (tr(q), tr(k), tr(v), n, layout), kw, (tr(ref),)
    return case


def _case_fusion_attention_tnd():
    n, d, lens = 2, 8, [3, 2]
    q, k, v = (_randn(5, n, d, seed=i) for i in range(3))
    refs, s = [], 0
    for length in lens:
        refs.append(_attn_ref(q[None, s:s + length], k[None, s:s + length], v[None, s:s + length])[0])
        s += length
    kw = {"scale": d ** -0.5, "actual_seq_qlen": [3, 5], "actual_seq_kvlen": [3, 5]}
    return (q, k, v, n, "TND"), kw, (torch.cat(refs),)


def _case_fia(layout):
    def case():
        b, s, n, d = 2, 4, 2, 8
        q, k, v = (_randn(b, s, n, d, dtype=F16, seed=i) for i in range(3))
        tr = {"BSND": lambda t: t, "BSH": lambda t: t.reshape(b, s, n * d)}[layout]
        return (tr(q), tr(k), tr(v)), {"num_heads": n, "input_layout": layout, "scale": d ** -0.5}, (
            tr(_attn_ref(q, k, v)),)
    return case


def _case_self_attention():
    n, d, lens = 2, 8, [3, 2]
    q, k, v = (_randn(5, n, d, seed=i) for i in range(3))
    refs, s = [], 0
    for length in lens:
        sl = slice(s, s + length)
        s += length
        refs.append(_attn_ref(q[None, sl], k[None, sl], v[None, sl], causal=True)[0])
    out = torch.empty(5, n, d)
    mask = torch.full((8, 8), -10000.0).triu(1)
    return (q, k, v, mask, torch.tensor(lens, dtype=I32), d ** -0.5, n, n, out), {}, (out, torch.cat(refs))


# (function, case builder, tolerance, the result compared: None (the return value) or "inplace")
CASES = {
    "rms_norm": ("npu_rms_norm", _case_rms, 1e-6),
    "add_rms_norm": ("npu_add_rms_norm", _case_add_rms, 1e-6),
    "swiglu_last": ("npu_swiglu", _case_swiglu(-1), 1e-6),
    "swiglu_dim0": ("npu_swiglu", _case_swiglu(0), 1e-6),
    "rotary_half": ("npu_rotary_mul", _case_rope("half", _rope_half), 1e-6),
    "rotary_interleave": ("npu_rotary_mul", _case_rope("interleave", _rope_interleave), 1e-6),
    "gating_softmax": ("npu_moe_gating_top_k_softmax", _case_gating, 1e-6),
    "gating_softmax_v2": ("npu_moe_gating_top_k_softmax_v2", _case_gating_v2, 1e-6),
    "gating_top_k": ("npu_moe_gating_top_k", _case_gating_top_k, 1e-6),
    "compute_expert_tokens": ("npu_moe_compute_expert_tokens", _case_expert_tokens, 0),
    "init_routing": ("npu_moe_init_routing", _case_init_routing_v1, 0),
    "init_routing_v2_cumsum": ("npu_moe_init_routing_v2", _case_init_routing_v2(0), 0),
    "init_routing_v2_count": ("npu_moe_init_routing_v2", _case_init_routing_v2(1), 0),
    "finalize_routing": ("npu_moe_finalize_routing", _case_finalize, 1e-5),
    "token_permute": ("npu_moe_token_permute", _case_permute(None), 0),
    "token_permute_num_out": ("npu_moe_token_permute", _case_permute(7), 0),
    "token_permute_drop_tail": ("npu_moe_token_permute", _case_permute(-3), 0),
    "token_unpermute": ("npu_moe_token_unpermute", _case_unpermute, 1e-6),
    "permute_routing_map": ("npu_moe_token_permute_with_routing_map", _case_permute_routing_map, 0),
    "unpermute_routing_map": ("npu_moe_token_unpermute_with_routing_map", _case_unpermute_routing_map, 1e-6),
    "grouped_matmul_split": ("npu_grouped_matmul", _case_gmm_split, 1e-5),
    "grouped_matmul_lists": ("npu_grouped_matmul", _case_gmm_lists, 1e-5),
    "quant_matmul_fp16": ("npu_quant_matmul", _case_quant_matmul(F16, False), 2e-2),
    "quant_matmul_bf16_pertoken": ("npu_quant_matmul", _case_quant_matmul(torch.bfloat16, True), 1e-1),
    "dynamic_quant": ("npu_dynamic_quant", _case_dynamic_quant, 1e-6),
    "fusion_attention_bsnd": ("npu_fusion_attention", _case_fusion_attention("BSND", False), 1e-5),
    "fusion_attention_bnsd_causal": ("npu_fusion_attention", _case_fusion_attention("BNSD", True), 1e-5),
    "fusion_attention_bsh": ("npu_fusion_attention", _case_fusion_attention("BSH", False), 1e-5),
    "fusion_attention_tnd": ("npu_fusion_attention", _case_fusion_attention_tnd, 1e-5),
    "fused_infer_attention_bsnd": ("npu_fused_infer_attention_score", _case_fia("BSND"), 2e-3),
    "fused_infer_attention_bsh": ("npu_fused_infer_attention_score", _case_fia("BSH"), 2e-3),
}


def _close(got, ref, tol, what):
    assert got.shape == ref.shape, f"{what}: shape {tuple(got.shape)}, expected {tuple(ref.shape)}"
    if got.dtype.is_floating_point or ref.dtype.is_floating_point:
        err = (got.float() - ref.float()).abs().max().item() if got.numel() else 0.0
        assert err <= tol * max(1.0, ref.float().abs().max().item()), f"{what}: largest error {err}"
    else:
        assert torch.equal(got.to(I64), ref.to(I64)), f"{what}: {got} != {ref}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_numbers_against_torch(case):
    name, build, tol = CASES[case]
    args, kwargs, refs = build()
    got = getattr(tnpu, name)(*args, **kwargs)
    got = got if isinstance(got, tuple) else (got,)
    for i, ref in enumerate(refs):
        if isinstance(ref, list):
            assert len(got[i]) == len(ref)
            for j, (g, r) in enumerate(zip(got[i], ref)):
                _close(g, r, tol, f"{name} result {i}[{j}]")
        else:
            _close(got[i], ref, tol, f"{name} result {i}")


def test_torch_tensors_are_lent_not_copied():
    """On the stub the inputs and outputs are lent to the operator in place (DLPack): the call takes no block of
    the device pool, which the copying path (ACLNN_PY_ZERO_COPY=0) uploads every tensor into."""
    import aclnn_py
    if not aclnn_py.backend().lends_host_memory:
        pytest.skip("the backend copies (a toolkit, or ACLNN_PY_ZERO_COPY=0)")
    pool = aclnn_py.get_memory_pool()
    x, g = _randn(256, 512), _randn(512, seed=1)
    before = (pool.hits(), pool.misses())
    y, _ = tnpu.npu_rms_norm(x, g)
    assert (pool.hits(), pool.misses()) == before
    _close(y, _rms(x, g)[0], 1e-5, "rms norm")


def test_fusion_attention_returns_torch_npus_tuple():
    q = _randn(1, 3, 2, 4)
    out = tnpu.npu_fusion_attention(q, q, q, 2, "BSND", seed=5, offset=7)
    assert len(out) == 7 and out[4:] == (5, 7, 0)
    assert out[1].shape == out[2].shape == (1, 2, 3, 8) and out[3].numel() == 0


def test_self_attention_writes_out():
    args, _, (out, ref) = _case_self_attention()
    assert tnpu._npu_flash_attention(*args) is None
    _close(out, ref, 1e-5, "_npu_flash_attention out")


def test_self_attention_refuses_other_masks():
    args = list(_case_self_attention()[0])
    args[3] = torch.zeros(8, 8)
    with pytest.raises(NotImplementedError, match="causal"):
        tnpu._npu_flash_attention(*args)


def _case_splitfuse():
    n, kvn, d, bs, q_lens, kv_lens = 4, 2, 16, 4, [3, 1], [6, 5]
    q = _randn(4, n, d, dtype=F16)
    kc, vc = _randn(8, bs, kvn, d, dtype=F16, seed=1), _randn(8, bs, kvn, d, dtype=F16, seed=2)
    table = torch.tensor([[0, 1], [5, 3]], dtype=I32)
    positions = torch.tensor([3, 4, 5, 4])   # each query token's position in its sequence
    mask = torch.where(torch.arange(8)[None, :] <= positions[:, None], 0.0, -10000.0).to(F16)
    refs, s = [], 0
    for b, (q_len, kv_len) in enumerate(zip(q_lens, kv_lens)):
        k = kc[table[b].long()].reshape(-1, kvn, d)[:kv_len].float().repeat_interleave(n // kvn, 1)
        v = vc[table[b].long()].reshape(-1, kvn, d)[:kv_len].float().repeat_interleave(n // kvn, 1)
        scores = torch.einsum("ind,jnd->nij", q[s:s + q_len].float(), k) * d ** -0.5
        hidden = torch.arange(kv_len)[None, :] > torch.arange(q_len)[:, None] + kv_len - q_len
        refs.append(torch.einsum("nij,jnd->ind", scores.masked_fill(hidden, float("-inf")).softmax(-1), v))
        s += q_len
    out = torch.empty(4, n, d, dtype=F16)
    args = (q, kc, vc, table, torch.tensor(kv_lens, dtype=I32), mask, torch.tensor(q_lens, dtype=I32), kvn, n,
            d ** -0.5, out)
    return args, torch.cat(refs)


def test_paged_attention_splitfuse():
    args, ref = _case_splitfuse()
    assert tnpu._npu_paged_attention_splitfuse(*args) is None
    _close(args[-1], ref, 2e-3, "_npu_paged_attention_splitfuse out")
    args = list(args)
    args[5] = torch.zeros_like(args[5])   # a mask hiding nothing is not the chunked-prefill one
    with pytest.raises(NotImplementedError, match="chunked-prefill causal mask"):
        tnpu._npu_paged_attention_splitfuse(*args)


def test_paged_attention_decode():
    n, kvn, d, bs, kv_lens = 4, 2, 16, 4, [6, 1, 8]
    q = _randn(3, n, d, dtype=F16)
    kc, vc = _randn(8, bs, kvn, d, dtype=F16, seed=1), _randn(8, bs, kvn, d, dtype=F16, seed=2)
    table = torch.tensor([[0, 1], [5, 3], [2, 7]], dtype=I32)
    refs = []
    for b, kv_len in enumerate(kv_lens):
        k = kc[table[b].long()].reshape(-1, kvn, d)[:kv_len].float().repeat_interleave(n // kvn, 1)
        v = vc[table[b].long()].reshape(-1, kvn, d)[:kv_len].float().repeat_interleave(n // kvn, 1)
        p = (torch.einsum("nd,jnd->nj", q[b].float(), k) * d ** -0.5).softmax(-1)
        refs.append(torch.einsum("nj,jnd->nd", p, v))
    out = torch.empty(3, n, d, dtype=F16)
    assert tnpu._npu_paged_attention(q, kc, vc, kvn, n, d ** -0.5, table, torch.tensor(kv_lens, dtype=I32),
                                     out) is None
    _close(out, torch.stack(refs), 2e-3, "_npu_paged_attention out")


@pytest.mark.parametrize("fn", ["_npu_reshape_and_cache", "npu_scatter_pa_kv_cache"])
def test_kv_cache_round_trip(fn):
    n, d = 2, 4
    kc, vc = torch.zeros(4, 4, n, d), torch.zeros(4, 4, n, d)
    key, val = _randn(3, n, d), _randn(3, n, d, seed=1)
    slots = torch.tensor([0, 5, 9], dtype=I32)
    extra = {"cache_mode": "Norm"} if fn == "npu_scatter_pa_kv_cache" else {}
    assert getattr(tnpu, fn)(key, val, kc, vc, slots, **extra) is None
    assert torch.equal(kc.view(-1, n, d)[slots.long()], key) and torch.equal(vc.view(-1, n, d)[slots.long()], val)
    assert kc.count_nonzero() == key.count_nonzero()
    # read back through a block table: sequence 0 holds slots 0..9 in blocks 0, 1, 2
    k_out, v_out = torch.empty(10, n, d), torch.empty(10, n, d)
    tnpu.npu_gather_pa_kv_cache(kc, vc, torch.tensor([[0, 1, 2]], dtype=I32), torch.tensor([10], dtype=I32),
                                k_out, v_out)
    assert torch.equal(k_out, kc.view(-1, n, d)[:10]) and torch.equal(v_out, vc.view(-1, n, d)[:10])


def test_scatter_pa_kv_cache_default_mode_is_pa_nz():
    from aclnn_py import errors
    kc = torch.zeros(2, 4, 1, 4)
    with pytest.raises(errors.AclnnError, match="PA_NZ"):
        tnpu.npu_scatter_pa_kv_cache(_randn(1, 1, 4), _randn(1, 1, 4), kc, kc.clone(), torch.zeros(1, dtype=I32))


def test_init_routing_quant_dynamic():
    x, idx = _randn(6, 8), _topk_idx(6, 4)
    order, dest = _slots(idx)
    ex, row_idx, counts, before, scale = tnpu.npu_moe_init_routing_quant(x, idx, active_num=12, expert_num=4,
                                                                          quant_mode=1)
    assert ex.dtype == torch.int8 and ex.shape == (12, 8) and scale.shape == (12,)
    assert torch.equal(row_idx, dest.to(I32))
    rows = x[order // 2]
    _close(scale, rows.abs().amax(-1) / 127, 1e-6, "dynamic scale")
    assert (ex.float() * scale[:, None] - rows).abs().max() <= scale.max() / 2 + 1e-6
    assert counts.count_nonzero() == 0 and before.count_nonzero() == 0  # their flags are off: zeros


def test_dynamic_quant_asymmetric_reconstructs():
    x = _randn(4, 16, dtype=F16)
    y, scale, offset = tnpu.npu_dynamic_quant_asymmetric(x)
    assert y.dtype == torch.int8 and scale.shape == offset.shape == (4,)
    _close(scale, (x.float().amax(-1) - x.float().amin(-1)) / 255, 1e-3, "scale")
    assert ((y.float() - offset[:, None]) * scale[:, None] - x.float()).abs().max() <= scale.max() / 2 + 1e-3


def test_format_cast_keeps_the_elements():
    x = _randn(4, 6)
    assert tnpu.npu_format_cast(x, tnpu.Format.FRACTAL_NZ) is x
    assert tnpu.npu_format_cast(input=x, acl_format=2, customize_dtype=None) is x


def test_grouped_matmul_group_list_as_ints():
    (xs, ws), kw, (ref,) = _case_gmm_split()
    kw = dict(kw, group_list=[3, 3, 10], group_list_type=0)  # the int[] overload, cumulative
    _close(tnpu.npu_grouped_matmul(xs, ws, **kw)[0], ref[0], 1e-5, "group_list as ints")


def test_fusion_attention_dropout_with_a_given_mask():
    b, s, n, d = 1, 4, 2, 8
    q, k, v = (_randn(b, s, n, d, seed=i) for i in range(3))
    keep = torch.rand(b, n, s, s, generator=_gen(3)) < 0.7
    bits = keep.flatten().view(-1, 8).to(torch.uint8)
    packed = (bits << torch.arange(8, dtype=torch.uint8)).sum(1).to(torch.uint8)
    out = tnpu.npu_fusion_attention(q, k, v, n, "BSND", scale=d ** -0.5, keep_prob=0.7, dropout_mask=packed)
    p = torch.softmax(q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2) * d ** -0.5, -1)
    ref = ((p * keep / 0.7) @ v.transpose(1, 2)).transpose(1, 2)
    _close(out[0], ref, 1e-5, "dropout attention")
    assert out[6] == b * n * s * s


def test_dtype_arguments_take_torch_dtypes_and_numbers():
    g = torch.arange(6, dtype=F32).view(3, 2)
    idx = torch.tensor([1, 0, 2], dtype=I32)
    a = tnpu.npu_moe_token_permute_grad_v2(g, idx, 3, torch.float32, 1)
    assert a.dtype == F32 and torch.equal(a[idx.long()], g)


@pytest.mark.parametrize("version", ["", "_v2"])
def test_distribute_dispatch_then_combine_across_ranks(version):
    """Four ranks (threads, one stub device each, set with torch_npu.npu.set_device as NPU code does), group_ep the
    communicator's name: the experts scale their rows by (expert + 2), so the combine gives
    sum_k scale * (expert + 2) * x for every token."""
    import aclnn_py
    if not aclnn_py.backend().is_stub:
        pytest.skip("ranks as threads of the stub")
    from helpers_hccl import Ranks

    w, e, bs, k, h = 4, 8, 3, 2, 16
    g = _gen(7)
    xs = [torch.randint(-8, 9, (bs, h), generator=g).to(torch.bfloat16) for _ in range(w)]
    ids = [torch.stack([torch.randperm(e, generator=g)[:k] for _ in range(bs)]).to(I32) for _ in range(w)]
    scales = [torch.randint(1, 4, (bs, k), generator=g).to(F32) for _ in range(w)]
    dispatch = getattr(tnpu, "npu_moe_distribute_dispatch" + version)
    combine = getattr(tnpu, "npu_moe_distribute_combine" + version)

    def rank(c):
        tnpu.npu.set_device(c.rank)
        out = dispatch(xs[c.rank], ids[c.rank], c.name, w, c.rank, e)
        expand_x, _, assist, counts, recv, _, _ = out
        per, start = e // w, 0
        y = expand_x.float()
        for local in range(per):
            n = int(recv[(local + 1) * w - 1]) - start
            y[start:start + n] *= c.rank * per + local + 2
            start += n
        assert int(counts.sum()) == start
        return out, combine(y.to(torch.bfloat16), ids[c.rank], assist, recv, scales[c.rank], c.name, w, c.rank, e)

    with Ranks(w) as ranks:
        results = ranks.run(rank)
    for r, (out, x) in enumerate(results):
        assert len(out) == 7 and out[0].shape == (bs * w * min(e // w, k), h) and out[3].dtype == I64
        want = (scales[r][..., None] * (ids[r][..., None].float() + 2) * xs[r][:, None, :].float()).sum(1)
        assert torch.equal(x.float(), want.to(torch.bfloat16).float())


def test_distribute_combine_add_rms_norm_across_ranks(monkeypatch):
    """npu_moe_distribute_dispatch_v2, then npu_moe_distribute_combine_add_rms_norm (an Atlas A3 operator: the SoC
    name set to one): x = combine + residual, y = x * rstd * gamma."""
    import aclnn_py
    if not aclnn_py.backend().is_stub:
        pytest.skip("ranks as threads of the stub")
    from helpers_hccl import Ranks

    monkeypatch.setenv("ACLNN_STUB_SOC_NAME", "Ascend910_9391")
    w, e, bs, k, h = 2, 4, 3, 2, 16
    g = _gen(9)
    xs = [torch.randint(-8, 9, (bs, h), generator=g).to(torch.bfloat16) for _ in range(w)]
    ids = [torch.stack([torch.randperm(e, generator=g)[:k] for _ in range(bs)]).to(I32) for _ in range(w)]
    scales = [torch.randint(1, 4, (bs, k), generator=g).to(F32) for _ in range(w)]
    res = [torch.randint(-4, 5, (bs, 1, h), generator=g).to(torch.bfloat16) for _ in range(w)]
    gamma = torch.ones(h, dtype=torch.bfloat16)

    def rank(c):
        tnpu.npu.set_device(c.rank)
        expand_x, _, assist, _, recv, _, _ = tnpu.npu_moe_distribute_dispatch_v2(xs[c.rank], ids[c.rank], c.name, w,
                                                                                 c.rank, e)
        return tnpu.npu_moe_distribute_combine_add_rms_norm(expand_x, ids[c.rank], assist, recv, scales[c.rank],
                                                            res[c.rank], gamma, c.name, w, c.rank, e)

    with Ranks(w) as ranks:
        results = ranks.run(rank)
    for r, (y, rstd, x) in enumerate(results):
        combined = (scales[r][..., None] * xs[r][:, None, :].float()).sum(1).to(torch.bfloat16).float()
        want_x = combined + res[r][:, 0].float()
        assert torch.equal(x[:, 0].float(), want_x.to(torch.bfloat16).float())
        want_rstd = torch.rsqrt(want_x.double().pow(2).mean(-1) + 1e-6)
        _close(rstd[:, 0, 0].double(), want_rstd, 1e-5, "rstd")
        _close(y[:, 0].float(), (want_x * want_rstd[:, None]).float(), 2e-2, "y")


# ---- shapes without data -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
def test_fake_shapes_match_real(case):
    from torch._subclasses.fake_tensor import FakeTensorMode

    name, build, _ = CASES[case]
    args, kwargs, _ = build()
    real = getattr(tnpu, name)(*args, **kwargs)
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        conv = lambda v: mode.from_tensor(v) if isinstance(v, torch.Tensor) else (  # noqa: E731
            [conv(t) for t in v] if isinstance(v, list) and v and isinstance(v[0], torch.Tensor) else v)
        fake = getattr(tnpu, name)(*[conv(a) for a in args], **{k: conv(v) for k, v in kwargs.items()})

    def flat(r):
        r = r if isinstance(r, (tuple, list)) else [r]
        return [x for v in r for x in (v if isinstance(v, list) else [v])]
    for f, r in zip(flat(fake), flat(real)):
        if isinstance(r, torch.Tensor):
            assert (tuple(f.shape), f.dtype) == (tuple(r.shape), r.dtype)
        else:
            assert f == r


def test_torch_compile_traces_the_operators():
    def layer(x, g):
        y, _ = tnpu.npu_rms_norm(x, g)
        return tnpu.npu_swiglu(y)
    x, g = _randn(4, 8), _randn(8, seed=1)
    from torch.fx.experimental.proxy_tensor import make_fx
    gm = make_fx(layer, tracing_mode="fake")(x, g)
    called = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    assert {"aclnn_npu.npu_rms_norm.default", "aclnn_npu.npu_swiglu.default"} <= called
    assert torch.equal(gm(x, g), layer(x, g))


def test_torch_compile_fullgraph_with_backward():
    """One graph (no break at the custom operators), forward and backward through the fake kernels; the results
    and gradients equal eager's."""
    def layer(x, g):
        return tnpu.npu_swiglu(tnpu.npu_rms_norm(x, g)[0])
    x, g = _randn(4, 8), _randn(8, seed=1)
    compiled = torch.compile(layer, backend="aot_eager", fullgraph=True)
    leaves = [x.clone().requires_grad_(), g.clone().requires_grad_()]
    eager = [x.clone().requires_grad_(), g.clone().requires_grad_()]
    out, ref = compiled(*leaves), layer(*eager)
    assert torch.equal(out, ref)
    for a, b in zip(torch.autograd.grad(out.sum(), leaves), torch.autograd.grad(ref.sum(), eager)):
        assert torch.equal(a, b)


# ---- gradients: the stub's grad operators against torch autograd of the references (float32: the operators take no
# float64) -----------------------------------------------------------------------------------------------------------

def _unperm_data():
    return _slots(_topk_idx())[1].to(I32)


GRADS = {
    # name: (inputs, shim(*inputs) -> tensor, reference(*inputs) -> tensor, tolerance)
    "rms_norm": ((_randn(4, 16), _randn(16, seed=1).abs() + 0.5), lambda x, g: tnpu.npu_rms_norm(x, g)[0],
                 lambda x, g: _rms(x, g)[0], 1e-5),
    "swiglu": ((_randn(4, 8),), tnpu.npu_swiglu, lambda x: F.silu(x.chunk(2, -1)[0]) * x.chunk(2, -1)[1], 1e-5),
    "rotary_mul": ((_randn(2, 3, 4, 8), _randn(1, 3, 1, 8, seed=1), _randn(1, 3, 1, 8, seed=2)),
                   tnpu.npu_rotary_mul, _rope_half, 1e-5),
    "token_permute": ((_randn(6, 4),), lambda x: tnpu.npu_moe_token_permute(x, _topk_idx())[0],
                      lambda x: x[_slots(_topk_idx())[0] // 2], 0),
    "token_unpermute": ((_randn(12, 4), _randn(6, 2, seed=5).softmax(-1)),
                        lambda p, pr: tnpu.npu_moe_token_unpermute(p, _unperm_data(), pr),
                        lambda p, pr: (pr[..., None] * p[_unperm_data().long().view(6, 2)]).sum(1), 1e-5),
    "init_routing_v2": ((_randn(6, 4),),
                        lambda x: tnpu.npu_moe_init_routing_v2(x, _topk_idx(), active_num=12, expert_num=8)[0],
                        lambda x: x[_slots(_topk_idx())[0] // 2], 0),
    "finalize_routing": ((_randn(12, 4), _randn(6, 4, seed=4), _randn(6, 2, seed=3)),
                         lambda e, s1, sc: tnpu.npu_moe_finalize_routing(e, s1, None, None, sc, _unperm_data(),
                                                                         _topk_idx(), drop_pad_mode=2, k=2),
                         lambda e, s1, sc: s1 + (sc[..., None] * e[_unperm_data().long().view(6, 2)]).sum(1), 1e-5),
    "finalize_routing_column_major": (
        (_randn(12, 4), _randn(6, 2, seed=3)),
        lambda e, sc: tnpu.npu_moe_finalize_routing(e, None, None, None, sc,
                                                    _unperm_data().view(6, 2).T.contiguous().view(-1), _topk_idx(),
                                                    drop_pad_mode=0, k=2),
        lambda e, sc: (sc[..., None] * e[_unperm_data().long().view(6, 2)]).sum(1), 1e-5),
    "permute_routing_map": ((_randn(5, 4), _case_permute_routing_map()[1]["probs"]),
                            lambda x, p: sum(t.sum() * (i + 1) for i, t in enumerate(
                                tnpu.npu_moe_token_permute_with_routing_map(
                                    x, _case_permute_routing_map()[0][1], probs=p, num_out_tokens=10)[:2])),
                            lambda x, p: sum(t.sum() * (i + 1) for i, t in enumerate(
                                _case_permute_routing_map_ref(x, p))), 1e-5),
    "fusion_attention_tnd": (_case_fusion_attention_tnd()[0][:3],
                             lambda q, k, v: tnpu.npu_fusion_attention(q, k, v, *_case_fusion_attention_tnd()[0][3:],
                                                                       **_case_fusion_attention_tnd()[1])[0],
                             lambda q, k, v: torch.cat([_attn_ref(q[None, :3], k[None, :3], v[None, :3])[0],
                                                        _attn_ref(q[None, 3:], k[None, 3:], v[None, 3:])[0]]), 1e-5),
    "fusion_attention": (tuple(_randn(1, 4, 2, 8, seed=i) for i in range(3)),
                         lambda q, k, v: tnpu.npu_fusion_attention(q, k, v, 2, "BSND", scale=8 ** -0.5)[0],
                         lambda q, k, v: _attn_ref(q, k, v), 1e-5),
}


def _case_permute_routing_map_ref(x, probs):
    rmap = _case_permute_routing_map()[0][1]
    return x[rmap.T.nonzero()[:, 1]], probs.T[rmap.T]


@pytest.mark.parametrize("case", sorted(GRADS))
def test_gradients_against_torch_autograd(case):
    inputs, shim, ref, tol = GRADS[case]
    a = [t.clone().requires_grad_() for t in inputs]
    b = [t.clone().requires_grad_() for t in inputs]
    out_a, out_b = shim(*a), ref(*b)
    weight = torch.randn(out_b.shape, generator=_gen(9))
    ga = torch.autograd.grad((out_a * weight).sum(), a)
    gb = torch.autograd.grad((out_b * weight).sum(), b)
    for i, (x, y) in enumerate(zip(ga, gb)):
        _close(x, y, tol, f"{case}: gradient of input {i}")


def test_rms_norm_backward_matches_autograd():
    x, g = _randn(4, 16), _randn(16, seed=1)
    dy = _randn(4, 16, seed=2)
    _, rstd = tnpu.npu_rms_norm(x, g)
    dx, dgamma = tnpu.npu_rms_norm_backward(dy, x, g, rstd)
    xr, gr = x.clone().requires_grad_(), g.clone().requires_grad_()
    ex, eg = torch.autograd.grad((_rms(xr, gr)[0] * dy).sum(), (xr, gr))
    _close(dx, ex, 1e-5, "dx")
    _close(dgamma, eg, 1e-5, "dgamma")


def test_convert_weight_to_int4pack_packs_eight_to_an_int32():
    w = torch.randint(-8, 8, (4, 16), dtype=torch.int32)
    got = tnpu.npu_convert_weight_to_int4pack(w)
    nib = (w & 0xF).to(torch.int64).reshape(4, 2, 8)
    want = (nib << (4 * torch.arange(8))).sum(-1)
    want = torch.where(want >= 2 ** 31, want - 2 ** 32, want).to(torch.int32)
    assert got.dtype == torch.int32 and got.shape == (4, 2)
    assert torch.equal(got, want)


# ---- what the stub lacks ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", tnpu.MISSING)
def test_missing_operators_raise(name):
    sig = inspect.signature(getattr(tnpu, name))
    required = [None for p in sig.parameters.values() if p.default is p.empty and p.kind == p.POSITIONAL_OR_KEYWORD]
    with pytest.raises(NotImplementedError, match=f"torch_npu.{name} is not implemented: it needs .*(aclnn|ATB)"):
        getattr(tnpu, name)(*required)


def test_unsupported_arguments_raise_naming_them():
    x = _randn(4, 8, dtype=F16)
    with pytest.raises(NotImplementedError, match="quant_mode 'perchannel'"):
        tnpu.npu_dynamic_quant(x, quant_mode="perchannel")
    with pytest.raises(NotImplementedError, match="rotate"):
        tnpu.npu_rotary_mul(_randn(1, 1, 1, 8), _randn(1, 1, 1, 8), _randn(1, 1, 1, 8), rotate=_randn(8, 8))
    q = _randn(1, 2, 2, 4)
    with pytest.raises(NotImplementedError, match="dropout"):
        tnpu.npu_fusion_attention(q, q, q, 2, "BSND", keep_prob=0.9)


def test_guide_lists_what_raises_and_what_differentiates():
    guide = (HERE.parent / "docs" / "guide" / "torch-npu.md").read_text()
    raising = guide[guide.index("### What raises NotImplementedError"):guide.index("## The example")]
    assert set(re.findall(r"`(_?npu_\w+)`", raising.split("Arguments an operator does not take")[0])) == set(
        tnpu.MISSING)
    from aclnn_py.torch_npu import _autograd
    table = guide[guide.index("| function | backward operator |"):guide.index("None of these operators")]
    documented = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    assert documented == {n.lstrip("_") for n in _autograd.RULES}


# ---- install -------------------------------------------------------------------------------------------------------

def test_install_provides_import_torch_npu_and_uninstall_restores():
    saved = {k: sys.modules.get(k) for k in ("torch_npu", "torch_npu.npu")}
    had_npu, npu_attr = hasattr(torch, "npu"), getattr(torch, "npu", None)
    try:
        module = tnpu.install()
        assert tnpu.install() is module  # twice is harmless
        import torch_npu
        from torch_npu import npu_moe_init_routing_v2

        assert torch_npu is tnpu and npu_moe_init_routing_v2 is tnpu.npu_moe_init_routing_v2
        assert torch_npu.npu.device_count() >= 1 and torch.npu.is_available()
        torch_npu.npu.synchronize()
        stream = torch.npu.current_stream()
        stream.wait_stream(torch_npu.npu.Stream())
        stream.synchronize()
        assert torch_npu.npu.current_device() == 0
        free, total = torch_npu.npu.mem_get_info()
        assert 0 < free <= total
        x = torch.ones(2, 4)
        assert torch.equal(torch_npu.npu_swiglu(x), F.silu(x[:, :2]) * x[:, 2:])
    finally:
        tnpu.uninstall()
    assert {k: sys.modules.get(k) for k in saved} == saved
    assert hasattr(torch, "npu") == had_npu and getattr(torch, "npu", None) is npu_attr


def test_a_suite_written_for_an_npu_runs_with_the_shim():
    """examples/torch_npu_suite: NPU-style tests (`import torch_npu` at the top) and the conftest that installs the
    shim, run by pytest in this process; afterwards torch_npu is gone from sys.modules again."""
    suite = HERE.parent / "examples" / "torch_npu_suite"
    outcomes = []

    class Collect:
        def pytest_runtest_logreport(self, report):
            if report.when == "call" or report.outcome != "passed":
                outcomes.append((report.nodeid, report.outcome))

    saved = {k: sys.modules.get(k) for k in ("torch_npu", "torch_npu.npu")}
    code = pytest.main([str(suite), "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:benchmark",
                        "--import-mode=importlib", "-o", "addopts="], plugins=[Collect()])
    assert code == 0, outcomes
    assert sorted(o for _, o in outcomes) == ["passed"] * 4, outcomes
    assert {k: sys.modules.get(k) for k in saved} == saved


# ---- the example ---------------------------------------------------------------------------------------------------

def test_moe_example():
    path = HERE.parent / "examples" / "torch_npu_moe.py"
    spec = importlib.util.spec_from_file_location("torch_npu_moe_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    errors = module.main(verbose=False)
    assert set(errors) == {"forward", "training_forward", "grad_x", "grad_gamma", "grad_w13", "grad_w2"}
    assert max(errors.values()) < 1e-5, errors
