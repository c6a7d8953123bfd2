/*
 * Communicators: the shared control segment, the rendezvous of the ranks (root info, rank table, all devices
 * of a process, sub-communicators), queries and destruction.
 *
 * A named segment (POSIX shared memory "/aclstub-hccl-...") serves communicators whose ranks may live in
 * several processes; an anonymous shared mapping serves those created inside one process (HcclCommInitAll and
 * their sub-communicators). Ranks join by claiming their slot, may arrive in any order, and wait for the others
 * up to the connect timeout. The last rank to join unlinks the name, so a crashed run leaves nothing behind once
 * its communicators are complete, and the same root info can create a new communicator afterwards. When every
 * rank lives in this process data move directly between buffers; otherwise each rank also creates a staging
 * area that every rank maps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hccl_internal.h"

HandleTable hc_comms = HANDLE_TABLE_INIT(HANDLE_COMM);
uint64_t hc_proc_id;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t counter;

#define A64(x) (((x) + 63) & ~(uint64_t)63)

static uint64_t mix64(uint64_t h, uint64_t v) {
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    return h * UINT64_C(0xff51afd7ed558ccd);
}

static void new_proc_id(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t h = mix64(mix64((uint64_t)getpid(), (uint64_t)t.tv_nsec), (uint64_t)t.tv_sec);
    hc_proc_id = mix64(h, (uint64_t)(uintptr_t)&t) | 1;
}

/* ---- the segment ----------------------------------------------------------------------------------------- */

HcSlot *hc_slot(const HcGroup *g, uint32_t rank) {
    return (HcSlot *)((char *)g->hdr + g->hdr->slots_off) + rank;
}

uint64_t *hc_arrays(const HcGroup *g, uint32_t rank) {
    return (uint64_t *)((char *)g->hdr + g->hdr->arrays_off) + (size_t)rank * 4 * g->nranks;
}

HcChan *hc_chan(const HcGroup *g, uint32_t src, uint32_t dst) {
    return (HcChan *)((char *)g->hdr + g->hdr->chans_off) + (size_t)src * g->nranks + dst;
}

void hc_wake(const HcGroup *g) {
    __atomic_add_fetch(&g->hdr->futex, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&g->hdr->waiters, __ATOMIC_SEQ_CST) != 0) hc_futex_wake(&g->hdr->futex);
}

static uint64_t segment_bytes(uint32_t n, HcHeader *h) {
    uint64_t off = A64(sizeof(HcHeader));
    h->slots_off = off;
    off += A64((uint64_t)n * sizeof(HcSlot));
    h->arrays_off = off;
    off += A64((uint64_t)n * n * 4 * sizeof(uint64_t));
    h->chans_off = off;
    off += A64((uint64_t)n * n * sizeof(HcChan));
    h->total_bytes = (off + 4095) & ~(uint64_t)4095;
    return h->total_bytes;
}

static void header_init(HcHeader *h, uint32_t n, const char *name, const char *id) {
    h->magic = HC_MAGIC;
    h->nranks = n;
    segment_bytes(n, h);
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->id, sizeof h->id, "%s", id);
    __atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
}

static HcGroup *group_alloc(uint32_t n) {
    HcGroup *g = calloc(1, sizeof *g);
    if (g == NULL) return NULL;
    g->nranks = n;
    g->refs = 1;
    return g;
}

static void group_unref(HcGroup *g) {
    if (g == NULL) return;
    pthread_mutex_lock(&registry_lock);
    bool last = --g->refs == 0;
    pthread_mutex_unlock(&registry_lock);
    if (!last) return;
    if (g->staging) {
        uint64_t s = g->hdr ? g->hdr->staging_bytes : 0;
        for (uint32_t j = 0; j < g->nranks; j++)
            if (g->staging[j]) munmap(g->staging[j], s);
        free(g->staging);
    }
    if (g->hdr) munmap(g->hdr, g->map_bytes);
    free(g);
}

/* An anonymous segment for ranks that all live in this process. */
static HcGroup *group_anonymous(uint32_t n, const char *name, const char *id) {
    HcGroup *g = group_alloc(n);
    if (g == NULL) return NULL;
    HcHeader probe;
    memset(&probe, 0, sizeof probe);
    size_t bytes = segment_bytes(n, &probe);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        free(g);
        return NULL;
    }
    g->hdr = p;
    g->map_bytes = bytes;
    header_init(g->hdr, n, name, id);
    return g;
}


/* A named segment left by processes that all exited (a crashed run). */
static bool segment_stale(const HcHeader *h, const HcSlot *slots) {
    bool any = false;
    for (uint32_t j = 0; j < h->nranks; j++) {
        uint32_t st = __atomic_load_n(&slots[j].state, __ATOMIC_ACQUIRE);
        if (st == SLOT_EMPTY) continue;
        any = true;
        if (slots[j].proc == hc_proc_id || hc_process_alive(slots[j].pid)) return false;
    }
    return any;
}

/*
 * Open or create the named segment `id` for n ranks. Waits (up to deadline) while an older communicator of the
 * same name is still complete and linked, or while its creator is initialising it.
 */
static HcclResult group_named(const char *func, const char *id, uint32_t n, const char *name, uint64_t deadline,
                              HcGroup **out) {
    char path[160];
    snprintf(path, sizeof path, "/%s", id);
    HcHeader probe;
    memset(&probe, 0, sizeof probe);
    size_t bytes = segment_bytes(n, &probe);
    for (;;) {
        if (hc_now_ms() > deadline)
            return hc_err(HCCL_E_TIMEOUT, "%s: timed out waiting for the shared segment %s of an earlier "
                          "communicator with the same root info to close", func, path);
        int fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        bool created = fd >= 0;
        if (!created && errno == EEXIST) fd = shm_open(path, O_RDWR, 0600);
        if (fd < 0) {
            if (errno == ENOENT) continue; /* unlinked between the two opens */
            return hc_err(HCCL_E_SYSCALL, "%s: cannot open shared memory %s: %s", func, path, strerror(errno));
        }
        if (created && ftruncate(fd, (off_t)bytes) != 0) {
            int e = errno;
            close(fd);
            shm_unlink(path);
            return hc_err(HCCL_E_MEMORY, "%s: cannot size shared memory %s to %zu bytes: %s", func, path, bytes,
                          strerror(e));
        }
        struct stat st;
        if (!created && (fstat(fd, &st) != 0 || (uint64_t)st.st_size < sizeof(HcHeader))) {
            close(fd); /* its creator has not sized it yet */
            usleep(1000);
            continue;
        }
        size_t map = created ? bytes : (size_t)st.st_size;
        void *p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED) return hc_err(HCCL_E_MEMORY, "%s: cannot map shared memory %s: %s", func, path,
                                           strerror(errno));
        HcHeader *h = p;
        if (created) {
            header_init(h, n, name, id);
        } else {
            while (!__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) && hc_now_ms() <= deadline) usleep(500);
            bool ok = __atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) && h->magic == HC_MAGIC && h->total_bytes <= map;
            if (!ok) {
                munmap(p, map);
                if (hc_now_ms() > deadline)
                    return hc_err(HCCL_E_TIMEOUT, "%s: shared memory %s was never initialised", func, path);
                continue;
            }
            if (h->nranks != n) {
                uint32_t theirs = h->nranks;
                munmap(p, map);
                return hc_err(HCCL_E_PARA, "%s: argument 'nRanks' (%u) differs from the %u that the ranks already "
                              "joined with this root info passed", func, n, theirs);
            }
            HcSlot *slots = (HcSlot *)((char *)h + h->slots_off);
            if (segment_stale(h, slots)) {
                munmap(p, map);
                shm_unlink(path);
                continue;
            }
            if (__atomic_load_n(&h->joined, __ATOMIC_ACQUIRE) >= n || __atomic_load_n(&h->failed, __ATOMIC_ACQUIRE)) {
                /* an earlier communicator: complete (its last rank is about to unlink it) or failed and empty */
                bool empty = __atomic_load_n(&h->present, __ATOMIC_ACQUIRE) == 0;
                munmap(p, map);
                if (empty) shm_unlink(path);
                usleep(1000);
                continue;
            }
        }
        HcGroup *g = group_alloc(n);
        if (g == NULL) {
            munmap(p, map);
            return hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
        }
        g->hdr = h;
        g->map_bytes = map;
        g->named = true;
        *out = g;
        return HCCL_SUCCESS;
    }
}

/* ---- joining ------------------------------------------------------------------------------------------------ */

typedef struct {
    const char *func;
    HcGroup *g;
    uint32_t rank;
} JoinCtx;

/* Describes the ranks that have not joined, for the timeout message. */
static void missing_ranks(HcGroup *g, char *out, size_t cap) {
    size_t o = 0;
    uint32_t shown = 0, missing = 0;
    out[0] = '\0';
    for (uint32_t j = 0; j < g->nranks; j++) {
        if (__atomic_load_n(&hc_slot(g, j)->state, __ATOMIC_ACQUIRE) != SLOT_EMPTY) continue;
        missing++;
        if (shown++ < 32 && o < cap) o += (size_t)snprintf(out + o, cap - o, "%s%u", shown > 1 ? ", " : "", j);
    }
    if (missing > shown && o < cap) snprintf(out + o, cap - o, " and %u more", missing - shown);
}

static void mark_failed(HcGroup *g, const char *why) {
    HcHeader *h = g->hdr;
    if (__atomic_exchange_n(&h->failed, 1, __ATOMIC_ACQ_REL) == 0) snprintf(h->failure, sizeof h->failure, "%.500s", why);
    hc_wake(g);
}

static void leave_group(HcGroup *g, uint32_t rank, uint32_t state) {
    if (g->hdr == NULL) return;
    __atomic_store_n(&hc_slot(g, rank)->state, state, __ATOMIC_RELEASE);
    if (__atomic_sub_fetch(&g->hdr->present, 1, __ATOMIC_ACQ_REL) == 0 && g->named) {
        char path[160];
        snprintf(path, sizeof path, "/%s", g->hdr->id);
        if (__atomic_load_n(&g->hdr->joined, __ATOMIC_ACQUIRE) < g->nranks) shm_unlink(path); /* never completed */
    }
    hc_wake(g);
}

/* Wait on the segment's futex until pred holds, the group fails or the deadline passes (polling liveness). */
static HcclResult wait_group(HcGroup *g, bool (*pred)(HcGroup *), uint64_t deadline) {
    HcHeader *h = g->hdr;
    for (;;) {
        uint32_t seen = __atomic_load_n(&h->futex, __ATOMIC_SEQ_CST);
        if (pred(g)) return HCCL_SUCCESS;
        if (__atomic_load_n(&h->failed, __ATOMIC_ACQUIRE)) return HCCL_E_REMOTE;
        uint64_t now = hc_now_ms();
        if (now >= deadline) return HCCL_E_TIMEOUT;
        uint64_t slice = deadline - now < 100 ? deadline - now : 100;
        __atomic_add_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
        hc_futex_wait(&h->futex, seen, slice ? slice : 1);
        __atomic_sub_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
        for (uint32_t j = 0; j < g->nranks; j++) { /* a joined rank whose process exited will never go on */
            HcSlot *s = hc_slot(g, j);
            if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_JOINED && s->proc != hc_proc_id &&
                !hc_process_alive(s->pid)) {
                char why[200];
                snprintf(why, sizeof why, "rank %u (process %d) exited while the communicator was being created", j,
                         (int)s->pid);
                mark_failed(g, why);
            }
        }
    }
}

static bool all_joined(HcGroup *g) { return __atomic_load_n(&g->hdr->joined, __ATOMIC_ACQUIRE) >= g->nranks; }

static bool all_staged(HcGroup *g) {
    for (uint32_t j = 0; j < g->nranks; j++)
        if (!__atomic_load_n(&hc_slot(g, j)->staging_ready, __ATOMIC_ACQUIRE)) return false;
    return true;
}

static bool all_mapped(HcGroup *g) {
    return __atomic_load_n(&g->hdr->staged_mapped, __ATOMIC_ACQUIRE) >= g->nranks;
}

static HcclResult join_failure(const char *func, HcGroup *g, HcclResult why, uint64_t timeout_ms, uint32_t rank) {
    if (why == HCCL_E_TIMEOUT) {
        char missing[512], msg[700];
        missing_ranks(g, missing, sizeof missing);
        snprintf(msg, sizeof msg, "%s timed out after %llu ms (HCCL_CONNECT_TIMEOUT) in rank %u waiting for rank(s) "
                 "%s of %u to join", func, (unsigned long long)timeout_ms, rank, missing[0] ? missing : "(none)",
                 g->nranks);
        mark_failed(g, msg);
        return hc_err(HCCL_E_TIMEOUT, "%s", msg);
    }
    return hc_err(HCCL_E_REMOTE, "%s: creating the communicator failed in another rank: %s", func, g->hdr->failure);
}

/* Map every rank's staging area (cross-process groups). */
static HcclResult setup_staging(const char *func, HcGroup *g, uint32_t rank, uint64_t deadline) {
    HcHeader *h = g->hdr;
    uint64_t bytes = h->staging_bytes;
    char path[200];
    snprintf(path, sizeof path, "/%s-s%u", h->id, rank);
    g->staging = calloc(g->nranks, sizeof *g->staging);
    if (g->staging == NULL) return hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
    int fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) { /* left by a crashed run */
        shm_unlink(path);
        fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        shm_unlink(path);
        return hc_err(HCCL_E_MEMORY, "%s: cannot create the staging area %s (%llu bytes): %s", func, path,
                      (unsigned long long)bytes, strerror(e));
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(path);
        return hc_err(HCCL_E_MEMORY, "%s: cannot map the staging area %s: %s", func, path, strerror(errno));
    }
    g->staging[rank] = p;
    __atomic_store_n(&hc_slot(g, rank)->staging_ready, 1, __ATOMIC_RELEASE);
    hc_wake(g);
    HcclResult ret = wait_group(g, all_staged, deadline);
    for (uint32_t j = 0; j < g->nranks && ret == HCCL_SUCCESS; j++) {
        if (j == rank) continue;
        char peer[200];
        snprintf(peer, sizeof peer, "/%s-s%u", h->id, j);
        fd = shm_open(peer, O_RDWR, 0600);
        void *q = fd >= 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
        if (fd >= 0) close(fd);
        if (q == MAP_FAILED) {
            ret = hc_err(HCCL_E_SYSCALL, "%s: cannot map rank %u's staging area %s: %s", func, j, peer, strerror(errno));
            char why[300];
            snprintf(why, sizeof why, "rank %u could not map rank %u's staging area", rank, j);
            mark_failed(g, why);
            break;
        }
        g->staging[j] = q;
    }
    if (ret == HCCL_SUCCESS) {
        __atomic_add_fetch(&h->staged_mapped, 1, __ATOMIC_ACQ_REL);
        hc_wake(g);
        ret = wait_group(g, all_mapped, deadline);
    }
    shm_unlink(path); /* everyone has it mapped (or the group failed) */
    return ret;
}

/* Claim slot `rank`, wait for every rank, then settle how data move. */
static HcclResult join(const char *func, HcGroup *g, uint32_t rank, int32_t device, uint64_t connect_ms) {
    HcHeader *h = g->hdr;
    HcSlot *s = hc_slot(g, rank);
    uint32_t expected = SLOT_EMPTY;
    if (!__atomic_compare_exchange_n(&s->state, &expected, SLOT_JOINED, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return hc_err(HCCL_E_PARA, "%s: argument 'rank' (%u) has already joined this communicator (process %d)", func,
                      rank, (int)s->pid);
    s->pid = (int32_t)getpid();
    s->proc = hc_proc_id;
    s->device = device;
    __atomic_add_fetch(&h->present, 1, __ATOMIC_ACQ_REL);
    uint32_t joined = __atomic_add_fetch(&h->joined, 1, __ATOMIC_ACQ_REL);
    hc_wake(g);
    uint64_t deadline = hc_now_ms() + connect_ms;
    HcclResult ret = wait_group(g, all_joined, deadline);
    if (ret != HCCL_SUCCESS) {
        ret = join_failure(func, g, ret, connect_ms, rank);
        leave_group(g, rank, SLOT_DEAD);
        return ret;
    }
    if (g->named && joined == g->nranks) {
        char path[160];
        snprintf(path, sizeof path, "/%s", h->id);
        shm_unlink(path); /* complete: nobody opens it by name any more */
    }
    g->local = true;
    for (uint32_t j = 0; j < g->nranks; j++)
        if (hc_slot(g, j)->proc != hc_proc_id) g->local = false;
    if (!g->local) {
        if (rank == 0 || h->staging_bytes == 0) {
            uint64_t expect = 0, want = hc_staging_bytes();
            __atomic_compare_exchange_n(&h->staging_bytes, &expect, want, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        }
        ret = setup_staging(func, g, rank, deadline);
        if (ret != HCCL_SUCCESS) {
            if (ret == HCCL_E_TIMEOUT || ret == HCCL_E_REMOTE) ret = join_failure(func, g, ret, connect_ms, rank);
            leave_group(g, rank, SLOT_DEAD);
            return ret;
        }
    }
    return HCCL_SUCCESS;
}

/* ---- ranks and handles ---------------------------------------------------------------------------------------- */

HcRank *hc_acquire(const char *func, HcclComm comm, HcclResult *err) {
    if (comm == NULL) {
        *err = hc_err(HCCL_E_PTR, "%s: argument 'comm' is NULL", func);
        return NULL;
    }
    HcRank *r = handle_acquire(&hc_comms, comm);
    if (r == NULL) {
        if (CHECK_ON(CHECK_COLL))
            aclStubCheckReport(CHECK_COLL, "destroyed-communicator", func, "argument 'comm' (%p) is not a live "
                               "communicator (destroyed, never created, or created before fork)", comm);
        *err = hc_err(HCCL_E_PARA, "%s: argument 'comm' (%p) is not a live communicator (destroyed, never created, "
                      "or inherited from the parent process across fork)", func, comm);
    }
    return r;
}

void hc_release(void) { handle_release(&hc_comms); }

static void rank_free(HcRank *r) {
    group_unref(r->g);
    free(r->send_seq);
    free(r->recv_seq);
    free(r->parent_ranks);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

void hc_rank_unref(HcRank *r) {
    if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0) rank_free(r);
}

/* A rank object for slot `rank` of g (which it takes over), with its engine and handle. */
static HcclResult rank_new(const char *func, HcGroup *g, uint32_t rank, int32_t device, const char *name,
                           HcRank **out) {
    HcRank *r = calloc(1, sizeof *r);
    if (r != NULL) {
        r->send_seq = calloc(g->nranks, sizeof *r->send_seq);
        r->recv_seq = calloc(g->nranks, sizeof *r->recv_seq);
    }
    if (r == NULL || r->send_seq == NULL || r->recv_seq == NULL) {
        if (r) {
            free(r->send_seq);
            free(r->recv_seq);
        }
        free(r);
        return hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
    }
    r->g = g;
    r->rank = rank;
    r->device = device;
    r->refs = 1;
    snprintf(r->name, sizeof r->name, "%s", name);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    HcclResult ret = hc_engine_start(r);
    if (ret == HCCL_SUCCESS) {
        r->token = handle_insert(&hc_comms, r);
        if (r->token == NULL) {
            hc_engine_stop(r);
            ret = hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
        }
    }
    if (ret != HCCL_SUCCESS) {
        r->g = NULL; /* the caller still owns g */
        rank_free(r);
        return ret;
    }
    *out = r;
    return HCCL_SUCCESS;
}

/* The calling thread's current device, for the ranks it creates. */
static HcclResult current_device(const char *func, int32_t *device) {
    if (aclrtGetDevice(device) != ACL_SUCCESS)
        return hc_err(HCCL_E_RUNTIME, "%s: the calling thread has no current device (call aclrtSetDevice first)",
                      func);
    return HCCL_SUCCESS;
}

/* ---- configuration --------------------------------------------------------------------------------------------- */

typedef struct {
    size_t size;
    uint32_t magic, version;
    uint64_t reserved;
} ConfigHeader;

/* The name a config asks for ("" when none); HCCL_E_PARA for a structure HcclCommConfigInit did not prepare. */
static HcclResult read_config(const char *func, const HcclCommConfig *config, char *name) {
    name[0] = '\0';
    if (config == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'config' is NULL", func);
    ConfigHeader hdr;
    memcpy(&hdr, config, sizeof hdr);
    if (hdr.magic != HCCL_COMM_CONFIG_MAGIC_WORD)
        return hc_err(HCCL_E_PARA, "%s: argument 'config' has magic word 0x%08x, not 0x%08x: initialise it with "
                      "HcclCommConfigInit first", func, hdr.magic, HCCL_COMM_CONFIG_MAGIC_WORD);
    if (hdr.size < offsetof(HcclCommConfig, hcclUdi))
        return hc_err(HCCL_E_PARA, "%s: argument 'config' declares %zu bytes, fewer than the fields up to "
                      "hcclCommName", func, hdr.size);
    uint32_t det = config->hcclDeterministic;
    if (det != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET && det > 1)
        return hc_err(HCCL_E_PARA, "%s: config field 'hcclDeterministic' (%u) must be 0 or 1", func, det);
    size_t len = strnlen(config->hcclCommName, sizeof config->hcclCommName);
    if (len == sizeof config->hcclCommName)
        return hc_err(HCCL_E_PARA, "%s: config field 'hcclCommName' is not NUL-terminated within %zu bytes", func,
                      sizeof config->hcclCommName);
    memcpy(name, config->hcclCommName, len + 1);
    return HCCL_SUCCESS;
}

uint32_t HcclGetCommConfigCapability(void) { return HCCL_COMM_CONFIG_RESERVED; }

static int32_t config_values[HCCL_CONFIG_RESERVED];

HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue) {
    if ((int)config < 0 || config >= HCCL_CONFIG_RESERVED)
        return hc_err(HCCL_E_PARA, "HcclSetConfig: argument 'config' (%d) is not an HcclConfig", (int)config);
    if (config == HCCL_DETERMINISTIC && configValue.value != 0 && configValue.value != 1)
        return hc_err(HCCL_E_PARA, "HcclSetConfig: HCCL_DETERMINISTIC takes 0 or 1, not %d", configValue.value);
    __atomic_store_n(&config_values[config], configValue.value, __ATOMIC_RELAXED);
    return HCCL_SUCCESS;
}

HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue) {
    if (configValue == NULL) return hc_err(HCCL_E_PTR, "HcclGetConfig: argument 'configValue' is NULL");
    if ((int)config < 0 || config >= HCCL_CONFIG_RESERVED)
        return hc_err(HCCL_E_PARA, "HcclGetConfig: argument 'config' (%d) is not an HcclConfig", (int)config);
    configValue->value = __atomic_load_n(&config_values[config], __ATOMIC_RELAXED);
    return HCCL_SUCCESS;
}

/* ---- root info ---------------------------------------------------------------------------------------------- */

#define ROOT_MAGIC "aclstub-hccl-root"

typedef struct {
    char magic[24];
    uint32_t version;
    int32_t pid;
    char id[96];
} RootInfo;

_Static_assert(sizeof(RootInfo) <= sizeof(HcclRootInfo), "root info layout");

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) {
    if (rootInfo == NULL) return hc_err(HCCL_E_PTR, "HcclGetRootInfo: argument 'rootInfo' is NULL");
    RootInfo info;
    memset(&info, 0, sizeof info);
    snprintf(info.magic, sizeof info.magic, "%s", ROOT_MAGIC);
    info.version = 1;
    info.pid = (int32_t)getpid();
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
    uint64_t salt = mix64(mix64(hc_proc_id, (uint64_t)t.tv_nsec), n);
    snprintf(info.id, sizeof info.id, "aclstub-hccl-%u-%d-%llu-%08llx", (unsigned)getuid(), (int)getpid(),
             (unsigned long long)n, (unsigned long long)(salt & 0xffffffffu));
    memset(rootInfo, 0, sizeof *rootInfo);
    memcpy(rootInfo, &info, sizeof info);
    return HCCL_SUCCESS;
}

static HcclResult read_root_info(const char *func, const HcclRootInfo *rootInfo, RootInfo *info) {
    memcpy(info, rootInfo, sizeof *info);
    if (strncmp(info->magic, ROOT_MAGIC, sizeof info->magic) != 0 || memchr(info->id, '\0', sizeof info->id) == NULL ||
        strncmp(info->id, "aclstub-hccl-", 13) != 0)
        return hc_err(HCCL_E_PARA, "%s: argument 'rootInfo' was not written by HcclGetRootInfo of this library", func);
    for (const char *p = info->id; *p; p++)
        if (!(*p == '-' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z')))
            return hc_err(HCCL_E_PARA, "%s: argument 'rootInfo' holds a malformed identifier", func);
    return HCCL_SUCCESS;
}

/* Create and join a named group, then the rank behind the handle. */
static HcclResult init_named(const char *func, const char *id, uint32_t nRanks, uint32_t rank, const char *name,
                             int32_t device, HcclComm *comm) {
    uint64_t exec_ms, connect_ms;
    HcclResult ret = hc_read_timeouts(func, &exec_ms, &connect_ms);
    if (ret != HCCL_SUCCESS) return ret;
    HcGroup *g = NULL;
    ret = group_named(func, id, nRanks, name, hc_now_ms() + connect_ms, &g);
    if (ret != HCCL_SUCCESS) return ret;
    g->exec_timeout_ms = exec_ms;
    g->connect_timeout_ms = connect_ms;
    ret = join(func, g, rank, device, connect_ms);
    HcRank *r = NULL;
    if (ret == HCCL_SUCCESS) {
        ret = rank_new(func, g, rank, device, name[0] ? name : g->hdr->name, &r);
        if (ret != HCCL_SUCCESS) leave_group(g, rank, SLOT_DEAD);
    }
    if (ret != HCCL_SUCCESS) {
        group_unref(g);
        return ret;
    }
    *comm = r->token;
    return HCCL_SUCCESS;
}

static HcclResult init_root_info(const char *func, uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                 const HcclCommConfig *config, HcclComm *comm) {
    if (rootInfo == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'rootInfo' is NULL", func);
    if (comm == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'comm' is NULL", func);
    if (nRanks == 0 || nRanks > HC_MAX_RANKS)
        return hc_err(HCCL_E_PARA, "%s: argument 'nRanks' (%u) must be in [1, %d]", func, nRanks, HC_MAX_RANKS);
    if (rank >= nRanks)
        return hc_err(HCCL_E_PARA, "%s: argument 'rank' (%u) must be less than 'nRanks' (%u)", func, rank, nRanks);
    char name[HC_NAME_MAX] = "";
    HcclResult ret = config ? read_config(func, config, name) : HCCL_SUCCESS;
    RootInfo info;
    if (ret == HCCL_SUCCESS) ret = read_root_info(func, rootInfo, &info);
    int32_t device = 0;
    if (ret == HCCL_SUCCESS) ret = current_device(func, &device);
    if (ret != HCCL_SUCCESS) return ret;
    char default_name[HC_NAME_MAX];
    snprintf(default_name, sizeof default_name, "%s", info.id + 13); /* without the "aclstub-hccl-" prefix */
    return init_named(func, info.id, nRanks, rank, name[0] ? name : default_name, device, comm);
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm) {
    return init_root_info("HcclCommInitRootInfo", nRanks, rootInfo, rank, NULL, comm);
}

HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                      const HcclCommConfig *config, HcclComm *comm) {
    if (config == NULL) return hc_err(HCCL_E_PTR, "HcclCommInitRootInfoConfig: argument 'config' is NULL");
    return init_root_info("HcclCommInitRootInfoConfig", nRanks, rootInfo, rank, config, comm);
}

/* ---- all devices of this process ------------------------------------------------------------------------------- */

/* Join every slot of an anonymous group from this thread: the ranks are all here, nobody waits. */
static void join_all_local(HcGroup *g, const int32_t *devices) {
    HcHeader *h = g->hdr;
    for (uint32_t j = 0; j < g->nranks; j++) {
        HcSlot *s = hc_slot(g, j);
        s->pid = (int32_t)getpid();
        s->proc = hc_proc_id;
        s->device = devices[j];
        __atomic_store_n(&s->state, SLOT_JOINED, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&h->present, g->nranks, __ATOMIC_RELEASE);
    __atomic_store_n(&h->joined, g->nranks, __ATOMIC_RELEASE);
    g->local = true;
}

/* Ranks 0 .. n-1 on an anonymous group (HcclCommInitAll and in-process sub-communicators). */
static HcclResult create_local_ranks(const char *func, HcGroup *g, const int32_t *devices, const char *name,
                                     HcRank **ranks) {
    uint32_t n = g->nranks;
    join_all_local(g, devices);
    HcclResult ret = HCCL_SUCCESS;
    uint32_t made = 0;
    for (; made < n && ret == HCCL_SUCCESS; made++) {
        if (made > 0) {
            pthread_mutex_lock(&registry_lock);
            g->refs++;
            pthread_mutex_unlock(&registry_lock);
        }
        ret = rank_new(func, g, made, devices[made], name, &ranks[made]);
        if (ret != HCCL_SUCCESS && made > 0) group_unref(g);
        if (ret != HCCL_SUCCESS) break;
    }
    if (ret != HCCL_SUCCESS) {
        for (uint32_t j = 0; j < made; j++) {
            handle_remove(&hc_comms, ranks[j]->token);
            __atomic_store_n(&ranks[j]->destroyed, 1, __ATOMIC_RELEASE);
            hc_engine_stop(ranks[j]);
            hc_rank_unref(ranks[j]);
        }
        if (made == 0) group_unref(g);
    }
    return ret;
}

HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms) {
    static const char func[] = "HcclCommInitAll";
    if (devices == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'devices' is NULL", func);
    if (comms == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'comms' is NULL", func);
    uint32_t count = 0;
    if (aclrtGetDeviceCount(&count) != ACL_SUCCESS) count = 0;
    if (ndev == 0 || ndev > count)
        return hc_err(HCCL_E_PARA, "%s: argument 'ndev' (%u) must be in [1, %u] (the device count)", func, ndev, count);
    for (uint32_t i = 0; i < ndev; i++) {
        if (devices[i] < 0 || (uint32_t)devices[i] >= count)
            return hc_err(HCCL_E_PARA, "%s: devices[%u] (%d) is not a device (0 .. %u)", func, i, (int)devices[i],
                          count - 1);
        for (uint32_t j = 0; j < i; j++)
            if (devices[j] == devices[i])
                return hc_err(HCCL_E_PARA, "%s: device %d is listed twice (devices[%u] and devices[%u])", func,
                              (int)devices[i], j, i);
    }
    uint64_t exec_ms, connect_ms;
    HcclResult ret = hc_read_timeouts(func, &exec_ms, &connect_ms);
    if (ret != HCCL_SUCCESS) return ret;
    char id[96], name[HC_NAME_MAX];
    uint64_t n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
    snprintf(id, sizeof id, "local-%d-%llu", (int)getpid(), (unsigned long long)n);
    snprintf(name, sizeof name, "hccl_world_%d_%llu", (int)getpid(), (unsigned long long)n);
    HcGroup *g = group_anonymous(ndev, name, id);
    if (g == NULL) return hc_err(HCCL_E_MEMORY, "%s: out of memory for the communicator's segment", func);
    g->exec_timeout_ms = exec_ms;
    g->connect_timeout_ms = connect_ms;
    HcRank **ranks = calloc(ndev, sizeof *ranks);
    if (ranks == NULL) {
        group_unref(g);
        return hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
    }
    ret = create_local_ranks(func, g, devices, name, ranks);
    if (ret == HCCL_SUCCESS)
        for (uint32_t i = 0; i < ndev; i++) comms[i] = ranks[i]->token;
    free(ranks);
    return ret;
}

/* ---- rank table ------------------------------------------------------------------------------------------------- */

HcclResult hc_parse_rank_table(const char *func, const char *path, uint32_t rank, uint32_t *nranks, int32_t *device,
                               uint64_t *content_hash);

static HcclResult init_cluster(const char *func, const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                               HcclComm *comm) {
    if (clusterInfo == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'clusterInfo' is NULL", func);
    if (comm == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'comm' is NULL", func);
    char name[HC_NAME_MAX] = "";
    HcclResult ret = config ? read_config(func, config, name) : HCCL_SUCCESS;
    uint32_t nranks = 0;
    int32_t table_device = 0, device = 0;
    uint64_t hash = 0;
    if (ret == HCCL_SUCCESS) ret = hc_parse_rank_table(func, clusterInfo, rank, &nranks, &table_device, &hash);
    if (ret == HCCL_SUCCESS) ret = current_device(func, &device);
    if (ret != HCCL_SUCCESS) return ret;
    char id[96];
    snprintf(id, sizeof id, "aclstub-hccl-%u-rt-%016llx", (unsigned)getuid(), (unsigned long long)hash);
    return init_named(func, id, nranks, rank, name[0] ? name : "hccl_world_group", device, comm);
}

HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm) {
    return init_cluster("HcclCommInitClusterInfo", clusterInfo, rank, NULL, comm);
}

HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                         HcclComm *comm) {
    if (config == NULL) return hc_err(HCCL_E_PTR, "HcclCommInitClusterInfoConfig: argument 'config' is NULL");
    return init_cluster("HcclCommInitClusterInfoConfig", clusterInfo, rank, config, comm);
}

/* ---- sub-communicators ---------------------------------------------------------------------------------------- */

/* In-process sub-communicators: the first member to arrive makes the anonymous group, the others find it here. */
typedef struct PendingSub {
    struct PendingSub *next;
    const HcHeader *parent;
    uint64_t key;
    HcGroup *g;
    uint32_t taken; /* members that picked it up */
} PendingSub;
static PendingSub *pending_subs;

static HcclResult local_sub_group(const char *func, const HcGroup *parent, uint64_t key, uint32_t n,
                                  const char *name, HcGroup **out) {
    pthread_mutex_lock(&registry_lock);
    PendingSub *p = pending_subs;
    while (p && !(p->parent == parent->hdr && p->key == key)) p = p->next;
    if (p == NULL) {
        p = calloc(1, sizeof *p);
        char id[96];
        snprintf(id, sizeof id, "%.70s-sub%016llx", parent->hdr->id, (unsigned long long)key);
        HcGroup *g = p ? group_anonymous(n, name, id) : NULL;
        if (g == NULL) {
            free(p);
            pthread_mutex_unlock(&registry_lock);
            return hc_err(HCCL_E_MEMORY, "%s: out of memory for the sub-communicator's segment", func);
        }
        g->refs = 0;
        p->parent = parent->hdr;
        p->key = key;
        p->g = g;
        p->next = pending_subs;
        pending_subs = p;
    }
    HcGroup *g = p->g;
    g->refs++;
    if (++p->taken == n) { /* every member has it: forget it, so the same id can make a new one */
        PendingSub **q = &pending_subs;
        while (*q != p) q = &(*q)->next;
        *q = p->next;
        free(p);
    }
    pthread_mutex_unlock(&registry_lock);
    *out = g;
    return HCCL_SUCCESS;
}

HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds, uint64_t subCommId,
                                   uint32_t subCommRankId, HcclCommConfig *config, HcclComm *subComm) {
    static const char func[] = "HcclCreateSubCommConfig";
    if (comm == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'comm' is NULL", func);
    if (rankIds == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'rankIds' is NULL", func);
    if (config == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'config' is NULL", func);
    if (subComm == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'subComm' is NULL", func);
    char name[HC_NAME_MAX];
    HcclResult ret = read_config(func, config, name);
    if (ret != HCCL_SUCCESS) return ret;
    HcRank *parent = hc_acquire(func, *comm, &ret);
    if (parent == NULL) return ret;
    HcGroup *pg = parent->g;
    uint32_t n = pg->nranks, me = parent->rank;
    int32_t device = parent->device;
    bool is_sub = parent->is_sub, local = pg->local;
    if (is_sub)
        ret = hc_err(HCCL_E_NOT_SUPPORT, "%s: argument 'comm' is itself a sub-communicator (sub-communicators of "
                     "sub-communicators are not supported)", func);
    else if (rankNum == 0 || rankNum > n)
        ret = hc_err(HCCL_E_PARA, "%s: argument 'rankNum' (%u) must be in [1, %u] (the communicator's size)", func,
                     rankNum, n);
    else if (subCommRankId >= rankNum)
        ret = hc_err(HCCL_E_PARA, "%s: argument 'subCommRankId' (%u) must be less than 'rankNum' (%u)", func,
                     subCommRankId, rankNum);
    for (uint32_t i = 0; i < rankNum && ret == HCCL_SUCCESS; i++) {
        if (rankIds[i] >= n)
            ret = hc_err(HCCL_E_PARA, "%s: rankIds[%u] (%u) is not a rank of the communicator (size %u)", func, i,
                         rankIds[i], n);
        for (uint32_t j = 0; j < i && ret == HCCL_SUCCESS; j++)
            if (rankIds[j] == rankIds[i])
                ret = hc_err(HCCL_E_PARA, "%s: rank %u is listed twice in 'rankIds' (entries %u and %u)", func,
                             rankIds[i], j, i);
    }
    if (ret == HCCL_SUCCESS && rankIds[subCommRankId] != me)
        ret = hc_err(HCCL_E_PARA, "%s: rankIds[subCommRankId = %u] is %u, but the calling rank is rank %u of 'comm'",
                     func, subCommRankId, rankIds[subCommRankId], me);
    uint64_t key = mix64(subCommId, rankNum);
    for (uint32_t i = 0; i < rankNum; i++) key = mix64(key, rankIds[i]);
    char parent_id[96], parent_name[HC_NAME_MAX];
    snprintf(parent_id, sizeof parent_id, "%s", pg->hdr->id);
    snprintf(parent_name, sizeof parent_name, "%s", parent->name);
    uint64_t exec_ms = pg->exec_timeout_ms, connect_ms = pg->connect_timeout_ms;
    HcGroup *g = NULL;
    char sub_name[HC_NAME_MAX];
    if (name[0])
        snprintf(sub_name, sizeof sub_name, "%s", name);
    else
        snprintf(sub_name, sizeof sub_name, "%.80s_sub%llu", parent_name, (unsigned long long)subCommId);
    if (ret == HCCL_SUCCESS && local) ret = local_sub_group(func, pg, key, rankNum, sub_name, &g);
    hc_release();
    if (ret != HCCL_SUCCESS) return ret;
    uint32_t *map = malloc(rankNum * sizeof *map);
    if (map == NULL) {
        if (g) group_unref(g);
        return hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
    }
    memcpy(map, rankIds, rankNum * sizeof *map);
    HcRank *r = NULL;
    if (local) {
        g->exec_timeout_ms = exec_ms;
        g->connect_timeout_ms = connect_ms;
        ret = join(func, g, subCommRankId, device, connect_ms);
        if (ret == HCCL_SUCCESS) {
            ret = rank_new(func, g, subCommRankId, device, sub_name, &r);
            if (ret != HCCL_SUCCESS) leave_group(g, subCommRankId, SLOT_DEAD);
        }
        if (ret != HCCL_SUCCESS) group_unref(g);
    } else {
        char id[96];
        snprintf(id, sizeof id, "%.60s-sub%016llx", parent_id, (unsigned long long)key);
        HcclComm handle = NULL;
        ret = init_named(func, id, rankNum, subCommRankId, sub_name, device, &handle);
        if (ret == HCCL_SUCCESS) {
            r = handle_acquire(&hc_comms, handle);
            if (r) handle_release(&hc_comms);
        }
    }
    if (ret != HCCL_SUCCESS || r == NULL) {
        free(map);
        return ret != HCCL_SUCCESS ? ret : hc_err(HCCL_E_INTERNAL, "%s: the new sub-communicator vanished", func);
    }
    r->is_sub = true;
    r->parent_ranks = map;
    *subComm = r->token;
    return HCCL_SUCCESS;
}

/* ---- queries -------------------------------------------------------------------------------------------------- */

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize) {
    HcclResult ret;
    if (rankSize == NULL) return hc_err(HCCL_E_PTR, "HcclGetRankSize: argument 'rankSize' is NULL");
    HcRank *r = hc_acquire("HcclGetRankSize", comm, &ret);
    if (r == NULL) return ret;
    *rankSize = r->g->nranks;
    hc_release();
    return HCCL_SUCCESS;
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) {
    HcclResult ret;
    if (rank == NULL) return hc_err(HCCL_E_PTR, "HcclGetRankId: argument 'rank' is NULL");
    HcRank *r = hc_acquire("HcclGetRankId", comm, &ret);
    if (r == NULL) return ret;
    *rank = r->rank;
    hc_release();
    return HCCL_SUCCESS;
}

HcclResult HcclGetCommName(HcclComm comm, char *commName) {
    HcclResult ret;
    if (commName == NULL) return hc_err(HCCL_E_PTR, "HcclGetCommName: argument 'commName' is NULL");
    HcRank *r = hc_acquire("HcclGetCommName", comm, &ret);
    if (r == NULL) return ret;
    snprintf(commName, HC_NAME_MAX, "%s", r->name);
    hc_release();
    return HCCL_SUCCESS;
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError) {
    HcclResult ret;
    if (asyncError == NULL) return hc_err(HCCL_E_PTR, "HcclGetCommAsyncError: argument 'asyncError' is NULL");
    HcRank *r = hc_acquire("HcclGetCommAsyncError", comm, &ret);
    if (r == NULL) return ret;
    *asyncError = (HcclResult)__atomic_load_n(&r->async_error, __ATOMIC_ACQUIRE);
    hc_release();
    return HCCL_SUCCESS;
}

/* ---- destruction ---------------------------------------------------------------------------------------------- */

HcclResult HcclCommDestroy(HcclComm comm) {
    if (comm == NULL) return hc_err(HCCL_E_PTR, "HcclCommDestroy: argument 'comm' is NULL");
    HcRank *r = handle_remove(&hc_comms, comm);
    if (r == NULL) {
        if (CHECK_ON(CHECK_COLL))
            aclStubCheckReport(CHECK_COLL, "destroyed-communicator", "HcclCommDestroy", "argument 'comm' (%p) is not "
                               "a live communicator (destroyed twice, never created, or created before fork)", comm);
        return hc_err(HCCL_E_PARA, "HcclCommDestroy: argument 'comm' (%p) is not a live communicator (already "
                      "destroyed, never created, or inherited across fork)", comm);
    }
    /* Peers waiting for this rank fail at once; its own engine abandons what it waits for. */
    __atomic_store_n(&r->destroyed, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&hc_slot(r->g, r->rank)->state, SLOT_DESTROYED, __ATOMIC_RELEASE);
    hc_wake(r->g);
    hc_engine_stop(r);
    leave_group(r->g, r->rank, SLOT_DESTROYED);
    hc_rank_unref(r);
    return HCCL_SUCCESS;
}

/* ---- operators' group names ---------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    int32_t device;
    HcRank *found;
    int matches;
} FindCtx;

static void find_named(const void *token, void *object, void *ctx) {
    (void)token;
    FindCtx *f = ctx;
    HcRank *r = object;
    if (strcmp(r->name, f->name) != 0 || __atomic_load_n(&r->destroyed, __ATOMIC_ACQUIRE)) return;
    if (f->device >= 0 && r->device != f->device) return;
    if (f->matches++ == 0) f->found = r;
}

/*
 * The communicator an operator names by group (HcclGetCommName's string), as the toolkit resolves it: the one of
 * that name whose rank runs on the calling thread's current device. Returns the handle, NULL when there is none
 * or several (message set).
 */
STUB_API HcclComm aclStubHcclCommByName(const char *group) {
    if (group == NULL || group[0] == '\0') {
        aclStubSetErrMsg("the group name is empty");
        return NULL;
    }
    int32_t device = -1;
    if (aclrtGetDevice(&device) != ACL_SUCCESS) device = -1;
    FindCtx f = {group, device, NULL, 0};
    handle_for_each(&hc_comms, find_named, &f);
    if (f.matches == 0 && device >= 0) { /* a process with one rank may run it on another device */
        f.device = -1;
        handle_for_each(&hc_comms, find_named, &f);
    }
    if (f.matches == 0) {
        aclStubSetErrMsg("no live communicator of this process is named '%s' (HcclGetCommName)", group);
        return NULL;
    }
    if (f.matches > 1) {
        aclStubSetErrMsg("%d communicators named '%s' run on device %d of this process", f.matches, group, (int)device);
        return NULL;
    }
    return f.found->token;
}

/* ---- fork --------------------------------------------------------------------------------------------------- */

/* Communicators do not cross fork(): the child's copies have no engine threads. Their handles are forgotten (a
 * child using one gets HCCL_E_PARA), their memory is left alone, and the child gets a process identity of its own. */
static void atfork_child(void) {
    pthread_mutex_init(&registry_lock, NULL);
    handle_table_reset_after_fork(&hc_comms);
    hc_comms.slots = NULL; /* the parent's table is left behind (never freed: its objects are the parent's) */
    hc_comms.capacity = hc_comms.count = hc_comms.used = 0;
    pending_subs = NULL;
    new_proc_id();
}

__attribute__((constructor)) static void hccl_init(void) {
    new_proc_id();
    pthread_atfork(NULL, NULL, atfork_child);
}
