/*
 * The first-generation MoE routing operators: MoeGatingTopKSoftmax (V1, V2), MoeComputeExpertTokens,
 * MoeInitRouting and MoeFinalizeRouting.
 *
 * Gating: softmax over the last axis in float32 (max subtracted, exponentials and their sum in double, each
 * probability rounded once), then the k largest in descending order, equal values in ascending expert order
 * (V2 with renorm = 1: the k largest logits, then the softmax of those k). A finished row keeps its values and
 * reports expert E. rowIdxOut[i, j] = j * rows + i. InitRouting sorts the N*K slots stably by expert;
 * FinalizeRouting adds x1 (+ x2) and, for k in order, scales[i, k] * (expandedX[row] + bias[expert]), every
 * product and sum rounded to float32.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_moe_compute_expert_tokens.h"
#include "aclnnop/aclnn_moe_finalize_routing.h"
#include "aclnnop/aclnn_moe_gating_top_k.h"
#include "aclnnop/aclnn_moe_gating_top_k_softmax.h"
#include "aclnnop/aclnn_moe_gating_top_k_softmax_v2.h"
#include "aclnnop/aclnn_moe_init_routing.h"
#include "aclnnop/aclnn_moe_init_routing_quant.h"

#define TILING ACLNN_ERR_INNER_TILING_ERROR

static aclnnStatus want_shape(aclStubOpCall *c, int i, const int64_t *dims, uint32_t n) {
    const aclStubTensorDesc *t = aclStubOpTensor(c, i);
    if (t == NULL || aclStubShapeEqual(t->dims, t->ndim, dims, n)) return OK;
    char a[128], b[128];
    return aclStubOpFail(c, TILING, "%s has shape %s; must be %s", aclStubOpName(c, i),
                         aclStubShapeText(t->dims, t->ndim, a, sizeof a), aclStubShapeText(dims, n, b, sizeof b));
}

/* ---- gating ------------------------------------------------------------------------------------------------ */

typedef struct {
    int x, finished, k, renorm, flag, y, idx, row, soft; /* parameter indices (-1: none) */
} GateRow;

typedef struct {
    int64_t rows, e, k;
    int renorm;
    bool soft;
} GatePlan;

typedef struct {
    const aclStubOpCall *c;
    const GateRow *r;
    const GatePlan *p;
    int failed;
} GateCtx;

static void softmax_row(float *out, const float *x, int64_t n) {
    float m = -INFINITY;
    for (int64_t j = 0; j < n; j++) m = x[j] > m ? x[j] : m;
    double s = 0.0;
    for (int64_t j = 0; j < n; j++) s += exp((double)x[j] - (double)m);
    for (int64_t j = 0; j < n; j++) out[j] = (float)(exp((double)x[j] - (double)m) / s);
}

/* the k largest of v (descending; equal values: lower index first) into idx */
static void top_k(const float *v, int64_t n, int64_t k, int32_t *idx, unsigned char *taken) {
    memset(taken, 0, (size_t)n);
    for (int64_t t = 0; t < k; t++) {
        int64_t best = -1;
        for (int64_t j = 0; j < n; j++)
            if (!taken[j] && (best < 0 || v[j] > v[best] || (v[best] != v[best] && v[j] == v[j]))) best = j;
        taken[best] = 1;
        idx[t] = (int32_t)best;
    }
}

static void gate_rows(void *arg, int64_t begin, int64_t end) {
    GateCtx *g = arg;
    const aclStubOpCall *c = g->c;
    const GateRow *r = g->r;
    int64_t e = g->p->e, k = g->p->k, rows = g->p->rows;
    float *buf = malloc((size_t)(2 * e + 2 * k + 2) * sizeof(float));
    int32_t *idx = malloc((size_t)(k + 1) * sizeof(int32_t));
    unsigned char *taken = malloc((size_t)e + 1);
    if (!buf || !idx || !taken) {
        __atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
        free(buf), free(idx), free(taken);
        return;
    }
    float *x = buf, *p = buf + e, *tk = buf + 2 * e, *ts = tk + k;
    const aclStubTensorDesc *xt = aclStubOpTensor(c, r->x), *fin = r->finished >= 0 ? aclStubOpTensor(c, r->finished) : NULL;
    const aclStubTensorDesc *y = aclStubOpTensor(c, r->y), *it = aclStubOpTensor(c, r->idx);
    const aclStubTensorDesc *rt = r->row >= 0 ? aclStubOpTensor(c, r->row) : NULL;
    const aclStubTensorDesc *st = r->soft >= 0 && g->p->soft ? aclStubOpTensor(c, r->soft) : NULL;
    for (int64_t i = begin; i < end; i++) {
        for (int64_t j = 0; j < e; j++) x[j] = aclStubLoadPtrF32(xt->dtype, aclStubElemAt(xt, i * e + j));
        if (g->p->renorm) {
            top_k(x, e, k, idx, taken);
            for (int64_t t = 0; t < k; t++) tk[t] = x[idx[t]];
            softmax_row(ts, tk, k);
        } else {
            softmax_row(p, x, e);
            top_k(p, e, k, idx, taken);
            for (int64_t t = 0; t < k; t++) ts[t] = p[idx[t]];
            if (st)
                for (int64_t j = 0; j < e; j++) *(float *)aclStubElemAt(st, i * e + j) = p[j];
        }
        bool done = fin && *(const uint8_t *)aclStubElemAt(fin, i);
        for (int64_t t = 0; t < k; t++) {
            aclStubStorePtrF32(y->dtype, aclStubElemAt(y, i * k + t), ts[t]);
            *(int32_t *)aclStubElemAt(it, i * k + t) = done ? (int32_t)e : idx[t];
            if (rt) *(int32_t *)aclStubElemAt(rt, i * k + t) = (int32_t)(t * rows + i);
        }
    }
    free(buf), free(idx), free(taken);
}

static aclnnStatus gate_kernel(const aclStubOpCall *c) {
    GateCtx g = {c, aclStubFamilyRow(c), c->plan, 0};
    aclStubParallelFor(g.p->rows, 64, gate_rows, &g);
    return g.failed ? aclStubKernelOutOfMemory(c) : OK;
}

static aclnnStatus gate_check(aclStubOpCall *c) {
    const GateRow *r = aclStubFamilyRow(c);
    GatePlan *p = c->plan;
    const aclStubTensorDesc *x = aclStubOpTensor(c, r->x);
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2 || x->ndim > 3, c, TILING, "x must be 2-D or 3-D, got %u-D", x->ndim);
    int64_t e = x->dims[x->ndim - 1], k = aclStubOpInt(c, r->k), rows = 1;
    for (uint32_t d = 0; d + 1 < x->ndim; d++) rows *= x->dims[d];
    ACLSTUB_RETURN_ERROR_IF(k < 0 || k > e || k > 1024, c, TILING, "k = %lld must be in [0, min(%lld, 1024)]",
                            (long long)k, (long long)e);
    p->renorm = r->renorm >= 0 ? (int)aclStubOpInt(c, r->renorm) : 0;
    ACLSTUB_RETURN_ERROR_IF(p->renorm != 0 && p->renorm != 1, c, TILING, "renorm = %d must be 0 or 1", p->renorm);
    p->soft = r->flag >= 0 && aclStubOpBool(c, r->flag) && p->renorm == 0;
    int64_t want[3];
    memcpy(want, x->dims, sizeof(int64_t) * (x->ndim - 1));
    if (r->finished >= 0) ACLSTUB_TRY(want_shape(c, r->finished, want, x->ndim - 1));
    want[x->ndim - 1] = k;
    ACLSTUB_TRY(want_shape(c, r->y, want, x->ndim));
    ACLSTUB_TRY(want_shape(c, r->idx, want, x->ndim));
    if (r->row >= 0) ACLSTUB_TRY(want_shape(c, r->row, want, x->ndim));
    if (r->soft >= 0) {
        if (p->soft) {
            ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(c, r->soft) == NULL, c, TILING, "softmaxResultOutOptional is "
                                    "needed when outputSoftmaxResultFlag is true");
            ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(c, r->soft)->dtype != ACL_FLOAT, c, TILING,
                                    "softmaxResultOutOptional must be FLOAT");
            ACLSTUB_TRY(want_shape(c, r->soft, x->dims, x->ndim));
        } else {
            aclStubOpIgnore(c, r->soft);
        }
    }
    p->rows = rows, p->e = e, p->k = k;
    if (rows == 0 || k == 0) return aclStubOpNothingToDo(c);
    return OK;
}

#define DT_I32 ACLSTUB_DT(ACL_INT32)
#define PRM(n, role, dt, same) {n, role, dt, same, 0, 0, 0}

static const aclStubParam P_GATE[] = {
    PRM("x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL), PRM("finishedOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_BOOL), NULL),
    PRM("k", ACLSTUB_INT, 0, NULL), PRM("yOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "x"),
    PRM("expertIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL), PRM("rowIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL)};
static const GateRow R_GATE = {0, 1, 2, -1, -1, 3, 4, 5, -1};
static const aclStubParam P_GATE2[] = {
    PRM("x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL), PRM("finishedOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_BOOL), NULL),
    PRM("k", ACLSTUB_INT, 0, NULL), PRM("renorm", ACLSTUB_INT, 0, NULL), PRM("outputSoftmaxResultFlag", ACLSTUB_BOOL, 0, NULL),
    PRM("yOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "x"), PRM("expertIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL),
    PRM("softmaxResultOutOptional", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL)};
static const GateRow R_GATE2 = {0, 1, 2, 3, 4, 5, 6, -1, 7};

static const aclStubFamilyOp OP_GATE = {
    {"aclnnMoeGatingTopKSoftmax", P_GATE, ACLSTUB_LEN(P_GATE), NULL, gate_check, gate_kernel, sizeof(GatePlan)}, &R_GATE};
static const aclStubFamilyOp OP_GATE2 = {
    {"aclnnMoeGatingTopKSoftmaxV2", P_GATE2, ACLSTUB_LEN(P_GATE2), NULL, gate_check, gate_kernel, sizeof(GatePlan)},
    &R_GATE2};
ACLSTUB_DEFINE_OP(aclnnMoeGatingTopKSoftmax, OP_GATE.def, (const aclTensor *, x), (const aclTensor *, finishedOptional),
                  (int64_t, k), (const aclTensor *, yOut), (const aclTensor *, expertIdxOut),
                  (const aclTensor *, rowIdxOut))
ACLSTUB_DEFINE_OP(aclnnMoeGatingTopKSoftmaxV2, OP_GATE2.def, (const aclTensor *, x),
                  (const aclTensor *, finishedOptional), (int64_t, k), (int64_t, renorm),
                  (bool, outputSoftmaxResultFlag), (const aclTensor *, yOut), (const aclTensor *, expertIdxOut),
                  (const aclTensor *, softmaxResultOutOptional))

/* ---- MoeComputeExpertTokens: out[e] = the number of entries <= e, by binary search on the sorted input ----- */

enum { CT_SORTED, CT_NUM, CT_OUT };
static const aclStubParam P_TOKENS[] = {PRM("sortedExperts", ACLSTUB_INPUT, DT_I32, NULL),
                                        PRM("numExperts", ACLSTUB_INT, 0, NULL), PRM("out", ACLSTUB_OUTPUT, DT_I32, NULL)};

static aclnnStatus tokens_check(aclStubOpCall *c) {
    const aclStubTensorDesc *s = aclStubOpTensor(c, CT_SORTED);
    int64_t e = aclStubOpInt(c, CT_NUM);
    ACLSTUB_RETURN_ERROR_IF(s->ndim != 1, c, TILING, "sortedExperts must be 1-D, got %u-D", s->ndim);
    ACLSTUB_RETURN_ERROR_IF(e < 1, c, TILING, "numExperts = %lld must be positive", (long long)e);
    int64_t want[1] = {e};
    ACLSTUB_TRY(want_shape(c, CT_OUT, want, 1));
    return OK;
}

static aclnnStatus tokens_kernel(const aclStubOpCall *c) {
    const aclStubTensorDesc *s = aclStubOpTensor(c, CT_SORTED), *o = aclStubOpTensor(c, CT_OUT);
    int64_t n = s->dims[0], e = aclStubOpInt(c, CT_NUM);
    for (int64_t x = 0; x < e; x++) {
        int64_t lo = 0, hi = n; /* first position whose value exceeds x */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (aclStubIndex1(s, mid) > x) hi = mid; else lo = mid + 1;
        }
        *(int32_t *)aclStubElem1(o, x) = (int32_t)lo;
    }
    return OK;
}

static const aclStubOpDef OP_TOKENS = {"aclnnMoeComputeExpertTokens", P_TOKENS, ACLSTUB_LEN(P_TOKENS), NULL,
                                       tokens_check, tokens_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnMoeComputeExpertTokens, OP_TOKENS, (const aclTensor *, sortedExperts), (int64_t, numExperts),
                  (const aclTensor *, out))

/* ---- MoeInitRouting -------------------------------------------------------------------------------------------- */

enum { IR_X, IR_ROW, IR_EXP, IR_ACTIVE, IR_EX, IR_EROW, IR_EEXP };
static const aclStubParam P_INIT[] = {
    PRM("x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL), PRM("rowIdx", ACLSTUB_INPUT, DT_I32, NULL),
    PRM("expertIdx", ACLSTUB_INPUT, DT_I32, NULL), PRM("activeNum", ACLSTUB_INT, 0, NULL),
    PRM("expandedXOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "x"), PRM("expandedRowIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL),
    PRM("expandedExpertIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL)};

typedef struct {
    int64_t n, k, a;
    int out_x, out_row, out_exp; /* parameter indices of the outputs */
    bool quant;                  /* InitRoutingQuant: expandedX = int8(round(x * scale + offset)) */
    float scale, offset;
} InitPlan;

static aclnnStatus init_check(aclStubOpCall *c) {
    bool quant = c->op->num_params > IR_EEXP + 1; /* InitRoutingQuant: scale and offset before the outputs */
    const int ox = quant ? IR_EX + 2 : IR_EX, orow = ox + 1, oexp = ox + 2;
    const aclStubTensorDesc *x = aclStubOpTensor(c, IR_X), *ei = aclStubOpTensor(c, IR_EXP);
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2 || ei->ndim != 2, c, TILING, "x and expertIdx must be 2-D");
    int64_t n = x->dims[0], k = ei->dims[1], active = aclStubOpInt(c, IR_ACTIVE);
    ACLSTUB_RETURN_ERROR_IF(ei->dims[0] != n, c, TILING, "expertIdx.shape[0] = %lld must equal x.shape[0] = %lld",
                            (long long)ei->dims[0], (long long)n);
    ACLSTUB_RETURN_ERROR_IF(active < 0, c, TILING, "activeNum = %lld must be >= 0", (long long)active);
    ACLSTUB_RETURN_ERROR_IF(n * k > INT32_MAX, c, TILING, "%lld slots exceed the INT32 row indices", (long long)(n * k));
    ACLSTUB_TRY(want_shape(c, IR_ROW, ei->dims, 2));
    int64_t a = (active < n ? active : n) * k, nk = n * k, ex[2] = {a, x->dims[1]};
    ACLSTUB_TRY(want_shape(c, ox, ex, 2));
    ACLSTUB_TRY(want_shape(c, orow, &nk, 1));
    ACLSTUB_TRY(want_shape(c, oexp, &nk, 1));
    *(InitPlan *)c->plan = (InitPlan){n, k, a, ox, orow, oexp, quant, quant ? (float)aclStubOpFloat(c, IR_EX) : 1.0f,
                                      quant ? (float)aclStubOpFloat(c, IR_EX + 1) : 0.0f};
    if (nk == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus init_kernel(const aclStubOpCall *c) {
    const InitPlan *p = c->plan;
    const aclStubTensorDesc *ri = aclStubOpTensor(c, IR_ROW), *ei = aclStubOpTensor(c, IR_EXP);
    int64_t t = p->n * p->k;
    int64_t *keys = aclStubKernelScratch(c, (size_t)t * sizeof(int64_t));
    int64_t *src = aclStubKernelScratch(c, (size_t)t * sizeof(int64_t));
    int32_t *order = aclStubKernelScratch(c, (size_t)t * sizeof(int32_t));
    if (!keys || !src || !order) return aclStubKernelOutOfMemory(c);
    for (int64_t i = 0; i < t; i++) keys[i] = *(const int32_t *)aclStubElem2(ei, i / p->k, i % p->k);
    if (!aclStubStableArgsort(keys, t, order)) return aclStubKernelOutOfMemory(c);
    for (int64_t j = 0; j < t; j++) {
        int64_t r = *(const int32_t *)aclStubElem2(ri, order[j] / p->k, order[j] % p->k);
        if (r < 0 || r >= t)
            return aclStubKernelFail(c, ACLNN_ERR_INNER, "rowIdx holds %lld, outside [0, %lld)", (long long)r,
                                     (long long)t);
        src[j] = r;
    }
    const aclStubTensorDesc *erow = aclStubOpTensor(c, p->out_row), *eexp = aclStubOpTensor(c, p->out_exp);
    for (int64_t j = 0; j < t; j++) {
        *(int32_t *)aclStubElem1(eexp, j) = (int32_t)keys[order[j]];
        *(int32_t *)aclStubElem1(erow, src[j]) = (int32_t)j;
        if (j < p->a) src[j] %= p->n;
    }
    const aclStubTensorDesc *x = aclStubOpTensor(c, IR_X), *ex = aclStubOpTensor(c, p->out_x);
    if (!p->quant) {
        aclStubCopyRows(ex, 0, x, src, p->a);
        return OK;
    }
    int64_t h = x->dims[1];
    float *row = aclStubKernelScratch(c, (size_t)(h + 1) * sizeof(float));
    if (!row) return aclStubKernelOutOfMemory(c);
    for (int64_t j = 0; j < p->a; j++) {
        aclStubRowLoadViewF32(row, x, src[j]);
        aclStubRowQuantInt8Static((int8_t *)ex->data + ex->offset + j * ex->strides[0], row, p->scale, p->offset, h);
    }
    return OK;
}

static const aclStubOpDef OP_INIT = {"aclnnMoeInitRouting", P_INIT, ACLSTUB_LEN(P_INIT), NULL, init_check, init_kernel,
                                     sizeof(InitPlan)};
/* InitRoutingQuant: the same with two attributes before the outputs and an INT8 expandedX (contiguous rows) */
static const aclStubParam P_INITQ[] = {
    PRM("x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL), PRM("rowIdx", ACLSTUB_INPUT, DT_I32, NULL),
    PRM("expertIdx", ACLSTUB_INPUT, DT_I32, NULL), PRM("activeNum", ACLSTUB_INT, 0, NULL),
    PRM("scale", ACLSTUB_FLOAT, 0, NULL), PRM("offset", ACLSTUB_FLOAT, 0, NULL),
    PRM("expandedXOut", ACLSTUB_OUTPUT, ACLSTUB_DT(ACL_INT8), NULL), PRM("expandedRowIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL),
    PRM("expandedExpertIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL)};
static const aclStubOpDef OP_INITQ = {"aclnnMoeInitRoutingQuant", P_INITQ, ACLSTUB_LEN(P_INITQ), NULL, init_check,
                                      init_kernel, sizeof(InitPlan)};
ACLSTUB_DEFINE_OP(aclnnMoeInitRoutingQuant, OP_INITQ, (const aclTensor *, x), (const aclTensor *, rowIdx),
                  (const aclTensor *, expertIdx), (int64_t, activeNum), (double, scale), (double, offset),
                  (const aclTensor *, expandedXOut), (const aclTensor *, expandedRowIdxOut),
                  (const aclTensor *, expandedExpertIdxOut))
ACLSTUB_DEFINE_OP(aclnnMoeInitRouting, OP_INIT, (const aclTensor *, x), (const aclTensor *, rowIdx),
                  (const aclTensor *, expertIdx), (int64_t, activeNum), (const aclTensor *, expandedXOut),
                  (const aclTensor *, expandedRowIdxOut), (const aclTensor *, expandedExpertIdxOut))

/* ---- MoeFinalizeRouting ---------------------------------------------------------------------------------------- */

enum { FR_EX, FR_X1, FR_X2, FR_BIAS, FR_SCALES, FR_ROW, FR_EXP, FR_OUT };
static const aclStubParam P_FIN[] = {
    PRM("expandedX", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL), PRM("x1", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "expandedX"),
    PRM("x2Optional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "expandedX"),
    PRM("bias", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "expandedX"), PRM("scales", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "expandedX"),
    PRM("expandedRowIdx", ACLSTUB_INPUT, DT_I32, NULL), PRM("expandedExpertIdx", ACLSTUB_INPUT, DT_I32, NULL),
    PRM("out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "expandedX")};

typedef struct {
    int64_t n, k, h, e, rows;
} FinPlan;

static aclnnStatus fin_check(aclStubOpCall *c) {
    const aclStubTensorDesc *ex = aclStubOpTensor(c, FR_EX), *x1 = aclStubOpTensor(c, FR_X1);
    const aclStubTensorDesc *bias = aclStubOpTensor(c, FR_BIAS), *sc = aclStubOpTensor(c, FR_SCALES);
    ACLSTUB_RETURN_ERROR_IF(ex->ndim != 2 || x1->ndim != 2 || bias->ndim != 2 || sc->ndim != 2, c, TILING,
                            "expandedX, x1, bias and scales must be 2-D");
    int64_t n = x1->dims[0], h = x1->dims[1], k = sc->dims[1], nk = n * k;
    ACLSTUB_RETURN_ERROR_IF(sc->dims[0] != n, c, TILING, "scales.shape[0] must equal x1.shape[0] = %lld", (long long)n);
    ACLSTUB_RETURN_ERROR_IF(ex->dims[1] != h || bias->dims[1] != h, c, TILING, "expandedX and bias must have x1's "
                            "%lld columns", (long long)h);
    ACLSTUB_TRY(want_shape(c, FR_X2, x1->dims, 2));
    ACLSTUB_TRY(want_shape(c, FR_ROW, &nk, 1));
    ACLSTUB_TRY(want_shape(c, FR_EXP, sc->dims, 2));
    ACLSTUB_TRY(want_shape(c, FR_OUT, x1->dims, 2));
    *(FinPlan *)c->plan = (FinPlan){n, k, h, bias->dims[0], ex->dims[0]};
    if (n == 0 || h == 0) return aclStubOpNothingToDo(c);
    return OK;
}

typedef struct {
    const aclStubOpCall *c;
    const FinPlan *p;
    int failed;
} FinCtx;

static void fin_rows(void *arg, int64_t begin, int64_t end) {
    FinCtx *f = arg;
    const aclStubOpCall *c = f->c;
    const FinPlan *p = f->p;
    int64_t h = p->h;
    float *buf = malloc((size_t)(3 * h + 1) * sizeof(float));
    if (!buf) {
        __atomic_store_n(&f->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *acc = buf, *a = buf + h, *b = buf + 2 * h;
    const aclStubTensorDesc *ex = aclStubOpTensor(c, FR_EX), *x2 = aclStubOpTensor(c, FR_X2);
    const aclStubTensorDesc *bias = aclStubOpTensor(c, FR_BIAS), *sc = aclStubOpTensor(c, FR_SCALES);
    const aclStubTensorDesc *row = aclStubOpTensor(c, FR_ROW), *exp_ = aclStubOpTensor(c, FR_EXP);
    for (int64_t i = begin; i < end; i++) {
        aclStubRowLoadViewF32(acc, aclStubOpTensor(c, FR_X1), i);
        if (x2) {
            aclStubRowLoadViewF32(a, x2, i);
            for (int64_t j = 0; j < h; j++) acc[j] += a[j];
        }
        for (int64_t k = 0; k < p->k; k++) {
            int64_t r = aclStubIndex1(row, i + k * p->n), e = *(const int32_t *)aclStubElem2(exp_, i, k);
            float s = aclStubLoad2F32(sc, i, k);
            aclStubRowLoadViewF32(a, ex, r);
            aclStubRowLoadViewF32(b, bias, e);
            for (int64_t j = 0; j < h; j++) {
                float t = a[j] + b[j];
                acc[j] += s * t;
            }
        }
        const aclStubTensorDesc *o = aclStubOpTensor(c, FR_OUT);
        for (int64_t j = 0; j < h; j++) aclStubStore2F32(o, i, j, acc[j]);
    }
    free(buf);
}

static aclnnStatus fin_kernel(const aclStubOpCall *c) {
    const FinPlan *p = c->plan;
    const aclStubTensorDesc *row = aclStubOpTensor(c, FR_ROW), *exp_ = aclStubOpTensor(c, FR_EXP);
    for (int64_t i = 0; i < p->n; i++)
        for (int64_t k = 0; k < p->k; k++) {
            int64_t r = aclStubIndex1(row, i + k * p->n), e = *(const int32_t *)aclStubElem2(exp_, i, k);
            if (r < 0 || r >= p->rows || e < 0 || e >= p->e)
                return aclStubKernelFail(c, ACLNN_ERR_INNER, "token %lld, slot %lld: row %lld or expert %lld is out "
                                         "of range (%lld rows, %lld experts)", (long long)i, (long long)k,
                                         (long long)r, (long long)e, (long long)p->rows, (long long)p->e);
        }
    FinCtx f = {c, p, 0};
    aclStubParallelFor(p->n, 16, fin_rows, &f);
    return f.failed ? aclStubKernelOutOfMemory(c) : OK;
}

static const aclStubOpDef OP_FIN = {"aclnnMoeFinalizeRouting", P_FIN, ACLSTUB_LEN(P_FIN), NULL, fin_check, fin_kernel,
                                    sizeof(FinPlan)};
ACLSTUB_DEFINE_OP(aclnnMoeFinalizeRouting, OP_FIN, (const aclTensor *, expandedX), (const aclTensor *, x1),
                  (const aclTensor *, x2Optional), (const aclTensor *, bias), (const aclTensor *, scales),
                  (const aclTensor *, expandedRowIdx), (const aclTensor *, expandedExpertIdx), (const aclTensor *, out))

/* ---- MoeGatingTopK: grouped expert selection (DeepSeek's routing) -------------------------------------------
 * s = softmax(x) (normType 0) or sigmoid(x) (1), in float32 (double inside, rounded once); c = s + bias (the
 * selection score); the groups (groupCount equal slices of the experts) ranked by their max (groupSelectMode 0)
 * or the sum of their two largest c (1), the kGroup best kept; the k largest c of those groups are the experts
 * (descending, equal values in ascending expert order); y = s at those experts, divided by (sum + eps) for the
 * sigmoid, times routedScalingFactor; outOut = s when outFlag. */

enum { GK_X, GK_BIAS, GK_K, GK_KG, GK_GC, GK_MODE, GK_RENORM, GK_NORM, GK_FLAG, GK_SCALE, GK_EPS, GK_Y, GK_IDX, GK_OUT };
static const aclStubParam P_GTK[] = {
    PRM("x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL), PRM("biasOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT_FLOATS, "x"),
    PRM("k", ACLSTUB_INT, 0, NULL), PRM("kGroup", ACLSTUB_INT, 0, NULL), PRM("groupCount", ACLSTUB_INT, 0, NULL),
    PRM("groupSelectMode", ACLSTUB_INT, 0, NULL), PRM("renorm", ACLSTUB_INT, 0, NULL), PRM("normType", ACLSTUB_INT, 0, NULL),
    PRM("outFlag", ACLSTUB_BOOL, 0, NULL), PRM("routedScalingFactor", ACLSTUB_FLOAT, 0, NULL),
    PRM("eps", ACLSTUB_FLOAT, 0, NULL), PRM("yOut", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "x"),
    PRM("expertIdxOut", ACLSTUB_OUTPUT, DT_I32, NULL), PRM("outOut", ACLSTUB_OPTIONAL_OUTPUT, ACLSTUB_DT(ACL_FLOAT), NULL)};

typedef struct {
    int64_t rows, e, k, kg, gc, mode, norm;
    bool out;
    float scale, eps;
} GtkPlan;

static aclnnStatus gtk_check(aclStubOpCall *c) {
    GtkPlan *p = c->plan;
    const aclStubTensorDesc *x = aclStubOpTensor(c, GK_X), *bias = aclStubOpTensor(c, GK_BIAS);
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 1, c, TILING, "x must have at least one dimension");
    int64_t e = x->dims[x->ndim - 1], rows = e > 0 ? aclStubNumel(x) / e : 0;
    int64_t k = aclStubOpInt(c, GK_K), kg = aclStubOpInt(c, GK_KG), gc = aclStubOpInt(c, GK_GC);
    int64_t mode = aclStubOpInt(c, GK_MODE), renorm = aclStubOpInt(c, GK_RENORM), norm = aclStubOpInt(c, GK_NORM);
    ACLSTUB_RETURN_ERROR_IF(e > 2048, c, TILING, "x's last dimension (experts) %lld must be at most 2048", (long long)e);
    ACLSTUB_RETURN_ERROR_IF(gc <= 0 || e % gc != 0 || e / gc <= 2, c, TILING, "groupCount = %lld must divide the %lld "
                            "experts into groups of more than 2", (long long)gc, (long long)e);
    ACLSTUB_RETURN_ERROR_IF(kg < 1 || kg > gc, c, TILING, "kGroup = %lld must be in [1, groupCount = %lld]",
                            (long long)kg, (long long)gc);
    ACLSTUB_RETURN_ERROR_IF(k < 1 || k > kg * (e / gc), c, TILING, "k = %lld must be in [1, kGroup * experts / "
                            "groupCount = %lld]", (long long)k, (long long)(kg * (e / gc)));
    ACLSTUB_RETURN_ERROR_IF(mode != 0 && mode != 1, c, TILING, "groupSelectMode = %lld must be 0 or 1", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(renorm != 0, c, TILING, "renorm = %lld: only 0 (norm before top-k) is supported",
                            (long long)renorm);
    ACLSTUB_RETURN_ERROR_IF(norm != 0 && norm != 1, c, TILING, "normType = %lld must be 0 (softmax) or 1 (sigmoid)",
                            (long long)norm);
    if (bias) ACLSTUB_RETURN_ERROR_IF(aclStubNumel(bias) != e, c, TILING, "biasOptional must have the %lld experts' "
                                      "values", (long long)e);
    int64_t want[ACLSTUB_MAX_DIMS];
    memcpy(want, x->dims, sizeof(int64_t) * x->ndim);
    want[x->ndim - 1] = k;
    ACLSTUB_TRY(want_shape(c, GK_Y, want, x->ndim));
    ACLSTUB_TRY(want_shape(c, GK_IDX, want, x->ndim));
    bool out = aclStubOpBool(c, GK_FLAG) && aclStubOpTensor(c, GK_OUT);
    if (out) ACLSTUB_TRY(want_shape(c, GK_OUT, x->dims, x->ndim));
    else if (aclStubOpTensor(c, GK_OUT)) aclStubOpIgnore(c, GK_OUT);
    *p = (GtkPlan){rows, e, k, kg, gc, mode, norm, out, (float)aclStubOpFloat(c, GK_SCALE), (float)aclStubOpFloat(c, GK_EPS)};
    if (rows == 0) return aclStubOpNothingToDo(c);
    return OK;
}

typedef struct {
    const aclStubOpCall *c;
    const GtkPlan *p;
    int failed;
} GtkCtx;

static void gtk_rows(void *arg, int64_t begin, int64_t end) {
    GtkCtx *g = arg;
    const aclStubOpCall *c = g->c;
    const GtkPlan *p = g->p;
    int64_t e = p->e, gs = e / p->gc;
    float *buf = malloc((size_t)(3 * e + p->gc + 2) * sizeof(float));
    int32_t *idx = malloc((size_t)(e + p->gc + 1) * sizeof(int32_t));
    unsigned char *taken = malloc((size_t)e + 1);
    if (!buf || !idx || !taken) {
        __atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
        free(buf), free(idx), free(taken);
        return;
    }
    float *s = buf, *sc = buf + e, *x = buf + 2 * e, *gscore = buf + 3 * e;
    int32_t *gidx = idx + e;
    const aclStubTensorDesc *xt = aclStubOpTensor(c, GK_X), *bias = aclStubOpTensor(c, GK_BIAS);
    const aclStubTensorDesc *y = aclStubOpTensor(c, GK_Y), *it = aclStubOpTensor(c, GK_IDX);
    const aclStubTensorDesc *ot = p->out ? aclStubOpTensor(c, GK_OUT) : NULL;
    for (int64_t i = begin; i < end; i++) {
        for (int64_t j = 0; j < e; j++) x[j] = aclStubLoadPtrF32(xt->dtype, aclStubElemAt(xt, i * e + j));
        if (p->norm == 0) softmax_row(s, x, e);
        else for (int64_t j = 0; j < e; j++) s[j] = (float)(1.0 / (1.0 + exp(-(double)x[j])));
        for (int64_t j = 0; j < e; j++) sc[j] = bias ? s[j] + aclStubLoadPtrF32(bias->dtype, aclStubElemAt(bias, j)) : s[j];
        for (int64_t q = 0; q < p->gc; q++) {
            const float *v = sc + q * gs;
            if (p->mode == 0) {
                float m = -INFINITY;
                for (int64_t j = 0; j < gs; j++) m = v[j] > m ? v[j] : m;
                gscore[q] = m;
            } else {
                int32_t two[2];
                top_k(v, gs, 2, two, taken);
                gscore[q] = v[two[0]] + v[two[1]];
            }
        }
        top_k(gscore, p->gc, p->kg, gidx, taken);
        for (int64_t j = 0; j < e; j++) x[j] = -INFINITY;
        for (int64_t q = 0; q < p->kg; q++)
            for (int64_t j = 0; j < gs; j++) x[gidx[q] * gs + j] = sc[gidx[q] * gs + j];
        top_k(x, e, p->k, idx, taken);
        float sum = 0.0f;
        for (int64_t t = 0; t < p->k; t++) sum += s[idx[t]];
        for (int64_t t = 0; t < p->k; t++) {
            float v = s[idx[t]];
            if (p->norm == 1) v = v / (sum + p->eps);
            aclStubStorePtrF32(y->dtype, aclStubElemAt(y, i * p->k + t), v * p->scale);
            *(int32_t *)aclStubElemAt(it, i * p->k + t) = idx[t];
        }
        if (ot)
            for (int64_t j = 0; j < e; j++) *(float *)aclStubElemAt(ot, i * e + j) = s[j];
    }
    free(buf), free(idx), free(taken);
}

static aclnnStatus gtk_kernel(const aclStubOpCall *c) {
    GtkCtx g = {c, c->plan, 0};
    aclStubParallelFor(g.p->rows, 32, gtk_rows, &g);
    return g.failed ? aclStubKernelOutOfMemory(c) : OK;
}

static const aclStubOpDef OP_GTK = {"aclnnMoeGatingTopK", P_GTK, ACLSTUB_LEN(P_GTK), NULL, gtk_check, gtk_kernel,
                                    sizeof(GtkPlan)};
ACLSTUB_DEFINE_OP(aclnnMoeGatingTopK, OP_GTK, (const aclTensor *, x), (const aclTensor *, biasOptional), (int64_t, k),
                  (int64_t, kGroup), (int64_t, groupCount), (int64_t, groupSelectMode), (int64_t, renorm),
                  (int64_t, normType), (bool, outFlag), (double, routedScalingFactor), (double, eps),
                  (const aclTensor *, yOut), (const aclTensor *, expertIdxOut), (const aclTensor *, outOut))
