/*
 * Elementary functions for operator kernels, with the stub's rounding rule for transcendental functions whose
 * device approximation is not documented: a FLOAT result is the correctly rounded value of the function at the
 * FLOAT argument, a DOUBLE result is the C library's double function.
 *
 * How a FLOAT result is made: the argument is widened to double and the function evaluated in double (glibc's
 * AVX-512 or AVX2 vector functions where the host has them, found at run time in libmvec; its scalar functions
 * otherwise; ACLNN_STUB_MATH_VECTOR=0 or =avx2 narrows the choice), then rounded once to float.
 * That is the correctly rounded result unless the double value lies within 2^12 double ulps of a point halfway
 * between two floats (about 1 argument in 65,000): such arguments, and those whose result is a float subnormal,
 * are evaluated again in long double, whose result is rounded once to float. The vector and scalar paths
 * therefore give the same floats. When even the long double value is that close to a halfway point (no known
 * argument; aclStubMathAmbiguous counts them) the long double value is rounded as it is.
 *
 * DOUBLE results are glibc's double functions: errors of at most a few ulps (glibc's published bounds), not
 * always correctly rounded. LGAMMA and DIGAMMA are not covered by the rule above: see their entries.
 */
#ifndef ACLSTUB_OP_MATH_H_
#define ACLSTUB_OP_MATH_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ACLSTUB_MATH_EXP,
    ACLSTUB_MATH_EXP2,
    ACLSTUB_MATH_EXPM1,
    ACLSTUB_MATH_LOG,
    ACLSTUB_MATH_LOG2,
    ACLSTUB_MATH_LOG10,
    ACLSTUB_MATH_LOG1P,
    ACLSTUB_MATH_SIN,
    ACLSTUB_MATH_COS,
    ACLSTUB_MATH_TAN,
    ACLSTUB_MATH_ASIN,
    ACLSTUB_MATH_ACOS,
    ACLSTUB_MATH_ATAN,
    ACLSTUB_MATH_SINH,
    ACLSTUB_MATH_COSH,
    ACLSTUB_MATH_TANH,
    ACLSTUB_MATH_ASINH,
    ACLSTUB_MATH_ACOSH,
    ACLSTUB_MATH_ATANH,
    ACLSTUB_MATH_ERF,
    ACLSTUB_MATH_ERFC,
    /* log|Gamma(x)|: the same rule (glibc's lgamma and lgammal), but glibc bounds the error of neither near the
     * negative zeros of the function, so the result there may be off by an ulp or more */
    ACLSTUB_MATH_LGAMMA,
    /* the logarithmic derivative of Gamma, which the C library lacks: our evaluation (recurrence to x >= 10,
     * asymptotic series, reflection below 0), FLOAT by the rule above from double and long double evaluations,
     * DOUBLE from the long double one rounded once; within an ulp of the exact value except near the zeros of
     * digamma; the poles (0, -0, -1, -2, ...) give NaN, as the device's kernel does (torch: -inf, +inf at
     * +0, -0) */
    ACLSTUB_MATH_DIGAMMA,
    ACLSTUB_MATH_COUNT
} aclStubMathFn;

/* dst[i] = fn(src[i]) for n contiguous FLOAT values, with the rule above (dst may be src). */
ACLSTUB_API void aclStubMathF32(float *dst, const float *src, int64_t n, aclStubMathFn fn);
/* dst[i] = fn(src[i]) for n contiguous DOUBLE values: the C library's double function (dst may be src). */
ACLSTUB_API void aclStubMathF64(double *dst, const double *src, int64_t n, aclStubMathFn fn);
/* One value of either (for composite kernels). */
ACLSTUB_API float aclStubMathOneF32(float x, aclStubMathFn fn);
ACLSTUB_API double aclStubMathOneF64(double x, aclStubMathFn fn);
/* Whether the vector path is in use (glibc's libmvec with AVX2 or AVX-512 on this host), and the number of
 * arguments so far whose long double value was too close to a halfway point to be sure of the rounding. */
ACLSTUB_API bool aclStubMathVectorized(void);
ACLSTUB_API uint64_t aclStubMathAmbiguous(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ACLSTUB_OP_MATH_H_ */
