/*
 * The kernel thread pool: aclStubParallelFor splits [0, n) into one contiguous chunk per thread, so results
 * never depend on the thread count. Workers are started on first use and do not survive fork(): a child
 * starts with no workers (and fresh locks) and spawns its own.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "stub_internal.h"

#define MAX_THREADS 256

static struct {
    pthread_mutex_t lock;      /* guards the fields below */
    pthread_cond_t wake, done;
    pthread_mutex_t busy;      /* held by the caller of a parallel region */
    int threads;               /* threads in force, including the caller; 0 = not yet decided */
    int active;                /* threads taking part in the current region, including the caller */
    int started;               /* worker threads running */
    uint64_t generation;
    int pending;
    aclStubRangeFn fn;
    void *ctx;
    int64_t n, chunk;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
          0, 0, 0, 0, 0, NULL, NULL, 0, 0};

static int default_threads(void) {
    const char *env = getenv("ACLNN_STUB_NUM_THREADS");
    long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void run_chunk(aclStubRangeFn fn, void *ctx, int64_t n, int64_t chunk, int index) {
    int64_t begin = (int64_t)index * chunk, end = begin + chunk < n ? begin + chunk : n;
    if (begin < end) fn(ctx, begin, end);
}

static void *worker(void *arg) {
    int index = (int)(intptr_t)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.generation;
        if (index >= pool.active) continue; /* not needed in this region */
        aclStubRangeFn fn = pool.fn;
        void *ctx = pool.ctx;
        int64_t n = pool.n, chunk = pool.chunk;
        pthread_mutex_unlock(&pool.lock);
        run_chunk(fn, ctx, n, chunk, index);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* Threads do not survive fork(): a child starts with no workers and spawns its own on first use. */
static void reset_after_fork(void) {
    pthread_mutex_init(&pool.lock, NULL);
    pthread_mutex_init(&pool.busy, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.started = 0;
    pool.pending = 0;
}

__attribute__((constructor)) static void install_fork_handler(void) { pthread_atfork(NULL, NULL, reset_after_fork); }

int aclStubNumThreads(void) {
    int n = __atomic_load_n(&pool.threads, __ATOMIC_ACQUIRE); /* no lock on the per-call path */
    if (n > 0) return n;
    pthread_mutex_lock(&pool.lock);
    if (pool.threads == 0) pool.threads = default_threads();
    n = pool.threads;
    pthread_mutex_unlock(&pool.lock);
    return n;
}

int32_t aclStubSetNumThreads(int32_t n) {
    pthread_mutex_lock(&pool.busy); /* never change the count under a running region */
    pthread_mutex_lock(&pool.lock);
    __atomic_store_n(&pool.threads, n > 0 ? (n > MAX_THREADS ? MAX_THREADS : n) : default_threads(), __ATOMIC_RELEASE);
    n = pool.threads;
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.busy);
    return n;
}

void aclStubParallelFor(int64_t n, int64_t min_chunk, aclStubRangeFn fn, void *ctx) {
    if (n <= 0) return;
    int threads = aclStubNumThreads();
    if (min_chunk < 1) min_chunk = 1;
    int64_t useful = (n + min_chunk - 1) / min_chunk;
    if (useful < threads) threads = (int)useful;
    if (threads <= 1 || pthread_mutex_trylock(&pool.busy) != 0) {
        fn(ctx, 0, n);
        return;
    }
    pthread_mutex_lock(&pool.lock);
    while (pool.started < threads - 1) {
        pthread_t tid;
        if (pthread_create(&tid, NULL, worker, (void *)(intptr_t)(pool.started + 1)) != 0) break;
        pthread_detach(tid);
        pool.started++;
    }
    if (threads - 1 > pool.started) threads = pool.started + 1;
    int64_t chunk = (n + threads - 1) / threads;
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    pool.chunk = chunk;
    pool.active = threads;
    pool.pending = threads - 1;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    run_chunk(fn, ctx, n, chunk, 0);

    pthread_mutex_lock(&pool.lock);
    while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.busy);
}
