/*
 * The operator SDK's FLOAT functions (aclstub/op_math.h) against a reference of their own kind: the C library's
 * long double function at the same argument, rounded once to float (its rounding flagged when the long double value
 * lies too close to a halfway point to decide it). Every `stride`-th float32 bit pattern from `start` (stride 1:
 * all 2^32), in blocks, on the stub's threads; prints one line per function: arguments, mismatches, undecided.
 * Built and run by tools/check_math_rounding.py.
 *
 *   check_math_rounding STRIDE START NAME...
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_math.h"

static const struct {
    const char *name;
    aclStubMathFn fn;
    long double (*ref)(long double);
} FNS[] = {
    {"exp", ACLSTUB_MATH_EXP, expl},       {"exp2", ACLSTUB_MATH_EXP2, exp2l},
    {"expm1", ACLSTUB_MATH_EXPM1, expm1l}, {"log", ACLSTUB_MATH_LOG, logl},
    {"log2", ACLSTUB_MATH_LOG2, log2l},    {"log10", ACLSTUB_MATH_LOG10, log10l},
    {"log1p", ACLSTUB_MATH_LOG1P, log1pl}, {"sin", ACLSTUB_MATH_SIN, sinl},
    {"cos", ACLSTUB_MATH_COS, cosl},       {"tan", ACLSTUB_MATH_TAN, tanl},
    {"asin", ACLSTUB_MATH_ASIN, asinl},    {"acos", ACLSTUB_MATH_ACOS, acosl},
    {"atan", ACLSTUB_MATH_ATAN, atanl},    {"sinh", ACLSTUB_MATH_SINH, sinhl},
    {"cosh", ACLSTUB_MATH_COSH, coshl},    {"tanh", ACLSTUB_MATH_TANH, tanhl},
    {"asinh", ACLSTUB_MATH_ASINH, asinhl}, {"acosh", ACLSTUB_MATH_ACOSH, acoshl},
    {"atanh", ACLSTUB_MATH_ATANH, atanhl}, {"erf", ACLSTUB_MATH_ERF, erfl},
    {"erfc", ACLSTUB_MATH_ERFC, erfcl},
};

/* The long double value rounded to float; *undecided when it lies within 2^8 long double ulps of a halfway point. */
static float reference(long double r, int *undecided) {
    *undecided = 0;
    if (isfinite(r) && r != 0) {
        int e;
        frexpl(fabsl(r), &e);
        int scale = e - 1 < FLT_MIN_EXP - 1 ? FLT_MIN_EXP - FLT_MANT_DIG : e - FLT_MANT_DIG;
        long double t = ldexpl(fabsl(r), -scale);
        long double frac = t - floorl(t);
        *undecided = fabsl(frac - 0.5L) <= ldexpl(t, -(LDBL_MANT_DIG - 8));
    }
    return (float)r;
}

#define BATCH 65536

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s STRIDE START NAME...\n", argv[0]);
        return 2;
    }
    uint64_t stride = strtoull(argv[1], NULL, 10), start = strtoull(argv[2], NULL, 10);
    if (stride == 0) stride = 1;
    static float x[BATCH], y[BATCH];
    const char *env = getenv("ACLNN_STUB_MATH_VECTOR");
    printf("vector path: %s\n", !aclStubMathVectorized()            ? "no (scalar double functions)"
                                 : env && strcmp(env, "avx2") == 0 ? "libmvec AVX2"
                                                                   : "libmvec (AVX-512 where the host has it)");
    for (int a = 3; a < argc; a++) {
        size_t f = 0;
        while (f < sizeof FNS / sizeof FNS[0] && strcmp(FNS[f].name, argv[a]) != 0) f++;
        if (f == sizeof FNS / sizeof FNS[0]) {
            fprintf(stderr, "unknown function %s\n", argv[a]);
            return 2;
        }
        uint64_t count = 0, wrong = 0, undecided = 0;
        uint64_t u = start;
        while (u < (UINT64_C(1) << 32)) {
            int n = 0;
            for (; n < BATCH && u < (UINT64_C(1) << 32); n++, u += stride) {
                uint32_t bits = (uint32_t)u;
                memcpy(&x[n], &bits, 4);
            }
            aclStubMathF32(y, x, n, FNS[f].fn);
            for (int i = 0; i < n; i++) {
                int und;
                float r = reference(FNS[f].ref((long double)x[i]), &und);
                undecided += und;
                if (memcmp(&r, &y[i], 4) != 0 && !(isnan(r) && isnan(y[i]))) {
                    if (wrong < 3)
                        printf("  %s(%a): got %a, long double reference %a\n", FNS[f].name, x[i], y[i], r);
                    wrong++;
                }
            }
            count += (uint64_t)n;
        }
        printf("%-6s arguments %llu  mismatches %llu  undecided %llu\n", FNS[f].name, (unsigned long long)count,
               (unsigned long long)wrong, (unsigned long long)undecided);
        fflush(stdout);
    }
    return 0;
}
