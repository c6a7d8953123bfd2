"""Shared fixtures: every test must leave the stub's live-object counts where it found them."""

import gc
import os

import hypothesis
import pytest

# Every result of a zero-copy call comes from the host pool filled with 0xff bytes unless the operator table
# says the operator may leave elements untouched: a table that claims too much fails the exact comparisons.
os.environ.setdefault("ACLNN_PY_DEBUG_POISON_OUTPUTS", "1")

import aclnn_py  # noqa: E402
import helpers_acl  # noqa: E402


def live_counts(full: bool = False) -> dict:
    """The stub's live objects once unreferenced resource objects are finalized. A test's garbage cycles are
    young, so collecting the two young generations finds them (a full collection costs 0.2 s with torch
    loaded); a full collection runs when the counts differ."""
    gc.collect() if full else gc.collect(1)
    return helpers_acl.live_counts()


@pytest.fixture(autouse=True)
def no_leaks(request):
    """Fail a test that leaves device memory, streams, events, contexts, tensors, arrays, lists, scalars or
    executors behind."""
    if not aclnn_py.backend().is_stub or "leaks_ok" in request.keywords:
        yield
        return
    aclnn_py.default_device()  # created once, lives for the session
    before = live_counts()
    yield
    after = live_counts()
    if after != before:
        after = live_counts(full=True)
    assert after == before, f"live objects changed: { {k: (before[k], after[k]) for k in before if before[k] != after[k]} }"


def pytest_collection_modifyitems(config, items):
    """ACLNN_PY_TEST_MAX_EXAMPLES=N caps every property test at N examples: the sanitizer run, where each
    example costs several times more, keeps every test but fewer random cases."""
    cap = int(os.environ.get("ACLNN_PY_TEST_MAX_EXAMPLES", "0") or 0)
    if cap <= 0:
        return
    for item in items:
        fn = getattr(item, "obj", None)
        current = getattr(fn, "_hypothesis_internal_use_settings", None)
        if current is not None and current.max_examples > cap:
            fn._hypothesis_internal_use_settings = hypothesis.settings(current, max_examples=cap)


def pytest_configure(config):
    config.addinivalue_line("markers", "leaks_ok: the test manages live objects itself")
