/*
 * Collectives. Every rank publishes its call (the descriptor in its slot, the V variants' counts beside it) and
 * waits until every rank has published the same collective number; all ranks then check every call against
 * every other (the verdict is the same everywhere, so either all move data or all fail), move the data, and wait
 * until every rank has finished, so no buffer is read or written after its rank's stream goes on.
 *
 * Ranks of one process move data directly: each reads the others' device buffers (a reduction is split into
 * slices, each rank reducing one slice of every input into every output). Ranks of several processes go through
 * their staging areas in rounds: every rank writes its contribution, a barrier, every rank reads what it needs,
 * a barrier. A failure that not every rank sees (a timeout, a destroyed communicator, an exited process) breaks
 * the communicator: its later operations fail at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl_internal.h"

/* One collective as every rank describes it. */
typedef struct {
    HcKind kind;
    void *send, *recv;
    uint64_t count, count2;
    int dtype, rtype, op;
    uint32_t root;
    const uint64_t *arrays; /* 4 x nranks, or NULL */
    uint64_t matrix_hash;
    const char *custom;
} Op;

static inline uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline uint32_t ld32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static bool gone(uint32_t state) { return state == SLOT_DESTROYED || state == SLOT_DEAD; }

/* ---- publishing and describing calls ---------------------------------------------------------------------- */

static void publish(HcRank *r, HcTask *t, const Op *op) {
    HcGroup *g = r->g;
    HcSlot *s = hc_slot(g, r->rank);
    HcDesc *d = &s->desc;
    d->kind = op->kind;
    d->dtype = op->dtype;
    d->rtype = op->rtype;
    d->op = op->op;
    d->root = op->root;
    d->seq = t->seq;
    d->count = op->count;
    d->count2 = op->count2;
    d->send_ptr = (uint64_t)(uintptr_t)op->send;
    d->recv_ptr = (uint64_t)(uintptr_t)op->recv;
    d->matrix_hash = op->matrix_hash;
    d->has_arrays = op->arrays != NULL;
    snprintf(d->custom, sizeof d->custom, "%s", op->custom ? op->custom : "");
    snprintf(d->site, sizeof d->site, "%s", t->site);
    if (op->arrays) memcpy(hc_arrays(g, r->rank), op->arrays, (size_t)4 * g->nranks * sizeof(uint64_t));
    s->last_coll_kind = op->kind;
    HcNow now = {(uint32_t)op->kind, 0, t->seq, 0};
    s->now = now;
    __atomic_store_n(&s->arrived, t->seq, __ATOMIC_RELEASE);
    hc_wake(g);
}

static int put_array(char *out, size_t cap, const char *name, const uint64_t *a, uint32_t n) {
    int o = snprintf(out, cap, ", %s=[", name);
    for (uint32_t i = 0; i < n && i < 8 && o > 0 && (size_t)o < cap; i++)
        o += snprintf(out + o, cap - (size_t)o, "%s%llu", i ? " " : "", (unsigned long long)a[i]);
    if (o > 0 && (size_t)o < cap) o += snprintf(out + o, cap - (size_t)o, "%s]", n > 8 ? " ..." : "");
    return o;
}

/* "HcclAllReduce(count=8, FP32, SUM) at main (a.cpp:12)" for rank j's published call. */
static void describe_call(const HcGroup *g, uint32_t j, char *out, size_t cap) {
    const HcDesc *d = &hc_slot(g, j)->desc;
    const uint64_t *a = hc_arrays(g, j);
    uint32_t n = g->nranks;
    const char *dt = hc_dtype_name(d->dtype), *op = hc_op_name(d->op);
    unsigned long long c = (unsigned long long)d->count;
    int o;
    switch ((HcKind)d->kind) {
    case HC_ALLREDUCE: o = snprintf(out, cap, "HcclAllReduce(count=%llu, %s, %s", c, dt, op); break;
    case HC_REDUCE: o = snprintf(out, cap, "HcclReduce(count=%llu, %s, %s, root=%u", c, dt, op, d->root); break;
    case HC_BROADCAST: o = snprintf(out, cap, "HcclBroadcast(count=%llu, %s, root=%u", c, dt, d->root); break;
    case HC_SCATTER: o = snprintf(out, cap, "HcclScatter(recvCount=%llu, %s, root=%u", c, dt, d->root); break;
    case HC_REDUCE_SCATTER: o = snprintf(out, cap, "HcclReduceScatter(recvCount=%llu, %s, %s", c, dt, op); break;
    case HC_REDUCE_SCATTER_V:
        o = snprintf(out, cap, "HcclReduceScatterV(recvCount=%llu, %s, %s", c, dt, op);
        if (o > 0 && (size_t)o < cap) o += put_array(out + o, cap - (size_t)o, "sendCounts", a, n);
        break;
    case HC_ALLGATHER: o = snprintf(out, cap, "HcclAllGather(sendCount=%llu, %s", c, dt); break;
    case HC_ALLGATHER_V:
        o = snprintf(out, cap, "HcclAllGatherV(sendCount=%llu, %s", c, dt);
        if (o > 0 && (size_t)o < cap) o += put_array(out + o, cap - (size_t)o, "recvCounts", a + 2 * (size_t)n, n);
        break;
    case HC_ALLTOALL: o = snprintf(out, cap, "HcclAlltoAll(sendCount=%llu, %s", c, dt); break;
    case HC_ALLTOALLV:
    case HC_ALLTOALLVC:
        o = snprintf(out, cap, "%s(%s", hc_kind_call((HcKind)d->kind), dt);
        if (o > 0 && (size_t)o < cap) o += put_array(out + o, cap - (size_t)o, "sendCounts", a, n);
        if (o > 0 && (size_t)o < cap) o += put_array(out + o, cap - (size_t)o, "recvCounts", a + 2 * (size_t)n, n);
        break;
    case HC_BARRIER: o = snprintf(out, cap, "HcclBarrier("); break;
    case HC_CUSTOM:
        o = snprintf(out, cap, "%s(%s, %llu bytes", d->custom, d->count2 ? "all-to-all" : "all-gather", c);
        break;
    default: o = snprintf(out, cap, "(nothing"); break;
    }
    if (o > 0 && (size_t)o < cap) o += snprintf(out + o, cap - (size_t)o, ")");
    if (d->site[0] && o > 0 && (size_t)o < cap) snprintf(out + o, cap - (size_t)o, " at %s", d->site);
}

/* Every rank's call, for a mismatch. */
static void describe_calls(const HcGroup *g, char *out, size_t cap) {
    size_t o = 0;
    for (uint32_t j = 0; j < g->nranks && o + 1 < cap; j++) {
        if (j == 16) {
            snprintf(out + o, cap - o, "; ...");
            return;
        }
        o += (size_t)snprintf(out + o, cap - o, "%srank %u: ", j ? "; " : "", j);
        if (o + 1 >= cap) return;
        describe_call(g, j, out + o, cap - o);
        o += strlen(out + o);
    }
}

/* ---- waiting ------------------------------------------------------------------------------------------------ */

static int all_arrived(HcRank *r, HcTask *t, void *ctx) {
    (void)ctx;
    HcGroup *g = r->g;
    for (uint32_t j = 0; j < g->nranks; j++) {
        HcSlot *s = hc_slot(g, j);
        if (ld(&s->arrived) >= t->seq) continue;
        uint32_t st = ld32(&s->state);
        if (gone(st)) {
            hc_fail(t, st == SLOT_DEAD ? HCCL_E_REMOTE : HCCL_E_UNAVAIL, "rank %u %s before calling it", j,
                    st == SLOT_DEAD ? "exited" : "destroyed its communicator");
            return -1;
        }
        return 0;
    }
    return 1;
}

static int all_finished(HcRank *r, HcTask *t, void *ctx) {
    (void)ctx;
    HcGroup *g = r->g;
    for (uint32_t j = 0; j < g->nranks; j++) {
        HcSlot *s = hc_slot(g, j);
        if (ld(&s->finished) >= t->seq) continue;
        uint32_t st = ld32(&s->state);
        if (gone(st)) {
            hc_fail(t, HCCL_E_REMOTE, "rank %u %s before finishing it", j,
                    st == SLOT_DEAD ? "exited" : "destroyed its communicator");
            return -1;
        }
        return 0;
    }
    return 1;
}

static int barrier_reached(HcRank *r, HcTask *t, void *ctx) {
    uint64_t step = *(const uint64_t *)ctx;
    HcGroup *g = r->g;
    for (uint32_t j = 0; j < g->nranks; j++) {
        HcSlot *s = hc_slot(g, j);
        if (ld(&s->step) >= step) continue;
        uint32_t st = ld32(&s->state);
        if (gone(st)) {
            hc_fail(t, HCCL_E_REMOTE, "rank %u %s in the middle of it", j,
                    st == SLOT_DEAD ? "exited" : "destroyed its communicator");
            return -1;
        }
        return 0;
    }
    return 1;
}

static HcclResult barrier(HcRank *r, HcTask *t) {
    uint64_t step = ++r->step;
    __atomic_store_n(&hc_slot(r->g, r->rank)->step, step, __ATOMIC_RELEASE);
    hc_wake(r->g);
    return hc_wait(r, t, barrier_reached, &step, "waiting for the other ranks to move their data");
}

/* ---- the global verdict ---------------------------------------------------------------------------------------- */

static bool same_arrays(const HcGroup *g, uint32_t a, uint32_t b, int which) {
    size_t n = g->nranks;
    return memcmp(hc_arrays(g, a) + which * n, hc_arrays(g, b) + which * n, n * sizeof(uint64_t)) == 0;
}

/* Whether rank j's call agrees with rank 0's; for all-to-all-v, whether every pair agrees. */
static bool calls_agree(const HcGroup *g, char *why, size_t cap) {
    uint32_t n = g->nranks;
    const HcDesc *d0 = &hc_slot(g, 0)->desc;
    why[0] = '\0';
    for (uint32_t j = 1; j < n; j++) {
        const HcDesc *d = &hc_slot(g, j)->desc;
        bool same = d->kind == d0->kind;
        if (same) switch ((HcKind)d0->kind) {
            case HC_ALLREDUCE:
            case HC_REDUCE_SCATTER:
                same = d->count == d0->count && d->dtype == d0->dtype && d->op == d0->op;
                break;
            case HC_REDUCE:
                same = d->count == d0->count && d->dtype == d0->dtype && d->op == d0->op && d->root == d0->root;
                break;
            case HC_BROADCAST:
            case HC_SCATTER:
                same = d->count == d0->count && d->dtype == d0->dtype && d->root == d0->root;
                break;
            case HC_ALLGATHER:
            case HC_ALLTOALL:
                same = d->count == d0->count && d->dtype == d0->dtype;
                break;
            case HC_REDUCE_SCATTER_V:
                same = d->dtype == d0->dtype && d->op == d0->op && same_arrays(g, 0, j, 0) && same_arrays(g, 0, j, 1);
                break;
            case HC_ALLGATHER_V:
                same = d->dtype == d0->dtype && same_arrays(g, 0, j, 2) && same_arrays(g, 0, j, 3);
                break;
            case HC_ALLTOALLV:
                same = d->dtype == d0->dtype;
                break;
            case HC_ALLTOALLVC:
                same = d->dtype == d0->dtype && d->matrix_hash == d0->matrix_hash;
                break;
            case HC_CUSTOM:
                same = strcmp(d->custom, d0->custom) == 0 && d->count2 == d0->count2 &&
                       (d0->count2 != 0 || d->count == d0->count);
                break;
            default:
                break;
            }
        if (!same) {
            snprintf(why, cap, "rank %u's call differs from rank 0's", j);
            return false;
        }
    }
    if (d0->kind == HC_ALLTOALLV || d0->kind == HC_ALLTOALLVC || (d0->kind == HC_CUSTOM && d0->count2 != 0)) {
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < n; i++) {
                uint64_t sends = hc_arrays(g, j)[i], expects = hc_arrays(g, i)[2 * (size_t)n + j];
                if (sends != expects) {
                    snprintf(why, cap, "rank %u sends %llu element(s) to rank %u, which expects %llu from it", j,
                             (unsigned long long)sends, i, (unsigned long long)expects);
                    return false;
                }
            }
    }
    return true;
}

/* ---- pieces of the data-movement collectives ------------------------------------------------------------------ */

typedef struct {
    uint64_t src, len, dst; /* bytes: offset in the sender's buffer, length, offset in the receiver's */
} Piece;

/* What sender j gives receiver i. */
static Piece piece(const HcGroup *g, uint32_t j, uint32_t i) {
    const HcDesc *d = &hc_slot(g, j)->desc;
    uint64_t es = hc_dtype_size(d->dtype), c = d->count * es;
    size_t n = g->nranks;
    Piece p = {0, 0, 0};
    switch ((HcKind)d->kind) {
    case HC_ALLGATHER: p = (Piece){0, c, j * c}; break;
    case HC_ALLGATHER_V: {
        const uint64_t *a = hc_arrays(g, i);
        p = (Piece){0, a[2 * n + j] * es, a[3 * n + j] * es};
        break;
    }
    case HC_ALLTOALL: p = (Piece){i * c, c, j * c}; break;
    case HC_ALLTOALLV:
    case HC_ALLTOALLVC:
    case HC_CUSTOM: {
        const uint64_t *s = hc_arrays(g, j), *rcv = hc_arrays(g, i);
        p = (Piece){s[n + i] * es, s[i] * es, rcv[3 * n + j] * es};
        break;
    }
    case HC_BROADCAST:
        if (j == d->root && i != d->root) p = (Piece){0, c, 0};
        break;
    case HC_SCATTER:
        if (j == d->root) p = (Piece){i * c, c, 0};
        break;
    default: break;
    }
    return p;
}

/* The same data go to every receiver (staged rounds then use one area per sender). */
static bool one_to_all(HcKind kind) { return kind == HC_ALLGATHER || kind == HC_ALLGATHER_V || kind == HC_BROADCAST; }
static bool is_reduction(HcKind kind) {
    return kind == HC_ALLREDUCE || kind == HC_REDUCE || kind == HC_REDUCE_SCATTER || kind == HC_REDUCE_SCATTER_V;
}

static void *ptr_of(const HcGroup *g, uint32_t j, bool send) {
    const HcDesc *d = &hc_slot(g, j)->desc;
    return (void *)(uintptr_t)(send ? d->send_ptr : d->recv_ptr);
}

static bool overlap(const void *a, uint64_t alen, const void *b, uint64_t blen) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen && blen && x < y + blen && y < x + alen;
}

/* ---- in-process movement ----------------------------------------------------------------------------------------- */

/* Element range [*lo, *hi) of slice s of n over count elements, slices aligned to 64 bytes. */
static void slice_of(uint64_t count, size_t es, uint32_t n, uint32_t s, uint64_t *lo, uint64_t *hi) {
    uint64_t unit = 64 / es ? 64 / es : 1;
    uint64_t per = (count + n - 1) / n;
    per = (per + unit - 1) / unit * unit;
    *lo = per * s < count ? per * s : count;
    *hi = per * (s + 1) < count ? per * (s + 1) : count;
}

/* Where this rank writes its results: its receive buffer, or a temporary one when other ranks still read the
 * bytes it would overwrite (the result is copied over once every rank has finished). */
typedef struct {
    void *out;
    void *tmp;
    uint64_t bytes;
} Dest;

static HcclResult local_move(HcRank *r, HcTask *t, const Op *op, Dest *dest) {
    HcGroup *g = r->g;
    uint32_t n = g->nranks, me = r->rank;
    const HcDesc *d = &hc_slot(g, me)->desc;
    size_t es = hc_dtype_size(d->dtype);
    void *in[HC_MAX_RANKS], *outs[HC_MAX_RANKS];
    for (uint32_t j = 0; j < n; j++) in[j] = ptr_of(g, j, true);
    switch (op->kind) {
    case HC_ALLREDUCE:
    case HC_REDUCE: {
        uint64_t lo, hi;
        slice_of(d->count, es, n, me, &lo, &hi);
        if (lo == hi) return HCCL_SUCCESS;
        const void *srcs[HC_MAX_RANKS];
        for (uint32_t j = 0; j < n; j++) srcs[j] = (const char *)in[j] + lo * es;
        int nouts = 0;
        for (uint32_t j = 0; j < n; j++)
            if (op->kind == HC_ALLREDUCE || j == d->root) outs[nouts++] = (char *)ptr_of(g, j, false) + lo * es;
        hc_reduce_multi(outs, nouts, srcs, (int)n, hi - lo, d->dtype, d->op);
        return HCCL_SUCCESS;
    }
    case HC_REDUCE_SCATTER:
    case HC_REDUCE_SCATTER_V: {
        const uint64_t *a = hc_arrays(g, me);
        uint64_t off = op->kind == HC_REDUCE_SCATTER ? me * d->count : a[n + me], len = d->count;
        const void *srcs[HC_MAX_RANKS];
        for (uint32_t j = 0; j < n; j++) srcs[j] = (const char *)in[j] + off * es;
        hc_reduce(dest->out, srcs, (int)n, len, d->dtype, d->op, false);
        return HCCL_SUCCESS;
    }
    case HC_BARRIER:
        return HCCL_SUCCESS;
    default:
        for (uint32_t j = 0; j < n; j++) {
            Piece p = piece(g, j, me);
            if (p.len) hc_copy((char *)dest->out + p.dst, (const char *)in[j] + p.src, p.len);
        }
        return HCCL_SUCCESS;
    }
    (void)t;
}

/* The bytes of this rank's receive buffer the collective writes. */
static uint64_t recv_extent(const HcGroup *g, uint32_t me, const Op *op) {
    const HcDesc *d = &hc_slot(g, me)->desc;
    size_t es = hc_dtype_size(d->dtype);
    uint64_t extent = 0;
    switch (op->kind) {
    case HC_ALLREDUCE:
    case HC_REDUCE_SCATTER:
    case HC_REDUCE_SCATTER_V:
        return d->count * es;
    case HC_REDUCE:
        return me == d->root ? d->count * es : 0;
    case HC_BARRIER:
        return 0;
    default:
        for (uint32_t j = 0; j < g->nranks; j++) {
            Piece p = piece(g, j, me);
            if (p.len && p.dst + p.len > extent) extent = p.dst + p.len;
        }
        return extent;
    }
}

/* The bytes of this rank's send buffer that others read. */
static uint64_t send_extent(const HcGroup *g, uint32_t me, const Op *op) {
    const HcDesc *d = &hc_slot(g, me)->desc;
    size_t es = hc_dtype_size(d->dtype);
    uint64_t extent = 0;
    switch (op->kind) {
    case HC_ALLREDUCE:
    case HC_REDUCE:
        return d->count * es;
    case HC_REDUCE_SCATTER:
        return d->count * es * g->nranks;
    case HC_REDUCE_SCATTER_V: {
        const uint64_t *a = hc_arrays(g, me);
        for (uint32_t i = 0; i < g->nranks; i++)
            if (a[i] && (a[i] + a[g->nranks + i]) * es > extent) extent = (a[i] + a[g->nranks + i]) * es;
        return extent;
    }
    case HC_BARRIER:
        return 0;
    default:
        for (uint32_t i = 0; i < g->nranks; i++) {
            Piece p = piece(g, me, i);
            if (p.len && p.src + p.len > extent) extent = p.src + p.len;
        }
        return extent;
    }
}

/* ---- movement through the staging areas ---------------------------------------------------------------------- */

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static HcclResult staged_copy(HcRank *r, HcTask *t, const Op *op, Dest *dest) {
    HcGroup *g = r->g;
    uint32_t n = g->nranks, me = r->rank;
    uint64_t S = g->hdr->staging_bytes;
    bool bcast = one_to_all(op->kind);
    uint64_t C = bcast ? S : (S / n) & ~(uint64_t)63;
    uint64_t longest = 0;
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t i = 0; i < n; i++) longest = max_u64(longest, piece(g, j, i).len);
    uint64_t rounds = (longest + C - 1) / C;
    const char *mine = ptr_of(g, me, true);
    for (uint64_t k = 0; k < rounds; k++) {
        uint64_t base = k * C;
        for (uint32_t i = 0; i < n; i++) { /* write what each receiver gets this round */
            Piece p = piece(g, me, i);
            if (p.len > base) {
                uint64_t len = p.len - base < C ? p.len - base : C;
                hc_copy(g->staging[me] + (bcast ? 0 : i * C), mine + p.src + base, len);
                if (bcast) break; /* every receiver reads the same bytes */
            }
        }
        HcclResult ret = barrier(r, t);
        if (ret != HCCL_SUCCESS) return ret;
        for (uint32_t j = 0; j < n; j++) {
            Piece p = piece(g, j, me);
            if (p.len > base) {
                uint64_t len = p.len - base < C ? p.len - base : C;
                hc_copy((char *)dest->out + p.dst + base, g->staging[j] + (bcast ? 0 : me * C), len);
            }
        }
        if ((ret = barrier(r, t)) != HCCL_SUCCESS) return ret;
    }
    return HCCL_SUCCESS;
}

static HcclResult staged_allreduce(HcRank *r, HcTask *t, const Op *op, Dest *dest) {
    HcGroup *g = r->g;
    uint32_t n = g->nranks, me = r->rank;
    const HcDesc *d = &hc_slot(g, me)->desc;
    size_t es = hc_dtype_size(d->dtype);
    uint64_t half = g->hdr->staging_bytes / 2, E = (half / es) & ~(uint64_t)63;
    const char *mine = ptr_of(g, me, true);
    bool gather = op->kind == HC_ALLREDUCE || me == d->root;
    const void *srcs[HC_MAX_RANKS];
    for (uint64_t base = 0; base < d->count; base += E) {
        uint64_t len = d->count - base < E ? d->count - base : E, lo, hi;
        hc_copy(g->staging[me], mine + base * es, len * es);
        HcclResult ret = barrier(r, t);
        if (ret != HCCL_SUCCESS) return ret;
        slice_of(len, es, n, me, &lo, &hi);
        for (uint32_t j = 0; j < n; j++) srcs[j] = g->staging[j] + lo * es;
        if (hi > lo) hc_reduce(g->staging[me] + half + lo * es, srcs, (int)n, hi - lo, d->dtype, d->op, false);
        if ((ret = barrier(r, t)) != HCCL_SUCCESS) return ret;
        if (gather)
            for (uint32_t j = 0; j < n; j++) {
                slice_of(len, es, n, j, &lo, &hi);
                if (hi > lo)
                    hc_copy((char *)dest->out + (base + lo) * es, g->staging[j] + half + lo * es, (hi - lo) * es);
            }
        if ((ret = barrier(r, t)) != HCCL_SUCCESS) return ret;
    }
    return HCCL_SUCCESS;
}

static HcclResult staged_reduce_scatter(HcRank *r, HcTask *t, const Op *op, Dest *dest) {
    HcGroup *g = r->g;
    uint32_t n = g->nranks, me = r->rank;
    const HcDesc *d = &hc_slot(g, me)->desc;
    size_t es = hc_dtype_size(d->dtype);
    uint64_t C = ((g->hdr->staging_bytes / n) / es) & ~(uint64_t)63; /* elements per pair and round */
    const uint64_t *a = hc_arrays(g, me); /* V: the same counts on every rank */
    uint64_t longest = 0;
    for (uint32_t i = 0; i < n; i++) longest = max_u64(longest, op->kind == HC_REDUCE_SCATTER ? d->count : a[i]);
    const char *mine = ptr_of(g, me, true);
    const void *srcs[HC_MAX_RANKS];
    for (uint64_t base = 0; base < longest; base += C) {
        for (uint32_t i = 0; i < n; i++) {
            uint64_t cnt = op->kind == HC_REDUCE_SCATTER ? d->count : a[i];
            uint64_t off = op->kind == HC_REDUCE_SCATTER ? i * d->count : a[n + i];
            if (cnt > base)
                hc_copy(g->staging[me] + i * C * es, mine + (off + base) * es, (cnt - base < C ? cnt - base : C) * es);
        }
        HcclResult ret = barrier(r, t);
        if (ret != HCCL_SUCCESS) return ret;
        uint64_t cnt = d->count;
        if (cnt > base) {
            for (uint32_t j = 0; j < n; j++) srcs[j] = g->staging[j] + me * C * es;
            hc_reduce((char *)dest->out + base * es, srcs, (int)n, cnt - base < C ? cnt - base : C, d->dtype, d->op,
                      false);
        }
        if ((ret = barrier(r, t)) != HCCL_SUCCESS) return ret;
    }
    return HCCL_SUCCESS;
}

/* ---- one collective ------------------------------------------------------------------------------------------------ */

static int peers_idle(HcRank *r, HcTask *t, void *ctx) {
    (void)ctx;
    for (uint32_t j = 0; j < r->g->nranks; j++) {
        const HcSlot *s = hc_slot(r->g, j);
        if (j != r->rank && ld(&s->arrived) == t->seq && ld(&s->finished) < t->seq && ld(&s->left) < t->seq &&
            !gone(ld32(&s->state)))
            return 0;
    }
    return 1;
}

/* After a failure only this rank saw: the communicator is broken. In one process the others may still be reading
 * or writing this rank's buffers: wait (briefly) until they leave the collective, so the buffers can be freed. */
static void break_group(HcRank *r, HcTask *t) {
    HcHeader *h = r->g->hdr;
    if (__atomic_exchange_n(&h->failed, 1, __ATOMIC_ACQ_REL) == 0) snprintf(h->failure, sizeof h->failure, "%.500s", t->msg);
    __atomic_store_n(&hc_slot(r->g, r->rank)->left, t->seq, __ATOMIC_RELEASE);
    hc_wake(r->g);
    if (r->g->local) {
        uint64_t until = hc_now_ms() + 2000;
        while (!peers_idle(r, t, NULL) && hc_now_ms() < until) {
            uint32_t seen = __atomic_load_n(&h->futex, __ATOMIC_SEQ_CST);
            __atomic_add_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
            hc_futex_wait(&h->futex, seen, 10);
            __atomic_sub_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
        }
    }
}

static HcclResult collective(HcRank *r, HcTask *t, const Op *op) {
    HcGroup *g = r->g;
    t->seq = ++r->coll_seq;
    publish(r, t, op);
    HcclResult ret = hc_wait(r, t, all_arrived, NULL, "waiting for every rank to call it");
    if (ret != HCCL_SUCCESS) {
        if (t->status == HCCL_E_TIMEOUT) { /* name what the missing ranks are doing */
            uint32_t missing[HC_MAX_RANKS], m = 0;
            for (uint32_t j = 0; j < g->nranks; j++)
                if (ld(&hc_slot(g, j)->arrived) < t->seq) missing[m++] = j;
            char others[1200];
            hc_describe_ranks(r, others, sizeof others, missing, m);
            t->status = HCCL_SUCCESS;
            hc_fail(t, HCCL_E_TIMEOUT, "timed out after %.2f s (HCCL_EXEC_TIMEOUT) waiting for %u rank(s) to call "
                    "it: %s", (double)g->exec_timeout_ms / 1000.0, m, others);
        }
        break_group(r, t);
        return t->status;
    }
    char why[256];
    if (!calls_agree(g, why, sizeof why)) {
        char calls[HC_MSG_MAX];
        describe_calls(g, calls, sizeof calls);
        hc_fail(t, HCCL_E_PARA, "the ranks' calls do not match (%s): %s", why, calls);
    }
    Dest dest = {op->recv, NULL, 0};
    if (t->status == HCCL_SUCCESS) {
        uint64_t rx = recv_extent(g, r->rank, op), sx = send_extent(g, r->rank, op);
        bool exact_inplace = (op->kind == HC_ALLGATHER && (char *)op->recv + r->rank * sx == (char *)op->send) ||
                             op->kind == HC_ALLREDUCE || op->kind == HC_REDUCE || op->kind == HC_BROADCAST;
        if (g->local && !exact_inplace && overlap(op->recv, rx, op->send, sx)) {
            dest.tmp = malloc(rx);
            if (dest.tmp == NULL) hc_fail(t, HCCL_E_MEMORY, "out of host memory for a temporary result");
            else memcpy(dest.tmp, op->recv, rx); /* bytes no piece writes keep their value */
            dest.out = dest.tmp;
            dest.bytes = rx;
        }
    }
    if (t->status == HCCL_SUCCESS) {
        if (g->local)
            ret = local_move(r, t, op, &dest);
        else if (op->kind == HC_ALLREDUCE || op->kind == HC_REDUCE)
            ret = staged_allreduce(r, t, op, &dest);
        else if (op->kind == HC_REDUCE_SCATTER || op->kind == HC_REDUCE_SCATTER_V)
            ret = staged_reduce_scatter(r, t, op, &dest);
        else if (op->kind != HC_BARRIER)
            ret = staged_copy(r, t, op, &dest);
        if (ret != HCCL_SUCCESS && t->status == HCCL_SUCCESS) t->status = ret;
        if (ret != HCCL_SUCCESS) { /* a barrier inside failed: not every rank knows */
            free(dest.tmp);
            break_group(r, t);
            return t->status;
        }
    }
    HcSlot *s = hc_slot(g, r->rank);
    __atomic_store_n(&s->finished, t->seq, __ATOMIC_RELEASE);
    hc_wake(g);
    HcclResult done = hc_wait(r, t, all_finished, NULL, "waiting for every rank to finish it");
    if (done == HCCL_SUCCESS && dest.tmp) hc_copy(op->recv, dest.tmp, dest.bytes);
    free(dest.tmp);
    if (done != HCCL_SUCCESS) break_group(r, t);
    return t->status;
    (void)is_reduction;
}

HcclResult hc_run_collective(HcRank *r, HcTask *t) {
    Op op = {t->kind, t->send, t->recv, t->count, t->count2, t->dtype, t->rtype, t->op, t->root, t->arrays,
             t->matrix_hash, NULL};
    if (t->kind == HC_CUSTOM) {
        HcCtx ctx = {r, t};
        HcclResult ret = t->custom(&ctx, t->custom_arg);
        if (ret != HCCL_SUCCESS && t->status == HCCL_SUCCESS) hc_fail(t, ret, "the operator's exchange failed");
        return t->status;
    }
    return collective(r, t, &op);
}

/* ---- exchanges for operators (libopapi_transformer's distributed MoE operators) ----------------------------- */

/*
 * From an operator's exchange function (aclStubHcclRun): every rank contributes `bytes` bytes and receives all
 * ranks' contributions in rank order (recv: nranks * bytes). name identifies the step; every rank must make the
 * same steps in the same order.
 */
STUB_API HcclResult aclStubHcclAllGatherBytes(HcCtx *ctx, const char *name, const void *send, void *recv,
                                              uint64_t bytes) {
    Op op = {HC_CUSTOM, (void *)send, recv, bytes, 0, HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT8, 0, 0, NULL, 0, name};
    HcGroup *g = ctx->r->g;
    uint32_t n = g->nranks;
    uint64_t *a = calloc((size_t)4 * n, sizeof *a);
    if (a == NULL) return HCCL_E_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        a[i] = bytes;                   /* what this rank sends to each */
        a[n + i] = 0;
        a[2 * (size_t)n + i] = bytes;   /* what it receives from each */
        a[3 * (size_t)n + i] = i * bytes;
    }
    op.arrays = a;
    op.count2 = 1; /* checked pairwise like an all-to-all */
    HcclResult ret = collective(ctx->r, ctx->t, &op);
    free(a);
    return ret;
}

/* Every rank sends sendCounts[i] bytes at sendDispls[i] to rank i and receives recvCounts[j] bytes at recvDispls[j]
 * from rank j (arrays of nranks). */
STUB_API HcclResult aclStubHcclAlltoAllvBytes(HcCtx *ctx, const char *name, const void *send,
                                              const uint64_t *sendCounts, const uint64_t *sendDispls, void *recv,
                                              const uint64_t *recvCounts, const uint64_t *recvDispls) {
    HcGroup *g = ctx->r->g;
    uint32_t n = g->nranks;
    uint64_t *a = malloc((size_t)4 * n * sizeof *a);
    if (a == NULL) return HCCL_E_MEMORY;
    memcpy(a, sendCounts, n * sizeof *a);
    memcpy(a + n, sendDispls, n * sizeof *a);
    memcpy(a + 2 * (size_t)n, recvCounts, n * sizeof *a);
    memcpy(a + 3 * (size_t)n, recvDispls, n * sizeof *a);
    Op op = {HC_CUSTOM, (void *)send, recv, 0, 1, HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT8, 0, 0, a, 0, name};
    HcclResult ret = collective(ctx->r, ctx->t, &op);
    free(a);
    return ret;
}

STUB_API uint32_t aclStubHcclCtxRank(const HcCtx *ctx) { return ctx->r->rank; }
STUB_API uint32_t aclStubHcclCtxSize(const HcCtx *ctx) { return ctx->r->g->nranks; }
