/*
 * Row kernels: the inner loops of every operator. The generic loops are compiled several times for
 * different x86-64 levels and the best one for the host CPU is picked when the library loads, so one
 * build runs anywhere. fp16 conversions get explicit F16C code on x86-64: compilers do not vectorise
 * _Float16 conversions on their own.
 */
#include "cpu_dispatch.h"
#include "nan_rule.h"
#include "stub_internal.h"

#define ROW_KERNEL STUB_CLONED

typedef _Float16 f16;

static void sum_terms_chunk(char *out, const aclStubTerms *x, int64_t inner, aclDataType dtype, int64_t i, int64_t m);

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

/* exact: the NaN rule (stub_add_f32); otherwise plain adds, which differ from it only in NaN payloads */
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
    for (; i < n; i++) dst[i] = stub_add_f32(dst[i], (float)((const f16 *)src)[i]);
}

F16C_KERNEL static void f16c_store(uint16_t *dst, const float *src, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) ((f16 *)dst)[i] = (f16)src[i];
}

/* dst = float(a) * b with the NaN rule (a's NaN made quiet), FLOAT16 a widened in registers. */
F16C_KERNEL static void f16c_mul_widen(float *dst, const uint16_t *a, const float *b, int64_t n) {
    const __m256 quiet = _mm256_castsi256_ps(_mm256_set1_epi32(0x400000));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i)));
        __m256 r = _mm256_mul_ps(x, _mm256_loadu_ps(b + i));
        r = _mm256_blendv_ps(r, _mm256_or_ps(x, quiet), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
        _mm256_storeu_ps(dst + i, r);
    }
    for (; i < n; i++) dst[i] = stub_mul_f32((float)((const f16 *)a)[i], b[i]);
}

/* 8 elements of a FLOAT, BF16 or FLOAT16 row as float32 (dtype is a constant after inlining). */
F16C_KERNEL static inline __attribute__((always_inline)) __m256 avx2_widen(const char *p, aclDataType dtype) {
    if (dtype == ACL_FLOAT) return _mm256_loadu_ps((const float *)p);
    __m128i h = _mm_loadu_si128((const __m128i *)p);
    if (dtype == ACL_BF16) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    return _mm256_cvtph_ps(h);
}

/* bf16 bits of 8 NaN-free floats, rounded to nearest even, in the low halves of the 32-bit lanes. */
F16C_KERNEL static inline __attribute__((always_inline)) __m256i avx2_bf16_bits(__m256 v) {
    __m256i u = _mm256_castps_si256(v);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
}

F16C_KERNEL static inline __attribute__((always_inline)) void avx2_put(char *p, __m256i v, bool stream) {
    if (stream)
        _mm256_stream_si256((__m256i *)p, v);
    else
        _mm256_storeu_si256((__m256i *)p, v);
}

/* Store 32 NaN-free float32 sums as dtype (stream: p is 32-byte aligned, use non-temporal stores). */
F16C_KERNEL static inline __attribute__((always_inline)) void avx2_narrow32(char *p, const __m256 a[4], aclDataType dtype,
                                                                           bool stream) {
    if (dtype == ACL_FLOAT) {
        for (int v = 0; v < 4; v++) avx2_put(p + 32 * v, _mm256_castps_si256(a[v]), stream);
    } else if (dtype == ACL_BF16) {
        for (int v = 0; v < 4; v += 2) {
            __m256i packed = _mm256_packus_epi32(avx2_bf16_bits(a[v]), avx2_bf16_bits(a[v + 1])); /* lanes 0 2 1 3 */
            avx2_put(p + 16 * v, _mm256_permute4x64_epi64(packed, 0xd8), stream);
        }
    } else {
        for (int v = 0; v < 4; v += 2) {
            __m128i lo = _mm256_cvtps_ph(a[v], _MM_FROUND_TO_NEAREST_INT);
            __m128i hi = _mm256_cvtps_ph(a[v + 1], _MM_FROUND_TO_NEAREST_INT);
            avx2_put(p + 16 * v, _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1), stream);
        }
    }
}

/*
 * aclStubRowSumTerms on contiguous rows, 32 elements at a time with the sums in registers, so the terms are
 * read as parallel streams and nothing but the result is written. Products and sums are separate
 * instructions (each rounded). Blocks whose sum holds a NaN are redone by the exact portable code. Returns
 * how many leading elements are done (a multiple of 32).
 */
F16C_KERNEL static inline __attribute__((always_inline)) int64_t avx2_sum_terms_as(
    char *out, const aclStubTerms *x, aclDataType dtype, int64_t n, bool stream, const aclStubTerms *next) {
    size_t es = dtype == ACL_FLOAT ? 4 : 2;
    stream = stream && ((uintptr_t)out & 31) == 0;
    const __m256 zero = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        /* The same block of the next row's terms: one row ahead is far enough to hide the memory latency. */
        for (int64_t k = 0; next && k < next->n; k++) {
            const char *p = next->rows[k];
            if (!p) continue;
            __builtin_prefetch(p + i * (int64_t)es, 0, 3);
            if (es == 4) __builtin_prefetch(p + i * (int64_t)es + 64, 0, 3);
        }
        __m256 a[4] = {zero, zero, zero, zero};
        for (int64_t k = 0; k < x->n; k++) {
            const char *p = x->rows[k];
            if (!p) {
                for (int v = 0; v < 4; v++) a[v] = _mm256_add_ps(a[v], zero);
                continue;
            }
            p += i * (int64_t)es;
            __m256 t[4];
            for (int v = 0; v < 4; v++) t[v] = avx2_widen(p + 8 * v * es, dtype);
            if (x->weights) {
                __m256 w = _mm256_set1_ps(x->weights[k]);
                for (int v = 0; v < 4; v++) t[v] = _mm256_mul_ps(t[v], w);
            }
            for (int v = 0; v < 4; v++) a[v] = k == 0 && !x->zero_init ? t[v] : _mm256_add_ps(a[v], t[v]);
        }
        __m256 nan = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(a[0], a[0], _CMP_UNORD_Q), _mm256_cmp_ps(a[1], a[1], _CMP_UNORD_Q)),
                                  _mm256_or_ps(_mm256_cmp_ps(a[2], a[2], _CMP_UNORD_Q), _mm256_cmp_ps(a[3], a[3], _CMP_UNORD_Q)));
        if (_mm256_movemask_ps(nan))
            sum_terms_chunk(out, x, 1, dtype, i, 32); /* rare: NaN payloads */
        else
            avx2_narrow32(out + i * (int64_t)es, a, dtype, stream);
    }
    return i;
}

F16C_KERNEL static int64_t avx2_sum_terms(char *out, const aclStubTerms *x, aclDataType dtype, int64_t n, bool stream,
                                          const aclStubTerms *next) {
    if (dtype == ACL_FLOAT) return avx2_sum_terms_as(out, x, ACL_FLOAT, n, stream, next);
    if (dtype == ACL_BF16) return avx2_sum_terms_as(out, x, ACL_BF16, n, stream, next);
    return avx2_sum_terms_as(out, x, ACL_FLOAT16, n, stream, next);
}
#else
static bool has_f16c(void) { return false; }
#define f16c_load(d, s, n) ((void)0)
#define f16c_add(d, s, n, exact) ((void)0)
#define f16c_store(d, s, n) ((void)0)
#define f16c_mul_widen(d, a, b, n) ((void)0)
static int64_t avx2_sum_terms(char *out, const aclStubTerms *x, aclDataType dtype, int64_t n, bool stream,
                              const aclStubTerms *next) {
    (void)out, (void)x, (void)dtype, (void)n, (void)stream, (void)next;
    return 0;
}
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
    return exact ? stub_add_f32(a, b) : a + b;
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

/* Sums of whole rows are formed this many elements at a time by the portable code (2 KiB of float32). */
#define SUM_CHUNK 512

/* Elements [i, i + m) of term row p (element stride inner) as a contiguous block: p itself, or copied to scratch. */
static const void *term_block(const void *p, int64_t inner, size_t es, int64_t i, int64_t m, void *scratch) {
    const char *row = p;
    if (inner == 1) return row + i * (int64_t)es;
    for (int64_t j = 0; j < m; j++) memcpy((char *)scratch + j * es, row + (i + j) * inner * (int64_t)es, es);
    return scratch;
}

/* The float32 sum of elements [i, i + m) of the terms into acc (m <= SUM_CHUNK). */
static void sum_terms_acc(float *acc, const aclStubTerms *x, int64_t inner, aclDataType dtype, int64_t i, int64_t m,
                          bool exact) {
    float scratch[SUM_CHUNK];
    size_t es = aclDataTypeSize(dtype);
    if (x->zero_init) memset(acc, 0, (size_t)m * sizeof(float));
    for (int64_t k = 0; k < x->n; k++) {
        if (!x->rows[k]) {
            aclStubRowAddZeroF32(acc, m);
            continue;
        }
        const void *block = term_block(x->rows[k], inner, es, i, m, scratch);
        bool first = k == 0 && !x->zero_init;
        if (!x->weights)
            (first ? aclStubRowLoadF32 : exact ? aclStubRowAddF32 : aclStubRowAddF32Fast)(acc, block, dtype, m);
        else if (first)
            aclStubRowScaleF32(acc, block, dtype, x->weights[k], m);
        else
            (exact ? aclStubRowScaleAddF32 : aclStubRowScaleAddF32Fast)(acc, block, dtype, x->weights[k], m);
    }
}

/* Sum fast, then redo exactly when the sum holds a NaN (whose payload only the exact rule fixes), and store. */
static void sum_terms_chunk(char *out, const aclStubTerms *x, int64_t inner, aclDataType dtype, int64_t i, int64_t m) {
    float acc[SUM_CHUNK];
    sum_terms_acc(acc, x, inner, dtype, i, m, false);
    if (aclStubRowAnyNaN(acc, m)) sum_terms_acc(acc, x, inner, dtype, i, m, true);
    aclStubRowStoreF32(out + i * (int64_t)aclDataTypeSize(dtype), acc, dtype, m);
}

void aclStubRowSumTerms(void *out, const aclStubTerms *x, int64_t inner, aclDataType dtype, int64_t n, bool stream,
                        const aclStubTerms *next) {
    int64_t i = inner == 1 && has_f16c() ? avx2_sum_terms(out, x, dtype, n, stream, next) : 0;
    for (; i < n; i += SUM_CHUNK) sum_terms_chunk(out, x, inner, dtype, i, n - i < SUM_CHUNK ? n - i : SUM_CHUNK);
}

static inline float bf16_to_f32(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
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

/* fp16 rows are widened block by block (the widening is vectorised in aclStubRowLoadF32). */
#define WIDEN_BLOCK 512

ROW_KERNEL void aclStubRowScaleF32(float *restrict dst, const void *restrict src, aclDataType dtype, float w, int64_t n) {
    if (dtype == ACL_FLOAT) {
        const float *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = stub_mul_f32(s[i], w);
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = stub_mul_f32(bf16_to_f32(s[i]), w);
    } else {
        aclStubRowLoadF32(dst, src, dtype, n);
        for (int64_t i = 0; i < n; i++) dst[i] = stub_mul_f32(dst[i], w);
    }
}

ROW_KERNEL void aclStubRowMulF32(float *dst, const float *a, const float *b, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = stub_mul_f32(a[i], b[i]);
}

ROW_KERNEL void aclStubRowMulWidenF32(float *dst, const void *a, aclDataType dtype, const float *b, int64_t n) {
    if (dtype == ACL_FLOAT) {
        const float *s = a;
        for (int64_t i = 0; i < n; i++) dst[i] = stub_mul_f32(s[i], b[i]);
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = a;
        for (int64_t i = 0; i < n; i++) dst[i] = stub_mul_f32(bf16_to_f32(s[i]), b[i]);
    } else if (has_f16c()) {
        f16c_mul_widen(dst, a, b, n);
    } else {
        const f16 *s = a;
        for (int64_t i = 0; i < n; i++) dst[i] = stub_mul_f32((float)s[i], b[i]);
    }
}

/* One level of the tree: dst[i] = src[2i] + src[2i+1]. */
ROW_KERNEL static void pair_level(float *restrict dst, const float *restrict src, int64_t half) {
    for (int64_t i = 0; i < half; i++) dst[i] = stub_add_f32(src[2 * i], src[2 * i + 1]);
}

/* The same without the NaN rule: for NaN-free inputs, where every NaN a level makes is the one default NaN (so
 * which operand's payload wins cannot show), and plain sums vectorise. */
ROW_KERNEL static void pair_level_plain(float *restrict dst, const float *restrict src, int64_t half) {
    for (int64_t i = 0; i < half; i++) dst[i] = src[2 * i] + src[2 * i + 1];
}

float aclStubRowTreeSumF32(float *v, int64_t n) {
    float tmp[4096];
    if (n <= 0) return 0.0f;
    if (n > 8192) n = 8192;
    bool plain = !aclStubRowAnyNaN(v, n);
    float *src = v, *dst = tmp;
    while (n > 1) { /* ping-pong between v and tmp, so no level reads what it writes */
        n /= 2;
        if (plain)
            pair_level_plain(dst, src, n);
        else
            pair_level(dst, src, n);
        float *x = src;
        src = dst;
        dst = x;
    }
    return src[0];
}

/* Products are rounded before they are summed: the build turns floating-point contraction (FMA) off. */
ROW_KERNEL void aclStubRowMulAccF32(float *restrict acc, const float *restrict src, float w, bool first, int64_t n) {
    if (first)
        for (int64_t i = 0; i < n; i++) acc[i] = stub_mul_f32(src[i], w);
    else
        for (int64_t i = 0; i < n; i++) acc[i] = stub_add_f32(acc[i], stub_mul_f32(src[i], w));
}

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The weighted rows' product: the NaN rule when exact, else the plain product (which differs from it only in
 * the payload a NaN * NaN keeps). */
ALWAYS_INLINE float mul_x(float a, float b, bool exact) { return exact ? stub_mul_f32(a, b) : a * b; }

/* dst += float(src) * w, the product rounded to dtype first when `round`. */
ALWAYS_INLINE void add_scaled(float *restrict dst, const void *restrict src, aclDataType dtype, float w, int64_t n,
                              bool round, bool exact) {
    if (dtype == ACL_FLOAT) {
        const float *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = add_f32(dst[i], mul_x(s[i], w, exact), exact);
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) {
            float p = mul_x(bf16_to_f32(s[i]), w, exact);
            dst[i] = add_f32(dst[i], round ? round_to_dtype(p, ACL_BF16) : p, exact);
        }
    } else {
        float block[WIDEN_BLOCK];
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i += WIDEN_BLOCK) {
            int64_t m = n - i < WIDEN_BLOCK ? n - i : WIDEN_BLOCK;
            aclStubRowLoadF32(block, s + i, dtype, m);
            for (int64_t j = 0; j < m; j++) {
                float p = mul_x(block[j], w, exact);
                dst[i + j] = add_f32(dst[i + j], round ? round_to_dtype(p, dtype) : p, exact);
            }
        }
    }
}

ROW_KERNEL void aclStubRowScaleAddF32(float *restrict dst, const void *restrict src, aclDataType dtype, float w,
                                      int64_t n) {
    add_scaled(dst, src, dtype, w, n, false, true);
}

ROW_KERNEL void aclStubRowScaleAddF32Fast(float *restrict dst, const void *restrict src, aclDataType dtype, float w,
                                          int64_t n) {
    add_scaled(dst, src, dtype, w, n, false, false);
}

ROW_KERNEL void aclStubRowScaleAddRoundedF32(float *restrict dst, const void *restrict src, aclDataType dtype,
                                             float w, int64_t n) {
    add_scaled(dst, src, dtype, w, n, true, true);
}

static int64_t align8(int64_t n) { return (n + 7) / 8 * 8; }

/* BinaryAdd: fold the upper 8-aligned half onto the lower one while more than `threshold` remain, then the
 * part beyond `offset` onto the first `offset` elements. */
ROW_KERNEL static void fold_halves(float *v, int64_t total, int64_t threshold, int64_t offset) {
    int64_t half = align8((total + 1) / 2);
    while (total > threshold) {
        for (int64_t i = 0; i < total - half; i++) v[i] = stub_add_f32(v[i], v[half + i]);
        total = half;
        half = align8((half + 1) / 2);
    }
    for (int64_t i = 0; i < total - offset; i++) v[i] = stub_add_f32(v[i], v[offset + i]);
}

float aclStubReduceSumF32(float *v, int64_t n) {
    static const int64_t LEVELS[3][3] = {{4096, 8192, 4096}, {512, 1024, 512}, {64, 128, 64}};
    for (int l = 0; l < 3; l++) {
        if (n >= LEVELS[l][0]) {
            fold_halves(v, n, LEVELS[l][1], LEVELS[l][2]);
            return aclStubRowTreeSumF32(v, LEVELS[l][2]);
        }
    }
    float lanes[64] = {0};
    memcpy(lanes, v, (size_t)(n > 0 ? n : 0) * sizeof(float));
    return aclStubRowTreeSumF32(lanes, 64);
}

/* float32 -> INT8 as the specs define it: round half to even, saturate to [-128, 127], NaN -> 0. */
static inline int8_t quant_i8(float v) {
    v = v == v ? v : 0.0f;
    float r = __builtin_rintf(v);
    r = r < 127.0f ? r : 127.0f; /* NaN-free by now: these are plain min and max instructions */
    r = r > -128.0f ? r : -128.0f;
    return (int8_t)(int32_t)r;
}

/* Two separately rounded operations: the build disables contraction, so this is never one fused multiply-add. */
ROW_KERNEL void aclStubRowQuantInt8Static(int8_t *restrict dst, const float *restrict src, float scale, float offset,
                                          int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        float y = src[i] * scale;
        dst[i] = quant_i8(y + offset);
    }
}

ROW_KERNEL float aclStubRowQuantInt8Dynamic(int8_t *restrict dst, float *restrict xs, const float *restrict smooth,
                                            int64_t n) {
    if (smooth)
        for (int64_t i = 0; i < n; i++) xs[i] *= smooth[i];
    /* max |xs| on the bit patterns: non-negative floats order like their bits (an integer max vectorises,
     * and is exact); a maximum above +inf's pattern means the row holds a NaN. */
    uint32_t max_bits = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &xs[i], 4);
        u &= 0x7fffffffu;
        max_bits = u > max_bits ? u : max_bits;
    }
    float amax;
    memcpy(&amax, &max_bits, 4);
    if (max_bits > 0x7f800000u) /* a NaN maximum is the row's first NaN, sign cleared (the reference's rule) */
        for (int64_t i = 0; i < n; i++)
            if (xs[i] != xs[i]) {
                amax = __builtin_fabsf(xs[i]);
                break;
            }
    float ds = amax / 127.0f;
    for (int64_t i = 0; i < n; i++) dst[i] = quant_i8(xs[i] / ds);
    return ds;
}

float aclStubVectorReduceSumF32(float *v, int64_t n, int64_t chunk) {
    if (chunk <= 0) chunk = n;
    float acc = 0.0f;
    for (int64_t off = 0; off < n; off += chunk)
        acc = stub_add_f32(acc, aclStubReduceSumF32(v + off, n - off < chunk ? n - off : chunk));
    return acc;
}
