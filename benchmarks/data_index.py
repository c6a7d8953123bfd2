"""Data movement and indexing operators against torch CPU (and memcpy / numpy), side by side.

    python -m benchmarks.data_index [--quick] [--only REGEX]

Each case runs the operator through ``aclnn_py.run`` on device tensors made once (``Tensor.from_numpy``), so a
sample is both phases and the stream synchronisation, no upload or download; torch runs the same computation on
CPU tensors of the same data, with its default thread count (the stub uses all cores too). Samples are
interleaved (benchmarks/timing.py) and reported as medians; "x torch" > 1 means the stub is slower. "GB/s" counts
the bytes the operation must read and write once.
"""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np
import torch

import aclnn_py
from aclnn_py.runtime import Tensor

from . import timing


def dev(a):
    return Tensor.from_numpy(np.ascontiguousarray(a) if a.flags.c_contiguous or a.ndim < 2 else a)


def case_list(quick: bool):
    rng = np.random.default_rng(0)
    s = 4 if quick else 1  # quick: smaller sizes
    cases = []

    def add(name, build):
        cases.append((name, build))

    # ---- copies ------------------------------------------------------------------------------------------------
    def copy_contig():
        n = (16 << 20) // s
        a = rng.standard_normal(n).astype(np.float32)
        src, dst = dev(a), dev(np.zeros(n, np.float32))
        ts, td = torch.from_numpy(a), torch.zeros(n)
        na, nd = a.copy(), np.zeros(n, np.float32)
        return dict(stub=lambda: aclnn_py.run("aclnnInplaceCopy", src, out=dst, outputs=("selfRef",)),
                    torch=lambda: td.copy_(ts), memcpy=lambda: np.copyto(nd, na), bytes=2 * n * 4,
                    keep=(src, dst))
    add("copy f32 contiguous (64 MB)", copy_contig)

    def copy_transpose():
        n = 4096 // (2 if s > 1 else 1)
        a = rng.standard_normal((n, n)).astype(np.float32)
        src = dev(a)
        src_t = Tensor(src.shape[::-1], np.float32, strides=src.strides[::-1], buffer=src.buffer)
        dst = dev(np.zeros((n, n), np.float32))
        ts, td = torch.from_numpy(a).t(), torch.zeros(n, n)
        return dict(stub=lambda: aclnn_py.run("aclnnInplaceCopy", src_t, out=dst, outputs=("selfRef",)),
                    torch=lambda: td.copy_(ts), bytes=2 * n * n * 4, keep=(src, src_t, dst))
    add("copy f32 transposed 2-D", copy_transpose)

    def copy_cast():
        n = (16 << 20) // s
        a = rng.standard_normal(n).astype(np.float32)
        src, dst = dev(a), dev(np.zeros(n, np.float16))
        ts, td = torch.from_numpy(a), torch.zeros(n, dtype=torch.float16)
        return dict(stub=lambda: aclnn_py.run("aclnnInplaceCopy", src, out=dst, outputs=("selfRef",)),
                    torch=lambda: td.copy_(ts), bytes=n * 6, keep=(src, dst))
    add("copy f32 -> f16 (cast)", copy_cast)

    def permute():
        a = rng.standard_normal((64, 128, 256 // s)).astype(np.float32)
        src, out = dev(a), dev(np.zeros((256 // s, 64, 128), np.float32))
        ts = torch.from_numpy(a)
        to = torch.empty(256 // s, 64, 128)
        return dict(stub=lambda: aclnn_py.run("aclnnPermute", src, [2, 0, 1], out),
                    torch=lambda: to.copy_(ts.permute(2, 0, 1)), bytes=2 * a.nbytes, keep=(src, out))
    add("permute (64,128,256) -> (2,0,1)", permute)

    # ---- cat, split, pad ---------------------------------------------------------------------------------------------
    def cat(dim):
        def build():
            parts = [rng.standard_normal((1024 // s, 1024)).astype(np.float32) for _ in range(8)]
            devs = [dev(p) for p in parts]
            out_shape = (8 * 1024 // s, 1024) if dim == 0 else (1024 // s, 8 * 1024)
            out = dev(np.zeros(out_shape, np.float32))
            tp = [torch.from_numpy(p) for p in parts]
            to = torch.empty(out_shape)
            return dict(stub=lambda: aclnn_py.run("aclnnCat", devs, dim, out),
                        torch=lambda: torch.cat(tp, dim, out=to), bytes=2 * sum(p.nbytes for p in parts),
                        keep=devs + [out])
        return build
    add("cat 8 x (1024,1024) f32 dim 0", cat(0))
    add("cat 8 x (1024,1024) f32 dim 1", cat(1))

    def pad():
        a = rng.standard_normal((8, 32, 256 // s, 256)).astype(np.float32)
        out_shape = (8, 32, 256 // s + 4, 260)
        src, out = dev(a), dev(np.zeros(out_shape, np.float32))
        ts = torch.from_numpy(a)
        return dict(stub=lambda: aclnn_py.run("aclnnConstantPadNd", src, [2, 2, 2, 2], 0.0, out),
                    torch=lambda: torch.nn.functional.pad(ts, (2, 2, 2, 2)), bytes=a.nbytes + 4 * np.prod(out_shape),
                    keep=(src, out))
    add("constant_pad_nd (8,32,256,256) f32", pad)

    # ---- gathers --------------------------------------------------------------------------------------------------
    def index_select():
        w = rng.standard_normal((100000 // s, 256)).astype(np.float32)
        i = rng.integers(0, w.shape[0], size=50000 // s)
        dw, di, out = dev(w), dev(i), dev(np.zeros((i.size, 256), np.float32))
        tw, ti = torch.from_numpy(w), torch.from_numpy(i)
        to = torch.empty(i.size, 256)
        return dict(stub=lambda: aclnn_py.run("aclnnIndexSelect", dw, 0, di, out),
                    torch=lambda: torch.index_select(tw, 0, ti, out=to), numpy=lambda: np.take(w, i, axis=0),
                    bytes=2 * i.size * 256 * 4, keep=(dw, di, out))
    add("index_select (100000,256) f32, 50000 rows", index_select)

    def embedding():
        w = rng.standard_normal((50000, 512)).astype(np.float32)
        i = rng.integers(0, 50000, size=(64, 512 // s))
        dw, di, out = dev(w), dev(i), dev(np.zeros(i.shape + (512,), np.float32))
        tw, ti = torch.from_numpy(w), torch.from_numpy(i)
        return dict(stub=lambda: aclnn_py.run("aclnnEmbedding", dw, di, out),
                    torch=lambda: torch.nn.functional.embedding(ti, tw), bytes=2 * i.size * 512 * 4,
                    keep=(dw, di, out))
    add("embedding (50000,512) f32, 64x512 ids", embedding)

    def gather():
        x = rng.standard_normal((4096 // s, 1024)).astype(np.float32)
        i = rng.integers(0, 1024, size=(4096 // s, 256))
        dx, di, out = dev(x), dev(i), dev(np.zeros(i.shape, np.float32))
        tx, ti = torch.from_numpy(x), torch.from_numpy(i)
        to = torch.empty(i.shape)
        return dict(stub=lambda: aclnn_py.run("aclnnGather", dx, 1, di, out),
                    torch=lambda: torch.gather(tx, 1, ti, out=to), numpy=lambda: np.take_along_axis(x, i, 1),
                    bytes=i.size * (8 + 4 + 4), keep=(dx, di, out))
    add("gather (4096,1024) f32 dim 1, (4096,256) index", gather)

    # ---- scatters ---------------------------------------------------------------------------------------------------
    def scatter_add():
        x = np.zeros((4096 // s, 1024), np.float32)
        i = rng.integers(0, 4096 // s, size=(16384 // s, 1024))
        src = rng.standard_normal(i.shape).astype(np.float32)
        dx, di, ds, out = dev(x), dev(i), dev(src), dev(x)
        tx, ti, tsrc = torch.from_numpy(x), torch.from_numpy(i), torch.from_numpy(src)
        return dict(stub=lambda: aclnn_py.run("aclnnScatterAdd", dx, 0, di, ds, out),
                    torch=lambda: torch.scatter_add(tx, 0, ti, tsrc), bytes=i.size * (8 + 4) + 2 * x.nbytes,
                    keep=(dx, di, ds, out))
    add("scatter_add (4096,1024) f32 dim 0, (16384,1024) src", scatter_add)

    def index_add():
        x = np.zeros((100000 // s, 256), np.float32)
        i = rng.integers(0, x.shape[0], size=50000 // s)
        src = rng.standard_normal((i.size, 256)).astype(np.float32)
        dx, di, ds, out = dev(x), dev(i), dev(src), dev(x)
        tx, ti, tsrc = torch.from_numpy(x), torch.from_numpy(i), torch.from_numpy(src)
        return dict(stub=lambda: aclnn_py.run("aclnnIndexAdd", dx, 0, di, ds, 1.0, out),
                    torch=lambda: torch.index_add(tx, 0, ti, tsrc), bytes=2 * src.nbytes + 2 * x.nbytes,
                    keep=(dx, di, ds, out))
    add("index_add (100000,256) f32, 50000 rows", index_add)

    def emb_backward():
        g = rng.standard_normal((32768 // s, 512)).astype(np.float32)
        i = rng.integers(0, 30000, size=g.shape[0])
        dg, di, out = dev(g), dev(i), dev(np.zeros((30000, 512), np.float32))
        tg, ti = torch.from_numpy(g), torch.from_numpy(i)
        return dict(stub=lambda: aclnn_py.run("aclnnEmbeddingDenseBackward", dg, di, 30000, 1 << 40, False, out,
                                              outputs=("out",)),
                    torch=lambda: torch.ops.aten.embedding_dense_backward(tg, ti, 30000, -1, False),
                    bytes=g.nbytes + 30000 * 512 * 4, keep=(dg, di, out))
    add("embedding_dense_backward 32768x512 -> 30000 rows", emb_backward)

    # ---- data-dependent ----------------------------------------------------------------------------------------------
    def nonzero():
        n = (4 << 20) // s
        x = np.where(rng.random(n) < 0.3, 0.0, 1.0).astype(np.float32)
        dx, out = dev(x), Tensor((n, 1), np.int64)
        tx = torch.from_numpy(x)
        return dict(stub=lambda: aclnn_py.run("aclnnNonzero", dx, out=out), torch=lambda: torch.nonzero(tx),
                    numpy=lambda: np.nonzero(x), bytes=x.nbytes, keep=(dx, out))
    add("nonzero 4M f32 (70% nonzero)", nonzero)
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes, fewer samples")
    ap.add_argument("--only", help="cases whose name matches")
    ap.add_argument("--samples", type=int, default=0)
    args = ap.parse_args(argv)
    aclnn_py.default_device()
    samples = args.samples or (5 if args.quick else 15)
    rows = []
    for name, build in case_list(args.quick):
        if args.only and not re.search(args.only, name):
            continue
        c = build()
        variants = {k: (c[k], samples) for k in ("stub", "torch", "numpy", "memcpy") if k in c}
        res = {k: timing.median(v) for k, v in timing.interleave(variants, warmup=2).items()}
        gbs = c["bytes"] / res["stub"] / 1e9
        rows.append([name, timing.fmt_time(res["stub"]), timing.fmt_time(res.get("torch", float("nan"))),
                     timing.fmt_ratio(timing.ratio(res["stub"], res.get("torch", float("nan")))),
                     timing.fmt_time(res.get("numpy", res.get("memcpy", float("nan")))), f"{gbs:.1f}"])
        print(f"  {name}: stub {timing.fmt_time(res['stub'])} ms", file=sys.stderr)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; stub: all cores; medians of {samples}")
    print(timing.table(["case", "stub ms", "torch ms", "x torch", "numpy/memcpy ms", "stub GB/s"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
