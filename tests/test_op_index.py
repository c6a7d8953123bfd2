"""Data movement and indexing operators beyond the opdb's torch comparisons: indices out of range (an error of the
launch, never an access out of bounds, and a check-mode finding), results that do not depend on the thread count
(scatters with duplicate indices, sums), the order duplicates apply in, data-dependent output shapes, and the
operators Atlas A2/A3 refuse."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import aclnn_py
from aclnn_py import acl, check


OUT_OF_RANGE = {
    "index_select": lambda: aclnn_py.run("aclnnIndexSelect", np.ones((3, 4), np.float32), 0,
                                         np.array([0, 3]), np.zeros((2, 4), np.float32)),
    "gather": lambda: aclnn_py.run("aclnnGather", np.ones((3, 4), np.float32), 1, np.array([[0, 4]]),
                                   np.zeros((1, 2), np.float32)),
    "negative gather": lambda: aclnn_py.run("aclnnGather", np.ones((3, 4), np.float32), 1, np.array([[-1, 0]]),
                                            np.zeros((1, 2), np.float32)),
    "scatter_add": lambda: aclnn_py.run("aclnnScatterAdd", np.ones((3, 4), np.float32), 0, np.array([[5, 0, 0, 0]]),
                                        np.ones((1, 4), np.float32), np.zeros((3, 4), np.float32)),
    "embedding": lambda: aclnn_py.run("aclnnEmbedding", np.ones((4, 2), np.float32), np.array([1, 9]),
                                      np.zeros((2, 2), np.float32)),
    "index (advanced)": lambda: aclnn_py.run("aclnnIndex", np.ones((4, 2), np.float32), [np.array([0, 4])],
                                             np.zeros((2, 2), np.float32)),
    "embedding_dense_backward": lambda: aclnn_py.run("aclnnEmbeddingDenseBackward", np.ones((2, 3), np.float32),
                                                     np.array([0, 7]), 4, 100, False, np.zeros((4, 3), np.float32),
                                                     outputs=("out",)),
    "max_unpool2d": lambda: aclnn_py.run("aclnnMaxUnpool2d", np.ones((1, 2, 2), np.float32),
                                         np.array([[[0, 1], [2, 9]]]), [3, 3], np.zeros((1, 3, 3), np.float32)),
    # the official sample's idx1: 2 and 3 in a batch of N = 2 points
    "chamfer_distance_backward": lambda: aclnn_py.run(
        "aclnnChamferDistanceBackward", *[np.ones((2, 2, 2), np.float32)] * 2, np.array([[0, 1], [2, 3]], np.int32),
        np.zeros((2, 2), np.int32), *[np.ones((2, 2), np.float32)] * 2, *[np.zeros((2, 2, 2), np.float32)] * 2,
        outputs=("gradXyz1", "gradXyz2")),
    "ctc_loss label": lambda: aclnn_py.run(
        "aclnnCtcLoss", np.zeros((4, 1, 3), np.float32), np.array([[1, 3]]), [4], [2], 0, False,
        np.zeros((1,), np.float32), np.zeros((1, 4, 8), np.float32),
        outputs=("negLogLikelihoodOut", "logAlphaOut")),
    "repeat_interleave_grad negative repeats": lambda: aclnn_py.run(
        "aclnnRepeatInterleaveGrad", np.ones((4, 3), np.float32), np.array([5, -1]), 0, np.zeros((2, 3), np.float32),
        outputs=("out",)),
    "coalesce_sparse slot": lambda: aclnn_py.run(
        "aclnnCoalesceSparse", np.array([2]), np.array([0, 2]), np.zeros((2, 3), np.int64), np.ones((2,), np.float32),
        np.zeros((2, 3), np.int64), np.zeros((2,), np.float32), outputs=("newIndices", "newValues")),
}

# data the kernel checks that are no indices: the same launch failure, with the rule named
BAD_DATA = {
    "repeats not dividing the axis": (lambda: aclnn_py.run(
        "aclnnRepeatInterleaveGrad", np.ones((5, 3), np.float32), np.array(2), 0, np.zeros((2, 3), np.float32),
        outputs=("out",)), "must divide"),
    "repeats not summing to the axis": (lambda: aclnn_py.run(
        "aclnnRepeatInterleaveGrad", np.ones((5, 3), np.float32), np.array([2, 2]), 0, np.zeros((2, 3), np.float32),
        outputs=("out",)), "sum to"),
    "chamfer point counts differ": (lambda: aclnn_py.run(
        "aclnnChamferDistanceBackward", np.ones((1, 3, 2), np.float32), np.ones((1, 2, 2), np.float32),
        np.zeros((1, 3), np.int32), np.zeros((1, 2), np.int32), np.ones((1, 3), np.float32),
        np.ones((1, 2), np.float32), np.zeros((1, 3, 2), np.float32), np.zeros((1, 2, 2), np.float32),
        outputs=("gradXyz1", "gradXyz2")), "must be"),
    "vocabulary rows differ": (lambda: aclnn_py.run(
        "aclnnFusedCrossEntropyLossWithMaxSum", *[np.ones((2,), np.float32)] * 3, 0.0, None, None,
        np.ones((3, 4), np.float32), np.zeros((2,), np.float32), np.zeros((3, 4), np.float32),
        outputs=("lossOut", "softMaxOutOptional")), "rows"),
}


@pytest.mark.parametrize("case", sorted(BAD_DATA))
def test_bad_data_fails_the_launch(case):
    call, words = BAD_DATA[case]
    with pytest.raises(aclnn_py.errors.AclStatusError) as exc:
        call()
    assert words in str(exc.value), exc.value


@pytest.mark.parametrize("case", sorted(OUT_OF_RANGE))
def test_index_out_of_range_fails_the_launch(case):
    """Phase 1 cannot see index values: the launch fails (ACL_ERROR_RT_AICORE_EXCEPTION at the synchronisation)
    with a message naming the index, and nothing outside the tensors is touched (the sanitizer build checks)."""
    with pytest.raises(aclnn_py.errors.AclStatusError) as exc:
        OUT_OF_RANGE[case]()
    assert "out of range" in str(exc.value) or "outside" in str(exc.value), exc.value


def test_index_out_of_range_is_a_check_mode_finding():
    aclnn_py.default_device()

    def call():
        with pytest.raises(aclnn_py.errors.AclStatusError):
            OUT_OF_RANGE["index_select"]()

    findings = check.run(call, tools="memcheck", leaks=False)
    [f] = findings
    assert (f.tool, f.what, f.call) == ("memcheck", "index-out-of-range", "aclnnIndexSelect")
    assert f.message.startswith("'index'[1] = 3 is outside [0, 3)")


def test_valid_indices_are_no_finding():
    aclnn_py.default_device()
    findings = check.run(lambda: aclnn_py.run("aclnnIndexSelect", np.ones((3, 4), np.float32), 0, np.array([0, 2]),
                                              np.zeros((2, 4), np.float32)), tools="memcheck", leaks=False)
    assert findings == []


def test_scatter_duplicates_apply_in_index_order():
    """Tensor.scatter_ with duplicate indices: the last position along the dimension wins, whatever the threads."""
    self_ = np.zeros((2, 3), np.float32)
    index = np.array([[1, 1, 1], [1, 0, 1]])
    src = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros((2, 3), np.float32)
    aclnn_py.run("aclnnScatter", self_, 0, index, src, 0, out)
    np.testing.assert_array_equal(out, [[0, 4, 0], [3, 1, 5]])
    idx = np.array([0, 2, 0])
    out = np.zeros((3, 2), np.float32)
    aclnn_py.run("aclnnIndexCopy", np.zeros((3, 2), np.float32), 0, idx, np.arange(6, dtype=np.float32).reshape(3, 2),
                 out, outputs=("outRef",))
    np.testing.assert_array_equal(out, [[4, 5], [0, 0], [2, 3]])


SCRIPT = r"""
import hashlib, numpy as np, aclnn_py
rng = np.random.default_rng(7)
h = hashlib.sha256()
x = rng.standard_normal((64, 4096)).astype(np.float32)
idx = rng.integers(0, 64, size=(512, 4096))
src = rng.standard_normal((512, 4096)).astype(np.float32)
out = np.zeros_like(x)
aclnn_py.run("aclnnScatterAdd", x, 0, idx, src, out)
h.update(out.tobytes())
out = np.zeros((64, 4096), np.float32)
aclnn_py.run("aclnnIndexAdd", x, 0, rng.integers(0, 64, size=3000), rng.standard_normal((3000, 4096)).astype(np.float32),
             1.0, out)
h.update(out.tobytes())
y = rng.standard_normal((8, 40000)).astype(np.float16)
out = np.zeros((8, 10000), np.float16)
aclnn_py.run("aclnnRepeatInterleaveGrad", y, np.array([4]), 1, out, outputs=("out",))
h.update(out.tobytes())
out = np.zeros((8, 9001), np.float16)
aclnn_py.run("aclnnRepeatInterleaveGrad", y, np.array([1, 3, 4] * 3000 + [16000]), 1, out, outputs=("out",))
h.update(out.tobytes())
x1, x2 = rng.standard_normal((6, 3000, 2)).astype(np.float32), rng.standard_normal((6, 3000, 2)).astype(np.float32)
i1, i2 = rng.integers(0, 300, size=(6, 3000)).astype(np.int32), rng.integers(0, 300, size=(6, 3000)).astype(np.int32)
o1, o2 = np.zeros_like(x1), np.zeros_like(x2)
aclnn_py.run("aclnnChamferDistanceBackward", x1, x2, i1, i2, x1[..., 0].copy(), x2[..., 0].copy(), o1, o2,
             outputs=("gradXyz1", "gradXyz2"))
h.update(o1.tobytes() + o2.tobytes())
g = rng.standard_normal((20000, 64)).astype(np.float16)
out = np.zeros((100, 64), np.float16)
aclnn_py.run("aclnnEmbeddingDenseBackward", g, rng.integers(0, 100, size=20000), 100, 1000, False, out, outputs=("out",))
h.update(out.tobytes())
print(h.hexdigest())
"""


def test_results_do_not_depend_on_the_thread_count():
    digests = set()
    for threads in ("1", "3", "8"):
        env = dict(os.environ, ACLNN_STUB_NUM_THREADS=threads)
        res = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        digests.add(res.stdout.strip())
    assert len(digests) == 1


def test_nonzero_output_shape_is_set_when_the_kernel_runs():
    """A data-dependent output: out is allocated for the most (numel x ndim) and its view shape becomes the number
    of nonzero elements when the kernel runs (aclGetViewShape after the call)."""
    x = np.array([[0, 1, 0], [2, 0, 3]], np.float32)
    with aclnn_py.Tensor((6, 2), np.dtype("int64")) as out:
        aclnn_py.run("aclnnNonzero", x, out=out)
        assert tuple(acl.aclGetViewShape(out.handle)) == (3, 2)
        np.testing.assert_array_equal(out.numpy().reshape(-1)[:6].reshape(3, 2), [[0, 1], [1, 0], [1, 2]])


@pytest.mark.parametrize("call", [
    lambda: aclnn_py.run("aclnnStridedSlice", np.ones((4, 4), np.float32), [0, 0], [2, 2], [1, 1], 0, 0, 0, 0, 0,
                         np.zeros((2, 2), np.float32)),
    lambda: aclnn_py.run("aclnnInplaceQuantScatterV2", np.zeros((2, 4, 32), np.int8), np.array([0, 1]),
                         np.ones((2, 1, 32), np.float16), np.ones((32,), np.float32), None, -2, -1, 1, "rint",
                         outputs=("selfRef",)),
], ids=["StridedSlice", "InplaceQuantScatterV2"])
def test_ascend950_only_operators_are_refused(call):
    with pytest.raises(aclnn_py.AclnnError) as exc:
        call()
    assert exc.value.status == 161002
