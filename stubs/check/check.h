/*
 * Check mode: a sanitizer for aclnn programs (memcheck, initcheck, synccheck, leakcheck), compiled into
 * libascendcl.so. The runtime, the operator SDK and the handle tables call the hooks below; each call site
 * is guarded by CHECK_ON, so with check mode off (the default) a hot path pays one predictable branch on
 * a word that is only written when check mode is configured (ACLNN_CHECK at load, or aclStubCheckStart).
 *
 * Locking: the check module's locks (its state; its findings, taken inside the state lock; the interned
 * call sites) are leaves: taken under rt_lock or a memory lock, never the other way round. Call sites are
 * captured before any of them is taken, and never by a Python hook under rt_lock (check_site_locked).
 */
#ifndef ACLNN_STUB_CHECK_H_
#define ACLNN_STUB_CHECK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclstub/op_sdk.h"
#include "stub_internal.h"

enum {
    CHECK_MEM = 1u, CHECK_INIT = 2u, CHECK_SYNC = 4u, CHECK_LEAK = 8u, CHECK_API = 16u, CHECK_COLL = 32u,
    CHECK_ALL = 63u
};

/* The tools in force (0: check mode off). */
STUB_API extern unsigned aclStubCheckTools;

#define CHECK_ON(tools) __builtin_expect((__atomic_load_n(&aclStubCheckTools, __ATOMIC_RELAXED) & (tools)) != 0, 0)

/* How a queued or host access uses a span of device memory. */
enum { CHECK_READ = 1, CHECK_WRITE = 2 };

typedef struct {
    const char *name;              /* the argument, e.g. "dst" or "self" */
    const void *ptr;               /* first byte */
    size_t size;                   /* bytes of the hull */
    int mode;                      /* CHECK_READ, CHECK_WRITE */
    const aclStubTensorDesc *view; /* optional: the exact elements of a strided view inside the hull */
} aclStubCheckSpan;

/* ---- exported to libnnopbase.so (operator SDK, handle tables) ----------------------------------------- */

/* A finding of `tool` (CHECK_MEM ...) at the caller's call site; `what` names the class of bug. */
STUB_API void aclStubCheckReport(unsigned tool, const char *what, const char *call, const char *fmt, ...)
    STUB_PRINTF(4, 5);

/* memcheck: [ptr, ptr + size) of argument `name` of `call` is not inside one live aclrtMalloc block;
 * reported as out-of-bounds, use-after-free or not-device-memory with the block's allocation site. */
STUB_API void aclStubCheckBadSpan(const char *call, const char *name, const void *ptr, size_t size);

/* The caller's call site, for a finding reported later from another thread (a kernel on a worker), and the
 * report at such a site (site NULL: the caller's own). */
STUB_API const void *aclStubCheckSite(void);
STUB_API void aclStubCheckReportAt(const void *site, unsigned tool, const char *what, const char *call,
                                   const char *fmt, ...) STUB_PRINTF(5, 6);

/* memcheck: spans that reach past the size requested from aclrtMalloc into the block's padding (legal, as on
 * a device): reported as padding-access, a warning. */
STUB_API void aclStubCheckPadding(const char *call, const aclStubCheckSpan *spans, size_t n);

/* aclStubStreamLaunch with the device spans the work reads and writes: Using validates the spans of tensors
 * once more as the work is queued and records its stream as a user of lent host memory; Checked does the
 * same and also hands the spans to check mode (initcheck, synccheck). The work must wait for nothing but its
 * stream: on an idle stream (nothing queued or running) it runs in the calling thread before the call returns,
 * counted, checked and reported as queued work. Queued is Using, or Checked when check mode's initcheck or
 * synccheck is on, for work that may wait for other threads or processes: always queued for a worker. */
STUB_API aclError aclStubStreamLaunchUsing(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg),
                                           const char *call, const aclStubCheckSpan *spans, size_t n);
STUB_API aclError aclStubStreamLaunchChecked(aclrtStream stream, aclStubWorkFn fn, void *arg,
                                             void (*release)(void *arg), const char *call,
                                             const aclStubCheckSpan *spans, size_t n);

STUB_API aclError aclStubStreamLaunchQueued(aclrtStream stream, aclStubWorkFn fn, void *arg,
                                            void (*release)(void *arg), const char *call,
                                            const aclStubCheckSpan *spans, size_t n);

/*
 * A gated work item: fn(arg) runs once ready(arg, first) returns true. ready is called with the runtime's lock
 * held, first with first = true when every earlier item of the stream has completed (where the item may start
 * the asynchronous work it stands for), then again whenever aclStubStreamPoke asks; it must neither block nor
 * call the runtime. Until it returns true the stream holds no worker. Spans as aclStubStreamLaunchChecked
 * (check mode records them when it is on).
 */
typedef bool (*aclStubGateFn)(void *arg, bool first);
STUB_API aclError aclStubStreamLaunchGated(aclrtStream stream, aclStubGateFn ready, aclStubWorkFn fn, void *arg,
                                           void (*release)(void *arg), const char *call,
                                           const aclStubCheckSpan *spans, size_t n);
STUB_API void aclStubStreamPoke(void);

/* Queued work that waits for something outside its stream (another rank) brackets the wait with these, so a
 * stream worker held by the wait is replaced and queued work never waits for a thread. */
STUB_API void aclStubBlockingBegin(void);
STUB_API void aclStubBlockingEnd(void);

/* The one-line summary of a call site from aclStubCheckSite (libhccl names each rank's call site in its
 * messages and reports from its engine threads with aclStubCheckReportAt). */
STUB_API void aclStubCheckSiteText(const void *site, char *out, size_t cap);

/* leakcheck: a handle of `kind` (HandleKind) was created or destroyed. */
STUB_API void aclStubCheckHandleNew(int kind, const void *token);
STUB_API void aclStubCheckHandleGone(const void *token);

/* ---- exported for clients, which look them up at run time (aclnn_py.check) --------------------------- */

/* Switch check mode on with the named tools ("all", "memcheck,synccheck"): the tool bits, -1 for an unknown
 * name. The findings so far as JSON, then cleared (leaks: first report what is live as leaked); free the
 * text with aclStubCheckFreeText. Switch it off. A Python client's call-site hook: it fills buf with the
 * caller's stack, one "file:line in function" per line, innermost first, and returns the length. */
STUB_API int aclStubCheckStart(const char *tools);
STUB_API char *aclStubCheckCollect(int leaks);
STUB_API void aclStubCheckFreeText(char *text);
STUB_API void aclStubCheckStop(void);
STUB_API void aclStubCheckSetSiteHook(size_t (*hook)(char *buf, size_t cap));

/* apicheck from a client that reports its own API errors (a Python client: see check_api_error): `call`
 * returned `status` with `message`, reported at the client's call site. */
STUB_API void aclStubCheckApiError(const char *call, int status, const char *message);

/* ---- inside libascendcl.so ---------------------------------------------------------------------------- */

/* apicheck: an API call records the message of the error it is about to return (aclStubSetErrMsg). Not
 * while check_api_quiet is set: the thread runs queued work, whose failures the synchronisation reports. */
void check_api_error(const char *message);
extern _Thread_local unsigned check_api_quiet;

typedef struct CheckSite CheckSite;

/* The calling program's site of the current API call (interned; never freed). Under rt_lock, use
 * check_site_locked: the site check_site_prepare captured before the lock was taken, else native frames. */
const CheckSite *check_site_here(void);
void check_site_prepare(void);
const CheckSite *check_site_locked(void);
/* The native frames of the caller only (never the Python hook: safe under any lock); whether a Python client
 * installed its site hook. */
const CheckSite *check_site_native(void);
bool check_site_hook_installed(void);

/* Memory: a block was handed out; is about to be released; a release of something that is not a block. */
/* usable: size with the device's padding; lent: host memory, neither poisoned nor tracked by initcheck */
void check_alloc(void *start, size_t size, size_t usable, bool device, bool lent);
void check_free(const char *call, const void *start, bool device);
void check_bad_free(const char *call, const void *ptr, bool device);

/* A synchronous (host-ordered) access to device memory: initcheck and synccheck of the span. */
void check_host_access(const char *call, const aclStubCheckSpan *span);

/* Streams (rt_lock held): ids for vector clocks, queued work, host synchronisation. */
int check_stream_id(uint64_t submitted_before);
void check_queued(int stream, uint64_t item, const char *call, const CheckSite *site, const aclStubCheckSpan *spans,
                  size_t n);
void check_host_synced_stream(int stream, uint64_t submitted);
void check_stream_released(const char *call, int stream, uint64_t submitted);

/* Events (rt_lock held): a record snapshots the stream's clock into *slot; a wait merges it. */
void check_event_record(void **slot, int stream, uint64_t item);
void check_stream_wait(int stream, void *const *slot);
void check_host_synced_event(void *const *slot);
void check_event_free(void **slot);

/* leakcheck of everything live (aclFinalize or process exit), or of one handle about to be released
 * implicitly (`when`: the call releasing it). */
void check_leaks(const char *when);
void check_leak_handle(const void *token, const char *when);

/* Shared by the check module's files. */
void check_add_finding(unsigned tool, const char *what, const char *call, const CheckSite *site,
                       const CheckSite *related, const char *related_label, const char *message);
void check_lock(void);
void check_unlock(void);

/* fork: the site tables' locks held across fork() (report.c registers the handlers). */
void check_sites_atfork_prepare(void);
void check_sites_atfork_parent(void);
void check_sites_atfork_child(void);
void check_handles_atfork_child(void); /* what the parent created is not the child's leak */
void check_blocks_atfork_child(void);

/* The allocation an address falls in, for messages: "block 0x.. (N bytes, +off)" or a freed block; the
 * block's allocation site in *site (NULL when unknown). check_lock held. */
void check_describe_address_locked(char *out, size_t cap, const void *ptr, const CheckSite **site);

/* A growing text buffer for the report. */
typedef struct {
    char *p;
    size_t len, cap;
} CheckText;
void check_text_put(CheckText *t, const char *fmt, ...) STUB_PRINTF(2, 3);
void check_text_string(CheckText *t, const char *s); /* as a JSON string literal */
void check_text_site(CheckText *t, const CheckSite *site); /* as a JSON object */
void check_site_summary(const CheckSite *site, char *out, size_t cap);

#endif /* ACLNN_STUB_CHECK_H_ */
