/* aclnnMoeInitRoutingV2Grad (spec: ops/moe_init_routing_v2_grad.md). */
#include "op_common.h"
#include "aclnnop/aclnn_moe_init_routing_v2_grad.h"

static const char OP[] = "aclnnMoeInitRoutingV2Grad";

typedef struct {
    const aclTensor *grad, *idx, *out;
    int64_t k, rows; /* rows: R, the number of (H,) rows of gradExpandedX */
} State;

static aclnnStatus run(void *arg) {
    const State *s = arg;
    /*
     * Every index outside [0, R) contributes a +0.0 row: this is what the drop/pad (-1) and active (>= A)
     * kernels do, and keeps the dropless kernel (which trusts its indices) inside the tensor.
     */
    GatherSum g = {s->grad, s->idx, (aclTensor *)s->out, s->k, 0, s->rows, GATHER_COPY_FIRST_ADD_ZERO};
    op_gather_sum(&g);
    return OK;
}

aclnnStatus aclnnMoeInitRoutingV2GradGetWorkspaceSize(const aclTensor *gradExpandedX,
                                                       const aclTensor *expandedRowIdx, int64_t topK,
                                                       int64_t dropPadMode, int64_t activeNum, const aclTensor *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *grad = gradExpandedX, *idx = expandedRowIdx;
    OP_TRY(op_check_not_null(OP, "gradExpandedX", grad));
    OP_TRY(op_check_not_null(OP, "expandedRowIdx", idx));
    OP_TRY(op_check_not_null(OP, "out", out));
    OP_TRY(op_check_not_null(OP, "workspaceSize", workspaceSize));
    OP_TRY(op_check_not_null(OP, "executor", executor));
    OP_TRY(op_check_live(OP, "gradExpandedX", grad));
    OP_TRY(op_check_live(OP, "expandedRowIdx", idx));
    OP_TRY(op_check_live(OP, "out", out));

    OP_TRY(op_check_dtype(OP, "gradExpandedX", grad, DT_FLOATS));
    OP_TRY(op_check_dtype(OP, "expandedRowIdx", idx, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "out", out, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "out", out, "gradExpandedX", grad));
    OP_TRY(op_check_contiguous_out(OP, "out", out));

    /* nnopbase skips tiling when the only output is empty, so no attribute or shape check runs. */
    if (stub_numel(out) == 0) return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    if (dropPadMode != 0 && dropPadMode != 1)
        return op_fail(OP, TILING, "dropPadMode = %lld must be 0 or 1", (long long)dropPadMode);
    if (topK <= 0) return op_fail(OP, TILING, "topK = %lld must be > 0", (long long)topK);
    if (activeNum < 0) return op_fail(OP, TILING, "activeNum = %lld must be >= 0", (long long)activeNum);
    if (grad->ndim != 2 && grad->ndim != 3)
        return op_fail(OP, TILING, "gradExpandedX must be 2-D or 3-D, got %llu-D", (unsigned long long)grad->ndim);
    if (dropPadMode == 1 && grad->ndim != 3)
        return op_fail(OP, TILING, "gradExpandedX must be 3-D (E, C, H) when dropPadMode = 1, got %llu-D",
                       (unsigned long long)grad->ndim);
    /* The length L below is expandedRowIdx.shape[0]; a rank other than 1 has no meaning for the kernel. */
    if (idx->ndim != 1)
        return op_fail(OP, TILING, "expandedRowIdx must be 1-D, got %llu-D", (unsigned long long)idx->ndim);
    int64_t l = idx->dims[0];
    if (dropPadMode == 0 && activeNum == 0 && grad->dims[0] != l)
        return op_fail(OP, TILING, "gradExpandedX.shape[0] = %lld must equal expandedRowIdx.shape[0] = %lld "
                       "(dropless mode)", (long long)grad->dims[0], (long long)l);
    if (dropPadMode == 0 && activeNum > 0 && grad->dims[0] != activeNum)
        return op_fail(OP, TILING, "gradExpandedX.shape[0] = %lld must equal activeNum = %lld (active mode)",
                       (long long)grad->dims[0], (long long)activeNum);
    if (out->ndim != 2) return op_fail(OP, TILING, "out must be 2-D (N, H), got %llu-D", (unsigned long long)out->ndim);
    int64_t h = grad->dims[dropPadMode == 1 ? 2 : 1];
    if (out->dims[1] != h)
        return op_fail(OP, TILING, "out.shape[1] = %lld must equal the hidden size %lld of gradExpandedX",
                       (long long)out->dims[1], (long long)h);
    if (out->dims[0] != l / topK)
        return op_fail(OP, TILING, "out.shape[0] = %lld must equal expandedRowIdx.shape[0] / topK = %lld",
                       (long long)out->dims[0], (long long)(l / topK));
    if (l <= 0) return op_fail(OP, TILING, "expandedRowIdx.shape[0] = %lld must be > 0", (long long)l);
    /* out has no dimension <= 0 here: an empty out returned above. */
    for (uint64_t d = 0; d < grad->ndim; d++) {
        bool dropless = dropPadMode == 0 && activeNum == 0;
        if (dropless ? grad->dims[d] <= 0 : grad->dims[d] < 0)
            return op_fail(OP, TILING, "gradExpandedX.shape[%llu] = %lld must be %s", (unsigned long long)d,
                           (long long)grad->dims[d], dropless ? "> 0" : ">= 0");
    }
    if (l % topK != 0)
        return op_fail(OP, TILING, "expandedRowIdx.shape[0] = %lld is not a multiple of topK = %lld", (long long)l,
                       (long long)topK);
    /* Stricter than the device tiling, which would take shape[1] of a 3-D tensor as the hidden size. */
    if (dropPadMode == 0 && grad->ndim != 2)
        return op_fail(OP, TILING, "gradExpandedX must be 2-D when dropPadMode = 0, got %llu-D",
                       (unsigned long long)grad->ndim);

    int64_t rows = grad->dims[0];
    if (grad->ndim == 3 && __builtin_mul_overflow(grad->dims[0], grad->dims[1], &rows))
        rows = INT64_MAX; /* cannot be backed by memory; phase 2 rejects the tensor before any index is used */

    State s = {grad, idx, out, topK, rows};
    aclStubTensorRef refs[] = {{"gradExpandedX", grad}, {"expandedRowIdx", idx}, {"out", out}};
    return op_finish(OP, run, &s, sizeof s, refs, 3, workspaceSize, executor);
}

aclnnStatus aclnnMoeInitRoutingV2Grad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream) {
    return aclStubExecutorRun(OP, workspace, workspaceSize, executor, stream);
}
