/* aclnnMoeInitRoutingV2 (spec: ops/moe_init_routing_v2.md). */
#include <stdlib.h>

#include "op_common.h"
#include "aclnnop/aclnn_moe_init_routing_v2.h"

static const char OP[] = "aclnnMoeInitRoutingV2";

typedef struct {
    const aclTensor *x, *expert_idx, *expanded_x, *row_idx;
    const aclTensor *counts; /* the count output this call writes (count/cumsum or before-capacity), or NULL */
    int64_t k, t, a;         /* topK, slots N*K, rows of expandedX in mode 0 */
    int64_t e, c, mode;      /* expertNum, expertCapacity, dropPadMode */
    int64_t count_flag;      /* 1 inclusive cumsum, 2 per-expert count (the before-capacity output counts too) */
} State;

typedef struct {
    const State *s;
    int64_t *keys;       /* expert id of each slot */
    int32_t *order;      /* sorted position -> slot */
    int64_t *sorted_e;   /* expert id at each sorted position */
    int64_t *src_rows;   /* source token of each expandedX row */
} Ctx;

/* First position p in [lo, hi) with v[p] >= key (v ascending). */
static int64_t lower_bound(const int64_t *v, int64_t lo, int64_t hi, int64_t key) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void load_keys(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    int64_t k = c->s->k;
    for (int64_t i = begin; i < end; i++) c->keys[i] = *(const int32_t *)op_elem2(c->s->expert_idx, i / k, i % k);
}

static void gather_sorted(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    for (int64_t j = begin; j < end; j++) c->sorted_e[j] = c->keys[c->order[j]];
}

static int32_t *row_idx_data(const State *s) { return (int32_t *)s->row_idx->data + s->row_idx->offset; }

/* Mode 0: expandedRowIdx is the inverse permutation; the first A sorted slots give the expandedX rows. */
static void scatter_dropless(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    int32_t *row_idx = row_idx_data(c->s);
    for (int64_t j = begin; j < end; j++) {
        row_idx[c->order[j]] = (int32_t)j;
        if (c->src_rows && j < c->s->a) c->src_rows[j] = c->order[j] / c->s->k;
    }
}

/*
 * Mode 1: the slot at sorted position j has rank j - (first position of its expert); it is kept when its
 * expert is in [0, E) and the rank is below the capacity. A chunk finds the start of its first group by
 * binary search, so chunks are independent.
 */
static void scatter_drop_pad(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const State *s = c->s;
    int32_t *row_idx = row_idx_data(s);
    int64_t start = lower_bound(c->sorted_e, 0, begin, c->sorted_e[begin]);
    for (int64_t j = begin; j < end; j++) {
        int64_t e = c->sorted_e[j];
        if (j > begin && e != c->sorted_e[j - 1]) start = j;
        int64_t rank = j - start;
        bool keep = e >= 0 && e < s->e && rank < s->c;
        row_idx[c->order[j]] = keep ? (int32_t)(e * s->c + rank) : -1;
    }
}

/* Mode 1: row (e, r) of expandedX holds the r-th slot of expert e in sorted order, or zeros. */
static void rows_drop_pad(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const State *s = c->s;
    int64_t cur = -1, first = 0, last = 0;
    for (int64_t d = begin; d < end; d++) {
        int64_t e = d / s->c, r = d % s->c;
        if (e != cur) {
            cur = e;
            first = lower_bound(c->sorted_e, 0, s->t, e);
            last = lower_bound(c->sorted_e, first, s->t, e + 1);
        }
        c->src_rows[d] = first + r < last ? c->order[first + r] / s->k : OP_ROW_ZERO;
    }
}

/* Counts over all T slots of ids in [0, E); the cumulative form counts ids in [0, e]. */
static void count_experts(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    const State *s = c->s;
    int32_t *out = (int32_t *)s->counts->data + s->counts->offset;
    int64_t zero = lower_bound(c->sorted_e, 0, s->t, 0);
    for (int64_t e = begin; e < end; e++) {
        int64_t hi = lower_bound(c->sorted_e, 0, s->t, e + 1);
        int64_t lo = s->count_flag == 1 ? zero : lower_bound(c->sorted_e, 0, hi, e);
        out[e] = (int32_t)(hi - lo);
    }
}

static aclnnStatus run(void *arg) {
    const State *s = arg;
    int64_t t = s->t, n1 = t > 0 ? t : 1;
    /* expandedX rows to produce: none when it is empty (H = 0), so no row list is needed then. */
    int64_t rows = stub_numel(s->expanded_x) == 0 ? 0 : s->mode == 0 ? s->a : s->e * s->c;
    Ctx c = {s, malloc((size_t)n1 * sizeof(int64_t)), malloc((size_t)n1 * sizeof(int32_t)),
             malloc((size_t)n1 * sizeof(int64_t)), rows > 0 ? malloc((size_t)rows * sizeof(int64_t)) : NULL};
    bool ok = c.keys && c.order && c.sorted_e && (rows == 0 || c.src_rows);
    if (ok) {
        op_parallel_for(t, 65536, load_keys, &c);
        /* Exact integer sort: the device's float32 keys would misorder ids >= 2^24. */
        ok = op_stable_argsort(c.keys, t, c.order);
    }
    if (ok) {
        op_parallel_for(t, 65536, gather_sorted, &c);
        if (s->mode == 0) {
            op_parallel_for(t, 65536, scatter_dropless, &c);
        } else {
            op_parallel_for(t, 65536, scatter_drop_pad, &c);
            op_parallel_for(rows, 65536, rows_drop_pad, &c);
        }
        op_copy_rows(s->expanded_x, 0, s->x, c.src_rows, rows);
        if (s->counts) op_parallel_for(s->e, 4096, count_experts, &c);
    }
    free(c.keys);
    free(c.order);
    free(c.sorted_e);
    free(c.src_rows);
    if (!ok) {
        aclStubSetErrMsg("%s: out of host memory for the sort buffers of %lld slots", OP, (long long)t);
        return ACLNN_ERR_INNER;
    }
    return OK;
}

/* Checks 4.14 / 4.15: a requested count output must exist and be (E,) INT32. */
static aclnnStatus check_count_out(const char *name, const aclTensor *t, int64_t e, const char *why) {
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    if (t == NULL) return op_fail(OP, TILING, "%s is NULL but %s", name, why);
    if (t->dtype != ACL_INT32)
        return op_fail(OP, TILING, "%s has data type %s; must be ACL_INT32", name, op_dtype_name(t->dtype));
    if (t->ndim != 1) return op_fail(OP, TILING, "%s must be 1-D, got %llu-D", name, (unsigned long long)t->ndim);
    if (t->dims[0] != e)
        return op_fail(OP, TILING, "%s.shape[0] = %lld must equal expertNum = %lld", name, (long long)t->dims[0],
                       (long long)e);
    return OK;
}

aclnnStatus aclnnMoeInitRoutingV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *expertIdx, int64_t activeNumOptional, int64_t expertCapacityOptional,
    int64_t expertNumOptional, int64_t dropPadModeOptional, int64_t expertTokensCountOrCumsumFlagOptional,
    bool expertTokensBeforeCapacityFlagOptional, const aclTensor *expandedXOut, const aclTensor *expandedRowIdxOut,
    const aclTensor *expertTokensCountOrCumsumOutOptional, const aclTensor *expertTokensBeforeCapacityOutOptional,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *ex = expandedXOut, *ri = expandedRowIdxOut;
    const aclTensor *cnt = expertTokensCountOrCumsumOutOptional, *bef = expertTokensBeforeCapacityOutOptional;
    const int64_t active = activeNumOptional, cap = expertCapacityOptional, e = expertNumOptional;
    const int64_t mode = dropPadModeOptional, flag = expertTokensCountOrCumsumFlagOptional;
    const bool before = expertTokensBeforeCapacityFlagOptional;
    OP_TRY(op_check_not_null(OP, "x", x));
    OP_TRY(op_check_not_null(OP, "expertIdx", expertIdx));
    OP_TRY(op_check_not_null(OP, "expandedXOut", ex));
    OP_TRY(op_check_not_null(OP, "expandedRowIdxOut", ri));
    OP_TRY(op_check_not_null(OP, "workspaceSize", workspaceSize));
    OP_TRY(op_check_not_null(OP, "executor", executor));
    OP_TRY(op_check_live(OP, "x", x));
    OP_TRY(op_check_live(OP, "expertIdx", expertIdx));
    OP_TRY(op_check_live(OP, "expandedXOut", ex));
    OP_TRY(op_check_live(OP, "expandedRowIdxOut", ri));
    OP_TRY(op_check_live(OP, "expertTokensCountOrCumsumOut", cnt));
    OP_TRY(op_check_live(OP, "expertTokensBeforeCapacityOut", bef));

    OP_TRY(op_check_dtype(OP, "x", x, DT_FLOATS));
    OP_TRY(op_check_dtype(OP, "expertIdx", expertIdx, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "expandedXOut", ex, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "expandedXOut", ex, "x", x));
    OP_TRY(op_check_dtype(OP, "expandedRowIdxOut", ri, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "expertTokensCountOrCumsumOut", cnt, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "expertTokensBeforeCapacityOut", bef, DT(ACL_INT32)));
    OP_TRY(op_check_contiguous_out(OP, "expandedXOut", ex));
    OP_TRY(op_check_contiguous_out(OP, "expandedRowIdxOut", ri));
    OP_TRY(op_check_contiguous_out(OP, "expertTokensCountOrCumsumOut", cnt));
    OP_TRY(op_check_contiguous_out(OP, "expertTokensBeforeCapacityOut", bef));

    if (stub_numel(ex) == 0 && stub_numel(ri) == 0 && (cnt == NULL || stub_numel(cnt) == 0) &&
        (bef == NULL || stub_numel(bef) == 0))
        return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    if (x->ndim != 2) return op_fail(OP, TILING, "x must be 2-D (N, H), got %llu-D", (unsigned long long)x->ndim);
    if (expertIdx->ndim < 1) return op_fail(OP, TILING, "expertIdx must be 2-D (N, K), got 0-D");
    if (x->dims[0] != expertIdx->dims[0])
        return op_fail(OP, TILING, "x.shape[0] = %lld must equal expertIdx.shape[0] = %lld", (long long)x->dims[0],
                       (long long)expertIdx->dims[0]);
    if (x->dims[0] < 0 || x->dims[1] < 0)
        return op_fail(OP, TILING, "x has a negative dimension (%lld, %lld)", (long long)x->dims[0],
                       (long long)x->dims[1]);
    if (cap < 0) return op_fail(OP, TILING, "expertCapacity = %lld must be >= 0", (long long)cap);
    if (e < 0) return op_fail(OP, TILING, "expertNum = %lld must be >= 0", (long long)e);
    if (mode != 0 && mode != 1) return op_fail(OP, TILING, "dropPadMode = %lld must be 0 or 1", (long long)mode);
    if (mode == 1 && (cap < 1 || e < 1))
        return op_fail(OP, TILING, "dropPadMode = 1 needs expertCapacity >= 1 and expertNum >= 1 (got %lld, %lld)",
                       (long long)cap, (long long)e);
    if (flag < 0 || flag > 2)
        return op_fail(OP, TILING, "expertTokensCountOrCumsumFlag = %lld must be 0, 1 or 2", (long long)flag);
    if (flag > 0 && e <= 0)
        return op_fail(OP, TILING, "expertTokensCountOrCumsumFlag = %lld needs expertNum > 0 (got %lld)",
                       (long long)flag, (long long)e);
    int64_t n = x->dims[0], h = x->dims[1];
    if (mode == 1 && cap > n)
        return op_fail(OP, TILING, "expertCapacity = %lld must be <= the number of tokens %lld", (long long)cap,
                       (long long)n);
    /* expandedRowIdx holds e * C + r as INT32. */
    if (mode == 1 && e > INT32_MAX / cap)
        return op_fail(OP, TILING, "expertNum * expertCapacity = %lld * %lld exceeds the INT32 row index range",
                       (long long)e, (long long)cap);
    if (active < 0) return op_fail(OP, TILING, "activeNum = %lld must be >= 0", (long long)active);
    if (expertIdx->ndim != 2)
        return op_fail(OP, TILING, "expertIdx must be 2-D (N, K), got %llu-D", (unsigned long long)expertIdx->ndim);
    int64_t k = expertIdx->dims[1], t;
    if (k < 0) return op_fail(OP, TILING, "expertIdx.shape[1] = %lld must be >= 0", (long long)k);
    /* Positions are INT32 in expandedRowIdx. */
    if (__builtin_mul_overflow(n, k, &t) || t > INT32_MAX)
        return op_fail(OP, TILING, "expertIdx has %lld x %lld elements; at most %d are supported", (long long)n,
                       (long long)k, INT32_MAX);
    int64_t a = active == 0 || active > t ? t : active;
    if (mode == 1) {
        const int64_t want[3] = {e, cap, h};
        if (ex->ndim != 3)
            return op_fail(OP, TILING, "expandedXOut must be 3-D (E, C, H) when dropPadMode = 1, got %llu-D",
                           (unsigned long long)ex->ndim);
        for (int d = 0; d < 3; d++)
            if (ex->dims[d] != want[d])
                return op_fail(OP, TILING, "expandedXOut.shape[%d] = %lld must be %lld (shape (E, C, H) = (%lld, "
                               "%lld, %lld))", d, (long long)ex->dims[d], (long long)want[d], (long long)e,
                               (long long)cap, (long long)h);
    } else {
        if (ex->ndim != 2)
            return op_fail(OP, TILING, "expandedXOut must be 2-D (A, H) when dropPadMode = 0, got %llu-D",
                           (unsigned long long)ex->ndim);
        if (ex->dims[0] != a)
            return op_fail(OP, TILING, "expandedXOut.shape[0] = %lld must be %lld (activeNum = %lld, %lld slots)",
                           (long long)ex->dims[0], (long long)a, (long long)active, (long long)t);
        if (ex->dims[1] != h)
            return op_fail(OP, TILING, "expandedXOut.shape[1] = %lld must equal x.shape[1] = %lld",
                           (long long)ex->dims[1], (long long)h);
    }
    if (ri->ndim != 1)
        return op_fail(OP, TILING, "expandedRowIdxOut must be 1-D, got %llu-D", (unsigned long long)ri->ndim);
    if (ri->dims[0] != t)
        return op_fail(OP, TILING, "expandedRowIdxOut.shape[0] = %lld must equal N * K = %lld",
                       (long long)ri->dims[0], (long long)t);
    const aclTensor *counts = NULL;
    if (mode == 0 && flag != 0) {
        OP_TRY(check_count_out("expertTokensCountOrCumsumOut", cnt, e, "expertTokensCountOrCumsumFlag is not 0"));
        counts = cnt;
    }
    if (mode == 1 && before) {
        OP_TRY(check_count_out("expertTokensBeforeCapacityOut", bef, e, "expertTokensBeforeCapacityFlag is true"));
        counts = bef;
    }

    State s = {x, expertIdx, ex, ri, counts, k, t, a, e, cap, mode, mode == 0 ? flag : 2};
    aclStubTensorRef refs[] = {{"x", x},
                               {"expertIdx", expertIdx},
                               {"expandedXOut", ex},
                               {"expandedRowIdxOut", ri},
                               {mode == 0 ? "expertTokensCountOrCumsumOut" : "expertTokensBeforeCapacityOut", counts}};
    return op_finish(OP, run, &s, sizeof s, refs, 5, workspaceSize, executor);
}

aclnnStatus aclnnMoeInitRoutingV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream) {
    return aclStubExecutorRun(OP, workspace, workspaceSize, executor, stream);
}
