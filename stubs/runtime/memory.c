/* "Device" memory (host memory registered as aclrtMalloc blocks), pinned host memory, copies and memset.
 *
 * Device blocks of every device live in one array sorted by start address, so "which block contains this
 * address" is a binary search; each block records its device, and each device has its own capacity and
 * usage (aclrtGetMemInfo). A read-write lock lets copies run concurrently while keeping a block from being
 * freed underneath a copy that has already validated it, or under queued work while it runs. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "ptr_set.h"
#include "rt_internal.h"

#define DEVICE_ALIGN 64   /* start address alignment of aclrtMalloc (CANN) */
#define DEVICE_GRANULE 32 /* sizes are rounded up to this and one more granule is added (CANN, A2/A3) */

typedef struct {
    uintptr_t start; /* address handed out, DEVICE_ALIGN aligned */
    size_t size;     /* requested size (what the allocation counters and leak reports count) */
    size_t usable;   /* size with the device's padding: the span callers may touch */
    int32_t device;
    void *raw;       /* what calloc or mmap returned, for free; NULL for lent host memory */
    size_t mapped;   /* length of the mapping when raw came from mmap, else 0 */
    struct Lent *lent; /* host memory lent by aclStubLendHostMemory, else NULL */
} DeviceBlock;

/*
 * Large blocks are mapped directly, 2 MiB aligned and advised as transparent huge pages (what
 * ACL_MEM_MALLOC_HUGE_FIRST asks a device for): the kernels gather rows from all over gigabyte-sized
 * tensors, and 4 KiB pages would make them TLB-bound. Sanitizer builds keep calloc so that every block
 * stays under AddressSanitizer's watch.
 */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN_BYTES ((size_t)4 << 20)

static void *map_huge(size_t bytes, size_t *mapped) {
#if defined(MADV_HUGEPAGE) && !defined(__SANITIZE_ADDRESS__)
    size_t len = bytes + HUGE_PAGE;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *aligned = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    madvise(aligned, bytes, MADV_HUGEPAGE); /* a hint: without THP the block still works */
    *mapped = len;
    return p;
#else
    (void)bytes;
    *mapped = 0;
    return NULL;
#endif
}

static pthread_rwlock_t blocks_lock = PTHREAD_RWLOCK_INITIALIZER;
static DeviceBlock *blocks; /* sorted by start, no overlaps */
static size_t block_count, block_capacity;
static uint64_t block_bytes;
static uint64_t device_bytes[RT_MAX_DEVICES];

static PtrSet host_blocks = PTR_SET_INIT;

/* ---- size limit ---------------------------------------------------------------------------------- */

static size_t max_request;
static pthread_once_t max_request_once = PTHREAD_ONCE_INIT;

/* A device cannot hand out more than it has; the stub's "device" is host RAM, so requests beyond physical
 * memory fail with 207001 up front instead of reaching the allocator (which, under AddressSanitizer,
 * aborts on absurd sizes instead of returning NULL). The cap also keeps the size arithmetic from
 * overflowing. */
static void compute_max_request(void) {
    size_t limit = SIZE_MAX / 2;
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0 && (unsigned long)pages <= limit / (unsigned long)page_size)
        limit = (size_t)pages * (size_t)page_size;
#if defined(__SANITIZE_ADDRESS__)
    if (limit > ((size_t)1 << 40) - ((size_t)1 << 20)) limit = ((size_t)1 << 40) - ((size_t)1 << 20);
#endif
    max_request = limit;
}

static bool request_too_large(size_t size) {
    pthread_once(&max_request_once, compute_max_request);
    return size > max_request;
}

/* A device's memory: ACLNN_STUB_DEVICE_MEMORY bytes (default 64 GiB), never more than the host can back. */
#define DEFAULT_DEVICE_MEMORY ((uint64_t)64 << 30)
static uint64_t device_capacity;
static pthread_once_t device_capacity_once = PTHREAD_ONCE_INIT;

static void compute_device_capacity(void) {
    pthread_once(&max_request_once, compute_max_request);
    uint64_t cap = DEFAULT_DEVICE_MEMORY;
    const char *v = getenv("ACLNN_STUB_DEVICE_MEMORY");
    if (v != NULL && v[0] != '\0') {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (errno == 0 && *end == '\0' && n > 0 && v[0] != '-') cap = n;
    }
    device_capacity = cap < max_request ? cap : max_request;
}

static uint64_t capacity(void) {
    pthread_once(&device_capacity_once, compute_device_capacity);
    return device_capacity;
}

/* Settled when the library loads, so no fork can ever catch a thread inside the pthread_once. */
__attribute__((constructor)) static void settle_capacity(void) { (void)capacity(); }

/* ---- registry (callers hold blocks_lock) ----------------------------------------------------------- */

/* [ptr, ptr + size) inside one block: that block, else NULL. */
static DeviceBlock *block_of_span(const void *ptr, size_t size);

/* Index of the first block whose start is >= addr (> addr when strict). */
static size_t lower_bound(uintptr_t addr, bool strict) {
    size_t lo = 0, hi = block_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (blocks[mid].start < addr || (strict && blocks[mid].start == addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static DeviceBlock *block_of_span(const void *ptr, size_t size) {
    uintptr_t p = (uintptr_t)ptr;
    if (ptr == NULL || size > UINTPTR_MAX - p) return NULL;
    size_t i = lower_bound(p, true); /* first block starting after p */
    if (i == 0) return NULL;
    DeviceBlock *b = &blocks[i - 1];
    return p + size <= b->start + b->usable ? b : NULL;
}

/* [ptr, ptr + size) inside one block; size 0: ptr inside the block or at its end. */
static bool span_in_device(const void *ptr, size_t size) { return block_of_span(ptr, size) != NULL; }

/* Any byte of [ptr, ptr + size) (size > 0) inside a block. */
static bool span_touches_device(const void *ptr, size_t size) {
    uintptr_t p = (uintptr_t)ptr;
    uintptr_t end = size > UINTPTR_MAX - p ? UINTPTR_MAX : p + size;
    size_t i = lower_bound(end, false); /* blocks from i on start at or after end */
    if (i == 0) return false;
    const DeviceBlock *b = &blocks[i - 1];
    return b->start + b->usable > p;
}

/* ptr inside an aclrtMalloc block (its padding included). Lent host memory does not count: to a copy it is
 * still the host memory it is, so its owner may copy from and to it (another thread may have lent part of an
 * array this one copies). */
static bool starts_in_allocated(const void *ptr) {
    const DeviceBlock *b = block_of_span(ptr, 1);
    return b != NULL && b->lent == NULL;
}

static bool registry_reserve(void) {
    if (block_count < block_capacity) return true;
    size_t cap = block_capacity ? block_capacity * 2 : 64;
    if (cap > SIZE_MAX / sizeof *blocks) return false;
    DeviceBlock *grown = realloc(blocks, cap * sizeof *blocks);
    if (grown == NULL) return false;
    blocks = grown;
    block_capacity = cap;
    return true;
}

/* ---- aclrtMalloc / aclrtFree ---------------------------------------------------------------------- */

static void release_raw(void *raw, size_t mapped);
static bool bury(void *raw, size_t mapped, uint64_t seq);

/*
 * Device memory is padded as on a device (AscendCL reference, aclrtMalloc / aclrtMallocAlign32): aclrtMalloc
 * rounds the size up to a multiple of 32 bytes and adds 32 more, aclrtMallocAlign32 only rounds up; the
 * start is 64-byte aligned. The padding is the block's: copies, memsets and operator tensors may reach into
 * it (check mode reports such an access as padding-access), and never past it.
 */
static size_t usable_size(size_t size, bool extra_granule) {
    return (size + DEVICE_GRANULE - 1) / DEVICE_GRANULE * DEVICE_GRANULE + (extra_granule ? DEVICE_GRANULE : 0);
}

static aclError device_malloc(const char *func, void **devPtr, size_t size, bool extra_granule) {
    RT_RETURN_IF_NULL(func, devPtr);
    if (size == 0) {
        aclStubSetErrMsg("%s: argument 'size' is 0 (size must be positive)", func);
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t device;
    aclError ret = rt_require_device(func, &device);
    if (ret != ACL_SUCCESS) return ret;
    if (size > capacity()) {
        aclStubSetErrMsg("%s: argument 'size' (%zu) exceeds the memory of device %d (%llu bytes)", func, size,
                         (int)device, (unsigned long long)capacity());
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    /* calloc rather than aligned_alloc + memset: large blocks come zeroed from the kernel without being
     * touched, so an allocation the caller only partly uses does not commit all its pages. */
    size_t usable = usable_size(size, extra_granule);
    size_t slack = DEVICE_ALIGN - _Alignof(max_align_t);
    size_t mapped = 0;
    void *raw = usable >= HUGE_MIN_BYTES ? map_huge(usable, &mapped) : NULL; /* mappings come zeroed */
    uintptr_t align = mapped ? HUGE_PAGE : DEVICE_ALIGN;
    if (raw == NULL) raw = calloc(1, usable + slack);
    if (raw == NULL) {
        aclStubSetErrMsg("%s: out of memory allocating %zu bytes", func, size);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    uintptr_t start = ((uintptr_t)raw + align - 1) & ~(align - 1);

    pthread_rwlock_wrlock(&blocks_lock);
    bool full = device_bytes[device] > capacity() - size;
    bool ok = !full && registry_reserve();
    if (ok) {
        size_t i = lower_bound(start, false);
        memmove(&blocks[i + 1], &blocks[i], (block_count - i) * sizeof *blocks);
        blocks[i] = (DeviceBlock){start, size, usable, device, raw, mapped, NULL};
        block_count++;
        block_bytes += size;
        device_bytes[device] += size;
    }
    uint64_t used = device_bytes[device];
    pthread_rwlock_unlock(&blocks_lock);
    if (!ok) {
        if (mapped)
            munmap(raw, mapped);
        else
            free(raw);
        if (full)
            aclStubSetErrMsg("%s: device %d has %llu of %llu bytes in use, too few left for %zu more", func,
                             (int)device, (unsigned long long)used, (unsigned long long)capacity(), size);
        else
            aclStubSetErrMsg("%s: out of host memory for the allocation registry", func);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (CHECK_ON(CHECK_ALL)) check_alloc((void *)start, size, usable, true, false);
    *devPtr = (void *)start;
    return ACL_SUCCESS;
}

/* The policy only selects the page type on a device; any value is accepted. */
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    (void)policy;
    return device_malloc("aclrtMalloc", devPtr, size, true);
}

aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    (void)policy;
    return device_malloc("aclrtMallocAlign32", devPtr, size, false);
}

aclError aclrtFree(void *devPtr) {
    RT_RETURN_IF_NULL("aclrtFree", devPtr);
    void *raw = NULL;
    size_t mapped = 0;
    bool lent = false;
    pthread_rwlock_wrlock(&blocks_lock);
    size_t i = lower_bound((uintptr_t)devPtr, false);
    if (i < block_count && blocks[i].start == (uintptr_t)devPtr && blocks[i].lent != NULL) {
        lent = true;
    } else if (i < block_count && blocks[i].start == (uintptr_t)devPtr) {
        raw = blocks[i].raw;
        mapped = blocks[i].mapped;
        block_bytes -= blocks[i].size;
        device_bytes[blocks[i].device] -= blocks[i].size;
        memmove(&blocks[i], &blocks[i + 1], (block_count - i - 1) * sizeof *blocks);
        block_count--;
    }
    pthread_rwlock_unlock(&blocks_lock);
    if (lent) {
        aclStubSetErrMsg("aclrtFree: argument 'devPtr' (%p) is host memory lent by aclStubLendHostMemory; give it "
                         "back with aclStubReclaimHostMemory", devPtr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (raw == NULL) {
        if (CHECK_ON(CHECK_MEM)) check_bad_free("aclrtFree", devPtr, true);
        aclStubSetErrMsg("aclrtFree: argument 'devPtr' (%p) is not the start of a live aclrtMalloc block "
                         "(never allocated or already freed)", devPtr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (CHECK_ON(CHECK_ALL)) check_free("aclrtFree", devPtr, true);
    /* The block is gone for every later call; work queued before this free may still hold its address. */
    pthread_mutex_lock(&rt_lock);
    uint64_t seq = rt_unfinished_up_to_locked();
    bool deferred = seq != 0 && bury(raw, mapped, seq);
    pthread_mutex_unlock(&rt_lock);
    if (!deferred) release_raw(raw, mapped);
    return ACL_SUCCESS;
}

/* ---- blocks freed while earlier queued work may still read them -------------------------------------- */

/* A queued kernel validated its spans when it was launched; if the caller frees a block before the kernel
 * runs (a bug on a device too), the memory stays mapped until all work queued before the free has run,
 * so the stub never touches memory it no longer owns. The block has already left the registry. */
typedef struct Grave {
    struct Grave *next;
    void *raw;
    size_t mapped;
    uint64_t seq; /* work items queued before the free: 1..seq */
} Grave;

static pthread_mutex_t graveyard_lock = PTHREAD_MUTEX_INITIALIZER;
static Grave *graveyard;
static int graves; /* read without the lock as a hint */

static void release_raw(void *raw, size_t mapped) {
    if (mapped)
        munmap(raw, mapped);
    else
        free(raw);
}

static bool bury(void *raw, size_t mapped, uint64_t seq) {
    Grave *g = malloc(sizeof *g);
    if (g == NULL) return false; /* then released at once: the best left to do */
    pthread_mutex_lock(&graveyard_lock);
    *g = (Grave){graveyard, raw, mapped, seq};
    graveyard = g;
    __atomic_add_fetch(&graves, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&graveyard_lock);
    return true;
}

bool rt_memory_has_graves(void) { return __atomic_load_n(&graves, __ATOMIC_RELAXED) != 0; }

void rt_memory_release_graves(uint64_t oldest_pending) {
    Grave *ready = NULL;
    pthread_mutex_lock(&graveyard_lock);
    for (Grave **p = &graveyard; *p;) {
        Grave *g = *p;
        if (g->seq < oldest_pending) {
            *p = g->next;
            g->next = ready;
            ready = g;
            __atomic_sub_fetch(&graves, 1, __ATOMIC_RELAXED);
        } else {
            p = &g->next;
        }
    }
    pthread_mutex_unlock(&graveyard_lock);
    while (ready) {
        Grave *g = ready;
        ready = g->next;
        release_raw(g->raw, g->mapped);
        free(g);
    }
}

/* ---- host memory lent to the device ----------------------------------------------------------------- */

/* A lent span is a device block at the host address itself: no copy, and every check on device memory
 * (spans, liveness, check mode) applies to it. Giving it back must wait for the queued work that uses it,
 * and only for that work (waiting for every stream could wait forever on one blocked by an event the
 * caller records later), so each lent block records the streams whose queued work touches it and the
 * position of the latest such item on each. Lent records and their list are guarded by rt_lock. */
typedef struct {
    RtStream *stream;
    uint64_t item; /* the stream's submitted count once that item is queued */
} LentUse;

typedef struct Lent {
    struct Lent *prev, *next;
    LentUse *uses;
    size_t n, cap;
    bool closing; /* being reclaimed: no new work may use it */
} Lent;

static Lent *lent_list;
static int lent_count; /* read without the lock as a hint */

static bool lent_note_locked(Lent *l, RtStream *s, uint64_t item) {
    for (size_t i = 0; i < l->n; i++)
        if (l->uses[i].stream == s) {
            l->uses[i].item = item;
            return true;
        }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        LentUse *grown = realloc(l->uses, cap * sizeof *grown);
        if (grown == NULL) return false;
        l->uses = grown;
        l->cap = cap;
    }
    l->uses[l->n++] = (LentUse){s, item};
    return true;
}

aclError rt_memory_note_uses_locked(const char *func, RtStream *s, const aclStubCheckSpan *spans, size_t n) {
    aclError ret = ACL_SUCCESS;
    pthread_rwlock_rdlock(&blocks_lock);
    for (size_t i = 0; i < n && ret == ACL_SUCCESS; i++) {
        if (spans[i].size == 0) continue;
        DeviceBlock *b = block_of_span(spans[i].ptr, spans[i].size);
        if (b == NULL && spans[i].view != NULL) {
            /* validated by the caller moments ago: freed or reclaimed by another thread since */
            aclStubSetErrMsg("%s: tensor '%s' [%p, +%zu) was freed or reclaimed while its work was being queued",
                             func, spans[i].name, spans[i].ptr, spans[i].size);
            ret = ACL_ERROR_RT_PARAM_INVALID;
        } else if (b != NULL && b->lent != NULL && b->lent->closing) {
            aclStubSetErrMsg("%s: '%s' [%p, +%zu) is lent host memory being reclaimed by another thread", func,
                             spans[i].name, spans[i].ptr, spans[i].size);
            ret = ACL_ERROR_RT_PARAM_INVALID;
        } else if (b != NULL && b->lent != NULL && !lent_note_locked(b->lent, s, s->submitted + 1)) {
            aclStubSetErrMsg("%s: out of host memory tracking the users of lent memory", func);
            ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    }
    pthread_rwlock_unlock(&blocks_lock);
    return ret;
}

bool rt_memory_has_lent(void) { return __atomic_load_n(&lent_count, __ATOMIC_RELAXED) != 0; }

void rt_memory_forget_stream_locked(const RtStream *s) {
    for (Lent *l = lent_list; l; l = l->next)
        for (size_t i = 0; i < l->n; i++)
            if (l->uses[i].stream == s) l->uses[i] = l->uses[--l->n];
}

static void lent_unlink_locked(Lent *l) {
    if (l->prev)
        l->prev->next = l->next;
    else
        lent_list = l->next;
    if (l->next) l->next->prev = l->prev;
    __atomic_sub_fetch(&lent_count, 1, __ATOMIC_RELAXED);
}

aclError aclStubLendHostMemory(void *hostPtr, size_t size, void **devPtr) {
    static const char func[] = "aclStubLendHostMemory";
    RT_RETURN_IF_NULL(func, hostPtr);
    RT_RETURN_IF_NULL(func, devPtr);
    if (size == 0) {
        aclStubSetErrMsg("%s: argument 'size' is 0 (size must be positive)", func);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (size > UINTPTR_MAX - (uintptr_t)hostPtr) {
        aclStubSetErrMsg("%s: argument 'hostPtr' (%p) plus 'size' (%zu) runs past the end of the address space", func,
                         hostPtr, size);
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t device;
    aclError ret = rt_require_device(func, &device);
    if (ret != ACL_SUCCESS) return ret;
    Lent *l = calloc(1, sizeof *l);
    if (l == NULL) {
        aclStubSetErrMsg("%s: out of host memory", func);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    /* on the list before it is findable, so a stream released meanwhile is forgotten by it too */
    pthread_mutex_lock(&rt_lock);
    l->next = lent_list;
    if (lent_list) lent_list->prev = l;
    lent_list = l;
    __atomic_add_fetch(&lent_count, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&rt_lock);

    pthread_rwlock_wrlock(&blocks_lock);
    bool overlaps = span_touches_device(hostPtr, size);
    bool ok = !overlaps && registry_reserve();
    if (ok) {
        size_t i = lower_bound((uintptr_t)hostPtr, false);
        memmove(&blocks[i + 1], &blocks[i], (block_count - i) * sizeof *blocks);
        blocks[i] = (DeviceBlock){(uintptr_t)hostPtr, size, size, device, NULL, 0, l};
        block_count++;
        block_bytes += size;
    }
    pthread_rwlock_unlock(&blocks_lock);
    if (!ok) {
        pthread_mutex_lock(&rt_lock);
        lent_unlink_locked(l);
        pthread_mutex_unlock(&rt_lock);
        free(l);
        if (overlaps) {
            aclStubSetErrMsg("%s: [%p, +%zu) overlaps device memory (an aclrtMalloc block or memory already lent)",
                             func, hostPtr, size);
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        aclStubSetErrMsg("%s: out of host memory for the allocation registry", func);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (CHECK_ON(CHECK_ALL)) check_alloc(hostPtr, size, size, true, true);
    *devPtr = hostPtr;
    return ACL_SUCCESS;
}

aclError aclStubReclaimHostMemory(void *devPtr) {
    static const char func[] = "aclStubReclaimHostMemory";
    RT_RETURN_IF_NULL(func, devPtr);
    /* Found and claimed under rt_lock, so two reclaims of one span cannot both proceed. */
    pthread_mutex_lock(&rt_lock);
    pthread_rwlock_rdlock(&blocks_lock);
    size_t i = lower_bound((uintptr_t)devPtr, false);
    bool is_block = i < block_count && blocks[i].start == (uintptr_t)devPtr;
    Lent *l = is_block ? blocks[i].lent : NULL;
    pthread_rwlock_unlock(&blocks_lock);
    if (l == NULL || l->closing) {
        pthread_mutex_unlock(&rt_lock);
        aclStubSetErrMsg("%s: argument 'devPtr' (%p) is %s", func, devPtr,
                         l != NULL  ? "already being reclaimed by another thread"
                         : is_block ? "an aclrtMalloc block, not lent host memory (free it with aclrtFree)"
                                    : "not the start of host memory lent by aclStubLendHostMemory (never lent or "
                                      "already reclaimed)");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    /* No new work may use it; the work queued before runs to its end (and may still re-check its spans),
     * with the streams pinned so that none is released while another is waited for. */
    l->closing = true;
    lent_unlink_locked(l);
    for (size_t k = 0; k < l->n; k++) l->uses[k].stream->users++;
    for (size_t k = 0; k < l->n; k++) {
        RtStream *s = l->uses[k].stream;
        rt_stream_wait_locked(s, l->uses[k].item, -1);
        if (CHECK_ON(CHECK_SYNC)) check_host_synced_stream(s->check_id, l->uses[k].item);
    }
    for (size_t k = 0; k < l->n; k++) l->uses[k].stream->users--;
    rt_broadcast_locked();
    pthread_mutex_unlock(&rt_lock);

    pthread_rwlock_wrlock(&blocks_lock); /* waits for copies that validated it */
    i = lower_bound((uintptr_t)devPtr, false);
    block_bytes -= blocks[i].size;
    memmove(&blocks[i], &blocks[i + 1], (block_count - i - 1) * sizeof *blocks);
    block_count--;
    pthread_rwlock_unlock(&blocks_lock);
    if (CHECK_ON(CHECK_ALL)) check_free(func, devPtr, true);
    free(l->uses);
    free(l);
    return ACL_SUCCESS;
}

/* ---- host memory ---------------------------------------------------------------------------------- */

aclError aclrtMallocHost(void **hostPtr, size_t size) {
    RT_RETURN_IF_NULL("aclrtMallocHost", hostPtr);
    if (size == 0) {
        aclStubSetErrMsg("aclrtMallocHost: argument 'size' is 0 (size must be positive)");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (request_too_large(size)) {
        aclStubSetErrMsg("aclrtMallocHost: argument 'size' (%zu) exceeds the host memory (%zu bytes)", size,
                         max_request);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    void *p = NULL;
    if (posix_memalign(&p, DEVICE_ALIGN, size) != 0) p = NULL;
    if (p == NULL || !ptr_set_insert(&host_blocks, p)) {
        free(p);
        aclStubSetErrMsg("aclrtMallocHost: out of memory allocating %zu bytes", size);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (CHECK_ON(CHECK_ALL)) check_alloc(p, size, size, false, false);
    *hostPtr = p;
    return ACL_SUCCESS;
}

aclError aclrtFreeHost(void *hostPtr) {
    RT_RETURN_IF_NULL("aclrtFreeHost", hostPtr);
    if (!ptr_set_remove(&host_blocks, hostPtr)) {
        if (CHECK_ON(CHECK_MEM)) check_bad_free("aclrtFreeHost", hostPtr, false);
        aclStubSetErrMsg("aclrtFreeHost: argument 'hostPtr' (%p) is not a live aclrtMallocHost block "
                         "(never allocated or already freed)", hostPtr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (CHECK_ON(CHECK_ALL)) check_free("aclrtFreeHost", hostPtr, false);
    free(hostPtr);
    return ACL_SUCCESS;
}

/* ---- copies ------------------------------------------------------------------------------------- */

static const char *const kind_names[] = {
    "ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE", "ACL_MEMCPY_DEVICE_TO_HOST",
    "ACL_MEMCPY_DEVICE_TO_DEVICE", "ACL_MEMCPY_DEFAULT", "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
};

enum { SIDE_ANY, SIDE_HOST, SIDE_DEVICE };

/* Where each kind requires dst and src to live. */
static const struct {
    unsigned char dst, src;
} kind_sides[] = {
    {SIDE_HOST, SIDE_HOST}, {SIDE_DEVICE, SIDE_HOST}, {SIDE_HOST, SIDE_DEVICE},
    {SIDE_DEVICE, SIDE_DEVICE}, {SIDE_ANY, SIDE_ANY}, {SIDE_DEVICE, SIDE_HOST},
};

/* The side ACL_MEMCPY_DEFAULT gives a span (lock held): device where its first byte is in an aclrtMalloc
 * block, or where it lies in one block of lent host memory; otherwise host (lent memory is host memory too). */
static int default_side(const void *ptr, size_t count) {
    const DeviceBlock *b = block_of_span(ptr, 1);
    if (b == NULL) return SIDE_HOST;
    return b->lent == NULL || block_of_span(ptr, count) == b ? SIDE_DEVICE : SIDE_HOST;
}

/* Checks one side against the registry (lock held); records the error and returns false on mismatch.
 * SIDE_ANY (ACL_MEMCPY_DEFAULT) infers the side (default_side). A device span must lie inside one block (its
 * padding included); a host span must not start inside an aclrtMalloc block. Where a host span ends is the
 * caller's word, as on a device: the stub's device memory shares the host's address space, so a host buffer
 * overrun may run into a block, where on a device it would run into other host memory (whether it does
 * depends on the heap's layout, and a result must not). Lent host memory is host memory to a copy. */
static bool side_ok(const char *func, int kind, const char *name, const void *ptr, size_t count, int side) {
    if (count > UINTPTR_MAX - (uintptr_t)ptr) {
        aclStubSetErrMsg("%s: argument '%s' (%p) plus 'count' (%zu) runs past the end of the address space", func,
                         name, ptr, count);
        return false;
    }
    if (side == SIDE_ANY) side = default_side(ptr, count);
    if (side == SIDE_DEVICE && !span_in_device(ptr, count)) {
        aclStubSetErrMsg("%s: kind %s needs '%s' in device memory, but [%p, +%zu) is not inside one "
                         "aclrtMalloc block", func, kind_names[kind], name, ptr, count);
        return false;
    }
    if (side == SIDE_HOST && starts_in_allocated(ptr)) {
        aclStubSetErrMsg("%s: kind %s needs '%s' in host memory, but %p is inside an aclrtMalloc block", func,
                         kind_names[kind], name, ptr);
        return false;
    }
    return true;
}

typedef struct {
    const char *func;
    void *dst;
    const void *src; /* NULL for a memset */
    size_t count;
    int kind;
    uint8_t value;
} MemOp;

/* Checks the spans against the registry and performs the copy or fill, under the lock so no block can be
 * freed mid-copy. Work queued on a stream runs with the lock already held (rt_memory_hold). */
static aclError mem_op_locked(const MemOp *op, bool perform) {
    bool ok;
    if (op->src == NULL) {
        ok = span_in_device(op->dst, op->count);
        if (ok && perform) memset(op->dst, op->value, op->count);
        if (!ok)
            aclStubSetErrMsg("%s: argument 'devPtr' needs device memory, but [%p, +%zu) is not inside one "
                             "aclrtMalloc block", op->func, op->dst, op->count);
    } else {
        ok = side_ok(op->func, op->kind, "dst", op->dst, op->count, kind_sides[op->kind].dst) &&
             side_ok(op->func, op->kind, "src", op->src, op->count, kind_sides[op->kind].src);
        if (ok && perform) memmove(op->dst, op->src, op->count);
    }
    return ok ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
}

static aclError mem_op(const MemOp *op, bool perform) {
    pthread_rwlock_rdlock(&blocks_lock);
    aclError ret = mem_op_locked(op, perform);
    pthread_rwlock_unlock(&blocks_lock);
    return ret;
}

/* Queued form: validated when queued (errors returned at once, as CANN does) and again when it runs,
 * since the blocks may have been freed in between (then the failure surfaces at synchronisation). */
static aclError mem_op_work(void *arg) { return mem_op_locked(arg, true); }

/* Where a copy's side lives: what its kind says, or for ACL_MEMCPY_DEFAULT what default_side says. */
static bool side_is_host(int kind_side, const void *ptr, size_t count) {
    if (kind_side != SIDE_ANY) return kind_side == SIDE_HOST;
    pthread_rwlock_rdlock(&blocks_lock);
    bool host = default_side(ptr, count) == SIDE_HOST;
    pthread_rwlock_unlock(&blocks_lock);
    return host;
}

/* Check mode: a host-ordered copy or fill reads its device source and writes its device destination now. */
static void check_host_spans(const MemOp *op) {
    if (op->src != NULL && !side_is_host(kind_sides[op->kind].src, op->src, op->count)) {
        aclStubCheckSpan span = {"src", op->src, op->count, CHECK_READ, NULL};
        check_host_access(op->func, &span);
    }
    if (op->src == NULL || !side_is_host(kind_sides[op->kind].dst, op->dst, op->count)) {
        aclStubCheckSpan span = {op->src ? "dst" : "devPtr", op->dst, op->count, CHECK_WRITE, NULL};
        check_host_access(op->func, &span);
    }
}

/* memcheck: the span the registry refused, reported with the program's call site. */
static void check_refused(const MemOp *op) {
    if (op->src == NULL) {
        aclStubCheckBadSpan(op->func, "devPtr", op->dst, op->count);
        return;
    }
    const struct {
        const char *name;
        const void *ptr;
        int side;
    } sides[2] = {{"dst", op->dst, kind_sides[op->kind].dst}, {"src", op->src, kind_sides[op->kind].src}};
    for (int i = 0; i < 2; i++) {
        bool host = side_is_host(sides[i].side, sides[i].ptr, op->count);
        pthread_rwlock_rdlock(&blocks_lock);
        bool bad = host ? starts_in_allocated(sides[i].ptr) : !span_in_device(sides[i].ptr, op->count);
        pthread_rwlock_unlock(&blocks_lock);
        if (bad) {
            aclStubCheckBadSpan(op->func, sides[i].name, sides[i].ptr, op->count);
            return;
        }
    }
}

/* memcheck: device sides that reach into their block's padding. */
static void check_padding(const MemOp *op) {
    aclStubCheckSpan spans[2];
    size_t n = 0;
    if (op->src == NULL || !side_is_host(kind_sides[op->kind].dst, op->dst, op->count))
        spans[n++] = (aclStubCheckSpan){op->src ? "dst" : "devPtr", op->dst, op->count, CHECK_WRITE, NULL};
    if (op->src != NULL && !side_is_host(kind_sides[op->kind].src, op->src, op->count))
        spans[n++] = (aclStubCheckSpan){"src", op->src, op->count, CHECK_READ, NULL};
    aclStubCheckPadding(op->func, spans, n);
}

/*
 * Every host buffer is treated as pageable memory, which the caller may free or reuse as soon as the call
 * returns (a Python object may be collected): an asynchronous copy reads its host source when it is
 * queued (into a staging buffer the work owns), and writes a host destination before returning, after
 * the stream's earlier work (as CUDA does for pageable memory). Device memory is touched in stream order.
 */
static aclError queue_mem_op(const MemOp *op, aclrtStream stream) {
    bool host_dst = op->src != NULL && side_is_host(kind_sides[op->kind].dst, op->dst, op->count);
    bool host_src = op->src != NULL && side_is_host(kind_sides[op->kind].src, op->src, op->count);
    if (host_dst) {
        aclError ret = rt_stream_drain(op->func, stream);
        if (ret == ACL_SUCCESS && CHECK_ON(CHECK_INIT | CHECK_SYNC)) check_host_spans(op);
        return ret != ACL_SUCCESS ? ret : mem_op(op, true);
    }
    MemOp *copy = malloc(sizeof *copy + (host_src ? op->count : 0));
    if (copy == NULL) {
        aclStubSetErrMsg("%s: out of host memory queueing %zu bytes", op->func, op->count);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    *copy = *op;
    if (host_src) {
        memcpy(copy + 1, op->src, op->count);
        copy->src = copy + 1;
    }
    aclStubCheckSpan spans[2] = {{op->src ? "dst" : "devPtr", op->dst, op->count, CHECK_WRITE, NULL},
                                 {"src", op->src, op->count, CHECK_READ, NULL}};
    size_t n = op->src != NULL && !host_src ? 2 : 1;
    if (CHECK_ON(CHECK_INIT | CHECK_SYNC))
        return aclStubStreamLaunchChecked(stream, mem_op_work, copy, free, op->func, spans, n);
    return aclStubStreamLaunchUsing(stream, mem_op_work, copy, free, op->func, spans, n);
}

static aclError mem_op_submit(const MemOp *op, bool async, aclrtStream stream) {
    int32_t device;
    aclError ret = rt_require_device(op->func, &device);
    if (ret != ACL_SUCCESS) return ret;
    if (async && !aclStubStreamIsLive(stream)) {
        aclStubSetErrMsg("%s: argument 'stream' (%p) is not a live stream (never created or already destroyed)",
                         op->func, stream);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    bool checking = CHECK_ON(CHECK_INIT | CHECK_SYNC); /* a host-ordered access to track */
    ret = mem_op(op, !async && !checking);
    if (ret != ACL_SUCCESS) {
        if (CHECK_ON(CHECK_MEM)) check_refused(op);
        return ret;
    }
    if (CHECK_ON(CHECK_MEM)) check_padding(op);
    if (async) return queue_mem_op(op, stream);
    if (!checking) return ret;
    check_host_spans(op); /* before the copy: what it reads, as the program left it */
    return mem_op(op, true);
}

static aclError copy(const char *func, void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind, bool async, aclrtStream stream) {
    if (count == 0) return ACL_SUCCESS; /* before the NULL checks, as in CANN */
    if (dst == NULL || src == NULL) {
        aclStubSetErrMsg("%s: argument '%s' is NULL", func, dst == NULL ? "dst" : "src");
        return ACL_ERROR_INVALID_PARAM;
    }
    int k = (int)kind;
    if (k < 0 || k > (int)ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        aclStubSetErrMsg("%s: argument 'kind' (%d) is not a supported aclrtMemcpyKind (0..5)", func, k);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > destMax) {
        aclStubSetErrMsg("%s: argument 'count' (%zu) exceeds 'destMax' (%zu)", func, count, destMax);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    MemOp op = {func, dst, src, count, k, 0};
    return mem_op_submit(&op, async, stream);
}
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    return copy("aclrtMemcpy", dst, destMax, src, count, kind, false, NULL);
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
    return copy("aclrtMemcpyAsync", dst, destMax, src, count, kind, true, stream);
}

static aclError fill(const char *func, void *devPtr, size_t maxCount, int32_t value, size_t count, bool async,
                     aclrtStream stream) {
    if (count == 0) return ACL_SUCCESS;
    if (devPtr == NULL) {
        aclStubSetErrMsg("%s: argument 'devPtr' is NULL", func);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > maxCount) {
        aclStubSetErrMsg("%s: argument 'count' (%zu) exceeds 'maxCount' (%zu)", func, count, maxCount);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    MemOp op = {func, devPtr, NULL, count, 0, (uint8_t)value}; /* byte-wise, as CANN: (uint8_t)value */
    return mem_op_submit(&op, async, stream);
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    return fill("aclrtMemset", devPtr, maxCount, value, count, false, NULL);
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
    return fill("aclrtMemsetAsync", devPtr, maxCount, value, count, true, stream);
}

/* One pool per device whatever the attribute asks for: the stub has no separate DDR, HBM or page kinds. */
aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
    if (free == NULL || total == NULL) {
        aclStubSetErrMsg("aclrtGetMemInfo: argument '%s' is NULL", free == NULL ? "free" : "total");
        return ACL_ERROR_INVALID_PARAM;
    }
    if ((int)attr < (int)ACL_DDR_MEM || (int)attr > (int)ACL_MEM_P2P_HUGE1G) {
        aclStubSetErrMsg("aclrtGetMemInfo: argument 'attr' (%d) is not an aclrtMemAttr (0..%d)", (int)attr,
                         (int)ACL_MEM_P2P_HUGE1G);
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t device;
    aclError ret = rt_require_device("aclrtGetMemInfo", &device);
    if (ret != ACL_SUCCESS) return ret;
    pthread_rwlock_rdlock(&blocks_lock);
    uint64_t used = device_bytes[device];
    pthread_rwlock_unlock(&blocks_lock);
    *total = (size_t)capacity();
    *free = (size_t)(capacity() - used);
    return ACL_SUCCESS;
}

void rt_memory_hold(void) { pthread_rwlock_rdlock(&blocks_lock); }

void rt_memory_unhold(void) { pthread_rwlock_unlock(&blocks_lock); }

/* ---- fork (called from device.c's handlers, after rt_lock) ----------------------------------------- */

void rt_memory_atfork_prepare(void) {
    pthread_rwlock_wrlock(&blocks_lock);
    pthread_mutex_lock(&host_blocks.lock);
    pthread_mutex_lock(&graveyard_lock);
}

void rt_memory_atfork_parent(void) {
    pthread_mutex_unlock(&graveyard_lock);
    pthread_mutex_unlock(&host_blocks.lock);
    pthread_rwlock_unlock(&blocks_lock);
}

void rt_memory_atfork_child(void) {
    pthread_mutex_init(&graveyard_lock, NULL);
    pthread_mutex_init(&host_blocks.lock, NULL);
    pthread_rwlock_init(&blocks_lock, NULL);
}

/* ---- shared with the other stub libraries --------------------------------------------------------- */

bool aclStubIsDeviceSpan(const void *ptr, size_t size) {
    pthread_rwlock_rdlock(&blocks_lock);
    bool ok = span_in_device(ptr, size);
    pthread_rwlock_unlock(&blocks_lock);
    return ok;
}

uint64_t aclStubLiveAllocations(void) {
    pthread_rwlock_rdlock(&blocks_lock);
    uint64_t n = block_count;
    pthread_rwlock_unlock(&blocks_lock);
    return n;
}

uint64_t aclStubLiveAllocationBytes(void) {
    pthread_rwlock_rdlock(&blocks_lock);
    uint64_t n = block_bytes;
    pthread_rwlock_unlock(&blocks_lock);
    return n;
}

uint64_t aclStubLiveHostAllocations(void) {
    return ptr_set_count(&host_blocks);
}
