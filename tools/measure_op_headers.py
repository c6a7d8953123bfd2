"""Coverage of the header-driven mirror over operator repositories (a developer tool, not run in CI).

    python tools/measure_op_headers.py REPO_GIT_DIR...

Extracts every ``**/op_api/aclnn_*.h`` of each repository (``git archive HEAD``) into a temporary directory,
adds it with ``aclnn_py.add_include_dir`` and resolves every operator (a ``XxxGetWorkspaceSize`` function and
its ``Xxx``) through ``aclnn_py.aclnn``. An operator counts as covered when both mirror functions are made
(calling one whose symbol is absent raises SymbolNotFoundError: that is still a mirror function). Prints the
fraction and every failure with its reason. Uses a fresh cache directory unless ACLNN_PY_CACHE_DIR is set.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def extract(repo: Path, dest: Path) -> list[Path]:
    files = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD"], check=True,
                           capture_output=True, text=True).stdout.split()
    wanted = [f for f in files if re.search(r"(^|/)op_api/aclnn_[^/]*\.h$", f)]
    if wanted:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "HEAD", *wanted], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return [dest / f for f in wanted]


def main(repos: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="aclnn_py-measure-") as tmp:
        os.environ.setdefault("ACLNN_PY_CACHE_DIR", str(Path(tmp) / "cache"))
        import aclnn_py
        from aclnn_py import _headers, aclnn

        headers = []
        for repo in repos:
            dest = Path(tmp) / Path(repo).parent.name
            dest.mkdir()
            headers += extract(Path(repo), dest)
        for d in sorted({h.parent for h in headers}):
            aclnn_py.add_include_dir(d)
        index = _headers.index()
        ops = sorted(n[: -len("GetWorkspaceSize")] for n, hs in index.items()
                     if n.endswith("GetWorkspaceSize") and str(hs[0]).startswith(tmp))
        failures, reasons = {}, collections.Counter()
        for op in ops:
            for name in (op + "GetWorkspaceSize", op):
                try:
                    getattr(aclnn, name)
                except AttributeError as exc:
                    failures[op] = str(exc)
                    reason = re.sub(r".*not usable: [^:]*: ", "", str(exc))
                    reason = re.sub(r"\S+\.h(:\d+)*:? ?", "", reason)
                    reasons[re.sub(r"'[^']*'", "'...'", reason)[:90]] += 1
                    break
        covered = len(ops) - len(failures)
        print(f"{len(headers)} headers, {len(ops)} operators; mirror functions for {covered} "
              f"({100.0 * covered / max(len(ops), 1):.1f}%)")
        for reason, count in reasons.most_common():
            print(f"  {count:4d}  {reason}")
        for op, why in sorted(failures.items()):
            print(f"{op}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
