/*
 * Reductions of the collectives: out = in[0] op in[1] op ... op in[k - 1], element by element, in rank order.
 *
 * Every step is rounded to the data type, as the device's one-shot mesh kernels do (the first rank's data is
 * copied to the output, then each later rank's is added into it by the vector unit's atomic add in the data
 * type): a 16-bit float sum is rounded to FP16 or BFP16 after every rank. Computing a step in float32 and
 * rounding the result once is exact for both (float32 has more than twice their precision plus two bits), so the
 * results are the correctly rounded step-by-step values. Integers wrap. MAX and MIN of floats return NaN when
 * either operand is NaN.
 *
 * Data are processed in blocks that stay in the first-level cache: the block's result is built in a local buffer
 * and then written to every output (the in-process all-reduce writes each rank's result directly), with
 * non-temporal stores for large outputs.
 */
#include <string.h>

#include "cpu_dispatch.h"
#include "hccl_internal.h"

#define BLOCK_BYTES 8192
#define STREAM_MIN_BYTES ((uint64_t)1 << 20)

void hc_copy(void *dst, const void *src, size_t n) {
    if (dst == src || n == 0) return;
    aclStubCopyBytes(dst, src, n, n >= STREAM_MIN_BYTES);
    if (n >= STREAM_MIN_BYTES) aclStubStreamFence();
}

/* ---- 16-bit floats ----------------------------------------------------------------------------------- */

static inline float bf16_widen(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t bf16_narrow(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* NaN stays NaN, made quiet */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float f16_widen(uint16_t h) {
    _Float16 f;
    memcpy(&f, &h, 2);
    return (float)f;
}

static inline uint16_t f16_narrow(float f) {
    _Float16 h = (_Float16)f;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

/* NaN-propagating max and min (a NaN operand gives a quiet NaN). */
#define FMAX(a, b) ((a) != (a) || (b) != (b) ? (a) + (b) : ((a) > (b) ? (a) : (b)))
#define FMIN(a, b) ((a) != (a) || (b) != (b) ? (a) + (b) : ((a) < (b) ? (a) : (b)))
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define IMIN(a, b) ((a) < (b) ? (a) : (b))

/* acc[i] = acc[i] op x[i] for native types; U is the unsigned type sums and products wrap in. */
#define NATIVE_STEP(NAME, T, U, MAXF, MINF)                                                                    \
    STUB_CLONED static void NAME(T *restrict acc, const T *restrict x, size_t n, int op) {                    \
        switch (op) {                                                                                        \
        case HCCL_REDUCE_SUM:                                                                                \
            for (size_t i = 0; i < n; i++) acc[i] = (T)((U)acc[i] + (U)x[i]);                                 \
            break;                                                                                           \
        case HCCL_REDUCE_PROD:                                                                               \
            for (size_t i = 0; i < n; i++) acc[i] = (T)((U)acc[i] * (U)x[i]);                                 \
            break;                                                                                           \
        case HCCL_REDUCE_MAX:                                                                                \
            for (size_t i = 0; i < n; i++) acc[i] = MAXF(acc[i], x[i]);                                       \
            break;                                                                                           \
        default:                                                                                             \
            for (size_t i = 0; i < n; i++) acc[i] = MINF(acc[i], x[i]);                                       \
            break;                                                                                           \
        }                                                                                                    \
    }

NATIVE_STEP(step_i8, int8_t, uint32_t, IMAX, IMIN)
NATIVE_STEP(step_i16, int16_t, uint32_t, IMAX, IMIN)
NATIVE_STEP(step_i32, int32_t, uint32_t, IMAX, IMIN)
NATIVE_STEP(step_i64, int64_t, uint64_t, IMAX, IMIN)
NATIVE_STEP(step_u64, uint64_t, uint64_t, IMAX, IMIN)
NATIVE_STEP(step_f32, float, float, FMAX, FMIN)
NATIVE_STEP(step_f64, double, double, FMAX, FMIN)

/* acc (float32 holding 16-bit values) = round16(acc op widen(x)). */
#define HALF_STEP(NAME, WIDEN, NARROW)                                                                         \
    STUB_CLONED static void NAME(float *restrict acc, const uint16_t *restrict x, size_t n, int op) {          \
        switch (op) {                                                                                        \
        case HCCL_REDUCE_SUM:                                                                                \
            for (size_t i = 0; i < n; i++) acc[i] = WIDEN(NARROW(acc[i] + WIDEN(x[i])));                      \
            break;                                                                                           \
        case HCCL_REDUCE_PROD:                                                                               \
            for (size_t i = 0; i < n; i++) acc[i] = WIDEN(NARROW(acc[i] * WIDEN(x[i])));                      \
            break;                                                                                           \
        case HCCL_REDUCE_MAX:                                                                                \
            for (size_t i = 0; i < n; i++) {                                                                 \
                float v = WIDEN(x[i]);                                                                       \
                acc[i] = WIDEN(NARROW(FMAX(acc[i], v)));                                                     \
            }                                                                                                \
            break;                                                                                           \
        default:                                                                                             \
            for (size_t i = 0; i < n; i++) {                                                                 \
                float v = WIDEN(x[i]);                                                                       \
                acc[i] = WIDEN(NARROW(FMIN(acc[i], v)));                                                     \
            }                                                                                                \
            break;                                                                                           \
        }                                                                                                    \
    }

HALF_STEP(step_f16, f16_widen, f16_narrow)
HALF_STEP(step_bf16, bf16_widen, bf16_narrow)

STUB_CLONED static void load_half(float *restrict acc, const uint16_t *restrict x, size_t n, bool bf16) {
    if (bf16)
        for (size_t i = 0; i < n; i++) acc[i] = bf16_widen(x[i]);
    else
        for (size_t i = 0; i < n; i++) acc[i] = f16_widen(x[i]);
}

STUB_CLONED static void store_half(uint16_t *restrict out, const float *restrict acc, size_t n, bool bf16) {
    if (bf16)
        for (size_t i = 0; i < n; i++) out[i] = bf16_narrow(acc[i]);
    else
        for (size_t i = 0; i < n; i++) out[i] = f16_narrow(acc[i]);
}

/* Two inputs at once for the hottest case (float32 sums): acc = a + b. */
STUB_CLONED static void sum2_f32(float *restrict acc, const float *restrict a, const float *restrict b, size_t n) {
    for (size_t i = 0; i < n; i++) acc[i] = a[i] + b[i];
}

static void native_step(void *acc, const void *x, size_t n, int dtype, int op) {
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8: step_i8(acc, x, n, op); break;
    case HCCL_DATA_TYPE_INT16: step_i16(acc, x, n, op); break;
    case HCCL_DATA_TYPE_INT32: step_i32(acc, x, n, op); break;
    case HCCL_DATA_TYPE_INT64: step_i64(acc, x, n, op); break;
    case HCCL_DATA_TYPE_UINT64: step_u64(acc, x, n, op); break;
    case HCCL_DATA_TYPE_FP32: step_f32(acc, x, n, op); break;
    default: step_f64(acc, x, n, op); break;
    }
}

/* One block: the result in buf (bytes of dtype), from in[j] + off. */
static void reduce_block(void *buf, float *fbuf, const void *const *in, int k, uint64_t off, size_t len, int dtype,
                         int op, size_t es) {
    if (dtype == HCCL_DATA_TYPE_FP16 || dtype == HCCL_DATA_TYPE_BFP16) {
        bool bf16 = dtype == HCCL_DATA_TYPE_BFP16;
        load_half(fbuf, (const uint16_t *)in[0] + off, len, bf16);
        for (int j = 1; j < k; j++)
            (bf16 ? step_bf16 : step_f16)(fbuf, (const uint16_t *)in[j] + off, len, op);
        store_half(buf, fbuf, len, bf16);
        return;
    }
    int j = 1;
    if (k >= 2 && dtype == HCCL_DATA_TYPE_FP32 && op == HCCL_REDUCE_SUM) {
        sum2_f32(buf, (const float *)in[0] + off, (const float *)in[1] + off, len);
        j = 2;
    } else {
        memcpy(buf, (const char *)in[0] + off * es, len * es);
    }
    for (; j < k; j++) native_step(buf, (const char *)in[j] + off * es, len, dtype, op);
}

void hc_reduce_multi(void *const *outs, int nouts, const void *const *in, int k, uint64_t n, int dtype, int op) {
    size_t es = hc_dtype_size(dtype);
    if (es == 0 || n == 0) return;
    _Alignas(64) unsigned char buf[BLOCK_BYTES];
    _Alignas(64) float fbuf[BLOCK_BYTES / 2]; /* 16-bit types: a block of their elements as float32 */
    size_t block = BLOCK_BYTES / es;
    bool stream = n * es >= STREAM_MIN_BYTES;
    for (uint64_t off = 0; off < n; off += block) {
        size_t len = n - off < block ? (size_t)(n - off) : block;
        reduce_block(buf, fbuf, in, k, off, len, dtype, op, es);
        for (int o = 0; o < nouts; o++) aclStubCopyBytes((char *)outs[o] + off * es, buf, len * es, stream);
    }
    if (stream) aclStubStreamFence();
}

void hc_reduce(void *out, const void *const *in, int k, uint64_t n, int dtype, int op, bool stream) {
    (void)stream;
    void *outs[1] = {out};
    hc_reduce_multi(outs, 1, in, k, n, dtype, op);
}
