/* aclnnMoeTokenPermuteGrad (spec: ops/moe_token_permute_grad.md). */
#include "aclnnop/aclnn_moe_token_permute_grad.h"
#include "stub_internal.h"

enum { GRAD, IDX, NUM_TOPK, PADDED_MODE, OUT };

static const aclStubParam PARAMS[] = {
    [GRAD] = {"permutedOutputGrad", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [NUM_TOPK] = {"numTopk", ACLSTUB_INT},
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL},
    [OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "permutedOutputGrad"},
};

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *grad = aclStubOpTensor(c, GRAD), *idx = aclStubOpTensor(c, IDX), *out = aclStubOpTensor(c, OUT);
    int64_t k = aclStubOpInt(c, NUM_TOPK);
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(c, PADDED_MODE), c, ACLNN_ERR_PARAM_INVALID, "paddedMode = true is not supported");
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);
    ACLSTUB_RETURN_ERROR_IF(k < 1 || k > 512, c, TILING, "numTopk = %lld is outside [1, 512]", (long long)k);
    ACLSTUB_RETURN_ERROR_IF(grad->ndim != 2, c, TILING, "permutedOutputGrad must be 2-D (P, H), got %u-D", grad->ndim);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "sortedIndices must be 1-D, got %u-D", idx->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, c, TILING, "out must be 2-D (N, H), got %u-D", out->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->dims[1] != grad->dims[1], c, TILING, "out.shape[1] = %lld must equal "
                            "permutedOutputGrad.shape[1] = %lld", (long long)out->dims[1], (long long)grad->dims[1]);
    int64_t l = idx->dims[0];
    ACLSTUB_RETURN_ERROR_IF(l % k != 0, c, TILING, "sortedIndices length %lld is not a multiple of numTopk = %lld",
                            (long long)l, (long long)k);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != l / k, c, TILING, "out.shape[0] = %lld must equal len(sortedIndices) / "
                            "numTopk = %lld", (long long)out->dims[0], (long long)(l / k));
    ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, GRAD, TILING));
    return aclStubOpCheckDimsNonNegative(c, IDX, TILING);
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const aclStubTensorDesc *grad = aclStubOpTensor(c, GRAD);
    /* Indices outside [0, P) are skipped, as the A2 kernel does for rows the forward dropped. */
    const aclStubTensorDesc *idx = aclStubOpTensor(c, IDX);
    aclStubGatherSum g = {grad, idx, aclStubOpTensor(c, OUT), aclStubOpInt(c, NUM_TOPK), 0,
                          grad->dims[0], ACLSTUB_SUM_COPY_FIRST_SKIP};
    /* A device reads row d for d < P and skips the rest: [P, N x K) are the rows a dropping forward left out. */
    aclStubKernelCheckIndices(c, IDX, idx->dims[0], 0, grad->dims[0] > idx->dims[0] ? grad->dims[0] : idx->dims[0],
                              INT64_MIN,
                              "rows of permutedOutputGrad, or the N x K slots of a dropping permute");
    if (!aclStubRowGatherSum(&g)) return aclStubKernelOutOfMemory(c);
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenPermuteGrad", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, 0};

ACLSTUB_DEFINE_OP(aclnnMoeTokenPermuteGrad, OP, (const aclTensor *, permutedOutputGrad),
                  (const aclTensor *, sortedIndices), (int64_t, numTopk), (bool, paddedMode), (aclTensor *, out))
