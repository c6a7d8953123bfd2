/*
 * The C functions the extension adds to the ABI's (loader.c: late binding and symbol lookup; memory_pool.c:
 * the device-memory pool and the per-stream workspaces; fastpath.c: the one-call operator invocation). This header is what Python sees of them: the build
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
/* flags: ACLNNPY_ZERO_OUTPUTS zero fresh device blocks of outputs too (reused ones always are), for
 * libraries whose aclrtMalloc does not zero-fill; ACLNNPY_LEND lend the host buffers to the device instead of
 * copying (the stub's aclStubLendHostMemory): outputs are then written in place, so `host` must hold what
 * the caller wants in elements the operator leaves untouched. */
enum { ACLNNPY_ZERO_OUTPUTS = 1, ACLNNPY_LEND = 2 };
ACLNNPY_API int aclnnpy_run(int op, void *const *host, const int64_t *meta, aclrtStream stream, int flags,
                            const char **failed);

/* ---- memory_pool.c ---- */
/* A block of at least `size` bytes on the current device for work on `stream`, cached or new (*fresh). */
ACLNNPY_API int aclnnpy_pool_malloc(aclrtStream stream, uint64_t size, void **ptr, int *fresh);
/* Give a block of aclnnpy_pool_malloc(stream, size) back: cached for that device and stream. */
ACLNNPY_API void aclnnpy_pool_free(aclrtStream stream, void *ptr, uint64_t size);
/* Free the cached blocks of `stream` (the NULL stream's: the current context's), or with `all` every cached block
 * of the current device; returns how many. */
ACLNNPY_API int aclnnpy_pool_release_blocks(aclrtStream stream, int all);
/* used bytes, total bytes, hits, misses, cached blocks, enabled */
ACLNNPY_API void aclnnpy_pool_stats(uint64_t *out);
ACLNNPY_API void aclnnpy_pool_set_enabled(int on);
/* A workspace of at least `size` bytes for work queued on `stream`, kept per stream and reused while it fits. */
ACLNNPY_API int aclnnpy_workspace(aclrtStream stream, uint64_t size, void **ptr);
/* Before `stream` is destroyed: its workspace and cached blocks, freed after synchronising it (from any thread;
 * for the NULL stream, the current context's). */
ACLNNPY_API int aclnnpy_stream_release(aclrtStream stream);
/* Before the current device is released: the workspaces and cached blocks of every stream on it. */
ACLNNPY_API int aclnnpy_device_release(void);
/* Host blocks for results written in place: at least `size` bytes, 64-byte aligned, cached or new (NULL when
 * out of memory); `zero`: the first `size` bytes zeroed. Given back by aclnnpy_host_free (the address
 * alone). release_blocks frees the cached ones (returns how many); stats as aclnnpy_pool_stats. */
ACLNNPY_API void *aclnnpy_host_alloc(uint64_t size, int zero);
ACLNNPY_API void aclnnpy_host_free(void *ptr);
ACLNNPY_API int aclnnpy_host_release_blocks(void);
ACLNNPY_API void aclnnpy_host_stats(uint64_t *out);

#endif /* ACLNNPY_H_ */
