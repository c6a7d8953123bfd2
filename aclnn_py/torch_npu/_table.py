"""The table behind `aclnn_py.torch_npu`: one row per torch_npu function.

A row gives torch_npu's schema (op-plugin's `op_plugin_functions.yaml`, or the ATB registration), the aclnn
operator computing it, the outputs torch_npu's meta function gives (shape and dtype, from the arguments: the
same rule allocates the real outputs and the fake ones), how the arguments become the operator's C parameters,
and which results the function returns. A row with no operator raises NotImplementedError naming the operator
the stub lacks.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from types import SimpleNamespace as A  # noqa: N814  (the bound arguments of one call)
from typing import Any, Callable, Optional

import torch

I32, I64, F32, I8 = torch.int32, torch.int64, torch.float32, torch.int8
Outs = list  # [(C output name, shape, dtype)]; shape None: the optional output is not produced (NULL)


@dataclass
class Row:
    name: str
    schema: str
    op: Optional[str | Callable[[A], str]] = None  # aclnn operator (or a rule choosing it); None: not in the stub
    args: Callable[[A], dict] = lambda a: {}        # C inputs and attributes by C name
    outs: Callable[[A], Outs] = lambda a: []        # C outputs: name, shape, dtype
    ret: Optional[Callable[[A, dict], Any]] = None  # the returned value from the outputs (default: all, C order)
    missing: str = ""                               # for op None: what the stub lacks
    check: Optional[Callable[[A], None]] = None     # argument rules the operator cannot see
    renames: dict = field(default_factory=dict)     # schema name -> Python parameter name
    via: Optional[Callable[[Any, A], Any]] = None   # composed of other rows' operators: (torch.ops.aclnn_npu, a)


def _nie(what: str):
    raise NotImplementedError(what)  # an argument the stub's operator does not take


# ---- shape helpers ------------------------------------------------------------------------------------------------

def _rows(x) -> list:
    return list(x.shape[:-1])


def _attn_dims(layout: str, q, heads: int):
    """(B, N, Sq) of a query in a FlashAttention layout; T for TND as B."""
    s = q.shape
    if layout == "BSH":
        return s[0], heads, s[1]
    if layout == "SBH":
        return s[1], heads, s[0]
    if layout == "BSND":
        return s[0], s[2], s[1]
    if layout in ("BNSD", "BNSD_BSND"):
        return s[0], s[1], s[2]
    if layout == "TND":
        return s[0], s[1], None
    raise ValueError(f"input_layout must be one of BSH, SBH, BSND, BNSD, TND, got {layout!r}")


def _fa_outs(a):
    b, n, sq = _attn_dims(a.input_layout, a.query, a.head_num)
    stat = [n, b, 8] if sq is None else [b, n, sq, 8]  # TND: (N, T, 8)
    return [("softmaxMaxOut", stat, F32), ("softmaxSumOut", stat, F32), ("softmaxOutOut", [0], a.query.dtype),
            ("attentionOutOut", list(a.query.shape), a.query.dtype)]


def _fa_check(a):
    if a.keep_prob < 1 and a.dropout_mask is None:
        _nie("npu_fusion_attention: keep_prob < 1 needs the device's dropout mask generator; pass dropout_mask=")
    if a.sink is not None:
        _nie("npu_fusion_attention: sink is not supported by aclnnFlashAttentionScore")
    if a.input_layout == "TND" and (a.actual_seq_qlen is None or a.actual_seq_kvlen is None):
        raise ValueError("npu_fusion_attention: input_layout 'TND' needs actual_seq_qlen and actual_seq_kvlen")


def _fa_op(a):
    return "aclnnFlashAttentionVarLenScore" if a.input_layout == "TND" else "aclnnFlashAttentionScore"


def _fa_args(a):
    d = dict(query=a.query, key=a.key, value=a.value, realShiftOptional=a.pse, dropMaskOptional=a.dropout_mask,
             paddingMaskOptional=a.padding_mask, attenMaskOptional=a.atten_mask, prefixOptional=a.prefix,
             scaleValue=a.scale, keepProb=a.keep_prob, preTokens=a.pre_tockens, nextTokens=a.next_tockens,
             headNum=a.head_num, inputLayout=a.input_layout, innerPrecise=a.inner_precise, sparseMode=a.sparse_mode)
    if a.input_layout == "TND":
        d.update(actualSeqQLenOptional=a.actual_seq_qlen, actualSeqKvLenOptional=a.actual_seq_kvlen)
    return d


def _fa_ret(a, o):
    numels = 0
    if a.keep_prob < 1:  # the dropout mask's bits: B * N * Sq * Skv (TND: N * sum of Sq_i * Skv_i)
        layout = a.input_layout
        b, n, sq = _attn_dims(layout, a.query, a.head_num)
        if layout == "TND":
            q_lens = [e - s for s, e in zip([0] + list(a.actual_seq_qlen), a.actual_seq_qlen)]
            kv_lens = [e - s for s, e in zip([0] + list(a.actual_seq_kvlen), a.actual_seq_kvlen)]
            numels = n * sum(x * y for x, y in zip(q_lens, kv_lens))
        else:
            numels = b * n * sq * _attn_dims(layout, a.key, a.head_num)[2]
    return o["attentionOutOut"], o["softmaxMaxOut"], o["softmaxSumOut"], o["softmaxOutOut"], a.seed, a.offset, numels


def _fag_op(a):
    return "aclnnFlashAttentionUnpaddingScoreGrad" if a.input_layout == "TND" else "aclnnFlashAttentionScoreGrad"


def _fag_args(a):
    d = dict(query=a.query, keyIn=a.key, value=a.value, dy=a.dy, pseShiftOptional=a.pse,
             dropMaskOptional=None, paddingMaskOptional=a.padding_mask, attenMaskOptional=a.atten_mask,
             softmaxMaxOptional=a.softmax_max, softmaxSumOptional=a.softmax_sum, softmaxInOptional=a.softmax_in,
             attentionInOptional=a.attention_in, prefixOptional=a.prefix, scaleValue=a.scale_value,
             keepProb=a.keep_prob, preTokens=a.pre_tockens, nextTokens=a.next_tockens, headNum=a.head_num,
             inputLayout=a.input_layout, innerPrecise=a.inner_precise, sparseMode=a.sparse_mode)
    if a.input_layout == "TND":
        d.update(actualSeqQLenOptional=a.actual_seq_qlen, actualSeqKvLenOptional=a.actual_seq_kvlen)
    return d


def _fag_check(a):
    if a.keep_prob < 1:
        _nie("npu_fusion_attention_grad: keep_prob < 1 needs the device's dropout mask generator")
    if a.sink is not None:
        _nie("npu_fusion_attention_grad: sink is not supported by aclnnFlashAttentionScoreGrad")


def _fia_check(a):
    quant = [n for n in ("dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2", "quant_offset2",
                         "antiquant_scale", "antiquant_offset", "key_antiquant_scale", "key_antiquant_offset",
                         "value_antiquant_scale", "value_antiquant_offset", "key_rope_antiquant_scale")
             if getattr(a, n) is not None]
    if quant:
        _nie(f"npu_fused_infer_attention_score: quantised attention ({', '.join(quant)}) is not implemented by the "
             "stub's aclnnFusedInferAttentionScoreV3")


def _fia_outs(a):
    q, layout = a.query, a.input_layout
    shape = list(q.shape)
    if layout == "BNSD_BSND":
        shape = [shape[0], shape[2], shape[1], shape[3]]
    if a.query_rope is not None or (a.block_table is None and layout in ("BSND", "BNSD", "TND", "BNSD_BSND")
                                    and a.value.shape[-1] != q.shape[-1]):
        shape[-1] = a.value.shape[-1]  # the value head dimension (MLA)
    if a.softmax_lse_flag:
        if layout == "TND":
            lse = [q.shape[0], q.shape[1], 1]
        else:
            b, n, sq = _attn_dims("BNSD" if layout == "BNSD_BSND" else layout, q, a.num_heads)
            lse = [b, n, sq, 1]
    else:
        lse = [0]
    return [("attentionOut", shape, q.dtype), ("softmaxLse", lse, F32)]


def _fia_args(a):
    return dict(query=a.query, key=[a.key], value=[a.value], pseShiftOptional=a.pse_shift,
                attenMaskOptional=a.atten_mask, actualSeqLengthsOptional=a.actual_seq_lengths,
                actualSeqLengthsKvOptional=a.actual_seq_lengths_kv, blockTableOptional=a.block_table,
                queryPaddingSizeOptional=a.query_padding_size, kvPaddingSizeOptional=a.kv_padding_size,
                keySharedPrefixOptional=a.key_shared_prefix, valueSharedPrefixOptional=a.value_shared_prefix,
                actualSharedPrefixLenOptional=a.actual_shared_prefix_len, queryRopeOptional=a.query_rope,
                keyRopeOptional=a.key_rope, numHeads=a.num_heads, scaleValue=a.scale, preTokens=a.pre_tokens,
                nextTokens=a.next_tokens, inputLayout=a.input_layout, numKeyValueHeads=a.num_key_value_heads,
                sparseMode=a.sparse_mode, innerPrecise=a.inner_precise, blockSize=a.block_size,
                antiquantMode=a.antiquant_mode, softmaxLseFlag=a.softmax_lse_flag,
                keyAntiquantMode=a.key_antiquant_mode, valueAntiquantMode=a.value_antiquant_mode)


def _self_attention_args(a):
    """ATB SelfAttention (the unpadded encoder) as FlashAttentionVarLenScore: TND with cumulative lengths, causal."""
    cum = [int(v) for v in torch.cumsum(a.seq_len.to(torch.int64), 0).tolist()]
    return dict(query=a.query, key=a.key, value=a.value, actualSeqQLenOptional=cum, actualSeqKvLenOptional=cum,
                scaleValue=a.scale_value, keepProb=1.0, preTokens=2147483647, nextTokens=0, headNum=a.num_heads,
                inputLayout="TND", innerPrecise=0, sparseMode=3,
                attenMaskOptional=_causal_mask())


@functools.lru_cache(maxsize=1)
def _causal_mask():
    """The (2048, 2048) compressed mask sparse modes 2 and 3 take (true above the diagonal)."""
    return torch.ones(2048, 2048, dtype=torch.bool).triu(1)


def _self_attention_check(a):
    if a.num_kv_heads and a.query.shape[1] != a.num_heads:
        raise ValueError(f"_npu_flash_attention: query.shape[1] = {a.query.shape[1]} must equal num_heads "
                         f"{a.num_heads}")
    n = int(a.seq_len.max()) if a.seq_len.numel() else 0
    # The mask ATB takes is additive (0 where visible); the only one vLLM passes is the causal one. Read it as such.
    m = a.mask
    if m.dim() < 2 or m.shape[-1] < n or m.shape[-2] < n or not torch.equal(
            (m[..., :n, :n] == 0).reshape(-1, n, n)[0], torch.ones(n, n, dtype=torch.bool).tril()):
        _nie("_npu_flash_attention: only the causal mask (0 on and below the diagonal) is implemented")


def _splitfuse(ops, a):
    """ATB's PagedAttention with splitfuse (chunked prefill): each sequence's seq_len[b] query tokens attend to
    its context_lens[b] cached tokens through the block table, causally from the bottom-right."""
    q_lens, kv_lens = [int(v) for v in a.seq_len.tolist()], [int(v) for v in a.context_lens.tolist()]
    t = a.query.shape[0]
    if sum(q_lens) != t:
        raise ValueError(f"_npu_paged_attention_splitfuse: sum(seq_len) = {sum(q_lens)} must equal the "
                         f"{t} query tokens")
    visible = torch.zeros(t, max(kv_lens, default=0), dtype=torch.bool)
    start = 0
    for q_len, kv_len in zip(q_lens, kv_lens):
        rows = torch.arange(q_len)[:, None] + (kv_len - q_len)
        visible[start:start + q_len, :kv_len] = torch.arange(kv_len)[None, :] <= rows
        start += q_len
    m = a.mask
    if m.dim() != 2 or m.shape[0] != t or m.shape[1] < visible.shape[1] or not torch.equal(
            m[:, :visible.shape[1]] == 0, visible):
        _nie("_npu_paged_attention_splitfuse: only the chunked-prefill causal mask (num_tokens, >= max context; 0 "
             "where a token sees a cached position) is implemented")
    _paged_attention(ops, a, q_lens, kv_lens)


def _paged_attention(ops, a, q_lens, kv_lens):
    """ATB's paged attention as npu_fused_infer_attention_score: the queries (tokens, N, D) padded to BSND,
    the caches (blocks, block_size, N_kv, D) read through the block table, causal from the bottom-right, the
    result unpadded into out."""
    t, n, d = a.query.shape
    b, longest = len(q_lens), max(q_lens, default=0)
    rows = torch.cat([torch.arange(q) + i * longest for i, q in enumerate(q_lens)])
    padded = a.query.new_zeros(b * longest, n, d)
    padded[rows] = a.query
    blocks, block_size = a.key_cache.shape[:2]
    o, _ = ops.npu_fused_infer_attention_score(
        padded.view(b, longest, n, d), a.key_cache.reshape(blocks, block_size, -1),
        a.value_cache.reshape(blocks, block_size, -1), atten_mask=_causal_mask(), actual_seq_lengths=q_lens,
        actual_seq_lengths_kv=kv_lens, block_table=a.block_table, num_heads=a.num_heads, scale=a.scale_value,
        next_tokens=0, input_layout="BSND", num_key_value_heads=a.num_kv_heads, sparse_mode=3,
        block_size=block_size)
    a.out.copy_(o.reshape(b * longest, n, d)[rows])


def _ts(x):
    return list(x.shape)


def _rstd_shape(x, gamma):
    return list(x.shape[:x.dim() - gamma.dim()]) + [1] * gamma.dim()


def _swiglu_shape(x, dim):
    s = list(x.shape)
    s[dim] //= 2
    return s


_ROPE_MODES = {"half": 0, "interleave": 1, "quarter": 2, "interleave-half": 3}


def _rope_mode(a):
    if a.rotary_mode not in _ROPE_MODES:
        raise ValueError(f"rotary_mode must be one of {', '.join(_ROPE_MODES)}, got {a.rotary_mode!r}")
    return _ROPE_MODES[a.rotary_mode]


def _rope_check(a):
    if getattr(a, "rotate", None) is not None:
        _nie("npu_rotary_mul: rotate is not supported by aclnnRotaryPositionEmbedding")
    _rope_mode(a)


def _topk(x):
    return x.shape[1] if x.dim() == 2 else 1


def _permute_rows(a):
    t = a.indices.numel()
    n = a.num_out_tokens or 0
    return min(n, t) if n > 0 else max(n + t, 0)


def _unpermute_rows(a):
    if a.restore_shape is not None and len(a.restore_shape) and a.padded_mode:
        return a.restore_shape[0]
    k = a.probs.shape[1] if a.probs is not None and a.probs.dim() == 2 else 1
    return a.sorted_indices.numel() // k


def _gating_rows(a):
    return _rows(a.x) + [a.k]


def _init_v2_rows(a):
    n, k = a.x.shape[0], a.expert_idx.shape[1]
    if a.drop_pad_mode == 1:
        return [a.expert_num, a.expert_capacity]
    return [min(n * k, a.active_num) if a.active_num > 0 else n * k]


def _init_v2_range(a):
    r = list(a.active_expert_range)
    return r if r else [0, a.expert_num]


def _init_v2_outs(a):
    rows = _init_v2_rows(a)
    lo, hi = _init_v2_range(a)
    count = [hi - lo] if a.expert_tokens_num_type in (0, 1) else [a.expert_num, 2]
    quant = a.quant_mode != -1
    return [("expandedXOut", rows + [a.x.shape[-1]], I8 if quant else a.x.dtype),
            ("expandedRowIdxOut", [a.expert_idx.numel()], I32),
            ("expertTokensCountOrCumsumOut", count, I64),
            ("expandedScaleOut", [math.prod(rows)], F32)]


def _rm_num_out(a):
    return a.tokens.shape[0] if a.num_out_tokens is None else a.num_out_tokens


def _rm_rows(a):
    align = a.routing_map.shape[1 if a.drop_and_pad else 0] or 1
    return _rm_num_out(a) // align * align


def _dispatch_sizes(a, v2):
    """(A, local experts, expandX rows, epRecvCounts length) as torch_npu sizes the dispatch outputs."""
    bs, k = a.x.shape[0], a.expert_ids.shape[1]
    w, s, tp = a.ep_world_size, a.shared_expert_rank_num, a.tp_world_size
    gbs = a.global_bs or bs * w
    if a.ep_rank_id < s and (a.expert_shard_type == 0 or not v2):
        local = 1
        if v2:
            per = s // a.shared_expert_num
            big = gbs // w * ((w + per - 1) // per)
        else:
            big = gbs // s
    else:
        local = a.moe_expert_num // (w - s)
        big = gbs * min(local, k)
    return big, local, max(big, big * tp), w * local * (tp if tp == 2 else 1)


def _dispatch_check(a):
    extra = [n for n in ("elastic_info", "performance_info", "y_dtype", "x_dtype", "scales_dtype")
             if getattr(a, n, None) is not None]
    extra += [n for n in ("zero_expert_num", "copy_expert_num", "const_expert_num") if getattr(a, n, 0)]
    if getattr(a, "comm_alg", ""):
        extra.append("comm_alg")
    if extra:
        _nie(f"{', '.join(extra)}: not arguments of the stub's MoeDistributeDispatch operators")


def _dispatch_args(a, v2):
    d = dict(x=a.x, expertIds=a.expert_ids, xActiveMaskOptional=a.x_active_mask, groupEp=a.group_ep,
             epWorldSize=a.ep_world_size, epRankId=a.ep_rank_id, moeExpertNum=a.moe_expert_num, groupTp=a.group_tp,
             tpWorldSize=a.tp_world_size, tpRankId=a.tp_rank_id, expertShardType=a.expert_shard_type,
             sharedExpertNum=a.shared_expert_num, sharedExpertRankNum=a.shared_expert_rank_num,
             quantMode=a.quant_mode, globalBs=a.global_bs, expertTokenNumsType=a.expert_token_nums_type)
    if v2:
        d.update(scalesOptional=a.scales, expertScalesOptional=a.expert_scales, commAlg=a.comm_alg)
    else:
        d.update(xActiveMask=a.x_active_mask, scales=a.scales, expertScales=a.expert_scales)
        del d["xActiveMaskOptional"]
    return d


def _dispatch_outs(a, v2):
    big, local, rows, recv = _dispatch_sizes(a, v2)
    bs, k = a.x.shape[0], a.expert_ids.shape[1]
    sfx = "Out" if v2 else ""
    return [("expandX" + sfx, [rows, a.x.shape[1]], I8 if a.quant_mode else a.x.dtype),
            ("dynamicScales" + sfx, [rows] if a.quant_mode else None, F32),
            ("assistInfoForCombineOut", [max(bs * k, big * 128)], I32) if v2 else ("expandIdx", [bs * k], I32),
            ("expertTokenNums" + sfx, [local], I64),
            ("epRecvCounts" + sfx, [recv], I32),
            ("tpRecvCounts" + sfx, [max(a.tp_world_size, 1)], I32),
            ("expandScales" + sfx, [big] if a.expert_scales is not None else None, F32)]


def _dispatch_ret(a, o, v2):
    big, _, rows, _ = _dispatch_sizes(a, v2)
    vals = list(o.values())
    dev = a.x.device
    if vals[1] is None:
        vals[1] = torch.zeros(rows, dtype=F32, device=dev)
    vals[5] = vals[5][:a.tp_world_size]
    if vals[6] is None:
        vals[6] = torch.zeros(big, dtype=F32, device=dev)
    return tuple(vals)


def _combine_check(a, v2):
    extra = [n for n in ("elastic_info", "ori_x", "const_expert_alpha_1", "const_expert_alpha_2", "const_expert_v",
                         "performance_info") + (() if v2 else ("shared_expert_x",))
             if getattr(a, n, None) is not None]
    extra += [n for n in ("zero_expert_num", "copy_expert_num", "const_expert_num") if getattr(a, n, 0)]
    if getattr(a, "comm_alg", ""):
        extra.append("comm_alg")
    if extra:
        _nie(f"{', '.join(extra)}: not arguments the shim passes to the stub's MoeDistributeCombine operators")


def _combine_args(a, v2):
    d = dict(expandX=a.expand_x, expertIds=a.expert_ids, epSendCounts=a.ep_send_counts,
             expertScales=a.expert_scales, groupEp=a.group_ep, epWorldSize=a.ep_world_size, epRankId=a.ep_rank_id,
             moeExpertNum=a.moe_expert_num, groupTp=a.group_tp, tpWorldSize=a.tp_world_size,
             tpRankId=a.tp_rank_id, expertShardType=a.expert_shard_type, sharedExpertNum=a.shared_expert_num,
             sharedExpertRankNum=a.shared_expert_rank_num, globalBs=a.global_bs,
             commQuantMode=a.comm_quant_mode)
    if v2:
        d.update(assistInfoForCombine=a.assist_info_for_combine, tpSendCountsOptional=a.tp_send_counts,
                 xActiveMaskOptional=a.x_active_mask, expandScalesOptional=a.expand_scales,
                 sharedExpertXOptional=a.shared_expert_x, outDtype=0, groupListType=0, commAlg=a.comm_alg)
    else:
        d.update(expandIdx=a.expand_idx, tpSendCounts=a.tp_send_counts, xActiveMask=a.x_active_mask,
                 activationScale=a.activation_scale, weightScale=a.weight_scale, groupList=a.group_list,
                 expandScales=a.expand_scales, outDtype=a.out_dtype, groupListType=a.group_list_type)
    return d


def _combine_outs(a, v2):
    dt = a.expand_x.dtype
    if dt == I32:
        dt = torch.float16 if (not v2 and a.out_dtype == 1) else torch.bfloat16
    return [("xOut" if v2 else "x", [a.expert_ids.shape[0], a.expand_x.shape[1]], dt)]


def _combine_arn_args(a):
    return dict(expandX=a.expand_x, expertIds=a.expert_ids, assistInfoForCombine=a.expand_idx,
                epSendCounts=a.ep_send_counts, expertScales=a.expert_scales, residualX=a.residual_x, gamma=a.gamma,
                tpSendCountsOptional=a.tp_send_counts, xActiveMaskOptional=a.x_active_mask,
                activationScaleOptional=a.activation_scale, weightScaleOptional=a.weight_scale,
                groupListOptional=a.group_list, expandScalesOptional=a.expand_scales,
                sharedExpertXOptional=a.shared_expert_x, groupEp=a.group_ep, epWorldSize=a.ep_world_size,
                epRankId=a.ep_rank_id, moeExpertNum=a.moe_expert_num, groupTp=a.group_tp,
                tpWorldSize=a.tp_world_size, tpRankId=a.tp_rank_id, expertShardType=a.expert_shard_type,
                sharedExpertNum=a.shared_expert_num, sharedExpertRankNum=a.shared_expert_rank_num,
                globalBs=a.global_bs, outDtype=a.out_dtype, commQuantMode=a.comm_quant_mode,
                groupListType=a.group_list_type, commAlg=a.comm_alg, normEps=a.norm_eps)


def _combine_arn_outs(a):
    bs, h = a.expert_ids.shape[0], a.residual_x.shape[-1]
    dt = a.residual_x.dtype
    return [("yOut", [bs, 1, h], dt), ("rstdOut", [bs, 1, 1], F32), ("xOut", [bs, 1, h], dt)]


def _finalize_rows(a):
    if a.scales is not None:
        return a.scales.shape[0]
    if a.skip1 is not None:
        return a.skip1.shape[0]
    return a.expanded_src_to_dst_row.numel() // (a.k or 1)


# torch_npu passes dtypes as ints (their ScalarType numbers); the Python functions accept torch.dtype too.
SCALAR_TYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32,
                torch.float64, None, torch.complex64, torch.complex128, torch.bool, None, None, None, torch.bfloat16]


def dtype_of(v, default):
    if v is None:
        return default
    if isinstance(v, torch.dtype):
        return v
    if 0 <= v < len(SCALAR_TYPES) and SCALAR_TYPES[v] is not None:
        return SCALAR_TYPES[v]
    raise ValueError(f"dtype number {v} is not one the stub's operators produce")


def _quant_mm_outs(a):
    if a.group_sizes or a.y_scale is not None or a.x1_dtype is not None or a.x2_dtype is not None:
        _nie("npu_quant_matmul: group_sizes, y_scale and the x1/x2 dtype overrides (MX/int4 formats) are not "
             "implemented by the stub's aclnnQuantMatmulV4")
    batch = list(torch.broadcast_shapes(a.x1.shape[:-2], a.x2.shape[:-2]))
    return [("out", batch + [a.x1.shape[-2], a.x2.shape[-1]], dtype_of(a.output_dtype, I8))]


def _quant_mm_scale(a):
    """A float32 scale for a float16 output without per-token scales goes to the operator as the packed
    uint64 quantisation parameter (aclnnTransQuantParamV2), as torch_npu converts it."""
    if a.scale.dtype != F32 or a.pertoken_scale is not None or dtype_of(a.output_dtype, I8) == torch.bfloat16:
        return a.scale
    from .. import generic
    packed = torch.empty(a.scale.shape, dtype=I64)
    generic.run("aclnnTransQuantParamV2", scale=a.scale, offset=a.offset if dtype_of(a.output_dtype, I8) == I8
                else None, out=packed)
    return packed


def _gmm_check(a):
    unsupported = [n for n in ("activation_input", "activation_quant_scale", "activation_quant_offset",
                               "tuning_config", "x_dtype", "weight_dtype", "scale_dtype", "per_token_scale_dtype")
                   if getattr(a, n) is not None]
    if unsupported:
        _nie(f"npu_grouped_matmul: {', '.join(unsupported)} are not implemented by aclnnGroupedMatmulV4 here")


def _gmm_outs(a):
    dt = dtype_of(a.output_dtype, a.x[0].dtype if a.x[0].dtype != I8 else torch.float16)
    if a.split_item in (2, 3):
        m = sum(x.shape[0] for x in a.x)
        return [("out", [[m, a.weight[0].shape[-1]]], dt)]
    if len(a.weight) == 1 and len(a.x) == 1:
        return [("out", [list(a.x[0].shape[:-1]) + [a.weight[0].shape[-1]]], dt)]
    if len(a.x) == 1:  # one x split by group_list over several weights
        n = len(a.weight)
        sizes = a.group_list.tolist() if isinstance(a.group_list, torch.Tensor) else list(a.group_list)
        if a.group_list_type == 0:
            sizes = [sizes[0]] + [sizes[i] - sizes[i - 1] for i in range(1, n)]
        return [("out", [[sizes[i], a.weight[i].shape[-1]] for i in range(n)], dt)]
    return [("out", [list(x.shape[:-1]) + [w.shape[-1]] for x, w in zip(a.x, a.weight)], dt)]


def _gmm_args(a):
    gt = -1 if a.group_type is None else a.group_type
    return dict(x=list(a.x), weight=list(a.weight), biasOptional=a.bias, scaleOptional=a.scale,
                offsetOptional=a.offset, antiquantScaleOptional=a.antiquant_scale,
                antiquantOffsetOptional=a.antiquant_offset, perTokenScaleOptional=a.per_token_scale,
                groupListOptional=a.group_list, splitItem=a.split_item or 0, groupType=gt,
                groupListType=a.group_list_type or 0, actType=a.act_type or 0)


def _dq_check(a):
    if a.quant_mode != "pertoken":
        _nie(f"npu_dynamic_quant: quant_mode {a.quant_mode!r} (only 'pertoken' is implemented)")
    if dtype_of(a.dst_type, I8) != I8:
        _nie("npu_dynamic_quant: only dst_type int8 is implemented (int4 outputs have no torch dtype)")


def _dq_outs(a, asym=False):
    outs = [("yOut", _ts(a.input), I8), ("scaleOut", _rows(a.input), F32)]
    if asym:
        outs.append(("offsetOut", _rows(a.input), F32))
    return outs


def _dq_args(a, v2):
    d = dict(x=a.input, smoothScalesOptional=a.smooth_scales)
    if v2:
        d.update(groupIndexOptional=a.group_index, dstType=2)
    return d


def _kv_scatter_args(a, key_cache, value_cache, slots, mode):
    return dict(key=a.key, keyCacheRef=key_cache, slotMapping=slots, value=a.value, valueCacheRef=value_cache,
                compressLensOptional=getattr(a, "compress_lens", None),
                compressSeqOffsetOptional=getattr(a, "compress_seq_offsets", None),
                seqLensOptional=getattr(a, "seq_lens", None), cacheModeOptional=mode)


# ---- the table ---------------------------------------------------------------------------------------------------

ROWS = [
    Row("npu_rms_norm", "npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor)",
        "aclnnRmsNorm", lambda a: dict(x=a.self, gamma=a.gamma, epsilon=a.epsilon),
        lambda a: [("yOut", _ts(a.self), a.self.dtype), ("rstdOut", _rstd_shape(a.self, a.gamma), F32)]),
    Row("npu_rms_norm_backward",
        "npu_rms_norm_backward(Tensor dy, Tensor self, Tensor gamma, Tensor rstd) -> (Tensor, Tensor)",
        "aclnnRmsNormGrad", lambda a: dict(dy=a.dy, x=a.self, rstd=a.rstd, gamma=a.gamma),
        lambda a: [("dxOut", _ts(a.self), a.self.dtype), ("dgammaOut", _ts(a.gamma), F32)]),
    Row("npu_add_rms_norm",
        "npu_add_rms_norm(Tensor x1, Tensor x2, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor, Tensor)",
        "aclnnAddRmsNorm", lambda a: dict(x1=a.x1, x2=a.x2, gamma=a.gamma, epsilon=a.epsilon),
        lambda a: [("yOut", _ts(a.x1), a.x1.dtype), ("rstdOut", _rstd_shape(a.x1, a.gamma), F32),
                   ("xOut", _ts(a.x1), a.x1.dtype)]),
    Row("npu_swiglu", "npu_swiglu(Tensor self, int dim=-1) -> Tensor",
        "aclnnSwiGlu", lambda a: dict(x=a.self, dim=a.dim),
        lambda a: [("out", _swiglu_shape(a.self, a.dim), a.self.dtype)]),
    Row("npu_swiglu_backward", "npu_swiglu_backward(Tensor grad_output, Tensor self, int dim=-1) -> Tensor",
        "aclnnSwiGluGrad", lambda a: dict(yGrad=a.grad_output, x=a.self, dim=a.dim),
        lambda a: [("out", _ts(a.self), a.self.dtype)]),
    Row("npu_rotary_mul",
        "npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str rotary_mode='half', Tensor? rotate=None) -> Tensor",
        "aclnnRotaryPositionEmbedding", lambda a: dict(x=a.self, cos=a.r1, sin=a.r2, mode=_rope_mode(a)),
        lambda a: [("out", _ts(a.self), a.self.dtype)], check=_rope_check),
    Row("npu_rotary_mul_backward",
        "npu_rotary_mul_backward(Tensor grad, Tensor self, Tensor r1, Tensor r2, str rotary_mode='half') -> "
        "(Tensor, Tensor, Tensor)",
        "aclnnRotaryPositionEmbeddingGrad",
        lambda a: dict(dy=a.grad, cos=a.r1, sin=a.r2, xOptional=a.self, mode=_rope_mode(a)),
        lambda a: [("dxOut", _ts(a.self), a.self.dtype), ("dcosOut", _ts(a.r1), a.r1.dtype),
                   ("dsinOut", _ts(a.r2), a.r2.dtype)], check=_rope_check),
    Row("npu_moe_gating_top_k_softmax",
        "npu_moe_gating_top_k_softmax(Tensor x, Tensor? finished=None, int k=1) -> (Tensor, Tensor, Tensor)",
        "aclnnMoeGatingTopKSoftmax", lambda a: dict(x=a.x, finishedOptional=a.finished, k=a.k),
        lambda a: [("yOut", _gating_rows(a), a.x.dtype), ("expertIdxOut", _gating_rows(a), I32),
                   ("rowIdxOut", _gating_rows(a), I32)]),
    Row("npu_moe_gating_top_k_softmax_v2",
        "npu_moe_gating_top_k_softmax_v2(Tensor x, *, int k=1, Tensor? finished=None, int? renorm=0, "
        "bool? output_softmax=False) -> (Tensor, Tensor, Tensor)",
        "aclnnMoeGatingTopKSoftmaxV2",
        lambda a: dict(x=a.x, finishedOptional=a.finished, k=a.k, renorm=a.renorm or 0,
                       outputSoftmaxResultFlag=bool(a.output_softmax)),
        lambda a: [("yOut", _gating_rows(a), a.x.dtype), ("expertIdxOut", _gating_rows(a), I32),
                   ("softmaxResultOutOptional", _ts(a.x) if a.output_softmax else None, F32)],
        ret=lambda a, o: (o["yOut"], o["expertIdxOut"], o["softmaxResultOutOptional"]
                          if a.output_softmax else torch.empty(0, dtype=F32, device=a.x.device))),
    Row("npu_moe_gating_top_k",
        "npu_moe_gating_top_k(Tensor x, int k, *, Tensor? bias=None, Tensor? input_ids=None, Tensor? tid2eid=None, "
        "int k_group=1, int group_count=1, int group_select_mode=0, int renorm=0, int norm_type=0, "
        "bool out_flag=False, float routed_scaling_factor=1.0, float eps=1e-20) -> (Tensor, Tensor, Tensor)",
        "aclnnMoeGatingTopK",
        lambda a: dict(x=a.x, biasOptional=a.bias, k=a.k, kGroup=a.k_group, groupCount=a.group_count,
                       groupSelectMode=a.group_select_mode, renorm=a.renorm, normType=a.norm_type, outFlag=a.out_flag,
                       routedScalingFactor=a.routed_scaling_factor, eps=a.eps),
        lambda a: [("yOut", _gating_rows(a), a.x.dtype), ("expertIdxOut", _gating_rows(a), I32),
                   ("outOut", _ts(a.x), F32)],
        check=lambda a: (a.input_ids is not None or a.tid2eid is not None) and _nie(
            "npu_moe_gating_top_k: input_ids/tid2eid (hash routing) are not in aclnnMoeGatingTopK")),
    Row("npu_moe_compute_expert_tokens",
        "npu_moe_compute_expert_tokens(Tensor sorted_expert_for_source_row, int num_expert) -> Tensor",
        "aclnnMoeComputeExpertTokens",
        lambda a: dict(sortedExperts=a.sorted_expert_for_source_row, numExperts=a.num_expert),
        lambda a: [("out", [a.num_expert], I32)]),
    Row("npu_moe_init_routing",
        "npu_moe_init_routing(Tensor x, Tensor row_idx, Tensor expert_idx, int active_num) -> "
        "(Tensor, Tensor, Tensor)",
        "aclnnMoeInitRouting",
        lambda a: dict(x=a.x, rowIdx=a.row_idx, expertIdx=a.expert_idx, activeNum=a.active_num),
        lambda a: [("expandedXOut", [min(a.x.shape[0], a.active_num) * _topk(a.expert_idx), a.x.shape[-1]],
                    a.x.dtype),
                   ("expandedRowIdxOut", [a.expert_idx.numel()], I32),
                   ("expandedExpertIdxOut", [a.expert_idx.numel()], I32)]),
    Row("npu_moe_init_routing_v2",
        "npu_moe_init_routing_v2(Tensor x, Tensor expert_idx, *, Tensor? scale=None, Tensor? offset=None, "
        "int active_num=-1, int expert_capacity=-1, int expert_num=-1, int drop_pad_mode=0, "
        "int expert_tokens_num_type=0, bool expert_tokens_num_flag=False, int quant_mode=-1, "
        "int[2] active_expert_range=[], int row_idx_type=0, int? x_dtype=None) -> (Tensor, Tensor, Tensor, Tensor)",
        "aclnnMoeInitRoutingV3",
        lambda a: dict(x=a.x, expertIdx=a.expert_idx, scaleOptional=a.scale, offsetOptional=a.offset,
                       activeNum=a.active_num, expertCapacity=a.expert_capacity, expertNum=a.expert_num,
                       dropPadMode=a.drop_pad_mode, expertTokensNumType=a.expert_tokens_num_type,
                       expertTokensNumFlag=a.expert_tokens_num_flag, quantMode=a.quant_mode,
                       activeExpertRangeOptional=_init_v2_range(a), rowIdxType=a.row_idx_type),
        _init_v2_outs),
    Row("npu_moe_finalize_routing",
        "npu_moe_finalize_routing(Tensor expanded_permuted_rows, Tensor? skip1, Tensor? skip2, Tensor? bias, "
        "Tensor? scales, Tensor expanded_src_to_dst_row, Tensor? export_for_source_row, int? drop_pad_mode=0, "
        "int? k=1) -> Tensor",
        "aclnnMoeFinalizeRoutingV2",
        lambda a: dict(expandedX=a.expanded_permuted_rows, expandedRowIdx=a.expanded_src_to_dst_row,
                       x1Optional=a.skip1, x2Optional=a.skip2, biasOptional=a.bias, scalesOptional=a.scales,
                       expertIdxOptional=a.export_for_source_row, dropPadMode=a.drop_pad_mode or 0),
        lambda a: [("out", [_finalize_rows(a), a.expanded_permuted_rows.shape[-1]],
                    a.expanded_permuted_rows.dtype)]),
    Row("npu_moe_token_permute",
        "npu_moe_token_permute(Tensor tokens, Tensor indices, int? num_out_tokens=None, bool padded_mode=False) -> "
        "(Tensor, Tensor)",
        "aclnnMoeTokenPermute",
        lambda a: dict(tokens=a.tokens, indices=a.indices, numOutTokens=a.num_out_tokens or 0,
                       paddedMode=a.padded_mode),
        lambda a: [("permuteTokensOut", [_permute_rows(a)] + list(a.tokens.shape[1:]), a.tokens.dtype),
                   ("sortedIndicesOut", [a.indices.numel()], I32)]),
    Row("npu_moe_token_permute_grad",
        "npu_moe_token_permute_grad(Tensor tokens, Tensor grad_permuted_tokens, Tensor indices, "
        "Tensor sorted_indices, bool padded_mode=False) -> Tensor",
        "aclnnMoeTokenPermuteGrad",
        lambda a: dict(permutedOutputGrad=a.grad_permuted_tokens, sortedIndices=a.sorted_indices,
                       numTopk=_topk(a.indices), paddedMode=a.padded_mode),
        lambda a: [("out", _ts(a.tokens), a.tokens.dtype)]),
    Row("npu_moe_token_permute_grad_v2",
        "npu_moe_token_permute_grad_v2(Tensor grad_permuted_tokens, Tensor sorted_indices, int tokens_size_0, "
        "ScalarType tokens_dtype, int num_topK, bool padded_mode=False) -> Tensor",
        "aclnnMoeTokenPermuteGrad",
        lambda a: dict(permutedOutputGrad=a.grad_permuted_tokens, sortedIndices=a.sorted_indices,
                       numTopk=a.num_topK, paddedMode=a.padded_mode),
        lambda a: [("out", [a.tokens_size_0] + list(a.grad_permuted_tokens.shape[1:]), a.tokens_dtype)]),
    Row("npu_moe_token_unpermute",
        "npu_moe_token_unpermute(Tensor permuted_tokens, Tensor sorted_indices, Tensor? probs=None, "
        "bool padded_mode=False, int[]? restore_shape=None) -> Tensor",
        "aclnnMoeTokenUnpermute",
        lambda a: dict(permutedTokens=a.permuted_tokens, sortedIndices=a.sorted_indices, probsOptional=a.probs,
                       paddedMode=a.padded_mode, restoreShapeOptional=a.restore_shape),
        lambda a: [("out", [_unpermute_rows(a)] + list(a.permuted_tokens.shape[1:]), a.permuted_tokens.dtype)]),
    Row("npu_moe_token_unpermute_grad",
        "npu_moe_token_unpermute_grad(Tensor permuted_tokens, Tensor grad_unpermuted_tokens, Tensor sorted_indices, "
        "Tensor? probs=None, bool padded_mode=False, int[]? restore_shape=None) -> (Tensor, Tensor)",
        "aclnnMoeTokenUnpermuteGrad",
        lambda a: dict(permuteTokens=a.permuted_tokens, unpermutedTokensGrad=a.grad_unpermuted_tokens,
                       sortedIndices=a.sorted_indices, probsOptional=a.probs, paddedMode=a.padded_mode,
                       restoreShapeOptional=a.restore_shape),
        lambda a: [("permutedTokensGradOut", _ts(a.permuted_tokens), a.permuted_tokens.dtype),
                   ("probsGradOut", _ts(a.probs) if a.probs is not None else None,
                    a.probs.dtype if a.probs is not None else None)],
        ret=lambda a, o: (o["permutedTokensGradOut"], o["probsGradOut"] if a.probs is not None
                          else torch.empty(0, dtype=a.permuted_tokens.dtype, device=a.permuted_tokens.device))),
    Row("npu_moe_token_unpermute_grad_v2",
        "npu_moe_token_unpermute_grad_v2(Tensor grad_unpermuted_tokens, Tensor sorted_indices, "
        "int permuted_tokens_size_0, ScalarType permuted_tokens_dtype, Tensor? probs=None, bool padded_mode=False, "
        "int[]? restore_shape=None, Tensor? permuted_tokens=None) -> (Tensor, Tensor)",
        "aclnnMoeTokenUnpermuteGrad",
        lambda a: dict(permuteTokens=a.permuted_tokens, unpermutedTokensGrad=a.grad_unpermuted_tokens,
                       sortedIndices=a.sorted_indices, probsOptional=a.probs, paddedMode=a.padded_mode,
                       restoreShapeOptional=a.restore_shape),
        lambda a: [("permutedTokensGradOut", [a.permuted_tokens_size_0] + list(a.grad_unpermuted_tokens.shape[1:]),
                    a.permuted_tokens_dtype),
                   ("probsGradOut", _ts(a.probs) if a.probs is not None else None,
                    a.probs.dtype if a.probs is not None else None)],
        ret=lambda a, o: (o["permutedTokensGradOut"], o["probsGradOut"] if a.probs is not None
                          else torch.empty(0, dtype=a.permuted_tokens_dtype,
                                           device=a.grad_unpermuted_tokens.device)),
        check=lambda a: a.permuted_tokens is None and _nie(
            "npu_moe_token_unpermute_grad_v2 without permuted_tokens: aclnnMoeTokenUnpermuteGrad reads them")),
    Row("npu_moe_token_permute_with_routing_map",
        "npu_moe_token_permute_with_routing_map(Tensor tokens, Tensor routing_map, *, Tensor? probs=None, "
        "int? num_out_tokens=None, bool drop_and_pad=False) -> (Tensor, Tensor, Tensor)",
        "aclnnMoeTokenPermuteWithRoutingMap",
        lambda a: dict(tokens=a.tokens, routingMap=a.routing_map, probsOptional=a.probs,
                       numOutTokens=_rm_num_out(a), dropAndPad=a.drop_and_pad),
        lambda a: [("permuteTokensOut", [_rm_rows(a), a.tokens.shape[1]], a.tokens.dtype),
                   ("permuteProbsOutOptional", [_rm_rows(a)] if a.probs is not None else None,
                    a.probs.dtype if a.probs is not None else None),
                   ("sortedIndicesOut", [_rm_rows(a)], I32)],
        ret=lambda a, o: (o["permuteTokensOut"], o["permuteProbsOutOptional"] if a.probs is not None
                          else torch.empty(0, dtype=a.tokens.dtype, device=a.tokens.device), o["sortedIndicesOut"])),
    Row("npu_moe_token_permute_with_routing_map_grad",
        "npu_moe_token_permute_with_routing_map_grad(Tensor permuted_token_out_grad, Tensor? probs_grad, "
        "Tensor sorted_indices, Tensor routing_map, SymInt experts_num, SymInt tokens_num, bool drop_and_pad) -> "
        "(Tensor, Tensor)",
        "aclnnMoeTokenPermuteWithRoutingMapGrad",
        lambda a: dict(permutedTokenOutputGrad=a.permuted_token_out_grad,
                       permutedProbsOutputGradOptional=a.probs_grad, sortedIndices=a.sorted_indices,
                       routingMapOptional=a.routing_map, numExperts=a.experts_num, tokensNum=a.tokens_num,
                       dropAndPad=a.drop_and_pad),
        lambda a: [("tokensGradOut", [a.tokens_num, a.permuted_token_out_grad.shape[1]],
                    a.permuted_token_out_grad.dtype),
                   ("probsGradOutOptional", [a.tokens_num, a.experts_num] if a.probs_grad is not None else None,
                    a.probs_grad.dtype if a.probs_grad is not None else None)],
        ret=lambda a, o: (o["tokensGradOut"], o["probsGradOutOptional"] if a.probs_grad is not None
                          else torch.empty(0, dtype=a.permuted_token_out_grad.dtype,
                                           device=a.permuted_token_out_grad.device))),
    Row("_npu_moe_token_unpermute_with_routing_map",
        "_npu_moe_token_unpermute_with_routing_map(Tensor permuted_tokens, Tensor sorted_indices, "
        "int[] restore_shape, *, Tensor? probs=None, Tensor? routing_map=None, bool drop_and_pad=False) -> "
        "(Tensor, Tensor, Tensor, Tensor)",
        "aclnnMoeTokenUnpermuteWithRoutingMap",
        lambda a: dict(permutedTokens=a.permuted_tokens, sortedIndices=a.sorted_indices,
                       routingMapOptional=a.routing_map, probsOptional=a.probs, paddedMode=a.drop_and_pad,
                       restoreShapeOptional=a.restore_shape),
        lambda a: [("unpermutedTokens", list(a.restore_shape[:2]), a.permuted_tokens.dtype),
                   ("outIndex", _ts(a.sorted_indices), a.sorted_indices.dtype),
                   ("permuteTokenId", _ts(a.sorted_indices), a.sorted_indices.dtype),
                   ("permuteProbs", _ts(a.sorted_indices) if a.probs is not None else None,
                    a.probs.dtype if a.probs is not None else None)],
        ret=lambda a, o: (o["unpermutedTokens"], o["outIndex"], o["permuteTokenId"], o["permuteProbs"]
                          if a.probs is not None else torch.empty(0, dtype=a.permuted_tokens.dtype,
                                                                  device=a.permuted_tokens.device))),
    Row("npu_moe_token_unpermute_with_routing_map",
        "npu_moe_token_unpermute_with_routing_map(Tensor permuted_tokens, Tensor sorted_indices, "
        "int[] restore_shape, *, Tensor? probs=None, Tensor? routing_map=None, bool drop_and_pad=False) -> Tensor",
        via=lambda ops, a: ops._npu_moe_token_unpermute_with_routing_map(
            a.permuted_tokens, a.sorted_indices, a.restore_shape, probs=a.probs, routing_map=a.routing_map,
            drop_and_pad=a.drop_and_pad)[0]),
    Row("npu_moe_token_unpermute_with_routing_map_grad",
        "npu_moe_token_unpermute_with_routing_map_grad(Tensor unpermuted_tokens_grad, Tensor out_index, "
        "Tensor permuted_token_id, Tensor? routing_map, Tensor? permuted_tokens, Tensor? probs, bool drop_and_pad, "
        "int[] restore_shape) -> (Tensor, Tensor)",
        "aclnnMoeTokenUnpermuteWithRoutingMapGrad",
        lambda a: dict(unpermutedTokensGrad=a.unpermuted_tokens_grad, outIndex=a.out_index,
                       permuteTokenId=a.permuted_token_id, routingMapOptional=a.routing_map,
                       permutedTokensOptional=a.permuted_tokens, probsOptional=a.probs, dropAndPad=a.drop_and_pad,
                       restoreShapeOptional=a.restore_shape),
        lambda a: [("permutedTokensGradOut", [a.out_index.shape[0], a.unpermuted_tokens_grad.shape[1]],
                    a.unpermuted_tokens_grad.dtype),
                   ("probsGradOutOptional", _ts(a.probs) if a.probs is not None else None,
                    a.unpermuted_tokens_grad.dtype)],
        ret=lambda a, o: (o["permutedTokensGradOut"], o["probsGradOutOptional"] if a.probs is not None
                          else torch.empty(0, dtype=a.unpermuted_tokens_grad.dtype,
                                           device=a.unpermuted_tokens_grad.device))),
    Row("npu_grouped_matmul",
        "npu_grouped_matmul(Tensor[] x, Tensor[] weight, *, Tensor[]? bias=None, Tensor[]? scale=None, "
        "Tensor[]? offset=None, Tensor[]? antiquant_scale=None, Tensor[]? antiquant_offset=None, "
        "Tensor[]? per_token_scale=None, Tensor? group_list=None, Tensor[]? activation_input=None, "
        "Tensor[]? activation_quant_scale=None, Tensor[]? activation_quant_offset=None, int? split_item=0, "
        "int? group_type=None, int? group_list_type=0, int? act_type=0, int[]? tuning_config=None, "
        "int? output_dtype=None, int? x_dtype=None, int? weight_dtype=None, int? scale_dtype=None, "
        "int? per_token_scale_dtype=None) -> Tensor[]",
        "aclnnGroupedMatmulV4", _gmm_args, _gmm_outs, ret=lambda a, o: o["out"], check=_gmm_check),
    Row("npu_quant_matmul",
        "npu_quant_matmul(Tensor x1, Tensor x2, Tensor scale, *, Tensor? offset=None, Tensor? pertoken_scale=None, "
        "Tensor? bias=None, int? output_dtype=None, int? x1_dtype=None, int? x2_dtype=None, "
        "int? pertoken_scale_dtype=None, int? scale_dtype=None, int[]? group_sizes=None, Tensor? y_scale=None) -> "
        "Tensor",
        "aclnnQuantMatmulV4",
        lambda a: dict(x1=a.x1, x2=a.x2, scale=_quant_mm_scale(a), offset=a.offset,
                       pertokenScaleOptional=a.pertoken_scale, bias=a.bias, transposeX1=False, transposeX2=False),
        _quant_mm_outs),
    Row("npu_dynamic_quant",
        "npu_dynamic_quant(Tensor input, *, Tensor? smooth_scales=None, Tensor? group_index=None, "
        "int? dst_type=None, str quant_mode=\"pertoken\", float dst_type_max=0.0) -> (Tensor, Tensor)",
        lambda a: "aclnnDynamicQuant" if a.group_index is None else "aclnnDynamicQuantV2",
        lambda a: _dq_args(a, a.group_index is not None),
        lambda a: (_dq_outs(a) if a.group_index is None else _dq_outs(a) + [("offsetOut", None, None)]),
        ret=lambda a, o: (o["yOut"], o["scaleOut"]), check=_dq_check),
    Row("npu_dynamic_quant_asymmetric",
        "npu_dynamic_quant_asymmetric(Tensor input, *, Tensor? smooth_scales=None, Tensor? group_index=None, "
        "int? dst_type=None, str quant_mode=\"pertoken\", float dst_type_max=0.0) -> (Tensor, Tensor, Tensor)",
        "aclnnDynamicQuantV2", lambda a: _dq_args(a, True), lambda a: _dq_outs(a, True), check=_dq_check),
    Row("npu_fusion_attention",
        "npu_fusion_attention(Tensor query, Tensor key, Tensor value, int head_num, str input_layout, "
        "Tensor? pse=None, Tensor? padding_mask=None, Tensor? atten_mask=None, float scale=1., float keep_prob=1., "
        "int pre_tockens=2147483647, int next_tockens=2147483647, int inner_precise=0, int[]? prefix=None, "
        "int[]? actual_seq_qlen=None, int[]? actual_seq_kvlen=None, int sparse_mode=0, bool gen_mask_parallel=True, "
        "bool sync=False, str softmax_layout=\"\", Tensor? sink=None, Tensor? dropout_mask=None, int seed=0, "
        "int offset=0) -> (Tensor, Tensor, Tensor, Tensor, int, int, int)",
        _fa_op, _fa_args, _fa_outs, ret=_fa_ret, check=_fa_check),
    Row("npu_fusion_attention_grad",
        "npu_fusion_attention_grad(Tensor query, Tensor key, Tensor value, Tensor dy, int head_num, "
        "str input_layout, *, Tensor? pse=None, Tensor? padding_mask=None, Tensor? atten_mask=None, "
        "Tensor? softmax_max=None, Tensor? softmax_sum=None, Tensor? softmax_in=None, Tensor? attention_in=None, "
        "float scale_value=1., float keep_prob=1., int pre_tockens=2147483647, int next_tockens=2147483647, "
        "int inner_precise=0, int seed=0, int offset=0, int numels=0, int[]? prefix=None, "
        "int[]? actual_seq_qlen=None, int[]? actual_seq_kvlen=None, int sparse_mode=0, bool gen_mask_parallel=True, "
        "bool sync=False, str softmax_layout=\"\", Tensor? sink=None) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
        _fag_op, _fag_args,
        lambda a: [("dqOut", _ts(a.query), a.query.dtype), ("dkOut", _ts(a.key), a.key.dtype),
                   ("dvOut", _ts(a.value), a.value.dtype),
                   ("dpseOut", _ts(a.pse) if a.pse is not None else None, a.query.dtype)],
        ret=lambda a, o: (o["dqOut"], o["dkOut"], o["dvOut"],
                          o["dpseOut"] if a.pse is not None else torch.empty(0, dtype=a.query.dtype,
                                                                             device=a.query.device),
                          torch.empty(0, dtype=F32, device=a.query.device)),
        check=_fag_check),
    Row("npu_fused_infer_attention_score",
        "npu_fused_infer_attention_score(Tensor query, Tensor key, Tensor value, *, Tensor? pse_shift=None, "
        "Tensor? atten_mask=None, SymInt[]? actual_seq_lengths=None, SymInt[]? actual_seq_lengths_kv=None, "
        "Tensor? dequant_scale1=None, Tensor? quant_scale1=None, Tensor? dequant_scale2=None, "
        "Tensor? quant_scale2=None, Tensor? quant_offset2=None, Tensor? antiquant_scale=None, "
        "Tensor? antiquant_offset=None, Tensor? key_antiquant_scale=None, Tensor? key_antiquant_offset=None, "
        "Tensor? value_antiquant_scale=None, Tensor? value_antiquant_offset=None, Tensor? block_table=None, "
        "Tensor? query_padding_size=None, Tensor? kv_padding_size=None, Tensor? key_shared_prefix=None, "
        "Tensor? value_shared_prefix=None, SymInt[]? actual_shared_prefix_len=None, Tensor? query_rope=None, "
        "Tensor? key_rope=None, Tensor? key_rope_antiquant_scale=None, int num_heads=1, float scale=1.0, "
        "int pre_tokens=2147483647, int next_tokens=2147483647, str input_layout=\"BSH\", "
        "int num_key_value_heads=0, int sparse_mode=0, int inner_precise=0, int block_size=0, int antiquant_mode=0, "
        "int key_antiquant_mode=0, int value_antiquant_mode=0, bool softmax_lse_flag=False) -> (Tensor, Tensor)",
        "aclnnFusedInferAttentionScoreV3", _fia_args, _fia_outs, check=_fia_check),
    Row("npu_scatter_pa_kv_cache",
        "npu_scatter_pa_kv_cache(Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache, "
        "Tensor slot_mapping, *, Tensor? compress_lens=None, Tensor? compress_seq_offsets=None, "
        "Tensor? seq_lens=None, str? cache_mode='PA_NZ') -> ()",
        "aclnnScatterPaKvCache",
        lambda a: _kv_scatter_args(a, a.key_cache, a.value_cache, a.slot_mapping, a.cache_mode or "Norm"),
        ret=lambda a, o: None),
    Row("npu_gather_pa_kv_cache",
        "npu_gather_pa_kv_cache(Tensor key_cache, Tensor value_cache, Tensor block_tables, Tensor seq_lens, "
        "Tensor(a!) key, Tensor(b!) value, *, Tensor? seq_offset=None, bool is_seq_lens_cumsum=False) -> ()",
        "aclnnGatherPaKvCache",
        lambda a: dict(keyCache=a.key_cache, valueCache=a.value_cache, blockTables=a.block_tables,
                       seqLens=a.seq_lens, keyRef=a.key, valueRef=a.value, seqOffsetOptional=a.seq_offset,
                       cacheMode="Norm", isSeqLensCumsum=a.is_seq_lens_cumsum),
        ret=lambda a, o: None),
    Row("_npu_reshape_and_cache",
        "_npu_reshape_and_cache(Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache, "
        "Tensor slot_indices) -> ()",
        "aclnnScatterPaKvCache",
        lambda a: _kv_scatter_args(a, a.key_cache, a.value_cache, a.slot_indices, "Norm"), ret=lambda a, o: None),
    Row("_npu_flash_attention",
        "_npu_flash_attention(Tensor query, Tensor key, Tensor value, Tensor mask, Tensor seq_len, "
        "float scale_value, int num_heads, int num_kv_heads, Tensor(a!) out) -> ()",
        "aclnnFlashAttentionVarLenScore", _self_attention_args,
        lambda a: [("softmaxMaxOut", [a.num_heads, a.query.shape[0], 8], F32),
                   ("softmaxSumOut", [a.num_heads, a.query.shape[0], 8], F32),
                   ("softmaxOutOut", [0], a.query.dtype), ("attentionOutOut", "out", None)],
        ret=lambda a, o: None, check=_self_attention_check),
    # -- our own operators for the backward of functions torch_npu differentiates without a public grad function ---
    Row("_aclnn_moe_init_routing_v2_grad",
        "_aclnn_moe_init_routing_v2_grad(Tensor grad_expanded_x, Tensor expanded_row_idx, int top_k, "
        "int drop_pad_mode, int active_num, int num_rows) -> Tensor",
        "aclnnMoeInitRoutingV2Grad",
        lambda a: dict(gradExpandedX=a.grad_expanded_x, expandedRowIdx=a.expanded_row_idx, topK=a.top_k,
                       dropPadMode=a.drop_pad_mode, activeNum=a.active_num),
        lambda a: [("out", [a.num_rows, a.grad_expanded_x.shape[-1]], a.grad_expanded_x.dtype)]),
    Row("_aclnn_moe_finalize_routing_v2_grad",
        "_aclnn_moe_finalize_routing_v2_grad(Tensor grad_y, Tensor expanded_row_idx, Tensor? expanded_x, "
        "Tensor? scales, Tensor? expert_idx, Tensor? bias, int drop_pad_mode, int active_num, int expert_num, "
        "int expert_capacity) -> (Tensor, Tensor)",
        "aclnnMoeFinalizeRoutingV2Grad",
        lambda a: dict(gradY=a.grad_y, expandedRowIdx=a.expanded_row_idx, expandedXOptional=a.expanded_x,
                       scalesOptional=a.scales, expertIdxOptional=a.expert_idx, biasOptional=a.bias,
                       dropPadMode=a.drop_pad_mode, activeNum=a.active_num, expertNum=a.expert_num,
                       expertCapacity=a.expert_capacity),
        lambda a: [("gradExpandedXOut", _ts(a.expanded_x), a.grad_y.dtype),
                   ("gradScalesOut", _ts(a.scales) if a.scales is not None else None, a.grad_y.dtype)],
        ret=lambda a, o: (o["gradExpandedXOut"], o["gradScalesOut"] if a.scales is not None
                          else torch.empty(0, dtype=a.grad_y.dtype, device=a.grad_y.device))),
    # eight 4-bit values (INT32 weights: int4; FLOAT weights: FLOAT4_E2M1 bits) packed into each value of the
    # weight's dtype, the first in the low half-byte (an ND weight; a CPU tensor has no NZ storage)
    Row("npu_convert_weight_to_int4pack",
        "npu_convert_weight_to_int4pack(Tensor weight, int inner_k_tiles=0) -> Tensor",
        "aclnnConvertWeightToINT4Pack", lambda a: dict(weight=a.weight),
        lambda a: [("weightInt4Pack", list(a.weight.shape[:-1]) + [a.weight.shape[-1] // 8], a.weight.dtype)]),
    # -- functions whose operator the stub does not have ------------------------------------------------------------
    Row("npu_format_cast",
        "npu_format_cast(Tensor self, int acl_format, int? customize_dtype=None) -> Tensor",
        renames={"self": "input"}, via=lambda ops, a: a.self),  # a CPU tensor has no storage format: the same
    Row("_npu_paged_attention_splitfuse",
        "_npu_paged_attention_splitfuse(Tensor query, Tensor key_cache, Tensor value_cache, Tensor block_table, "
        "Tensor context_lens, Tensor mask, Tensor seq_len, int num_kv_heads, int num_heads, float scale_value, "
        "Tensor(a!) out) -> ()", via=lambda ops, a: _splitfuse(ops, a)),
    Row("_npu_paged_attention",
        "_npu_paged_attention(Tensor query, Tensor key_cache, Tensor value_cache, int num_kv_heads, int num_heads, "
        "float scale_value, Tensor block_table, Tensor context_lens, Tensor(a!) out, *,Tensor? workspace=None) -> ()",
        via=lambda ops, a: _paged_attention(ops, a, [1] * a.query.shape[0],
                                            [int(v) for v in a.context_lens.tolist()])),
    Row("npu_moe_gating_top_k_backward",
        "npu_moe_gating_top_k_backward(Tensor x_norm, Tensor grad_y, Tensor expertIdx, *, int renorm=0, "
        "int norm_type=0, float routed_scaling_factor=1.0, float eps=1e-20) -> Tensor",
        missing="aclnnMoeGatingTopKGrad"),
    Row("npu_moe_init_routing_quant",
        "npu_moe_init_routing_quant(Tensor x, Tensor expert_idx, *, Tensor? scale=None, Tensor? offset=None, "
        "int active_num=1024, int expert_capacity=0, int expert_num=256, int drop_pad_mode=0, "
        "int expert_tokens_num_mode=0, bool expert_tokens_before_capacity_flag=False, int quant_mode=1) -> "
        "(Tensor, Tensor, Tensor, Tensor, Tensor)",
        "aclnnMoeInitRoutingQuantV2",
        lambda a: dict(x=a.x, expertIdx=a.expert_idx, scaleOptional=a.scale, offsetOptional=a.offset,
                       activeNum=a.active_num, expertCapacity=a.expert_capacity, expertNum=a.expert_num,
                       dropPadMode=a.drop_pad_mode, expertTokensCountOrCumsumFlag=a.expert_tokens_num_mode,
                       expertTokensBeforeCapacityFlag=a.expert_tokens_before_capacity_flag, quantMode=a.quant_mode),
        lambda a: [("expandedXOut", (_init_v2_rows(a) if a.drop_pad_mode == 1 else
                                     [min(a.x.shape[0] * _topk(a.expert_idx), a.active_num)]) + [a.x.shape[-1]], I8),
                   ("expandedRowIdxOut", [a.expert_idx.numel()], I32),
                   ("expertTokensCountOrCumsumOutOptional", [a.expert_num], I32),
                   ("expertTokensBeforeCapacityOutOptional", [a.expert_num], I32),
                   ("dynamicQuantScaleOutOptional",
                    [math.prod(_init_v2_rows(a) if a.drop_pad_mode == 1 else
                               [min(a.x.shape[0] * _topk(a.expert_idx), a.active_num)])], F32)]),
    Row("npu_moe_re_routing",
        "npu_moe_re_routing(Tensor tokens, Tensor expert_token_num_per_rank, *, Tensor? per_token_scales=None, "
        "int expert_token_num_type=1, int idx_type=0, int? tokens_dtype=None) -> (Tensor, Tensor, Tensor, Tensor)",
        missing="aclnnMoeReRouting (no aclnn interface in the checkouts)"),
    Row("npu_moe_update_expert",
        "npu_moe_update_expert(Tensor expert_ids, Tensor eplb_table, *, Tensor? expert_scales=None, "
        "Tensor? pruning_threshold=None, Tensor? active_mask=None, int local_rank_id=-1, int world_size=-1, "
        "int balance_mode=0) -> (Tensor, Tensor)", missing="aclnnMoeUpdateExpert"),
    Row("npu_moe_distribute_combine",
        "npu_moe_distribute_combine(Tensor expand_x, Tensor expert_ids, Tensor expand_idx, "
        "Tensor ep_send_counts, Tensor expert_scales, str group_ep, int ep_world_size, int ep_rank_id, "
        "int moe_expert_num, *, Tensor? tp_send_counts=None, Tensor? x_active_mask=None, "
        "Tensor? activation_scale=None, Tensor? weight_scale=None, Tensor? group_list=None, "
        "Tensor? expand_scales=None, Tensor? shared_expert_x=None, str group_tp=\"\", int tp_world_size=0, "
        "int tp_rank_id=0, int expert_shard_type=0, int shared_expert_num=1, int shared_expert_rank_num=0, "
        "int global_bs=0, int out_dtype=0, int comm_quant_mode=0, int group_list_type=0) -> Tensor",
        "aclnnMoeDistributeCombine", lambda a: _combine_args(a, False), lambda a: _combine_outs(a, False),
        check=lambda a: _combine_check(a, False)),
    Row("npu_moe_distribute_combine_add_rms_norm",
        "npu_moe_distribute_combine_add_rms_norm(Tensor expand_x, Tensor expert_ids, Tensor expand_idx, "
        "Tensor ep_send_counts, Tensor expert_scales, Tensor residual_x, Tensor gamma, str group_ep, "
        "int ep_world_size, int ep_rank_id, int moe_expert_num, *, Tensor? tp_send_counts=None, "
        "Tensor? x_active_mask=None, Tensor? activation_scale=None, Tensor? weight_scale=None, "
        "Tensor? group_list=None, Tensor? expand_scales=None, Tensor? shared_expert_x=None, "
        "Tensor? elastic_info=None, Tensor? ori_x=None, Tensor? const_expert_alpha_1=None, "
        "Tensor? const_expert_alpha_2=None, Tensor? const_expert_v=None, str group_tp=\"\", "
        "int tp_world_size=0, int tp_rank_id=0, int expert_shard_type=0, int shared_expert_num=1, "
        "int shared_expert_rank_num=0, int global_bs=0, int out_dtype=0, int comm_quant_mode=0, "
        "int group_list_type=0, str comm_alg=\"\", float norm_eps=1e-06, int zero_expert_num=0, "
        "int copy_expert_num=0, int const_expert_num=0) -> (Tensor, Tensor, Tensor)",
        "aclnnMoeDistributeCombineAddRmsNorm", _combine_arn_args, _combine_arn_outs,
        check=lambda a: _combine_check(a, True)),
    Row("npu_moe_distribute_combine_setup",
        "npu_moe_distribute_combine_setup(Tensor expand_x, Tensor expert_ids, "
        "Tensor assist_info_for_combine, str group_ep, int ep_world_size, int ep_rank_id, "
        "int moe_expert_num, *, int expert_shard_type=0, int shared_expert_num=1, "
        "int shared_expert_rank_num=0, int global_bs=0, int comm_quant_mode=0, int comm_type=0, "
        "str comm_alg=\"\") -> (Tensor, Tensor)",
        missing="aclnnMoeDistributeCombineSetup"),
    Row("npu_moe_distribute_combine_teardown",
        "npu_moe_distribute_combine_teardown(Tensor expand_x, Tensor quant_expand_x, Tensor expert_ids, "
        "Tensor expand_idx, Tensor expert_scales, Tensor comm_cmd_info, str group_ep, int ep_world_size, "
        "int ep_rank_id, int moe_expert_num, *, Tensor? x_active_mask=None, Tensor? shared_expert_x=None, "
        "int expert_shard_type=0, int shared_expert_num=1, int shared_expert_rank_num=0, int global_bs=0, "
        "int comm_quant_mode=0, int comm_type=0, str comm_alg=\"\") -> Tensor",
        missing="aclnnMoeDistributeCombineTeardown"),
    Row("npu_moe_distribute_combine_v2",
        "npu_moe_distribute_combine_v2(Tensor expand_x, Tensor expert_ids, Tensor assist_info_for_combine, "
        "Tensor ep_send_counts, Tensor expert_scales, str group_ep, int ep_world_size, int ep_rank_id, "
        "int moe_expert_num, *, Tensor? tp_send_counts=None, Tensor? x_active_mask=None, "
        "Tensor? expand_scales=None, Tensor? shared_expert_x=None, Tensor? elastic_info=None, "
        "Tensor? ori_x=None, Tensor? const_expert_alpha_1=None, Tensor? const_expert_alpha_2=None, "
        "Tensor? const_expert_v=None, Tensor? performance_info=None, str group_tp=\"\", int tp_world_size=0, "
        "int tp_rank_id=0, int expert_shard_type=0, int shared_expert_num=1, int shared_expert_rank_num=0, "
        "int global_bs=0, int comm_quant_mode=0, str comm_alg=\"\", int zero_expert_num=0, "
        "int copy_expert_num=0, int const_expert_num=0) -> Tensor",
        "aclnnMoeDistributeCombineV2", lambda a: _combine_args(a, True), lambda a: _combine_outs(a, True),
        check=lambda a: _combine_check(a, True)),
    Row("npu_moe_distribute_dispatch",
        "npu_moe_distribute_dispatch(Tensor x, Tensor expert_ids, str group_ep, int ep_world_size, "
        "int ep_rank_id, int moe_expert_num, *, Tensor? scales=None, Tensor? x_active_mask=None, "
        "Tensor? expert_scales=None, str group_tp=\"\", int tp_world_size=0, int tp_rank_id=0, "
        "int expert_shard_type=0, int shared_expert_num=1, int shared_expert_rank_num=0, int quant_mode=0, "
        "int global_bs=0, int expert_token_nums_type=1) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, "
        "Tensor)",
        "aclnnMoeDistributeDispatch", lambda a: _dispatch_args(a, False), lambda a: _dispatch_outs(a, False),
        ret=lambda a, o: _dispatch_ret(a, o, False), check=_dispatch_check),
    Row("npu_moe_distribute_dispatch_setup",
        "npu_moe_distribute_dispatch_setup(Tensor x, Tensor expert_ids, str group_ep, int ep_world_size, "
        "int ep_rank_id, int moe_expert_num, *, Tensor? scales=None, Tensor? x_active_mask=None, "
        "int expert_shard_type=0, int shared_expert_num=1, int shared_expert_rank_num=0, int quant_mode=0, "
        "int global_bs=0, int comm_type=0, str comm_alg=\"\", int? y_dtype=None) -> (Tensor, Tensor, Tensor)",
        missing="aclnnMoeDistributeDispatchSetup"),
    Row("npu_moe_distribute_dispatch_teardown",
        "npu_moe_distribute_dispatch_teardown(Tensor x, Tensor y, Tensor expert_ids, Tensor comm_cmd_info, "
        "str group_ep, int ep_world_size, int ep_rank_id, int moe_expert_num, *, int expert_shard_type=0, "
        "int shared_expert_num=1, int shared_expert_rank_num=0, int quant_mode=0, int global_bs=0, "
        "int expert_token_nums_type=1, int comm_type=0, str comm_alg=\"\") -> (Tensor, Tensor, Tensor, "
        "Tensor)",
        missing="aclnnMoeDistributeDispatchTeardown"),
    Row("npu_moe_distribute_dispatch_v2",
        "npu_moe_distribute_dispatch_v2(Tensor x, Tensor expert_ids, str group_ep, int ep_world_size, "
        "int ep_rank_id, int moe_expert_num, *, Tensor? scales=None, Tensor? x_active_mask=None, "
        "Tensor? expert_scales=None, Tensor? elastic_info=None, Tensor? performance_info=None, "
        "str group_tp=\"\", int tp_world_size=0, int tp_rank_id=0, int expert_shard_type=0, "
        "int shared_expert_num=1, int shared_expert_rank_num=0, int quant_mode=0, int global_bs=0, "
        "int expert_token_nums_type=1, str comm_alg=\"\", int zero_expert_num=0, int copy_expert_num=0, "
        "int const_expert_num=0, int? y_dtype=None, int? x_dtype=None, int? scales_dtype=None) -> (Tensor, "
        "Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)",
        "aclnnMoeDistributeDispatchV2", lambda a: _dispatch_args(a, True), lambda a: _dispatch_outs(a, True),
        ret=lambda a, o: _dispatch_ret(a, o, True), check=_dispatch_check),
]
