"""Expert parallelism across processes: tokens exchanged with HcclAlltoAllV, checked against one device.

R ranks, one process each (its own runtime, as one process per device), run one MoE layer on N tokens, top-K
routing over E experts of hidden size H. Rank r holds N / R of the tokens (with their routing) and experts
[r*E/R, (r+1)*E/R) (expert e multiplies a row by its own H x H matrix). Each rank:

  permute    aclnnMoeTokenPermute: its tokens' rows, one per (token, slot), sorted by expert, so the rows bound for
             each rank are contiguous;
  dispatch   HcclAlltoAll of the row counts, then HcclAlltoAllV of the rows (and of their expert ids): every rank
             receives the rows of its experts from every rank;
  experts    each row times its expert's matrix;
  combine    HcclAlltoAllV back, the reverse counts: every row returns to its token's rank, in its sent order;
  unpermute  aclnnMoeTokenUnpermute: each token's K rows, weighted by its routing probabilities.

The parent runs the same layer on one device (permute all tokens, every expert, unpermute) and checks that the ranks'
outputs, concatenated, equal it and sum_k probs * (x @ W_expert) bit for bit (integer-valued data make every float32
sum exact); it prints each rank's row counts and timings.

    python examples/expert_parallel.py --ranks 4 --tokens 512 --hidden 64 --experts 16 --topk 4
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import numpy as np


def make_layer(tokens: int, hidden: int, experts: int, topk: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-4, 5, size=(tokens, hidden)).astype(np.float32)
    indices = np.argsort(rng.random((tokens, experts)), axis=1)[:, :topk].astype(np.int32)
    probs = rng.integers(-3, 4, size=(tokens, topk)).astype(np.float32)
    weights = rng.integers(-2, 3, size=(experts, hidden, hidden)).astype(np.float32)
    return x, indices, probs, weights


def run_experts(rows: np.ndarray, expert_ids: np.ndarray, weights: np.ndarray) -> np.ndarray:
    out = np.empty_like(rows)
    for e in np.unique(expert_ids):
        mask = expert_ids == e
        out[mask] = rows[mask] @ weights[e]
    return out


def run_rank(rank: int, ranks: int, root: bytes, layer, results) -> None:
    import aclnn_py  # each process loads its own libraries and runtime
    from aclnn_py import hccl

    x, indices, probs, weights = layer
    experts, (n, _), k = weights.shape[0], x.shape, indices.shape[1]
    mine = slice(rank * n // ranks, (rank + 1) * n // ranks)
    x, indices, probs = x[mine], indices[mine], probs[mine]
    per_rank = experts // ranks
    times = {}
    with hccl.Communicator(ranks, root, rank, device=0) as comm:
        t = time.perf_counter()
        rows, sorted_idx = aclnn_py.moe_token_permute(x, indices)
        expert_of_row = np.sort(indices.reshape(-1), kind="stable")  # the permuted rows' experts
        send = np.bincount(expert_of_row // per_rank, minlength=ranks)
        times["permute"] = time.perf_counter() - t

        t = time.perf_counter()
        recv = comm.all_to_all(send.reshape(ranks, 1).astype(np.int64)).reshape(-1)
        got_rows = comm.all_to_all_v(rows, send, recv)
        got_experts = comm.all_to_all_v(expert_of_row, send, recv)
        times["dispatch"] = time.perf_counter() - t

        t = time.perf_counter()
        out = run_experts(got_rows, got_experts, weights)
        times["experts"] = time.perf_counter() - t

        t = time.perf_counter()
        back = comm.all_to_all_v(out, recv, send)
        times["combine"] = time.perf_counter() - t

        t = time.perf_counter()
        y = aclnn_py.moe_token_unpermute(back, sorted_idx, probs)
        times["unpermute"] = time.perf_counter() - t
    results.put((rank, y, int(send.sum()), int(recv.sum()), times))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--tokens", type=int, default=256)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--experts", type=int, default=16)
    p.add_argument("--topk", type=int, default=4)
    args = p.parse_args(argv)
    if args.experts % args.ranks:
        p.error("--experts must be a multiple of --ranks (each rank holds the same number of experts)")

    from aclnn_py import hccl

    layer = make_layer(args.tokens, args.hidden, args.experts, args.topk)
    root = hccl.get_root_info()
    ctx = mp.get_context("spawn")  # a fresh process per rank, like one process per device
    results = ctx.Queue()
    procs = [ctx.Process(target=run_rank, args=(r, args.ranks, root, layer, results)) for r in range(args.ranks)]
    for proc in procs:
        proc.start()
    per_rank = sorted((results.get(timeout=600) for _ in procs), key=lambda r: r[0])
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            print(f"a rank failed with exit status {proc.exitcode}")
            return 1

    import aclnn_py

    x, indices, probs, weights = layer
    rows, sorted_idx = aclnn_py.moe_token_permute(x, indices)
    one_device = aclnn_py.moe_token_unpermute(
        run_experts(rows, np.sort(indices.reshape(-1), kind="stable"), weights), sorted_idx, probs)
    by_hand = np.einsum("tk,tkh->th", probs, np.einsum("th,tkhg->tkg", x, weights[indices]))

    print(f"{args.ranks} ranks (processes), {args.tokens} tokens x top-{args.topk} over {args.experts} experts, "
          f"hidden {args.hidden}")
    stages = ("permute", "dispatch", "experts", "combine", "unpermute")
    print(f"{'rank':>4} {'experts':>9} {'rows sent':>10} {'received':>9} " + " ".join(f"{s + ' ms':>13}" for s in stages))
    per = args.experts // args.ranks
    for rank, _, sent, got, times in per_rank:
        print(f"{rank:>4} {f'{rank * per}-{rank * per + per - 1}':>9} {sent:>10} {got:>9} "
              + " ".join(f"{times[s] * 1e3:>13.3f}" for s in stages))
    y = np.concatenate([r[1] for r in per_rank])
    checks = {
        "the ranks' outputs = the layer on one device": np.array_equal(y, one_device),
        "the layer on one device = sum_k probs * (x @ W_expert)": np.array_equal(one_device, by_hand),
        "every row reached its expert and came back": sum(r[2] for r in per_rank) == sum(r[3] for r in per_rank)
        == args.tokens * args.topk,
    }
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
