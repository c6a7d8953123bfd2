"""The compiled half of aclnn-py: the cffi extension, the C headers and the stub libraries.

Installed as the top-level package ``_aclnn_py_native`` beside ``aclnn_py`` so that a source checkout
of ``aclnn_py`` on ``sys.path`` (running from the repository root) still finds the compiled parts.
"""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = PACKAGE_DIR / "include"
STUB_LIB_DIR = PACKAGE_DIR / "lib64"
