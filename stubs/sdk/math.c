/*
 * Elementary functions with the stub's rounding rule (aclstub/op_math.h): FLOAT results correctly rounded, from
 * a double evaluation (glibc's AVX2 vector functions, found at run time, or its scalar functions) checked for
 * arguments whose double value is too close to a halfway point between floats, which are evaluated again in long
 * double. DOUBLE results are glibc's double functions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_math.h"
#include "cpu_dispatch.h"
#include "sdk_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_VECTOR 1
#else
#define HAVE_VECTOR 0
#endif

/* ---- digamma (the C library has none) ------------------------------------------------------------------ */

/* psi(x) in type T with its functions F (log, tan, nearbyint): the recurrence psi(x) = psi(x + 1) - 1/x up to
 * x >= 10, the asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k) to x^-16 (the next term is below 2^-59 at
 * 10), and for x < 0 the reflection psi(x) = psi(1 - x) - pi / tan(pi x), with tan(pi x) = tan(pi (x - round(x)))
 * (exact subtraction) so large arguments lose nothing. The poles 0, -1, -2, ... give NaN. */
#define DIGAMMA_BODY(T, LOG, TAN, RINT)                                                                       \
    const T PI = (T)3.14159265358979323846264338327950288L;                                                   \
    if (isnan(x)) return x;                                                                                   \
    if (isinf(x)) return x > 0 ? x : (T)NAN;                                                                  \
    if (x == 0) return (T)NAN;                                                                                \
    T acc = 0;                                                                                                \
    if (x < 0) {                                                                                              \
        T r = x - RINT(x);                                                                                    \
        if (r == 0) return (T)NAN;                                                                            \
        acc = -PI / TAN(PI * r);                                                                              \
        x = 1 - x;                                                                                            \
    }                                                                                                         \
    while (x < 10) {                                                                                          \
        acc -= 1 / x;                                                                                         \
        x += 1;                                                                                               \
    }                                                                                                         \
    T z = 1 / (x * x);                                                                                        \
    T series = z * ((T)1 / 12 - z * ((T)1 / 120 - z * ((T)1 / 252 - z * ((T)1 / 240 - z * ((T)1 / 132 -       \
               z * ((T)691 / 32760 - z * ((T)1 / 12 - z * ((T)3617 / 8160))))))));                           \
    return acc + LOG(x) - (T)0.5 / x - series;
static long double digammal(long double x) { DIGAMMA_BODY(long double, logl, tanl, nearbyintl) }
static double digamma_d(double x) { DIGAMMA_BODY(double, log, tan, nearbyint) }

/* lgamma without the global signgam (thread safety) */
static double lgamma_d(double x) {
    int sign;
    return lgamma_r(x, &sign);
}
static long double lgamma_ld(long double x) {
    int sign;
    return lgammal_r(x, &sign);
}

/* ---- the function table -------------------------------------------------------------------------------- */

/* X(enum, double function, long double function, glibc vector name or NULL) */
#define MATH_FUNCTIONS(X)                                                                                     \
    X(EXP, exp, expl, "exp") X(EXP2, exp2, exp2l, "exp2") X(EXPM1, expm1, expm1l, "expm1")                    \
    X(LOG, log, logl, "log") X(LOG2, log2, log2l, "log2") X(LOG10, log10, log10l, "log10")                    \
    X(LOG1P, log1p, log1pl, "log1p") X(SIN, sin, sinl, "sin") X(COS, cos, cosl, "cos") X(TAN, tan, tanl, "tan") \
    X(ASIN, asin, asinl, "asin") X(ACOS, acos, acosl, "acos") X(ATAN, atan, atanl, "atan")                     \
    X(SINH, sinh, sinhl, "sinh") X(COSH, cosh, coshl, "cosh") X(TANH, tanh, tanhl, "tanh")                     \
    X(ASINH, asinh, asinhl, "asinh") X(ACOSH, acosh, acoshl, "acosh") X(ATANH, atanh, atanhl, "atanh")         \
    X(ERF, erf, erfl, "erf") X(ERFC, erfc, erfcl, "erfc") X(LGAMMA, lgamma_d, lgamma_ld, NULL)                   \
    X(DIGAMMA, digamma_d, digammal, NULL)

typedef long double (*LdFn)(long double);
#define LD_ENTRY(E, f, fl, v) [ACLSTUB_MATH_##E] = fl,
static const LdFn LD[ACLSTUB_MATH_COUNT] = {MATH_FUNCTIONS(LD_ENTRY)};
#define VEC_NAME(E, f, fl, v) [ACLSTUB_MATH_##E] = v,
static const char *const VEC_NAMES[ACLSTUB_MATH_COUNT] = {MATH_FUNCTIONS(VEC_NAME)};

#if HAVE_VECTOR
typedef __m256d (*VecFn)(__m256d);   /* glibc's AVX2 variants: 4 doubles */
typedef __m512d (*Vec8Fn)(__m512d);  /* its AVX-512 ones: 8 doubles */
#else
typedef void (*VecFn)(void);
typedef void (*Vec8Fn)(void);
#endif

static struct {
    pthread_once_t once;
    VecFn vec[ACLSTUB_MATH_COUNT];
    Vec8Fn vec8[ACLSTUB_MATH_COUNT];
    bool vectorized;
    float zero[ACLSTUB_MATH_COUNT][2]; /* fn(+0), fn(-0) */
    uint64_t ambiguous;
} M = {PTHREAD_ONCE_INIT, {0}, {0}, false, {{0}}, 0};

/* FLOAT from a long double value, counting values too close to a halfway point to be sure of the rounding. */
static float round_ld(long double r) {
    if (isfinite(r) && r != 0) {
        int e;
        frexpl(fabsl(r), &e); /* |r| in [2^(e-1), 2^e) */
        int scale = e - 1 < FLT_MIN_EXP - 1 ? FLT_MIN_EXP - FLT_MANT_DIG : e - FLT_MANT_DIG; /* log2 of a float ulp */
        long double t = ldexpl(fabsl(r), -scale); /* in float ulps */
        long double frac = t - floorl(t);
        long double slack = ldexpl(t, -(LDBL_MANT_DIG - 8)); /* 2^8 long double ulps */
        if (fabsl(frac - 0.5L) <= slack) __atomic_fetch_add(&M.ambiguous, 1, __ATOMIC_RELAXED);
    }
    return (float)r;
}

static float slow_f32(float x, aclStubMathFn fn) { return round_ld(LD[fn]((long double)x)); }

static void init(void) {
    for (int f = 0; f < ACLSTUB_MATH_COUNT; f++) {
        M.zero[f][0] = slow_f32(0.0f, (aclStubMathFn)f);
        M.zero[f][1] = slow_f32(-0.0f, (aclStubMathFn)f);
    }
#if HAVE_VECTOR
    /* ACLNN_STUB_MATH_VECTOR: 0 for the scalar functions, avx2 to leave AVX-512 aside (for comparisons) */
    const char *env = getenv("ACLNN_STUB_MATH_VECTOR");
    if (env && strcmp(env, "0") == 0) return;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return;
    bool avx512 = __builtin_cpu_supports("avx512f") && !(env && strcmp(env, "avx2") == 0);
    void *lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return;
    for (int f = 0; f < ACLSTUB_MATH_COUNT; f++) {
        if (VEC_NAMES[f] == NULL) continue;
        char name[64];
        snprintf(name, sizeof name, "_ZGVdN4v_%s", VEC_NAMES[f]);
        void *sym = dlsym(lib, name);
        if (sym) {
            memcpy(&M.vec[f], &sym, sizeof sym);
            M.vectorized = true;
        }
        snprintf(name, sizeof name, "_ZGVeN8v_%s", VEC_NAMES[f]);
        sym = avx512 ? dlsym(lib, name) : NULL;
        if (sym) memcpy(&M.vec8[f], &sym, sizeof sym);
    }
    /* the library stays loaded: its functions are used until the process ends */
#endif
}

bool aclStubMathVectorized(void) {
    pthread_once(&M.once, init);
    return M.vectorized;
}

uint64_t aclStubMathAmbiguous(void) { return __atomic_load_n(&M.ambiguous, __ATOMIC_RELAXED); }

/* ---- FLOAT rows ----------------------------------------------------------------------------------------- */

#define BLOCK 256
#define HARD_ULPS 4096 /* double ulps around a halfway point between floats that are evaluated again */

#if HAVE_VECTOR
__attribute__((target("avx512f"))) static void eval_vector8(Vec8Fn f, double *d, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(d + i, f(_mm512_loadu_pd(d + i)));
    if (i < n) {
        double tail[8];
        for (int k = 0; k < 8; k++) tail[k] = d[i];
        for (int64_t k = i; k < n; k++) tail[k - i] = d[k];
        _mm512_storeu_pd(tail, f(_mm512_loadu_pd(tail)));
        for (int64_t k = i; k < n; k++) d[k] = tail[k - i];
    }
}

__attribute__((target("avx2,fma"))) static void eval_vector(VecFn f, double *d, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(d + i, f(_mm256_loadu_pd(d + i)));
    if (i < n) {
        double tail[4] = {d[i], d[i], d[i], d[i]};
        for (int64_t k = i; k < n; k++) tail[k - i] = d[k];
        _mm256_storeu_pd(tail, f(_mm256_loadu_pd(tail)));
        for (int64_t k = i; k < n; k++) d[k] = tail[k - i];
    }
}
#endif

/* d[i] = fn(d[i]) with the C library's scalar double functions (one loop per function: direct calls). */
static void eval_scalar(double *d, int64_t n, aclStubMathFn fn) {
    switch (fn) {
#define SCALAR_CASE(E, f, fl, v)                                                                              \
    case ACLSTUB_MATH_##E:                                                                                    \
        for (int64_t i = 0; i < n; i++) d[i] = f(d[i]);                                                       \
        break;
        MATH_FUNCTIONS(SCALAR_CASE)
    default:
        break;
    }
}

/*
 * dst[i] = (float)d[i]; the result is 1 when some d[i] may round differently from the exact value (hard[i] set):
 * within HARD_ULPS of a halfway point between floats, or a float subnormal (other binary places), or the argument
 * is zero (the sign of a zero result). Zero, infinite, NaN and overflowing results are sure.
 */
STUB_CLONED static int narrow_block(float *dst, const double *d, const float *x, unsigned char *hard, int64_t n) {
    uint32_t any = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &d[i], 8);
        uint32_t hi = (uint32_t)(u >> 32) & 0x7fffffffu, lo = (uint32_t)u;
        uint32_t e = hi >> 20, low = lo & ((1u << 29) - 1);
        uint32_t normal = (e - (1023u + FLT_MIN_EXP - 1)) <= (uint32_t)(FLT_MAX_EXP - FLT_MIN_EXP);
        uint32_t near_half = (low - ((1u << 28) - HARD_ULPS)) <= 2u * HARD_ULPS;
        uint32_t tiny = (e < 1023u + FLT_MIN_EXP - 1) & ((hi | lo) != 0);
        uint32_t h = (normal & near_half) | tiny | (x[i] == 0);
        hard[i] = (unsigned char)h;
        any |= h;
        dst[i] = (float)d[i];
    }
    return any != 0;
}

static void block_f32(float *dst, const float *src, int64_t n, aclStubMathFn fn) {
    double d[BLOCK];
    float x[BLOCK];
    unsigned char hard[BLOCK];
    memcpy(x, src, (size_t)n * sizeof *x); /* dst may be src */
    for (int64_t i = 0; i < n; i++) d[i] = x[i];
#if HAVE_VECTOR
    if (M.vec8[fn]) eval_vector8(M.vec8[fn], d, n);
    else if (M.vec[fn]) eval_vector(M.vec[fn], d, n);
    else
#endif
        eval_scalar(d, n, fn);
    if (!narrow_block(dst, d, x, hard, n)) return;
    for (int64_t i = 0; i < n; i++) {
        if (!hard[i]) continue;
        dst[i] = x[i] == 0 ? M.zero[fn][signbit(x[i]) != 0] : slow_f32(x[i], fn);
    }
}

void aclStubMathF32(float *dst, const float *src, int64_t n, aclStubMathFn fn) {
    if ((unsigned)fn >= ACLSTUB_MATH_COUNT || n <= 0) return;
    pthread_once(&M.once, init);
    for (int64_t b = 0; b < n; b += BLOCK) block_f32(dst + b, src + b, n - b < BLOCK ? n - b : BLOCK, fn);
}

float aclStubMathOneF32(float x, aclStubMathFn fn) {
    float y = 0;
    aclStubMathF32(&y, &x, 1, fn);
    return y;
}

/* ---- DOUBLE rows ---------------------------------------------------------------------------------------- */

void aclStubMathF64(double *dst, const double *src, int64_t n, aclStubMathFn fn) {
    if ((unsigned)fn >= ACLSTUB_MATH_COUNT || n <= 0) return;
    if (dst != src) memmove(dst, src, (size_t)n * sizeof *dst);
    if (fn == ACLSTUB_MATH_DIGAMMA) { /* ours: evaluated in long double, rounded once */
        for (int64_t i = 0; i < n; i++) dst[i] = (double)digammal(dst[i]);
        return;
    }
    eval_scalar(dst, n, fn);
}

double aclStubMathOneF64(double x, aclStubMathFn fn) {
    aclStubMathF64(&x, &x, 1, fn);
    return x;
}
