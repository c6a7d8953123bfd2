/*
 * The negative log-likelihood losses of ops-nn loss/: NLLLoss, NLLLoss2d and their backward operators.
 *
 * A call has S samples of C classes: self [N, C] (S = N), [C] (one sample) or [N, C, H, W] (S = N*H*W, the class
 * dimension strided by H*W); target holds one class per sample (INT64, INT32 or UINT8). Sample s of class t with
 * weight w[t] contributes loss -w[t] * self[s, t] and weight w[t]; a target equal to ignoreIndex contributes 0 to
 * both. The total weight is the sum of the weights; reduction 0 (none) writes the per-sample losses (a [C] self: the
 * single loss), 1 (mean) sum(loss) / total weight, 2 (sum) sum(loss). Sums are in the reduction engine's order
 * (aclStubSumF32), in float32 for every input dtype, the result rounded once to out's dtype; totalWeightOut gets the
 * total weight for every reduction. A target outside [0, C) other than ignoreIndex is undefined on a device: the
 * stub fails the launch (ACLNN_ERR_PARAM_INVALID, an index-out-of-range finding in check mode).
 * Backward: gradInput is zero but at [s, target[s]], where it is -w[t] * g with g = gradOutput[s] (none),
 * gradOutput (sum) or gradOutput / totalWeight (mean).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss2d.h"
#include "aclnnop/aclnn_nll_loss2d_backward.h"
#include "aclnnop/aclnn_nll_loss_backward.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define FLOATS ACLSTUB_DT_FLOATS
#define TARGETS (ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_UINT8))

typedef struct {
    bool two_d, backward;
} Row;

/* forward: SELF, TARGET, WEIGHT, REDUCTION, IGNORE, OUT, TOTAL; backward: GRAD, SELF, ..., TOTAL, OUT */
typedef struct {
    int grad, self, target, weight, reduction, ignore, out, total;
} Idx;
static const Idx FWD = {-1, 0, 1, 2, 3, 4, 5, 6};
static const Idx BWD = {0, 1, 2, 3, 4, 5, 7, 6};

typedef struct {
    int64_t samples, classes, inner; /* inner: H*W (2-D losses), else 1 */
    int64_t reduction, ignore;
    bool per_sample;                 /* reduction none with a batch: a loss (gradient) per sample */
    bool fill_only;                  /* an empty self: only the op_api's fills */
} Plan;

static const aclStubTensorDesc *T(const aclStubOpCall *c, int i) { return i >= 0 ? c->v[i].tensor : NULL; }
static const Idx *idx_of(const aclStubOpCall *c) { return ((const Row *)aclStubFamilyRow(c))->backward ? &BWD : &FWD; }

static int64_t load_index(const aclStubTensorDesc *t, int64_t i) {
    const void *p = aclStubElemAt(t, i);
    switch (t->dtype) {
    case ACL_INT64: return *(const int64_t *)p;
    case ACL_INT32: return *(const int32_t *)p;
    default: return *(const uint8_t *)p;
    }
}

static float loadf(const aclStubTensorDesc *t, int64_t i) { return aclStubLoadPtrF32(t->dtype, aclStubElemAt(t, i)); }

/* any out dtype self casts to (the op_api casts the float result to it) */
static void storef(const aclStubTensorDesc *t, int64_t i, float v) {
    if (t->dtype == ACL_FLOAT || t->dtype == ACL_FLOAT16 || t->dtype == ACL_BF16)
        aclStubStorePtrF32(t->dtype, aclStubElemAt(t, i), v);
    else
        aclStubStoreDouble(aclStubElemAt(t, i), t->dtype, v);
}

/* the self element of sample s, class k */
static int64_t self_index(const Plan *p, int64_t s, int64_t k) {
    return ((s / p->inner) * p->classes + k) * p->inner + s % p->inner;
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    const Idx *ix = idx_of(c);
    const Plan *p = c->plan;
    const aclStubTensorDesc *self = T(c, ix->self), *target = T(c, ix->target), *weight = T(c, ix->weight);
    const aclStubTensorDesc *out = T(c, ix->out), *total = T(c, ix->total);
    if (p->fill_only) { /* forward with an empty self: mean NaN, sum 0, total weight 0 */
        if (p->reduction != 0) {
            ACLSTUB_TRY(aclStubFill(c, out, p->reduction == 1 ? NAN : 0.0));
            ACLSTUB_TRY(aclStubFill(c, total, 0.0));
        }
        return OK;
    }
    int64_t S = p->samples;
    float *w = aclStubKernelScratch(c, (size_t)(2 * S + 1) * sizeof(float));
    if (w == NULL) return aclStubKernelOutOfMemory(c);
    float *loss = w + S;
    int64_t *cls = aclStubKernelScratch(c, (size_t)(S + 1) * sizeof(int64_t));
    if (cls == NULL) return aclStubKernelOutOfMemory(c);
    for (int64_t s = 0; s < S; s++) {
        int64_t t = load_index(target, s);
        cls[s] = t;
        if (t == p->ignore) {
            w[s] = 0.0f, loss[s] = 0.0f, cls[s] = -1;
            continue;
        }
        if (t < 0 || t >= p->classes) return aclStubIndexOutOfRange(c, "target", t, s, 0, p->classes);
        w[s] = loadf(weight, t);
        loss[s] = row->backward ? 0.0f : -w[s] * loadf(self, self_index(p, s, t));
    }
    if (!row->backward) {
        float tw = aclStubSumF32(w, S);
        if (p->per_sample) {
            for (int64_t s = 0; s < S; s++) storef(out, s, loss[s]);
        } else {
            float sum = aclStubSumF32(loss, S);
            storef(out, 0, p->reduction == 1 ? sum / tw : sum);
        }
        storef(total, 0, tw);
        return OK;
    }
    /* backward: zeros, then one value per sample */
    ACLSTUB_TRY(aclStubFill(c, out, 0.0));
    const aclStubTensorDesc *grad = T(c, ix->grad);
    float g0 = loadf(grad, 0);
    if (p->reduction == 1) g0 /= loadf(total, 0);
    for (int64_t s = 0; s < S; s++) {
        if (cls[s] < 0) continue;
        float g = p->per_sample ? loadf(grad, s) : g0;
        aclStubStorePtrF32(out->dtype, aclStubElemAt(out, self_index(p, s, cls[s])), -w[s] * g);
    }
    return OK;
}

/* ---- checks ------------------------------------------------------------------------------------------------- */

static aclnnStatus numel_one(aclStubOpCall *c, int i, bool max1d) {
    const aclStubTensorDesc *t = T(c, i);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(t) != 1 || (max1d && t->ndim > 1), c, INVALID, "%s must be a single-element "
                            "tensor%s", aclStubOpName(c, i), max1d ? " of at most 1 dimension" : "");
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    const Idx *ix = idx_of(c);
    Plan *p = c->plan;
    *p = (Plan){0};
    const aclStubTensorDesc *self = T(c, ix->self), *target = T(c, ix->target), *weight = T(c, ix->weight);
    int64_t reduction = c->v[ix->reduction].i;
    /* data types, in each op_api's order */
    if (row->two_d) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, ix->self, FLOATS));
        if (row->backward) ACLSTUB_TRY(aclStubCheckDtypeIs(c, ix->grad, self->dtype));
        ACLSTUB_TRY(aclStubCheckDtypeIs(c, ix->weight, self->dtype));
        if (row->backward) {
            ACLSTUB_TRY(aclStubCheckDtypeIs(c, ix->out, self->dtype));
            ACLSTUB_TRY(aclStubCheckDtypeIs(c, ix->total, self->dtype));
        }
    } else {
        ACLSTUB_TRY(aclStubCheckDtypeIs(c, ix->weight, self->dtype));
        if (row->backward) {
            ACLSTUB_TRY(aclStubCheckDtypeIs(c, ix->grad, self->dtype));
            ACLSTUB_TRY(aclStubCheckDtypeIs(c, ix->total, self->dtype));
        }
    }
    if (!row->backward || !row->two_d) {
        int casts[2] = {ix->out, row->backward ? -1 : ix->total};
        for (int k = 0; k < 2; k++)
            if (casts[k] >= 0)
                ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(self->dtype, T(c, casts[k])->dtype), c, INVALID, "the result "
                                        "type %s cannot be cast to %s's %s", aclStubDtypeName(self->dtype),
                                        aclStubOpName(c, casts[k]), aclStubDtypeName(T(c, casts[k])->dtype));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, ix->self, FLOATS));
    }
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, ix->target, TARGETS));
    ACLSTUB_RETURN_ERROR_IF(reduction < 0 || reduction > 2, c, INVALID, "reduction must be between 0 and 2, got "
                            "%lld", (long long)reduction);
    int64_t S, C, inner = 1;
    if (row->two_d) {
        if (row->backward) {
            if (reduction == 0) ACLSTUB_TRY(aclStubCheckShape(c, ix->grad, target->dims, target->ndim));
            else ACLSTUB_TRY(numel_one(c, ix->grad, true));
        }
        ACLSTUB_RETURN_ERROR_IF(self->ndim != 4, c, INVALID, "self must have 4 dimensions, got %u", self->ndim);
        if (!row->backward)
            ACLSTUB_RETURN_ERROR_IF(weight->ndim < 1 || weight->dims[0] != self->dims[1], c, INVALID, "weight.shape[0] "
                                    "must equal self.shape[1] (%lld)", (long long)self->dims[1]);
        ACLSTUB_RETURN_ERROR_IF(target->ndim != 3, c, INVALID, "target must have 3 dimensions, got %u", target->ndim);
        ACLSTUB_RETURN_ERROR_IF(self->dims[0] != target->dims[0] || self->dims[2] != target->dims[1] ||
                                self->dims[3] != target->dims[2], c, INVALID, "target's shape must be self's without "
                                "its class dimension (dimension 1)");
        C = self->dims[1];
        inner = self->dims[2] * self->dims[3];
        S = self->dims[0] * inner;
        /* the forward op_api compares weight's first dimension only: the stub reads C values, so C at least */
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(weight) < C || (row->backward && aclStubNumel(weight) != C), c, INVALID,
                                "weight must have one element per class (%lld), got %lld", (long long)C,
                                (long long)aclStubNumel(weight));
        if (row->backward) {
            ACLSTUB_TRY(aclStubCheckShape(c, ix->out, self->dims, self->ndim));
        } else if (reduction == 0) {
            ACLSTUB_TRY(aclStubCheckShape(c, ix->out, target->dims, target->ndim));
        } else {
            ACLSTUB_TRY(numel_one(c, ix->out, false));
        }
        ACLSTUB_TRY(numel_one(c, ix->total, false));
    } else {
        ACLSTUB_RETURN_ERROR_IF(self->ndim < 1 || self->ndim > 2, c, INVALID, "self must have 1 or 2 dimensions, got "
                                "%u", self->ndim);
        ACLSTUB_RETURN_ERROR_IF(target->ndim > 1, c, INVALID, "target must have 0 or 1 dimension (one class per "
                                "sample), got %u", target->ndim);
        bool no_batch = self->ndim == 1 && target->ndim == 0;
        bool batch = row->backward ? !no_batch && self->dims[0] == (target->ndim ? target->dims[0] : 1)
                                   : self->ndim == 2 && target->ndim == 1 && self->dims[0] == target->dims[0];
        ACLSTUB_RETURN_ERROR_IF(!no_batch && !batch, c, INVALID, "a 1-D self needs a 0-D target, a 2-D self a 1-D "
                                "target of self.shape[0] classes");
        C = self->dims[self->ndim - 1];
        S = self->ndim == 2 ? self->dims[0] : 1;
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(target) != S, c, INVALID, "target must have one class per sample (%lld)",
                                (long long)S);
        ACLSTUB_RETURN_ERROR_IF(weight->ndim != 1 || weight->dims[0] != C, c, INVALID, "weight must be a 1-D tensor "
                                "of %lld classes", (long long)C);
        if (row->backward) {
            ACLSTUB_TRY(numel_one(c, ix->total, false));
            if (reduction == 0 && self->ndim == 2) {
                ACLSTUB_TRY(aclStubCheckShape(c, ix->grad, &self->dims[0], 1));
            } else {
                ACLSTUB_TRY(numel_one(c, ix->grad, true));
            }
            ACLSTUB_TRY(aclStubCheckShape(c, ix->out, self->dims, self->ndim));
        } else {
            if (reduction == 0 && self->ndim == 2) {
                ACLSTUB_TRY(aclStubCheckShape(c, ix->out, &self->dims[0], 1));
            } else {
                ACLSTUB_TRY(numel_one(c, ix->out, true));
            }
            ACLSTUB_TRY(numel_one(c, ix->total, false));
            ACLSTUB_RETURN_ERROR_IF(aclStubNumel(self) == 0 && C == 0 && aclStubNumel(target) > 0, c, INVALID,
                                    "target is out of bounds (no classes)");
        }
    }
    *p = (Plan){.samples = S, .classes = C, .inner = inner, .reduction = reduction, .ignore = c->v[ix->ignore].i,
                .per_sample = reduction == 0 && self->ndim >= 2};
    if (aclStubNumel(self) == 0) {
        if (row->backward || reduction == 0) return aclStubOpNothingToDo(c);
        p->fill_only = true;
    }
    return OK;
}

/* ---- tables --------------------------------------------------------------------------------------------------- */

#define IN(n) {n, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(n) {n, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(n) {n, ACLSTUB_INT, 0, NULL, 0, 0, 0}
static const aclStubParam P_FWD[] = {IN("self"), IN("target"), IN("weight"), ATTR("reduction"), ATTR("ignoreIndex"),
                                     OUT("out"), OUT("totalWeightOut")};
static const aclStubParam P_BWD[] = {IN("gradOutput"), IN("self"), IN("target"), IN("weight"), ATTR("reduction"),
                                     ATTR("ignoreIndex"), IN("totalWeight"), OUT("out")};
static const Row R_1D = {false, false}, R_2D = {true, false}, R_1D_BWD = {false, true}, R_2D_BWD = {true, true};

#define DEF(var, name, params, row) \
    static const aclStubFamilyOp var = {{name, params, ACLSTUB_LEN(params), NULL, check, kernel, sizeof(Plan)}, &row}
DEF(OP_NLL, "aclnnNLLLoss", P_FWD, R_1D);
DEF(OP_NLL2D, "aclnnNLLLoss2d", P_FWD, R_2D);
DEF(OP_NLL_BWD, "aclnnNLLLossBackward", P_BWD, R_1D_BWD);
DEF(OP_NLL2D_BWD, "aclnnNLLLoss2dBackward", P_BWD, R_2D_BWD);

#define T_(n) (const aclTensor *, n)
#define M_(n) (aclTensor *, n)
ACLSTUB_DEFINE_OP(aclnnNLLLoss, OP_NLL.def, T_(self), T_(target), T_(weight), (int64_t, reduction),
                  (int64_t, ignoreIndex), M_(out), M_(totalWeightOut))
ACLSTUB_DEFINE_OP(aclnnNLLLoss2d, OP_NLL2D.def, T_(self), T_(target), T_(weight), (int64_t, reduction),
                  (int64_t, ignoreIndex), M_(out), M_(totalWeightOut))
ACLSTUB_DEFINE_OP(aclnnNLLLossBackward, OP_NLL_BWD.def, T_(gradOutput), T_(self), T_(target), T_(weight),
                  (int64_t, reduction), (int64_t, ignoreIndex), T_(totalWeight), M_(out))
ACLSTUB_DEFINE_OP(aclnnNLLLoss2dBackward, OP_NLL2D_BWD.def, T_(gradOutput), T_(self), T_(target), T_(weight),
                  (int64_t, reduction), (int64_t, ignoreIndex), M_(totalWeight), M_(out))
