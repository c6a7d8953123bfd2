/*
 * Scalar math of the activation operators (stubs/ops/nn/activation*.c): every function takes and returns double,
 * so a float32 (or 16-bit) element computed through it is rounded once, to the loop's type. The device's own
 * approximations of these transcendental functions are not documented; the correctly rounded result is the rule.
 */
#ifndef ACLNN_STUB_OPS_NN_ACT_MATH_H_
#define ACLNN_STUB_OPS_NN_ACT_MATH_H_

#include <complex.h>
#include <math.h>

/* Always inlined: the loops calling them are target clones, into which GCC inlines nothing it may decline. */
#define ACT_INLINE __attribute__((always_inline))

#define ACT_SQRT_2_OVER_PI 0.79788456080286535587989211986876 /* sqrt(2 / pi) */
#define ACT_INV_SQRT_2PI 0.39894228040143267793994605993438   /* 1 / sqrt(2 pi) */
#define ACT_GELU_C 0.044715
#define ACT_SELU_ALPHA 1.6732632423543772848170429916717
#define ACT_SELU_SCALE 1.0507009873554804934193349852946

#include <stdint.h>
#include <string.h>

/*
 * exp(x) in double, branch-free so that the loops calling it vectorise: x = k ln2 + r with |r| <= ln2 / 2, exp(r) by
 * its Taylor polynomial to degree 13 (relative error below 1e-17), times 2^k applied as two powers of two so that
 * subnormal and overflowing results come out right. NaN stays NaN, -inf gives 0, +inf gives +inf.
 */
static inline ACT_INLINE double act_exp(double x) {
    const double shift = 0x1.8p52, ln2hi = 0x1.62e42feep-1, ln2lo = 0x1.a39ef35793c76p-33;
    double xc = x < -746.0 ? -746.0 : (x > 710.0 ? 710.0 : x);
    double kd = xc * 0x1.71547652b82fep0 + shift;
    int64_t kb, sb;
    memcpy(&kb, &kd, 8);
    memcpy(&sb, &shift, 8);
    kd -= shift;
    double r = (xc - kd * ln2hi) - kd * ln2lo;
    double p = 1.0 / 6227020800.0;
    p = 1.0 / 479001600.0 + r * p;
    p = 1.0 / 39916800.0 + r * p;
    p = 1.0 / 3628800.0 + r * p;
    p = 1.0 / 362880.0 + r * p;
    p = 1.0 / 40320.0 + r * p;
    p = 1.0 / 5040.0 + r * p;
    p = 1.0 / 720.0 + r * p;
    p = 1.0 / 120.0 + r * p;
    p = 1.0 / 24.0 + r * p;
    p = 1.0 / 6.0 + r * p;
    p = 0.5 + r * p;
    p = 1.0 + r * p;
    p = 1.0 + r * p;
    /* k1 = floor(k / 2) by the same rounding trick (no 64-bit arithmetic shift: SSE2 and AVX2 have none) */
    double k1d = (kd * 0.5 - 0.25) + shift;
    int64_t k1b;
    memcpy(&k1b, &k1d, 8);
    int64_t k = kb - sb, k1 = k1b - sb, k2 = k - k1;
    int64_t b1 = (k1 + 1023) << 52, b2 = (k2 + 1023) << 52;
    double s1, s2;
    memcpy(&s1, &b1, 8);
    memcpy(&s2, &b2, 8);
    return x != x ? x : p * s1 * s2;
}

/* exp(x) - 1 without cancellation near 0 (its Taylor polynomial below 1/4 in magnitude). */
static inline ACT_INLINE double act_expm1(double x) {
    double p = 1.0 / 87178291200.0;
    p = 1.0 / 6227020800.0 + x * p;
    p = 1.0 / 479001600.0 + x * p;
    p = 1.0 / 39916800.0 + x * p;
    p = 1.0 / 3628800.0 + x * p;
    p = 1.0 / 362880.0 + x * p;
    p = 1.0 / 40320.0 + x * p;
    p = 1.0 / 5040.0 + x * p;
    p = 1.0 / 720.0 + x * p;
    p = 1.0 / 120.0 + x * p;
    p = 1.0 / 24.0 + x * p;
    p = 1.0 / 6.0 + x * p;
    p = 0.5 + x * p;
    double small = x + x * x * p;
    return fabs(x) < 0.25 ? small : act_exp(x) - 1.0;
}

/* tanh(x) = expm1(2|x|) / (expm1(2|x|) + 2) with the sign of x; 1 in magnitude beyond 20. */
static inline ACT_INLINE double act_tanh(double x) {
    double a = fabs(x);
    a = a > 20.0 ? 20.0 : a;
    double t = act_expm1(2.0 * a);
    return copysign(t / (t + 2.0), x); /* NaN stays NaN */
}

static inline ACT_INLINE double act_sigmoid(double x) { return 1.0 / (1.0 + act_exp(-x)); }
/* log(1 + e) for e in [0, 1] (branch-free): y = 1 + e = 2^k m with m in [sqrt(1/2), sqrt(2)), log(m) by the
 * series of 2 atanh((m - 1) / (m + 1)) to degree 21 (error below 1e-19), plus the rounding error of 1 + e. */
static inline ACT_INLINE double act_log1p_unit(double e) {
    double y = 1.0 + e, c = e - (y - 1.0); /* y + c == 1 + e exactly */
    double big = y > 1.4142135623730951 ? 1.0 : 0.0, m = big != 0 ? y * 0.5 : y;
    double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double p = 1.0 / 21;
    p = 1.0 / 19 + s2 * p;
    p = 1.0 / 17 + s2 * p;
    p = 1.0 / 15 + s2 * p;
    p = 1.0 / 13 + s2 * p;
    p = 1.0 / 11 + s2 * p;
    p = 1.0 / 9 + s2 * p;
    p = 1.0 / 7 + s2 * p;
    p = 1.0 / 5 + s2 * p;
    p = 1.0 / 3 + s2 * p;
    p = 1.0 + s2 * p;
    return big * 0.69314718055994530942 + 2.0 * s * p + c / y;
}
/* log(1 + exp(x)) without overflow */
static inline ACT_INLINE double act_softplus(double x) {
    double a = x < 0 ? -x : x, l = act_log1p_unit(act_exp(-a));
    return x != x ? x : (x > 0 ? x + l : l);
}
static inline ACT_INLINE double act_log_sigmoid(double x) { return -act_softplus(-x); }
/* 0.5 x (1 + tanh(z)) written as x / (1 + exp(-2z)), which keeps its precision for negative x */
static inline ACT_INLINE double act_gelu_tanh(double x) {
    double z = ACT_SQRT_2_OVER_PI * (x + ACT_GELU_C * x * x * x);
    return x / (1.0 + act_exp(-2.0 * z));
}
static inline ACT_INLINE double act_gelu_erf(double x) { return 0.5 * x * erfc(-x * M_SQRT1_2); }
static inline ACT_INLINE double act_gelu_tanh_grad(double x) {
    double z = ACT_SQRT_2_OVER_PI * (x + ACT_GELU_C * x * x * x), t = act_tanh(z);
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * ACT_SQRT_2_OVER_PI * (1.0 + 3.0 * ACT_GELU_C * x * x);
}
static inline ACT_INLINE double act_gelu_erf_grad(double x) {
    return 0.5 * erfc(-x * M_SQRT1_2) + x * ACT_INV_SQRT_2PI * exp(-0.5 * x * x);
}
/* tanh(softplus(x)) = n / (n + 2) with n = e^x (e^x + 2); 1 beyond x = 20 */
static inline ACT_INLINE double act_tanh_softplus(double x) {
    double e = act_exp(x < 20.0 ? x : 20.0), n = e * (e + 2.0);
    return n / (n + 2.0);
}
static inline ACT_INLINE double act_mish(double x) { return x * act_tanh_softplus(x); }
static inline ACT_INLINE double act_mish_grad(double x) {
    double t = act_tanh_softplus(x);
    return t + x * (1.0 - t * t) * act_sigmoid(x);
}
/* x sigmoid(b x) and its derivative (silu: b = 1; fast gelu: b = 1.702) */
static inline ACT_INLINE double act_swish(double x, double b) { return x * act_sigmoid(b * x); }
static inline ACT_INLINE double act_swish_grad(double x, double b) {
    double s = act_sigmoid(b * x);
    return s + b * x * s * (1.0 - s);
}

/* The inverse error function: an approximation (M. Giles) refined by Newton steps on erf (erfc near +-1). */
static inline ACT_INLINE double act_erfinv(double y) {
    if (isnan(y) || y < -1.0 || y > 1.0) return NAN;
    if (y == 1.0) return INFINITY;
    if (y == -1.0) return -INFINITY;
    double w = -log((1.0 - y) * (1.0 + y)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    double x = p * y, a = fabs(y);
    for (int i = 0; i < 3 && isfinite(x); i++) {
        double d = 2.0 * ACT_INV_SQRT_2PI * M_SQRT2 * exp(-x * x); /* erf'(x) = 2 / sqrt(pi) exp(-x^2) */
        if (d == 0) break;
        /* erfc(|x|) - (1 - |y|) is exact in its second term for |y| >= 0.5 */
        double f = a >= 0.5 ? (1.0 - a) - erfc(fabs(x)) : erf(x) - y;
        x -= (a >= 0.5 ? (y < 0 ? -f : f) : f) / d;
    }
    return x;
}

static inline double complex act_csigmoid(double complex z) { return 1.0 / (1.0 + cexp(-z)); }

/* x sigmoid(x) for real loops; complex loops take the complex formula (used through _Generic). */
#define ACT_SIGMOID(x)                                                                                       \
    _Generic((x), float _Complex: (float _Complex)act_csigmoid((double complex)(x)),                         \
             double _Complex: act_csigmoid((double complex)(x)), default: act_sigmoid((double)(x)))
/* y (1 - y) for the sigmoid gradient: conj on complex values, as torch's sigmoid_backward */
#define ACT_SIGMOID_DERIV(y)                                                                                 \
    _Generic((y), float _Complex: conjf((y) * (1.0f - (y))), double _Complex: conj((y) * (1.0 - (y))),       \
             default: (double)(y) * (1.0 - (double)(y)))

#endif /* ACLNN_STUB_OPS_NN_ACT_MATH_H_ */
