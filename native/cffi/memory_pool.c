/*
 * The client's memory pools (see aclnn_py/memory.py): device blocks, per-stream workspaces, and host blocks
 * for results the stub writes in place.
 *
 * The device pool (see aclnn_py/memory.py). Freed blocks are kept, keyed by
 * device, stream and size class, and handed out again for the same key, so steady-state calls allocate
 * nothing. Reuse is limited to the stream a block was freed on: work queued on that stream runs in order,
 * so the next user cannot overtake the previous one (the rule CuPy's pool follows). Blocks of a stream are
 * freed, after synchronising it, when the stream is destroyed, and all of them by free_all_blocks.
 * Placed into the generated extension source after the redirect macros (every ACL call goes through the
 * late-bound table); compiles on its own against aclnnpy.h.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "aclnnpy_glue.h"

/* Whose work a block or workspace serves: a stream handle, and for the NULL default stream, which one it
 * means (the current context's: its device and the context itself). An explicit stream is its own key. */
typedef struct {
    int32_t device;
    aclrtContext context; /* NULL for an explicit stream */
    aclrtStream stream;
} AclnnpyKey;

static AclnnpyKey aclnnpy_key(aclrtStream stream) {
    AclnnpyKey k = {-1, NULL, stream};
    aclrtGetDevice(&k.device);
    if (stream == NULL) aclrtGetCurrentContext(&k.context);
    return k;
}

static int aclnnpy_same_key(AclnnpyKey a, AclnnpyKey b) {
    return a.stream == b.stream && (a.stream != NULL || (a.device == b.device && a.context == b.context));
}

typedef struct {
    AclnnpyKey key;
    uint64_t size; /* the size class */
    void *ptr;
} AclnnpyBlock;

static pthread_mutex_t aclnnpy_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static AclnnpyBlock *aclnnpy_free_blocks;
static size_t aclnnpy_n_free, aclnnpy_free_cap;
static int aclnnpy_mem_enabled = -1; /* -1: read ACLNN_PY_MEMORY_POOL on first use */
/* used: handed out and not returned; cached: held in the free list; hits/misses: requests served from
 * the free list / by aclrtMalloc */
static uint64_t aclnnpy_used, aclnnpy_cached, aclnnpy_hits, aclnnpy_misses;

/* Size classes: 512-byte minimum, then four per power of two, so a class wastes at most a quarter. */
static uint64_t aclnnpy_size_class(uint64_t size) {
    if (size <= 512) return 512;
    uint64_t p = (uint64_t)1 << (63 - __builtin_clzll(size)), q = p / 4;
    uint64_t rounded = (size + q - 1) / q * q;
    return rounded < size ? size : rounded; /* no class above 2^63: the exact size */
}

static int aclnnpy_pool_enabled(void) {
    if (aclnnpy_mem_enabled < 0) {
        const char *env = getenv("ACLNN_PY_MEMORY_POOL");
        aclnnpy_mem_enabled = !(env && (strcmp(env, "0") == 0 || strcmp(env, "off") == 0));
    }
    return aclnnpy_mem_enabled;
}

/* At least size bytes on the current device for work on stream; *fresh tells a new block (the stub's are
 * zero-filled) from a reused one. */
int aclnnpy_pool_malloc(aclrtStream stream, uint64_t size, void **ptr, int *fresh) {
    AclnnpyKey key = aclnnpy_key(stream);
    uint64_t cls = aclnnpy_size_class(size);
    pthread_mutex_lock(&aclnnpy_mem_lock);
    if (aclnnpy_pool_enabled()) {
        for (size_t i = aclnnpy_n_free; i-- > 0;) {
            AclnnpyBlock *b = &aclnnpy_free_blocks[i];
            if (b->size == cls && aclnnpy_same_key(b->key, key) && b->key.device == key.device) {
                *ptr = b->ptr;
                *b = aclnnpy_free_blocks[--aclnnpy_n_free];
                aclnnpy_cached -= cls;
                aclnnpy_used += cls;
                aclnnpy_hits++;
                *fresh = 0;
                pthread_mutex_unlock(&aclnnpy_mem_lock);
                return 0;
            }
        }
    }
    pthread_mutex_unlock(&aclnnpy_mem_lock);
    int status = aclrtMalloc(ptr, (size_t)cls, ACL_MEM_MALLOC_HUGE_FIRST);
    if (status) return status;
    pthread_mutex_lock(&aclnnpy_mem_lock);
    aclnnpy_used += cls;
    aclnnpy_misses++;
    pthread_mutex_unlock(&aclnnpy_mem_lock);
    *fresh = 1;
    return 0;
}

/* Return a block of aclnnpy_pool_malloc(stream, size): cached for the same key, or freed when the pool is
 * off (or the free list cannot grow). */
void aclnnpy_pool_free(aclrtStream stream, void *ptr, uint64_t size) {
    if (ptr == NULL) return;
    AclnnpyKey key = aclnnpy_key(stream);
    uint64_t cls = aclnnpy_size_class(size);
    pthread_mutex_lock(&aclnnpy_mem_lock);
    aclnnpy_used -= cls;
    int keep = aclnnpy_pool_enabled();
    if (keep && aclnnpy_n_free == aclnnpy_free_cap) {
        size_t cap = aclnnpy_free_cap ? 2 * aclnnpy_free_cap : 64;
        AclnnpyBlock *grown = realloc(aclnnpy_free_blocks, cap * sizeof *grown);
        if (grown) {
            aclnnpy_free_blocks = grown;
            aclnnpy_free_cap = cap;
        } else {
            keep = 0;
        }
    }
    if (keep) {
        aclnnpy_free_blocks[aclnnpy_n_free++] = (AclnnpyBlock){key, cls, ptr};
        aclnnpy_cached += cls;
    }
    pthread_mutex_unlock(&aclnnpy_mem_lock);
    if (!keep) aclrtFree(ptr);
}

/* Free the cached blocks of stream (whichever device they are on; the NULL stream's of the current context),
 * or with all set every cached block of the current device, after synchronising their streams; returns how
 * many were freed. Taken out under the lock, freed outside it. */
int aclnnpy_pool_release_blocks(aclrtStream stream, int all) {
    AclnnpyKey key = aclnnpy_key(stream);
    pthread_mutex_lock(&aclnnpy_mem_lock);
    size_t n = 0;
    AclnnpyBlock *taken = aclnnpy_n_free ? malloc(aclnnpy_n_free * sizeof *taken) : NULL;
    for (size_t i = 0; taken && i < aclnnpy_n_free;) {
        AclnnpyBlock *b = &aclnnpy_free_blocks[i];
        if (all ? b->key.device == key.device : aclnnpy_same_key(b->key, key)) {
            taken[n++] = *b;
            aclnnpy_cached -= b->size;
            *b = aclnnpy_free_blocks[--aclnnpy_n_free];
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&aclnnpy_mem_lock);
    for (size_t i = 0; i < n; i++) {
        aclrtSynchronizeStream(taken[i].key.stream); /* queued work may still use the block */
        aclrtFree(taken[i].ptr);
    }
    free(taken);
    return (int)n;
}

#define ACLNNPY_MAX_WORKSPACES 64

/* ---- workspace pool: one buffer per stream, grown on demand, freed only after a synchronisation ----
 * A buffer is taken out of the table under the lock and synchronised and freed outside it: a stream's
 * synchronisation may wait for work another thread queues only after it got its own stream's workspace. */

typedef struct {
    AclnnpyKey key;
    void *ptr;
    uint64_t size;
} AclnnpyWorkspace;

static pthread_mutex_t aclnnpy_ws_lock = PTHREAD_MUTEX_INITIALIZER;
static AclnnpyWorkspace aclnnpy_ws[ACLNNPY_MAX_WORKSPACES];
static int aclnnpy_ws_used;

static int aclnnpy_ws_find(AclnnpyKey key) { /* aclnnpy_ws_lock held */
    int i = 0;
    while (i < aclnnpy_ws_used && !aclnnpy_same_key(aclnnpy_ws[i].key, key)) i++;
    return i < aclnnpy_ws_used ? i : -1;
}

static AclnnpyWorkspace aclnnpy_ws_take(int i) { /* aclnnpy_ws_lock held */
    AclnnpyWorkspace w = aclnnpy_ws[i];
    aclnnpy_ws[i] = aclnnpy_ws[--aclnnpy_ws_used];
    return w;
}

static void aclnnpy_ws_release(AclnnpyWorkspace w) { /* without the lock */
    if (w.ptr == NULL) return;
    aclrtSynchronizeStream(w.key.stream); /* queued work may still use the buffer */
    aclrtFree(w.ptr);
}

/* A workspace of at least size bytes for work queued on stream; reused while the size fits. */
int aclnnpy_workspace(aclrtStream stream, uint64_t size, void **ptr) {
    AclnnpyKey key = aclnnpy_key(stream);
    AclnnpyWorkspace drop[2] = {{key, NULL, 0}, {key, NULL, 0}};
    pthread_mutex_lock(&aclnnpy_ws_lock);
    int i = aclnnpy_ws_find(key);
    if (i >= 0 && aclnnpy_ws[i].size >= size) {
        *ptr = aclnnpy_ws[i].ptr;
        pthread_mutex_unlock(&aclnnpy_ws_lock);
        return 0;
    }
    if (i >= 0) drop[0] = aclnnpy_ws_take(i);
    pthread_mutex_unlock(&aclnnpy_ws_lock);
    aclnnpy_ws_release(drop[0]);
    void *fresh = NULL;
    int status = aclrtMalloc(&fresh, size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (status) return status;
    pthread_mutex_lock(&aclnnpy_ws_lock);
    /* Another thread may have grown this stream's buffer meanwhile: keep the larger one. */
    drop[0] = (AclnnpyWorkspace){key, fresh, size};
    if ((i = aclnnpy_ws_find(key)) >= 0 && aclnnpy_ws[i].size >= size) {
        *ptr = aclnnpy_ws[i].ptr;
    } else {
        if (i >= 0) drop[1] = aclnnpy_ws_take(i);
        else if (aclnnpy_ws_used == ACLNNPY_MAX_WORKSPACES) drop[1] = aclnnpy_ws_take(0);
        aclnnpy_ws[aclnnpy_ws_used++] = drop[0];
        drop[0].ptr = NULL;
        *ptr = fresh;
    }
    pthread_mutex_unlock(&aclnnpy_ws_lock);
    if (drop[0].ptr) aclrtFree(drop[0].ptr); /* never used: nothing to wait for */
    aclnnpy_ws_release(drop[1]);
    return 0;
}

/* Everything held for stream (its workspace and its cached blocks; for the NULL stream, the current
 * context's), after synchronising it: called before the stream is destroyed, from any thread. With all set,
 * everything held on the current device, for every stream. Returns how many buffers were freed. */
static int aclnnpy_release(aclrtStream stream, int all) {
    AclnnpyWorkspace taken[ACLNNPY_MAX_WORKSPACES];
    int n = 0;
    AclnnpyKey key = aclnnpy_key(stream);
    pthread_mutex_lock(&aclnnpy_ws_lock);
    for (int i = aclnnpy_ws_used - 1; i >= 0; i--)
        if (all ? aclnnpy_ws[i].key.device == key.device : aclnnpy_same_key(aclnnpy_ws[i].key, key))
            taken[n++] = aclnnpy_ws_take(i);
    pthread_mutex_unlock(&aclnnpy_ws_lock);
    for (int i = 0; i < n; i++) aclnnpy_ws_release(taken[i]);
    return n + aclnnpy_pool_release_blocks(stream, all);
}

int aclnnpy_stream_release(aclrtStream stream) { return aclnnpy_release(stream, 0); }

int aclnnpy_device_release(void) { return aclnnpy_release(NULL, 1); }

/* ---- host pool: blocks for numpy results the stub writes in place (lent to it for one call) ---------- */

/* Each block carries its header just below the address handed out, so freeing needs only the address
 * (a numpy array's destructor knows nothing else). Large blocks are mapped 2 MiB aligned and advised as
 * transparent huge pages, like the stub's device memory: kernels gather rows from all over them. */
typedef struct {
    void *raw;     /* what posix_memalign or mmap returned */
    size_t mapped; /* length of the mapping, 0 for posix_memalign */
    uint64_t size; /* the size class */
} AclnnpyHostHeader;

#define ACLNNPY_HOST_HEADER 64
#define ACLNNPY_HUGE_PAGE ((size_t)2 << 20)
#define ACLNNPY_HUGE_MIN ((uint64_t)4 << 20)

static pthread_mutex_t aclnnpy_host_lock = PTHREAD_MUTEX_INITIALIZER;
static void **aclnnpy_host_free_list;
static size_t aclnnpy_host_n_free, aclnnpy_host_cap;
static uint64_t aclnnpy_host_used, aclnnpy_host_cached, aclnnpy_host_hits, aclnnpy_host_misses;
static int aclnnpy_host_poison = -1; /* -1: read ACLNN_PY_DEBUG_POISON_OUTPUTS on first use */

static AclnnpyHostHeader *aclnnpy_host_header(void *ptr) {
    return (AclnnpyHostHeader *)((char *)ptr - ACLNNPY_HOST_HEADER);
}

static void *aclnnpy_host_new(uint64_t cls) {
    if (cls > SIZE_MAX - ACLNNPY_HUGE_PAGE - ACLNNPY_HOST_HEADER) return NULL;
    if (cls >= ACLNNPY_HUGE_MIN) {
        size_t len = (size_t)cls + ACLNNPY_HUGE_PAGE;
        char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw != MAP_FAILED) {
            char *p = (char *)(((uintptr_t)raw + ACLNNPY_HOST_HEADER + ACLNNPY_HUGE_PAGE - 1) &
                               ~(uintptr_t)(ACLNNPY_HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
            madvise(p, (size_t)cls, MADV_HUGEPAGE); /* a hint: without THP the block still works */
#endif
            *aclnnpy_host_header(p) = (AclnnpyHostHeader){raw, len, cls};
            return p;
        }
    }
    void *raw = NULL;
    if (posix_memalign(&raw, ACLNNPY_HOST_HEADER, (size_t)cls + ACLNNPY_HOST_HEADER)) return NULL;
    char *p = (char *)raw + ACLNNPY_HOST_HEADER;
    *aclnnpy_host_header(p) = (AclnnpyHostHeader){raw, 0, cls};
    return p;
}

static void aclnnpy_host_delete(void *ptr) {
    AclnnpyHostHeader h = *aclnnpy_host_header(ptr);
    if (h.mapped)
        munmap(h.raw, h.mapped);
    else
        free(h.raw);
}

void *aclnnpy_host_alloc(uint64_t size, int zero) {
    uint64_t cls = aclnnpy_size_class(size);
    void *p = NULL;
    pthread_mutex_lock(&aclnnpy_host_lock);
    if (aclnnpy_host_poison < 0) {
        const char *env = getenv("ACLNN_PY_DEBUG_POISON_OUTPUTS");
        aclnnpy_host_poison = env && strcmp(env, "1") == 0;
    }
    if (aclnnpy_pool_enabled()) {
        for (size_t i = aclnnpy_host_n_free; i-- > 0;) {
            if (aclnnpy_host_header(aclnnpy_host_free_list[i])->size == cls) {
                p = aclnnpy_host_free_list[i];
                aclnnpy_host_free_list[i] = aclnnpy_host_free_list[--aclnnpy_host_n_free];
                aclnnpy_host_cached -= cls;
                aclnnpy_host_hits++;
                break;
            }
        }
    }
    int reused = p != NULL, poison = aclnnpy_host_poison;
    pthread_mutex_unlock(&aclnnpy_host_lock);
    if (p == NULL && (p = aclnnpy_host_new(cls)) == NULL) return NULL;
    pthread_mutex_lock(&aclnnpy_host_lock);
    aclnnpy_host_used += cls;
    if (!reused) aclnnpy_host_misses++;
    pthread_mutex_unlock(&aclnnpy_host_lock);
    int mapped = aclnnpy_host_header(p)->mapped != 0; /* fresh mappings are zero already */
    if (zero && (reused || !mapped))
        memset(p, 0, (size_t)size);
    else if (!zero && poison)
        memset(p, 0xff, (size_t)size); /* tests: an element the operator leaves unwritten shows */
    return p;
}

void aclnnpy_host_free(void *ptr) {
    if (ptr == NULL) return;
    uint64_t cls = aclnnpy_host_header(ptr)->size;
    pthread_mutex_lock(&aclnnpy_host_lock);
    aclnnpy_host_used -= cls;
    int keep = aclnnpy_pool_enabled();
    if (keep && aclnnpy_host_n_free == aclnnpy_host_cap) {
        size_t cap = aclnnpy_host_cap ? 2 * aclnnpy_host_cap : 64;
        void **grown = realloc(aclnnpy_host_free_list, cap * sizeof *grown);
        if (grown) {
            aclnnpy_host_free_list = grown;
            aclnnpy_host_cap = cap;
        } else {
            keep = 0;
        }
    }
    if (keep) {
        aclnnpy_host_free_list[aclnnpy_host_n_free++] = ptr;
        aclnnpy_host_cached += cls;
    }
    pthread_mutex_unlock(&aclnnpy_host_lock);
    if (!keep) aclnnpy_host_delete(ptr);
}

int aclnnpy_host_release_blocks(void) {
    pthread_mutex_lock(&aclnnpy_host_lock);
    void **taken = aclnnpy_host_free_list;
    size_t n = aclnnpy_host_n_free;
    aclnnpy_host_free_list = NULL;
    aclnnpy_host_n_free = aclnnpy_host_cap = 0;
    aclnnpy_host_cached = 0;
    pthread_mutex_unlock(&aclnnpy_host_lock);
    for (size_t i = 0; i < n; i++) aclnnpy_host_delete(taken[i]);
    free(taken);
    return (int)n;
}

/* used bytes, total bytes, hits, misses, cached blocks, enabled: what the stats functions report */
static void aclnnpy_fill_stats(uint64_t *out, uint64_t used, uint64_t cached, uint64_t hits, uint64_t misses,
                               size_t n_free) {
    const uint64_t values[6] = {used, used + cached, hits, misses, n_free, (uint64_t)aclnnpy_pool_enabled()};
    memcpy(out, values, sizeof values);
}

void aclnnpy_host_stats(uint64_t *out) {
    pthread_mutex_lock(&aclnnpy_host_lock);
    aclnnpy_fill_stats(out, aclnnpy_host_used, aclnnpy_host_cached, aclnnpy_host_hits, aclnnpy_host_misses,
                       aclnnpy_host_n_free);
    pthread_mutex_unlock(&aclnnpy_host_lock);
}

/* A child forked while another thread held a lock must not inherit it locked. */
static void aclnnpy_locks_prepare(void) {
    pthread_mutex_lock(&aclnnpy_ws_lock);
    pthread_mutex_lock(&aclnnpy_mem_lock);
    pthread_mutex_lock(&aclnnpy_host_lock);
}
static void aclnnpy_locks_release(void) {
    pthread_mutex_unlock(&aclnnpy_host_lock);
    pthread_mutex_unlock(&aclnnpy_mem_lock);
    pthread_mutex_unlock(&aclnnpy_ws_lock);
}
__attribute__((constructor)) static void aclnnpy_locks_atfork(void) {
    pthread_atfork(aclnnpy_locks_prepare, aclnnpy_locks_release, aclnnpy_locks_release);
}

/* ---- what Python sees ---- */

void aclnnpy_pool_stats(uint64_t *out) {
    pthread_mutex_lock(&aclnnpy_mem_lock);
    aclnnpy_fill_stats(out, aclnnpy_used, aclnnpy_cached, aclnnpy_hits, aclnnpy_misses, aclnnpy_n_free);
    pthread_mutex_unlock(&aclnnpy_mem_lock);
}

/* Turning the pool off frees nothing by itself: free_all_blocks does. */
void aclnnpy_pool_set_enabled(int on) {
    pthread_mutex_lock(&aclnnpy_mem_lock);
    aclnnpy_mem_enabled = on != 0;
    pthread_mutex_unlock(&aclnnpy_mem_lock);
}
