/* Element sizes and CANN's public fp16 helpers. */
#include <string.h>

#include "rt_internal.h"

size_t aclDataTypeSize(aclDataType dataType) {
    /* Mirrors CANN's switch, including its default branch (8) for every unlisted value. */
    switch (dataType) {
    case ACL_DT_UNDEFINED:
    case ACL_STRING:
        return 0;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
        return 8;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 8;
    }
}

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* CANN's helper has no inf/NaN: exponent 31 decodes like any other exponent, so +inf (0x7C00) gives 65536,
 * the canonical NaN (0x7E00) 98304, and signs are kept. Everything else is the exact IEEE value. */
float aclFloat16ToFloat(aclFloat16 value) {
    uint32_t sign = (uint32_t)(value & 0x8000u) << 16;
    uint32_t exp = (value >> 10) & 0x1Fu, man = value & 0x3FFu;
    if (exp == 0) {
        if (man == 0) return bits_float(sign);
        /* Subnormal: shift the leading 1 into the hidden-bit position, lowering the exponent each time. */
        uint32_t e = 127 - 15 + 1;
        while ((man & 0x400u) == 0) {
            man <<= 1;
            e--;
        }
        return bits_float(sign | e << 23 | (man & 0x3FFu) << 13);
    }
    return bits_float(sign | (exp + 127 - 15) << 23 | man << 13);
}

/* Round to nearest even, subnormal results included, but saturating: NaN, infinities and everything that
 * would round beyond 65504 become +-65504 (0x7BFF / 0xFBFF, sign kept) as CANN's helper does. */
aclFloat16 aclFloatToFloat16(float value) {
    uint32_t bits = float_bits(value);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t abs = bits & 0x7FFFFFFFu;

    if (abs > 0x477FE000u) return sign | 0x7BFFu; /* above 65504 (0x477FE000), inf and NaN */
    if (abs >= 0x38800000u) {                     /* normal result: |value| >= 2^-14 */
        uint32_t h = ((abs >> 23) - (127 - 15)) << 10 | (abs & 0x7FFFFFu) >> 13;
        uint32_t rest = abs & 0x1FFFu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* a carry moves into the exponent */
        return sign | (uint16_t)h;
    }
    if (abs <= 0x33000000u) return sign; /* at most half the smallest subnormal 2^-24: ties to even zero */
    /* Subnormal result in units of 2^-24: mantissa (hidden bit set) shifted right by 126 - exponent. */
    uint32_t exp = abs >> 23, man = (abs & 0x7FFFFFu) | 0x800000u;
    uint32_t shift = 126 - exp; /* 14..24 */
    uint32_t h = man >> shift, rest = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u))) h++; /* may carry into the smallest normal, correctly */
    return sign | (uint16_t)h;
}
