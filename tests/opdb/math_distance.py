"""ops-math distances: aclnnCdist (torch.cdist, batch dimensions broadcast) and aclnnCdistBackward (the gradient of
x1 for a given cdist, torch's _cdist_backward rules written out in float64). The stub sums in double and rounds
once, so the oracles compute in float64 and round to the dtype."""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype, random_array

INF = float("inf")


def arr(rng, shape, dtype, domain=(-2.0, 2.0)):
    return random_array(rng, shape, dtype, domain, (-8, 8))


def cdist_ref(x1, x2, p, compute_mode):
    return torch.cdist(x1.double(), x2.double(), p=p).to(x1.dtype)


def cdist_samples(dtype, rng):
    a = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [
        Sample((a(3, 2), a(2, 2)), (2.0, 2), "p=2"),
        Sample((a(2, 4, 5), a(2, 3, 5)), (1.0, 0), "p=1 batched"),
        Sample((a(1, 4, 3), a(2, 5, 3)), (0.0, 0), "p=0 batch broadcast"),
        Sample((a(3, 4), a(5, 4)), (INF, 0), "p=inf"),
        Sample((a(2, 1, 3, 6), a(4, 2, 6)), (0.5, 0), "p=0.5 broadcast ranks"),
        Sample((a(3, 7), a(2, 7)), (3.0, 1), "p=3"),
        Sample((a(5, 4).T, a(3, 5)), (2.0, 2), "transposed x1"),
        Sample((a(2, 0), a(3, 0)), (2.0, 2), "M = 0: zeros"),
        Sample((a(0, 2, 2), a(0, 3, 2)), (2.0, 2), "empty batch"),
        Sample((a(2, 300, 16), a(2, 200, 16)), (2.0, 2), "threads"),
    ]


def cdist_grad_ref(grad, x1, x2, cdist, p):
    g, a, b, d = (t.double() for t in (grad, x1, x2, cdist))
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)  # (..., P, R, M)
    gg, dd = g.unsqueeze(-1), d.unsqueeze(-1)
    sign = torch.sign(diff)
    if p in (INF, -1.0):
        t = sign * (diff.abs() == dd) * gg
    elif p == 0:
        t = torch.zeros_like(diff)
    elif p == 1:
        t = sign * gg
    elif p < 2:
        t = torch.where((diff == 0) & (p < 1), 0.0, sign * diff.abs() ** (p - 1) * gg / dd ** (p - 1))
    elif p == 2:
        t = diff * gg / dd
    else:
        t = diff * diff.abs() ** (p - 2) * gg / dd ** (p - 1)
    t = torch.where(dd == 0, 0.0, t)
    return t.sum(-2).to(x1.dtype)


def cdist_grad_samples(dtype, rng):
    out = []
    for shape1, shape2, p, name in (((2, 3, 4), (2, 5, 4), 2.0, "p=2"), ((3, 4), (2, 4), 1.0, "p=1"),
                                     ((2, 3, 4), (1, 5, 4), 0.5, "p=0.5, x2 batch broadcast"),
                                     ((3, 4), (5, 4), 3.0, "p=3"), ((3, 4), (5, 4), 0.0, "p=0"),
                                     ((3, 4), (5, 4), INF, "p=inf"), ((3, 4), (5, 4), -1.0, "p=-1 (inf)"),
                                     ((2, 64, 8), (2, 48, 8), 1.5, "threads")):
        if p in (INF, -1.0):  # max |diff| is compared for equality: integral values keep it exact
            x1 = rng.integers(-4, 5, shape1).astype(np_dtype(dtype))
            x2 = rng.integers(-4, 5, shape2).astype(np_dtype(dtype))
        else:
            x1, x2 = arr(rng, shape1, dtype), arr(rng, shape2, dtype)
        t1, t2 = (torch.from_numpy(np.asarray(x, np.float64)) for x in (x1, x2))
        dist = torch.cdist(t1, t2, p=INF if p == -1.0 else p).numpy().astype(np_dtype(dtype))
        grad = arr(rng, dist.shape, dtype)
        out.append(Sample((grad, x1, x2, dist), (p,), name))
    z = arr(rng, (3, 4), dtype)
    out.append(Sample((arr(rng, (3, 3), dtype), z, z, np.zeros((3, 3), z.dtype)), (2.0,), "zero distances"))
    e = arr(rng, (0, 4), dtype)
    out.append(Sample((arr(rng, (0, 5), dtype), e, arr(rng, (5, 4), dtype), arr(rng, (0, 5), dtype)), (2.0,),
                      "empty"))
    return out


ENTRIES = [
    OpInfo("aclnnCdist", cdist_ref, FLOATS, kind="custom", samples=cdist_samples),
    OpInfo("aclnnCdistBackward", cdist_grad_ref, FLOATS, kind="custom", samples=cdist_grad_samples,
           tol={"float32": (1e-5, 1e-5)}),
]
