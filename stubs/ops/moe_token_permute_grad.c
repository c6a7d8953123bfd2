/* aclnnMoeTokenPermuteGrad (spec: ops/moe_token_permute_grad.md). */
#include "op_common.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"

static const char OP[] = "aclnnMoeTokenPermuteGrad";

typedef struct {
    const aclTensor *grad, *idx;
    aclTensor *out;
    int64_t k;
} State;

static aclnnStatus run(void *arg) {
    const State *s = arg;
    /* Indices outside [0, P) are skipped, as the A2 kernel does for rows the forward dropped. */
    GatherSum g = {s->grad, s->idx, s->out, s->k, 0, s->grad->dims[0], GATHER_COPY_FIRST_SKIP};
    op_gather_sum(&g);
    return OK;
}

aclnnStatus aclnnMoeTokenPermuteGradGetWorkspaceSize(const aclTensor *permutedOutputGrad,
                                                     const aclTensor *sortedIndices, int64_t numTopk,
                                                     bool paddedMode, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor) {
    const aclTensor *grad = permutedOutputGrad, *idx = sortedIndices;
    OP_TRY(op_check_not_null(OP, "permutedOutputGrad", grad));
    OP_TRY(op_check_not_null(OP, "sortedIndices", idx));
    OP_TRY(op_check_not_null(OP, "out", out));
    OP_TRY(op_check_not_null(OP, "workspaceSize", workspaceSize));
    OP_TRY(op_check_not_null(OP, "executor", executor));
    OP_TRY(op_check_live(OP, "permutedOutputGrad", grad));
    OP_TRY(op_check_live(OP, "sortedIndices", idx));
    OP_TRY(op_check_live(OP, "out", out));

    OP_TRY(op_check_dtype(OP, "permutedOutputGrad", grad, DT_FLOATS));
    OP_TRY(op_check_dtype(OP, "sortedIndices", idx, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "out", out, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "out", out, "permutedOutputGrad", grad));
    OP_TRY(op_check_contiguous_out(OP, "out", out));
    if (paddedMode) return op_fail(OP, ACLNN_ERR_PARAM_INVALID, "paddedMode = true is not supported");

    if (stub_numel(out) == 0) return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    if (numTopk < 1 || numTopk > 512)
        return op_fail(OP, TILING, "numTopk = %lld is outside [1, 512]", (long long)numTopk);
    if (grad->ndim != 2)
        return op_fail(OP, TILING, "permutedOutputGrad must be 2-D (P, H), got %llu-D", (unsigned long long)grad->ndim);
    if (idx->ndim != 1)
        return op_fail(OP, TILING, "sortedIndices must be 1-D, got %llu-D", (unsigned long long)idx->ndim);
    if (out->ndim != 2)
        return op_fail(OP, TILING, "out must be 2-D (N, H), got %llu-D", (unsigned long long)out->ndim);
    if (out->dims[1] != grad->dims[1])
        return op_fail(OP, TILING, "out.shape[1] = %lld must equal permutedOutputGrad.shape[1] = %lld",
                       (long long)out->dims[1], (long long)grad->dims[1]);
    int64_t l = idx->dims[0];
    if (l % numTopk != 0)
        return op_fail(OP, TILING, "sortedIndices length %lld is not a multiple of numTopk = %lld", (long long)l,
                       (long long)numTopk);
    if (out->dims[0] != l / numTopk)
        return op_fail(OP, TILING, "out.shape[0] = %lld must equal len(sortedIndices) / numTopk = %lld",
                       (long long)out->dims[0], (long long)(l / numTopk));
    OP_TRY(op_check_dims_non_negative(OP, "permutedOutputGrad", grad, TILING));
    OP_TRY(op_check_dims_non_negative(OP, "sortedIndices", idx, TILING));

    State s = {grad, idx, out, numTopk};
    aclStubTensorRef refs[] = {{"permutedOutputGrad", grad}, {"sortedIndices", idx}, {"out", out}};
    return op_finish(OP, run, &s, sizeof s, refs, 3, workspaceSize, executor);
}

aclnnStatus aclnnMoeTokenPermuteGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream) {
    return aclStubExecutorRun(OP, workspace, workspaceSize, executor, stream);
}
