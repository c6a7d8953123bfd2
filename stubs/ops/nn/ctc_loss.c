/*
 * The CTC loss of ops-nn loss/ (ctc_loss_v2, ctc_loss_v2_grad): aclnnCtcLoss and aclnnCtcLossBackward, torch's
 * ctc_loss in log space.
 *
 * logProbs [T, N, C] (forward also [T, C]: one sequence), targets [N, S] (padded rows) or the concatenated
 * sequences [sum(targetLengths)], the lengths as int arrays. For sequence b with the extended target l' (blanks
 * around and between its labels, L = 2 S_b + 1 entries) the forward variables are
 *   alpha_0(0) = lp[0, blank], alpha_0(1) = lp[0, l'_1],
 *   alpha_t(s) = lse(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) if l'_s != blank and l'_s != l'_{s-2})
 *                + lp[t, l'_s],
 * negLogLikelihood = -lse(alpha_{T_b-1}(L-1), alpha_{T_b-1}(L-2)) (an infinite loss is 0 with zeroInfinity).
 * logAlphaOut [N, T, align8(2 max(S) + 1)] (the op_api's shape on Atlas A2/A3) holds alpha_t(s) for t < T_b,
 * s < L, and -inf everywhere else (the device's values there are not documented). The backward computes the backward
 * variables beta the same way from the end and, from the given logAlpha and negLogLikelihood, torch's gradient
 *   grad[t, b, c] = (exp(lp[t, c]) - exp(lse_{s: l'_s = c}(alpha_t(s) + beta_t(s)) + nll_b - lp[t, c])) gradOut[b]
 * for t < T_b, 0 after it (and for the whole sequence when zeroInfinity and its loss is infinite).
 * Everything is computed in double (16-bit and FLOAT inputs widened) and rounded once to the outputs' dtype; one
 * sequence per task of the stub's threads. Target labels are cast to INT64 as the op_api's Cast does (float and BOOL
 * targets truncated); a label outside [0, C) or a negative length fails the launch (ACLNN_ERR_PARAM_INVALID; an
 * index-out-of-range finding in check mode).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_ctc_loss.h"
#include "aclnnop/aclnn_ctc_loss_backward.h"
#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"

#define DT ACLSTUB_DT
#define INVALID ACLNN_ERR_PARAM_INVALID
#define LP_DT (ACLSTUB_DT_FLOATS | DT(ACL_DOUBLE))
#define TARGET_DT (DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_BOOL) | DT(ACL_FLOAT) | DT(ACL_FLOAT16))
#define T(i) (call->v[i].tensor)

typedef struct {
    bool backward;
    int lp, targets, in_len, tgt_len, blank, zero_inf, nll, alpha, grad, out; /* parameter indices, -1 absent */
} CtcRow;

typedef struct {
    int64_t T, N, C, width; /* width: logAlpha's last dimension */
} CtcPlan;

static int64_t max_of(const int64_t *v, uint64_t n) {
    int64_t m = 0;
    for (uint64_t i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
    return m;
}
static int64_t sum_of(const int64_t *v, uint64_t n) {
    int64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += v[i];
    return s;
}

static bool shape_is(const aclStubTensorDesc *t, const int64_t *dims, uint32_t n) {
    return aclStubShapeEqual(t->dims, t->ndim, dims, n);
}

/* the targets' shape rule (both operators) */
static aclnnStatus check_targets(aclStubOpCall *call, const CtcRow *r, int64_t N, bool check_dim) {
    const aclStubTensorDesc *tg = T(r->targets);
    const int64_t *tl = call->v[r->tgt_len].ints;
    uint64_t nt = call->v[r->tgt_len].size;
    char s[160];
    if (check_dim)
        ACLSTUB_RETURN_ERROR_IF(tg->ndim != 1 && tg->ndim != 2, call, INVALID, "DimNum of targets [%u] must equal 1 "
                                "or 2.", tg->ndim);
    if (tg->ndim == 2) {
        int64_t m = max_of(tl, nt);
        ACLSTUB_RETURN_ERROR_IF(tg->dims[0] != N || tg->dims[1] < m, call, INVALID, "Target's shape expect [%lld, "
                                ">=%lld], but get current shape %s.", (long long)N, (long long)m,
                                aclStubShapeText(tg->dims, tg->ndim, s, sizeof s));
    } else {
        int64_t total = sum_of(tl, nt);
        ACLSTUB_RETURN_ERROR_IF(tg->dims[0] != total, call, INVALID, "Target's shape expect [%lld], but get current "
                                "shape %s.", (long long)total, aclStubShapeText(tg->dims, tg->ndim, s, sizeof s));
    }
    return OK;
}

/* the op_api's dtype rules (after its shape rules, in both operators) */
static aclnnStatus check_dtypes(aclStubOpCall *call, const CtcRow *r) {
    const aclStubTensorDesc *lp = T(r->lp), *alpha = T(r->alpha);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, r->lp, LP_DT));
    int64_t n = lp->ndim > 1 ? lp->dims[1] : 0, c = lp->ndim > 2 ? lp->dims[2] : 0;
    int64_t s = alpha->ndim > 2 ? (alpha->dims[2] - 1) / 2 : 0;
    bool wide = c > 200000 || n > 8180 || s > 1000;
    ACLSTUB_RETURN_ERROR_IF(wide && (lp->dtype == ACL_FLOAT16 || lp->dtype == ACL_BF16), call, INVALID,
                            "Not supported now, we will support it later.");
    if (!r->backward) ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, r->targets, TARGET_DT));
    if (r->backward) ACLSTUB_TRY(aclStubCheckDtypeIs(call, r->grad, lp->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, r->nll, lp->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, r->alpha, lp->dtype));
    if (r->backward) {
        ACLSTUB_TRY(aclStubCheckDtypeIs(call, r->out, lp->dtype));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, r->targets, TARGET_DT));
    }
    return OK;
}

static aclnnStatus forward_check(aclStubOpCall *call) {
    const CtcRow *r = aclStubFamilyRow(call);
    CtcPlan *p = call->plan;
    const aclStubTensorDesc *lp = T(r->lp);
    const int64_t *il = call->v[r->in_len].ints;
    uint64_t ni = call->v[r->in_len].size, nt = call->v[r->tgt_len].size;
    char a[160], b[160];
    ACLSTUB_RETURN_ERROR_IF(lp->ndim == 0 || lp->dims[0] == 0, call, INVALID,
                            "start (0) + length (1) exceeds dimension size (0).");
    ACLSTUB_RETURN_ERROR_IF(lp->ndim > 3 || lp->ndim < 2, call, INVALID, "DimNum of logProbs [%u] must equal 2 or 3.",
                            lp->ndim);
    p->T = lp->dims[0];
    p->N = lp->ndim == 3 ? lp->dims[1] : 1;
    p->C = lp->dims[lp->ndim - 1];
    int64_t blank = call->v[r->blank].i;
    ACLSTUB_RETURN_ERROR_IF(blank < 0 || blank >= p->C, call, INVALID, "Attr parameter blank %lld must be greater "
                            "than or equal to 0 and less than %lld.", (long long)blank, (long long)p->C);
    int64_t max_in = max_of(il, ni);
    ACLSTUB_RETURN_ERROR_IF((int64_t)ni != p->N || max_in > p->T, call, INVALID, "Inputlengths's size [%lld] must "
                            "equal to [%lld], and max value [%lld] must be less than or equal to [%lld].",
                            (long long)ni, (long long)p->N, (long long)max_in, (long long)p->T);
    ACLSTUB_RETURN_ERROR_IF((int64_t)nt != p->N, call, INVALID, "targetLengths's size [%lld] must equal to [%lld].",
                            (long long)nt, (long long)p->N);
    ACLSTUB_TRY(check_targets(call, r, p->N, true));
    int64_t maxs = max_of(call->v[r->tgt_len].ints, nt);
    p->width = (2 * maxs + 1 + 7) / 8 * 8;
    int64_t nll_dims[1] = {p->N}, alpha_dims[3] = {p->N, p->T, p->width};
    const aclStubTensorDesc *nll = T(r->nll), *alpha = T(r->alpha);
    ACLSTUB_RETURN_ERROR_IF(!shape_is(nll, nll_dims, lp->ndim == 3 ? 1 : 0), call, INVALID, "Shape of "
                            "negLogLikelihoodOut %s must equal %s.", aclStubShapeText(nll->dims, nll->ndim, a, sizeof a),
                            aclStubShapeText(nll_dims, lp->ndim == 3 ? 1 : 0, b, sizeof b));
    ACLSTUB_RETURN_ERROR_IF(!shape_is(alpha, alpha_dims, 3), call, INVALID, "Shape of logAlphaOut %s must equal %s.",
                            aclStubShapeText(alpha->dims, alpha->ndim, a, sizeof a),
                            aclStubShapeText(alpha_dims, 3, b, sizeof b));
    ACLSTUB_TRY(check_dtypes(call, r));
    if (lp->dims[1] == 0) return aclStubOpNothingToDo(call); /* the op_api's test (dimension 1, whatever the rank) */
    return OK;
}

static aclnnStatus backward_check(aclStubOpCall *call) {
    const CtcRow *r = aclStubFamilyRow(call);
    CtcPlan *p = call->plan;
    const aclStubTensorDesc *g = T(r->grad), *lp = T(r->lp), *tg = T(r->targets), *nll = T(r->nll);
    const aclStubTensorDesc *alpha = T(r->alpha), *out = T(r->out);
    ACLSTUB_RETURN_ERROR_IF(lp->ndim == 0 || lp->dims[0] == 0, call, INVALID,
                            "start (0) + length (1) exceeds dimension size (0).");
    ACLSTUB_RETURN_ERROR_IF(g->ndim != 1, call, INVALID, "DimNum of gradOut [%u] must equal [1].", g->ndim);
    ACLSTUB_RETURN_ERROR_IF(nll->ndim != 1, call, INVALID, "DimNum of negLogLikelihood [%u] must equal [1].",
                            nll->ndim);
    ACLSTUB_RETURN_ERROR_IF(lp->ndim != 3, call, INVALID, "DimNum of logProbs [%u] must equal 3.", lp->ndim);
    ACLSTUB_RETURN_ERROR_IF(alpha->ndim != 3, call, INVALID, "DimNum of logAlpha [%u] must equal 3.", alpha->ndim);
    ACLSTUB_RETURN_ERROR_IF(tg->ndim != 1 && tg->ndim != 2, call, INVALID, "DimNum of targets [%u] must equal 1 or "
                            "2.", tg->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 3, call, INVALID, "DimNum of out [%u] must equal 3.", out->ndim);
    int64_t blank = call->v[r->blank].i;
    ACLSTUB_RETURN_ERROR_IF(blank < 0 || blank >= lp->dims[2], call, INVALID, "Attr parameter blank %lld must be "
                            "greater than or equal to 0 and less than %lld.", (long long)blank, (long long)lp->dims[2]);
    const int64_t *il = call->v[r->in_len].ints, *tl = call->v[r->tgt_len].ints;
    int64_t ni = (int64_t)call->v[r->in_len].size, nt = (int64_t)call->v[r->tgt_len].size;
    int64_t T_ = lp->dims[0], N = lp->dims[1], C = lp->dims[2];
    int64_t max_in = max_of(il, (uint64_t)ni), max_tg = max_of(tl, (uint64_t)nt);
    ACLSTUB_RETURN_ERROR_IF(max_tg > (alpha->dims[2] - 1) / 2, call, INVALID, "S of targets [%lld] must be smaller "
                            "than half of alphaLength [%lld].", (long long)max_tg, (long long)alpha->dims[2]);
    bool n_ok = N == g->dims[0] && g->dims[0] == out->dims[1] && out->dims[1] == nll->dims[0] &&
                nll->dims[0] == alpha->dims[0] && alpha->dims[0] == ni && ni == nt;
    if (tg->ndim > 1) {
        ACLSTUB_RETURN_ERROR_IF(tg->dims[1] < max_tg, call, INVALID, "Targets tensor's size at dim 1 is at least%lld",
                                (long long)max_tg);
        n_ok = n_ok && tg->dims[0] == nt;
    }
    ACLSTUB_RETURN_ERROR_IF(!n_ok, call, INVALID, "Check batchSize failed.");
    ACLSTUB_RETURN_ERROR_IF(!(out->dims[0] == T_ && T_ == alpha->dims[1] && max_in <= T_), call, INVALID,
                            "Check max time failed.");
    ACLSTUB_RETURN_ERROR_IF(C != out->dims[2], call, INVALID, "Check symbolSet failed.");
    ACLSTUB_TRY(check_targets(call, r, N, false));
    ACLSTUB_TRY(aclStubCheckShape(call, r->out, lp->dims, 3));
    ACLSTUB_TRY(check_dtypes(call, r));
    p->T = T_, p->N = N, p->C = C, p->width = alpha->dims[2];
    if (N == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* ---- kernels ---------------------------------------------------------------------------------------------------- */

static inline double lse(double a, double b) {
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}

typedef struct {
    const aclStubOpCall *call;
    const double *lp;       /* [T, N, C] */
    const int64_t *targets; /* as INT64 */
    const int64_t *offsets; /* where sequence b's labels start */
    int64_t tstride;        /* 2-D targets: the row length; 1-D: 0 */
    double *nll, *alpha;    /* forward outputs: [N], [N, T, width] */
    const double *gin, *nll_in, *alpha_in; /* backward inputs */
    double *grad;           /* [T, N, C] */
    atomic_int failed;
} CtcCtx;

/* label s of sequence b's extended target */
static inline int64_t ext(const CtcCtx *x, int64_t b, int64_t s, int64_t blank) {
    return (s & 1) ? x->targets[x->offsets[b] + s / 2] : blank;
}

static void forward_seq(void *ctxp, int64_t begin, int64_t end) {
    CtcCtx *x = ctxp;
    const aclStubOpCall *call = x->call;
    const CtcRow *r = aclStubFamilyRow(call);
    const CtcPlan *p = call->plan;
    int64_t blank = call->v[r->blank].i, W = p->width, N = p->N, C = p->C;
    bool zero_inf = call->v[r->zero_inf].b;
    for (int64_t b = begin; b < end; b++) {
        int64_t Tb = call->v[r->in_len].ints[b], S = call->v[r->tgt_len].ints[b], L = 2 * S + 1;
        double *a = x->alpha + b * p->T * W;
        for (int64_t i = 0; i < p->T * W; i++) a[i] = -INFINITY;
        double nll = S == 0 ? 0.0 : INFINITY;
        if (Tb > 0) {
            const double *lp0 = x->lp + b * C;
            a[0] = lp0[blank];
            if (L > 1) a[1] = lp0[ext(x, b, 1, blank)];
            for (int64_t t = 1; t < Tb; t++) {
                const double *prev = a + (t - 1) * W, *lpt = x->lp + (t * N + b) * C;
                double *cur = a + t * W;
                for (int64_t s = 0; s < L; s++) {
                    int64_t l = ext(x, b, s, blank);
                    double v = prev[s];
                    if (s > 0) v = lse(v, prev[s - 1]);
                    if (s > 1 && l != blank && l != ext(x, b, s - 2, blank)) v = lse(v, prev[s - 2]);
                    cur[s] = v == -INFINITY ? -INFINITY : v + lpt[l];
                }
            }
            const double *last = a + (Tb - 1) * W;
            nll = -(L > 1 ? lse(last[L - 1], last[L - 2]) : last[0]);
        }
        x->nll[b] = zero_inf && isinf(nll) ? 0.0 : nll;
    }
}

static void backward_seq(void *ctxp, int64_t begin, int64_t end) {
    CtcCtx *x = ctxp;
    const aclStubOpCall *call = x->call;
    const CtcRow *r = aclStubFamilyRow(call);
    const CtcPlan *p = call->plan;
    int64_t blank = call->v[r->blank].i, W = p->width, N = p->N, C = p->C;
    bool zero_inf = call->v[r->zero_inf].b;
    int64_t maxL = W;
    double *beta = malloc(sizeof(double) * (size_t)(2 * maxL + C));
    if (beta == NULL) {
        atomic_store(&x->failed, 1);
        return;
    }
    double *next = beta + maxL, *lcab = beta + 2 * maxL;
    for (int64_t b = begin; b < end; b++) {
        int64_t Tb = call->v[r->in_len].ints[b], S = call->v[r->tgt_len].ints[b], L = 2 * S + 1;
        double nll = x->nll_in[b], gr = x->gin[b];
        const double *a = x->alpha_in + b * p->T * W;
        bool zero = (zero_inf && isinf(nll)) || Tb == 0;
        for (int64_t t = Tb > 0 && !zero ? Tb : 0; t < p->T; t++) memset(x->grad + (t * N + b) * C, 0, sizeof(double) * (size_t)C);
        if (zero) {
            for (int64_t t = 0; t < Tb; t++) memset(x->grad + (t * N + b) * C, 0, sizeof(double) * (size_t)C);
            continue;
        }
        for (int64_t t = Tb - 1; t >= 0; t--) {
            const double *lpt = x->lp + (t * N + b) * C;
            for (int64_t s = 0; s < L; s++) {
                int64_t l = ext(x, b, s, blank);
                double v;
                if (t == Tb - 1) {
                    v = s >= L - 2 ? lpt[l] : -INFINITY;
                } else {
                    v = next[s];
                    if (s + 1 < L) v = lse(v, next[s + 1]);
                    if (s + 2 < L && l != blank && l != ext(x, b, s + 2, blank)) v = lse(v, next[s + 2]);
                    v = v == -INFINITY ? -INFINITY : v + lpt[l];
                }
                beta[s] = v;
            }
            for (int64_t c = 0; c < C; c++) lcab[c] = -INFINITY;
            for (int64_t s = 0; s < L; s++) {
                int64_t l = ext(x, b, s, blank);
                lcab[l] = lse(lcab[l], a[t * W + s] + beta[s]);
            }
            double *g = x->grad + (t * N + b) * C;
            for (int64_t c = 0; c < C; c++) g[c] = (exp(lpt[c]) - exp(lcab[c] + nll - lpt[c])) * gr;
            memcpy(next, beta, sizeof(double) * (size_t)L);
        }
    }
    free(beta);
}

/* the labels as INT64, their start offsets, and the lengths' and labels' ranges */
static aclnnStatus load_targets(const aclStubOpCall *call, const CtcRow *r, CtcCtx *x, aclStubTensorDesc *tg) {
    const CtcPlan *p = call->plan;
    const int64_t *il = call->v[r->in_len].ints, *tl = call->v[r->tgt_len].ints;
    ACLSTUB_TRY(aclStubContiguousIn(call, T(r->targets), ACL_INT64, tg));
    x->targets = (const int64_t *)aclStubViewBase(tg);
    int64_t *off = aclStubKernelScratch(call, sizeof(int64_t) * (size_t)(p->N + 1));
    if (off == NULL) return aclStubKernelOutOfMemory(call);
    bool two_d = T(r->targets)->ndim == 2;
    int64_t acc = 0;
    for (int64_t b = 0; b < p->N; b++) {
        if (il[b] < 0) return aclStubIndexOutOfRange(call, "inputLengths", il[b], b, 0, p->T + 1);
        if (tl[b] < 0) return aclStubIndexOutOfRange(call, "targetLengths", tl[b], b, 0, INT64_MAX);
        off[b] = two_d ? b * T(r->targets)->dims[1] : acc;
        acc += tl[b];
        for (int64_t k = 0; k < tl[b]; k++) {
            int64_t v = x->targets[off[b] + k];
            if (v < 0 || v >= p->C)
                return aclStubIndexOutOfRange(call, "targets", v, off[b] + k, 0, p->C);
        }
    }
    x->offsets = off;
    return OK;
}

static aclnnStatus ctc_kernel(const aclStubOpCall *call) {
    const CtcRow *r = aclStubFamilyRow(call);
    const CtcPlan *p = call->plan;
    CtcCtx x;
    memset(&x, 0, sizeof x);
    x.call = call;
    atomic_init(&x.failed, 0);
    aclStubTensorDesc lp, tg;
    ACLSTUB_TRY(load_targets(call, r, &x, &tg));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(r->lp), ACL_DOUBLE, &lp));
    x.lp = (const double *)aclStubViewBase(&lp);
    if (!r->backward) {
        aclStubTensorDesc nll, alpha;
        ACLSTUB_TRY(aclStubOutputBegin(call, T(r->nll), ACL_DOUBLE, false, &nll));
        ACLSTUB_TRY(aclStubOutputBegin(call, T(r->alpha), ACL_DOUBLE, false, &alpha));
        x.nll = (double *)aclStubViewBase(&nll);
        x.alpha = (double *)aclStubViewBase(&alpha);
        aclStubParallelFor(p->N, 1, forward_seq, &x);
        ACLSTUB_TRY(aclStubOutputEnd(call, T(r->nll), &nll));
        return aclStubOutputEnd(call, T(r->alpha), &alpha);
    }
    aclStubTensorDesc g, nll, alpha, out;
    ACLSTUB_TRY(aclStubContiguousIn(call, T(r->grad), ACL_DOUBLE, &g));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(r->nll), ACL_DOUBLE, &nll));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(r->alpha), ACL_DOUBLE, &alpha));
    ACLSTUB_TRY(aclStubOutputBegin(call, T(r->out), ACL_DOUBLE, false, &out));
    x.gin = (const double *)aclStubViewBase(&g);
    x.nll_in = (const double *)aclStubViewBase(&nll);
    x.alpha_in = (const double *)aclStubViewBase(&alpha);
    x.grad = (double *)aclStubViewBase(&out);
    aclStubParallelFor(p->N, 1, backward_seq, &x);
    if (atomic_load(&x.failed)) return aclStubKernelOutOfMemory(call);
    return aclStubOutputEnd(call, T(r->out), &out);
}

/* ---- tables ------------------------------------------------------------------------------------------------------ */

#define IN(n) {n, ACLSTUB_INPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define OUT(n) {n, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define A(n, role) {n, role, 0, NULL, 0, 0, 0}

static const aclStubParam kFwdParams[] = {IN("logProbs"), IN("targets"), A("inputLengths", ACLSTUB_INT_ARRAY),
                                          A("targetLengths", ACLSTUB_INT_ARRAY), A("blank", ACLSTUB_INT),
                                          A("zeroInfinity", ACLSTUB_BOOL), OUT("negLogLikelihoodOut"),
                                          OUT("logAlphaOut")};
static const CtcRow kFwdRow = {false, 0, 1, 2, 3, 4, 5, 6, 7, -1, -1};
static const aclStubFamilyOp kFwd = {{"aclnnCtcLoss", kFwdParams, ACLSTUB_LEN(kFwdParams), NULL, forward_check,
                                      ctc_kernel, sizeof(CtcPlan)}, &kFwdRow};
ACLSTUB_DEFINE_OP(aclnnCtcLoss, kFwd.def, (const aclTensor *, logProbs), (const aclTensor *, targets),
                  (const aclIntArray *, inputLengths), (const aclIntArray *, targetlengths), (int64_t, blank),
                  (bool, zeroInfinity), (aclTensor *, negLogLikelihoodOut), (aclTensor *, logAlphaOut))

static const aclStubParam kBwdParams[] = {IN("gradOut"), IN("logProbs"), IN("targets"),
                                          A("inputLengths", ACLSTUB_INT_ARRAY), A("targetLengths", ACLSTUB_INT_ARRAY),
                                          IN("negLogLikelihood"), IN("logAlpha"), A("blank", ACLSTUB_INT),
                                          A("zeroInfinity", ACLSTUB_BOOL), OUT("out")};
static const CtcRow kBwdRow = {true, 1, 2, 3, 4, 7, 8, 5, 6, 0, 9};
static const aclStubFamilyOp kBwd = {{"aclnnCtcLossBackward", kBwdParams, ACLSTUB_LEN(kBwdParams), NULL,
                                      backward_check, ctc_kernel, sizeof(CtcPlan)}, &kBwdRow};
ACLSTUB_DEFINE_OP(aclnnCtcLossBackward, kBwd.def, (const aclTensor *, gradOut), (const aclTensor *, logProbs),
                  (const aclTensor *, targets), (const aclIntArray *, inputLengths),
                  (const aclIntArray *, targetLengths), (const aclTensor *, negLogLikelihood),
                  (const aclTensor *, logAlpha), (int64_t, blank), (bool, zeroInfinity), (aclTensor *, out))
