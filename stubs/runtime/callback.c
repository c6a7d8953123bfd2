/*
 * Host callbacks: aclrtSubscribeReport names the thread that runs the callbacks of a stream;
 * aclrtLaunchCallback queues one; when the stream reaches it, it is handed to that thread, which runs it
 * inside aclrtProcessReport. A blocking callback holds its stream (but no worker) until it has returned.
 * Only the subscribed thread can run it, so when that thread itself waits without a deadline (synchronising,
 * destroying a stream, resetting a device, aclFinalize) it runs the callbacks queued for it meanwhile, as
 * aclrtProcessReport would, instead of waiting forever for itself.
 */
#include <stdlib.h>

#include "rt_internal.h"

typedef struct Report {
    struct Report *next;
    aclrtCallback fn;
    void *user_data;
    const RtStream *owner; /* the stream that queued it */
    RtStream *stream;      /* for a blocking callback: the stream whose head waits for it, else NULL */
    RtItem *item;
} Report;

typedef struct Subscription {
    struct Subscription *next;
    uint64_t thread;
    RtStream *stream;
} Subscription;

typedef struct ReportQueue {
    struct ReportQueue *next;
    uint64_t thread;
    Report *head, *tail;
} ReportQueue;

static Subscription *subscriptions;
static ReportQueue *queues;

static uint64_t self_id(void) { return (uint64_t)pthread_self(); }

static Subscription *subscription_of_locked(const RtStream *s) {
    for (Subscription *sub = subscriptions; sub; sub = sub->next)
        if (sub->stream == s) return sub;
    return NULL;
}

static ReportQueue *queue_of_locked(uint64_t thread, bool create) {
    for (ReportQueue *q = queues; q; q = q->next)
        if (q->thread == thread) return q;
    if (!create) return NULL;
    ReportQueue *q = calloc(1, sizeof *q);
    if (q == NULL) return NULL;
    q->thread = thread;
    q->next = queues;
    queues = q;
    return q;
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
    pthread_mutex_lock(&rt_lock);
    RtStream *s;
    aclError ret = rt_stream_resolve_locked("aclrtSubscribeReport", stream, &s);
    if (ret == ACL_SUCCESS && subscription_of_locked(s) != NULL) {
        aclStubSetErrMsg("aclrtSubscribeReport: the stream (%p) already has a subscribed thread", stream);
        ret = ACL_ERROR_REPEAT_SUBSCRIBE;
    }
    if (ret == ACL_SUCCESS) {
        Subscription *sub = calloc(1, sizeof *sub);
        if (sub == NULL || queue_of_locked(threadId, true) == NULL) {
            free(sub);
            aclStubSetErrMsg("aclrtSubscribeReport: out of host memory");
            ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
        } else {
            *sub = (Subscription){subscriptions, threadId, s};
            subscriptions = sub;
        }
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

/* Drop s's subscription; its blocking callbacks not yet run complete without running. */
static void unsubscribe_locked(Subscription *sub) {
    Subscription **p = &subscriptions;
    while (*p != sub) p = &(*p)->next;
    *p = sub->next;
    ReportQueue *q = queue_of_locked(sub->thread, false);
    for (Report **r = q ? &q->head : NULL; r && *r;) {
        Report *rep = *r;
        if (rep->owner == sub->stream) {
            *r = rep->next;
            if (rep->stream != NULL) rt_item_done_locked(rep->stream, rep->item);
            free(rep);
        } else {
            r = &rep->next;
        }
    }
    if (q != NULL) {
        q->tail = NULL;
        for (Report *rep = q->head; rep; rep = rep->next) q->tail = rep;
    }
    free(sub);
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
    pthread_mutex_lock(&rt_lock);
    RtStream *s;
    aclError ret = rt_stream_resolve_locked("aclrtUnSubscribeReport", stream, &s);
    Subscription *sub = ret == ACL_SUCCESS ? subscription_of_locked(s) : NULL;
    if (ret == ACL_SUCCESS && (sub == NULL || sub->thread != threadId)) {
        aclStubSetErrMsg("aclrtUnSubscribeReport: thread %llu is not subscribed to the stream (%p)",
                         (unsigned long long)threadId, stream);
        ret = ACL_ERROR_RT_STREAM_NO_CB_REG;
    }
    if (ret == ACL_SUCCESS) unsubscribe_locked(sub);
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

void rt_callbacks_forget_stream_locked(RtStream *s) {
    Subscription *sub = subscription_of_locked(s);
    if (sub != NULL) unsubscribe_locked(sub);
}

aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
    RT_RETURN_IF_NULL("aclrtLaunchCallback", fn);
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK) {
        aclStubSetErrMsg("aclrtLaunchCallback: argument 'blockType' (%d) is neither ACL_CALLBACK_NO_BLOCK nor "
                         "ACL_CALLBACK_BLOCK", (int)blockType);
        return ACL_ERROR_INVALID_PARAM;
    }
    RtItem *item = calloc(1, sizeof *item);
    pthread_mutex_lock(&rt_lock);
    RtStream *s;
    aclError ret = rt_stream_resolve_locked("aclrtLaunchCallback", stream, &s);
    if (ret == ACL_SUCCESS && subscription_of_locked(s) == NULL) {
        aclStubSetErrMsg("aclrtLaunchCallback: no thread is subscribed to the stream (%p): call "
                         "aclrtSubscribeReport first", stream);
        ret = ACL_ERROR_RT_STREAM_NO_CB_REG;
    }
    if (ret == ACL_SUCCESS && item == NULL) {
        aclStubSetErrMsg("aclrtLaunchCallback: out of host memory");
        ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (ret == ACL_SUCCESS) {
        item->kind = ITEM_CALLBACK;
        item->callback = fn;
        item->user_data = userData;
        item->block = blockType == ACL_CALLBACK_BLOCK;
        rt_enqueue_locked(s, item);
        item = NULL;
    }
    pthread_mutex_unlock(&rt_lock);
    free(item);
    return ret;
}

bool rt_callback_post_locked(RtStream *s, RtItem *item) {
    Subscription *sub = subscription_of_locked(s);
    ReportQueue *q = sub ? queue_of_locked(sub->thread, false) : NULL;
    Report *rep = q ? calloc(1, sizeof *rep) : NULL;
    if (rep == NULL) return false; /* unsubscribed meanwhile (or out of memory): the callback is dropped */
    rep->fn = item->callback;
    rep->user_data = item->user_data;
    rep->owner = s;
    if (item->block) {
        rep->stream = s;
        rep->item = item;
    }
    if (q->tail)
        q->tail->next = rep;
    else
        q->head = rep;
    q->tail = rep;
    rt_broadcast_locked();
    return true;
}

static bool serve_one_locked(ReportQueue *q);

/* Report queues are never freed (one per thread that ever subscribed), so q stays valid while waiting. */
static bool report_available(void *ctx) {
    const ReportQueue *q = ctx;
    return q->head != NULL;
}

aclError aclrtProcessReport(int32_t timeout) {
    if (!rt_timeout_valid("aclrtProcessReport", timeout)) return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&rt_lock);
    aclError ret = ACL_SUCCESS;
    ReportQueue *q = queue_of_locked(self_id(), false);
    bool subscribed = false;
    for (Subscription *sub = subscriptions; sub && !subscribed; sub = sub->next) subscribed = sub->thread == self_id();
    if (q == NULL || (!subscribed && q->head == NULL)) {
        aclStubSetErrMsg("aclrtProcessReport: the calling thread is not subscribed to any stream "
                         "(aclrtSubscribeReport)");
        ret = ACL_ERROR_THREAD_NOT_SUBSCRIBE;
    } else {
        if (!rt_wait_locked(report_available, q, NULL, timeout)) {
            aclStubSetErrMsg("aclrtProcessReport: no callback arrived within %d ms", (int)timeout);
            ret = ACL_ERROR_WAIT_CALLBACK_TIMEOUT;
        } else {
            serve_one_locked(q);
        }
    }
    pthread_mutex_unlock(&rt_lock);
    return ret;
}

/* Pop and run the calling thread's oldest report, as aclrtProcessReport would (rt_lock held; released while
 * the callback runs). False when the thread has none. */
static bool serve_one_locked(ReportQueue *q) {
    Report *rep = q->head;
    if (rep == NULL) return false;
    q->head = rep->next;
    if (q->head == NULL) q->tail = NULL;
    pthread_mutex_unlock(&rt_lock);
    rep->fn(rep->user_data);
    pthread_mutex_lock(&rt_lock);
    if (rep->stream != NULL) rt_item_done_locked(rep->stream, rep->item);
    free(rep);
    return true;
}

bool rt_callbacks_serve_own_locked(void) {
    ReportQueue *q = queues != NULL ? queue_of_locked(self_id(), false) : NULL;
    return q != NULL && serve_one_locked(q);
}

void rt_callbacks_atfork_child(void) {
    for (ReportQueue *q = queues; q; q = q->next) {
        while (q->head != NULL) {
            Report *rep = q->head;
            q->head = rep->next;
            free(rep);
        }
        q->tail = NULL;
    }
}
