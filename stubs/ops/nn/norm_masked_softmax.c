/*
 * aclnnMaskedSoftmaxWithRelPosBias (ops-nn norm/masked_softmax_with_rel_pos_bias: the window-attention softmax of
 * Swin Transformer): out = softmax(scaleValue * x + attenMaskOptional + relativePosBias) over the last dimension.
 *
 * x is (B, W, N, S1, S2) or (B * W, N, S1, S2); the mask (W, S1, S2) (or (W, 1, S1, S2), (1, W, 1, S1, S2)) is
 * taken by window w, the bias (N, S1, S2) (or (1, N, S1, S2), (1, 1, N, S1, S2)) by head n. A row is computed in
 * float32 from the widened values, softmax as aclnnSoftmax computes it (max, aclStubExpF32, the sum in the
 * reduction engine's order), rounded once to out's dtype. Entry points are generated: NULL x, relativePosBias or out
 * is 161001; its document puts every dtype, format and shape rule under ACLNN_ERR_INNER_TILING_ERROR (x, the mask,
 * the bias and out one dtype of FLOAT, FLOAT16, BF16). A NULL mask adds nothing (the parameter is optional in the
 * OpDef; the document's 161001 for it is not taken).
 */
#include <math.h>
#include <stdlib.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_masked_softmax_with_rel_pos_bias.h"

#define TILING ACLNN_ERR_INNER_TILING_ERROR
enum { X, MASK, BIAS, SCALE, MODE, OUT };

typedef struct {
    int64_t w, n, s1, s2, rows; /* rows = numel(x) / s2 */
    float scale;
} Plan;

static const aclStubTensorDesc *T(const aclStubOpCall *c, int i) { return c->v[i].tensor; }

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t s = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != s) return false;
        s *= t->dims[d];
    }
    return true;
}

/* n elements of t from row-major element start as float32 (a contiguous tensor: one row load) */
static void load(float *dst, const aclStubTensorDesc *t, int64_t start, int64_t n) {
    if (contiguous(t)) {
        aclStubRowLoadF32(dst, (const char *)t->data + (t->offset + start) * (int64_t)aclDataTypeSize(t->dtype),
                          t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) dst[j] = aclStubLoadPtrF32(t->dtype, aclStubElemAt(t, start + j));
}

static void store(const aclStubTensorDesc *t, int64_t start, const float *src, int64_t n) {
    if (contiguous(t)) {
        aclStubRowStoreF32((char *)t->data + (t->offset + start) * (int64_t)aclDataTypeSize(t->dtype), src, t->dtype,
                           n);
        return;
    }
    for (int64_t j = 0; j < n; j++) aclStubStorePtrF32(t->dtype, aclStubElemAt(t, start + j), src[j]);
}

typedef struct {
    const aclStubOpCall *c;
    const Plan *p;
    int failed;
} Ctx;

static void rows_fn(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const aclStubOpCall *c = x->c;
    const Plan *p = x->p;
    int64_t n = p->s2;
    float *v = malloc((size_t)(2 * n + 1) * sizeof(float)), *t = v ? v + n : NULL;
    if (v == NULL) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    const aclStubTensorDesc *mask = T(c, MASK), *bias = T(c, BIAS), *out = T(c, OUT);
    for (int64_t r = begin; r < end; r++) {
        int64_t s1 = r % p->s1, head = (r / p->s1) % p->n, win = (r / (p->s1 * p->n)) % p->w;
        load(v, T(c, X), r * n, n);
        for (int64_t j = 0; j < n; j++) v[j] *= p->scale;
        if (mask) {
            load(t, mask, (win * p->s1 + s1) * n, n);
            for (int64_t j = 0; j < n; j++) v[j] += t[j];
        }
        load(t, bias, (head * p->s1 + s1) * n, n);
        float m = -INFINITY;
        for (int64_t j = 0; j < n; j++) {
            v[j] += t[j];
            m = v[j] > m || v[j] != v[j] ? v[j] : m;
        }
        for (int64_t j = 0; j < n; j++) t[j] = aclStubExpF32(v[j] - m);
        float sum = aclStubSumF32(t, n);
        for (int64_t j = 0; j < n; j++) v[j] = t[j] / sum;
        store(out, r * n, v, n);
    }
    free(v);
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    Ctx x = {c, c->plan, 0};
    const Plan *p = c->plan;
    aclStubParallelFor(p->rows, p->s2 > 0 ? 1 + 65536 / p->s2 : 1, rows_fn, &x);
    return x.failed ? aclStubKernelOutOfMemory(c) : OK;
}

/* t has `numel` elements in one of the shapes (lead..., a, S1, S2) the document lists: its last two are S1, S2 */
static aclnnStatus window_shape(aclStubOpCall *c, int i, int64_t a, int64_t s1, int64_t s2, int pos5) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    bool ok = t->ndim >= 3 && t->ndim <= 5 && t->dims[t->ndim - 1] == s2 && t->dims[t->ndim - 2] == s1 &&
              aclStubNumel(t) == a * s1 * s2;
    if (ok && t->ndim == 3) ok = t->dims[0] == a;
    if (ok && t->ndim == 4) ok = i == MASK ? t->dims[0] == a && t->dims[1] == 1 : t->dims[0] == 1 && t->dims[1] == a;
    if (ok && t->ndim == 5) ok = t->dims[pos5] == a;
    ACLSTUB_RETURN_ERROR_IF(!ok, c, TILING, "%s's shape does not fit x (%s [%lld, %lld, %lld] or its 4-D/5-D forms)",
                            c->op->params[i].name, i == MASK ? "W, S1, S2" : "N, S1, S2", (long long)a,
                            (long long)s1, (long long)s2);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    Plan *p = c->plan;
    const aclStubTensorDesc *x = T(c, X), *mask = T(c, MASK), *bias = T(c, BIAS), *out = T(c, OUT);
    uint64_t fl = ACLSTUB_DT_FLOATS;
    ACLSTUB_RETURN_ERROR_IF(!(fl & ACLSTUB_DT(x->dtype)), c, TILING, "x has data type %s; must be FLOAT, FLOAT16 or "
                            "BF16", aclStubDtypeName(x->dtype));
    const aclStubTensorDesc *same[] = {mask, bias, out};
    for (int k = 0; k < 3; k++)
        ACLSTUB_RETURN_ERROR_IF(same[k] && same[k]->dtype != x->dtype, c, TILING, "%s must have x's data type %s",
                                c->op->params[k == 0 ? MASK : k == 1 ? BIAS : OUT].name, aclStubDtypeName(x->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 4 && x->ndim != 5, c, TILING, "x has %u dimensions; must have 4 or 5",
                            x->ndim);
    int64_t s2 = x->dims[x->ndim - 1], s1 = x->dims[x->ndim - 2], n = x->dims[x->ndim - 3];
    int64_t w = x->ndim == 5 ? x->dims[1] : mask ? (mask->ndim == 5 ? mask->dims[1] : mask->dims[0]) : 1;
    ACLSTUB_RETURN_ERROR_IF(w <= 0 || (x->ndim == 4 && x->dims[0] % w != 0), c, TILING, "x's first dimension must be "
                            "a multiple of the number of windows W (%lld)", (long long)w);
    ACLSTUB_TRY(window_shape(c, MASK, w, s1, s2, 1));
    ACLSTUB_TRY(window_shape(c, BIAS, n, s1, s2, 2));
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, x->dims, x->ndim), c, TILING, "out has shape %s; "
                            "must be x's %s", aclStubShapeText(out->dims, out->ndim, a, sizeof a),
                            aclStubShapeText(x->dims, x->ndim, b, sizeof b));
    p->w = w, p->n = n, p->s1 = s1, p->s2 = s2;
    p->rows = s2 > 0 ? aclStubNumel(x) / s2 : 0;
    p->scale = (float)aclStubOpFloat(c, SCALE);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static const aclStubParam PARAMS[] = {
    [X] = {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [MASK] = {"attenMaskOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [BIAS] = {"relativePosBias", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SCALE] = {"scaleValue", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [MODE] = {"innerPrecisionMode", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef OP = {"aclnnMaskedSoftmaxWithRelPosBias", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnMaskedSoftmaxWithRelPosBias, OP, (const aclTensor *, x), (const aclTensor *, attenMaskOptional),
                  (const aclTensor *, relativePosBias), (double, scaleValue), (int64_t, innerPrecisionMode),
                  (const aclTensor *, out))
