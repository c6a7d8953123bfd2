"""Import time of aclnn_py against numpy's own, measured side by side in one run.

    python benchmarks/import_time.py            # 15 rounds
    python benchmarks/import_time.py --rounds 40

Each round starts fresh interpreters, in turn, for ``import numpy``, ``import aclnn_py`` and ``import aclnn_py``
followed by its first operator function (which loads numpy and the operator table), and reads the
cumulative import time of the top-level module from ``python -X importtime``. Medians are printed with the
ratio to numpy's; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CASES = {
    "numpy": ("import numpy", "numpy"),
    "aclnn_py": ("import aclnn_py", "aclnn_py"),
    "aclnn_py + an operator function": ("import aclnn_py; aclnn_py.moe_token_permute", "aclnn_py"),
}


def import_us(code: str, module: str) -> int:
    """Microseconds ``python -X importtime`` reports for ``module`` and everything it imported, plus any
    module the code imported afterwards at top level (an attribute access that imports)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          check=True, cwd=os.environ.get("ACLNN_PY_BENCH_CWD", ROOT))
    total, seen = 0, False
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:"):].split("|")
        name = name[1:].rstrip()  # one space, then two more per nesting level
        top_level = not name.startswith(" ")
        if top_level and name == module:
            seen = True
        if top_level and (seen or name == module):
            total += int(cumulative)  # the module, then what the rest of the code imported
    return total


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args(argv)
    samples = {name: [] for name in CASES}
    for _ in range(args.rounds):
        for name, (code, module) in CASES.items():  # interleaved: a busy moment affects every case alike
            samples[name].append(import_us(code, module))
    numpy_ms = statistics.median(samples["numpy"]) / 1000
    print(f"{'import':34} {'median':>10} {'vs numpy':>9}")
    for name, values in samples.items():
        ms = statistics.median(values) / 1000
        print(f"{name:34} {ms:8.1f} ms {ms / numpy_ms:8.2f}x")


if __name__ == "__main__":
    main()
