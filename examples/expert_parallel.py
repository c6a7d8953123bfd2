"""Expert parallelism with aclnnMoeTokenPermuteWithEp, one process per rank.

One MoE step (N tokens, top-K routing over E experts, hidden size H) is split across R ranks, each
owning E / R consecutive experts. Sorting the N*K (token, slot) pairs by expert puts every expert's rows
in one contiguous block, so rank r owns the sorted rows [start_r, end_r): exactly the ``range`` argument
of aclnnMoeTokenPermuteWithEp. Each rank runs in its own process (its own ACL runtime, as on a
multi-device host) and computes

  dispatch:  its block of the permuted tokens and probabilities, with the full sorted indices;
  experts:   its experts' outputs for the block (here expert x scales its rows by a small integer);
  combine:   aclnnMoeTokenUnpermuteWithEp of those outputs over its block, weighted by the routing
             probabilities: its partial result for every token;
  backward:  aclnnMoeTokenPermuteWithEpGrad of its block's gradient, i.e. its partial token gradient.

The parent checks that the ranks' blocks, concatenated, equal the unsharded permutation (range [0, N*K)),
that the partial combines, summed (the all-reduce of real expert parallelism), equal the unsharded
combine and sum_k probs * expert(token), and that the partial gradients, summed, equal the unsharded
gradient, bit for bit (integer-valued data makes every float sum exact). It prints per-rank timings.

    python examples/expert_parallel.py --ranks 4 --tokens 512 --hidden 256 --experts 16 --topk 4
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import numpy as np


def make_step(tokens: int, hidden: int, experts: int, topk: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-8, 9, size=(tokens, hidden)).astype(np.float32)
    indices = np.argsort(rng.random((tokens, experts)), axis=1)[:, :topk].astype(np.int32)
    probs = rng.integers(-8, 9, size=(tokens, topk)).astype(np.float32)
    return x, indices, probs


def rank_ranges(indices: np.ndarray, experts: int, ranks: int) -> list[tuple[int, int]]:
    """Sorted-row range of each rank: rank r owns experts [r*E/R, (r+1)*E/R)."""
    counts = np.bincount(indices.reshape(-1), minlength=experts)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    owned = np.linspace(0, experts, ranks + 1).astype(int)
    return [(int(bounds[owned[r]]), int(bounds[owned[r + 1]])) for r in range(ranks)]


def expert_scale(experts: int) -> np.ndarray:
    """The stand-in experts: expert x multiplies its rows by a small integer (exact in float32)."""
    return (np.arange(experts) % 5 - 2).astype(np.float32)


def run_experts(rows: np.ndarray, indices: np.ndarray, window: tuple[int, int], experts: int) -> np.ndarray:
    """Expert outputs of the sorted rows [start, end): row r belongs to the r-th smallest expert id."""
    expert_of_row = np.sort(indices.reshape(-1), kind="stable")[window[0]:window[1]]
    return rows * expert_scale(experts)[expert_of_row][:, None]


def run_rank(rank: int, window: tuple[int, int], step, grad_seed: int, experts: int, results) -> None:
    import aclnn_py  # each process loads its own libraries and runtime

    x, indices, probs = step
    start, end = window
    t0 = time.perf_counter()
    if end > start:
        out, sorted_idx, pout = aclnn_py.moe_token_permute_with_ep(x, indices, probs, [start, end], 0)
        # the combine reads the original (N, K) probs, not the permuted ones
        combined = aclnn_py.moe_token_unpermute_with_ep(run_experts(out, indices, window, experts), sorted_idx,
                                                        probs, indices.shape[1], [start, end])
    else:  # a rank whose experts received no token has nothing to compute
        out, pout = np.zeros((0, x.shape[1]), x.dtype), np.zeros(0, x.dtype)
        combined = np.zeros_like(x)
    t1 = time.perf_counter()
    # The gradient of this rank's block, from the shared full-size gradient (same seed on every rank).
    g_full, pg_full = make_grad(x.shape[0] * indices.shape[1], x.shape[1], grad_seed)
    g, pg = g_full[start:end], pg_full[start:end]
    if end > start:
        token_grad, probs_grad = aclnn_py.moe_token_permute_with_ep_grad(g, sorted_idx, pg, indices.shape[1],
                                                                         [start, end])
    else:
        token_grad, probs_grad = np.zeros_like(x), np.zeros_like(probs)
    t2 = time.perf_counter()
    results.put((rank, window, out, pout, token_grad, probs_grad, combined, t1 - t0, t2 - t1))


def make_grad(rows: int, hidden: int, seed: int):
    rng = np.random.default_rng(seed)
    return (rng.integers(-8, 9, size=(rows, hidden)).astype(np.float32),
            rng.integers(-8, 9, size=rows).astype(np.float32))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--tokens", type=int, default=256)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--experts", type=int, default=16)
    p.add_argument("--topk", type=int, default=4)
    args = p.parse_args(argv)

    step = make_step(args.tokens, args.hidden, args.experts, args.topk)
    x, indices, probs = step
    windows = rank_ranges(indices, args.experts, args.ranks)
    ctx = mp.get_context("spawn")  # a fresh process per rank, like one process per device
    results = ctx.Queue()
    procs = [ctx.Process(target=run_rank, args=(r, windows[r], step, 1, args.experts, results))
             for r in range(args.ranks)]
    for proc in procs:
        proc.start()
    per_rank = sorted(results.get() for _ in procs)
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            print(f"a rank failed with exit status {proc.exitcode}")
            return 1

    import aclnn_py

    total = x.shape[0] * args.topk
    full_out, full_sorted, full_pout = aclnn_py.moe_token_permute_with_ep(x, indices, probs, [0, total], 0)
    g_full, pg_full = make_grad(total, x.shape[1], 1)
    full_tg, full_pg = aclnn_py.moe_token_permute_with_ep_grad(g_full, full_sorted, pg_full, args.topk, [0, total])
    full_combined = aclnn_py.moe_token_unpermute_with_ep(run_experts(full_out, indices, (0, total), args.experts),
                                                         full_sorted, probs, args.topk, [0, total])
    by_hand = np.einsum("tk,tkh->th", probs, expert_scale(args.experts)[indices][:, :, None] * x[:, None, :])

    print(f"{args.ranks} ranks, {args.tokens} tokens x top-{args.topk} over {args.experts} experts, hidden {args.hidden}")
    print(f"{'rank':>4} {'experts':>9} {'rows':>13} {'forward ms':>11} {'backward ms':>12}")
    per_expert = args.experts / args.ranks
    for rank, (s, e), _, _, _, _, _, tf, tb in per_rank:
        lo, hi = int(rank * per_expert), int((rank + 1) * per_expert)
        print(f"{rank:>4} {f'{lo}-{hi - 1}':>9} {f'[{s}, {e})':>13} {tf * 1e3:>11.3f} {tb * 1e3:>12.3f}")

    union_out = np.concatenate([r[2] for r in per_rank])
    union_pout = np.concatenate([r[3] for r in per_rank])
    sum_tg = np.sum([r[4] for r in per_rank], axis=0)
    sum_pg = np.sum([r[5] for r in per_rank], axis=0)
    sum_combined = np.sum([r[6] for r in per_rank], axis=0)
    checks = {
        "forward tokens = unsharded": np.array_equal(union_out, full_out),
        "forward probs  = unsharded": np.array_equal(union_pout, full_pout),
        "sum of partial combines = unsharded combine": np.array_equal(sum_combined, full_combined),
        "unsharded combine = sum_k probs * expert(token)": np.array_equal(full_combined, by_hand),
        "sum of token gradients = unsharded": np.array_equal(sum_tg, full_tg),
        "sum of probs gradients = unsharded": np.array_equal(sum_pg, full_pg),
    }
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
