/*
 * The sampling filters of ops-nn index/: aclnnApplyTopKTopP (apply_top_k_top_p_with_sorted).
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
