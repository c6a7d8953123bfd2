/*
 * ops-math math/sinkhorn: aclnnSinkhorn, the Sinkhorn normalisation of a cost matrix (expert routing in MoE
 * models), as its documentation writes it, in float32 (the op_api casts 16-bit costs to FLOAT and the result
 * back to p's dtype):
 *   c = exp(cost); d0 = ones(R); d1 = ones(C); repeat:
 *     d0 = 1 / (R * (sum_j d1[j] c[i, j] + 1e-8)); d1 = 1 / (C * (sum_i d0[i] c[i, j] + 1e-8));
 *     error = mean|d1_old - d1|
 *   until error <= tol (tol NULL: 0.0001); p = d1[j] * c[i, j] * d0[i].
 * Sums are taken in index order, exp is correctly rounded (op_math.h). The device loops until the error is small
 * enough; the stub stops after 100000 rounds at most (a tolerance float32 cannot reach, or NaN costs), so a call
 * always ends.
 */
#include <math.h>

#include "aclstub/op_index.h"
#include "aclstub/op_math.h"
#include "aclnnop/aclnn_sinkhorn.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define SINKHORN_MAX_ROUNDS 100000

enum { SK_COST, SK_TOL, SK_P };

typedef struct {
    float tol;
} SinkhornPlan;

static aclnnStatus sinkhorn_check(aclStubOpCall *call) {
    const aclStubTensorDesc *cost = call->v[SK_COST].tensor, *p = call->v[SK_P].tensor;
    SinkhornPlan *pl = call->plan;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "cost", cost, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "p", p, ACLSTUB_DT_FLOATS));
    ACLSTUB_RETURN_ERROR_IF(cost->ndim != 2, call, INVALID, "cost should be 2-D, got %u dimensions", cost->ndim);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "p", p, cost->dims, cost->ndim));
    ACLSTUB_RETURN_ERROR_IF((int32_t)cost->dims[1] > 4096, call, INVALID,
                            "the column number of cost is %d, it cannot be larger than 4096.", (int32_t)cost->dims[1]);
    pl->tol = call->v[SK_TOL].present ? (float)aclStubOpScalarF64(call, SK_TOL) : 0.0001f;
    if (aclStubNumel(cost) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus sinkhorn_kernel(const aclStubOpCall *call) {
    const SinkhornPlan *pl = call->plan;
    const aclStubTensorDesc *p = call->v[SK_P].tensor;
    aclStubTensorDesc cost, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[SK_COST].tensor, ACL_FLOAT, &cost));
    ACLSTUB_TRY(aclStubOutputBegin(call, p, ACL_FLOAT, false, &buf));
    int64_t r = cost.dims[0], cc = cost.dims[1];
    float *c = (float *)aclStubViewBase(&buf); /* exp(cost), then p */
    float *d0 = aclStubKernelScratch(call, (size_t)r * sizeof(float));
    float *d1 = aclStubKernelScratch(call, (size_t)cc * sizeof(float));
    float *col = aclStubKernelScratch(call, (size_t)cc * sizeof(float));
    if (d0 == NULL || d1 == NULL || col == NULL) return aclStubKernelOutOfMemory(call);
    aclStubMathF32(c, (const float *)aclStubViewBase(&cost), r * cc, ACLSTUB_MATH_EXP);
    for (int64_t j = 0; j < cc; j++) d1[j] = 1.0f;
    const float eps = 1e-8f, fr = (float)r, fc = (float)cc;
    for (int round = 0; round < SINKHORN_MAX_ROUNDS; round++) {
        for (int64_t i = 0; i < r; i++) {
            float s = 0.0f;
            for (int64_t j = 0; j < cc; j++) s += d1[j] * c[i * cc + j];
            d0[i] = 1.0f / (fr * (s + eps));
        }
        for (int64_t j = 0; j < cc; j++) col[j] = 0.0f;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < cc; j++) col[j] += d0[i] * c[i * cc + j];
        float err = 0.0f;
        for (int64_t j = 0; j < cc; j++) {
            float nd = 1.0f / (fc * (col[j] + eps));
            err += fabsf(d1[j] - nd);
            d1[j] = nd;
        }
        if (!(err / fc > pl->tol)) break;
    }
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < cc; j++) c[i * cc + j] = d1[j] * c[i * cc + j] * d0[i];
    return aclStubOutputEnd(call, p, &buf);
}

static const aclStubParam kSinkhornParams[] = {
    [SK_COST] = {"cost", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SK_TOL] = {"tol", ACLSTUB_SCALAR, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    [SK_P] = {"p", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kSinkhorn = {"aclnnSinkhorn", kSinkhornParams, ACLSTUB_LEN(kSinkhornParams), NULL,
                                       sinkhorn_check, sinkhorn_kernel, sizeof(SinkhornPlan)};
ACLSTUB_DEFINE_OP(aclnnSinkhorn, kSinkhorn, (const aclTensor *, cost), (const aclScalar *, tol), (aclTensor *, p))
