/*
 * Unary elementwise operators of ops-math math/: the transcendental functions (exp, log, trigonometric,
 * hyperbolic, erf, gamma functions, sinc), rounding (ceil, floor, round, trunc, frac), sign and magnitude (abs,
 * neg, sign, signbit, reciprocal, sqrt, rsqrt), predicates (isfinite, isinf, isneginf, isposinf), fills (zero,
 * one) and tanh's backward, with their in-place variants.
 *
 * Each operator is a row of the elementwise engine plus what its op_api adds: out's own dtype list, and how the
 * computation's dtype follows from self's (the op_api's Cast before the kernel). FLOAT results of transcendental
 * functions are correctly rounded (aclstub/op_math.h); 16-bit results are those rounded once to 16 bits, as the
 * op_api's casts around a FLOAT computation give.
 */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "aclstub/op_elementwise.h"
#include "aclstub/op_math.h"
#include "cpu_dispatch.h"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_acos.h"
#include "aclnnop/aclnn_acosh.h"
#include "aclnnop/aclnn_asin.h"
#include "aclnnop/aclnn_asinh.h"
#include "aclnnop/aclnn_atan.h"
#include "aclnnop/aclnn_atanh.h"
#include "aclnnop/aclnn_ceil.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_cosh.h"
#include "aclnnop/aclnn_digamma.h"
#include "aclnnop/aclnn_erf.h"
#include "aclnnop/aclnn_erfc.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_exp2.h"
#include "aclnnop/aclnn_expm1.h"
#include "aclnnop/aclnn_floor.h"
#include "aclnnop/aclnn_frac.h"
#include "aclnnop/aclnn_is_inf.h"
#include "aclnnop/aclnn_isfinite.h"
#include "aclnnop/aclnn_isneginf.h"
#include "aclnnop/aclnn_isposinf.h"
#include "aclnnop/aclnn_lgamma.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_log10.h"
#include "aclnnop/aclnn_log1p.h"
#include "aclnnop/aclnn_log2.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_reciprocal.h"
#include "aclnnop/aclnn_round.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_signbit.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_sinc.h"
#include "aclnnop/aclnn_sinh.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_tan.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_tanh_backward.h"
#include "aclnnop/aclnn_trunc.h"
#include "aclnnop/aclnn_zero.h"

/* ---- dtype lists of the op_apis (Atlas A2/A3) ------------------------------------------------------------ */

#define DT(x) ACLSTUB_DT(ACL_##x)
#define FLT ACLSTUB_DT_FLOATS                 /* FLOAT, FLOAT16, BF16 */
#define FLTD ACLSTUB_DT_REALS                 /* and DOUBLE */
#define INTB (ACLSTUB_DT_INTS | DT(BOOL))     /* INT8, INT16, INT32, INT64, UINT8, BOOL */
#define CPX ACLSTUB_DT_COMPLEX                /* COMPLEX64, COMPLEX128 */

/* ---- rows ---------------------------------------------------------------------------------------------- */

/* How the computation's dtype follows from self's, beyond the engine's flags. */
enum {
    C_SELF,       /* self's dtype (FLOAT for integers when the row has ACLSTUB_EW_INT_TO_FLOAT) */
    C_OUT,        /* self's dtype when it is in out's list, else out's dtype (the op_api casts self to out's) */
    C_SQRT,       /* INT64 computes in DOUBLE, other integers and BOOL in FLOAT */
};

typedef struct {
    aclStubElementwise ew; /* first: the engine's row */
    uint64_t out_dtypes;   /* out's own dtype list (0: none) */
    int compute;           /* C_* */
    aclStubCheckFn rule;   /* optional: the op_api's further dtype rules */
} Unary;

static const Unary *unary_of(const aclStubOpCall *call) { return (const Unary *)aclStubFamilyRow(call); }
static const aclStubTensorDesc *out_of(const aclStubOpCall *call) {
    return call->v[aclStubEwPlanOf(call)->out].tensor;
}
static const char *out_name(const aclStubOpCall *call) { return aclStubOpName(call, aclStubEwPlanOf(call)->out); }

static aclDataType unary_result(const aclStubOpCall *call, aclDataType promoted) {
    const Unary *u = unary_of(call);
    switch (u->compute) {
    case C_OUT: {
        int out = call->op->params[0].role == ACLSTUB_INPLACE ? 0 : (int)call->op->num_params - 1;
        const aclStubTensorDesc *y = call->v[out].tensor;
        return (u->out_dtypes & ACLSTUB_DT(promoted)) || y == NULL ? promoted : y->dtype;
    }
    case C_SQRT:
        return promoted == ACL_INT64 ? ACL_DOUBLE : aclStubIsIntegral(promoted, true) ? ACL_FLOAT : promoted;
    default:
        return promoted;
    }
}

static aclnnStatus unary_check(aclStubOpCall *call) {
    const Unary *u = unary_of(call);
    const aclStubTensorDesc *y = out_of(call);
    char buf[256];
    if (u->out_dtypes && ((unsigned)y->dtype >= 64 || !(u->out_dtypes & ACLSTUB_DT(y->dtype))))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                             out_name(call), aclStubDtypeName(y->dtype),
                             aclStubDtypeSetName(u->out_dtypes, buf, sizeof buf));
    return u->rule ? u->rule(call) : OK;
}

#define ROW(NAME, IN, OUT, FLAGS, LOOPS, COMPUTE, RULE)                                                       \
    static const Unary NAME = {{1, (IN), (FLAGS), &(LOOPS), unary_check, unary_result}, (OUT), (COMPUTE), (RULE)}

/* One official entry point of a row (the header's prototype: self and out, or selfRef alone). */
#define OP(NAME, ROWNAME, ...) ACLSTUB_EW_OP(NAME, ROWNAME.ew, __VA_ARGS__)
#define INPLACE(NAME, ROWNAME, ...) ACLSTUB_EW_INPLACE_OP(NAME, ROWNAME.ew, __VA_ARGS__)
/* The usual pair: aclnnX(self, out) and aclnnInplaceX(selfRef). */
#define OP_PAIR(NAME, ROWNAME, SELF_T, OUT_T, REF_T)                                                          \
    OP(aclnn##NAME, ROWNAME, (SELF_T, self), (OUT_T, out))                                                    \
    INPLACE(aclnnInplace##NAME, ROWNAME, (REF_T, selfRef))

/* A NULL tensor answers ACLNN_ERR_INNER_NULLPTR (561103), as some op_apis' own NULL checks do (sinc): a precheck,
 * which runs before the SDK's NULL rule (161001). */
static aclnnStatus null_inner(aclStubOpCall *call) {
    for (size_t k = 0; k < call->op->num_params; k++) {
        aclStubRole r = call->op->params[k].role;
        if ((r == ACLSTUB_INPUT || r == ACLSTUB_OUTPUT || r == ACLSTUB_INPLACE) && !call->v[k].present)
            return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL", call->op->params[k].name);
    }
    return OK;
}

/* ---- loops ----------------------------------------------------------------------------------------------- */

#define BLOCK 256

/* FLOAT and DOUBLE loops of a math function: contiguous runs straight through aclStubMath*, strided ones
 * gathered a block at a time. */
#define MATH_STRIDED_(T, CALL)                                                                                \
    if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) {                                            \
        CALL((T *)(void *)d[0], (const T *)(const void *)d[1], n, fn);                                         \
        return;                                                                                               \
    }                                                                                                         \
    T buf[BLOCK];                                                                                             \
    for (int64_t i = 0; i < n; i += BLOCK) {                                                                  \
        int64_t m = n - i < BLOCK ? n - i : BLOCK;                                                            \
        for (int64_t k = 0; k < m; k++) buf[k] = *(const T *)(const void *)(d[1] + (i + k) * s[1]);          \
        CALL(buf, buf, m, fn);                                                                                \
        for (int64_t k = 0; k < m; k++) *(T *)(void *)(d[0] + (i + k) * s[0]) = buf[k];                      \
    }
static void math_f32(char **d, const int64_t *s, int64_t n, aclStubMathFn fn) {
    MATH_STRIDED_(float, aclStubMathF32)
}
static void math_f64(char **d, const int64_t *s, int64_t n, aclStubMathFn fn) {
    MATH_STRIDED_(double, aclStubMathF64)
}

#define MATH_REAL_(NAME, FN)                                                                                  \
    static void NAME##_f32(char **d, const int64_t *s, int64_t n, const void *c) {                           \
        (void)c;                                                                                              \
        math_f32(d, s, n, FN);                                                                                \
    }                                                                                                         \
    static void NAME##_f64(char **d, const int64_t *s, int64_t n, const void *c) {                           \
        (void)c;                                                                                              \
        math_f64(d, s, n, FN);                                                                                \
    }
/* A real math function: FLOAT and DOUBLE loops. */
#define MATH_LOOPS(NAME, FN)                                                                                  \
    MATH_REAL_(NAME, FN)                                                                                      \
    static const aclStubEwLoops NAME = {{[ACLSTUB_CT_F32] = NAME##_f32, [ACLSTUB_CT_F64] = NAME##_f64}};
/* ... and complex loops from an expression of x (computed in double complex, rounded once for COMPLEX64). */
#define MATH_LOOPS_C(NAME, FN, ...)                                                                           \
    MATH_REAL_(NAME, FN)                                                                                      \
    ACLSTUB_EW_PUSH_ ACLSTUB_EW_COMPLEX(ACLSTUB_EW_UMAP_, NAME, __VA_ARGS__) ACLSTUB_EW_POP_                   \
    static const aclStubEwLoops NAME = {{[ACLSTUB_CT_F32] = NAME##_f32, [ACLSTUB_CT_F64] = NAME##_f64,         \
                                         [ACLSTUB_CT_C64] = NAME##_c64, [ACLSTUB_CT_C128] = NAME##_c128}};
/* Loops from two expressions over two type sets (one table). */
#define LOOPS2(NAME, SET1, EXPR1, SET2, EXPR2)                                                                \
    ACLSTUB_EW_PUSH_ SET1(ACLSTUB_EW_UMAP_, NAME, EXPR1) SET2(ACLSTUB_EW_UMAP_, NAME, EXPR2) ACLSTUB_EW_POP_   \
    static const aclStubEwLoops NAME = {{SET1(ACLSTUB_EW_ENTRY_, NAME, _) SET2(ACLSTUB_EW_ENTRY_, NAME, _)}};

/*
 * FLOAT, FLOAT16 and BF16 loops compiled for the host's vector instructions too (picked at load time; portable
 * ones elsewhere): rounding and square roots need SSE4.1/AVX to vectorise, 16-bit data F16C. The 16-bit loops
 * read and write their data as they are: the value is widened to float, the expression computed in float and
 * rounded once to the 16-bit type, as the FLOAT loop with converted data would give, without the conversion
 * buffers. The expression reads x, i0 (integer attribute 0) and s0..s2 (float attributes).
 */
static inline float f16_load(uint16_t h) {
    _Float16 v;
    memcpy(&v, &h, 2);
    return (float)v;
}
static inline uint16_t f16_store(float f) {
    _Float16 v = (_Float16)f;
    uint16_t h;
    memcpy(&h, &v, 2);
    return h;
}
#define FAST_LOOP_(NAME, SFX, ST, LOAD, STORE, ...)                                                           \
    STUB_CLONED static void NAME##_##SFX(char **d, const int64_t *s, int64_t n, const void *c) {              \
        const aclStubEwCtx *ctx_ = c;                                                                         \
        __attribute__((unused)) const int64_t i0 = ctx_->i[0];                                                \
        __attribute__((unused)) const float s0 = (float)ctx_->f[0], s1 = (float)ctx_->f[1],                   \
                                            s2 = (float)ctx_->f[2];                                           \
        if (s[0] == (int64_t)sizeof(ST) && s[1] == (int64_t)sizeof(ST)) {                                     \
            ST *o = (ST *)(void *)d[0];                                                                       \
            const ST *p = (const ST *)(const void *)d[1];                                                     \
            for (int64_t i = 0; i < n; i++) {                                                                 \
                const float x = LOAD(p[i]);                                                                   \
                o[i] = STORE((float)(__VA_ARGS__));                                                           \
            }                                                                                                 \
            return;                                                                                           \
        }                                                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                                     \
            const float x = LOAD(*(const ST *)(const void *)(d[1] + i * s[1]));                               \
            *(ST *)(void *)(d[0] + i * s[0]) = STORE((float)(__VA_ARGS__));                                   \
        }                                                                                                     \
    }
#define AS_IS_(v) (v)
/* FLOAT16: contiguous runs widened and narrowed by the SDK's row conversions (F16C where the host has it) around
 * the FLOAT loop, a block at a time in cache; strided ones element by element */
#define F16_LOOP_(NAME)                                                                                       \
    static void NAME##_f16(char **d, const int64_t *s, int64_t n, const void *c) {                            \
        if (s[0] != 2 || s[1] != 2) {                                                                         \
            NAME##_f16_strided(d, s, n, c);                                                                   \
            return;                                                                                           \
        }                                                                                                     \
        float buf[BLOCK];                                                                                     \
        const int64_t fs[2] = {4, 4};                                                                         \
        for (int64_t i = 0; i < n; i += BLOCK) {                                                              \
            int64_t m = n - i < BLOCK ? n - i : BLOCK;                                                        \
            char *bd[2] = {(char *)buf, (char *)buf};                                                         \
            aclStubRowLoadF32(buf, d[1] + 2 * i, ACL_FLOAT16, m);                                             \
            NAME##_f32(bd, fs, m, c);                                                                         \
            aclStubRowStoreF32(d[0] + 2 * i, buf, ACL_FLOAT16, m);                                            \
        }                                                                                                     \
    }
#define FAST_F32(NAME, ...)                                                                                   \
    FAST_LOOP_(NAME, f32, float, AS_IS_, AS_IS_, __VA_ARGS__)                                                 \
    FAST_LOOP_(NAME, f16_strided, uint16_t, f16_load, f16_store, __VA_ARGS__)                                 \
    F16_LOOP_(NAME)                                                                                           \
    FAST_LOOP_(NAME, bf16, uint16_t, aclStubBf16ToF32, aclStubF32ToBf16, __VA_ARGS__)
/* DOUBLE alone, and its loop from an expression */
#define F64_SET(X, ...) X(f64, double, double, ACLSTUB_CT_F64, __VA_ARGS__)
/* A table: the fast FLOAT and 16-bit loops, DOUBLE and SET2 from expressions. */
#define FAST_LOOPS(NAME, F32EXPR, F64EXPR, SET2, EXPR2)                                                       \
    FAST_F32(NAME, F32EXPR)                                                                                   \
    ACLSTUB_EW_PUSH_ F64_SET(ACLSTUB_EW_UMAP_, NAME, F64EXPR) SET2(ACLSTUB_EW_UMAP_, NAME, EXPR2) ACLSTUB_EW_POP_ \
    static const aclStubEwLoops NAME = {{[ACLSTUB_CT_F32] = NAME##_f32, [ACLSTUB_CT_F16] = NAME##_f16,          \
                                         [ACLSTUB_CT_BF16] = NAME##_bf16, F64_SET(ACLSTUB_EW_ENTRY_, NAME, _)   \
                                         SET2(ACLSTUB_EW_ENTRY_, NAME, _)}};

#define CD(x) ((double complex)(x))
static const double LN2 = 0.693147180559945309417232121458176568, LN10 = 2.30258509299404568401799145468436421;

MATH_LOOPS_C(exp_loops, ACLSTUB_MATH_EXP, cexp(CD(x)))
MATH_LOOPS(exp2_loops, ACLSTUB_MATH_EXP2)
MATH_LOOPS(expm1_loops, ACLSTUB_MATH_EXPM1)
MATH_LOOPS_C(log_loops, ACLSTUB_MATH_LOG, clog(CD(x)))
MATH_LOOPS_C(log2_loops, ACLSTUB_MATH_LOG2, clog(CD(x)) / LN2)
MATH_LOOPS_C(log10_loops, ACLSTUB_MATH_LOG10, clog(CD(x)) / LN10)
MATH_LOOPS(log1p_loops, ACLSTUB_MATH_LOG1P)
MATH_LOOPS_C(sin_loops, ACLSTUB_MATH_SIN, csin(CD(x)))
MATH_LOOPS_C(cos_loops, ACLSTUB_MATH_COS, ccos(CD(x)))
MATH_LOOPS_C(tan_loops, ACLSTUB_MATH_TAN, ctan(CD(x)))
MATH_LOOPS(asin_loops, ACLSTUB_MATH_ASIN)
MATH_LOOPS(acos_loops, ACLSTUB_MATH_ACOS)
MATH_LOOPS(atan_loops, ACLSTUB_MATH_ATAN)
MATH_LOOPS_C(sinh_loops, ACLSTUB_MATH_SINH, csinh(CD(x)))
MATH_LOOPS_C(cosh_loops, ACLSTUB_MATH_COSH, ccosh(CD(x)))
MATH_LOOPS(tanh_loops, ACLSTUB_MATH_TANH)
MATH_LOOPS_C(asinh_loops, ACLSTUB_MATH_ASINH, casinh(CD(x)))
MATH_LOOPS_C(acosh_loops, ACLSTUB_MATH_ACOSH, cacosh(CD(x)))
MATH_LOOPS_C(atanh_loops, ACLSTUB_MATH_ATANH, catanh(CD(x)))
MATH_LOOPS(erf_loops, ACLSTUB_MATH_ERF)
MATH_LOOPS(erfc_loops, ACLSTUB_MATH_ERFC)
MATH_LOOPS(lgamma_loops, ACLSTUB_MATH_LGAMMA)
MATH_LOOPS(digamma_loops, ACLSTUB_MATH_DIGAMMA)

/* sqrt: IEEE square roots (correctly rounded); rsqrt: 1 divided by the double root, within an ulp of double and so
 * the correctly rounded FLOAT but for rare double-rounding cases */
FAST_LOOPS(sqrt_loops, sqrtf(x), sqrt(x), ACLSTUB_EW_COMPLEX, csqrt(CD(x)))
FAST_LOOPS(rsqrt_loops, 1.0 / sqrt((double)x), 1 / sqrt(x), ACLSTUB_EW_COMPLEX, 1 / csqrt(CD(x)))

/* reciprocal: IEEE division; complex by C's complex division */
FAST_LOOPS(reciprocal_loops, 1 / x, 1 / x, ACLSTUB_EW_COMPLEX, 1 / x)

/* sinc as the op_api composes it on Atlas A2/A3, every step rounded to the computation's dtype:
 * x == 0 ? 1 : sin(x * pi) / (x * pi), with pi itself rounded to that dtype (the engine rounds the quotient) */
static void round_block(float *v, int64_t m, aclDataType t) {
    if (t == ACL_FLOAT) return;
    uint16_t h[BLOCK];
    aclStubCastStrided(h, 2, t, v, 4, ACL_FLOAT, m);
    aclStubCastStrided(v, 4, ACL_FLOAT, h, 2, t, m);
}
static void sinc_f32(char **d, const int64_t *s, int64_t n, const void *c) {
    aclDataType t = ((const aclStubEwCtx *)c)->compute;
    float pi = (float)M_PI;
    round_block(&pi, 1, t);
    float p[BLOCK], sn[BLOCK];
    for (int64_t i = 0; i < n; i += BLOCK) {
        int64_t m = n - i < BLOCK ? n - i : BLOCK;
        for (int64_t k = 0; k < m; k++) {
            float x = *(const float *)(const void *)(d[1] + (i + k) * s[1]);
            p[k] = (x == 0 ? 1.0f : x) * pi;
        }
        round_block(p, m, t);
        aclStubMathF32(sn, p, m, ACLSTUB_MATH_SIN);
        round_block(sn, m, t);
        for (int64_t k = 0; k < m; k++) {
            float x = *(const float *)(const void *)(d[1] + (i + k) * s[1]);
            *(float *)(void *)(d[0] + (i + k) * s[0]) = x == 0 ? 1.0f : sn[k] / p[k];
        }
    }
}
static void sinc_f64(char **d, const int64_t *s, int64_t n, const void *c) {
    (void)c;
    for (int64_t i = 0; i < n; i++) {
        double x = *(const double *)(const void *)(d[1] + i * s[1]), p = x * M_PI;
        *(double *)(void *)(d[0] + i * s[0]) = x == 0 ? 1.0 : sin(p) / p;
    }
}
static const aclStubEwLoops sinc_loops = {{[ACLSTUB_CT_F32] = sinc_f32, [ACLSTUB_CT_F64] = sinc_f64}};

/* ---- the transcendental rows ------------------------------------------------------------------------------ */

#define INT_F ACLSTUB_EW_INT_TO_FLOAT
#define ANY_OUT ACLSTUB_EW_OUT_ANY

/* self: floats, integers, BOOL; out: floats (acos, asin, atan) */
ROW(ACOS, FLTD | INTB, FLTD, INT_F | ANY_OUT, acos_loops, C_SELF, NULL);
ROW(ASIN, FLTD | INTB, FLTD, INT_F | ANY_OUT, asin_loops, C_SELF, NULL);
ROW(ATAN, FLTD | INTB, FLTD, INT_F | ANY_OUT, atan_loops, C_SELF, NULL);
/* ... and complex: out floats or complex, any of them (sin, cos, cosh, asinh, atanh) */
ROW(SIN, FLTD | INTB | CPX, FLTD | CPX, INT_F | ANY_OUT, sin_loops, C_SELF, NULL);
ROW(COS, FLTD | INTB | CPX, FLTD | CPX, INT_F | ANY_OUT, cos_loops, C_SELF, NULL);
ROW(COSH, FLTD | INTB | CPX, FLTD | CPX, INT_F | ANY_OUT, cosh_loops, C_SELF, NULL);
ROW(ASINH, FLTD | INTB | CPX, FLTD | CPX, INT_F | ANY_OUT, asinh_loops, C_SELF, NULL);
ROW(ATANH, FLTD | INTB | CPX, FLTD | CPX, INT_F | ANY_OUT, atanh_loops, C_SELF, NULL);
/* sinh: integers and BOOL are cast to out's dtype first */
ROW(SINH, FLTD | INTB | CPX, FLTD | CPX, ANY_OUT, sinh_loops, C_OUT, NULL);
/* acosh: out in its list and a dtype self can be cast to */
ROW(ACOSH, FLTD | INTB | CPX, FLTD | CPX, INT_F, acosh_loops, C_SELF, NULL);
/* tan: no out list, the result must cast to out */
ROW(TAN, FLTD | INTB | CPX, 0, INT_F, tan_loops, C_SELF, NULL);
/* tanh: no DOUBLE; out in self's list; formats equal, not private */
ROW(TANH, FLT | INTB, 0,
    INT_F | ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_SAME_FORMAT | ACLSTUB_EW_NO_PRIVATE_FORMAT, tanh_loops, C_SELF, NULL);
/* erf, erfc: BOOL and INT64 computed in FLOAT */
ROW(ERF, FLTD | DT(BOOL) | DT(INT64), 0, INT_F, erf_loops, C_SELF, NULL);
ROW(ERFC, FLTD | DT(BOOL) | DT(INT64), 0, INT_F, erfc_loops, C_SELF, NULL);
ROW(EXP, FLTD | CPX | DT(BOOL) | DT(INT64), 0, INT_F, exp_loops, C_SELF, NULL);
ROW(EXPM1, FLT | DT(BOOL) | DT(INT64), 0, INT_F, expm1_loops, C_SELF, NULL);
ROW(EXP2, FLTD | INTB, 0, INT_F, exp2_loops, C_SELF, NULL);
/* log, log2: out in its list, self castable to it; log10: out is self's dtype (FLOAT for integers) */
ROW(LOG, FLTD | CPX | INTB, FLTD | CPX, INT_F, log_loops, C_SELF, NULL);
ROW(LOG2, FLTD | CPX | INTB, FLTD | CPX, INT_F, log2_loops, C_SELF, NULL);
ROW(LOG10, FLTD | CPX | INTB, 0, INT_F | ACLSTUB_EW_OUT_SAME, log10_loops, C_SELF, NULL);
ROW(LOG1P, FLTD | INTB, FLTD, ANY_OUT, log1p_loops, C_OUT, NULL);
ROW(SQRT, FLTD | CPX | INTB, 0, 0, sqrt_loops, C_SQRT, NULL);
ROW(RSQRT, FLTD | CPX | INTB, FLTD | CPX, ANY_OUT, rsqrt_loops, C_OUT, NULL);
ROW(RECIPROCAL, FLTD | CPX | INTB, FLTD | CPX, INT_F | ANY_OUT | ACLSTUB_EW_SAME_FORMAT, reciprocal_loops, C_SELF,
    NULL);
ROW(SINC, FLTD | INTB, FLTD, INT_F | ANY_OUT, sinc_loops, C_SELF, NULL);
/* digamma, lgamma: out is self's dtype, formats equal */
ROW(DIGAMMA, DT(DOUBLE) | DT(FLOAT) | DT(FLOAT16), 0, ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_FORMAT, digamma_loops,
    C_SELF, NULL);
ROW(LGAMMA, DT(DOUBLE) | DT(FLOAT) | DT(FLOAT16), 0, ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_FORMAT, lgamma_loops,
    C_SELF, NULL);

OP(aclnnAcos, ACOS, (const aclTensor *, input), (aclTensor *, out))
INPLACE(aclnnInplaceAcos, ACOS, (aclTensor *, inputRef))
OP(aclnnAsin, ASIN, (const aclTensor *, self), (aclTensor *, out))
INPLACE(aclnnInplaceAsin, ASIN, (aclTensor *, selfRef))
OP(aclnnAtan, ATAN, (const aclTensor *, input), (aclTensor *, out))
INPLACE(aclnnInplaceAtan, ATAN, (aclTensor *, inputRef))
OP_PAIR(Sin, SIN, const aclTensor *, aclTensor *, aclTensor *)
OP(aclnnCos, COS, (const aclTensor *, input), (aclTensor *, out))
INPLACE(aclnnInplaceCos, COS, (aclTensor *, inputRef))
OP_PAIR(Cosh, COSH, const aclTensor *, aclTensor *, aclTensor *)
OP(aclnnAsinh, ASINH, (const aclTensor *, input), (aclTensor *, out))
INPLACE(aclnnInplaceAsinh, ASINH, (aclTensor *, inputRef))
OP(aclnnAtanh, ATANH, (const aclTensor *, input), (aclTensor *, out))
INPLACE(aclnnInplaceAtanh, ATANH, (aclTensor *, inputRef))
OP_PAIR(Sinh, SINH, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Acosh, ACOSH, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Tan, TAN, const aclTensor *, aclTensor *, const aclTensor *)
OP_PAIR(Tanh, TANH, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Erf, ERF, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Erfc, ERFC, const aclTensor *, aclTensor *, const aclTensor *)
OP_PAIR(Exp, EXP, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Expm1, EXPM1, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Exp2, EXP2, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Log, LOG, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Log2, LOG2, const aclTensor *, const aclTensor *, const aclTensor *)
OP_PAIR(Log10, LOG10, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Log1p, LOG1P, const aclTensor *, aclTensor *, aclTensor *)
OP(aclnnSqrt, SQRT, (const aclTensor *, self), (aclTensor *, out))
INPLACE(aclnnInplaceSqrt, SQRT, (aclTensor *, self))
OP_PAIR(Rsqrt, RSQRT, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Reciprocal, RECIPROCAL, const aclTensor *, aclTensor *, const aclTensor *)
ACLSTUB_EW_OP_PRECHECK(aclnnSinc, SINC.ew, null_inner, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP_PRECHECK(aclnnInplaceSinc, SINC.ew, null_inner, (aclTensor *, selfRef))
OP(aclnnDigamma, DIGAMMA, (const aclTensor *, self), (aclTensor *, out))
OP(aclnnLgamma, LGAMMA, (const aclTensor *, self), (aclTensor *, out))

/* ---- magnitude and sign ------------------------------------------------------------------------------------ */

#define PRED_LOOPS3(NAME, SET1, EXPR1, SET2, EXPR2, SET3, EXPR3)                                              \
    ACLSTUB_EW_PUSH_ SET1(ACLSTUB_EW_UPRED_, NAME, EXPR1) SET2(ACLSTUB_EW_UPRED_, NAME, EXPR2)                 \
        SET3(ACLSTUB_EW_UPRED_, NAME, EXPR3) ACLSTUB_EW_POP_                                                  \
    static const aclStubEwLoops NAME = {                                                                      \
        {SET1(ACLSTUB_EW_ENTRY_, NAME, _) SET2(ACLSTUB_EW_ENTRY_, NAME, _) SET3(ACLSTUB_EW_ENTRY_, NAME, _)}};
#define PRED_LOOPS2(NAME, SET1, EXPR1, SET2, EXPR2)                                                           \
    ACLSTUB_EW_PUSH_ SET1(ACLSTUB_EW_UPRED_, NAME, EXPR1) SET2(ACLSTUB_EW_UPRED_, NAME, EXPR2) ACLSTUB_EW_POP_ \
    static const aclStubEwLoops NAME = {{SET1(ACLSTUB_EW_ENTRY_, NAME, _) SET2(ACLSTUB_EW_ENTRY_, NAME, _)}};
/* integers with UINT8, and the unsigned 16-64-bit ones, and BOOL */
#define INTS_U(X, ...) ACLSTUB_EW_INTS(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)
#define ALL_U(X, ...) ACLSTUB_EW_ALL(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)

/* abs: |x| (-0 gives +0); UINT8 and BOOL as they are; COMPLEX64 gives |x| as FLOAT */
FAST_F32(abs_loops, fabsf(x))
ACLSTUB_EW_PUSH_
F64_SET(ACLSTUB_EW_UMAP_, abs_loops, fabs(x))
ACLSTUB_EW_INTS(ACLSTUB_EW_UMAP_, abs_loops, x < 0 ? -x : x)
ACLSTUB_EW_BOOL(ACLSTUB_EW_UMAP_, abs_loops, x)
ACLSTUB_EW_COMPLEX(ACLSTUB_EW_UMAP_, abs_loops, cabs(CD(x)))
ACLSTUB_EW_POP_
static const aclStubEwLoops abs_all = {{[ACLSTUB_CT_F32] = abs_loops_f32, [ACLSTUB_CT_F16] = abs_loops_f16,
                                        [ACLSTUB_CT_BF16] = abs_loops_bf16, F64_SET(ACLSTUB_EW_ENTRY_, abs_loops, _)
                                        ACLSTUB_EW_INTEGRAL(ACLSTUB_EW_ENTRY_, abs_loops, _)
                                        ACLSTUB_EW_COMPLEX(ACLSTUB_EW_ENTRY_, abs_loops, _)}};
static aclnnStatus abs_rule(aclStubOpCall *call) {
    aclDataType t = call->v[0].tensor->dtype, o = out_of(call)->dtype;
    aclDataType want = t == ACL_COMPLEX64 ? ACL_FLOAT : t;
    ACLSTUB_RETURN_ERROR_IF(o != want, call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be %s for self dtype %s",
                            aclStubDtypeName(o), aclStubDtypeName(want), aclStubDtypeName(t));
    return OK;
}
ROW(ABS, FLTD | INTB | DT(COMPLEX64), 0, ANY_OUT | ACLSTUB_EW_SAME_FORMAT | ACLSTUB_EW_NO_PRIVATE_FORMAT, abs_all,
    C_SELF, abs_rule);
OP(aclnnAbs, ABS, (const aclTensor *, self), (aclTensor *, out))

/* neg: -x (integers wrap); out any dtype self casts to */
#define NEG_SET(X, ...) ACLSTUB_EW_INTS(X, __VA_ARGS__) ACLSTUB_EW_COMPLEX(X, __VA_ARGS__)
FAST_LOOPS(neg_loops, -x, -x, NEG_SET, -x)
ROW(NEG, FLTD | DT(INT8) | DT(INT32) | DT(INT64) | CPX, 0, 0, neg_loops, C_SELF, NULL);
OP_PAIR(Neg, NEG, const aclTensor *, aclTensor *, aclTensor *)

/* sign: 1, 0 or -1 (NaN gives 0, as torch's sign does); BOOL as it is; complex x / |x| (0 for 0). out is self's
 * dtype, except for BF16, which the op_api lets through without that rule; no rank limit */
FAST_F32(sign_loops, (x > 0) - (x < 0))
ACLSTUB_EW_PUSH_
F64_SET(ACLSTUB_EW_UMAP_, sign_loops, (x > 0) - (x < 0))
ACLSTUB_EW_INTS(ACLSTUB_EW_UMAP_, sign_loops, (x > 0) - (x < 0))
ACLSTUB_EW_BOOL(ACLSTUB_EW_UMAP_, sign_loops, x)
ACLSTUB_EW_COMPLEX(ACLSTUB_EW_UMAP_, sign_loops, x == 0 ? 0 : CD(x) / cabs(CD(x)))
ACLSTUB_EW_POP_
static const aclStubEwLoops sign_all = {{[ACLSTUB_CT_F32] = sign_loops_f32, [ACLSTUB_CT_F16] = sign_loops_f16,
                                         [ACLSTUB_CT_BF16] = sign_loops_bf16, F64_SET(ACLSTUB_EW_ENTRY_, sign_loops, _)
                                         ACLSTUB_EW_INTEGRAL(ACLSTUB_EW_ENTRY_, sign_loops, _)
                                         ACLSTUB_EW_COMPLEX(ACLSTUB_EW_ENTRY_, sign_loops, _)}};
static aclnnStatus sign_rule(aclStubOpCall *call) {
    aclDataType t = call->v[0].tensor->dtype, o = out_of(call)->dtype;
    ACLSTUB_RETURN_ERROR_IF(t != ACL_BF16 && o != t, call, ACLNN_ERR_PARAM_INVALID, "self dtype %s should be the "
                            "same as result dtype %s", aclStubDtypeName(t), aclStubDtypeName(o));
    return OK;
}
ROW(SIGN, FLTD | DT(INT32) | DT(INT64) | CPX | DT(BOOL), 0, ANY_OUT | ACLSTUB_EW_ANY_RANK, sign_all, C_SELF,
    sign_rule);
OP(aclnnSign, SIGN, (const aclTensor *, self), (aclTensor *, result))

/* signbit: true for negative values and -0 (the docs' rule; NaN gives false); unsigned and BOOL false */
PRED_LOOPS3(signbit_loops, ACLSTUB_EW_FLOATS, (x < 0) | ((x == 0) & (signbit(x) != 0)), INTS_U, x < 0,
            ACLSTUB_EW_BOOL, ((void)x, 0))
ROW(SIGNBIT, FLTD | INTB | ACLSTUB_DT_UINTS, 0, ACLSTUB_EW_PREDICATE | ACLSTUB_EW_OUT_IN_LIST, signbit_loops, C_SELF,
    NULL);
OP(aclnnSignbit, SIGNBIT, (const aclTensor *, self), (aclTensor *, out))

/* ---- rounding ------------------------------------------------------------------------------------------------- */

FAST_LOOPS(ceil_loops, ceilf(x), ceil(x), INTS_U, x)
FAST_LOOPS(floor_loops, floorf(x), floor(x), INTS_U, x)
FAST_LOOPS(trunc_loops, truncf(x), trunc(x), INTS_U, x)
FAST_LOOPS(frac_loops, x - truncf(x), x - trunc(x), INTS_U, ((void)x, 0))
ROW(CEIL, FLTD, 0, ACLSTUB_EW_OUT_SAME, ceil_loops, C_SELF, NULL);
ROW(FLOOR, FLTD | ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS, 0, ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_NO_PRIVATE_FORMAT,
    floor_loops, C_SELF, NULL);
ROW(TRUNC, FLT, 0, ACLSTUB_EW_OUT_SAME, trunc_loops, C_SELF, NULL);
ROW(FRAC, FLT | ACLSTUB_DT_INTS, 0, ACLSTUB_EW_OUT_SAME, frac_loops, C_SELF, NULL);
OP_PAIR(Ceil, CEIL, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Floor, FLOOR, const aclTensor *, aclTensor *, aclTensor *)
OP_PAIR(Trunc, TRUNC, const aclTensor *, aclTensor *, aclTensor *)
OP(aclnnFrac, FRAC, (const aclTensor *, input), (aclTensor *, out))
INPLACE(aclnnInplaceFrac, FRAC, (aclTensor *, inputRef))

/*
 * round half to even, to `decimals` decimal places as the op_api's kernel does: p = 10^|decimals| in the
 * computation's type, round(x * p) / p for decimals > 0 and round(x / p) * p below 0. Integers: unchanged for
 * decimals >= 0, else x / p * p with integer division (p saturated to the type's range).
 */
static inline float round_f(float x, int64_t dec) {
    if (dec == 0) return nearbyintf(x);
    float p = (float)pow(10.0, (double)(dec < 0 ? -dec : dec));
    return dec > 0 ? nearbyintf(x * p) / p : nearbyintf(x / p) * p;
}
static inline double round_d(double x, int64_t dec) {
    if (dec == 0) return nearbyint(x);
    double p = pow(10.0, (double)(dec < 0 ? -dec : dec));
    return dec > 0 ? nearbyint(x * p) / p : nearbyint(x / p) * p;
}
static inline int64_t pow10_sat(int64_t dec, int64_t max) {
    int64_t p = 1;
    for (int64_t k = 0; k < dec; k++) p = p > max / 10 ? max : p * 10;
    return p;
}
static inline int32_t round_i32(int32_t x, int64_t dec) {
    return dec >= 0 ? x : (int32_t)(x / (int32_t)pow10_sat(-dec, INT32_MAX) * (int32_t)pow10_sat(-dec, INT32_MAX));
}
static inline int64_t round_i64(int64_t x, int64_t dec) {
    return dec >= 0 ? x : x / pow10_sat(-dec, INT64_MAX) * pow10_sat(-dec, INT64_MAX);
}
#define ROUND_INTS(X, ...)                                                                                    \
    X(i32, int32_t, int32_t, ACLSTUB_CT_I32, __VA_ARGS__) X(i64, int64_t, int64_t, ACLSTUB_CT_I64, __VA_ARGS__)
FAST_LOOPS(round_loops, round_f(x, i0), round_d(x, i0), ROUND_INTS,
           _Generic(x, int32_t: round_i32, default: round_i64)(x, i0))
ROW(ROUND, FLTD | DT(INT32) | DT(INT64), 0, ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_NO_PRIVATE_FORMAT, round_loops, C_SELF,
    NULL);
OP(aclnnRound, ROUND, (const aclTensor *, self), (aclTensor *, out))
INPLACE(aclnnInplaceRound, ROUND, (const aclTensor *, selfRef))
OP(aclnnRoundDecimals, ROUND, (const aclTensor *, self), (int64_t, decimals), (aclTensor *, out))
INPLACE(aclnnInplaceRoundDecimals, ROUND, (aclTensor *, selfRef), (int64_t, decimals))

/* ---- predicates -------------------------------------------------------------------------------------------- */

PRED_LOOPS2(isfinite_loops, ACLSTUB_EW_FLOATS, isfinite(x), ACLSTUB_EW_INTEGRAL, ((void)x, 1))
PRED_LOOPS2(isinf_loops, ACLSTUB_EW_FLOATS, isinf(x), ACLSTUB_EW_INTEGRAL, ((void)x, 0))
PRED_LOOPS2(isneginf_loops, ACLSTUB_EW_FLOATS, x == -INFINITY, ACLSTUB_EW_INTEGRAL, ((void)x, 0))
PRED_LOOPS2(isposinf_loops, ACLSTUB_EW_FLOATS, x == INFINITY, ACLSTUB_EW_INTEGRAL, ((void)x, 0))
#define BOOL_OUT (ACLSTUB_EW_PREDICATE | ACLSTUB_EW_OUT_SAME)
ROW(ISFINITE, FLTD | INTB, 0, BOOL_OUT, isfinite_loops, C_SELF, NULL);
ROW(ISINF, FLT, 0, BOOL_OUT, isinf_loops, C_SELF, NULL); /* generated API: the operator's FLOAT16/FLOAT/BF16 */
ROW(ISNEGINF, FLT | INTB, 0, BOOL_OUT, isneginf_loops, C_SELF, NULL);
ROW(ISPOSINF, FLT | INTB, 0, BOOL_OUT, isposinf_loops, C_SELF, NULL);
OP(aclnnIsFinite, ISFINITE, (const aclTensor *, self), (aclTensor *, out))
OP(aclnnIsInf, ISINF, (const aclTensor *, x), (const aclTensor *, out))
OP(aclnnIsNegInf, ISNEGINF, (const aclTensor *, self), (aclTensor *, out))
OP(aclnnIsPosInf, ISPOSINF, (const aclTensor *, self), (aclTensor *, out))

/* ---- tanh's backward: gradOutput * (1 - output^2), operands broadcast, one dtype ----------------------------- */

ACLSTUB_EW_BINARY(tanh_grad_loops, ACLSTUB_EW_FLOATS, a * (1 - b * b))
static const Unary TANH_GRAD = {{2, FLTD, ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_OUT_IN_LIST,
                                 &tanh_grad_loops, unary_check, unary_result}, 0, C_SELF, NULL};
OP(aclnnTanhBackward, TANH_GRAD, (const aclTensor *, gradOutput), (const aclTensor *, output),
   (aclTensor *, gradInput))
