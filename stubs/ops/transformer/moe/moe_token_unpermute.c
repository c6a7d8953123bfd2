/* aclnnMoeTokenUnpermute (spec: ops/moe_token_unpermute.md). */
#include <stdlib.h>

#include "aclnnop/aclnn_moe_token_unpermute.h"
#include "stub_internal.h"

enum { PERMUTED, IDX, PROBS, PADDED_MODE, RESTORE_SHAPE, OUT };

/* probs may have any float dtype whatever the tokens' (all nine OpDef combinations have a kernel). */
static const aclStubParam PARAMS[] = {
    [PERMUTED] = {"permutedTokens", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS},
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL},
    [RESTORE_SHAPE] = {"restoreShapeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "permutedTokens"},
};

typedef struct {
    int64_t p, t, k, h; /* permuted rows, tokens, top-k, hidden */
} Plan;

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *tok = aclStubOpTensor(c, PERMUTED), *idx = aclStubOpTensor(c, IDX);
    const aclStubTensorDesc *probs = aclStubOpTensor(c, PROBS), *out = aclStubOpTensor(c, OUT);
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    /* The Ascend 950 wrapper's rule; A2/A3 ignore the flag. restoreShapeOptional is never read. */
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(c, PADDED_MODE), c, ACLNN_ERR_PARAM_INVALID, "paddedMode = true is not supported");
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);
    for (int i = PERMUTED; i <= OUT; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));
    ACLSTUB_RETURN_ERROR_IF(tok->ndim != 2, c, TILING, "permutedTokens must be 2-D (P, H), got %u-D", tok->ndim);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "sortedIndices must be 1-D, got %u-D", idx->ndim);
    ACLSTUB_RETURN_ERROR_IF(probs && probs->ndim != 2, c, TILING, "probsOptional must be 2-D (T, K), got %u-D",
                            probs ? probs->ndim : 0);
    int64_t l = idx->dims[0], t = probs ? probs->dims[0] : l, k = probs ? probs->dims[1] : 1;
    ACLSTUB_RETURN_ERROR_IF(k < 1 || k > 512, c, TILING, "topK = probsOptional.shape[1] = %lld is outside [1, 512]",
                            (long long)k);
    int64_t slots;
    ACLSTUB_RETURN_ERROR_IF(__builtin_mul_overflow(t, k, &slots) || l != slots, c, TILING, "sortedIndices length %lld must equal T x K = %lld x %lld",
                            (long long)l, (long long)t, (long long)k);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[0] != t || out->dims[1] != tok->dims[1], c, TILING,
                            "out must have shape (T, H) = (%lld, %lld)", (long long)t, (long long)tok->dims[1]);
    *(Plan *)c->plan = (Plan){tok->dims[0], t, k, tok->dims[1]};
    return OK;
}

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *tok, *idx, *probs, *out;
} Ctx;

static float probs_at(const aclStubTensorDesc *probs, int64_t t, int64_t k) {
    const void *q = aclStubElem2(probs, t, k);
    if (probs->dtype == ACL_FLOAT) return *(const float *)q;
    uint16_t b = *(const uint16_t *)q;
    return probs->dtype == ACL_BF16 ? aclStubBf16ToF32(b) : aclStubF16ToF32(b);
}

#define MAX_K 512 /* check's limit on topK */

/*
 * Token t's terms: the rows of its taken slots, times their weights when there are probs (without probs K is 1
 * and the row's bits are widened, no product). Rows the forward dropped (r >= P) and zero weights are skipped,
 * so 0 * inf never reaches the sum; negative indices are skipped too (the device would read outside the
 * tensor). The sum starts from slot 0's term, or from +0.0 when slot 0 is skipped.
 */
static void token_terms(const Ctx *c, int64_t t, aclStubTerms *x, float *w) {
    const Plan *p = c->p;
    x->n = 0;
    x->zero_init = true;
    x->weights = c->probs ? w : NULL;
    for (int64_t k = 0; k < p->k; k++) {
        int64_t r = aclStubIndex1(c->idx, t * p->k + k);
        float wk = c->probs ? probs_at(c->probs, t, k) : 1.0f;
        if (r < 0 || r >= p->p || (c->probs && wk == 0.0f)) continue;
        if (k == 0) x->zero_init = false;
        x->rows[x->n] = aclStubElem2(c->tok, r, 0);
        w[x->n++] = wk;
    }
}

static void unpermute_rows(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const Plan *p = c->p;
    const void *rows[2 * MAX_K];
    float w[2 * MAX_K];
    int64_t inner = p->h == 1 ? 1 : c->tok->strides[1];
    bool stream = p->t * p->h * (int64_t)aclDataTypeSize(c->tok->dtype) >= ACLSTUB_STREAM_MIN_BYTES;
    /* The next token's terms are known while this one is summed, so they can be fetched ahead. */
    aclStubTerms cur = {rows, NULL, 0, true}, next = {rows + MAX_K, NULL, 0, true};
    float *cur_w = w, *next_w = w + MAX_K;
    token_terms(c, begin, &cur, cur_w);
    for (int64_t t = begin; t < end; t++) {
        next.n = 0;
        if (t + 1 < end) token_terms(c, t + 1, &next, next_w);
        aclStubRowSumTerms(aclStubElem2(c->out, t, 0), &cur, inner, c->tok->dtype, p->h, stream, &next);
        aclStubTerms done = cur;
        float *done_w = cur_w;
        cur = next;
        cur_w = next_w;
        next = done;
        next_w = done_w;
    }
    if (stream) aclStubStreamFence();
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    Ctx c = {p, aclStubOpTensor(call, PERMUTED), aclStubOpTensor(call, IDX), aclStubOpTensor(call, PROBS),
             aclStubOpTensor(call, OUT)};
    /* A device reads row r for r < P and skips the rest: [P, T x K) are the rows a dropping permute left out. */
    aclStubKernelCheckIndices(call, IDX, p->t * p->k, 0, p->p > p->t * p->k ? p->p : p->t * p->k, INT64_MIN,
                              "rows of permutedTokens, or the T x K slots of a dropping permute");
    /* Enough rows per chunk that thread start-up is paid for. */
    aclStubParallelFor(p->t, 65536 / (p->k * p->h + 1) + 1, unpermute_rows, &c);
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenUnpermute", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenUnpermute, OP, (const aclTensor *, permutedTokens), (const aclTensor *, sortedIndices),
                  (const aclTensor *, probsOptional), (bool, paddedMode), (const aclIntArray *, restoreShapeOptional),
                  (aclTensor *, out))
