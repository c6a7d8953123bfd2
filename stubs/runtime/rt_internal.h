/* State shared between the source files of libascendcl.so (hidden: not exported).
 *
 * Locking: rt_lock guards every runtime object (devices, contexts, streams, events, callback reports) and
 * is taken before the handle tables' own locks. Device memory has its own read-write lock (memory.c),
 * which is never taken while rt_lock is held and never held while taking rt_lock. */
#ifndef ACLNN_STUB_RT_INTERNAL_H_
#define ACLNN_STUB_RT_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "check.h"
#include "handle_table.h"
#include "stub_internal.h"

#define RT_MAX_DEVICES 64

/* Return ACL_ERROR_INVALID_PARAM from func, with "<func>: argument '<ptr>' is NULL", when ptr is NULL. */
#define RT_RETURN_IF_NULL(func, ptr)                                             \
    do {                                                                         \
        if ((ptr) == NULL) {                                                     \
            aclStubSetErrMsg("%s: argument '%s' is NULL", (func), #ptr);         \
            return ACL_ERROR_INVALID_PARAM;                                      \
        }                                                                        \
    } while (0)

extern pthread_mutex_t rt_lock;
extern HandleTable rt_contexts, rt_streams, rt_events;

/* ---- devices and contexts (device.c) ------------------------------------------------------------ */

typedef struct RtStream RtStream;

typedef struct {
    int32_t device;
    bool is_default;     /* created by aclrtSetDevice, released by the last aclrtResetDevice */
    RtStream *stream;    /* the context's default stream (what a NULL stream means) */
    const void *token;
} RtContext;

int32_t rt_device_count(void);

/* The calling thread's current context, NULL when it has none (rt_lock held). */
RtContext *rt_current_context_locked(void);

/* The calling thread's current device in *device; on failure records "<func>: no current device" and
 * returns ACL_ERROR_RT_CONTEXT_NULL. */
aclError rt_require_device(const char *func, int32_t *device);

/* ---- streams and the work scheduler (stream.c) --------------------------------------------------- */

typedef struct RtEvent RtEvent;

typedef enum { ITEM_WORK, ITEM_RECORD, ITEM_WAIT, ITEM_CALLBACK } RtItemKind;

typedef struct RtItem {
    struct RtItem *next;
    RtItemKind kind;
    aclStubWorkFn fn; /* ITEM_WORK */
    aclStubGateFn ready; /* ITEM_WORK: runs once ready(arg, first) says so (NULL: at once) */
    bool started;        /* ready was asked once (the item reached the head of its stream) */
    void *arg;
    void (*release)(void *arg);
    RtEvent *event;       /* ITEM_RECORD, ITEM_WAIT: holds a reference */
    uint64_t target;      /* ITEM_RECORD: this record's number; ITEM_WAIT: the record waited for */
    aclrtCallback callback; /* ITEM_CALLBACK */
    void *user_data;
    bool block;
    bool posted; /* ITEM_CALLBACK with block: handed to the report thread, waiting for it */
    uint64_t seq;  /* queue number, process-wide (frees wait for the items queued before them) */
} RtItem;

struct RtStream {
    int32_t device;
    const void *context; /* token of the context it was created in */
    const void *token;   /* NULL for a context's default stream */
    uint32_t flags;
    RtItem *head, *tail;
    uint64_t submitted, completed;
    bool running;  /* a thread is executing the head item */
    bool in_ready; /* on the ready list */
    int users;     /* threads waiting on it outside rt_lock's protection of the handle */
    int check_id;  /* synccheck's number for it, -1 until check mode first tracks it */
    aclError error; /* first failure of queued work not yet reported */
    char errmsg[1536];
    RtStream *next_ready, *prev_all, *next_all;
};

struct RtEvent {
    uint32_t flags;
    int refs;           /* the handle, plus one per queued item */
    bool live;          /* the handle has not been destroyed */
    uint64_t recorded;  /* records enqueued */
    uint64_t completed; /* highest record number that has run */
    RtStream *last_stream; /* stream of the latest record (to run it inline when synchronising) */
    bool stamped;
    struct timespec stamp; /* when the latest completed record ran */
    void *check_clock;     /* synccheck: what the latest record is ordered after */
};

/* Resolve a stream argument (NULL: the current context's default stream) with rt_lock held. */
aclError rt_stream_resolve_locked(const char *func, aclrtStream stream, RtStream **out);

/* Append an item (rt_lock held); the stream becomes ready when the item is its head and runnable. */
void rt_enqueue_locked(RtStream *s, RtItem *item);

/* Wait (rt_lock held, may release it) until done(ctx) holds. timeout_ms < 0: without a deadline, running
 * ready work of stream `help` and the callbacks queued for the calling thread inline meanwhile (neither can
 * then wait for this thread). With a deadline, nothing runs inline (an item may take longer than the
 * deadline): the workers run the work and the wait ends at the deadline. Returns false on timeout. */
bool rt_wait_locked(bool (*done)(void *ctx), void *ctx, RtStream *help, int32_t timeout_ms);

/* Streams whose head may have become runnable (after an event record or a callback completed). */
void rt_reschedule_all_locked(void);

/* Pop the head item of s after it finished (rt_lock held): counts it, wakes waiters, schedules the next. */
void rt_item_done_locked(RtStream *s, RtItem *item);

/* Make a stream and register it in the all-streams list (rt_lock held); NULL when out of memory. */
RtStream *rt_stream_new_locked(int32_t device, const void *context, uint32_t flags);

/* Wait for the stream's queue to drain, then unlink and free it (rt_lock held; the handle is gone). */
void rt_stream_free_locked(RtStream *s);

/* Wait for the work queued on a stream so far, leaving its failures for the next synchronisation. */
aclError rt_stream_drain(const char *func, aclrtStream stream);

/* The first unreported failure of queued work on s, cleared (rt_lock held). */
aclError rt_stream_take_error_locked(const char *func, RtStream *s);

/* synccheck's number of s, assigned on first use (rt_lock held; -1 beyond the streams it tracks). */
int rt_check_id_locked(RtStream *s);

/* synccheck and leakcheck: `call` releases every stream of `device` (rt_lock held). */
void rt_check_device_release_locked(const char *call, int32_t device);

/* Streams that belong to a context, for its destruction. */
void rt_streams_of_context_free_locked(const void *context);

/* Wake every thread waiting in rt_wait_locked. */
void rt_broadcast_locked(void);

bool rt_timeout_valid(const char *func, int32_t timeout);

/* ---- events (event.c) and callbacks (callback.c) ------------------------------------------------ */

void rt_event_unref_locked(RtEvent *e);
void rt_event_record_done_locked(RtEvent *e, uint64_t target);
bool rt_event_reached_locked(const RtEvent *e, uint64_t target);

/* Hand a callback item to the stream's report thread; false when nobody is subscribed any more. */
bool rt_callback_post_locked(RtStream *s, RtItem *item);
void rt_callbacks_forget_stream_locked(RtStream *s);
/* Run the oldest callback queued for the calling thread (rt_lock held, released meanwhile); false: none. */
bool rt_callbacks_serve_own_locked(void);
void rt_callbacks_atfork_child(void); /* drops reports of callbacks queued by the parent */

/* ---- memory (memory.c) --------------------------------------------------------------------------- */

/* Hold device memory read-locked while queued work runs, so no block is freed under it. */
/* Lent host memory (memory.c): validate the spans of work about to be queued on s (tensor spans must still
 * be device memory) and record s as a user of the lent blocks they touch; forget a released stream. */
aclError rt_memory_note_uses_locked(const char *func, RtStream *s, const aclStubCheckSpan *spans, size_t n);
void rt_memory_forget_stream_locked(const RtStream *s);
bool rt_memory_has_lent(void);
/* Wait until s has completed `target` items (timeout_ms < 0: forever), helping it run; false on timeout. */
bool rt_stream_wait_locked(RtStream *s, uint64_t target, int32_t timeout_ms);
void rt_memory_hold(void);
void rt_memory_unhold(void);

/* Blocks freed while earlier work was unfinished are released once every item queued before the free has
 * run (rt_lock held): oldest_pending is the queue number of the oldest unfinished item (UINT64_MAX: none). */
bool rt_memory_has_graves(void);
void rt_memory_release_graves(uint64_t oldest_pending);

/* Queue number of the latest item queued so far when some item is unfinished, else 0 (rt_lock held). */
uint64_t rt_unfinished_up_to_locked(void);

/* ---- fork handlers (one per source file that owns locks or threads) ------------------------------ */

void rt_memory_atfork_prepare(void);
void rt_memory_atfork_parent(void);
void rt_memory_atfork_child(void);
void rt_sched_atfork_child(void);

/* ---- error messages (errmsg.c) ------------------------------------------------------------------ */

/* Set the calling thread's pending message aside while it runs queued work inline, and put it back after. */
void rt_errmsg_suspend(void);
void rt_errmsg_resume(void);

/* ---- time ---------------------------------------------------------------------------------------- */

/* Absolute CLOCK_MONOTONIC deadline timeout_ms from now. */
struct timespec rt_deadline(int32_t timeout_ms);

#endif /* ACLNN_STUB_RT_INTERNAL_H_ */
