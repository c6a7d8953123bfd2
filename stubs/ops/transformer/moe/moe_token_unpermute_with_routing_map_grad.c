/* aclnnMoeTokenUnpermuteWithRoutingMapGrad (spec: ops/moe_token_unpermute_with_routing_map_grad.md). */
#include <stdlib.h>

#include "routing_map_common.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_routing_map_grad.h"

enum { GRAD, OUT_INDEX, TOKEN_ID, MAP, PERMUTED, PROBS, DROP_AND_PAD, RESTORE, OUT, PROBS_OUT };

/* A generated aclnn API: every tensor's dtype and format in the OpDef's rows, contiguous outputs, then the tiling's
 * rules (561002). restoreShapeOptional is never read. */
static const aclStubParam PARAMS[] = {
    [GRAD] = {"unpermutedTokensGrad", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [OUT_INDEX] = {"outIndex", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [TOKEN_ID] = {"permuteTokenId", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32)},
    [MAP] = {"routingMapOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_BOOL)},
    [PERMUTED] = {"permutedTokensOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "unpermutedTokensGrad"},
    [PROBS] = {"probsOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "unpermutedTokensGrad"},
    [DROP_AND_PAD] = {"dropAndPad", ACLSTUB_BOOL},
    [RESTORE] = {"restoreShapeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE},
    [OUT] = {"permutedTokensGradOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "unpermutedTokensGrad"},
    [PROBS_OUT] = {"probsGradOutOptional", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT_FLOATS, "unpermutedTokensGrad"},
};

/* Platform constants of the tiling (Atlas A2/A3): unified-buffer bytes and vector cores. They fix where the
 * hidden axis is cut into chunks, and so the order of the probs-gradient sums for large H. */
#define UB_BYTES 196352
#define AIV_CORES 48

typedef struct {
    int64_t t_n, top_k, cap, chunk; /* top_k: non-pad; cap: pad with probs; chunk: hidden chunk with probs */
    bool pad;
} Plan;

typedef struct {
    const aclStubTensorDesc *grad, *out_index, *token_id, *map, *permuted, *probs, *out, *probs_out;
    const Plan *plan;
    const int64_t *last; /* per output row: the slot (non-pad) or position (pad) whose write wins, or -1 */
    const int64_t *expert;   /* non-pad with probs: expert of slot t*K + k, or -1 */
    const int64_t *last_pg;  /* pad with probs: per (t, e) the position whose probs gradient wins, or -1 */
    int failed;              /* a chunk could not get its buffers (out of memory): the kernel fails */
} State;

static int64_t align_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }
static int64_t align_down(int64_t a, int64_t b) { return a / b * b; }

/* Hidden chunk of the non-pad tiling with probs; 0 when the unified buffer cannot hold the index arrays. */
static int64_t chunk_non_pad(int64_t h, int64_t t_n, int64_t k, int64_t e_n, int64_t b) {
    int64_t h_align = align_up(h, 32 / b);
    int64_t idx = k > 256 ? k : k == 0 ? 0 : ((t_n + AIV_CORES - 1) / AIV_CORES * k < align_down(256, k)
                                                 ? (t_n + AIV_CORES - 1) / AIV_CORES * k
                                                 : align_down(256, k));
    int64_t idx_align = align_up(idx, 32 / b), e_align = align_up(e_n, 32);
    int64_t tmp = (UB_BYTES - e_align - e_align * b - b * idx_align - 8 * idx_align) / (6 * b + 12);
    if (tmp < 1) return -1;
    return tmp >= h_align ? h_align : align_down(tmp, 32 / b);
}

static int64_t chunk_pad(int64_t h, int64_t b) {
    int64_t h_align = align_up(h, 32 / b), tmp = (UB_BYTES - 32 - 2048) / (2 * (8 + b));
    return tmp >= h_align ? h_align : align_down(tmp, 32 / b);
}

/* acc + r where acc is the running sum (a NaN running sum is kept, made quiet: the row kernels' rule). */
static float add_running(float acc, float r) {
    uint32_t u;
    memcpy(&u, &acc, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        u |= 0x400000u;
        memcpy(&acc, &u, 4);
        return acc;
    }
    return acc + r;
}

static void store2(const aclStubTensorDesc *t, int64_t i, int64_t j, float f) {
    void *p = aclStubElem2(t, i, j);
    if (t->dtype == ACL_FLOAT) {
        memcpy(p, &f, 4);
        return;
    }
    uint16_t h = t->dtype == ACL_BF16 ? aclStubF32ToBf16(f) : aclStubF32ToF16(f);
    memcpy(p, &h, 2);
}

/* Per-thread rows: the gradient row as stored (graw, in gs when strided) and as float (g), a product row, and
 * scratch for a strided permuted row. */
typedef struct {
    float *g, *prod;
    void *scratch, *gs;
    const void *graw;
} Rows;

static bool rows_alloc(Rows *r, int64_t h) {
    size_t n = (size_t)(h > 0 ? h : 1);
    r->g = malloc(n * sizeof(float));
    r->prod = malloc(n * sizeof(float));
    r->scratch = malloc(n * sizeof(float));
    r->gs = malloc(n * sizeof(float));
    r->graw = NULL;
    return r->g && r->prod && r->scratch && r->gs;
}

static void rows_free(Rows *r) {
    free(r->g);
    free(r->prod);
    free(r->scratch);
    free(r->gs);
}

/* permutedTokensGradOut[row] = narrow(g * p), g the float gradient row of its token. */
static void write_token_grad(const State *s, Rows *r, int64_t row, float p) {
    int64_t h = s->grad->dims[1];
    void *dst = aclStubElem2(s->out, row, 0); /* outputs are contiguous */
    if (s->out->dtype == ACL_FLOAT) {
        aclStubRowScaleF32(dst, r->graw, ACL_FLOAT, p, h);
        return;
    }
    if (s->grad->dtype == s->out->dtype) { /* one weighted term: widened, multiplied and narrowed in one pass */
        aclStubTerms x = {&r->graw, &p, 1, false};
        aclStubRowSumTerms(dst, &x, 1, s->out->dtype, h, false, NULL);
        return;
    }
    aclStubRowScaleF32(r->prod, r->graw, s->grad->dtype, p, h);
    aclStubRowStoreF32(dst, r->prod, s->out->dtype, h);
}

/* The probs gradient <permuted[row], g> in the kernel's order: per hidden chunk a device reduction; non-pad adds
 * the chunk sums to +0.0 in order, pad reduces the chunk sums with the same tree. */
static float probs_grad(const State *s, Rows *r, int64_t row) {
    int64_t h = s->grad->dims[1], chunk = s->plan->chunk;
    aclStubRowMulWidenF32(r->prod, rm_load_row(s->permuted, row, 0, h, r->scratch), s->permuted->dtype, r->g, h);
    if (!s->plan->pad) {
        float acc = 0.0f;
        for (int64_t c0 = 0; c0 < h; c0 += chunk)
            acc = add_running(acc, aclStubReduceSumF32(r->prod + c0, h - c0 < chunk ? h - c0 : chunk));
        return acc;
    }
    int64_t n = 0;
    for (int64_t c0 = 0; c0 < h; c0 += chunk, n++)
        r->prod[n] = aclStubReduceSumF32(r->prod + c0, h - c0 < chunk ? h - c0 : chunk); /* n <= c0: no overlap */
    return aclStubReduceSumF32(r->prod, n);
}

static void load_grad(const State *s, Rows *r, int64_t t) {
    int64_t h = s->grad->dims[1];
    r->graw = rm_load_row(s->grad, t, 0, h, r->gs);
    aclStubRowLoadF32(r->g, r->graw, s->grad->dtype, h);
}

/* ---- probs given, non-pad: per token, its selected experts ascending, the first min(K, count) ---- */

static void experts_range(void *arg, int64_t t0, int64_t t1) {
    const State *s = arg;
    int64_t k_n = s->plan->top_k, e_n = s->map->dims[1], s1 = s->map->strides[1];
    int64_t *expert = (int64_t *)s->expert;
    for (int64_t t = t0; t < t1; t++) {
        const uint8_t *row = rm_row(s->map, t);
        int64_t k = 0;
        for (int64_t e = rm_next_set(row, s1, 0, e_n); e < e_n && k < k_n; e = rm_next_set(row, s1, e + 1, e_n))
            expert[t * k_n + k++] = e;
        for (; k < k_n; k++) expert[t * k_n + k] = -1;
    }
}

static void non_pad_range(void *arg, int64_t t0, int64_t t1) {
    const State *s = arg;
    int64_t k_n = s->plan->top_k, p = s->out->dims[0];
    Rows r;
    bool ok = rows_alloc(&r, s->grad->dims[1]);
    if (!ok) __atomic_store_n(&((State *)arg)->failed, 1, __ATOMIC_RELAXED);
    for (int64_t t = t0; t < t1 && ok; t++) {
        load_grad(s, &r, t);
        for (int64_t k = 0; k < k_n; k++) {
            int64_t slot = t * k_n + k, e = s->expert[slot], row = aclStubIndex1(s->out_index, slot);
            if (e < 0 || row < 0 || row >= p) continue;
            if (s->probs_out) store2(s->probs_out, t, e, probs_grad(s, &r, row));
            if (s->last[row] == slot) write_token_grad(s, &r, row, aclStubLoad2F32(s->probs, t, e));
        }
    }
    rows_free(&r);
}

/* ---- probs given, pad: position i moves row outIndex[i] of token permuteTokenId[i], expert row / cap ---- */

static void pad_range(void *arg, int64_t i0, int64_t i1) {
    const State *s = arg;
    int64_t p = s->out->dims[0], t_n = s->plan->t_n, cap = s->plan->cap;
    int64_t e_n = s->probs->dims[1];
    Rows r;
    bool ok = rows_alloc(&r, s->grad->dims[1]);
    if (!ok) __atomic_store_n(&((State *)arg)->failed, 1, __ATOMIC_RELAXED);
    for (int64_t i = i0; i < i1 && ok; i++) {
        int64_t row = aclStubIndex1(s->out_index, i), t = aclStubIndex1(s->token_id, i);
        if (row < 0 || row >= p || row >= e_n * cap || t < 0 || t >= t_n) continue;
        int64_t e = row / cap;
        bool pg = s->probs_out && s->last_pg[t * e_n + e] == i, tg = s->last[row] == i;
        if (!pg && !tg) continue;
        load_grad(s, &r, t);
        if (pg) store2(s->probs_out, t, e, probs_grad(s, &r, row));
        if (tg) write_token_grad(s, &r, row, aclStubLoad2F32(s->probs, t, e));
    }
    rows_free(&r);
}

static void zero_rows(void *arg, int64_t t0, int64_t t1) {
    const aclStubTensorDesc *o = arg;
    for (int64_t t = t0; t < t1; t++) memset(aclStubElem2(o, t, 0), 0, (size_t)o->dims[1] * aclDataTypeSize(o->dtype));
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *plan = call->plan;
    State s = {aclStubOpTensor(call, GRAD),     aclStubOpTensor(call, OUT_INDEX), aclStubOpTensor(call, TOKEN_ID),
               aclStubOpTensor(call, MAP),      aclStubOpTensor(call, PERMUTED),  aclStubOpTensor(call, PROBS),
               aclStubOpTensor(call, OUT),      aclStubOpTensor(call, PROBS_OUT), plan,
               NULL,                            NULL,                             NULL, 0};
    int64_t p = s.out_index->dims[0], t_n = plan->t_n;
    int64_t *last = aclStubKernelScratch(call, ((size_t)s.out->dims[0] + 1) * sizeof *last);
    if (!last) return aclStubKernelOutOfMemory(call);
    for (int64_t r = 0; r < s.out->dims[0]; r++) last[r] = -1;
    s.last = last;
    if (s.probs_out)
        aclStubParallelFor(s.probs_out->dims[0], 1 + 65536 / (s.probs_out->dims[1] + 1), zero_rows,
                           (void *)s.probs_out);
    if (s.grad->dims[1] == 0) return OK; /* H = 0: no row to write, every dot product is the +0.0 just written */

    if (!s.probs) {
        /* Byte copies of the gradient rows; for rows written twice (never by a real forward) the last i wins. */
        int64_t k = plan->pad ? 0 : plan->top_k;
        for (int64_t i = 0; i < p; i++) {
            int64_t row = aclStubIndex1(s.out_index, i), src = plan->pad ? aclStubIndex1(s.token_id, i) : i / k;
            if (row >= 0 && row < p && src >= 0 && src < t_n) last[row] = src;
        }
        for (int64_t r = 0; r < p; r++)
            if (last[r] < 0) last[r] = ACLSTUB_ROW_KEEP;
        aclStubCopyRows(s.out, 0, s.grad, last, p);
    } else if (!plan->pad) {
        int64_t k_n = plan->top_k;
        int64_t *expert = aclStubKernelScratch(call, ((size_t)p + 1) * sizeof *expert);
        if (!expert) return aclStubKernelOutOfMemory(call);
        s.expert = expert;
        aclStubParallelFor(t_n, 1 + 65536 / (s.map->dims[1] + 1), experts_range, &s);
        for (int64_t slot = 0; slot < t_n * k_n; slot++) {
            int64_t row = aclStubIndex1(s.out_index, slot);
            if (expert[slot] >= 0 && row >= 0 && row < p) last[row] = slot;
        }
        aclStubParallelFor(t_n, 1 + 65536 / (k_n * s.grad->dims[1] + 1), non_pad_range, &s);
    } else {
        int64_t e_n = s.probs->dims[1];
        /* The device's kernel divides the row number by the capacity: a fault, reported at synchronisation. */
        if (plan->cap == 0 && p > 0)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "integer division by zero: the capacity P / E = %lld / "
                                     "%lld is 0 in drop-and-pad mode", (long long)p, (long long)e_n);
        int64_t *last_pg = NULL;
        if (s.probs_out) {
            last_pg = aclStubKernelScratch(call, ((size_t)(t_n * e_n) + 1) * sizeof *last_pg);
            if (!last_pg) return aclStubKernelOutOfMemory(call);
            for (int64_t i = 0; i < t_n * e_n; i++) last_pg[i] = -1;
        }
        s.last_pg = last_pg;
        for (int64_t i = 0; i < p; i++) {
            int64_t row = aclStubIndex1(s.out_index, i), t = aclStubIndex1(s.token_id, i);
            if (row < 0 || row >= e_n * plan->cap || t < 0 || t >= t_n) continue; /* no expert past E x capacity */
            last[row] = i;
            if (last_pg) last_pg[t * e_n + row / plan->cap] = i;
        }
        aclStubParallelFor(p, 1 + 65536 / (2 * s.grad->dims[1] + 1), pad_range, &s);
    }
    return s.failed ? aclStubKernelOutOfMemory(call) : OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *grad = aclStubOpTensor(c, GRAD), *oi = aclStubOpTensor(c, OUT_INDEX);
    const aclStubTensorDesc *tid = aclStubOpTensor(c, TOKEN_ID), *map = aclStubOpTensor(c, MAP);
    const aclStubTensorDesc *x = aclStubOpTensor(c, PERMUTED), *probs = aclStubOpTensor(c, PROBS);
    const aclStubTensorDesc *out = aclStubOpTensor(c, OUT), *probs_out = aclStubOpTensor(c, PROBS_OUT);
    bool pad = aclStubOpBool(c, DROP_AND_PAD);
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;

    if (aclStubNumel(out) == 0 && aclStubNumel(probs_out) == 0) return aclStubOpNothingToDo(c);
    ACLSTUB_RETURN_ERROR_IF(grad->ndim != 2, c, TILING, "unpermutedTokensGrad must be 2-D (T, H), got %u-D",
                            grad->ndim);
    ACLSTUB_RETURN_ERROR_IF(oi->ndim != 1, c, TILING, "outIndex must be 1-D (P,), got %u-D", oi->ndim);
    ACLSTUB_RETURN_ERROR_IF(tid->ndim != 1, c, TILING, "permuteTokenId must be 1-D (P,), got %u-D", tid->ndim);
    ACLSTUB_RETURN_ERROR_IF(oi->dims[0] != tid->dims[0], c, TILING, "outIndex and permuteTokenId must have the same "
                            "length, got %lld and %lld", (long long)oi->dims[0], (long long)tid->dims[0]);
    int64_t t_n = grad->dims[0], h = grad->dims[1], p = oi->dims[0], b = (int64_t)aclDataTypeSize(grad->dtype);
    ACLSTUB_RETURN_ERROR_IF(!probs && t_n == 0, c, TILING, "unpermutedTokensGrad has no tokens (T = 0)");
    Plan *plan = c->plan;
    *plan = (Plan){t_n, 0, 0, 0, pad};
    int64_t e_n = 0;
    if (probs) {
        ACLSTUB_RETURN_ERROR_IF(!map || map->ndim != 2, c, TILING, "routingMapOptional must be a 2-D (T, E) tensor "
                                "when probsOptional is given");
        ACLSTUB_RETURN_ERROR_IF(!x || x->ndim != 2, c, TILING, "permutedTokensOptional must be a 2-D (P, H) tensor "
                                "when probsOptional is given");
        ACLSTUB_RETURN_ERROR_IF(probs->ndim != 2, c, TILING, "probsOptional must be 2-D (T, E), got %u-D", probs->ndim);
        e_n = probs->dims[1];
        if (pad) {
            ACLSTUB_RETURN_ERROR_IF(e_n == 0, c, TILING, "probsOptional has no experts (E = 0)");
            plan->cap = p / e_n;
            ACLSTUB_RETURN_ERROR_IF(plan->cap > t_n, c, TILING, "capacity P / E = %lld exceeds the number of tokens "
                                    "T = %lld", (long long)plan->cap, (long long)t_n);
            plan->chunk = chunk_pad(h, b);
            int64_t chunks = h ? (h + plan->chunk - 1) / plan->chunk : 0;
            ACLSTUB_RETURN_ERROR_IF(align_up(chunks, 8) > 512, c, TILING, "H = %lld needs too many hidden chunks",
                                    (long long)h);
        } else {
            ACLSTUB_RETURN_ERROR_IF(t_n == 0, c, TILING, "unpermutedTokensGrad has no tokens (T = 0)");
            plan->top_k = p / t_n;
            ACLSTUB_RETURN_ERROR_IF(plan->top_k > 512, c, TILING, "topK = P / T = %lld exceeds 512",
                                    (long long)plan->top_k);
            ACLSTUB_RETURN_ERROR_IF(plan->top_k > e_n, c, TILING, "topK = P / T = %lld exceeds the number of experts "
                                    "E = %lld", (long long)plan->top_k, (long long)e_n);
            plan->chunk = chunk_non_pad(h, t_n, plan->top_k, e_n, b);
            ACLSTUB_RETURN_ERROR_IF(plan->chunk < 0, c, TILING, "routingMap too large: E = %lld experts leave no "
                                    "room for a hidden chunk", (long long)e_n);
        }
    } else if (!pad) {
        plan->top_k = p / t_n;
    }
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[0] != p || out->dims[1] != h, c, TILING,
                            "permutedTokensGradOut must have shape (P, H) = (%lld, %lld)", (long long)p, (long long)h);
    ACLSTUB_RETURN_ERROR_IF(!pad && (t_n == 0 || p % t_n != 0), c, TILING, "P = %lld must be a multiple of T = %lld "
                            "(P = T * topK)", (long long)p, (long long)t_n);
    if (probs) {
        ACLSTUB_RETURN_ERROR_IF(probs->dims[0] != t_n, c, TILING, "probsOptional must have T = %lld rows, got %lld",
                                (long long)t_n, (long long)probs->dims[0]);
        ACLSTUB_RETURN_ERROR_IF(map->dims[0] != t_n || map->dims[1] != e_n, c, TILING, "routingMapOptional must have "
                                "the shape of probsOptional (%lld, %lld)", (long long)t_n, (long long)e_n);
        ACLSTUB_RETURN_ERROR_IF(x->dims[0] != p || x->dims[1] != h, c, TILING, "permutedTokensOptional must have shape "
                                "(P, H) = (%lld, %lld)", (long long)p, (long long)h);
        ACLSTUB_RETURN_ERROR_IF(probs_out && (probs_out->ndim != 2 || probs_out->dims[0] != t_n ||
                                              probs_out->dims[1] != e_n),
                                c, TILING, "probsGradOutOptional must have shape (T, E) = (%lld, %lld)",
                                (long long)t_n, (long long)e_n);
        /* No rule that P be a multiple of E: the vendor's tiling accepts even capacity P / E = 0, whose kernel
         * then divides by zero (phase 2 fails, as on a device); rows past E x capacity are never read. */
        ACLSTUB_RETURN_ERROR_IF(!pad && plan->chunk == 0 && h > 0, c, TILING, "no room for a hidden chunk of "
                                "H = %lld", (long long)h);
        if (pad) aclStubOpIgnore(c, MAP); /* padded mode takes the experts from the rows, not the map */
        if (!pad) aclStubOpIgnore(c, TOKEN_ID);
    } else {
        /* Without probs only the token gradient is computed: the map, the permuted rows and the probs
         * gradient output are neither read nor written. */
        aclStubOpIgnore(c, MAP);
        aclStubOpIgnore(c, PERMUTED);
        aclStubOpIgnore(c, PROBS_OUT);
        if (!pad) aclStubOpIgnore(c, TOKEN_ID);
    }
    return OK;
}

static const aclStubOpDef OP = {"aclnnMoeTokenUnpermuteWithRoutingMapGrad", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check,
                                kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMoeTokenUnpermuteWithRoutingMapGrad, OP, (const aclTensor *, unpermutedTokensGrad),
                  (const aclTensor *, outIndex), (const aclTensor *, permuteTokenId),
                  (const aclTensor *, routingMapOptional), (const aclTensor *, permutedTokensOptional),
                  (const aclTensor *, probsOptional), (bool, dropAndPad), (const aclIntArray *, restoreShapeOptional),
                  (const aclTensor *, permutedTokensGradOut), (const aclTensor *, probsGradOutOptional))
