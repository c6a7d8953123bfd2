/*
 * aclnnMoeInitRoutingV3 (spec: ops/moe_init_routing_v3.md): the expert sort of V2 restricted to an active expert
 * range [s, e), dropless / active-capped / drop-and-pad layouts, gather or scatter row indices, count / cumsum /
 * key-value statistics and INT8 quantisation (static, or dynamic with a per-row scale).
 * The newer vendor revision defines the contract (drop/pad, activeNum caps, static quantisation, cumsum);
 * shape and attribute errors are reported in phase 1 as the documentation states. Stricter than a device:
 * an expandedXOut whose dtype the quantisation mode would overrun is refused (161002), as are non-contiguous
 * outputs (161002; the device copies results into strided views). Quantisation rounds half to even on every
 * path (one wide-row device path rounds ties away from zero); NaN becomes 0. Ids outside the active range are
 * never counted or copied and get gather index -1; the scatter index is the whole permutation.
 */
#include <stdlib.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_init_routing_v3.h"
#include "init_routing_common.h"

enum { X, EXPERT_IDX, SCALE, OFFSET, ACTIVE_NUM, CAPACITY, EXPERT_NUM, DROP_PAD_MODE, TOKENS_NUM_TYPE, TOKENS_NUM_FLAG,
       QUANT_MODE, RANGE, ROW_IDX_TYPE, EXPANDED_X, ROW_IDX, COUNTS, EXPANDED_SCALE };

#define DT_X (ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT8))

static const aclStubParam PARAMS[] = {
    [X] = {"x", ACLSTUB_INPUT, DT_X},
    [EXPERT_IDX] = {"expertIdx", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [SCALE] = {"scaleOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT)},
    [OFFSET] = {"offsetOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT)},
    [ACTIVE_NUM] = {"activeNum", ACLSTUB_INT},
    [CAPACITY] = {"expertCapacity", ACLSTUB_INT},
    [EXPERT_NUM] = {"expertNum", ACLSTUB_INT},
    [DROP_PAD_MODE] = {"dropPadMode", ACLSTUB_INT},
    [TOKENS_NUM_TYPE] = {"expertTokensNumType", ACLSTUB_INT},
    [TOKENS_NUM_FLAG] = {"expertTokensNumFlag", ACLSTUB_BOOL},
    [QUANT_MODE] = {"quantMode", ACLSTUB_INT},
    [RANGE] = {"activeExpertRangeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [ROW_IDX_TYPE] = {"rowIdxType", ACLSTUB_INT},
    [EXPANDED_X] = {"expandedXOut", ACLSTUB_OUTPUT, DT_X},
    [ROW_IDX] = {"expandedRowIdxOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32)},
    [COUNTS] = {"expertTokensCountOrCumsumOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT64)},
    [EXPANDED_SCALE] = {"expandedScaleOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_FLOAT)},
};

enum { COUNT_CUMSUM = 0, COUNT_EACH = 1, COUNT_KEY_VALUE = 2 };
enum { QUANT_NONE = -1, QUANT_STATIC = 0, QUANT_DYNAMIC = 1 };

typedef struct {
    int64_t k, t, h;          /* topK, slots N*K, hidden size */
    int64_t e, s, end;        /* expertNum, active range [s, end) */
    int64_t a, c, mode;       /* dropless rows A, capacity, dropPadMode */
    int64_t type, quant;      /* expertTokensNumType, quantMode */
    bool counts, gather;      /* write the statistics; rowIdxType 0 */
    bool write_scale;         /* expandedScaleOut is written (quantMode -1 with a scale, or quantMode 1) */
    bool smooth_per_expert;   /* quantMode 1 smoothing scale has e - s rows (else one shared row) */
} Plan;

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *x, *scale, *expanded_x, *row_idx;
    float *expanded_scale;     /* NULL when not written */
    float static_scale, static_offset;
    IrSorted sorted;
    int64_t avail;             /* active slots: the sorted prefix */
    int64_t *src_rows;         /* token of each expandedX row, or ACLSTUB_ROW_ZERO (padding) */
    int oom;                   /* a quantisation chunk ran out of scratch memory */
} State;

static int32_t *row_idx_data(const State *st) { return (int32_t *)st->row_idx->data + st->row_idx->offset; }

/* Dropless index map: gather form row_idx[slot] = sorted position (-1 for inactive slots), scatter form its inverse
 * (the whole permutation, as the vendor's golden writes it). The first R positions name expandedX's sources. */
static void dropless_rows(void *arg, int64_t begin, int64_t end) {
    State *st = arg;
    const Plan *p = st->p;
    int32_t *ri = row_idx_data(st);
    const int32_t *order = st->sorted.order;
    for (int64_t j = begin; j < end; j++) {
        if (p->gather)
            ri[order[j]] = j < st->avail ? (int32_t)j : -1;
        else
            ri[j] = order[j];
    }
}

static void dropless_sources(void *arg, int64_t begin, int64_t end) {
    State *st = arg;
    for (int64_t j = begin; j < end; j++) st->src_rows[j] = st->sorted.order[j] / st->p->k;
}

/* quantMode -1 with a scale: expandedScale[d] = scale[token of row d], 0.0 for padding rows. */
static void copy_token_scales(void *arg, int64_t begin, int64_t end) {
    State *st = arg;
    for (int64_t d = begin; d < end; d++) {
        int64_t tok = st->src_rows[d];
        st->expanded_scale[d] = tok == ACLSTUB_ROW_ZERO ? 0.0f : *(const float *)aclStubElem1(st->scale, tok);
    }
}

/* Row of the (1, H) or (e - s, H) smoothing scale that expandedX row d uses. */
static int64_t smooth_row(const State *st, int64_t d) {
    const Plan *p = st->p;
    if (!p->smooth_per_expert) return 0;
    return p->mode == 1 ? d / p->c : st->sorted.sorted[d] - p->s;
}

/* Row r of a 2-D FLOAT/FLOAT16/BF16/INT8 view widened to float32 in buf (or the row itself when it is already a
 * contiguous float32 row and buf may be bypassed). */
static const float *load_row(const aclStubTensorDesc *v, int64_t r, int64_t h, float *buf, bool may_alias) {
    const void *row = aclStubElem2(v, r, 0);
    if (v->strides[1] == 1 || h <= 1) {
        if (v->dtype == ACL_FLOAT && may_alias) return row;
        if (v->dtype != ACL_INT8) {
            aclStubRowLoadF32(buf, row, v->dtype, h);
            return buf;
        }
    }
    for (int64_t j = 0; j < h; j++) {
        const void *el = aclStubElem2(v, r, j);
        buf[j] = v->dtype == ACL_INT8 ? (float)*(const int8_t *)el
                 : v->dtype == ACL_FLOAT ? *(const float *)el
                 : v->dtype == ACL_BF16 ? aclStubBf16ToF32(*(const uint16_t *)el)
                 : aclStubF16ToF32(*(const uint16_t *)el);
    }
    return buf;
}

static void quantize_rows(void *arg, int64_t begin, int64_t end) {
    State *st = arg;
    const Plan *p = st->p;
    int64_t h = p->h;
    /* xs is overwritten by the dynamic kernel; the smoothing row is only copied when it is strided. */
    float *xs = malloc((size_t)(h > 0 ? h : 1) * 2 * sizeof(float)), *sm_buf = xs + (h > 0 ? h : 1);
    if (!xs) {
        __atomic_store_n(&st->oom, 1, __ATOMIC_RELAXED);
        return;
    }
    /* With H = 0 the views may have no data at all: no row pointer is formed then. */
    int8_t *out = h ? (int8_t *)st->expanded_x->data + st->expanded_x->offset : NULL;
    for (int64_t d = begin; d < end; d++) {
        int64_t tok = st->src_rows[d];
        int8_t *dst = h ? out + d * h : NULL;
        if (tok == ACLSTUB_ROW_ZERO) {
            if (h) memset(dst, 0, (size_t)h);
            if (st->expanded_scale) st->expanded_scale[d] = 0.0f;
            continue;
        }
        if (h == 0) {
            if (st->expanded_scale) st->expanded_scale[d] = 0.0f; /* max of nothing is 0, and 0 / 127 = 0 */
            continue;
        }
        const float *xf = load_row(st->x, tok, h, xs, p->quant == QUANT_STATIC);
        if (p->quant == QUANT_STATIC) {
            aclStubRowQuantInt8Static(dst, xf, st->static_scale, st->static_offset, h);
        } else {
            const float *sm = st->scale ? load_row(st->scale, smooth_row(st, d), h, sm_buf, true) : NULL;
            float ds = aclStubRowQuantInt8Dynamic(dst, xs, sm, h);
            if (st->expanded_scale) st->expanded_scale[d] = ds;
        }
    }
    free(xs);
}

/* Statistics over the active slots (a sorted prefix grouped by id), independent of activeNum and capacity. */
static void write_counts(const State *st, const aclStubTensorDesc *out_t) {
    const Plan *p = st->p;
    const int64_t *sorted = st->sorted.sorted;
    int64_t *out = (int64_t *)out_t->data + out_t->offset;
    int64_t m = 0;
    for (int64_t u = 0; u < p->end - p->s; u++) {
        int64_t lo = ir_lower_bound(sorted, 0, st->avail, p->s + u), hi = ir_lower_bound(sorted, lo, st->avail, p->s + u + 1);
        if (p->type == COUNT_EACH)
            out[u] = hi - lo;
        else if (p->type == COUNT_CUMSUM)
            out[u] = hi;
        else if (hi > lo) {
            out[2 * m] = p->s + u;
            out[2 * m + 1] = hi - lo;
            m++;
        }
    }
    if (p->type == COUNT_KEY_VALUE) memset(out + 2 * m, 0, (size_t)(p->e - m) * 2 * sizeof(int64_t));
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    const aclStubTensorDesc *counts = aclStubOpTensor(call, COUNTS), *es = aclStubOpTensor(call, EXPANDED_SCALE);
    const aclStubTensorDesc *offset = aclStubOpTensor(call, OFFSET);
    State st = {p, aclStubOpTensor(call, X), aclStubOpTensor(call, SCALE), aclStubOpTensor(call, EXPANDED_X),
                aclStubOpTensor(call, ROW_IDX), NULL, 0.0f, 0.0f, {0}, 0, NULL, 0};
    if (p->t == 0) { /* no slot: only the statistics (all zero) */
        if (p->counts) {
            int64_t n = p->type == COUNT_KEY_VALUE ? 2 * p->e : p->end - p->s;
            memset((int64_t *)counts->data + counts->offset, 0, (size_t)n * sizeof(int64_t));
        }
        return OK;
    }
    if (p->write_scale) st.expanded_scale = (float *)es->data + es->offset;
    if (p->quant == QUANT_STATIC) {
        st.static_scale = *(const float *)aclStubElem1(st.scale, 0);
        st.static_offset = *(const float *)aclStubElem1(offset, 0);
    }
    /* rows of expandedX: R = min(avail, A) written in dropless mode, all E*C in drop/pad mode */
    if (!ir_sort_slots(aclStubOpTensor(call, EXPERT_IDX), p->k, p->t, p->s, &st.sorted))
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for the sort of %lld slots", (long long)p->t);
    st.avail = ir_lower_bound(st.sorted.sorted, 0, p->t, p->end);
    int64_t rows = p->mode == 1 ? p->e * p->c : st.avail < p->a ? st.avail : p->a;
    st.src_rows = malloc((size_t)(rows > 0 ? rows : 1) * sizeof(int64_t));
    if (st.src_rows) {
        if (p->counts) write_counts(&st, counts);
        if (p->mode == 0) {
            aclStubParallelFor(p->t, 65536, dropless_rows, &st);
            aclStubParallelFor(rows, 65536, dropless_sources, &st);
        } else {
            ir_drop_pad_row_idx(&st.sorted, row_idx_data(&st), p->e, p->c);
            ir_drop_pad_sources(&st.sorted, st.src_rows, p->e, p->c);
        }
        if (p->quant == QUANT_NONE) {
            aclStubCopyRows(st.expanded_x, 0, st.x, st.src_rows, rows);
            if (st.expanded_scale) aclStubParallelFor(rows, 65536, copy_token_scales, &st);
        } else {
            aclStubParallelFor(rows, 1 + 65536 / (p->h + 1), quantize_rows, &st);
        }
    }
    bool ok = st.src_rows && !st.oom;
    ir_sorted_free(&st.sorted);
    free(st.src_rows);
    if (!ok) return aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for %lld expanded rows", (long long)rows);
    return OK;
}

/* ---- phase 1: the spec's section 4, rows 8 to 35, in order ------------------------------------------------- */

#define TILING ACLNN_ERR_INNER_TILING_ERROR

/* Output `i` must be 1-D with `n` elements. */
static aclnnStatus check_1d(const aclStubOpCall *c, int i, int64_t n, const char *what) {
    const aclStubTensorDesc *t = aclStubOpTensor(c, i);
    ACLSTUB_RETURN_ERROR_IF(t->ndim != 1, c, TILING, "%s must be 1-D (%s), got %u-D", aclStubOpName(c, i), what, t->ndim);
    ACLSTUB_RETURN_ERROR_IF(t->dims[0] != n, c, TILING, "%s.shape[0] = %lld must be %lld (%s)", aclStubOpName(c, i),
                            (long long)t->dims[0], (long long)n, what);
    return OK;
}

/* Output `i` must have shape want[0..nd). */
static aclnnStatus check_shape(const aclStubOpCall *c, int i, const int64_t *want, uint32_t nd, const char *what) {
    const aclStubTensorDesc *t = aclStubOpTensor(c, i);
    ACLSTUB_RETURN_ERROR_IF(t->ndim != nd, c, TILING, "%s must be %u-D %s, got %u-D", aclStubOpName(c, i), nd, what,
                            t->ndim);
    for (uint32_t d = 0; d < nd; d++)
        ACLSTUB_RETURN_ERROR_IF(t->dims[d] != want[d], c, TILING, "%s.shape[%u] = %lld must be %lld (shape %s)",
                                aclStubOpName(c, i), d, (long long)t->dims[d], (long long)want[d], what);
    return OK;
}

/* Rows 8 to 10: the (x, expandedXOut) dtype pairs of the OpDef, and what quantMode implies for them. */
static aclnnStatus check_dtype_pair(const aclStubOpCall *c, int64_t quant) {
    aclDataType xt = aclStubOpTensor(c, X)->dtype, ot = aclStubOpTensor(c, EXPANDED_X)->dtype;
    ACLSTUB_RETURN_ERROR_IF(xt != ot && (xt == ACL_INT8 || ot != ACL_INT8), c, ACLNN_ERR_PARAM_INVALID,
                            "expandedXOut has data type %s, which no kernel pairs with x of %s (x's own type, or ACL_INT8 "
                            "for a floating-point x)", aclStubDtypeName(ot), aclStubDtypeName(xt));
    ACLSTUB_RETURN_ERROR_IF(quant == QUANT_NONE && ot != xt, c, ACLNN_ERR_PARAM_INVALID,
                            "expandedXOut has data type %s but quantMode = -1 copies rows of x's type %s",
                            aclStubDtypeName(ot), aclStubDtypeName(xt));
    ACLSTUB_RETURN_ERROR_IF((quant == QUANT_STATIC || quant == QUANT_DYNAMIC) && xt != ACL_INT8 && ot != ACL_INT8, c,
                            ACLNN_ERR_PARAM_INVALID, "expandedXOut has data type %s but quantMode = %lld writes "
                            "ACL_INT8 rows", aclStubDtypeName(ot), (long long)quant);
    return OK;
}

/* Rows 12 to 24: the attributes. */
static aclnnStatus check_attrs(const aclStubOpCall *c, Plan *p, int64_t active, int64_t rit) {
    const aclStubValue *range = &c->v[RANGE];
    int64_t n0 = aclStubOpTensor(c, X)->ndim ? aclStubOpTensor(c, X)->dims[0] : 0;
    ACLSTUB_RETURN_ERROR_IF(p->mode != 0 && p->mode != 1, c, TILING, "dropPadMode = %lld must be 0 (dropless) or 1 "
                            "(drop/pad)", (long long)p->mode);
    ACLSTUB_RETURN_ERROR_IF(p->mode == 0 && active < -1, c, TILING, "activeNum = %lld must be >= -1", (long long)active);
    ACLSTUB_RETURN_ERROR_IF(p->e <= 0, c, TILING, "expertNum = %lld must be > 0", (long long)p->e);
    uint64_t len = range->present ? range->size : 0;
    ACLSTUB_RETURN_ERROR_IF(len != 0 && len != 2, c, TILING, "activeExpertRangeOptional has %llu values; it must be "
                            "empty or [start, end]", (unsigned long long)len);
    p->s = len ? range->ints[0] : 0;
    p->end = len ? range->ints[1] : p->e;
    ACLSTUB_RETURN_ERROR_IF(p->mode == 1 && (p->c <= 0 || p->c > n0), c, TILING, "expertCapacity = %lld must be in "
                            "[1, %lld] (the number of tokens) when dropPadMode = 1", (long long)p->c, (long long)n0);
    ACLSTUB_RETURN_ERROR_IF(p->mode == 1 && rit == 1, c, TILING, "rowIdxType = 1 (scatter) is not supported when "
                            "dropPadMode = 1");
    ACLSTUB_RETURN_ERROR_IF(p->mode == 1 && (p->s != 0 || p->end != p->e), c, TILING, "activeExpertRangeOptional = "
                            "[%lld, %lld] must be [0, expertNum = %lld] when dropPadMode = 1", (long long)p->s,
                            (long long)p->end, (long long)p->e);
    ACLSTUB_RETURN_ERROR_IF(p->type < 0 || p->type > 2, c, TILING, "expertTokensNumType = %lld must be 0 (cumsum), 1 "
                            "(count) or 2 (key-value)", (long long)p->type);
    ACLSTUB_RETURN_ERROR_IF(p->mode == 1 && p->counts && p->type != COUNT_EACH, c, TILING, "expertTokensNumType = "
                            "%lld must be 1 (count) when dropPadMode = 1", (long long)p->type);
    ACLSTUB_RETURN_ERROR_IF(p->s < 0, c, TILING, "activeExpertRangeOptional start = %lld must be >= 0", (long long)p->s);
    ACLSTUB_RETURN_ERROR_IF(p->s >= p->end, c, TILING, "activeExpertRangeOptional = [%lld, %lld] must have start < end",
                            (long long)p->s, (long long)p->end);
    ACLSTUB_RETURN_ERROR_IF(p->end > p->e, c, TILING, "activeExpertRangeOptional end = %lld must be <= expertNum = "
                            "%lld", (long long)p->end, (long long)p->e);
    ACLSTUB_RETURN_ERROR_IF(p->type == COUNT_KEY_VALUE && p->end > 5120, c, TILING, "activeExpertRangeOptional end = "
                            "%lld must be <= 5120 when expertTokensNumType = 2", (long long)p->end);
    ACLSTUB_RETURN_ERROR_IF(p->type != COUNT_KEY_VALUE && p->end > 10240, c, TILING, "activeExpertRangeOptional end = "
                            "%lld must be <= 10240", (long long)p->end);
    ACLSTUB_RETURN_ERROR_IF(p->quant < -1 || p->quant > 1, c, TILING, "quantMode = %lld must be -1 (none), 0 (static "
                            "INT8) or 1 (dynamic INT8)", (long long)p->quant);
    ACLSTUB_RETURN_ERROR_IF(rit != 0 && rit != 1, c, TILING, "rowIdxType = %lld must be 0 (gather) or 1 (scatter)",
                            (long long)rit);
    return OK;
}

/* Rows 26 to 28: scale and offset for the quantisation mode. */
static aclnnStatus check_scales(const aclStubOpCall *c, const Plan *p, int64_t n) {
    const aclStubTensorDesc *scale = aclStubOpTensor(c, SCALE), *offset = aclStubOpTensor(c, OFFSET);
    if (p->quant == QUANT_NONE && scale) {
        ACLSTUB_RETURN_ERROR_IF(scale->ndim != 1 || scale->dims[0] != n, c, TILING, "scaleOptional must have shape "
                                "(%lld,) (one scale per token) when quantMode = -1", (long long)n);
    } else if (p->quant == QUANT_STATIC) {
        ACLSTUB_RETURN_ERROR_IF(!scale, c, TILING, "scaleOptional is required when quantMode = 0");
        ACLSTUB_RETURN_ERROR_IF(!offset, c, TILING, "offsetOptional is required when quantMode = 0");
        ACLSTUB_RETURN_ERROR_IF(scale->ndim != 1, c, TILING, "scaleOptional must be 1-D when quantMode = 0, got %u-D",
                                scale->ndim);
        ACLSTUB_RETURN_ERROR_IF(scale->dims[0] != 1, c, TILING, "scaleOptional.shape[0] = %lld must be 1 when "
                                "quantMode = 0", (long long)scale->dims[0]);
        ACLSTUB_RETURN_ERROR_IF(offset->ndim != 1, c, TILING, "offsetOptional must be 1-D when quantMode = 0, got %u-D",
                                offset->ndim);
        ACLSTUB_RETURN_ERROR_IF(offset->dims[0] != 1, c, TILING, "offsetOptional.shape[0] = %lld must be 1 when "
                                "quantMode = 0", (long long)offset->dims[0]);
    } else if (p->quant == QUANT_DYNAMIC && scale) {
        ACLSTUB_RETURN_ERROR_IF(scale->ndim != 2, c, TILING, "scaleOptional must be 2-D (1 or end - start, H) when "
                                "quantMode = 1, got %u-D", scale->ndim);
        ACLSTUB_RETURN_ERROR_IF(scale->dims[0] != p->end - p->s && scale->dims[0] != 1, c, TILING, "scaleOptional.shape"
                                "[0] = %lld must be 1 or the active expert count %lld when quantMode = 1",
                                (long long)scale->dims[0], (long long)(p->end - p->s));
        ACLSTUB_RETURN_ERROR_IF(scale->dims[1] != p->h, c, TILING, "scaleOptional.shape[1] = %lld must equal x.shape[1]"
                                " = %lld", (long long)scale->dims[1], (long long)p->h);
    }
    return OK;
}

/* Rows 29 to 34: the output shapes. */
static aclnnStatus check_outputs(const aclStubOpCall *c, const Plan *p) {
    bool scale = aclStubOpTensor(c, SCALE) != NULL;
    if (p->mode == 1)
        ACLSTUB_TRY(check_shape(c, EXPANDED_X, (const int64_t[]){p->e, p->c, p->h}, 3, "(expertNum, expertCapacity, H)"));
    else
        ACLSTUB_TRY(check_shape(c, EXPANDED_X, (const int64_t[]){p->a, p->h}, 2, "(A, H), A = min(activeNum, N*K)"));
    ACLSTUB_TRY(check_1d(c, ROW_IDX, p->t, "N*K"));
    if (p->counts && p->type == COUNT_KEY_VALUE)
        ACLSTUB_TRY(check_shape(c, COUNTS, (const int64_t[]){p->e, 2}, 2, "(expertNum, 2)"));
    else if (p->counts)
        ACLSTUB_TRY(check_1d(c, COUNTS, p->end - p->s, "the active expert count"));
    int64_t rows = p->mode == 1 ? p->e * p->c : p->a;
    if (p->quant != QUANT_STATIC && scale) ACLSTUB_TRY(check_1d(c, EXPANDED_SCALE, rows, "one scale per expandedX row"));
    ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(c, X)->dtype == ACL_INT8 && p->quant != QUANT_NONE, c, TILING,
                            "x of ACL_INT8 needs quantMode = -1, got %lld", (long long)p->quant);
    if (p->quant == QUANT_DYNAMIC && !scale)
        ACLSTUB_TRY(check_1d(c, EXPANDED_SCALE, rows, "one scale per expandedX row"));
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *x = aclStubOpTensor(c, X), *idx = aclStubOpTensor(c, EXPERT_IDX);
    Plan *p = c->plan;
    const int64_t active = aclStubOpInt(c, ACTIVE_NUM), rit = aclStubOpInt(c, ROW_IDX_TYPE);
    p->c = aclStubOpInt(c, CAPACITY);
    p->e = aclStubOpInt(c, EXPERT_NUM);
    p->mode = aclStubOpInt(c, DROP_PAD_MODE);
    p->type = aclStubOpInt(c, TOKENS_NUM_TYPE);
    p->counts = aclStubOpBool(c, TOKENS_NUM_FLAG);
    p->quant = aclStubOpInt(c, QUANT_MODE);
    p->gather = rit == 0;
    ACLSTUB_TRY(check_dtype_pair(c, p->quant));
    ACLSTUB_TRY(check_attrs(c, p, active, rit));

    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, c, TILING, "x must be 2-D (N, H), got %u-D", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 2, c, TILING, "expertIdx must be 2-D (N, K), got %u-D", idx->ndim);
    ACLSTUB_RETURN_ERROR_IF(x->dims[0] != idx->dims[0], c, TILING, "x.shape[0] = %lld must equal expertIdx.shape[0] = "
                            "%lld", (long long)x->dims[0], (long long)idx->dims[0]);
    ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, X, TILING));
    ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, EXPERT_IDX, TILING));
    int64_t n = x->dims[0];
    p->h = x->dims[1];
    p->k = idx->dims[1];
    /* Slots and drop/pad rows are INT32 positions in expandedRowIdx. */
    ACLSTUB_RETURN_ERROR_IF(__builtin_mul_overflow(n, p->k, &p->t) || p->t > INT32_MAX, c, TILING, "expertIdx has "
                            "%lld x %lld elements; at most %d are supported", (long long)n, (long long)p->k, INT32_MAX);
    ACLSTUB_RETURN_ERROR_IF(p->mode == 1 && p->e > INT32_MAX / p->c, c, TILING, "expertNum * expertCapacity = %lld * "
                            "%lld exceeds the INT32 row index range", (long long)p->e, (long long)p->c);
    p->a = active == 0 || active == -1 || active > p->t ? p->t : active;
    ACLSTUB_TRY(check_scales(c, p, n));
    ACLSTUB_TRY(check_outputs(c, p));

    p->write_scale = p->quant == QUANT_DYNAMIC || (p->quant == QUANT_NONE && aclStubOpTensor(c, SCALE) != NULL);
    p->smooth_per_expert = p->quant == QUANT_DYNAMIC && aclStubOpTensor(c, SCALE) != NULL &&
                           aclStubOpTensor(c, SCALE)->dims[0] != 1;
    /* What this call does not read or write is not recorded (the statistics keep any shape when unrequested). */
    if (p->quant != QUANT_STATIC) aclStubOpIgnore(c, OFFSET);
    if (!p->counts) aclStubOpIgnore(c, COUNTS);
    if (!p->write_scale) aclStubOpIgnore(c, EXPANDED_SCALE);
    if (p->t == 0) { /* row 35: nothing but the (zero) statistics */
        aclStubOpIgnore(c, EXPANDED_X);
        aclStubOpIgnore(c, ROW_IDX);
        aclStubOpIgnore(c, EXPANDED_SCALE);
        aclStubOpIgnore(c, SCALE);
        aclStubOpIgnore(c, OFFSET);
    }
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeInitRoutingV3", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeInitRoutingV3, OP, (const aclTensor *, x), (const aclTensor *, expertIdx),
                  (const aclTensor *, scaleOptional), (const aclTensor *, offsetOptional), (int64_t, activeNum),
                  (int64_t, expertCapacity), (int64_t, expertNum), (int64_t, dropPadMode),
                  (int64_t, expertTokensNumType), (bool, expertTokensNumFlag), (int64_t, quantMode),
                  (const aclIntArray *, activeExpertRangeOptional), (int64_t, rowIdxType),
                  (const aclTensor *, expandedXOut), (const aclTensor *, expandedRowIdxOut),
                  (const aclTensor *, expertTokensCountOrCumsumOut), (const aclTensor *, expandedScaleOut))
