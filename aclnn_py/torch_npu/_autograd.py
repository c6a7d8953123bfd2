"""The backward of each differentiable function, through the stub's grad operators.

RULES maps a function to (setup_context, backward) for `torch.library.register_autograd`; `inputs` are the
schema's arguments in order, and backward returns one gradient per argument (None for non-tensors)."""
from __future__ import annotations

import torch

ops = torch.ops.aclnn_npu


def _save(ctx, **kw):
    tensors = {k: v for k, v in kw.items() if isinstance(v, torch.Tensor)}
    ctx.save_for_backward(*tensors.values())
    ctx.names = list(tensors)
    ctx.attrs = {k: v for k, v in kw.items() if k not in tensors}


def _saved(ctx) -> dict:
    return {**dict(zip(ctx.names, ctx.saved_tensors)), **ctx.attrs}


def _rms_setup(ctx, inputs, output):
    x, gamma, _ = inputs
    _save(ctx, x=x, gamma=gamma, rstd=output[1])


def _rms_backward(ctx, gy, _grstd):
    s = _saved(ctx)
    dx, dgamma = ops.npu_rms_norm_backward(gy.contiguous(), s["x"], s["gamma"], s["rstd"])
    return dx, dgamma.to(s["gamma"].dtype), None


def _swiglu_setup(ctx, inputs, output):
    x, dim = inputs
    _save(ctx, x=x, dim=dim)


def _swiglu_backward(ctx, gy):
    s = _saved(ctx)
    return ops.npu_swiglu_backward(gy.contiguous(), s["x"], s["dim"]), None


def _rope_setup(ctx, inputs, output):
    x, r1, r2, mode, _rotate = inputs
    _save(ctx, x=x, r1=r1, r2=r2, mode=mode)


def _rope_backward(ctx, gy):
    s = _saved(ctx)
    dx, dr1, dr2 = ops.npu_rotary_mul_backward(gy.contiguous(), s["x"], s["r1"], s["r2"], s["mode"])
    return dx, dr1, dr2, None, None


def _permute_setup(ctx, inputs, output):
    tokens, indices, _num_out, padded = inputs
    _save(ctx, sorted=output[1], rows=tokens.shape[0], dtype=tokens.dtype,
           topk=indices.shape[1] if indices.dim() == 2 else 1, padded=padded)


def _permute_backward(ctx, g, _gsorted):
    s = _saved(ctx)
    d = ops.npu_moe_token_permute_grad_v2(g.contiguous(), s["sorted"], s["rows"], s["dtype"], s["topk"], s["padded"])
    return d, None, None, None


def _unpermute_setup(ctx, inputs, output):
    permuted, sorted_indices, probs, padded, restore = inputs
    _save(ctx, permuted=permuted, sorted=sorted_indices, probs=probs, padded=padded, restore=restore)


def _unpermute_backward(ctx, g):
    s = _saved(ctx)
    probs = s.get("probs")
    dperm, dprobs = ops.npu_moe_token_unpermute_grad(s["permuted"], g.contiguous(), s["sorted"], probs, s["padded"],
                                                      s["restore"])
    return dperm, None, dprobs if probs is not None else None, None, None


def _init_v2_setup(ctx, inputs, output):
    x, expert_idx = inputs[0], inputs[1]
    (scale, offset, active_num, capacity, expert_num, drop_pad, *_rest) = inputs[2:]
    _save(ctx, row_idx=output[1], rows=x.shape[0], topk=expert_idx.shape[1], drop_pad=drop_pad,
          active_num=output[0].shape[0] if drop_pad == 0 else 0)


def _init_v2_backward(ctx, gx, *_others):
    s = _saved(ctx)
    dx = ops._aclnn_moe_init_routing_v2_grad(gx.contiguous(), s["row_idx"], s["topk"], s["drop_pad"],
                                              s["active_num"], s["rows"])
    return (dx,) + (None,) * 13


def _finalize_setup(ctx, inputs, output):
    expanded, skip1, skip2, bias, scales, row_idx, expert_idx, drop_pad, k = inputs
    drop_pad = drop_pad or 0
    # The grad operator reads the slots row-major (t * k + j: forward modes 2 and 3, its modes 0 and 1); forward
    # modes 0 and 1 index them column-major (t + j * N).
    if drop_pad >= 2:
        drop_pad -= 2
    else:
        k = scales.shape[1] if scales is not None else (k or 1)
        row_idx = row_idx.reshape(k, -1).T.contiguous().reshape(-1)
    _save(ctx, expanded=expanded, skip1=skip1 is not None, skip2=skip2 is not None, bias=bias, scales=scales,
          row_idx=row_idx, expert_idx=expert_idx, drop_pad=drop_pad,
          active_num=expanded.shape[0] if drop_pad == 0 else 0,
          expert_num=expanded.shape[0] if drop_pad == 1 else 0,
          capacity=expanded.shape[1] if drop_pad == 1 and expanded.dim() == 3 else 0)


def _finalize_backward(ctx, g):
    s = _saved(ctx)
    g = g.contiguous()
    dexp, dscales = ops._aclnn_moe_finalize_routing_v2_grad(
        g, s["row_idx"], s["expanded"], s.get("scales"), s.get("expert_idx"), s.get("bias"), s["drop_pad"],
        s["active_num"], s["expert_num"], s["capacity"])
    return (dexp, g if s["skip1"] else None, g if s["skip2"] else None, None,
            dscales if s.get("scales") is not None else None, None, None, None, None)


def _rm_permute_setup(ctx, inputs, output):
    tokens, routing_map, probs, _num_out, pad = inputs
    _save(ctx, routing_map=routing_map, sorted=output[2], has_probs=probs is not None, pad=pad,
          probs_rows=output[1].shape[0])


def _rm_permute_backward(ctx, g, gprobs, _gsorted):
    s = _saved(ctx)
    if s["has_probs"] and gprobs is None:
        gprobs = g.new_zeros(s["probs_rows"])
    t, e = s["routing_map"].shape
    dt, dp = ops.npu_moe_token_permute_with_routing_map_grad(
        g.contiguous(), gprobs.contiguous() if s["has_probs"] else None, s["sorted"], s["routing_map"], e, t,
        s["pad"])
    return dt, None, dp if s["has_probs"] else None, None, None


def _rm_unpermute_setup(ctx, inputs, output):
    permuted, _sorted, restore, probs, routing_map, pad = inputs
    _save(ctx, permuted=permuted, probs=probs, routing_map=routing_map, pad=pad, restore=restore,
          out_index=output[1], token_id=output[2])


def _rm_unpermute_backward(ctx, g, *_others):
    s = _saved(ctx)
    dperm, dprobs = ops.npu_moe_token_unpermute_with_routing_map_grad(
        g.contiguous(), s["out_index"], s["token_id"], s.get("routing_map"), s["permuted"], s.get("probs"), s["pad"],
        s["restore"])
    return dperm, None, None, dprobs if s.get("probs") is not None else None, None, None


_FA_NAMES = ("query", "key", "value", "head_num", "input_layout", "pse", "padding_mask", "atten_mask", "scale",
             "keep_prob", "pre_tockens", "next_tockens", "inner_precise", "prefix", "actual_seq_qlen",
             "actual_seq_kvlen", "sparse_mode")


def _fa_setup(ctx, inputs, output):
    a = dict(zip(_FA_NAMES, inputs))
    _save(ctx, **a, attention=output[0], softmax_max=output[1], softmax_sum=output[2])


def _fa_backward(ctx, gout, *_others):
    s = _saved(ctx)
    dq, dk, dv, dpse, _ = ops.npu_fusion_attention_grad(
        s["query"], s["key"], s["value"], gout.contiguous(), s["head_num"], s["input_layout"], pse=s.get("pse"),
        padding_mask=s.get("padding_mask"), atten_mask=s.get("atten_mask"), softmax_max=s["softmax_max"],
        softmax_sum=s["softmax_sum"], attention_in=s["attention"], scale_value=s["scale"], keep_prob=s["keep_prob"],
        pre_tockens=s["pre_tockens"], next_tockens=s["next_tockens"], inner_precise=s["inner_precise"],
        prefix=s["prefix"], actual_seq_qlen=s["actual_seq_qlen"], actual_seq_kvlen=s["actual_seq_kvlen"],
        sparse_mode=s["sparse_mode"])
    return (dq, dk, dv, None, None, dpse if s.get("pse") is not None else None) + (None,) * 18


RULES = {
    "npu_rms_norm": (_rms_setup, _rms_backward),
    "npu_swiglu": (_swiglu_setup, _swiglu_backward),
    "npu_rotary_mul": (_rope_setup, _rope_backward),
    "npu_moe_token_permute": (_permute_setup, _permute_backward),
    "npu_moe_token_unpermute": (_unpermute_setup, _unpermute_backward),
    "npu_moe_init_routing_v2": (_init_v2_setup, _init_v2_backward),
    "npu_moe_finalize_routing": (_finalize_setup, _finalize_backward),
    "npu_fusion_attention": (_fa_setup, _fa_backward),
    "npu_moe_token_permute_with_routing_map": (_rm_permute_setup, _rm_permute_backward),
    "_npu_moe_token_unpermute_with_routing_map": (_rm_unpermute_setup, _rm_unpermute_backward),
}
