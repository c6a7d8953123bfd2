/* aclnnMoeInitRoutingV2 (spec: ops/moe_init_routing_v2.md) and aclnnMoeInitRoutingQuantV2: the same routing with
 * an INT8 expandedX, quantised statically (round(x * scale + offset)) or dynamically per row (the row times its
 * smooth scale, divided by max|.| / 127; the smooth scale is row `expert` of an (E, H) scale, or a (1, H) one);
 * rounding half to even, saturated. Padding rows of the drop/pad layout are zeros with a zero dynamic scale. */
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_init_routing_quant_v2.h"
#include "aclnnop/aclnn_moe_init_routing_v2.h"
#include "init_routing_common.h"

/* The parameter indices of either operator (QuantV2 has scale and offset after expertIdx, quantMode after the
 * flags, and the dynamic scale output last). */
typedef struct {
    int x, expert_idx, active_num, capacity, expert_num, drop_pad_mode, count_flag, before_flag, expanded_x, row_idx,
        counts, before;
    int scale, offset, quant_mode, dyn_scale; /* -1 for V2 */
} Idx;
static const Idx IDX_V2 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1, -1, -1, -1};
static const Idx IDX_Q = {0, 1, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 2, 3, 10, 15};
#define IX(c) ((const Idx *)aclStubFamilyRow(c))
#define X (IX(c)->x)
#define EXPERT_IDX (IX(c)->expert_idx)
#define ACTIVE_NUM (IX(c)->active_num)
#define CAPACITY (IX(c)->capacity)
#define EXPERT_NUM (IX(c)->expert_num)
#define DROP_PAD_MODE (IX(c)->drop_pad_mode)
#define COUNT_FLAG (IX(c)->count_flag)
#define BEFORE_FLAG (IX(c)->before_flag)
#define EXPANDED_X (IX(c)->expanded_x)
#define ROW_IDX (IX(c)->row_idx)
#define COUNTS (IX(c)->counts)
#define BEFORE (IX(c)->before)

#define PRM(n, role, dt, same) {n, role, dt, same, 0, 0, 0}
static const aclStubParam PARAMS[] = {
    PRM("x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL),
    PRM("expertIdx", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL),
    PRM("activeNumOptional", ACLSTUB_INT, 0, NULL),
    PRM("expertCapacityOptional", ACLSTUB_INT, 0, NULL),
    PRM("expertNumOptional", ACLSTUB_INT, 0, NULL),
    PRM("dropPadModeOptional", ACLSTUB_INT, 0, NULL),
    PRM("expertTokensCountOrCumsumFlagOptional", ACLSTUB_INT, 0, NULL),
    PRM("expertTokensBeforeCapacityFlagOptional", ACLSTUB_BOOL, 0, NULL),
    PRM("expandedXOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "x"),
    PRM("expandedRowIdxOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL),
    PRM("expertTokensCountOrCumsumOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL),
    PRM("expertTokensBeforeCapacityOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL),
};
static const aclStubParam PARAMS_Q[] = {
    PRM("x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL),
    PRM("expertIdx", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL),
    PRM("scaleOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL),
    PRM("offsetOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL),
    PRM("activeNum", ACLSTUB_INT, 0, NULL),
    PRM("expertCapacity", ACLSTUB_INT, 0, NULL),
    PRM("expertNum", ACLSTUB_INT, 0, NULL),
    PRM("dropPadMode", ACLSTUB_INT, 0, NULL),
    PRM("expertTokensCountOrCumsumFlag", ACLSTUB_INT, 0, NULL),
    PRM("expertTokensBeforeCapacityFlag", ACLSTUB_BOOL, 0, NULL),
    PRM("quantMode", ACLSTUB_INT, 0, NULL),
    PRM("expandedXOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT8), NULL),
    PRM("expandedRowIdxOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL),
    PRM("expertTokensCountOrCumsumOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL),
    PRM("expertTokensBeforeCapacityOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL),
    PRM("dynamicQuantScaleOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_FLOAT), NULL),
};

typedef struct {
    int quant;          /* -1: none (V2); 0 static; 1 dynamic */
    int counts;         /* the count output this call writes (COUNTS or BEFORE), or -1 */
    int64_t k, t, a;    /* topK, slots N*K, rows of expandedX in mode 0 */
    int64_t e, c, mode; /* expertNum, expertCapacity, dropPadMode */
    int64_t count_flag; /* 1 inclusive cumsum, 2 per-expert count (the before-capacity output counts too) */
} Plan;

/* What the kernel reads: the views, the plan's numbers and the sorted slots. */
typedef struct {
    const aclStubTensorDesc *x, *expert_idx, *expanded_x, *row_idx, *counts;
    int64_t k, t, a, e, c, mode, count_flag;
    IrSorted sorted;
    int64_t *src_rows; /* source token of each expandedX row */
} State;

static int32_t *row_idx_data(const State *s) { return (int32_t *)s->row_idx->data + s->row_idx->offset; }

/* Mode 0: expandedRowIdx is the inverse permutation; the first A sorted slots give the expandedX rows. */
static void scatter_dropless(void *arg, int64_t begin, int64_t end) {
    const State *s = arg;
    int32_t *row_idx = row_idx_data(s);
    const int32_t *order = s->sorted.order;
    for (int64_t j = begin; j < end; j++) {
        row_idx[order[j]] = (int32_t)j;
        if (s->src_rows && j < s->a) s->src_rows[j] = order[j] / s->k;
    }
}

/* Counts over all T slots of ids in [0, E); the cumulative form counts ids in [0, e]. */
static void count_experts(void *arg, int64_t begin, int64_t end) {
    const State *s = arg;
    const int64_t *sorted = s->sorted.sorted;
    int32_t *out = (int32_t *)s->counts->data + s->counts->offset;
    int64_t zero = ir_lower_bound(sorted, 0, s->t, 0);
    for (int64_t e = begin; e < end; e++) {
        int64_t hi = ir_lower_bound(sorted, 0, s->t, e + 1);
        int64_t lo = s->count_flag == 1 ? zero : ir_lower_bound(sorted, 0, hi, e);
        out[e] = (int32_t)(hi - lo);
    }
}

/* QuantV2: every expandedX row quantised from its source row (pads: zeros, dynamic scale 0) */
static bool quant_rows(const aclStubOpCall *c, const State *s, int64_t rows, int mode) {
    const aclStubTensorDesc *scale = aclStubOpTensor(c, IX(c)->scale), *offset = aclStubOpTensor(c, IX(c)->offset);
    const aclStubTensorDesc *dyn = aclStubOpTensor(c, IX(c)->dyn_scale);
    int64_t h = s->x->dims[1];
    float *row = malloc((size_t)(2 * h + 1) * sizeof(float));
    if (row == NULL) return false;
    float *smooth = row + h;
    int8_t *out = (int8_t *)s->expanded_x->data + s->expanded_x->offset;
    float st = mode == 0 ? aclStubLoadF32(scale, 0) : 1.0f, so = mode == 0 ? aclStubLoadF32(offset, 0) : 0.0f;
    for (int64_t j = 0; j < rows; j++) {
        float ds = 0.0f;
        if (s->src_rows[j] == ACLSTUB_ROW_ZERO) {
            memset(out + j * h, 0, (size_t)h);
        } else {
            aclStubRowLoadViewF32(row, s->x, s->src_rows[j]);
            if (mode == 0) {
                aclStubRowQuantInt8Static(out + j * h, row, st, so, h);
            } else {
                const float *sm = NULL;
                if (scale) {
                    int64_t e = scale->dims[0] == 1 ? 0 : s->mode == 0 ? s->sorted.sorted[j] : j / s->c;
                    aclStubRowLoadViewF32(smooth, scale, e);
                    sm = smooth;
                }
                ds = aclStubRowQuantInt8Dynamic(out + j * h, row, sm, h);
            }
        }
        if (dyn) *(float *)aclStubElem1(dyn, j) = ds;
    }
    free(row);
    return true;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const aclStubOpCall *c = call; /* for the index macros */
    const Plan *p = call->plan;
    State s = {aclStubOpTensor(call, X), aclStubOpTensor(call, EXPERT_IDX), aclStubOpTensor(call, EXPANDED_X),
               aclStubOpTensor(call, ROW_IDX), p->counts >= 0 ? aclStubOpTensor(call, p->counts) : NULL,
               p->k, p->t, p->a, p->e, p->c, p->mode, p->count_flag, {0}, NULL};
    /* expandedX rows to produce: none when it is empty (H = 0), so no row list is needed then. */
    int64_t rows = aclStubNumel(s.expanded_x) == 0 ? 0 : s.mode == 0 ? s.a : s.e * s.c;
    s.src_rows = rows > 0 ? malloc((size_t)rows * sizeof(int64_t)) : NULL;
    bool ok = (rows == 0 || s.src_rows) && ir_sort_slots(s.expert_idx, s.k, s.t, INT64_MIN, &s.sorted);
    if (ok) {
        if (s.mode == 0) {
            aclStubParallelFor(s.t, 65536, scatter_dropless, &s);
        } else {
            ir_drop_pad_row_idx(&s.sorted, row_idx_data(&s), s.e, s.c);
            if (rows > 0) ir_drop_pad_sources(&s.sorted, s.src_rows, s.e, s.c);
        }
        if (p->quant < 0)
            aclStubCopyRows(s.expanded_x, 0, s.x, s.src_rows, rows);
        else
            ok = quant_rows(call, &s, rows, p->quant);
        if (s.counts) aclStubParallelFor(s.e, 4096, count_experts, &s);
        ir_sorted_free(&s.sorted);
    }
    free(s.src_rows);
    if (!ok) return aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for the sort buffers of %lld slots",
                                      (long long)s.t);
    return OK;
}

/* Checks 4.14 / 4.15: a requested count output must exist and be (E,) INT32. */
static aclnnStatus check_count_out(const aclStubOpCall *c, int i, int64_t e, const char *why) {
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    const aclStubTensorDesc *t = aclStubOpTensor(c, i);
    const char *name = aclStubOpName(c, i);
    ACLSTUB_RETURN_ERROR_IF(t == NULL, c, TILING, "%s is NULL but %s", name, why);
    ACLSTUB_RETURN_ERROR_IF(t->dtype != ACL_INT32, c, TILING, "%s has data type %s; must be ACL_INT32", name,
                            aclStubDtypeName(t->dtype));
    ACLSTUB_RETURN_ERROR_IF(t->ndim != 1, c, TILING, "%s must be 1-D, got %u-D", name, t->ndim);
    ACLSTUB_RETURN_ERROR_IF(t->dims[0] != e, c, TILING, "%s.shape[0] = %lld must equal expertNum = %lld", name,
                            (long long)t->dims[0], (long long)e);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *x = aclStubOpTensor(c, X), *idx = aclStubOpTensor(c, EXPERT_IDX);
    const aclStubTensorDesc *ex = aclStubOpTensor(c, EXPANDED_X), *ri = aclStubOpTensor(c, ROW_IDX);
    const int64_t active = aclStubOpInt(c, ACTIVE_NUM), cap = aclStubOpInt(c, CAPACITY), e = aclStubOpInt(c, EXPERT_NUM);
    const int64_t mode = aclStubOpInt(c, DROP_PAD_MODE), flag = aclStubOpInt(c, COUNT_FLAG);
    const bool before = aclStubOpBool(c, BEFORE_FLAG);
    if (aclStubNumel(ex) == 0 && aclStubNumel(ri) == 0 && aclStubNumel(aclStubOpTensor(c, COUNTS)) == 0 &&
        aclStubNumel(aclStubOpTensor(c, BEFORE)) == 0)
        return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, c, TILING, "x must be 2-D (N, H), got %u-D", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim < 1, c, TILING, "expertIdx must be 2-D (N, K), got 0-D");
    ACLSTUB_RETURN_ERROR_IF(x->dims[0] != idx->dims[0], c, TILING, "x.shape[0] = %lld must equal expertIdx.shape[0] = "
                            "%lld", (long long)x->dims[0], (long long)idx->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(x->dims[0] < 0 || x->dims[1] < 0, c, TILING, "x has a negative dimension (%lld, %lld)",
                            (long long)x->dims[0], (long long)x->dims[1]);
    ACLSTUB_RETURN_ERROR_IF(cap < 0, c, TILING, "expertCapacity = %lld must be >= 0", (long long)cap);
    ACLSTUB_RETURN_ERROR_IF(e < 0, c, TILING, "expertNum = %lld must be >= 0", (long long)e);
    ACLSTUB_RETURN_ERROR_IF(mode != 0 && mode != 1, c, TILING, "dropPadMode = %lld must be 0 or 1", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(mode == 1 && (cap < 1 || e < 1), c, TILING, "dropPadMode = 1 needs expertCapacity >= 1 and "
                            "expertNum >= 1 (got %lld, %lld)", (long long)cap, (long long)e);
    ACLSTUB_RETURN_ERROR_IF(flag < 0 || flag > 2, c, TILING, "expertTokensCountOrCumsumFlag = %lld must be 0, 1 or 2",
                            (long long)flag);
    ACLSTUB_RETURN_ERROR_IF(flag > 0 && e <= 0, c, TILING, "expertTokensCountOrCumsumFlag = %lld needs expertNum > 0 "
                            "(got %lld)", (long long)flag, (long long)e);
    int64_t n = x->dims[0], h = x->dims[1];
    ACLSTUB_RETURN_ERROR_IF(mode == 1 && cap > n, c, TILING, "expertCapacity = %lld must be <= the number of tokens "
                            "%lld", (long long)cap, (long long)n);
    /* expandedRowIdx holds e * C + r as INT32. */
    ACLSTUB_RETURN_ERROR_IF(mode == 1 && e > INT32_MAX / cap, c, TILING, "expertNum * expertCapacity = %lld * %lld "
                            "exceeds the INT32 row index range", (long long)e, (long long)cap);
    ACLSTUB_RETURN_ERROR_IF(active < 0, c, TILING, "activeNum = %lld must be >= 0", (long long)active);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 2, c, TILING, "expertIdx must be 2-D (N, K), got %u-D", idx->ndim);
    int64_t k = idx->dims[1], t;
    ACLSTUB_RETURN_ERROR_IF(k < 0, c, TILING, "expertIdx.shape[1] = %lld must be >= 0", (long long)k);
    /* Positions are INT32 in expandedRowIdx. */
    ACLSTUB_RETURN_ERROR_IF(__builtin_mul_overflow(n, k, &t) || t > INT32_MAX, c, TILING, "expertIdx has %lld x %lld "
                            "elements; at most %d are supported", (long long)n, (long long)k, INT32_MAX);
    int64_t a = active == 0 || active > t ? t : active;
    if (mode == 1) {
        const int64_t want[3] = {e, cap, h};
        ACLSTUB_RETURN_ERROR_IF(ex->ndim != 3, c, TILING, "expandedXOut must be 3-D (E, C, H) when dropPadMode = 1, "
                                "got %u-D", ex->ndim);
        for (int d = 0; d < 3; d++)
            ACLSTUB_RETURN_ERROR_IF(ex->dims[d] != want[d], c, TILING, "expandedXOut.shape[%d] = %lld must be %lld "
                                    "(shape (E, C, H) = (%lld, %lld, %lld))", d, (long long)ex->dims[d],
                                    (long long)want[d], (long long)e, (long long)cap, (long long)h);
    } else {
        ACLSTUB_RETURN_ERROR_IF(ex->ndim != 2, c, TILING, "expandedXOut must be 2-D (A, H) when dropPadMode = 0, got "
                                "%u-D", ex->ndim);
        ACLSTUB_RETURN_ERROR_IF(ex->dims[0] != a, c, TILING, "expandedXOut.shape[0] = %lld must be %lld (activeNum = "
                                "%lld, %lld slots)", (long long)ex->dims[0], (long long)a, (long long)active, (long long)t);
        ACLSTUB_RETURN_ERROR_IF(ex->dims[1] != h, c, TILING, "expandedXOut.shape[1] = %lld must equal x.shape[1] = %lld",
                                (long long)ex->dims[1], (long long)h);
    }
    ACLSTUB_RETURN_ERROR_IF(ri->ndim != 1, c, TILING, "expandedRowIdxOut must be 1-D, got %u-D", ri->ndim);
    ACLSTUB_RETURN_ERROR_IF(ri->dims[0] != t, c, TILING, "expandedRowIdxOut.shape[0] = %lld must equal N * K = %lld",
                            (long long)ri->dims[0], (long long)t);
    int counts = -1;
    if (mode == 0 && flag != 0) {
        ACLSTUB_TRY(check_count_out(c, COUNTS, e, "expertTokensCountOrCumsumFlag is not 0"));
        counts = COUNTS;
    }
    if (mode == 1 && before) {
        ACLSTUB_TRY(check_count_out(c, BEFORE, e, "expertTokensBeforeCapacityFlag is true"));
        counts = BEFORE;
    }
    if (counts != COUNTS) aclStubOpIgnore(c, COUNTS);
    if (counts != BEFORE) aclStubOpIgnore(c, BEFORE);
    int quant = -1;
    if (IX(c)->quant_mode >= 0) {
        const aclStubTensorDesc *sc = aclStubOpTensor(c, IX(c)->scale), *of = aclStubOpTensor(c, IX(c)->offset);
        quant = (int)aclStubOpInt(c, IX(c)->quant_mode);
        ACLSTUB_RETURN_ERROR_IF(quant != 0 && quant != 1, c, TILING, "quantMode = %d must be 0 (static) or 1 (dynamic)",
                                quant);
        if (quant == 0) {
            ACLSTUB_RETURN_ERROR_IF(sc == NULL || of == NULL || aclStubNumel(sc) != 1 || aclStubNumel(of) != 1 ||
                                    sc->ndim != 1 || of->ndim != 1, c, TILING, "static quantisation needs scaleOptional "
                                    "and offsetOptional of shape (1,)");
            aclStubOpIgnore(c, IX(c)->dyn_scale);
        } else {
            if (of) aclStubOpIgnore(c, IX(c)->offset);
            ACLSTUB_RETURN_ERROR_IF(sc && (sc->ndim != 2 || (sc->dims[0] != 1 && sc->dims[0] != e) || sc->dims[1] != h),
                                    c, TILING, "the dynamic smooth scale must be (1, H) or (expertNum, H) = (%lld, "
                                    "%lld)", (long long)e, (long long)h);
            const aclStubTensorDesc *dq = aclStubOpTensor(c, IX(c)->dyn_scale);
            int64_t want = mode == 1 ? e * cap : a;
            ACLSTUB_RETURN_ERROR_IF(dq && (dq->ndim != 1 || dq->dims[0] != want), c, TILING, "dynamicQuantScaleOut must be "
                                    "1-D with one scale per expandedX row (%lld)", (long long)want);
        }
    }
    *(Plan *)c->plan = (Plan){quant, counts, k, t, a, e, cap, mode, mode == 0 ? flag : 2};
    return OK;
}

static const aclStubFamilyOp OP = {{"aclnnMoeInitRoutingV2", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                    sizeof(Plan)}, &IDX_V2};
static const aclStubFamilyOp OP_Q = {{"aclnnMoeInitRoutingQuantV2", PARAMS_Q, ACLSTUB_LEN(PARAMS_Q), NULL, check, kernel,
                                      sizeof(Plan)}, &IDX_Q};

ACLSTUB_DEFINE_OP(aclnnMoeInitRoutingQuantV2, OP_Q.def, (const aclTensor *, x), (const aclTensor *, expertIdx),
                  (const aclTensor *, scaleOptional), (const aclTensor *, offsetOptional), (int64_t, activeNum),
                  (int64_t, expertCapacity), (int64_t, expertNum), (int64_t, dropPadMode),
                  (int64_t, expertTokensCountOrCumsumFlag), (bool, expertTokensBeforeCapacityFlag), (int64_t, quantMode),
                  (const aclTensor *, expandedXOut), (const aclTensor *, expandedRowIdxOut),
                  (const aclTensor *, expertTokensCountOrCumsumOutOptional),
                  (const aclTensor *, expertTokensBeforeCapacityOutOptional),
                  (const aclTensor *, dynamicQuantScaleOutOptional))
ACLSTUB_DEFINE_OP(aclnnMoeInitRoutingV2, OP.def, (const aclTensor *, x), (const aclTensor *, expertIdx),
                  (int64_t, activeNumOptional), (int64_t, expertCapacityOptional), (int64_t, expertNumOptional),
                  (int64_t, dropPadModeOptional), (int64_t, expertTokensCountOrCumsumFlagOptional),
                  (bool, expertTokensBeforeCapacityFlagOptional), (const aclTensor *, expandedXOut),
                  (const aclTensor *, expandedRowIdxOut), (const aclTensor *, expertTokensCountOrCumsumOutOptional),
                  (const aclTensor *, expertTokensBeforeCapacityOutOptional))
