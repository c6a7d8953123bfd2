/*
 * A stateful, seeded fuzzer of the C ABI: runtime (acl/acl.h), tensor meta API (aclnn/acl_meta.h) and the
 * operators (aclnnop/). It keeps a model of what is live (device and host blocks, streams, tensors, int
 * arrays, scalars, executors) and drives random valid and invalid calls against it: create, destroy, destroy
 * twice, use after destroy, address reuse, copies and memsets at block edges, both operator phases with stale,
 * foreign or freed arguments, threads and fork.
 *
 * Oracle: no crash (and, against the sanitizer build, no ASan/UBSan report), no hang (alarm), every call the
 * model knows is valid succeeds, every call it knows is invalid fails, and after each sequence the stub's
 * live-object counters are back where they started.
 *
 *   fuzz_api [--seed S] [--calls N] [--threads N] [--timeout SEC] [--keep-going] [--replay SEQSEED]
 *
 * Exit status: 0 clean, 1 findings, 3 hang. A finding prints the seed, the sequence seed (--replay runs that
 * sequence alone) and the last calls of the thread that saw it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_moe_init_routing_v2.h"
#include "aclnnop/aclnn_moe_init_routing_v2_grad.h"
#include "aclnnop/aclnn_moe_token_permute.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep_grad.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map_grad.h"
#include "aclnnop/aclnn_moe_finalize_routing_v2.h"
#include "aclnnop/aclnn_moe_finalize_routing_v2_grad.h"
#include "aclnnop/aclnn_moe_init_routing_v3.h"
#include "aclnnop/aclnn_moe_token_unpermute.h"
#include "aclnnop/aclnn_moe_token_unpermute_grad.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_ep.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_ep_grad.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_routing_map.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_routing_map_grad.h"
#include "aclstub/aclstub.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- options, random numbers ---------------------------------------------------------------------------- */

static struct {
    uint64_t seed, calls, replay;
    int threads;
    unsigned timeout;
    bool keep_going, replay_set;
} opt = {1, 20000, 0, 1, 600, false, false};

typedef struct {
    uint64_t s;
} Rng;

static uint64_t mix64(uint64_t z) { /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t rnd(Rng *r) { return mix64(r->s += 0x9e3779b97f4a7c15ULL); }
static uint64_t below(Rng *r, uint64_t n) { return n ? rnd(r) % n : 0; }
static int64_t between(Rng *r, int64_t lo, int64_t hi) { return lo + (int64_t)below(r, (uint64_t)(hi - lo + 1)); }
static bool chance(Rng *r, unsigned percent) { return below(r, 100) < percent; }

/* ---- per-thread state: the model and the ring of recent calls -------------------------------------------- */

#define RING 40
#define LINE 240
#define MAX_BLOCKS 40
#define MAX_PINNED 6
#define MAX_STREAMS 6
#define MAX_EVENTS 6
#define MAX_VECS 12      /* float and bool arrays, tensor and scalar lists */
#define MAX_ELEMENTS 4   /* of a list */
#define MAX_TENSORS 80
#define MAX_ARRAYS 12
#define MAX_SCALARS 12
#define MAX_EXECS 20
#define MAX_STALE 24
#define MAX_DIMS 10
#define SANE_RANK 8 /* nnopbase's limit: higher ranks may be refused */
#define MAX_SLOTS 8
#define N_ATTRS 8 /* integer attributes of one operator call */
#define SCRATCH ((size_t)1 << 16)
#define UNSYNCED_PERCENT 5 /* phase-2 runs not waited for before the model goes on */

typedef enum { EXPECT_OK, EXPECT_FAIL, EXPECT_ANY } Expect;
static const char *const expect_names[] = {"ok", "fail", "any"};

typedef struct {
    char *p;
    size_t size;
} Block;

typedef struct {
    aclTensor *h;
    uint64_t id; /* model serial: executors refer to tensors by it */
    int ndim;
    int64_t dims[MAX_DIMS], strides[MAX_DIMS], offset;
    aclDataType dtype;
    aclFormat format;
    void *data;
    bool storage_is_view; /* storage dims given as the view dims, else none */
    bool known;           /* created from a sane description: the getters must return it */
} TensorRec;

struct OpDesc;

typedef enum { EXEC_LIVE, EXEC_MAYBE } ExecState;

/* What phase 2 of an executor must do while it is live, its workspace and stream right:
 * TRUST_VALID: succeed if every tensor recorded in phase 1 is live and inside device memory, else fail;
 * TRUST_REFS: fail if one is not (it may refuse the data otherwise);
 * TRUST_NONE: anything but a crash (phase 1 had random arguments: possibly nothing recorded). */
typedef enum { TRUST_VALID, TRUST_REFS, TRUST_NONE } Trust;

typedef struct {
    aclOpExecutor *h;
    const struct OpDesc *op;
    uint64_t ws;
    int nref;
    uint64_t ref[MAX_SLOTS + 1];
    const aclIntArray *range; /* a live int array passed to phase 1, or NULL */
    Trust trust;
    bool repeatable;
    ExecState state; /* MAYBE: a failed phase 2 may or may not have consumed it */
} ExecRec;

/* Handles that were destroyed: using them must fail (unless the stub handed the same value out again). */
typedef struct {
    void *h[MAX_STALE];
    int n;
    unsigned next;
} Stale;

typedef enum {
#define APIS(X)                                                                                              \
    X(aclrtMalloc) X(aclrtFree) X(aclrtMallocHost) X(aclrtFreeHost) X(aclrtMemcpy) X(aclrtMemcpyAsync)         \
    X(aclrtMemset) X(aclrtCreateStream) X(aclrtDestroyStream) X(aclrtSynchronizeStream) X(aclrtSetDevice)      \
    X(aclrtGetDevice) X(aclrtGetDeviceCount) X(aclrtSynchronizeDevice) X(aclCreateTensor) X(aclDestroyTensor)   \
    X(aclGetViewShape) X(aclGetViewStrides) X(aclGetViewOffset) X(aclGetStorageShape) X(aclGetFormat)          \
    X(aclGetDataType) X(aclCreateIntArray) X(aclDestroyIntArray) X(aclGetIntArraySize) X(aclCreateScalar)      \
    X(aclDestroyScalar) X(aclSetAclOpExecutorRepeatable) X(aclDestroyAclOpExecutor) X(phase1) X(phase2) X(fork) \
    X(aclrtMemsetAsync) X(aclrtCreateEvent) X(aclrtDestroyEvent) X(aclrtRecordEvent) X(aclrtSynchronizeEvent)        \
    X(aclrtQueryEventStatus) X(aclrtStreamWaitEvent) X(aclrtCreateContext) X(aclrtDestroyContext)                    \
    X(aclrtSetCurrentContext) X(aclrtGetCurrentContext) \
    X(aclCreateFloatArray) X(aclDestroyFloatArray) X(aclGetFloatArraySize) X(aclCreateBoolArray)                   \
    X(aclDestroyBoolArray) X(aclGetBoolArraySize) X(aclCreateTensorList) X(aclDestroyTensorList)                  \
    X(aclGetTensorListSize) X(aclCreateScalarList) X(aclDestroyScalarList) X(aclGetScalarListSize)
#define X(name) API_##name,
    APIS(X)
#undef X
        API_COUNT
} Api;
static const char *const api_names[] = {
#define X(name) #name,
    APIS(X)
#undef X
};

#define N_OPS 17

typedef struct {
    uint64_t calls[API_COUNT], ok[API_COUNT];
    uint64_t op_calls[N_OPS][2], op_ok[N_OPS][2];
    uint64_t sequences, handle_reuses;
} Stats;

typedef struct Ctx {
    int id;
    Rng rng;
    uint64_t seq_seed, seq_calls, total, budget, next_fork;
    char ring[RING][LINE];
    unsigned ring_next;
    Stats st;
    bool threaded;
    unsigned char *scratch; /* plain host memory of SCRATCH bytes */
    Block blocks[MAX_BLOCKS];
    int nblocks;
    void *freed[MAX_STALE]; /* device pointers freed in this sequence */
    int nfreed;
    Block pinned[MAX_PINNED];
    int npinned;
    aclrtStream streams[MAX_STREAMS];
    bool stream_dirty[MAX_STREAMS]; /* ran work whose outcome the model does not know: a sync may report it */
    bool default_dirty;             /* the same for the default stream */
    int nstreams;
    TensorRec tensors[MAX_TENSORS];
    int ntensors;
    uint64_t next_tensor_id;
    aclIntArray *arrays[MAX_ARRAYS];
    uint64_t array_sizes[MAX_ARRAYS];
    int narrays;
    aclScalar *scalars[MAX_SCALARS];
    int nscalars;
    ExecRec execs[MAX_EXECS];
    int nexecs;
    /* Float and bool arrays, tensor and scalar lists: one record shape, the kind says which. */
    struct {
        int kind;
        void *h;
        uint64_t size;
    } vecs[MAX_VECS];
    int nvecs;
    Stale stale_vecs[4];
    aclrtEvent events[MAX_EVENTS];
    bool event_recorded[MAX_EVENTS]; /* recorded on a stream whose work has a known outcome */
    bool event_unsure[MAX_EVENTS];   /* never recorded, or on a stream of unknown outcome */
    int nevents;
    Stale stale_events, stale_contexts;
    Stale stale_streams, stale_tensors, stale_arrays, stale_scalars, stale_execs, stale_pinned;
} Ctx;

static Ctx *all_ctx[64];
static int n_ctx;
static _Atomic int shutting_down;

/* ---- findings --------------------------------------------------------------------------------------------- */

#define MAX_FINDINGS 64
static struct {
    char key[160];
    uint64_t count, seq_seed;
} findings[MAX_FINDINGS];
static int n_findings;
static uint64_t total_findings;
static pthread_mutex_t findings_lock = PTHREAD_MUTEX_INITIALIZER;

static void print_ring(const Ctx *c) {
    fprintf(stderr, "last calls of thread %d (sequence seed %" PRIu64 "), oldest first:\n", c->id, c->seq_seed);
    for (unsigned i = 0; i < RING; i++) {
        const char *line = c->ring[(c->ring_next + i) % RING];
        if (line[0]) fprintf(stderr, "  %s\n", line);
    }
}

static void print_replay(const Ctx *c) {
    if (opt.replay_set)
        fprintf(stderr, "replay: fuzz_api --replay %" PRIu64 "\n", c->seq_seed);
    else
        fprintf(stderr, "replay: fuzz_api --seed %" PRIu64 " --calls %" PRIu64 " --threads %d   (this sequence alone, "
                "if it does not depend on the ones before: fuzz_api --replay %" PRIu64 ")\n", opt.seed, opt.calls,
                opt.threads, c->seq_seed);
}

static void print_summary(double seconds);

static void finding(Ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void finding(Ctx *c, const char *fmt, ...) {
    char key[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&findings_lock);
    total_findings++;
    int i = 0;
    while (i < n_findings && strcmp(findings[i].key, key) != 0) i++;
    bool first = i == n_findings;
    if (first && n_findings < MAX_FINDINGS) {
        snprintf(findings[i].key, sizeof findings[i].key, "%s", key);
        findings[i].seq_seed = c->seq_seed;
        n_findings++;
    }
    if (i < MAX_FINDINGS) findings[i].count++;
    if (first) {
        fprintf(stderr, "\nFINDING: %s\n  last error message: %s\n", key, aclGetRecentErrMsg());
        print_ring(c);
        print_replay(c);
    }
    pthread_mutex_unlock(&findings_lock);
    if (!opt.keep_going) {
        print_summary(-1);
        fflush(NULL);
        _exit(1);
    }
}

/* Start a ring entry before the call, so that a crash inside the call shows it last. */
static void note(Ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(Ctx *c, const char *fmt, ...) {
    char *line = c->ring[c->ring_next];
    c->ring_next = (c->ring_next + 1) % RING;
    int n = snprintf(line, LINE, "#%" PRIu64 " ", c->seq_calls);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, LINE - (size_t)n, fmt, ap);
    va_end(ap);
    c->seq_calls++;
    c->total++;
}

/* Complete the last ring entry with the outcome, count it, and hold it against the expectation. */
static void verdict(Ctx *c, Api api, Expect e, bool succeeded, long status) {
    char *line = c->ring[(c->ring_next + RING - 1) % RING];
    size_t len = strlen(line);
    snprintf(line + len, LINE - len, " -> %ld (expect %s)", status, expect_names[e]);
    c->st.calls[api]++;
    if (succeeded) c->st.ok[api]++;
    if (e == EXPECT_OK && !succeeded) {
        finding(c, "%s: a call the model knows is valid failed (status %ld)", api_names[api], status);
    } else if (e == EXPECT_FAIL && succeeded) {
        finding(c, "%s: a call the model knows is invalid succeeded", api_names[api]);
    }
}

static void on_death(void) {
    if (atomic_exchange(&shutting_down, 1)) return;
    fprintf(stderr, "\nCRASH or sanitizer report (seed %" PRIu64 ")\n", opt.seed);
    for (int i = 0; i < n_ctx; i++)
        if (all_ctx[i]) {
            print_ring(all_ctx[i]);
            print_replay(all_ctx[i]);
        }
}

/* Each sanitizer runtime loaded (GCC ships ASan and UBSan as separate libraries) gets our death callback, so
 * that a sanitizer report ends with the last calls. */
typedef struct {
    char names[8][512];
    int n;
} SanitizerLibs;

static int collect_sanitizer_lib(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    SanitizerLibs *libs = arg;
    if (libs->n < 8 && strstr(info->dlpi_name, "san.so"))
        snprintf(libs->names[libs->n++], sizeof libs->names[0], "%s", info->dlpi_name);
    return 0;
}

/* Returns how many runtimes accepted the callback. */
static int register_death_callbacks(void) {
    SanitizerLibs libs = {.n = 0};
    int registered = 0;
    dl_iterate_phdr(collect_sanitizer_lib, &libs);
    for (int i = 0; i < libs.n; i++) {
        void *lib = dlopen(libs.names[i], RTLD_LAZY | RTLD_NOLOAD);
        void *set = lib ? dlsym(lib, "__sanitizer_set_death_callback") : NULL;
        if (set) {
            ((void (*)(void (*)(void)))set)(on_death);
            registered++;
        }
        if (lib) dlclose(lib);
    }
    return registered;
}

static void on_signal(int sig) {
    /* Best effort: a crashed process may not be able to print; the signal number is what matters. */
    if (sig == SIGALRM) fprintf(stderr, "\nHANG: no progress within %u s\n", opt.timeout);
    on_death();
    fflush(NULL);
    _exit(sig == SIGALRM ? 3 : 128 + sig);
}

/* ---- the model: lookups --------------------------------------------------------------------------------- */

static void stale_add(Stale *s, void *h) {
    if (h == NULL) return;
    if (s->n < MAX_STALE) {
        s->h[s->n++] = h;
    } else {
        s->h[s->next] = h;
        s->next = (s->next + 1) % MAX_STALE;
    }
}
static void *stale_pick(Ctx *c, const Stale *s) { return s->n ? s->h[below(&c->rng, (uint64_t)s->n)] : NULL; }

/* Forget a destroyed value that is live again; returns how many records it had. */
static int stale_drop(Stale *s, const void *h) {
    int dropped = 0;
    for (int i = 0; i < s->n; i++)
        if (s->h[i] == h) {
            s->h[i--] = s->h[--s->n];
            s->next = 0;
            dropped++;
        }
    return dropped;
}

/* A new handle equal to a destroyed one: the destroyed value is no longer known to be invalid. */
static void stale_forget(Ctx *c, Stale *s, const void *h) { c->st.handle_reuses += (uint64_t)stale_drop(s, h); }

/* [p, p + n) inside one live block of this thread (n == 0: p inside or at the end of one). */
static bool in_block(const Ctx *c, const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < c->nblocks; i++) {
        uintptr_t s = (uintptr_t)c->blocks[i].p;
        if (a >= s && a - s <= c->blocks[i].size && n <= c->blocks[i].size - (a - s)) return true;
    }
    return false;
}

static TensorRec *tensor_by_id(Ctx *c, uint64_t id) {
    for (int i = 0; i < c->ntensors; i++)
        if (c->tensors[i].id == id) return &c->tensors[i];
    return NULL;
}
static TensorRec *tensor_by_handle(Ctx *c, const aclTensor *h) {
    for (int i = 0; i < c->ntensors; i++)
        if (c->tensors[i].h == h) return &c->tensors[i];
    return NULL;
}

static size_t dtype_size(aclDataType dt) {
    switch ((int)dt) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: return 8;
    default: return 0;
    }
}

/* Whether phase 2 may touch the tensor: empty, or its whole view inside one live block. */
static bool tensor_backed(const Ctx *c, const TensorRec *t) {
    int64_t lo = t->offset, hi = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        if (t->dims[i] <= 0) return true; /* empty */
        int64_t span;
        if (__builtin_mul_overflow(t->dims[i] - 1, t->strides[i], &span)) return false;
        if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return false;
    }
    int64_t es = (int64_t)dtype_size(t->dtype), blo, bhi;
    if (es == 0 || t->data == NULL) return false;
    if (__builtin_mul_overflow(lo, es, &blo) || __builtin_add_overflow(hi, 1, &hi) ||
        __builtin_mul_overflow(hi, es, &bhi))
        return false;
    if ((uintptr_t)t->data % (uintptr_t)es) return false;
    if (blo < 0 && (uintptr_t)0 - (uintptr_t)blo > (uintptr_t)t->data) return false;
    uintptr_t start = (uintptr_t)t->data + (uintptr_t)blo; /* wraps like the address it is */
    return in_block(c, (const void *)start, (size_t)((uint64_t)bhi - (uint64_t)blo));
}

/* ---- runtime: device memory ----------------------------------------------------------------------------- */

static void fill_random(Ctx *c, void *p, size_t n) {
    unsigned char *b = p;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = rnd(&c->rng);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

static void forget_freed(Ctx *c, const void *p) {
    for (int i = 0; i < c->nfreed; i++)
        if (c->freed[i] == p) c->freed[i--] = c->freed[--c->nfreed];
}

/* The model's block is what the device pads the request to, all of which copies and operators may use:
 * aclrtMalloc rounds up to 32 bytes and adds 32, aclrtMallocAlign32 only rounds up. */
static char *block_alloc(Ctx *c, size_t size) {
    void *p = NULL;
    bool align32 = chance(&c->rng, 20);
    note(c, "%s(size=%zu)", align32 ? "aclrtMallocAlign32" : "aclrtMalloc", size);
    aclError s = align32 ? aclrtMallocAlign32(&p, size, ACL_MEM_MALLOC_HUGE_FIRST)
                         : aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST);
    verdict(c, API_aclrtMalloc, EXPECT_OK, s == ACL_SUCCESS, s);
    if (s != ACL_SUCCESS) return NULL;
    forget_freed(c, p);
    c->blocks[c->nblocks++] = (Block){p, (size + 31) / 32 * 32 + (align32 ? 0 : 32)};
    return p;
}

static void block_free(Ctx *c, int i) {
    char *p = c->blocks[i].p;
    c->blocks[i] = c->blocks[--c->nblocks];
    note(c, "aclrtFree(%p)", (void *)p);
    aclError s = aclrtFree(p);
    verdict(c, API_aclrtFree, EXPECT_OK, s == ACL_SUCCESS, s);
    if (c->nfreed < MAX_STALE) c->freed[c->nfreed++] = p;
}

static void act_malloc(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    if (pick < 80 && c->nblocks < MAX_BLOCKS) {
        size_t size = chance(r, 90) ? (size_t)between(r, 1, 512) : (size_t)between(r, 513, 1 << 18);
        block_alloc(c, size);
        return;
    }
    void *p = NULL, **out = &p;
    size_t size;
    if (pick < 88) {
        size = 0;
    } else if (pick < 94) {
        size = chance(r, 50) ? SIZE_MAX : (SIZE_MAX >> 1) + 1; /* more than any device has */
    } else {
        size = 64;
        out = NULL;
    }
    note(c, "aclrtMalloc(devPtr=%s, size=%zu)", out ? "&p" : "NULL", size);
    aclError s = aclrtMalloc(out, size, ACL_MEM_MALLOC_HUGE_FIRST);
    verdict(c, API_aclrtMalloc, EXPECT_FAIL, s == ACL_SUCCESS, s);
    if (s == ACL_SUCCESS && p) aclrtFree(p);
}

static void act_free(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    if (pick < 70 && c->nblocks) {
        block_free(c, (int)below(r, (uint64_t)c->nblocks));
        return;
    }
    void *p;
    const char *what;
    if (pick < 80 && c->nfreed && !c->threaded) { /* twice; in threads another thread may own the address now */
        p = c->freed[below(r, (uint64_t)c->nfreed)];
        what = "freed";
        for (int i = 0; i < c->nblocks; i++)
            if (c->blocks[i].p == p) return; /* handed out again as one of ours: a valid free */
    } else if (pick < 88 && c->nblocks) {
        Block *b = &c->blocks[below(r, (uint64_t)c->nblocks)];
        p = b->p + between(r, 1, (int64_t)b->size);
        what = "interior";
    } else if (pick < 94) {
        p = c->scratch;
        what = "host";
    } else {
        p = NULL;
        what = "NULL";
    }
    note(c, "aclrtFree(%p: %s)", p, what);
    aclError s = aclrtFree(p);
    verdict(c, API_aclrtFree, EXPECT_FAIL, s == ACL_SUCCESS, s);
}

static void act_pinned(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    aclError s;
    if (pick < 40 && c->npinned < MAX_PINNED) {
        void *p = NULL;
        size_t size = (size_t)between(r, 1, 4096);
        note(c, "aclrtMallocHost(size=%zu)", size);
        s = aclrtMallocHost(&p, size);
        verdict(c, API_aclrtMallocHost, EXPECT_OK, s == ACL_SUCCESS, s);
        if (s == ACL_SUCCESS) {
            stale_drop(&c->stale_pinned, p); /* an address, like any allocation's */
            c->pinned[c->npinned++] = (Block){p, size};
        }
    } else if (pick < 70 && c->npinned) {
        int i = (int)below(r, (uint64_t)c->npinned);
        void *p = c->pinned[i].p;
        c->pinned[i] = c->pinned[--c->npinned];
        note(c, "aclrtFreeHost(%p)", p);
        s = aclrtFreeHost(p);
        verdict(c, API_aclrtFreeHost, EXPECT_OK, s == ACL_SUCCESS, s);
        stale_add(&c->stale_pinned, p);
    } else {
        void *p = pick < 80 && !c->threaded ? stale_pick(c, &c->stale_pinned) : NULL;
        if (p == NULL && pick < 90 && c->nblocks) p = c->blocks[0].p; /* a device block */
        if (p == NULL && pick < 95) p = c->scratch;                    /* plain host memory */
        note(c, "aclrtFreeHost(%p: not a live pinned block)", p);
        s = aclrtFreeHost(p);
        verdict(c, API_aclrtFreeHost, EXPECT_FAIL, s == ACL_SUCCESS, s);
        if (s == ACL_SUCCESS && p == c->scratch && !(c->scratch = malloc(SCRATCH))) abort(); /* it freed ours */
    }
}

/* Where one side of a copy or memset points. */
typedef enum { SITE_HOST, SITE_PINNED, SITE_DEV, SITE_DEV_OVER, SITE_DEV_END, SITE_STRADDLE, SITE_STALE, SITE_NULL }
    SiteKind;
static const char *const site_names[] = {"host", "pinned", "dev", "dev-over", "dev-end", "straddle", "stale", "null"};

typedef struct {
    SiteKind kind;
    char *p;
    size_t cap; /* bytes that belong to the same region from p on */
} Site;

typedef enum { NEED_HOST, NEED_DEV, NEED_EITHER } Need;

static Site pick_site(Ctx *c, Need need) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    bool want_dev = need == NEED_DEV ? pick < 70 : need == NEED_HOST ? pick >= 75 : pick < 50;
    if (!want_dev || c->nblocks == 0) {
        if (chance(r, 80) && c->npinned) {
            Block *b = &c->pinned[below(r, (uint64_t)c->npinned)];
            size_t off = (size_t)below(r, b->size);
            return (Site){SITE_PINNED, b->p + off, b->size - off};
        }
        size_t off = chance(r, 50) ? 0 : (size_t)below(r, SCRATCH / 2);
        if (chance(r, 4)) return (Site){SITE_NULL, NULL, 0};
        return (Site){SITE_HOST, (char *)c->scratch + off, SCRATCH - off};
    }
    int bi = (int)below(r, (uint64_t)c->nblocks);
    Block *b = &c->blocks[bi];
    unsigned how = (unsigned)below(r, 100);
    if (how < 40) return (Site){SITE_DEV, b->p, b->size};
    if (how < 65) {
        size_t off = (size_t)below(r, b->size);
        return (Site){SITE_DEV, b->p + off, b->size - off};
    }
    if (how < 80) {
        size_t off = (size_t)below(r, b->size);
        return (Site){SITE_DEV_OVER, b->p + off, b->size - off};
    }
    /* Past the end of a block is host memory as far as any registry can tell (the device's padding, then
     * someone else's): only where device memory is required does it make a certain failure. */
    if (how < 86 && need == NEED_DEV) return (Site){SITE_DEV_END, b->p + b->size, 0};
    if (how < 94 && c->nblocks > 1) { /* from one block to the first byte of another one */
        Block *o = &c->blocks[below(r, (uint64_t)c->nblocks)];
        char *lo = b->p < o->p ? b->p : o->p, *hi = b->p < o->p ? o->p : b->p;
        if (lo != hi) return (Site){SITE_STRADDLE, lo + (lo == b->p ? b->size - 1 : o->size - 1), (size_t)(hi - lo)};
    }
    if (need == NEED_DEV && c->nfreed && !c->threaded) {
        char *p = c->freed[below(r, (uint64_t)c->nfreed)];
        return (Site){SITE_STALE, p, 0};
    }
    if (chance(r, 30)) return (Site){SITE_NULL, NULL, 0};
    return (Site){SITE_DEV, b->p, b->size};
}

/* Where the model puts [site, site + n): IN_DEVICE inside one live block; IN_HOST in our own host memory;
 * PARTIAL derived from a device pointer but not inside one live block (over the end, straddling, freed: a
 * device address all the same, never host memory); UNKNOWN. */
enum { IN_DEVICE, IN_HOST, PARTIAL, UNKNOWN };
static int classify(const Ctx *c, const Site *s, size_t n) {
    if (s->kind == SITE_HOST || s->kind == SITE_PINNED) return n <= s->cap ? IN_HOST : UNKNOWN;
    return in_block(c, s->p, n) ? IN_DEVICE : PARTIAL;
}

static Expect side_expect(const Ctx *c, const Site *s, size_t n, Need need) {
    int where = classify(c, s, n);
    if (where == UNKNOWN) return EXPECT_ANY;
    if (need == NEED_DEV) return where == IN_DEVICE ? EXPECT_OK : EXPECT_FAIL;
    if (need == NEED_HOST) return where == IN_HOST ? EXPECT_OK : EXPECT_FAIL;
    return where == PARTIAL ? EXPECT_FAIL : EXPECT_OK;
}

static Expect combine(Expect a, Expect b) {
    if (a == EXPECT_FAIL || b == EXPECT_FAIL) return EXPECT_FAIL;
    return a == EXPECT_ANY || b == EXPECT_ANY ? EXPECT_ANY : EXPECT_OK;
}

/* The count of a copy or memset: mostly fitting, sometimes 0, over by a little, or huge. */
static size_t pick_count(Ctx *c, size_t cap) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    if (pick < 45 && cap) return (size_t)between(r, 1, (int64_t)cap);
    if (pick < 70) return cap;
    if (pick < 75) return 0;
    if (pick < 92) return cap + (size_t)between(r, 1, 64);
    return chance(r, 50) ? SIZE_MAX : (size_t)1 << 40;
}

static aclrtStream pick_stream(Ctx *c, bool *live);
static void stream_sync(Ctx *c, aclrtStream st, const char *tag);

/* A host-side span must stay inside our own memory unless the stub is certain to refuse the call first. */
static bool host_side_safe(const Ctx *c, const Site *s, size_t n, const Site *other, size_t other_n, Need other_need,
                           bool kind_valid) {
    if ((s->kind != SITE_HOST && s->kind != SITE_PINNED) || n <= s->cap) return true;
    return kind_valid && other_need == NEED_DEV && classify(c, other, other_n) != IN_DEVICE &&
           classify(c, other, other_n) != UNKNOWN;
}

static void act_memcpy(Ctx *c, bool async) {
    Rng *r = &c->rng;
    int kind = chance(r, 93) ? (int)below(r, 6) : (int)(int64_t[]){6, 7, 8, -1, 0x7fffffff}[below(r, 5)];
    static const Need needs[6][2] = {{NEED_HOST, NEED_HOST}, {NEED_DEV, NEED_HOST}, {NEED_HOST, NEED_DEV},
                                     {NEED_DEV, NEED_DEV},   {NEED_EITHER, NEED_EITHER}, {NEED_DEV, NEED_HOST}};
    bool kind_valid = kind >= 0 && kind <= 5;
    Need nd = kind_valid ? needs[kind][0] : NEED_EITHER, ns = kind_valid ? needs[kind][1] : NEED_EITHER;
    Site d = pick_site(c, nd), s = pick_site(c, ns);
    size_t cap = d.cap < s.cap ? d.cap : s.cap;
    size_t count = pick_count(c, cap);
    if (!host_side_safe(c, &d, count, &s, count, ns, kind_valid) ||
        !host_side_safe(c, &s, count, &d, count, nd, kind_valid))
        count = cap;
    size_t dest_max = chance(r, 85) ? count : chance(r, 50) ? SIZE_MAX : count - 1;
    bool stream_live = true;
    aclrtStream stream = async ? pick_stream(c, &stream_live) : NULL;

    Expect e;
    if (count == 0)
        e = async && !stream_live ? EXPECT_ANY : EXPECT_OK;
    else if (d.p == NULL || s.p == NULL || !kind_valid || count > dest_max || !stream_live)
        e = EXPECT_FAIL;
    else
        e = combine(side_expect(c, &d, count, nd), side_expect(c, &s, count, ns));
    note(c, "%s(dst=%p:%s, destMax=%zu, src=%p:%s, count=%zu, kind=%d%s)", async ? "aclrtMemcpyAsync" : "aclrtMemcpy",
         (void *)d.p, site_names[d.kind], dest_max, (void *)s.p, site_names[s.kind], count, kind,
         async ? (stream_live ? ", live stream" : ", stale stream") : "");
    aclError st = async ? aclrtMemcpyAsync(d.p, dest_max, s.p, count, (aclrtMemcpyKind)kind, stream)
                        : aclrtMemcpy(d.p, dest_max, s.p, count, (aclrtMemcpyKind)kind);
    verdict(c, async ? API_aclrtMemcpyAsync : API_aclrtMemcpy, e, st == ACL_SUCCESS, st);
    if (async && stream_live) stream_sync(c, stream, "");
}

static void act_memset(Ctx *c) {
    Rng *r = &c->rng;
    Site d = pick_site(c, NEED_DEV);
    size_t count = pick_count(c, d.cap);
    if ((d.kind == SITE_HOST || d.kind == SITE_PINNED) && count > d.cap) count = d.cap;
    size_t max = chance(r, 85) ? count : chance(r, 50) ? SIZE_MAX : count - 1;
    int value = (int)rnd(r);
    Expect e = count == 0 ? EXPECT_OK
               : d.p == NULL || count > max ? EXPECT_FAIL
                                            : side_expect(c, &d, count, NEED_DEV);
    if (chance(r, 30)) { /* the asynchronous form on a live, default or destroyed stream */
        bool live;
        aclrtStream stream = pick_stream(c, &live);
        if (!live) e = count == 0 ? EXPECT_ANY : EXPECT_FAIL;
        note(c, "aclrtMemsetAsync(%p:%s, maxCount=%zu, value=%d, count=%zu, stream=%p%s)", (void *)d.p,
             site_names[d.kind], max, value, count, stream, live ? "" : ": destroyed");
        aclError st = aclrtMemsetAsync(d.p, max, value, count, stream);
        verdict(c, API_aclrtMemsetAsync, e, st == ACL_SUCCESS, st);
        if (live) stream_sync(c, stream, "");
        return;
    }
    note(c, "aclrtMemset(%p:%s, maxCount=%zu, value=%d, count=%zu)", (void *)d.p, site_names[d.kind], max, value,
         count);
    aclError st = aclrtMemset(d.p, max, value, count);
    verdict(c, API_aclrtMemset, e, st == ACL_SUCCESS, st);
}

/* Host -> device -> device -> host; the bytes must come back unchanged. */
static void act_roundtrip(Ctx *c) {
    if (c->nblocks < 2) return;
    Block *a = &c->blocks[below(&c->rng, (uint64_t)c->nblocks)], *b = &c->blocks[below(&c->rng, (uint64_t)c->nblocks)];
    if (a == b) return;
    stream_sync(c, NULL, " [before a roundtrip: no queued work may write the blocks]");
    size_t n = a->size < b->size ? a->size : b->size;
    if (n > SCRATCH / 2) n = SCRATCH / 2;
    unsigned char *in = c->scratch, *out = c->scratch + SCRATCH / 2;
    fill_random(c, in, n);
    memset(out, 0, n);
    aclError s;
    note(c, "aclrtMemcpy(%p, %zu, host, H2D) [roundtrip]", (void *)a->p, n);
    s = aclrtMemcpy(a->p, a->size, in, n, ACL_MEMCPY_HOST_TO_DEVICE);
    verdict(c, API_aclrtMemcpy, EXPECT_OK, s == ACL_SUCCESS, s);
    note(c, "aclrtMemcpy(%p, %zu, %p, D2D) [roundtrip]", (void *)b->p, n, (void *)a->p);
    s = aclrtMemcpy(b->p, b->size, a->p, n, ACL_MEMCPY_DEVICE_TO_DEVICE);
    verdict(c, API_aclrtMemcpy, EXPECT_OK, s == ACL_SUCCESS, s);
    note(c, "aclrtMemcpy(host, %zu, %p, D2H) [roundtrip]", n, (void *)b->p);
    s = aclrtMemcpy(out, SCRATCH / 2, b->p, n, ACL_MEMCPY_DEVICE_TO_HOST);
    verdict(c, API_aclrtMemcpy, EXPECT_OK, s == ACL_SUCCESS, s);
    /* In threaded runs a stale pointer of another thread may legitimately write into our blocks. */
    if (!c->threaded && memcmp(in, out, n) != 0) finding(c, "aclrtMemcpy: bytes changed on a roundtrip");
}

/* ---- runtime: streams and devices ----------------------------------------------------------------------- */

static int stream_index(const Ctx *c, aclrtStream st) {
    for (int i = 0; i < c->nstreams; i++)
        if (c->streams[i] == st) return i;
    return -1;
}

/* Wait for the work queued on a live stream, or on every stream of the device for the default one (NULL):
 * streams may run asynchronously, so memory that work uses is released only after this. It must succeed
 * unless the work it waits for had an outcome the model does not know. */
static void stream_sync(Ctx *c, aclrtStream st, const char *tag) {
    aclError s;
    if (st == NULL) {
        bool dirty = c->default_dirty || c->threaded; /* the device includes other threads' streams */
        for (int i = 0; i < c->nstreams; i++) dirty |= c->stream_dirty[i];
        note(c, "aclrtSynchronizeDevice()%s", tag);
        s = aclrtSynchronizeDevice();
        verdict(c, API_aclrtSynchronizeDevice, dirty ? EXPECT_ANY : EXPECT_OK, s == ACL_SUCCESS, s);
        return;
    }
    int i = stream_index(c, st);
    note(c, "aclrtSynchronizeStream(%p)%s", st, tag);
    s = aclrtSynchronizeStream(st);
    verdict(c, API_aclrtSynchronizeStream, i >= 0 && !c->stream_dirty[i] ? EXPECT_OK : EXPECT_ANY, s == ACL_SUCCESS,
            s);
}

static aclrtStream pick_stream(Ctx *c, bool *live) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    *live = true;
    if (pick < 55 && c->nstreams) return c->streams[below(r, (uint64_t)c->nstreams)];
    if (pick < 80) return NULL; /* the default stream */
    void *h = stale_pick(c, &c->stale_streams);
    if (h) {
        *live = false;
        return h;
    }
    return NULL;
}

static void act_stream(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    aclError s;
    if (pick < 35 && c->nstreams < MAX_STREAMS) {
        aclrtStream st = NULL;
        note(c, "aclrtCreateStream()");
        s = aclrtCreateStream(&st);
        verdict(c, API_aclrtCreateStream, EXPECT_OK, s == ACL_SUCCESS && st != NULL, s);
        if (s == ACL_SUCCESS && st) {
            stale_forget(c, &c->stale_streams, st);
            c->stream_dirty[c->nstreams] = false;
            c->streams[c->nstreams++] = st;
        }
    } else if (pick < 55 && c->nstreams) {
        int i = (int)below(r, (uint64_t)c->nstreams);
        aclrtStream st = c->streams[i];
        c->streams[i] = c->streams[--c->nstreams];
        c->stream_dirty[i] = c->stream_dirty[c->nstreams];
        note(c, "aclrtDestroyStream(%p)", st);
        s = aclrtDestroyStream(st);
        verdict(c, API_aclrtDestroyStream, EXPECT_OK, s == ACL_SUCCESS, s);
        stale_add(&c->stale_streams, st);
    } else if (pick < 75) {
        bool live;
        aclrtStream st = pick_stream(c, &live);
        if (live) {
            stream_sync(c, st, "");
            return;
        }
        note(c, "aclrtSynchronizeStream(%p: destroyed)", st);
        s = aclrtSynchronizeStream(st);
        verdict(c, API_aclrtSynchronizeStream, EXPECT_FAIL, s == ACL_SUCCESS, s);
    } else if (pick < 90) {
        aclrtStream st = stale_pick(c, &c->stale_streams);
        if (st == NULL) return;
        note(c, "aclrtDestroyStream(%p: destroyed)", st);
        s = aclrtDestroyStream(st);
        verdict(c, API_aclrtDestroyStream, EXPECT_FAIL, s == ACL_SUCCESS, s);
    } else {
        note(c, "aclrtCreateStream(NULL)");
        s = aclrtCreateStream(NULL);
        verdict(c, API_aclrtCreateStream, EXPECT_FAIL, s == ACL_SUCCESS, s);
    }
}

static void act_device(Ctx *c) {
    aclError s;
    int32_t dev = -7;
    uint32_t count = 0;
    switch (below(&c->rng, 6)) {
    case 0:
        note(c, "aclrtSetDevice(0)");
        s = aclrtSetDevice(0);
        verdict(c, API_aclrtSetDevice, EXPECT_OK, s == ACL_SUCCESS, s);
        break;
    case 1: {
        uint32_t n = 0;
        int32_t bad = aclrtGetDeviceCount(&n) == ACL_SUCCESS && n < INT32_MAX && chance(&c->rng, 50)
                          ? (int32_t)n /* one past the last device */
                          : (int32_t[]){-1, 1024, INT32_MAX, INT32_MIN}[below(&c->rng, 4)];
        note(c, "aclrtSetDevice(%d)", (int)bad);
        s = aclrtSetDevice(bad);
        verdict(c, API_aclrtSetDevice, EXPECT_FAIL, s == ACL_SUCCESS, s);
        break;
    }
    case 2:
        note(c, "aclrtGetDevice()");
        s = aclrtGetDevice(&dev);
        verdict(c, API_aclrtGetDevice, EXPECT_OK, s == ACL_SUCCESS, s);
        if (s == ACL_SUCCESS && dev != 0) finding(c, "aclrtGetDevice: device %d after aclrtSetDevice(0)", (int)dev);
        break;
    case 3:
        note(c, "aclrtGetDeviceCount()");
        s = aclrtGetDeviceCount(&count);
        verdict(c, API_aclrtGetDeviceCount, EXPECT_OK, s == ACL_SUCCESS && count >= 1, s);
        break;
    case 4:
        note(c, "aclrtGetDeviceCount(NULL)");
        s = aclrtGetDeviceCount(NULL);
        verdict(c, API_aclrtGetDeviceCount, EXPECT_FAIL, s == ACL_SUCCESS, s);
        break;
    default:
        note(c, "aclrtSynchronizeDevice()");
        s = aclrtSynchronizeDevice();
        verdict(c, API_aclrtSynchronizeDevice, EXPECT_OK, s == ACL_SUCCESS, s);
    }
}

/* ---- runtime: events and contexts ------------------------------------------------------------------------ */

static void event_destroy_at(Ctx *c, int i, const char *tag) {
    aclrtEvent ev = c->events[i];
    c->nevents--;
    c->events[i] = c->events[c->nevents];
    c->event_recorded[i] = c->event_recorded[c->nevents];
    c->event_unsure[i] = c->event_unsure[c->nevents];
    note(c, "aclrtDestroyEvent(%p)%s", ev, tag);
    aclError s = aclrtDestroyEvent(ev);
    verdict(c, API_aclrtDestroyEvent, EXPECT_OK, s == ACL_SUCCESS, s);
    stale_add(&c->stale_events, ev);
}

static void act_event(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    int i = c->nevents ? (int)below(r, (uint64_t)c->nevents) : -1;
    aclError s;
    if (pick < 25 && c->nevents < MAX_EVENTS) {
        aclrtEvent ev = NULL;
        note(c, "aclrtCreateEvent()");
        s = aclrtCreateEvent(&ev);
        verdict(c, API_aclrtCreateEvent, EXPECT_OK, s == ACL_SUCCESS && ev != NULL, s);
        if (s != ACL_SUCCESS || !ev) return;
        stale_forget(c, &c->stale_events, ev);
        c->event_recorded[c->nevents] = false;
        c->event_unsure[c->nevents] = true;
        c->events[c->nevents++] = ev;
    } else if (pick < 37 && i >= 0) {
        event_destroy_at(c, i, "");
    } else if (pick < 57 && i >= 0) {
        bool live;
        aclrtStream st = pick_stream(c, &live);
        int si = stream_index(c, st);
        note(c, "aclrtRecordEvent(%p, stream=%p%s)", c->events[i], st, live ? "" : ": destroyed");
        s = aclrtRecordEvent(c->events[i], st);
        verdict(c, API_aclrtRecordEvent, live ? EXPECT_OK : EXPECT_FAIL, s == ACL_SUCCESS, s);
        if (s == ACL_SUCCESS) {
            c->event_recorded[i] = true;
            c->event_unsure[i] = c->threaded || (si >= 0 ? c->stream_dirty[si] : st == NULL && c->default_dirty);
        }
    } else if (pick < 69 && i >= 0) {
        note(c, "aclrtSynchronizeEvent(%p%s)", c->events[i], c->event_recorded[i] ? "" : ": never recorded");
        s = aclrtSynchronizeEvent(c->events[i]);
        verdict(c, API_aclrtSynchronizeEvent, c->event_unsure[i] ? EXPECT_ANY : EXPECT_OK, s == ACL_SUCCESS, s);
    } else if (pick < 77 && i >= 0) {
        aclrtEventRecordedStatus status;
        note(c, "aclrtQueryEventStatus(%p)", c->events[i]);
        s = aclrtQueryEventStatus(c->events[i], &status);
        verdict(c, API_aclrtQueryEventStatus, EXPECT_OK, s == ACL_SUCCESS, s);
    } else if (pick < 87 && i >= 0) {
        bool live;
        aclrtStream st = pick_stream(c, &live);
        note(c, "aclrtStreamWaitEvent(stream=%p%s, %p%s)", st, live ? "" : ": destroyed", c->events[i],
             c->event_recorded[i] ? "" : ": never recorded");
        s = aclrtStreamWaitEvent(st, c->events[i]);
        verdict(c, API_aclrtStreamWaitEvent, !live ? EXPECT_FAIL : c->event_unsure[i] ? EXPECT_ANY : EXPECT_OK,
                s == ACL_SUCCESS, s);
    } else {
        aclrtEvent ev = stale_pick(c, &c->stale_events);
        if (!ev) return;
        Api api;
        switch (below(r, 4)) {
        case 0: note(c, "aclrtDestroyEvent(%p: destroyed)", ev); s = aclrtDestroyEvent(ev); api = API_aclrtDestroyEvent; break;
        case 1: note(c, "aclrtRecordEvent(%p: destroyed)", ev); s = aclrtRecordEvent(ev, NULL); api = API_aclrtRecordEvent; break;
        case 2: note(c, "aclrtSynchronizeEvent(%p: destroyed)", ev); s = aclrtSynchronizeEvent(ev); api = API_aclrtSynchronizeEvent; break;
        default: {
            aclrtEventRecordedStatus status;
            note(c, "aclrtQueryEventStatus(%p: destroyed)", ev);
            s = aclrtQueryEventStatus(ev, &status);
            api = API_aclrtQueryEventStatus;
        }
        }
        verdict(c, api, EXPECT_FAIL, s == ACL_SUCCESS, s);
    }
}

/* A context is created (which makes it current), used and destroyed; the thread's own context is current
 * again before anything else runs. */
static void act_context(Ctx *c) {
    Rng *r = &c->rng;
    aclrtContext orig = NULL, now = NULL, ctx = NULL;
    aclError s;
    note(c, "aclrtGetCurrentContext()");
    s = aclrtGetCurrentContext(&orig);
    verdict(c, API_aclrtGetCurrentContext, EXPECT_OK, s == ACL_SUCCESS && orig != NULL, s);
    if (s != ACL_SUCCESS || orig == NULL) return;
    unsigned pick = (unsigned)below(r, 100);
    if (pick < 60) {
        note(c, "aclrtCreateContext(device 0)");
        s = aclrtCreateContext(&ctx, 0);
        verdict(c, API_aclrtCreateContext, EXPECT_OK, s == ACL_SUCCESS && ctx != NULL, s);
        if (s != ACL_SUCCESS || !ctx) return;
        stale_forget(c, &c->stale_contexts, ctx);
        if (chance(r, 50)) {
            note(c, "aclrtGetCurrentContext() [the new one]");
            s = aclrtGetCurrentContext(&now);
            verdict(c, API_aclrtGetCurrentContext, EXPECT_OK, s == ACL_SUCCESS, s);
        }
        note(c, "aclrtSetCurrentContext(%p) [the thread's own]", orig);
        s = aclrtSetCurrentContext(orig);
        verdict(c, API_aclrtSetCurrentContext, EXPECT_OK, s == ACL_SUCCESS, s);
        note(c, "aclrtDestroyContext(%p)", ctx);
        s = aclrtDestroyContext(ctx);
        verdict(c, API_aclrtDestroyContext, EXPECT_OK, s == ACL_SUCCESS, s);
        stale_add(&c->stale_contexts, ctx);
    } else if (pick < 80 && (ctx = stale_pick(c, &c->stale_contexts)) != NULL) {
        bool destroy = chance(r, 50);
        note(c, "%s(%p: destroyed)", destroy ? "aclrtDestroyContext" : "aclrtSetCurrentContext", ctx);
        s = destroy ? aclrtDestroyContext(ctx) : aclrtSetCurrentContext(ctx);
        verdict(c, destroy ? API_aclrtDestroyContext : API_aclrtSetCurrentContext, EXPECT_FAIL, s == ACL_SUCCESS, s);
    } else {
        int32_t bad = (int32_t[]){-1, 1024, INT32_MIN}[below(r, 3)];
        note(c, "aclrtCreateContext(device %d)", (int)bad);
        s = aclrtCreateContext(&ctx, bad);
        verdict(c, API_aclrtCreateContext, EXPECT_FAIL, s == ACL_SUCCESS, s);
        if (s == ACL_SUCCESS) {
            aclrtSetCurrentContext(orig);
            aclrtDestroyContext(ctx);
        }
    }
    note(c, "aclrtGetCurrentContext() [back to the thread's own]");
    s = aclrtGetCurrentContext(&now);
    verdict(c, API_aclrtGetCurrentContext, EXPECT_OK, s == ACL_SUCCESS, s);
    if (s == ACL_SUCCESS && now != orig) finding(c, "aclrtGetCurrentContext: not the context just made current");
}

/* ---- tensor meta API: tensors ----------------------------------------------------------------------------- */

static const aclDataType common_dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_INT32, ACL_INT64,
                                           ACL_DOUBLE, ACL_BOOL, ACL_UINT8, ACL_INT16};

/* Register a tensor the stub accepted. */
static TensorRec *tensor_add(Ctx *c, aclTensor *h, int ndim, const int64_t *dims, const int64_t *strides,
                             int64_t offset, aclDataType dt, aclFormat fmt, void *data, bool known) {
    stale_forget(c, &c->stale_tensors, h);
    TensorRec *t = &c->tensors[c->ntensors++];
    memset(t, 0, sizeof *t);
    t->h = h;
    t->id = ++c->next_tensor_id;
    t->ndim = ndim;
    t->offset = offset;
    t->dtype = dt;
    t->format = fmt;
    t->data = data;
    t->known = known;
    t->storage_is_view = true;
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        t->dims[i] = dims[i];
        t->strides[i] = strides ? strides[i] : s;
        if (!strides && __builtin_mul_overflow(s, dims[i], &s)) t->known = false; /* row-major strides undefined */
    }
    return t;
}

static void tensor_destroy_at(Ctx *c, int i) {
    aclTensor *h = c->tensors[i].h;
    c->tensors[i] = c->tensors[--c->ntensors];
    note(c, "aclDestroyTensor(%p)", (void *)h);
    aclnnStatus s = aclDestroyTensor(h);
    verdict(c, API_aclDestroyTensor, EXPECT_OK, s == OK, s);
    stale_add(&c->stale_tensors, h);
}

/* Free tensors and blocks until `tensors` tensors and `blocks` blocks fit. */
static void make_room(Ctx *c, int tensors, int blocks) {
    while (c->ntensors > MAX_TENSORS - tensors) tensor_destroy_at(c, (int)below(&c->rng, (uint64_t)c->ntensors));
    while (c->nblocks > MAX_BLOCKS - blocks) block_free(c, (int)below(&c->rng, (uint64_t)c->nblocks));
}

/* A contiguous ND tensor over a block of exactly its bytes (NULL data when it has no element). */
static aclTensor *tensor_new(Ctx *c, aclDataType dt, int ndim, const int64_t *dims) {
    make_room(c, 1, 1);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= dims[i];
    void *data = n > 0 ? block_alloc(c, (size_t)n * dtype_size(dt)) : NULL;
    if (n > 0 && data == NULL) return NULL;
    note(c, "aclCreateTensor(ndim=%d, dims[0]=%lld, dtype=%d, contiguous, data=%p)", ndim,
         (long long)(ndim ? dims[0] : 0), (int)dt, data);
    aclTensor *h = aclCreateTensor(dims, (uint64_t)ndim, dt, NULL, 0, ACL_FORMAT_ND, dims, (uint64_t)ndim, data);
    verdict(c, API_aclCreateTensor, EXPECT_OK, h != NULL, h ? 0 : -1);
    if (h) tensor_add(c, h, ndim, dims, NULL, 0, dt, ACL_FORMAT_ND, data, true);
    return h;
}

static int64_t wild_int(Rng *r) {
    static const int64_t v[] = {0, 1, -1, 2, 3, 7, 64, 1000, INT32_MAX, (int64_t)1 << 32, (int64_t)1 << 40,
                                INT64_MAX / 4, INT64_MAX / 4 + 1, INT64_MAX - 1, INT64_MAX, INT64_MIN, -64};
    return chance(r, 70) ? v[below(r, N_ELEMS(v))] : (int64_t)rnd(r);
}

/* A tensor with random dims, strides, offset, dtype, format and data pointer. */
static void act_tensor_random(Ctx *c) {
    Rng *r = &c->rng;
    make_room(c, 1, 0);
    bool sane = chance(r, 60);
    int ndim = (int)(chance(r, 90) ? below(r, 6) : below(r, MAX_DIMS + 1));
    if (ndim > SANE_RANK) sane = false; /* beyond what nnopbase supports: accepted or refused */
    int64_t dims[MAX_DIMS], strides[MAX_DIMS], offset;
    bool with_strides = chance(r, 50), zero_stride = false;
    for (int i = 0; i < ndim; i++) {
        dims[i] = sane || chance(r, 70) ? between(r, 0, 6) : wild_int(r);
        strides[i] = sane ? between(r, -8, 8) : chance(r, 60) ? between(r, -8, 64) : wild_int(r);
        zero_stride |= strides[i] == 0;
    }
    offset = sane ? between(r, 0, 32) : chance(r, 50) ? between(r, -8, 64) : wild_int(r);
    aclDataType dt = sane || chance(r, 80) ? common_dtypes[below(r, N_ELEMS(common_dtypes))]
                                           : (aclDataType)(int)(int64_t[]){-1, 13, 40, 999, INT32_MIN}[below(r, 5)];
    aclFormat fmt = sane || chance(r, 70) ? (aclFormat)(int)(int64_t[]){0, 1, 2}[below(r, 3)]
                                          : (aclFormat)(int)(int64_t[]){29, 3, -1, 9999}[below(r, 4)];
    void *data = NULL;
    unsigned where = (unsigned)below(r, 100);
    if (where < 55 && c->nblocks) {
        Block *b = &c->blocks[below(r, (uint64_t)c->nblocks)];
        size_t off = where < 30 ? 0 : where < 45 ? (size_t)below(r, b->size + 1) : b->size;
        data = b->p + off;
    } else if (where < 65) {
        data = c->scratch;
    } else if (where < 72 && c->nfreed) {
        data = c->freed[below(r, (uint64_t)c->nfreed)];
    } else if (where < 76) {
        data = (void *)(uintptr_t)0x1000;
    }
    /* A zero stride over a live block makes a huge dimension cheap to describe but slow to compute. */
    if (zero_stride && data)
        for (int i = 0; i < ndim; i++)
            if (dims[i] > 8) dims[i] = 8;
    const int64_t *storage = chance(r, 80) ? dims : NULL;
    uint64_t storage_n = storage ? (uint64_t)ndim : 0;
    note(c, "aclCreateTensor(ndim=%d, dims=[%lld,%lld,..], strides=%s[%lld,..], offset=%lld, dtype=%d, format=%d, "
         "data=%p)", ndim, (long long)(ndim > 0 ? dims[0] : 0), (long long)(ndim > 1 ? dims[1] : 0),
         with_strides ? "" : "row-major", (long long)(ndim > 0 && with_strides ? strides[0] : 0), (long long)offset,
         (int)dt, (int)fmt, data);
    aclTensor *h = aclCreateTensor(dims, (uint64_t)ndim, dt, with_strides ? strides : NULL, offset, fmt, storage,
                                   storage_n, data);
    verdict(c, API_aclCreateTensor, sane ? EXPECT_OK : EXPECT_ANY, h != NULL, h ? 0 : -1);
    if (h) tensor_add(c, h, ndim, dims, with_strides ? strides : NULL, offset, dt, fmt, data, sane)->storage_is_view =
               storage != NULL;
}

static void act_tensor_invalid_create(Ctx *c) {
    Rng *r = &c->rng;
    int64_t dims[2] = {2, 3};
    aclTensor *h;
    if (chance(r, 50)) {
        note(c, "aclCreateTensor(viewDims=NULL, viewDimsNum=2)");
        h = aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, NULL);
    } else if (chance(r, 50)) {
        note(c, "aclCreateTensor(storageDims=NULL, storageDimsNum=2)");
        h = aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 2, NULL);
    } else {
        note(c, "aclCreateTensor(viewDimsNum=2^40)");
        h = aclCreateTensor(dims, (uint64_t)1 << 40, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, NULL);
    }
    verdict(c, API_aclCreateTensor, EXPECT_FAIL, h != NULL, h ? 0 : -1);
    if (h) aclDestroyTensor(h);
}

/* One getter on a live, destroyed or NULL tensor; a live tensor must read back as it was created. */
static void act_tensor_get(Ctx *c) {
    Rng *r = &c->rng;
    TensorRec *t = NULL;
    const aclTensor *h;
    Expect e;
    unsigned pick = (unsigned)below(r, 100);
    if (pick < 70 && c->ntensors) {
        t = &c->tensors[below(r, (uint64_t)c->ntensors)];
        h = t->h;
        e = EXPECT_OK;
    } else if (pick < 92 && (h = stale_pick(c, &c->stale_tensors)) != NULL) {
        e = EXPECT_FAIL;
    } else {
        h = NULL;
        e = EXPECT_FAIL;
    }
    int which = (int)below(r, 6);
    bool null_out = chance(r, 5);
    if (null_out) e = EXPECT_FAIL;
    int64_t *arr = NULL, off = 0;
    uint64_t n = 0;
    aclDataType dt = ACL_DT_UNDEFINED;
    aclFormat fmt = ACL_FORMAT_UNDEFINED;
    aclnnStatus s;
    static const Api apis[] = {API_aclGetViewShape, API_aclGetViewStrides, API_aclGetStorageShape,
                               API_aclGetViewOffset, API_aclGetDataType, API_aclGetFormat};
    note(c, "%s(%p%s%s)", api_names[apis[which]], (const void *)h, t ? "" : h ? ": destroyed" : "",
         null_out ? ", out=NULL" : "");
    switch (which) {
    case 0: s = aclGetViewShape(h, null_out ? NULL : &arr, &n); break;
    case 1: s = aclGetViewStrides(h, &arr, null_out ? NULL : &n); break;
    case 2: s = aclGetStorageShape(h, null_out ? NULL : &arr, &n); break;
    case 3: s = aclGetViewOffset(h, null_out ? NULL : &off); break;
    case 4: s = aclGetDataType(h, null_out ? NULL : &dt); break;
    default: s = aclGetFormat(h, null_out ? NULL : &fmt); break;
    }
    verdict(c, apis[which], e, s == OK, s);
    if (s == OK && t && t->known && !null_out) {
        bool same = true;
        if (which <= 2) {
            same = n == (uint64_t)t->ndim;
            if (which == 2 && !t->storage_is_view) same = n == 0;
            for (int i = 0; same && i < (int)n; i++) same = arr[i] == (which == 1 ? t->strides[i] : t->dims[i]);
        } else if (which == 3) {
            same = off == t->offset;
        } else if (which == 4) {
            same = dt == t->dtype;
        } else {
            same = fmt == t->format;
        }
        if (!same) finding(c, "%s: the value read back differs from the one given at creation", api_names[apis[which]]);
    }
    if (s == OK) free(arr);
}

static void act_tensor_destroy(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    if (pick < 70 && c->ntensors) {
        tensor_destroy_at(c, (int)below(r, (uint64_t)c->ntensors));
        return;
    }
    const aclTensor *h = stale_pick(c, &c->stale_tensors);
    if (h == NULL || pick >= 95) {
        note(c, "aclDestroyTensor(NULL)");
        aclnnStatus s = aclDestroyTensor(NULL);
        verdict(c, API_aclDestroyTensor, EXPECT_OK, s == OK, s);
        return;
    }
    note(c, "aclDestroyTensor(%p: destroyed)", (const void *)h);
    aclnnStatus s = aclDestroyTensor(h);
    verdict(c, API_aclDestroyTensor, EXPECT_FAIL, s == OK, s);
}

/* ---- tensor meta API: int arrays and scalars -------------------------------------------------------------- */

static aclIntArray *array_new(Ctx *c, const int64_t *values, uint64_t n) {
    if (c->narrays == MAX_ARRAYS) {
        aclIntArray *old = c->arrays[0];
        c->arrays[0] = c->arrays[--c->narrays];
        c->array_sizes[0] = c->array_sizes[c->narrays];
        note(c, "aclDestroyIntArray(%p)", (void *)old);
        aclnnStatus s = aclDestroyIntArray(old);
        verdict(c, API_aclDestroyIntArray, EXPECT_OK, s == OK, s);
        stale_add(&c->stale_arrays, old);
    }
    note(c, "aclCreateIntArray(size=%llu, [%lld,..])", (unsigned long long)n, (long long)(n ? values[0] : 0));
    aclIntArray *a = aclCreateIntArray(values, n);
    verdict(c, API_aclCreateIntArray, EXPECT_OK, a != NULL, a ? 0 : -1);
    if (a) {
        stale_forget(c, &c->stale_arrays, a);
        c->array_sizes[c->narrays] = n;
        c->arrays[c->narrays++] = a;
    }
    return a;
}

static void act_array(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    aclnnStatus s;
    if (pick < 35) {
        int64_t v[8];
        uint64_t n = below(r, 9);
        for (uint64_t i = 0; i < n; i++) v[i] = chance(r, 70) ? between(r, -2, 16) : wild_int(r);
        array_new(c, v, n);
    } else if (pick < 55 && c->narrays) {
        int i = (int)below(r, (uint64_t)c->narrays);
        aclIntArray *a = c->arrays[i];
        c->arrays[i] = c->arrays[--c->narrays];
        c->array_sizes[i] = c->array_sizes[c->narrays];
        note(c, "aclDestroyIntArray(%p)", (void *)a);
        s = aclDestroyIntArray(a);
        verdict(c, API_aclDestroyIntArray, EXPECT_OK, s == OK, s);
        stale_add(&c->stale_arrays, a);
    } else if (pick < 75) {
        int i = c->narrays ? (int)below(r, (uint64_t)c->narrays) : -1;
        const aclIntArray *a = i >= 0 && chance(r, 75) ? c->arrays[i] : stale_pick(c, &c->stale_arrays);
        bool live = i >= 0 && a == c->arrays[i];
        uint64_t n = UINT64_MAX;
        note(c, "aclGetIntArraySize(%p%s)", (const void *)a, live ? "" : a ? ": destroyed" : "");
        s = aclGetIntArraySize(a, &n);
        verdict(c, API_aclGetIntArraySize, live ? EXPECT_OK : EXPECT_FAIL, s == OK, s);
        if (live && s == OK && n != c->array_sizes[i])
            finding(c, "aclGetIntArraySize: size read back differs from the one given at creation");
    } else if (pick < 88) {
        const aclIntArray *a = stale_pick(c, &c->stale_arrays);
        if (!a) return;
        note(c, "aclDestroyIntArray(%p: destroyed)", (const void *)a);
        s = aclDestroyIntArray(a);
        verdict(c, API_aclDestroyIntArray, EXPECT_FAIL, s == OK, s);
    } else {
        int64_t one = 1;
        bool null_values = chance(r, 50);
        /* (NULL, n > 0), or a size beyond any memory (refused before the values are read) */
        uint64_t n = null_values ? (uint64_t)between(r, 1, 8) : (uint64_t)1 << 62;
        note(c, "aclCreateIntArray(%s, size=%llu)", null_values ? "NULL" : "&one", (unsigned long long)n);
        aclIntArray *a = aclCreateIntArray(null_values ? NULL : &one, n);
        verdict(c, API_aclCreateIntArray, EXPECT_FAIL, a != NULL, a ? 0 : -1);
        if (a) aclDestroyIntArray(a);
    }
}

static void act_scalar(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    aclnnStatus s;
    if (pick < 40 && c->nscalars < MAX_SCALARS) {
        uint64_t value[2] = {rnd(r), rnd(r)};
        aclDataType dt = common_dtypes[below(r, N_ELEMS(common_dtypes))];
        note(c, "aclCreateScalar(dtype=%d)", (int)dt);
        aclScalar *sc = aclCreateScalar(value, dt);
        verdict(c, API_aclCreateScalar, EXPECT_OK, sc != NULL, sc ? 0 : -1);
        if (sc) {
            stale_forget(c, &c->stale_scalars, sc);
            c->scalars[c->nscalars++] = sc;
        }
    } else if (pick < 65 && c->nscalars) {
        int i = (int)below(r, (uint64_t)c->nscalars);
        aclScalar *sc = c->scalars[i];
        c->scalars[i] = c->scalars[--c->nscalars];
        note(c, "aclDestroyScalar(%p)", (void *)sc);
        s = aclDestroyScalar(sc);
        verdict(c, API_aclDestroyScalar, EXPECT_OK, s == OK, s);
        stale_add(&c->stale_scalars, sc);
    } else if (pick < 80) {
        const aclScalar *sc = stale_pick(c, &c->stale_scalars);
        if (!sc) return;
        note(c, "aclDestroyScalar(%p: destroyed)", (const void *)sc);
        s = aclDestroyScalar(sc);
        verdict(c, API_aclDestroyScalar, EXPECT_FAIL, s == OK, s);
    } else {
        /* NULL value: refused. A dtype with no size, or one CANN sizes by its default branch: either way. */
        uint64_t value = 0;
        bool null_value = chance(r, 50);
        static const int64_t odd[] = {ACL_DT_UNDEFINED, ACL_STRING, 999, INT32_MIN};
        aclDataType dt = null_value ? ACL_FLOAT : (aclDataType)(int)odd[below(r, N_ELEMS(odd))];
        note(c, "aclCreateScalar(%s, dtype=%d)", null_value ? "NULL" : "&value", (int)dt);
        aclScalar *sc = aclCreateScalar(null_value ? NULL : &value, dt);
        verdict(c, API_aclCreateScalar, null_value ? EXPECT_FAIL : EXPECT_ANY, sc != NULL, sc ? 0 : -1);
        if (sc) {
            note(c, "aclDestroyScalar(%p)", (void *)sc);
            aclnnStatus st = aclDestroyScalar(sc);
            verdict(c, API_aclDestroyScalar, EXPECT_OK, st == OK, st);
        }
    }
}

/* Tensors of other shapes: after a destroy, one of them may get the address of the destroyed tensor. Half of
 * them have data, so that a stub mistaking one for the destroyed tensor finds it usable (and larger). */
static void filler_tensors(Ctx *c, int n) {
    Rng *r = &c->rng;
    for (int k = 0; k < n; k++) {
        int64_t dims[MAX_DIMS];
        int nd = (int)between(r, 1, SANE_RANK);
        if (chance(r, 50)) {
            nd = (int)between(r, 1, 3);
            for (int d = 0; d < nd; d++) dims[d] = between(r, 4, 24);
            tensor_new(c, (aclDataType)(int)(int64_t[]){ACL_FLOAT, ACL_INT32, ACL_INT8}[below(r, 3)], nd, dims);
            continue;
        }
        for (int d = 0; d < nd; d++) dims[d] = between(r, 1, 3);
        make_room(c, 1, 0);
        note(c, "aclCreateTensor(ndim=%d, data=NULL) [address reuse]", nd);
        aclTensor *h = aclCreateTensor(dims, (uint64_t)nd, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, (uint64_t)nd, NULL);
        verdict(c, API_aclCreateTensor, EXPECT_OK, h != NULL, h ? 0 : -1);
        if (h) tensor_add(c, h, nd, dims, NULL, 0, ACL_FLOAT, ACL_FORMAT_ND, NULL, true);
    }
}

/* ---- tensor meta API: float and bool arrays, tensor and scalar lists --------------------------------------- */

enum { VEC_FLOAT, VEC_BOOL, VEC_TENSORS, VEC_SCALARS };
static const struct {
    Api create, destroy, size;
} vec_apis[4] = {
    {API_aclCreateFloatArray, API_aclDestroyFloatArray, API_aclGetFloatArraySize},
    {API_aclCreateBoolArray, API_aclDestroyBoolArray, API_aclGetBoolArraySize},
    {API_aclCreateTensorList, API_aclDestroyTensorList, API_aclGetTensorListSize},
    {API_aclCreateScalarList, API_aclDestroyScalarList, API_aclGetScalarListSize},
};

static aclnnStatus vec_destroy_call(int kind, const void *h) {
    switch (kind) {
    case VEC_FLOAT: return aclDestroyFloatArray(h);
    case VEC_BOOL: return aclDestroyBoolArray(h);
    case VEC_TENSORS: return aclDestroyTensorList(h);
    default: return aclDestroyScalarList(h);
    }
}

static aclnnStatus vec_size_call(int kind, const void *h, uint64_t *n) {
    switch (kind) {
    case VEC_FLOAT: return aclGetFloatArraySize(h, n);
    case VEC_BOOL: return aclGetBoolArraySize(h, n);
    case VEC_TENSORS: return aclGetTensorListSize(h, n);
    default: return aclGetScalarListSize(h, n);
    }
}

static void vec_destroy_at(Ctx *c, int i, const char *tag) {
    int kind = c->vecs[i].kind;
    void *h = c->vecs[i].h;
    c->vecs[i] = c->vecs[--c->nvecs];
    note(c, "%s(%p)%s", api_names[vec_apis[kind].destroy], h, tag);
    aclnnStatus s = vec_destroy_call(kind, h);
    verdict(c, vec_apis[kind].destroy, EXPECT_OK, s == OK, s);
    stale_add(&c->stale_vecs[kind], h);
}

/* Elements of a new list: fresh tensors or scalars (some NULL), owned by the list once it exists; with
 * `stale`, one of them destroyed first, which the list must refuse. Returns how many were made. */
static int list_elements(Ctx *c, int kind, void **el, int n, bool stale) {
    for (int j = 0; j < n; j++) {
        el[j] = NULL;
        if (chance(&c->rng, 15) && !(stale && j == 0)) continue;
        if (kind == VEC_TENSORS) {
            int64_t dims[2] = {between(&c->rng, 0, 4), between(&c->rng, 1, 4)};
            note(c, "aclCreateTensor(2-D, data=NULL) [list element]");
            el[j] = aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, NULL);
            verdict(c, API_aclCreateTensor, EXPECT_OK, el[j] != NULL, el[j] ? 0 : -1);
        } else {
            float v = 1.5f;
            note(c, "aclCreateScalar(FLOAT) [list element]");
            el[j] = aclCreateScalar(&v, ACL_FLOAT);
            verdict(c, API_aclCreateScalar, EXPECT_OK, el[j] != NULL, el[j] ? 0 : -1);
        }
    }
    if (stale && el[0]) {
        note(c, "%s(%p) [list element, destroyed first]", kind == VEC_TENSORS ? "aclDestroyTensor" : "aclDestroyScalar",
             el[0]);
        aclnnStatus s = kind == VEC_TENSORS ? aclDestroyTensor(el[0]) : aclDestroyScalar(el[0]);
        verdict(c, kind == VEC_TENSORS ? API_aclDestroyTensor : API_aclDestroyScalar, EXPECT_OK, s == OK, s);
    }
    return n;
}

/* What a list refused stays ours: destroy its elements (the destroyed one is already gone). */
static void drop_elements(Ctx *c, int kind, void **el, int n, int skip) {
    for (int j = skip; j < n; j++)
        if (el[j]) {
            note(c, "%s(%p) [element of a refused list]", kind == VEC_TENSORS ? "aclDestroyTensor" : "aclDestroyScalar",
                 el[j]);
            aclnnStatus s = kind == VEC_TENSORS ? aclDestroyTensor(el[j]) : aclDestroyScalar(el[j]);
            verdict(c, kind == VEC_TENSORS ? API_aclDestroyTensor : API_aclDestroyScalar, EXPECT_OK, s == OK, s);
        }
}

static void act_vector(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    int kind = (int)below(r, 4);
    aclnnStatus s;
    if (pick < 35 && c->nvecs < MAX_VECS) {
        uint64_t n = below(r, MAX_ELEMENTS + 1);
        void *h = NULL;
        float fv[MAX_ELEMENTS];
        bool bv[MAX_ELEMENTS];
        void *el[MAX_ELEMENTS];
        for (uint64_t j = 0; j < n; j++) {
            fv[j] = (float)between(r, -100, 100) / 4;
            bv[j] = chance(r, 50);
        }
        if (kind >= VEC_TENSORS) list_elements(c, kind, el, (int)n, false);
        note(c, "%s(size=%llu)", api_names[vec_apis[kind].create], (unsigned long long)n);
        switch (kind) {
        case VEC_FLOAT: h = aclCreateFloatArray(fv, n); break;
        case VEC_BOOL: h = aclCreateBoolArray(bv, n); break;
        case VEC_TENSORS: h = aclCreateTensorList((const aclTensor *const *)el, n); break;
        default: h = aclCreateScalarList((const aclScalar *const *)el, n);
        }
        verdict(c, vec_apis[kind].create, EXPECT_OK, h != NULL, h ? 0 : -1);
        if (!h) {
            if (kind >= VEC_TENSORS) drop_elements(c, kind, el, (int)n, 0);
            return;
        }
        stale_forget(c, &c->stale_vecs[kind], h);
        c->vecs[c->nvecs].kind = kind;
        c->vecs[c->nvecs].h = h;
        c->vecs[c->nvecs++].size = n;
    } else if (pick < 55 && c->nvecs) {
        vec_destroy_at(c, (int)below(r, (uint64_t)c->nvecs), "");
    } else if (pick < 75 && c->nvecs) {
        int i = (int)below(r, (uint64_t)c->nvecs);
        uint64_t n = UINT64_MAX;
        note(c, "%s(%p)", api_names[vec_apis[c->vecs[i].kind].size], c->vecs[i].h);
        s = vec_size_call(c->vecs[i].kind, c->vecs[i].h, &n);
        verdict(c, vec_apis[c->vecs[i].kind].size, EXPECT_OK, s == OK, s);
        if (s == OK && n != c->vecs[i].size)
            finding(c, "%s: size read back differs from the one given at creation",
                    api_names[vec_apis[c->vecs[i].kind].size]);
    } else if (pick < 88) {
        void *h = stale_pick(c, &c->stale_vecs[kind]);
        if (!h) return;
        bool destroy = chance(r, 50);
        uint64_t n;
        note(c, "%s(%p: destroyed)", api_names[destroy ? vec_apis[kind].destroy : vec_apis[kind].size], h);
        s = destroy ? vec_destroy_call(kind, h) : vec_size_call(kind, h, &n);
        verdict(c, destroy ? vec_apis[kind].destroy : vec_apis[kind].size, EXPECT_FAIL, s == OK, s);
    } else {
        /* (NULL, n > 0), or a list with a destroyed element */
        void *h = NULL, *el[MAX_ELEMENTS];
        bool stale = kind >= VEC_TENSORS && chance(r, 60);
        int n = stale ? list_elements(c, kind, el, (int)between(r, 1, MAX_ELEMENTS), true) : 2;
        note(c, "%s(%s, size=%d)", api_names[vec_apis[kind].create], stale ? "a destroyed element" : "NULL", n);
        switch (kind) {
        case VEC_FLOAT: h = aclCreateFloatArray(NULL, (uint64_t)n); break;
        case VEC_BOOL: h = aclCreateBoolArray(NULL, (uint64_t)n); break;
        case VEC_TENSORS: h = aclCreateTensorList(stale ? (const aclTensor *const *)el : NULL, (uint64_t)n); break;
        default: h = aclCreateScalarList(stale ? (const aclScalar *const *)el : NULL, (uint64_t)n);
        }
        verdict(c, vec_apis[kind].create, EXPECT_FAIL, h != NULL, h ? 0 : -1);
        if (h) {
            s = vec_destroy_call(kind, h);
            (void)s;
        } else if (stale) {
            drop_elements(c, kind, el, n, 1);
        }
    }
}

/* Destroy an object, then create objects of other sizes until the allocator may hand the address out again,
 * then use the stale handle: it must fail whatever now lives at that address. */
static void act_address_reuse(Ctx *c) {
    Rng *r = &c->rng;
    if (c->ntensors == 0) return;
    int i = (int)below(r, (uint64_t)c->ntensors);
    aclTensor *old = c->tensors[i].h;
    tensor_destroy_at(c, i);
    filler_tensors(c, 3);
    if (tensor_by_handle(c, old)) return; /* handed out again: counted in the summary as a reuse */
    int64_t *dims = NULL;
    uint64_t n = 0;
    note(c, "aclGetViewShape(%p: destroyed) [address reuse]", (void *)old);
    aclnnStatus s = aclGetViewShape(old, &dims, &n);
    verdict(c, API_aclGetViewShape, EXPECT_FAIL, s == OK, s);
    if (s == OK) free(dims);
}

/* ---- operators -------------------------------------------------------------------------------------------- */

/* One operator call: tensor slots in the order of the header, attributes, flags. */
typedef struct {
    const struct OpDesc *op;
    aclTensor *t[MAX_SLOTS];
    aclIntArray *range; /* the range, or restoreShape, array of the operators that take one */
    int64_t a[N_ATTRS];
    bool b;
    bool null_ws, null_ex;
} OpCall;

typedef struct OpDesc {
    const char *name;
    int nslots;
    const char *slot[MAX_SLOTS];
    unsigned required; /* slots that may not be NULL */
    unsigned index;    /* slots holding indices or a routing map */
    bool range;
    aclnnStatus (*p1)(const OpCall *, uint64_t *, aclOpExecutor **);
    aclnnStatus (*p2)(void *, uint64_t, aclOpExecutor *, aclrtStream);
    bool (*build)(Ctx *, OpCall *);
    unsigned unchecked; /* slots phase 2 never reads in the configuration build makes (the operator ignores them) */
} OpDesc;

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define NEW(dt, ...) tensor_new_v(c, dt, DIMS(__VA_ARGS__))
static aclTensor *tensor_new_v(Ctx *c, aclDataType dt, const int64_t *dims, int ndim) {
    return tensor_new(c, dt, ndim, dims);
}

static aclDataType float_dtype(Ctx *c) {
    return (aclDataType)(int)(int64_t[]){ACL_FLOAT, ACL_FLOAT16, ACL_BF16}[below(&c->rng, 3)];
}
/* A dimension: mostly up to hi, sometimes up to 48. */
static int64_t small(Ctx *c, int64_t hi) {
    return chance(&c->rng, 90) ? between(&c->rng, 1, hi) : between(&c->rng, 1, 48);
}

static bool all_made(const OpCall *k) {
    for (int i = 0; i < k->op->nslots; i++)
        if (!k->t[i] && (k->op->required & (1u << i))) return false;
    return true;
}

/* aclnnMoeTokenPermute: tokens (N, H), indices (N, K) -> out (N*K, H), sorted (N*K). */
static aclnnStatus p1_permute(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenPermuteGetWorkspaceSize(k->t[0], k->t[1], k->a[0], k->b, k->t[2], k->t[3], ws, ex);
}
static bool build_permute(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c), idx = chance(&c->rng, 70) ? ACL_INT32 : ACL_INT64;
    k->t[0] = NEW(f, n, h); k->t[1] = NEW(idx, n, kk); k->t[2] = NEW(f, n * kk, h); k->t[3] = NEW(ACL_INT32, n * kk);
    return all_made(k);
}

/* aclnnMoeTokenPermuteGrad: grad (N*K, H), sorted (N*K), numTopk K -> out (N, H). */
static aclnnStatus p1_permute_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenPermuteGradGetWorkspaceSize(k->t[0], k->t[1], k->a[0], k->b, k->t[2], ws, ex);
}
static bool build_permute_grad(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n * kk, h); k->t[1] = NEW(ACL_INT32, n * kk); k->t[2] = NEW(f, n, h);
    k->a[0] = kk;
    return all_made(k);
}

/* aclnnMoeTokenPermuteWithEp: tokens (N, H), indices (N, K), probs (N, K), range [0, N*K). */
static aclnnStatus p1_ep(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenPermuteWithEpGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->range, k->a[0], k->b, k->t[3],
                                                      k->t[4], k->t[5], ws, ex);
}
static bool build_ep(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6), l = n * kk;
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n, h); k->t[1] = NEW(ACL_INT32, n, kk); k->t[2] = NEW(f, n, kk);
    k->t[3] = NEW(f, l, h); k->t[4] = NEW(ACL_INT32, l); k->t[5] = NEW(f, l);
    k->range = array_new(c, (const int64_t[]){0, l}, 2);
    return all_made(k) && k->range;
}

/* aclnnMoeTokenPermuteWithEpGrad: grad (L, H), sorted (L), probs grad (L), numTopk K, range [0, L). */
static aclnnStatus p1_ep_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->a[0], k->range, k->b, k->t[3],
                                                          k->t[4], ws, ex);
}
static bool build_ep_grad(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6), l = n * kk;
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, l, h); k->t[1] = NEW(ACL_INT32, l); k->t[2] = NEW(f, l);
    k->t[3] = NEW(f, n, h); k->t[4] = NEW(f, n, kk);
    k->a[0] = kk;
    k->range = array_new(c, (const int64_t[]){0, l}, 2);
    return all_made(k) && k->range;
}

/* aclnnMoeTokenPermuteWithRoutingMap: tokens (T, H), map (T, E), probs (T, E), numOutTokens T*E. */
static aclnnStatus p1_rmap(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenPermuteWithRoutingMapGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->a[0], k->b, k->t[3],
                                                              k->t[4], k->t[5], ws, ex);
}
static bool build_rmap(Ctx *c, OpCall *k) {
    int64_t t = small(c, 5), e = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, t, h); k->t[1] = NEW(ACL_INT8, t, e); k->t[2] = NEW(f, t, e);
    k->t[3] = NEW(f, t * e, h); k->t[4] = NEW(f, t * e); k->t[5] = NEW(ACL_INT32, t * e);
    k->a[0] = t * e;
    return all_made(k);
}

/* aclnnMoeTokenPermuteWithRoutingMapGrad: grad (T*E, H), probs grad (T*E), sorted (T*E), map (T, E). */
static aclnnStatus p1_rmap_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenPermuteWithRoutingMapGradGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->a[0], k->a[1],
                                                                  k->b, k->t[4], k->t[5], ws, ex);
}
static bool build_rmap_grad(Ctx *c, OpCall *k) {
    int64_t t = small(c, 5), e = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, t * e, h); k->t[1] = NEW(f, t * e); k->t[2] = NEW(ACL_INT32, t * e);
    k->t[3] = NEW(ACL_INT8, t, e); k->t[4] = NEW(f, t, h); k->t[5] = NEW(f, t, e);
    k->a[0] = e;
    k->a[1] = t;
    return all_made(k);
}

/* aclnnMoeInitRoutingV2, dropless with cumulative counts: x (N, H), expertIdx (N, K), E experts. */
static aclnnStatus p1_init(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeInitRoutingV2GetWorkspaceSize(k->t[0], k->t[1], k->a[0], k->a[1], k->a[2], k->a[3], k->a[4], k->b,
                                                 k->t[2], k->t[3], k->t[4], k->t[5], ws, ex);
}
static bool build_init(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6), e = small(c, 4);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n, h); k->t[1] = NEW(ACL_INT32, n, kk);
    k->t[2] = NEW(f, n * kk, h); k->t[3] = NEW(ACL_INT32, n * kk); k->t[4] = NEW(ACL_INT32, e);
    k->a[2] = e;
    k->a[4] = 1;
    return all_made(k);
}

/* aclnnMoeInitRoutingV2Grad, dropless: grad (N*K, H), expandedRowIdx (N*K), topK K -> out (N, H). */
static aclnnStatus p1_init_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeInitRoutingV2GradGetWorkspaceSize(k->t[0], k->t[1], k->a[0], k->a[1], k->a[2], k->t[2], ws, ex);
}
static bool build_init_grad(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n * kk, h); k->t[1] = NEW(ACL_INT32, n * kk); k->t[2] = NEW(f, n, h);
    k->a[0] = kk;
    return all_made(k);
}

/* aclnnMoeTokenUnpermute: permuted (N*K, H), sorted (N*K), probs (N, K) of any float dtype -> out (N, H). */
static aclnnStatus p1_unpermute(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenUnpermuteGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->b, NULL, k->t[3], ws, ex);
}
static bool build_unpermute(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c);
    bool probs = chance(&c->rng, 80);
    k->t[0] = NEW(f, n * kk, h); k->t[1] = NEW(ACL_INT32, n * kk); k->t[3] = NEW(f, probs ? n : n * kk, h);
    if (probs) k->t[2] = NEW(float_dtype(c), n, kk);
    return all_made(k) && (!probs || k->t[2]);
}

/* aclnnMoeTokenUnpermuteGrad: permuted (N*K, H), grad (N, H), sorted (N*K), probs (N, K) -> (N*K, H), (N, K). */
static aclnnStatus p1_unpermute_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenUnpermuteGradGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->b, NULL, k->t[4], k->t[5],
                                                      ws, ex);
}
static bool build_unpermute_grad(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c), g = float_dtype(c);
    k->t[0] = NEW(f, n * kk, h); k->t[1] = NEW(f, n, h); k->t[2] = NEW(ACL_INT32, n * kk); k->t[3] = NEW(g, n, kk);
    k->t[4] = NEW(f, n * kk, h); k->t[5] = NEW(g, n, kk);
    return all_made(k) && k->t[3];
}

/* aclnnMoeInitRoutingV3, dropless, no quantisation, counts per expert: x (N, H), expertIdx (N, K), E experts. */
static aclnnStatus p1_init_v3(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeInitRoutingV3GetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->a[0], k->a[1], k->a[2], k->a[3],
                                                 k->a[4], k->b, k->a[5], k->range, k->a[6], k->t[4], k->t[5], k->t[6],
                                                 k->t[7], ws, ex);
}
static bool build_init_v3(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6), e = small(c, 4);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n, h); k->t[1] = NEW(ACL_INT32, n, kk);
    k->t[4] = NEW(f, n * kk, h); k->t[5] = NEW(ACL_INT32, n * kk); k->t[6] = NEW(ACL_INT64, e);
    k->t[7] = NEW(ACL_FLOAT, n * kk);
    const int64_t attrs[] = {-1, -1, e, 0, 1, -1, 0};
    memcpy(k->a, attrs, sizeof attrs);
    k->b = true;
    k->range = array_new(c, (const int64_t[]){0, e}, 2);
    return all_made(k) && k->range;
}

/* aclnnMoeFinalizeRoutingV2, mode 0: expandedX (N*K, H), rows (N*K), x1, x2 (N, H), bias (E, H), scales and
 * expertIdx (N, K) -> out (N, H). */
static aclnnStatus p1_finalize(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeFinalizeRoutingV2GetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->t[4], k->t[5], k->t[6],
                                                     k->a[0], k->t[7], ws, ex);
}
static bool build_finalize(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6), e = kk + (int64_t)below(&c->rng, 3); /* E >= K */
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n * kk, h); k->t[1] = NEW(ACL_INT32, n * kk); k->t[2] = NEW(f, n, h); k->t[3] = NEW(f, n, h);
    k->t[4] = NEW(f, e, h); k->t[5] = NEW(f, n, kk); k->t[6] = NEW(ACL_INT32, n, kk); k->t[7] = NEW(f, n, h);
    return all_made(k) && k->t[2] && k->t[3] && k->t[4] && k->t[5] && k->t[6];
}

/* aclnnMoeFinalizeRoutingV2Grad, mode 0: gradY (N, H), rows (N*K), expandedX (N*K, H), scales and expertIdx
 * (N, K), bias (E, H) -> gradExpandedX (N*K, H), gradScales (N, K). */
static aclnnStatus p1_finalize_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeFinalizeRoutingV2GradGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->t[4], k->t[5], k->a[0],
                                                         k->a[1], k->a[2], k->a[3], k->t[6], k->t[7], ws, ex);
}
static bool build_finalize_grad(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6), e = small(c, 4);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n, h); k->t[1] = NEW(ACL_INT32, n * kk); k->t[2] = NEW(f, n * kk, h); k->t[3] = NEW(f, n, kk);
    k->t[4] = NEW(ACL_INT32, n, kk); k->t[5] = NEW(f, e, h); k->t[6] = NEW(f, n * kk, h); k->t[7] = NEW(f, n, kk);
    return all_made(k) && k->t[2] && k->t[3] && k->t[4] && k->t[5];
}

/* aclnnMoeTokenUnpermuteWithEp: permuted (N*K, H), sorted (N*K), probs (N, K), range [0, N*K) -> out (N, H). */
static aclnnStatus p1_unpermute_ep(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->a[0], k->range, k->b, NULL,
                                                        k->t[3], ws, ex);
}
static bool build_unpermute_ep(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, n * kk, h); k->t[1] = NEW(ACL_INT32, n * kk); k->t[2] = NEW(float_dtype(c), n, kk);
    k->t[3] = NEW(f, n, h);
    k->a[0] = kk;
    k->range = array_new(c, (const int64_t[]){0, n * kk}, 2);
    return all_made(k) && k->t[2] && k->range;
}

/* aclnnMoeTokenUnpermuteWithEpGrad: grad (N, H), sorted (N*K), permuted (N*K, H), probs (N, K), range [0, N*K)
 * -> (N*K, H), (N, K). */
static aclnnStatus p1_unpermute_ep_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenUnpermuteWithEpGradGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->b, NULL, k->range,
                                                            k->a[0], k->t[4], k->t[5], ws, ex);
}
static bool build_unpermute_ep_grad(Ctx *c, OpCall *k) {
    int64_t n = small(c, 5), kk = small(c, 3), h = small(c, 6);
    aclDataType f = float_dtype(c), g = float_dtype(c);
    k->t[0] = NEW(f, n, h); k->t[1] = NEW(ACL_INT32, n * kk); k->t[2] = NEW(f, n * kk, h); k->t[3] = NEW(g, n, kk);
    k->t[4] = NEW(f, n * kk, h); k->t[5] = NEW(g, n, kk);
    k->a[0] = kk;
    k->range = array_new(c, (const int64_t[]){0, n * kk}, 2);
    return all_made(k) && k->t[2] && k->t[3] && k->range;
}

/* aclnnMoeTokenUnpermuteWithRoutingMap, not padded: permuted (T*K, H), sorted (T*K), map and probs (T, E), K <= E,
 * restoreShape [T, H] -> (T, H) and the optional index outputs and permuteProbs (T*K). */
static aclnnStatus p1_unpermute_rmap(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->b, k->range,
                                                                k->t[4], k->t[5], k->t[6], k->t[7], ws, ex);
}
static bool build_unpermute_rmap(Ctx *c, OpCall *k) {
    int64_t t = small(c, 5), e = small(c, 4), h = small(c, 6), kk = between(&c->rng, 1, e);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, t * kk, h); k->t[1] = NEW(ACL_INT32, t * kk); k->t[2] = NEW(ACL_INT8, t, e);
    k->t[3] = NEW(f, t, e); k->t[4] = NEW(f, t, h); k->t[5] = NEW(ACL_INT32, t * kk);
    k->t[6] = NEW(ACL_INT32, t * kk); k->t[7] = NEW(f, t * kk);
    k->range = array_new(c, (const int64_t[]){t, h}, 2);
    return all_made(k) && k->t[2] && k->t[3] && k->range;
}

/* aclnnMoeTokenUnpermuteWithRoutingMapGrad, not padded: grad (T, H), outIndex and permuteTokenId (T*K), map and
 * probs (T, E), permuted (T*K, H), K <= E -> (T*K, H), (T, E). */
static aclnnStatus p1_unpermute_rmap_grad(const OpCall *k, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMoeTokenUnpermuteWithRoutingMapGradGetWorkspaceSize(k->t[0], k->t[1], k->t[2], k->t[3], k->t[4],
                                                                    k->t[5], k->b, NULL, k->t[6], k->t[7], ws, ex);
}
static bool build_unpermute_rmap_grad(Ctx *c, OpCall *k) {
    int64_t t = small(c, 5), e = small(c, 4), h = small(c, 6), kk = between(&c->rng, 1, e);
    aclDataType f = float_dtype(c);
    k->t[0] = NEW(f, t, h); k->t[1] = NEW(ACL_INT32, t * kk); k->t[2] = NEW(ACL_INT32, t * kk);
    k->t[3] = NEW(ACL_INT8, t, e); k->t[4] = NEW(f, t * kk, h); k->t[5] = NEW(f, t, e);
    k->t[6] = NEW(f, t * kk, h); k->t[7] = NEW(f, t, e);
    return all_made(k) && k->t[3] && k->t[4] && k->t[5];
}

static const OpDesc ops[N_OPS] = {
    {"MoeTokenPermute", 4, {"tokens", "indices", "permuteTokensOut", "sortedIndicesOut"}, 0xf, 0x2, false,
     p1_permute, aclnnMoeTokenPermute, build_permute, 0},
    {"MoeTokenPermuteGrad", 3, {"permutedOutputGrad", "sortedIndices", "out"}, 0x7, 0x2, false, p1_permute_grad,
     aclnnMoeTokenPermuteGrad, build_permute_grad, 0},
    {"MoeTokenPermuteWithEp", 6,
     {"tokens", "indices", "probsOptional", "permuteTokensOut", "sortedIndicesOut", "permuteProbsOut"}, 0x1b, 0x2,
     true, p1_ep, aclnnMoeTokenPermuteWithEp, build_ep, 0},
    {"MoeTokenPermuteWithEpGrad", 5,
     {"permutedTokensOutputGrad", "sortedIndices", "permutedProbsOutputGradOptional", "tokenGradOut",
      "probsGradOut"}, 0x0b, 0x2, true, p1_ep_grad, aclnnMoeTokenPermuteWithEpGrad, build_ep_grad, 0},
    {"MoeTokenPermuteWithRoutingMap", 6,
     {"tokens", "routingMap", "probsOptional", "permuteTokensOut", "permuteProbsOutOptional", "sortedIndicesOut"},
     0x2b, 0x2, false, p1_rmap, aclnnMoeTokenPermuteWithRoutingMap, build_rmap, 0},
    {"MoeTokenPermuteWithRoutingMapGrad", 6,
     {"permutedTokenOutputGrad", "permutedProbsOutputGradOptional", "sortedIndices", "routingMapOptional",
      "tokensGradOut", "probsGradOutOptional"}, 0x15, 0xc, false, p1_rmap_grad,
     aclnnMoeTokenPermuteWithRoutingMapGrad, build_rmap_grad, 0},
    {"MoeInitRoutingV2", 6,
     {"x", "expertIdx", "expandedXOut", "expandedRowIdxOut", "expertTokensCountOrCumsumOutOptional",
      "expertTokensBeforeCapacityOutOptional"}, 0x0f, 0x2, false, p1_init, aclnnMoeInitRoutingV2, build_init, 0},
    {"MoeInitRoutingV2Grad", 3, {"gradExpandedX", "expandedRowIdx", "out"}, 0x7, 0x2, false, p1_init_grad,
     aclnnMoeInitRoutingV2Grad, build_init_grad, 0},
    {"MoeTokenUnpermute", 4, {"permutedTokens", "sortedIndices", "probsOptional", "out"}, 0xb, 0x2, false,
     p1_unpermute, aclnnMoeTokenUnpermute, build_unpermute, 0},
    {"MoeTokenUnpermuteGrad", 6,
     {"permuteTokens", "unpermutedTokensGrad", "sortedIndices", "probsOptional", "permutedTokensGradOut",
      "probsGradOut"}, 0x37, 0x4, false, p1_unpermute_grad, aclnnMoeTokenUnpermuteGrad, build_unpermute_grad, 0},
    {"MoeInitRoutingV3", 8,
     {"x", "expertIdx", "scaleOptional", "offsetOptional", "expandedXOut", "expandedRowIdxOut",
      "expertTokensCountOrCumsumOut", "expandedScaleOut"}, 0xf3, 0x2, true, p1_init_v3, aclnnMoeInitRoutingV3,
     build_init_v3, 0x88},
    {"MoeFinalizeRoutingV2", 8,
     {"expandedX", "expandedRowIdx", "x1Optional", "x2Optional", "biasOptional", "scalesOptional",
      "expertIdxOptional", "out"}, 0x83, 0x42, false, p1_finalize, aclnnMoeFinalizeRoutingV2, build_finalize, 0},
    {"MoeFinalizeRoutingV2Grad", 8,
     {"gradY", "expandedRowIdx", "expandedXOptional", "scalesOptional", "expertIdxOptional", "biasOptional",
      "gradExpandedXOut", "gradScalesOut"}, 0xc3, 0x12, false, p1_finalize_grad, aclnnMoeFinalizeRoutingV2Grad,
     build_finalize_grad, 0},
    {"MoeTokenUnpermuteWithEp", 4, {"permutedTokens", "sortedIndices", "probsOptional", "out"}, 0xb, 0x2, true,
     p1_unpermute_ep, aclnnMoeTokenUnpermuteWithEp, build_unpermute_ep, 0},
    {"MoeTokenUnpermuteWithEpGrad", 6,
     {"unpermutedTokensGrad", "sortedIndices", "permutedTokensOptional", "probsOptional", "permutedTokensGradOut",
      "probsGradOut"}, 0x33, 0x2, true, p1_unpermute_ep_grad, aclnnMoeTokenUnpermuteWithEpGrad,
     build_unpermute_ep_grad, 0},
    {"MoeTokenUnpermuteWithRoutingMap", 8,
     {"permutedTokens", "sortedIndices", "routingMapOptional", "probsOptional", "unpermutedTokens", "outIndex",
      "permuteTokenId", "permuteProbs"}, 0x13, 0x6, true, p1_unpermute_rmap, aclnnMoeTokenUnpermuteWithRoutingMap,
     build_unpermute_rmap, 0x60},
    {"MoeTokenUnpermuteWithRoutingMapGrad", 8,
     {"unpermutedTokensGrad", "outIndex", "permuteTokenId", "routingMapOptional", "permutedTokensOptional",
      "probsOptional", "permutedTokensGradOut", "probsGradOutOptional"}, 0x47, 0xe, false, p1_unpermute_rmap_grad,
     aclnnMoeTokenUnpermuteWithRoutingMapGrad, build_unpermute_rmap_grad, 0x4},
};

static int op_index(const OpDesc *op) { return (int)(op - ops); }

/* Overwrite an index tensor with random values (some out of range): phase 2 may then refuse the data. */
static void scramble_index(Ctx *c, aclTensor *h) {
    TensorRec *t = tensor_by_handle(c, h);
    if (!t || !t->data) return;
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->dims[i];
    size_t bytes = (size_t)n * dtype_size(t->dtype);
    if (bytes > SCRATCH) return;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = chance(&c->rng, 85) ? between(&c->rng, -1, 2 * n) : wild_int(&c->rng);
        if (t->dtype == ACL_INT64) memcpy(c->scratch + i * 8, &v, 8);
        else if (t->dtype == ACL_INT32) { int32_t w = (int32_t)v; memcpy(c->scratch + i * 4, &w, 4); }
        else c->scratch[i] = (unsigned char)v;
    }
    note(c, "aclrtMemcpy(%p, %zu, host, H2D) [index data]", t->data, bytes);
    aclError s = aclrtMemcpy(t->data, bytes, c->scratch, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    verdict(c, API_aclrtMemcpy, EXPECT_OK, s == ACL_SUCCESS, s);
}

/* Record a new executor (or, when the table is full, destroy it at once). */
static int exec_add(Ctx *c, const OpCall *k, aclOpExecutor *ex, uint64_t ws, Trust trust) {
    stale_forget(c, &c->stale_execs, ex);
    for (int i = 0; i < c->nexecs; i++) /* a MAYBE executor whose value came back was consumed */
        if (c->execs[i].h == ex) {
            c->execs[i] = c->execs[--c->nexecs];
            c->st.handle_reuses++;
        }
    if (c->nexecs == MAX_EXECS) {
        note(c, "aclDestroyAclOpExecutor(%p) [table full]", (void *)ex);
        aclnnStatus s = aclDestroyAclOpExecutor(ex);
        verdict(c, API_aclDestroyAclOpExecutor, EXPECT_OK, s == OK, s);
        stale_add(&c->stale_execs, ex);
        return -1;
    }
    ExecRec *e = &c->execs[c->nexecs++];
    memset(e, 0, sizeof *e);
    e->h = ex;
    e->op = k->op;
    e->ws = ws;
    e->trust = trust;
    for (int i = 0; i < c->narrays; i++)
        if (c->arrays[i] == k->range) e->range = k->range;
    for (int i = 0; i < k->op->nslots; i++) {
        TensorRec *t = k->t[i] && !(k->op->unchecked & (1u << i)) ? tensor_by_handle(c, k->t[i]) : NULL;
        if (t) e->ref[e->nref++] = t->id;
    }
    return c->nexecs - 1;
}

/* Returns the index of the new executor in the model, or -1. */
static int run_phase1(Ctx *c, OpCall *k, Expect e, Trust trust, const char *how) {
    uint64_t ws = UINT64_MAX;
    aclOpExecutor *ex = NULL;
    int oi = op_index(k->op);
    note(c, "aclnn%sGetWorkspaceSize(%s; a=[%lld,%lld,%lld] b=%d%s%s)", k->op->name, how, (long long)k->a[0],
         (long long)k->a[1], (long long)k->a[2], (int)k->b, k->null_ws ? " ws=NULL" : "", k->null_ex ? " ex=NULL" : "");
    aclnnStatus s = k->op->p1(k, k->null_ws ? NULL : &ws, k->null_ex ? NULL : &ex);
    verdict(c, API_phase1, e, s == OK, s);
    c->st.op_calls[oi][0]++;
    if (s != OK) return -1;
    c->st.op_ok[oi][0]++;
    if (ex == NULL) {
        finding(c, "aclnn%sGetWorkspaceSize: success without an executor", k->op->name);
        return -1;
    }
    return exec_add(c, k, ex, ws, trust);
}

static void phase2_run(Ctx *c, int target, bool plain);

/* What happens between the phases of a valid call. */
static void between_phases(Ctx *c, int x) {
    Rng *r = &c->rng;
    ExecRec *e = &c->execs[x];
    unsigned plan = (unsigned)below(r, 100);
    if (plan < 35) { /* phase 2 at once */
        phase2_run(c, x, true);
    } else if (plan < 50) { /* repeatable: run twice, then destroy */
        note(c, "aclSetAclOpExecutorRepeatable(%p)", (void *)e->h);
        aclnnStatus s = aclSetAclOpExecutorRepeatable(e->h);
        verdict(c, API_aclSetAclOpExecutorRepeatable, EXPECT_OK, s == OK, s);
        if (s != OK) return;
        e->repeatable = true;
        phase2_run(c, x, true);
        phase2_run(c, x, true);
        ExecRec done = c->execs[x];
        c->execs[x] = c->execs[--c->nexecs];
        note(c, "aclDestroyAclOpExecutor(%p) [repeatable, after two runs]", (void *)done.h);
        s = aclDestroyAclOpExecutor(done.h);
        verdict(c, API_aclDestroyAclOpExecutor, done.state == EXEC_MAYBE ? EXPECT_ANY : EXPECT_OK, s == OK, s);
        stale_add(&c->stale_execs, done.h);
    } else if (plan < 65 && e->nref) { /* a tensor destroyed, others created in its place */
        TensorRec *t = tensor_by_id(c, e->ref[below(r, (uint64_t)e->nref)]);
        if (!t) return;
        tensor_destroy_at(c, (int)(t - c->tensors));
        filler_tensors(c, 2);
        phase2_run(c, x, true);
    } else if (plan < 80 && e->nref) { /* a tensor's buffer freed, blocks of other sizes allocated */
        TensorRec *t = tensor_by_id(c, e->ref[below(r, (uint64_t)e->nref)]);
        if (!t || !t->data) return;
        for (int i = 0; i < c->nblocks; i++)
            if (c->blocks[i].p == t->data) {
                block_free(c, i);
                break;
            }
        for (int k = 0; k < 2 && c->nblocks < MAX_BLOCKS; k++) block_alloc(c, (size_t)between(r, 1, 96));
        phase2_run(c, x, true);
    }
    /* otherwise phase 2 comes later, if at all */
}

static void act_op_valid(Ctx *c) {
    OpCall k = {0};
    k.op = &ops[below(&c->rng, N_OPS)];
    make_room(c, MAX_SLOTS + 1, MAX_SLOTS + 1);
    if (!k.op->build(c, &k)) return;
    bool scrambled = false;
    if (chance(&c->rng, 20))
        for (int i = 0; i < k.op->nslots; i++)
            if (k.t[i] && (k.op->index & (1u << i))) {
                scramble_index(c, k.t[i]);
                scrambled = true;
            }
    int x = run_phase1(c, &k, EXPECT_OK, scrambled ? TRUST_REFS : TRUST_VALID,
                       scrambled ? "valid, random index data" : "valid");
    if (x >= 0) between_phases(c, x);
}

/* A valid call with one argument made certainly wrong. */
static void act_op_invalid(Ctx *c) {
    Rng *r = &c->rng;
    OpCall k = {0};
    k.op = &ops[below(r, N_OPS)];
    make_room(c, MAX_SLOTS + 2, MAX_SLOTS + 2);
    if (!k.op->build(c, &k)) return;
    int slot;
    do slot = (int)below(r, (uint64_t)k.op->nslots);
    while (!(k.op->required & (1u << slot)));
    const char *how;
    switch (below(r, 7)) {
    case 0: k.t[slot] = NULL; how = "required tensor NULL"; break;
    case 1: {
        int64_t dims[1] = {1};
        note(c, "aclCreateTensor() [to destroy]");
        aclTensor *h = aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, NULL);
        verdict(c, API_aclCreateTensor, EXPECT_OK, h != NULL, h ? 0 : -1);
        if (!h) return;
        note(c, "aclDestroyTensor(%p)", (void *)h);
        aclnnStatus s = aclDestroyTensor(h);
        verdict(c, API_aclDestroyTensor, EXPECT_OK, s == OK, s);
        stale_add(&c->stale_tensors, h);
        k.t[slot] = h;
        how = "destroyed tensor";
        break;
    }
    case 2:
        /* Another kind of handle where a tensor belongs. */
        if (c->narrays) k.t[slot] = (aclTensor *)c->arrays[below(r, (uint64_t)c->narrays)];
        else if (c->nstreams) k.t[slot] = (aclTensor *)c->streams[0];
        else k.t[slot] = (aclTensor *)(void *)c->scratch;
        how = "foreign handle as tensor";
        break;
    case 3: k.null_ws = true; how = "workspaceSize NULL"; break;
    case 4: k.null_ex = true; how = "executor NULL"; break;
    case 5: {
        /* DOUBLE is no operator's dtype: the first tensor of every operator checks its dtype. */
        TensorRec *t = tensor_by_handle(c, k.t[0]);
        if (!t) return;
        aclTensor *h = tensor_new(c, ACL_DOUBLE, t->ndim, t->dims);
        if (!h) return;
        k.t[0] = h;
        how = "first tensor DOUBLE";
        break;
    }
    default:
        if (!k.op->range) {
            k.null_ex = true;
            how = "executor NULL";
            break;
        }
        note(c, "aclDestroyIntArray(%p) [range]", (void *)k.range);
        for (int i = 0; i < c->narrays; i++)
            if (c->arrays[i] == k.range) {
                c->arrays[i] = c->arrays[--c->narrays];
                c->array_sizes[i] = c->array_sizes[c->narrays];
            }
        aclnnStatus s = aclDestroyIntArray(k.range);
        verdict(c, API_aclDestroyIntArray, EXPECT_OK, s == OK, s);
        stale_add(&c->stale_arrays, k.range);
        how = "destroyed range";
    }
    run_phase1(c, &k, EXPECT_FAIL, TRUST_NONE, how);
}

/* A valid call with one tensor replaced by a view of the same shape and dtype over the same data, with wild
 * strides and offset: phase 1 may accept or refuse it; phase 2 must refuse it unless the view stays inside
 * its block (the arithmetic of the check must not overflow). */
static void act_op_view(Ctx *c) {
    Rng *r = &c->rng;
    OpCall k = {0};
    k.op = &ops[below(r, N_OPS)];
    make_room(c, MAX_SLOTS + 2, MAX_SLOTS + 1);
    if (!k.op->build(c, &k)) return;
    int slot = (int)below(r, (uint64_t)k.op->nslots);
    TensorRec *t = k.t[slot] ? tensor_by_handle(c, k.t[slot]) : NULL;
    if (!t || !t->data) return;
    int64_t strides[MAX_DIMS], offset;
    for (int i = 0; i < t->ndim; i++) {
        switch (below(r, 5)) {
        case 0: strides[i] = t->strides[i]; break;
        case 1: strides[i] = 2 * t->strides[i]; break;
        case 2: strides[i] = -t->strides[i]; break;
        case 3: strides[i] = 0; break;
        default: strides[i] = wild_int(r);
        }
    }
    offset = chance(r, 50) ? between(r, -4, 16) : wild_int(r);
    char *data = t->data;
    if (chance(r, 20)) data += dtype_size(t->dtype) * (size_t)between(r, 1, 3); /* inside, or past the end */
    note(c, "aclCreateTensor(ndim=%d, strides=[%lld,..], offset=%lld, dtype=%d, data=%p) [view]", t->ndim,
         (long long)(t->ndim ? strides[0] : 0), (long long)offset, (int)t->dtype, (void *)data);
    aclTensor *h = aclCreateTensor(t->dims, (uint64_t)t->ndim, t->dtype, strides, offset, ACL_FORMAT_ND, t->dims,
                                   (uint64_t)t->ndim, data);
    verdict(c, API_aclCreateTensor, EXPECT_OK, h != NULL, h ? 0 : -1);
    if (!h) return;
    int ndim = t->ndim;
    int64_t dims[MAX_DIMS];
    memcpy(dims, t->dims, sizeof dims);
    tensor_add(c, h, ndim, dims, strides, offset, t->dtype, ACL_FORMAT_ND, data, true);
    k.t[slot] = h;
    int x = run_phase1(c, &k, EXPECT_ANY, TRUST_REFS, "one tensor a wild view");
    if (x >= 0) phase2_run(c, x, true);
}

/* Any live tensor, NULL or a destroyed one in every slot, attributes from the edges of int64. */
static void act_op_random(Ctx *c) {
    Rng *r = &c->rng;
    OpCall k = {0};
    k.op = &ops[below(r, N_OPS)];
    for (int i = 0; i < k.op->nslots; i++) {
        unsigned pick = (unsigned)below(r, 100);
        if (pick < 80 && c->ntensors) k.t[i] = c->tensors[below(r, (uint64_t)c->ntensors)].h;
        else if (pick < 90) k.t[i] = stale_pick(c, &c->stale_tensors);
    }
    for (int i = 0; i < N_ATTRS; i++) k.a[i] = chance(r, 60) ? between(r, -1, 8) : wild_int(r);
    k.b = chance(r, 30);
    if (k.op->range) {
        unsigned pick = (unsigned)below(r, 100);
        if (pick < 60 && c->narrays) k.range = c->arrays[below(r, (uint64_t)c->narrays)];
        else if (pick < 75) k.range = stale_pick(c, &c->stale_arrays);
    }
    run_phase1(c, &k, EXPECT_ANY, TRUST_NONE, "random");
}

/* Phase 2 of an executor (the one at index `target`, or any: live, consumed, NULL, called through another
 * operator); workspace and stream right or (unless plain) wrong. */
static void phase2_run(Ctx *c, int target, bool plain) {
    Rng *r = &c->rng;
    ExecRec *e = NULL;
    aclOpExecutor *h;
    Expect expect = EXPECT_OK;
    unsigned pick = target >= 0 ? 0 : (unsigned)below(r, 100);
    if (pick < 80 && c->nexecs) {
        e = &c->execs[target >= 0 ? target : (int)below(r, (uint64_t)c->nexecs)];
        h = e->h;
        if (e->state == EXEC_MAYBE || e->trust != TRUST_VALID) expect = EXPECT_ANY;
    } else if (pick < 95 && (h = stale_pick(c, &c->stale_execs)) != NULL) {
        expect = EXPECT_FAIL;
    } else {
        h = NULL;
        expect = EXPECT_FAIL;
    }
    const OpDesc *op = e ? e->op : &ops[below(r, N_OPS)];
    bool foreign = false;
    if (!plain && chance(r, 8)) {
        const OpDesc *other = &ops[below(r, N_OPS)];
        foreign = other != op;
        op = other;
        if (foreign) expect = EXPECT_FAIL;
    }
    /* Workspace: what phase 1 asked for, none, or a wrong one. */
    uint64_t need = e ? e->ws : 0, ws_size = need;
    void *ws = NULL;
    unsigned w = plain ? 100 : (unsigned)below(r, 100);
    bool null_ws = false;
    if (w < 10) {
        ws_size = need + (uint64_t)between(r, 1, 64); /* NULL with a size */
        null_ws = true;
        expect = EXPECT_FAIL;
    } else if (w < 20 && c->nblocks) {
        Block *b = &c->blocks[below(r, (uint64_t)c->nblocks)];
        ws = b->p;
        ws_size = need <= b->size ? b->size : need;
        if (need > b->size && expect != EXPECT_FAIL) expect = EXPECT_ANY;
    } else if (w < 25 && need > 0) {
        ws_size = need - 1; /* short */
        if (expect != EXPECT_FAIL) expect = EXPECT_ANY;
    }
    if (need > 0 && ws == NULL && ws_size > 0 && !null_ws) {
        make_room(c, 0, 1);
        ws = block_alloc(c, (size_t)(need < (1u << 20) ? need : 1u << 20));
        if (need > (1u << 20)) expect = EXPECT_ANY;
    }
    bool stream_live = true;
    aclrtStream stream = pick_stream(c, &stream_live);
    if (plain && !stream_live) stream = NULL, stream_live = true;
    if (!stream_live) expect = EXPECT_FAIL;
    /* The tensors phase 1 recorded must still be live and inside live device memory. */
    const char *why = "";
    if (e)
        for (int i = 0; i < e->nref; i++) {
            TensorRec *t = tensor_by_id(c, e->ref[i]);
            if (t && tensor_backed(c, t)) continue;
            why = t ? ", a tensor's memory was freed" : ", a tensor was destroyed";
            /* With threads, another thread may have been given the freed address since: live memory again. */
            if (expect != EXPECT_FAIL)
                expect = e->trust == TRUST_NONE || e->state == EXEC_MAYBE || (t && c->threaded) ? EXPECT_ANY
                                                                                            : EXPECT_FAIL;
            break;
        }
    /* An int array destroyed after phase 1: an executor may have copied its values, or hold it and refuse. */
    if (e && e->range && expect == EXPECT_OK) {
        bool live = false;
        for (int i = 0; i < c->narrays; i++) live |= c->arrays[i] == e->range;
        if (!live) {
            expect = EXPECT_ANY;
            why = ", its int array was destroyed";
        }
    }
    int oi = op_index(op);
    const char *which = !h                          ? ""
                        : !e                        ? ": consumed"
                        : foreign                   ? ": another operator's"
                        : e->state == EXEC_MAYBE    ? ": maybe consumed"
                                                    : "";
    note(c, "aclnn%s(ws=%p, wsSize=%llu, executor=%p%s, stream=%p%s%s)", op->name, ws, (unsigned long long)ws_size,
         (void *)h, which, stream, stream_live ? "" : ": destroyed", why);
    aclnnStatus s = op->p2(ws, ws_size, h, stream);
    verdict(c, API_phase2, expect, s == OK, s);
    c->st.op_calls[oi][1]++;
    if (s == OK) c->st.op_ok[oi][1]++;
    int si = stream_index(c, stream);
    if (s == OK && expect != EXPECT_OK) {
        if (si >= 0) c->stream_dirty[si] = true;
        if (stream == NULL) c->default_dirty = true;
    }
    /* Mostly what a correct program does. Otherwise memory the work uses may be released while it is queued
     * (aclrtFree does not wait for it): a caller's mistake that must not make the stub touch freed memory. */
    if (stream_live && !chance(r, UNSYNCED_PERCENT)) stream_sync(c, stream, "");
    if (!e) return;
    if (s == OK && !foreign) {
        if (!e->repeatable) {
            stale_add(&c->stale_execs, h);
            *e = c->execs[--c->nexecs];
        }
    } else {
        e->state = EXEC_MAYBE; /* a failed run may or may not have consumed it */
    }
}

static void act_phase2(Ctx *c) { phase2_run(c, -1, false); }

static void act_exec_misc(Ctx *c) {
    Rng *r = &c->rng;
    unsigned pick = (unsigned)below(r, 100);
    aclnnStatus s;
    if (pick < 40 && c->nexecs) {
        ExecRec *e = &c->execs[below(r, (uint64_t)c->nexecs)];
        note(c, "aclSetAclOpExecutorRepeatable(%p%s)", (void *)e->h, e->state == EXEC_MAYBE ? ": maybe consumed" : "");
        s = aclSetAclOpExecutorRepeatable(e->h);
        verdict(c, API_aclSetAclOpExecutorRepeatable, e->state == EXEC_MAYBE ? EXPECT_ANY : EXPECT_OK, s == OK, s);
        if (s == OK) {
            e->repeatable = true;
            e->state = EXEC_LIVE;
        }
    } else if (pick < 75 && c->nexecs) {
        int i = (int)below(r, (uint64_t)c->nexecs);
        ExecRec e = c->execs[i];
        c->execs[i] = c->execs[--c->nexecs];
        note(c, "aclDestroyAclOpExecutor(%p%s)", (void *)e.h, e.state == EXEC_MAYBE ? ": maybe consumed" : "");
        s = aclDestroyAclOpExecutor(e.h);
        verdict(c, API_aclDestroyAclOpExecutor, e.state == EXEC_MAYBE ? EXPECT_ANY : EXPECT_OK, s == OK, s);
        stale_add(&c->stale_execs, e.h);
    } else {
        aclOpExecutor *h = stale_pick(c, &c->stale_execs);
        bool destroy = chance(r, 50);
        note(c, "%s(%p: %s)", destroy ? "aclDestroyAclOpExecutor" : "aclSetAclOpExecutorRepeatable", (void *)h,
             h ? "consumed" : "NULL");
        s = destroy ? aclDestroyAclOpExecutor(h) : aclSetAclOpExecutorRepeatable(h);
        verdict(c, destroy ? API_aclDestroyAclOpExecutor : API_aclSetAclOpExecutorRepeatable, EXPECT_FAIL, s == OK, s);
    }
}

/* ---- fork ------------------------------------------------------------------------------------------------- */

/* In a child forked while other threads may be inside the stub: init, allocate, copy, run an operator. */
static int fork_child(void) {
    alarm(10);
    aclError s = aclInit(NULL);
    if (s != ACL_SUCCESS && s != ACL_ERROR_REPEAT_INITIALIZE) return 10;
    if (aclrtSetDevice(0) != ACL_SUCCESS) return 11;
    const float tokens[4] = {1, 2, 3, 4};
    float out[4] = {0};
    void *dt = NULL, *di = NULL, *dout = NULL, *ds = NULL;
    if (aclrtMalloc(&dt, sizeof tokens, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc(&di, 8, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&dout, sizeof out, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc(&ds, 8, ACL_MEM_MALLOC_HUGE_FIRST))
        return 12;
    if (aclrtMemcpy(dt, sizeof tokens, tokens, sizeof tokens, ACL_MEMCPY_HOST_TO_DEVICE)) return 13;
    int64_t d2[2] = {2, 2}, d2k[2] = {2, 1}, d1[1] = {2};
    aclTensor *t = aclCreateTensor(d2, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d2, 2, dt);
    aclTensor *i = aclCreateTensor(d2k, 2, ACL_INT32, NULL, 0, ACL_FORMAT_ND, d2k, 2, di);
    aclTensor *o = aclCreateTensor(d2, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d2, 2, dout);
    aclTensor *so = aclCreateTensor(d1, 1, ACL_INT32, NULL, 0, ACL_FORMAT_ND, d1, 1, ds);
    if (!t || !i || !o || !so) return 14;
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclrtStream stream = NULL;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 15;
    if (aclnnMoeTokenPermuteGetWorkspaceSize(t, i, 0, false, o, so, &ws, &ex) != OK || ws != 0) return 16;
    if (aclnnMoeTokenPermute(NULL, 0, ex, stream) != OK || aclrtSynchronizeStream(stream) != ACL_SUCCESS) return 17;
    if (aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST)) return 18;
    if (memcmp(out, tokens, sizeof out) != 0) return 19; /* all indices 0: a stable sort keeps the order */
    if (aclDestroyTensor(t) || aclDestroyTensor(i) || aclDestroyTensor(o) || aclDestroyTensor(so)) return 20;
    if (aclrtFree(dt) || aclrtFree(di) || aclrtFree(dout) || aclrtFree(ds) || aclrtDestroyStream(stream)) return 21;
    return 0;
}

static void act_fork(Ctx *c) {
    note(c, "fork() [child: init, malloc, memcpy, permute, exit]");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL); /* a hung child dies of its alarm */
        _exit(fork_child());
    }
    if (pid < 0) {
        verdict(c, API_fork, EXPECT_ANY, false, -1);
        return;
    }
    int status = 0;
    /* The child has its own alarm; this bound only guards against one that ignores it. */
    for (int waited = 0; waitpid(pid, &status, WNOHANG) == 0; waited++) {
        if (waited == 1500) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        usleep(10000);
    }
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    verdict(c, API_fork, EXPECT_ANY, ok, WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    if (!ok) {
        if (WIFSIGNALED(status))
            finding(c, "fork: the child died of signal %d%s", WTERMSIG(status),
                    WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGKILL ? " (hung)" : "");
        else
            finding(c, "fork: the child failed at step %d", WEXITSTATUS(status));
    }
}

/* ---- shared objects (threaded runs): one thread destroys them while the others use them -------------------- */


static struct {
    char *block;
    aclrtStream stream;
    aclTensor *tensor, *grad, *idx;
    aclIntArray *array;
    aclOpExecutor *exec;
    _Atomic int destroyed;
} shared;

static void shared_create(void) {
    void *p = NULL;
    int64_t d[1] = {64}, g[2] = {8, 8}, ix[1] = {8};
    uint64_t ws = 0;
    if (aclrtMalloc(&p, 64 * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS || aclrtCreateStream(&shared.stream)) abort();
    shared.block = p;
    shared.tensor = aclCreateTensor(d, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d, 1, p);
    shared.array = aclCreateIntArray(d, 1);
    /* A repeatable executor whose operands all live in the shared block (zero indices: every run is valid). */
    shared.grad = aclCreateTensor(g, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, g, 2, p);
    shared.idx = aclCreateTensor(ix, 1, ACL_INT32, NULL, 0, ACL_FORMAT_ND, ix, 1, p);
    if (!shared.tensor || !shared.array || !shared.grad || !shared.idx ||
        aclnnMoeTokenPermuteGradGetWorkspaceSize(shared.grad, shared.idx, 1, false, shared.grad, &ws, &shared.exec) !=
            OK ||
        aclSetAclOpExecutorRepeatable(shared.exec) != OK)
        abort();
}

/* Once, by one thread, while the others may be using the objects. Each destroy must succeed. */
static void shared_destroy(Ctx *c) {
    if (atomic_exchange(&shared.destroyed, 1)) return;
    aclnnStatus s;
    note(c, "aclDestroyAclOpExecutor(%p) [shared]", (void *)shared.exec);
    s = aclDestroyAclOpExecutor(shared.exec);
    verdict(c, API_aclDestroyAclOpExecutor, EXPECT_OK, s == OK, s);
    aclTensor *ts[3] = {shared.tensor, shared.grad, shared.idx};
    for (int i = 0; i < 3; i++) {
        note(c, "aclDestroyTensor(%p) [shared]", (void *)ts[i]);
        s = aclDestroyTensor(ts[i]);
        verdict(c, API_aclDestroyTensor, EXPECT_OK, s == OK, s);
    }
    note(c, "aclDestroyIntArray(%p) [shared]", (void *)shared.array);
    s = aclDestroyIntArray(shared.array);
    verdict(c, API_aclDestroyIntArray, EXPECT_OK, s == OK, s);
    note(c, "aclrtDestroyStream(%p) [shared]", shared.stream);
    s = aclrtDestroyStream(shared.stream);
    verdict(c, API_aclrtDestroyStream, EXPECT_OK, s == ACL_SUCCESS, s);
    note(c, "aclrtFree(%p) [shared]", (void *)shared.block);
    s = aclrtFree(shared.block);
    verdict(c, API_aclrtFree, EXPECT_OK, s == ACL_SUCCESS, s);
}

/* Use a shared object that another thread may be destroying: success or a clean failure, never a crash. */
static void act_shared(Ctx *c) {
    aclnnStatus s;
    int64_t *dims = NULL;
    uint64_t n = 0;
    switch (below(&c->rng, 5)) {
    case 0:
        note(c, "aclnnMoeTokenPermuteGrad(shared executor %p, shared stream)", (void *)shared.exec);
        s = aclnnMoeTokenPermuteGrad(NULL, 0, shared.exec, shared.stream);
        verdict(c, API_phase2, EXPECT_ANY, s == OK, s);
        break;
    case 1:
        note(c, "aclGetViewShape(shared tensor %p)", (void *)shared.tensor);
        s = aclGetViewShape(shared.tensor, &dims, &n);
        verdict(c, API_aclGetViewShape, EXPECT_ANY, s == OK, s);
        if (s == OK) {
            if (!atomic_load(&shared.destroyed) && (n != 1 || dims[0] != 64))
                finding(c, "aclGetViewShape: a shared tensor read back wrong");
            free(dims);
        }
        break;
    case 2:
        note(c, "aclGetIntArraySize(shared array %p)", (void *)shared.array);
        s = aclGetIntArraySize(shared.array, &n);
        verdict(c, API_aclGetIntArraySize, EXPECT_ANY, s == OK, s);
        break;
    case 3:
        note(c, "aclrtSynchronizeStream(shared stream %p)", shared.stream);
        s = aclrtSynchronizeStream(shared.stream);
        verdict(c, API_aclrtSynchronizeStream, EXPECT_ANY, s == ACL_SUCCESS, s);
        break;
    default:
        /* Zeros keep every index valid, in case the address now belongs to another thread's tensor. */
        note(c, "aclrtMemset(shared block %p, 256, 0)", (void *)shared.block);
        s = aclrtMemset(shared.block, 256, 0, 256);
        verdict(c, API_aclrtMemset, EXPECT_ANY, s == ACL_SUCCESS, s);
    }
}

/* ---- sequences -------------------------------------------------------------------------------------------- */

static void act_memcpy_sync(Ctx *c) { act_memcpy(c, false); }
static void act_memcpy_async(Ctx *c) { act_memcpy(c, true); }

static const struct {
    void (*fn)(Ctx *);
    unsigned weight;
} actions[] = {
    {act_malloc, 8},        {act_free, 6},          {act_pinned, 3},          {act_memcpy_sync, 12},
    {act_memcpy_async, 4},  {act_memset, 5},        {act_roundtrip, 2},       {act_stream, 4},
    {act_device, 2},        {act_event, 4},         {act_context, 2},        {act_tensor_random, 7}, {act_tensor_invalid_create, 1}, {act_tensor_get, 6},
    {act_tensor_destroy, 4}, {act_address_reuse, 2}, {act_array, 4},          {act_scalar, 3},  {act_vector, 5},
    {act_op_valid, 9},      {act_op_invalid, 5},    {act_op_random, 5},       {act_op_view, 4},       {act_phase2, 12},
    {act_exec_misc, 4},
};

/* The stub's live-object counters: each must be back where it was when a sequence ends. */
static const struct {
    const char *name;
    uint64_t (*read)(void);
} counters[] = {
    {"live_allocations", aclStubLiveAllocations},
    {"live_allocation_bytes", aclStubLiveAllocationBytes},
    {"live_host_allocations", aclStubLiveHostAllocations},
    {"live_streams", aclStubLiveStreams},
    {"live_tensors", aclStubLiveTensors},
    {"live_scalars", aclStubLiveScalars},
    {"live_int_arrays", aclStubLiveIntArrays},
    {"live_executors", aclStubLiveExecutors},
    {"live_events", aclStubLiveEvents},
    {"live_contexts", aclStubLiveContexts},
    {"pending_work", aclStubPendingWork},
    {"live_float_arrays", aclStubLiveFloatArrays},
    {"live_bool_arrays", aclStubLiveBoolArrays},
    {"live_tensor_lists", aclStubLiveTensorLists},
    {"live_scalar_lists", aclStubLiveScalarLists},
};
#define N_COUNTERS N_ELEMS(counters)

static void counters_now(uint64_t v[N_COUNTERS]) {
    for (size_t i = 0; i < N_COUNTERS; i++) v[i] = counters[i].read();
}

static void check_counters(Ctx *c, const uint64_t before[N_COUNTERS], const char *when) {
    uint64_t now[N_COUNTERS];
    counters_now(now);
    for (size_t i = 0; i < N_COUNTERS; i++)
        if (now[i] != before[i])
            finding(c, "%s is %" PRIu64 " %s, %" PRIu64 " before (leak or double count)", counters[i].name, now[i],
                    when, before[i]);
}

/* Destroy everything the model holds; every destroy of a live object must succeed. */
static void cleanup(Ctx *c) {
    aclnnStatus s;
    stream_sync(c, NULL, " [cleanup]");
    for (int i = 0; i < c->nstreams; i++) stream_sync(c, c->streams[i], " [cleanup]");
    while (c->nevents) event_destroy_at(c, c->nevents - 1, " [cleanup]");
    while (c->nexecs) {
        ExecRec e = c->execs[--c->nexecs];
        note(c, "aclDestroyAclOpExecutor(%p%s) [cleanup]", (void *)e.h,
             e.state == EXEC_MAYBE ? ": maybe consumed" : "");
        s = aclDestroyAclOpExecutor(e.h);
        verdict(c, API_aclDestroyAclOpExecutor, e.state == EXEC_MAYBE ? EXPECT_ANY : EXPECT_OK, s == OK, s);
    }
    while (c->nvecs) vec_destroy_at(c, c->nvecs - 1, " [cleanup]");
    while (c->ntensors) tensor_destroy_at(c, c->ntensors - 1);
    while (c->narrays) {
        aclIntArray *a = c->arrays[--c->narrays];
        note(c, "aclDestroyIntArray(%p) [cleanup]", (void *)a);
        s = aclDestroyIntArray(a);
        verdict(c, API_aclDestroyIntArray, EXPECT_OK, s == OK, s);
    }
    while (c->nscalars) {
        aclScalar *sc = c->scalars[--c->nscalars];
        note(c, "aclDestroyScalar(%p) [cleanup]", (void *)sc);
        s = aclDestroyScalar(sc);
        verdict(c, API_aclDestroyScalar, EXPECT_OK, s == OK, s);
    }
    while (c->nstreams) {
        aclrtStream st = c->streams[--c->nstreams];
        note(c, "aclrtDestroyStream(%p) [cleanup]", st);
        s = aclrtDestroyStream(st);
        verdict(c, API_aclrtDestroyStream, EXPECT_OK, s == ACL_SUCCESS, s);
    }
    while (c->nblocks) block_free(c, c->nblocks - 1);
    while (c->npinned) {
        void *p = c->pinned[--c->npinned].p;
        note(c, "aclrtFreeHost(%p) [cleanup]", p);
        s = aclrtFreeHost(p);
        verdict(c, API_aclrtFreeHost, EXPECT_OK, s == ACL_SUCCESS, s);
    }
}

static void reset_model(Ctx *c) {
    memset(c->ring, 0, sizeof c->ring);
    c->ring_next = 0;
    c->seq_calls = 0;
    c->nfreed = 0;
    c->default_dirty = false;
    memset(c->stale_vecs, 0, sizeof c->stale_vecs);
    Stale *lists[] = {&c->stale_streams, &c->stale_tensors, &c->stale_arrays, &c->stale_scalars, &c->stale_execs,
                      &c->stale_pinned, &c->stale_events, &c->stale_contexts};
    for (size_t i = 0; i < N_ELEMS(lists); i++) memset(lists[i], 0, sizeof *lists[i]);
}

#define FORK_EVERY 5000

static uint64_t sequence_length(uint64_t seq_seed) { return 200 + mix64(seq_seed ^ 0x5eed) % 800; }

/* One sequence from an empty model to an empty model; at most max_calls calls before the cleanup. */
static void sequence(Ctx *c, uint64_t seq_seed, uint64_t max_calls) {
    unsigned total_weight = 0; /* per call: threads run sequences at once */
    for (size_t i = 0; i < N_ELEMS(actions); i++) total_weight += actions[i].weight;
    uint64_t before[N_COUNTERS];
    if (!c->threaded) counters_now(before);
    reset_model(c);
    c->seq_seed = seq_seed;
    c->rng.s = seq_seed;
    uint64_t len = sequence_length(seq_seed);
    if (len > max_calls) len = max_calls;
    while (c->seq_calls < len) {
        if (c->threaded && c->id == 0 && c->total >= c->budget / 2) shared_destroy(c);
        if (c->id == 0 && c->total >= c->next_fork) {
            c->next_fork += c->threaded ? FORK_EVERY / 2 : FORK_EVERY;
            act_fork(c);
            continue;
        }
        if (c->threaded && chance(&c->rng, 3)) {
            act_shared(c);
            continue;
        }
        unsigned w = (unsigned)below(&c->rng, total_weight);
        size_t i = 0;
        while (w >= actions[i].weight) w -= actions[i++].weight;
        actions[i].fn(c);
    }
    cleanup(c);
    c->st.sequences++;
    if (!c->threaded) check_counters(c, before, "after a sequence");
}

static void run_budget(Ctx *c) {
    for (uint64_t k = 0; c->total < c->budget; k++)
        sequence(c, mix64(opt.seed * 0x100000001b3ULL + ((uint64_t)c->id << 40) + k), c->budget - c->total);
}

static void *thread_main(void *arg) {
    Ctx *c = arg;
    note(c, "aclrtSetDevice(0) [thread start]");
    aclError s = aclrtSetDevice(0);
    verdict(c, API_aclrtSetDevice, EXPECT_OK, s == ACL_SUCCESS, s);
    run_budget(c);
    return NULL;
}

static Ctx *ctx_new(int id, bool threaded, uint64_t budget) {
    Ctx *c = calloc(1, sizeof *c);
    if (!c || !(c->scratch = malloc(SCRATCH))) abort();
    c->id = id;
    c->threaded = threaded;
    c->budget = budget;
    c->next_fork = FORK_EVERY / 2;
    all_ctx[n_ctx++] = c;
    return c;
}

/* ---- summary and main ------------------------------------------------------------------------------------- */

static double start_time;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_summary(double seconds) {
    if (seconds < 0) seconds = now_seconds() - start_time;
    Stats t = {0};
    uint64_t calls = 0;
    for (int i = 0; i < n_ctx; i++) {
        const Stats *s = &all_ctx[i]->st;
        for (int a = 0; a < API_COUNT; a++) {
            t.calls[a] += s->calls[a];
            t.ok[a] += s->ok[a];
        }
        for (int o = 0; o < N_OPS; o++)
            for (int p = 0; p < 2; p++) {
                t.op_calls[o][p] += s->op_calls[o][p];
                t.op_ok[o][p] += s->op_ok[o][p];
            }
        t.sequences += s->sequences;
        t.handle_reuses += s->handle_reuses;
    }
    for (int a = 0; a < API_COUNT; a++) calls += t.calls[a];
    printf("fuzz_api: seed %" PRIu64 ", %d thread(s): %" PRIu64 " calls in %" PRIu64 " sequences, %.2f s "
           "(%.0f calls/s, %.1f sequences/s)\n", opt.seed, opt.threads, calls, t.sequences, seconds,
           seconds > 0 ? (double)calls / seconds : 0.0, seconds > 0 ? (double)t.sequences / seconds : 0.0);
    printf("destroyed handle values handed out again by the stub: %" PRIu64 "\n", t.handle_reuses);
    printf("%-32s %10s %10s\n", "call", "calls", "succeeded");
    for (int a = 0; a < API_COUNT; a++)
        if (t.calls[a]) printf("%-32s %10" PRIu64 " %10" PRIu64 "\n", api_names[a], t.calls[a], t.ok[a]);
    printf("%-36s %16s %16s\n", "operator", "phase 1 (ok)", "phase 2 (ok)");
    for (int o = 0; o < N_OPS; o++) {
        char p1[40], p2[40];
        snprintf(p1, sizeof p1, "%" PRIu64 " (%" PRIu64 ")", t.op_calls[o][0], t.op_ok[o][0]);
        snprintf(p2, sizeof p2, "%" PRIu64 " (%" PRIu64 ")", t.op_calls[o][1], t.op_ok[o][1]);
        printf("aclnn%-31s %16s %16s\n", ops[o].name, p1, p2);
    }
    printf("findings: %d distinct, %" PRIu64 " in all\n", n_findings, total_findings);
    for (int i = 0; i < n_findings; i++)
        printf("  %6" PRIu64 "x  %s  (first in sequence %" PRIu64 ")\n", findings[i].count, findings[i].key,
               findings[i].seq_seed);
    fflush(stdout);
}

static uint64_t parse_u64(const char *flag, const char *v) {
    char *end;
    unsigned long long x = strtoull(v ? v : "", &end, 0);
    if (!v || !*v || *end) {
        fprintf(stderr, "fuzz_api: %s needs a non-negative integer\n", flag);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seed")) opt.seed = parse_u64(a, v), i++;
        else if (!strcmp(a, "--calls")) opt.calls = parse_u64(a, v), i++;
        else if (!strcmp(a, "--threads")) opt.threads = (int)parse_u64(a, v), i++;
        else if (!strcmp(a, "--timeout")) opt.timeout = (unsigned)parse_u64(a, v), i++;
        else if (!strcmp(a, "--replay")) opt.replay = parse_u64(a, v), opt.replay_set = true, i++;
        else if (!strcmp(a, "--keep-going")) opt.keep_going = true;
        else {
            fprintf(stderr, "usage: %s [--seed S] [--calls N] [--threads N] [--timeout SEC] [--keep-going] "
                    "[--replay SEQSEED]\n", argv[0]);
            return 2;
        }
    }
    if (opt.threads < 1 || opt.threads > (int)N_ELEMS(all_ctx)) {
        fprintf(stderr, "fuzz_api: --threads must be in [1, %d]\n", (int)N_ELEMS(all_ctx));
        return 2;
    }
    if (register_death_callbacks() == 0) {
        int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < N_ELEMS(sigs); i++) signal(sigs[i], on_signal);
    }
    signal(SIGALRM, on_signal);
    alarm(opt.timeout);

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "fuzz_api: aclInit/aclrtSetDevice failed: %s\n", aclGetRecentErrMsg());
        return 2;
    }
    uint64_t before[N_COUNTERS];
    counters_now(before);
    start_time = now_seconds();
    if (opt.replay_set) {
        Ctx *c = ctx_new(0, false, UINT64_MAX);
        c->next_fork = UINT64_MAX;
        sequence(c, opt.replay, UINT64_MAX);
    } else if (opt.threads == 1) {
        run_budget(ctx_new(0, false, opt.calls));
    } else {
        shared_create();
        pthread_t tid[N_ELEMS(all_ctx)];
        Ctx *cs[N_ELEMS(all_ctx)];
        for (int i = 0; i < opt.threads; i++) cs[i] = ctx_new(i, true, opt.calls / (uint64_t)opt.threads);
        for (int i = 0; i < opt.threads; i++)
            if (pthread_create(&tid[i], NULL, thread_main, cs[i]) != 0) abort();
        for (int i = 0; i < opt.threads; i++) pthread_join(tid[i], NULL);
        shared_destroy(cs[0]);
        check_counters(cs[0], before, "after all threads");
    }
    double seconds = now_seconds() - start_time;
    aclrtResetDevice(0);
    aclFinalize();
    print_summary(seconds);
    return n_findings ? 1 : 0;
}
