"""The hicann operator repositories and how their official samples are built: the include directories (relative
to a toolkit's ``include``) and the link line each repository's build scripts give ``g++``, as data.

``config --cflags --libs --repo R`` prints them against the stub, and ``samples DIR`` builds every sample of a
checkout with them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Repo:
    name: str  # "ops-math"
    library: str  # the operator library it builds: "opapi_math"
    include: tuple[str, ...]  # -I directories under the toolkit's include/, in order ("" is include/ itself)
    libs: tuple[str, ...]  # -l names, in order

    def link_libs(self, acl_rt: bool = False) -> tuple[str, ...]:
        """The -l names; ``acl_rt``: the runtime under its newer name, as newer builds link it."""
        return tuple("acl_rt" if acl_rt and lib == "ascendcl" else lib for lib in self.libs)


# From each repository's scripts/build_example.sh or build.sh (the eager samples' g++ lines). ops-nn links
# -lacl_rt instead of -lascendcl when the toolkit has no libascendcl.so; ops-transformer adds its toolkit's
# opp/include/aclnnop, the stub's include/aclnnop.
REPOS = {r.name: r for r in (
    Repo("ops-math", "opapi_math", ("", "aclnn"), ("opapi_math", "ascendcl", "nnopbase")),
    Repo("ops-nn", "opapi_nn", ("", "aclnnop", "aclnn"), ("opapi_nn", "opapi_math", "ascendcl", "nnopbase")),
    Repo("ops-cv", "opapi_cv", ("", "aclnn"), ("opapi_cv", "ascendcl", "nnopbase")),
    Repo("ops-transformer", "opapi_transformer", ("", "aclnn", "aclnnop"),
         ("opapi", "opapi_transformer", "ascendcl", "nnopbase", "pthread", "hccl")),
)}

# Without --repo: every include directory an official line uses, and ops-transformer's link line, whose
# libopapi holds every operator.
DEFAULT_INCLUDE = ("", "aclnn", "aclnnop")
DEFAULT_REPO = "ops-transformer"
# What an operator library built on the operator SDK (aclstub/op_sdk.h) links.
SDK_LIBS = ("nnopbase", "ascendcl")


def repo_for(path_name: str) -> Repo | None:
    """The repository a checkout's directory name names (``ops-math``, ``ops-math-master``...), else None."""
    name = path_name.lower().replace("_", "-")
    # Longest first: "ops-transformer" before a shorter name it might contain.
    for key in sorted(REPOS, key=len, reverse=True):
        if key in name:
            return REPOS[key]
    return None


def include_flags(include_dir: str, dirs: tuple[str, ...]) -> list[str]:
    return ["-I" + (f"{include_dir}/{d}" if d else include_dir) for d in dirs]


def lib_flags(lib_dir: str, libs: tuple[str, ...], rpath: bool = True) -> list[str]:
    return [f"-L{lib_dir}", *([f"-Wl,-rpath,{lib_dir}"] if rpath else []), *(f"-l{name}" for name in libs)]
