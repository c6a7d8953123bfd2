/* aclnnMoeInitRoutingV2 (spec: ops/moe_init_routing_v2.md). */
#include <stdlib.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_init_routing_v2.h"
#include "init_routing_common.h"

enum { X, EXPERT_IDX, ACTIVE_NUM, CAPACITY, EXPERT_NUM, DROP_PAD_MODE, COUNT_FLAG, BEFORE_FLAG, EXPANDED_X, ROW_IDX,
       COUNTS, BEFORE };

static const aclStubParam PARAMS[] = {
    [X] = {"x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [EXPERT_IDX] = {"expertIdx", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [ACTIVE_NUM] = {"activeNumOptional", ACLSTUB_INT},
    [CAPACITY] = {"expertCapacityOptional", ACLSTUB_INT},
    [EXPERT_NUM] = {"expertNumOptional", ACLSTUB_INT},
    [DROP_PAD_MODE] = {"dropPadModeOptional", ACLSTUB_INT},
    [COUNT_FLAG] = {"expertTokensCountOrCumsumFlagOptional", ACLSTUB_INT},
    [BEFORE_FLAG] = {"expertTokensBeforeCapacityFlagOptional", ACLSTUB_BOOL},
    [EXPANDED_X] = {"expandedXOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "x"},
    [ROW_IDX] = {"expandedRowIdxOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32)},
    [COUNTS] = {"expertTokensCountOrCumsumOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32)},
    [BEFORE] = {"expertTokensBeforeCapacityOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32)},
};

typedef struct {
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

static aclnnStatus kernel(const aclStubOpCall *call) {
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
        aclStubCopyRows(s.expanded_x, 0, s.x, s.src_rows, rows);
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
    *(Plan *)c->plan = (Plan){counts, k, t, a, e, cap, mode, mode == 0 ? flag : 2};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeInitRoutingV2", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeInitRoutingV2, OP, (const aclTensor *, x), (const aclTensor *, expertIdx),
                  (int64_t, activeNumOptional), (int64_t, expertCapacityOptional), (int64_t, expertNumOptional),
                  (int64_t, dropPadModeOptional), (int64_t, expertTokensCountOrCumsumFlagOptional),
                  (bool, expertTokensBeforeCapacityFlagOptional), (const aclTensor *, expandedXOut),
                  (const aclTensor *, expandedRowIdxOut), (const aclTensor *, expertTokensCountOrCumsumOutOptional),
                  (const aclTensor *, expertTokensBeforeCapacityOutOptional))
