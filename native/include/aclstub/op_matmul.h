/*
 * The matmul engine of the operator SDK (libnnopbase): batched matrix products on a BLAS (OpenBLAS's sgemm and
 * dgemm), computed the way the cube unit computes them, for the operator files of the matmul, quantised matmul
 * and grouped matmul families.
 *
 *   - Operands are rounded first to the computation's type (aclStubMmCompute: FLOAT, HFLOAT32, FLOAT16, BF16),
 *     then multiplied in float32: products of 16-bit values are exact in float32, so a FLOAT16/BF16 product is
 *     the exact products accumulated in float32. The accumulation order is the BLAS's (OpenBLAS's blocked
 *     kernels, fused multiply-adds where the CPU has them), not the cube's; a result is rounded once.
 *   - Integer operands (INT8, INT4, INT32) are multiplied exactly (dgemm: exact while every partial sum stays
 *     below 2^53) and the sums wrap to int32, as the cube's int32 accumulator does.
 *   - The work is split into tiles fixed by the shape alone (never by the thread count), each computed by a
 *     single-threaded BLAS call on one of the stub's threads (aclStubParallelFor): results do not depend on
 *     ACLNN_STUB_NUM_THREADS.
 *   - FLOAT operands whose matrices have a unit stride along a row or a column go to the BLAS as they are
 *     (a transposed view is the BLAS's transpose flag, no copy); others, and every operand that needs a
 *     conversion, are packed (widened and rounded) into float32 blocks on the stub's threads first.
 *   - The product goes straight to a FLOAT output with a unit column stride when there is nothing else to do;
 *     otherwise each tile lands in float32 scratch and the epilogue (rounding to the result type, alpha, beta
 *     times an added tensor, or an operator's own row function) writes the output with its strides and dtype.
 */
#ifndef ACLSTUB_OP_MATMUL_H_
#define ACLSTUB_OP_MATMUL_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the operands are rounded to before they are multiplied. */
typedef enum {
    ACLSTUB_MM_FP32, /* float32 as it is */
    ACLSTUB_MM_HF32, /* HFLOAT32: float32 rounded to an 11-bit significand (round to nearest even), 8-bit exponent */
    ACLSTUB_MM_FP16, /* FLOAT16 (round to nearest even) */
    ACLSTUB_MM_BF16, /* BF16 (round to nearest even) */
    ACLSTUB_MM_INT   /* integers, exact; the row function receives int32 sums */
} aclStubMmCompute;

#define ACLSTUB_MM_MAX_BATCH 8

/*
 * A stack of matrices: element (b[0], ..., b[nbatch-1], i, j) of dtype at
 * data + (offset + sum bs[d] * b[d] + i * rs + j * cs) elements (a zero stride broadcasts).
 * INT4 elements are two to a byte, the even element in the low half-byte; their strides count elements.
 * dtype ACL_DT_UNDEFINED: absent.
 */
typedef struct {
    aclDataType dtype;
    const void *data;
    int64_t offset;
    int64_t rs, cs;
    int64_t bs[ACLSTUB_MM_MAX_BATCH];
} aclStubMat;

/*
 * The matrices of view t in a product with `nbatch` batch dimensions of sizes batch[]: its last two dimensions
 * are the rows and columns (the other way round when trans), its leading dimensions align right with the batch
 * dimensions (a missing dimension or one of size 1 broadcasts). A 1-D view is one row (vector_is_row) or one
 * column. t NULL: an absent matrix.
 */
ACLSTUB_API aclStubMat aclStubMatOfView(const aclStubTensorDesc *t, int nbatch, const int64_t *batch, bool trans,
                                        bool vector_is_row);

/* One row of a product tile, handed to an operator's row function (aclStubMatmul.row_fn). */
typedef struct {
    int64_t item;      /* the batch item (row-major over the batch dimensions), or the group of a grouped product */
    int64_t i;         /* the row in the item's product */
    int64_t j0, n;     /* the columns [j0, j0 + n) */
    float *f;          /* float computations: the row's float32 sums (writable scratch) */
    const int32_t *q;  /* ACLSTUB_MM_INT: the row's int32 sums */
    void *out;         /* element (i, j0) of the output matrix, whose column stride is out_cs elements */
    int64_t out_cs;
    float *tmp;        /* n floats of scratch */
} aclStubMmRow;
typedef struct aclStubMatmul aclStubMatmul;
typedef void (*aclStubMmRowFn)(const aclStubMatmul *mm, const aclStubMmRow *row);

/*
 * out[b] (m, n) = epilogue(a[b] (m, k) @ b[b] (k, n)) for every batch item b. The default epilogue, in float32:
 * p rounded to `result` (FLOAT: not rounded), then v = alpha * p (skipped when alpha is 1), then v + beta * add
 * (when add is present; beta * add rounded first), narrowed to out's dtype (the device's Cast rules). With
 * sum_batches, out has no batch dimensions and p is the sum, in batch order, of every item's product (each
 * rounded to `result` first). skip_product: v = beta * add alone (the product is not computed). row_fn replaces
 * the default epilogue: it receives each row's sums and writes it. k == 0 gives zero products.
 */
struct aclStubMatmul {
    int nbatch;
    int64_t batch[ACLSTUB_MM_MAX_BATCH];
    int64_t m, n, k;
    aclStubMat a, b, out, add;
    aclStubMmCompute compute;
    aclDataType result;
    float alpha, beta;
    bool sum_batches;
    bool skip_product;
    aclStubMmRowFn row_fn;
    const void *ctx; /* for row_fn */
};

/* Element (i, j) of batch item `item` (row-major over mm's batch dimensions) of the stack x. */
ACLSTUB_API const void *aclStubMatElem(const aclStubMatmul *mm, const aclStubMat *x, int64_t item, int64_t i,
                                       int64_t j);

/*
 * The dequantisation of integer products (a row function for ACLSTUB_MM_INT; mm->ctx points to this): for the
 * int32 sum q at (i, j) of an item, a = q + bias[j] when bias is INT32 (wrapping); v = float32(a) * scale[j]
 * (FLOAT, BF16, or the float32 of a UINT64/INT64 quantisation parameter of aclnnTransQuantParam: its low 32
 * bits); v *= pertoken[i] when given; v += bias[j] when bias is FLOAT, FLOAT16 or BF16 (every step rounded to
 * float32). An INT8 out gets round-half-even(v + offset[j]) saturated to [-128, 127], the offset a FLOAT or the
 * 9-bit offset of a quantisation parameter (bits 37..45); an INT32 out gets a; other outs v narrowed to their
 * dtype. Absent stacks have dtype ACL_DT_UNDEFINED; a stack with zero strides broadcasts.
 */
typedef struct {
    aclStubMat scale, offset, pertoken, bias;
} aclStubMmDequant;
ACLSTUB_API void aclStubMmDequantRow(const aclStubMatmul *mm, const aclStubMmRow *row);

/*
 * The weight-only dequantisation of the pseudo-quantised products (WeightQuantBatchMatmul, GroupedMatmul):
 * dst (k x n, row-major, of dtype FLOAT16 or BF16) = (w + offset) * scale, each step rounded to that dtype, for the
 * (k, n) INT8/INT4 view w; scale and offset (offset may be NULL) hold 1 value, n values (1-D or (1, n)), or
 * (ceil(k / group), n) values for groups of `group` rows of k (group 0: not grouped); FLOAT16, BF16, INT32 offsets
 * or UINT64/INT64 quantisation-parameter scales. Runs on the stub's threads.
 */
ACLSTUB_API void aclStubMmAntiquantWeight(const aclStubTensorDesc *w, const aclStubTensorDesc *scale,
                                          const aclStubTensorDesc *offset, int64_t group, aclDataType dtype, void *dst);

/* The float32 scale and the offset packed in a UINT64/INT64 quantisation parameter (aclnnTransQuantParam). */
static inline float aclStubQuantParamScale(uint64_t u) {
    uint32_t bits = (uint32_t)u;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
static inline int aclStubQuantParamOffset(uint64_t u) {
    int v = (int)((u >> 37) & 0x1ffu);
    return v >= 256 ? v - 512 : v;
}

/* The product, from a kernel. OK, or a kernel status (out of memory for the packed operands and tiles). */
ACLSTUB_API aclnnStatus aclStubMatmulRun(const aclStubOpCall *call, const aclStubMatmul *mm);

/* The float32 value v rounded to the computation's type (HF32, FP16, BF16; FP32 and INT: v). */
ACLSTUB_API float aclStubMmRound(aclStubMmCompute compute, float v);

/*
 * The cube's dtype rules of ops-nn's matmul op_api (Atlas A2/A3, matmul_util's Dav2201 table): the computation
 * for operand dtypes ta, tb (FLOAT, FLOAT16, BF16) and cubeMathType (0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION,
 * 2 USE_FP16, 3 USE_HF32, 4 USE_FP32_ADD; -1 FP16FP32_KEEP_DTYPE), and the dtype its product is rounded to
 * before the Cast to an output of dtype out_dtype (FLOAT for a FLOAT output except under USE_FP16, else the
 * computation's 16-bit type; FLOAT for the fp32 computations).
 */
ACLSTUB_API aclStubMmCompute aclStubMmComputeFor(aclDataType ta, aclDataType tb, int cube_math_type);
ACLSTUB_API aclDataType aclStubMmResultFor(aclStubMmCompute compute, aclDataType out_dtype, int cube_math_type);

/*
 * The op_api's cubeMathType check (CheckCubeMathTypeForMm with the Atlas A2/A3 rules): 161002 with the official
 * wording when cube_math_type is outside {-1, 0, 1, 2, 3, 4}. promoted: FLOAT when either operand is FLOAT,
 * else the first operand's dtype.
 */
ACLSTUB_API aclnnStatus aclStubMmCheckCubeMathType(const aclStubOpCall *call, int cube_math_type);

/*
 * The dot product of two 1-D views of n elements as the vector unit computes it (the Dot kernel of ops-math):
 * both read as dtype t (converted first when their dtype differs); FLOAT, FLOAT16, BF16: the products rounded to
 * float32, summed in the AI Core's ReduceSum order (aclStubReduceSumF32), rounded once to t; INT8, UINT8, INT32:
 * the exact sum wrapped to t. The result, of dtype t, is stored at out as out_dtype (the device's Cast).
 */
ACLSTUB_API aclnnStatus aclStubMmDot(const aclStubOpCall *call, const aclStubTensorDesc *x, const aclStubTensorDesc *y,
                                     aclDataType t, void *out, aclDataType out_dtype);

/* "[2, 3]" style name of a computation ("FLOAT", "HFLOAT32", ...), for messages and docs. */
ACLSTUB_API const char *aclStubMmComputeName(aclStubMmCompute compute);

#ifdef __cplusplus
}
#endif

#endif /* ACLSTUB_OP_MATMUL_H_ */
