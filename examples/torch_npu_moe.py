"""A slice of a vLLM-Ascend-style MoE layer written against torch_npu's API, run on the CPU with aclnn_py's shim.

    python examples/torch_npu_moe.py

The code between the markers is what NPU serving code calls (`import torch_npu`); `install()` makes that import
give `aclnn_py.torch_npu`, whose functions run the stub's aclnn operators on torch CPU tensors. Two paths:

- inference (vLLM-Ascend's dispatch): RMS norm, gating top-k softmax, MoeInitRoutingV2 (tokens sorted by expert
  and the per-expert counts), two grouped matmuls with SwiGLU between them, MoeFinalizeRouting (the weighted
  combine, plus the residual);
- training (Megatron-style token permutation): RMS norm, gating, token permute, the experts (torch matmuls and
  npu_swiglu), token unpermute weighted by the routing probabilities, differentiated end to end.

Both are checked against a pure-torch reference of the same layer (a loop over experts), the training path's
gradients against torch autograd of that reference.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from aclnn_py.torch_npu import install


# ---- NPU code: written for torch_npu --------------------------------------------------------------------------------

def moe_inference(torch_npu, hidden, residual, gamma, router_w, w13, w2, top_k):
    """vLLM-Ascend's fused MoE forward (dropless, all experts local)."""
    n, e = hidden.shape[0], w13.shape[0]
    x, _ = torch_npu.npu_rms_norm(hidden, gamma)
    logits = x @ router_w
    topk_weights, topk_ids, _ = torch_npu.npu_moe_gating_top_k_softmax(logits, None, k=top_k)
    expanded_x, expanded_row_idx, expert_tokens, _ = torch_npu.npu_moe_init_routing_v2(
        x, topk_ids, active_num=n * top_k, expert_num=e, expert_tokens_num_type=1, expert_tokens_num_flag=True,
        active_expert_range=[0, e], quant_mode=-1)
    gate_up = torch_npu.npu_grouped_matmul([expanded_x], [w13], group_list=expert_tokens, split_item=2,
                                           group_type=0, group_list_type=1)[0]
    act = torch_npu.npu_swiglu(gate_up)
    down = torch_npu.npu_grouped_matmul([act], [w2], group_list=expert_tokens, split_item=2, group_type=0,
                                        group_list_type=1)[0]
    return torch_npu.npu_moe_finalize_routing(down, skip1=residual, skip2=None, bias=None, scales=topk_weights,
                                              expanded_src_to_dst_row=expanded_row_idx,
                                              export_for_source_row=topk_ids, drop_pad_mode=2)


def moe_training(torch_npu, hidden, gamma, router_w, w13, w2, top_k):
    """Token permutation around per-expert matmuls; differentiable through the shim's grad operators."""
    x, _ = torch_npu.npu_rms_norm(hidden, gamma)
    logits = x @ router_w
    probs, topk_ids, _ = torch_npu.npu_moe_gating_top_k_softmax(logits.detach(), None, k=top_k)
    permuted, sorted_indices = torch_npu.npu_moe_token_permute(x, topk_ids)
    counts = torch.bincount(topk_ids.flatten().long(), minlength=w13.shape[0]).tolist()
    outs = [torch_npu.npu_swiglu(chunk @ w13[i]) @ w2[i] for i, chunk in enumerate(permuted.split(counts))]
    return torch_npu.npu_moe_token_unpermute(torch.cat(outs), sorted_indices, probs)


# ---- the pure-torch reference ---------------------------------------------------------------------------------------

def reference(hidden, residual, gamma, router_w, w13, w2, top_k):
    x = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma
    weights, ids = (x @ router_w).detach().softmax(-1).topk(top_k, -1)
    out = torch.zeros_like(x)
    for e in range(w13.shape[0]):
        token, slot = (ids == e).nonzero(as_tuple=True)
        gate, up = (x[token] @ w13[e]).chunk(2, -1)
        out = out.index_add(0, token, weights[token, slot, None] * ((F.silu(gate) * up) @ w2[e]))
    return out if residual is None else out + residual


def main(verbose: bool = True, tokens: int = 32, hidden_size: int = 64, inter: int = 32, experts: int = 8,
         top_k: int = 2) -> dict:
    g = torch.Generator().manual_seed(0)
    hidden = torch.randn(tokens, hidden_size, generator=g)
    residual = torch.randn(tokens, hidden_size, generator=g)
    gamma = torch.rand(hidden_size, generator=g) + 0.5
    router_w = torch.randn(hidden_size, experts, generator=g)
    w13 = torch.randn(experts, hidden_size, 2 * inter, generator=g) / hidden_size ** 0.5
    w2 = torch.randn(experts, inter, hidden_size, generator=g) / inter ** 0.5

    torch_npu = install()  # what `import torch_npu` now returns
    try:
        import torch_npu as imported
        assert imported is torch_npu
        errors = {}
        ref = reference(hidden, residual, gamma, router_w, w13, w2, top_k)
        got = moe_inference(torch_npu, hidden, residual, gamma, router_w, w13, w2, top_k)
        errors["forward"] = ((got - ref).abs().max() / ref.abs().max()).item()

        leaves = [t.clone().requires_grad_() for t in (hidden, gamma, w13, w2)]
        ref_leaves = [t.clone().requires_grad_() for t in (hidden, gamma, w13, w2)]
        out = moe_training(torch_npu, leaves[0], leaves[1], router_w, leaves[2], leaves[3], top_k)
        ref_out = reference(ref_leaves[0], None, ref_leaves[1], router_w, ref_leaves[2], ref_leaves[3], top_k)
        errors["training_forward"] = ((out - ref_out).abs().max() / ref_out.abs().max()).item()
        weight = torch.randn(out.shape, generator=g)
        grads = torch.autograd.grad((out * weight).sum(), leaves)
        ref_grads = torch.autograd.grad((ref_out * weight).sum(), ref_leaves)
        for name, a, b in zip(("grad_x", "grad_gamma", "grad_w13", "grad_w2"), grads, ref_grads):
            errors[name] = ((a - b).abs().max() / b.abs().max()).item()
    finally:
        from aclnn_py.torch_npu import uninstall
        uninstall()
    if verbose:
        print(f"MoE layer: {tokens} tokens, hidden {hidden_size}, {experts} experts, top-{top_k}")
        for name, err in errors.items():
            print(f"  {name:17s} largest error relative to the largest reference value: {err:.1e}")
    return errors


if __name__ == "__main__":
    main()
