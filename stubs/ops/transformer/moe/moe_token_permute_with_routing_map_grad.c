/* aclnnMoeTokenPermuteWithRoutingMapGrad (spec: ops/moe_token_permute_with_routing_map_grad.md). */
#include <stdlib.h>

#include "routing_map_common.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map_grad.h"

enum { GRAD, PG, IDX, MAP, NUM_EXPERTS, TOKENS_NUM, DROP_AND_PAD, OUT, PROBS_OUT };

static const aclStubParam PARAMS[] = {
    [GRAD] = {"permutedTokenOutputGrad", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [PG] = {"permutedProbsOutputGradOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "permutedTokenOutputGrad"},
    [IDX] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [MAP] = {"routingMapOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_BOOL)},
    [NUM_EXPERTS] = {"numExperts", ACLSTUB_INT},
    [TOKENS_NUM] = {"tokensNum", ACLSTUB_INT},
    [DROP_AND_PAD] = {"dropAndPad", ACLSTUB_BOOL},
    /* Not checked by the real op_api, where a mismatch makes the device read or write out of bounds: the
     * stub checks them after the shapes (ACLSTUB_CHECK_LATER). */
    [OUT] = {"tokensGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "permutedTokenOutputGrad", ACLSTUB_CHECK_LATER},
    [PROBS_OUT] = {"probsGradOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT_FLOATS,
                   "permutedProbsOutputGradOptional", ACLSTUB_CHECK_LATER},
};

typedef struct {
    int64_t t_n, e_n;
    bool pad;
} Plan;

typedef struct {
    const aclStubTensorDesc *grad, *pg, *idx, *map; /* pg, map: NULL unless the probs gradient is computed */
    const aclStubTensorDesc *out, *probs_out;       /* probs_out: NULL unless the probs gradient is computed */
    int64_t t_n, e_n;
    bool pad;
} State;

/* ---- pad mode tokens: out[idx[i]] += grad[i], float32 sums in ascending i, one rounding ---- */

/* false when out of memory */
static bool pad_tokens(const State *s) {
    int64_t p = s->grad->dims[0], t_n = s->t_n;
    int64_t *start = calloc((size_t)t_n + 2, sizeof *start);
    int64_t *rows = malloc((size_t)p * sizeof *rows);
    if (!start || !rows) {
        free(start);
        free(rows);
        return false;
    }
    /* Stable counting sort of the rows by target token; targets outside [0, T) are dropped. */
    for (int64_t i = 0; i < p; i++) {
        int64_t t = aclStubIndex1(s->idx, i);
        if (t >= 0 && t < t_n) start[t + 2]++;
    }
    for (int64_t t = 0; t < t_n; t++) start[t + 2] += start[t + 1];
    for (int64_t i = 0; i < p; i++) {
        int64_t t = aclStubIndex1(s->idx, i);
        if (t >= 0 && t < t_n) rows[start[t + 1]++] = i;
    }
    /* start[t + 1] now ends token t's rows, start[t] begins them. */
    RmIndexAdd a = {s->grad, s->out, start, rows, NULL, t_n};
    bool ok = rm_index_add(&a);
    free(start);
    free(rows);
    return ok;
}

/* ---- probs ---- */

typedef struct {
    const State *s;
    const int64_t *offsets; /* non-pad: rm_expert_offsets of the map */
    int64_t *cursor;        /* non-pad: per-expert next rank, E entries */
    int64_t limit;          /* non-pad: set entries of rank >= limit receive 0 */
    int64_t cap;            /* pad: grad rows per expert */
    size_t esize;
} ProbsCtx;

/*
 * Non-pad: masked_scatter of pg into the zero (E, T) transposed output, i.e. the j-th set entry in
 * expert-major order receives pg[j]. Each thread owns a range of experts (output columns) and walks the
 * rows, writing every element of its columns once.
 */
static void scatter_range(void *arg, int64_t e0, int64_t e1) {
    const ProbsCtx *c = arg;
    const State *s = c->s;
    int64_t s1 = s->map->strides[1];
    size_t es = c->esize;
    for (int64_t e = e0; e < e1; e++) c->cursor[e] = c->offsets[e];
    for (int64_t t = 0; t < s->t_n; t++) {
        const uint8_t *row = rm_row(s->map, t);
        char *dst = aclStubElem2(s->probs_out, t, 0);
        memset(dst + e0 * es, 0, (size_t)(e1 - e0) * es);
        for (int64_t e = rm_next_set(row, s1, e0, e1); e < e1; e = rm_next_set(row, s1, e + 1, e1)) {
            int64_t j = c->cursor[e]++;
            if (j < c->limit) memcpy(dst + e * es, aclStubElem1(s->pg, j), es);
        }
    }
}

static void zero_rows(void *arg, int64_t begin, int64_t end) {
    const ProbsCtx *c = arg;
    int64_t e_n = c->s->e_n;
    for (int64_t t = begin; t < end; t++) memset(aclStubElem2(c->s->probs_out, t, 0), 0, (size_t)e_n * c->esize);
}

/* Pad: out[idx[i], i / cap] = pg[i]; expert e owns column e and rows [e * cap, (e + 1) * cap), so the last i wins. */
static void place_range(void *arg, int64_t e0, int64_t e1) {
    const ProbsCtx *c = arg;
    const State *s = c->s;
    for (int64_t e = e0; e < e1; e++) {
        for (int64_t i = e * c->cap; i < (e + 1) * c->cap; i++) {
            int64_t t = aclStubIndex1(s->idx, i);
            if (t >= 0 && t < s->t_n) memcpy(aclStubElem2(s->probs_out, t, e), aclStubElem1(s->pg, i), c->esize);
        }
    }
}

/* false when out of memory */
static bool probs(const State *s) {
    ProbsCtx c = {s, NULL, NULL, 0, 0, aclDataTypeSize(s->pg->dtype)};
    if (s->pad) {
        c.cap = s->grad->dims[0] / s->e_n;
        aclStubParallelFor(s->t_n, 1 + 65536 / (s->e_n * (int64_t)c.esize + 1), zero_rows, &c);
        aclStubParallelFor(s->e_n, 1 + 65536 / (c.cap + 1), place_range, &c);
        return true;
    }
    int64_t *buf = malloc(((size_t)s->e_n * 2 + 1) * sizeof *buf);
    if (!buf) {
        return false;
    }
    rm_expert_offsets(s->map, buf);
    c.offsets = buf;
    c.cursor = buf + s->e_n + 1;
    c.limit = s->pg->dims[0]; /* stub rule: set entries beyond the length of pg stay 0 */
    aclStubParallelFor(s->e_n, 1 + 65536 / (s->t_n + 1), scatter_range, &c);
    free(buf);
    return true;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    State state = {aclStubOpTensor(call, GRAD), aclStubOpTensor(call, PG), aclStubOpTensor(call, IDX),
                   aclStubOpTensor(call, MAP), aclStubOpTensor(call, OUT), aclStubOpTensor(call, PROBS_OUT),
                   p->t_n, p->e_n, p->pad};
    const State *s = &state;
    if (s->pad) {
        if (!pad_tokens(s)) return aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for the index buffers");
    } else {
        /* Indices outside [0, P) are skipped; the sum starts from +0 like the kernel's zeroed accumulator. */
        int64_t p = s->grad->dims[0];
        aclStubGatherSum g = {s->grad, s->idx, s->out, p / s->t_n, 0, p, ACLSTUB_SUM_ZERO_INIT};
        if (!aclStubRowGatherSum(&g)) return aclStubKernelOutOfMemory(call);
    }
    if (s->probs_out && !probs(s))
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for the routing-map offsets");
    return OK;
}

/* op_api checks the attributes before any tensor. */
static aclnnStatus precheck(aclStubOpCall *c) {
    int64_t e_n = aclStubOpInt(c, NUM_EXPERTS), t_n = aclStubOpInt(c, TOKENS_NUM);
    ACLSTUB_RETURN_ERROR_IF(e_n <= 0, c, ACLNN_ERR_PARAM_INVALID, "numExperts = %lld must be positive", (long long)e_n);
    ACLSTUB_RETURN_ERROR_IF(t_n <= 0, c, ACLNN_ERR_PARAM_INVALID, "tokensNum = %lld must be positive", (long long)t_n);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *grad = aclStubOpTensor(c, GRAD), *pg = aclStubOpTensor(c, PG);
    const aclStubTensorDesc *idx = aclStubOpTensor(c, IDX), *map = aclStubOpTensor(c, MAP);
    const aclStubTensorDesc *out = aclStubOpTensor(c, OUT), *probs_out = aclStubOpTensor(c, PROBS_OUT);
    int64_t t_n = aclStubOpInt(c, TOKENS_NUM), e_n = aclStubOpInt(c, NUM_EXPERTS);
    bool pad = aclStubOpBool(c, DROP_AND_PAD);
    const aclnnStatus INVALID = ACLNN_ERR_PARAM_INVALID;

    ACLSTUB_RETURN_ERROR_IF(pg && !map, c, ACLNN_ERR_PARAM_NULLPTR, "argument 'routingMapOptional' is NULL but "
                            "'permutedProbsOutputGradOptional' is given");
    ACLSTUB_RETURN_ERROR_IF(grad->ndim != 2, c, INVALID, "permutedTokenOutputGrad must be 2-D (P, H), got %u-D",
                            grad->ndim);
    ACLSTUB_RETURN_ERROR_IF(map && map->ndim != 2, c, INVALID, "routingMapOptional must be 2-D (T, E), got %u-D",
                            map ? map->ndim : 0);
    ACLSTUB_RETURN_ERROR_IF(pg && pg->ndim != 1, c, INVALID, "permutedProbsOutputGradOptional must be 1-D (P,), got "
                            "%u-D", pg ? pg->ndim : 0);

    if (aclStubNumel(grad) == 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);

    int64_t p = grad->dims[0], h = grad->dims[1];
    ACLSTUB_RETURN_ERROR_IF(!pad && p / t_n > 512, c, ACLNN_ERR_INNER_NULLPTR, "topK = P / tokensNum = %lld / %lld "
                            "exceeds 512", (long long)p, (long long)t_n);
    ACLSTUB_TRY(aclStubOpCheckTensor(c, OUT));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[0] != t_n || out->dims[1] != h, c, INVALID, "tokensGradOut "
                            "must have shape (tokensNum, H) = (%lld, %lld)", (long long)t_n, (long long)h);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim != 1 || idx->dims[0] != p, c, INVALID, "sortedIndices must have shape (P,) = "
                            "(%lld,)", (long long)p);
    ACLSTUB_RETURN_ERROR_IF(!pad && (p < t_n || p % t_n != 0), c, INVALID, "P = %lld must be a positive multiple of "
                            "tokensNum = %lld (P = tokensNum * topK)", (long long)p, (long long)t_n);
    ACLSTUB_RETURN_ERROR_IF(pg && pg->dims[0] != p, c, INVALID, "permutedProbsOutputGradOptional must have shape (P,) "
                            "= (%lld,)", (long long)p);
    bool with_probs = pg && probs_out; /* a probs output without a probs gradient is left untouched */
    if (with_probs) {
        ACLSTUB_TRY(aclStubOpCheckTensor(c, PROBS_OUT));
        ACLSTUB_RETURN_ERROR_IF(probs_out->ndim != 2 || probs_out->dims[0] != t_n || probs_out->dims[1] != e_n, c,
                                INVALID, "probsGradOutOptional must have shape (tokensNum, numExperts) = (%lld, %lld)",
                                (long long)t_n, (long long)e_n);
        ACLSTUB_RETURN_ERROR_IF(!pad && (map->dims[0] != t_n || map->dims[1] != e_n), c, INVALID, "routingMapOptional "
                                "must have shape (tokensNum, numExperts) = (%lld, %lld)", (long long)t_n, (long long)e_n);
    }
    if (!with_probs) {
        aclStubOpIgnore(c, PG);
        aclStubOpIgnore(c, PROBS_OUT);
    }
    if (!with_probs || pad) aclStubOpIgnore(c, MAP);
    *(Plan *)c->plan = (Plan){t_n, e_n, pad};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenPermuteWithRoutingMapGrad", PARAMS, ACLSTUB_LEN(PARAMS), precheck, check,
                                kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenPermuteWithRoutingMapGrad, OP, (const aclTensor *, permutedTokenOutputGrad),
                  (const aclTensor *, permutedProbsOutputGradOptional), (const aclTensor *, sortedIndices),
                  (const aclTensor *, routingMapOptional), (int64_t, numExperts), (int64_t, tokensNum),
                  (bool, dropAndPad), (aclTensor *, tokensGradOut), (aclTensor *, probsGradOutOptional))
