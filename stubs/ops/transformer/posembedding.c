/*
 * Rotary position embeddings of ops-transformer posembedding/: RotaryPositionEmbedding and its grad,
 * ApplyRotaryPosEmb (V1, V2: in place on query and key), RopeWithSinCosCache (vLLM's rotary embedding from a
 * cos/sin cache indexed by positions).
 *
 * Every mode is one table over the head dimension: y[j] = x[j] * cos[c(j)] + sign(j) * x[p(j)] * sin[c(j)]
 * (interleave-half reads x[a(j)] instead of x[j]), with p the rotation partner of j (half: j +- D/2;
 * interleave: the other element of the pair; quarter: j +- D/4 within each half), computed in float32 (each
 * product rounded, then the sum) and rounded once to the output dtype. The grad is the transpose of the same
 * table; dcos and dsin sum dy * x and dy * sign * x[p] over the dimensions cos and sin broadcast, in row order.
 */
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_apply_rotary_pos_emb.h"
#include "aclnnop/aclnn_apply_rotary_pos_emb_v2.h"
#include "aclnnop/aclnn_rope_with_sin_cos_cache.h"
#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "aclnnop/aclnn_rotary_position_embedding_grad.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define MAX_D 4096

enum { M_HALF, M_INTERLEAVE, M_QUARTER, M_INTERLEAVE_HALF };

/* The table of one mode over d elements (rot of them rotated, the rest passed through): for output j, the
 * element read with cos (a), the partner read with sin (p), its sign, and the cos/sin column (c, -1: pass). */
typedef struct {
    int32_t a[MAX_D], p[MAX_D], c[MAX_D];
    float sign[MAX_D];
} Table;

static void make_table(Table *t, int mode, int64_t d, int64_t rot, bool cache_cols) {
    int64_t h = rot / 2, q = rot / 4;
    for (int64_t j = 0; j < d; j++) {
        t->a[j] = (int32_t)j, t->p[j] = (int32_t)j, t->sign[j] = 0.0f, t->c[j] = -1;
        if (j >= rot) continue;
        t->c[j] = (int32_t)j;
        switch (mode) {
        case M_HALF:
            t->p[j] = (int32_t)(j < h ? j + h : j - h), t->sign[j] = j < h ? -1.0f : 1.0f;
            if (cache_cols) t->c[j] = (int32_t)(j % h);
            break;
        case M_INTERLEAVE:
            t->p[j] = (int32_t)(j ^ 1), t->sign[j] = j % 2 ? 1.0f : -1.0f;
            if (cache_cols) t->c[j] = (int32_t)(j / 2);
            break;
        case M_QUARTER: {
            int64_t blk = j / q;
            t->p[j] = (int32_t)(blk % 2 ? j - q : j + q), t->sign[j] = blk % 2 ? 1.0f : -1.0f;
            break;
        }
        default: /* interleave-half: part1 = (x[::2], x[1::2]), part2 = (-x[1::2], x[::2]) */
            t->a[j] = (int32_t)(j < h ? 2 * j : 2 * (j - h) + 1);
            t->p[j] = (int32_t)(j < h ? 2 * j + 1 : 2 * (j - h));
            t->sign[j] = j < h ? -1.0f : 1.0f;
            break;
        }
    }
}

/* ---- a rotation problem ------------------------------------------------------------------------------------- */

/* x rows (rows, d) with the cos/sin row of each x row, in float32 through the views */
typedef struct {
    const Table *t;
    int64_t rows, d;
    const aclStubTensorDesc *x, *cos, *sin, *out; /* out may be x (in place) */
    const aclStubTensorDesc *pos;                 /* RopeWithSinCosCache: positions (cos = sin = the cache) */
    int64_t heads, cache_half;                    /* the cache: heads per token, the cos half's width */
    int failed;
} Rot;

/* element offset (in elements) of (row, col) of a view whose last dimension is the column: leading indices of
 * `like`'s row, broadcast where t has size 1 */
static int64_t row_offset(const aclStubTensorDesc *t, const aclStubTensorDesc *like, int64_t row) {
    int64_t off = t->offset;
    for (uint32_t k = like->ndim - 1; k-- > 0;) {
        int64_t i = row % like->dims[k];
        row /= like->dims[k];
        uint32_t tk = k + t->ndim - like->ndim;
        if (k + t->ndim >= like->ndim && t->dims[tk] != 1) off += i * t->strides[tk];
    }
    return off;
}

static void load(float *dst, const aclStubTensorDesc *t, int64_t off, int64_t n) {
    size_t es = aclDataTypeSize(t->dtype);
    aclStubCastStrided(dst, 4, ACL_FLOAT, (const char *)t->data + off * (int64_t)es, t->strides[t->ndim - 1] *
                       (int64_t)es, t->dtype, n);
}

static void store(const aclStubTensorDesc *t, int64_t off, const float *src, int64_t n) {
    size_t es = aclDataTypeSize(t->dtype);
    aclStubCastStrided((char *)t->data + off * (int64_t)es, t->strides[t->ndim - 1] * (int64_t)es, t->dtype, src, 4,
                       ACL_FLOAT, n);
}

/* cos and sin of x row r into c, s (d floats, indexed by the table's column) */
static void load_cs(const Rot *r, int64_t row, float *c, float *s) {
    if (r->pos) {
        int64_t token = row / r->heads;
        int64_t p = aclStubIndex1(r->pos, token);
        const aclStubTensorDesc *cache = r->cos;
        int64_t off = cache->offset + p * cache->strides[0];
        load(c, cache, off, r->cache_half);
        load(s, cache, off + r->cache_half * cache->strides[1], r->cache_half);
        return;
    }
    load(c, r->cos, row_offset(r->cos, r->x, row), r->d);
    load(s, r->sin, row_offset(r->sin, r->x, row), r->d);
}

static void rotate_rows(void *arg, int64_t begin, int64_t end) {
    Rot *r = arg;
    const Table *t = r->t;
    int64_t d = r->d;
    float *buf = malloc((size_t)(4 * d) * sizeof(float));
    if (!buf) {
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *x = buf, *c = buf + d, *s = buf + 2 * d, *y = buf + 3 * d;
    for (int64_t row = begin; row < end; row++) {
        int64_t xo = row_offset(r->x, r->x, row);
        load(x, r->x, xo, d);
        load_cs(r, row, c, s);
        for (int64_t j = 0; j < d; j++) {
            int32_t k = t->c[j];
            if (k < 0) {
                y[j] = x[j];
                continue;
            }
            float u = x[t->a[j]] * c[k], v = (t->sign[j] * x[t->p[j]]) * s[k];
            y[j] = u + v;
        }
        store(r->out, row_offset(r->out, r->out, row), y, d);
    }
    free(buf);
}

/* ---- RotaryPositionEmbedding and ApplyRotaryPosEmb ---------------------------------------------------------- */

static aclnnStatus check_broadcast(aclStubOpCall *c, int ic, const aclStubTensorDesc *x, const char *xname) {
    const aclStubTensorDesc *t = aclStubOpTensor(c, ic);
    char a[128], b[128];
    bool ok = t->ndim == x->ndim && t->dims[t->ndim - 1] == x->dims[x->ndim - 1];
    for (uint32_t k = 0; ok && k + 1 < x->ndim; k++) ok = t->dims[k] == 1 || t->dims[k] == x->dims[k];
    ACLSTUB_RETURN_ERROR_IF(!ok, c, INVALID, "%s has shape %s; it must broadcast to %s's %s (each dimension 1 or "
                            "equal, the last equal)", aclStubOpName(c, ic), aclStubShapeText(t->dims, t->ndim, a,
                            sizeof a), xname, aclStubShapeText(x->dims, x->ndim, b, sizeof b));
    return OK;
}

static aclnnStatus check_d(aclStubOpCall *c, int64_t d, int mode, const char *name) {
    ACLSTUB_RETURN_ERROR_IF(d < 1 || d > MAX_D, c, INVALID, "%s's last dimension %lld must be in [1, %d]", name,
                            (long long)d, MAX_D);
    int64_t div = mode == M_QUARTER ? 4 : 2;
    ACLSTUB_RETURN_ERROR_IF(d % div != 0, c, INVALID, "%s's last dimension %lld must be a multiple of %lld in this "
                            "mode", name, (long long)d, (long long)div);
    return OK;
}

typedef struct {
    int mode;
} RopePlan;

enum { RX, RCOS, RSIN, RMODE, ROUT };
static const aclStubParam P_ROPE[] = {
    [RX] = {"x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, 0, 1, 8},
    [RCOS] = {"cos", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "x", 0, 1, 8},
    [RSIN] = {"sin", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "x", 0, 1, 8},
    [RMODE] = {"mode", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [ROUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "x", ACLSTUB_ANY_LAYOUT, 0, 0},
};

static aclnnStatus rope_check(aclStubOpCall *c) {
    const aclStubTensorDesc *x = aclStubOpTensor(c, RX), *out = aclStubOpTensor(c, ROUT);
    int64_t mode = aclStubOpInt(c, RMODE);
    ACLSTUB_RETURN_ERROR_IF(mode < 0 || mode > 3, c, INVALID, "mode = %lld must be 0 (half), 1 (interleave), 2 "
                            "(quarter) or 3 (interleave-half)", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, x->dims, x->ndim), c, INVALID, "out must have "
                            "x's shape");
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    ACLSTUB_TRY(check_d(c, x->dims[x->ndim - 1], (int)mode, "x"));
    ACLSTUB_TRY(check_broadcast(c, RCOS, x, "x"));
    ACLSTUB_TRY(check_broadcast(c, RSIN, x, "x"));
    ((RopePlan *)c->plan)->mode = (int)mode;
    return OK;
}

static aclnnStatus run_rotation(const aclStubOpCall *c, Rot *r, int mode, int64_t rot, bool cache_cols) {
    Table *t = aclStubKernelScratch(c, sizeof(Table));
    if (t == NULL) return aclStubKernelOutOfMemory(c);
    make_table(t, mode, r->d, rot, cache_cols);
    r->t = t;
    aclStubParallelFor(r->rows, 1 + 16384 / r->d, rotate_rows, r);
    return r->failed ? aclStubKernelOutOfMemory(c) : OK;
}

static aclnnStatus rope_kernel(const aclStubOpCall *c) {
    const aclStubTensorDesc *x = aclStubOpTensor(c, RX);
    int64_t d = x->dims[x->ndim - 1];
    Rot r = {NULL, aclStubNumel(x) / d, d, x, aclStubOpTensor(c, RCOS), aclStubOpTensor(c, RSIN),
             aclStubOpTensor(c, ROUT), NULL, 1, 0, 0};
    return run_rotation(c, &r, ((const RopePlan *)c->plan)->mode, d, false);
}

static const aclStubOpDef OP_ROPE = {"aclnnRotaryPositionEmbedding", P_ROPE, ACLSTUB_LEN(P_ROPE), NULL, rope_check,
                                     rope_kernel, sizeof(RopePlan)};
ACLSTUB_DEFINE_OP(aclnnRotaryPositionEmbedding, OP_ROPE, (const aclTensor *, x), (const aclTensor *, cos),
                  (const aclTensor *, sin), (int64_t, mode), (aclTensor *, out))

/* ApplyRotaryPosEmb: query and key in place; V1 is half mode, V2 names its mode */
enum { AQ, AK, ACOS, ASIN, ALAYOUT, AMODE };
#define APPLY_PARAMS                                                                                        \
    [AQ] = {"queryRef", ACLSTUB_INPLACE, ACLSTUB_DT_FLOATS, NULL, ACLSTUB_ANY_LAYOUT, 4, 4},                 \
    [AK] = {"keyRef", ACLSTUB_INPLACE, ACLSTUB_DT_FLOATS, "queryRef", ACLSTUB_ANY_LAYOUT, 4, 4},             \
    [ACOS] = {"cos", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "queryRef", 0, 4, 4},                                 \
    [ASIN] = {"sin", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "queryRef", 0, 4, 4},                                 \
    [ALAYOUT] = {"layout", ACLSTUB_INT, 0, NULL, 0, 0, 0}
static const aclStubParam P_APPLY[] = {APPLY_PARAMS};
static const aclStubParam P_APPLY2[] = {APPLY_PARAMS, [AMODE] = {"rotaryMode", ACLSTUB_STRING, 0, NULL, 0, 0, 0}};

static aclnnStatus apply_check(aclStubOpCall *c) {
    const aclStubTensorDesc *q = aclStubOpTensor(c, AQ), *k = aclStubOpTensor(c, AK);
    int64_t layout = aclStubOpInt(c, ALAYOUT);
    bool v2 = c->op->num_params > AMODE;
    ACLSTUB_RETURN_ERROR_IF(v2 ? layout < 1 || layout > 3 : layout != 1, c, INVALID, "layout = %lld is not supported "
                            "(%s)", (long long)layout, v2 ? "1 BSND, 2 SBND, 3 BNSD" : "1 BSND");
    int mode = M_HALF;
    if (v2) {
        const char *m = c->v[AMODE].s ? c->v[AMODE].s : "";
        mode = strcmp(m, "half") == 0 ? M_HALF : strcmp(m, "interleave") == 0 ? M_INTERLEAVE
               : strcmp(m, "quarter") == 0 ? M_QUARTER : -1;
        ACLSTUB_RETURN_ERROR_IF(mode < 0, c, INVALID, "rotaryMode '%s' must be \"half\", \"interleave\" or \"quarter\"",
                                m);
    }
    int nd = layout == 3 ? 1 : 2; /* the head axis */
    for (int i = 0; i < 4; i++)
        ACLSTUB_RETURN_ERROR_IF(i != nd && q->dims[i] != k->dims[i], c, INVALID, "queryRef and keyRef must agree "
                                "except in their head dimension (dimension %d: %lld and %lld)", i,
                                (long long)q->dims[i], (long long)k->dims[i]);
    if (aclStubNumel(q) == 0 && aclStubNumel(k) == 0) return aclStubOpNothingToDo(c);
    ACLSTUB_TRY(check_d(c, q->dims[3], mode, "queryRef"));
    ACLSTUB_TRY(check_broadcast(c, ACOS, q, "queryRef"));
    ACLSTUB_TRY(check_broadcast(c, ASIN, q, "queryRef"));
    ACLSTUB_TRY(check_broadcast(c, ACOS, k, "keyRef"));
    ((RopePlan *)c->plan)->mode = mode;
    return OK;
}

static aclnnStatus apply_kernel(const aclStubOpCall *c) {
    for (int i = AQ; i <= AK; i++) {
        const aclStubTensorDesc *x = aclStubOpTensor(c, i);
        int64_t d = x->dims[3];
        if (aclStubNumel(x) == 0) continue;
        Rot r = {NULL, aclStubNumel(x) / d, d, x, aclStubOpTensor(c, ACOS), aclStubOpTensor(c, ASIN), x, NULL, 1, 0, 0};
        ACLSTUB_TRY(run_rotation(c, &r, ((const RopePlan *)c->plan)->mode, d, false));
    }
    return OK;
}

static const aclStubOpDef OP_APPLY = {"aclnnApplyRotaryPosEmb", P_APPLY, ACLSTUB_LEN(P_APPLY), NULL, apply_check,
                                      apply_kernel, sizeof(RopePlan)};
static const aclStubOpDef OP_APPLY2 = {"aclnnApplyRotaryPosEmbV2", P_APPLY2, ACLSTUB_LEN(P_APPLY2), NULL, apply_check,
                                       apply_kernel, sizeof(RopePlan)};
ACLSTUB_DEFINE_OP(aclnnApplyRotaryPosEmb, OP_APPLY, (aclTensor *, queryRef), (aclTensor *, keyRef),
                  (const aclTensor *, cos), (const aclTensor *, sin), (int64_t, layout))
ACLSTUB_DEFINE_OP(aclnnApplyRotaryPosEmbV2, OP_APPLY2, (aclTensor *, queryRef), (aclTensor *, keyRef),
                  (const aclTensor *, cos), (const aclTensor *, sin), (int64_t, layout), (char *, rotaryMode))

/* ---- RopeWithSinCosCache ------------------------------------------------------------------------------------- */

enum { CPOS, CQ, CK, CCACHE, CMROPE, CHEAD, CNEOX, CQO, CKO };
static const aclStubParam P_CACHE[] = {
    [CPOS] = {"positions", ACLSTUB_INPUT, ACLSTUB_DT_INDEX, NULL, 0, 1, 1},
    [CQ] = {"queryIn", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, 0, 2, 2},
    [CK] = {"keyIn", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "queryIn", 0, 2, 2},
    [CCACHE] = {"cosSinCache", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "queryIn", 0, 2, 2},
    [CMROPE] = {"mropeSection", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    [CHEAD] = {"headSize", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [CNEOX] = {"isNeoxStyle", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [CQO] = {"queryOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "queryIn", ACLSTUB_ANY_LAYOUT, 0, 0},
    [CKO] = {"keyOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "queryIn", ACLSTUB_ANY_LAYOUT, 0, 0},
};

static aclnnStatus cache_check(aclStubOpCall *c) {
    const aclStubTensorDesc *pos = aclStubOpTensor(c, CPOS), *q = aclStubOpTensor(c, CQ), *k = aclStubOpTensor(c, CK);
    const aclStubTensorDesc *cache = aclStubOpTensor(c, CCACHE);
    int64_t hs = aclStubOpInt(c, CHEAD), t = pos->dims[0];
    ACLSTUB_RETURN_ERROR_IF(c->v[CMROPE].present && c->v[CMROPE].size > 0, c, INVALID, "mropeSection (multimodal "
                            "positions) is not supported by this implementation; pass NULL");
    ACLSTUB_RETURN_ERROR_IF(hs <= 0 || hs > MAX_D, c, INVALID, "headSize = %lld must be in [1, %d]", (long long)hs,
                            MAX_D);
    ACLSTUB_RETURN_ERROR_IF(q->dims[0] != t || k->dims[0] != t, c, INVALID, "queryIn and keyIn must have one row per "
                            "position (%lld)", (long long)t);
    ACLSTUB_RETURN_ERROR_IF(q->dims[1] % hs || k->dims[1] % hs, c, INVALID, "queryIn and keyIn rows (%lld, %lld) must "
                            "be whole heads of headSize = %lld", (long long)q->dims[1], (long long)k->dims[1],
                            (long long)hs);
    int64_t rot = cache->dims[1];
    ACLSTUB_RETURN_ERROR_IF(rot < 2 || rot % 2 || rot > hs, c, INVALID, "cosSinCache.shape[1] = %lld (the rotary "
                            "dimension, cos then sin) must be even and at most headSize = %lld", (long long)rot,
                            (long long)hs);
    const aclStubTensorDesc *qo = aclStubOpTensor(c, CQO), *ko = aclStubOpTensor(c, CKO);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(qo->dims, qo->ndim, q->dims, q->ndim) ||
                            !aclStubShapeEqual(ko->dims, ko->ndim, k->dims, k->ndim), c, INVALID,
                            "queryOut and keyOut must have the shapes of queryIn and keyIn");
    if (t == 0) return aclStubOpNothingToDo(c);
    return OK;
}

/* positions out of the cache's range read nothing: checked in the kernel (device data) */
static aclnnStatus cache_kernel(const aclStubOpCall *c) {
    const aclStubTensorDesc *pos = aclStubOpTensor(c, CPOS), *cache = aclStubOpTensor(c, CCACHE);
    for (int64_t i = 0; i < pos->dims[0]; i++) {
        int64_t p = aclStubIndex1(pos, i);
        if (p < 0 || p >= cache->dims[0])
            return aclStubKernelFail(c, ACLNN_ERR_INNER, "positions[%lld] = %lld is outside the cache's %lld rows",
                                     (long long)i, (long long)p, (long long)cache->dims[0]);
    }
    int64_t hs = aclStubOpInt(c, CHEAD), rot = cache->dims[1];
    int mode = aclStubOpBool(c, CNEOX) ? M_HALF : M_INTERLEAVE;
    for (int i = 0; i < 2; i++) {
        const aclStubTensorDesc *x = aclStubOpTensor(c, i ? CK : CQ), *o = aclStubOpTensor(c, i ? CKO : CQO);
        int64_t heads = x->dims[1] / hs;
        /* rows of headSize elements: views (T, heads, hs) of the 2-D tensors */
        aclStubTensorDesc xv = *x, ov = *o;
        xv.ndim = ov.ndim = 3;
        xv.dims[1] = ov.dims[1] = heads, xv.dims[2] = ov.dims[2] = hs;
        xv.strides[2] = x->strides[1], xv.strides[1] = x->strides[1] * hs;
        ov.strides[2] = o->strides[1], ov.strides[1] = o->strides[1] * hs;
        Rot r = {NULL, x->dims[0] * heads, hs, &xv, cache, cache, &ov, pos, heads, rot / 2, 0};
        if (r.rows > 0) ACLSTUB_TRY(run_rotation(c, &r, mode, rot, true));
    }
    return OK;
}

static const aclStubOpDef OP_CACHE = {"aclnnRopeWithSinCosCache", P_CACHE, ACLSTUB_LEN(P_CACHE), NULL, cache_check,
                                      cache_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnRopeWithSinCosCache, OP_CACHE, (const aclTensor *, positions), (const aclTensor *, queryIn),
                  (const aclTensor *, keyIn), (const aclTensor *, cosSinCache), (const aclIntArray *, mropeSection),
                  (int64_t, headSize), (bool, isNeoxStyle), (aclTensor *, queryOut), (aclTensor *, keyOut))

/* ---- RotaryPositionEmbeddingGrad ------------------------------------------------------------------------------ */

enum { GDY, GCOS, GSIN, GX, GMODE, GDX, GDCOS, GDSIN };
static const aclStubParam P_GRAD[] = {
    [GDY] = {"dy", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, 0, 1, 8},
    [GCOS] = {"cos", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "dy", 0, 1, 8},
    [GSIN] = {"sin", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "dy", 0, 1, 8},
    [GX] = {"xOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "dy", 0, 0, 8},
    [GMODE] = {"mode", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [GDX] = {"dxOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "dy", ACLSTUB_ANY_LAYOUT, 0, 0},
    [GDCOS] = {"dcosOut", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT_FLOATS, "dy", ACLSTUB_ANY_LAYOUT, 0, 0},
    [GDSIN] = {"dsinOut", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT_FLOATS, "dy", ACLSTUB_ANY_LAYOUT, 0, 0},
};

static aclnnStatus grad_check(aclStubOpCall *c) {
    const aclStubTensorDesc *dy = aclStubOpTensor(c, GDY), *x = aclStubOpTensor(c, GX), *dx = aclStubOpTensor(c, GDX);
    int64_t mode = aclStubOpInt(c, GMODE);
    ACLSTUB_RETURN_ERROR_IF(mode < 0 || mode > 3, c, INVALID, "mode = %lld must be 0 (half), 1 (interleave), 2 "
                            "(quarter) or 3 (interleave-half)", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(dx->dims, dx->ndim, dy->dims, dy->ndim), c, INVALID, "dxOut must have "
                            "dy's shape");
    if (x) ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, dy->dims, dy->ndim), c, INVALID, "xOptional "
                                   "must have dy's shape");
    const aclStubTensorDesc *cs = aclStubOpTensor(c, GCOS);
    for (int i = GDCOS; i <= GDSIN; i++) {
        const aclStubTensorDesc *o = aclStubOpTensor(c, i);
        if (o == NULL) continue;
        if (x == NULL) {
            aclStubOpIgnore(c, i);
            continue;
        }
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(o->dims, o->ndim, cs->dims, cs->ndim), c, INVALID, "%s must have "
                                "cos's shape", aclStubOpName(c, i));
    }
    if (aclStubNumel(dy) == 0) return aclStubOpNothingToDo(c);
    ACLSTUB_TRY(check_d(c, dy->dims[dy->ndim - 1], (int)mode, "dy"));
    ACLSTUB_TRY(check_broadcast(c, GCOS, dy, "dy"));
    ACLSTUB_TRY(check_broadcast(c, GSIN, dy, "dy"));
    ((RopePlan *)c->plan)->mode = (int)mode;
    return OK;
}

typedef struct {
    const Table *t;
    const aclStubOpCall *c;
    int64_t rows, d, crows;
    const int64_t *first, *members; /* rows of dy per cos row: members[first[k] .. first[k + 1]) */
    int failed;
} Grad;

/* dx[a(j)] += dy[j] * cos[j]; dx[p(j)] += sign(j) * dy[j] * sin[j] (in j order) */
static void dx_rows(void *arg, int64_t begin, int64_t end) {
    Grad *g = arg;
    const aclStubOpCall *c = g->c;
    const aclStubTensorDesc *dy = aclStubOpTensor(c, GDY), *cs = aclStubOpTensor(c, GCOS), *sn = aclStubOpTensor(c, GSIN);
    const aclStubTensorDesc *dx = aclStubOpTensor(c, GDX);
    int64_t d = g->d;
    float *buf = malloc((size_t)(4 * d) * sizeof(float));
    if (!buf) {
        __atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *y = buf, *co = buf + d, *si = buf + 2 * d, *o = buf + 3 * d;
    for (int64_t r = begin; r < end; r++) {
        load(y, dy, row_offset(dy, dy, r), d);
        load(co, cs, row_offset(cs, dy, r), d);
        load(si, sn, row_offset(sn, dy, r), d);
        memset(o, 0, (size_t)d * sizeof(float));
        for (int64_t j = 0; j < d; j++) o[g->t->a[j]] += y[j] * co[j];
        for (int64_t j = 0; j < d; j++) o[g->t->p[j]] += (g->t->sign[j] * y[j]) * si[j];
        store(dx, row_offset(dx, dx, r), o, d);
    }
    free(buf);
}

/* dcos[k] = sum over its rows of dy * x[a]; dsin[k] = sum of dy * sign * x[p] */
static void dcs_rows(void *arg, int64_t begin, int64_t end) {
    Grad *g = arg;
    const aclStubOpCall *c = g->c;
    const aclStubTensorDesc *dy = aclStubOpTensor(c, GDY), *x = aclStubOpTensor(c, GX);
    const aclStubTensorDesc *dc = aclStubOpTensor(c, GDCOS), *ds = aclStubOpTensor(c, GDSIN);
    int64_t d = g->d;
    float *buf = malloc((size_t)(4 * d) * sizeof(float));
    if (!buf) {
        __atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *y = buf, *xv = buf + d, *ac = buf + 2 * d, *as = buf + 3 * d;
    for (int64_t k = begin; k < end; k++) {
        memset(ac, 0, (size_t)(2 * d) * sizeof(float));
        for (int64_t m = g->first[k]; m < g->first[k + 1]; m++) {
            int64_t r = g->members[m];
            load(y, dy, row_offset(dy, dy, r), d);
            load(xv, x, row_offset(x, x, r), d);
            for (int64_t j = 0; j < d; j++) {
                ac[j] += y[j] * xv[g->t->a[j]];
                as[j] += y[j] * (g->t->sign[j] * xv[g->t->p[j]]);
            }
        }
        /* cos row k: its own contiguous-order index over cos's leading dimensions */
        if (dc) store(dc, row_offset(dc, dc, k), ac, d);
        if (ds) store(ds, row_offset(ds, ds, k), as, d);
    }
    free(buf);
}

static aclnnStatus grad_kernel(const aclStubOpCall *c) {
    const aclStubTensorDesc *dy = aclStubOpTensor(c, GDY), *cs = aclStubOpTensor(c, GCOS);
    int64_t d = dy->dims[dy->ndim - 1], rows = aclStubNumel(dy) / d, crows = aclStubNumel(cs) / d;
    Table *t = aclStubKernelScratch(c, sizeof(Table));
    if (t == NULL) return aclStubKernelOutOfMemory(c);
    make_table(t, ((const RopePlan *)c->plan)->mode, d, d, false);
    Grad g = {t, c, rows, d, crows, NULL, NULL, 0};
    aclStubParallelFor(rows, 1 + 16384 / d, dx_rows, &g);
    if (aclStubOpTensor(c, GX) && (aclStubOpTensor(c, GDCOS) || aclStubOpTensor(c, GDSIN))) {
        /* group the rows of dy by their cos row (a counting sort keeps row order) */
        int64_t *first = aclStubKernelScratch(c, (size_t)(crows + 2) * sizeof(int64_t));
        int64_t *members = aclStubKernelScratch(c, (size_t)(rows + 1) * sizeof(int64_t));
        int64_t *key = aclStubKernelScratch(c, (size_t)(rows + 1) * sizeof(int64_t));
        if (!first || !members || !key) return aclStubKernelOutOfMemory(c);
        memset(first, 0, (size_t)(crows + 2) * sizeof(int64_t));
        for (int64_t r = 0; r < rows; r++) {
            int64_t k = 0, rr = r;
            for (uint32_t dd = dy->ndim - 1, scale = 1; dd-- > 0;) {
                int64_t i = rr % dy->dims[dd];
                rr /= dy->dims[dd];
                if (cs->dims[dd] != 1) k += i * scale;
                scale *= (uint32_t)cs->dims[dd];
            }
            key[r] = k;
            first[k + 2]++;
        }
        for (int64_t k = 0; k < crows; k++) first[k + 2] += first[k + 1];
        for (int64_t r = 0; r < rows; r++) members[first[key[r] + 1]++] = r;
        g.first = first, g.members = members;
        aclStubParallelFor(crows, 1, dcs_rows, &g);
    }
    return g.failed ? aclStubKernelOutOfMemory(c) : OK;
}

static const aclStubOpDef OP_GRAD = {"aclnnRotaryPositionEmbeddingGrad", P_GRAD, ACLSTUB_LEN(P_GRAD), NULL, grad_check,
                                     grad_kernel, sizeof(RopePlan)};
ACLSTUB_DEFINE_OP(aclnnRotaryPositionEmbeddingGrad, OP_GRAD, (const aclTensor *, dy), (const aclTensor *, cos),
                  (const aclTensor *, sin), (const aclTensor *, xOptional), (int64_t, mode), (const aclTensor *, dxOut),
                  (const aclTensor *, dcosOut), (const aclTensor *, dsinOut))
