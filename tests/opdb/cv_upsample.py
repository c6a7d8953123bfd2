"""Upsampling operators of ops-cv (image/): nearest, nearest-exact, linear, bilinear, bicubic, trilinear and their
backward operators. The oracle is torch's aten operator of the same name, whose parameters are the aclnn
operator's in the same order (a scale of 0 means "not given" to both); 16-bit inputs run in float32 and are
rounded once, as the op_api casts them."""

from __future__ import annotations

import torch

from . import OpInfo, Sample, random_array

A = torch.ops.aten
F16_32 = ("float32", "float16")
FLOATS = ("float32", "float16", "bfloat16")
REALS = FLOATS + ("float64",)


def arr(rng, shape, dtype):
    return random_array(rng, shape, dtype, (-4.0, 4.0), (0, 200))


# (input spatial sizes, outputSize, scales) per number of spatial dimensions: up, down, non-integer ratios, given
# scales, and one call large enough for the stub's threads.
CASES = {
    1: [((5,), (11,), (0.0,)), ((12,), (5,), (0.0,)), ((4,), (8,), (2.0,)), ((7,), (3,), (0.4,)),
        ((300,), (700,), (0.0,))],
    2: [((3, 4), (7, 9), (0.0, 0.0)), ((8, 6), (3, 4), (0.0, 0.0)), ((4, 5), (8, 10), (2.0, 2.0)),
        ((5, 5), (4, 7), (0.75, 1.5)), ((40, 50), (96, 72), (0.0, 0.0))],
    3: [((2, 3, 4), (5, 4, 7), (0.0, 0.0, 0.0)), ((4, 6, 5), (2, 3, 3), (0.0, 0.0, 0.0)),
        ((2, 2, 3), (4, 4, 6), (2.0, 2.0, 2.0)), ((10, 12, 14), (20, 18, 30), (0.0, 0.0, 0.0))],
}


def upsample_samples(k, align, backward):
    def samples(dtype, rng):
        out = []
        for i, (size, osize, scales) in enumerate(CASES[k]):
            big = i == len(CASES[k]) - 1
            nc = (1, 3) if big else (2, 3)
            for al in ((False, True) if align else (None,)):
                if al and any(s for s in scales):
                    continue  # alignCorners ignores the scales
                flags = () if al is None else (al,)
                name = f"{size}->{osize} scales={scales} align={al}"
                if backward:
                    grad = arr(rng, nc + osize, dtype)
                    out.append(Sample((grad, list(osize), list(nc + size)) + flags + scales, (), name))
                else:
                    x = arr(rng, nc + size, dtype)
                    if i == 0:
                        x = x.swapaxes(-1, -2).copy().swapaxes(-1, -2) if k > 1 else x  # a non-contiguous input
                        name += " transposed"
                    out.append(Sample((x, list(osize)) + flags + scales, (), name))
            if big and backward:
                break
        return out
    return samples


def linear1d_samples(dtype, rng):
    """aclnnUpsampleLinear1d refuses a scale that does not give outputSize (scale 0 among them): -1 is "not given"."""
    out = []
    for s in upsample_samples(1, True, False)(dtype, rng):
        x, osize, al, scale = s.operands
        if scale == 0.0:
            scale = -1.0
        elif int(x.shape[-1] * scale) != osize[0]:
            continue
        out.append(Sample((x, osize, al, scale), (), s.name))
    return out


def nchw_call(name):
    """Run with self and out in NCHW format (aclnnUpsampleBilinear2d refuses ND)."""

    def call(sample, exp):
        import aclnn_py
        import numpy as np

        nchw = aclnn_py.acl.ACL_FORMAT_NCHW
        x = aclnn_py.Tensor.from_dlpack(torch.from_numpy(np.ascontiguousarray(sample.operands[0]).view(np.int16))
                                        .view(exp.dtype) if exp.dtype == torch.bfloat16 else
                                        torch.from_numpy(np.ascontiguousarray(sample.operands[0])))
        x = aclnn_py.Tensor(x.shape, x.dtype, strides=x.strides, offset=x.offset, buffer=x.buffer, format=nchw)
        o = aclnn_py.Tensor.from_dlpack(torch.zeros_like(exp))
        o = aclnn_py.Tensor(o.shape, o.dtype, strides=o.strides, offset=o.offset, buffer=o.buffer, format=nchw)
        aclnn_py.run(name, x, *sample.operands[1:], out=o)
        return o.numpy()
    return call


def entry(name, fn, dtypes, k, align=False, backward=False, no_scales=False, tol=None):
    if name == "aclnnUpsampleBilinear2d":
        return OpInfo(name, fn, dtypes, kind="custom", samples=upsample_samples(k, align, backward), tol=tol or {},
                      call=nchw_call(name))
    if name == "aclnnUpsampleLinear1d":
        return OpInfo(name, fn, dtypes, kind="custom", samples=linear1d_samples, tol=tol or {})
    if no_scales:
        samples = upsample_samples(k, align, backward)

        def without_scales(dtype, rng):
            return [Sample(s.operands[:2], (), s.name) for s in samples(dtype, rng)
                    if all(v == 0.0 for v in s.operands[2:])]
        return OpInfo(name, fn, dtypes, kind="custom", samples=without_scales, tol=tol or {})
    return OpInfo(name, fn, dtypes, kind="custom", samples=upsample_samples(k, align, backward), tol=tol or {})


# float16/bfloat16 results of sums of several terms may differ from the oracle's by a rounding of the result
# float32: source coordinates may differ from torch's by a rounding (fused multiply-adds in its build)
LIN_TOL = {"float32": (1e-4, 2e-4), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
BWD_TOL = {"float32": (1e-5, 1e-4), "float64": (1e-12, 1e-12), "float16": (2e-3, 4e-3),
           "bfloat16": (1.6e-2, 3e-2)}
U8 = ("uint8",)

ENTRIES = [
    entry("aclnnUpsampleNearest1d", lambda x, s: A.upsample_nearest1d(x, s), REALS + U8, 1, no_scales=True),
    entry("aclnnUpsampleNearest2d", lambda x, s: A.upsample_nearest2d(x, s), REALS + U8, 2, no_scales=True),
    entry("aclnnUpsampleNearest1dV2", A.upsample_nearest1d, REALS + U8, 1),
    entry("aclnnUpsampleNearest2dV2", A.upsample_nearest2d, REALS + U8, 2),
    entry("aclnnUpsampleNearest3d", A.upsample_nearest3d, REALS, 3),
    entry("aclnnUpsampleNearestExact1d", A._upsample_nearest_exact1d, FLOATS + U8, 1),
    entry("aclnnUpsampleNearestExact2d", A._upsample_nearest_exact2d, FLOATS + U8, 2),
    entry("aclnnUpsampleNearestExact3d", A._upsample_nearest_exact3d, FLOATS, 3),
    entry("aclnnUpsampleLinear1d", A.upsample_linear1d, FLOATS, 1, align=True, tol=LIN_TOL),
    # DOUBLE only in NHWC format, which the samples (NCHW) do not use
    entry("aclnnUpsampleBilinear2d", A.upsample_bilinear2d, FLOATS, 2, align=True, tol=LIN_TOL),
    entry("aclnnUpsampleBicubic2d", A.upsample_bicubic2d, FLOATS, 2, align=True, tol=LIN_TOL),
    entry("aclnnUpsampleTrilinear3d", A.upsample_trilinear3d, REALS, 3, align=True, tol=LIN_TOL),
    entry("aclnnUpsampleNearest1dBackward", A.upsample_nearest1d_backward, REALS, 1, backward=True, tol=BWD_TOL),
    entry("aclnnUpsampleNearest2dBackward", A.upsample_nearest2d_backward, FLOATS, 2, backward=True, tol=BWD_TOL),
    entry("aclnnUpsampleNearest3dBackward", A.upsample_nearest3d_backward, REALS, 3, backward=True, tol=BWD_TOL),
    entry("aclnnUpsampleNearestExact1dBackward", A._upsample_nearest_exact1d_backward, FLOATS, 1, backward=True,
          tol=BWD_TOL),
    entry("aclnnUpsampleNearestExact2dBackward", A._upsample_nearest_exact2d_backward, FLOATS, 2, backward=True,
          tol=BWD_TOL),
    entry("aclnnUpsampleNearestExact3dBackward", A._upsample_nearest_exact3d_backward, FLOATS, 3, backward=True,
          tol=BWD_TOL),
    entry("aclnnUpsampleLinear1dBackward", A.upsample_linear1d_backward, FLOATS, 1, align=True, backward=True,
          tol=BWD_TOL),
    entry("aclnnUpsampleBilinear2dBackward", A.upsample_bilinear2d_backward, F16_32, 2, align=True, backward=True,
          tol=BWD_TOL),
    entry("aclnnUpsampleBilinear2dBackwardV2", A.upsample_bilinear2d_backward, FLOATS, 2, align=True, backward=True,
          tol=BWD_TOL),
    entry("aclnnUpsampleBicubic2dBackward", A.upsample_bicubic2d_backward, FLOATS, 2, align=True, backward=True,
          tol=BWD_TOL),
    entry("aclnnUpsampleTrilinear3dBackward", A.upsample_trilinear3d_backward, REALS, 3, align=True, backward=True,
          tol=BWD_TOL),
]


def grid_samples(dtype, rng):
    """Every interpolation and padding mode, both alignments; grid points a little beyond [-1, 1]."""
    out = []
    for interp in (0, 1, 2):
        for pad in (0, 1, 2):
            for align in (False, True):
                x = arr(rng, (2, 3, 5, 6), dtype)
                grid = random_array(rng, (2, 4, 7, 2), dtype, (-1.2, 1.2), (0, 0))
                out.append(Sample((x, grid, interp, pad, align), (), f"mode {interp} padding {pad} align {align}"))
    big = arr(rng, (1, 4, 40, 50), dtype)
    out.append(Sample((big, random_array(rng, (1, 60, 70, 2), dtype, (-1.0, 1.0), (0, 0)), 0, 0, False), (),
                      "threads"))
    return out


GRID_TOL = {"float32": (1e-5, 1e-4), "float16": (2e-3, 4e-3), "bfloat16": (1.6e-2, 3e-2)}
ENTRIES.append(OpInfo("aclnnGridSampler2D", torch.grid_sampler_2d, REALS, kind="custom", samples=grid_samples,
                      tol=GRID_TOL))
