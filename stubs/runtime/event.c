/*
 * Events. A record is an item on a stream: record number n of an event completes when the stream reaches
 * it. aclrtStreamWaitEvent queues a wait for the latest record made so far (later records do not move
 * it), and a stream whose head is such a wait is not runnable until the record completes. An event never
 * recorded counts as complete, as CANN documents. The handle is a never-reused token; the object lives on
 * while queued records or waits still refer to it (aclrtDestroyEvent does not wait).
 */
#include <stdlib.h>

#include "rt_internal.h"

HandleTable rt_events = HANDLE_TABLE_INIT(HANDLE_EVENT);

static uint64_t live_events; /* objects not yet freed, handle destroyed or not */

void rt_event_unref_locked(RtEvent *e) {
    if (--e->refs == 0) {
        live_events--;
        check_event_free(&e->check_clock);
        free(e);
    }
}

bool rt_event_reached_locked(const RtEvent *e, uint64_t target) { return e->completed >= target; }

void rt_event_record_done_locked(RtEvent *e, uint64_t target) {
    if (target > e->completed) e->completed = target;
    clock_gettime(CLOCK_MONOTONIC, &e->stamp);
    e->stamped = true;
    rt_reschedule_all_locked(); /* streams waiting for it may run now */
}

static aclError create_event(const char *func, aclrtEvent *event, uint32_t flags) {
    if (event == NULL) {
        aclStubSetErrMsg("%s: argument 'event' is NULL", func);
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t device;
    aclError ret = rt_require_device(func, &device);
    if (ret != ACL_SUCCESS) return ret;
    RtEvent *e = calloc(1, sizeof *e);
    if (CHECK_ON(CHECK_LEAK)) check_site_prepare();
    pthread_mutex_lock(&rt_lock);
    const void *token = e ? handle_insert(&rt_events, e) : NULL;
    if (token != NULL) {
        e->flags = flags;
        e->refs = 1;
        e->live = true;
        live_events++;
        *event = (aclrtEvent)token;
    }
    pthread_mutex_unlock(&rt_lock);
    if (token == NULL) {
        free(e);
        aclStubSetErrMsg("%s: out of host memory", func);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    return ACL_SUCCESS;
}

/* Events from aclrtCreateEvent take part in every event function. */
#define EVENT_ALL_USES (ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE)

aclError aclrtCreateEvent(aclrtEvent *event) { return create_event("aclrtCreateEvent", event, EVENT_ALL_USES); }

static aclError create_event_with_flag(const char *func, aclrtEvent *event, uint32_t flag, uint32_t known) {
    if (flag & ~known) {
        aclStubSetErrMsg("%s: argument 'flag' (0x%x) has bits no supported ACL_EVENT_* flag defines", func, flag);
        return ACL_ERROR_INVALID_PARAM;
    }
    return create_event(func, event, flag);
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
    return create_event_with_flag("aclrtCreateEventWithFlag", event, flag,
                                  ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                                      ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL);
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag) {
    return create_event_with_flag("aclrtCreateEventExWithFlag", event, flag,
                                  ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE);
}

/* The live event behind a token (rt_lock held), or NULL with the error recorded. */
static RtEvent *event_lookup_locked(const char *func, const char *name, aclrtEvent event) {
    if (event == NULL) {
        aclStubSetErrMsg("%s: argument '%s' is NULL", func, name);
        return NULL;
    }
    RtEvent *e = handle_acquire(&rt_events, event);
    if (e == NULL) {
        aclStubSetErrMsg("%s: argument '%s' (%p) is not a live event (never created or already destroyed)", func,
                         name, event);
        return NULL;
    }
    handle_release(&rt_events);
    return e;
}

static aclError lookup_status(aclrtEvent event) {
    return event == NULL ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_PARAM_INVALID;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
    pthread_mutex_lock(&rt_lock);
    RtEvent *e = event ? handle_remove(&rt_events, event) : NULL;
    if (e != NULL) {
        e->live = false;
        rt_event_unref_locked(e);
    }
    pthread_mutex_unlock(&rt_lock);
    if (e == NULL) {
        if (event == NULL)
            aclStubSetErrMsg("aclrtDestroyEvent: argument 'event' is NULL");
        else
            aclStubSetErrMsg("aclrtDestroyEvent: argument 'event' (%p) is not a live event (never created or "
                             "already destroyed)", event);
        return lookup_status(event);
    }
    return ACL_SUCCESS;
}

static aclError enqueue_event_item(const char *func, aclrtEvent event, aclrtStream stream, RtItemKind kind) {
    RtItem *item = calloc(1, sizeof *item);
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    RtStream *s = NULL;
    RtEvent *e = event_lookup_locked(func, "event", event);
    if (e == NULL) {
        ret = lookup_status(event);
    } else if (kind == ITEM_WAIT && !(e->flags & ACL_EVENT_SYNC)) {
        aclStubSetErrMsg("%s: argument 'event' (%p) was created without ACL_EVENT_SYNC, so streams cannot wait for "
                         "it", func, event);
        ret = ACL_ERROR_RT_PARAM_INVALID;
    } else {
        ret = rt_stream_resolve_locked(func, stream, &s);
    }
    if (ret == ACL_SUCCESS && item == NULL) {
        aclStubSetErrMsg("%s: out of host memory", func);
        ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (ret == ACL_SUCCESS) {
        item->kind = kind;
        item->event = e;
        e->refs++;
        if (kind == ITEM_RECORD) {
            item->target = ++e->recorded;
            e->last_stream = s;
        } else {
            item->target = e->recorded;
        }
        int id = CHECK_ON(CHECK_SYNC) ? rt_check_id_locked(s) : -1;
        rt_enqueue_locked(s, item);
        if (id >= 0 && kind == ITEM_RECORD) check_event_record(&e->check_clock, id, s->submitted);
        if (id >= 0 && kind == ITEM_WAIT) check_stream_wait(id, &e->check_clock);
        item = NULL;
    }
    pthread_mutex_unlock(&rt_lock);
    free(item);
    return ret;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
    return enqueue_event_item("aclrtRecordEvent", event, stream, ITEM_RECORD);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    return enqueue_event_item("aclrtStreamWaitEvent", event, stream, ITEM_WAIT);
}

/* Back to the initial state (no record pending, no time stamp) once the stream reaches the reset: waits
 * queued before it keep the records they wait for, so the reset needs no item of its own beyond order. */
aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    RtStream *s;
    RtEvent *e = event_lookup_locked("aclrtResetEvent", "event", event);
    if (e == NULL) {
        ret = lookup_status(event);
    } else if (!(e->flags & ACL_EVENT_SYNC)) {
        aclStubSetErrMsg("aclrtResetEvent: argument 'event' (%p) was created without ACL_EVENT_SYNC", event);
        ret = ACL_ERROR_RT_PARAM_INVALID;
    } else if ((ret = rt_stream_resolve_locked("aclrtResetEvent", stream, &s)) == ACL_SUCCESS) {
        e->completed = e->recorded; /* nothing left to wait for */
        e->stamped = false;
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

/* Whether event's last record has completed, for both query functions (status: their out-parameter). */
static aclError query(const char *func, aclrtEvent event, const void *status, bool *complete) {
    RT_RETURN_IF_NULL(func, status);
    pthread_mutex_lock(&rt_lock);
    RtEvent *e = event_lookup_locked(func, "event", event);
    if (e != NULL) *complete = e->completed >= e->recorded;
    if (e != NULL && *complete && CHECK_ON(CHECK_SYNC)) check_host_synced_event(&e->check_clock);
    pthread_mutex_unlock(&rt_lock);
    return e ? ACL_SUCCESS : lookup_status(event);
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
    bool complete;
    aclError ret = query("aclrtQueryEventStatus", event, status, &complete);
    if (ret == ACL_SUCCESS) *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ret;
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status) {
    bool complete;
    aclError ret = query("aclrtQueryEvent", event, status, &complete);
    if (ret == ACL_SUCCESS) *status = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return ret;
}

typedef struct {
    RtEvent *e;
    uint64_t target;
} EventTarget;

static bool event_reached(void *ctx) {
    EventTarget *t = ctx;
    return t->e->completed >= t->target;
}

static aclError synchronize_event(const char *func, aclrtEvent event, int32_t timeout) {
    if (!rt_timeout_valid(func, timeout)) return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    RtEvent *e = event_lookup_locked(func, "event", event);
    if (e == NULL) {
        ret = lookup_status(event);
    } else {
        EventTarget t = {e, e->recorded};
        e->refs++; /* a concurrent aclrtDestroyEvent must not free it while this thread waits */
        RtStream *help = e->completed < t.target ? e->last_stream : NULL;
        if (help != NULL) help->users++;
        bool ok = rt_wait_locked(event_reached, &t, help, timeout);
        if (help != NULL) help->users--;
        rt_broadcast_locked();
        if (ok && CHECK_ON(CHECK_SYNC)) check_host_synced_event(&e->check_clock);
        rt_event_unref_locked(e);
        if (!ok) {
            aclStubSetErrMsg("%s: the event's record did not complete within %d ms", func, (int)timeout);
            ret = ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
        }
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) { return synchronize_event("aclrtSynchronizeEvent", event, -1); }

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
    return synchronize_event("aclrtSynchronizeEventWithTimeout", event, timeout);
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
    RT_RETURN_IF_NULL("aclrtEventElapsedTime", ms);
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    RtEvent *start = event_lookup_locked("aclrtEventElapsedTime", "startEvent", startEvent);
    RtEvent *end = start ? event_lookup_locked("aclrtEventElapsedTime", "endEvent", endEvent) : NULL;
    if (start == NULL || end == NULL) {
        ret = lookup_status(start == NULL ? startEvent : endEvent);
    } else if (!(start->flags & ACL_EVENT_TIME_LINE) || !(end->flags & ACL_EVENT_TIME_LINE)) {
        aclStubSetErrMsg("aclrtEventElapsedTime: both events need time stamps (aclrtCreateEvent, or a flag with "
                         "ACL_EVENT_TIME_LINE)");
        ret = ACL_ERROR_RT_PARAM_INVALID;
    } else if (!start->stamped || !end->stamped || start->completed < start->recorded ||
               end->completed < end->recorded) {
        aclStubSetErrMsg("aclrtEventElapsedTime: argument '%s' has no completed record (record it and "
                         "synchronise first)", !start->stamped || start->completed < start->recorded ? "startEvent"
                                                                                                     : "endEvent");
        ret = ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    } else {
        double d = (double)(end->stamp.tv_sec - start->stamp.tv_sec) * 1e3 +
                   (double)(end->stamp.tv_nsec - start->stamp.tv_nsec) / 1e6;
        *ms = (float)d;
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

uint64_t aclStubLiveEvents(void) {
    pthread_mutex_lock(&rt_lock);
    uint64_t n = live_events;
    pthread_mutex_unlock(&rt_lock);
    return n;
}
