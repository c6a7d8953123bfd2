"""Write the site's home page (``index.md``) from ``README.md``, at documentation build time, so the first-visit
page has one source: links into ``docs/`` lose that prefix, since the site's pages live there.

Run by mkdocs-gen-files (``mkdocs.yml``); ``python docs/gen_index.py`` prints the page.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def render() -> str:
    return re.sub(r"\]\(docs/", "](", README.read_text())


if __name__ == "__main__":
    print(render())
elif __name__ == "<run_path>":  # mkdocs-gen-files
    import mkdocs_gen_files

    with mkdocs_gen_files.open("index.md", "w") as f:
        f.write(render())
