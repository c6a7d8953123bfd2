"""A conftest for a test suite written for an NPU: with it the suite runs on a CPU, its `import torch_npu` giving
aclnn_py's shim (real computation by the stub's operators instead of mocks)."""
from aclnn_py import torch_npu as shim

shim.install()  # at import: pytest imports conftest.py before the test modules


def pytest_unconfigure(config):
    shim.uninstall()
