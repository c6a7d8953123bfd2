"""The random operators' contract (docs/guide/random.md): the same numbers for the same seed and offset on every run
and every thread count, another seed gives other numbers, a call with offset o + n continues a call of n elements
with offset o, Dropout equals DropoutDoMask of DropoutGenMask with the same seed and offset, Randperm gives a
permutation, Multinomial without replacement never repeats a category nor picks a zero weight. The distributions
themselves are checked by tests/opdb/math_random.py."""

import numpy as np
import pytest

import aclnn_py

from helpers_ops import threads

SHAPE = (64, 1000)


def uniform(seed, offset, n=SHAPE[0] * SHAPE[1], dtype=np.float32):
    x = np.zeros(n, dtype)
    aclnn_py.run("aclnnInplaceUniform", x, 0.0, 1.0, seed, offset)
    return x


def normal(seed, offset, n=SHAPE[0] * SHAPE[1]):
    out = np.zeros(n, np.float32)
    aclnn_py.run("aclnnNormalFloatFloat", 0.0, 1.0, seed, offset, out=out)
    return out


def mask_of(seed, offset, p, n):
    mask = np.zeros((n + 127) // 128 * 16, np.uint8)
    aclnn_py.run("aclnnDropoutGenMask", [n], p, seed, offset, out=mask)
    return mask


def exponential(seed, offset, n=SHAPE[0] * SHAPE[1]):
    x = np.zeros(n, np.float32)
    aclnn_py.run("aclnnSimThreadExponential", x, n, 1.5, seed, offset)
    return x


GENERATORS = {"uniform": uniform, "normal": normal, "exponential": exponential,
              "mask": lambda seed, offset: mask_of(seed, offset, 0.5, SHAPE[0] * SHAPE[1])}


@pytest.mark.parametrize("gen", sorted(GENERATORS))
def test_same_seed_and_offset_same_numbers_at_every_thread_count(gen):
    f = GENERATORS[gen]
    with threads(1):
        one = f(42, 7)
    with threads(4):
        four = f(42, 7)
    np.testing.assert_array_equal(one, four)
    np.testing.assert_array_equal(f(42, 7), one)
    assert not np.array_equal(f(43, 7), one)


@pytest.mark.parametrize("gen", ["uniform", "normal", "exponential"])
def test_offset_continues_the_stream(gen):
    f = GENERATORS[gen]
    whole = f(9, 100, n=3000)
    np.testing.assert_array_equal(f(9, 100 + 1000, n=2000), whole[1000:])
    np.testing.assert_array_equal(f(9, 100 + 1, n=2999), whole[1:])


def test_uniform_bounds_and_float64():
    x = uniform(5, 0, n=100000, dtype=np.float64)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert len(np.unique(x)) > 99990  # 53-bit values: collisions are rare


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_dropout_equals_do_mask_of_gen_mask(dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (37, 53)).astype(dtype)  # 1961 elements: the mask is padded to 2048 bits
    p, seed, offset = 0.3, 77, 12
    out = np.zeros_like(x)
    mask = np.zeros((x.size + 127) // 128 * 16, np.uint8)
    aclnn_py.run("aclnnDropout", x, p, True, seed, offset, out=(out, mask))
    np.testing.assert_array_equal(mask, mask_of(seed, offset, p, x.size))
    again = np.zeros_like(x)
    aclnn_py.run("aclnnDropoutDoMask", x, mask, p, out=again)
    np.testing.assert_array_equal(out, again)
    keep = np.unpackbits(mask, bitorder="little")[: x.size].reshape(x.shape).astype(bool)
    assert abs(keep.mean() - (1 - p)) < 0.04
    assert not out[~keep].any()


def test_dropout_not_training_copies_and_leaves_the_mask():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros_like(x)
    mask = np.full(16, 0xAB, np.uint8)
    aclnn_py.run("aclnnDropout", x, 0.5, False, 1, 0, out=(out, mask))
    np.testing.assert_array_equal(out, x)
    assert (mask == 0xAB).all()


@pytest.mark.parametrize("n", [1, 2, 17, 5000])
def test_randperm_is_a_permutation(n):
    out = np.zeros(n, np.int64)
    aclnn_py.run("aclnnRandperm", n, 3, 0, out=out)
    np.testing.assert_array_equal(np.sort(out), np.arange(n))
    other = np.zeros(n, np.int64)
    aclnn_py.run("aclnnRandperm", n, 4, 0, out=other)
    assert n < 17 or not np.array_equal(out, other)


def test_randperm_positions_are_uniform():
    # the first element of a permutation of 4 over 2000 offsets: each value about 500 times (sd 19)
    firsts = []
    for offset in range(0, 2000 * 3, 3):
        out = np.zeros(4, np.int64)
        aclnn_py.run("aclnnRandperm", 4, 11, offset, out=out)
        firsts.append(out[0])
    counts = np.bincount(firsts, minlength=4)
    assert (np.abs(counts - 500) < 90).all(), counts


def test_multinomial_without_replacement():
    w = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 0.0]] * 5000, np.float32)
    out = np.zeros((5000, 4), np.int64)
    aclnn_py.run("aclnnMultinomial", w, 4, False, 21, 0, out=out)
    assert all(len(set(r)) == 4 for r in out)
    assert not np.isin(out, (0, 5)).any()  # zero weights are never drawn
    first = np.bincount(out[:, 0], minlength=6) / 5000
    np.testing.assert_allclose(first[1:5], np.array([1, 2, 3, 4]) / 10, atol=0.025)


def test_multinomial_with_replacement_rows():
    w = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]], np.float64)
    out = np.zeros((2, 500), np.int64)
    aclnn_py.run("aclnnMultinomial", w, 500, True, 8, 0, out=out)
    assert (out[0] == 0).all() and (out[1] == 2).all()


@pytest.mark.parametrize("count", [-1, 3, 5])
def test_exponential_count_must_be_the_element_count(count):
    """aclnnSimThreadExponential's tiling: count >= 0 and count == numel(selfRef), else ACLNN_ERR_INNER_TILING_ERROR"""
    with pytest.raises(aclnn_py.AclnnError) as e:
        aclnn_py.run("aclnnSimThreadExponential", np.zeros(4, np.float32), count, 1.0, 0, 0)
    assert e.value.status == 561002


def test_bad_probability_is_refused():
    x = np.zeros(4, np.float32)
    with pytest.raises(aclnn_py.AclnnError) as e:
        aclnn_py.run("aclnnDropout", x, 1.5, True, 0, 0, out=(np.zeros_like(x), np.zeros(16, np.uint8)))
    assert e.value.status == 161002
    with pytest.raises(aclnn_py.AclnnError) as e:
        aclnn_py.run("aclnnInplaceUniform", x, 2.0, 1.0, 0, 0)
    assert e.value.status == 161002
    with pytest.raises(aclnn_py.AclnnError) as e:
        aclnn_py.run("aclnnInplaceNormal", x, 0.0, -1.0, 0, 0)
    assert e.value.status == 161002


def test_seed_tensor_forms_read_the_device_values():
    a = np.zeros(1000, np.float32)
    aclnn_py.run("aclnnInplaceUniformTensor", a, 0.0, 1.0, np.array([77], np.uint64), np.array([30], np.uint64), 12)
    np.testing.assert_array_equal(a, uniform(77, 42, n=1000))


def test_random_integers_cover_the_range():
    x = np.zeros(20000, np.int32)
    aclnn_py.run("aclnnInplaceRandom", x, -3, 4, 5, 0)
    assert set(np.unique(x)) == set(range(-3, 4))


def test_dropout_backward_equals_do_mask():
    rng = np.random.default_rng(1)
    g = rng.uniform(-1, 1, 500).astype(np.float32)
    mask = mask_of(3, 0, 0.2, 500)
    a, b = np.zeros_like(g), np.zeros_like(g)
    aclnn_py.run("aclnnDropoutBackward", g, mask, 1 / 0.8, out=a)
    aclnn_py.run("aclnnDropoutDoMask", g, mask, 0.2, out=b)
    np.testing.assert_allclose(a, b, rtol=1e-6)
