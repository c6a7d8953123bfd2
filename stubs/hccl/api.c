/*
 * The operations' entry points: the official parameter checks in the official order and with the official codes
 * (a zero count returns at once; NULL pointers HCCL_E_PTR; counts and ranks HCCL_E_PARA; data types and
 * operations a device does not support HCCL_E_NOT_SUPPORT), then the stub's own: every buffer a device would
 * read or write must lie inside one device block (aclrtMalloc, or host memory lent with aclStubLendHostMemory)
 * and be aligned to its element size, as copies must. The operation is then queued on the stream.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl_internal.h"

#define SYS_MAX_COUNT UINT64_C(0x7FFFFFFFF) /* the largest count HCCL accepts */

#define CHECK_NULL(f, p)                                                                        \
    do {                                                                                        \
        if ((p) == NULL) return hc_err(HCCL_E_PTR, "%s: argument '%s' is NULL", (f), #p);        \
    } while (0)

typedef struct {
    const char *func;
    HcRank *r;
    HcclResult ret;
    aclStubCheckSpan spans[3];
    size_t nspans;
} Call;

static bool begin(Call *c, const char *func, HcclComm comm) {
    c->func = func;
    c->nspans = 0;
    c->ret = HCCL_SUCCESS;
    c->r = hc_acquire(func, comm, &c->ret);
    return c->r != NULL;
}

static HcclResult end(Call *c) {
    hc_release();
    return c->ret;
}

static bool fail(Call *c, HcclResult status, const char *fmt, ...) STUB_PRINTF(3, 4);
static bool fail(Call *c, HcclResult status, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->ret = hc_err(status, "%s: %s", c->func, msg);
    return false;
}

static bool ok(const Call *c) { return c->ret == HCCL_SUCCESS; }

static bool count_ok(Call *c, const char *name, uint64_t count) {
    if (!ok(c)) return false;
    if (count > SYS_MAX_COUNT)
        return fail(c, HCCL_E_PARA, "argument '%s' (%llu) exceeds the largest count, %llu", name,
                    (unsigned long long)count, (unsigned long long)SYS_MAX_COUNT);
    return true;
}

static bool dtype_ok(Call *c, const char *name, int dtype, bool reduce) {
    if (!ok(c)) return false;
    if (reduce ? !hc_dtype_reducible(dtype) : !hc_dtype_movable(dtype))
        return fail(c, HCCL_E_NOT_SUPPORT, "argument '%s' (%s) is not supported%s; supported: %s", name,
                    hc_dtype_name(dtype), reduce ? " by reductions" : "", reduce ? hc_reducible_list : hc_movable_list);
    return true;
}

static bool op_ok(Call *c, int op, int dtype) {
    if (!ok(c)) return false;
    if (!hc_op_valid(op))
        return fail(c, HCCL_E_PARA, "argument 'op' (%d) is not an HcclReduceOp (SUM 0, PROD 1, MAX 2, MIN 3)", op);
    if (op == HCCL_REDUCE_PROD && !hc_prod_supported(dtype))
        return fail(c, HCCL_E_NOT_SUPPORT, "HCCL_REDUCE_PROD does not support %s; supported: %s", hc_dtype_name(dtype),
                    hc_prod_list);
    return true;
}

static bool rank_ok(Call *c, const char *name, uint32_t rank) {
    if (!ok(c)) return false;
    if (rank >= c->r->g->nranks)
        return fail(c, HCCL_E_PARA, "argument '%s' (%u) is not a rank of the communicator (size %u)", name, rank,
                    c->r->g->nranks);
    return true;
}

/* elements * es bytes, or false on overflow. */
static bool bytes_of(Call *c, const char *name, uint64_t elements, size_t es, uint64_t *bytes) {
    if (!ok(c)) return false;
    if (es != 0 && elements > UINT64_MAX / es)
        return fail(c, HCCL_E_PARA, "argument '%s' (%llu elements) overflows the size in bytes", name,
                    (unsigned long long)elements);
    *bytes = elements * es;
    return true;
}

/* [p, p + bytes) must be device memory, aligned to es; recorded as a span of the queued work. */
static bool span(Call *c, const char *name, const void *p, uint64_t bytes, size_t es, int mode) {
    if (!ok(c) || bytes == 0) return ok(c);
    if (p == NULL) return fail(c, HCCL_E_PTR, "argument '%s' is NULL", name);
    if (es > 1 && (uintptr_t)p % es != 0)
        return fail(c, HCCL_E_PARA, "argument '%s' (%p) is not aligned to its %zu-byte elements", name, p, es);
    if (bytes > SIZE_MAX || !aclStubIsDeviceSpan(p, (size_t)bytes)) {
        if (CHECK_ON(CHECK_MEM)) aclStubCheckBadSpan(c->func, name, p, (size_t)bytes);
        return fail(c, HCCL_E_PARA, "argument '%s' [%p, +%llu) is not inside one device memory block (aclrtMalloc); "
                    "host memory, freed memory, or a buffer smaller than the operation needs", name, p,
                    (unsigned long long)bytes);
    }
    c->spans[c->nspans++] = (aclStubCheckSpan){name, p, (size_t)bytes, mode, NULL};
    return true;
}

static bool stream_ok(Call *c, aclrtStream stream) {
    if (!ok(c)) return false;
    if (!aclStubStreamIsLive(stream))
        return fail(c, HCCL_E_PARA, "argument 'stream' (%p) is not a live stream", stream);
    return true;
}

static HcTask *task(Call *c, HcKind kind) {
    if (!ok(c)) return NULL;
    HcTask *t = hc_task_new(c->r, kind);
    if (t == NULL) fail(c, HCCL_E_MEMORY, "out of host memory");
    return t;
}

static HcclResult submit(Call *c, HcTask *t, aclrtStream stream) {
    if (t == NULL) return end(c);
    if (ok(c)) c->ret = hc_submit(c->r, t, stream, c->func, c->spans, c->nspans);
    else hc_task_unref(t);
    return end(c);
}

/* The V variants' counts: 4 arrays of nranks (send counts, send displacements, receive counts, receive
 * displacements), copied from the caller's. */
static bool arrays(Call *c, HcTask *t, const void *a0, const void *a1, const void *a2, const void *a3) {
    if (!ok(c) || t == NULL) return false;
    uint32_t n = c->r->g->nranks;
    t->arrays = calloc((size_t)4 * n, sizeof(uint64_t));
    if (t->arrays == NULL) return fail(c, HCCL_E_MEMORY, "out of host memory");
    const void *src[4] = {a0, a1, a2, a3};
    for (int k = 0; k < 4; k++)
        if (src[k]) memcpy(t->arrays + (size_t)k * n, src[k], n * sizeof(uint64_t));
    return true;
}

/* The extent of the elements a V variant touches: max over i with counts[i] > 0 of displs[i] + counts[i]. */
static bool v_extent(Call *c, const char *cname, const char *dname, const uint64_t *counts, const uint64_t *displs,
                     uint64_t *extent) {
    *extent = 0;
    for (uint32_t i = 0; i < c->r->g->nranks && ok(c); i++) {
        if (counts[i] == 0) continue;
        if (!count_ok(c, cname, counts[i])) return false;
        if (displs[i] > UINT64_MAX - counts[i])
            return fail(c, HCCL_E_PARA, "%s[%u] + %s[%u] overflows", dname, i, cname, i);
        if (displs[i] + counts[i] > *extent) *extent = displs[i] + counts[i];
    }
    return ok(c);
}

/* ---- reductions ------------------------------------------------------------------------------------------------ */

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                         HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclAllReduce";
    if (count == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, stream);
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendBuf);
    CHECK_NULL(f, recvBuf);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    size_t es = hc_dtype_size(dataType);
    uint64_t bytes = 0;
    (void)(count_ok(&c, "count", count) && dtype_ok(&c, "dataType", dataType, true) && op_ok(&c, op, dataType) &&
        bytes_of(&c, "count", count, es, &bytes) && span(&c, "sendBuf", sendBuf, bytes, es, CHECK_READ) &&
        span(&c, "recvBuf", recvBuf, bytes, es, CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_ALLREDUCE);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = sendBuf, .recv = recvBuf,
                         .count = count, .dtype = dataType, .op = op};
    return submit(&c, t, stream);
}

HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                      uint32_t root, HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclReduce";
    if (count == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendBuf);
    CHECK_NULL(f, recvBuf);
    CHECK_NULL(f, stream);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    size_t es = hc_dtype_size(dataType);
    uint64_t bytes = 0;
    bool is_root = c.r->rank == root;
    (void)(count_ok(&c, "count", count) && dtype_ok(&c, "dataType", dataType, true) && op_ok(&c, op, dataType) &&
        rank_ok(&c, "root", root) && bytes_of(&c, "count", count, es, &bytes) &&
        span(&c, "sendBuf", sendBuf, bytes, es, CHECK_READ) &&
        (!is_root || span(&c, "recvBuf", recvBuf, bytes, es, CHECK_WRITE)) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_REDUCE);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = sendBuf, .recv = recvBuf,
                         .count = count, .dtype = dataType, .op = op, .root = root};
    return submit(&c, t, stream);
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                             HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclReduceScatter";
    if (recvCount == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, stream);
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendBuf);
    CHECK_NULL(f, recvBuf);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    size_t es = hc_dtype_size(dataType);
    uint64_t bytes = 0, send_bytes = 0;
    (void)(count_ok(&c, "recvCount", recvCount) && dtype_ok(&c, "dataType", dataType, true) && op_ok(&c, op, dataType) &&
        bytes_of(&c, "recvCount", recvCount, es, &bytes) &&
        bytes_of(&c, "recvCount", bytes, c.r->g->nranks, &send_bytes) &&
        span(&c, "sendBuf", sendBuf, send_bytes, es, CHECK_READ) &&
        span(&c, "recvBuf", recvBuf, bytes, es, CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_REDUCE_SCATTER);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = sendBuf, .recv = recvBuf,
                         .count = recvCount, .dtype = dataType, .op = op};
    return submit(&c, t, stream);
}

HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                              uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                              aclrtStream stream) {
    static const char f[] = "HcclReduceScatterV";
    CHECK_NULL(f, stream);
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendCounts);
    CHECK_NULL(f, sendDispls);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    const uint64_t *counts = sendCounts, *displs = sendDispls;
    size_t es = hc_dtype_size(dataType);
    uint32_t me = c.r->rank;
    uint64_t extent = 0, total = 0, bytes = 0, send_bytes = 0;
    for (uint32_t i = 0; i < c.r->g->nranks; i++) total |= counts[i];
    if (total == 0) { /* every rank sees the same counts: nobody has anything to do */
        hc_release();
        return HCCL_SUCCESS;
    }
    (void)(count_ok(&c, "recvCount", recvCount) && dtype_ok(&c, "dataType", dataType, true) && op_ok(&c, op, dataType) &&
        v_extent(&c, "sendCounts", "sendDispls", counts, displs, &extent));
    if (ok(&c) && recvCount != counts[me])
        fail(&c, HCCL_E_PARA, "argument 'recvCount' (%llu) differs from sendCounts[%u] (%llu), this rank's block",
             (unsigned long long)recvCount, me, (unsigned long long)counts[me]);
    (void)(bytes_of(&c, "recvCount", recvCount, es, &bytes) && bytes_of(&c, "sendCounts", extent, es, &send_bytes) &&
        span(&c, "sendBuf", sendBuf, send_bytes, es, CHECK_READ) &&
        span(&c, "recvBuf", recvBuf, bytes, es, CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_REDUCE_SCATTER_V);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = sendBuf, .recv = recvBuf,
                         .count = recvCount, .dtype = dataType, .op = op};
    arrays(&c, t, counts, displs, NULL, NULL);
    return submit(&c, t, stream);
}

/* ---- data movement ---------------------------------------------------------------------------------------------- */

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                         aclrtStream stream) {
    static const char f[] = "HcclBroadcast";
    if (count == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, comm);
    CHECK_NULL(f, buf);
    CHECK_NULL(f, stream);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    size_t es = hc_dtype_size(dataType);
    uint64_t bytes = 0;
    (void)(rank_ok(&c, "root", root) && count_ok(&c, "count", count) && dtype_ok(&c, "dataType", dataType, false) &&
        bytes_of(&c, "count", count, es, &bytes) &&
        span(&c, "buf", buf, bytes, es, c.r->rank == root ? CHECK_READ : CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_BROADCAST);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = buf, .recv = buf, .count = count,
                         .dtype = dataType, .root = root};
    return submit(&c, t, stream);
}

HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                       HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclScatter";
    if (recvCount == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, comm);
    CHECK_NULL(f, recvBuf);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    bool is_root = c.r->rank == root;
    if (is_root && sendBuf == NULL) {
        hc_release();
        return hc_err(HCCL_E_PTR, "%s: argument 'sendBuf' is NULL on the root rank", f);
    }
    size_t es = hc_dtype_size(dataType);
    uint64_t bytes = 0, send_bytes = 0;
    (void)(rank_ok(&c, "root", root) && count_ok(&c, "recvCount", recvCount) && dtype_ok(&c, "dataType", dataType, false) &&
        bytes_of(&c, "recvCount", recvCount, es, &bytes) &&
        bytes_of(&c, "recvCount", bytes, c.r->g->nranks, &send_bytes) &&
        (!is_root || span(&c, "sendBuf", sendBuf, send_bytes, es, CHECK_READ)) &&
        span(&c, "recvBuf", recvBuf, bytes, es, CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_SCATTER);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = sendBuf, .recv = recvBuf,
                         .count = recvCount, .dtype = dataType, .root = root};
    return submit(&c, t, stream);
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                         aclrtStream stream) {
    static const char f[] = "HcclAllGather";
    if (sendCount == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, stream);
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendBuf);
    CHECK_NULL(f, recvBuf);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    size_t es = hc_dtype_size(dataType);
    uint64_t bytes = 0, recv_bytes = 0;
    (void)(count_ok(&c, "sendCount", sendCount) && dtype_ok(&c, "dataType", dataType, false) &&
        bytes_of(&c, "sendCount", sendCount, es, &bytes) &&
        bytes_of(&c, "sendCount", bytes, c.r->g->nranks, &recv_bytes) &&
        span(&c, "sendBuf", sendBuf, bytes, es, CHECK_READ) &&
        span(&c, "recvBuf", recvBuf, recv_bytes, es, CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_ALLGATHER);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = sendBuf, .recv = recvBuf,
                         .count = sendCount, .dtype = dataType};
    return submit(&c, t, stream);
}

HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                          const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclAllGatherV";
    CHECK_NULL(f, comm);
    CHECK_NULL(f, recvCounts);
    CHECK_NULL(f, recvDispls);
    CHECK_NULL(f, stream);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    const uint64_t *counts = recvCounts, *displs = recvDispls;
    uint64_t total = 0, extent = 0, bytes = 0, recv_bytes = 0;
    for (uint32_t i = 0; i < c.r->g->nranks; i++) total |= counts[i];
    if (total == 0) {
        hc_release();
        return HCCL_SUCCESS;
    }
    size_t es = hc_dtype_size(dataType);
    uint32_t me = c.r->rank;
    (void)(count_ok(&c, "sendCount", sendCount) && dtype_ok(&c, "dataType", dataType, false) &&
        v_extent(&c, "recvCounts", "recvDispls", counts, displs, &extent));
    if (ok(&c) && sendCount != counts[me])
        fail(&c, HCCL_E_PARA, "argument 'sendCount' (%llu) differs from recvCounts[%u] (%llu), this rank's block",
             (unsigned long long)sendCount, me, (unsigned long long)counts[me]);
    (void)(bytes_of(&c, "sendCount", sendCount, es, &bytes) && bytes_of(&c, "recvCounts", extent, es, &recv_bytes) &&
        span(&c, "sendBuf", sendBuf, bytes, es, CHECK_READ) &&
        span(&c, "recvBuf", recvBuf, recv_bytes, es, CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, HC_ALLGATHER_V);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = sendBuf, .recv = recvBuf,
                         .count = sendCount, .dtype = dataType};
    arrays(&c, t, NULL, NULL, counts, displs);
    return submit(&c, t, stream);
}

HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf,
                        uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclAlltoAll";
    if (sendCount == 0 && recvCount == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendBuf);
    CHECK_NULL(f, recvBuf);
    if (sendCount != recvCount)
        return hc_err(HCCL_E_PARA, "%s: argument 'sendCount' (%llu) differs from 'recvCount' (%llu)", f,
                      (unsigned long long)sendCount, (unsigned long long)recvCount);
    if (sendType != recvType)
        return hc_err(HCCL_E_PARA, "%s: argument 'sendType' (%s) differs from 'recvType' (%s)", f,
                      hc_dtype_name(sendType), hc_dtype_name(recvType));
    CHECK_NULL(f, stream);
    if (sendBuf == recvBuf) return hc_err(HCCL_E_PARA, "%s: sendBuf and recvBuf must differ (no in-place all-to-all)", f);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    size_t es = hc_dtype_size(recvType);
    uint64_t bytes = 0, all = 0;
    (void)(count_ok(&c, "recvCount", recvCount) && dtype_ok(&c, "recvType", recvType, false) &&
        bytes_of(&c, "recvCount", recvCount, es, &bytes) && bytes_of(&c, "recvCount", bytes, c.r->g->nranks, &all) &&
        span(&c, "sendBuf", sendBuf, all, es, CHECK_READ) && span(&c, "recvBuf", recvBuf, all, es, CHECK_WRITE) &&
        stream_ok(&c, stream));
    HcTask *t = task(&c, HC_ALLTOALL);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = (void *)sendBuf,
                         .recv = (void *)recvBuf, .count = sendCount, .count2 = recvCount, .dtype = sendType,
                         .rtype = recvType};
    return submit(&c, t, stream);
}

/* Both all-to-all-v entry points once the four arrays are known. */
static HcclResult alltoallv(Call *c, HcKind kind, const void *sendBuf, const uint64_t *sc, const uint64_t *sd,
                            HcclDataType sendType, const void *recvBuf, const uint64_t *rc, const uint64_t *rd,
                            HcclDataType recvType, uint64_t matrix_hash, aclrtStream stream) {
    uint64_t send_extent = 0, recv_extent = 0, send_bytes = 0, recv_bytes = 0, any_send = 0, any_recv = 0;
    uint32_t n = c->r->g->nranks;
    for (uint32_t i = 0; i < n; i++) {
        any_send |= sc[i];
        any_recv |= rc[i];
    }
    if (ok(c) && any_send && sendBuf == NULL) fail(c, HCCL_E_PTR, "argument 'sendBuf' is NULL but sends are not empty");
    if (ok(c) && any_recv && recvBuf == NULL) fail(c, HCCL_E_PTR, "argument 'recvBuf' is NULL but receives are not empty");
    size_t es = hc_dtype_size(recvType);
    (void)(dtype_ok(c, "recvType", recvType, false) && dtype_ok(c, "sendType", sendType, false));
    if (ok(c) && sendType != recvType)
        fail(c, HCCL_E_PARA, "argument 'sendType' (%s) differs from 'recvType' (%s)", hc_dtype_name(sendType),
             hc_dtype_name(recvType));
    (void)(v_extent(c, "sendCounts", "sdispls", sc, sd, &send_extent) &&
        v_extent(c, "recvCounts", "rdispls", rc, rd, &recv_extent) &&
        bytes_of(c, "sendCounts", send_extent, es, &send_bytes) &&
        bytes_of(c, "recvCounts", recv_extent, es, &recv_bytes) &&
        span(c, "sendBuf", sendBuf, send_bytes, es, CHECK_READ) &&
        span(c, "recvBuf", recvBuf, recv_bytes, es, CHECK_WRITE) && stream_ok(c, stream));
    HcTask *t = task(c, kind);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = (void *)sendBuf,
                         .recv = (void *)recvBuf, .dtype = sendType, .rtype = recvType, .matrix_hash = matrix_hash};
    arrays(c, t, sc, sd, rc, rd);
    return submit(c, t, stream);
}

HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls, HcclDataType sendType,
                         const void *recvBuf, const void *recvCounts, const void *rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclAlltoAllV";
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendCounts);
    CHECK_NULL(f, sdispls);
    CHECK_NULL(f, recvCounts);
    CHECK_NULL(f, rdispls);
    CHECK_NULL(f, stream);
    if (sendBuf != NULL && sendBuf == recvBuf)
        return hc_err(HCCL_E_PARA, "%s: sendBuf and recvBuf must differ (no in-place all-to-all)", f);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    return alltoallv(&c, HC_ALLTOALLV, sendBuf, sendCounts, sdispls, sendType, recvBuf, recvCounts, rdispls, recvType,
                     0, stream);
}

HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType, const void *recvBuf,
                          HcclDataType recvType, HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclAlltoAllVC";
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendCountMatrix);
    CHECK_NULL(f, stream);
    if (sendBuf != NULL && sendBuf == recvBuf)
        return hc_err(HCCL_E_PARA, "%s: sendBuf and recvBuf must differ (no in-place all-to-all)", f);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    uint32_t n = c.r->g->nranks, me = c.r->rank;
    const uint64_t *m = sendCountMatrix;
    uint64_t *a = malloc((size_t)4 * n * sizeof *a);
    if (a == NULL) {
        fail(&c, HCCL_E_MEMORY, "out of host memory");
        return end(&c);
    }
    uint64_t *sc = a, *sd = a + n, *rc = a + 2 * (size_t)n, *rd = a + 3 * (size_t)n, hash = 1469598103934665603ull;
    uint64_t so = 0, ro = 0;
    for (uint32_t i = 0; i < n; i++) {
        sc[i] = m[(size_t)me * n + i];
        rc[i] = m[(size_t)i * n + me];
        sd[i] = so;
        rd[i] = ro;
        so += sc[i];
        ro += rc[i];
    }
    for (size_t k = 0; k < (size_t)n * n; k++) hash = (hash ^ m[k]) * 1099511628211ull;
    HcclResult ret = alltoallv(&c, HC_ALLTOALLVC, sendBuf, sc, sd, sendType, recvBuf, rc, rd, recvType, hash, stream);
    free(a);
    return ret;
}

/* ---- barrier ------------------------------------------------------------------------------------------------- */

HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclBarrier";
    CHECK_NULL(f, stream);
    CHECK_NULL(f, comm);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    (void)(stream_ok(&c, stream));
    return submit(&c, task(&c, HC_BARRIER), stream);
}

/* ---- point to point ------------------------------------------------------------------------------------------- */

static HcclResult p2p(const char *f, HcKind kind, void *buf, uint64_t count, HcclDataType dataType, uint32_t peer,
                      HcclComm comm, aclrtStream stream) {
    const char *bname = kind == HC_SEND ? "sendBuf" : "recvBuf", *pname = kind == HC_SEND ? "destRank" : "srcRank";
    if (count == 0) return HCCL_SUCCESS;
    if (comm == NULL) return hc_err(HCCL_E_PTR, "%s: argument 'comm' is NULL", f);
    if (buf == NULL) return hc_err(HCCL_E_PTR, "%s: argument '%s' is NULL", f, bname);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    size_t es = hc_dtype_size(dataType);
    uint64_t bytes = 0;
    (void)(count_ok(&c, "count", count) && dtype_ok(&c, "dataType", dataType, false));
    if (ok(&c) && peer == c.r->rank)
        fail(&c, HCCL_E_NOT_SUPPORT, "argument '%s' (%u) is the calling rank itself", pname, peer);
    (void)(rank_ok(&c, pname, peer) && bytes_of(&c, "count", count, es, &bytes) &&
        span(&c, bname, buf, bytes, es, kind == HC_SEND ? CHECK_READ : CHECK_WRITE) && stream_ok(&c, stream));
    HcTask *t = task(&c, kind);
    if (t) *t = (HcTask){.refs = t->refs, .rank = t->rank, .kind = t->kind, .send = kind == HC_SEND ? buf : NULL,
                         .recv = kind == HC_RECV ? buf : NULL, .count = count, .dtype = dataType, .peer = peer};
    return submit(&c, t, stream);
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                    aclrtStream stream) {
    return p2p("HcclSend", HC_SEND, sendBuf, count, dataType, destRank, comm, stream);
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                    aclrtStream stream) {
    return p2p("HcclRecv", HC_RECV, recvBuf, count, dataType, srcRank, comm, stream);
}

HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm, aclrtStream stream) {
    static const char f[] = "HcclBatchSendRecv";
    if (itemNum == 0) return HCCL_SUCCESS;
    CHECK_NULL(f, stream);
    CHECK_NULL(f, comm);
    CHECK_NULL(f, sendRecvInfo);
    Call c;
    if (!begin(&c, f, comm)) return c.ret;
    if (itemNum > 64u * c.r->g->nranks)
        fail(&c, HCCL_E_PARA, "argument 'itemNum' (%u) exceeds 64 items per rank of the communicator", itemNum);
    aclStubCheckSpan *spans = ok(&c) ? calloc(itemNum, sizeof *spans) : NULL;
    if (ok(&c) && spans == NULL) fail(&c, HCCL_E_MEMORY, "out of host memory");
    size_t nspans = 0;
    for (uint32_t i = 0; i < itemNum && ok(&c); i++) {
        const HcclSendRecvItem *it = &sendRecvInfo[i];
        char what[64];
        snprintf(what, sizeof what, "sendRecvInfo[%u]", i);
        if (it->sendRecvType != HCCL_SEND && it->sendRecvType != HCCL_RECV) {
            fail(&c, HCCL_E_PARA, "%s.sendRecvType (%d) is neither HCCL_SEND nor HCCL_RECV", what,
                 (int)it->sendRecvType);
            break;
        }
        size_t es = hc_dtype_size(it->dataType);
        uint64_t bytes = 0;
        (void)(count_ok(&c, "count", it->count) && dtype_ok(&c, "dataType", it->dataType, false) &&
            rank_ok(&c, "remoteRank", it->remoteRank));
        if (ok(&c) && it->remoteRank == c.r->rank)
            fail(&c, HCCL_E_NOT_SUPPORT, "%s.remoteRank (%u) is the calling rank itself", what, it->remoteRank);
        (void)(bytes_of(&c, "count", it->count, es, &bytes));
        if (ok(&c) && bytes > 0) {
            if (it->buf == NULL) {
                fail(&c, HCCL_E_PTR, "%s.buf is NULL", what);
                break;
            }
            c.nspans = 0;
            if (span(&c, it->sendRecvType == HCCL_SEND ? "sendRecvInfo.buf (send)" : "sendRecvInfo.buf (recv)",
                     it->buf, bytes, es, it->sendRecvType == HCCL_SEND ? CHECK_READ : CHECK_WRITE))
                spans[nspans++] = c.spans[0];
        }
    }
    (void)(stream_ok(&c, stream));
    HcTask *t = task(&c, HC_BATCH);
    if (t) {
        t->items = malloc(itemNum * sizeof *t->items);
        if (t->items == NULL) fail(&c, HCCL_E_MEMORY, "out of host memory");
        else memcpy(t->items, sendRecvInfo, itemNum * sizeof *t->items);
        t->nitems = itemNum;
    }
    if (t && ok(&c)) c.ret = hc_submit(c.r, t, stream, f, spans, nspans);
    else if (t) hc_task_unref(t);
    free(spans);
    return end(&c);
}
