/* aclnnMoeFinalizeRoutingV2Grad (spec: ops/moe_finalize_routing_v2_grad.md). */
#include <stdlib.h>

#include "aclnnop/aclnn_moe_finalize_routing_v2_grad.h"
#include "aclstub/op_sdk.h"
#include "cpu_dispatch.h"
#include "finalize_routing_common.h"
#include "nan_rule.h"

enum { GRAD_Y, IDX, EX, SCALES, EXPERT_IDX, BIAS, DROP_PAD_MODE, ACTIVE_NUM, EXPERT_NUM, CAPACITY, GRAD_EX, GRAD_SCALES };

static const aclStubParam PARAMS[] = {
    [GRAD_Y] = {"gradY", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"expandedRowIdx", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [EX] = {"expandedXOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "gradY"},
    [SCALES] = {"scalesOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "gradY"},
    [EXPERT_IDX] = {"expertIdxOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32)},
    [BIAS] = {"biasOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "gradY"},
    [DROP_PAD_MODE] = {"dropPadMode", ACLSTUB_INT},
    [ACTIVE_NUM] = {"activeNum", ACLSTUB_INT},
    [EXPERT_NUM] = {"expertNum", ACLSTUB_INT},
    [CAPACITY] = {"expertCapacity", ACLSTUB_INT},
    [GRAD_EX] = {"gradExpandedXOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "gradY"},
    [GRAD_SCALES] = {"gradScalesOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "gradY"},
};

/* The A2/A3 unified buffer in bytes: the tiling derives the hidden-size chunk of the gradScales sum from it. */
#define UB_BYTES 196608

typedef struct {
    int64_t n, h, k, l;
    int64_t rows;      /* D: rows of expandedX and gradExpandedXOut */
    int64_t bias_rows;
    int64_t chunk;     /* P: hidden elements reduced per step of the gradScales sum */
    bool drop_pad;
} Plan;

#define TILING ACLNN_ERR_INNER_TILING_ERROR

static aclnnStatus check_with_scales(aclStubOpCall *c, Plan *p, int64_t mode) {
    const aclStubTensorDesc *ex = aclStubOpTensor(c, EX), *scales = aclStubOpTensor(c, SCALES);
    const aclStubTensorDesc *bias = aclStubOpTensor(c, BIAS), *eidx = aclStubOpTensor(c, EXPERT_IDX);
    uint32_t ex_rank = mode == 1 ? 3 : 2;
    ACLSTUB_RETURN_ERROR_IF(ex->ndim != ex_rank, c, TILING, "expandedXOptional must be %u-D when dropPadMode = %lld, "
                            "got %u-D", ex_rank, (long long)mode, ex->ndim);
    ACLSTUB_RETURN_ERROR_IF(scales->ndim != 2, c, TILING, "scalesOptional must be 2-D (N, K), got %u-D", scales->ndim);
    if (bias) {
        ACLSTUB_RETURN_ERROR_IF(eidx->ndim != 2, c, TILING, "expertIdxOptional must be 2-D (N, K), got %u-D",
                                eidx->ndim);
        ACLSTUB_RETURN_ERROR_IF(bias->ndim != 2, c, TILING, "biasOptional must be 2-D (E, H), got %u-D", bias->ndim);
    }
    int64_t ex_rows = ex->dims[0];
    if (mode == 1 && __builtin_mul_overflow(ex->dims[0], ex->dims[1], &ex_rows)) ex_rows = -1;
    ACLSTUB_RETURN_ERROR_IF(ex_rows != p->rows, c, TILING, "expandedXOptional has %lld rows but must have D = %lld "
                            "(%s)", (long long)ex_rows, (long long)p->rows,
                            mode == 1 ? "expertNum x expertCapacity" : "activeNum if 0 < activeNum < L, else L");
    ACLSTUB_RETURN_ERROR_IF(ex->dims[ex_rank - 1] != p->h, c, TILING, "expandedXOptional.shape[%u] = %lld must equal "
                            "the hidden size H = %lld of gradY", ex_rank - 1, (long long)ex->dims[ex_rank - 1],
                            (long long)p->h);
    ACLSTUB_RETURN_ERROR_IF(scales->dims[0] != p->n, c, TILING, "scalesOptional.shape[0] = %lld must equal "
                            "gradY.shape[0] = N = %lld", (long long)scales->dims[0], (long long)p->n);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(scales) != p->l, c, TILING, "scalesOptional has %lld elements but must have "
                            "len(expandedRowIdx) = %lld", (long long)aclStubNumel(scales), (long long)p->l);
    if (bias) {
        ACLSTUB_RETURN_ERROR_IF(eidx->dims[0] != p->n, c, TILING, "expertIdxOptional.shape[0] = %lld must equal "
                                "gradY.shape[0] = N = %lld", (long long)eidx->dims[0], (long long)p->n);
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(eidx) != p->l, c, TILING, "expertIdxOptional has %lld elements but must "
                                "have len(expandedRowIdx) = %lld", (long long)aclStubNumel(eidx), (long long)p->l);
        ACLSTUB_RETURN_ERROR_IF(bias->dims[0] <= 0, c, TILING, "biasOptional.shape[0] = %lld must be > 0",
                                (long long)bias->dims[0]);
        ACLSTUB_RETURN_ERROR_IF(mode == 1 && bias->dims[0] != aclStubOpInt(c, EXPERT_NUM), c, TILING,
                                "biasOptional.shape[0] = %lld must equal expertNum = %lld when dropPadMode = 1",
                                (long long)bias->dims[0], (long long)aclStubOpInt(c, EXPERT_NUM));
        ACLSTUB_RETURN_ERROR_IF(bias->dims[1] != p->h, c, TILING, "biasOptional.shape[1] = %lld must equal the hidden "
                                "size H = %lld", (long long)bias->dims[1], (long long)p->h);
    }
    p->k = scales->dims[1];
    p->bias_rows = bias ? bias->dims[0] : 0;
    /* The membase tiling: per hidden element 4 bytes of float products, gradY and expandedX, +4 with bias. */
    int64_t b = (int64_t)aclDataTypeSize(ex->dtype), w = 8 + b + (bias ? 4 : 0);
    p->chunk = (((UB_BYTES - 128) / w) * b / 32) * 32 / b;
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *gy = aclStubOpTensor(c, GRAD_Y), *idx = aclStubOpTensor(c, IDX);
    const aclStubTensorDesc *ex = aclStubOpTensor(c, EX), *scales = aclStubOpTensor(c, SCALES);
    const aclStubTensorDesc *bias = aclStubOpTensor(c, BIAS), *eidx = aclStubOpTensor(c, EXPERT_IDX);
    const aclStubTensorDesc *gex = aclStubOpTensor(c, GRAD_EX), *gsc = aclStubOpTensor(c, GRAD_SCALES);
    int64_t mode = aclStubOpInt(c, DROP_PAD_MODE), active = aclStubOpInt(c, ACTIVE_NUM);
    int64_t experts = aclStubOpInt(c, EXPERT_NUM), capacity = aclStubOpInt(c, CAPACITY);
    if (aclStubNumel(gex) == 0 && aclStubNumel(gsc) == 0) return aclStubOpNothingToDo(c);

    ACLSTUB_RETURN_ERROR_IF(scales && !ex, c, TILING, "scalesOptional requires expandedXOptional");
    ACLSTUB_RETURN_ERROR_IF(scales && bias && !eidx, c, TILING, "biasOptional with scalesOptional requires "
                            "expertIdxOptional");
    ACLSTUB_RETURN_ERROR_IF(mode != 0 && mode != 1, c, TILING, "dropPadMode = %lld must be 0 (dropless) or 1 "
                            "(drop/pad)", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(mode == 1 && experts <= 0, c, TILING, "expertNum = %lld must be > 0 when dropPadMode = 1",
                            (long long)experts);
    ACLSTUB_RETURN_ERROR_IF(mode == 1 && capacity <= 0, c, TILING, "expertCapacity = %lld must be > 0 when "
                            "dropPadMode = 1", (long long)capacity);
    ACLSTUB_RETURN_ERROR_IF(gy->ndim != 2, c, TILING, "gradY must be 2-D (N, H), got %u-D", gy->ndim);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "expandedRowIdx must be 1-D, got %u-D", idx->ndim);

    Plan *p = c->plan;
    p->n = gy->dims[0];
    p->h = gy->dims[1];
    p->l = idx->dims[0];
    p->k = 1;
    p->drop_pad = mode == 1;
    if (mode == 1) {
        ACLSTUB_RETURN_ERROR_IF(__builtin_mul_overflow(experts, capacity, &p->rows), c, TILING, "expertNum x "
                                "expertCapacity = %lld x %lld overflows", (long long)experts, (long long)capacity);
    } else {
        p->rows = active > 0 && active < p->l ? active : p->l;
    }
    if (scales) {
        ACLSTUB_TRY(check_with_scales(c, p, mode));
    } else {
        ACLSTUB_RETURN_ERROR_IF(p->n != p->l, c, TILING, "without scalesOptional (K = 1) gradY.shape[0] = %lld must "
                                "equal len(expandedRowIdx) = %lld", (long long)p->n, (long long)p->l);
    }
    ACLSTUB_RETURN_ERROR_IF(gex->ndim != 2 && gex->ndim != 3, c, TILING, "gradExpandedXOut must be 2-D or 3-D, got "
                            "%u-D", gex->ndim);
    /* Stricter than the device, which checks only the sizes below (and would write a (D, H, 0) output). */
    uint32_t gex_rank = mode == 1 ? 3 : 2;
    ACLSTUB_RETURN_ERROR_IF(gex->ndim != gex_rank, c, TILING, "gradExpandedXOut must be %u-D when dropPadMode = %lld, "
                            "got %u-D", gex_rank, (long long)mode, gex->ndim);
    int64_t gex_rows = gex->dims[0];
    if (mode == 1 && __builtin_mul_overflow(gex->dims[0], gex->dims[1], &gex_rows)) gex_rows = -1;
    ACLSTUB_RETURN_ERROR_IF(gex_rows != p->rows || gex->dims[gex_rank - 1] != p->h, c, TILING, "gradExpandedXOut "
                            "must hold D = %lld rows of H = %lld (%s), got %lld rows of %lld", (long long)p->rows,
                            (long long)p->h, mode == 1 ? "(expertNum, expertCapacity, H)" : "(D, H)",
                            (long long)gex_rows, (long long)gex->dims[gex_rank - 1]);
    if (scales) {
        ACLSTUB_RETURN_ERROR_IF(gsc->ndim < 1 || gsc->dims[0] != p->n, c, TILING, "gradScalesOut.shape[0] must equal "
                                "gradY.shape[0] = N = %lld", (long long)p->n);
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(gsc) != p->l, c, TILING, "gradScalesOut has %lld elements but must have "
                                "len(expandedRowIdx) = %lld", (long long)aclStubNumel(gsc), (long long)p->l);
        ACLSTUB_RETURN_ERROR_IF(gsc->ndim != 2, c, TILING, "gradScalesOut must be 2-D (N, K), got %u-D", gsc->ndim);
    }
    for (int i = GRAD_Y; i <= BIAS; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));
    if (!scales) {
        /* Without scales only gradY is scattered: the other inputs are not read, gradScalesOut is not written. */
        aclStubOpIgnore(c, EX);
        aclStubOpIgnore(c, BIAS);
        aclStubOpIgnore(c, GRAD_SCALES);
    }
    if (!scales || !bias) aclStubOpIgnore(c, EXPERT_IDX);
    return OK;
}

/* ---- kernel ---------------------------------------------------------------------------------------------- */

/* Products summed by one adjacent-pair tree: 8-element block trees, then a 64-way tree of the block sums. */
#define TREE 512

/* dst[j] = src[2j] + src[2j+1] for j < m: one level of the tree. */
static inline void tree_level(float *restrict dst, const float *restrict src, int64_t m) {
    for (int64_t j = 0; j < m; j++) dst[j] = stub_add_f32(src[2 * j], src[2 * j + 1]);
}

/*
 * <a, g> in the device's order (spec section 3): chunks of `chunk` elements added in sequence to S = +0.0;
 * within a chunk, groups of 512 products (zero-padded) reduced by an adjacent-pair tree and added in sequence.
 * (The device's 8-element block trees followed by a 64-way tree of block sums form exactly that tree.)
 * Every operation follows the NaN rule; this is the reference path (see device_dot).
 */
static float device_dot_exact(const float *a, const float *g, int64_t h, int64_t chunk) {
    float s = 0.0f;
    float p[TREE], q[TREE / 2];
    for (int64_t c0 = 0; c0 < h; c0 += chunk) {
        int64_t c1 = c0 + chunk < h ? c0 + chunk : h;
        float acc = 0.0f;
        for (int64_t g0 = c0; g0 < c1; g0 += TREE) {
            int64_t m = c1 - g0 < TREE ? c1 - g0 : TREE;
            for (int64_t j = 0; j < m; j++) p[j] = stub_mul_f32(a[g0 + j], g[g0 + j]);
            for (int64_t j = m; j < TREE; j++) p[j] = 0.0f;
            float *src = p, *dst = q;
            for (int64_t w = TREE / 2; w >= 1; w /= 2) {
                tree_level(dst, src, w);
                float *t = src;
                src = dst;
                dst = t;
            }
            acc = g0 == c0 ? src[0] : stub_add_f32(acc, src[0]);
        }
        s = stub_add_f32(s, acc);
    }
    return s;
}

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX2_KERNEL __attribute__((target("avx2,f16c")))

static bool has_avx2(void) {
    static int cached = -1;
    if (cached < 0) cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    return cached;
}

/* Lane j = the adjacent-pair tree sum of the eight lanes of v[j]: two horizontal-add levels, then halves. */
AVX2_KERNEL static inline __m256 tree8x8(const __m256 v[8]) {
    __m256 ab = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
    __m256 cd = _mm256_hadd_ps(_mm256_hadd_ps(v[4], v[5]), _mm256_hadd_ps(v[6], v[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(ab, cd, 0x20), _mm256_permute2f128_ps(ab, cd, 0x31));
}

/* Elements [off, off + 8) of a FLOAT, BF16 or FLOAT16 row as float32 (exact; dt is a constant after inlining). */
AVX2_KERNEL static inline __attribute__((always_inline)) __m256 load8(const void *row, int64_t off, aclDataType dt) {
    if (dt == ACL_FLOAT) return _mm256_loadu_ps((const float *)row + off);
    __m128i h = _mm_loadu_si128((const __m128i *)((const uint16_t *)row + off));
    if (dt == ACL_BF16) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    return _mm256_cvtph_ps(h);
}

/* The tree sum of 512 products a[j] * g[j] (fewer than 512 when n < 512: zero-padded); a of dtype dt. */
AVX2_KERNEL static inline __attribute__((always_inline)) float tree512_as(const void *a, aclDataType dt,
                                                                         const float *g, int64_t n) {
    float pad[TREE];
    if (n < TREE) {
        size_t es = dt == ACL_FLOAT ? 4 : 2;
        for (int64_t j = 0; j < TREE; j++) pad[j] = j < n ? fr_load((const char *)a + j * (int64_t)es, dt) * g[j] : 0.0f;
    }
    __m256 blocks[8], v[8];
    for (int q = 0; q < 8; q++) {
        for (int k = 0; k < 8; k++) {
            int64_t off = (q * 8 + k) * 8;
            v[k] = n < TREE ? _mm256_loadu_ps(pad + off) : _mm256_mul_ps(load8(a, off, dt), _mm256_loadu_ps(g + off));
        }
        blocks[q] = tree8x8(v);
    }
    float c[8];
    _mm256_storeu_ps(c, tree8x8(blocks));
    return ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
}

AVX2_KERNEL static inline __attribute__((always_inline)) float device_dot_as(const void *a, aclDataType dt,
                                                                            const float *g, int64_t h,
                                                                            int64_t chunk) {
    size_t es = dt == ACL_FLOAT ? 4 : 2;
    float s = 0.0f;
    for (int64_t c0 = 0; c0 < h; c0 += chunk) {
        int64_t c1 = c0 + chunk < h ? c0 + chunk : h;
        float acc = 0.0f;
        for (int64_t g0 = c0; g0 < c1; g0 += TREE) {
            float t = tree512_as((const char *)a + g0 * (int64_t)es, dt, g + g0, c1 - g0 < TREE ? c1 - g0 : TREE);
            acc = g0 == c0 ? t : acc + t;
        }
        s += acc;
    }
    return s;
}

/* <a, g> as device_dot_exact computes it for NaN-free products, a of dtype dt widened in the products' pass. */
AVX2_KERNEL static float device_dot_avx2(const void *a, aclDataType dt, const float *g, int64_t h, int64_t chunk) {
    if (dt == ACL_FLOAT) return device_dot_as(a, ACL_FLOAT, g, h, chunk);
    if (dt == ACL_BF16) return device_dot_as(a, ACL_BF16, g, h, chunk);
    return device_dot_as(a, ACL_FLOAT16, g, h, chunk);
}
#endif

/*
 * device_dot_exact, fast: the same operations in the same order without the NaN rule. A NaN anywhere makes the
 * result NaN, and without one IEEE results do not depend on operand order, so only a NaN result is recomputed.
 */
static float device_dot(const float *a, const float *g, int64_t h, int64_t chunk) {
#if defined(__x86_64__)
    if (has_avx2()) {
        float s = device_dot_avx2(a, ACL_FLOAT, g, h, chunk);
        if (s == s) return s;
    }
#endif
    return device_dot_exact(a, g, h, chunk);
}

/* device_dot of row r of ex (dtype dt, contiguous) read in place: widened in the products' pass where the CPU
 * allows, else (and for a NaN result, which only the exact path gets right) widened into buf first. */
static float device_dot_row(const void *row, aclDataType dt, float *buf, const float *g, int64_t h, int64_t chunk) {
#if defined(__x86_64__)
    if (has_avx2()) {
        float s = device_dot_avx2(row, dt, g, h, chunk);
        if (s == s) return s;
    }
#endif
    aclStubRowLoadF32(buf, row, dt, h);
    return device_dot_exact(buf, g, h, chunk);
}

/* gradExpandedX row = gradY row * scale, in float32 (exact products of widened values), narrowed once. */
STUB_CLONED static void scale_row(float *dst, const float *g, float scale, int64_t h) {
    for (int64_t j = 0; j < h; j++) dst[j] = stub_mul_f32(g[j], scale);
}

/* a = bias + x, in float32: the scales-gradient operand of a slot with a bias. */
STUB_CLONED static void add_rows(float *dst, const float *bias, const float *x, int64_t h) {
    for (int64_t j = 0; j < h; j++) dst[j] = stub_add_f32(bias[j], x[j]);
}

typedef struct {
    const aclStubOpCall *call;
    const Plan *plan;
    const int64_t *writer; /* writer[r]: the last slot whose index is r (it alone writes row r), or -1 */
    int failed;            /* a chunk could not get its buffers (out of memory): the kernel fails */
} Ctx;

static char *grad_row(const aclStubOpCall *c, const Plan *p, int64_t r) {
    const aclStubTensorDesc *gex = aclStubOpTensor(c, GRAD_EX);
    return (char *)gex->data + (gex->offset + r * p->h) * (int64_t)aclDataTypeSize(gex->dtype);
}

/* Without scales (K = 1): row idx[i] of gradExpandedX is a bit copy of gradY row i. */
static void copy_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *cx = arg;
    const aclStubOpCall *c = cx->call;
    const Plan *p = cx->plan;
    const aclStubTensorDesc *gy = aclStubOpTensor(c, GRAD_Y), *idx = aclStubOpTensor(c, IDX);
    size_t es = aclDataTypeSize(gy->dtype);
    for (int64_t i = begin; i < end; i++) {
        int64_t r = aclStubIndex1(idx, i);
        if (r < 0 || r >= p->rows || cx->writer[r] != i) continue;
        int64_t inner;
        const char *src = fr_row_ptr(gy, i, &inner);
        char *dst = grad_row(c, p, r);
        if (inner == 1)
            memcpy(dst, src, (size_t)p->h * es);
        else
            for (int64_t j = 0; j < p->h; j++) memcpy(dst + j * (int64_t)es, src + j * inner * (int64_t)es, es);
    }
}

/* gradScales[i] = s in dtype dt. */
static void store_scale_grad(const aclStubTensorDesc *gsc, int64_t i, aclDataType dt, float s) {
    void *dst = (char *)gsc->data + (gsc->offset + i) * (int64_t)aclDataTypeSize(dt);
    if (dt == ACL_FLOAT)
        *(float *)dst = s;
    else
        *(uint16_t *)dst = dt == ACL_BF16 ? aclStubF32ToBf16(s) : aclStubF32ToF16(s);
}

static void scales_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *cx = arg;
    const aclStubOpCall *c = cx->call;
    const Plan *p = cx->plan;
    const aclStubTensorDesc *gy = aclStubOpTensor(c, GRAD_Y), *idx = aclStubOpTensor(c, IDX);
    const aclStubTensorDesc *ex = aclStubOpTensor(c, EX), *scales = aclStubOpTensor(c, SCALES);
    const aclStubTensorDesc *bias = aclStubOpTensor(c, BIAS), *eidx = aclStubOpTensor(c, EXPERT_IDX);
    const aclStubTensorDesc *gsc = aclStubOpTensor(c, GRAD_SCALES);
    int64_t h = p->h;
    aclDataType dt = gy->dtype;
    float stack[4 * FR_STACK_ROW];
    float *heap = h <= FR_STACK_ROW ? NULL : malloc((size_t)h * 4 * sizeof(float));
    float *scratch = h <= FR_STACK_ROW ? stack : heap;
    if (!scratch) { /* out of memory: the kernel fails */
        __atomic_store_n(&((Ctx *)arg)->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *g_buf = scratch, *x_buf = scratch + h, *b_buf = scratch + 2 * h, *a_buf = scratch + 3 * h;
    int64_t token = -1;
    const float *g = NULL;
    const void *graw = NULL; /* gradY's row as stored, when contiguous */
    for (int64_t i = begin; i < end; i++) {
        if (i / p->k != token) {
            token = i / p->k;
            g = fr_row_f32(gy, token, h, g_buf);
            int64_t inner;
            graw = fr_row_ptr(gy, token, &inner);
            if (inner != 1 && h != 1) graw = NULL;
        }
        int64_t r = aclStubIndex1(idx, i);
        bool valid = r >= 0 && r < p->rows;
        float scale = fr_load(aclStubElemFlat(scales, i, p->k), scales->dtype);
        if (valid && cx->writer[r] == i) {
            if (dt == ACL_FLOAT) {
                scale_row((float *)grad_row(c, p, r), g, scale, h);
            } else if (graw != NULL) { /* one weighted term: widened, multiplied and narrowed in one pass */
                aclStubTerms x = {&graw, &scale, 1, false};
                aclStubRowSumTerms(grad_row(c, p, r), &x, 1, dt, h, false, NULL);
            } else {
                scale_row(a_buf, g, scale, h);
                aclStubRowStoreF32(grad_row(c, p, r), a_buf, dt, h);
            }
        }
        if (valid && !bias) { /* the expert row read in place */
            int64_t inner;
            const char *row = fr_row_ptr(ex, r, &inner);
            if (inner == 1 || h == 1) {
                float s = device_dot_row(row, ex->dtype, x_buf, g, h, p->chunk);
                store_scale_grad(gsc, i, dt, s);
                continue;
            }
        }
        const float *a = valid ? fr_row_f32(ex, r, h, x_buf) : NULL;
        if (bias) {
            int64_t e = *(const int32_t *)aclStubElemFlat(eidx, i, p->k);
            const float *brow = NULL;
            if (e >= 0 && e < p->bias_rows) {
                brow = fr_row_f32(bias, e, h, b_buf);
            } else { /* the device reads out of bounds; the stub takes a zero bias row */
                memset(b_buf, 0, (size_t)h * sizeof(float));
                brow = b_buf;
            }
            if (a) {
                add_rows(a_buf, brow, a, h);
                a = a_buf;
            } else {
                a = brow; /* a dropped slot still gets <bias, gradY> (the kernel's bias-only branch) */
            }
        }
        store_scale_grad(gsc, i, dt, a ? device_dot(a, g, h, p->chunk) : 0.0f);
    }
    free(heap);
}

/* Drop/pad mode: rows no slot writes are zero. */
static void zero_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *cx = arg;
    size_t bytes = (size_t)cx->plan->h * aclDataTypeSize(aclStubOpTensor(cx->call, GRAD_EX)->dtype);
    for (int64_t r = begin; r < end; r++)
        if (cx->writer[r] < 0) memset(grad_row(cx->call, cx->plan, r), 0, bytes);
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    const aclStubTensorDesc *idx = aclStubOpTensor(c, IDX);
    /*
     * Slots are independent except for duplicate indices (forbidden by the documentation; the device races):
     * the last slot wins, decided up front so the result does not depend on the thread count.
     */
    int64_t *writer = malloc((size_t)(p->rows > 0 ? p->rows : 1) * sizeof(int64_t));
    if (!writer) return aclStubKernelFail(c, ACLNN_ERR_INNER, "out of memory (%lld row slots)", (long long)p->rows);
    for (int64_t r = 0; r < p->rows; r++) writer[r] = -1;
    for (int64_t i = 0; i < p->l; i++) {
        int64_t r = aclStubIndex1(idx, i);
        if (r >= 0 && r < p->rows) writer[r] = i;
    }
    Ctx cx = {c, p, writer, 0};
    int64_t min_chunk = 65536 / (p->h + 1) + 1;
    if (p->drop_pad && p->h > 0) aclStubParallelFor(p->rows, min_chunk, zero_range, &cx);
    if (p->h > 0 || aclStubOpTensor(c, SCALES))
        aclStubParallelFor(p->l, min_chunk, aclStubOpTensor(c, SCALES) ? scales_range : copy_range, &cx);
    free(writer);
    return cx.failed ? aclStubKernelOutOfMemory(c) : OK;
}

static const aclStubOpDef OP = {"aclnnMoeFinalizeRoutingV2Grad", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeFinalizeRoutingV2Grad, OP, (const aclTensor *, gradY), (const aclTensor *, expandedRowIdx),
                  (const aclTensor *, expandedXOptional), (const aclTensor *, scalesOptional),
                  (const aclTensor *, expertIdxOptional), (const aclTensor *, biasOptional), (int64_t, dropPadMode),
                  (int64_t, activeNum), (int64_t, expertNum), (int64_t, expertCapacity),
                  (const aclTensor *, gradExpandedXOut), (const aclTensor *, gradScalesOut))
