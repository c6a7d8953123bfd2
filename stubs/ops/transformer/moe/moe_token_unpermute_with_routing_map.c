/* aclnnMoeTokenUnpermuteWithRoutingMap (spec: ops/moe_token_unpermute_with_routing_map.md). */
#include <stdlib.h>

#include "routing_map_common.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_routing_map.h"

enum { PERMUTED, SORTED, MAP, PROBS, PADDED, RESTORE, OUT, OUT_INDEX, TOKEN_ID, PROBS_OUT };

/* The op_api checks the routing map's dtype only when its kernel runs, and permuteProbs against probs (or, without
 * probs, against the tokens and with another code): both are checked in check(). Every output is written through
 * its strides (the op_api view-copies into non-contiguous outputs). */
static const aclStubParam PARAMS[] = {
    [PERMUTED] = {"permutedTokens", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [SORTED] = {"sortedIndices", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [MAP] = {"routingMapOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_BOOL), NULL,
             ACLSTUB_CHECK_LATER},
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS},
    [PADDED] = {"paddedMode", ACLSTUB_BOOL},
    [RESTORE] = {"restoreShapeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [OUT] = {"unpermutedTokens", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT_FLOATS, "permutedTokens", ACLSTUB_ANY_LAYOUT},
    [OUT_INDEX] = {"outIndex", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL, ACLSTUB_ANY_LAYOUT},
    [TOKEN_ID] = {"permuteTokenId", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_INT32), NULL, ACLSTUB_ANY_LAYOUT},
    [PROBS_OUT] = {"permuteProbs", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT_FLOATS, "probsOptional",
                   ACLSTUB_ANY_LAYOUT | ACLSTUB_CHECK_LATER},
};

typedef struct {
    int64_t t_n, top_k, cap; /* non-pad: T and K; pad: capacity (with probs) */
    bool pad;
} Plan;

typedef struct {
    const aclStubTensorDesc *permuted, *sorted, *map, *probs, *out, *out_index, *token_id, *probs_out;
    int64_t t_n, top_k, cap;
} State;

/* ---- non-pad weights: probs[routingMap] in token-major order (a flat masked select) ---- */

typedef struct {
    const State *s;
    int64_t *first; /* T + 1 entries: rank of token t's first selected entry */
    float *w;       /* L weights */
    int64_t len;    /* L */
} SelectCtx;

static void count_rows(void *arg, int64_t t0, int64_t t1) {
    const SelectCtx *c = arg;
    const aclStubTensorDesc *map = c->s->map;
    int64_t e_n = map->dims[1], s1 = map->strides[1];
    for (int64_t t = t0; t < t1; t++) {
        const uint8_t *row = rm_row(map, t);
        int64_t n = 0;
        for (int64_t e = rm_next_set(row, s1, 0, e_n); e < e_n; e = rm_next_set(row, s1, e + 1, e_n)) n++;
        c->first[t + 1] = n;
    }
}

/* Stub rule for maps without exactly L set entries: the first min(count, L) values, the rest +0.0. */
static void select_rows(void *arg, int64_t t0, int64_t t1) {
    const SelectCtx *c = arg;
    const State *s = c->s;
    int64_t e_n = s->map->dims[1], s1 = s->map->strides[1];
    size_t es = aclDataTypeSize(s->probs->dtype);
    for (int64_t t = t0; t < t1; t++) {
        const uint8_t *row = rm_row(s->map, t);
        int64_t j = c->first[t];
        for (int64_t e = rm_next_set(row, s1, 0, e_n); e < e_n && j < c->len; e = rm_next_set(row, s1, e + 1, e_n), j++) {
            c->w[j] = aclStubLoad2F32(s->probs, t, e);
            if (s->probs_out) memcpy(aclStubElem1(s->probs_out, j), aclStubElem2(s->probs, t, e), es);
        }
    }
}

/* w[s] for every slot s of [0, L); false when out of memory. */
static bool select_weights(const State *s, float *w, int64_t len) {
    int64_t t_n = s->map->dims[0];
    int64_t *first = malloc(((size_t)t_n + 1) * sizeof *first);
    if (!first) return false;
    SelectCtx c = {s, first, w, len};
    int64_t min_chunk = 1 + 65536 / (s->map->dims[1] + 1);
    first[0] = 0;
    aclStubParallelFor(t_n, min_chunk, count_rows, &c);
    for (int64_t t = 0; t < t_n; t++) first[t + 1] += first[t];
    int64_t m = first[t_n] < len ? first[t_n] : len;
    aclStubParallelFor(t_n, min_chunk, select_rows, &c);
    size_t es = s->probs_out ? aclDataTypeSize(s->probs_out->dtype) : 0;
    for (int64_t j = m; j < len; j++) {
        w[j] = 0.0f;
        if (s->probs_out) memset(aclStubElem1(s->probs_out, j), 0, es);
    }
    free(first);
    return true;
}

/* ---- non-pad tokens: out[t] = sum over k of permuted[sortedIndices[t*K + k]] * w[t*K + k] ---- */

typedef struct {
    const State *s;
    const float *w; /* NULL without probs */
    int failed;     /* a chunk could not get its buffers (out of memory) */
} CombineCtx;

/* Token t's sum into acc. Plain arithmetic (exact false) differs from the NaN rules only in NaN payloads. */
static void combine_token(const CombineCtx *c, int64_t t, float *acc, void *scratch, bool exact) {
    const State *s = c->s;
    const aclStubTensorDesc *src = s->permuted;
    aclDataType dt = src->dtype;
    int64_t h = src->dims[1], p = src->dims[0], k_n = s->top_k;
    bool have = false;
    for (int64_t k = 0; k < k_n; k++) {
        int64_t slot = t * k_n + k, idx = aclStubIndex1(s->sorted, slot);
        /* a slot is taken for an index inside [0, P) with a non-zero weight (zero weights are skipped) */
        if (idx < 0 || idx >= p || (c->w && c->w[slot] == 0.0f)) continue;
        const void *row = rm_load_row(src, idx, 0, h, scratch);
        if (!have && k > 0) memset(acc, 0, (size_t)h * sizeof(float)); /* slot 0 skipped: the sum starts at +0 */
        if (!have && k == 0) {
            if (c->w)
                aclStubRowScaleF32(acc, row, dt, c->w[slot], h);
            else
                aclStubRowLoadF32(acc, row, dt, h);
        } else if (c->w) {
            (exact ? aclStubRowScaleAddF32 : aclStubRowScaleAddF32Fast)(acc, row, dt, c->w[slot], h);
        } else {
            (exact ? aclStubRowAddF32 : aclStubRowAddF32Fast)(acc, row, dt, h);
        }
        have = true;
    }
    if (!have) memset(acc, 0, (size_t)h * sizeof(float));
}

static void combine_rows(void *arg, int64_t t0, int64_t t1) {
    const CombineCtx *c = arg;
    const State *s = c->s;
    const aclStubTensorDesc *src = s->permuted;
    aclDataType dt = src->dtype;
    int64_t h = src->dims[1];
    float *acc = malloc((size_t)h * sizeof(float));
    void *scratch = malloc((size_t)h * aclDataTypeSize(dt));
    if (!acc || !scratch) { /* out of memory: the kernel fails, never with rows silently zeroed */
        __atomic_store_n(&((CombineCtx *)arg)->failed, 1, __ATOMIC_RELAXED);
        free(acc);
        free(scratch);
        return;
    }
    for (int64_t t = t0; t < t1; t++) {
        combine_token(c, t, acc, scratch, false);
        if (aclStubRowAnyNaN(acc, h)) combine_token(c, t, acc, scratch, true); /* rare: NaN payloads */
        rm_store_row(s->out, t, 0, acc, h);
    }
    free(acc);
    free(scratch);
}

static aclnnStatus non_pad(const aclStubOpCall *call, const State *s) {
    int64_t len = s->sorted->dims[0];
    float *w = NULL;
    if (s->probs) {
        w = malloc((size_t)len * sizeof *w);
        if (!w || !select_weights(s, w, len)) {
            free(w);
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for the routing weights");
        }
    }
    CombineCtx c = {s, w, 0};
    int64_t h = s->permuted->dims[1];
    aclStubParallelFor(s->t_n, 1 + 65536 / (s->top_k * h + 1), combine_rows, &c);
    free(w);
    return c.failed ? aclStubKernelOutOfMemory(call) : OK;
}

/* ---- pad mode: weights probs[sortedIndices[j], j / cap], a stable sort, an ordered index-add ---- */

static void pad_weights(const State *s, float *w) {
    int64_t len = s->sorted->dims[0], t_n = s->probs->dims[0];
    size_t es = aclDataTypeSize(s->probs->dtype);
    for (int64_t j = 0; j < len; j++) {
        int64_t t = aclStubIndex1(s->sorted, j);
        bool ok = t >= 0 && t < t_n; /* stub rule: tokens outside [0, T) weigh 0 */
        w[j] = ok ? aclStubLoad2F32(s->probs, t, j / s->cap) : 0.0f;
        void *dst = aclStubElem1(s->probs_out, j);
        if (ok)
            memcpy(dst, aclStubElem2(s->probs, t, j / s->cap), es);
        else
            memset(dst, 0, es);
    }
}

static aclnnStatus pad(const aclStubOpCall *call, const State *s) {
    int64_t len = s->sorted->dims[0], t_out = s->out->dims[0];
    int64_t *keys = calloc((size_t)len, sizeof *keys), *rows = malloc((size_t)len * sizeof *rows);
    int64_t *start = malloc(((size_t)t_out + 1) * sizeof *start);
    int32_t *order = malloc((size_t)len * sizeof *order);
    float *w = s->probs ? malloc((size_t)len * sizeof *w) : NULL;
    aclnnStatus status = OK;
    if (!keys || !rows || !start || !order || (s->probs && !w)) {
        status = aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for the sort buffers");
        goto done;
    }
    if (w) pad_weights(s, w);
    for (int64_t j = 0; j < len; j++) keys[j] = aclStubIndex1(s->sorted, j);
    /* The device sorts the indices viewed as float keys, which orders valid (non-negative) token ids like
     * integers; the stub sorts every value as an integer. */
    if (!aclStubStableArgsort(keys, len, order)) {
        status = aclStubKernelFail(call, ACLNN_ERR_INNER, "out of host memory for the sort buffers");
        goto done;
    }
    int64_t below = 0; /* sorted positions of indices below 0 */
    for (int64_t i = 0; i < len; i++) {
        int32_t id = (int32_t)keys[order[i]];
        memcpy(aclStubElem1(s->out_index, i), &order[i], sizeof(int32_t));
        memcpy(aclStubElem1(s->token_id, i), &id, sizeof(int32_t));
        rows[i] = order[i];
        below += id < 0;
    }
    /* Rows of token t (ascending j, the sort is stable) are rows[start[t] .. start[t + 1]). */
    start[0] = below;
    for (int64_t t = 0, i = below; t < t_out; t++) {
        while (i < len && keys[order[i]] == t) i++;
        start[t + 1] = i;
    }
    RmIndexAdd a = {s->permuted, s->out, start, rows, w, t_out};
    if (!rm_index_add(&a)) status = aclStubKernelOutOfMemory(call);
done:
    free(keys);
    free(rows);
    free(start);
    free(order);
    free(w);
    return status;
}

/* The map as the kernel reads it: its first T x E entries in row-major order, as a (T, E) array (a view of
 * it, or a copy when its layout cannot be viewed that way); NULL when out of memory. */
static const aclStubTensorDesc *map_as_read(const aclStubOpCall *call, const aclStubTensorDesc *map,
                                            const aclStubTensorDesc *probs, aclStubTensorDesc *view) {
    int64_t t_n = probs->dims[0], e_n = probs->dims[1];
    if (map->dims[0] == t_n && map->dims[1] == e_n) return map;
    *view = *map;
    view->dims[0] = t_n;
    view->dims[1] = e_n;
    view->strides[0] = e_n;
    view->strides[1] = 1;
    if (map->strides[1] == 1 && map->strides[0] == map->dims[1]) return view; /* contiguous: a reshape */
    uint8_t *flat = aclStubKernelScratch(call, (size_t)(t_n * e_n) + 1);
    if (flat == NULL) return NULL;
    for (int64_t i = 0; i < t_n * e_n; i++) flat[i] = *(const uint8_t *)aclStubElemAt(map, i);
    view->data = flat;
    view->offset = 0;
    return view;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    State s = {aclStubOpTensor(call, PERMUTED), aclStubOpTensor(call, SORTED),    aclStubOpTensor(call, MAP),
               aclStubOpTensor(call, PROBS),    aclStubOpTensor(call, OUT),       aclStubOpTensor(call, OUT_INDEX),
               aclStubOpTensor(call, TOKEN_ID), aclStubOpTensor(call, PROBS_OUT), p->t_n,
               p->top_k,                        p->cap};
    aclStubTensorDesc view;
    if (!p->pad && s.probs && (s.map = map_as_read(call, s.map, s.probs, &view)) == NULL)
        return aclStubKernelOutOfMemory(call);
    return p->pad ? pad(call, &s) : non_pad(call, &s);
}

/* Checked before the tensors: the op_api needs probs or a restore shape to know the number of tokens. */
static aclnnStatus precheck(aclStubOpCall *c) {
    ACLSTUB_RETURN_ERROR_IF(!c->v[PROBS].present && !c->v[RESTORE].present, c, ACLNN_ERR_PARAM_NULLPTR,
                            "arguments 'probsOptional' and 'restoreShapeOptional' are both NULL: one of them must "
                            "give the number of tokens");
    return OK;
}

static bool is_vector_of(const aclStubTensorDesc *t, int64_t n) { return t->ndim == 1 && t->dims[0] == n; }

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *x = aclStubOpTensor(c, PERMUTED), *si = aclStubOpTensor(c, SORTED);
    const aclStubTensorDesc *map = aclStubOpTensor(c, MAP), *probs = aclStubOpTensor(c, PROBS);
    const aclStubTensorDesc *out = aclStubOpTensor(c, OUT), *out_index = aclStubOpTensor(c, OUT_INDEX);
    const aclStubTensorDesc *token_id = aclStubOpTensor(c, TOKEN_ID), *probs_out = aclStubOpTensor(c, PROBS_OUT);
    bool pad = aclStubOpBool(c, PADDED);
    const aclnnStatus NULLPTR = ACLNN_ERR_PARAM_NULLPTR, INVALID = ACLNN_ERR_PARAM_INVALID;
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR, VIEW = ACLNN_ERR_INNER_NULLPTR;

    if (probs && probs_out) ACLSTUB_TRY(aclStubOpCheckTensor(c, PROBS_OUT));
    ACLSTUB_RETURN_ERROR_IF(!out, c, NULLPTR, "argument 'unpermutedTokens' is NULL");
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, c, INVALID, "permutedTokens must be 2-D (P, H), got %u-D", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(si->ndim != 1, c, INVALID, "sortedIndices must be 1-D (L,), got %u-D", si->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, c, INVALID, "unpermutedTokens must be 2-D, got %u-D", out->ndim);
    if (aclStubNumel(x) == 0 || aclStubNumel(si) == 0) return aclStubOpNothingToDo(c);

    ACLSTUB_RETURN_ERROR_IF(probs && !map, c, NULLPTR, "argument 'routingMapOptional' is NULL but 'probsOptional' is "
                            "given");
    ACLSTUB_RETURN_ERROR_IF(pad && !out_index, c, NULLPTR, "argument 'outIndex' is NULL in padded mode");
    ACLSTUB_RETURN_ERROR_IF(pad && !token_id, c, NULLPTR, "argument 'permuteTokenId' is NULL in padded mode");
    ACLSTUB_RETURN_ERROR_IF(pad && probs && !probs_out, c, NULLPTR, "argument 'permuteProbs' is NULL in padded mode "
                            "with probsOptional");
    ACLSTUB_RETURN_ERROR_IF(probs && probs->dtype != x->dtype, c, INVALID, "probsOptional must have the dtype of "
                            "permutedTokens (%s), got %s: there is no mixed-precision kernel",
                            aclStubDtypeName(x->dtype), aclStubDtypeName(probs->dtype));
    if (map && (probs || !pad)) ACLSTUB_TRY(aclStubOpCheckTensor(c, MAP));
    if (probs) {
        ACLSTUB_RETURN_ERROR_IF(probs->ndim != 2, c, INVALID, "probsOptional must be 2-D (T, E), got %u-D",
                                probs->ndim);
        /* The op_api checks the map's rank only: the kernel reads its first T x E entries (a map larger than
         * probs is accepted, as the vendor's tiling tests do); fewer would be read out of bounds. */
        int64_t need;
        ACLSTUB_RETURN_ERROR_IF(map->ndim != 2 || __builtin_mul_overflow(probs->dims[0], probs->dims[1], &need) ||
                                    aclStubNumel(map) < need, c, INVALID, "routingMapOptional must be 2-D with at "
                                "least T x E = %lld x %lld entries (the shape of probsOptional)",
                                (long long)probs->dims[0], (long long)probs->dims[1]);
    }
    int64_t p = x->dims[0], h = x->dims[1], len = si->dims[0];
    Plan *plan = c->plan;
    plan->pad = pad;

    if (!pad) {
        const aclStubValue *rs = &c->v[RESTORE];
        ACLSTUB_RETURN_ERROR_IF(!probs && rs->size != 2, c, VIEW, "restoreShapeOptional must hold 2 values (T, H) "
                                "without probsOptional, got %llu", (unsigned long long)rs->size);
        int64_t t_n = probs ? probs->dims[0] : rs->ints[0];
        ACLSTUB_RETURN_ERROR_IF(t_n <= 0, c, TILING, "the number of tokens T = %lld must be positive", (long long)t_n);
        int64_t k = p / t_n;
        ACLSTUB_RETURN_ERROR_IF(k < 1 || k > 512, c, TILING, "topK = P / T = %lld / %lld = %lld must be in [1, 512]",
                                (long long)p, (long long)t_n, (long long)k);
        ACLSTUB_RETURN_ERROR_IF(len != t_n * k, c, TILING, "sortedIndices must hold T * topK = %lld indices, got %lld",
                                (long long)(t_n * k), (long long)len);
        ACLSTUB_RETURN_ERROR_IF(out->dims[0] != t_n || out->dims[1] != h, c, VIEW, "unpermutedTokens must have shape "
                                "(T, H) = (%lld, %lld), got (%lld, %lld)", (long long)t_n, (long long)h,
                                (long long)out->dims[0], (long long)out->dims[1]);
        if (probs_out) {
            ACLSTUB_RETURN_ERROR_IF(probs && !is_vector_of(probs_out, len), c, VIEW, "permuteProbs must have shape "
                                    "(L,) = (%lld,)", (long long)len);
            ACLSTUB_RETURN_ERROR_IF(!probs && (!is_vector_of(probs_out, 0) || probs_out->dtype != x->dtype), c, VIEW,
                                    "permuteProbs must be an empty (0,) tensor of dtype %s without probsOptional",
                                    aclStubDtypeName(x->dtype));
        }
        if (!probs) {
            aclStubOpIgnore(c, MAP);
            aclStubOpIgnore(c, PROBS_OUT);
        }
        aclStubOpIgnore(c, OUT_INDEX);
        aclStubOpIgnore(c, TOKEN_ID);
        plan->t_n = t_n;
        plan->top_k = k;
        return OK;
    }

    if (probs) {
        int64_t e_n = probs->dims[1];
        ACLSTUB_RETURN_ERROR_IF(e_n == 0 || len % e_n != 0, c, TILING, "in padded mode sortedIndices must hold E * "
                                "capacity indices: L = %lld is not a positive multiple of E = %lld", (long long)len,
                                (long long)e_n);
        plan->cap = len / e_n;
    }
    ACLSTUB_RETURN_ERROR_IF(p != len, c, VIEW, "in padded mode permutedTokens must have L = %lld rows, got %lld",
                            (long long)len, (long long)p);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) == 0 || out->dims[1] != h, c, VIEW, "unpermutedTokens must be a "
                            "non-empty (T, H = %lld) tensor, got (%lld, %lld)", (long long)h, (long long)out->dims[0],
                            (long long)out->dims[1]);
    ACLSTUB_RETURN_ERROR_IF(probs && !is_vector_of(probs_out, len), c, VIEW, "permuteProbs must have shape (L,) = "
                            "(%lld,)", (long long)len);
    ACLSTUB_RETURN_ERROR_IF(!is_vector_of(out_index, len), c, VIEW, "outIndex must have shape (L,) = (%lld,)",
                            (long long)len);
    ACLSTUB_RETURN_ERROR_IF(!is_vector_of(token_id, len), c, VIEW, "permuteTokenId must have shape (L,) = (%lld,)",
                            (long long)len);
    aclStubOpIgnore(c, MAP); /* padded mode reads the token ids, not the map */
    if (!probs) aclStubOpIgnore(c, PROBS_OUT);
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenUnpermuteWithRoutingMap", PARAMS, ACLSTUB_LEN(PARAMS), precheck, check,
                                kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenUnpermuteWithRoutingMap, OP, (const aclTensor *, permutedTokens),
                  (const aclTensor *, sortedIndices), (const aclTensor *, routingMapOptional),
                  (const aclTensor *, probsOptional), (bool, paddedMode), (const aclIntArray *, restoreShapeOptional),
                  (aclTensor *, unpermutedTokens), (aclTensor *, outIndex), (aclTensor *, permuteTokenId),
                  (aclTensor *, permuteProbs))
