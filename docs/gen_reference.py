"""Write the reference pages of the generated functions from their own signatures and docstrings, at
documentation build time: the mirror (``reference/mirror.md``: made from the headers when the package is built)
the operator functions (``reference/ops.md``: made from the operator table on import) and the pyACL interface
(``reference/pyacl.md``: made from its tables). Neither has source a
static documentation tool could read; the other reference pages are mkdocstrings directives.

Run by mkdocs-gen-files (``mkdocs.yml``); ``python docs/gen_reference.py mirror|ops|pyacl`` prints a page.
"""

from __future__ import annotations

import inspect
import sys

from aclnn_py import acl, aclnn, ops, pyacl

# acl_base.h functions that belong with the runtime rather than the tensor meta API.
RUNTIME_BASE = {"aclInit", "aclFinalize", "aclGetRecentErrMsg", "aclDataTypeSize", "aclFloat16ToFloat",
                "aclFloatToFloat16"}
# Sections of aclnn_py.acl, first match wins: (title, predicate on the C name).
ACL_SECTIONS = (
    ("Stub only (aclstub/aclstub.h)", lambda n: n.startswith("aclStub")),
    ("Runtime (acl/acl_rt.h, acl/acl_base.h)", lambda n: n.startswith("aclrt") or n in RUNTIME_BASE),
    ("Tensor meta API (aclnn/acl_meta.h)", lambda n: True),
)


def entry(module, name: str) -> list[str]:
    fn = getattr(module, name)
    doc = inspect.getdoc(fn) or ""
    return [f"### `{name}{inspect.signature(fn)}`", "", "```text", doc, "```", ""]


def render_ops() -> str:
    out = ["# Operator functions (`aclnn_py.ops`)", "",
           "One function per row of the operator table; `aclnn_py.moe_token_permute` is "
           "`aclnn_py.ops.moe_token_permute`. The [operator list](../operators.md) gives each with its C operator "
           "and family. This page is generated from the functions' signatures and docstrings when the "
           "documentation is built.", "", inspect.getdoc(ops) or "", ""]
    for name in ops.__all__:
        out += entry(ops, name)
    return "\n".join(out)


def render_pyacl() -> str:
    out = ["# pyACL interface (`aclnn_py.pyacl`)", "",
           "Generated from the functions' signatures and docstrings when the documentation is built; the "
           "[guide page](../guide/pyacl.md) explains the conventions.", "", inspect.getdoc(pyacl) or "", ""]
    for title, module, names in (("acl", pyacl, pyacl.__all__), ("acl.rt", pyacl.rt, pyacl.rt.__all__),
                                 ("acl.util", pyacl.util, pyacl.util.__all__), ("acl.op", pyacl.op, pyacl.op.__all__)):
        out += [f"## {title}", "", inspect.getdoc(module) if module is not pyacl else "", ""]
        for name in names:
            if callable(getattr(module, name)) and not inspect.ismodule(getattr(module, name)):
                out += entry(module, name)
    return "\n".join(out)


def render_mirror() -> str:
    out = [
        "# Mirror reference: `aclnn_py.acl` and `aclnn_py.aclnn`",
        "",
        "Every C function of the runtime (`acl/acl.h`), the tensor meta API (`aclnn/acl_meta.h`), the stub's own "
        "functions (`aclstub/aclstub.h`) and the operators (`aclnnop/*.h`) under its C name. Parameters are the "
        "C inputs in C order; out-parameters are returned (one value, or a tuple in C order); a non-zero status "
        "raises `aclnn_py.AclError` (runtime) or `aclnn_py.AclnnError` (operators, tensor meta API). Enum values "
        "and status codes are module constants with their C names. This page is generated from the functions' "
        "signatures and docstrings when the documentation is built; `help(acl.aclrtMalloc)` shows the same text.",
        "",
        "## aclnn_py.acl",
        "",
        inspect.getdoc(acl) or "",
        "",
        "### `host_ptr(obj)`",
        "",
        inspect.getdoc(acl.host_ptr) or "",
        "",
    ]
    names = sorted(acl._mirror.names)
    done: set[str] = set()
    for title, match in ACL_SECTIONS:
        members = [n for n in names if n not in done and match(n)]
        done.update(members)
        out += [f"## {title}", ""]
        for name in members:
            out += entry(acl, name)
    out += ["## aclnn_py.aclnn", "", inspect.getdoc(aclnn) or "", "",
            "### `describe(name)`", "", inspect.getdoc(aclnn.describe) or "", "",
            "## Operator functions (aclnnop/*.h)", "",
            "Both phases of every operator the package's headers declare; the [operator list](../operators.md) "
            "groups them by family with their high-level functions.", ""]
    for name in sorted(aclnn._mirror.names):
        out += entry(aclnn, name)
    return "\n".join(out)


PAGES = {"mirror": ("reference/mirror.md", render_mirror), "ops": ("reference/ops.md", render_ops),
         "pyacl": ("reference/pyacl.md", render_pyacl)}

if __name__ == "__main__":
    print(PAGES[sys.argv[1] if len(sys.argv) > 1 else "mirror"][1]())
elif __name__ == "<run_path>":  # mkdocs-gen-files
    import mkdocs_gen_files

    for path, render in PAGES.values():
        with mkdocs_gen_files.open(path, "w") as f:
            f.write(render())
