/* aclnnMoeTokenPermuteWithRoutingMap (spec: ops/moe_token_permute_with_routing_map.md). */

#include "routing_map_common.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map.h"

#define MAX_DIM 16777215 /* op_api limit on T and E, and the tiling's limit on the sort length */

enum { TOKENS, MAP, PROBS, NUM_OUT_TOKENS, DROP_AND_PAD, OUT, PROBS_OUT, IDX_OUT };

static const aclStubParam PARAMS[] = {
    [TOKENS] = {"tokens", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [MAP] = {"routingMap", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_BOOL)},
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "tokens"},
    [NUM_OUT_TOKENS] = {"numOutTokens", ACLSTUB_INT},
    [DROP_AND_PAD] = {"dropAndPad", ACLSTUB_BOOL},
    /* The kernel writes every output through its strides. */
    [OUT] = {"permuteTokensOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "tokens", ACLSTUB_ANY_LAYOUT},
    [PROBS_OUT] = {"permuteProbsOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT_FLOATS, "probsOptional",
                   ACLSTUB_ANY_LAYOUT},
    [IDX_OUT] = {"sortedIndicesOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL, ACLSTUB_ANY_LAYOUT},
};

typedef struct {
    int64_t n_out, top_k, cap; /* top_k: non-pad mode; cap: pad mode */
    bool pad;
} Plan;

typedef struct {
    const aclStubTensorDesc *tokens, *map, *probs, *out, *probs_out, *idx_out;
    int64_t n_out, top_k, cap;
    bool pad;
} State;

/* ---- output writer: everything the kernel writes, one output row j at a time ---- */

typedef struct {
    const State *s;
    const int64_t *src_row;  /* token row copied to output row j */
    const int32_t *sorted;   /* sortedIndicesOut[j] */
    const int64_t *prob_src; /* probs element (t * E + e) copied to permuteProbsOut[j]; -1 writes zero */
    int64_t h, e_n;
    size_t esize;
    bool rows;   /* write the token rows too (strided output rows; contiguous ones go to aclStubCopyRows) */
} Writer;

/* Copy n elements of esize bytes between two strided rows (strides in elements). */
static void copy_strided(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, size_t esize) {
    if ((ds == 1 && ss == 1) || n == 1) {
        memcpy(dst, src, (size_t)n * esize);
    } else if (esize == 2) {
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds * 2, src + i * ss * 2, 2);
    } else {
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds * 4, src + i * ss * 4, 4);
    }
}

static void write_range(void *arg, int64_t begin, int64_t end) {
    const Writer *w = arg;
    const State *s = w->s;
    const aclStubTensorDesc *src = s->tokens, *out = s->out;
    int64_t es = (int64_t)w->esize;
    for (int64_t j = begin; j < end; j++) {
        memcpy(aclStubElem1(s->idx_out, j), &w->sorted[j], sizeof(int32_t));
        if (w->rows) {
            const char *from = (const char *)src->data + (src->offset + w->src_row[j] * src->strides[0]) * es;
            char *to = (char *)out->data + (out->offset + j * out->strides[0]) * es;
            copy_strided(to, out->strides[1], from, src->strides[1], w->h, w->esize);
        }
        if (s->probs_out) {
            void *p = aclStubElem1(s->probs_out, j);
            int64_t f = w->prob_src[j];
            if (f < 0)
                memset(p, 0, w->esize);
            else
                memcpy(p, aclStubElem2(s->probs, f / w->e_n, f % w->e_n), w->esize);
        }
    }
}

/* ---- pad mode: per expert, routed tokens in ascending id, then non-routed ones, first `cap` kept ---- */

typedef struct {
    const aclStubTensorDesc *map;
    int64_t cap;
    int32_t *sel;  /* (E, cap) token ids */
    int64_t *fill; /* per-expert fill level, E entries */
} SelectCtx;

static void select_range(void *arg, int64_t e0, int64_t e1) {
    const SelectCtx *c = arg;
    int64_t t_n = c->map->dims[0], s1 = c->map->strides[1], cap = c->cap;
    int64_t *fill = c->fill;
    for (int64_t e = e0; e < e1; e++) fill[e] = 0;
    /* Two passes over the rows (routed, then padding with non-routed); a pass stops once every expert is full. */
    for (int pass = 0; pass < 2; pass++) {
        bool routed = pass == 0;
        int64_t open = 0;
        for (int64_t e = e0; e < e1; e++) open += fill[e] < cap;
        for (int64_t t = 0; t < t_n && open > 0; t++) {
            const uint8_t *row = rm_row(c->map, t);
            if (routed) {
                for (int64_t e = rm_next_set(row, s1, e0, e1); e < e1; e = rm_next_set(row, s1, e + 1, e1)) {
                    if (fill[e] >= cap) continue;
                    c->sel[e * cap + fill[e]] = (int32_t)t;
                    if (++fill[e] == cap) open--;
                }
            } else {
                for (int64_t e = e0; e < e1; e++) {
                    if (row[e * s1] != 0 || fill[e] >= cap) continue;
                    c->sel[e * cap + fill[e]] = (int32_t)t;
                    if (++fill[e] == cap) open--;
                }
            }
        }
    }
}

/* ---- non-pad mode: token ids of the set entries, expert-major, the first `limit` of them ---- */

typedef struct {
    const aclStubTensorDesc *map;
    const int64_t *offsets; /* rm_expert_offsets */
    int64_t limit;
    int64_t *tok;    /* tok[j] = token of the j-th set entry, j < limit */
    int64_t *cursor; /* per-expert next rank, E entries */
} ListCtx;

static void list_range(void *arg, int64_t e0, int64_t e1) {
    const ListCtx *c = arg;
    int64_t t_n = c->map->dims[0], s1 = c->map->strides[1];
    int64_t *cur = c->cursor;
    /* Experts whose entries all rank at or past the limit contribute nothing. */
    while (e1 > e0 && c->offsets[e1 - 1] >= c->limit) e1--;
    if (e0 >= e1) return;
    for (int64_t e = e0; e < e1; e++) cur[e] = c->offsets[e];
    for (int64_t t = 0; t < t_n; t++) {
        const uint8_t *row = rm_row(c->map, t);
        for (int64_t e = rm_next_set(row, s1, e0, e1); e < e1; e = rm_next_set(row, s1, e + 1, e1)) {
            int64_t j = cur[e]++;
            if (j < c->limit) c->tok[j] = t;
        }
    }
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    State state = {aclStubOpTensor(call, TOKENS), aclStubOpTensor(call, MAP), aclStubOpTensor(call, PROBS),
                   aclStubOpTensor(call, OUT), aclStubOpTensor(call, PROBS_OUT), aclStubOpTensor(call, IDX_OUT),
                   p->n_out, p->top_k, p->cap, p->pad};
    const State *s = &state;
    int64_t n = s->n_out, e_n = s->map->dims[1];
    int32_t *sorted = aclStubKernelScratch(call, (size_t)n * sizeof *sorted);
    int64_t *src_row = aclStubKernelScratch(call, (size_t)n * sizeof *src_row);
    int64_t *prob_src = s->probs_out ? aclStubKernelScratch(call, (size_t)n * sizeof *prob_src) : NULL;
    if (!sorted || !src_row || (s->probs_out && !prob_src)) return aclStubKernelOutOfMemory(call);

    if (s->pad) {
        int64_t *fill = aclStubKernelScratch(call, (size_t)e_n * sizeof *fill);
        if (!fill) return aclStubKernelOutOfMemory(call);
        SelectCtx c = {s->map, s->cap, sorted, fill};
        aclStubParallelFor(e_n, 1 + 65536 / (s->map->dims[0] + 1), select_range, &c);
        for (int64_t j = 0; j < n; j++) {
            src_row[j] = sorted[j];
            if (prob_src) prob_src[j] = (int64_t)sorted[j] * e_n + j / s->cap;
        }
    } else {
        int64_t t_n = s->map->dims[0];
        int64_t *offsets = aclStubKernelScratch(call, (size_t)(e_n + 1) * sizeof *offsets);
        /* scratch: the sort keys (the token ids of the set entries), then the per-expert cursors */
        int64_t *scratch = aclStubKernelScratch(call, ((size_t)n + (size_t)e_n) * sizeof *scratch);
        if (!offsets || !scratch) return aclStubKernelOutOfMemory(call);
        int64_t *tok = scratch, *cursor = scratch + n;
        rm_expert_offsets(s->map, offsets);
        int64_t m = offsets[e_n] < n ? offsets[e_n] : n;
        ListCtx c = {s->map, offsets, m, tok, cursor};
        aclStubParallelFor(e_n, 1 + 65536 / (t_n + 1), list_range, &c);
        /* Stub rule for maps with fewer set entries than n_out: the missing keys sort last (key T). */
        for (int64_t j = m; j < n; j++) tok[j] = t_n;
        if (!aclStubStableArgsort(tok, n, sorted)) return aclStubKernelOutOfMemory(call);
        for (int64_t i = 0; i < n; i++) src_row[sorted[i]] = i / s->top_k;
        if (prob_src) {
            for (int64_t e = 0, j = 0; e < e_n && j < m; e++)
                for (; j < offsets[e + 1] && j < m; j++) prob_src[j] = tok[j] * e_n + e;
            for (int64_t j = m; j < n; j++) prob_src[j] = -1;
        }
    }

    /* Output rows of adjacent elements, one after another: the SDK's row copy (each token row read once). */
    int64_t h = s->out->dims[1];
    bool packed = (s->out->strides[1] == 1 || h == 1) && (s->out->strides[0] == h || n == 1);
    Writer w = {s, src_row, sorted, prob_src, h, e_n, aclDataTypeSize(s->tokens->dtype), !packed};
    aclStubParallelFor(n, packed ? 65536 : 1 + (int64_t)(65536 / ((size_t)w.h * w.esize + 1)), write_range, &w);
    if (packed) aclStubCopyRows(s->out, 0, s->tokens, src_row, n);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *tokens = aclStubOpTensor(c, TOKENS), *map = aclStubOpTensor(c, MAP);
    const aclStubTensorDesc *probs = aclStubOpTensor(c, PROBS), *out = aclStubOpTensor(c, OUT);
    const aclStubTensorDesc *probs_out = aclStubOpTensor(c, PROBS_OUT), *idx_out = aclStubOpTensor(c, IDX_OUT);
    int64_t num_out = aclStubOpInt(c, NUM_OUT_TOKENS);
    bool pad = aclStubOpBool(c, DROP_AND_PAD);
    const aclnnStatus INVALID = ACLNN_ERR_PARAM_INVALID;

    ACLSTUB_RETURN_ERROR_IF(probs && !probs_out, c, ACLNN_ERR_PARAM_NULLPTR, "argument 'permuteProbsOutOptional' is "
                            "NULL but 'probsOptional' is given");
    /* The real op_api reads the dtype of probsOptional here and crashes when it is NULL. */
    ACLSTUB_RETURN_ERROR_IF(probs_out && !probs, c, ACLNN_ERR_PARAM_NULLPTR, "argument 'probsOptional' is NULL but "
                            "'permuteProbsOutOptional' is given");
    ACLSTUB_RETURN_ERROR_IF(map->ndim != 2, c, INVALID, "routingMap must be 2-D (T, E), got %u-D", map->ndim);
    ACLSTUB_RETURN_ERROR_IF(probs && probs->ndim != 2, c, INVALID, "probsOptional must be 2-D (T, E), got %u-D",
                            probs ? probs->ndim : 0);
    ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(c, MAP, INVALID));
    int64_t t_n = map->dims[0], e_n = map->dims[1], te;
    if (__builtin_mul_overflow(t_n, e_n, &te)) te = INT64_MAX;
    ACLSTUB_RETURN_ERROR_IF(num_out < 0 || num_out > te, c, INVALID, "numOutTokens = %lld is outside [0, T * E] = "
                            "[0, %lld]", (long long)num_out, (long long)te);
    ACLSTUB_RETURN_ERROR_IF(t_n >= MAX_DIM || e_n >= MAX_DIM, c, INVALID, "routingMap shape (%lld, %lld): T and E must "
                            "be below %d", (long long)t_n, (long long)e_n, MAX_DIM);
    int64_t align = pad ? e_n : t_n;
    if (align == 0) align = 1;
    int64_t n_out = num_out / align * align;
    ACLSTUB_RETURN_ERROR_IF(out->ndim < 1 || out->dims[0] != n_out, c, INVALID, "permuteTokensOut.shape[0] must be "
                            "numOutTokens aligned down to a multiple of %s = %lld, got %s%lld", pad ? "E" : "T",
                            (long long)n_out, out->ndim ? "" : "a 0-D tensor ", (long long)(out->ndim ? out->dims[0] : 0));
    ACLSTUB_RETURN_ERROR_IF(probs_out && (probs_out->ndim < 1 || probs_out->dims[0] != n_out), c, INVALID,
                            "permuteProbsOutOptional.shape[0] must be %lld, got %s%lld", (long long)n_out,
                            probs_out && probs_out->ndim ? "" : "a 0-D tensor ",
                            (long long)(probs_out && probs_out->ndim ? probs_out->dims[0] : 0));

    if (aclStubNumel(map) == 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);

    const aclnnStatus TILING = ACLNN_ERR_INNER_NULLPTR; /* the l0 op returns NULL when its tiling fails */
    ACLSTUB_RETURN_ERROR_IF(tokens->ndim < 1 || tokens->dims[0] != t_n, c, TILING, "tokens.shape[0] must equal "
                            "routingMap.shape[0] = %lld, got %s%lld", (long long)t_n, tokens->ndim ? "" : "a 0-D tensor ",
                            (long long)(tokens->ndim ? tokens->dims[0] : 0));
    int64_t top_k = num_out / t_n;
    ACLSTUB_RETURN_ERROR_IF(top_k > 512, c, TILING, "topK = numOutTokens / T = %lld exceeds 512", (long long)top_k);
    ACLSTUB_RETURN_ERROR_IF(!pad && t_n * top_k >= MAX_DIM, c, TILING, "sort length T * topK = %lld must be below %d",
                            (long long)(t_n * top_k), MAX_DIM);
    ACLSTUB_RETURN_ERROR_IF(tokens->ndim != 2, c, INVALID, "tokens must be 2-D (T, H), got %u-D", tokens->ndim);
    int64_t h = tokens->dims[1];
    ACLSTUB_RETURN_ERROR_IF(probs && (probs->dims[0] != t_n || probs->dims[1] != e_n), c, INVALID, "probsOptional must "
                            "have shape (T, E) = (%lld, %lld), got (%lld, %lld)", (long long)t_n, (long long)e_n,
                            (long long)(probs ? probs->dims[0] : 0), (long long)(probs ? probs->dims[1] : 0));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[1] != h, c, INVALID, "permuteTokensOut must have shape (%lld, "
                            "H = %lld)", (long long)n_out, (long long)h);
    ACLSTUB_RETURN_ERROR_IF(idx_out->ndim != 1 || idx_out->dims[0] != n_out, c, INVALID, "sortedIndicesOut must have "
                            "shape (%lld,)", (long long)n_out);
    ACLSTUB_RETURN_ERROR_IF(probs_out && probs_out->ndim != 1, c, INVALID, "permuteProbsOutOptional must be 1-D, got "
                            "%u-D", probs_out ? probs_out->ndim : 0);
    *(Plan *)c->plan = (Plan){n_out, pad ? 0 : top_k, pad ? n_out / e_n : 0, pad};
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenPermuteWithRoutingMap", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenPermuteWithRoutingMap, OP, (const aclTensor *, tokens), (const aclTensor *, routingMap),
                  (const aclTensor *, probsOptional), (int64_t, numOutTokens), (bool, dropAndPad),
                  (aclTensor *, permuteTokensOut), (aclTensor *, permuteProbsOutOptional),
                  (aclTensor *, sortedIndicesOut))
