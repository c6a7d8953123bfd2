"""Tests written for an NPU (they import torch_npu and call its functions as vLLM-Ascend's code does); with this
directory's conftest.py they run on a CPU against aclnn_py's shim."""
import torch
import torch.nn.functional as F
import torch_npu


def test_device_basics():
    assert torch.npu.is_available() and torch_npu.npu.device_count() >= 1
    torch.npu.set_device(0)
    torch.npu.synchronize()
    torch.npu.current_stream().synchronize()


def test_rms_norm_and_swiglu():
    x, gamma = torch.randn(4, 64), torch.rand(64) + 0.5
    y, rstd = torch_npu.npu_rms_norm(x, gamma, epsilon=1e-6)
    torch.testing.assert_close(y, x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma)
    gate_up = torch.randn(4, 32)
    gate, up = gate_up.chunk(2, -1)
    torch.testing.assert_close(torch_npu.npu_swiglu(gate_up), F.silu(gate) * up)


def test_moe_dispatch_and_combine():
    tokens, experts, top_k = 8, 4, 2
    x = torch.randn(tokens, 16)
    weights, ids, _ = torch_npu.npu_moe_gating_top_k_softmax(torch.randn(tokens, experts), None, k=top_k)
    expanded, row_idx, counts, _ = torch_npu.npu_moe_init_routing_v2(
        x, ids, active_num=tokens * top_k, expert_num=experts, expert_tokens_num_type=1,
        expert_tokens_num_flag=True, active_expert_range=[0, experts], quant_mode=-1)
    assert counts.tolist() == torch.bincount(ids.flatten().long(), minlength=experts).tolist()
    out = torch_npu.npu_moe_finalize_routing(expanded, skip1=None, skip2=None, bias=None, scales=weights,
                                             expanded_src_to_dst_row=row_idx, export_for_source_row=ids,
                                             drop_pad_mode=2)
    torch.testing.assert_close(out, x * weights.sum(-1, keepdim=True))  # identity experts: the weights' sum


def test_paged_kv_cache():
    key, value = torch.randn(3, 2, 8), torch.randn(3, 2, 8)
    key_cache, value_cache = torch.zeros(4, 4, 2, 8), torch.zeros(4, 4, 2, 8)
    slots = torch.tensor([1, 6, 13], dtype=torch.int32)
    torch_npu._npu_reshape_and_cache(key, value, key_cache, value_cache, slots)
    assert torch.equal(key_cache.view(-1, 2, 8)[slots.long()], key)
