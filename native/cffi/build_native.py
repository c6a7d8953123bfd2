"""Generate the C source of the cffi extension ``_aclnn_py_native._cffi`` and its signature table.

The extension does not link against any CANN library. Every C function it exposes calls through a
table of function pointers that the loader fills at run time with dlopen/dlsym, from a real CANN
toolkit or from the stub, so one build serves both (cffi API mode speed, late binding).

Usage: python build_native.py --out-dir DIR   (writes DIR/_cffi.c and DIR/signatures.py)
"""

from __future__ import annotations

import argparse
import pprint
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cdef as cdef_mod  # noqa: E402

# Entry points of the loader, implemented in LOADER_SOURCE below.
LOADER_CDEF = """
const char *aclnnpy_open(const char *path);
int aclnnpy_bind(void);
int aclnnpy_symbol_count(void);
const char *aclnnpy_symbol_name(int index);
const char *aclnnpy_symbol_library(int index);
void aclnnpy_free(void *ptr);
"""

LOADER_SOURCE = r"""
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static void *aclnnpy_handles[16];
static char aclnnpy_handle_paths[16][4096];
static int aclnnpy_num_handles;
static void *aclnnpy_ptrs[ACLNNPY_NUM_SYMBOLS];
static int aclnnpy_origin[ACLNNPY_NUM_SYMBOLS];

/* dlopen one library of the chosen set, globally so later ones resolve against it. NULL or an error. */
static const char *aclnnpy_open(const char *path) {
    if (aclnnpy_num_handles == 16) return "too many libraries";
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) return dlerror();
    strncpy(aclnnpy_handle_paths[aclnnpy_num_handles], path, sizeof aclnnpy_handle_paths[0] - 1);
    aclnnpy_handles[aclnnpy_num_handles++] = h;
    return NULL;
}

/* Look every symbol up in the opened libraries, first match wins. Returns how many are missing. */
static int aclnnpy_bind(void) {
    int missing = 0;
    for (int i = 0; i < ACLNNPY_NUM_SYMBOLS; i++) {
        aclnnpy_ptrs[i] = NULL;
        aclnnpy_origin[i] = -1;
        for (int h = 0; h < aclnnpy_num_handles && !aclnnpy_ptrs[i]; h++) {
            aclnnpy_ptrs[i] = dlsym(aclnnpy_handles[h], aclnnpy_symbol_names[i]);
            if (aclnnpy_ptrs[i]) aclnnpy_origin[i] = h;
        }
        missing += aclnnpy_ptrs[i] == NULL;
    }
    return missing;
}

static int aclnnpy_symbol_count(void) { return ACLNNPY_NUM_SYMBOLS; }

static const char *aclnnpy_symbol_name(int index) {
    return index >= 0 && index < ACLNNPY_NUM_SYMBOLS ? aclnnpy_symbol_names[index] : NULL;
}

/* Arrays that aclGetViewShape and friends hand over to the caller are released with free(). */
static void aclnnpy_free(void *ptr) { free(ptr); }

/* Path of the library a symbol was bound from, NULL when it is missing. */
static const char *aclnnpy_symbol_library(int index) {
    if (index < 0 || index >= ACLNNPY_NUM_SYMBOLS || aclnnpy_origin[index] < 0) return NULL;
    return aclnnpy_handle_paths[aclnnpy_origin[index]];
}
"""


def generate(out_dir: Path, cc: str | None = None) -> None:
    import cffi

    cdef = cdef_mod.cdef_from_headers(cc=cc)
    signatures = cdef_mod.function_signatures(cdef)
    names = sorted(signatures)

    includes = "".join(f'#include "{h}"\n' for h in cdef_mod.all_headers())
    symbol_names = ", ".join(f'"{n}"' for n in names)
    # After this point every call to NAME goes through slot i of the table. A macro is not expanded
    # inside its own replacement, so __typeof__(&NAME) still names the declared function type.
    redirects = "".join(
        f"#define {n} ((__typeof__(&{n}))aclnnpy_ptrs[{i}])\n" for i, n in enumerate(names)
    )
    source = (
        includes
        + f"#define ACLNNPY_NUM_SYMBOLS {len(names)}\n"
        + f"static const char *const aclnnpy_symbol_names[] = {{{symbol_names}}};\n"
        + LOADER_SOURCE
        + redirects
    )

    ffi = cffi.FFI()
    ffi.cdef(cdef + LOADER_CDEF)
    ffi.set_source("_aclnn_py_native._cffi", source)
    out_dir.mkdir(parents=True, exist_ok=True)
    ffi.emit_c_code(str(out_dir / "_cffi.c"))

    table = {n: {"result": signatures[n][0], "params": signatures[n][1]} for n in names}
    (out_dir / "signatures.py").write_text(
        '"""Generated from native/include by native/cffi/build_native.py: every C function the extension\n'
        'exposes, with its result type and its parameters (name, C type) in order. Do not edit."""\n\n'
        "SIGNATURES = " + pprint.pformat(table, width=110, sort_dicts=True) + "\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--cc", default=None, help="C compiler used to preprocess the headers")
    args = parser.parse_args()
    generate(args.out_dir, args.cc)
