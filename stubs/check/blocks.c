/*
 * Check mode's view of memory: every block allocated while it is on, with its allocation site; the bytes
 * written so far (initcheck: a bitmap, one bit per byte); the accesses of queued work not yet known to be
 * ordered before everything that follows (synccheck); recently freed blocks (memcheck's use-after-free and
 * double-free diagnoses); leakcheck of blocks still live. Blocks allocated before check mode was switched
 * on are unknown here and never reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_sync.h"

#define POISON 0xff       /* fresh device memory under initcheck: NaN for floats, -1 for integers */
#define FREED_KEPT 1024   /* freed blocks remembered for diagnoses */
#define MAX_ACCESSES 256  /* queued accesses kept per block (the oldest are dropped beyond) */

typedef struct {
    int stream;
    uint64_t item;
    uintptr_t lo, hi;
    int mode;
    const char *call;
    const CheckSite *site;
} Access;

typedef struct {
    uintptr_t start;
    size_t size;   /* requested */
    size_t usable; /* with the device's padding (aclrtMalloc rounds up) */
    bool device;
    const CheckSite *site, *free_site;
    uint8_t *written; /* initcheck bitmap; NULL: not tracked (every byte counts as written) */
    Access *acc;
    size_t nacc;
    bool inherited; /* allocated by the parent of a fork(): not this process's leak */
    bool lent;      /* host memory lent by aclStubLendHostMemory */
} Block;

static Block *live_blocks; /* sorted by start */
static size_t live_count, live_capacity;
static Block freed[FREED_KEPT]; /* ring, without bitmaps or accesses */
static size_t freed_next;

/* Findings worked out under the lock and reported after it, once the call site is known: a host access
 * captures its site only when it has something to report. */
typedef struct {
    unsigned tool;
    const char *what;
    const CheckSite *related;
    const char *label;
    char message[512];
} Pending;

typedef struct {
    Pending items[4];
    int n;
} PendingList;

static Pending *pending_add(PendingList *list, unsigned tool, const char *what, const CheckSite *related,
                            const char *label) {
    if (list->n == (int)(sizeof list->items / sizeof list->items[0])) return NULL;
    Pending *p = &list->items[list->n++];
    *p = (Pending){tool, what, related, label, ""};
    return p;
}

static void pending_report(const PendingList *list, const char *call, const CheckSite *site) {
    for (int i = 0; i < list->n; i++) {
        const Pending *p = &list->items[i];
        check_add_finding(p->tool, p->what, call, site, p->related, p->label, p->message);
    }
}

/* ---- lookup (check_lock held) ------------------------------------------------------------------------ */

static size_t first_after(uintptr_t p) {
    size_t lo = 0, hi = live_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (live_blocks[mid].start <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The live block containing address p, or NULL. */
static Block *live_containing(uintptr_t p) {
    size_t i = first_after(p);
    if (i == 0) return NULL;
    Block *b = &live_blocks[i - 1];
    return p < b->start + b->usable ? b : NULL;
}

/* The most recently freed block containing p, or NULL. */
static const Block *freed_containing(uintptr_t p) {
    for (size_t k = 1; k <= FREED_KEPT; k++) {
        const Block *b = &freed[(freed_next + FREED_KEPT - k) % FREED_KEPT];
        if (b->usable != 0 && p >= b->start && p < b->start + b->usable) return b;
    }
    return NULL;
}

void check_describe_address_locked(char *out, size_t cap, const void *ptr, const CheckSite **site) {
    uintptr_t p = (uintptr_t)ptr;
    const Block *b = live_containing(p);
    *site = NULL;
    if (b != NULL) {
        snprintf(out, cap, "%p is byte %llu of a %zu-byte block at %p", ptr, (unsigned long long)(p - b->start),
                 b->size, (void *)b->start);
        *site = b->site;
    } else if ((b = freed_containing(p)) != NULL) {
        snprintf(out, cap, "%p is byte %llu of a %zu-byte block at %p that was freed", ptr,
                 (unsigned long long)(p - b->start), b->size, (void *)b->start);
        *site = b->free_site;
    } else {
        snprintf(out, cap, "%p is in no aclrtMalloc block", ptr);
    }
}

/* ---- the written-bytes bitmap ------------------------------------------------------------------------- */

static void mark_written(Block *b, uintptr_t lo, uintptr_t hi) {
    if (b->written == NULL) return;
    size_t from = lo - b->start, to = hi - b->start;
    while (from < to && (from & 7)) b->written[from >> 3] |= (uint8_t)(1u << (from & 7)), from++;
    if (to - from >= 8) {
        memset(b->written + (from >> 3), 0xff, (to - from) >> 3);
        from += (to - from) & ~(size_t)7;
    }
    while (from < to) b->written[from >> 3] |= (uint8_t)(1u << (from & 7)), from++;
}

/* Never-written bytes in [lo, hi): their count, and the first in *first. */
static size_t count_unwritten(const Block *b, uintptr_t lo, uintptr_t hi, uintptr_t *first) {
    if (b->written == NULL) return 0;
    size_t n = 0;
    for (size_t i = lo - b->start, end = hi - b->start; i < end; i++) {
        if ((i & 7) == 0 && i + 8 <= end && b->written[i >> 3] == 0xff) {
            i += 7;
            continue;
        }
        if (!(b->written[i >> 3] & (1u << (i & 7))) && n++ == 0) *first = b->start + i;
    }
    return n;
}

/* Calls fn for each contiguous byte run of span (the elements of its view, or the whole hull). */
typedef void (*RunFn)(Block *b, uintptr_t lo, uintptr_t hi, void *ctx);

static void for_each_run(Block *b, const aclStubCheckSpan *span, RunFn fn, void *ctx) {
    const aclStubTensorDesc *v = span->view;
    uintptr_t base = (uintptr_t)span->ptr;
    if (v == NULL || v->ndim == 0) {
        fn(b, base, base + span->size, ctx);
        return;
    }
    size_t esize = aclDataTypeSize(v->dtype);
    int last = (int)v->ndim - 1;
    bool inner_contig = v->strides[last] == 1;
    int64_t idx[ACLSTUB_MAX_DIMS] = {0};
    uintptr_t data = (uintptr_t)v->data;
    for (;;) {
        int64_t off = v->offset;
        for (int d = 0; d < last; d++) off += idx[d] * v->strides[d];
        if (inner_contig) {
            uintptr_t lo = data + (uintptr_t)(off * (int64_t)esize);
            fn(b, lo, lo + (uintptr_t)v->dims[last] * esize, ctx);
        } else {
            for (int64_t k = 0; k < v->dims[last]; k++) {
                uintptr_t lo = data + (uintptr_t)((off + k * v->strides[last]) * (int64_t)esize);
                fn(b, lo, lo + esize, ctx);
            }
        }
        int d = last - 1;
        while (d >= 0 && ++idx[d] == v->dims[d]) idx[d--] = 0;
        if (d < 0) return;
    }
}

typedef struct {
    size_t unwritten;
    uintptr_t first;
} Unwritten;

static void run_count(Block *b, uintptr_t lo, uintptr_t hi, void *ctx) {
    Unwritten *u = ctx;
    uintptr_t first = 0;
    size_t n = count_unwritten(b, lo, hi, &first);
    if (n > 0 && u->unwritten == 0) u->first = first;
    u->unwritten += n;
}

static void run_mark(Block *b, uintptr_t lo, uintptr_t hi, void *ctx) {
    (void)ctx;
    mark_written(b, lo, hi);
}

/* initcheck of one span: reads of never-written bytes are reported, writes marked. */
static void init_access_locked(PendingList *out, Block *b, const aclStubCheckSpan *span) {
    if (b->written == NULL) return;
    if (span->mode & CHECK_READ) {
        Unwritten u = {0, 0};
        for_each_run(b, span, run_count, &u);
        Pending *p = u.unwritten > 0 ? pending_add(out, CHECK_INIT, "uninitialized-read", b->site,
                                                   "block allocated at") : NULL;
        if (p != NULL)
            snprintf(p->message, sizeof p->message, "'%s' reads %zu byte(s) never written since aclrtMalloc (the "
                     "first at byte %llu of the %zu-byte block at %p); device memory is not zeroed", span->name,
                     u.unwritten, (unsigned long long)(u.first - b->start), b->size, (void *)b->start);
    }
    if (span->mode & CHECK_WRITE) for_each_run(b, span, run_mark, NULL);
}

/* ---- synccheck records ---------------------------------------------------------------------------------- */

static void prune_locked(Block *b) {
    size_t k = 0;
    for (size_t i = 0; i < b->nacc; i++)
        if (!check_host_done_locked(b->acc[i].stream, b->acc[i].item)) b->acc[k++] = b->acc[i];
    b->nacc = k;
}

static bool overlaps(const Access *a, uintptr_t lo, uintptr_t hi) { return a->lo < hi && lo < a->hi; }

static void sync_finding(PendingList *out, const char *what, const Access *a, const char *name, const char *detail) {
    Pending *p = pending_add(out, CHECK_SYNC, what, a->site, "conflicting work queued at");
    if (p != NULL)
        snprintf(p->message, sizeof p->message, "'%s' [%p, %p) %s %s queued earlier by %s", name, (void *)a->lo,
                 (void *)a->hi, detail, a->mode & CHECK_WRITE ? "written by work" : "read by work", a->call);
}

/* ---- hooks -------------------------------------------------------------------------------------------- */

void check_alloc(void *start, size_t size, size_t usable, bool device, bool lent) {
    if (!CHECK_ON(CHECK_ALL)) return;
    const CheckSite *site = check_site_here();
    uint8_t *bits = NULL;
    if (device && !lent && CHECK_ON(CHECK_INIT)) {
        bits = calloc(usable / 8 + 1, 1);
        memset(start, POISON, usable);
    }
    check_lock();
    if (live_count == live_capacity) {
        size_t cap = live_capacity ? live_capacity * 2 : 256;
        Block *grown = realloc(live_blocks, cap * sizeof *grown);
        if (grown == NULL) {
            check_unlock();
            free(bits);
            return;
        }
        live_blocks = grown;
        live_capacity = cap;
    }
    size_t i = first_after((uintptr_t)start);
    memmove(&live_blocks[i + 1], &live_blocks[i], (live_count - i) * sizeof *live_blocks);
    live_blocks[i] = (Block){(uintptr_t)start, size, usable, device, site, NULL, bits, NULL, 0, false, lent};
    live_count++;
    check_unlock();
}

void check_free(const char *call, const void *start, bool device) {
    const CheckSite *site = check_site_here(); /* kept with the freed block for later diagnoses */
    PendingList found = {.n = 0};
    check_lock();
    size_t i = first_after((uintptr_t)start);
    Block *b = i > 0 ? &live_blocks[i - 1] : NULL;
    if (b != NULL && b->start == (uintptr_t)start && b->device == device) {
        if (CHECK_ON(CHECK_SYNC)) {
            prune_locked(b);
            if (b->nacc > 0) sync_finding(&found, "free-with-queued-work", &b->acc[b->nacc - 1], "devPtr",
                                          "is freed while it is");
        }
        free(b->written);
        free(b->acc);
        freed[freed_next] = (Block){b->start, b->size, b->usable, device, b->site, site, NULL, NULL, 0, false, b->lent};
        freed_next = (freed_next + 1) % FREED_KEPT;
        memmove(b, b + 1, (live_count - i) * sizeof *b);
        live_count--;
    }
    check_unlock();
    pending_report(&found, call, site);
}

void check_bad_free(const char *call, const void *ptr, bool device) {
    if (!CHECK_ON(CHECK_MEM)) return;
    const CheckSite *site = check_site_here();
    char where[256], message[400];
    const CheckSite *related;
    check_lock();
    const Block *f = freed_containing((uintptr_t)ptr);
    bool twice = f != NULL && f->start == (uintptr_t)ptr && live_containing((uintptr_t)ptr) == NULL;
    check_describe_address_locked(where, sizeof where, ptr, &related);
    snprintf(message, sizeof message, "%s of %s memory that is not a live block: %s", call, device ? "device" : "host",
             where);
    check_add_finding(CHECK_MEM, twice ? "double-free" : "invalid-free", call, site, related,
                      twice ? "freed before at" : "block allocated at", message);
    check_unlock();
}

void aclStubCheckBadSpan(const char *call, const char *name, const void *ptr, size_t size) {
    const CheckSite *site = check_site_here();
    uintptr_t p = (uintptr_t)ptr, last = size > 0 && p + (size - 1) >= p ? p + (size - 1) : p;
    char where[256], message[512];
    const CheckSite *related;
    check_lock();
    const Block *b = live_containing(p);
    if (b == NULL) b = live_containing(last);
    const char *what = "not-device-memory";
    const char *label = "block allocated at";
    if (b != NULL) {
        what = "out-of-bounds";
        check_describe_address_locked(where, sizeof where, (const void *)b->start, &related);
        snprintf(message, sizeof message, "'%s' [%p, +%zu) is not inside one live block: it overlaps the %zu-byte "
                 "block at %p (%zu bytes with its padding) but runs %s it", name, ptr, size, b->size,
                 (void *)b->start, b->usable, p < b->start ? "before the start of" : "past the end of");
    } else {
        check_describe_address_locked(where, sizeof where, ptr, &related);
        if (freed_containing(p) != NULL) {
            what = "use-after-free";
            label = "block freed at";
        }
        snprintf(message, sizeof message, "'%s' [%p, +%zu): %s", name, ptr, size, where);
    }
    check_add_finding(CHECK_MEM, what, call, site, related, label, message);
    check_unlock();
}

void aclStubCheckPadding(const char *call, const aclStubCheckSpan *spans, size_t n) {
    if (!CHECK_ON(CHECK_MEM)) return;
    PendingList found = {.n = 0};
    check_lock();
    for (size_t k = 0; k < n; k++) {
        const aclStubCheckSpan *span = &spans[k];
        uintptr_t lo = (uintptr_t)span->ptr, hi = lo + span->size;
        const Block *b = span->size > 0 ? live_containing(lo) : NULL;
        if (b == NULL || !b->device || hi <= b->start + b->size || hi > b->start + b->usable) continue;
        Pending *p = pending_add(&found, CHECK_MEM, "padding-access", b->site, "block allocated at");
        if (p != NULL)
            snprintf(p->message, sizeof p->message, "'%s' [%p, +%zu) reaches %llu byte(s) into the padding of the "
                     "%zu-byte block at %p (%zu bytes with its padding): allowed, as on a device, but past the size "
                     "requested", span->name, span->ptr, span->size,
                     (unsigned long long)(hi - (b->start + b->size)), b->size, (void *)b->start, b->usable);
    }
    check_unlock();
    if (found.n > 0) pending_report(&found, call, check_site_here());
}

void check_host_access(const char *call, const aclStubCheckSpan *span) {
    PendingList found = {.n = 0};
    check_lock();
    Block *b = live_containing((uintptr_t)span->ptr);
    if (b != NULL && b->device && CHECK_ON(CHECK_SYNC)) {
        prune_locked(b);
        uintptr_t lo = (uintptr_t)span->ptr, hi = lo + span->size;
        for (size_t i = 0; i < b->nacc; i++) {
            const Access *a = &b->acc[i];
            if (!overlaps(a, lo, hi)) continue;
            if ((span->mode & CHECK_READ) && (a->mode & CHECK_WRITE)) {
                sync_finding(&found, "host-read-before-sync", a, span->name,
                             "is read by the host without synchronising with the stream; it is");
                break;
            }
            if (span->mode & CHECK_WRITE) {
                sync_finding(&found, "host-write-before-sync", a, span->name,
                             "is written by the host without synchronising with the stream; it is");
                break;
            }
        }
    }
    if (b != NULL && b->device && CHECK_ON(CHECK_INIT)) init_access_locked(&found, b, span);
    check_unlock();
    if (found.n > 0) pending_report(&found, call, check_site_here());
}

void check_queued(int stream, uint64_t item, const char *call, const CheckSite *site, const aclStubCheckSpan *spans,
                  size_t n) {
    PendingList found = {.n = 0};
    check_lock();
    check_sync_before_enqueue_locked(stream);
    for (size_t k = 0; k < n; k++) {
        const aclStubCheckSpan *span = &spans[k];
        Block *b = span->size > 0 ? live_containing((uintptr_t)span->ptr) : NULL;
        if (b == NULL || !b->device) continue;
        if (CHECK_ON(CHECK_INIT)) init_access_locked(&found, b, span);
        if (!CHECK_ON(CHECK_SYNC) || stream < 0) continue;
        prune_locked(b);
        uintptr_t lo = (uintptr_t)span->ptr, hi = lo + span->size;
        for (size_t i = 0; i < b->nacc; i++) {
            const Access *a = &b->acc[i];
            if (!overlaps(a, lo, hi) || !((a->mode | span->mode) & CHECK_WRITE)) continue;
            if (check_ordered_locked(a->stream, a->item, stream)) continue;
            sync_finding(&found, "unordered-streams", a, span->name,
                         "is used on one stream with no event ordering it after another stream where it is");
            break;
        }
        if (b->nacc == MAX_ACCESSES) memmove(b->acc, b->acc + 1, --b->nacc * sizeof *b->acc);
        if (b->acc == NULL) b->acc = malloc(MAX_ACCESSES * sizeof *b->acc);
        if (b->acc != NULL) b->acc[b->nacc++] = (Access){stream, item, lo, hi, span->mode, call, site};
    }
    check_unlock();
    pending_report(&found, call, site);
}

void check_blocks_atfork_child(void) {
    for (size_t i = 0; i < live_count; i++) live_blocks[i].inherited = true;
}

void check_memory_leaks_locked(const char *when) {
    for (size_t i = 0; i < live_count; i++) {
        const Block *b = &live_blocks[i];
        if (b->inherited) {
            free(live_blocks[i].written);
            free(live_blocks[i].acc);
            continue;
        }
        char message[256];
        if (b->lent) {
            snprintf(message, sizeof message, "%zu bytes of host memory at %p lent here are still lent at %s", b->size,
                     (void *)b->start, when);
            check_add_finding(CHECK_LEAK, "unreclaimed-lent-memory", "aclStubLendHostMemory", b->site, NULL, NULL,
                              message);
        } else {
            snprintf(message, sizeof message, "%zu-byte %s block at %p allocated here is still live at %s", b->size,
                     b->device ? "device" : "host", (void *)b->start, when);
            check_add_finding(CHECK_LEAK, b->device ? "leaked-device-memory" : "leaked-host-memory",
                              b->device ? "aclrtMalloc" : "aclrtMallocHost", b->site, NULL, NULL, message);
        }
        free(live_blocks[i].written);
        free(live_blocks[i].acc);
    }
    live_count = 0;
}
