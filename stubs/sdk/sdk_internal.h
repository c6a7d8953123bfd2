/* The executor of the operator SDK: one allocation holding everything phase 2 and the kernel read. */
#ifndef ACLNN_STUB_SDK_INTERNAL_H_
#define ACLNN_STUB_SDK_INTERNAL_H_

#include "handle_table.h"
#include "stub_internal.h"

#define SDK_MAX_PARAMS 48

/*
 * Private: callers hold a token (handle_table.h). Layout of the allocation: this header, then handles[n],
 * values[n], the tensor descriptions, the array values, the strings, and the plan. Every internal pointer
 * points into the same allocation, so a copy is made valid by sdk_block_rebase.
 */
struct aclOpExecutor {
    const aclStubOpDef *op;
    int repeatable; /* read and written atomically: aclSetAclOpExecutorRepeatable runs under a read lock */
    bool nothing_to_do;
    uint64_t workspace_size; /* what phase 2 must be given */
    size_t bytes;            /* of the whole allocation (its contents) */
    size_t capacity;         /* what the block holds: its pool class (sdk_executor_alloc) */
    bool waits_for_peers;    /* aclStubOpWaitsForPeers: phase 2 always queues the kernel for a stream worker */
    const void **handles;    /* per parameter: the token phase 2 checks again, or NULL */
    const void *const **elems; /* per tensor-list parameter: its element tokens (NULL entries allowed) */
    aclStubValue *values;    /* per parameter */
    aclStubOpCall call;      /* call.v == values */
    struct SdkScratch *scratch; /* while the kernel runs: its aclStubKernelScratch blocks */
    const void *check_site;     /* check mode: the call site that queued the kernel (NULL: not checking) */
    max_align_t storage[];
};

extern HandleTable sdk_executors;

static inline size_t align_up(size_t n) {
    return (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
}

/* Tensor roles: single tensors (inputs, outputs, in-place). */
static inline bool sdk_role_is_tensor(aclStubRole r) {
    return r == ACLSTUB_INPUT || r == ACLSTUB_OPTIONAL_INPUT || r == ACLSTUB_OUTPUT || r == ACLSTUB_OPTIONAL_OUTPUT ||
           r == ACLSTUB_INPLACE;
}
static inline bool sdk_role_writes(aclStubRole r) {
    return r == ACLSTUB_OUTPUT || r == ACLSTUB_OPTIONAL_OUTPUT || r == ACLSTUB_INPLACE || r == ACLSTUB_OUTPUT_LIST;
}

/* Lists and arrays (sdk/lists.c). Phase 1: the number of entries of list parameter i (handle h) and the bytes
 * each entry's snapshot takes; then the snapshot into *cursor (advanced), with a tensor list's element tokens
 * stored at *elems. 161002 for a handle or element that is not live. */
aclnnStatus sdk_list_size(const aclStubOpCall *msg, size_t i, const void *h, uint64_t *size, size_t *each);
aclnnStatus sdk_list_copy(const aclStubOpCall *msg, size_t i, const void *h, aclStubValue *v, char **cursor,
                          const void *const **elems);
/* Phase 2: list parameter i of the executor is still what phase 1 saw (tensor entries re-described with today's
 * data addresses, their bytes inside device blocks). */
aclnnStatus sdk_list_recheck(aclOpExecutor *w, size_t i);
/* The tensor behind token, as phase 1 saw it but with today's data pointer; its bytes inside one device block. */
aclnnStatus sdk_recheck_tensor(const char *op, const char *name, const void *token, aclStubTensorDesc *desc);

/* A copy of executor ex (the caller holds it, e.g. under the table's read lock); NULL when out of memory. */
aclOpExecutor *sdk_block_copy(const aclOpExecutor *ex);

/* Executor blocks: `bytes` zeroed bytes with ->capacity set, from a pool of blocks freed earlier (a call's snapshot
 * allocates nothing in steady state), and back to it; NULL when out of memory. The pool recycles memory, never
 * handles: every executor gets a new token (handle_table.h). sdk_executor_free takes NULL, and suits a work
 * item's release. */
aclOpExecutor *sdk_executor_alloc(size_t bytes);
void sdk_executor_free(void *ex);

/* Record "<fmt>" as the calling thread's error message and return status (no operator prefix). */
aclnnStatus sdk_fail(aclnnStatus status, const char *fmt, ...) STUB_PRINTF(2, 3);

/*
 * The BLAS (blas.c): OpenBLAS of the scipy-openblas32 wheel (32-bit integers, every symbol prefixed scipy_),
 * opened on first use. sdk_blas: its functions, or NULL with *error (when error is not NULL) saying why it could
 * not be loaded. X(return type, name without the prefix, parameters).
 */
#define ACLSTUB_BLAS_FUNCTIONS(X)                                                                                     \
    X(void, openblas_set_num_threads, (int n))                                                                        \
    X(void, cblas_sgemm, (int order, int transa, int transb, int m, int n, int k, float alpha, const float *a,         \
                          int lda, const float *b, int ldb, float beta, float *c, int ldc))                           \
    X(void, cblas_sgemv, (int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x,   \
                          int incx, float beta, float *y, int incy))                                                  \
    X(void, cblas_dgemv, (int order, int trans, int m, int n, double alpha, const double *a, int lda,                \
                          const double *x, int incx, double beta, double *y, int incy))                               \
    X(void, cblas_dgemm, (int order, int transa, int transb, int m, int n, int k, double alpha, const double *a,      \
                          int lda, const double *b, int ldb, double beta, double *c, int ldc))                        \
    X(void, dpotrf_, (const char *uplo, const int *n, double *a, const int *lda, int *info, size_t))                  \
    X(void, zpotrf_, (const char *uplo, const int *n, double *a, const int *lda, int *info, size_t))                  \
    X(void, dgetrf_, (const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info))                   \
    X(void, zgetrf_, (const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info))                   \
    X(void, dgetri_, (const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork,       \
                      int *info))                                                                                     \
    X(void, zgetri_, (const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork,       \
                      int *info))                                                                                     \
    X(void, dgeqrf_, (const int *m, const int *n, double *a, const int *lda, double *tau, double *work,               \
                      const int *lwork, int *info))                                                                   \
    X(void, zgeqrf_, (const int *m, const int *n, double *a, const int *lda, double *tau, double *work,               \
                      const int *lwork, int *info))                                                                   \
    X(void, dorgqr_, (const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,         \
                      double *work, const int *lwork, int *info))                                                     \
    X(void, zungqr_, (const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,         \
                      double *work, const int *lwork, int *info))                                                     \
    X(void, dgesdd_, (const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,  \
                      const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork,        \
                      int *info, size_t))                                                                             \
    X(void, zgesdd_, (const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,  \
                      const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, double *rwork,     \
                      int *iwork, int *info, size_t))                                                                 \
    X(void, dtrsm_, (const char *side, const char *uplo, const char *transa, const char *diag, const int *m,          \
                     const int *n, const double *alpha, const double *a, const int *lda, double *b, const int *ldb,   \
                     size_t, size_t, size_t, size_t))                                                                 \
    X(void, ztrsm_, (const char *side, const char *uplo, const char *transa, const char *diag, const int *m,          \
                     const int *n, const double *alpha, const double *a, const int *lda, double *b, const int *ldb,   \
                     size_t, size_t, size_t, size_t))
typedef struct {
#define ACLSTUB_BLAS_MEMBER(ret, name, params) ret(*name) params;
    ACLSTUB_BLAS_FUNCTIONS(ACLSTUB_BLAS_MEMBER)
#undef ACLSTUB_BLAS_MEMBER
} aclStubBlasApi;
const aclStubBlasApi *sdk_blas(const char **error);

/* What is wrong with an operator's table (the text, in why or a literal), or NULL when it is complete and
 * consistent: every parameter named, with a known and supported role, every same-dtype rule naming a tensor. */
const char *sdk_table_problem(const aclStubOpDef *op, char *why, size_t cap);

/* The bytes a FRACTAL_NZ view spans (its whole storage, aclstub/op_nz.h); false when t is not NZ. */
bool sdk_nz_byte_range(const aclStubTensorDesc *t, int64_t *lo, int64_t *hi);

/* ND-like formats: nnopbase normalises them to ND before matching an ND-only operator. */
bool sdk_format_is_nd_like(aclFormat format);

/* Byte range [*lo, *hi) that a non-empty view addresses relative to its data (INT4: two elements to a byte, the
 * even one in the low half); false on overflow. */
bool sdk_view_byte_range(const aclStubTensorDesc *t, int64_t *lo, int64_t *hi);

/* Generic rules of tensor parameter i (NULL tensors pass): dtype set, ND-like format and same-dtype;
 * contiguity of outputs; the table's rank rule. */
aclnnStatus sdk_check_dtypes(const aclStubOpCall *call, int i);
aclnnStatus sdk_check_layout(const aclStubOpCall *call, int i);
aclnnStatus sdk_check_rank(const aclStubOpCall *call, int i);

#endif /* ACLNN_STUB_SDK_INTERNAL_H_ */
