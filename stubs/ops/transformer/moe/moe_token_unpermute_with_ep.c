/* aclnnMoeTokenUnpermuteWithEp (spec: ops/moe_token_unpermute_with_ep.md). */
#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_ep.h"

enum { TOKENS, IDX, PROBS, NUM_TOPK, RANGE, PADDED_MODE, RESTORE_SHAPE, OUT };

static const aclStubParam PARAMS[] = {
    [TOKENS] = {"permutedTokens", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    /* any float dtype, independent of permutedTokens (nine OpDef rows) */
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS},
    [NUM_TOPK] = {"numTopk", ACLSTUB_INT},
    [RANGE] = {"rangeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL},                                       /* ignored by the device */
    [RESTORE_SHAPE] = {"restoreShapeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE}, /* never read */
    [OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "permutedTokens"},
};

typedef struct {
    int64_t k, start, end; /* end: the window's end, cut to the rows permutedTokens has (never read past) */
} Plan;

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    const aclStubTensorDesc *tokens = aclStubOpTensor(call, TOKENS), *idx = aclStubOpTensor(call, IDX);
    const aclStubTensorDesc *probs = aclStubOpTensor(call, PROBS), *out = aclStubOpTensor(call, OUT);
    if (probs) {
        aclStubWeightedGatherSum g = {tokens, idx, probs, out, p->k, p->start, p->end};
        if (!aclStubRowWeightedGatherSum(&g)) return aclStubKernelOutOfMemory(call);
    } else {
        /* Without probs the first slot's row is copied when in the window (else +0.0), later rows added. */
        aclStubGatherSum g = {tokens, idx, out, p->k, p->start, p->end, ACLSTUB_SUM_COPY_FIRST_SKIP};
        if (!aclStubRowGatherSum(&g)) return aclStubKernelOutOfMemory(call);
    }
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *tokens = aclStubOpTensor(c, TOKENS), *idx = aclStubOpTensor(c, IDX);
    const aclStubTensorDesc *probs = aclStubOpTensor(c, PROBS), *out = aclStubOpTensor(c, OUT);
    const aclStubValue *range = &c->v[RANGE];
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    for (int i = TOKENS; i <= OUT; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));
    /* The tiling reads numTopk through a 32-bit int. */
    int64_t k = (int32_t)(uint32_t)aclStubOpInt(c, NUM_TOPK);
    ACLSTUB_RETURN_ERROR_IF(k < 1, c, TILING, "numTopk = %lld (read as the 32-bit %lld) must be at least 1",
                            (long long)aclStubOpInt(c, NUM_TOPK), (long long)k);
    ACLSTUB_RETURN_ERROR_IF(tokens->ndim != 2, c, TILING, "permutedTokens must be 2-D (rows, H), got %u-D",
                            tokens->ndim);
    int64_t l = idx->ndim >= 1 ? idx->dims[0] : 1, h = tokens->dims[1], n;
    if (probs) {
        ACLSTUB_RETURN_ERROR_IF(probs->ndim != 2, c, TILING, "probsOptional must be 2-D (N, numTopk), got %u-D",
                                probs->ndim);
        ACLSTUB_RETURN_ERROR_IF(probs->dims[1] != k, c, TILING, "probsOptional.shape[1] = %lld must equal numTopk = "
                                "%lld", (long long)probs->dims[1], (long long)k);
        ACLSTUB_RETURN_ERROR_IF(probs->dims[1] > 512, c, TILING, "probsOptional.shape[1] = %lld (topK) must not exceed "
                                "512", (long long)probs->dims[1]);
        int64_t slots;
        bool overflow = __builtin_mul_overflow(probs->dims[0], probs->dims[1], &slots);
        ACLSTUB_RETURN_ERROR_IF(overflow || slots != l, c, TILING, "sortedIndices length %lld must equal "
                                "probsOptional.shape[0] * probsOptional.shape[1] = %lld * %lld", (long long)l,
                                (long long)probs->dims[0], (long long)probs->dims[1]);
        n = probs->dims[0];
    } else {
        /* Below: not checked by the device, which would misbehave instead (spec 4, rows 5a-5e). */
        ACLSTUB_RETURN_ERROR_IF(k > 512, c, TILING, "numTopk = %lld must not exceed 512", (long long)k);
        n = l / k; /* the last L mod K indices are not read */
    }
    int64_t start = 0, end = 0; /* range NULL: the OpDef default [0, 0] (generated wrapper): out is all +0.0 */
    if (range->present) {
        ACLSTUB_RETURN_ERROR_IF(range->size != 2, c, TILING, "rangeOptional must hold 2 values [start, end], got %llu",
                                (unsigned long long)range->size);
        start = range->ints[0];
        end = range->ints[1];
    }
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "sortedIndices must be 1-D (L,), got %u-D", idx->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[0] != n || out->dims[1] != h, c, TILING, "out must have "
                            "shape (%lld, %lld) = (N, H)", (long long)n, (long long)h);
    /* Every rank in [start, end) reads row rank - start. A window wider than permutedTokens is accepted, as the
     * vendor's tiling tests do: the rows past its end are never read (the unsigned difference cannot overflow,
     * nor can start + P when it is below end). */
    if (start < end && (uint64_t)end - (uint64_t)start > (uint64_t)tokens->dims[0]) end = start + tokens->dims[0];
    *(Plan *)c->plan = (Plan){k, start, end};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenUnpermuteWithEp", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenUnpermuteWithEp, OP, (const aclTensor *, permutedTokens),
                  (const aclTensor *, sortedIndices), (const aclTensor *, probsOptional), (int64_t, numTopk),
                  (const aclIntArray *, rangeOptional), (bool, paddedMode),
                  (const aclIntArray *, restoreShapeOptional), (const aclTensor *, out))
