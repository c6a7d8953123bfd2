/* aclnnMoeTokenPermute (spec: ops/moe_token_permute.md). */
#include <stdlib.h>

#include "op_common.h"
#include "aclnnop/aclnn_moe_token_permute.h"

static const char OP[] = "aclnnMoeTokenPermute";

typedef struct {
    const aclTensor *tokens, *indices, *permuted, *sorted;
    int64_t k, t, m; /* topK, slots N*K, output rows M */
} State;

typedef struct {
    const State *s;
    int64_t *keys;
    const int32_t *order;
    int64_t *src_rows;
} Ctx;

/* keys[i] = flattened indices[i]; the view may be 1-D or 2-D, INT32 or INT64, with any strides. */
static void load_keys(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    for (int64_t i = begin; i < end; i++) c->keys[i] = op_index_flat(c->s->indices, i, c->s->k);
}

/* sortedIndicesOut[order[j]] = j (inverse permutation) and the source token of each kept output row. */
static void scatter(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    int32_t *sorted = (int32_t *)c->s->sorted->data + c->s->sorted->offset;
    for (int64_t j = begin; j < end; j++) {
        sorted[c->order[j]] = (int32_t)j;
        if (j < c->s->m) c->src_rows[j] = c->order[j] / c->s->k;
    }
}

static aclnnStatus run(void *arg) {
    const State *s = arg;
    int64_t t = s->t;
    int64_t *keys = malloc((size_t)(t > 0 ? t : 1) * sizeof *keys);
    int32_t *order = malloc((size_t)(t > 0 ? t : 1) * sizeof *order);
    int64_t *src_rows = malloc((size_t)(s->m > 0 ? s->m : 1) * sizeof *src_rows);
    Ctx c = {s, keys, order, src_rows};
    bool ok = keys && order && src_rows;
    if (ok) {
        op_parallel_for(t, 65536, load_keys, &c);
        /* Exact for every int32/int64 value, unlike the device's float32 keys. */
        ok = op_stable_argsort(keys, t, order);
    }
    if (ok) {
        op_parallel_for(t, 65536, scatter, &c);
        op_copy_rows(s->permuted, 0, s->tokens, src_rows, s->m);
    }
    free(keys);
    free(order);
    free(src_rows);
    if (!ok) {
        aclStubSetErrMsg("%s: out of host memory for the sort buffers of %lld slots", OP, (long long)t);
        return ACLNN_ERR_INNER;
    }
    return OK;
}

/* Product of dims[from:], false when it overflows (a zero dimension wins over an overflow). */
static bool tail_product(const aclTensor *x, uint64_t from, int64_t *prod) {
    int64_t p = 1;
    bool overflow = false;
    for (uint64_t d = from; d < x->ndim; d++) {
        if (x->dims[d] == 0) {
            *prod = 0;
            return true;
        }
        if (!overflow && __builtin_mul_overflow(p, x->dims[d], &p)) overflow = true;
    }
    *prod = p;
    return !overflow;
}

aclnnStatus aclnnMoeTokenPermuteGetWorkspaceSize(const aclTensor *tokens, const aclTensor *indices,
                                                  int64_t numOutTokens, bool paddedMode,
                                                  const aclTensor *permuteTokensOut,
                                                  const aclTensor *sortedIndicesOut, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor) {
    const aclTensor *out = permuteTokensOut, *sorted = sortedIndicesOut;
    OP_TRY(op_check_not_null(OP, "tokens", tokens));
    OP_TRY(op_check_not_null(OP, "indices", indices));
    OP_TRY(op_check_not_null(OP, "permuteTokensOut", out));
    OP_TRY(op_check_not_null(OP, "sortedIndicesOut", sorted));
    OP_TRY(op_check_not_null(OP, "workspaceSize", workspaceSize));
    OP_TRY(op_check_not_null(OP, "executor", executor));
    OP_TRY(op_check_live(OP, "tokens", tokens));
    OP_TRY(op_check_live(OP, "indices", indices));
    OP_TRY(op_check_live(OP, "permuteTokensOut", out));
    OP_TRY(op_check_live(OP, "sortedIndicesOut", sorted));

    const uint64_t token_types = DT_FLOATS | DT(ACL_INT8);
    OP_TRY(op_check_dtype(OP, "tokens", tokens, token_types));
    OP_TRY(op_check_dtype(OP, "indices", indices, DT_INDEX));
    OP_TRY(op_check_dtype(OP, "permuteTokensOut", out, token_types));
    OP_TRY(op_check_same_dtype(OP, "permuteTokensOut", out, "tokens", tokens));
    OP_TRY(op_check_dtype(OP, "sortedIndicesOut", sorted, DT(ACL_INT32)));
    OP_TRY(op_check_contiguous_out(OP, "permuteTokensOut", out));
    OP_TRY(op_check_contiguous_out(OP, "sortedIndicesOut", sorted));

    if (stub_numel(out) == 0 && stub_numel(sorted) == 0)
        return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    if (paddedMode) return op_fail(OP, TILING, "paddedMode = true is not supported");
    if (indices->ndim != 1 && indices->ndim != 2)
        return op_fail(OP, TILING, "indices must be 1-D or 2-D, got %llu-D", (unsigned long long)indices->ndim);
    if (tokens->ndim < 1) return op_fail(OP, TILING, "tokens must have at least 1 dimension, got 0-D");
    if (tokens->dims[0] != indices->dims[0])
        return op_fail(OP, TILING, "tokens.shape[0] = %lld must equal indices.shape[0] = %lld",
                       (long long)tokens->dims[0], (long long)indices->dims[0]);
    /* Negative dimensions would make every size below meaningless (the device shapes cannot hold them). */
    OP_TRY(op_check_dims_non_negative(OP, "tokens", tokens, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "indices", indices, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "permuteTokensOut", out, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "sortedIndicesOut", sorted, TILING));
    int64_t n = tokens->dims[0], k = indices->ndim == 2 ? indices->dims[1] : 1, t;
    if (k > 512) return op_fail(OP, TILING, "topK = indices.shape[1] = %lld must be <= 512", (long long)k);
    if (__builtin_mul_overflow(n, k, &t) || t >= 16777215)
        return op_fail(OP, TILING, "indices has %lld x %lld elements; must be < 16777215", (long long)n, (long long)k);
    if (out->ndim < 2)
        return op_fail(OP, TILING, "permuteTokensOut must be at least 2-D, got %llu-D", (unsigned long long)out->ndim);
    if (sorted->ndim != 1)
        return op_fail(OP, TILING, "sortedIndicesOut must be 1-D, got %llu-D", (unsigned long long)sorted->ndim);
    if (sorted->dims[0] != t)
        return op_fail(OP, TILING, "sortedIndicesOut.shape[0] = %lld must equal the number of indices %lld",
                       (long long)sorted->dims[0], (long long)t);
    int64_t c_in, c_out;
    if (!tail_product(tokens, 1, &c_in))
        return op_fail(OP, TILING, "tokens has more elements per row than can be addressed");
    if (!tail_product(out, 1, &c_out) || c_out != c_in)
        return op_fail(OP, TILING, "prod(permuteTokensOut.shape[1:]) must equal prod(tokens.shape[1:]) = %lld",
                       (long long)c_in);
    /* numOutTokens <= 0 drops that many rows from the end, like a Python slice end. */
    int64_t m = numOutTokens > 0 ? numOutTokens : numOutTokens + t;
    m = m < 0 ? 0 : m > t ? t : m;
    if (out->dims[0] != m)
        return op_fail(OP, TILING, "permuteTokensOut.shape[0] = %lld must equal the number of output rows %lld "
                       "(numOutTokens = %lld, %lld indices)", (long long)out->dims[0], (long long)m,
                       (long long)numOutTokens, (long long)t);

    State s = {tokens, indices, out, sorted, k, t, m};
    aclStubTensorRef refs[] = {
        {"tokens", tokens}, {"indices", indices}, {"permuteTokensOut", out}, {"sortedIndicesOut", sorted}};
    return op_finish(OP, run, &s, sizeof s, refs, 4, workspaceSize, executor);
}

aclnnStatus aclnnMoeTokenPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream) {
    return aclStubExecutorRun(OP, workspace, workspaceSize, executor, stream);
}
