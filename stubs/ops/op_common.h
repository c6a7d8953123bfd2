/*
 * What every operator of the stub shares: argument validation that records a message naming the
 * operator, the argument and the rule; strided element access; the thread pool; row kernels.
 */
#ifndef ACLNN_STUB_OP_COMMON_H_
#define ACLNN_STUB_OP_COMMON_H_

#include <string.h>

#include "tensor_util.h"

/* Sets of data types as bit masks (every aclDataType value of interest is below 64). */
#define DT(x) (UINT64_C(1) << (x))
#define DT_FLOATS (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16))
#define DT_INDEX (DT(ACL_INT32) | DT(ACL_INT64))

const char *op_dtype_name(aclDataType dtype);

/* Return from the enclosing function when a check fails. */
#define OP_TRY(expr)                    \
    do {                                \
        aclnnStatus op_try_ = (expr);   \
        if (op_try_ != OK) return op_try_; \
    } while (0)

/* Phase-1 epilogue: publish a zero workspace and an executor (NULL run: nothing to do). */
aclnnStatus op_finish(const char *op, aclStubRunFn run, void *state, size_t state_size,
                      const aclStubTensorRef *tensors, size_t num_tensors, uint64_t *workspace_size,
                      aclOpExecutor **executor);

/* Record "<op>GetWorkspaceSize: <message>" and return status. */
aclnnStatus op_fail(const char *op, aclnnStatus status, const char *fmt, ...) STUB_PRINTF(3, 4);

/* 161001 when ptr is NULL. */
aclnnStatus op_check_not_null(const char *op, const char *name, const void *ptr);
/* 161002 when the tensor is not live (destroyed, or not a tensor at all). NULL passes. */
aclnnStatus op_check_live(const char *op, const char *name, const aclTensor *t);
/* 161002 when the int array is not live. NULL passes. */
aclnnStatus op_check_int_array_live(const char *op, const char *name, const aclIntArray *a);
/* 161002 unless the dtype is in the set and the format is ND-like. NULL passes. */
aclnnStatus op_check_dtype(const char *op, const char *name, const aclTensor *t, uint64_t dtypes);
/* 161002 unless both tensors have the same dtype (either NULL passes). */
aclnnStatus op_check_same_dtype(const char *op, const char *name, const aclTensor *t, const char *ref_name,
                                const aclTensor *ref);
/* 161002 unless the output is row-major contiguous (dimensions of size 1 ignored). NULL passes. */
aclnnStatus op_check_contiguous_out(const char *op, const char *name, const aclTensor *t);
/* 561002 when any dimension is negative. NULL passes. */
aclnnStatus op_check_dims_non_negative(const char *op, const char *name, const aclTensor *t, aclnnStatus status);

/* Element pointer of a view at a flat row-major index of a 1-D view, or at (i, j) of a 2-D view. */
static inline void *op_elem1(const aclTensor *t, int64_t i) {
    return (char *)t->data + (t->offset + i * t->strides[0]) * (int64_t)aclDataTypeSize(t->dtype);
}
static inline void *op_elem2(const aclTensor *t, int64_t i, int64_t j) {
    return (char *)t->data +
           (t->offset + i * t->strides[0] + j * t->strides[1]) * (int64_t)aclDataTypeSize(t->dtype);
}

/* Integer element i of a 1-D INT32/INT64 view. */
static inline int64_t op_index1(const aclTensor *t, int64_t i) {
    const void *p = op_elem1(t, i);
    return t->dtype == ACL_INT64 ? *(const int64_t *)p : *(const int32_t *)p;
}

/* Element i of a 1-D view, or of the row-major flattening of a 2-D (rows, k) view (e.g. top-k indices). */
static inline void *op_elem_flat(const aclTensor *t, int64_t i, int64_t k) {
    return t->ndim == 1 ? op_elem1(t, i) : op_elem2(t, i / k, i % k);
}
static inline int64_t op_index_flat(const aclTensor *t, int64_t i, int64_t k) {
    const void *p = op_elem_flat(t, i, k);
    return t->dtype == ACL_INT64 ? *(const int64_t *)p : *(const int32_t *)p;
}

/*
 * Run fn(ctx, begin, end) over [0, n) split into contiguous chunks, one per thread. Chunks are fixed by n
 * and the thread count only, and every item must be computed independently, so results do not depend on
 * the thread count. Concurrent calls from several user threads are serialised onto the caller.
 */
typedef void (*op_range_fn)(void *ctx, int64_t begin, int64_t end);
void op_parallel_for(int64_t n, int64_t min_chunk, op_range_fn fn, void *ctx);
int op_num_threads(void);

/* ---- row kernels (row_kernels.c): vectorised for the host CPU chosen at run time ---- */

/* dst[h] = float(src[h]) */
void row_load_f32(float *dst, const void *src, aclDataType dtype, int64_t n);
/* dst[h] += float(src[h]) */
void row_add_f32(float *dst, const void *src, aclDataType dtype, int64_t n);
/* dst[h] = dst[h] + 0.0f: turns -0.0 into +0.0, as adding an all-zero row does */
void row_add_zero_f32(float *dst, int64_t n);
/* dst[h] = narrow(src[h]) with round-to-nearest-even */
void row_store_f32(void *dst, const float *src, aclDataType dtype, int64_t n);

/* Scalar conversions with the device's rounding (abi.md 7.2). */
static inline float op_bf16_to_f32(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t op_f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/*
 * Gather-and-sum, the core of every backward operator:
 *   out[t] = narrow( combine over k in [0, K) of src[idx[t*K + k] - base] )
 * where an index d is valid when lo <= d < hi. How the terms combine is the only difference between the
 * operators (it decides the sign of zero sums), see GatherSumInit.
 */
typedef enum {
    GATHER_COPY_FIRST_SKIP,     /* acc = first term if valid else +0; invalid later terms are skipped */
    GATHER_COPY_FIRST_ADD_ZERO, /* acc = first term if valid else +0; invalid later terms add +0.0 */
    GATHER_ZERO_INIT,           /* acc = +0, then every valid term is added */
} GatherSumInit;

typedef struct {
    const aclTensor *src; /* 2-D view (rows, H), or 3-D (E, C, H) read as E*C rows */
    const aclTensor *idx; /* 1-D INT32 view of N*K indices */
    aclTensor *out;       /* contiguous (N, H) */
    int64_t k;
    int64_t lo, hi;       /* valid indices: lo <= d < hi; row = d - lo */
    GatherSumInit init;
} GatherSum;

void op_gather_sum(const GatherSum *g);

/*
 * Row gather, the core of every forward operator: for j in [0, m), output row (out_row0 + j) of `out`
 * (a contiguous view of rows of C elements, C = product of its trailing dimensions) becomes an exact copy
 * of row src_rows[j] of `src` (a view of any rank, its rows being the elements of src[r, ...] in row-major
 * order, read through its strides). src_rows[j] == OP_ROW_ZERO writes a row of zero bytes and
 * OP_ROW_KEEP leaves the output row untouched. Indices are trusted: callers validate them.
 */
#define OP_ROW_ZERO (-1)

/*
 * Outputs at least this large are written with non-temporal stores: they would not stay in cache anyway,
 * and bypassing it saves the read-for-ownership of every destination line (about a third of the traffic).
 */
#define OP_STREAM_MIN_BYTES ((int64_t)32 << 20)
/* memcpy, with non-temporal stores when stream is set; a region that streamed ends with op_stream_fence(). */
void op_copy_bytes(void *dst, const void *src, size_t n, bool stream);
void op_stream_fence(void);

#define OP_ROW_KEEP (-2)
void op_copy_rows(const aclTensor *out, int64_t out_row0, const aclTensor *src, const int64_t *src_rows, int64_t m);

/*
 * Stable ascending argsort of n int64 keys: order[j] = the position whose key is j-th smallest, ties in
 * ascending position. Exact for every int64 value. Returns false when out of memory.
 */
bool op_stable_argsort(const int64_t *keys, int64_t n, int32_t *order);

/* An int64 key that sorts like the float32 value f (total order; -0.0 before +0.0, NaN last). */
static inline int64_t op_float_sort_key(float f) {
    int32_t i;
    memcpy(&i, &f, 4);
    return i < 0 ? (int64_t)(int32_t)~(uint32_t)i - INT64_C(0x80000000) : (int64_t)i;
}

#endif /* ACLNN_STUB_OP_COMMON_H_ */
