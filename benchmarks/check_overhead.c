/*
 * The per-call cost of the runtime and operator paths check mode hooks into: each iteration copies 4 KiB to
 * the device, runs aclnnMoeTokenPermute (both phases) on a stream, synchronises and copies the result back.
 * Prints "ns_per_iteration <wall> <cpu>": the medians of 9 batches of the wall time and of the calling thread's
 * CPU time (where the hooks run; less disturbed by other processes on a busy machine than the wall time).
 * Built with the official link line against the library directory under test:  check_overhead [iterations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute.h"

#define BATCHES 9
#define FAIL(what, ret) do { fprintf(stderr, "%s failed: %d\n", what, (int)(ret)); return 1; } while (0)

static double now_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static aclTensor *tensor(const int64_t *shape, uint64_t rank, aclDataType dtype, void *data) {
    int64_t strides[2] = {rank == 2 ? shape[1] : 1, 1};
    return aclCreateTensor(shape, rank, dtype, strides, 0, ACL_FORMAT_ND, shape, rank, data);
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 2000;
    aclrtStream stream;
    void *x, *idx, *out, *sorted, *buf;
    static unsigned char host[4096];
    int32_t indices[6] = {1, 2, 0, 1, 0, 2};
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&stream)) FAIL("init", -1);
    if (aclrtMalloc(&x, 24, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc(&idx, 24, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&out, 48, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc(&sorted, 24, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&buf, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST))
        FAIL("aclrtMalloc", -1);
    aclrtMemcpy(idx, 24, indices, 24, ACL_MEMCPY_HOST_TO_DEVICE);
    int64_t xs[2] = {3, 4}, is[2] = {3, 2}, os[2] = {6, 4}, ss[1] = {6};
    aclTensor *tx = tensor(xs, 2, ACL_BF16, x), *ti = tensor(is, 2, ACL_INT32, idx);
    aclTensor *to = tensor(os, 2, ACL_BF16, out), *tsrt = tensor(ss, 1, ACL_INT32, sorted);
    double batch_ns[BATCHES], batch_cpu[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < iterations; i++) {
            aclError ret = aclrtMemcpy(buf, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE);
            if (ret) FAIL("aclrtMemcpy", ret);
            ret = aclrtMemcpy(x, 24, host, 24, ACL_MEMCPY_HOST_TO_DEVICE);
            if (ret) FAIL("aclrtMemcpy", ret);
            uint64_t ws = 0;
            aclOpExecutor *ex = NULL;
            ret = aclnnMoeTokenPermuteGetWorkspaceSize(tx, ti, 0, false, to, tsrt, &ws, &ex);
            if (ret) FAIL("aclnnMoeTokenPermuteGetWorkspaceSize", ret);
            ret = aclnnMoeTokenPermute(NULL, 0, ex, stream);
            if (ret) FAIL("aclnnMoeTokenPermute", ret);
            if ((ret = aclrtSynchronizeStream(stream))) FAIL("aclrtSynchronizeStream", ret);
            ret = aclrtMemcpy(host, 48, out, 48, ACL_MEMCPY_DEVICE_TO_HOST);
            if (ret) FAIL("aclrtMemcpy", ret);
        }
        batch_ns[b] = (now_ns(CLOCK_MONOTONIC) - t0) / (double)iterations;
        batch_cpu[b] = (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)iterations;
    }
    qsort(batch_ns, BATCHES, sizeof batch_ns[0], cmp);
    qsort(batch_cpu, BATCHES, sizeof batch_cpu[0], cmp);
    printf("ns_per_iteration %.1f %.1f\n", batch_ns[BATCHES / 2], batch_cpu[BATCHES / 2]);
    aclDestroyTensor(tx);
    aclDestroyTensor(ti);
    aclDestroyTensor(to);
    aclDestroyTensor(tsrt);
    aclrtFree(x);
    aclrtFree(idx);
    aclrtFree(out);
    aclrtFree(sorted);
    aclrtFree(buf);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
