"""The runtime's device semantics checked from C (tests/c/runtime_semantics.c): never-reused handles, span
checks of every copy kind, reference-counted devices, per-thread devices and contexts, several devices,
asynchronous streams, events, callbacks, timeouts, failures in queued work, fork safety, the padding of
device memory, calls of a subscribed thread that wait for its own callback, deadlines, and the work a launching
thread runs itself on an idle stream (in order behind queued work, event waits and another thread's inline work;
its failures reported at synchronisation; never from queued work).

The program runs one group of checks per process; every check it contains must print ``<name> 1``."""

import os
import re
import shutil
import subprocess

from pathlib import Path

import pytest

from helpers_ops import _c_flags, parse_case_lines

SOURCE = Path(__file__).resolve().parent / "c" / "runtime_semantics.c"
LIVE = ["live_allocations", "live_streams", "live_events", "live_contexts"]


def checks_of(group: str) -> set[str]:
    """The check names in the C function group_<group> (so a check cannot silently disappear)."""
    text = SOURCE.read_text()
    body = re.search(rf"static void group_{group}\(void\) \{{(.*?)\n\}}\n", text, re.S).group(1)
    return set(re.findall(r'check\("(\w+)"', body))


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    cc = os.environ.get("CC", "gcc")
    assert shutil.which(cc), f"{cc} is needed to build the runtime checks"
    exe = tmp_path_factory.mktemp("runtime") / "runtime_semantics"
    subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", "-Werror", str(SOURCE), *_c_flags(), "-lpthread",
                    "-o", str(exe)], check=True)
    return exe


def run_group(program, group: str, **env) -> dict[str, int]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_STUB_")}
    full_env.update(env)
    proc = subprocess.run([str(program), group], capture_output=True, text=True, timeout=300, env=full_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return parse_case_lines(proc.stdout)


@pytest.mark.parametrize("group, env", [
    ("handles", {}),
    ("spans", {}),
    ("devices", {}),
    ("capacity", {"ACLNN_STUB_DEVICE_MEMORY": "1048576"}),
    ("environment", {"ACLNN_STUB_DEVICE_COUNT": "3", "ACLNN_STUB_SOC_NAME": "Ascend910B3"}),
    ("streams", {}),
    ("events", {}),
    ("events", {"ACLNN_STUB_STREAM_WORKERS": "1"}),  # a stream waiting for an event holds no worker
    ("callbacks", {}),
    ("fork", {}),
    ("lend", {}),
    ("padding", {}),
    ("hangs", {}),
    ("deadlines", {"ACLNN_STUB_STREAM_WORKERS": "1"}),  # the one worker busy: only an inline run could finish
    ("inline", {}),
], ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_runtime_semantics(program, group, env):
    results = run_group(program, group, **env)
    expected = checks_of(group) | set(LIVE)
    assert set(results) == expected, sorted(set(results) ^ expected)
    assert [name for name, ok in results.items() if ok != 1] == []
