/* aclnnMoeInitRoutingV2Grad (spec: ops/moe_init_routing_v2_grad.md). */
#include "aclnnop/aclnn_moe_init_routing_v2_grad.h"
#include "stub_internal.h"

enum { GRAD, IDX, TOP_K, DROP_PAD_MODE, ACTIVE_NUM, OUT };

static const aclStubParam PARAMS[] = {
    [GRAD] = {"gradExpandedX", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"expandedRowIdx", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [TOP_K] = {"topK", ACLSTUB_INT},
    [DROP_PAD_MODE] = {"dropPadMode", ACLSTUB_INT},
    [ACTIVE_NUM] = {"activeNum", ACLSTUB_INT},
    [OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "gradExpandedX"},
};

typedef struct {
    int64_t rows; /* R, the number of (H,) rows of gradExpandedX */
} Plan;

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *grad = aclStubOpTensor(c, GRAD), *idx = aclStubOpTensor(c, IDX), *out = aclStubOpTensor(c, OUT);
    int64_t top_k = aclStubOpInt(c, TOP_K), mode = aclStubOpInt(c, DROP_PAD_MODE), active = aclStubOpInt(c, ACTIVE_NUM);
    /* nnopbase skips tiling when the only output is empty, so no attribute or shape check runs. */
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    ACLSTUB_RETURN_ERROR_IF(mode != 0 && mode != 1, c, TILING, "dropPadMode = %lld must be 0 or 1", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(top_k <= 0, c, TILING, "topK = %lld must be > 0", (long long)top_k);
    ACLSTUB_RETURN_ERROR_IF(active < 0, c, TILING, "activeNum = %lld must be >= 0", (long long)active);
    ACLSTUB_RETURN_ERROR_IF(grad->ndim != 2 && grad->ndim != 3, c, TILING, "gradExpandedX must be 2-D or 3-D, got %u-D",
                            grad->ndim);
    ACLSTUB_RETURN_ERROR_IF(mode == 1 && grad->ndim != 3, c, TILING, "gradExpandedX must be 3-D (E, C, H) when "
                            "dropPadMode = 1, got %u-D", grad->ndim);
    /* The length L below is expandedRowIdx.shape[0]; a rank other than 1 has no meaning for the kernel. */
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "expandedRowIdx must be 1-D, got %u-D", idx->ndim);
    int64_t l = idx->dims[0];
    ACLSTUB_RETURN_ERROR_IF(mode == 0 && active == 0 && grad->dims[0] != l, c, TILING, "gradExpandedX.shape[0] = %lld "
                            "must equal expandedRowIdx.shape[0] = %lld (dropless mode)", (long long)grad->dims[0],
                            (long long)l);
    ACLSTUB_RETURN_ERROR_IF(mode == 0 && active > 0 && grad->dims[0] != active, c, TILING, "gradExpandedX.shape[0] = "
                            "%lld must equal activeNum = %lld (active mode)", (long long)grad->dims[0], (long long)active);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, c, TILING, "out must be 2-D (N, H), got %u-D", out->ndim);
    int64_t h = grad->dims[mode == 1 ? 2 : 1];
    ACLSTUB_RETURN_ERROR_IF(out->dims[1] != h, c, TILING, "out.shape[1] = %lld must equal the hidden size %lld of "
                            "gradExpandedX", (long long)out->dims[1], (long long)h);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != l / top_k, c, TILING, "out.shape[0] = %lld must equal "
                            "expandedRowIdx.shape[0] / topK = %lld", (long long)out->dims[0], (long long)(l / top_k));
    ACLSTUB_RETURN_ERROR_IF(l <= 0, c, TILING, "expandedRowIdx.shape[0] = %lld must be > 0", (long long)l);
    /* out has no dimension <= 0 here: an empty out returned above. */
    bool dropless = mode == 0 && active == 0;
    for (uint32_t d = 0; d < grad->ndim; d++)
        ACLSTUB_RETURN_ERROR_IF(dropless ? grad->dims[d] <= 0 : grad->dims[d] < 0, c, TILING, "gradExpandedX.shape[%u] "
                                "= %lld must be %s", d, (long long)grad->dims[d], dropless ? "> 0" : ">= 0");
    ACLSTUB_RETURN_ERROR_IF(l % top_k != 0, c, TILING, "expandedRowIdx.shape[0] = %lld is not a multiple of topK = "
                            "%lld", (long long)l, (long long)top_k);
    /* Stricter than the device tiling, which would take shape[1] of a 3-D tensor as the hidden size. */
    ACLSTUB_RETURN_ERROR_IF(mode == 0 && grad->ndim != 2, c, TILING, "gradExpandedX must be 2-D when dropPadMode = 0, "
                            "got %u-D", grad->ndim);
    Plan *plan = c->plan;
    plan->rows = grad->dims[0];
    if (grad->ndim == 3 && __builtin_mul_overflow(grad->dims[0], grad->dims[1], &plan->rows))
        plan->rows = INT64_MAX; /* cannot be backed by memory; phase 2 rejects the tensor before any index is used */
    return OK;
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Plan *plan = c->plan;
    /*
     * Every index outside [0, R) contributes a +0.0 row: this is what the drop/pad (-1) and active (>= A)
     * kernels do, and keeps the dropless kernel (which trusts its indices) inside the tensor.
     */
    aclStubGatherSum g = {aclStubOpTensor(c, GRAD), aclStubOpTensor(c, IDX), aclStubOpTensor(c, OUT),
                          aclStubOpInt(c, TOP_K), 0, plan->rows, ACLSTUB_SUM_COPY_FIRST_ADD_ZERO};
    /* The drop/pad kernel skips -1 and the active kernel indices >= activeNum (< N x K); anything else
     * outside [0, R) is read out of bounds by a device. */
    const aclStubTensorDesc *idx = aclStubOpTensor(c, IDX);
    aclStubKernelCheckIndices(c, IDX, idx->dims[0], 0, plan->rows > idx->dims[0] ? plan->rows : idx->dims[0],
                              aclStubOpInt(c, DROP_PAD_MODE) == 1 ? -1 : INT64_MIN, "rows of gradExpandedX");
    if (!aclStubRowGatherSum(&g)) return aclStubKernelOutOfMemory(c);
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeInitRoutingV2Grad", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeInitRoutingV2Grad, OP, (const aclTensor *, gradExpandedX), (const aclTensor *, expandedRowIdx),
                  (int64_t, topK), (int64_t, dropPadMode), (int64_t, activeNum), (const aclTensor *, out))
