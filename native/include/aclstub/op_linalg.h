/*
 * Dense linear algebra of the operator SDK (libnnopbase) for ops-math's linear algebra operators (Cholesky, QR, SVD,
 * determinants, triangular solves): LAPACK from the stub's OpenBLAS (the matmul engine's BLAS, one thread per call),
 * in float64 or complex128 on column-major work matrices, plus the loads and stores between a tensor's strided
 * matrices and those work matrices.
 *
 * The stub's rule for these operators: every matrix is factorised in float64 (complex128) by LAPACK, one matrix per
 * call on one of the stub's threads, and the results are rounded once to the dtype the device's kernel produces
 * (then cast to the output's dtype as the op_api's Cast does). The device's own algorithms (AI CPU Eigen kernels,
 * the AI Core Cholesky) are not documented; results agree with them to their rounding error, and where a
 * decomposition is not unique (the signs of QR's and SVD's vectors) the stub's are LAPACK's (geqrf: R's diagonal of
 * the opposite sign to the leading entry; gesdd).
 */
#ifndef ACLSTUB_OP_LINALG_H_
#define ACLSTUB_OP_LINALG_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Element (0, 0) of matrix `item` of view t, whose last `tail` dimensions (2: rows and columns; 1: a vector's
 * entries, read as one row; 0: one value) are the matrix and whose leading dimensions align right with the batch
 * dimensions batch[0..nb) (a missing dimension or one of size 1 broadcasts; item counts row-major over batch).
 * *rs, *cs: the row and column strides in elements (0 where the view has no such dimension).
 */
ACLSTUB_API void *aclStubLinalgMatrix(const aclStubTensorDesc *t, int tail, int nb, const int64_t *batch, int64_t item,
                                      int64_t *rs, int64_t *cs);

/*
 * The m x n matrix at p (dtype dt, strides rs, cs in elements) into the column-major work matrix dst (leading
 * dimension ld) as float64, or as complex128 (re, im pairs) when cplx. A real matrix read as complex gets zero
 * imaginary parts; a complex one read as real keeps the real parts (the device's Cast).
 */
ACLSTUB_API void aclStubLinalgLoad(double *dst, int64_t ld, bool cplx, const void *p, aclDataType dt, int64_t rs,
                                   int64_t cs, int64_t m, int64_t n);

/*
 * The m x n column-major work matrix src (float64, or complex128 when cplx) to the matrix at p (dtype dt, strides
 * rs, cs), each value first rounded to `via` (the dtype the device's kernel writes; ACL_DT_UNDEFINED: none), then
 * cast to dt.
 */
ACLSTUB_API void aclStubLinalgStore(void *p, aclDataType dt, int64_t rs, int64_t cs, const double *src, int64_t ld,
                                    bool cplx, aclDataType via, int64_t m, int64_t n);

/*
 * The LAPACK below is loaded on first use (with the BLAS's threads): a kernel calls aclStubLinalgReady first, which
 * loads it, or fails the kernel (ACLNN_ERR_INNER, the dynamic loader's reason) and returns that status when the
 * library cannot be loaded.
 */
ACLSTUB_API aclnnStatus aclStubLinalgReady(const aclStubOpCall *call);

/* LAPACK on one matrix (float64, or complex128 when cplx; column-major; n, m, lda < 2^31). Each returns LAPACK's
 * info (0: success), or -1000 when its workspace cannot be allocated (-1001 before aclStubLinalgReady succeeded). */

/* a = L L^H (lower) or U^H U (upper), in the triangle of that name (the other is not touched). */
ACLSTUB_API int aclStubLapackPotrf(bool cplx, bool upper, int64_t n, double *a, int64_t lda);

/* a = P L U with partial pivoting (getrf); ipiv: n pivots (1-based). */
ACLSTUB_API int aclStubLapackGetrf(bool cplx, int64_t n, double *a, int64_t lda, int *ipiv);

/* a = a^-1 (getrf, then getri); a positive info: a is singular (an exact zero pivot) and its content undefined. */
ACLSTUB_API int aclStubLapackInverse(bool cplx, int64_t n, double *a, int64_t lda);

/*
 * a (m x n) = Q R (geqrf, then orgqr/ungqr): R is left in a's upper triangle (its first min(m, n) rows; the rest of
 * a is zeroed); Q's first qcols (min(m, n) or m) columns go to q (m x qcols, leading dimension ldq) unless q is NULL.
 */
ACLSTUB_API int aclStubLapackQr(bool cplx, int64_t m, int64_t n, double *a, int64_t lda, double *q, int64_t ldq,
                                int64_t qcols);

/*
 * a (m x n) = U diag(s) V^H (gesdd, a destroyed): s gets min(m, n) values in decreasing order; with vectors, u is
 * m x m (full) or m x min(m, n) and vt (V^H) n x n or min(m, n) x n; u and vt NULL: values only.
 */
ACLSTUB_API int aclStubLapackSvd(bool cplx, bool full, int64_t m, int64_t n, double *a, int64_t lda, double *s,
                                 double *u, int64_t ldu, double *vt, int64_t ldvt);

/*
 * b (n x nrhs) = op(A)^-1 b for the triangular n x n matrix a (trsm: no test for singularity; a zero on the
 * diagonal gives infinities and NaNs): the upper or lower triangle of a, op = the conjugate transpose when trans.
 */
ACLSTUB_API void aclStubLapackTrsm(bool cplx, bool upper, bool trans, int64_t n, int64_t nrhs, const double *a,
                                   int64_t lda, double *b, int64_t ldb);

#ifdef __cplusplus
}
#endif

#endif /* ACLSTUB_OP_LINALG_H_ */
