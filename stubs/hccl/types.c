/* Data types, reduction operations and status strings of HCCL, and the settings read from the environment. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hccl_internal.h"

/* ---- data types ---------------------------------------------------------------------------------------- */

static const struct {
    const char *name;
    uint8_t size;
    bool reducible; /* sum, max, min */
    bool prod;      /* prod too */
} DTYPES[] = {
    [HCCL_DATA_TYPE_INT8] = {"INT8", 1, true, true},        [HCCL_DATA_TYPE_INT16] = {"INT16", 2, true, false},
    [HCCL_DATA_TYPE_INT32] = {"INT32", 4, true, true},      [HCCL_DATA_TYPE_FP16] = {"FP16", 2, true, true},
    [HCCL_DATA_TYPE_FP32] = {"FP32", 4, true, true},        [HCCL_DATA_TYPE_INT64] = {"INT64", 8, true, true},
    [HCCL_DATA_TYPE_UINT64] = {"UINT64", 8, true, true},    [HCCL_DATA_TYPE_UINT8] = {"UINT8", 1, false, false},
    [HCCL_DATA_TYPE_UINT16] = {"UINT16", 2, false, false},  [HCCL_DATA_TYPE_UINT32] = {"UINT32", 4, false, false},
    [HCCL_DATA_TYPE_FP64] = {"FP64", 8, true, true},        [HCCL_DATA_TYPE_BFP16] = {"BFP16", 2, true, false},
    [HCCL_DATA_TYPE_INT128] = {"INT128", 16, false, false}, [HCCL_DATA_TYPE_HIF8] = {"HIF8", 1, false, false},
    [HCCL_DATA_TYPE_FP8E4M3] = {"FP8E4M3", 1, false, false}, [HCCL_DATA_TYPE_FP8E5M2] = {"FP8E5M2", 1, false, false},
    [HCCL_DATA_TYPE_FP8E8M0] = {"FP8E8M0", 1, false, false},
};
#define NDTYPES ((int)(sizeof DTYPES / sizeof DTYPES[0]))

const char hc_movable_list[] = "INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64, FP16, FP32, FP64, BFP16, "
                               "HIF8, FP8E4M3, FP8E5M2, FP8E8M0";
const char hc_reducible_list[] = "INT8, INT16, INT32, INT64, UINT64, FP16, FP32, FP64, BFP16";
const char hc_prod_list[] = "INT8, INT32, INT64, UINT64, FP16, FP32, FP64";

size_t hc_dtype_size(int dtype) { return dtype >= 0 && dtype < NDTYPES ? DTYPES[dtype].size : 0; }

const char *hc_dtype_name(int dtype) {
    static __thread char unknown[32];
    if (dtype >= 0 && dtype < NDTYPES && DTYPES[dtype].name) return DTYPES[dtype].name;
    snprintf(unknown, sizeof unknown, "%d", dtype);
    return unknown;
}

bool hc_dtype_movable(int dtype) { return hc_dtype_size(dtype) != 0 && dtype != HCCL_DATA_TYPE_INT128; }
bool hc_dtype_reducible(int dtype) { return hc_dtype_size(dtype) != 0 && DTYPES[dtype].reducible; }
bool hc_prod_supported(int dtype) { return hc_dtype_size(dtype) != 0 && DTYPES[dtype].prod; }
bool hc_op_valid(int op) { return op >= HCCL_REDUCE_SUM && op <= HCCL_REDUCE_MIN; }

const char *hc_op_name(int op) {
    static const char *const names[] = {"SUM", "PROD", "MAX", "MIN"};
    return hc_op_valid(op) ? names[op] : "?";
}

const char *hc_kind_call(HcKind kind) {
    static const char *const calls[HC_KIND_COUNT] = {
        [HC_NONE] = "(nothing)",          [HC_ALLREDUCE] = "HcclAllReduce",
        [HC_BROADCAST] = "HcclBroadcast", [HC_REDUCE_SCATTER] = "HcclReduceScatter",
        [HC_REDUCE_SCATTER_V] = "HcclReduceScatterV", [HC_SCATTER] = "HcclScatter",
        [HC_ALLGATHER] = "HcclAllGather", [HC_ALLGATHER_V] = "HcclAllGatherV",
        [HC_ALLTOALL] = "HcclAlltoAll",   [HC_ALLTOALLV] = "HcclAlltoAllV",
        [HC_ALLTOALLVC] = "HcclAlltoAllVC", [HC_REDUCE] = "HcclReduce",
        [HC_BARRIER] = "HcclBarrier",     [HC_CUSTOM] = "an operator's exchange",
        [HC_SEND] = "HcclSend",           [HC_RECV] = "HcclRecv",
        [HC_BATCH] = "HcclBatchSendRecv",
    };
    return kind < HC_KIND_COUNT && calls[kind] ? calls[kind] : "?";
}

/* ---- status strings ------------------------------------------------------------------------------------ */

const char *HcclGetErrorString(HcclResult code) {
    static const char *const text[] = {
        [HCCL_SUCCESS] = "no error",
        [HCCL_E_PARA] = "parameter error",
        [HCCL_E_PTR] = "empty pointer",
        [HCCL_E_MEMORY] = "memory error",
        [HCCL_E_INTERNAL] = "internal error",
        [HCCL_E_NOT_SUPPORT] = "not support feature",
        [HCCL_E_NOT_FOUND] = "not found specific resource",
        [HCCL_E_UNAVAIL] = "resource unavailable",
        [HCCL_E_SYSCALL] = "call system interface error",
        [HCCL_E_TIMEOUT] = "timeout",
        [HCCL_E_OPEN_FILE_FAILURE] = "open file fail",
        [HCCL_E_TCP_CONNECT] = "tcp connect fail",
        [HCCL_E_ROCE_CONNECT] = "roce connect fail",
        [HCCL_E_TCP_TRANSFER] = "tcp transfer fail",
        [HCCL_E_ROCE_TRANSFER] = "roce transfer fail",
        [HCCL_E_RUNTIME] = "call runtime api fail",
        [HCCL_E_DRV] = "call driver api fail",
        [HCCL_E_PROFILING] = "call profiling api fail",
        [HCCL_E_CCE] = "call cce api fail",
        [HCCL_E_NETWORK] = "call network api fail",
        [HCCL_E_AGAIN] = "try again",
        [HCCL_E_REMOTE] = "error cqe",
        [HCCL_E_SUSPENDING] = "error communicator suspending",
        [HCCL_E_OPRETRY_FAIL] = "retry constraint",
    };
    if ((int)code >= 0 && (size_t)code < sizeof text / sizeof text[0] && text[code] != NULL) return text[code];
    return "unknown error";
}

HcclResult hc_err(HcclResult status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    aclStubSetErrMsgV(fmt, ap);
    va_end(ap);
    return status;
}

/* ---- time and futexes ------------------------------------------------------------------------------------ */

uint64_t hc_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* Shared (not process-private) futexes: the words live in memory other processes map. */
void hc_futex_wait(uint32_t *word, uint32_t seen, uint64_t timeout_ms) {
    struct timespec ts = {(time_t)(timeout_ms / 1000), (long)(timeout_ms % 1000) * 1000000L};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
}

void hc_futex_wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0); }

/* ---- other processes ---------------------------------------------------------------------------------- */

/* Whether process pid still runs: an exited process whose parent has not reaped it yet (a zombie) counts as
 * gone, which kill(pid, 0) cannot tell. */
bool hc_process_alive(int32_t pid) {
    if (pid <= 0) return true;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return kill(pid, 0) == 0 || errno != ESRCH; /* no /proc: ask the kernel directly */
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (close_paren == NULL || close_paren[1] == '\0' || close_paren[2] == '\0') return true;
    char state = close_paren[2];
    return state != 'Z' && state != 'X';
}

/* ---- settings ---------------------------------------------------------------------------------------------- */

#define DEFAULT_EXEC_TIMEOUT_S 1836
#define DEFAULT_CONNECT_TIMEOUT_S 120
#define CONNECT_TIMEOUT_MAX_S 7200
#define CONNECT_TIMEOUT_GRACE_S 20 /* CANN adds 20 s to the configured value to report the failure */

/* A non-negative number with at most two decimals (how HCCL reads HCCL_EXEC_TIMEOUT), in milliseconds. */
static bool parse_seconds(const char *v, uint64_t *ms) {
    const char *p = v;
    uint64_t whole = 0, frac = 0;
    int digits = 0, decimals = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > UINT32_MAX) return false;
    }
    if (digits == 0) return false;
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9' && decimals < 3; p++, decimals++) frac = frac * 10 + (uint64_t)(*p - '0');
        if (decimals == 0 || decimals > 2) return false;
        if (decimals == 1) frac *= 10;
    }
    if (*p != '\0') return false;
    *ms = whole * 1000 + frac * 10;
    return true;
}

static bool parse_uint(const char *v, uint64_t *out) {
    if (v == NULL || *v == '\0') return false;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0' || v[0] == '-') return false;
    *out = n;
    return true;
}

HcclResult hc_read_timeouts(const char *func, uint64_t *exec_ms, uint64_t *connect_ms) {
    const char *v = getenv("HCCL_EXEC_TIMEOUT");
    *exec_ms = (uint64_t)DEFAULT_EXEC_TIMEOUT_S * 1000;
    if (v != NULL && !parse_seconds(v, exec_ms))
        return hc_err(HCCL_E_PARA, "%s: environment variable HCCL_EXEC_TIMEOUT=%s is not a non-negative number of "
                      "seconds with at most 2 decimals", func, v);
    v = getenv("HCCL_CONNECT_TIMEOUT");
    uint64_t s = DEFAULT_CONNECT_TIMEOUT_S;
    if (v != NULL && (!parse_uint(v, &s) || s < DEFAULT_CONNECT_TIMEOUT_S || s > CONNECT_TIMEOUT_MAX_S))
        return hc_err(HCCL_E_PARA, "%s: environment variable HCCL_CONNECT_TIMEOUT=%s must be an integer number of "
                      "seconds in [%d, %d]", func, v, DEFAULT_CONNECT_TIMEOUT_S, CONNECT_TIMEOUT_MAX_S);
    *connect_ms = (s + CONNECT_TIMEOUT_GRACE_S) * 1000;
    /* The stub's own override, for tests that must not wait two minutes for a rank that never comes. */
    uint64_t ms;
    if (parse_uint(getenv("ACLNN_STUB_HCCL_CONNECT_TIMEOUT_MS"), &ms) && ms > 0) *connect_ms = ms;
    return HCCL_SUCCESS;
}

/* Bytes of each rank's staging area in groups that span processes (ACLNN_STUB_HCCL_STAGING_BYTES, default
 * 8 MiB, at least 64 KiB); transfers larger than a rank's share of it take several rounds. */
uint64_t hc_staging_bytes(void) {
    uint64_t n = (uint64_t)8 << 20;
    uint64_t v;
    if (parse_uint(getenv("ACLNN_STUB_HCCL_STAGING_BYTES"), &v)) n = v;
    if (n < ((uint64_t)64 << 10)) n = (uint64_t)64 << 10;
    if (n > ((uint64_t)1 << 34)) n = (uint64_t)1 << 34;
    return (n + 4095) & ~(uint64_t)4095;
}
