/*
 * aclnnCrossEntropyLoss and aclnnCrossEntropyLossGrad of ops-nn loss/: log-softmax and the weighted negative
 * log-likelihood of a target class per row, with label smoothing, and its gradient, as their documents give them.
 *
 * input [N, C] (FLOAT, FLOAT16, BF16), target [N] (INT64 or INT32), weightOptional [C] (FLOAT). Per row, in float32:
 * lse = m + log(sum(exp(x - m))) (m the row's maximum; exp correctly rounded, the sum in the reduction engine's
 * order), logProb = x - lse (written to logProbOut), l = (1 - s) * (-w[t] * logProb[t]) + s / C * sum_c(-w[c] *
 * logProb[c]) for s = labelSmoothing, 0 for a target equal to ignoreIndex. reduction "none" writes l per row, "sum"
 * their sum, "mean" (the default) the sum divided by the sum of w[t] over the rows not ignored. The document marks
 * zloss as not supported yet: zlossOut and lseForZlossOut must be given and are left alone. A target outside [0, C)
 * other than ignoreIndex fails the launch (ACLNN_ERR_PARAM_INVALID; a check-mode finding).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_cross_entropy_loss.h"
#include "aclnnop/aclnn_cross_entropy_loss_grad.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
enum { P_INPUT, P_TARGET, P_WEIGHT, P_REDUCTION, P_IGNORE, P_SMOOTH, P_ZSCALE, P_RETZ, P_LOSS, P_LOGP, P_ZLOSS, P_LSE };
enum { RED_NONE, RED_MEAN, RED_SUM };

typedef struct {
    int64_t n, c, ignore;
    int reduction;
    float smoothing;
} Plan;

typedef struct {
    const aclStubOpCall *c;
    const Plan *p;
    const float *w; /* C weights (ones when absent) */
    float *loss, *wt; /* per row */
    int64_t bad_row, bad_value;
    int failed;
} Ctx;

static void rows(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const Plan *p = x->p;
    const aclStubTensorDesc *in = x->c->v[P_INPUT].tensor, *tg = x->c->v[P_TARGET].tensor;
    const aclStubTensorDesc *lp = x->c->v[P_LOGP].tensor;
    int64_t C = p->c;
    float *buf = malloc((size_t)(2 * C + 1) * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *v = buf, *e = buf + C;
    for (int64_t r = begin; r < end; r++) {
        for (int64_t j = 0; j < C; j++) v[j] = aclStubLoadPtrF32(in->dtype, aclStubElemAt(in, r * C + j));
        float m = aclStubMaxF32(v, C);
        float shift = isinf(m) ? 0.0f : m;
        aclStubExpRowF32(e, v, shift, C);
        float lse = shift + logf(aclStubSumF32(e, C));
        for (int64_t j = 0; j < C; j++) v[j] = v[j] - lse;
        for (int64_t j = 0; j < C; j++) aclStubStorePtrF32(lp->dtype, aclStubElemAt(lp, r * C + j), v[j]);
        const void *tp = aclStubElemAt(tg, r);
        int64_t t = tg->dtype == ACL_INT64 ? *(const int64_t *)tp : *(const int32_t *)tp;
        if (t == p->ignore) {
            x->loss[r] = 0.0f, x->wt[r] = 0.0f;
            continue;
        }
        if (t < 0 || t >= C) {
            __atomic_store_n(&x->bad_row, r, __ATOMIC_RELAXED);
            __atomic_store_n(&x->bad_value, t, __ATOMIC_RELAXED);
            __atomic_store_n(&x->failed, 2, __ATOMIC_RELAXED);
            continue;
        }
        float l = -x->w[t] * v[t];
        if (p->smoothing != 0.0f) {
            for (int64_t j = 0; j < C; j++) e[j] = -x->w[j] * v[j];
            l = (1.0f - p->smoothing) * l + p->smoothing / (float)C * aclStubSumF32(e, C);
        }
        x->loss[r] = l, x->wt[r] = x->w[t];
    }
    free(buf);
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    float *w = aclStubKernelScratch(c, (size_t)(p->c + 2 * p->n + 1) * sizeof(float));
    if (w == NULL) return aclStubKernelOutOfMemory(c);
    const aclStubTensorDesc *wd = c->v[P_WEIGHT].tensor;
    for (int64_t j = 0; j < p->c; j++) w[j] = wd ? aclStubLoadPtrF32(wd->dtype, aclStubElemAt(wd, j)) : 1.0f;
    Ctx x = {c, p, w, w + p->c, w + p->c + p->n, 0, 0, 0};
    aclStubParallelFor(p->n, p->c > 0 ? 1 + 16384 / p->c : 1, rows, &x);
    if (x.failed == 1) return aclStubKernelOutOfMemory(c);
    if (x.failed == 2) return aclStubIndexOutOfRange(c, "target", x.bad_value, x.bad_row, 0, p->c);
    const aclStubTensorDesc *loss = c->v[P_LOSS].tensor;
    if (p->reduction == RED_NONE) {
        for (int64_t r = 0; r < p->n; r++) aclStubStorePtrF32(loss->dtype, aclStubElemAt(loss, r), x.loss[r]);
        return OK;
    }
    float sum = aclStubSumF32(x.loss, p->n);
    if (p->reduction == RED_MEAN) sum /= aclStubSumF32(x.wt, p->n);
    aclStubStorePtrF32(loss->dtype, aclStubElemAt(loss, 0), sum);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    Plan *p = c->plan;
    const aclStubTensorDesc *in = c->v[P_INPUT].tensor, *tg = c->v[P_TARGET].tensor, *w = c->v[P_WEIGHT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, P_INPUT, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, P_TARGET, ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, P_WEIGHT, ACLSTUB_DT(ACL_FLOAT)));
    for (int k = P_LOSS; k <= P_LSE; k++) ACLSTUB_TRY(aclStubCheckDtypeIs(c, k, in->dtype));
    const char *red = c->v[P_REDUCTION].s ? c->v[P_REDUCTION].s : "mean";
    int reduction = strcmp(red, "none") == 0 ? RED_NONE : strcmp(red, "sum") == 0 ? RED_SUM
                  : strcmp(red, "mean") == 0 ? RED_MEAN : -1;
    ACLSTUB_RETURN_ERROR_IF(reduction < 0, c, INVALID, "reductionOptional must be \"mean\", \"sum\" or \"none\", got "
                            "\"%s\"", red);
    double s = c->v[P_SMOOTH].f, z = c->v[P_ZSCALE].f;
    ACLSTUB_RETURN_ERROR_IF(!(s >= 0.0 && s <= 1.0), c, INVALID, "labelSmoothing must be in [0.0, 1.0], got %g", s);
    ACLSTUB_RETURN_ERROR_IF(!(z >= 0.0 && z < 1.0), c, INVALID, "lseSquareScaleForZloss must be in [0, 1), got %g", z);
    ACLSTUB_RETURN_ERROR_IF(in->ndim != 2 || in->dims[1] <= 0, c, INVALID, "input must be [N, C] with C > 0");
    int64_t N = in->dims[0], C = in->dims[1];
    ACLSTUB_TRY(aclStubCheckShape(c, P_TARGET, &N, 1));
    if (w) ACLSTUB_TRY(aclStubCheckShape(c, P_WEIGHT, &C, 1));
    if (reduction == RED_NONE) {
        ACLSTUB_TRY(aclStubCheckShape(c, P_LOSS, &N, 1));
    } else {
        int64_t one = 1;
        ACLSTUB_TRY(aclStubCheckShape(c, P_LOSS, &one, 1));
    }
    ACLSTUB_TRY(aclStubCheckShape(c, P_LOGP, in->dims, 2));
    /* zloss is not supported yet (the document): its outputs are required and left alone */
    aclStubOpIgnore(c, P_ZLOSS);
    aclStubOpIgnore(c, P_LSE);
    (void)tg;
    *p = (Plan){.n = N, .c = C, .ignore = c->v[P_IGNORE].i, .reduction = reduction, .smoothing = (float)s};
    return N == 0 && reduction == RED_NONE ? aclStubOpNothingToDo(c) : OK;
}

#define IN(n) {n, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(n) {n, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define A(n, role) {n, role, 0, NULL, 0, 0, 0}
static const aclStubParam PARAMS[] = {
    IN("input"), IN("target"), {"weightOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    {"reductionOptional", ACLSTUB_STRING, 0, NULL, ACLSTUB_NULLABLE, 0, 0}, A("ignoreIndex", ACLSTUB_INT),
    A("labelSmoothing", ACLSTUB_FLOAT), A("lseSquareScaleForZloss", ACLSTUB_FLOAT), A("returnZloss", ACLSTUB_BOOL),
    OUT("lossOut"), OUT("logProbOut"), OUT("zlossOut"), OUT("lseForZlossOut")};
static const aclStubOpDef DEF = {"aclnnCrossEntropyLoss", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                 sizeof(Plan)};

#define T_(n) (const aclTensor *, n)
ACLSTUB_DEFINE_OP(aclnnCrossEntropyLoss, DEF, T_(input), T_(target), T_(weightOptional), (char *, reductionOptional),
                  (int64_t, ignoreIndex), (double, labelSmoothing), (double, lseSquareScaleForZloss),
                  (bool, returnZloss), T_(lossOut), T_(logProbOut), T_(zlossOut), T_(lseForZlossOut))

/* ---- aclnnCrossEntropyLossGrad ---------------------------------------------------------------------------------
 * Per row i with target t, m = (t != ignoreIndex), g = gradLoss[i] ("none") or gradLoss ("mean", "sum"), D = the
 * sum of w[t] * m over the rows ("mean", else 1): a = g * (1 - s) * m / D * w[t], b = g * s / C * m / D, and
 * xGrad[i, j] = exp(logProb[i, j]) * a - (j == t ? a : 0) + exp(logProb[i, j]) * sum_k(b * w[k]) - b * w[j]
 * (the document's formula; zloss inputs are not supported yet and have no effect). */
enum { G_GRAD, G_LOGP, G_TARGET, G_WEIGHT, G_GZ, G_LSEZ, G_REDUCTION, G_IGNORE, G_SMOOTH, G_ZSCALE, G_OUT };

typedef struct {
    const aclStubOpCall *c;
    const Plan *p;
    const float *w;
    float den, wsum; /* D; sum of the weights */
    int64_t bad_row, bad_value;
    int failed;
} GradCtx;

static void grad_rows(void *arg, int64_t begin, int64_t end) {
    GradCtx *x = arg;
    const Plan *p = x->p;
    const aclStubOpCall *c = x->c;
    const aclStubTensorDesc *gl = c->v[G_GRAD].tensor, *lp = c->v[G_LOGP].tensor, *tg = c->v[G_TARGET].tensor;
    const aclStubTensorDesc *out = c->v[G_OUT].tensor;
    int64_t C = p->c;
    for (int64_t r = begin; r < end; r++) {
        const void *tp = aclStubElemAt(tg, r);
        int64_t t = tg->dtype == ACL_INT64 ? *(const int64_t *)tp : *(const int32_t *)tp;
        bool counted = t != p->ignore;
        if (counted && (t < 0 || t >= C)) {
            __atomic_store_n(&x->bad_row, r, __ATOMIC_RELAXED);
            __atomic_store_n(&x->bad_value, t, __ATOMIC_RELAXED);
            __atomic_store_n(&x->failed, 2, __ATOMIC_RELAXED);
            continue;
        }
        float g = aclStubLoadPtrF32(gl->dtype, aclStubElemAt(gl, p->reduction == RED_NONE ? r : 0));
        float a = counted ? g * (1.0f - p->smoothing) / x->den * x->w[t] : 0.0f;
        float b = counted ? g * p->smoothing / (float)C / x->den : 0.0f;
        for (int64_t j = 0; j < C; j++) {
            float e = expf(aclStubLoadPtrF32(lp->dtype, aclStubElemAt(lp, r * C + j)));
            float v = e * a - (j == t ? a : 0.0f) + (e * (b * x->wsum) - b * x->w[j]);
            aclStubStorePtrF32(out->dtype, aclStubElemAt(out, r * C + j), v);
        }
    }
}

static aclnnStatus grad_kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    float *w = aclStubKernelScratch(c, (size_t)(p->c + p->n + 1) * sizeof(float));
    if (w == NULL) return aclStubKernelOutOfMemory(c);
    float *wt = w + p->c;
    const aclStubTensorDesc *wd = c->v[G_WEIGHT].tensor, *tg = c->v[G_TARGET].tensor;
    for (int64_t j = 0; j < p->c; j++) w[j] = wd ? aclStubLoadPtrF32(wd->dtype, aclStubElemAt(wd, j)) : 1.0f;
    for (int64_t r = 0; r < p->n; r++) {
        const void *tp = aclStubElemAt(tg, r);
        int64_t t = tg->dtype == ACL_INT64 ? *(const int64_t *)tp : *(const int32_t *)tp;
        wt[r] = t != p->ignore && t >= 0 && t < p->c ? w[t] : 0.0f;
    }
    GradCtx x = {c, p, w, p->reduction == RED_MEAN ? aclStubSumF32(wt, p->n) : 1.0f, 0.0f, 0, 0, 0};
    float *tmp = aclStubKernelScratch(c, (size_t)(p->c + 1) * sizeof(float));
    if (tmp == NULL) return aclStubKernelOutOfMemory(c);
    memcpy(tmp, w, (size_t)p->c * sizeof(float));
    x.wsum = aclStubSumF32(tmp, p->c);
    aclStubParallelFor(p->n, p->c > 0 ? 1 + 16384 / p->c : 1, grad_rows, &x);
    if (x.failed == 2) return aclStubIndexOutOfRange(c, "target", x.bad_value, x.bad_row, 0, p->c);
    return OK;
}

static aclnnStatus grad_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    const aclStubTensorDesc *lp = c->v[G_LOGP].tensor, *w = c->v[G_WEIGHT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, G_GRAD, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, G_LOGP, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, G_TARGET, ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, G_WEIGHT, ACLSTUB_DT(ACL_FLOAT)));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, G_GRAD, lp->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, G_OUT, lp->dtype));
    const char *red = c->v[G_REDUCTION].s ? c->v[G_REDUCTION].s : "mean";
    int reduction = strcmp(red, "none") == 0 ? RED_NONE : strcmp(red, "sum") == 0 ? RED_SUM
                  : strcmp(red, "mean") == 0 ? RED_MEAN : -1;
    ACLSTUB_RETURN_ERROR_IF(reduction < 0, c, INVALID, "reductionOptional must be \"mean\", \"sum\" or \"none\", got "
                            "\"%s\"", red);
    double s = c->v[G_SMOOTH].f;
    ACLSTUB_RETURN_ERROR_IF(!(s >= 0.0 && s <= 1.0), c, INVALID, "labelSmoothing must be in [0.0, 1.0], got %g", s);
    ACLSTUB_RETURN_ERROR_IF(lp->ndim != 2 || lp->dims[1] <= 0, c, INVALID, "logProb must be [N, C] with C > 0");
    int64_t N = lp->dims[0], C = lp->dims[1];
    ACLSTUB_TRY(aclStubCheckShape(c, G_TARGET, &N, 1));
    if (w) ACLSTUB_TRY(aclStubCheckShape(c, G_WEIGHT, &C, 1));
    int64_t ng = aclStubNumel(c->v[G_GRAD].tensor);
    ACLSTUB_RETURN_ERROR_IF(reduction == RED_NONE ? ng != N : ng != 1, c, INVALID, "gradLoss must have %s, got %lld "
                            "elements", reduction == RED_NONE ? "one element per row" : "one element", (long long)ng);
    ACLSTUB_TRY(aclStubCheckShape(c, G_OUT, lp->dims, 2));
    aclStubOpIgnore(c, G_GZ); /* zloss: not supported yet (the document), no effect */
    aclStubOpIgnore(c, G_LSEZ);
    *p = (Plan){.n = N, .c = C, .ignore = c->v[G_IGNORE].i, .reduction = reduction, .smoothing = (float)s};
    return N == 0 ? aclStubOpNothingToDo(c) : OK;
}

static const aclStubParam GRAD_PARAMS[] = {
    IN("gradLoss"), IN("logProb"), IN("target"), {"weightOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    {"gradZlossOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    {"lseForZlossOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    {"reductionOptional", ACLSTUB_STRING, 0, NULL, ACLSTUB_NULLABLE, 0, 0}, A("ignoreIndex", ACLSTUB_INT),
    A("labelSmoothing", ACLSTUB_FLOAT), A("lseSquareScaleForZloss", ACLSTUB_FLOAT), OUT("out")};
static const aclStubOpDef GRAD_DEF = {"aclnnCrossEntropyLossGrad", GRAD_PARAMS, ACLSTUB_LEN(GRAD_PARAMS), NULL,
                                      grad_check, grad_kernel, sizeof(Plan)};
ACLSTUB_DEFINE_OP(aclnnCrossEntropyLossGrad, GRAD_DEF, T_(gradLoss), T_(logProb), T_(target), T_(weightOptional),
                  T_(gradZlossOptional), T_(lseForZlossOptional), (char *, reductionOptional), (int64_t, ignoreIndex),
                  (double, labelSmoothing), (double, lseSquareScaleForZloss), T_(out))
