/* aclnnMoeFinalizeRoutingV2 (spec: ops/moe_finalize_routing_v2.md). */
#include <stdlib.h>

#include "aclnnop/aclnn_moe_finalize_routing_v2.h"
#include "aclstub/op_sdk.h"
#include "cpu_dispatch.h"
#include "finalize_routing_common.h"
#include "nan_rule.h"

enum { EX, IDX, X1, X2, BIAS, SCALES, EXPERT_IDX, DROP_PAD_MODE, OUT };

static const aclStubParam PARAMS[] = {
    [EX] = {"expandedX", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"expandedRowIdx", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [X1] = {"x1Optional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "expandedX"},
    [X2] = {"x2Optional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "expandedX"},
    [BIAS] = {"biasOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "expandedX"},
    [SCALES] = {"scalesOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS}, /* FLOAT also with BF16 data */
    [EXPERT_IDX] = {"expertIdxOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32)},
    [DROP_PAD_MODE] = {"dropPadMode", ACLSTUB_INT},
    [OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "expandedX"},
};

typedef struct {
    int64_t n, k, h;
    int64_t rows;       /* R: rows of expandedX viewed as (R, H) */
    int64_t bias_rows;
    bool column_major;  /* modes 0 and 1: slot of (i, k) is i + k*N */
} Plan;

#define TILING ACLNN_ERR_INNER_TILING_ERROR

/* x1 and x2: (N, H) like out. */
static aclnnStatus check_skip_input(aclStubOpCall *c, int i, int64_t n, int64_t h) {
    const aclStubTensorDesc *t = aclStubOpTensor(c, i);
    const char *name = aclStubOpName(c, i);
    ACLSTUB_RETURN_ERROR_IF(t->ndim != 2, c, TILING, "%s must be 2-D (N, H), got %u-D", name, t->ndim);
    ACLSTUB_RETURN_ERROR_IF(t->dims[0] != n, c, TILING, "%s.shape[0] = %lld must equal the number of tokens N = "
                            "%lld", name, (long long)t->dims[0], (long long)n);
    ACLSTUB_RETURN_ERROR_IF(t->dims[1] != h, c, TILING, "%s.shape[1] = %lld must equal the hidden size H = %lld",
                            name, (long long)t->dims[1], (long long)h);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *ex = aclStubOpTensor(c, EX), *idx = aclStubOpTensor(c, IDX), *out = aclStubOpTensor(c, OUT);
    const aclStubTensorDesc *x1 = aclStubOpTensor(c, X1), *x2 = aclStubOpTensor(c, X2), *bias = aclStubOpTensor(c, BIAS);
    const aclStubTensorDesc *scales = aclStubOpTensor(c, SCALES), *eidx = aclStubOpTensor(c, EXPERT_IDX);
    int64_t mode = aclStubOpInt(c, DROP_PAD_MODE);
    /* OpDef rows: scales has expandedX's dtype, or FLOAT with BF16 data (row 4). */
    ACLSTUB_RETURN_ERROR_IF(scales && scales->dtype != ex->dtype && !(ex->dtype == ACL_BF16 && scales->dtype == ACL_FLOAT),
                            c, ACLNN_ERR_PARAM_INVALID, "argument 'scalesOptional' has data type %s but must match "
                            "'expandedX' (%s), or be ACL_FLOAT when expandedX is ACL_BF16",
                            aclStubDtypeName(scales->dtype), aclStubDtypeName(ex->dtype));
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);

    ACLSTUB_RETURN_ERROR_IF(mode < 0 || mode > 3, c, TILING, "dropPadMode = %lld must be in [0, 3]", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "expandedRowIdx must be 1-D, got %u-D", idx->ndim);
    int64_t k = 1;
    if (scales) {
        ACLSTUB_RETURN_ERROR_IF(scales->ndim != 2, c, TILING, "scalesOptional must be 2-D (N, K), got %u-D",
                                scales->ndim);
        k = scales->dims[1];
        ACLSTUB_RETURN_ERROR_IF(k <= 0, c, TILING, "scalesOptional.shape[1] = K = %lld must be > 0", (long long)k);
    }
    int64_t n = idx->dims[0] / k; /* no divisibility rule: the tail slots are ignored */
    bool padded = mode == 1 || mode == 3;
    uint32_t ex_rank = padded ? 3 : 2;
    ACLSTUB_RETURN_ERROR_IF(ex->ndim != ex_rank, c, TILING, "expandedX must be %u-D when dropPadMode = %lld, got %u-D",
                            ex_rank, (long long)mode, ex->ndim);
    int64_t h = ex->dims[ex_rank - 1];
    if (x1) ACLSTUB_TRY(check_skip_input(c, X1, n, h));
    if (x2) {
        ACLSTUB_RETURN_ERROR_IF(!x1, c, TILING, "x2Optional is only allowed together with x1Optional");
        ACLSTUB_TRY(check_skip_input(c, X2, n, h));
    }
    if (bias) {
        ACLSTUB_RETURN_ERROR_IF(!eidx, c, TILING, "biasOptional requires expertIdxOptional");
        ACLSTUB_RETURN_ERROR_IF(bias->ndim != 2, c, TILING, "biasOptional must be 2-D (E, H), got %u-D", bias->ndim);
        ACLSTUB_RETURN_ERROR_IF(padded && bias->dims[0] != ex->dims[0], c, TILING, "biasOptional.shape[0] = %lld must "
                                "equal expandedX.shape[0] = E = %lld when dropPadMode = %lld",
                                (long long)bias->dims[0], (long long)ex->dims[0], (long long)mode);
        ACLSTUB_RETURN_ERROR_IF(bias->dims[1] != h, c, TILING, "biasOptional.shape[1] = %lld must equal the hidden "
                                "size H = %lld", (long long)bias->dims[1], (long long)h);
    }
    if (eidx) {
        ACLSTUB_RETURN_ERROR_IF(eidx->ndim != 2, c, TILING, "expertIdxOptional must be 2-D (N, K), got %u-D",
                                eidx->ndim);
        ACLSTUB_RETURN_ERROR_IF(eidx->dims[0] != n, c, TILING, "expertIdxOptional.shape[0] = %lld must equal the "
                                "number of tokens N = %lld", (long long)eidx->dims[0], (long long)n);
        ACLSTUB_RETURN_ERROR_IF(eidx->dims[1] != k, c, TILING, "expertIdxOptional.shape[1] = %lld must equal K = %lld",
                                (long long)eidx->dims[1], (long long)k);
    }
    if (bias) {
        ACLSTUB_RETURN_ERROR_IF(bias->dims[0] < k, c, TILING, "biasOptional.shape[0] = E = %lld must be >= K = %lld",
                                (long long)bias->dims[0], (long long)k);
        ACLSTUB_RETURN_ERROR_IF(bias->dims[0] == 0, c, TILING, "biasOptional.shape[0] must not be 0");
    }
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, c, TILING, "out must be 2-D (N, H), got %u-D", out->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != n, c, TILING, "out.shape[0] = %lld must equal the number of tokens "
                            "N = len(expandedRowIdx) / K = %lld", (long long)out->dims[0], (long long)n);
    ACLSTUB_RETURN_ERROR_IF(out->dims[1] != h, c, TILING, "out.shape[1] = %lld must equal the hidden size H = %lld",
                            (long long)out->dims[1], (long long)h);
    /* Stricter than the device, which reads scales[i, k] for every token without checking shape[0]. */
    ACLSTUB_RETURN_ERROR_IF(scales && scales->dims[0] < n, c, TILING, "scalesOptional.shape[0] = %lld must be >= "
                            "the number of tokens N = %lld", (long long)scales->dims[0], (long long)n);
    for (int i = EX; i <= EXPERT_IDX; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));

    Plan *plan = c->plan;
    plan->n = n;
    plan->k = k;
    plan->h = h;
    plan->rows = ex->dims[0];
    if (padded && __builtin_mul_overflow(ex->dims[0], ex->dims[1], &plan->rows))
        plan->rows = INT64_MAX; /* cannot be backed by memory; phase 2 rejects the tensor before any index is used */
    plan->bias_rows = bias ? bias->dims[0] : 0;
    plan->column_major = mode == 0 || mode == 1;
    if (!bias) aclStubOpIgnore(c, EXPERT_IDX); /* shape-checked, never read */
    return OK;
}

/* ---- kernel ---------------------------------------------------------------------------------------------- */

/* One operation of the compute type: float32, or float16 (every result rounded to half, as the device does). */
static inline __attribute__((always_inline)) float in_type(float x, bool half) {
    return half ? (float)(_Float16)x : x;
}

/* a + b and a * b, with the NaN rule (exact) or as the hardware gives them (fast; see finalize_token). */
static inline __attribute__((always_inline)) float add_op(float a, float b, bool exact) {
    return exact ? stub_add_f32(a, b) : a + b;
}
static inline __attribute__((always_inline)) float mul_op(float a, float b, bool exact) {
    return exact ? stub_mul_f32(a, b) : a * b;
}

/* acc = a + b, or a + 0 without b: the start of a token's sum from x1 and x2. */
static inline __attribute__((always_inline)) void start_acc(float *restrict acc, const float *a, const float *b,
                                                            int64_t h, bool half, bool exact) {
    for (int64_t j = 0; j < h; j++) acc[j] = in_type(add_op(a[j], b ? b[j] : 0.0f, exact), half);
}

/*
 * One expert term, in the spec's order: t = row + bias (or row + 0, or row alone), t = t * scale, then
 * acc = t for the first term or acc + t.
 */
static inline __attribute__((always_inline)) void add_term(float *restrict acc, const void *row, const float *bias,
                                                           bool add_zero, float scale, bool first, int64_t h,
                                                           bool half, bool exact, bool bf16_row) {
    for (int64_t j = 0; j < h; j++) {
        float t;
        if (bf16_row) { /* widened in the loop: one pass over the row instead of two */
            union {
                uint32_t u;
                float f;
            } bits = {.u = (uint32_t)((const uint16_t *)row)[j] << 16};
            t = bits.f;
        } else {
            t = ((const float *)row)[j];
        }
        if (bias)
            t = in_type(add_op(t, bias[j], exact), half);
        else if (add_zero)
            t = in_type(add_op(t, 0.0f, exact), half);
        t = in_type(mul_op(t, scale, exact), half);
        acc[j] = first ? t : in_type(add_op(acc[j], t, exact), half);
    }
}

/* The loops for each compute type and path; the flags select loop bodies the compiler specialises. */
typedef void (*StartFn)(float *acc, const float *a, const float *b, int64_t h);
typedef void (*TermFn)(float *acc, const float *row, const float *bias, bool add_zero, float scale, bool first,
                       int64_t h);

#define FINALIZE_LOOPS(suffix, half, exact)                                                                       \
    STUB_CLONED static void start_acc_##suffix(float *acc, const float *a, const float *b, int64_t h) {           \
        start_acc(acc, a, b, h, half, exact);                                                                     \
    }                                                                                                             \
    STUB_CLONED static void add_term_##suffix(float *acc, const float *row, const float *bias, bool add_zero,     \
                                              float scale, bool first, int64_t h) {                               \
        if (first)                                                                                                \
            add_term(acc, row, bias, add_zero, scale, true, h, half, exact, false);                               \
        else                                                                                                      \
            add_term(acc, row, bias, add_zero, scale, false, h, half, exact, false);                              \
    }

FINALIZE_LOOPS(f32_fast, false, false)
FINALIZE_LOOPS(f32_exact, false, true)
FINALIZE_LOOPS(f16_fast, true, false)
FINALIZE_LOOPS(f16_exact, true, true)

/* The fast float32 loop reading a contiguous BF16 expert row directly. */
STUB_CLONED static void add_term_bf16_row(float *acc, const uint16_t *row, const float *bias, bool add_zero,
                                          float scale, bool first, int64_t h) {
    if (first)
        add_term(acc, row, bias, add_zero, scale, true, h, false, false, true);
    else
        add_term(acc, row, bias, add_zero, scale, false, h, false, false, true);
}

#if defined(__x86_64__)
#include <immintrin.h>

/* Half-precision operations eight at a time: compilers do not vectorise _Float16 conversions on their own. */
#define F16C_KERNEL __attribute__((target("avx2,f16c")))
#define ROUND_HALF(x) _mm256_cvtph_ps(_mm256_cvtps_ph((x), _MM_FROUND_TO_NEAREST_INT))

static bool has_f16c(void) {
    static int cached = -1;
    if (cached < 0) cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    return cached;
}

F16C_KERNEL static void start_acc_f16c(float *acc, const float *a, const float *b, int64_t h) {
    int64_t j = 0;
    for (; j + 8 <= h; j += 8) {
        __m256 y = b ? _mm256_loadu_ps(b + j) : _mm256_setzero_ps();
        _mm256_storeu_ps(acc + j, ROUND_HALF(_mm256_add_ps(_mm256_loadu_ps(a + j), y)));
    }
    start_acc_f16_fast(acc + j, a + j, b ? b + j : NULL, h - j);
}

F16C_KERNEL static void add_term_f16c(float *acc, const float *row, const float *bias, bool add_zero, float scale,
                                      bool first, int64_t h) {
    __m256 s = _mm256_set1_ps(scale);
    int64_t j = 0;
    for (; j + 8 <= h; j += 8) {
        __m256 t = _mm256_loadu_ps(row + j);
        if (bias)
            t = ROUND_HALF(_mm256_add_ps(t, _mm256_loadu_ps(bias + j)));
        else if (add_zero)
            t = ROUND_HALF(_mm256_add_ps(t, _mm256_setzero_ps()));
        t = ROUND_HALF(_mm256_mul_ps(t, s));
        if (!first) t = ROUND_HALF(_mm256_add_ps(_mm256_loadu_ps(acc + j), t));
        _mm256_storeu_ps(acc + j, t);
    }
    add_term_f16_fast(acc + j, row + j, bias ? bias + j : NULL, add_zero, scale, first, h - j);
}

/* The same reading a contiguous FLOAT16 expert row directly (widened in the loop: one pass over the row). */
F16C_KERNEL static void add_term_f16c_row(float *acc, const uint16_t *row, const float *bias, bool add_zero,
                                          float scale, bool first, int64_t h) {
    __m256 s = _mm256_set1_ps(scale);
    int64_t j = 0;
    for (; j + 8 <= h; j += 8) {
        __m256 t = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + j)));
        if (bias)
            t = ROUND_HALF(_mm256_add_ps(t, _mm256_loadu_ps(bias + j)));
        else if (add_zero)
            t = ROUND_HALF(_mm256_add_ps(t, _mm256_setzero_ps()));
        t = ROUND_HALF(_mm256_mul_ps(t, s));
        if (!first) t = ROUND_HALF(_mm256_add_ps(_mm256_loadu_ps(acc + j), t));
        _mm256_storeu_ps(acc + j, t);
    }
    float tail[8];
    aclStubRowLoadF32(tail, row + j, ACL_FLOAT16, h - j);
    add_term_f16_fast(acc + j, tail, bias ? bias + j : NULL, add_zero, scale, first, h - j);
}
#endif

STUB_CLONED static bool any_nan(const float *v, int64_t h) {
    bool nan = false;
    for (int64_t j = 0; j < h; j++) nan |= v[j] != v[j];
    return nan;
}

typedef struct {
    const aclStubOpCall *call;
    const Plan *plan;
    StartFn start_fast, start_exact;
    TermFn term_fast, term_exact;
    int failed; /* a chunk could not get its buffers (out of memory): the kernel fails */
} Ctx;

/* Token i into acc (h floats) with the given loops. */
static void finalize_token(const Ctx *cx, int64_t i, float *acc, float *buf_a, float *buf_b, StartFn start,
                           TermFn term) {
    const Plan *p = cx->plan;
    const aclStubOpCall *c = cx->call;
    const aclStubTensorDesc *ex = aclStubOpTensor(c, EX), *idx = aclStubOpTensor(c, IDX);
    const aclStubTensorDesc *x1 = aclStubOpTensor(c, X1), *x2 = aclStubOpTensor(c, X2), *bias = aclStubOpTensor(c, BIAS);
    const aclStubTensorDesc *scales = aclStubOpTensor(c, SCALES), *eidx = aclStubOpTensor(c, EXPERT_IDX);
    int64_t h = p->h;
    /* Without bias the BF16 kernels take the row as it is; the others add +0 (turning -0.0 into +0.0). */
    bool add_zero = bias != NULL || ex->dtype != ACL_BF16;
    bool have = false;
    if (x1) {
        const float *a = fr_row_f32(x1, i, h, buf_a), *b = x2 ? fr_row_f32(x2, i, h, buf_b) : NULL;
        start(acc, a, b, h);
        have = true;
    }
    for (int64_t j = 0; j < p->k; j++) {
        int64_t slot = p->column_major ? i + j * p->n : i * p->k + j;
        int64_t r = aclStubIndex1(idx, slot);
        if (r < 0 || r >= p->rows) { /* dropped (-1) or not a row: no contribution */
            if (!have) memset(acc, 0, (size_t)h * sizeof(float));
            have = true;
            continue;
        }
        const float *brow = NULL;
        if (bias) {
            int64_t e = *(const int32_t *)aclStubElem2(eidx, i, j);
            if (e >= 0 && e < p->bias_rows) brow = fr_row_f32(bias, e, h, buf_b); /* else: a zero bias row */
        }
        float scale = scales ? fr_load(aclStubElem2(scales, i, j), scales->dtype) : 1.0f;
        int64_t inner;
        const char *raw = fr_row_ptr(ex, r, &inner);
        if (ex->dtype == ACL_BF16 && (inner == 1 || h == 1) && term != add_term_f32_exact)
            add_term_bf16_row(acc, (const uint16_t *)raw, brow, add_zero, scale, !have, h);
#if defined(__x86_64__)
        else if (ex->dtype == ACL_FLOAT16 && (inner == 1 || h == 1) && term == add_term_f16c)
            add_term_f16c_row(acc, (const uint16_t *)raw, brow, add_zero, scale, !have, h);
#endif
        else
            term(acc, fr_row_f32(ex, r, h, buf_a), brow, add_zero, scale, !have, h);
        have = true;
    }
}

static void finalize_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *cx = arg;
    const aclStubTensorDesc *out = aclStubOpTensor(cx->call, OUT);
    int64_t h = cx->plan->h;
    aclDataType dt = out->dtype;
    bool direct = dt == ACL_FLOAT; /* float32 accumulates in the output row */
    float stack[3 * FR_STACK_ROW];
    float *heap = h <= FR_STACK_ROW ? NULL : malloc((size_t)h * 3 * sizeof(float));
    float *scratch = h <= FR_STACK_ROW ? stack : heap;
    if (!scratch) { /* out of memory: the kernel fails, never with rows silently zeroed */
        __atomic_store_n(&((Ctx *)arg)->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *buf_a = scratch, *buf_b = scratch + h, *acc_buf = scratch + 2 * h;
    for (int64_t i = begin; i < end; i++) {
        float *acc = direct ? (float *)aclStubElem2(out, i, 0) : acc_buf;
        /* A NaN result is the only one the NaN rule can change: such a token is computed again exactly. */
        finalize_token(cx, i, acc, buf_a, buf_b, cx->start_fast, cx->term_fast);
        if (any_nan(acc, h)) finalize_token(cx, i, acc, buf_a, buf_b, cx->start_exact, cx->term_exact);
        if (!direct) aclStubRowStoreF32(aclStubElem2(out, i, 0), acc, dt, h);
    }
    free(heap);
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Plan *plan = c->plan;
    bool half = aclStubOpTensor(c, OUT)->dtype == ACL_FLOAT16;
    Ctx cx = {c, plan, half ? start_acc_f16_fast : start_acc_f32_fast, half ? start_acc_f16_exact : start_acc_f32_exact,
              half ? add_term_f16_fast : add_term_f32_fast, half ? add_term_f16_exact : add_term_f32_exact, 0};
#if defined(__x86_64__)
    if (half && has_f16c()) {
        cx.start_fast = start_acc_f16c;
        cx.term_fast = add_term_f16c;
    }
#endif
    /* Enough tokens per chunk that thread start-up is paid for; bounded below by one token. */
    int64_t min_chunk = 65536 / (plan->k * plan->h + 1) + 1;
    aclStubParallelFor(plan->n, min_chunk, finalize_range, &cx);
    return cx.failed ? aclStubKernelOutOfMemory(c) : OK;
}

static const aclStubOpDef OP = {"aclnnMoeFinalizeRoutingV2", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeFinalizeRoutingV2, OP, (const aclTensor *, expandedX), (const aclTensor *, expandedRowIdx),
                  (const aclTensor *, x1Optional), (const aclTensor *, x2Optional), (const aclTensor *, biasOptional),
                  (const aclTensor *, scalesOptional), (const aclTensor *, expertIdxOptional), (int64_t, dropPadMode),
                  (const aclTensor *, out))
