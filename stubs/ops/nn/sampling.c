/*
 * The sampling operators of ops-nn index/: aclnnApplyTopKTopP (apply_top_k_top_p_with_sorted) and
 * aclnnTopKTopPSample (top_k_top_p_sample).
 *
 * Each row of logits [B, V] is sorted ascending (stable; aclStubArgsortLane), then
 *   top-k (k given, 0 < k[b] < V): the values below the k-th largest, sorted[V - k], become -inf;
 *   top-p (p given): softmax of the sorted (top-k filtered) row, its cumulative sum from the smallest; the values
 *                    whose cumulative probability is <= 1 - p[b] become -inf, the largest is always kept;
 * and the row is written back in its original order. Values are computed in float32 (16-bit inputs widened
 * exactly; the results are the inputs' own values or -inf, so nothing is rounded); exp is aclStubExpF32, the
 * softmax's sum the reduction engine's order, the cumulative sum sequential in float32. Rows run on the stub's
 * threads, one row per task. k <= 0 or k >= V filters nothing (the docs); p and k both NULL: out = logits.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_apply_top_k_top_p.h"
#include "aclnnop/aclnn_top_k_top_p_sample.h"
#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"

#define DT ACLSTUB_DT
#define FLOATS ACLSTUB_DT_FLOATS
#define INVALID ACLNN_ERR_PARAM_INVALID

enum { AK_LOGITS, AK_P, AK_K, AK_OUT };
static const aclStubParam kApplyParams[] = {
    [AK_LOGITS] = {"logits", ACLSTUB_INPUT, 0},
    [AK_P] = {"p", ACLSTUB_OPTIONAL_INPUT, 0},
    [AK_K] = {"k", ACLSTUB_OPTIONAL_INPUT, 0},
    [AK_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus format_nd(const aclStubOpCall *call, int i) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    ACLSTUB_RETURN_ERROR_IF(t != NULL && t->format != ACL_FORMAT_ND, call, INVALID, "%s format only support ND",
                            call->op->params[i].name);
    return OK;
}

static aclnnStatus apply_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[AK_LOGITS].tensor, *p = call->v[AK_P].tensor, *k = call->v[AK_K].tensor;
    const aclStubTensorDesc *out = call->v[AK_OUT].tensor;
    char a[160], b[160];
    /* p and k both NULL: the op_api logs it and goes on */
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AK_LOGITS, FLOATS));
    if (p != NULL) ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AK_P, FLOATS));
    if (k != NULL) ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AK_K, DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AK_OUT, FLOATS));
    if (p != NULL) ACLSTUB_TRY(aclStubCheckDtypeIs(call, AK_P, x->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, AK_OUT, x->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, call, INVALID, "logits must be 2-D, got %u-D", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, out->dims, out->ndim), call, INVALID,
                            "out's shape %s must be logits' %s", aclStubShapeText(out->dims, out->ndim, a, sizeof a),
                            aclStubShapeText(x->dims, x->ndim, b, sizeof b));
    ACLSTUB_RETURN_ERROR_IF(p != NULL && p->ndim != 1, call, INVALID, "p must be 1-D, got %u-D", p->ndim);
    ACLSTUB_RETURN_ERROR_IF(k != NULL && k->ndim != 1, call, INVALID, "k must be 1-D, got %u-D", k->ndim);
    ACLSTUB_RETURN_ERROR_IF(p != NULL && p->dims[0] != x->dims[0], call, INVALID,
                            "expected p.size(0) is equal to logits.size(0), but got %lld.", (long long)p->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(k != NULL && k->dims[0] != x->dims[0], call, INVALID,
                            "expected k.size(0) is equal to logits.size(0), but got %lld.", (long long)k->dims[0]);
    for (int i = 0; i < 4; i++) ACLSTUB_TRY(format_nd(call, i));
    if (aclStubNumel(x) == 0 || (p != NULL && aclStubNumel(p) == 0) || (k != NULL && aclStubNumel(k) == 0))
        return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const aclStubOpCall *call;
    float *rows; /* [B, V] float32, filtered in place */
    atomic_int failed;
} ApplyCtx;

/* Row b of ctx->rows filtered by k and p (either may be absent). */
static bool filter_row(float *row, int64_t V, bool has_k, int64_t k, bool has_p, float p) {
    int64_t *order = malloc(sizeof(int64_t) * (size_t)V);
    float *s = malloc(sizeof(float) * (size_t)V * 2);
    if (order == NULL || s == NULL || !aclStubArgsortLane(row, ACL_FLOAT, V, false, order)) {
        free(order);
        free(s);
        return false;
    }
    for (int64_t v = 0; v < V; v++) s[v] = row[order[v]];
    if (has_k && k > 0 && k < V) {
        float threshold = s[V - k];
        for (int64_t v = 0; v < V; v++)
            if (s[v] < threshold) s[v] = -INFINITY;
    }
    if (has_p) {
        float *e = s + V, mx = s[V - 1];
        for (int64_t v = 0; v < V; v++) mx = s[v] > mx ? s[v] : mx;
        for (int64_t v = 0; v < V; v++) e[v] = aclStubExpF32(s[v] - mx);
        float sum = aclStubSumF32(e, V), acc = 0.0f, limit = 1.0f - p;
        for (int64_t v = 0; v + 1 < V; v++) {
            acc += e[v] / sum;
            if (acc <= limit) s[v] = -INFINITY;
        }
    }
    for (int64_t v = 0; v < V; v++) row[order[v]] = s[v];
    free(order);
    free(s);
    return true;
}

static void apply_rows(void *ctxp, int64_t begin, int64_t end) {
    ApplyCtx *c = ctxp;
    const aclStubOpCall *call = c->call;
    const aclStubTensorDesc *x = call->v[AK_LOGITS].tensor, *p = call->v[AK_P].tensor, *k = call->v[AK_K].tensor;
    int64_t V = x->dims[1];
    for (int64_t b = begin; b < end; b++) {
        int64_t kb = k != NULL ? *(const int32_t *)aclStubElemAt(k, b) : 0;
        float pb = p != NULL ? aclStubLoadPtrF32(p->dtype, aclStubElemAt(p, b)) : 0.0f;
        if (!filter_row(c->rows + b * V, V, k != NULL, kb, p != NULL, pb)) atomic_store(&c->failed, 1);
    }
}

static aclnnStatus apply_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[AK_LOGITS].tensor, *out = call->v[AK_OUT].tensor;
    aclStubTensorDesc buf;
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &buf));
    ACLSTUB_TRY(aclStubCopyView(call, &buf, x, ACL_DT_UNDEFINED));
    int64_t B = x->dims[0], V = x->dims[1];
    if (V > 1 && (call->v[AK_P].tensor != NULL || call->v[AK_K].tensor != NULL)) {
        ApplyCtx c = {call, (float *)aclStubViewBase(&buf), 0};
        atomic_init(&c.failed, 0);
        aclStubParallelFor(B, 1, apply_rows, &c);
        if (atomic_load(&c.failed)) return aclStubKernelOutOfMemory(call);
    }
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubOpDef kApply = {"aclnnApplyTopKTopP", kApplyParams, ACLSTUB_LEN(kApplyParams), NULL,
                                    apply_check, apply_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnApplyTopKTopP, kApply, (const aclTensor *, logits), (const aclTensor *, p),
                  (const aclTensor *, k), (aclTensor *, out))

/* ---- aclnnTopKTopPSample ------------------------------------------------------------------------------------------
 * A generated API (the operator's definition: logits FLOAT16/BF16 [B, V], topK INT32 [B], topP logits' dtype [B], q
 * FLOAT [B, V] or NULL, logitsSelectIdx INT64 [B], logitsTopKPSelect FLOAT [B, V]; its tiling's shape rules answer
 * 561002). Per row, in float32, as its kernel computes:
 *   top-k when 0 < k <= min(V, 1024): the k largest logits in descending order (ties: the lower index first); any
 *     larger k (a negative one too, as unsigned) skips it; with 0 < p < 1 and no top-k, every logit in that order;
 *   top-p when 0 < p < 1: softmax of those values, and the first n whose running sum exceeds p (all when it never
 *     does) are kept; the softmax of the kept values is taken again;
 *   sample: with q, each probability divided by |q| + eps (q read at the value's sorted position, the kernel's
 *     layout); the first largest gives logitsSelectIdx (the value's index in logits);
 *   neither top-k nor top-p: the softmax of the whole row in logits' order (q at the same positions), its first
 *     largest.
 * With isNeedLogits, logitsTopKPSelect is -inf except at the kept positions, which get their logits (when neither
 * top-k nor top-p runs, the kernel writes none: the row stays -inf); without it logitsTopKPSelect is left alone.
 * topKGuess only changes how a device searches (its guessed candidates give the same kept set when they hold mass p);
 * a k of 0 is an error on a device (the docs): it fails the launch here. Rows run on the stub's threads.
 */

enum { TS_LOGITS, TS_TOPK, TS_TOPP, TS_Q, TS_EPS, TS_NEED, TS_GUESS, TS_IDX, TS_SELECT };
static const aclStubParam kSampleParams[] = {
    [TS_LOGITS] = {"logits", ACLSTUB_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16)},
    [TS_TOPK] = {"topK", ACLSTUB_INPUT, DT(ACL_INT32)},
    [TS_TOPP] = {"topP", ACLSTUB_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16)},
    [TS_Q] = {"q", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT)},
    [TS_EPS] = {"eps", ACLSTUB_FLOAT},
    [TS_NEED] = {"isNeedLogits", ACLSTUB_BOOL},
    [TS_GUESS] = {"topKGuess", ACLSTUB_INT},
    [TS_IDX] = {"logitsSelectIdx", ACLSTUB_OUTPUT, DT(ACL_INT64), NULL, ACLSTUB_ANY_LAYOUT},
    [TS_SELECT] = {"logitsTopKPSelect", ACLSTUB_OUTPUT, DT(ACL_FLOAT), NULL, ACLSTUB_ANY_LAYOUT},
};

#define TILING ACLNN_ERR_INNER_TILING_ERROR
static aclnnStatus sample_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[TS_LOGITS].tensor, *k = call->v[TS_TOPK].tensor;
    const aclStubTensorDesc *p = call->v[TS_TOPP].tensor, *q = call->v[TS_Q].tensor;
    const aclStubTensorDesc *idx = call->v[TS_IDX].tensor, *sel = call->v[TS_SELECT].tensor;
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, TS_TOPP, x->dtype)); /* the definition's rows */
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, call, TILING, "logits must be 2-D, got %u-D", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(x->dims[1] > (INT64_C(1) << 20), call, TILING, "logitsDim-V must less than 1048576!");
    ACLSTUB_RETURN_ERROR_IF(k->ndim != 1 || p->ndim != 1, call, TILING, "topK and topP must be 1-D");
    ACLSTUB_RETURN_ERROR_IF(k->dims[0] != x->dims[0] || p->dims[0] != x->dims[0], call, TILING,
                            "input shape dimension does not match!");
    ACLSTUB_RETURN_ERROR_IF(q != NULL && !aclStubShapeEqual(q->dims, q->ndim, x->dims, x->ndim), call, TILING,
                            "logits and q shape is inconsistency.");
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(sel->dims, sel->ndim, x->dims, x->ndim), call, TILING,
                            "input logits and output selected logits shape is inconsistency.");
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(idx->dims, idx->ndim, k->dims, k->ndim), call, TILING,
                            "topKs and output selected index shape is inconsistency.");
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const aclStubOpCall *call;
    const float *x, *q; /* [B, V] as float32 */
    int64_t *idx;
    float *sel;         /* [B, V], or NULL */
    atomic_int failed, zero_k;
} SampleCtx;

/* the first largest of v[0..n) */
static int64_t first_max(const float *v, int64_t n) {
    int64_t j = 0;
    for (int64_t i = 1; i < n; i++)
        if (v[i] > v[j]) j = i;
    return j;
}

/* probabilities of v[0..n) into pr: exp(v - max) / sum */
static void softmax_f32(float *pr, const float *v, int64_t n) {
    float mx = v[first_max(v, n)];
    for (int64_t i = 0; i < n; i++) pr[i] = aclStubExpF32(v[i] - mx);
    float sum = aclStubSumF32(pr, n);
    for (int64_t i = 0; i < n; i++) pr[i] /= sum;
}

static void sample_rows(void *ctxp, int64_t begin, int64_t end) {
    SampleCtx *c = ctxp;
    const aclStubOpCall *call = c->call;
    const aclStubTensorDesc *x = call->v[TS_LOGITS].tensor, *kt = call->v[TS_TOPK].tensor;
    const aclStubTensorDesc *pt = call->v[TS_TOPP].tensor;
    int64_t V = x->dims[1], kmax = V < 1024 ? V : 1024;
    float eps = (float)call->v[TS_EPS].f;
    int64_t *order = malloc(sizeof(int64_t) * (size_t)V);
    float *s = malloc(sizeof(float) * (size_t)V * 2);
    if (order == NULL || s == NULL) {
        free(order);
        free(s);
        atomic_store(&c->failed, 1);
        return;
    }
    float *pr = s + V;
    for (int64_t b = begin; b < end; b++) {
        const float *row = c->x + b * V;
        const float *qrow = c->q != NULL ? c->q + b * V : NULL;
        uint32_t k = (uint32_t)*(const int32_t *)aclStubElemAt(kt, b);
        float p = aclStubLoadPtrF32(pt->dtype, aclStubElemAt(pt, b));
        bool use_k = k <= (uint64_t)kmax, use_p = p > 0.0f && p < 1.0f;
        if (use_k && k == 0) {
            atomic_store(&c->zero_k, 1);
            continue;
        }
        if (!use_k && !use_p) { /* the whole row in its order */
            softmax_f32(pr, row, V);
            if (qrow != NULL)
                for (int64_t v = 0; v < V; v++) pr[v] /= fabsf(qrow[v]) + eps;
            c->idx[b] = first_max(pr, V);
            continue;
        }
        int64_t n = use_k ? (int64_t)k : V;
        if (!aclStubTopkLane(row, ACL_FLOAT, V, n, true, order)) {
            atomic_store(&c->failed, 1);
            continue;
        }
        for (int64_t i = 0; i < n; i++) s[i] = row[order[i]];
        int64_t kept = n;
        if (use_p) {
            softmax_f32(pr, s, n);
            float acc = 0.0f;
            for (int64_t i = 0; i < n; i++) {
                acc += pr[i];
                if (acc > p) {
                    kept = i + 1;
                    break;
                }
            }
        }
        softmax_f32(pr, s, kept);
        if (qrow != NULL)
            for (int64_t i = 0; i < kept; i++) pr[i] /= fabsf(qrow[i]) + eps;
        c->idx[b] = order[first_max(pr, kept)];
        if (c->sel != NULL)
            for (int64_t i = 0; i < kept; i++) c->sel[b * V + order[i]] = s[i];
    }
    free(order);
    free(s);
}

static aclnnStatus sample_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[TS_LOGITS].tensor, *q = call->v[TS_Q].tensor;
    aclStubTensorDesc xf, qf, idx, sel;
    ACLSTUB_TRY(aclStubContiguousIn(call, x, ACL_FLOAT, &xf));
    if (q != NULL) ACLSTUB_TRY(aclStubContiguousIn(call, q, ACL_FLOAT, &qf));
    ACLSTUB_TRY(aclStubOutputBegin(call, call->v[TS_IDX].tensor, ACL_INT64, false, &idx));
    bool need = call->v[TS_NEED].b;
    if (need) {
        ACLSTUB_TRY(aclStubOutputBegin(call, call->v[TS_SELECT].tensor, ACL_FLOAT, false, &sel));
        float *o = (float *)aclStubViewBase(&sel);
        for (int64_t i = 0; i < aclStubNumel(x); i++) o[i] = -INFINITY;
    }
    SampleCtx c = {call, (const float *)aclStubViewBase(&xf), q != NULL ? (const float *)aclStubViewBase(&qf) : NULL,
                   (int64_t *)aclStubViewBase(&idx), need ? (float *)aclStubViewBase(&sel) : NULL, 0, 0};
    atomic_init(&c.failed, 0);
    atomic_init(&c.zero_k, 0);
    aclStubParallelFor(x->dims[0], 1, sample_rows, &c);
    if (atomic_load(&c.failed)) return aclStubKernelOutOfMemory(call);
    if (atomic_load(&c.zero_k))
        return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID, "topK holds 0, which the docs do not allow");
    ACLSTUB_TRY(aclStubOutputEnd(call, call->v[TS_IDX].tensor, &idx));
    if (need) ACLSTUB_TRY(aclStubOutputEnd(call, call->v[TS_SELECT].tensor, &sel));
    return OK;
}

static const aclStubOpDef kSample = {"aclnnTopKTopPSample", kSampleParams, ACLSTUB_LEN(kSampleParams), NULL,
                                     sample_check, sample_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnTopKTopPSample, kSample, (const aclTensor *, logits), (const aclTensor *, topK),
                  (const aclTensor *, topP), (const aclTensor *, q), (double, eps), (bool, isNeedLogits),
                  (int64_t, topKGuess), (const aclTensor *, logitsSelectIdx), (const aclTensor *, logitsTopKPSelect))
