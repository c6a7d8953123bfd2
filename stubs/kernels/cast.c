/*
 * Conversions between element types with the device's Cast rules (op_sdk.h, aclStubCastStrided): every pair of
 * the plain C number types has its own loop, written once by a macro over a table of types; 16-bit floats go
 * through float32 (exact), complex types through their parts.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "stub_internal.h"

/* ---- one value ---- */

/* Float to integer: truncation toward zero, saturation at the type's range, NaN gives 0. */
#define SAT_TRUNC(T, LO, HI, x)                                                                           \
    ((x) != (x) ? (T)0 : (x) <= (double)(LO) ? (T)(LO) : (x) >= (double)(HI) ? (T)(HI) : (T)(x))

static inline int8_t f_i8(double x) { return SAT_TRUNC(int8_t, INT8_MIN, INT8_MAX, x); }
static inline int16_t f_i16(double x) { return SAT_TRUNC(int16_t, INT16_MIN, INT16_MAX, x); }
static inline int32_t f_i32(double x) { return SAT_TRUNC(int32_t, INT32_MIN, INT32_MAX, x); }
static inline uint8_t f_u8(double x) { return SAT_TRUNC(uint8_t, 0, UINT8_MAX, x); }
static inline uint16_t f_u16(double x) { return SAT_TRUNC(uint16_t, 0, UINT16_MAX, x); }
static inline uint32_t f_u32(double x) { return SAT_TRUNC(uint32_t, 0, UINT32_MAX, x); }
/* 2^63 and 2^64 are exact doubles; INT64_MAX and UINT64_MAX are not, so compare against the powers of two. */
static inline int64_t f_i64(double x) {
    return x != x ? 0 : x < -9223372036854775808.0 ? INT64_MIN : x >= 9223372036854775808.0 ? INT64_MAX : (int64_t)x;
}
static inline uint64_t f_u64(double x) {
    return x != x || x <= 0 ? 0 : x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x;
}

/* double to float rounded to odd: the float nearest below or above, with its last bit set when inexact, so a
 * second rounding to a type at least two bits narrower is the correct rounding of the double. */
static inline float round_to_odd_f32(double d) {
    float f = (float)d;
    if ((double)f == d || f != f || isinf(f)) return f;
    uint32_t u;
    memcpy(&u, &f, 4);
    /* f is the nearest float; step to the neighbour toward zero when f lies beyond d, then set the last bit */
    if (fabs((double)f) > fabs(d)) u -= 1;
    u |= 1;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t d_f16(double d) { return aclStubF32ToF16(round_to_odd_f32(d)); }

/* A 64-bit integer as a double rounded to odd (exact below 2^53), so a second rounding to a type at least two bits
 * narrower than double is the correct rounding of the integer (int64 -> float64 -> bf16 would round twice). */
static inline double u64_to_odd(uint64_t m) {
    if (m >> 53 == 0) return (double)m;
    int shift = 64 - __builtin_clzll(m) - 53;
    uint64_t q = (m >> shift) | (uint64_t)((m & ((UINT64_C(1) << shift) - 1)) != 0);
    return ldexp((double)q, shift);
}
static inline double i64_to_odd(int64_t v) { return v < 0 ? -u64_to_odd(0 - (uint64_t)v) : u64_to_odd((uint64_t)v); }
static inline uint16_t d_bf16(double d) { return aclStubF32ToBf16(round_to_odd_f32(d)); }

/* ---- the typed loops: one per pair of plain number types ---- */

/* (name, C type, kind): kind I signed integer, U unsigned integer, F floating, B bool (one byte, 0 or 1) */
#define PLAIN_TYPES(X)                                                                                    \
    X(i8, int8_t, I) X(i16, int16_t, I) X(i32, int32_t, I) X(i64, int64_t, I) X(u8, uint8_t, U)            \
    X(u16, uint16_t, U) X(u32, uint32_t, U) X(u64, uint64_t, U) X(f32, float, F) X(f64, double, F)          \
    X(b, uint8_t, B)

/* Reading a source element as the value the conversion starts from. */
#define READ_I(T, p) (*(const T *)(p))
#define READ_U(T, p) (*(const T *)(p))
#define READ_F(T, p) (*(const T *)(p))
#define READ_B(T, p) (*(const uint8_t *)(p) != 0)

/* Converting that value to destination type D of kind K (source kind SK). */
#define TO_I_FROM_I(D, dn, v) ((D)(v))
#define TO_I_FROM_U(D, dn, v) ((D)(v))
#define TO_I_FROM_B(D, dn, v) ((D)(v))
#define TO_I_FROM_F(D, dn, v) f_##dn((double)(v))
#define TO_U_FROM_I(D, dn, v) ((D)(v))
#define TO_U_FROM_U(D, dn, v) ((D)(v))
#define TO_U_FROM_B(D, dn, v) ((D)(v))
#define TO_U_FROM_F(D, dn, v) f_##dn((double)(v))
#define TO_F_FROM_I(D, dn, v) ((D)(v))
#define TO_F_FROM_U(D, dn, v) ((D)(v))
#define TO_F_FROM_B(D, dn, v) ((D)(v))
#define TO_F_FROM_F(D, dn, v) ((D)(v))
#define TO_B_FROM_I(D, dn, v) ((D)((v) != 0))
#define TO_B_FROM_U(D, dn, v) ((D)((v) != 0))
#define TO_B_FROM_B(D, dn, v) ((D)(v))
#define TO_B_FROM_F(D, dn, v) ((D)((v) != 0))

typedef void (*CastLoop)(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n);

#define CAST_LOOP(dn, D, DK, sn, S, SK)                                                                    \
    static void cast_##dn##_##sn(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n) {          \
        if (ds == (int64_t)sizeof(D) && ss == (int64_t)sizeof(S)) {                                         \
            D *d = (D *)(void *)dst;                                                                        \
            for (int64_t i = 0; i < n; i++) d[i] = TO_##DK##_FROM_##SK(D, dn, READ_##SK(S, src + i * ss));  \
        } else {                                                                                            \
            for (int64_t i = 0; i < n; i++)                                                                 \
                *(D *)(void *)(dst + i * ds) = TO_##DK##_FROM_##SK(D, dn, READ_##SK(S, src + i * ss));      \
        }                                                                                                   \
    }
/* For each destination type, a loop from every source type. */
#define CAST_FROM_EACH(dn, D, DK) PLAIN_TYPES_FROM(dn, D, DK)
#define PLAIN_TYPES_FROM(dn, D, DK)                                                                        \
    CAST_LOOP(dn, D, DK, i8, int8_t, I) CAST_LOOP(dn, D, DK, i16, int16_t, I)                             \
    CAST_LOOP(dn, D, DK, i32, int32_t, I) CAST_LOOP(dn, D, DK, i64, int64_t, I)                           \
    CAST_LOOP(dn, D, DK, u8, uint8_t, U) CAST_LOOP(dn, D, DK, u16, uint16_t, U)                           \
    CAST_LOOP(dn, D, DK, u32, uint32_t, U) CAST_LOOP(dn, D, DK, u64, uint64_t, U)                         \
    CAST_LOOP(dn, D, DK, f32, float, F) CAST_LOOP(dn, D, DK, f64, double, F) CAST_LOOP(dn, D, DK, b, uint8_t, B)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#endif
PLAIN_TYPES(CAST_FROM_EACH)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

enum { P_I8, P_I16, P_I32, P_I64, P_U8, P_U16, P_U32, P_U64, P_F32, P_F64, P_B, P_COUNT };

#define ROW(dn, D, DK)                                                                                     \
    {cast_##dn##_i8, cast_##dn##_i16, cast_##dn##_i32, cast_##dn##_i64, cast_##dn##_u8, cast_##dn##_u16,  \
     cast_##dn##_u32, cast_##dn##_u64, cast_##dn##_f32, cast_##dn##_f64, cast_##dn##_b},
static const CastLoop PLAIN[P_COUNT][P_COUNT] = {PLAIN_TYPES(ROW)};

static int plain_index(aclDataType t) {
    switch (t) {
    case ACL_INT8: return P_I8;
    case ACL_INT16: return P_I16;
    case ACL_INT32: return P_I32;
    case ACL_INT64: return P_I64;
    case ACL_UINT8: return P_U8;
    case ACL_UINT16: return P_U16;
    case ACL_UINT32: return P_U32;
    case ACL_UINT64: return P_U64;
    case ACL_FLOAT: return P_F32;
    case ACL_DOUBLE: return P_F64;
    case ACL_BOOL: return P_B;
    default: return -1;
    }
}

static bool is_half(aclDataType t) { return t == ACL_FLOAT16 || t == ACL_BF16; }

bool aclStubCanConvert(aclDataType t) {
    return plain_index(t) >= 0 || is_half(t) || t == ACL_COMPLEX64 || t == ACL_COMPLEX128 || t == ACL_COMPLEX32;
}

/* ---- 16-bit floats and complex values, a block at a time through float32 / float64 parts ---- */

#define BLOCK 256

/* Converts n elements between two non-complex types where at least one is FLOAT16 or BF16. */
static void cast_half(char *dst, int64_t ds, aclDataType dt, const char *src, int64_t ss, aclDataType st, int64_t n) {
    float f[BLOCK];
    for (int64_t i = 0; i < n; i += BLOCK) {
        int64_t m = n - i < BLOCK ? n - i : BLOCK;
        const char *s = src + i * ss;
        char *d = dst + i * ds;
        if (is_half(st) && is_half(dt)) {
            /* FLOAT16 <-> BF16: widen (exact), then round once */
            if (ss == 2) {
                aclStubRowLoadF32(f, s, st, m);
            } else {
                for (int64_t k = 0; k < m; k++) {
                    uint16_t h;
                    memcpy(&h, s + k * ss, 2);
                    f[k] = st == ACL_BF16 ? aclStubBf16ToF32(h) : aclStubF16ToF32(h);
                }
            }
        } else if (is_half(st)) {
            if (ss == 2 && dt == ACL_FLOAT && ds == 4) { /* straight into a contiguous FLOAT destination */
                aclStubRowLoadF32((float *)(void *)d, s, st, m);
                continue;
            }
            if (ss == 2) {
                aclStubRowLoadF32(f, s, st, m);
            } else {
                for (int64_t k = 0; k < m; k++) {
                    uint16_t h;
                    memcpy(&h, s + k * ss, 2);
                    f[k] = st == ACL_BF16 ? aclStubBf16ToF32(h) : aclStubF16ToF32(h);
                }
            }
            PLAIN[plain_index(dt)][P_F32](d, ds, (const char *)f, 4, m);
            continue;
        } else if (st == ACL_FLOAT) {
            if (ds == 2 && ss == 4) {
                aclStubRowStoreF32(d, (const float *)(const void *)s, dt, m);
                continue;
            }
            for (int64_t k = 0; k < m; k++) memcpy(&f[k], s + k * ss, 4);
        } else {
            /* any other source: through float64 (exact for every integer up to 2^53; 64-bit integers beyond that
             * rounded to odd), rounded once */
            double v[BLOCK];
            if (st == ACL_INT64 || st == ACL_UINT64) {
                for (int64_t k = 0; k < m; k++) {
                    uint64_t u;
                    memcpy(&u, s + k * ss, 8);
                    v[k] = st == ACL_INT64 ? i64_to_odd((int64_t)u) : u64_to_odd(u);
                }
            } else {
                PLAIN[P_F64][plain_index(st)]((char *)v, 8, s, ss, m);
            }
            for (int64_t k = 0; k < m; k++) {
                uint16_t h = dt == ACL_BF16 ? d_bf16(v[k]) : d_f16(v[k]);
                memcpy(d + k * ds, &h, 2);
            }
            continue;
        }
        if (ds == 2) {
            aclStubRowStoreF32(d, f, dt, m);
            continue;
        }
        for (int64_t k = 0; k < m; k++) {
            uint16_t h = dt == ACL_BF16 ? aclStubF32ToBf16(f[k]) : aclStubF32ToF16(f[k]);
            memcpy(d + k * ds, &h, 2);
        }
    }
}

/* Size of one part of a complex type, and the real type of that size. */
static aclDataType complex_part(aclDataType t) {
    return t == ACL_COMPLEX128 ? ACL_DOUBLE : t == ACL_COMPLEX64 ? ACL_FLOAT : ACL_FLOAT16;
}

static void cast_any(char *dst, int64_t ds, aclDataType dt, const char *src, int64_t ss, aclDataType st, int64_t n);

/* Complex on either side: the real parts convert as reals; imaginary parts convert (complex to complex) or are
 * zero (real to complex) or dropped (complex to real). */
static void cast_complex(char *dst, int64_t ds, aclDataType dt, const char *src, int64_t ss, aclDataType st,
                         int64_t n) {
    bool dc = aclStubIsComplex(dt), sc = aclStubIsComplex(st);
    if (dt == ACL_BOOL) { /* nonzero: either part */
        aclDataType sp = complex_part(st);
        int64_t spart = (int64_t)aclDataTypeSize(sp);
        unsigned char re[BLOCK], im[BLOCK];
        for (int64_t i = 0; i < n; i += BLOCK) {
            int64_t m = n - i < BLOCK ? n - i : BLOCK;
            cast_any((char *)re, 1, ACL_BOOL, src + i * ss, ss, sp, m);
            cast_any((char *)im, 1, ACL_BOOL, src + i * ss + spart, ss, sp, m);
            for (int64_t k = 0; k < m; k++) dst[(i + k) * ds] = (char)(re[k] | im[k]);
        }
        return;
    }
    aclDataType dp = dc ? complex_part(dt) : dt, sp = sc ? complex_part(st) : st;
    int64_t dpart = (int64_t)aclDataTypeSize(dp), spart = (int64_t)aclDataTypeSize(sp);
    cast_any(dst, ds, dp, src, ss, sp, n);
    if (!dc) return;
    if (sc) {
        cast_any(dst + dpart, ds, dp, src + spart, ss, sp, n);
    } else {
        for (int64_t i = 0; i < n; i++) memset(dst + i * ds + dpart, 0, (size_t)dpart);
    }
}

static void cast_any(char *dst, int64_t ds, aclDataType dt, const char *src, int64_t ss, aclDataType st, int64_t n) {
    if (aclStubIsComplex(dt) || aclStubIsComplex(st)) {
        cast_complex(dst, ds, dt, src, ss, st, n);
    } else if (is_half(dt) || is_half(st)) {
        cast_half(dst, ds, dt, src, ss, st, n);
    } else {
        PLAIN[plain_index(dt)][plain_index(st)](dst, ds, src, ss, n);
    }
}

bool aclStubCastStrided(void *dst, int64_t dst_stride, aclDataType dt, const void *src, int64_t src_stride,
                        aclDataType st, int64_t n) {
    if (!aclStubCanConvert(dt) || !aclStubCanConvert(st)) return false;
    if (n <= 0) return true;
    int64_t size = (int64_t)aclDataTypeSize(dt);
    if (dt == st && dst_stride == size && src_stride == size) {
        memmove(dst, src, (size_t)(n * size));
    } else if (dt == st && dt != ACL_BOOL) {
        for (int64_t i = 0; i < n; i++) memcpy((char *)dst + i * dst_stride, (const char *)src + i * src_stride, (size_t)size);
    } else {
        cast_any(dst, dst_stride, dt, src, src_stride, st, n);
    }
    return true;
}

void aclStubStoreDouble(void *dst, aclDataType dt, double value) {
    aclStubCastStrided(dst, 0, dt, &value, 0, ACL_DOUBLE, 1);
}
