/*
 * The C functions the extension adds to the ABI's (loader.c: late binding and symbol lookup; fastpath.c: the
 * one-call operator invocation and the workspace pool). This header is what Python sees of them: the build
 * feeds it to the cffi declarations, and loader.c and fastpath.c are compiled against it.
 */
#ifndef ACLNNPY_H_
#define ACLNNPY_H_

#include <stdint.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

/* Internal to the extension: not exported from its shared object. */
#define ACLNNPY_API __attribute__((visibility("hidden")))

/* ---- loader.c ---- */
/* dlopen one library of the chosen set, globally; NULL, or the loader's error message. */
ACLNNPY_API const char *aclnnpy_open(const char *path);
/* Bind every declared symbol to the opened libraries (first match wins); returns how many are missing. */
ACLNNPY_API int aclnnpy_bind(void);
ACLNNPY_API int aclnnpy_symbol_count(void);
ACLNNPY_API const char *aclnnpy_symbol_name(int index);
/* Path of the library symbol `index` was bound from, NULL when missing. */
ACLNNPY_API const char *aclnnpy_symbol_library(int index);
/* Release an array the library handed over (aclGetViewShape and friends allocate with malloc). */
ACLNNPY_API void aclnnpy_free(void *ptr);
ACLNNPY_API int aclnnpy_library_count(void);
ACLNNPY_API const char *aclnnpy_library_path(int library);
/* Address of `name` in one opened library, or the first in opening order (*library its index, or -1). */
ACLNNPY_API void *aclnnpy_symbol_in(int library, const char *name);
ACLNNPY_API void *aclnnpy_symbol_address(const char *name, int *library);

/* ---- fastpath.c ---- */
/* Run compiled operator `op` (its index in the generated dispatch) in one call; see fastpath.c for `meta`. */
ACLNNPY_API int aclnnpy_run(int op, void *const *host, const int64_t *meta, aclrtStream stream, int zero_outputs,
                            const char **failed);
/* A pooled workspace of at least `size` bytes for work queued on `stream`; freed by _release (synchronises). */
ACLNNPY_API int aclnnpy_workspace(aclrtStream stream, uint64_t size, void **ptr);
ACLNNPY_API int aclnnpy_workspace_release(aclrtStream stream);

#endif /* ACLNNPY_H_ */
