/* aclnnMoeTokenUnpermuteGrad (spec: ops/moe_token_unpermute_grad.md). */
#include <stdlib.h>

#include "aclnnop/aclnn_moe_token_unpermute_grad.h"
#include "stub_internal.h"
#include "unpermute_common.h"

enum { PERMUTED, GRAD, IDX, PROBS, PADDED_MODE, RESTORE_SHAPE, PERMUTED_GRAD, PROBS_GRAD };

/* Tokens dtype X for inputs 0/1 and output 0, probs dtype Y for probs and its gradient: nine OpDef rows. */
static const aclStubParam PARAMS[] = {
    [PERMUTED] = {"permuteTokens", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [GRAD] = {"unpermutedTokensGrad", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "permuteTokens"},
    [IDX] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS},
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL},
    [RESTORE_SHAPE] = {"restoreShapeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [PERMUTED_GRAD] = {"permutedTokensGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "permuteTokens"},
    /* REQUIRED in the OpDef even without probs (then any float dtype and shape, never written). */
    [PROBS_GRAD] = {"probsGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "probsOptional"},
};

typedef struct {
    int64_t p, t, k, h;
    int64_t chunk; /* hidden elements per probs-gradient reduction */
} Plan;

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *tok = aclStubOpTensor(c, PERMUTED), *grad = aclStubOpTensor(c, GRAD);
    const aclStubTensorDesc *idx = aclStubOpTensor(c, IDX), *probs = aclStubOpTensor(c, PROBS);
    const aclStubTensorDesc *ptg = aclStubOpTensor(c, PERMUTED_GRAD), *pg = aclStubOpTensor(c, PROBS_GRAD);
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    /* The Ascend 950 wrapper's rule; A2/A3 ignore the flag. restoreShapeOptional is never read. */
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(c, PADDED_MODE), c, ACLNN_ERR_PARAM_INVALID, "paddedMode = true is not supported");
    if (aclStubNumel(ptg) == 0 && aclStubNumel(pg) == 0) return aclStubOpNothingToDo(c);
    static const int TENSORS[] = {PERMUTED, GRAD, IDX, PROBS, PERMUTED_GRAD, PROBS_GRAD};
    for (size_t i = 0; i < ACLSTUB_LEN(TENSORS); i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, TENSORS[i], TILING));
    ACLSTUB_RETURN_ERROR_IF(grad->ndim != 2, c, TILING, "unpermutedTokensGrad must be 2-D (T, H), got %u-D", grad->ndim);
    ACLSTUB_RETURN_ERROR_IF(tok->ndim != 2, c, TILING, "permuteTokens must be 2-D (P, H), got %u-D", tok->ndim);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "sortedIndices must be 1-D, got %u-D", idx->ndim);
    ACLSTUB_RETURN_ERROR_IF(probs && probs->ndim != 2, c, TILING, "probsOptional must be 2-D (T, K), got %u-D",
                            probs ? probs->ndim : 0);
    int64_t p = tok->dims[0], t = grad->dims[0], h = grad->dims[1], k = probs ? probs->dims[1] : 1;
    ACLSTUB_RETURN_ERROR_IF(t == 0 || k == 0 || h == 0 || p == 0, c, TILING, "input shape has 0: T = %lld, K = %lld, "
                            "H = %lld, P = %lld", (long long)t, (long long)k, (long long)h, (long long)p);
    ACLSTUB_RETURN_ERROR_IF(k > 512, c, TILING, "topK = probsOptional.shape[1] = %lld must be <= 512", (long long)k);
    /* The kernel reads the first T x K indices; the tiling reads no other length (the vendor's tiling tests
     * pass a longer sortedIndices). */
    int64_t slots;
    ACLSTUB_RETURN_ERROR_IF(__builtin_mul_overflow(t, k, &slots) || idx->dims[0] < slots, c, TILING,
                            "sortedIndices length %lld must be at least T x K = %lld x %lld", (long long)idx->dims[0],
                            (long long)t, (long long)k);
    ACLSTUB_RETURN_ERROR_IF(probs && probs->dims[0] != t, c, TILING, "probsOptional.shape[0] = %lld must equal "
                            "unpermutedTokensGrad.shape[0] = %lld", (long long)(probs ? probs->dims[0] : 0), (long long)t);
    ACLSTUB_RETURN_ERROR_IF(ptg->ndim != 2 || ptg->dims[0] != p || ptg->dims[1] != h, c, TILING,
                            "permutedTokensGradOut must have shape (P, H) = (%lld, %lld)", (long long)p, (long long)h);
    ACLSTUB_RETURN_ERROR_IF(probs && (pg->ndim != 2 || pg->dims[0] != t || pg->dims[1] != k), c, TILING,
                            "probsGradOut must have shape (T, K) = (%lld, %lld)", (long long)t, (long long)k);
    ACLSTUB_RETURN_ERROR_IF(probs && tok->dims[1] != h, c, TILING, "permuteTokens.shape[1] = %lld must equal H = %lld",
                            (long long)tok->dims[1], (long long)h);
    int64_t chunk = h;
    if (probs) {
        chunk = unpermute_probs_chunk(h, t, k, aclDataTypeSize(tok->dtype), aclDataTypeSize(probs->dtype));
    } else {
        /* Without probs only permuteTokens.shape[0] is used and probsGradOut is never written. */
        aclStubOpIgnore(c, PERMUTED);
        aclStubOpIgnore(c, PROBS_GRAD);
    }
    *(Plan *)c->plan = (Plan){p, t, k, h, chunk};
    return OK;
}

/* ---- the kernel ---------------------------------------------------------------------------------------- */

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *tok, *grad, *idx, *probs, *ptg, *pg;
    const int64_t *owner; /* owner[r]: the last slot whose index is r, or -1 */
    int *failed;          /* set by a chunk that could not get its buffers: the kernel fails */
} Ctx;

/* Row r of a 2-D view as contiguous elements: the row itself, or a copy in scratch (h elements). */
static const void *contiguous_row(const aclStubTensorDesc *x, int64_t r, int64_t h, void *scratch) {
    const char *row = aclStubElem2(x, r, 0);
    if (x->strides[1] == 1 || h == 1) return row;
    size_t e = aclDataTypeSize(x->dtype);
    for (int64_t j = 0; j < h; j++) memcpy((char *)scratch + j * (int64_t)e, aclStubElem2(x, r, j), e);
    return scratch;
}

static float load_f32(const aclStubTensorDesc *x, int64_t i, int64_t j) {
    const void *q = aclStubElem2(x, i, j);
    if (x->dtype == ACL_FLOAT) return *(const float *)q;
    uint16_t b = *(const uint16_t *)q;
    return x->dtype == ACL_BF16 ? aclStubBf16ToF32(b) : aclStubF16ToF32(b);
}

/* permutedTokensGradOut[r] for every row a slot points at: its token's gradient row (a byte copy), times the
 * slot's weight when probs are given. Duplicates: the last slot wins, as on one device core. */
static void scatter_rows(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const Plan *p = c->p;
    aclDataType dt = c->grad->dtype;
    size_t e = aclDataTypeSize(dt);
    void *scratch = malloc((size_t)p->h * e);
    bool stream = p->p * p->h * (int64_t)e >= ACLSTUB_STREAM_MIN_BYTES;
    for (int64_t r = begin; r < end; r++) {
        int64_t s = c->owner[r];
        if (s < 0) continue; /* no slot points here: the row keeps its bytes */
        int64_t t = s / p->k;
        char *dst = aclStubElem2(c->ptg, r, 0);
        if (!scratch) { /* out of memory: the kernel fails */
            __atomic_store_n(c->failed, 1, __ATOMIC_RELAXED);
            break;
        }
        const void *g = contiguous_row(c->grad, t, p->h, scratch);
        if (!c->probs) {
            aclStubCopyBytes(dst, g, (size_t)p->h * e, stream);
        } else { /* one weighted term: the row times its weight, rounded to float32, then narrowed */
            float w = load_f32(c->probs, t, s % p->k);
            aclStubTerms x = {&g, &w, 1, false};
            aclStubRowSumTerms(dst, &x, 1, dt, p->h, stream, NULL);
        }
    }
    if (stream) aclStubStreamFence();
    free(scratch);
}

/* probsGradOut[t, k] = <permuteTokens[idx], unpermutedTokensGrad[t]> per hidden chunk, chunks added to +0.0
 * in order; a slot without a row (dropped or out of range) takes a row of zeros (so 0 * inf is NaN). */
static void probs_grad_rows(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const Plan *p = c->p;
    aclDataType dt = c->tok->dtype;
    size_t e = aclDataTypeSize(dt);
    float *g = malloc((size_t)p->h * sizeof(float)), *prod = malloc((size_t)p->h * sizeof(float));
    void *scratch = malloc((size_t)p->h * e);
    if (!g || !prod || !scratch) { /* out of memory: the kernel fails */
        __atomic_store_n(c->failed, 1, __ATOMIC_RELAXED);
        end = begin;
    }
    for (int64_t t = begin; t < end; t++) {
        aclStubRowLoadF32(g, contiguous_row(c->grad, t, p->h, scratch), dt, p->h);
        for (int64_t k = 0; k < p->k; k++) {
            int64_t r = aclStubIndex1(c->idx, t * p->k + k);
            if (r < 0 || r >= p->p) {
                memset(prod, 0, (size_t)p->h * sizeof(float));
                aclStubRowMulF32(prod, prod, g, p->h);
            } else { /* the row read in place when contiguous, widened in the product's pass */
                aclStubRowMulWidenF32(prod, contiguous_row(c->tok, r, p->h, scratch), dt, g, p->h);
            }
            float acc = aclStubVectorReduceSumF32(prod, p->h, p->chunk); /* the device's ReduceSum per chunk */
            aclStubRowStoreF32(aclStubElem2(c->pg, t, k), &acc, c->pg->dtype, 1);
        }
    }
    free(g);
    free(prod);
    free(scratch);
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    int failed = 0;
    Ctx c = {p, aclStubOpTensor(call, PERMUTED), aclStubOpTensor(call, GRAD), aclStubOpTensor(call, IDX),
             aclStubOpTensor(call, PROBS), aclStubOpTensor(call, PERMUTED_GRAD), aclStubOpTensor(call, PROBS_GRAD), NULL,
             &failed};
    aclStubKernelCheckIndices(call, IDX, p->t * p->k, 0, p->p > p->t * p->k ? p->p : p->t * p->k, INT64_MIN,
                              "rows of permutedTokensGradOut, or the T x K slots of a dropping permute");
    int64_t *owner = aclStubKernelScratch(call, (size_t)p->p * sizeof *owner);
    if (!owner) return aclStubKernelOutOfMemory(call);
    memset(owner, 0xff, (size_t)p->p * sizeof *owner); /* -1: no slot */
    /* In slot order, so a row several slots point at takes the last one: the same for any thread count. */
    for (int64_t s = 0; s < p->t * p->k; s++) {
        int64_t r = aclStubIndex1(c.idx, s);
        if (r >= 0 && r < p->p) owner[r] = s;
    }
    c.owner = owner;
    aclStubParallelFor(p->p, 65536 / (p->h + 1) + 1, scatter_rows, &c);
    if (c.probs && !failed) aclStubParallelFor(p->t, 65536 / (p->k * p->h + 1) + 1, probs_grad_rows, &c);
    return failed ? aclStubKernelOutOfMemory(call) : OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenUnpermuteGrad", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenUnpermuteGrad, OP, (const aclTensor *, permuteTokens),
                  (const aclTensor *, unpermutedTokensGrad), (const aclTensor *, sortedIndices),
                  (const aclTensor *, probsOptional), (bool, paddedMode), (const aclIntArray *, restoreShapeOptional),
                  (aclTensor *, permutedTokensGradOut), (aclTensor *, probsGradOut))
