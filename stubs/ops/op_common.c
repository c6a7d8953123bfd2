/* Validation helpers and the kernel thread pool. */
#include "op_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *op_dtype_name(aclDataType dtype) {
    switch (dtype) {
    case ACL_FLOAT: return "ACL_FLOAT";
    case ACL_FLOAT16: return "ACL_FLOAT16";
    case ACL_INT8: return "ACL_INT8";
    case ACL_INT32: return "ACL_INT32";
    case ACL_UINT8: return "ACL_UINT8";
    case ACL_INT16: return "ACL_INT16";
    case ACL_UINT16: return "ACL_UINT16";
    case ACL_UINT32: return "ACL_UINT32";
    case ACL_INT64: return "ACL_INT64";
    case ACL_UINT64: return "ACL_UINT64";
    case ACL_DOUBLE: return "ACL_DOUBLE";
    case ACL_BOOL: return "ACL_BOOL";
    case ACL_BF16: return "ACL_BF16";
    default: return "an unsupported data type";
    }
}

aclnnStatus op_fail(const char *op, aclnnStatus status, const char *fmt, ...) {
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    aclStubSetErrMsg("%sGetWorkspaceSize: %s", op, text);
    return status;
}

aclnnStatus op_check_not_null(const char *op, const char *name, const void *ptr) {
    return ptr ? OK : op_fail(op, ACLNN_ERR_PARAM_NULLPTR, "argument '%s' is NULL", name);
}

aclnnStatus op_check_live(const char *op, const char *name, const aclTensor *t) {
    if (t == NULL || aclStubTensorIsLive(t)) return OK;
    return op_fail(op, ACLNN_ERR_PARAM_INVALID, "argument '%s' (%p) is not a live aclTensor", name, (const void *)t);
}

aclnnStatus op_check_int_array_live(const char *op, const char *name, const aclIntArray *a) {
    if (a == NULL || aclStubIntArrayIsLive(a)) return OK;
    return op_fail(op, ACLNN_ERR_PARAM_INVALID, "argument '%s' (%p) is not a live aclIntArray", name, (const void *)a);
}

static bool format_is_nd_like(aclFormat f) {
    /* nnopbase normalises these to ND before matching an ND-only operator. */
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_NCDHW ||
           f == ACL_FORMAT_NCL;
}

aclnnStatus op_check_dtype(const char *op, const char *name, const aclTensor *t, uint64_t dtypes) {
    if (t == NULL) return OK;
    if ((unsigned)t->dtype >= 64 || !(dtypes & DT(t->dtype))) {
        char allowed[256] = "";
        for (int d = 0; d < 64; d++) {
            if (dtypes & DT(d)) {
                strncat(allowed, allowed[0] ? ", " : "", sizeof allowed - strlen(allowed) - 1);
                strncat(allowed, op_dtype_name((aclDataType)d), sizeof allowed - strlen(allowed) - 1);
            }
        }
        return op_fail(op, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s (%d); supported: %s", name,
                       op_dtype_name(t->dtype), (int)t->dtype, allowed);
    }
    if (!format_is_nd_like(t->format))
        return op_fail(op, ACLNN_ERR_PARAM_INVALID, "argument '%s' has format %d; only ND (or NCHW, NHWC, NCDHW, NCL) "
                       "is supported", name, (int)t->format);
    return OK;
}

aclnnStatus op_check_same_dtype(const char *op, const char *name, const aclTensor *t, const char *ref_name,
                                const aclTensor *ref) {
    if (t == NULL || ref == NULL || t->dtype == ref->dtype) return OK;
    return op_fail(op, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s but must match '%s' (%s)", name,
                   op_dtype_name(t->dtype), ref_name, op_dtype_name(ref->dtype));
}

aclnnStatus op_check_contiguous_out(const char *op, const char *name, const aclTensor *t) {
    if (t == NULL) return OK;
    int64_t expect = 1;
    for (uint64_t i = t->ndim; i-- > 0;) {
        if (t->dims[i] != 1 && t->strides[i] != expect && stub_numel(t) != 0)
            return op_fail(op, ACLNN_ERR_PARAM_INVALID, "output '%s' is not contiguous (dimension %llu has stride "
                           "%lld, row-major needs %lld); non-contiguous outputs are not supported", name,
                           (unsigned long long)i, (long long)t->strides[i], (long long)expect);
        if (__builtin_mul_overflow(expect, t->dims[i], &expect)) break; /* larger than any buffer anyway */
    }
    return OK;
}

aclnnStatus op_check_dims_non_negative(const char *op, const char *name, const aclTensor *t, aclnnStatus status) {
    if (t == NULL) return OK;
    for (uint64_t i = 0; i < t->ndim; i++)
        if (t->dims[i] < 0)
            return op_fail(op, status, "argument '%s' has a negative dimension (%lld at %llu)", name,
                           (long long)t->dims[i], (unsigned long long)i);
    return OK;
}

/* ---- thread pool ------------------------------------------------------------------------------------ */

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
    op_range_fn fn;
    void *ctx;
    int64_t n, chunk;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
          0, 0, 0, 0, 0, NULL, NULL, 0, 0};

static int default_threads(void) {
    const char *env = getenv("ACLNN_STUB_NUM_THREADS");
    long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void run_chunk(op_range_fn fn, void *ctx, int64_t n, int64_t chunk, int index) {
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
        op_range_fn fn = pool.fn;
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

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void) { pthread_atfork(NULL, NULL, reset_after_fork); }

int op_num_threads(void) {
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

void op_parallel_for(int64_t n, int64_t min_chunk, op_range_fn fn, void *ctx) {
    if (n <= 0) return;
    int threads = op_num_threads();
    if (min_chunk < 1) min_chunk = 1;
    int64_t useful = (n + min_chunk - 1) / min_chunk;
    if (useful < threads) threads = (int)useful;
    if (threads <= 1 || pthread_mutex_trylock(&pool.busy) != 0) {
        fn(ctx, 0, n);
        return;
    }
    pthread_once(&atfork_once, install_atfork);
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

aclnnStatus op_finish(const char *op, aclStubRunFn run, void *state, size_t state_size,
                      const aclStubTensorRef *tensors, size_t num_tensors, uint64_t *workspace_size,
                      aclOpExecutor **executor) {
    aclOpExecutor *ex = run ? aclStubExecutorCreate(op, run, state, state_size, tensors, num_tensors)
                            : aclStubExecutorCreateEmpty(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    *workspace_size = 0;
    *executor = ex;
    return OK;
}
