"""ops-math grid generation: aclnnAffineGrid against torch.nn.functional.affine_grid (in float64, rounded)."""

import warnings

import torch
import torch.nn.functional as F

from . import FLOATS, OpInfo, Sample, random_array


def affine_grid_ref(theta, size, align_corners):
    if 0 in size:  # torch refuses an empty grid; the operator gives an empty out
        return torch.zeros((size[0], *size[2:], len(size) - 2), dtype=theta.dtype)
    with warnings.catch_warnings():  # torch's note on unit-size grids with align_corners (they give 0, as here)
        warnings.simplefilter("ignore", UserWarning)
        return F.affine_grid(theta.double(), list(size), align_corners=align_corners).to(theta.dtype)


def affine_grid_samples(dtype, rng):
    th = lambda *s: random_array(rng, s, dtype, (-1.5, 1.5), (0, 0))  # noqa: E731
    return [
        Sample((th(1, 2, 3),), ([1, 1, 2, 3], False), "2-D"),
        Sample((th(2, 2, 3),), ([2, 3, 5, 4], True), "2-D align corners"),
        Sample((th(2, 3, 4),), ([2, 1, 3, 4, 5], False), "3-D"),
        Sample((th(1, 3, 4),), ([1, 2, 2, 1, 3], True), "3-D align corners, a size of 1"),
        Sample((th(2, 3, 2).transpose(0, 2, 1),), ([2, 1, 4, 4], False), "transposed theta"),
        Sample((th(1, 2, 3),), ([1, 1, 0, 3], False), "empty grid"),
        Sample((th(2, 2, 3),), ([2, 1, 128, 96], True), "threads"),
    ]


ENTRIES = [OpInfo("aclnnAffineGrid", affine_grid_ref, FLOATS, kind="custom", samples=affine_grid_samples)]
