/* aclnnMoeTokenPermuteWithRoutingMap (spec: ops/moe_token_permute_with_routing_map.md). */
#include <stdlib.h>

#include "routing_map_common.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map.h"

static const char OP[] = "aclnnMoeTokenPermuteWithRoutingMap";

#define MAX_DIM 16777215 /* op_api limit on T and E, and the tiling's limit on the sort length */

typedef struct {
    const aclTensor *tokens, *map, *probs;
    aclTensor *out, *probs_out, *idx_out;
    int64_t n_out, top_k, cap; /* top_k: non-pad mode; cap: pad mode */
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
    bool stream; /* output much larger than the caches: bypass them when writing rows */
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
    const aclTensor *src = s->tokens, *out = s->out;
    int64_t es = (int64_t)w->esize;
    for (int64_t j = begin; j < end; j++) {
        memcpy(op_elem1(s->idx_out, j), &w->sorted[j], sizeof(int32_t));
        const char *from = (const char *)src->data + (src->offset + w->src_row[j] * src->strides[0]) * es;
        char *to = (char *)out->data + (out->offset + j * out->strides[0]) * es;
        if (w->stream && ((out->strides[1] == 1 && src->strides[1] == 1) || w->h == 1))
            op_copy_bytes(to, from, (size_t)w->h * w->esize, true);
        else
            copy_strided(to, out->strides[1], from, src->strides[1], w->h, w->esize);
        if (s->probs_out) {
            void *p = op_elem1(s->probs_out, j);
            int64_t f = w->prob_src[j];
            if (f < 0)
                memset(p, 0, w->esize);
            else
                memcpy(p, op_elem2(s->probs, f / w->e_n, f % w->e_n), w->esize);
        }
    }
    if (w->stream) op_stream_fence();
}

/* ---- pad mode: per expert, routed tokens in ascending id, then non-routed ones, first `cap` kept ---- */

typedef struct {
    const aclTensor *map;
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
    const aclTensor *map;
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

static aclnnStatus run(void *arg) {
    const State *s = arg;
    int64_t n = s->n_out, e_n = s->map->dims[1];
    int32_t *sorted = malloc((size_t)n * sizeof *sorted);
    int64_t *src_row = malloc((size_t)n * sizeof *src_row);
    int64_t *prob_src = s->probs_out ? malloc((size_t)n * sizeof *prob_src) : NULL;
    int64_t *offsets = NULL, *scratch = NULL;
    aclnnStatus status = OK;
    if (!sorted || !src_row || (s->probs_out && !prob_src)) goto oom;

    if (s->pad) {
        int64_t *fill = malloc((size_t)e_n * sizeof *fill);
        if (!fill) goto oom;
        SelectCtx c = {s->map, s->cap, sorted, fill};
        op_parallel_for(e_n, 1 + 65536 / (s->map->dims[0] + 1), select_range, &c);
        free(fill);
        for (int64_t j = 0; j < n; j++) {
            src_row[j] = sorted[j];
            if (prob_src) prob_src[j] = (int64_t)sorted[j] * e_n + j / s->cap;
        }
    } else {
        int64_t t_n = s->map->dims[0];
        offsets = malloc((size_t)(e_n + 1) * sizeof *offsets);
        /* scratch: the sort keys (the token ids of the set entries), then the per-expert cursors */
        scratch = malloc(((size_t)n + (size_t)e_n) * sizeof *scratch);
        if (!offsets || !scratch) goto oom;
        int64_t *tok = scratch, *cursor = scratch + n;
        rm_expert_offsets(s->map, offsets);
        int64_t m = offsets[e_n] < n ? offsets[e_n] : n;
        ListCtx c = {s->map, offsets, m, tok, cursor};
        op_parallel_for(e_n, 1 + 65536 / (t_n + 1), list_range, &c);
        /* Stub rule for maps with fewer set entries than n_out: the missing keys sort last (key T). */
        for (int64_t j = m; j < n; j++) tok[j] = t_n;
        if (!op_stable_argsort(tok, n, sorted)) goto oom;
        for (int64_t i = 0; i < n; i++) src_row[sorted[i]] = i / s->top_k;
        if (prob_src) {
            for (int64_t e = 0, j = 0; e < e_n && j < m; e++)
                for (; j < offsets[e + 1] && j < m; j++) prob_src[j] = tok[j] * e_n + e;
            for (int64_t j = m; j < n; j++) prob_src[j] = -1;
        }
    }

    Writer w = {s, src_row, sorted, prob_src, s->out->dims[1], e_n, aclDataTypeSize(s->tokens->dtype), false};
    w.stream = n * w.h * (int64_t)w.esize >= OP_STREAM_MIN_BYTES;
    op_parallel_for(n, 1 + (int64_t)(65536 / ((size_t)w.h * w.esize + 1)), write_range, &w);
    goto done;
oom:
    aclStubSetErrMsg("%s: out of host memory for the sort buffers", OP);
    status = ACLNN_ERR_INNER;
done:
    free(sorted);
    free(src_row);
    free(prob_src);
    free(offsets);
    free(scratch);
    return status;
}

aclnnStatus aclnnMoeTokenPermuteWithRoutingMapGetWorkspaceSize(const aclTensor *tokens, const aclTensor *routingMap,
                                                               const aclTensor *probsOptional, int64_t numOutTokens,
                                                               bool dropAndPad, aclTensor *permuteTokensOut,
                                                               aclTensor *permuteProbsOutOptional,
                                                               aclTensor *sortedIndicesOut, uint64_t *workspaceSize,
                                                               aclOpExecutor **executor) {
    const aclTensor *map = routingMap, *probs = probsOptional;
    aclTensor *out = permuteTokensOut, *probs_out = permuteProbsOutOptional, *idx_out = sortedIndicesOut;
    const aclnnStatus INVALID = ACLNN_ERR_PARAM_INVALID;

    OP_TRY(op_check_not_null(OP, "tokens", tokens));
    OP_TRY(op_check_not_null(OP, "routingMap", map));
    OP_TRY(op_check_not_null(OP, "permuteTokensOut", out));
    OP_TRY(op_check_not_null(OP, "sortedIndicesOut", idx_out));
    OP_TRY(op_check_not_null(OP, "workspaceSize", workspaceSize));
    OP_TRY(op_check_not_null(OP, "executor", executor));
    if (probs && !probs_out)
        return op_fail(OP, ACLNN_ERR_PARAM_NULLPTR, "argument 'permuteProbsOutOptional' is NULL but "
                       "'probsOptional' is given");
    OP_TRY(op_check_live(OP, "tokens", tokens));
    OP_TRY(op_check_live(OP, "routingMap", map));
    OP_TRY(op_check_live(OP, "probsOptional", probs));
    OP_TRY(op_check_live(OP, "permuteTokensOut", out));
    OP_TRY(op_check_live(OP, "permuteProbsOutOptional", probs_out));
    OP_TRY(op_check_live(OP, "sortedIndicesOut", idx_out));

    OP_TRY(op_check_dtype(OP, "tokens", tokens, DT_FLOATS));
    OP_TRY(op_check_dtype(OP, "permuteTokensOut", out, DT_FLOATS));
    OP_TRY(op_check_dtype(OP, "routingMap", map, DT(ACL_INT8) | DT(ACL_BOOL)));
    OP_TRY(op_check_same_dtype(OP, "permuteTokensOut", out, "tokens", tokens));
    OP_TRY(op_check_dtype(OP, "sortedIndicesOut", idx_out, DT(ACL_INT32)));
    OP_TRY(op_check_dtype(OP, "probsOptional", probs, DT_FLOATS));
    OP_TRY(op_check_same_dtype(OP, "probsOptional", probs, "tokens", tokens));
    OP_TRY(op_check_dtype(OP, "permuteProbsOutOptional", probs_out, DT_FLOATS));
    /* The real op_api reads the dtype of probsOptional here and crashes when it is NULL. */
    if (probs_out && !probs)
        return op_fail(OP, ACLNN_ERR_PARAM_NULLPTR, "argument 'probsOptional' is NULL but "
                       "'permuteProbsOutOptional' is given");
    OP_TRY(op_check_same_dtype(OP, "permuteProbsOutOptional", probs_out, "probsOptional", probs));

    if (map->ndim != 2)
        return op_fail(OP, INVALID, "routingMap must be 2-D (T, E), got %llu-D", (unsigned long long)map->ndim);
    if (probs && probs->ndim != 2)
        return op_fail(OP, INVALID, "probsOptional must be 2-D (T, E), got %llu-D", (unsigned long long)probs->ndim);
    OP_TRY(op_check_dims_non_negative(OP, "routingMap", map, INVALID));
    int64_t t_n = map->dims[0], e_n = map->dims[1], te;
    if (__builtin_mul_overflow(t_n, e_n, &te)) te = INT64_MAX;
    if (numOutTokens < 0 || numOutTokens > te)
        return op_fail(OP, INVALID, "numOutTokens = %lld is outside [0, T * E] = [0, %lld]", (long long)numOutTokens,
                       (long long)te);
    if (t_n >= MAX_DIM || e_n >= MAX_DIM)
        return op_fail(OP, INVALID, "routingMap shape (%lld, %lld): T and E must be below %d", (long long)t_n,
                       (long long)e_n, MAX_DIM);
    int64_t align = dropAndPad ? e_n : t_n;
    if (align == 0) align = 1;
    int64_t n_out = numOutTokens / align * align;
    if (out->ndim < 1 || out->dims[0] != n_out)
        return op_fail(OP, INVALID, "permuteTokensOut.shape[0] must be numOutTokens aligned down to a multiple of %s "
                       "= %lld, got %s%lld", dropAndPad ? "E" : "T", (long long)n_out, out->ndim ? "" : "a 0-D tensor ",
                       (long long)(out->ndim ? out->dims[0] : 0));
    if (probs_out && (probs_out->ndim < 1 || probs_out->dims[0] != n_out))
        return op_fail(OP, INVALID, "permuteProbsOutOptional.shape[0] must be %lld, got %s%lld", (long long)n_out,
                       probs_out->ndim ? "" : "a 0-D tensor ", (long long)(probs_out->ndim ? probs_out->dims[0] : 0));

    if (stub_numel(map) == 0 || stub_numel(out) == 0)
        return op_finish(OP, NULL, NULL, 0, NULL, 0, workspaceSize, executor);

    const aclnnStatus TILING = ACLNN_ERR_INNER_NULLPTR; /* the l0 op returns NULL when its tiling fails */
    if (tokens->ndim < 1 || tokens->dims[0] != t_n)
        return op_fail(OP, TILING, "tokens.shape[0] must equal routingMap.shape[0] = %lld, got %s%lld",
                       (long long)t_n, tokens->ndim ? "" : "a 0-D tensor ",
                       (long long)(tokens->ndim ? tokens->dims[0] : 0));
    int64_t top_k = numOutTokens / t_n;
    if (top_k > 512)
        return op_fail(OP, TILING, "topK = numOutTokens / T = %lld exceeds 512", (long long)top_k);
    if (!dropAndPad && t_n * top_k >= MAX_DIM)
        return op_fail(OP, TILING, "sort length T * topK = %lld must be below %d", (long long)(t_n * top_k), MAX_DIM);

    if (tokens->ndim != 2)
        return op_fail(OP, INVALID, "tokens must be 2-D (T, H), got %llu-D", (unsigned long long)tokens->ndim);
    int64_t h = tokens->dims[1];
    if (probs && (probs->dims[0] != t_n || probs->dims[1] != e_n))
        return op_fail(OP, INVALID, "probsOptional must have shape (T, E) = (%lld, %lld), got (%lld, %lld)",
                       (long long)t_n, (long long)e_n, (long long)probs->dims[0], (long long)probs->dims[1]);
    if (out->ndim != 2 || out->dims[1] != h)
        return op_fail(OP, INVALID, "permuteTokensOut must have shape (%lld, H = %lld)", (long long)n_out, (long long)h);
    if (idx_out->ndim != 1 || idx_out->dims[0] != n_out)
        return op_fail(OP, INVALID, "sortedIndicesOut must have shape (%lld,)", (long long)n_out);
    if (probs_out && probs_out->ndim != 1)
        return op_fail(OP, INVALID, "permuteProbsOutOptional must be 1-D, got %llu-D",
                       (unsigned long long)probs_out->ndim);

    State s = {tokens, map, probs, out, probs_out, idx_out, n_out, dropAndPad ? 0 : top_k,
               dropAndPad ? n_out / e_n : 0, dropAndPad};
    aclStubTensorRef refs[] = {{"tokens", tokens}, {"routingMap", map}, {"probsOptional", probs},
                               {"permuteTokensOut", out}, {"permuteProbsOutOptional", probs_out},
                               {"sortedIndicesOut", idx_out}};
    return op_finish(OP, run, &s, sizeof s, refs, sizeof refs / sizeof refs[0], workspaceSize, executor);
}

aclnnStatus aclnnMoeTokenPermuteWithRoutingMap(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream) {
    return aclStubExecutorRun(OP, workspace, workspaceSize, executor, stream);
}
