/*
 * op::Float4E2M1: the OCP MX FP4 format (1 sign bit, 2 exponent bits with bias 1, 1 mantissa bit; no
 * infinity, no NaN; magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6) held in the low 4 bits of `value`. The official
 * samples pack two of them per byte: op::Float4E2M1(x).value. Inline here, as fp16_t.h.
 *
 * Conversion from float follows nnopbase's: NaN gives +6, an infinity or anything rounding above 6 gives
 * +-6, zero keeps its sign; the mantissa is rounded to one bit at the value's own exponent, ties to even;
 * below 1 the rounded value is then shifted into the subnormal 0.5 by truncation, so [0.5, 0.875) gives 0.5,
 * [0.4375, 0.5) gives 0.5 and anything smaller gives a signed zero.
 *
 * C++ only (as the official header): a C translation unit sees nothing.
 */
#ifndef ACLNN_OPDEV_FLOAT4_E2M1_H_
#define ACLNN_OPDEV_FLOAT4_E2M1_H_

#ifdef __cplusplus

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

namespace op {

struct Float4E2M1 {
    struct FromBitsTag {};
    static constexpr FromBitsTag FromBits() { return FromBitsTag(); }

    uint8_t value;

    static constexpr uint8_t HIGHEST_VALUE = 0x07;        /* +6 */
    static constexpr uint8_t LOWEST_VALUE = 0x0F;         /* -6 */
    static constexpr uint8_t MIN_POS_NORMAL_VALUE = 0x02; /* 1 */
    static constexpr uint8_t BITS_MASK = 0x0F;
    static constexpr uint8_t EPSILON_VALUE = 0x01; /* 0.5 */

    constexpr Float4E2M1() : value(0) {}
    constexpr Float4E2M1(uint8_t bits, FromBitsTag) : value(static_cast<uint8_t>(bits & BITS_MASK)) {}
    Float4E2M1(float v) : value(BitsFromFloat(v)) {}

    operator float() const { return ToFloat(value); }
    operator double() const { return static_cast<double>(ToFloat(value)); }

    static constexpr Float4E2M1 Epsilon() { return Float4E2M1(EPSILON_VALUE, FromBits()); }
    static constexpr Float4E2M1 Highest() { return Float4E2M1(HIGHEST_VALUE, FromBits()); }
    static constexpr Float4E2M1 Lowest() { return Float4E2M1(LOWEST_VALUE, FromBits()); }
    static constexpr Float4E2M1 MinPositiveNormal() { return Float4E2M1(MIN_POS_NORMAL_VALUE, FromBits()); }

    bool IsZero() const { return (value & 0x07) == 0; }
    bool IsNaN() const { return false; }
    bool IsInf() const { return false; }

private:
    static float ToFloat(uint8_t bits) {
        static const float kMagnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
        const float m = kMagnitude[bits & 0x07];
        return (bits & 0x08) ? -m : m;
    }

    static uint8_t BitsFromFloat(float f) {
        if (std::isnan(f)) return HIGHEST_VALUE;
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        const uint8_t sign = static_cast<uint8_t>((bits >> 28) & 0x08);
        uint32_t biased = (bits >> 23) & 0xff, fraction = bits & 0x7fffff;
        if (biased == 0 && fraction == 0) return sign;
        if (biased == 0xff) return static_cast<uint8_t>(sign | HIGHEST_VALUE);
        int exponent = static_cast<int>(biased) - 127;
        if (biased == 0) { /* a float subnormal: normalise it */
            exponent = -126;
            while ((fraction & 0x800000) == 0) {
                fraction <<= 1;
                exponent--;
            }
            fraction &= 0x7fffff;
        }
        uint32_t mantissa = fraction >> 22;
        const uint32_t rest = fraction & 0x3fffff, half = 0x200000;
        if (rest > half || (rest == half && (mantissa & 1))) {
            if (++mantissa == 2) {
                mantissa = 0;
                exponent++;
            }
        }
        const int e2m1_exponent = exponent + 1;
        if (e2m1_exponent >= 4) return static_cast<uint8_t>(sign | HIGHEST_VALUE);
        if (e2m1_exponent <= 0) {
            if (e2m1_exponent < -1) return sign;
            return static_cast<uint8_t>(sign | ((mantissa | 2) >> (1 - e2m1_exponent)));
        }
        return static_cast<uint8_t>(sign | (e2m1_exponent << 1) | mantissa);
    }
};

inline std::ostream &operator<<(std::ostream &os, const Float4E2M1 &v) { return os << static_cast<float>(v); }

/* Found by argument-dependent lookup: isnan(x), isinf(x), isfinite(x). */
inline bool isinf(const Float4E2M1 &) { return false; }
inline bool isnan(const Float4E2M1 &) { return false; }
inline bool isfinite(const Float4E2M1 &) { return true; }

}  // namespace op

namespace std {
template <>
class numeric_limits<op::Float4E2M1> {
public:
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = false;
    static constexpr bool has_quiet_NaN = false;
    static constexpr bool has_signaling_NaN = false;
    static constexpr bool is_iec559 = false;
    static constexpr bool is_bounded = true;
    static constexpr bool is_modulo = false;
    static constexpr int radix = 2;
    static constexpr int digits = 1;
    static constexpr int digits10 = 0;
    static constexpr int max_digits10 = 1;
    static constexpr int min_exponent = -2;
    static constexpr int min_exponent10 = 0;
    static constexpr int max_exponent = 2;
    static constexpr int max_exponent10 = 0;
    static constexpr op::Float4E2M1 min() { return op::Float4E2M1::MinPositiveNormal(); }
    static constexpr op::Float4E2M1 lowest() { return op::Float4E2M1::Lowest(); }
    static constexpr op::Float4E2M1 max() { return op::Float4E2M1::Highest(); }
    static constexpr op::Float4E2M1 epsilon() { return op::Float4E2M1::Epsilon(); }
    static constexpr op::Float4E2M1 round_error() { return op::Float4E2M1::Epsilon(); }
    static constexpr op::Float4E2M1 denorm_min() { return op::Float4E2M1::Epsilon(); }
};
}  // namespace std

#endif /* __cplusplus */

#endif /* ACLNN_OPDEV_FLOAT4_E2M1_H_ */
