/*
 * ops-math math/grouped_bias_add_grad: aclnnGroupedBiasAddGrad and aclnnGroupedBiasAddGradV2, the bias gradient
 * of grouped matmuls: the rows of gradY summed per group.
 *   gradY (G, C, H), no groupIdxOptional: out[g] = sum_c gradY[g, c];
 *   gradY (R, H) with groupIdxOptional (G): out[g] = sum of rows [end[g-1], end[g]) (end[-1] = 0), end[g] the
 *   entries themselves (groupIdxType 0, cumulative ends) or their running sum (groupIdxType 1, group sizes).
 * Rows after the last end are not read; an empty group gives zeros. An end below the previous one or above R
 * fails the kernel (index out of range). Sums run in float32, a row at a time in row order (16-bit rows read as
 * float32), and are rounded once to out's dtype.
 */
#include "aclstub/op_index.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"

#define DT ACLSTUB_DT
#define INVALID ACLNN_ERR_PARAM_INVALID

enum { GB_GRAD, GB_IDX, GB_TYPE }; /* out is the last parameter (2 in V1, 3 in V2) */
#define GB_OUT ((int)call->op->num_params - 1)

typedef struct {
    int64_t groups, rows_per_group, h; /* rows_per_group: without groupIdx */
    int64_t type;
} GroupPlan;

static aclnnStatus grouped_common(aclStubOpCall *call, int64_t type) {
    const aclStubTensorDesc *g = call->v[GB_GRAD].tensor, *idx = call->v[GB_IDX].tensor, *out = call->v[GB_OUT].tensor;
    GroupPlan *pl = call->plan;
    int64_t groups, h;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "gradY", g, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "gradY", g));
    if (idx != NULL) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "groupIdxOptional", idx, ACLSTUB_DT_INDEX));
    if (idx == NULL) {
        ACLSTUB_RETURN_ERROR_IF(g->ndim != 3, call, INVALID,
                                "the grad_y of input should be 3D tensor when group_idx is null.");
        groups = g->dims[0], h = g->dims[2];
        pl->rows_per_group = g->dims[1];
    } else {
        ACLSTUB_RETURN_ERROR_IF(g->ndim != 2 || idx->ndim != 1, call, INVALID,
                                "the gradY of input should be 2D tensor when groupIdxOptional is not null and "
                                "groupIdxOptional must be 1D tensor.");
        ACLSTUB_RETURN_ERROR_IF(idx->dims[0] > 2048, call, INVALID,
                                "input group_idx shape not support more than 2048, but got %lld.",
                                (long long)idx->dims[0]);
        groups = idx->dims[0], h = g->dims[1];
    }
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, call, INVALID, "The dimensions of output should be two, but got %u.",
                            out->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != groups || out->dims[1] != h, call, INVALID,
                            "The shape of out should be [%lld, %lld], but got [%lld, %lld].", (long long)groups,
                            (long long)h, (long long)out->dims[0], (long long)out->dims[1]);
    ACLSTUB_RETURN_ERROR_IF(type < 0 || type > 1, call, INVALID, "group_idx_type should be 0 or 1, but current is %lld",
                            (long long)type);
    pl->groups = groups, pl->h = h, pl->type = type;
    if (aclStubNumel(g) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus grouped_v1_check(aclStubOpCall *call) { return grouped_common(call, 0); }
static aclnnStatus grouped_v2_check(aclStubOpCall *call) { return grouped_common(call, call->v[GB_TYPE].i); }


typedef struct {
    const char *g;
    aclDataType dtype;
    const int64_t *begin; /* per group: first row, and end = begin[group + 1] */
    float *out;
    int64_t h;
} GroupCtx;

static void group_rows(void *arg, int64_t first, int64_t last) {
    const GroupCtx *c = arg;
    size_t row = (size_t)c->h * aclDataTypeSize(c->dtype);
    for (int64_t k = first; k < last; k++) {
        float *acc = c->out + k * c->h;
        for (int64_t j = 0; j < c->h; j++) acc[j] = 0.0f;
        for (int64_t r = c->begin[k]; r < c->begin[k + 1]; r++) aclStubRowAddF32(acc, c->g + r * row, c->dtype, c->h);
    }
}

static aclnnStatus grouped_kernel(const aclStubOpCall *call) {
    const GroupPlan *pl = call->plan;
    const aclStubTensorDesc *idx = call->v[GB_IDX].tensor, *out = call->v[GB_OUT].tensor;
    aclStubTensorDesc g, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[GB_GRAD].tensor, ACL_DT_UNDEFINED, &g));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &buf));
    int64_t *begin = aclStubKernelScratch(call, (size_t)(pl->groups + 1) * sizeof(int64_t));
    if (begin == NULL) return aclStubKernelOutOfMemory(call);
    begin[0] = 0;
    int64_t rows = g.dims[0];
    for (int64_t k = 0; k < pl->groups; k++) {
        if (idx == NULL) {
            begin[k + 1] = (k + 1) * pl->rows_per_group;
            continue;
        }
        int64_t v = aclStubIndex1(idx, k), end = pl->type == 1 ? begin[k] + v : v;
        if (end < begin[k] || end > rows)
            return aclStubIndexOutOfRange(call, "groupIdxOptional", v, k, pl->type == 1 ? 0 : begin[k],
                                          pl->type == 1 ? rows - begin[k] + 1 : rows + 1);
        begin[k + 1] = end;
    }
    GroupCtx c = {aclStubViewBase(&g), g.dtype, begin, (float *)aclStubViewBase(&buf), pl->h};
    aclStubParallelFor(pl->groups, 1, group_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

#define GB_GRAD_PARAM {"gradY", ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define GB_IDX_PARAM {"groupIdxOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}
#define GB_OUT_PARAM {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}

static const aclStubParam kGroupedV1Params[] = {GB_GRAD_PARAM, GB_IDX_PARAM, GB_OUT_PARAM};
static const aclStubParam kGroupedV2Params[] = {GB_GRAD_PARAM, GB_IDX_PARAM,
                                                {"groupIdxType", ACLSTUB_INT, 0, NULL, 0, 0, 0}, GB_OUT_PARAM};
static const aclStubOpDef kGroupedV1 = {"aclnnGroupedBiasAddGrad", kGroupedV1Params, ACLSTUB_LEN(kGroupedV1Params),
                                        NULL, grouped_v1_check, grouped_kernel, sizeof(GroupPlan)};
static const aclStubOpDef kGroupedV2 = {"aclnnGroupedBiasAddGradV2", kGroupedV2Params, ACLSTUB_LEN(kGroupedV2Params),
                                        NULL, grouped_v2_check, grouped_kernel, sizeof(GroupPlan)};
ACLSTUB_DEFINE_OP(aclnnGroupedBiasAddGrad, kGroupedV1, (const aclTensor *, gradY),
                  (const aclTensor *, groupIdxOptional), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnGroupedBiasAddGradV2, kGroupedV2, (const aclTensor *, gradY),
                  (const aclTensor *, groupIdxOptional), (int64_t, groupIdxType), (aclTensor *, out))
