/*
 * The BLAS of the matmul engine and of the linear algebra operators (OpenBLAS of the scipy-openblas32 wheel),
 * loaded on first use: loading OpenBLAS starts its server threads, which a process that never multiplies a
 * matrix should not pay for. libnnopbase does not link it; the first operator that needs it opens it (once,
 * whichever thread gets there first) from the directory libnnopbase was loaded from, then through the usual
 * library search (libnnopbase's $ORIGIN run path, LD_LIBRARY_PATH, the system's paths).
 *
 * pthread_once keeps the load thread-safe; a child forked while another thread of its parent was loading runs
 * the load again itself (glibc's pthread_once counts forks for that). After a load failure every call that needs
 * the BLAS fails with the same message: the library, and the reason the dynamic loader gave.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sdk_internal.h"

#define BLAS_LIBRARY "libscipy_openblas.so"

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static aclStubBlasApi blas_api;
static const aclStubBlasApi *blas_loaded; /* written once inside pthread_once, read after it */
static char blas_error[512];

/* dst: the directory of the object holding this function, with a trailing '/', or "" when it is not known. */
static void own_directory(char *dst, size_t cap) {
    Dl_info info;
    dst[0] = '\0';
    if (dladdr((void *)own_directory, &info) == 0 || info.dli_fname == NULL) return;
    const char *slash = strrchr(info.dli_fname, '/');
    if (slash == NULL) return;
    size_t n = (size_t)(slash - info.dli_fname) + 1;
    if (n + sizeof BLAS_LIBRARY > cap) return;
    memcpy(dst, info.dli_fname, n);
    dst[n] = '\0';
}

static void blas_load(void) {
    char path[4096];
    own_directory(path, sizeof path - sizeof BLAS_LIBRARY);
    strcat(path, BLAS_LIBRARY);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL && strcmp(path, BLAS_LIBRARY) != 0) lib = dlopen(BLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        snprintf(blas_error, sizeof blas_error, "the BLAS library %s could not be loaded: %s", BLAS_LIBRARY,
                 why != NULL ? why : "not found");
        return;
    }
#define ACLSTUB_BLAS_RESOLVE(ret, name, params)                                                                       \
    *(void **)&blas_api.name = dlsym(lib, "scipy_" #name);                                                            \
    if (blas_api.name == NULL) {                                                                                      \
        snprintf(blas_error, sizeof blas_error, "the BLAS library %s has no function scipy_%s", BLAS_LIBRARY, #name); \
        dlclose(lib);                                                                                                 \
        return;                                                                                                       \
    }
    ACLSTUB_BLAS_FUNCTIONS(ACLSTUB_BLAS_RESOLVE)
#undef ACLSTUB_BLAS_RESOLVE
    blas_api.openblas_set_num_threads(1); /* the stub's threads share the work: each BLAS call runs in its caller */
    blas_loaded = &blas_api;
}

const aclStubBlasApi *sdk_blas(const char **error) {
    pthread_once(&blas_once, blas_load);
    if (blas_loaded == NULL && error != NULL) *error = blas_error;
    return blas_loaded;
}
