"""Run Python snippets in a fresh interpreter (process-wide runtime state, environment read once per process).

    result = run_json('''
        from aclnn_py import acl
        emit({"finalize": status(acl.aclFinalize)})
    ''', env={"ACLNN_PY_BACKEND": "stub"})

The child imports the same ``aclnn_py`` as the test process. Every snippet gets a small prelude:
``status(fn, *args)`` (0, or the ``.status`` of the exception, or ``"Type: text"`` for an exception
without one), ``error(fn, *args)`` (``{"type", "status", "text"}`` or None) and ``emit(obj)``, which
prints the JSON result ``run_json`` returns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import aclnn_py

PACKAGE_PARENT = str(Path(aclnn_py.__file__).resolve().parent.parent)

# Variables that steer backend selection or logging; removed unless a test sets them.
STEERING = ("ACLNN_PY_BACKEND", "ACLNN_PY_LIB_DIR", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH",
            "ACLNN_STUB_LOG")

PRELUDE = '''
import json as _json


def status(fn, *args):
    try:
        fn(*args)
        return 0
    except Exception as exc:  # noqa: BLE001
        return getattr(exc, "status", f"{type(exc).__name__}: {exc}")


def error(fn, *args):
    try:
        fn(*args)
        return None
    except Exception as exc:  # noqa: BLE001
        return {"type": type(exc).__name__, "status": getattr(exc, "status", None), "text": str(exc),
                "mro": [c.__name__ for c in type(exc).__mro__]}


def emit(obj):
    print("RESULT:" + _json.dumps(obj), flush=True)
'''


def child_env(env: dict | None = None) -> dict:
    e = {k: v for k, v in os.environ.items() if k not in STEERING}
    e["PYTHONPATH"] = PACKAGE_PARENT + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.update(env or {})
    return e


def run_python(code: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``code`` (dedented, after the prelude) in a new interpreter; returns the completed process."""
    source = PRELUDE + "\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", source], env=child_env(env), cwd=PACKAGE_PARENT,
                          capture_output=True, text=True, timeout=timeout)


def run_json(code: str, env: dict | None = None, timeout: float = 60):
    """Run ``code``, require exit status 0, and return the object it passed to ``emit``."""
    proc = run_python(code, env, timeout)
    assert proc.returncode == 0, f"child failed ({proc.returncode})\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT:")]
    assert lines, f"child emitted nothing\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return json.loads(lines[-1][len("RESULT:"):])
