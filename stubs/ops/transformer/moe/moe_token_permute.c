/* aclnnMoeTokenPermute (spec: ops/moe_token_permute.md). */

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_token_permute.h"

enum { TOKENS, INDICES, NUM_OUT_TOKENS, PADDED_MODE, OUT, SORTED };

static const aclStubParam PARAMS[] = {
    [TOKENS] = {"tokens", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT8)},
    [INDICES] = {"indices", ACLSTUB_INPUT, ACLSTUB_DT_INDEX},
    [NUM_OUT_TOKENS] = {"numOutTokens", ACLSTUB_INT},
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL},
    [OUT] = {"permuteTokensOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT8), "tokens"},
    [SORTED] = {"sortedIndicesOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32)},
};

typedef struct {
    int64_t k, t, m; /* topK, slots N*K, output rows M */
} Plan;

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *indices, *sorted;
    int64_t *keys;
    const int32_t *order;
    int64_t *src_rows;
} Ctx;

/* keys[i] = flattened indices[i]; the view may be 1-D or 2-D, INT32 or INT64, with any strides. */
static void load_keys(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    for (int64_t i = begin; i < end; i++) c->keys[i] = aclStubIndexFlat(c->indices, i, c->p->k);
}

/* sortedIndicesOut[order[j]] = j (inverse permutation) and the source token of each kept output row. */
static void scatter(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    int32_t *sorted = (int32_t *)c->sorted->data + c->sorted->offset;
    for (int64_t j = begin; j < end; j++) {
        sorted[c->order[j]] = (int32_t)j;
        if (j < c->p->m) c->src_rows[j] = c->order[j] / c->p->k;
    }
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    int64_t t = p->t;
    int64_t *keys = aclStubKernelScratch(call, (size_t)t * sizeof *keys);
    int32_t *order = aclStubKernelScratch(call, (size_t)t * sizeof *order);
    int64_t *src_rows = aclStubKernelScratch(call, (size_t)p->m * sizeof *src_rows);
    if (!keys || !order || !src_rows) return aclStubKernelOutOfMemory(call);
    Ctx c = {p, aclStubOpTensor(call, INDICES), aclStubOpTensor(call, SORTED), keys, order, src_rows};
    aclStubParallelFor(t, 65536, load_keys, &c);
    /* Exact for every int32/int64 value, unlike the device's float32 keys. */
    if (!aclStubStableArgsort(keys, t, order)) return aclStubKernelOutOfMemory(call);
    aclStubParallelFor(t, 65536, scatter, &c);
    aclStubCopyRows(aclStubOpTensor(call, OUT), 0, aclStubOpTensor(call, TOKENS), src_rows, p->m);
    return OK;
}

/* Product of dims[from:], false when it overflows (a zero dimension wins over an overflow). */
static bool tail_product(const aclStubTensorDesc *x, uint32_t from, int64_t *prod) {
    int64_t p = 1;
    bool overflow = false;
    for (uint32_t d = from; d < x->ndim; d++) {
        if (x->dims[d] == 0) {
            *prod = 0;
            return true;
        }
        if (!overflow && __builtin_mul_overflow(p, x->dims[d], &p)) overflow = true;
    }
    *prod = p;
    return !overflow;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *tokens = aclStubOpTensor(c, TOKENS), *indices = aclStubOpTensor(c, INDICES);
    const aclStubTensorDesc *out = aclStubOpTensor(c, OUT), *sorted = aclStubOpTensor(c, SORTED);
    int64_t num_out = aclStubOpInt(c, NUM_OUT_TOKENS);
    if (aclStubNumel(out) == 0 && aclStubNumel(sorted) == 0) return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(c, PADDED_MODE), c, TILING, "paddedMode = true is not supported");
    ACLSTUB_RETURN_ERROR_IF(indices->ndim != 1 && indices->ndim != 2, c, TILING, "indices must be 1-D or 2-D, got %u-D",
                            indices->ndim);
    ACLSTUB_RETURN_ERROR_IF(tokens->ndim < 1, c, TILING, "tokens must have at least 1 dimension, got 0-D");
    ACLSTUB_RETURN_ERROR_IF(tokens->dims[0] != indices->dims[0], c, TILING, "tokens.shape[0] = %lld must equal "
                            "indices.shape[0] = %lld", (long long)tokens->dims[0], (long long)indices->dims[0]);
    /* Negative dimensions would make every size below meaningless (the device shapes cannot hold them). */
    for (int i = TOKENS; i <= SORTED; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));
    int64_t n = tokens->dims[0], k = indices->ndim == 2 ? indices->dims[1] : 1, t;
    ACLSTUB_RETURN_ERROR_IF(k > 512, c, TILING, "topK = indices.shape[1] = %lld must be <= 512", (long long)k);
    ACLSTUB_RETURN_ERROR_IF(__builtin_mul_overflow(n, k, &t) || t >= 16777215, c, TILING, "indices has %lld x %lld "
                            "elements; must be < 16777215", (long long)n, (long long)k);
    ACLSTUB_RETURN_ERROR_IF(out->ndim < 2, c, TILING, "permuteTokensOut must be at least 2-D, got %u-D", out->ndim);
    ACLSTUB_RETURN_ERROR_IF(sorted->ndim != 1, c, TILING, "sortedIndicesOut must be 1-D, got %u-D", sorted->ndim);
    ACLSTUB_RETURN_ERROR_IF(sorted->dims[0] != t, c, TILING, "sortedIndicesOut.shape[0] = %lld must equal the number "
                            "of indices %lld", (long long)sorted->dims[0], (long long)t);
    int64_t c_in, c_out;
    ACLSTUB_RETURN_ERROR_IF(!tail_product(tokens, 1, &c_in), c, TILING, "tokens has more elements per row than can be "
                            "addressed");
    ACLSTUB_RETURN_ERROR_IF(!tail_product(out, 1, &c_out) || c_out != c_in, c, TILING, "prod(permuteTokensOut.shape[1:]) "
                            "must equal prod(tokens.shape[1:]) = %lld", (long long)c_in);
    /* numOutTokens <= 0 drops that many rows from the end, like a Python slice end. */
    int64_t m = num_out > 0 ? num_out : num_out < -t ? 0 : num_out + t;
    m = m > t ? t : m;
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != m, c, TILING, "permuteTokensOut.shape[0] = %lld must equal the number of "
                            "output rows %lld (numOutTokens = %lld, %lld indices)", (long long)out->dims[0],
                            (long long)m, (long long)num_out, (long long)t);
    *(Plan *)c->plan = (Plan){k, t, m};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenPermute", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenPermute, OP, (const aclTensor *, tokens), (const aclTensor *, indices),
                  (int64_t, numOutTokens), (bool, paddedMode), (const aclTensor *, permuteTokensOut),
                  (const aclTensor *, sortedIndicesOut))
