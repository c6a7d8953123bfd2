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
 * its Taylor polynomial to degree 13 (truncation below 1e-17 relative; evaluated by Estrin's scheme, whose short
 * dependency chain is what bounds the speed of these loops), times 2^k applied as two powers of two so that
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
    double e0_0 = 1.0 + r;
    double e0_1 = 0.5 + (1.0 / 6.0) * r;
    double e0_2 = (1.0 / 24.0) + (1.0 / 120.0) * r;
    double e0_3 = (1.0 / 720.0) + (1.0 / 5040.0) * r;
    double e0_4 = (1.0 / 40320.0) + (1.0 / 362880.0) * r;
    double e0_5 = (1.0 / 3628800.0) + (1.0 / 39916800.0) * r;
    double e0_6 = (1.0 / 479001600.0) + (1.0 / 6227020800.0) * r;
    double r2 = r * r;
    double e1_0 = e0_0 + e0_1 * r2;
    double e1_1 = e0_2 + e0_3 * r2;
    double e1_2 = e0_4 + e0_5 * r2;
    double r4 = r2 * r2;
    double e2_0 = e1_0 + e1_1 * r4;
    double e2_1 = e1_2 + e0_6 * r4;
    double r8 = r4 * r4;
    double e3_0 = e2_0 + e2_1 * r8;
    double p = e3_0;
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
/* log(m) for m in [sqrt(1/2), sqrt(2)): the series of 2 atanh((m - 1) / (m + 1)) to degree 21 (branch-free) */
static inline ACT_INLINE double act_log_mantissa(double m) {
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
    return 2.0 * s * p;
}
/* log(1 + e) for e in [0, 1] (branch-free): y = 1 + e = 2^k m with m in [sqrt(1/2), sqrt(2)), log(m) by the
 * series of 2 atanh((m - 1) / (m + 1)) to degree 21 (error below 1e-19), plus the rounding error of 1 + e. */
static inline ACT_INLINE double act_log1p_unit(double e) {
    double y = 1.0 + e, c = e - (y - 1.0); /* y + c == 1 + e exactly */
    double big = y > 1.4142135623730951 ? 1.0 : 0.0, m = big != 0 ? y * 0.5 : y;
    return big * 0.69314718055994530942 + act_log_mantissa(m) + c / y;
}
/* log(1 + exp(x)) without overflow */
static inline ACT_INLINE double act_softplus(double x) {
    double a = x < 0 ? -x : x, l = act_log1p_unit(act_exp(-a));
    return x != x ? x : (x > 0 ? x + l : l);
}
static inline ACT_INLINE double act_log_sigmoid(double x) { return -act_softplus(-x); }
/*
 * erf and erfc in double, branch-free so that the loops calling them vectorise. For |z| >= 1/2:
 * erfc(|z|) = e * erfcx(|z|) with e = exp(-z^2) given by the caller (exactly -z^2 in its argument where z is a
 * float, whose square a double holds) and erfcx(z) = erfc(z) exp(z^2) = h(t) / (z + 3), t = (z - 3) / (z + 3),
 * h by the degree-23 polynomial in t of its Chebyshev series (our fit, series tail below 3e-17; relative error of
 * erfcx below 7e-16 over [0, 11] in double). For |z| < 1/2: erf by its Taylor series to z^25 (terms below 6e-18
 * relative). Polynomials are evaluated by Estrin's scheme: a short dependency chain, which is what bounds the
 * speed of these loops.
 */
static const double ACT_ERFCX_POLY[24] = {
    1.0740069070883398, -0.8833944531698834, 0.5902283571041079, -0.3104672619005832,
    0.11952776128699893, -0.026827234624051417, -0.0012124166218294855, 0.003034061996058138,
    -0.0005483097427484961, -0.00027677781402214095, 0.00010756177091043848, 3.039805158572681e-05,
    -1.747157222290802e-05, -4.7490282761035755e-06, 2.767748892060422e-06, 9.988170142910974e-07,
    -4.1168528099116056e-07, -2.3385368009140523e-07, 4.9957921660772474e-08, 5.11824219701207e-08,
    -3.5681656857277103e-09, -8.693774269035828e-09, 6.954942232514036e-12, 8.110687296189993e-10,
};
static const double ACT_ERF_TAYLOR[13] = {
    1.1283791670955126, -0.37612638903183754, 0.11283791670955126, -0.026866170645131252,
    0.005223977625442188, -0.0008548327023450853, 0.00012055332981789664, -1.492565035840625e-05,
    1.6462114365889248e-06, -1.6365844691234924e-07, 1.4807192815879218e-08, -1.2290555301717928e-09,
    9.422759064650411e-11,
};
/* erfc(z) exp(z^2) for z >= 0 (NaN stays NaN; beyond 1e6, the value at 1e6) */
static inline ACT_INLINE double act_erfcx_pos(double z) {
    double zc = z > 1e6 ? 1e6 : z, t = (zc - 3.0) / (zc + 3.0);
    double e0_0 = ACT_ERFCX_POLY[0] + ACT_ERFCX_POLY[1] * t;
    double e0_1 = ACT_ERFCX_POLY[2] + ACT_ERFCX_POLY[3] * t;
    double e0_2 = ACT_ERFCX_POLY[4] + ACT_ERFCX_POLY[5] * t;
    double e0_3 = ACT_ERFCX_POLY[6] + ACT_ERFCX_POLY[7] * t;
    double e0_4 = ACT_ERFCX_POLY[8] + ACT_ERFCX_POLY[9] * t;
    double e0_5 = ACT_ERFCX_POLY[10] + ACT_ERFCX_POLY[11] * t;
    double e0_6 = ACT_ERFCX_POLY[12] + ACT_ERFCX_POLY[13] * t;
    double e0_7 = ACT_ERFCX_POLY[14] + ACT_ERFCX_POLY[15] * t;
    double e0_8 = ACT_ERFCX_POLY[16] + ACT_ERFCX_POLY[17] * t;
    double e0_9 = ACT_ERFCX_POLY[18] + ACT_ERFCX_POLY[19] * t;
    double e0_10 = ACT_ERFCX_POLY[20] + ACT_ERFCX_POLY[21] * t;
    double e0_11 = ACT_ERFCX_POLY[22] + ACT_ERFCX_POLY[23] * t;
    double t2 = t * t;
    double e1_0 = e0_0 + e0_1 * t2;
    double e1_1 = e0_2 + e0_3 * t2;
    double e1_2 = e0_4 + e0_5 * t2;
    double e1_3 = e0_6 + e0_7 * t2;
    double e1_4 = e0_8 + e0_9 * t2;
    double e1_5 = e0_10 + e0_11 * t2;
    double t4 = t2 * t2;
    double e2_0 = e1_0 + e1_1 * t4;
    double e2_1 = e1_2 + e1_3 * t4;
    double e2_2 = e1_4 + e1_5 * t4;
    double t8 = t4 * t4;
    double e3_0 = e2_0 + e2_1 * t8;
    double t16 = t8 * t8;
    double e4_0 = e3_0 + e2_2 * t16;
    double h = e4_0;
    return h / (zc + 3.0);
}
/* erf(z) for |z| < 1/2 */
static inline ACT_INLINE double act_erf_small(double z) {
    double w = z * z;
    double e0_0 = ACT_ERF_TAYLOR[0] + ACT_ERF_TAYLOR[1] * w;
    double e0_1 = ACT_ERF_TAYLOR[2] + ACT_ERF_TAYLOR[3] * w;
    double e0_2 = ACT_ERF_TAYLOR[4] + ACT_ERF_TAYLOR[5] * w;
    double e0_3 = ACT_ERF_TAYLOR[6] + ACT_ERF_TAYLOR[7] * w;
    double e0_4 = ACT_ERF_TAYLOR[8] + ACT_ERF_TAYLOR[9] * w;
    double e0_5 = ACT_ERF_TAYLOR[10] + ACT_ERF_TAYLOR[11] * w;
    double w2 = w * w;
    double e1_0 = e0_0 + e0_1 * w2;
    double e1_1 = e0_2 + e0_3 * w2;
    double e1_2 = e0_4 + e0_5 * w2;
    double w4 = w2 * w2;
    double e2_0 = e1_0 + e1_1 * w4;
    double e2_1 = e1_2 + ACT_ERF_TAYLOR[12] * w4;
    double w8 = w4 * w4;
    double e3_0 = e2_0 + e2_1 * w8;
    double p = e3_0;
    return z * p;
}
/* erfc(z) and erf(z), e = exp(-z^2) */
static inline ACT_INLINE double act_erfc_e(double z, double e) {
    double a = fabs(z), big = e * act_erfcx_pos(a);
    return a < 0.5 ? 1.0 - act_erf_small(z) : (z > 0 ? big : 2.0 - big);
}
static inline ACT_INLINE double act_erf_e(double z, double e) {
    double a = fabs(z), big = e * act_erfcx_pos(a);
    return a < 0.5 ? act_erf_small(z) : copysign(1.0 - big, z);
}
/* erf and erfc of a float (or 16-bit) value: its square is exact in double */
static inline ACT_INLINE double act_erf(double z) { return act_erf_e(z, act_exp(-(z * z))); }
static inline ACT_INLINE double act_erfc(double z) { return act_erfc_e(z, act_exp(-(z * z))); }
/* 0.5 x (1 + tanh(z)) written as x / (1 + exp(-2z)), which keeps its precision for negative x */
static inline ACT_INLINE double act_gelu_tanh(double x) {
    double z = ACT_SQRT_2_OVER_PI * (x + ACT_GELU_C * x * x * x);
    return x / (1.0 + act_exp(-2.0 * z));
}
/* 0.5 x erfc(-x / sqrt(2)): exp(-x^2 / 2) from the exact square of the float (or 16-bit) x */
static inline ACT_INLINE double act_gelu_erf(double x) {
    return 0.5 * x * act_erfc_e(-x * M_SQRT1_2, act_exp(-0.5 * (x * x)));
}
static inline ACT_INLINE double act_gelu_tanh_grad(double x) {
    double z = ACT_SQRT_2_OVER_PI * (x + ACT_GELU_C * x * x * x), t = act_tanh(z);
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * ACT_SQRT_2_OVER_PI * (1.0 + 3.0 * ACT_GELU_C * x * x);
}
static inline ACT_INLINE double act_gelu_erf_grad(double x) {
    double e = act_exp(-0.5 * (x * x));
    return 0.5 * act_erfc_e(-x * M_SQRT1_2, e) + x * ACT_INV_SQRT_2PI * e;
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

/* log(v) for a positive normal v, branch-free: v = 2^k m with m in [sqrt(1/2), sqrt(2)), log(m) by the series of
 * 2 atanh((m - 1) / (m + 1)) to degree 21 (error below 1e-19). */
static inline ACT_INLINE double act_log_pos(double v) {
    uint64_t b, mb, eb;
    memcpy(&b, &v, 8);
    eb = (b >> 52) | UINT64_C(0x4330000000000000); /* the biased exponent as the double 2^52 + e */
    mb = (b & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000);
    double m, ed;
    memcpy(&m, &mb, 8);
    memcpy(&ed, &eb, 8);
    double big = m > 1.4142135623730951 ? 1.0 : 0.0;
    m = big != 0 ? m * 0.5 : m;
    double k = (ed - 0x1p52) - 1023.0 + big;
    return k * 0.69314718055994530942 + act_log_mantissa(m);
}

/* The inverse error function, branch-free: an approximation (M. Giles, "Approximating the erfinv function", its
 * single precision polynomials) refined by one Halley step on erf(x) = |y| (erfc(x) = 1 - |y| for |y| >= 1/2,
 * whose right-hand side is exact), cubically convergent; erfinv is odd. Over every third positive FLOAT
 * argument: relative error below 1e-15, and the float results are those of long double evaluations rounded once;
 * the initial approximation is too coarse for (double) arguments much closer to 1 than FLOAT ones. */
static inline ACT_INLINE double act_erfinv(double y) {
    double a = fabs(y), ac = a < 1.0 ? a : 0.5;
    double w = -act_log_pos((1.0 - ac) * (1.0 + ac));
    double u = w - 2.5;
    double a0_0 = 1.50140941 + 0.246640727 * u;
    double a0_1 = (-0.00417768164) + (-0.00125372503) * u;
    double a0_2 = 0.00021858087 + (-4.39150654e-06) * u;
    double a0_3 = (-3.5233877e-06) + 3.43273939e-07 * u;
    double u2 = u * u;
    double a1_0 = a0_0 + a0_1 * u2;
    double a1_1 = a0_2 + a0_3 * u2;
    double u4 = u2 * u2;
    double a2_0 = a1_0 + a1_1 * u4;
    double u8 = u4 * u4;
    double a3_0 = a2_0 + 2.81022636e-08 * u8;
    double p1 = a3_0;
    double v = sqrt(w) - 3.0;
    double b0_0 = 2.83297682 + 1.00167406 * v;
    double b0_1 = 0.00943887047 + (-0.0076224613) * v;
    double b0_2 = 0.00573950773 + (-0.00367342844) * v;
    double b0_3 = 0.00134934322 + 0.000100950558 * v;
    double v2 = v * v;
    double b1_0 = b0_0 + b0_1 * v2;
    double b1_1 = b0_2 + b0_3 * v2;
    double v4 = v2 * v2;
    double b2_0 = b1_0 + b1_1 * v4;
    double v8 = v4 * v4;
    double b3_0 = b2_0 + (-0.000200214257) * v8;
    double p2 = b3_0;
    double x = (w < 5.0 ? p1 : p2) * ac;
    double e = act_exp(-(x * x));
    double f = ac >= 0.5 ? (1.0 - ac) - act_erfc_e(x, e) : act_erf_e(x, e) - ac;
    x -= f / (1.1283791670955126 * e + x * f); /* erf' = 2 / sqrt(pi) e, erf'' = -2 x erf' */
    return y != y || a > 1.0 ? NAN : (a == 1.0 ? copysign(INFINITY, y) : copysign(x, y));
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
