/*
 * The pointwise-loss family (included by the operator files of ops-nn loss/ and ops-math's aclnnKlDiv): a table
 * row per operator, one check and one kernel. The loss of every element of the broadcast shape is computed in float32
 * (float64 for DOUBLE), inputs cast to the promoted dtype first; log, exp and log1p run in float64 and are
 * rounded once. Reduction 0 writes the elements, 1 their mean and 2 their sum (the reduction engine's order;
 * aclnnKlDiv's 3, batchmean, the sum over the first dimension's size). Backward operators scale by 1/N for the mean.
 *   mse (x - y)^2                    l1 |x - y|               smooth_l1 |d| < beta ? d^2 / (2 beta) : |d| - beta / 2
 *   soft_margin log(1 + exp(-y x))   bce -w (y max(log x, -100) + (1 - y) max(log(1 - x), -100))
 *   bce_with_logits w ((1 - y) x + (1 + (pw - 1) y) (log1p(exp(-|x|)) + max(-x, 0)))
 *   kl_div  log_target ? exp(y) (y - x) : y (log y - x), 0 where y == 0
 */
#ifndef ACLNN_STUB_LOSS_COMMON_H_
#define ACLNN_STUB_LOSS_COMMON_H_

#include <math.h>

#include "aclstub/op_reduce.h"

#define DT ACLSTUB_DT
#define MAX_DIMS 8
#define LOSS_DT ACLSTUB_DT_FLOATS

typedef enum { K_MSE, K_L1, K_SMOOTH_L1, K_SOFT_MARGIN, K_BCE, K_BCE_LOGITS, K_KL_DIV, K_KL_TARGET } Kind;

/* LossRow.flags */
#define F_BACKWARD 1u    /* gradOutput is the first parameter; the result is a gradient */
#define F_SAME_SHAPE 2u  /* self and target must have one shape (no broadcasting between them) */
#define F_SAME_DTYPE 4u  /* every tensor has self's dtype */
#define F_NULL_INNER 8u  /* NULL tensors answer ACLNN_ERR_INNER_NULLPTR (the op_api's own check) */
#define F_BATCHMEAN 16u  /* reduction 3: the sum over dims[0] (aclnnKlDiv) */
#define F_INT64 32u      /* INT64 inputs accepted (aclnnL1Loss) */
#define F_ANY_REDUCTION 64u /* no range rule: an unknown reduction is sum (forward) or none (backward) */
#define F_OUT_SELF 128u  /* backward: out has self's shape (target's with F_OUT_TARGET): broadcast elements summed */
#define F_OUT_TARGET 256u
#define F_DIM0 512u      /* forward: mean and sum reduce dimension 0 only, out has the broadcast shape without it, and an
                            empty input is nothing to do (aclnnMseLossOut) */

typedef struct {
    Kind kind;
    unsigned flags;
    /* parameter indices, -1 when absent */
    int grad, self, target, weight, pos_weight, reduction, beta, log_target, out;
} LossRow;

typedef struct {
    int reduction;
    float beta;
    bool log_target, has_weight, has_pos;
    double scale;        /* backward: 1/N for the mean, else 1 */
    int64_t batch;       /* batchmean's divisor */
    aclDataType promote; /* the dtype the op_api computes in */
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t ndim;       /* the broadcast shape */
    int fill;            /* 0: compute; 1: fill NaN; 2: fill 0 */
    uint64_t out_reduce; /* backward into an input's shape: the broadcast dimensions summed */
} Plan;

typedef struct {
    Kind kind;
    bool backward;
    float beta;
    bool log_target;
    double scale;
    int ix, it, ig, iw, ip; /* operand positions in the loop (0 is the output), -1 when absent */
} Ctx;

static inline double logd(double v) { return log(v); }

/* one element's loss (forward) or gradient (backward) in double, rounded by the caller */
static inline double element(const Ctx *c, double x, double y, double g, double w, double pw) {
    double d = x - y;
    if (!c->backward) {
        switch (c->kind) {
        case K_MSE: return d * d;
        case K_L1: return fabs(d);
        case K_SMOOTH_L1: {
            double a = fabs(d), b = c->beta;
            return b > 0 && a < b ? 0.5 * d * d / b : a - 0.5 * b;
        }
        case K_SOFT_MARGIN: return log1p(exp(-y * x));
        case K_BCE: {
            double lx = x > 0 ? logd(x) : -INFINITY, l1x = 1 - x > 0 ? logd(1 - x) : -INFINITY;
            lx = lx < -100 ? -100 : lx;
            l1x = l1x < -100 ? -100 : l1x;
            return -w * (y * lx + (1 - y) * l1x);
        }
        case K_BCE_LOGITS: {
            double lw = 1 + (pw - 1) * y;
            return w * ((1 - y) * x + lw * (log1p(exp(-fabs(x))) + (x < 0 ? -x : 0)));
        }
        case K_KL_DIV:
            if (c->log_target) return exp(y) * (y - x);
            return y > 0 ? y * (logd(y) - x) : y == 0 ? 0.0 : y * (logd(y) - x);
        default: return 0;
        }
    }
    double s = g * c->scale;
    switch (c->kind) {
    case K_MSE: return 2 * d * s;
    case K_L1: return (d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0) * s;
    case K_SMOOTH_L1: {
        double b = c->beta;
        if (b > 0 && fabs(d) < b) return d / b * s;
        return (d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0) * s;
    }
    case K_SOFT_MARGIN: {
        double z = exp(-y * x);
        return -y * z / (1 + z) * s;
    }
    case K_BCE: {
        double den = (1 - x) * x;
        den = den > 1e-12 ? den : 1e-12;
        return w * (x - y) / den * s;
    }
    case K_BCE_LOGITS: {
        double z = 1 / (1 + exp(-x)), lw = 1 + (pw - 1) * y;
        return w * ((1 - y) - lw + lw * z) * s;
    }
    case K_KL_DIV: return (c->log_target ? -exp(y) : -y) * s;
    case K_KL_TARGET:
        if (c->log_target) return exp(y) * (y - x + 1) * s;
        return y > 0 ? (logd(y) - x + 1) * s : 0.0;
    }
    return 0;
}

#define LOOP(T)                                                                                              \
    static void loop_##T(char **d, const int64_t *st, int64_t n, const void *ctx) {                         \
        const Ctx *c = ctx;                                                                                  \
        for (int64_t i = 0; i < n; i++) {                                                                    \
            double x = *(const T *)(const void *)(d[c->ix] + i * st[c->ix]);                                 \
            double y = *(const T *)(const void *)(d[c->it] + i * st[c->it]);                                 \
            double g = c->ig > 0 ? *(const T *)(const void *)(d[c->ig] + i * st[c->ig]) : 1.0;               \
            double w = c->iw > 0 ? *(const T *)(const void *)(d[c->iw] + i * st[c->iw]) : 1.0;               \
            double pw = c->ip > 0 ? *(const T *)(const void *)(d[c->ip] + i * st[c->ip]) : 1.0;              \
            if (sizeof(T) == 4) { /* float32 arithmetic before the transcendental functions */               \
                x = (float)x, y = (float)y;                                                                  \
            }                                                                                                \
            *(T *)(void *)(d[0] + i * st[0]) = (T)element(c, x, y, g, w, pw);                                \
        }                                                                                                    \
    }
LOOP(float)
LOOP(double)

static aclnnStatus kernel(const aclStubOpCall *call) {
    const LossRow *row = aclStubFamilyRow(call);
    const Plan *p = call->plan;
    const aclStubTensorDesc *out = call->v[row->out].tensor;
    if (p->fill) return aclStubFill(call, out, p->fill == 1 ? NAN : 0.0);
    bool backward = row->flags & F_BACKWARD;
    bool reduce = (!backward && p->reduction != 0) || p->out_reduce != 0;
    aclDataType loop = p->promote == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
    aclStubTensorDesc scratch;
    if (reduce) { /* the elements into a contiguous buffer of the broadcast shape, then the reduction */
        memset(&scratch, 0, sizeof scratch);
        scratch.dtype = loop;
        scratch.format = ACL_FORMAT_ND;
        scratch.ndim = p->ndim;
        int64_t s = 1;
        for (uint32_t d = p->ndim; d-- > 0;) {
            scratch.dims[d] = p->shape[d];
            scratch.strides[d] = s;
            s *= p->shape[d];
        }
        scratch.data = aclStubKernelScratch(call, (size_t)s * aclDataTypeSize(loop));
        if (scratch.data == NULL) return aclStubKernelOutOfMemory(call);
    }
    Ctx c = {row->kind, backward, p->beta, p->log_target, p->scale, -1, -1, -1, -1, -1};
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.tensor[0] = reduce ? &scratch : out;
    it.loop_dtype[0] = loop;
    if (!reduce && p->promote != loop) {
        it.has_via[0] = true;
        it.via[0] = p->promote;
    }
    int params[5] = {row->self, row->target, row->grad, p->has_weight ? row->weight : -1,
                     p->has_pos ? row->pos_weight : -1};
    int *slot[5] = {&c.ix, &c.it, &c.ig, &c.iw, &c.ip};
    int k = 1;
    for (int i = 0; i < 5; i++) {
        if (params[i] < 0) continue;
        it.tensor[k] = call->v[params[i]].tensor;
        it.loop_dtype[k] = loop;
        if (p->promote != loop) {
            it.has_via[k] = true;
            it.via[k] = p->promote;
        }
        *slot[i] = k++;
    }
    it.num_inputs = k - 1;
    ACLSTUB_TRY(aclStubIterRun(call, &it, loop == ACL_DOUBLE ? loop_double : loop_float, &c));
    if (!reduce) return OK;
    if (!backward && p->reduction == 3) { /* batchmean: the sum, divided by the batch */
        float sum;
        aclStubTensorDesc one;
        memset(&one, 0, sizeof one);
        one.dtype = ACL_FLOAT;
        one.data = &sum;
        aclStubReduce r = {ACLSTUB_RED_SUM, &scratch, aclStubAllDims(scratch.ndim), ACL_FLOAT, &one, NULL, 0, 0, 0};
        ACLSTUB_TRY(aclStubReduceRun(call, &r));
        return aclStubFill(call, out, (double)(float)(sum / (float)p->batch));
    }
    if (backward) { /* summed over the dimensions out does not have */
        aclStubReduce r = {ACLSTUB_RED_SUM, &scratch, p->out_reduce, p->promote, out, NULL, 0, 0, 0};
        return aclStubReduceRun(call, &r);
    }
    uint64_t dims = (row->flags & F_DIM0) && scratch.ndim > 0 ? 1 : aclStubAllDims(scratch.ndim);
    aclStubReduce r = {p->reduction == 1 ? ACLSTUB_RED_MEAN : ACLSTUB_RED_SUM, &scratch, dims, p->promote, out, NULL,
                       0, 0, 0};
    return aclStubReduceRun(call, &r);
}

static aclnnStatus check(aclStubOpCall *call) {
    const LossRow *row = aclStubFamilyRow(call);
    Plan *p = call->plan;
    bool backward = row->flags & F_BACKWARD;
    int tensors[6] = {row->grad, row->self, row->target, row->weight, row->pos_weight, row->out};
    if (row->flags & F_NULL_INNER)
        for (int i = 0; i < 6; i++)
            if (tensors[i] >= 0 && i != 3 && i != 4)
                ACLSTUB_RETURN_ERROR_IF(call->v[tensors[i]].tensor == NULL, call, ACLNN_ERR_INNER_NULLPTR,
                                        "argument '%s' is NULL", call->op->params[tensors[i]].name);
    const aclStubTensorDesc *self = call->v[row->self].tensor, *target = call->v[row->target].tensor;
    const aclStubTensorDesc *out = call->v[row->out].tensor;
    p->reduction = (int)call->v[row->reduction].i;
    p->beta = row->beta >= 0 ? (float)call->v[row->beta].f : 0.0f;
    p->log_target = row->log_target >= 0 && call->v[row->log_target].b;
    p->has_weight = row->weight >= 0 && call->v[row->weight].tensor != NULL;
    p->has_pos = row->pos_weight >= 0 && call->v[row->pos_weight].tensor != NULL;
    int max_reduction = (row->flags & F_BATCHMEAN) ? 3 : 2;
    if (row->flags & F_ANY_REDUCTION) {
        if (p->reduction < 0 || p->reduction > max_reduction) p->reduction = backward ? 0 : 2;
    } else {
        ACLSTUB_RETURN_ERROR_IF(p->reduction < 0 || p->reduction > max_reduction, call, ACLNN_ERR_PARAM_INVALID,
                                "reduction must be in [0, %d], got %d", max_reduction, p->reduction);
    }
    /* dtypes: every tensor in the support list; the promoted dtype castable to out's */
    uint64_t dts = LOSS_DT | ((row->flags & F_INT64) ? DT(ACL_INT64) : 0);
    for (int i = 0; i < 6; i++)
        if (tensors[i] >= 0) ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, tensors[i], dts));
    aclDataType promote = aclStubPromoteType(self->dtype, target->dtype);
    if (row->flags & F_SAME_DTYPE) {
        for (int i = 0; i < 6; i++)
            if (tensors[i] >= 0 && tensors[i] != row->self)
                ACLSTUB_TRY(aclStubCheckDtypeIs(call, tensors[i], self->dtype));
        promote = self->dtype;
    }
    if (backward) promote = aclStubPromoteType(promote, call->v[row->grad].tensor->dtype);
    ACLSTUB_RETURN_ERROR_IF((int)promote < 0 || !aclStubCanCast(promote, out->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "Result type %s can't be cast to the desired output type %s", aclStubDtypeName(promote),
                            aclStubDtypeName(out->dtype));
    p->promote = promote == ACL_INT64 ? ACL_FLOAT : promote;
    /* shapes: ranks, broadcasting, the output's shape */
    for (int i = 0; i < 5; i++)
        if (tensors[i] >= 0) ACLSTUB_TRY(aclStubCheckMaxDim(call, tensors[i], MAX_DIMS));
    char a[256], b[256];
    if (row->flags & F_SAME_SHAPE)
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(self->dims, self->ndim, target->dims, target->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "self %s and target %s must have the same shape",
                                aclStubShapeText(self->dims, self->ndim, a, sizeof a),
                                aclStubShapeText(target->dims, target->ndim, b, sizeof b));
    p->ndim = 0;
    for (int i = 0; i < 5; i++) {
        const aclStubTensorDesc *t = tensors[i] >= 0 ? call->v[tensors[i]].tensor : NULL;
        if (t == NULL) continue;
        int64_t next[ACLSTUB_MAX_DIMS];
        uint32_t nn;
        ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(p->shape, p->ndim, t->dims, t->ndim, next, &nn), call,
                                ACLNN_ERR_PARAM_INVALID, "The size of tensor %s %s must match the size %s",
                                call->op->params[tensors[i]].name, aclStubShapeText(t->dims, t->ndim, a, sizeof a),
                                aclStubShapeText(p->shape, p->ndim, b, sizeof b));
        memcpy(p->shape, next, nn * sizeof next[0]);
        p->ndim = nn;
    }
    int64_t n = 1;
    for (uint32_t d = 0; d < p->ndim; d++) n *= p->shape[d];
    p->out_reduce = 0;
    if (row->flags & (F_OUT_SELF | F_OUT_TARGET)) { /* out has an input's shape: broadcast dimensions summed */
        int64_t st[ACLSTUB_MAX_DIMS];
        uint32_t nst;
        aclStubBroadcastShape(self->dims, self->ndim, target->dims, target->ndim, st, &nst);
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(st, nst, p->shape, p->ndim), call, ACLNN_ERR_PARAM_INVALID,
                                "gradOutput must broadcast to the shape of self and target %s",
                                aclStubShapeText(st, nst, a, sizeof a));
        const aclStubTensorDesc *like = (row->flags & F_OUT_SELF) ? self : target;
        ACLSTUB_TRY(aclStubCheckShape(call, row->out, like->dims, like->ndim));
        uint32_t lead = p->ndim - like->ndim;
        for (uint32_t d = 0; d < p->ndim; d++)
            if (d < lead || (like->dims[d - lead] == 1 && p->shape[d] != 1)) p->out_reduce |= UINT64_C(1) << d;
    } else if (backward || p->reduction == 0) {
        ACLSTUB_TRY(aclStubCheckShape(call, row->out, p->shape, p->ndim));
    } else if (row->flags & F_DIM0) {
        ACLSTUB_TRY(aclStubCheckShape(call, row->out, p->shape + (p->ndim > 0), p->ndim - (p->ndim > 0)));
    } else {
        ACLSTUB_RETURN_ERROR_IF(out->ndim != 0 && aclStubNumel(out) != 1, call, ACLNN_ERR_PARAM_INVALID,
                                "a reduced loss is one element; out has shape %s",
                                aclStubShapeText(out->dims, out->ndim, a, sizeof a));
    }
    p->batch = p->ndim ? p->shape[0] : 1;
    p->scale = !backward ? 1.0 : p->reduction == 1 ? 1.0 / (double)n : p->reduction == 3 ? 1.0 / (double)p->batch : 1.0;
    if (n == 0) { /* the empty loss: mean NaN, sum 0 */
        if (backward || p->reduction == 0 || (row->flags & F_DIM0)) return aclStubOpNothingToDo(call);
        p->fill = p->reduction == 2 ? 2 : (p->reduction == 3 && p->batch == 0) ? 1 : p->reduction == 3 ? 2 : 1;
        if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    }
    return OK;
}

/* ---- defining an operator of the family ----------------------------------------------------------------------- */

#define LOSS_OP(NAME, ROW, ...)                                                                              \
    static const aclStubFamilyOp NAME##_op_ = {{#NAME, NAME##_params_, ACLSTUB_LEN(NAME##_params_), NULL,     \
                                                check, kernel, sizeof(Plan)}, &(ROW)};                        \
    ACLSTUB_DEFINE_OP(NAME, NAME##_op_.def, __VA_ARGS__)

#define T_IN(name) {#name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define T_OPT(name) {#name, ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}
#define T_OUT(name) {#name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define A_INT(name) {#name, ACLSTUB_INT, 0, NULL, 0, 0, 0}
#define A_FLOAT(name) {#name, ACLSTUB_FLOAT, 0, NULL, 0, 0, 0}
#define A_BOOL(name) {#name, ACLSTUB_BOOL, 0, NULL, 0, 0, 0}

#endif /* ACLNN_STUB_LOSS_COMMON_H_ */
