/*
 * The runtime's documented semantics, checked from C: never-reused handles, span checks of every copy
 * kind, reference-counted devices, per-thread current device and context, several devices, asynchronous
 * streams (order, concurrency, events, callbacks, timeouts, failures in queued work) and fork safety.
 *
 * Usage: runtime_semantics <group>. Every check prints "<name> <0|1>"; the test runner requires each
 * expected name once, with 1. Nothing here measures time: timeouts only guard against hangs.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclstub/aclstub.h"

/* Not part of the ABI: the stub's way to queue work, declared here to test the scheduler directly. */
typedef aclError (*aclStubWorkFn)(void *arg);
extern aclError aclStubStreamLaunch(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg));
extern void aclStubSetErrMsg(const char *fmt, ...);

static int failures;

static void check(const char *name, int ok) {
    printf("%s %d\n", name, ok ? 1 : 0);
    if (!ok) {
        failures++;
        const char *msg = aclGetRecentErrMsg();
        fprintf(stderr, "FAILED %s (last error: %s)\n", name, msg ? msg : "none");
    }
}

#define MUST(call)                                                                                   \
    do {                                                                                             \
        aclError must_ret_ = (call);                                                                 \
        if (must_ret_ != ACL_SUCCESS) {                                                              \
            fprintf(stderr, "%s:%d: %s -> %d: %s\n", __FILE__, __LINE__, #call, must_ret_,          \
                    aclGetRecentErrMsg());                                                           \
            exit(3);                                                                                 \
        }                                                                                            \
    } while (0)

static void *dmalloc(size_t n) {
    void *p = NULL;
    MUST(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static unsigned char read_byte(const void *dev, size_t offset) {
    unsigned char b = 0;
    MUST(aclrtMemcpy(&b, 1, (const char *)dev + offset, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    return b;
}

/* ---- handles ------------------------------------------------------------------------------------- */

static void group_handles(void) {
    aclrtStream s1, s2;
    MUST(aclrtCreateStream(&s1));
    MUST(aclrtDestroyStream(s1));
    MUST(aclrtCreateStream(&s2));
    check("handle_stream_not_reused", s1 != s2);
    check("handle_stale_stream_sync", aclrtSynchronizeStream(s1) == ACL_ERROR_RT_PARAM_INVALID);
    check("handle_stale_stream_destroy", aclrtDestroyStream(s1) == ACL_ERROR_RT_PARAM_INVALID);
    check("handle_live_stream_ok", aclrtSynchronizeStream(s2) == ACL_SUCCESS);
    MUST(aclrtDestroyStream(s2));

    aclrtEvent e1, e2;
    MUST(aclrtCreateEvent(&e1));
    MUST(aclrtDestroyEvent(e1));
    MUST(aclrtCreateEvent(&e2));
    check("handle_event_not_reused", e1 != e2);
    check("handle_stale_event_record", aclrtRecordEvent(e1, NULL) == ACL_ERROR_RT_PARAM_INVALID);
    check("handle_stale_event_destroy", aclrtDestroyEvent(e1) == ACL_ERROR_RT_PARAM_INVALID);
    MUST(aclrtDestroyEvent(e2));

    aclrtContext c1, c2;
    MUST(aclrtCreateContext(&c1, 0));
    MUST(aclrtDestroyContext(c1));
    MUST(aclrtCreateContext(&c2, 0));
    check("handle_context_not_reused", c1 != c2);
    check("handle_stale_context_set", aclrtSetCurrentContext(c1) == ACL_ERROR_RT_PARAM_INVALID);
    MUST(aclrtDestroyContext(c2));
    /* The thread's current context was c2, now destroyed: it has none until it sets one again. */
    int32_t dev;
    check("handle_destroyed_current_context", aclrtGetDevice(&dev) == ACL_ERROR_RT_CONTEXT_NULL);
    MUST(aclrtSetDevice(0));
    MUST(aclrtResetDevice(0));

    /* Arbitrary addresses are never dereferenced. */
    char junk[64];
    check("handle_foreign_pointer_stream", aclrtSynchronizeStream(junk) == ACL_ERROR_RT_PARAM_INVALID);
    check("handle_foreign_pointer_event", aclrtSynchronizeEvent(junk) == ACL_ERROR_RT_PARAM_INVALID);
    check("handle_foreign_pointer_context", aclrtSetCurrentContext(junk) == ACL_ERROR_RT_PARAM_INVALID);
}

/* ---- spans --------------------------------------------------------------------------------------- */

static void group_spans(void) {
    const size_t big = 64 << 10;
    unsigned char *host = calloc(1, big);
    void *small = dmalloc(64), *a = dmalloc(256), *b = dmalloc(256);
    const int kinds[] = {ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE};
    int all = 1;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        all &= aclrtMemcpy(small, big, host, big, (aclrtMemcpyKind)kinds[k]) == ACL_ERROR_RT_PARAM_INVALID;
    check("span_64k_into_64_bytes_every_kind", all);
    check("span_default_d2h_overrun", aclrtMemcpy(host, big, small, 97, ACL_MEMCPY_DEFAULT) == ACL_ERROR_RT_PARAM_INVALID);
    check("span_default_d2d_overrun", aclrtMemcpy(a, 256, small, 128, ACL_MEMCPY_DEFAULT) == ACL_ERROR_RT_PARAM_INVALID);
    check("span_d2d_overrun", aclrtMemcpy(a, 256, small, 128, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_ERROR_RT_PARAM_INVALID);

    /* A span from one block into the next is rejected whichever two blocks are adjacent in memory. */
    char *lo = (char *)(a < b ? a : b), *hi = (char *)(a < b ? b : a);
    size_t straddle = (size_t)(hi - lo) + 8;
    unsigned char *wide = calloc(1, straddle);
    check("span_straddle_h2d", aclrtMemcpy(lo, straddle, wide, straddle, ACL_MEMCPY_HOST_TO_DEVICE) ==
                                   ACL_ERROR_RT_PARAM_INVALID);
    check("span_straddle_default", aclrtMemcpy(lo, straddle, wide, straddle, ACL_MEMCPY_DEFAULT) ==
                                       ACL_ERROR_RT_PARAM_INVALID);
    check("span_straddle_memset", aclrtMemset(lo, straddle, 1, straddle) == ACL_ERROR_RT_PARAM_INVALID);
    /* A host span that runs into a block is not host memory. */
    check("span_h2h_touching_block", aclrtMemcpy(host, 16, lo + 8, 16, ACL_MEMCPY_HOST_TO_HOST) ==
                                         ACL_ERROR_RT_PARAM_INVALID);
    /* Sizes and addresses at the ends of the address space: no overflow, just a refusal. */
    check("span_size_max", aclrtMemcpy(small, SIZE_MAX, host, SIZE_MAX, ACL_MEMCPY_DEFAULT) ==
                               ACL_ERROR_RT_PARAM_INVALID);
    check("span_top_of_address_space",
          aclrtMemcpy((void *)(UINTPTR_MAX - 15), 64, host, 64, ACL_MEMCPY_DEFAULT) == ACL_ERROR_RT_PARAM_INVALID);
    check("span_memset_size_max", aclrtMemset(small, SIZE_MAX, 0, SIZE_MAX) == ACL_ERROR_RT_PARAM_INVALID);
    check("span_async_checked_when_queued",
          aclrtMemcpyAsync(small, big, host, big, ACL_MEMCPY_DEFAULT, NULL) == ACL_ERROR_RT_PARAM_INVALID);
    check("span_memset_async_checked_when_queued",
          aclrtMemsetAsync(small, 128, 0, 128, NULL) == ACL_ERROR_RT_PARAM_INVALID);
    /* Exactly to the end is fine, in every direction DEFAULT infers. */
    memset(host, 0x5a, 64);
    check("span_default_h2d_exact", aclrtMemcpy(small, 64, host, 64, ACL_MEMCPY_DEFAULT) == ACL_SUCCESS);
    check("span_default_d2d_exact", aclrtMemcpy(a, 64, small, 64, ACL_MEMCPY_DEFAULT) == ACL_SUCCESS);
    check("span_default_d2d_data", read_byte(a, 63) == 0x5a && read_byte(a, 64) == 0);
    MUST(aclrtFree(small));
    MUST(aclrtFree(a));
    MUST(aclrtFree(b));
    free(host);
    free(wide);
}

/* ---- padding ------------------------------------------------------------------------------------- */

/* aclrtMalloc rounds the size up to 32 bytes and adds 32 more; aclrtMallocAlign32 only rounds up. A copy or
 * memset may use the whole padded block (the official aclnnMoeTokenPermuteWithEp sample copies 64 bytes out
 * of a 32-byte output), never a byte past it. */
static int usable_is(void *dev, size_t usable) {
    unsigned char *host = calloc(1, usable + 1);
    int ok = aclrtMemcpy(host, usable + 1, dev, usable, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS &&
             aclrtMemcpy(dev, usable, host, usable, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS &&
             aclrtMemcpy(host, usable + 1, dev, usable + 1, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_RT_PARAM_INVALID &&
             aclrtMemset(dev, usable + 1, 0, usable + 1) == ACL_ERROR_RT_PARAM_INVALID;
    free(host);
    return ok;
}

static void *dmalloc32(size_t n) {
    void *p = NULL;
    MUST(aclrtMallocAlign32(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static void group_padding(void) {
    MUST(aclrtSetDevice(0));
    void *p32 = dmalloc(32), *p1 = dmalloc(1), *p33 = dmalloc(33), *p64 = dmalloc(64);
    void *a32 = dmalloc32(32), *a33 = dmalloc32(33), *a1 = dmalloc32(1), *big = dmalloc(4096);
    unsigned char back[128];
    memset(back, 0x77, sizeof back);
    check("padding_64_from_32_byte_output", aclrtMemcpy(back, sizeof back, p32, 64, ACL_MEMCPY_DEVICE_TO_HOST) ==
                                                ACL_SUCCESS && back[63] == 0 && back[64] == 0x77);
    check("padding_malloc_1_usable_64", usable_is(p1, 64));
    check("padding_malloc_32_usable_64", usable_is(p32, 64));
    check("padding_malloc_33_usable_96", usable_is(p33, 96));
    check("padding_malloc_64_usable_96", usable_is(p64, 96));
    check("padding_align32_1_usable_32", usable_is(a1, 32));
    check("padding_align32_32_usable_32", usable_is(a32, 32));
    check("padding_align32_33_usable_64", usable_is(a33, 64));
    check("padding_start_64_byte_aligned", ((uintptr_t)p1 | (uintptr_t)p32 | (uintptr_t)p33 | (uintptr_t)a1 |
                                            (uintptr_t)a32 | (uintptr_t)a33) % 64 == 0);
    check("padding_memset", aclrtMemset(p32, 64, 9, 64) == ACL_SUCCESS && read_byte(p32, 63) == 9);
    check("padding_d2d", aclrtMemcpy(big, 4096, p32, 64, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS &&
                             read_byte(big, 63) == 9);
    check("padding_async", aclrtMemsetAsync(p33, 96, 4, 96, NULL) == ACL_SUCCESS &&
                               aclrtSynchronizeStream(NULL) == ACL_SUCCESS && read_byte(p33, 95) == 4);
    check("padding_async_past_it", aclrtMemsetAsync(p33, 97, 4, 97, NULL) == ACL_ERROR_RT_PARAM_INVALID);
    check("padding_align32_free", aclrtFree(a32) == ACL_SUCCESS && aclrtFree(a32) == ACL_ERROR_RT_PARAM_INVALID);
    check("padding_align32_null", aclrtMallocAlign32(NULL, 8, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);
    void *none = NULL;
    check("padding_align32_size_0", aclrtMallocAlign32(&none, 0, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);
    check("padding_counts_requested_bytes", aclStubLiveAllocationBytes() == 1 + 32 + 33 + 64 + 33 + 1 + 4096);

    /* Where a host span ends is the caller's word (a host buffer overrun may run into device memory here, one
     * address space, never on a device); only its start must not be in an aclrtMalloc block. A host span
     * running into lent host memory reads the test's own bytes. */
    unsigned char *buf = calloc(1, 128);
    void *lent = NULL;
    MUST(aclStubLendHostMemory(buf + 64, 64, &lent));
    memset(buf, 0x31, 64);
    check("padding_host_span_runs_into_lent_memory",
          aclrtMemcpy(big, 4096, buf + 32, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS && read_byte(big, 31) == 0x31);
    check("padding_host_span_starting_in_device", aclrtMemcpy(big, 4096, p1, 16, ACL_MEMCPY_HOST_TO_DEVICE) ==
                                                     ACL_ERROR_RT_PARAM_INVALID);
    check("padding_lent_not_padded", aclrtMemset(lent, 65, 0, 65) == ACL_ERROR_RT_PARAM_INVALID);
    MUST(aclStubReclaimHostMemory(lent));
    free(buf);
    void *blocks[] = {p32, p1, p33, p64, a33, a1, big};
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) MUST(aclrtFree(blocks[i]));
    MUST(aclrtResetDevice(0));
}

/* ---- devices ------------------------------------------------------------------------------------- */

static void *thread_without_device(void *out) {
    void *p = NULL;
    int32_t dev;
    int *r = out;
    r[0] = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    r[1] = aclrtGetDevice(&dev);
    r[2] = aclrtMemcpyAsync(&dev, 4, &dev, 4, ACL_MEMCPY_HOST_TO_HOST, NULL);
    r[3] = aclrtSetDevice(3);
    r[4] = aclrtGetDevice(&dev) == ACL_SUCCESS && dev == 3;
    r[5] = aclrtResetDevice(3);
    return NULL;
}

typedef struct {
    aclrtContext context;
    int status, device;
    void *block;
} ContextThread;

static void *thread_with_context(void *arg) {
    ContextThread *t = arg;
    t->status = aclrtSetCurrentContext(t->context);
    if (t->status == ACL_SUCCESS) t->status = aclrtGetDevice(&t->device);
    if (t->status == ACL_SUCCESS) t->status = aclrtMalloc(&t->block, 128, ACL_MEM_MALLOC_HUGE_FIRST);
    return NULL;
}

static void group_devices(void) {
    uint32_t count = 0;
    MUST(aclrtGetDeviceCount(&count));
    check("device_count_default_8", count == 8);
    check("device_soc_name", strcmp(aclrtGetSocName(), "Ascend910B1") == 0);
    aclrtRunMode mode;
    check("device_run_mode", aclrtGetRunMode(&mode) == ACL_SUCCESS && mode == ACL_HOST);

    /* Reference counts: set twice, reset once, still set. */
    MUST(aclrtSetDevice(1));
    MUST(aclrtSetDevice(1));
    MUST(aclrtResetDevice(1));
    void *p = NULL;
    int32_t dev = -1;
    check("device_refcount_still_set", aclrtGetDevice(&dev) == ACL_SUCCESS && dev == 1 &&
                                           aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    if (p) MUST(aclrtFree(p));
    MUST(aclrtResetDevice(1));
    check("device_refcount_released", aclrtGetDevice(&dev) == ACL_ERROR_RT_CONTEXT_NULL &&
                                          aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_RT_CONTEXT_NULL);
    check("device_reset_unset_is_noop", aclrtResetDevice(5) == ACL_SUCCESS);
    check("device_id_out_of_range", aclrtSetDevice(8) == ACL_ERROR_RT_INVALID_DEVICEID &&
                                        aclrtSetDevice(-1) == ACL_ERROR_RT_INVALID_DEVICEID);

    /* Per-thread current device. */
    MUST(aclrtSetDevice(0));
    int r[6];
    pthread_t th;
    pthread_create(&th, NULL, thread_without_device, r);
    pthread_join(th, NULL);
    check("device_thread_without_device_cannot_allocate", r[0] == ACL_ERROR_RT_CONTEXT_NULL);
    check("device_thread_without_device_get_device", r[1] == ACL_ERROR_RT_CONTEXT_NULL);
    check("device_thread_without_device_default_stream", r[2] == ACL_ERROR_RT_CONTEXT_NULL);
    check("device_thread_sets_own_device", r[3] == ACL_SUCCESS && r[4] == 1 && r[5] == ACL_SUCCESS);
    check("device_main_thread_unchanged", aclrtGetDevice(&dev) == ACL_SUCCESS && dev == 0);

    /* Per-device memory: an allocation on device 2 changes device 2's free memory only. */
    size_t free0, total0, free2, total2, free2b, total2b, free0b, total0b;
    MUST(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total0));
    MUST(aclrtSetDevice(2));
    MUST(aclrtGetMemInfo(ACL_HBM_MEM, &free2, &total2));
    void *on2 = dmalloc(1 << 20);
    MUST(aclrtGetMemInfo(ACL_HBM_MEM, &free2b, &total2b));
    MUST(aclrtSetDevice(0));
    MUST(aclrtGetMemInfo(ACL_HBM_MEM, &free0b, &total0b));
    check("device_meminfo_per_device", free2 - free2b == (1 << 20) && free0b == free0 && total2 == total2b);
    check("device_meminfo_bad_attr", aclrtGetMemInfo((aclrtMemAttr)99, &free0, &total0) == ACL_ERROR_INVALID_PARAM);

    /* Cross-device copies: a device-to-device copy between blocks of devices 2 and 0. */
    void *on0 = dmalloc(1 << 20);
    MUST(aclrtMemset(on2, 1 << 20, 0x33, 1 << 20));
    check("device_cross_device_copy", aclrtMemcpy(on0, 1 << 20, on2, 1 << 20, ACL_MEMCPY_DEVICE_TO_DEVICE) ==
                                              ACL_SUCCESS && read_byte(on0, (1 << 20) - 1) == 0x33);
    int32_t can = 0;
    check("device_can_access_peer", aclrtDeviceCanAccessPeer(&can, 0, 2) == ACL_SUCCESS && can == 1);
    MUST(aclrtFree(on0));
    MUST(aclrtFree(on2));
    MUST(aclrtResetDevice(2));

    /* Contexts: creating one makes it current (and its device); a thread can adopt it without
     * aclrtSetDevice; the default context cannot be destroyed. */
    aclrtContext main_ctx, ctx, got;
    MUST(aclrtGetCurrentContext(&main_ctx));
    MUST(aclrtCreateContext(&ctx, 4));
    check("context_create_makes_current", aclrtGetCurrentContext(&got) == ACL_SUCCESS && got == ctx &&
                                              aclrtGetDevice(&dev) == ACL_SUCCESS && dev == 4);
    ContextThread t = {ctx, -1, -1, NULL};
    pthread_create(&th, NULL, thread_with_context, &t);
    pthread_join(th, NULL);
    check("context_adopted_by_other_thread", t.status == ACL_SUCCESS && t.device == 4);
    if (t.block) MUST(aclrtFree(t.block));
    aclrtStream s;
    MUST(aclrtCreateStream(&s));
    MUST(aclrtSetCurrentContext(main_ctx));
    check("context_switch_back", aclrtGetDevice(&dev) == ACL_SUCCESS && dev == 0);
    check("context_default_not_destroyable", aclrtDestroyContext(main_ctx) == ACL_ERROR_RT_PARAM_INVALID);
    check("context_live_counter", aclStubLiveContexts() == 1);
    MUST(aclrtDestroyContext(ctx));
    check("context_streams_released_with_it", aclrtSynchronizeStream(s) == ACL_ERROR_RT_PARAM_INVALID);
    check("context_destroyed_counter", aclStubLiveContexts() == 0 && aclStubLiveStreams() == 0);
    MUST(aclrtResetDevice(0));
}

static void group_environment(void) {
    /* Run with ACLNN_STUB_DEVICE_COUNT=3 and ACLNN_STUB_SOC_NAME=Ascend910B3. */
    uint32_t count = 0;
    MUST(aclrtGetDeviceCount(&count));
    check("environment_device_count", count == 3);
    check("environment_device_ids", aclrtSetDevice(3) == ACL_ERROR_RT_INVALID_DEVICEID);
    check("environment_soc_name", strcmp(aclrtGetSocName(), "Ascend910B3") == 0);
}

static void group_capacity(void) {
    /* Run with ACLNN_STUB_DEVICE_MEMORY=1048576. */
    size_t free_b, total;
    MUST(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
    check("capacity_total_from_env", total == 1048576 && free_b == total);
    void *p = dmalloc(700000), *q = NULL;
    check("capacity_exhausted", aclrtMalloc(&q, 700000, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_RT_MEMORY_ALLOCATION);
    MUST(aclrtSetDevice(1));
    check("capacity_per_device", aclrtMalloc(&q, 700000, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    MUST(aclrtFree(q));
    MUST(aclrtFree(p));
    MUST(aclrtResetDevice(1));
}

/* ---- streams ------------------------------------------------------------------------------------- */

typedef struct {
    int *log, *n;
    int value;
} LogArg;

static aclError log_work(void *arg) {
    LogArg *a = arg;
    a->log[(*a->n)++] = a->value;
    return ACL_SUCCESS;
}

static int released;
static void count_release(void *arg) {
    free(arg);
    __atomic_fetch_add(&released, 1, __ATOMIC_SEQ_CST);
}

static void callback_noop(void *user) { (void)user; }

static int callback_value;
static pthread_t callback_thread;
static void callback_set(void *user) {
    callback_value = *(int *)user;
    callback_thread = pthread_self();
}

/* Two items on two streams that each wait for the other to have started: they can only both finish if
 * the streams run at the same time. The wait is bounded so a failure cannot hang the test. */
static int rendezvous;
static aclError meet(void *arg) {
    (void)arg;
    __atomic_fetch_add(&rendezvous, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 20000 && __atomic_load_n(&rendezvous, __ATOMIC_SEQ_CST) < 2; i++) usleep(500);
    return __atomic_load_n(&rendezvous, __ATOMIC_SEQ_CST) >= 2 ? ACL_SUCCESS : ACL_ERROR_RT_TASK_TIMEOUT;
}

/* What a kernel does: write through an address validated when it was queued. */
static aclError write_block(void *arg) {
    memset(arg, 0x3c, 8 << 20);
    return ACL_SUCCESS;
}

static aclError failing_work(void *arg) {
    (void)arg;
    aclStubSetErrMsg("deliberate failure of queued work");
    return 561103;
}

typedef struct {
    aclrtStream stream;
    int done;
    int status;
} DestroyArg;

static void *destroy_in_thread(void *arg) {
    DestroyArg *d = arg;
    d->status = aclrtDestroyStream(d->stream);
    __atomic_store_n(&d->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* A stream held by a blocking callback that only this thread's aclrtProcessReport releases. */
static aclrtStream held_stream(void) {
    aclrtStream s;
    MUST(aclrtCreateStream(&s));
    MUST(aclrtSubscribeReport((uint64_t)pthread_self(), s));
    MUST(aclrtLaunchCallback(callback_noop, NULL, ACL_CALLBACK_BLOCK, s));
    return s;
}

/* Destroy a held stream whose callback already ran. */
static void drop_held(aclrtStream s) {
    MUST(aclrtSynchronizeStream(s));
    MUST(aclrtUnSubscribeReport((uint64_t)pthread_self(), s));
    MUST(aclrtDestroyStream(s));
}

static void release_held(aclrtStream s) {
    MUST(aclrtProcessReport(-1));
    drop_held(s);
}

static void group_streams(void) {
    MUST(aclrtSetDevice(0));
    /* Order: 200 items on one stream run in the order queued. */
    aclrtStream s;
    MUST(aclrtCreateStream(&s));
    int log[200], n = 0, in_order = 1;
    for (int i = 0; i < 200; i++) {
        LogArg *a = malloc(sizeof *a);
        *a = (LogArg){log, &n, i};
        MUST(aclStubStreamLaunch(s, log_work, a, count_release));
    }
    MUST(aclrtSynchronizeStream(s));
    for (int i = 0; i < 200; i++) in_order &= log[i] == i;
    check("stream_order", n == 200 && in_order && released == 200);

    /* Asynchrony, deterministically: behind a blocking callback nothing on the stream runs. */
    aclrtStream h = held_stream();
    void *blk = dmalloc(64);
    MUST(aclrtMemsetAsync(blk, 64, 0x7e, 64, h));
    aclrtStreamStatus st;
    check("stream_work_runs_after_launch_returns", read_byte(blk, 0) == 0 &&
                                                       aclrtStreamQuery(h, &st) == ACL_SUCCESS &&
                                                       st == ACL_STREAM_STATUS_NOT_READY);
    check("stream_sync_timeout", aclrtSynchronizeStreamWithTimeout(h, 20) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    check("stream_sync_bad_timeout", aclrtSynchronizeStreamWithTimeout(h, 0) == ACL_ERROR_INVALID_PARAM &&
                                         aclrtSynchronizeStreamWithTimeout(h, -2) == ACL_ERROR_INVALID_PARAM);
    check("device_sync_timeout", aclrtSynchronizeDeviceWithTimeout(20) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    /* Other streams are not held up, even with a single worker (the held stream occupies none). */
    n = 0;
    LogArg *a = malloc(sizeof *a);
    *a = (LogArg){log, &n, 42};
    MUST(aclStubStreamLaunch(s, log_work, a, count_release));
    check("stream_independent_of_held_stream", aclrtSynchronizeStream(s) == ACL_SUCCESS && n == 1);
    release_held(h);
    check("stream_work_done_after_release", read_byte(blk, 63) == 0x7e);

    /* Destroying a stream waits for its queued work. */
    h = held_stream();
    MUST(aclrtMemsetAsync(blk, 64, 0x11, 64, h));
    DestroyArg d = {h, 0, -1};
    pthread_t th;
    pthread_create(&th, NULL, destroy_in_thread, &d);
    usleep(20000);
    int early = __atomic_load_n(&d.done, __ATOMIC_SEQ_CST);
    MUST(aclrtProcessReport(-1));
    pthread_join(th, NULL);
    check("stream_destroy_waits_for_work", !early && d.status == ACL_SUCCESS && read_byte(blk, 0) == 0x11);

    /* Concurrency across streams. */
    aclrtStream s2;
    MUST(aclrtCreateStream(&s2));
    rendezvous = 0;
    MUST(aclStubStreamLaunch(s, meet, NULL, NULL));
    MUST(aclStubStreamLaunch(s2, meet, NULL, NULL));
    check("stream_concurrent_across_streams", aclrtSynchronizeStream(s) == ACL_SUCCESS &&
                                                  aclrtSynchronizeStream(s2) == ACL_SUCCESS);

    /* A failure inside queued work is reported at synchronisation, once. */
    MUST(aclStubStreamLaunch(s, failing_work, NULL, NULL));
    aclError first = aclrtSynchronizeStream(s);
    const char *msg = aclGetRecentErrMsg();
    check("stream_failure_reported_at_sync", first == ACL_ERROR_RT_AICORE_EXCEPTION && msg &&
                                                 strstr(msg, "deliberate failure") != NULL);
    check("stream_failure_reported_once", aclrtSynchronizeStream(s) == ACL_SUCCESS);
    /* Memory freed before queued work runs: the copy fails at synchronisation instead of touching it. */
    h = held_stream();
    void *tmp = dmalloc(64);
    MUST(aclrtMemsetAsync(tmp, 64, 1, 64, h));
    MUST(aclrtFree(tmp));
    MUST(aclrtProcessReport(-1));
    check("stream_freed_memory_fails_at_sync", aclrtSynchronizeStream(h) == ACL_ERROR_RT_AICORE_EXCEPTION);
    MUST(aclrtUnSubscribeReport((uint64_t)pthread_self(), h));
    MUST(aclrtDestroyStream(h));
    /* A block freed while queued work still holds its address stays mapped until that work has run: the
     * free succeeds, the block is gone for later calls, and the work touches no memory the stub gave back
     * (8 MiB: a mapping of its own, which would fault once unmapped). */
    h = held_stream();
    void *big = dmalloc(8 << 20);
    MUST(aclStubStreamLaunch(h, write_block, big, NULL));
    check("stream_free_under_queued_work", aclrtFree(big) == ACL_SUCCESS &&
                                               aclrtMemset(big, 8, 0, 8) == ACL_ERROR_RT_PARAM_INVALID);
    release_held(h);
    check("stream_freed_block_outlives_its_work", aclStubLiveAllocations() == 1); /* blk only */
    /* Host buffers are pageable: an asynchronous copy reads its host source when queued, and writes a host
     * destination (after the stream's earlier work) before returning. */
    h = held_stream();
    unsigned char src[64], dst[64];
    memset(src, 0x11, sizeof src);
    MUST(aclrtMemcpyAsync(blk, 64, src, 64, ACL_MEMCPY_HOST_TO_DEVICE, h));
    memset(src, 0x99, sizeof src); /* reused at once, as a caller may */
    release_held(h);
    check("stream_async_h2d_reads_host_when_queued", read_byte(blk, 0) == 0x11 && read_byte(blk, 63) == 0x11);
    MUST(aclrtMemsetAsync(blk, 64, 0x42, 64, s));
    memset(dst, 0, sizeof dst);
    MUST(aclrtMemcpyAsync(dst, 64, blk, 64, ACL_MEMCPY_DEFAULT, s));
    check("stream_async_d2h_writes_host_before_returning", dst[0] == 0x42 && dst[63] == 0x42);
    /* The default stream of the current context is a stream like any other. */
    MUST(aclrtMemsetAsync(blk, 64, 0x22, 64, NULL));
    check("stream_default_stream", aclrtSynchronizeStream(NULL) == ACL_SUCCESS && read_byte(blk, 5) == 0x22);
    check("stream_device_sync", aclrtSynchronizeDevice() == ACL_SUCCESS);
    MUST(aclrtDestroyStream(s));
    MUST(aclrtDestroyStream(s2));
    MUST(aclrtFree(blk));
    check("stream_no_pending_work", aclStubPendingWork() == 0);
    MUST(aclrtResetDevice(0));
}

/* ---- events -------------------------------------------------------------------------------------- */

static void group_events(void) {
    MUST(aclrtSetDevice(0));
    aclrtEvent e, e2, no_sync;
    aclrtEventRecordedStatus rs;
    MUST(aclrtCreateEvent(&e));
    MUST(aclrtCreateEvent(&e2));
    check("event_unrecorded_is_complete", aclrtQueryEventStatus(e, &rs) == ACL_SUCCESS &&
                                              rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    float ms = -1;
    check("event_elapsed_needs_records", aclrtEventElapsedTime(&ms, e, e2) == ACL_ERROR_RT_EVENT_NOT_COMPLETE);

    /* Stream b waits for an event recorded on a held stream a. */
    aclrtStream a = held_stream(), b;
    MUST(aclrtCreateStream(&b));
    void *blk = dmalloc(64);
    MUST(aclrtRecordEvent(e, a));
    MUST(aclrtStreamWaitEvent(b, e));
    MUST(aclrtMemsetAsync(blk, 64, 0x44, 64, b));
    aclrtEventStatus es;
    check("event_pending_record", aclrtQueryEventStatus(e, &rs) == ACL_SUCCESS &&
                                      rs == ACL_EVENT_RECORDED_STATUS_NOT_READY &&
                                      aclrtQueryEvent(e, &es) == ACL_SUCCESS && es == ACL_EVENT_STATUS_NOT_READY);
    check("event_sync_timeout", aclrtSynchronizeEventWithTimeout(e, 20) == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    check("event_wait_orders_streams", aclrtSynchronizeStreamWithTimeout(b, 20) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT &&
                                           read_byte(blk, 0) == 0);
    MUST(aclrtProcessReport(-1));
    check("event_sync", aclrtSynchronizeEvent(e) == ACL_SUCCESS && aclrtQueryEventStatus(e, &rs) == ACL_SUCCESS &&
                            rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    check("event_waiting_stream_released", aclrtSynchronizeStream(b) == ACL_SUCCESS && read_byte(blk, 63) == 0x44);

    MUST(aclrtRecordEvent(e2, b));
    MUST(aclrtSynchronizeEvent(e2));
    check("event_elapsed_time", aclrtEventElapsedTime(&ms, e, e2) == ACL_SUCCESS && ms >= 0.0f);

    MUST(aclrtCreateEventWithFlag(&no_sync, ACL_EVENT_TIME_LINE));
    check("event_wait_needs_sync_flag", aclrtStreamWaitEvent(b, no_sync) == ACL_ERROR_RT_PARAM_INVALID);
    check("event_bad_flag", aclrtCreateEventWithFlag(&e2, 0x80000000u) == ACL_ERROR_INVALID_PARAM);
    MUST(aclrtDestroyEvent(no_sync));

    /* Destroying an event with a record still queued does not wait; the object lives until it ran. */
    aclrtStream h = held_stream();
    aclrtEvent pending;
    MUST(aclrtCreateEvent(&pending));
    MUST(aclrtRecordEvent(pending, h));
    MUST(aclrtDestroyEvent(pending));
    check("event_destroy_with_pending_record", aclStubLiveEvents() == 3);
    release_held(h);
    check("event_freed_after_record", aclStubLiveEvents() == 2);

    drop_held(a);
    MUST(aclrtDestroyStream(b));
    MUST(aclrtDestroyEvent(e));
    MUST(aclrtDestroyEvent(e2));
    MUST(aclrtFree(blk));
    check("event_counter_zero", aclStubLiveEvents() == 0);
    MUST(aclrtResetDevice(0));
}

/* ---- callbacks ----------------------------------------------------------------------------------- */

static void *process_reports_unsubscribed(void *out) {
    *(int *)out = aclrtProcessReport(10);
    return NULL;
}

static void group_callbacks(void) {
    MUST(aclrtSetDevice(0));
    aclrtStream s;
    MUST(aclrtCreateStream(&s));
    static int value = 7;
    check("callback_needs_subscription", aclrtLaunchCallback(callback_set, &value, ACL_CALLBACK_NO_BLOCK, s) ==
                                             ACL_ERROR_RT_STREAM_NO_CB_REG);
    MUST(aclrtSubscribeReport((uint64_t)pthread_self(), s));
    check("callback_repeat_subscribe", aclrtSubscribeReport((uint64_t)pthread_self(), s) == ACL_ERROR_REPEAT_SUBSCRIBE);
    check("callback_process_timeout", aclrtProcessReport(10) == ACL_ERROR_WAIT_CALLBACK_TIMEOUT);
    int other = 0;
    pthread_t th;
    pthread_create(&th, NULL, process_reports_unsubscribed, &other);
    pthread_join(th, NULL);
    check("callback_thread_not_subscribed", other == ACL_ERROR_THREAD_NOT_SUBSCRIBE);
    check("callback_bad_block_type", aclrtLaunchCallback(callback_set, &value, (aclrtCallbackBlockType)5, s) ==
                                         ACL_ERROR_INVALID_PARAM);
    MUST(aclrtLaunchCallback(callback_set, &value, ACL_CALLBACK_NO_BLOCK, s));
    MUST(aclrtSynchronizeStream(s)); /* a non-blocking callback does not hold the stream */
    check("callback_not_run_before_process", callback_value == 0);
    MUST(aclrtProcessReport(-1));
    check("callback_runs_in_subscribed_thread", callback_value == 7 && pthread_equal(callback_thread, pthread_self()));
    MUST(aclrtUnSubscribeReport((uint64_t)pthread_self(), s));
    check("callback_unsubscribe_twice", aclrtUnSubscribeReport((uint64_t)pthread_self(), s) ==
                                            ACL_ERROR_RT_STREAM_NO_CB_REG);
    MUST(aclrtDestroyStream(s));
    MUST(aclrtResetDevice(0));
}

/* ---- fork ---------------------------------------------------------------------------------------- */

static volatile int hammer_stop;

static void *hammer(void *unused) {
    (void)unused;
    MUST(aclrtSetDevice(0));
    aclrtStream s;
    MUST(aclrtCreateStream(&s));
    unsigned char host[256]; /* on this thread's stack: in a child it is a stale copy work must not read */
    memset(host, 3, sizeof host);
    while (!hammer_stop) {
        void *p = NULL;
        if (aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) continue;
        aclrtMemcpy(p, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpyAsync(p, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE, s);
        aclrtSynchronizeStream(s);
        aclrtFree(p);
    }
    MUST(aclrtDestroyStream(s));
    MUST(aclrtResetDevice(0));
    return NULL;
}

static aclrtStream parent_held; /* held by a blocking callback, with a memset of parent_block queued */
static void *parent_block;
static aclrtStream parent_failed; /* its work failed before the fork, not yet reported */
static aclrtEvent parent_event;   /* recorded on parent_held behind the callback */

static int child_work(void) {
    alarm(30); /* a deadlocked child dies instead of hanging the test */
    if (aclrtSetDevice(0) != ACL_SUCCESS) return 10;
    /* The fork rule: work the parent queued is not the child's, nor is its failure; discarded silently,
     * never run, whether or not it had run in the parent when fork() was called. */
    if (aclrtSynchronizeStream(parent_held) != ACL_SUCCESS) return 20;
    if (aclrtSynchronizeStream(parent_failed) != ACL_SUCCESS) return 21;
    if (read_byte(parent_block, 0) != 0) return 22;
    if (aclrtSynchronizeEvent(parent_event) != ACL_SUCCESS) return 23;
    if (aclrtSynchronizeDevice() != ACL_SUCCESS) return 24;
    void *p = NULL;
    unsigned char host[512], back[512];
    memset(host, 9, sizeof host);
    if (aclrtMalloc(&p, 512, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 11;
    if (aclrtMemcpy(p, 512, host, 512, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) return 12;
    aclrtStream s;
    if (aclrtCreateStream(&s) != ACL_SUCCESS) return 13;
    if (aclrtMemsetAsync(p, 512, 4, 256, s) != ACL_SUCCESS || aclrtSynchronizeStream(s) != ACL_SUCCESS) return 14;
    if (aclrtMemcpy(back, 512, p, 512, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) return 15;
    if (back[0] != 4 || back[511] != 9) return 16;
    if (aclrtDestroyStream(s) != ACL_SUCCESS || aclrtFree(p) != ACL_SUCCESS) return 17;
    return 0;
}

static void group_fork(void) {
    MUST(aclrtSetDevice(0));
    parent_held = held_stream();
    parent_block = dmalloc(64);
    MUST(aclrtMemsetAsync(parent_block, 64, 0x66, 64, parent_held));
    MUST(aclrtCreateEvent(&parent_event));
    MUST(aclrtRecordEvent(parent_event, parent_held));
    MUST(aclrtCreateStream(&parent_failed));
    MUST(aclStubStreamLaunch(parent_failed, failing_work, NULL, NULL));
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    for (int i = 0; i < 20000 && st != ACL_STREAM_STATUS_COMPLETE; i++) {
        MUST(aclrtStreamQuery(parent_failed, &st));
        if (st != ACL_STREAM_STATUS_COMPLETE) usleep(500);
    }
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, hammer, NULL);
    int ok = 0;
    for (int round = 0; round < 20; round++) {
        usleep(2000);
        pid_t pid = fork();
        if (pid == 0) _exit(child_work());
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            ok++;
        else
            fprintf(stderr, "fork round %d: child status 0x%x\n", round, status);
    }
    hammer_stop = 1;
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    check("fork_children_use_the_library", ok == 20);
    release_held(parent_held);
    check("fork_parent_keeps_its_work", read_byte(parent_block, 63) == 0x66);
    check("fork_parent_keeps_its_failure", aclrtSynchronizeStream(parent_failed) == ACL_ERROR_RT_AICORE_EXCEPTION);
    MUST(aclrtDestroyStream(parent_failed));
    MUST(aclrtDestroyEvent(parent_event));
    MUST(aclrtFree(parent_block));
    MUST(aclrtResetDevice(0));
}

/* ---- hangs: a subscribed thread waiting for its own blocking callback ------------------------------- */

static int own_callbacks_run;
static void count_own_callback(void *user) {
    (void)user;
    own_callbacks_run++;
}

enum { OWN_SYNC, OWN_DESTROY, OWN_RESET, OWN_FINALIZE, OWN_EVENT, OWN_DEVICE };

/* In a child with a watchdog: the thread subscribed to a stream queues a blocking callback and work behind
 * it, then makes a call that waits for that work. The call serves the callback (only this thread can). */
static int own_callback_child(int call) {
    alarm(30); /* device 0 is set once, by main: aclrtResetDevice releases it */
    aclrtStream s;
    void *p = NULL;
    aclrtEvent e;
    if (aclrtCreateStream(&s) != ACL_SUCCESS || aclrtCreateEvent(&e) != ACL_SUCCESS) return 11;
    if (aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 12;
    if (aclrtSubscribeReport((uint64_t)pthread_self(), s) != ACL_SUCCESS) return 13;
    if (aclrtLaunchCallback(count_own_callback, NULL, ACL_CALLBACK_BLOCK, s) != ACL_SUCCESS) return 14;
    if (aclrtMemsetAsync(p, 64, 5, 64, s) != ACL_SUCCESS || aclrtRecordEvent(e, s) != ACL_SUCCESS) return 15;
    aclError ret = ACL_ERROR_INVALID_PARAM;
    switch (call) {
    case OWN_SYNC: ret = aclrtSynchronizeStream(s); break;
    case OWN_DESTROY: ret = aclrtDestroyStream(s); break;
    case OWN_RESET: ret = aclrtResetDevice(0); break;
    case OWN_FINALIZE: ret = aclFinalize(); break;
    case OWN_EVENT: ret = aclrtSynchronizeEvent(e); break;
    case OWN_DEVICE: ret = aclrtSynchronizeDevice(); break;
    }
    if (ret != ACL_SUCCESS) return 20;
    if (own_callbacks_run != 1) return 21;
    /* a deadline is honoured instead: the callback is not served, the wait times out */
    if (call == OWN_SYNC) {
        if (aclrtLaunchCallback(count_own_callback, NULL, ACL_CALLBACK_BLOCK, s) != ACL_SUCCESS) return 22;
        if (aclrtSynchronizeStreamWithTimeout(s, 5) != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) return 23;
        if (own_callbacks_run != 1 || aclrtProcessReport(-1) != ACL_SUCCESS || own_callbacks_run != 2) return 24;
        if (aclrtSynchronizeStream(s) != ACL_SUCCESS) return 25;
    }
    return 0;
}

static int in_child(int (*fn)(int), int arg) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(fn(arg));
    int status = 0;
    waitpid(pid, &status, 0);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) fprintf(stderr, "child %d: status 0x%x\n", arg, status);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void group_hangs(void) {
    check("own_callback_synchronize_stream", in_child(own_callback_child, OWN_SYNC));
    check("own_callback_destroy_stream", in_child(own_callback_child, OWN_DESTROY));
    check("own_callback_reset_device", in_child(own_callback_child, OWN_RESET));
    check("own_callback_finalize", in_child(own_callback_child, OWN_FINALIZE));
    check("own_callback_synchronize_event", in_child(own_callback_child, OWN_EVENT));
    check("own_callback_synchronize_device", in_child(own_callback_child, OWN_DEVICE));
}

/* ---- deadlines: a waiting thread never runs queued work past its deadline -------------------------- */

static int gate_open, gate_started, gate_finished;

/* Work that holds its stream until the test opens the gate (bounded: a failing test does not hang). */
static aclError gated_work(void *arg) {
    (void)arg;
    __atomic_fetch_add(&gate_started, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 4000 && !__atomic_load_n(&gate_open, __ATOMIC_SEQ_CST); i++) usleep(500);
    __atomic_fetch_add(&gate_finished, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

static void group_deadlines(void) {
    /* Run with ACLNN_STUB_STREAM_WORKERS=1: the one worker is busy with a gated item, so the gated item on
     * the second stream can only run if a waiting thread runs it itself. */
    MUST(aclrtSetDevice(0));
    aclrtStream busy, s;
    aclrtEvent e;
    MUST(aclrtCreateStream(&busy));
    MUST(aclrtCreateStream(&s));
    MUST(aclrtCreateEvent(&e));
    MUST(aclStubStreamLaunch(busy, gated_work, NULL, NULL));
    for (int i = 0; i < 20000 && __atomic_load_n(&gate_started, __ATOMIC_SEQ_CST) == 0; i++) usleep(500);
    MUST(aclStubStreamLaunch(s, gated_work, NULL, NULL));
    MUST(aclrtRecordEvent(e, s));
    check("deadline_stream", aclrtSynchronizeStreamWithTimeout(s, 5) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT &&
                                 __atomic_load_n(&gate_finished, __ATOMIC_SEQ_CST) == 0);
    check("deadline_device", aclrtSynchronizeDeviceWithTimeout(5) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT &&
                                 __atomic_load_n(&gate_finished, __ATOMIC_SEQ_CST) == 0);
    check("deadline_event", aclrtSynchronizeEventWithTimeout(e, 5) == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT &&
                                __atomic_load_n(&gate_finished, __ATOMIC_SEQ_CST) == 0);
    check("deadline_only_one_started", __atomic_load_n(&gate_started, __ATOMIC_SEQ_CST) == 1);
    __atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
    check("deadline_then_without", aclrtSynchronizeDevice() == ACL_SUCCESS &&
                                       __atomic_load_n(&gate_finished, __ATOMIC_SEQ_CST) == 2);
    MUST(aclrtDestroyEvent(e));
    MUST(aclrtDestroyStream(s));
    MUST(aclrtDestroyStream(busy));
    MUST(aclrtResetDevice(0));
}

/* ---- lent host memory ---------------------------------------------------------------------------- */

typedef struct {
    void *ptr;
    int status;
    int done;
} ReclaimArg;

static void *reclaim_in_thread(void *arg) {
    ReclaimArg *r = arg;
    r->status = aclStubReclaimHostMemory(r->ptr);
    __atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Reclaim from another thread; true once it returned, waiting at most about 10 s (a guard against a hang). */
static bool reclaim_returns(pthread_t *tid, ReclaimArg *r) {
    pthread_create(tid, NULL, reclaim_in_thread, r);
    for (int i = 0; i < 20000 && !__atomic_load_n(&r->done, __ATOMIC_SEQ_CST); i++) usleep(500);
    return __atomic_load_n(&r->done, __ATOMIC_SEQ_CST);
}

static void group_lend(void) {
    const size_t n = 4096;
    unsigned char *host = calloc(1, n), *other = calloc(1, n), back[16];
    void *dev = NULL, *blk = dmalloc(256);
    check("lend_null_host", aclStubLendHostMemory(NULL, n, &dev) == ACL_ERROR_INVALID_PARAM);
    check("lend_null_dev", aclStubLendHostMemory(host, n, NULL) == ACL_ERROR_INVALID_PARAM);
    check("lend_size_zero", aclStubLendHostMemory(host, 0, &dev) == ACL_ERROR_INVALID_PARAM);
    check("lend_past_address_space",
          aclStubLendHostMemory((void *)(UINTPTR_MAX - 15), 64, &dev) == ACL_ERROR_INVALID_PARAM);
    check("lend_device_block", aclStubLendHostMemory((char *)blk + 8, 16, &dev) == ACL_ERROR_RT_PARAM_INVALID);
    uint64_t before = aclStubLiveAllocations();
    check("lend_same_address", aclStubLendHostMemory(host, n, &dev) == ACL_SUCCESS && dev == host &&
                                   aclStubLiveAllocations() == before + 1);
    check("lend_twice", aclStubLendHostMemory(host + 100, 8, &dev) == ACL_ERROR_RT_PARAM_INVALID);
    /* device memory for every check: copies of each kind, spans, memset */
    memset(back, 0x11, sizeof back);
    check("lend_h2d", aclrtMemcpy(host, n, back, sizeof back, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS &&
                          host[15] == 0x11);
    check("lend_d2d", aclrtMemcpy(blk, 256, host, 16, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS &&
                          read_byte(blk, 15) == 0x11);
    /* ...and still host memory to the host side of a copy: spans straddling it and plain host memory too */
    unsigned char *around = calloc(1, 3 * n), *mid = around + n;
    MUST(aclStubLendHostMemory(mid, n, &dev));
    memset(around, 0x22, n);
    check("lend_still_host_h2h", aclrtMemcpy(mid, 16, back, 16, ACL_MEMCPY_HOST_TO_HOST) == ACL_SUCCESS &&
                                     mid[15] == 0x11);
    check("lend_straddling_h2d", aclrtMemcpy(blk, 256, mid - 8, 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS &&
                                     read_byte(blk, 0) == 0x22 && read_byte(blk, 15) == 0x11);
    check("lend_straddling_d2h", aclrtMemcpy(mid + n - 8, 16, blk, 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS &&
                                     mid[n - 8] == 0x22 && mid[n + 7] == 0x11);
    check("lend_straddling_default", aclrtMemcpy(blk, 256, mid - 8, 16, ACL_MEMCPY_DEFAULT) == ACL_SUCCESS);
    check("lend_inside_default", aclrtMemcpy(blk, 256, mid + 8, 16, ACL_MEMCPY_DEFAULT) == ACL_SUCCESS);
    check("lend_host_side_not_device_block",
          aclrtMemcpy(blk, 256, (char *)blk + 248, 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_RT_PARAM_INVALID);
    MUST(aclStubReclaimHostMemory(mid));
    free(around);
    check("lend_span_checked", aclrtMemset(host, n + 1, 0, n + 1) == ACL_ERROR_RT_PARAM_INVALID);
    check("lend_not_freed_by_aclrtFree", aclrtFree(host) == ACL_ERROR_RT_PARAM_INVALID);
    check("lend_reclaim_interior", aclStubReclaimHostMemory(host + 1) == ACL_ERROR_RT_PARAM_INVALID);
    check("lend_reclaim_device_block", aclStubReclaimHostMemory(blk) == ACL_ERROR_RT_PARAM_INVALID);
    check("lend_reclaim_null", aclStubReclaimHostMemory(NULL) == ACL_ERROR_INVALID_PARAM);

    /* Reclaiming waits for the queued work that uses the memory: a memset held behind a blocking callback. */
    aclrtStream held = held_stream();
    MUST(aclrtMemsetAsync(host, n, 0x44, n, held));
    ReclaimArg r = {host, -1, 0};
    pthread_t tid;
    pthread_create(&tid, NULL, reclaim_in_thread, &r);
    for (int i = 0; i < 100 && !__atomic_load_n(&r.done, __ATOMIC_SEQ_CST); i++) usleep(500);
    bool early = __atomic_load_n(&r.done, __ATOMIC_SEQ_CST); /* it cannot finish before the callback is processed */
    MUST(aclrtProcessReport(-1));
    pthread_join(tid, NULL);
    check("lend_reclaim_waits_for_users", !early && r.status == ACL_SUCCESS && host[0] == 0x44 &&
                                              host[n - 1] == 0x44 && aclStubLiveAllocations() == before);
    check("lend_reclaim_twice", aclStubReclaimHostMemory(host) == ACL_ERROR_RT_PARAM_INVALID);
    check("lend_no_longer_device", aclrtMemset(host, n, 0, n) == ACL_ERROR_RT_PARAM_INVALID);
    drop_held(held);

    /* ...and only for that work: a stream blocked on its own callback does not hold up an unrelated reclaim. */
    held = held_stream();
    aclrtStream b, c;
    MUST(aclrtCreateStream(&b));
    MUST(aclrtCreateStream(&c));
    MUST(aclStubLendHostMemory(other, n, &dev));
    MUST(aclrtMemsetAsync(other, n, 0x55, n, b));
    MUST(aclrtMemcpyAsync(blk, 256, other, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, c));
    MUST(aclrtDestroyStream(c)); /* a released user is forgotten, not waited for */
    ReclaimArg r2 = {other, -1, 0};
    check("lend_reclaim_ignores_other_streams", reclaim_returns(&tid, &r2) && r2.status == ACL_SUCCESS &&
                                                    other[n - 1] == 0x55);
    pthread_join(tid, NULL);
    release_held(held);
    MUST(aclrtDestroyStream(b));
    MUST(aclrtFree(blk));
    free(host);
    free(other);
}

/* ---- work run by the launching thread on an idle stream ------------------------------------------- */

/* Kernels and copies (aclStubStreamLaunchUsing) run in the launching thread when their stream is idle, and are
 * queued otherwise; the order, the counts and the failure reports are those of queued work either way. */
extern aclError aclStubStreamLaunchUsing(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg),
                                         const char *call, const void *spans, size_t n);

typedef struct {
    pthread_t thread;
    int seq, ran, started;
    int sleep_ms;
} Note;

static int note_counter, hold_open;

/* Records which thread ran it, and when in the order of the group's work items. */
static aclError note_work(void *arg) {
    Note *r = arg;
    __atomic_store_n(&r->started, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < r->sleep_ms * 2; i++) usleep(500);
    r->thread = pthread_self();
    r->seq = __atomic_add_fetch(&note_counter, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&r->ran, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

/* Holds its stream until hold_open (bounded: a failing test does not hang), then records its place. */
static aclError hold_work(void *arg) {
    for (int i = 0; i < 4000 && !__atomic_load_n(&hold_open, __ATOMIC_SEQ_CST); i++) usleep(500);
    return note_work(arg);
}

static aclError failing_inline_work(void *arg) {
    (void)arg;
    aclStubSetErrMsg("inline work failed on purpose");
    return ACL_ERROR_INVALID_PARAM;
}

static int launch_note(aclrtStream s, Note *r) {
    return aclStubStreamLaunchUsing(s, note_work, r, NULL, "note_work", NULL, 0) == ACL_SUCCESS;
}

/* Queued work (on a worker) launching onto an idle stream: never run inline there. */
typedef struct {
    aclrtStream target;
    Note inner;
    pthread_t thread;
    int ran_at_return;
} Nested;

static aclError nested_work(void *arg) {
    Nested *n = arg;
    n->thread = pthread_self();
    if (!launch_note(n->target, &n->inner)) return ACL_ERROR_INVALID_PARAM;
    n->ran_at_return = __atomic_load_n(&n->inner.ran, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

typedef struct {
    aclrtStream s;
    Note *r;
    int ok;
} LaunchArg;

static void *launch_in_thread(void *arg) {
    LaunchArg *a = arg;
    MUST(aclrtSetDevice(0));
    a->ok = launch_note(a->s, a->r);
    MUST(aclrtResetDevice(0));
    return NULL;
}

static void group_inline(void) {
    aclrtStream s, s2;
    aclrtEvent e;
    MUST(aclrtCreateStream(&s));
    MUST(aclrtCreateStream(&s2));
    MUST(aclrtCreateEvent(&e));

    /* An idle stream: the work has run, in this thread, when the launch returns; the stream counts it done. */
    Note a = {0};
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    check("inline_idle_runs_in_caller", launch_note(s, &a) && a.ran && pthread_equal(a.thread, pthread_self()) &&
                                            aclrtStreamQuery(s, &st) == ACL_SUCCESS &&
                                            st == ACL_STREAM_STATUS_COMPLETE);
    check("inline_idle_sync", aclrtSynchronizeStreamWithTimeout(s, 1000) == ACL_SUCCESS);

    /* Work queued ahead (still running): the new work waits its turn and runs after it. */
    Note held = {0}, b = {0};
    __atomic_store_n(&hold_open, 0, __ATOMIC_SEQ_CST);
    MUST(aclStubStreamLaunch(s, hold_work, &held, NULL));
    bool queued = launch_note(s, &b) && !__atomic_load_n(&b.ran, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hold_open, 1, __ATOMIC_SEQ_CST);
    check("inline_behind_queued_work", queued && aclrtSynchronizeStream(s) == ACL_SUCCESS && b.ran &&
                                           held.ran && b.seq > held.seq);

    /* A stream waiting for an event: the work waits for the record (on another stream, held) and runs after. */
    Note held2 = {0}, c = {0};
    __atomic_store_n(&hold_open, 0, __ATOMIC_SEQ_CST);
    MUST(aclStubStreamLaunch(s, hold_work, &held2, NULL));
    MUST(aclrtRecordEvent(e, s));
    MUST(aclrtStreamWaitEvent(s2, e));
    queued = launch_note(s2, &c) && !__atomic_load_n(&c.ran, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hold_open, 1, __ATOMIC_SEQ_CST);
    check("inline_behind_event_wait", queued && aclrtSynchronizeStream(s2) == ACL_SUCCESS && c.ran &&
                                          held2.ran && c.seq > held2.seq);
    MUST(aclrtSynchronizeStream(s));

    /* A failure of inline work: the launch succeeds, the caller's pending message is untouched, and the next
     * synchronisation reports 507015 with the work's message (once). */
    aclStubSetErrMsg("the caller's own message");
    aclError launched = aclStubStreamLaunchUsing(s, failing_inline_work, NULL, NULL, "failing_inline_work", NULL, 0);
    const char *mine = aclGetRecentErrMsg();
    bool kept = launched == ACL_SUCCESS && mine != NULL && strcmp(mine, "the caller's own message") == 0;
    aclError first = aclrtSynchronizeStream(s);
    const char *msg = aclGetRecentErrMsg();
    check("inline_failure_reported_at_sync", kept && first == ACL_ERROR_RT_AICORE_EXCEPTION && msg != NULL &&
                                                 strstr(msg, "inline work failed on purpose") != NULL &&
                                                 aclrtSynchronizeStream(s) == ACL_SUCCESS);

    /* Work launched from queued work is queued, never run inline by the worker (it would hold its stream). */
    Nested nested = {s2, {0}, 0, 0};
    MUST(aclStubStreamLaunch(s, nested_work, &nested, NULL));
    MUST(aclrtSynchronizeStream(s));
    MUST(aclrtSynchronizeStream(s2));
    check("inline_not_from_queued_work", nested.inner.ran &&
                                             !(nested.ran_at_return && pthread_equal(nested.inner.thread,
                                                                                     nested.thread)));

    /* Two threads on one stream: while one runs its work inline, the other's launch queues behind it. */
    Note slow = {0}, after = {0};
    slow.sleep_ms = 100;
    LaunchArg la = {s, &slow, 0};
    pthread_t tid;
    pthread_create(&tid, NULL, launch_in_thread, &la);
    for (int i = 0; i < 20000 && !__atomic_load_n(&slow.started, __ATOMIC_SEQ_CST); i++) usleep(100);
    queued = launch_note(s, &after) && !__atomic_load_n(&after.ran, __ATOMIC_SEQ_CST);
    pthread_join(tid, NULL);
    check("inline_second_thread_queues", la.ok && slow.started && queued &&
                                             aclrtSynchronizeStream(s) == ACL_SUCCESS && after.ran &&
                                             after.seq > slow.seq);

    MUST(aclrtDestroyEvent(e));
    MUST(aclrtDestroyStream(s2));
    MUST(aclrtDestroyStream(s));
}

/* ---- main ---------------------------------------------------------------------------------------- */

static const struct {
    const char *name;
    void (*run)(void);
} groups[] = {
    {"handles", group_handles},   {"spans", group_spans},         {"devices", group_devices},
    {"capacity", group_capacity}, {"environment", group_environment}, {"streams", group_streams},
    {"events", group_events},     {"callbacks", group_callbacks}, {"fork", group_fork},
    {"lend", group_lend},         {"padding", group_padding}, {"hangs", group_hangs},
    {"deadlines", group_deadlines}, {"inline", group_inline},
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <group>\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines reach the runner even if a check hangs */
    MUST(aclInit(NULL));
    bool found = false;
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
        if (strcmp(argv[1], groups[i].name) != 0) continue;
        found = true;
        bool own_devices = strcmp(argv[1], "devices") == 0; /* that group starts without a device */
        if (!own_devices) MUST(aclrtSetDevice(0));
        groups[i].run();
        if (!own_devices) MUST(aclrtResetDevice(0));
    }
    if (!found) {
        fprintf(stderr, "unknown group %s\n", argv[1]);
        return 2;
    }
    printf("live_allocations %d\n", aclStubLiveAllocations() == 0);
    printf("live_streams %d\n", aclStubLiveStreams() == 0);
    printf("live_events %d\n", aclStubLiveEvents() == 0);
    printf("live_contexts %d\n", aclStubLiveContexts() == 0);
    MUST(aclFinalize());
    return failures ? 1 : 0;
}
