/* aclnnMoeTokenPermuteWithEp (spec: ops/moe_token_permute_with_ep.md). */
#include <stdlib.h>

#include "op_common.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep.h"

static const char OP[] = "aclnnMoeTokenPermuteWithEp";

typedef struct {
    const aclTensor *tokens, *indices, *probs; /* probs may be NULL */
    const aclTensor *out, *sorted, *pout;
    int64_t k, l, start, n;
} State;

typedef struct {
    const State *s;
    int64_t *keys;
    const int32_t *order;
    const int64_t *slots; /* per output row: source slot position, or OP_ROW_KEEP */
    const int64_t *rows;  /* per output row: source token row, or OP_ROW_KEEP */
} Ctx;

static void keys_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    /* The device compares expert ids as float32. */
    for (int64_t i = begin; i < end; i++) c->keys[i] = op_float_sort_key((float)op_index_flat(c->s->indices, i, c->s->k));
}

static void ranks_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    int32_t *dst = (int32_t *)c->s->sorted->data + c->s->sorted->offset;
    for (int64_t r = begin; r < end; r++) dst[c->order[r]] = (int32_t)r;
}

static void probs_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const State *s = c->s;
    size_t esize = aclDataTypeSize(s->probs->dtype);
    char *dst = (char *)s->pout->data + s->pout->offset * (int64_t)esize;
    for (int64_t j = begin; j < end; j++) {
        int64_t i = c->slots[j];
        if (i == OP_ROW_KEEP) continue;
        const void *src = op_elem_flat(s->probs, i, s->k);
        memcpy(dst + j * (int64_t)esize, src, esize);
    }
}

static aclnnStatus run(void *arg) {
    const State *s = arg;
    int64_t l = s->l, n = s->n;
    int64_t *keys = malloc((size_t)l * sizeof *keys);
    int32_t *order = malloc((size_t)l * sizeof *order);
    int64_t *slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *slots);
    int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    aclnnStatus status = OK;
    Ctx c = {s, keys, order, slots, rows};
    if (!keys || !order || !slots || !rows) goto oom;

    op_parallel_for(l, 16384, keys_range, &c);
    if (!op_stable_argsort(keys, l, order)) goto oom;
    /* sortedIndicesOut[i] is the rank of slot i: the inverse of the sort order. */
    op_parallel_for(l, 16384, ranks_range, &c);

    /* The full permutation is copied unshifted; a window keeps ranks [start, start + n) that exist. */
    int64_t shift = n == l ? 0 : s->start;
    for (int64_t j = 0; j < n; j++) {
        int64_t d = shift + j;
        slots[j] = d < l ? order[d] : OP_ROW_KEEP;
        rows[j] = slots[j] == OP_ROW_KEEP ? OP_ROW_KEEP : slots[j] / s->k;
    }
    op_copy_rows(s->out, 0, s->tokens, rows, n);
    if (s->probs) op_parallel_for(n, 16384, probs_range, &c);
    goto done;
oom:
    aclStubSetErrMsg("%s: out of host memory for the sort buffers (%lld slots)", OP, (long long)l);
    status = ACLNN_ERR_INNER;
done:
    free(keys);
    free(order);
    free(slots);
    free(rows);
    return status;
}

aclnnStatus aclnnMoeTokenPermuteWithEpGetWorkspaceSize(const aclTensor *tokens, const aclTensor *indices,
                                                       const aclTensor *probsOptional,
                                                       const aclIntArray *rangeOptional, int64_t numOutTokens,
                                                       bool paddedMode, const aclTensor *permuteTokensOut,
                                                       const aclTensor *sortedIndicesOut,
                                                       const aclTensor *permuteProbsOut, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor) {
    const aclTensor *probs = probsOptional, *out = permuteTokensOut, *sorted = sortedIndicesOut,
                    *pout = permuteProbsOut;
    const aclIntArray *range = rangeOptional;
    OP_TRY(op_check_not_null(OP, "tokens", tokens));
    OP_TRY(op_check_not_null(OP, "indices", indices));
    OP_TRY(op_check_not_null(OP, "permuteTokensOut", out));
    OP_TRY(op_check_not_null(OP, "sortedIndicesOut", sorted));
    OP_TRY(op_check_not_null(OP, "permuteProbsOut", pout));
    OP_TRY(op_check_not_null(OP, "workspaceSize", workspaceSize));
    OP_TRY(op_check_not_null(OP, "executor", executor));
    OP_TRY(op_check_live(OP, "tokens", tokens));
    OP_TRY(op_check_live(OP, "indices", indices));
    OP_TRY(op_check_live(OP, "probsOptional", probs));
    OP_TRY(op_check_live(OP, "permuteTokensOut", out));
    OP_TRY(op_check_live(OP, "sortedIndicesOut", sorted));
    OP_TRY(op_check_live(OP, "permuteProbsOut", pout));
    OP_TRY(op_check_int_array_live(OP, "rangeOptional", range));

    OP_TRY(op_check_dtype(OP, "tokens", tokens, DT_FLOATS));
    OP_TRY(op_check_dtype(OP, "indices", indices, DT_INDEX));
    OP_TRY(op_check_dtype(OP, "probsOptional", probs, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "probsOptional", probs, "tokens", tokens));
    OP_TRY(op_check_dtype(OP, "permuteTokensOut", out, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "permuteTokensOut", out, "tokens", tokens));
    OP_TRY(op_check_dtype(OP, "sortedIndicesOut", sorted, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "permuteProbsOut", pout, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "permuteProbsOut", pout, "tokens", tokens));
    OP_TRY(op_check_contiguous_out(OP, "permuteTokensOut", out));
    OP_TRY(op_check_contiguous_out(OP, "sortedIndicesOut", sorted));
    OP_TRY(op_check_contiguous_out(OP, "permuteProbsOut", pout));

    if (stub_numel(out) == 0 && stub_numel(sorted) == 0 && stub_numel(pout) == 0)
        return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    if (paddedMode) return op_fail(OP, TILING, "paddedMode = true is not supported (only padded_mode false)");

    /* The window is checked against L = N * K before the shapes themselves (tiling order). */
    int64_t l = stub_numel(indices), start, end;
    if (range) {
        if (range->size != 2)
            return op_fail(OP, TILING, "rangeOptional must hold 2 values [start, end], got %llu",
                           (unsigned long long)range->size);
        start = range->values[0];
        end = range->values[1];
        if (start < 0 || start > l || end < 0 || end > l)
            return op_fail(OP, TILING, "rangeOptional = [%lld, %lld] is outside [0, %lld] (L = N * K)",
                           (long long)start, (long long)end, (long long)l);
    } else {
        start = 0;
        end = numOutTokens;
        if (end < 0 || end > l)
            return op_fail(OP, TILING, "numOutTokens = %lld is outside [0, %lld] (L = N * K) with rangeOptional NULL",
                           (long long)numOutTokens, (long long)l);
    }
    int64_t n = end - start;
    if (n <= 0) n += l;
    n = n < 0 ? 0 : n > l ? l : n;

    OP_TRY(op_check_dims_non_negative(OP, "tokens", tokens, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "indices", indices, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "probsOptional", probs, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "permuteTokensOut", out, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "sortedIndicesOut", sorted, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "permuteProbsOut", pout, TILING));
    /* The stub reads tokens as (N, H) only; the device would flatten trailing dimensions. */
    if (tokens->ndim != 2)
        return op_fail(OP, TILING, "tokens must be 2-D (N, H), got %llu-D", (unsigned long long)tokens->ndim);
    if (indices->ndim != 1 && indices->ndim != 2)
        return op_fail(OP, TILING, "indices must be 1-D (N,) or 2-D (N, K), got %llu-D",
                       (unsigned long long)indices->ndim);
    int64_t nt = tokens->dims[0], h = tokens->dims[1];
    int64_t k = indices->ndim == 2 ? indices->dims[1] : 1;
    if (indices->dims[0] != nt)
        return op_fail(OP, TILING, "indices.shape[0] = %lld must equal tokens.shape[0] = %lld",
                       (long long)indices->dims[0], (long long)nt);
    if (k < 1 || k > 512) return op_fail(OP, TILING, "topK = indices.shape[1] = %lld is outside [1, 512]", (long long)k);
    if (l >= 16777215)
        return op_fail(OP, TILING, "L = N * K = %lld must be below 16777215", (long long)l);

    if (probs) {
        if (probs->ndim != indices->ndim)
            return op_fail(OP, TILING, "probsOptional must have the rank of indices (%llu), got %llu-D",
                           (unsigned long long)indices->ndim, (unsigned long long)probs->ndim);
        if (probs->dims[0] != nt)
            return op_fail(OP, TILING, "probsOptional.shape[0] = %lld must equal tokens.shape[0] = %lld",
                           (long long)probs->dims[0], (long long)nt);
        if (probs->ndim == 2 && probs->dims[1] != k)
            return op_fail(OP, TILING, "probsOptional.shape[1] = %lld must equal topK = %lld",
                           (long long)probs->dims[1], (long long)k);
    }

    if (out->ndim < 2)
        return op_fail(OP, TILING, "permuteTokensOut must be at least 2-D (n, H), got %llu-D",
                       (unsigned long long)out->ndim);
    int64_t out_c = 1;
    bool overflow = false;
    for (uint64_t d = 1; d < out->ndim; d++) overflow |= __builtin_mul_overflow(out_c, out->dims[d], &out_c);
    if (overflow) return op_fail(OP, TILING, "permuteTokensOut row size (product of dims 1..) overflows int64");
    if (out_c != h)
        return op_fail(OP, TILING, "permuteTokensOut row size %lld must equal tokens.shape[1] = %lld",
                       (long long)out_c, (long long)h);
    if (out->dims[0] != n)
        return op_fail(OP, TILING, "permuteTokensOut.shape[0] = %lld must equal the window size %lld",
                       (long long)out->dims[0], (long long)n);
    if (sorted->ndim != 1 || sorted->dims[0] != l)
        return op_fail(OP, TILING, "sortedIndicesOut must be 1-D of length L = %lld", (long long)l);
    if (probs && (pout->ndim != 1 || pout->dims[0] != n))
        return op_fail(OP, TILING, "permuteProbsOut must be 1-D of length %lld (the window size)", (long long)n);

    /* Empty tensors are unsupported by the device: nothing is written. */
    if (l == 0 || h == 0) return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    State s = {tokens, indices, probs, out, sorted, probs ? pout : NULL, k, l, start, n};
    aclStubTensorRef refs[] = {{"tokens", tokens},
                               {"indices", indices},
                               {"probsOptional", probs},
                               {"permuteTokensOut", out},
                               {"sortedIndicesOut", sorted},
                               {"permuteProbsOut", probs ? pout : NULL}};
    return op_finish(OP, run, &s, sizeof s, refs, 6, workspaceSize, executor);
}

aclnnStatus aclnnMoeTokenPermuteWithEp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream) {
    return aclStubExecutorRun(OP, workspace, workspaceSize, executor, stream);
}
