/* aclnnMoeTokenUnpermuteWithEpGrad (spec: ops/moe_token_unpermute_with_ep_grad.md). */
#include <stdlib.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_ep_grad.h"
#include "unpermute_common.h"

enum { GRAD, IDX, TOKENS, PROBS, PADDED_MODE, RESTORE_SHAPE, RANGE, TOPK, TOKENS_GRAD, PROBS_GRAD };

static const aclStubParam PARAMS[] = {
    [GRAD] = {"unpermutedTokensGrad", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [TOKENS] = {"permutedTokensOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "unpermutedTokensGrad"},
    /* any float dtype, independent of the gradient (nine OpDef rows) */
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS},
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL},                                       /* ignored by the device */
    [RESTORE_SHAPE] = {"restoreShapeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE}, /* never read */
    [RANGE] = {"rangeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [TOPK] = {"topkNum", ACLSTUB_INT},
    [TOKENS_GRAD] = {"permutedTokensGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "unpermutedTokensGrad"},
    [PROBS_GRAD] = {"probsGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "probsOptional"},
};

typedef struct {
    int64_t n, k, h, start, rows, chunk; /* rows: n_eff, the window's rows of permutedTokensGradOut */
} Plan;

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *grad, *idx, *tokens, *probs, *tokens_grad, *probs_grad;
    const int64_t *owner; /* per window row: the last slot j that targets it, or -1 */
    int failed;           /* a chunk could not get its buffers (out of memory): the kernel fails */
} Ctx;

/* false when the row holds an Inf or a NaN (then 0 * row is not all zeros). */
static bool all_finite(const float *v, int64_t n) {
    bool ok = true;
    for (int64_t i = 0; i < n; i++) ok &= v[i] - v[i] == 0.0f;
    return ok;
}

/*
 * Per token t and slot j = t*K + k with rank d: permutedTokensGradOut[d - start] = g[t] * probs[t, k] when
 * slot j owns that row; probsGradOut[t, k] = <permutedTokens[d - start], g[t]> for a slot in the window, else
 * the same dot product with a row of +0.0, in the device's chunked reduction order.
 */
static void probs_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const Plan *p = c->p;
    int64_t h = p->h;
    float *buf = malloc((size_t)h * 3 * sizeof(float));
    if (!buf) { /* out of memory: the kernel fails, never with rows silently zeroed */
        __atomic_store_n(&((Ctx *)arg)->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *g_scratch = buf, *x_scratch = buf + h, *prod = buf + 2 * h;
    bool stream = p->rows * h * (int64_t)aclDataTypeSize(c->tokens_grad->dtype) >= ACLSTUB_STREAM_MIN_BYTES;
    for (int64_t t = begin; t < end; t++) {
        const float *g = aclStubRowViewF32(g_scratch, c->grad, t);
        /* the raw gradient row, when it is contiguous and of the output's dtype */
        const void *graw = (c->grad->strides[1] == 1 || h == 1) && c->grad->dtype == c->tokens_grad->dtype
                               ? aclStubElem2(c->grad, t, 0)
                               : NULL;
        bool g_finite = all_finite(g, h);
        for (int64_t kk = 0; kk < p->k; kk++) {
            int64_t j = t * p->k + kk, d = aclStubIndex1(c->idx, j);
            bool valid = d >= p->start && d - p->start < p->rows;
            bool owner = valid && c->owner[d - p->start] == j;
            float acc = 0.0f; /* an invalid slot with a finite gradient: a sum of zeros, +0.0 */
            if (owner) {
                float w = aclStubLoad2F32(c->probs, t, kk);
                void *dst = aclStubElem2(c->tokens_grad, d - p->start, 0);
                if (graw != NULL) { /* one weighted term: widened, multiplied and narrowed in one pass */
                    aclStubTerms x = {&graw, &w, 1, false};
                    aclStubRowSumTerms(dst, &x, 1, c->grad->dtype, h, stream, NULL);
                } else {
                    aclStubRowMulAccF32(prod, g, w, true, h);
                    aclStubRowStoreF32(dst, prod, c->tokens_grad->dtype, h);
                }
            }
            if (valid || !g_finite) {
                const aclStubTensorDesc *x = c->tokens;
                if (!valid) {
                    memset(x_scratch, 0, (size_t)h * sizeof(float));
                    aclStubRowMulF32(prod, x_scratch, g, h);
                } else if (x->strides[1] == 1 || h == 1) { /* widened in the product's pass */
                    aclStubRowMulWidenF32(prod, aclStubElem2(x, d - p->start, 0), x->dtype, g, h);
                } else {
                    aclStubRowMulF32(prod, aclStubRowViewF32(x_scratch, x, d - p->start), g, h);
                }
                acc = aclStubVectorReduceSumF32(prod, h, p->chunk);
            }
            aclStubStore2F32(c->probs_grad, t, kk, acc);
        }
    }
    if (stream) aclStubStreamFence();
    free(buf);
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    Ctx c = {p, aclStubOpTensor(call, GRAD), aclStubOpTensor(call, IDX), aclStubOpTensor(call, TOKENS),
             aclStubOpTensor(call, PROBS), aclStubOpTensor(call, TOKENS_GRAD), aclStubOpTensor(call, PROBS_GRAD),
             NULL, 0};
    int64_t *owner = malloc((size_t)(p->rows > 0 ? p->rows : 1) * sizeof *owner);
    if (!owner) return aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory (%lld rows)", (long long)p->rows);
    /* Several slots may name one row (not from a real permute): the last slot in j order wins. */
    for (int64_t r = 0; r < p->rows; r++) owner[r] = -1;
    for (int64_t j = 0; j < p->n * p->k; j++) {
        int64_t d = aclStubIndex1(c.idx, j);
        if (d >= p->start && d - p->start < p->rows) owner[d - p->start] = j;
    }
    c.owner = owner;
    if (!c.probs) {
        /* An exact copy of the owning token's gradient row. */
        for (int64_t r = 0; r < p->rows; r++) owner[r] = owner[r] < 0 ? ACLSTUB_ROW_KEEP : owner[r] / p->k;
        aclStubCopyRows(c.tokens_grad, 0, c.grad, owner, p->rows);
    } else {
        aclStubParallelFor(p->n, 1 + 65536 / (p->k * p->h + 1), probs_range, &c);
    }
    free(owner);
    return c.failed ? aclStubKernelOutOfMemory(call) : OK;
}

/* probs given without permutedTokens: the device would read the absent tensor (spec 4, row 1b). */
static aclnnStatus precheck(aclStubOpCall *c) {
    ACLSTUB_RETURN_ERROR_IF(c->v[PROBS].present && !c->v[TOKENS].present, c, ACLNN_ERR_PARAM_NULLPTR,
                            "argument 'permutedTokensOptional' is NULL while probsOptional is given (the probs "
                            "gradient reads it)");
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *grad = aclStubOpTensor(c, GRAD), *idx = aclStubOpTensor(c, IDX);
    const aclStubTensorDesc *tokens = aclStubOpTensor(c, TOKENS), *probs = aclStubOpTensor(c, PROBS);
    const aclStubTensorDesc *tokens_grad = aclStubOpTensor(c, TOKENS_GRAD);
    const aclStubTensorDesc *probs_grad = aclStubOpTensor(c, PROBS_GRAD);
    const aclStubValue *range = &c->v[RANGE];
    if (aclStubNumel(tokens_grad) == 0 && aclStubNumel(probs_grad) == 0) return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    for (int i = GRAD; i <= PROBS_GRAD; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "sortedIndices must be 1-D (L,), got %u-D", idx->ndim);
    /* Stub-only where the device reads out of bounds instead (spec 4, row 5). */
    ACLSTUB_RETURN_ERROR_IF(grad->ndim != 2, c, TILING, "unpermutedTokensGrad must be 2-D (N, H), got %u-D",
                            grad->ndim);
    ACLSTUB_RETURN_ERROR_IF(probs && probs->ndim != 2, c, TILING, "probsOptional must be 2-D (N, K), got %u-D",
                            probs ? probs->ndim : 0);
    int64_t l = idx->dims[0], n = grad->dims[0], h = grad->dims[1];
    int64_t k = probs ? probs->dims[1] : aclStubOpInt(c, TOPK);
    ACLSTUB_RETURN_ERROR_IF(n == 0 || h == 0, c, TILING, "unpermutedTokensGrad has an empty dimension: (%lld, %lld)",
                            (long long)n, (long long)h);
    ACLSTUB_RETURN_ERROR_IF(k < 1 || k > 512, c, TILING, "topK = %lld (%s) must be in [1, 512]", (long long)k,
                            probs ? "probsOptional.shape[1]" : "topkNum");
    ACLSTUB_RETURN_ERROR_IF(tokens && tokens->ndim != 2, c, TILING, "permutedTokensOptional must be 2-D (rows, H), got "
                            "%u-D", tokens ? tokens->ndim : 0);
    int64_t num_out = tokens ? tokens->dims[0] : l;
    ACLSTUB_RETURN_ERROR_IF(num_out == 0, c, TILING, "%s has no rows", tokens ? "permutedTokensOptional" :
                            "sortedIndices");
    /* The window: negative values count from L, both clamped to [0, L]; a NULL range is the OpDef default
     * [-1, -1] (generated wrapper), an empty window. */
    int64_t start = -1, end = -1;
    if (range->present) {
        ACLSTUB_RETURN_ERROR_IF(range->size != 2, c, TILING, "rangeOptional must hold 2 values [start, end], got %llu",
                                (unsigned long long)range->size);
        start = range->ints[0];
        end = range->ints[1];
    }
    if (end < 0) end += l;
    if (start < 0) start += l;
    end = end < 0 ? 0 : end > l ? l : end;
    start = start < 0 ? 0 : start > l ? l : start;
    ACLSTUB_RETURN_ERROR_IF(end < start, c, TILING, "rangeOptional = [start, end] gives the window [%lld, %lld) "
                            "after normalisation: end must not be below start", (long long)start, (long long)end);
    if (start != 0) num_out = end;
    int64_t hi = end < num_out ? end : num_out, rows = hi - start;

    ACLSTUB_RETURN_ERROR_IF(probs && probs->dims[0] != n, c, TILING, "probsOptional.shape[0] = %lld must equal "
                            "unpermutedTokensGrad.shape[0] = %lld", (long long)(probs ? probs->dims[0] : 0),
                            (long long)n);
    ACLSTUB_RETURN_ERROR_IF(l / k < n, c, TILING, "sortedIndices length %lld is below N * K = %lld * %lld",
                            (long long)l, (long long)n, (long long)k);
    ACLSTUB_RETURN_ERROR_IF(tokens && tokens->dims[1] != h, c, TILING, "permutedTokensOptional.shape[1] = %lld must "
                            "equal H = %lld", (long long)(tokens ? tokens->dims[1] : 0), (long long)h);
    ACLSTUB_RETURN_ERROR_IF(probs && tokens->dims[0] < rows, c, TILING, "permutedTokensOptional has %lld rows, the "
                            "window needs %lld", (long long)tokens->dims[0], (long long)rows);
    ACLSTUB_RETURN_ERROR_IF(tokens_grad->ndim != 2 || tokens_grad->dims[1] != h || tokens_grad->dims[0] < rows, c,
                            TILING, "permutedTokensGradOut must be 2-D with H = %lld columns and at least %lld rows "
                            "(the window)", (long long)h, (long long)rows);
    ACLSTUB_RETURN_ERROR_IF(probs && (probs_grad->ndim != 2 || probs_grad->dims[0] != n || probs_grad->dims[1] != k), c,
                            TILING, "probsGradOut must have shape (%lld, %lld) = (N, K)", (long long)n, (long long)k);

    /* probs NULL: permutedTokens is never read and probsGradOut never written. */
    if (!probs) {
        aclStubOpIgnore(c, TOKENS);
        aclStubOpIgnore(c, PROBS_GRAD);
    }
    size_t tb = aclDataTypeSize(grad->dtype);
    int64_t chunk = probs ? unpermute_probs_chunk(h, n, k, tb, aclDataTypeSize(probs->dtype)) : h;
    *(Plan *)c->plan = (Plan){n, k, h, start, rows, chunk};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenUnpermuteWithEpGrad", PARAMS, ACLSTUB_LEN(PARAMS), precheck, check,
                                kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenUnpermuteWithEpGrad, OP, (const aclTensor *, unpermutedTokensGrad),
                  (const aclTensor *, sortedIndices), (const aclTensor *, permutedTokensOptional),
                  (const aclTensor *, probsOptional), (bool, paddedMode), (const aclIntArray *, restoreShapeOptional),
                  (const aclIntArray *, rangeOptional), (int64_t, topkNum), (const aclTensor *, permutedTokensGradOut),
                  (const aclTensor *, probsGradOut))
