/*
 * Scalar math of the activation operators (stubs/ops/nn/activation*.c): every function takes and returns double,
 * so a float32 (or 16-bit) element computed through it is rounded once, to the loop's type. The device's own
 * approximations of these transcendental functions are not documented; the correctly rounded result is the rule.
 */
#ifndef ACLNN_STUB_OPS_NN_ACT_MATH_H_
#define ACLNN_STUB_OPS_NN_ACT_MATH_H_

#include <complex.h>
#include <math.h>

#define ACT_SQRT_2_OVER_PI 0.79788456080286535587989211986876 /* sqrt(2 / pi) */
#define ACT_INV_SQRT_2PI 0.39894228040143267793994605993438   /* 1 / sqrt(2 pi) */
#define ACT_GELU_C 0.044715
#define ACT_SELU_ALPHA 1.6732632423543772848170429916717
#define ACT_SELU_SCALE 1.0507009873554804934193349852946

static inline double act_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
/* log(1 + exp(x)) without overflow */
static inline double act_softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
static inline double act_log_sigmoid(double x) { return -act_softplus(-x); }
/* 0.5 x (1 + tanh(z)) written as x / (1 + exp(-2z)), which keeps its precision for negative x */
static inline double act_gelu_tanh(double x) {
    double z = ACT_SQRT_2_OVER_PI * (x + ACT_GELU_C * x * x * x);
    return x / (1.0 + exp(-2.0 * z));
}
static inline double act_gelu_erf(double x) { return 0.5 * x * erfc(-x * M_SQRT1_2); }
static inline double act_gelu_tanh_grad(double x) {
    double z = ACT_SQRT_2_OVER_PI * (x + ACT_GELU_C * x * x * x), t = tanh(z);
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * ACT_SQRT_2_OVER_PI * (1.0 + 3.0 * ACT_GELU_C * x * x);
}
static inline double act_gelu_erf_grad(double x) {
    return 0.5 * erfc(-x * M_SQRT1_2) + x * ACT_INV_SQRT_2PI * exp(-0.5 * x * x);
}
static inline double act_mish(double x) { return x * tanh(act_softplus(x)); }
static inline double act_mish_grad(double x) {
    double t = tanh(act_softplus(x));
    return t + x * (1.0 - t * t) * act_sigmoid(x);
}
/* x sigmoid(b x) and its derivative (silu: b = 1; fast gelu: b = 1.702) */
static inline double act_swish(double x, double b) { return x * act_sigmoid(b * x); }
static inline double act_swish_grad(double x, double b) {
    double s = act_sigmoid(b * x);
    return s + b * x * s * (1.0 - s);
}

/* The inverse error function: an approximation (M. Giles) refined by Newton steps on erf (erfc near +-1). */
static inline double act_erfinv(double y) {
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
