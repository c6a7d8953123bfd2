"""aclnnMoeDistributeDispatchV2 and aclnnMoeDistributeCombineV2 (and V1, aclnnMoeDistributeDispatch and
aclnnMoeDistributeCombine) on ranks of one process (threads; the group names
resolved to communicators as the toolkit does): the dispatched rows, their order and counts against a numpy model of
the expert layout (shared-expert ranks first), dynamic quantisation, a tensor-parallel pair, the combine of expert
outputs back to the tokens, and the argument checks."""

import concurrent.futures as cf

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import AclnnError, hccl

from helpers_hccl import Ranks

pytestmark = pytest.mark.skipif(not aclnn_py.backend().is_stub, reason="ranks as threads of the stub")

BF16 = ml_dtypes.bfloat16
H = 32


def layout(w, e, s, shared):
    per = e // (w - s)
    copies = s // shared if s else 1

    def experts_of(rank):  # (global slot target description) per local expert
        return [("shared", rank // copies)] if rank < s else [("moe", (rank - s) * per + l) for l in range(per)]
    return per, copies, experts_of


def expected_rows(r, xs, ids, masks, w, e, s, shared):
    """The rows rank r receives, in order, with (source, token, slot)."""
    per, copies, experts_of = layout(w, e, s, shared)
    rows, tags = [], []
    bs, k = ids[0].shape
    for kind, which in experts_of(r):
        for src in range(w):
            for t in range(bs):
                for slot in range(k + (shared if s else 0)):
                    if slot < k:
                        ok = kind == "moe" and ids[src][t, slot] == which and masks[src][t, slot]
                    else:
                        ok = (kind == "shared" and masks[src][t].any() and slot - k == which
                              and r == src % copies + which * copies)
                    if ok:
                        rows.append(xs[src][t])
                        tags.append((src, t, slot))
    return rows, tags


def dispatch(c, x, ids, w, e, *, s=0, shared=0, mask=None, scales=None, quant=0, a=None, tp=0, tp_rank=0,
             group_tp="", tokens_type=1):
    per = e // (w - s)
    local = 1 if c.rank < s else per
    bs, k = ids.shape
    a = a or bs * w * max(local, k)
    tpn = max(tp, 1)
    ex = np.zeros((tpn * a, H), np.int8 if quant else x.dtype)
    dyn = np.zeros(tpn * a, np.float32)
    assist = np.zeros(a * 128, np.int32)
    nums = np.zeros(local, np.int64)
    epr = np.zeros(w * tpn * local, np.int32)
    tpr = np.zeros(max(tp, 1), np.int32)
    aclnn_py.run("aclnnMoeDistributeDispatchV2", x, ids, scales, mask, None, c.name, w, c.rank, e, group_tp, tp,
                 tp_rank, 0, shared, s, quant, 0, tokens_type, None,
                 out=(ex, dyn if quant else None, assist, nums, epr, tpr, None), stream=aclnn_py.Stream.default(c.device))
    return ex, dyn, assist, nums, epr, tpr


def combine(c, expand_x, ids, assist, epr, scales, w, e, *, s=0, shared=0, mask=None, tpr=None, tp=0, tp_rank=0,
            group_tp="", ep_rank=None):
    out = np.zeros((ids.shape[0], H), expand_x.dtype)
    aclnn_py.run("aclnnMoeDistributeCombineV2", expand_x, ids, assist, epr, scales, tpr, mask, None, None, None, None,
                 None, c.name, w, c.rank if ep_rank is None else ep_rank, e, group_tp, tp, tp_rank, 0, shared, s, 0, 0,
                 0, 0, None, out=out, stream=aclnn_py.Stream.default(c.device))
    return out


@pytest.mark.parametrize("w, e, s, shared, masked", [(4, 8, 0, 0, False), (5, 8, 1, 1, True), (6, 8, 2, 1, False)],
                         ids=["moe only", "shared expert, masked slots", "two shared copies"])
def test_dispatch_then_combine(w, e, s, shared, masked):
    rng = np.random.default_rng(w)
    bs, k = 3, 2
    xs = [rng.integers(-8, 9, (bs, H)).astype(BF16) for _ in range(w)]
    ids = [np.stack([rng.choice(e, k, replace=False) for _ in range(bs)]).astype(np.int32) for _ in range(w)]
    masks = [np.ones((bs, k), bool) for _ in range(w)]
    if masked:
        masks[1][0, 1] = False
        masks[2][2, :] = False
    scales = [rng.integers(1, 4, (bs, k)).astype(np.float32) for _ in range(w)]
    per = e // (w - s)

    def body(c):
        ex, _, assist, nums, epr, _ = dispatch(c, xs[c.rank], ids[c.rank], w, e, s=s, shared=shared,
                                               mask=masks[c.rank] if masked else None)
        n = int(epr[-1])
        # the experts: rows of MoE expert g scaled by g + 2, shared experts' rows by 3
        local = 1 if c.rank < s else per
        outs = ex.astype(np.float32).copy()
        start = 0
        for l in range(local):
            cnt = int(epr[(l + 1) * w - 1]) - start
            factor = 3 if c.rank < s else (c.rank - s) * per + l + 2
            outs[start:start + cnt] *= factor
            start += cnt
        y = combine(c, outs.astype(BF16), ids[c.rank], assist, epr, scales[c.rank], w, e, s=s, shared=shared,
                    mask=masks[c.rank] if masked else None)
        return ex[:n].copy(), assist[:3 * n].reshape(-1, 3).copy(), nums.copy(), y

    with Ranks(w) as rs:
        results = rs.run(body)
    for r, (rows, tags, nums, y) in enumerate(results):
        want_rows, want_tags = expected_rows(r, xs, ids, masks, w, e, s, shared)
        assert [tuple(t) for t in tags.tolist()] == want_tags
        assert np.array_equal(rows.astype(np.float32), np.array(want_rows, np.float32).reshape(-1, H))
        assert int(nums.sum()) == len(want_rows)
        # the combine: sum_k scale * (expert + 2) * x  +  3 * x per shared expert, inactive tokens zero
        x = xs[r].astype(np.float32)
        want = np.zeros((bs, H), np.float32)
        for t in range(bs):
            for kk in range(k):
                if masks[r][t, kk]:
                    want[t] += np.float32(scales[r][t, kk] * (ids[r][t, kk] + 2)) * x[t]
            if shared and masks[r][t].any():
                want[t] += 3 * x[t]
        assert np.array_equal(y.astype(np.float32), want.astype(BF16).astype(np.float32))


def test_expert_token_nums_and_recv_counts():
    w, e, bs, k = 3, 6, 4, 2
    ids = [np.array([[0, 1], [2, 3], [4, 5], [0, 5]], np.int32)] * w
    x = np.ones((bs, H), BF16)

    def body(c):
        _, _, _, counts, epr, _ = dispatch(c, x, ids[c.rank], w, e, tokens_type=1)
        _, _, _, cumsum, _, _ = dispatch(c, x, ids[c.rank], w, e, tokens_type=0)
        return counts.tolist(), cumsum.tolist(), epr.tolist()

    with Ranks(w) as rs:
        out = rs.run(body)
    # experts 0,1 on rank 0: expert 0 twice per source, expert 1 once; rank 1: experts 2,3 once each; rank 2: 4 once, 5 twice
    assert [o[0] for o in out] == [[6, 3], [3, 3], [3, 6]]
    assert [o[1] for o in out] == [[6, 9], [3, 6], [3, 9]]
    assert out[0][2] == [2, 4, 6, 7, 8, 9]  # running rows per (local expert, source rank)


def test_dynamic_quantisation():
    w, e, bs, k = 2, 2, 2, 1
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((bs, H)).astype(np.float16) for _ in range(w)]
    ids = [np.array([[1], [0]], np.int32), np.array([[0], [1]], np.int32)]
    smooth = np.linspace(0.5, 1.5, 2 * H).reshape(2, H).astype(np.float32)

    def body(c):
        ex, dyn, _, _, epr, _ = dispatch(c, xs[c.rank], ids[c.rank], w, e, quant=2, scales=smooth)
        return ex[:int(epr[-1])].copy(), dyn[:int(epr[-1])].copy()

    with Ranks(w) as rs:
        out = rs.run(body)
    for r, (q, d) in enumerate(out):
        src = [(s, t) for s in range(w) for t in range(bs) if ids[s][t, 0] == r]
        for i, (s, t) in enumerate(src):
            xs_ = xs[s][t].astype(np.float32) * smooth[r]  # smooth row of MoE expert r (no shared experts)
            assert d[i] == np.float32(np.abs(xs_).max() / np.float32(127))
            assert np.abs(q[i] * d[i] - xs_).max() <= d[i] * 0.5 + 1e-6


def test_tensor_parallel_pair():
    """The official sample's layout of dies: EP groups {0, 2} and {1, 3} and TP pairs {0, 1} and {2, 3}, each made with
    HcclCommInitAll; each rank holds [its rows | its partner's rows] and the combine adds the pair's partial
    outputs."""
    w, e, bs, k = 2, 2, 2, 1
    xs = [np.full((bs, H), d + 1, BF16) for d in range(4)]
    ids = [np.array([[d % 2], [1 - d % 2]], np.int32) for d in range(4)]
    scales = [np.full((bs, k), 2, np.float32) for _ in range(4)]
    ep_groups = [hccl.Communicator.init_all([tp, 2 + tp]) for tp in range(2)]      # [tp][ep]
    tp_groups = [hccl.Communicator.init_all([2 * ep, 2 * ep + 1]) for ep in range(2)]  # [ep][tp]

    def body(d):
        ep_rank, tp_rank = d // 2, d % 2
        ep, tp = ep_groups[tp_rank][ep_rank], tp_groups[ep_rank][tp_rank]
        ex, _, assist, nums, epr, tpr = dispatch(ep, xs[d], ids[d], w, e, tp=2, tp_rank=tp_rank, group_tp=tp.name)
        rows = int(tpr.sum())
        partial = (ex.astype(np.float32) * (tp_rank + 1)).astype(BF16)  # a TP die's partial output
        y = combine(ep, partial, ids[d], assist, epr, scales[d], w, e, tpr=tpr, tp=2, tp_rank=tp_rank,
                    group_tp=tp.name)
        return ex[:rows].astype(np.float32)[:, 0].tolist(), tpr.tolist(), nums.tolist(), y

    try:
        with cf.ThreadPoolExecutor(4) as pool:
            out = list(pool.map(body, range(4)))
    finally:
        for group in ep_groups + tp_groups:
            for c in group:
                c.close()
    for d, (col, tpr, nums, y) in enumerate(out):
        mine, partner = tpr[d % 2], tpr[1 - d % 2]
        assert mine == 2 and partner == 2 and nums == [4]
        assert sorted(col[:mine]) == [d % 2 + 1, d % 2 + 3]  # from the EP group's two ranks
        assert sorted(col[mine:]) == [(1 - d % 2) + 1, (1 - d % 2) + 3]  # the partner's
        # combine: the pair's partial factors 1 and 2 add to 3, times the scale 2
        assert np.array_equal(y.astype(np.float32), np.full((bs, H), 6.0 * (d + 1), np.float32))


def dispatch_v1(c, x, ids, w, e, *, s=0, shared=0, mask=None, tp=0, tp_rank=0, group_tp=""):
    per = e // (w - s)
    local = 1 if c.rank < s else per
    bs, k = ids.shape
    a = bs * w * max(local, k)
    tpn = max(tp, 1)
    ex = np.zeros((tpn * a, H), x.dtype)
    idx = np.full(bs * k, -7, np.int32)
    nums = np.zeros(local, np.int64)
    epr = np.zeros(w * tpn * local, np.int32)
    tpr = np.zeros(tpn, np.int32)
    aclnn_py.run("aclnnMoeDistributeDispatch", x, ids, None, mask, None, c.name, w, c.rank, e, group_tp, tp, tp_rank, 0,
                 shared, s, 0, 0, 1, out=(ex, None, idx, nums, epr, tpr, None), stream=aclnn_py.Stream.default(c.device))
    return ex, idx, nums, epr, tpr


def combine_v1(c, expand_x, ids, idx, epr, scales, w, e, *, s=0, shared=0, mask=None, tpr=None, tp=0, tp_rank=0,
               group_tp=""):
    out = np.zeros((ids.shape[0], H), expand_x.dtype)
    aclnn_py.run("aclnnMoeDistributeCombine", expand_x, ids, idx, epr, scales, tpr, mask, None, None, None, None,
                 c.name, w, c.rank, e, group_tp, tp, tp_rank, 0, shared, s, 0, 0, 0, 0, out=out,
                 stream=aclnn_py.Stream.default(c.device))
    return out


def test_v1_dispatch_and_combine_match_v2():
    """V1 moves the same rows with the same counts and combines them to the same tokens; its expandIdx gives each
    slot its rank among the rows its rank sends to that expert."""
    w, e, s, shared, bs, k = 5, 8, 1, 1, 4, 2
    rng = np.random.default_rng(11)
    xs = [rng.integers(-8, 9, (bs, H)).astype(BF16) for _ in range(w)]
    ids = [np.stack([rng.choice(e, k, replace=False) for _ in range(bs)]).astype(np.int32) for _ in range(w)]
    masks = [np.ones((bs, k), bool) for _ in range(w)]
    masks[2][1, 0] = False
    scales = [rng.integers(1, 4, (bs, k)).astype(np.float32) for _ in range(w)]

    def body(c):
        m = masks[c.rank]
        ex2, _, assist, nums2, epr2, _ = dispatch(c, xs[c.rank], ids[c.rank], w, e, s=s, shared=shared, mask=m)
        ex1, idx, nums1, epr1, _ = dispatch_v1(c, xs[c.rank], ids[c.rank], w, e, s=s, shared=shared, mask=m)
        outs = (ex1.astype(np.float32) * (c.rank + 2)).astype(BF16)  # every expert of rank r: times r + 2
        y1 = combine_v1(c, outs, ids[c.rank], idx, epr1, scales[c.rank], w, e, s=s, shared=shared, mask=m)
        y2 = combine(c, outs, ids[c.rank], assist, epr2, scales[c.rank], w, e, s=s, shared=shared, mask=m)
        return ex1, ex2, idx, nums1, nums2, epr1, epr2, y1, y2

    with Ranks(w) as rs:
        results = rs.run(body)
    for r, (ex1, ex2, idx, nums1, nums2, epr1, epr2, y1, y2) in enumerate(results):
        assert np.array_equal(ex1, ex2) and np.array_equal(nums1, nums2) and np.array_equal(epr1, epr2)
        assert np.array_equal(y1, y2) and y1.astype(np.float32).any()
        seen = {}
        for t in range(bs):
            for kk in range(k):
                if masks[r][t, kk]:
                    g = int(ids[r][t, kk])
                    assert idx[t * k + kk] == seen.get(g, 0)
                    seen[g] = seen.get(g, 0) + 1
                else:
                    assert idx[t * k + kk] == -1


def test_v1_tensor_parallel_pair_and_a_foreign_expand_idx():
    w, e, bs, k = 2, 2, 2, 1
    xs = [np.full((bs, H), d + 1, BF16) for d in range(4)]
    ids = [np.array([[d % 2], [1 - d % 2]], np.int32) for d in range(4)]
    scales = [np.full((bs, k), 2, np.float32) for _ in range(4)]
    ep_groups = [hccl.Communicator.init_all([tp, 2 + tp]) for tp in range(2)]
    tp_groups = [hccl.Communicator.init_all([2 * ep, 2 * ep + 1]) for ep in range(2)]

    def body(d):
        ep_rank, tp_rank = d // 2, d % 2
        ep, tp = ep_groups[tp_rank][ep_rank], tp_groups[ep_rank][tp_rank]
        ex, idx, _, epr, tpr = dispatch_v1(ep, xs[d], ids[d], w, e, tp=2, tp_rank=tp_rank, group_tp=tp.name)
        partial = (ex.astype(np.float32) * (tp_rank + 1)).astype(BF16)
        y = combine_v1(ep, partial, ids[d], idx, epr, scales[d], w, e, tpr=tpr, tp=2, tp_rank=tp_rank,
                       group_tp=tp.name)
        return y

    try:
        with cf.ThreadPoolExecutor(4) as pool:
            out = list(pool.map(body, range(4)))
    finally:
        for group in ep_groups + tp_groups:
            for c in group:
                c.close()
    for d, y in enumerate(out):
        assert np.array_equal(y.astype(np.float32), np.full((bs, H), 6.0 * (d + 1), np.float32))

    # an expandIdx that does not come from the dispatch of these expert ids fails the combine, not a silent mix-up
    def bad(c):
        ex, idx, _, epr, _ = dispatch_v1(c, xs[c.rank], ids[c.rank], w, e)
        idx = idx.copy()
        if c.rank == 0:
            idx[0] = 5
        try:
            combine_v1(c, ex, ids[c.rank], idx, epr, scales[c.rank], w, e)
        except aclnn_py.AclStatusError as err:  # the kernel's failure, at the stream's synchronisation
            return str(err)
        return None

    with Ranks(w) as rs:
        msgs = rs.run(bad)
    assert "expandIdx does not come from aclnnMoeDistributeDispatch" in msgs[0]


@pytest.mark.parametrize("change, status, words", [
    (dict(group=""), 161001, "groupEp is empty"),
    (dict(w=3, e=6), 161002, "has 2 ranks"),
    (dict(e=3), 561002, "multiple of epWorldSize"),
    (dict(quant=2, no_dyn=True), 161001, "dynamicScalesOut"),
])
def test_dispatch_argument_checks(change, status, words):
    with Ranks(2) as rs:
        c = rs.comms[0]
        w, e = change.get("w", 2), change.get("e", 4)
        x, ids = np.ones((2, H), BF16), np.zeros((2, 1), np.int32)
        ex = np.zeros((8, H), np.int8 if change.get("quant") else BF16)
        with pytest.raises(AclnnError) as info:
            aclnn_py.run("aclnnMoeDistributeDispatchV2", x, ids, None, None, None, change.get("group", c.name), w, 0, e,
                         "", 0, 0, 0, 0, 0, change.get("quant", 0), 0, 1, None,
                         out=(ex, None, np.zeros(1024, np.int32), np.zeros(2, np.int64), np.zeros(8, np.int32),
                              np.zeros(1, np.int32), None), stream=aclnn_py.Stream.default(c.device))
    assert info.value.status == status and words in str(info.value)


def test_combine_add_rms_norm_is_combine_then_add_rms_norm(monkeypatch):
    """aclnnMoeDistributeCombineAddRmsNorm (Atlas A3 only: the SoC name set to one) = aclnnMoeDistributeCombineV2,
    then x = combine + residual, rstd, y = x * rstd * gamma (numpy in float64 for the norm)."""
    monkeypatch.setenv("ACLNN_STUB_SOC_NAME", "Ascend910_9391")
    w, e, bs, k, eps = 4, 8, 3, 2, 1e-6
    rng = np.random.default_rng(21)
    xs = [rng.integers(-8, 9, (bs, H)).astype(BF16) for _ in range(w)]
    ids = [np.stack([rng.choice(e, k, replace=False) for _ in range(bs)]).astype(np.int32) for _ in range(w)]
    scales = [rng.integers(1, 4, (bs, k)).astype(np.float32) for _ in range(w)]
    residual = [rng.integers(-4, 5, (bs, 1, H)).astype(BF16) for _ in range(w)]
    gamma = rng.standard_normal(H).astype(BF16)

    def body(c):
        ex, _, assist, _, epr, _ = dispatch(c, xs[c.rank], ids[c.rank], w, e)
        plain = combine(c, ex, ids[c.rank], assist, epr, scales[c.rank], w, e)
        y = np.zeros((bs, 1, H), BF16)
        rstd = np.zeros((bs, 1, 1), np.float32)
        xo = np.zeros((bs, 1, H), BF16)
        aclnn_py.run("aclnnMoeDistributeCombineAddRmsNorm", ex, ids[c.rank], assist, epr, scales[c.rank],
                     residual[c.rank], gamma, None, None, None, None, None, None, None, c.name, w, c.rank, e, "", 0, 0,
                     0, 0, 0, 0, 0, 0, 0, None, eps, out=(y, rstd, xo), stream=aclnn_py.Stream.default(c.device))
        return plain, y, rstd, xo

    with Ranks(w) as rs:
        results = rs.run(body)
    for r, (plain, y, rstd, xo) in enumerate(results):
        x = plain.astype(np.float32) + residual[r][:, 0].astype(np.float32)
        np.testing.assert_array_equal(xo[:, 0].astype(np.float32), x.astype(BF16).astype(np.float32))
        want_rstd = 1.0 / np.sqrt((x.astype(np.float64) ** 2).mean(-1) + eps)
        np.testing.assert_allclose(rstd[:, 0, 0], want_rstd, rtol=1e-5)
        want_y = x * want_rstd[:, None] * gamma.astype(np.float32)
        np.testing.assert_allclose(y[:, 0].astype(np.float32), want_y, rtol=2e-2, atol=2e-2)


def test_combine_add_rms_norm_is_not_on_atlas_a2():
    with Ranks(2) as rs:
        c = rs.comms[0]
        with pytest.raises(AclnnError, match="910B") as info:
            aclnn_py.run("aclnnMoeDistributeCombineAddRmsNorm", np.zeros((8, H), BF16), np.zeros((2, 1), np.int32),
                         np.zeros(1024, np.int32), np.zeros(8, np.int32), np.ones((2, 1), np.float32),
                         np.zeros((2, 1, H), BF16), np.ones(H, BF16), None, None, None, None, None, None, None, c.name,
                         2, 0, 4, "", 0, 0, 0, 0, 0, 0, 0, 0, 0, None, 1e-6,
                         out=(np.zeros((2, 1, H), BF16), np.zeros((2, 1, 1), np.float32), np.zeros((2, 1, H), BF16)),
                         stream=aclnn_py.Stream.default(c.device))
    assert info.value.status == 161002
