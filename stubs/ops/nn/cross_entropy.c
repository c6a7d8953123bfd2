/*
 * aclnnCrossEntropyLoss of ops-nn loss/: log-softmax and the weighted negative log-likelihood of a target class per
 * row, with label smoothing, as its document gives them.
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
