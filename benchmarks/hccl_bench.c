/*
 * Collectives on the stub, timed like nccl-tests: every rank runs WARMUP then ITERS operations, each followed by a
 * stream synchronisation; the time of an operation is the slowest rank's average. A single-thread memcpy of the same
 * bytes is timed in the same run, in interleaved rounds, as the reference. Results are checked (#wrong).
 *
 * Usage: hccl_bench RANKS threads|procs OP MIN_BYTES MAX_BYTES ITERS ROUNDS
 * OP: allreduce allgather reducescatter broadcast reduce alltoall alltoallv sendrecv
 * Prints one line per size and round: "OP BYTES COUNT TIME_US MEMCPY_US WRONG".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hccl/hccl.h"

static int nranks, iters, rounds;
static const char *op_name;
static HcclRootInfo root;
static HcclComm *init_all_comms;
static double *times;   /* [rank]: seconds per operation, shared across processes in procs mode */
static long *wrong;     /* [rank] */
static pthread_barrier_t thread_barrier;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        int s_ = (x);                                                                             \
        if (s_) {                                                                                 \
            fprintf(stderr, "%s failed (%d): %s\n", #x, s_, aclGetRecentErrMsg());                \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

/* What the operation sends and receives, in float32 elements per rank for `bytes` (nccl-tests' size). */
static void shape(size_t bytes, size_t *count, size_t *send_elems, size_t *recv_elems) {
    size_t n = (size_t)nranks, c = bytes / 4;
    if (!strcmp(op_name, "allgather") || !strcmp(op_name, "alltoall") || !strcmp(op_name, "alltoallv")) c /= n;
    if (!strcmp(op_name, "reducescatter")) c /= n;
    *count = c;
    *send_elems = *recv_elems = c;
    if (!strcmp(op_name, "allgather")) *recv_elems = c * n;
    if (!strcmp(op_name, "reducescatter")) *send_elems = c * n;
    if (!strcmp(op_name, "alltoall") || !strcmp(op_name, "alltoallv")) *send_elems = *recv_elems = c * n;
}

static void run_op(HcclComm comm, int rank, void *send, void *recv, size_t count, aclrtStream s, uint64_t *counts,
                   uint64_t *displs) {
    int n = nranks;
    if (!strcmp(op_name, "allreduce")) CHECK(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s));
    else if (!strcmp(op_name, "allgather")) CHECK(HcclAllGather(send, recv, count, HCCL_DATA_TYPE_FP32, comm, s));
    else if (!strcmp(op_name, "reducescatter"))
        CHECK(HcclReduceScatter(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s));
    else if (!strcmp(op_name, "broadcast")) CHECK(HcclBroadcast(recv, count, HCCL_DATA_TYPE_FP32, 0, comm, s));
    else if (!strcmp(op_name, "reduce")) CHECK(HcclReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, comm, s));
    else if (!strcmp(op_name, "alltoall"))
        CHECK(HcclAlltoAll(send, count, HCCL_DATA_TYPE_FP32, recv, count, HCCL_DATA_TYPE_FP32, comm, s));
    else if (!strcmp(op_name, "alltoallv"))
        CHECK(HcclAlltoAllV(send, counts, displs, HCCL_DATA_TYPE_FP32, recv, counts, displs, HCCL_DATA_TYPE_FP32, comm, s));
    else if (!strcmp(op_name, "sendrecv")) {
        HcclSendRecvItem items[2] = {{HCCL_SEND, send, count, HCCL_DATA_TYPE_FP32, (uint32_t)((rank + 1) % n)},
                                     {HCCL_RECV, recv, count, HCCL_DATA_TYPE_FP32, (uint32_t)((rank + n - 1) % n)}};
        CHECK(HcclBatchSendRecv(items, 2, comm, s));
    } else {
        fprintf(stderr, "unknown operation %s\n", op_name);
        exit(2);
    }
}

/* What element i of rank `rank`'s result must be (inputs: rank r's element j is (j % 7) + r). */
static float expected(int rank, size_t i, size_t count) {
    int n = nranks;
    float base_sum = 0;
    for (int r = 0; r < n; r++) base_sum += (float)r;
    if (!strcmp(op_name, "allreduce") || (!strcmp(op_name, "reduce") && rank == 0))
        return (float)(i % 7) * (float)n + base_sum;
    if (!strcmp(op_name, "reduce")) return -1; /* untouched */
    if (!strcmp(op_name, "allgather")) return (float)((i % count) % 7) + (float)(i / count);
    if (!strcmp(op_name, "reducescatter")) return (float)((rank * count + i) % 7) * (float)n + base_sum;
    if (!strcmp(op_name, "broadcast")) return (float)(i % 7);
    if (!strcmp(op_name, "alltoall") || !strcmp(op_name, "alltoallv"))
        return (float)((rank * count + i % count) % 7) + (float)(i / count);
    return (float)(i % 7) + (float)((rank + n - 1) % n); /* sendrecv */
}

static void sync_ranks(void) {
    if (init_all_comms) pthread_barrier_wait(&thread_barrier);
}

static void rank_main(int rank, size_t min_bytes, size_t max_bytes) {
    CHECK(aclrtSetDevice(init_all_comms ? rank : 0));
    HcclComm comm;
    if (init_all_comms)
        comm = init_all_comms[rank];
    else
        CHECK(HcclCommInitRootInfo((uint32_t)nranks, &root, (uint32_t)rank, &comm));
    aclrtStream s;
    CHECK(aclrtCreateStream(&s));
    size_t c_max, se_max, re_max;
    shape(max_bytes, &c_max, &se_max, &re_max);
    void *send, *recv;
    CHECK(aclrtMalloc(&send, se_max * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&recv, re_max * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST));
    float *host = malloc((se_max > re_max ? se_max : re_max) * 4 + 64);
    uint64_t *counts = calloc((size_t)nranks, sizeof *counts), *displs = calloc((size_t)nranks, sizeof *displs);
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
        size_t count, se, re;
        shape(bytes, &count, &se, &re);
        for (int j = 0; j < nranks; j++) {
            counts[j] = count;
            displs[j] = (uint64_t)j * count;
        }
        for (size_t i = 0; i < se; i++) host[i] = (float)(i % 7) + (float)rank;
        if (!strcmp(op_name, "broadcast"))
            for (size_t i = 0; i < re; i++) host[i] = rank == 0 ? (float)(i % 7) : -2.0f;
        CHECK(aclrtMemcpy(!strcmp(op_name, "broadcast") ? recv : send, (se > re ? se : re) * 4, host,
                          (!strcmp(op_name, "broadcast") ? re : se) * 4, ACL_MEMCPY_HOST_TO_DEVICE));
        if (!strcmp(op_name, "reduce") && rank != 0) {
            for (size_t i = 0; i < re; i++) host[i] = -1.0f;
            CHECK(aclrtMemcpy(recv, re * 4, host, re * 4, ACL_MEMCPY_HOST_TO_DEVICE));
        }
        int n_iters = bytes >= ((size_t)16 << 20) ? (iters + 3) / 4 : iters;
        for (int round = 0; round < rounds; round++) {
            run_op(comm, rank, send, recv, count, s, counts, displs); /* warm-up: pages, engines */
            CHECK(aclrtSynchronizeStream(s));
            CHECK(HcclBarrier(comm, s));
            CHECK(aclrtSynchronizeStream(s));
            double t0 = now();
            for (int it = 0; it < n_iters; it++) {
                run_op(comm, rank, send, recv, count, s, counts, displs);
                CHECK(aclrtSynchronizeStream(s));
            }
            times[rank] = (now() - t0) / n_iters;
            CHECK(aclrtMemcpy(host, re * 4, recv, re * 4, ACL_MEMCPY_DEVICE_TO_HOST));
            long bad = 0;
            for (size_t i = 0; i < re; i++) bad += host[i] != expected(rank, i, count);
            wrong[rank] = bad;
            CHECK(HcclBarrier(comm, s)); /* every rank has written its time */
            CHECK(aclrtSynchronizeStream(s));
            if (rank == 0) {
                double t = 0;
                long w = 0;
                for (int r = 0; r < nranks; r++) {
                    if (times[r] > t) t = times[r];
                    w += wrong[r];
                }
                /* the reference: one thread copying the bytes one rank sends, while the ranks wait */
                size_t mb = bytes;
                char *a = malloc(mb), *b = malloc(mb);
                memset(a, 1, mb);
                memset(b, 2, mb);
                memcpy(b, a, mb);
                double m0 = now();
                for (int it = 0; it < n_iters; it++) memcpy(b, a, mb);
                double mt = (now() - m0) / n_iters;
                if (b[mb / 2] != 1) w++;
                free(a);
                free(b);
                printf("%s %zu %zu %.3f %.3f %ld\n", op_name, bytes, count, t * 1e6, mt * 1e6, w);
                fflush(stdout);
            }
            sync_ranks();
            CHECK(HcclBarrier(comm, s));
            CHECK(aclrtSynchronizeStream(s));
        }
    }
    free(host);
    free(counts);
    free(displs);
    CHECK(aclrtFree(send));
    CHECK(aclrtFree(recv));
    CHECK(aclrtDestroyStream(s));
    CHECK(HcclCommDestroy(comm));
}

typedef struct {
    int rank;
    size_t lo, hi;
} Arg;

static void *thread_main(void *p) {
    Arg *a = p;
    rank_main(a->rank, a->lo, a->hi);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s RANKS threads|procs OP MIN_BYTES MAX_BYTES ITERS ROUNDS\n", argv[0]);
        return 2;
    }
    nranks = atoi(argv[1]);
    bool threads = !strcmp(argv[2], "threads");
    op_name = argv[3];
    size_t lo = strtoull(argv[4], NULL, 10), hi = strtoull(argv[5], NULL, 10);
    iters = atoi(argv[6]);
    rounds = atoi(argv[7]);
    times = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    wrong = (long *)(times + 256);
    if (threads) {
        CHECK(aclInit(NULL));
        int32_t devices[256];
        for (int i = 0; i < nranks; i++) devices[i] = i;
        init_all_comms = calloc((size_t)nranks, sizeof *init_all_comms);
        CHECK(HcclCommInitAll((uint32_t)nranks, devices, init_all_comms));
        pthread_barrier_init(&thread_barrier, NULL, (unsigned)nranks);
        pthread_t tids[256];
        Arg args[256];
        for (int r = 0; r < nranks; r++) {
            args[r] = (Arg){r, lo, hi};
            pthread_create(&tids[r], NULL, thread_main, &args[r]);
        }
        for (int r = 0; r < nranks; r++) pthread_join(tids[r], NULL);
        CHECK(aclFinalize());
        return 0;
    }
    CHECK(HcclGetRootInfo(&root));
    for (int r = 0; r < nranks; r++)
        if (fork() == 0) {
            CHECK(aclInit(NULL));
            rank_main(r, lo, hi);
            CHECK(aclFinalize());
            fflush(stdout);
            _exit(0);
        }
    int failed = 0, status;
    for (int r = 0; r < nranks; r++) {
        wait(&status);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    return failed;
}
