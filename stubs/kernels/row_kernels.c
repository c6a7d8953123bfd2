/*
 * Row kernels: the inner loops of every operator. The generic loops are compiled several times for
 * different x86-64 levels and the best one for the host CPU is picked when the library loads, so one
 * build runs anywhere. fp16 conversions get explicit F16C code on x86-64: compilers do not vectorise
 * _Float16 conversions on their own.
 */
#include "stub_internal.h"

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define ROW_KERNEL __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ROW_KERNEL
#endif

typedef _Float16 f16;

/*
 * The NaN rule of every sum (the numpy references follow it too): a + b where a is the running sum is a
 * made quiet when a is NaN, whatever b is; otherwise the IEEE sum (a NaN b comes out quiet). Hardware
 * returns either operand's payload for NaN + NaN depending on operand order, which compilers are free to
 * swap, so the rule is applied explicitly.
 */
static inline float sum_f32(float a, float b) {
    float r = a + b;
    uint32_t ua, ur;
    memcpy(&ua, &a, 4);
    memcpy(&ur, &r, 4);
    /* integer operations only, so the loops around this vectorise */
    uint32_t a_is_nan = (int32_t)(ua & 0x7fffffffu) > 0x7f800000 ? 0xffffffffu : 0u;
    ur = (ur & ~a_is_nan) | ((ua | 0x400000u) & a_is_nan);
    memcpy(&r, &ur, 4);
    return r;
}

#if defined(__x86_64__)
#include <immintrin.h>

#define F16C_KERNEL __attribute__((target("avx2,f16c")))

static bool has_f16c(void) {
    static int cached = -1;
    if (cached < 0) cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    return cached;
}

F16C_KERNEL static void f16c_load(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++) dst[i] = (float)((const f16 *)src)[i];
}

/* exact: the NaN rule (sum_f32); otherwise plain adds, which differ from it only in NaN payloads */
F16C_KERNEL static void f16c_add(float *dst, const uint16_t *src, int64_t n, bool exact) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i)));
        __m256 a = _mm256_loadu_ps(dst + i), r = _mm256_add_ps(a, v);
        if (exact) {
            __m256 quiet_a = _mm256_or_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x400000)));
            r = _mm256_blendv_ps(r, quiet_a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
        }
        _mm256_storeu_ps(dst + i, r);
    }
    for (; i < n; i++) dst[i] = sum_f32(dst[i], (float)((const f16 *)src)[i]);
}

F16C_KERNEL static void f16c_store(uint16_t *dst, const float *src, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) ((f16 *)dst)[i] = (f16)src[i];
}
#else
static bool has_f16c(void) { return false; }
#define f16c_load(d, s, n) ((void)0)
#define f16c_add(d, s, n, exact) ((void)0)
#define f16c_store(d, s, n) ((void)0)
#endif

ROW_KERNEL void aclStubRowLoadF32(float *restrict dst, const void *restrict src, aclDataType dtype, int64_t n) {
    if (dtype == ACL_FLOAT) {
        memcpy(dst, src, (size_t)n * sizeof(float));
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)s[i] << 16;
            memcpy(&dst[i], &u, 4);
        }
    } else if (has_f16c()) {
        f16c_load(dst, src, n);
    } else {
        const f16 *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = (float)s[i];
    }
}

/* The body of both row adds; `exact` is a constant in each, so the plain one vectorises to bare adds. */
static inline __attribute__((always_inline)) float add_f32(float a, float b, bool exact) {
    return exact ? sum_f32(a, b) : a + b;
}

static inline __attribute__((always_inline)) void row_add(float *restrict dst, const void *restrict src,
                                                          aclDataType dtype, int64_t n, bool exact) {
    if (dtype == ACL_FLOAT) {
        const float *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = add_f32(dst[i], s[i], exact);
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)s[i] << 16;
            float f;
            memcpy(&f, &u, 4);
            dst[i] = add_f32(dst[i], f, exact);
        }
    } else if (has_f16c()) {
        f16c_add(dst, src, n, exact);
    } else {
        const f16 *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = add_f32(dst[i], (float)s[i], exact);
    }
}

ROW_KERNEL void aclStubRowAddF32(float *restrict dst, const void *restrict src, aclDataType dtype, int64_t n) {
    row_add(dst, src, dtype, n, true);
}

ROW_KERNEL void aclStubRowAddF32Fast(float *restrict dst, const void *restrict src, aclDataType dtype, int64_t n) {
    row_add(dst, src, dtype, n, false);
}

ROW_KERNEL bool aclStubRowAnyNaN(const float *row, int64_t n) {
    int any = 0; /* no early exit, so the loop vectorises to a compare and an or */
    for (int64_t i = 0; i < n; i++) any |= row[i] != row[i];
    return any != 0;
}

ROW_KERNEL void aclStubRowAddZeroF32(float *restrict dst, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] += 0.0f;
}

ROW_KERNEL void aclStubRowStoreF32(void *restrict dst, const float *restrict src, aclDataType dtype, int64_t n) {
    if (dtype == ACL_FLOAT) {
        memcpy(dst, src, (size_t)n * sizeof(float));
    } else if (dtype == ACL_BF16) {
        uint16_t *d = dst;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, &src[i], 4);
            uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
            uint32_t nan = (u >> 16) | 0x40u;
            d[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
        }
    } else if (has_f16c()) {
        f16c_store(dst, src, n);
    } else {
        f16 *d = dst;
        for (int64_t i = 0; i < n; i++) d[i] = (f16)src[i];
    }
}

/* ---- weighted rows and the device's reduction order ---- */

/* a * b with the product NaN rule: a NaN first operand is kept (made quiet). The integer blend also keeps
 * compilers from fusing the product into a following add. */
static inline float mul_f32(float a, float b) {
    float r = a * b;
    uint32_t ua, ur;
    memcpy(&ua, &a, 4);
    memcpy(&ur, &r, 4);
    uint32_t a_is_nan = (int32_t)(ua & 0x7fffffffu) > 0x7f800000 ? 0xffffffffu : 0u;
    ur = (ur & ~a_is_nan) | ((ua | 0x400000u) & a_is_nan);
    memcpy(&r, &ur, 4);
    return r;
}

/* float -> fp16/bf16 -> float with round to nearest even (NaN stays NaN, quiet). */
static inline float round_to_dtype(float f, aclDataType dtype) {
    if (dtype == ACL_FLOAT16) return (float)(f16)f;
    if (dtype != ACL_BF16) return f;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t nan = ((u >> 16) | 0x40u) << 16;
    uint32_t rounded = ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) << 16;
    u = (u & 0x7fffffffu) > 0x7f800000u ? nan : rounded;
    memcpy(&f, &u, 4);
    return f;
}

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The product of the weighted rows: the NaN rule when exact, else the plain product (which differs from it only
 * in the payload a NaN * NaN keeps). Products are never fused into a following add (-ffp-contract=off). */
ALWAYS_INLINE float mul_x(float a, float b, bool exact) { return exact ? mul_f32(a, b) : a * b; }

/* Source rows that need a conversion the loops do not inline (fp16) are widened in blocks on the stack. */
#define SCALE_BLOCK 256

ROW_KERNEL void aclStubRowScaleF32(float *restrict dst, const void *restrict src, aclDataType dtype, float w,
                                   int64_t n) {
    aclStubRowLoadF32(dst, src, dtype, n);
    for (int64_t i = 0; i < n; i++) dst[i] = mul_f32(dst[i], w);
}

ALWAYS_INLINE void mul_row(float *restrict dst, const void *restrict src, aclDataType dtype, const float *restrict g,
                           int64_t n, bool exact) {
    if (dtype == ACL_FLOAT) {
        const float *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = mul_x(s[i], g[i], exact);
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = mul_x(aclStubBf16ToF32(s[i]), g[i], exact);
    } else {
        aclStubRowLoadF32(dst, src, dtype, n);
        for (int64_t i = 0; i < n; i++) dst[i] = mul_x(dst[i], g[i], exact);
    }
}

ROW_KERNEL void aclStubRowMulF32(float *restrict dst, const void *restrict src, aclDataType dtype,
                                 const float *restrict g, int64_t n) {
    mul_row(dst, src, dtype, g, n, true);
}

ROW_KERNEL void aclStubRowMulF32Fast(float *restrict dst, const void *restrict src, aclDataType dtype,
                                     const float *restrict g, int64_t n) {
    mul_row(dst, src, dtype, g, n, false);
}

/* dst += float(src) * w, the product rounded to dtype first when `round`. */
ALWAYS_INLINE void add_scaled(float *restrict dst, const void *restrict src, aclDataType dtype, float w, int64_t n,
                              bool round, bool exact) {
    if (dtype == ACL_FLOAT) {
        const float *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = add_f32(dst[i], mul_x(s[i], w, exact), exact);
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) {
            float p = mul_x(aclStubBf16ToF32(s[i]), w, exact);
            dst[i] = add_f32(dst[i], round ? round_to_dtype(p, ACL_BF16) : p, exact);
        }
    } else {
        float buf[SCALE_BLOCK];
        for (int64_t b = 0; b < n; b += SCALE_BLOCK) {
            int64_t m = n - b < SCALE_BLOCK ? n - b : SCALE_BLOCK;
            aclStubRowLoadF32(buf, (const uint16_t *)src + b, dtype, m);
            for (int64_t i = 0; i < m; i++) {
                float p = mul_x(buf[i], w, exact);
                dst[b + i] = add_f32(dst[b + i], round ? round_to_dtype(p, dtype) : p, exact);
            }
        }
    }
}

ROW_KERNEL void aclStubRowAddScaledF32(float *restrict dst, const void *restrict src, aclDataType dtype, float w,
                                       int64_t n) {
    add_scaled(dst, src, dtype, w, n, false, true);
}

ROW_KERNEL void aclStubRowAddScaledF32Fast(float *restrict dst, const void *restrict src, aclDataType dtype,
                                           float w, int64_t n) {
    add_scaled(dst, src, dtype, w, n, false, false);
}

ROW_KERNEL void aclStubRowAddScaledRoundedF32(float *restrict dst, const void *restrict src, aclDataType dtype,
                                              float w, int64_t n) {
    add_scaled(dst, src, dtype, w, n, true, true);
}

static int64_t align8(int64_t n) { return (n + 7) / 8 * 8; }

/* BinaryAdd: fold the upper 8-aligned half onto the lower one while more than `threshold` remain, then the
 * part beyond `offset` onto the first `offset` elements. */
ALWAYS_INLINE void fold_halves(float *v, int64_t total, int64_t threshold, int64_t offset, bool exact) {
    int64_t half = align8((total + 1) / 2);
    while (total > threshold) {
        for (int64_t i = 0; i < total - half; i++) v[i] = add_f32(v[i], v[half + i], exact);
        total = half;
        half = align8((half + 1) / 2);
    }
    for (int64_t i = 0; i < total - offset; i++) v[i] = add_f32(v[i], v[offset + i], exact);
}

/* One level of the adjacent-pair tree: separate source and destination, so the strided loads vectorise. */
ALWAYS_INLINE void pair_level(float *restrict dst, const float *restrict src, int64_t half, bool exact) {
    for (int64_t i = 0; i < half; i++) dst[i] = add_f32(src[2 * i], src[2 * i + 1], exact);
}

/* Adjacent pairs, level by level, over a power-of-two length n <= 4096 (v is overwritten). */
ALWAYS_INLINE float tree_sum(float *v, int64_t n, bool exact) {
    float tmp[2048];
    float *src = v, *dst = tmp;
    for (; n > 1; n /= 2) {
        pair_level(dst, src, n / 2, exact);
        float *t = src;
        src = dst;
        dst = t;
    }
    return src[0];
}

ALWAYS_INLINE float reduce_sum(float *v, int64_t n, bool exact) {
    static const int64_t LEVELS[3][3] = {{4096, 8192, 4096}, {512, 1024, 512}, {64, 128, 64}};
    for (int l = 0; l < 3; l++) {
        if (n >= LEVELS[l][0]) {
            fold_halves(v, n, LEVELS[l][1], LEVELS[l][2], exact);
            return tree_sum(v, LEVELS[l][2], exact);
        }
    }
    float lanes[64] = {0};
    memcpy(lanes, v, (size_t)(n > 0 ? n : 0) * sizeof(float));
    return tree_sum(lanes, 64, exact);
}

ROW_KERNEL float aclStubReduceSumF32(float *v, int64_t n) { return reduce_sum(v, n, true); }

ROW_KERNEL float aclStubReduceSumF32Fast(float *v, int64_t n) { return reduce_sum(v, n, false); }
