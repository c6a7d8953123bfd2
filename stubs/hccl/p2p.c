/*
 * Point to point: HcclSend, HcclRecv and HcclBatchSendRecv. The m-th message rank s sends to rank d is matched with
 * the m-th receive rank d posts from s, through the channel (s, d) of the segment: the sender publishes the message
 * (count, type, address), the receiver checks it against its own call and copies it (directly between buffers in
 * one process; through the sender's staging area, in chunks, between processes), then marks it done. A sender
 * finishes only when its message is received, as on a device; a batch progresses all its items together, so the
 * ring of the official sample (each rank sends to the next and receives from the previous) needs no ordering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl_internal.h"

static inline uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void st(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

typedef enum { POST, MOVE, WAIT_DONE, DONE } Phase;

typedef struct {
    bool send;
    void *buf;
    uint64_t count, bytes;
    int dtype;
    uint32_t peer;
    uint64_t m;      /* message number on the channel */
    uint64_t chunks; /* staged chunks moved so far */
    Phase phase;
} Item;

typedef struct {
    Item *items;
    uint32_t n;
    uint32_t open; /* items not DONE */
    int failed;
} Batch;

static uint64_t chunk_bytes(const HcGroup *g) { return (g->hdr->staging_bytes / g->nranks) & ~(uint64_t)63; }

static uint32_t state_of(const HcGroup *g, uint32_t j) {
    return __atomic_load_n(&hc_slot(g, j)->state, __ATOMIC_ACQUIRE);
}

static const char *type_name(int dtype) { return hc_dtype_name(dtype); }

/* One step of an item; true when it moved on. A failure is recorded in t and ends the batch. */
static bool step(HcRank *r, HcTask *t, Batch *b, Item *it) {
    HcGroup *g = r->g;
    uint32_t me = r->rank;
    if (it->send) {
        HcChan *c = hc_chan(g, me, it->peer);
        switch (it->phase) {
        case POST:
            if (ld(&c->done) != ld(&c->send_posted)) return false; /* the previous message is still in flight */
            it->m = ++r->send_seq[it->peer];
            c->count = it->count;
            c->bytes = it->bytes;
            c->ptr = (uint64_t)(uintptr_t)it->buf;
            c->dtype = it->dtype;
            snprintf(c->site, sizeof c->site, "%s", t->site);
            st(&c->send_posted, it->m);
            it->phase = g->local ? WAIT_DONE : MOVE;
            hc_wake(g);
            return true;
        case MOVE: {
            if (ld(&c->nack) >= it->m) {
                it->phase = WAIT_DONE;
                return true;
            }
            uint64_t cb = chunk_bytes(g), total = (it->bytes + cb - 1) / cb;
            if (it->chunks == total) {
                it->phase = WAIT_DONE;
                return true;
            }
            if (ld(&c->written) != ld(&c->read)) return false; /* the receiver has not taken the last chunk */
            uint64_t off = it->chunks * cb, len = it->bytes - off < cb ? it->bytes - off : cb;
            hc_copy(g->staging[me] + (uint64_t)it->peer * cb, (const char *)it->buf + off, len);
            it->chunks++;
            st(&c->written, ld(&c->written) + 1);
            hc_wake(g);
            return true;
        }
        case WAIT_DONE:
            if (ld(&c->nack) >= it->m) {
                hc_fail(t, HCCL_E_PARA, "rank %u's matching HcclRecv does not match this HcclSend (count=%llu, %s) "
                        "to it", it->peer, (unsigned long long)it->count, type_name(it->dtype));
                st(&c->read, ld(&c->written)); /* the refused message's staged chunk is dropped */
                st(&c->done, it->m);
                hc_wake(g);
                b->failed = 1;
                return true;
            }
            if (ld(&c->done) < it->m) {
                uint32_t s = state_of(g, it->peer);
                if (s == SLOT_DESTROYED || s == SLOT_DEAD) {
                    hc_fail(t, HCCL_E_REMOTE, "rank %u %s before receiving message #%llu", it->peer,
                            s == SLOT_DEAD ? "exited" : "destroyed its communicator", (unsigned long long)it->m);
                    b->failed = 1;
                    return true;
                }
                return false;
            }
            it->phase = DONE;
            b->open--;
            return true;
        default:
            return false;
        }
    }
    HcChan *c = hc_chan(g, it->peer, me);
    switch (it->phase) {
    case POST:
        it->m = ++r->recv_seq[it->peer];
        st(&c->recv_posted, it->m);
        it->phase = MOVE;
        hc_wake(g);
        return true;
    case MOVE:
        if (ld(&c->send_posted) < it->m) {
            uint32_t s = state_of(g, it->peer);
            if (s == SLOT_DESTROYED || s == SLOT_DEAD) {
                hc_fail(t, HCCL_E_REMOTE, "rank %u %s without sending message #%llu", it->peer,
                        s == SLOT_DEAD ? "exited" : "destroyed its communicator", (unsigned long long)it->m);
                b->failed = 1;
                return true;
            }
            return false;
        }
        if (it->chunks == 0 && (c->count != it->count || c->dtype != it->dtype)) {
            char site[HC_SITE_MAX + 8] = "";
            if (c->site[0]) snprintf(site, sizeof site, " at %s", c->site);
            hc_fail(t, HCCL_E_PARA, "rank %u's HcclSend #%llu to this rank has count=%llu, %s%s; this HcclRecv "
                    "expects count=%llu, %s", it->peer, (unsigned long long)it->m, (unsigned long long)c->count,
                    type_name(c->dtype), site, (unsigned long long)it->count, type_name(it->dtype));
            st(&c->nack, it->m);
            hc_wake(g);
            b->failed = 1;
            return true;
        }
        if (g->local) {
            hc_copy(it->buf, (const void *)(uintptr_t)c->ptr, it->bytes);
        } else {
            uint64_t cb = chunk_bytes(g), total = (it->bytes + cb - 1) / cb;
            bool moved = false;
            while (it->chunks < total) {
                if (ld(&c->written) == ld(&c->read)) return moved; /* the sender's next chunk is not there yet */
                moved = true;
                uint64_t off = it->chunks * cb, len = it->bytes - off < cb ? it->bytes - off : cb;
                hc_copy((char *)it->buf + off, g->staging[it->peer] + (uint64_t)me * cb, len);
                it->chunks++;
                st(&c->read, ld(&c->read) + 1);
                hc_wake(g);
            }
        }
        st(&c->done, it->m);
        hc_wake(g);
        it->phase = DONE;
        b->open--;
        return true;
    default:
        return false;
    }
}

static int progress(HcRank *r, HcTask *t, void *ctx) {
    Batch *b = ctx;
    bool moved = true;
    while (moved && !b->failed && b->open > 0) {
        moved = false;
        for (uint32_t i = 0; i < b->n && !b->failed; i++) moved |= step(r, t, b, &b->items[i]);
    }
    if (b->failed) return -1;
    return b->open == 0 ? 1 : 0;
}

HcclResult hc_run_p2p(HcRank *r, HcTask *t) {
    Item single;
    Batch b = {&single, 1, 0, 0};
    if (t->kind == HC_BATCH) {
        b.items = calloc(t->nitems ? t->nitems : 1, sizeof *b.items);
        if (b.items == NULL) {
            hc_fail(t, HCCL_E_MEMORY, "out of host memory");
            return t->status;
        }
        b.n = 0;
        for (uint32_t i = 0; i < t->nitems; i++) {
            const HcclSendRecvItem *x = &t->items[i];
            size_t es = hc_dtype_size(x->dataType);
            if (x->count == 0) continue;
            b.items[b.n++] = (Item){x->sendRecvType == HCCL_SEND, x->buf, x->count, x->count * es, x->dataType,
                                    x->remoteRank, 0, 0, POST};
        }
    } else {
        size_t es = hc_dtype_size(t->dtype);
        single = (Item){t->kind == HC_SEND, t->kind == HC_SEND ? t->send : t->recv, t->count, t->count * es, t->dtype,
                        t->peer, 0, 0, POST};
    }
    b.open = b.n;
    HcSlot *s = hc_slot(r->g, r->rank);
    HcNow pub = {(uint32_t)t->kind, b.n ? b.items[0].peer : 0, 0, 0};
    if (t->kind != HC_BATCH && b.n) {
        /* the message number this operation will take, for other ranks' reports */
        pub.p2p_seq = (t->kind == HC_SEND ? r->send_seq : r->recv_seq)[b.items[0].peer] + 1;
        t->seq = pub.p2p_seq;
    }
    s->now = pub;
    char what[160];
    if (t->kind == HC_BATCH)
        snprintf(what, sizeof what, "waiting for the peers of its %u send(s) and receive(s)", b.n);
    else
        snprintf(what, sizeof what, "waiting for rank %u's matching %s", t->peer,
                 t->kind == HC_SEND ? "HcclRecv" : "HcclSend");
    HcclResult ret = b.open ? hc_wait(r, t, progress, &b, what) : HCCL_SUCCESS;
    if (ret != HCCL_SUCCESS && t->status == HCCL_SUCCESS) t->status = ret;
    if (t->status != HCCL_SUCCESS && t->status != HCCL_E_PARA) {
        /* abandoned mid-way: the channels' numbering is no longer shared with the peers */
        HcHeader *h = r->g->hdr;
        if (__atomic_exchange_n(&h->failed, 1, __ATOMIC_ACQ_REL) == 0)
            snprintf(h->failure, sizeof h->failure, "%.500s", t->msg);
        hc_wake(r->g);
    }
    if (b.items != &single) free(b.items);
    return t->status;
}
