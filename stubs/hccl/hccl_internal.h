/*
 * libhccl of the CPU stub: communicators and collectives across threads of one process and across processes of
 * one host.
 *
 * A communicator is a group of ranks that share one control segment: POSIX shared memory named after the root
 * info (HcclCommInitRootInfo, HcclCommInitClusterInfo) or an anonymous shared mapping (HcclCommInitAll,
 * sub-communicators of in-process groups). The segment holds a slot per rank (its state, its process, the
 * descriptor of the collective it is in, progress counters) and a channel per ordered pair of ranks for
 * point-to-point messages. Every rank of this process is an HcRank (what an HcclComm handle names) with an
 * engine thread that runs the rank's operations in order, when its stream reaches them:
 *
 *   HcclAllReduce(..., stream)  -> checks the arguments, queues a gated item on the stream (runtime);
 *   the stream reaches the item -> its gate posts the task to the rank's engine (never blocks a worker);
 *   the engine                   -> publishes the call in its slot, waits for every rank's (futex on the
 *                                   segment), compares the calls, moves the data, waits for every rank to finish;
 *   the gate opens               -> the item reports the task's status; later work on the stream runs.
 *
 * Data moves without copies between ranks of one process (each engine reads and writes the other ranks' device
 * buffers directly), and through per-rank staging areas in shared memory between processes (chunked rounds:
 * write own contribution, barrier, read the others', barrier). Every wait has HCCL_EXEC_TIMEOUT (or
 * HCCL_CONNECT_TIMEOUT while a communicator is created) and notices destroyed communicators and exited
 * processes at once; failures name the ranks and their calls.
 */
#ifndef ACLNN_STUB_HCCL_INTERNAL_H_
#define ACLNN_STUB_HCCL_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "handle_table.h"
#include "hccl/hccl.h"
#include "stub_hccl.h"
#include "stub_internal.h"

#define HC_MAX_RANKS 512
#define HC_NAME_MAX 128
#define HC_SITE_MAX 192
#define HC_MSG_MAX 2048

/* ---- data types (types.c) -------------------------------------------------------------------------------- */

/* Bytes of one element, 0 for a value that is not a data type. */
size_t hc_dtype_size(int dtype);
const char *hc_dtype_name(int dtype);
const char *hc_op_name(int op);
/* Whether a data type can be moved (every valid type but INT128) or reduced, and whether op applies to it. */
bool hc_dtype_movable(int dtype);
bool hc_dtype_reducible(int dtype);
bool hc_op_valid(int op);
bool hc_prod_supported(int dtype);
extern const char hc_movable_list[], hc_reducible_list[], hc_prod_list[];

/* ---- reductions (reduce.c) --------------------------------------------------------------------------------- */

/* out[0 .. n) = in[0] op in[1] op ... op in[k - 1], in rank order; 16-bit floats rounded after every step.
 * out may alias in[0] (not the others). Stores to out are non-temporal when stream (large outputs). */
void hc_reduce(void *out, const void *const *in, int k, uint64_t n, int dtype, int op, bool stream);
/* The same result written to several outputs at once (the in-process all-reduce). */
void hc_reduce_multi(void *const *outs, int nouts, const void *const *in, int k, uint64_t n, int dtype, int op);
/* memcpy with non-temporal stores for large copies. */
void hc_copy(void *dst, const void *src, size_t n);

/* ---- the shared segment ------------------------------------------------------------------------------------ */

enum { SLOT_EMPTY = 0, SLOT_JOINED = 1, SLOT_DESTROYED = 2, SLOT_DEAD = 3 };

typedef enum {
    HC_NONE = 0,
    HC_ALLREDUCE,
    HC_BROADCAST,
    HC_REDUCE_SCATTER,
    HC_REDUCE_SCATTER_V,
    HC_SCATTER,
    HC_ALLGATHER,
    HC_ALLGATHER_V,
    HC_ALLTOALL,
    HC_ALLTOALLV,
    HC_ALLTOALLVC,
    HC_REDUCE,
    HC_BARRIER,
    HC_CUSTOM, /* an operator's exchange (aclStubHcclRun) */
    HC_SEND,
    HC_RECV,
    HC_BATCH,
    HC_KIND_COUNT
} HcKind;

const char *hc_kind_call(HcKind kind); /* "HcclAllReduce" ... */

/* The call a rank is making, as every rank of the group sees it. */
typedef struct {
    uint32_t kind; /* HcKind */
    int32_t dtype, rtype, op;
    uint32_t root;
    uint32_t has_arrays;
    uint64_t seq;   /* collective number within the communicator */
    uint64_t count; /* count, sendCount/recvCount... as the call gives it */
    uint64_t count2;
    uint64_t send_ptr, recv_ptr; /* addresses in the rank's process (read only within that process) */
    uint64_t matrix_hash;        /* AlltoAllVC: hash of the whole matrix */
    char custom[48];             /* HC_CUSTOM: the operation's name */
    char site[HC_SITE_MAX];      /* call site (check mode), else empty */
} HcDesc;

/* What a rank is doing, for reports. */
typedef struct {
    uint32_t kind; /* HcKind of the operation in progress, HC_NONE when idle */
    uint32_t peer; /* send/recv: the other rank */
    uint64_t seq;
    uint64_t p2p_seq;
} HcNow;

typedef struct {
    uint32_t state; /* SLOT_* (atomic) */
    int32_t pid;
    uint64_t proc;  /* the process's random identity (pid alone may repeat across namespaces) */
    int32_t device;
    uint32_t staging_ready;
    uint64_t arrived;  /* collective number whose descriptor is published (atomic) */
    uint64_t step;     /* barrier counter (atomic) */
    uint64_t finished; /* collective number this rank has finished (atomic) */
    uint64_t left;     /* collective number this rank abandoned after a failure (atomic) */
    uint64_t last_coll_kind; /* HcKind of the latest collective it started */
    HcDesc desc;
    HcNow now;
} HcSlot;

/* Ordered pair (src, dst): the messages src sends to dst, one at a time. */
typedef struct {
    uint64_t send_posted; /* messages src has posted (atomic) */
    uint64_t recv_posted; /* receives dst has posted (atomic) */
    uint64_t done;        /* messages dst has finished (atomic) */
    uint64_t nack;        /* message dst refused (atomic) */
    uint64_t written, read; /* staged chunks (atomic) */
    uint64_t count, bytes, ptr;
    int32_t dtype;
    uint32_t pad;
    char site[HC_SITE_MAX];
} HcChan;

#define HC_MAGIC 0x4c43434874737548ull /* "HusthCCL" */

typedef struct {
    uint64_t magic;
    uint32_t nranks;
    uint32_t ready;    /* header initialised (atomic) */
    uint32_t joined;   /* ranks that joined (atomic) */
    uint32_t present;  /* ranks attached and not yet gone (atomic) */
    uint32_t futex;    /* bumped and woken on every change (atomic) */
    uint32_t waiters;  /* threads sleeping on futex (atomic) */
    uint32_t failed;   /* the group is unusable: init failed, or an operation broke it (atomic) */
    uint32_t staged_mapped; /* ranks that mapped every staging area (atomic) */
    uint64_t staging_bytes; /* per rank, cross-process groups only */
    uint64_t slots_off, arrays_off, chans_off, total_bytes;
    char name[HC_NAME_MAX];
    char id[96];         /* shared-memory name stem */
    char failure[512];   /* why the group failed */
} HcHeader;

/* ---- process-local objects --------------------------------------------------------------------------------- */

typedef struct HcRank HcRank;
typedef struct HcGroup HcGroup;

struct HcGroup {
    HcGroup *next;
    int refs; /* local ranks using the mapping */
    HcHeader *hdr;
    size_t map_bytes;
    uint32_t nranks;
    bool local;       /* every rank lives in this process: data moves directly */
    bool named;       /* a POSIX shared-memory object backs the header */
    uint8_t **staging; /* cross-process: every rank's staging area, mapped here */
    uint64_t exec_timeout_ms;    /* 0: never */
    uint64_t connect_timeout_ms;
    HcRank **locals;             /* rank -> its object in this process (NULL elsewhere) */
};

typedef struct HcTask HcTask;

/* Custom exchanges (HC_CUSTOM): fn runs on the engine with the primitives below. */
typedef struct HcCtx HcCtx;
typedef HcclResult (*HcCustomFn)(HcCtx *ctx, void *arg);

struct HcTask {
    int refs; /* atomic: the stream item's (and the caller's while it is being queued) */
    HcTask *next;
    HcRank *rank;
    HcKind kind;
    uint64_t seq; /* collective number, or message number of a send or receive (for messages) */
    void *send, *recv;
    uint64_t count, count2;
    int dtype, rtype, op;
    uint32_t root, peer;
    uint64_t *arrays; /* 4 x nranks: sendCounts, sdispls, recvCounts, rdispls (V variants) */
    uint64_t matrix_hash;
    HcclSendRecvItem *items;
    uint32_t nitems;
    HcCustomFn custom;
    void *custom_arg;
    char custom_name[48];
    char site[HC_SITE_MAX];
    const void *site_token; /* check mode's site of the call */
    int done;               /* atomic */
    HcclResult status;
    char msg[HC_MSG_MAX];
};

struct HcRank {
    int refs; /* atomic: the handle's, one per task */
    HcGroup *g;
    uint32_t rank;
    int32_t device;
    void *token; /* the HcclComm handle */
    char name[HC_NAME_MAX];
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    HcTask *head, *tail;
    bool stopping;
    int destroyed; /* atomic: HcclCommDestroy has begun */
    uint64_t coll_seq, step;
    uint64_t *send_seq, *recv_seq; /* per peer */
    int async_error;               /* atomic HcclResult */
    bool is_sub;
    uint32_t *parent_ranks;        /* sub-communicator: rank -> rank of the parent */
    const void *create_site;
};

/* ---- communicators (comm.c) ----------------------------------------------------------------------------- */

extern HandleTable hc_comms;
extern uint64_t hc_proc_id;

/* The live rank behind a handle, with the table read-locked (hc_release after), or NULL with a message set. */
HcRank *hc_acquire(const char *func, HcclComm comm, HcclResult *err);
void hc_release(void);
void hc_rank_unref(HcRank *r);

HcSlot *hc_slot(const HcGroup *g, uint32_t rank);
uint64_t *hc_arrays(const HcGroup *g, uint32_t rank); /* 4 * nranks */
HcChan *hc_chan(const HcGroup *g, uint32_t src, uint32_t dst);

/* Wake every waiter of the group's segment. */
void hc_wake(const HcGroup *g);

/* ---- waiting (engine.c) ------------------------------------------------------------------------------------ */

/* Wait until cond(r, ctx) > 0; a negative result is a failure the condition described (in r's task). The wait
 * ends with HCCL_E_TIMEOUT after the group's execution timeout, or at once when r is being destroyed. */
typedef int (*HcCond)(HcRank *r, HcTask *t, void *ctx);
HcclResult hc_wait(HcRank *r, HcTask *t, HcCond cond, void *ctx, const char *what);

/* Record a failure in task t ("<call> #seq on 'name' (rank r of n): ..."), unless one is recorded already. */
void hc_fail(HcTask *t, HcclResult status, const char *fmt, ...) STUB_PRINTF(3, 4);

/* Describe what every rank of the group is doing, for failure messages. */
void hc_describe_ranks(const HcRank *r, char *out, size_t cap, const uint32_t *only, uint32_t nonly);

/* ---- operations (coll.c, p2p.c) --------------------------------------------------------------------------- */

HcclResult hc_run_collective(HcRank *r, HcTask *t);
HcclResult hc_run_p2p(HcRank *r, HcTask *t);

/* Queue task t (owned by the caller until it returns) on stream for rank r. spans: the device memory it uses. */
HcclResult hc_submit(HcRank *r, HcTask *t, aclrtStream stream, const char *call, const aclStubCheckSpan *spans,
                     size_t n);
HcTask *hc_task_new(HcRank *r, HcKind kind);
void hc_task_unref(HcTask *t);

/* ---- engine threads (engine.c) ----------------------------------------------------------------------------- */

HcclResult hc_engine_start(HcRank *r);
void hc_engine_stop(HcRank *r); /* fails queued tasks, joins the thread */

/* ---- settings (env.c) -------------------------------------------------------------------------------------- */

/* HCCL_EXEC_TIMEOUT and HCCL_CONNECT_TIMEOUT as CANN reads them; HCCL_E_PARA with a message when malformed. */
HcclResult hc_read_timeouts(const char *func, uint64_t *exec_ms, uint64_t *connect_ms);
uint64_t hc_staging_bytes(void);
uint64_t hc_now_ms(void);
bool hc_process_alive(int32_t pid);

/* Record the calling thread's error message (aclGetRecentErrMsg) and, with ACLNN_STUB_LOG, print it. */
HcclResult hc_err(HcclResult status, const char *fmt, ...) STUB_PRINTF(2, 3);

/* ---- futex ----------------------------------------------------------------------------------------------- */
void hc_futex_wait(uint32_t *word, uint32_t seen, uint64_t timeout_ms);
void hc_futex_wake(uint32_t *word);

/* ---- custom exchanges for operators (exported, see aclStubHcclRun) ---------------------------------------- */

struct HcCtx {
    HcRank *r;
    HcTask *t;
};

#endif /* ACLNN_STUB_HCCL_INTERNAL_H_ */
