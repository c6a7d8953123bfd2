/* aclnnMoeTokenPermuteWithEpGrad (spec: ops/moe_token_permute_with_ep_grad.md). */
#include "op_common.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep_grad.h"

static const char OP[] = "aclnnMoeTokenPermuteWithEpGrad";

typedef struct {
    const aclTensor *grad, *idx, *pgrad; /* pgrad may be NULL */
    aclTensor *out, *pout;
    int64_t k, start, end;
} State;

/* probsGradOut[t, k] = pg[d - start] for a rank d inside the window, else 0: an exact copy, no arithmetic. */
static void probs_range(void *arg, int64_t begin, int64_t end) {
    const State *s = arg;
    size_t esize = aclDataTypeSize(s->pgrad->dtype);
    char *dst = (char *)s->pout->data + s->pout->offset * (int64_t)esize;
    for (int64_t i = begin; i < end; i++) {
        int64_t d = op_index1(s->idx, i);
        if (d >= s->start && d < s->end)
            memcpy(dst + i * (int64_t)esize, op_elem1(s->pgrad, d - s->start), esize);
        else
            memset(dst + i * (int64_t)esize, 0, esize);
    }
}

static aclnnStatus run(void *arg) {
    const State *s = arg;
    /* The kernel sums the window rows in k order from +0 (no copy of the first term); ranks outside
     * [start, end) contribute nothing, so start >= end yields zeros. */
    GatherSum g = {s->grad, s->idx, s->out, s->k, s->start, s->end, GATHER_ZERO_INIT};
    op_gather_sum(&g);
    if (s->pgrad) op_parallel_for(s->idx->dims[0], 16384, probs_range, (void *)s);
    return OK;
}

aclnnStatus aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize(const aclTensor *permutedTokensOutputGrad,
                                                           const aclTensor *sortedIndices,
                                                           const aclTensor *permutedProbsOutputGradOptional,
                                                           int64_t numTopk, const aclIntArray *rangeOptional,
                                                           bool paddedMode, const aclTensor *tokenGradOut,
                                                           const aclTensor *probsGradOut, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor) {
    const aclTensor *grad = permutedTokensOutputGrad, *idx = sortedIndices, *pgrad = permutedProbsOutputGradOptional;
    const aclTensor *out = tokenGradOut, *pout = probsGradOut;
    const aclIntArray *range = rangeOptional;
    (void)paddedMode; /* the device kernel ignores it (spec 4, row 5) */
    OP_TRY(op_check_not_null(OP, "permutedTokensOutputGrad", grad));
    OP_TRY(op_check_not_null(OP, "sortedIndices", idx));
    OP_TRY(op_check_not_null(OP, "tokenGradOut", out));
    OP_TRY(op_check_not_null(OP, "probsGradOut", pout));
    OP_TRY(op_check_not_null(OP, "workspaceSize", workspaceSize));
    OP_TRY(op_check_not_null(OP, "executor", executor));
    OP_TRY(op_check_live(OP, "permutedTokensOutputGrad", grad));
    OP_TRY(op_check_live(OP, "sortedIndices", idx));
    OP_TRY(op_check_live(OP, "permutedProbsOutputGradOptional", pgrad));
    OP_TRY(op_check_live(OP, "tokenGradOut", out));
    OP_TRY(op_check_live(OP, "probsGradOut", pout));
    OP_TRY(op_check_int_array_live(OP, "rangeOptional", range));

    OP_TRY(op_check_dtype(OP, "permutedTokensOutputGrad", grad, DT_FLOATS));
    OP_TRY(op_check_dtype(OP, "sortedIndices", idx, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "permutedProbsOutputGradOptional", pgrad, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "permutedProbsOutputGradOptional", pgrad, "permutedTokensOutputGrad", grad));
    OP_TRY(op_check_dtype(OP, "tokenGradOut", out, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "tokenGradOut", out, "permutedTokensOutputGrad", grad));
    OP_TRY(op_check_dtype(OP, "probsGradOut", pout, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "probsGradOut", pout, "permutedTokensOutputGrad", grad));
    OP_TRY(op_check_contiguous_out(OP, "tokenGradOut", out));
    OP_TRY(op_check_contiguous_out(OP, "probsGradOut", pout));

    if (stub_numel(out) == 0 && stub_numel(pout) == 0)
        return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    if (numTopk < 1) return op_fail(OP, TILING, "numTopk = %lld must be at least 1", (long long)numTopk);
    if (grad->ndim != 2)
        return op_fail(OP, TILING, "permutedTokensOutputGrad must be 2-D (end - start, H), got %llu-D",
                       (unsigned long long)grad->ndim);
    if (pgrad && pgrad->ndim != 1)
        return op_fail(OP, TILING, "permutedProbsOutputGradOptional must be 1-D (end - start,), got %llu-D",
                       (unsigned long long)pgrad->ndim);

    /* Below: not checked by the device, which would read or write out of bounds instead. */
    if (numTopk > 512) return op_fail(OP, TILING, "numTopk = %lld must not exceed 512", (long long)numTopk);
    int64_t start = 0, end = 0; /* range NULL: both tiling branches use an empty window */
    if (range) {
        if (range->size != 2)
            return op_fail(OP, TILING, "rangeOptional must hold 2 values [start, end], got %llu",
                           (unsigned long long)range->size);
        start = range->values[0];
        end = range->values[1];
    }
    OP_TRY(op_check_dims_non_negative(OP, "permutedTokensOutputGrad", grad, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "sortedIndices", idx, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "permutedProbsOutputGradOptional", pgrad, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "tokenGradOut", out, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "probsGradOut", pout, TILING));
    if (idx->ndim != 1)
        return op_fail(OP, TILING, "sortedIndices must be 1-D, got %llu-D", (unsigned long long)idx->ndim);
    int64_t l = idx->dims[0], rows = grad->dims[0], h = grad->dims[1];
    if (start < end && (start < 0 || end > l || rows != end - start))
        return op_fail(OP, TILING, "rangeOptional = [%lld, %lld] must lie in [0, %lld] (L) and match "
                       "permutedTokensOutputGrad.shape[0] = %lld", (long long)start, (long long)end, (long long)l,
                       (long long)rows);
    if (pgrad && pgrad->dims[0] != rows)
        return op_fail(OP, TILING, "permutedProbsOutputGradOptional length %lld must equal "
                       "permutedTokensOutputGrad.shape[0] = %lld", (long long)pgrad->dims[0], (long long)rows);
    if (l % numTopk != 0)
        return op_fail(OP, TILING, "sortedIndices length %lld is not a multiple of numTopk = %lld", (long long)l,
                       (long long)numTopk);
    int64_t n = l / numTopk;
    if (out->ndim != 2 || out->dims[0] != n || out->dims[1] != h)
        return op_fail(OP, TILING, "tokenGradOut must have shape (%lld, %lld) = (L / numTopk, H)", (long long)n,
                       (long long)h);
    if (pout->ndim != 2 || pout->dims[0] != n || pout->dims[1] != numTopk)
        return op_fail(OP, TILING, "probsGradOut must have shape (%lld, %lld) = (L / numTopk, numTopk)",
                       (long long)n, (long long)numTopk);

    /* Empty tensors are unsupported by the device: nothing is written. */
    if (l == 0 || h == 0) return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    State s = {grad, idx, pgrad, (aclTensor *)out, pgrad ? (aclTensor *)pout : NULL, numTopk, start, end};
    aclStubTensorRef refs[] = {{"permutedTokensOutputGrad", grad},
                               {"sortedIndices", idx},
                               {"permutedProbsOutputGradOptional", pgrad},
                               {"tokenGradOut", out},
                               {"probsGradOut", pgrad ? pout : NULL}};
    return op_finish(OP, run, &s, sizeof s, refs, 5, workspaceSize, executor);
}

aclnnStatus aclnnMoeTokenPermuteWithEpGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream) {
    return aclStubExecutorRun(OP, workspace, workspaceSize, executor, stream);
}
