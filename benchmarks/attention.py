"""FlashAttentionScore forward on the stub against torch CPU's scaled_dot_product_attention, side by side.

    python -m benchmarks.attention                  # B=1, N=8, S=2048, D=128, float32, no mask and causal
    python -m benchmarks.attention --s 1024 --dtype bfloat16 --rounds 5

Both run on the same inputs with the same number of threads (torch.set_num_threads = the stub's thread count),
in interleaved rounds (timing.interleave); the table prints medians and the ratio torch / stub (above 1: the
stub is faster). The stub call is phase 2 alone on device tensors with a repeatable executor, so uploads and
parameter checks are not timed; torch's call includes nothing else either.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from aclnn_py import acl
from aclnn_py.runtime import Tensor

from . import timing


def stub_call(q, k, v, n, causal, dtype):
    """A zero-argument function running phase 2 of aclnnFlashAttentionScore (BNSD) once, and its cleanup."""
    from aclnn_py._native import ffi, lib

    b, _, s, d = q.shape
    dev = [Tensor.from_numpy(x) for x in (q, k, v)]
    out = Tensor.from_numpy(np.zeros_like(q))
    smax = Tensor.from_numpy(np.zeros((b, n, s, 8), np.float32))
    ssum = Tensor.from_numpy(np.zeros((b, n, s, 8), np.float32))
    mask = Tensor.from_numpy(np.triu(np.ones((2048, 2048), np.uint8), 1)) if causal else None
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    layout = ffi.new("char[]", b"BNSD")
    status = lib.aclnnFlashAttentionScoreGetWorkspaceSize(
        dev[0].handle, dev[1].handle, dev[2].handle, ffi.NULL, ffi.NULL, ffi.NULL,
        mask.handle if mask else ffi.NULL, ffi.NULL, 1.0 / math.sqrt(d), 1.0, 65536, 0 if causal else 65536, n,
        layout, 0, 3 if causal else 0, smax.handle, ssum.handle, ffi.NULL, out.handle, ws, ex)
    assert status == 0, acl.aclGetRecentErrMsg()
    lib.aclSetAclOpExecutorRepeatable(ex[0])
    workspace = acl.aclrtMalloc(ws[0], 0) if ws[0] else None
    stream = acl.aclrtCreateStream()

    def run():
        st = lib.aclnnFlashAttentionScore(workspace or ffi.NULL, ws[0], ex[0], stream)
        assert st == 0, acl.aclGetRecentErrMsg()
        acl.aclrtSynchronizeStream(stream)

    def close():
        lib.aclDestroyAclOpExecutor(ex[0])
        if workspace:
            acl.aclrtFree(workspace)
        acl.aclrtDestroyStream(stream)

    run.result = out
    return run, close, (dev, out, smax, ssum, mask)


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--b", type=int, default=1)
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--s", type=int, default=2048)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    threads = acl.aclStubNumThreads() if hasattr(acl, "aclStubNumThreads") else torch.get_num_threads()
    torch.set_num_threads(threads)
    tdtype = getattr(torch, args.dtype)
    rng = np.random.default_rng(0)
    shape = (args.b, args.n, args.s, args.d)
    tq, tk, tv = (torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(tdtype) for _ in range(3))
    to_np = (lambda t: t.view(torch.int16).numpy().view(__import__("aclnn_py").dtypes.bfloat16)) \
        if args.dtype == "bfloat16" else (lambda t: t.numpy())
    print(f"FlashAttentionScore forward, B={args.b} N={args.n} S={args.s} D={args.d} {args.dtype}, "
          f"{threads} threads; torch {torch.__version__}")
    print(f"{'mask':<8} {'stub s':>9} {'torch s':>9} {'torch/stub':>10}  max |diff|")
    acl.aclInit(None)
    acl.aclrtSetDevice(0)
    for causal in (False, True):
        run, close, keep = stub_call(to_np(tq), to_np(tk), to_np(tv), args.n, causal, args.dtype)
        sdpa = torch.nn.functional.scaled_dot_product_attention
        times = timing.interleave({"stub": (run, args.rounds),
                                   "torch": (lambda: sdpa(tq, tk, tv, is_causal=causal), args.rounds)})
        ref = sdpa(tq.double(), tk.double(), tv.double(), is_causal=causal).float().numpy()
        got = torch.from_numpy(np.asarray(run.result.numpy())).float().numpy() if args.dtype != "bfloat16" else \
            torch.from_numpy(run.result.numpy().view(np.int16)).view(torch.bfloat16).float().numpy()
        stub_t, torch_t = timing.median(times["stub"]), timing.median(times["torch"])
        print(f"{'causal' if causal else 'none':<8} {stub_t:9.3f} {torch_t:9.3f} {timing.ratio(torch_t, stub_t):10.2f}"
              f"  {np.abs(got - ref).max():.2e}")
        close()
        del keep
    acl.aclrtResetDevice(0)
    acl.aclFinalize()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
