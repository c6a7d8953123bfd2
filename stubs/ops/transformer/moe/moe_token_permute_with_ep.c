/* aclnnMoeTokenPermuteWithEp (spec: ops/moe_token_permute_with_ep.md). */

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep.h"

enum { TOKENS, INDICES, PROBS, RANGE, NUM_OUT_TOKENS, PADDED_MODE, OUT, SORTED, POUT };

static const aclStubParam PARAMS[] = {
    [TOKENS] = {"tokens", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [INDICES] = {"indices", ACLSTUB_INPUT, ACLSTUB_DT_INDEX},
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "tokens"},
    [RANGE] = {"rangeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [NUM_OUT_TOKENS] = {"numOutTokens", ACLSTUB_INT}, /* never read by the device (spec 3.3) */
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL},
    [OUT] = {"permuteTokensOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "tokens"},
    [SORTED] = {"sortedIndicesOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32)},
    [POUT] = {"permuteProbsOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "tokens"},
};

typedef struct {
    int64_t k, l, start, n;
} Plan;

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *indices, *sorted, *probs, *pout;
    int64_t *keys;
    const int32_t *order;
    const int64_t *slots; /* per output row: source slot position, or ACLSTUB_ROW_KEEP */
} Ctx;

static void keys_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    /* The device compares expert ids as float32. */
    for (int64_t i = begin; i < end; i++)
        c->keys[i] = aclStubFloatSortKey((float)aclStubIndexFlat(c->indices, i, c->p->k));
}

static void ranks_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    int32_t *dst = (int32_t *)c->sorted->data + c->sorted->offset;
    for (int64_t r = begin; r < end; r++) dst[c->order[r]] = (int32_t)r;
}

static void probs_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    size_t esize = aclDataTypeSize(c->probs->dtype);
    char *dst = (char *)c->pout->data + c->pout->offset * (int64_t)esize;
    for (int64_t j = begin; j < end; j++) {
        int64_t i = c->slots[j];
        if (i == ACLSTUB_ROW_KEEP) continue;
        memcpy(dst + j * (int64_t)esize, aclStubElemFlat(c->probs, i, c->p->k), esize);
    }
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    int64_t l = p->l, n = p->n;
    int64_t *keys = aclStubKernelScratch(call, (size_t)l * sizeof *keys);
    int32_t *order = aclStubKernelScratch(call, (size_t)l * sizeof *order);
    int64_t *slots = aclStubKernelScratch(call, (size_t)n * sizeof *slots);
    int64_t *rows = aclStubKernelScratch(call, (size_t)n * sizeof *rows);
    if (!keys || !order || !slots || !rows) return aclStubKernelOutOfMemory(call);
    Ctx c = {p, aclStubOpTensor(call, INDICES), aclStubOpTensor(call, SORTED), aclStubOpTensor(call, PROBS),
             aclStubOpTensor(call, POUT), keys, order, slots};
    aclStubParallelFor(l, 16384, keys_range, &c);
    if (!aclStubStableArgsort(keys, l, order)) return aclStubKernelOutOfMemory(call);
    /* sortedIndicesOut[i] is the rank of slot i: the inverse of the sort order. */
    aclStubParallelFor(l, 16384, ranks_range, &c);

    /* The full permutation is copied unshifted; a window keeps ranks [start, start + n) that exist. */
    int64_t shift = n == l ? 0 : p->start;
    for (int64_t j = 0; j < n; j++) {
        int64_t d = shift + j;
        slots[j] = d < l ? order[d] : ACLSTUB_ROW_KEEP;
        rows[j] = slots[j] == ACLSTUB_ROW_KEEP ? ACLSTUB_ROW_KEEP : slots[j] / p->k;
    }
    aclStubCopyRows(aclStubOpTensor(call, OUT), 0, aclStubOpTensor(call, TOKENS), rows, n);
    if (c.probs) aclStubParallelFor(n, 16384, probs_range, &c);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *tokens = aclStubOpTensor(c, TOKENS), *indices = aclStubOpTensor(c, INDICES);
    const aclStubTensorDesc *probs = aclStubOpTensor(c, PROBS), *out = aclStubOpTensor(c, OUT);
    const aclStubTensorDesc *sorted = aclStubOpTensor(c, SORTED), *pout = aclStubOpTensor(c, POUT);
    const aclStubValue *range = &c->v[RANGE];
    if (aclStubNumel(out) == 0 && aclStubNumel(sorted) == 0 && aclStubNumel(pout) == 0) return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(c, PADDED_MODE), c, TILING, "paddedMode = true is not supported (only "
                            "padded_mode false)");
    /* The window is checked against L = N * K before the shapes themselves (tiling order). A NULL range
     * reaches the tiling as the OpDef default [0, 0] (the aclnn wrapper is generated), so it selects the
     * full permutation and numOutTokens is never read. */
    int64_t l = aclStubNumel(indices), start = 0, end = 0;
    if (range->present) {
        ACLSTUB_RETURN_ERROR_IF(range->size != 2, c, TILING, "rangeOptional must hold 2 values [start, end], got %llu",
                                (unsigned long long)range->size);
        start = range->ints[0];
        end = range->ints[1];
        ACLSTUB_RETURN_ERROR_IF(start < 0 || start > l || end < 0 || end > l, c, TILING, "rangeOptional = [%lld, %lld] "
                                "is outside [0, %lld] (L = N * K)", (long long)start, (long long)end, (long long)l);
    }
    int64_t n = end - start;
    if (n <= 0) n += l;
    n = n < 0 ? 0 : n > l ? l : n;

    for (int i = TOKENS; i <= POUT; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));
    /* The stub reads tokens as (N, H) only; the device would flatten trailing dimensions. */
    ACLSTUB_RETURN_ERROR_IF(tokens->ndim != 2, c, TILING, "tokens must be 2-D (N, H), got %u-D", tokens->ndim);
    ACLSTUB_RETURN_ERROR_IF(indices->ndim != 1 && indices->ndim != 2, c, TILING, "indices must be 1-D (N,) or 2-D "
                            "(N, K), got %u-D", indices->ndim);
    int64_t nt = tokens->dims[0], h = tokens->dims[1];
    int64_t k = indices->ndim == 2 ? indices->dims[1] : 1;
    ACLSTUB_RETURN_ERROR_IF(indices->dims[0] != nt, c, TILING, "indices.shape[0] = %lld must equal tokens.shape[0] = "
                            "%lld", (long long)indices->dims[0], (long long)nt);
    ACLSTUB_RETURN_ERROR_IF(k < 1 || k > 512, c, TILING, "topK = indices.shape[1] = %lld is outside [1, 512]",
                            (long long)k);
    ACLSTUB_RETURN_ERROR_IF(l >= 16777215, c, TILING, "L = N * K = %lld must be below 16777215", (long long)l);
    if (probs) {
        ACLSTUB_RETURN_ERROR_IF(probs->ndim != indices->ndim, c, TILING, "probsOptional must have the rank of indices "
                                "(%u), got %u-D", indices->ndim, probs->ndim);
        ACLSTUB_RETURN_ERROR_IF(probs->dims[0] != nt, c, TILING, "probsOptional.shape[0] = %lld must equal "
                                "tokens.shape[0] = %lld", (long long)probs->dims[0], (long long)nt);
        ACLSTUB_RETURN_ERROR_IF(probs->ndim == 2 && probs->dims[1] != k, c, TILING, "probsOptional.shape[1] = %lld "
                                "must equal topK = %lld", (long long)probs->dims[1], (long long)k);
    }
    ACLSTUB_RETURN_ERROR_IF(out->ndim < 2, c, TILING, "permuteTokensOut must be at least 2-D (n, H), got %u-D",
                            out->ndim);
    int64_t out_c = 1;
    bool overflow = false;
    for (uint32_t d = 1; d < out->ndim; d++) overflow |= __builtin_mul_overflow(out_c, out->dims[d], &out_c);
    ACLSTUB_RETURN_ERROR_IF(overflow, c, TILING, "permuteTokensOut row size (product of dims 1..) overflows int64");
    ACLSTUB_RETURN_ERROR_IF(out_c != h, c, TILING, "permuteTokensOut row size %lld must equal tokens.shape[1] = %lld",
                            (long long)out_c, (long long)h);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != n, c, TILING, "permuteTokensOut.shape[0] = %lld must equal the window "
                            "size %lld", (long long)out->dims[0], (long long)n);
    ACLSTUB_RETURN_ERROR_IF(sorted->ndim != 1 || sorted->dims[0] != l, c, TILING, "sortedIndicesOut must be 1-D of "
                            "length L = %lld", (long long)l);
    ACLSTUB_RETURN_ERROR_IF(probs && (pout->ndim != 1 || pout->dims[0] != n), c, TILING, "permuteProbsOut must be 1-D "
                            "of length %lld (the window size)", (long long)n);

    /* Empty tensors are unsupported by the device: nothing is written. */
    if (l == 0 || h == 0) return aclStubOpNothingToDo(c);
    if (!probs) aclStubOpIgnore(c, POUT);
    *(Plan *)c->plan = (Plan){k, l, start, n};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenPermuteWithEp", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenPermuteWithEp, OP, (const aclTensor *, tokens), (const aclTensor *, indices),
                  (const aclTensor *, probsOptional), (const aclIntArray *, rangeOptional), (int64_t, numOutTokens),
                  (bool, paddedMode), (const aclTensor *, permuteTokensOut), (const aclTensor *, sortedIndicesOut),
                  (const aclTensor *, permuteProbsOut))
