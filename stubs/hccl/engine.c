/*
 * The engines: one thread per rank of this process, running the rank's operations in the order its streams reach
 * them, and the bridge between a stream and an engine (a gated stream item per operation).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hccl_internal.h"

/* ---- tasks -------------------------------------------------------------------------------------------------- */

void hc_rank_unref(HcRank *r);

HcTask *hc_task_new(HcRank *r, HcKind kind) {
    HcTask *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->refs = 1;
    t->rank = r;
    t->kind = kind;
    __atomic_add_fetch(&r->refs, 1, __ATOMIC_ACQ_REL);
    return t;
}

void hc_task_unref(HcTask *t) {
    if (t == NULL || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    hc_rank_unref(t->rank);
    free(t->arrays);
    free(t->items);
    free(t);
}

static const char *task_call(const HcTask *t) { return t->kind == HC_CUSTOM ? t->custom_name : hc_kind_call(t->kind); }

void hc_fail(HcTask *t, HcclResult status, const char *fmt, ...) {
    if (t->status != HCCL_SUCCESS) return; /* the first failure is the one reported */
    t->status = status;
    const HcRank *r = t->rank;
    int o = snprintf(t->msg, sizeof t->msg, "%s", task_call(t));
    if (t->seq != 0 && o >= 0 && (size_t)o < sizeof t->msg)
        o += snprintf(t->msg + o, sizeof t->msg - (size_t)o, " #%llu", (unsigned long long)t->seq);
    if (o >= 0 && (size_t)o < sizeof t->msg)
        o += snprintf(t->msg + o, sizeof t->msg - (size_t)o, " on communicator '%s' (rank %u of %u): ", r->name,
                      r->rank, r->g->nranks);
    if (o >= 0 && (size_t)o < sizeof t->msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->msg + o, sizeof t->msg - (size_t)o, fmt, ap);
        va_end(ap);
    }
}

/* ---- what every rank is doing ------------------------------------------------------------------------------- */

static int describe_one(const HcRank *r, uint32_t j, char *out, size_t cap) {
    const HcSlot *s = hc_slot(r->g, j);
    uint32_t state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
    if (state == SLOT_DESTROYED) return snprintf(out, cap, "rank %u has destroyed its communicator", j);
    if (state == SLOT_DEAD) return snprintf(out, cap, "rank %u (process %d) has exited or failed", j, (int)s->pid);
    if (state == SLOT_EMPTY) return snprintf(out, cap, "rank %u never joined", j);
    HcNow now = s->now;
    uint64_t last = __atomic_load_n(&s->finished, __ATOMIC_ACQUIRE);
    switch ((HcKind)now.kind) {
    case HC_NONE:
        return snprintf(out, cap, "rank %u is idle (its last collective: #%llu)", j, (unsigned long long)last);
    case HC_SEND:
        return snprintf(out, cap, "rank %u is in HcclSend to rank %u (message #%llu)", j, now.peer,
                        (unsigned long long)now.p2p_seq);
    case HC_RECV:
        return snprintf(out, cap, "rank %u is in HcclRecv from rank %u (message #%llu)", j, now.peer,
                        (unsigned long long)now.p2p_seq);
    case HC_BATCH:
        return snprintf(out, cap, "rank %u is in HcclBatchSendRecv", j);
    default:
        return snprintf(out, cap, "rank %u is in %s #%llu", j,
                        now.kind == HC_CUSTOM ? s->desc.custom : hc_kind_call((HcKind)now.kind),
                        (unsigned long long)now.seq);
    }
}

void hc_describe_ranks(const HcRank *r, char *out, size_t cap, const uint32_t *only, uint32_t nonly) {
    size_t o = 0;
    uint32_t n = only ? nonly : r->g->nranks, shown = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < n && o + 2 < cap; i++) {
        uint32_t j = only ? only[i] : i;
        if (j == r->rank) continue;
        if (shown == 16) {
            snprintf(out + o, cap - o, "; ...");
            return;
        }
        if (shown++) o += (size_t)snprintf(out + o, cap - o, "; ");
        if (o + 2 >= cap) break;
        int w = describe_one(r, j, out + o, cap - o);
        if (w > 0) o += (size_t)w;
    }
}

/* ---- waiting ----------------------------------------------------------------------------------------------------- */


/* A rank of another process that exited without destroying its communicator: its slot is marked dead. */
static void notice_dead_processes(HcRank *r) {
    for (uint32_t j = 0; j < r->g->nranks; j++) {
        HcSlot *s = hc_slot(r->g, j);
        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_JOINED && s->proc != hc_proc_id &&
            !hc_process_alive(s->pid)) {
            __atomic_store_n(&s->state, SLOT_DEAD, __ATOMIC_RELEASE);
            hc_wake(r->g);
        }
    }
}

HcclResult hc_wait(HcRank *r, HcTask *t, HcCond cond, void *ctx, const char *what) {
    HcGroup *g = r->g;
    HcHeader *h = g->hdr;
    uint64_t start = hc_now_ms(), timeout = g->exec_timeout_ms;
    uint64_t deadline = timeout ? start + timeout : UINT64_MAX, next_check = start + 200;
    for (;;) {
        uint32_t seen = __atomic_load_n(&h->futex, __ATOMIC_SEQ_CST);
        int c = cond(r, t, ctx);
        if (c > 0) return HCCL_SUCCESS;
        if (c < 0) return t->status != HCCL_SUCCESS ? t->status : HCCL_E_INTERNAL;
        if (__atomic_load_n(&r->destroyed, __ATOMIC_ACQUIRE)) {
            hc_fail(t, HCCL_E_UNAVAIL, "the communicator was destroyed (HcclCommDestroy) while %s", what);
            return t->status;
        }
        if (__atomic_load_n(&h->failed, __ATOMIC_ACQUIRE)) {
            hc_fail(t, HCCL_E_REMOTE, "another rank failed while this one was %s: %s", what, h->failure);
            return t->status;
        }
        uint64_t now = hc_now_ms();
        if (now >= deadline) {
            char others[1200];
            hc_describe_ranks(r, others, sizeof others, NULL, 0);
            hc_fail(t, HCCL_E_TIMEOUT, "timed out after %.2f s (HCCL_EXEC_TIMEOUT) %s; %s", (double)timeout / 1000.0,
                    what, others);
            return t->status;
        }
        if (!g->local && now >= next_check) {
            notice_dead_processes(r);
            next_check = now + 200;
            continue;
        }
        uint64_t slice = deadline - now;
        if (slice > 100) slice = 100;
        __atomic_add_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
        hc_futex_wait(&h->futex, seen, slice ? slice : 1);
        __atomic_sub_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
    }
}

/* ---- the engine thread ---------------------------------------------------------------------------------------- */

static void publish_now(HcRank *r, HcKind kind, uint64_t seq, uint32_t peer, uint64_t p2p) {
    HcSlot *s = hc_slot(r->g, r->rank);
    HcNow now = {(uint32_t)kind, peer, seq, p2p};
    s->now = now;
}

static void finish(HcRank *r, HcTask *t) {
    publish_now(r, HC_NONE, 0, 0, 0);
    if (t->status != HCCL_SUCCESS) {
        int none = HCCL_SUCCESS;
        __atomic_compare_exchange_n(&r->async_error, &none, (int)t->status, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        if (CHECK_ON(CHECK_COLL)) {
            const char *what = t->status == HCCL_E_TIMEOUT        ? "collective-timeout"
                               : t->status == HCCL_E_UNAVAIL       ? "destroyed-communicator-in-use"
                               : t->kind >= HC_SEND                ? "unmatched-send-recv"
                                                                   : "mismatched-collective";
            aclStubCheckReportAt(t->site_token, CHECK_COLL, what, task_call(t), "%s", t->msg);
        }
    }
    HcGroup *g = r->g;
    __atomic_store_n(&t->done, 1, __ATOMIC_RELEASE); /* the stream item may free t from here on */
    aclStubStreamPoke();
    hc_wake(g); /* an operator's exchange waits on the segment */
}

static void run(HcRank *r, HcTask *t) {
    if (__atomic_load_n(&r->destroyed, __ATOMIC_ACQUIRE)) {
        hc_fail(t, HCCL_E_UNAVAIL, "the communicator was destroyed before the operation ran");
        return;
    }
    if (__atomic_load_n(&r->g->hdr->failed, __ATOMIC_ACQUIRE)) {
        hc_fail(t, HCCL_E_REMOTE, "the communicator is broken by an earlier failure: %s", r->g->hdr->failure);
        return;
    }
    if (t->kind >= HC_SEND)
        hc_run_p2p(r, t);
    else
        hc_run_collective(r, t);
}

static void *engine_main(void *arg) {
    HcRank *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->head == NULL && !r->stopping) pthread_cond_wait(&r->cv, &r->mu);
        HcTask *t = r->head;
        if (t == NULL) break;
        r->head = t->next;
        if (r->head == NULL) r->tail = NULL;
        pthread_mutex_unlock(&r->mu);
        run(r, t);
        finish(r, t);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

HcclResult hc_engine_start(HcRank *r) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* signals go to the program's threads, never to an engine */
    int e = pthread_create(&r->thread, &attr, engine_main, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (e != 0) return hc_err(HCCL_E_SYSCALL, "cannot start the communicator's engine thread: %s", strerror(e));
    r->thread_started = true;
    return HCCL_SUCCESS;
}

void hc_engine_stop(HcRank *r) {
    if (!r->thread_started) return;
    pthread_mutex_lock(&r->mu);
    r->stopping = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    hc_wake(r->g);
    pthread_join(r->thread, NULL);
    r->thread_started = false;
}

/* ---- the stream side -------------------------------------------------------------------------------------------- */

/* Runs with the runtime's lock held when the stream reaches the task: hand it to the engine. */
static void post(HcTask *t) {
    HcRank *r = t->rank;
    pthread_mutex_lock(&r->mu);
    bool stopping = r->stopping;
    if (!stopping) {
        t->next = NULL;
        if (r->tail)
            r->tail->next = t;
        else
            r->head = t;
        r->tail = t;
        pthread_cond_signal(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    if (stopping) {
        hc_fail(t, HCCL_E_UNAVAIL, "the communicator was destroyed before the stream reached the operation");
        int none = HCCL_SUCCESS;
        __atomic_compare_exchange_n(&r->async_error, &none, (int)t->status, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        __atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
    }
}

static bool gate_ready(void *arg, bool first) {
    HcTask *t = arg;
    if (first) post(t);
    return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != 0;
}

static aclError gate_finish(void *arg) {
    HcTask *t = arg;
    if (t->status == HCCL_SUCCESS) return ACL_SUCCESS;
    aclStubSetErrMsg("%s", t->msg);
    return (aclError)t->status;
}

static void gate_release(void *arg) { hc_task_unref(arg); }

HcclResult hc_submit(HcRank *r, HcTask *t, aclrtStream stream, const char *call, const aclStubCheckSpan *spans,
                     size_t n) {
    (void)r;
    if (CHECK_ON(CHECK_COLL)) {
        t->site_token = aclStubCheckSite();
        aclStubCheckSiteText(t->site_token, t->site, sizeof t->site);
    }
    aclError e = aclStubStreamLaunchGated(stream, gate_ready, gate_finish, t, gate_release, call, spans, n);
    if (e != ACL_SUCCESS) {
        const char *msg = aclGetRecentErrMsg();
        return hc_err(HCCL_E_RUNTIME, "%s: queueing on the stream failed (%d): %s", call, (int)e,
                      msg ? msg : "(no message)");
    }
    return HCCL_SUCCESS;
}

/* ---- exchanges of operators ------------------------------------------------------------------------------------ */

/* Posted straight to the engine (the caller is queued work that reached the operator already) and waited for. */
HcclResult aclStubHcclRun(HcclComm comm, const char *name, HcCustomFn fn, void *arg, char *msg, size_t cap) {
    HcclResult ret;
    if (msg && cap) msg[0] = '\0';
    HcRank *r = hc_acquire(name ? name : "aclStubHcclRun", comm, &ret);
    if (r == NULL) {
        if (msg && cap) snprintf(msg, cap, "the communicator is not live (destroyed?)");
        return ret;
    }
    HcTask *t = hc_task_new(r, HC_CUSTOM);
    hc_release();
    if (t == NULL) return HCCL_E_MEMORY;
    t->custom = fn;
    t->custom_arg = arg;
    snprintf(t->custom_name, sizeof t->custom_name, "%s", name ? name : "exchange");
    if (CHECK_ON(CHECK_COLL)) {
        t->site_token = aclStubCheckSite();
        aclStubCheckSiteText(t->site_token, t->site, sizeof t->site);
    }
    aclStubBlockingBegin();
    post(t);
    HcHeader *h = r->g->hdr;
    while (!__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) { /* finish() pokes streams, and wakes the segment */
        uint32_t seen = __atomic_load_n(&h->futex, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) break;
        __atomic_add_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
        hc_futex_wait(&h->futex, seen, 50);
        __atomic_sub_fetch(&h->waiters, 1, __ATOMIC_SEQ_CST);
    }
    aclStubBlockingEnd();
    ret = t->status;
    if (ret != HCCL_SUCCESS && msg && cap) snprintf(msg, cap, "%s", t->msg);
    hc_task_unref(t);
    return ret;
}
