/*
 * op::fp16_t: an IEEE 754 binary16 value on the host, the type the official samples fill host buffers with
 * (std::vector<op::fp16_t> data(n, 1.0); static_cast<float>(data[i])). nnopbase's own header declares these
 * operations and defines them in its C++ library; here every one is inline, so a sample needs no C++
 * symbol from the (C) stub libraries.
 *
 * Semantics, as nnopbase's: a value converts to the nearest half, ties to even (overflow gives an infinity,
 * NaN gives the NaN with every mantissa bit set); a half converts to an integer rounded to nearest, ties to
 * even, saturated to the integer's range (NaN and +inf give the maximum, -inf the minimum); a uint16_t given
 * to the constructor is the bit pattern. Arithmetic is computed in double and rounded once.
 *
 * C++ only (as the official header): a C translation unit sees nothing.
 */
#ifndef ACLNN_OPDEV_FP16_T_H_
#define ACLNN_OPDEV_FP16_T_H_

#ifdef __cplusplus

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace op {

typedef enum tagFp16RoundMode {
    ROUND_TO_NEAREST = 0, /* ties to even: the only mode the conversions use */
    ROUND_BY_TRUNCATED,
    ROUND_MODE_RESERVED,
} fp16RoundMode_t;

namespace fp16_detail {

inline uint16_t HalfBitsFromDouble(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    const uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
    if (biased == 0x7ff) return static_cast<uint16_t>(sign | 0x7c00u | (fraction ? 0x3ffu : 0u));
    if (biased == 0) return sign; /* double subnormals are far below the smallest half */
    const int exponent = biased - 1023;
    if (exponent > 15) return static_cast<uint16_t>(sign | 0x7c00u);
    const uint64_t significand = fraction | (UINT64_C(1) << 52);
    /* Bits of the 53-bit significand below the half's last mantissa bit (normal or subnormal). */
    const int dropped = exponent >= -14 ? 42 : 28 - exponent;
    if (dropped >= 54) return sign;
    uint64_t kept = significand >> dropped;
    const uint64_t rest = significand & ((UINT64_C(1) << dropped) - 1), half = UINT64_C(1) << (dropped - 1);
    if (rest > half || (rest == half && (kept & 1))) kept++;
    if (exponent < -14) return static_cast<uint16_t>(sign | kept); /* 0x400 after rounding: the smallest normal */
    int half_exponent = exponent + 15;
    if (kept == 0x800) { /* rounding carried into the next binade */
        kept = 0x400;
        half_exponent++;
    }
    if (half_exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | (half_exponent << 10) | (kept & 0x3ffu));
}

inline double DoubleFromHalfBits(uint16_t bits) {
    const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    double magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<double>(mantissa), -24);
    else if (exponent == 31)
        magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else
        magnitude = std::ldexp(static_cast<double>(mantissa | 0x400), exponent - 25);
    return (bits & 0x8000u) ? -magnitude : magnitude;
}

template <typename I>
I IntegerFromDouble(double value) {
    typedef std::numeric_limits<I> limits;
    if (std::isnan(value)) return limits::max();
    double rounded = std::floor(value);
    const double fraction = value - rounded;
    if (fraction > 0.5 || (fraction == 0.5 && std::fmod(rounded, 2.0) != 0.0)) rounded += 1.0;
    if (rounded <= static_cast<double>(limits::min())) return limits::min();
    if (rounded >= static_cast<double>(limits::max())) return limits::max();
    return static_cast<I>(rounded);
}

template <typename T>
struct IsValueType {
    static const bool value = std::is_arithmetic<T>::value && !std::is_same<T, uint16_t>::value;
};

}  // namespace fp16_detail

typedef struct tagFp16 {
    uint16_t val;

    tagFp16() : val(0) {}
    constexpr tagFp16(const uint16_t &bits) : val(bits) {}
    template <typename T, typename std::enable_if<fp16_detail::IsValueType<T>::value, int>::type = 0>
    tagFp16(const T &value) : val(fp16_detail::HalfBitsFromDouble(static_cast<double>(value))) {}

    template <typename T, typename std::enable_if<std::is_arithmetic<T>::value, int>::type = 0>
    tagFp16 &operator=(const T &value) {
        val = fp16_detail::HalfBitsFromDouble(static_cast<double>(value));
        return *this;
    }

    double toDouble() const { return fp16_detail::DoubleFromHalfBits(val); }
    float toFloat() const { return static_cast<float>(toDouble()); }
    int8_t toInt8() const { return fp16_detail::IntegerFromDouble<int8_t>(toDouble()); }
    uint8_t toUInt8() const { return fp16_detail::IntegerFromDouble<uint8_t>(toDouble()); }
    int16_t toInt16() const { return fp16_detail::IntegerFromDouble<int16_t>(toDouble()); }
    uint16_t toUInt16() const { return fp16_detail::IntegerFromDouble<uint16_t>(toDouble()); }
    int32_t toInt32() const { return fp16_detail::IntegerFromDouble<int32_t>(toDouble()); }
    uint32_t toUInt32() const { return fp16_detail::IntegerFromDouble<uint32_t>(toDouble()); }
    int64_t toInt64() const { return fp16_detail::IntegerFromDouble<int64_t>(toDouble()); }
    uint64_t toUInt64() const { return fp16_detail::IntegerFromDouble<uint64_t>(toDouble()); }
    int IsInf() const { return (val & 0x7fffu) == 0x7c00u ? ((val & 0x8000u) ? -1 : 1) : 0; }

    operator float() const { return toFloat(); }
    operator double() const { return toDouble(); }
    operator int8_t() const { return toInt8(); }
    operator uint8_t() const { return toUInt8(); }
    operator int16_t() const { return toInt16(); }
    operator uint16_t() const { return toUInt16(); }
    operator int32_t() const { return toInt32(); }
    operator uint32_t() const { return toUInt32(); }
    operator int64_t() const { return toInt64(); }
    operator uint64_t() const { return toUInt64(); }
    operator bool() const { return (val & 0x7fffu) != 0; }

    tagFp16 operator+(const tagFp16 &other) const { return tagFp16(toDouble() + other.toDouble()); }
    tagFp16 operator-(const tagFp16 &other) const { return tagFp16(toDouble() - other.toDouble()); }
    tagFp16 operator*(const tagFp16 &other) const { return tagFp16(toDouble() * other.toDouble()); }
    tagFp16 operator/(const tagFp16 &other) const { return tagFp16(toDouble() / other.toDouble()); }
    tagFp16 operator-() const { return tagFp16(static_cast<uint16_t>(val ^ 0x8000u)); }
    tagFp16 &operator+=(const tagFp16 &other) { return *this = *this + other; }
    tagFp16 &operator-=(const tagFp16 &other) { return *this = *this - other; }
    tagFp16 &operator*=(const tagFp16 &other) { return *this = *this * other; }
    tagFp16 &operator/=(const tagFp16 &other) { return *this = *this / other; }
    bool operator==(const tagFp16 &other) const { return toDouble() == other.toDouble(); }
    bool operator!=(const tagFp16 &other) const { return toDouble() != other.toDouble(); }
    bool operator<(const tagFp16 &other) const { return toDouble() < other.toDouble(); }
    bool operator<=(const tagFp16 &other) const { return toDouble() <= other.toDouble(); }
    bool operator>(const tagFp16 &other) const { return toDouble() > other.toDouble(); }
    bool operator>=(const tagFp16 &other) const { return toDouble() >= other.toDouble(); }
} fp16_t;

static_assert(sizeof(fp16_t) == 2, "fp16_t is the 2-byte element of an ACL_FLOAT16 buffer");
static_assert(std::is_trivially_copyable<fp16_t>::value, "fp16_t buffers are copied with memcpy");

}  // namespace op

#endif /* __cplusplus */

#endif /* ACLNN_OPDEV_FP16_T_H_ */
