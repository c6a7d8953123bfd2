/*
 * A kernel whose worker threads cannot get their buffers fails with a status (reported at the next
 * synchronisation, as a device reports a failed kernel); it never writes rows of zeros in silence. The
 * program replaces malloc with one that refuses requests of one chosen size while armed (forwarding
 * everything else to the next malloc, libc's or a sanitizer's), and runs the gather kernels with a top-k
 * large enough that their per-thread term lists come from the heap.
 *
 * Prints "<case> <0|1>" lines; every case must print 1.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_ep.h"

static void *(*next_malloc)(size_t);
static size_t refused_size;
static int armed, refusals;
static char bootstrap[4096]; /* what dlsym may ask for before next_malloc is known (never freed) */
static size_t bootstrap_used;

void *malloc(size_t n) {
    if (next_malloc == NULL) {
        static __thread int resolving;
        if (!resolving) {
            resolving = 1;
            next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
            resolving = 0;
        }
        if (next_malloc == NULL) {
            void *p = bootstrap + bootstrap_used;
            bootstrap_used += (n + 15) & ~(size_t)15;
            return bootstrap_used <= sizeof bootstrap ? p : NULL;
        }
    }
    if (__atomic_load_n(&armed, __ATOMIC_SEQ_CST) && n == refused_size) {
        __atomic_fetch_add(&refusals, 1, __ATOMIC_SEQ_CST);
        return NULL;
    }
    return next_malloc(n);
}

static void check(const char *name, int ok) { printf("%s %d\n", name, ok ? 1 : 0); }

static void *dev(size_t bytes, int fill) {
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) exit(2);
    if (aclrtMemset(p, bytes, fill, bytes) != ACL_SUCCESS) exit(2);
    return p;
}

static aclTensor *tensor2(void *data, int64_t rows, int64_t cols, aclDataType dtype) {
    int64_t dims[2] = {rows, cols};
    return aclCreateTensor(dims, 2, dtype, NULL, 0, ACL_FORMAT_ND, dims, 2, data);
}

static aclTensor *tensor1(void *data, int64_t n, aclDataType dtype) {
    return aclCreateTensor(&n, 1, dtype, NULL, 0, ACL_FORMAT_ND, &n, 1, data);
}

/* Runs phase 2 with the refusal armed; 1 when the synchronisation reports the kernel's failure. */
static int fails_at_sync(aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream), aclOpExecutor *ex,
                         aclrtStream stream, size_t size) {
    refused_size = size;
    __atomic_store_n(&refusals, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&armed, 1, __ATOMIC_SEQ_CST);
    aclnnStatus queued = run(NULL, 0, ex, stream);
    aclError synced = aclrtSynchronizeStream(stream);
    __atomic_store_n(&armed, 0, __ATOMIC_SEQ_CST);
    const char *msg = aclGetRecentErrMsg();
    int ok = queued == 0 && synced == ACL_ERROR_RT_AICORE_EXCEPTION && refusals > 0 && msg != NULL &&
             strstr(msg, "out of host memory") != NULL;
    if (!ok)
        fprintf(stderr, "queued %d, synced %d, refusals %d, message %s\n", (int)queued, (int)synced, refusals,
                msg ? msg : "(none)");
    return ok;
}

enum { T = 4, K = 100, H = 8 }; /* K above the 64 terms a thread keeps on its stack */

int main(void) {
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
    aclrtStream stream;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 2;
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;

    /* aclnnMoeTokenPermuteGrad: the gather-sum; out starts as 0x7f bytes, never silently zeroed. */
    int32_t idx[T * K];
    for (int i = 0; i < T * K; i++) idx[i] = i;
    void *grad_d = dev((size_t)T * K * H * 4, 0x3f), *idx_d = dev(sizeof idx, 0), *out_d = dev((size_t)T * H * 4, 0x7f);
    aclrtMemcpy(idx_d, sizeof idx, idx, sizeof idx, ACL_MEMCPY_HOST_TO_DEVICE);
    aclTensor *grad = tensor2(grad_d, T * K, H, ACL_FLOAT), *sorted = tensor1(idx_d, T * K, ACL_INT32);
    aclTensor *out = tensor2(out_d, T, H, ACL_FLOAT);
    int planned = aclnnMoeTokenPermuteGradGetWorkspaceSize(grad, sorted, K, false, out, &ws, &ex) == 0;
    check("permute_grad_fails", planned && fails_at_sync(aclnnMoeTokenPermuteGrad, ex, stream, 2 * K * sizeof(void *)));
    unsigned char back[T * H * 4];
    aclrtMemcpy(back, sizeof back, out_d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST);
    int zero_rows = 0;
    for (int t = 0; t < T; t++) {
        int zero = 1;
        for (int j = 0; j < H * 4; j++) zero &= back[t * H * 4 + j] == 0;
        zero_rows += zero;
    }
    check("permute_grad_no_zero_rows", zero_rows == 0);
    planned = aclnnMoeTokenPermuteGradGetWorkspaceSize(grad, sorted, K, false, out, &ws, &ex) == 0;
    check("permute_grad_runs_when_memory_is_there", planned && aclnnMoeTokenPermuteGrad(NULL, 0, ex, stream) == 0 &&
                                                        aclrtSynchronizeStream(stream) == ACL_SUCCESS);

    /* aclnnMoeTokenUnpermuteWithEp with probs: the weighted gather-sum (its term list and its weights). */
    void *probs_d = dev((size_t)T * K * 4, 0x3f), *eout_d = dev((size_t)T * H * 4, 0x7f);
    aclTensor *probs = tensor2(probs_d, T, K, ACL_FLOAT), *eidx = tensor1(idx_d, T * K, ACL_INT32);
    aclTensor *eout = tensor2(eout_d, T, H, ACL_FLOAT);
    int64_t window[2] = {0, T * K};
    aclIntArray *range = aclCreateIntArray(window, 2);
    const size_t sizes[2] = {2 * K * sizeof(void *), 2 * K * sizeof(float)};
    const char *names[2] = {"unpermute_with_ep_fails_rows", "unpermute_with_ep_fails_weights"};
    for (int i = 0; i < 2; i++) {
        planned = aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize(grad, eidx, probs, K, range, false, NULL, eout, &ws,
                                                              &ex) == 0;
        check(names[i], planned && fails_at_sync(aclnnMoeTokenUnpermuteWithEp, ex, stream, sizes[i]));
    }

    aclDestroyTensor(grad);
    aclDestroyTensor(sorted);
    aclDestroyTensor(out);
    aclDestroyTensor(probs);
    aclDestroyTensor(eidx);
    aclDestroyTensor(eout);
    aclDestroyIntArray(range);
    void *blocks[] = {grad_d, idx_d, out_d, probs_d, eout_d};
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) aclrtFree(blocks[i]);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
