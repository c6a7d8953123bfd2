/* aclnnMoeTokenPermuteWithEpGrad (spec: ops/moe_token_permute_with_ep_grad.md). */
#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep_grad.h"

enum { GRAD, IDX, PGRAD, NUM_TOPK, RANGE, PADDED_MODE, OUT, POUT };

static const aclStubParam PARAMS[] = {
    [GRAD] = {"permutedTokensOutputGrad", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [IDX] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [PGRAD] = {"permutedProbsOutputGradOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "permutedTokensOutputGrad"},
    [NUM_TOPK] = {"numTopk", ACLSTUB_INT},
    [RANGE] = {"rangeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [PADDED_MODE] = {"paddedMode", ACLSTUB_BOOL}, /* the device kernel ignores it (spec 4, row 5) */
    [OUT] = {"tokenGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "permutedTokensOutputGrad"},
    [POUT] = {"probsGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "permutedTokensOutputGrad"},
};

typedef struct {
    int64_t start, end;
} Plan;

typedef struct {
    const aclStubTensorDesc *idx, *pgrad, *pout;
    int64_t start, end;
} ProbsCtx;

/* probsGradOut[t, k] = pg[d - start] for a rank d inside the window, else 0: an exact copy, no arithmetic. */
static void probs_range(void *arg, int64_t begin, int64_t end) {
    const ProbsCtx *c = arg;
    size_t esize = aclDataTypeSize(c->pgrad->dtype);
    char *dst = (char *)c->pout->data + c->pout->offset * (int64_t)esize;
    for (int64_t i = begin; i < end; i++) {
        int64_t d = aclStubIndex1(c->idx, i);
        if (d >= c->start && d < c->end)
            memcpy(dst + i * (int64_t)esize, aclStubElem1(c->pgrad, d - c->start), esize);
        else
            memset(dst + i * (int64_t)esize, 0, esize);
    }
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    ProbsCtx c = {aclStubOpTensor(call, IDX), aclStubOpTensor(call, PGRAD), aclStubOpTensor(call, POUT), p->start,
                  p->end};
    /* The kernel sums the window rows in k order from +0 (no copy of the first term); ranks outside
     * [start, end) contribute nothing, so start >= end yields zeros. */
    aclStubGatherSum g = {aclStubOpTensor(call, GRAD), c.idx, aclStubOpTensor(call, OUT), aclStubOpInt(call, NUM_TOPK),
                          p->start, p->end, ACLSTUB_SUM_ZERO_INIT};
    if (!aclStubRowGatherSum(&g)) return aclStubKernelOutOfMemory(call);
    if (c.pgrad) aclStubParallelFor(c.idx->dims[0], 16384, probs_range, &c);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *grad = aclStubOpTensor(c, GRAD), *idx = aclStubOpTensor(c, IDX);
    const aclStubTensorDesc *pgrad = aclStubOpTensor(c, PGRAD), *out = aclStubOpTensor(c, OUT);
    const aclStubTensorDesc *pout = aclStubOpTensor(c, POUT);
    const aclStubValue *range = &c->v[RANGE];
    int64_t k = aclStubOpInt(c, NUM_TOPK);
    if (aclStubNumel(out) == 0 && aclStubNumel(pout) == 0) return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    ACLSTUB_RETURN_ERROR_IF(k < 1, c, TILING, "numTopk = %lld must be at least 1", (long long)k);
    ACLSTUB_RETURN_ERROR_IF(grad->ndim != 2, c, TILING, "permutedTokensOutputGrad must be 2-D (end - start, H), got "
                            "%u-D", grad->ndim);
    ACLSTUB_RETURN_ERROR_IF(pgrad && pgrad->ndim != 1, c, TILING, "permutedProbsOutputGradOptional must be 1-D (end - "
                            "start,), got %u-D", pgrad ? pgrad->ndim : 0);

    /* Below: not checked by the device, which would read or write out of bounds instead. */
    ACLSTUB_RETURN_ERROR_IF(k > 512, c, TILING, "numTopk = %lld must not exceed 512", (long long)k);
    int64_t start = 0, end = 0; /* range NULL: the OpDef default [0, 0] (generated wrapper), an empty window */
    if (range->present) {
        ACLSTUB_RETURN_ERROR_IF(range->size != 2, c, TILING, "rangeOptional must hold 2 values [start, end], got %llu",
                                (unsigned long long)range->size);
        start = range->ints[0];
        end = range->ints[1];
    }
    for (int i = GRAD; i <= POUT; i++) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, i, TILING));
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1, c, TILING, "sortedIndices must be 1-D, got %u-D", idx->ndim);
    int64_t l = idx->dims[0], rows = grad->dims[0], h = grad->dims[1];
    /* start < end, both checked before end - start is formed */
    ACLSTUB_RETURN_ERROR_IF(start < end && (start < 0 || end > l || rows != end - start), c, TILING, "rangeOptional = "
                            "[%lld, %lld] must lie in [0, %lld] (L) and match permutedTokensOutputGrad.shape[0] = %lld",
                            (long long)start, (long long)end, (long long)l, (long long)rows);
    ACLSTUB_RETURN_ERROR_IF(pgrad && pgrad->dims[0] != rows, c, TILING, "permutedProbsOutputGradOptional length %lld "
                            "must equal permutedTokensOutputGrad.shape[0] = %lld", (long long)(pgrad ? pgrad->dims[0] : 0),
                            (long long)rows);
    ACLSTUB_RETURN_ERROR_IF(l % k != 0, c, TILING, "sortedIndices length %lld is not a multiple of numTopk = %lld",
                            (long long)l, (long long)k);
    int64_t n = l / k;
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[0] != n || out->dims[1] != h, c, TILING, "tokenGradOut must "
                            "have shape (%lld, %lld) = (L / numTopk, H)", (long long)n, (long long)h);
    ACLSTUB_RETURN_ERROR_IF(pout->ndim != 2 || pout->dims[0] != n || pout->dims[1] != k, c, TILING, "probsGradOut must "
                            "have shape (%lld, %lld) = (L / numTopk, numTopk)", (long long)n, (long long)k);

    /* Empty tensors are unsupported by the device: nothing is written. */
    if (l == 0 || h == 0) return aclStubOpNothingToDo(c);
    if (!pgrad) aclStubOpIgnore(c, POUT);
    *(Plan *)c->plan = (Plan){start, end};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenPermuteWithEpGrad", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenPermuteWithEpGrad, OP, (const aclTensor *, permutedTokensOutputGrad),
                  (const aclTensor *, sortedIndices), (const aclTensor *, permutedProbsOutputGradOptional),
                  (int64_t, numTopk), (const aclIntArray *, rangeOptional), (bool, paddedMode),
                  (const aclTensor *, tokenGradOut), (const aclTensor *, probsGradOut))
