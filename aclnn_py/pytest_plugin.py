"""pytest fixture ``aclnn_check``: the test runs in check mode and fails when check mode finds a bug.

Enable it in a conftest.py with ``pytest_plugins = ["aclnn_py.pytest_plugin"]``, then request it::

    def test_permute(aclnn_check):
        ...                     # any aclnn_py or mirror calls

The fixture yields the session (``aclnn_check.findings`` is filled at teardown). Mark a test with
``@pytest.mark.aclnn_check(tools="memcheck,synccheck", leaks=False)`` to choose the tools.
"""

from __future__ import annotations

import pytest

from . import check


def pytest_configure(config):
    config.addinivalue_line("markers", "aclnn_check(tools='all', leaks=True): check mode settings of the test")


@pytest.fixture
def aclnn_check(request):
    marker = request.node.get_closest_marker("aclnn_check")
    options = dict(marker.kwargs) if marker else {}
    with check.session(options.get("tools", "all"), options.get("leaks", True)) as s:
        yield s
    if any(f.severity == "error" for f in s.findings):  # warnings (padding-access) are shown, never fail
        pytest.fail("aclnn check found bugs:\n" + check.format_report(s.findings, s.tools), pytrace=False)
