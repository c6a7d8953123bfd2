/*
 * Streams and the work scheduler. Work queued on a stream (operators' phase 2 through aclStubStreamLaunch,
 * asynchronous copies and memsets, event records and waits, callbacks) runs after the call that queued it
 * returns: in order per stream, concurrently across streams, on a bounded pool of worker threads
 * (ACLNN_STUB_STREAM_WORKERS, default 4) started on demand.
 *
 * Only streams whose head item can run sit on the ready list: a stream waiting for an event record or a
 * blocking callback holds no worker, so any number of streams can wait on each other with one worker.
 * A thread that synchronises a stream runs that stream's ready work itself rather than waiting for a
 * worker to wake up, which keeps launch-then-synchronise as cheap as a direct call.
 *
 * A failure inside queued work is kept on its stream and reported by the next synchronisation of the
 * stream (or its device) as ACL_ERROR_RT_AICORE_EXCEPTION, the way a device reports a kernel fault;
 * later work on the stream still runs (CANN's default failure mode, ACL_CONTINUE_ON_FAILURE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_internal.h"

#define DEFAULT_WORKERS 4
#define MAX_WORKERS 64

HandleTable rt_streams = HANDLE_TABLE_INIT(HANDLE_STREAM);

static pthread_cond_t work_cv;   /* a stream became ready */
static pthread_cond_t done_cv;   /* an item finished, or a stream became ready (for helpers) */
static RtStream *ready_head, *ready_tail;
static RtStream *all_streams;
static uint64_t pending_items;
static uint64_t queued_items; /* queue numbers handed out so far */
static int workers, idle_workers, max_workers;
static int blocked_workers; /* workers inside queued work that waits for another rank (aclStubBlockingBegin) */
static __thread bool is_worker;
static __thread bool holding_memory; /* the thread runs queued work, with device memory read-locked */

static pthread_once_t sched_once = PTHREAD_ONCE_INIT;

static void init_conds(void) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&work_cv, &attr);
    pthread_cond_init(&done_cv, &attr);
    pthread_condattr_destroy(&attr);
}

static void sched_init(void) {
    init_conds();
    max_workers = DEFAULT_WORKERS;
    const char *v = getenv("ACLNN_STUB_STREAM_WORKERS");
    if (v != NULL && v[0] != '\0') {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end == '\0' && n >= 1 && n <= MAX_WORKERS) max_workers = (int)n;
    }
}

struct timespec rt_deadline(int32_t timeout_ms) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += timeout_ms / 1000;
    t.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

bool rt_timeout_valid(const char *func, int32_t timeout) {
    if (timeout == -1 || timeout > 0) return true;
    aclStubSetErrMsg("%s: argument 'timeout' (%d) must be -1 (wait forever) or a positive number of milliseconds",
                     func, (int)timeout);
    return false;
}

/* ---- ready list (rt_lock held) ------------------------------------------------------------------- */

static bool head_runnable(const RtStream *s) {
    RtItem *h = s->head;
    if (h == NULL) return false;
    if (h->kind == ITEM_WAIT) return rt_event_reached_locked(h->event, h->target);
    if (h->kind == ITEM_CALLBACK) return !h->posted;
    if (h->ready != NULL) {
        bool first = !h->started;
        h->started = true;
        return h->ready(h->arg, first);
    }
    return true;
}

static void spawn_worker_locked(void);

static void append_ready_locked(RtStream *s) {
    s->in_ready = true;
    s->next_ready = NULL;
    if (ready_tail)
        ready_tail->next_ready = s;
    else
        ready_head = s;
    ready_tail = s;
}

static void make_ready_locked(RtStream *s) {
    if (!s->running && !s->in_ready && head_runnable(s)) {
        append_ready_locked(s);
        pthread_cond_broadcast(&done_cv); /* a synchronising thread may run it */
    }
    if (ready_head == NULL) return;
    if (idle_workers > 0)
        pthread_cond_signal(&work_cv);
    else if (workers - blocked_workers < max_workers && workers < MAX_WORKERS + blocked_workers)
        spawn_worker_locked();
}

static void unready_locked(RtStream *s) {
    RtStream **p = &ready_head, *prev = NULL;
    while (*p != s) {
        prev = *p;
        p = &(*p)->next_ready;
    }
    *p = s->next_ready;
    if (ready_tail == s) ready_tail = prev;
    s->in_ready = false;
}

void rt_reschedule_all_locked(void) {
    for (RtStream *s = all_streams; s; s = s->next_all) make_ready_locked(s);
    pthread_cond_broadcast(&done_cv);
}

void rt_broadcast_locked(void) { pthread_cond_broadcast(&done_cv); }

/* ---- items --------------------------------------------------------------------------------------- */

/* Finished items are kept for the next launches (at most SPARE_ITEMS), so queueing work allocates nothing in
 * steady state. */
#define SPARE_ITEMS 64
static RtItem *spare_items;
static int n_spare_items;

static RtItem *item_new_locked(void) {
    RtItem *item = spare_items;
    if (item == NULL) return calloc(1, sizeof *item);
    spare_items = item->next;
    n_spare_items--;
    memset(item, 0, sizeof *item);
    return item;
}

static void item_free_locked(RtItem *item) {
    if (item->event) rt_event_unref_locked(item->event);
    if (n_spare_items < SPARE_ITEMS) {
        item->next = spare_items;
        spare_items = item;
        n_spare_items++;
    } else {
        free(item);
    }
}

/* Append without scheduling: the caller either schedules the stream or runs the item itself. */
static void append_item_locked(RtStream *s, RtItem *item) {
    item->next = NULL;
    if (s->tail)
        s->tail->next = item;
    else
        s->head = item;
    s->tail = item;
    s->submitted++;
    pending_items++;
    item->seq = ++queued_items;
}

void rt_enqueue_locked(RtStream *s, RtItem *item) {
    append_item_locked(s, item);
    make_ready_locked(s);
}

/* Queue number of the oldest unfinished item: each stream's head is its oldest (rt_lock held). */
static uint64_t oldest_pending_locked(void) {
    uint64_t oldest = UINT64_MAX;
    for (const RtStream *s = all_streams; s; s = s->next_all)
        if (s->head != NULL && s->head->seq < oldest) oldest = s->head->seq;
    return oldest;
}

uint64_t rt_unfinished_up_to_locked(void) { return pending_items > 0 ? queued_items : 0; }

void rt_item_done_locked(RtStream *s, RtItem *item) {
    s->head = item->next;
    if (s->head == NULL) s->tail = NULL;
    s->completed++;
    pending_items--;
    item_free_locked(item);
    make_ready_locked(s);
    pthread_cond_broadcast(&done_cv);
    if (rt_memory_has_graves()) rt_memory_release_graves(pending_items ? oldest_pending_locked() : UINT64_MAX);
}

static void record_failure_locked(RtStream *s, aclError status, const char *msg) {
    if (s->error != ACL_SUCCESS) return; /* the first failure is the one reported */
    s->error = status;
    snprintf(s->errmsg, sizeof s->errmsg, "%s", msg ? msg : "(no message)");
}

/* Run the head item of s, which the caller took off the ready list and marked running. Called and
 * returns with rt_lock held; releases it while user-visible work runs. */
static void run_head_locked(RtStream *s) {
    RtItem *item = s->head;
    switch (item->kind) {
    case ITEM_WORK: {
        pthread_mutex_unlock(&rt_lock);
        rt_memory_hold(); /* no aclrtFree can release a block while the work reads it */
        holding_memory = true;
        check_api_quiet++; /* its failure is the synchronisation's API error, not the caller's */
        aclError status = item->fn(item->arg);
        check_api_quiet--;
        holding_memory = false;
        rt_memory_unhold();
        char copy[sizeof s->errmsg] = "";
        if (status != ACL_SUCCESS) { /* the work's own message, taken in the thread that ran it */
            const char *msg = aclGetRecentErrMsg();
            snprintf(copy, sizeof copy, "%s", msg ? msg : "(no message)");
        }
        if (item->release) item->release(item->arg);
        pthread_mutex_lock(&rt_lock);
        if (status != ACL_SUCCESS) record_failure_locked(s, status, copy);
        break;
    }
    case ITEM_RECORD:
        rt_event_record_done_locked(item->event, item->target);
        break;
    case ITEM_WAIT:
        break; /* runnable only once the event was reached */
    case ITEM_CALLBACK:
        if (rt_callback_post_locked(s, item) && item->block) {
            item->posted = true; /* completed by aclrtProcessReport once the callback returned */
            s->running = false;
            return;
        }
        break;
    }
    s->running = false;
    rt_item_done_locked(s, item);
}

static void *worker_main(void *unused) {
    (void)unused;
    is_worker = true;
    pthread_mutex_lock(&rt_lock);
    for (;;) {
        while (ready_head == NULL) {
            idle_workers++;
            pthread_cond_wait(&work_cv, &rt_lock);
            idle_workers--;
        }
        RtStream *s = ready_head;
        unready_locked(s);
        s->running = true;
        run_head_locked(s);
    }
    return NULL;
}

static void spawn_worker_locked(void) {
    pthread_attr_t attr;
    pthread_t tid;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&tid, &attr, worker_main, NULL) == 0) workers++;
    /* Without a worker the work still runs: synchronising threads run it themselves. */
    pthread_attr_destroy(&attr);
}

bool rt_wait_locked(bool (*done)(void *ctx), void *ctx, RtStream *help, int32_t timeout_ms) {
    if (timeout_ms >= 0) {
        struct timespec deadline = rt_deadline(timeout_ms);
        while (!done(ctx))
            if (pthread_cond_timedwait(&done_cv, &rt_lock, &deadline) == ETIMEDOUT) return done(ctx);
        return true;
    }
    while (!done(ctx)) {
        if (help != NULL && help->in_ready) {
            unready_locked(help);
            help->running = true;
            run_head_locked(help);
        } else if (!rt_callbacks_serve_own_locked()) {
            pthread_cond_wait(&done_cv, &rt_lock);
        }
    }
    return true;
}

/* ---- streams ------------------------------------------------------------------------------------- */

RtStream *rt_stream_new_locked(int32_t device, const void *context, uint32_t flags) {
    pthread_once(&sched_once, sched_init);
    RtStream *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->device = device;
    s->context = context;
    s->flags = flags;
    s->check_id = -1;
    s->next_all = all_streams;
    if (all_streams) all_streams->prev_all = s;
    all_streams = s;
    return s;
}

typedef struct {
    RtStream *s;
    uint64_t target;
} StreamTarget;

static bool stream_reached(void *ctx) {
    StreamTarget *t = ctx;
    return t->s->completed >= t->target;
}

bool rt_stream_wait_locked(RtStream *s, uint64_t target, int32_t timeout_ms) {
    StreamTarget t = {s, target};
    return rt_wait_locked(stream_reached, &t, s, timeout_ms);
}

static bool stream_idle(void *ctx) {
    RtStream *s = ctx;
    return s->head == NULL && !s->running && s->users == 0;
}

void rt_stream_free_locked(RtStream *s) {
    rt_wait_locked(stream_idle, s, s, -1);
    rt_callbacks_forget_stream_locked(s);
    rt_memory_forget_stream_locked(s);
    if (s->prev_all)
        s->prev_all->next_all = s->next_all;
    else
        all_streams = s->next_all;
    if (s->next_all) s->next_all->prev_all = s->prev_all;
    free(s);
}

void rt_streams_of_context_free_locked(const void *context) {
    RtStream *s = all_streams;
    while (s != NULL) {
        if (s->token != NULL && s->context == context && handle_remove(&rt_streams, s->token) == s) {
            rt_stream_free_locked(s);
            s = all_streams; /* the list may have changed while waiting */
        } else {
            s = s->next_all;
        }
    }
}

aclError rt_stream_resolve_locked(const char *func, aclrtStream stream, RtStream **out) {
    if (stream == NULL) {
        RtContext *c = rt_current_context_locked();
        if (c == NULL) {
            aclStubSetErrMsg("%s: the default stream (NULL) needs a current context, and the calling thread has "
                             "none (call aclrtSetDevice or aclrtSetCurrentContext first)", func);
            return ACL_ERROR_RT_CONTEXT_NULL;
        }
        *out = c->stream;
        return ACL_SUCCESS;
    }
    RtStream *s = handle_acquire(&rt_streams, stream);
    if (s == NULL) {
        aclStubSetErrMsg("%s: argument 'stream' (%p) is not a live stream (never created or already destroyed)",
                         func, stream);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    handle_release(&rt_streams); /* s stays valid while rt_lock is held: streams are freed under it */
    *out = s;
    return ACL_SUCCESS;
}

aclError rt_stream_take_error_locked(const char *func, RtStream *s) {
    aclError status = s->error;
    if (status == ACL_SUCCESS) return ACL_SUCCESS;
    aclStubSetErrMsg("%s: work queued on the stream failed with status %d: %s", func, (int)status, s->errmsg);
    s->error = ACL_SUCCESS;
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

static aclError create_stream(const char *func, aclrtStream *stream, uint32_t flags) {
    if (stream == NULL) {
        aclStubSetErrMsg("%s: argument 'stream' is NULL", func);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (CHECK_ON(CHECK_LEAK)) check_site_prepare();
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    RtContext *c = rt_current_context_locked();
    if (c == NULL) {
        aclStubSetErrMsg("%s: the calling thread has no current device or context (call aclrtSetDevice first)",
                         func);
        ret = ACL_ERROR_RT_CONTEXT_NULL;
    } else {
        RtStream *s = rt_stream_new_locked(c->device, c->token, flags);
        if (s != NULL) s->token = handle_insert(&rt_streams, s);
        if (s == NULL || s->token == NULL) {
            if (s != NULL) rt_stream_free_locked(s);
            aclStubSetErrMsg("%s: out of host memory", func);
            ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
        } else {
            *stream = (aclrtStream)s->token;
        }
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

aclError aclrtCreateStream(aclrtStream *stream) { return create_stream("aclrtCreateStream", stream, 0); }

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag) {
    const uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
                           ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
    (void)priority; /* the stub's workers do not prioritise */
    if (flag & ~known) {
        aclStubSetErrMsg("aclrtCreateStreamWithConfig: argument 'flag' (0x%x) has bits no ACL_STREAM_* flag defines",
                         flag);
        return ACL_ERROR_INVALID_PARAM;
    }
    return create_stream("aclrtCreateStreamWithConfig", stream, flag);
}

/* Waits for queued work first, as CANN's aclrtDestroyStream does. */
aclError aclrtDestroyStream(aclrtStream stream) {
    RT_RETURN_IF_NULL("aclrtDestroyStream", stream);
    if (CHECK_ON(CHECK_SYNC)) check_site_prepare();
    pthread_mutex_lock(&rt_lock);
    /* Removal is the ownership test: of two racing destroys only one succeeds. */
    RtStream *s = handle_remove(&rt_streams, stream);
    if (s != NULL && CHECK_ON(CHECK_SYNC)) check_stream_released("aclrtDestroyStream", s->check_id, s->submitted);
    if (s != NULL) rt_stream_free_locked(s);
    pthread_mutex_unlock(&rt_lock);
    if (s == NULL) {
        aclStubSetErrMsg("aclrtDestroyStream: argument 'stream' (%p) is not a live stream "
                         "(never created or already destroyed)", stream);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

static aclError synchronize(const char *func, aclrtStream stream, int32_t timeout, bool take_error) {
    if (!rt_timeout_valid(func, timeout)) return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&rt_lock);
    RtStream *s;
    aclError ret = rt_stream_resolve_locked(func, stream, &s);
    if (ret == ACL_SUCCESS) {
        StreamTarget t = {s, s->submitted};
        s->users++; /* keeps a concurrent destroy from freeing s while this thread waits */
        bool ok = rt_stream_wait_locked(s, t.target, timeout);
        s->users--;
        pthread_cond_broadcast(&done_cv);
        if (!ok) {
            aclStubSetErrMsg("%s: the stream's work did not finish within %d ms", func, (int)timeout);
            ret = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
        } else {
            if (CHECK_ON(CHECK_SYNC)) check_host_synced_stream(s->check_id, t.target);
            if (take_error) ret = rt_stream_take_error_locked(func, s);
        }
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    return synchronize("aclrtSynchronizeStream", stream, -1, true);
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
    return synchronize("aclrtSynchronizeStreamWithTimeout", stream, timeout, true);
}

aclError rt_stream_drain(const char *func, aclrtStream stream) { return synchronize(func, stream, -1, false); }

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
    RT_RETURN_IF_NULL("aclrtStreamQuery", status);
    pthread_mutex_lock(&rt_lock);
    RtStream *s;
    aclError ret = rt_stream_resolve_locked("aclrtStreamQuery", stream, &s);
    if (ret == ACL_SUCCESS) *status = s->head == NULL ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    if (ret == ACL_SUCCESS && s->head == NULL && CHECK_ON(CHECK_SYNC)) check_host_synced_stream(s->check_id, s->submitted);
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream) {
    RT_RETURN_IF_NULL("aclrtCtxGetCurrentDefaultStream", stream);
    int32_t device;
    aclError ret = rt_require_device("aclrtCtxGetCurrentDefaultStream", &device);
    if (ret == ACL_SUCCESS) *stream = NULL; /* NULL names the current context's default stream everywhere */
    return ret;
}

/* ---- device-wide synchronisation ----------------------------------------------------------------- */

typedef struct {
    int32_t device;
} DeviceIdle;

static bool device_idle(void *ctx) {
    int32_t d = ((DeviceIdle *)ctx)->device;
    for (RtStream *s = all_streams; s; s = s->next_all)
        if (s->device == d && (s->head != NULL || s->running)) return false;
    return true;
}

/* Runs ready work of the device's streams inline while waiting, like a stream synchronisation. */
static RtStream *ready_stream_of_device_locked(int32_t device) {
    for (RtStream *s = ready_head; s; s = s->next_ready)
        if (s->device == device) return s;
    return NULL;
}

static aclError synchronize_device(const char *func, int32_t timeout) {
    if (!rt_timeout_valid(func, timeout)) return ACL_ERROR_INVALID_PARAM;
    int32_t device;
    aclError ret = rt_require_device(func, &device);
    if (ret != ACL_SUCCESS) return ret;
    pthread_mutex_lock(&rt_lock);
    DeviceIdle idle = {device};
    struct timespec deadline = timeout >= 0 ? rt_deadline(timeout) : (struct timespec){0, 0};
    bool ok = true;
    while (!device_idle(&idle)) { /* inline work and callbacks only without a deadline, as rt_wait_locked */
        RtStream *s = timeout < 0 ? ready_stream_of_device_locked(device) : NULL;
        if (s != NULL) {
            unready_locked(s);
            s->running = true;
            run_head_locked(s);
        } else if (timeout < 0) {
            if (!rt_callbacks_serve_own_locked()) pthread_cond_wait(&done_cv, &rt_lock);
        } else if (pthread_cond_timedwait(&done_cv, &rt_lock, &deadline) == ETIMEDOUT) {
            ok = device_idle(&idle);
            break;
        }
    }
    if (!ok) {
        aclStubSetErrMsg("%s: the work of device %d did not finish within %d ms", func, (int)device, (int)timeout);
        ret = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    } else {
        if (CHECK_ON(CHECK_SYNC))
            for (RtStream *s = all_streams; s; s = s->next_all)
                if (s->device == device) check_host_synced_stream(s->check_id, s->submitted);
        for (RtStream *s = all_streams; s && ret == ACL_SUCCESS; s = s->next_all)
            if (s->device == device) ret = rt_stream_take_error_locked(func, s);
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

aclError aclrtSynchronizeDevice(void) { return synchronize_device("aclrtSynchronizeDevice", -1); }

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
    return synchronize_device("aclrtSynchronizeDeviceWithTimeout", timeout);
}

/* ---- shared with the other stub libraries -------------------------------------------------------- */

int rt_check_id_locked(RtStream *s) {
    if (s->check_id < 0) s->check_id = check_stream_id(s->submitted);
    return s->check_id;
}

void rt_check_device_release_locked(const char *call, int32_t device) {
    for (RtStream *s = all_streams; s; s = s->next_all) {
        if (s->device != device) continue;
        if (CHECK_ON(CHECK_SYNC)) check_stream_released(call, s->check_id, s->submitted);
        if (CHECK_ON(CHECK_LEAK) && s->token != NULL) check_leak_handle(s->token, call);
    }
}

/* Run the head item of an idle stream in the calling thread (rt_lock held, released meanwhile), as a worker would
 * run it: the same bookkeeping, the failure kept for the next synchronisation. The caller's pending error message
 * is the caller's: the work's own message goes to the stream, never to the thread that happened to run it. */
static void run_inline_locked(RtStream *s) {
    s->running = true;
    rt_errmsg_suspend();
    run_head_locked(s);
    rt_errmsg_resume();
}

/* Queue a work item (gated by ready when not NULL); with check mode's spans, records what it reads and writes at
 * its place in the order. An ungated item that may run inline (a kernel, a copy: work that never waits for
 * anything but its own stream) runs in the calling thread when its stream is idle (nothing queued, nothing
 * running, so no event wait or callback ahead of it): the order is the queue's, and the item is counted, checked
 * and reported exactly as queued work, without a hop to a worker. Never from queued work itself (a worker, or a
 * thread running its stream's work while synchronising: holding_memory). */
static aclError launch(aclrtStream stream, aclStubGateFn ready, aclStubWorkFn fn, void *arg, void (*release)(void *arg),
                       const char *call, const aclStubCheckSpan *spans, size_t n, bool checked, bool may_inline) {
    const CheckSite *site = checked ? check_site_here() : NULL;
    pthread_mutex_lock(&rt_lock);
    RtStream *s;
    RtItem *item = NULL;
    aclError ret = rt_stream_resolve_locked(call, stream, &s);
    if (ret == ACL_SUCCESS && (item = item_new_locked()) == NULL) {
        aclStubSetErrMsg("out of host memory queueing work on a stream");
        ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (ret == ACL_SUCCESS && n > 0) ret = rt_memory_note_uses_locked(call, s, spans, n);
    if (ret == ACL_SUCCESS) {
        item->kind = ITEM_WORK;
        item->ready = ready;
        item->fn = fn;
        item->arg = arg;
        item->release = release;
        int id = checked && CHECK_ON(CHECK_SYNC) ? rt_check_id_locked(s) : -1;
        bool here = may_inline && ready == NULL && s->head == NULL && !s->running && !is_worker && !holding_memory;
        if (here)
            append_item_locked(s, item);
        else
            rt_enqueue_locked(s, item);
        if (checked) check_queued(id, s->submitted, call, site, spans, n);
        if (here) run_inline_locked(s);
    } else if (item != NULL) {
        item_free_locked(item);
    }
    pthread_mutex_unlock(&rt_lock);
    if (ret != ACL_SUCCESS && release) release(arg);
    return ret;
}

aclError aclStubStreamLaunch(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg)) {
    return launch(stream, NULL, fn, arg, release, "aclStubStreamLaunch", NULL, 0, false, false);
}

aclError aclStubStreamLaunchUsing(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg),
                                  const char *call, const aclStubCheckSpan *spans, size_t n) {
    return launch(stream, NULL, fn, arg, release, call, spans, n, false, true);
}

aclError aclStubStreamLaunchChecked(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg),
                                    const char *call, const aclStubCheckSpan *spans, size_t n) {
    static const aclStubCheckSpan none[1];
    return launch(stream, NULL, fn, arg, release, call, spans != NULL ? spans : none, spans != NULL ? n : 0, true,
                  true);
}

aclError aclStubStreamLaunchQueued(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg),
                                   const char *call, const aclStubCheckSpan *spans, size_t n) {
    static const aclStubCheckSpan none[1];
    bool checked = CHECK_ON(CHECK_INIT | CHECK_SYNC);
    return launch(stream, NULL, fn, arg, release, call, spans != NULL ? spans : none, spans != NULL ? n : 0, checked,
                  false);
}

aclError aclStubStreamLaunchGated(aclrtStream stream, aclStubGateFn ready, aclStubWorkFn fn, void *arg,
                                  void (*release)(void *arg), const char *call, const aclStubCheckSpan *spans,
                                  size_t n) {
    static const aclStubCheckSpan none[1];
    bool checked = CHECK_ON(CHECK_INIT | CHECK_SYNC);
    return launch(stream, ready, fn, arg, release, call, spans != NULL ? spans : none, spans != NULL ? n : 0, checked,
                  false);
}

void aclStubStreamPoke(void) {
    pthread_mutex_lock(&rt_lock);
    rt_reschedule_all_locked();
    pthread_mutex_unlock(&rt_lock);
}

/* While queued work waits for another rank it lets go of the device memory lock (so other threads can allocate
 * and free: the blocks this work uses stay mapped, since frees wait for work queued before them) and, on a worker
 * thread, of its worker slot. */
void aclStubBlockingBegin(void) {
    if (holding_memory) rt_memory_unhold();
    if (!is_worker) return; /* a synchronising thread running its own stream's work holds no worker */
    pthread_mutex_lock(&rt_lock);
    blocked_workers++;
    if (ready_head != NULL && idle_workers == 0) spawn_worker_locked();
    pthread_mutex_unlock(&rt_lock);
}

void aclStubBlockingEnd(void) {
    if (is_worker) {
        pthread_mutex_lock(&rt_lock);
        blocked_workers--;
        pthread_mutex_unlock(&rt_lock);
    }
    if (holding_memory) rt_memory_hold();
}

bool aclStubStreamIsLive(aclrtStream stream) {
    return stream == NULL || handle_is_live(&rt_streams, stream);
}

uint64_t aclStubLiveStreams(void) { return handle_count(&rt_streams); }

uint64_t aclStubPendingWork(void) {
    pthread_mutex_lock(&rt_lock);
    uint64_t n = pending_items;
    pthread_mutex_unlock(&rt_lock);
    return n;
}

/* ---- fork ---------------------------------------------------------------------------------------- */

/* The fork rule: a child inherits no stream work and no failure of it. What the parent queued reads memory
 * of the parent's threads (their stacks are mere copies in the child) and belongs to the parent; whether an
 * item had run, was running or had failed when fork() was called is a matter of timing, so the child sees
 * none of it, the same on every run: each stream starts empty with no failure to report, each event record
 * the parent queued counts as completed (no wait hangs), and device memory holds what it held at fork()
 * (work still queued then never runs in the child). Queued items are discarded without running or
 * releasing them (a release may take locks of other libraries that are only reset later in the child; its
 * argument is leaked instead). */
void rt_sched_atfork_child(void) {
    init_conds();
    workers = idle_workers = blocked_workers = 0;
    ready_head = ready_tail = NULL;
    for (RtStream *s = all_streams; s; s = s->next_all) {
        s->in_ready = false;
        s->running = false;
        s->users = 0;
        while (s->head != NULL) {
            RtItem *item = s->head;
            s->head = item->next;
            if (item->kind == ITEM_RECORD && item->target > item->event->completed)
                item->event->completed = item->target;
            item_free_locked(item);
            s->completed++;
            pending_items--;
        }
        s->tail = NULL;
        s->error = ACL_SUCCESS;
        s->errmsg[0] = '\0';
    }
    rt_callbacks_atfork_child();
    rt_memory_release_graves(UINT64_MAX); /* nothing queued is left to read them */
}
