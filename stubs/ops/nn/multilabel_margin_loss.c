/*
 * aclnnMultilabelMarginLoss of ops-nn loss/ (torch's multilabel_margin_loss): self [N, C], [C] or a 0-d value,
 * target of the same shape holding class indices up to the first -1. For sample n, J = its target classes:
 * isTarget[n, c] = 1 for c in J, else 0; loss_n = sum over j in J, i not in J of max(0, 1 - (x[j] - x[i])) / C, in
 * float32 (the terms of a sample summed in the reduction engine's order). reduction 0 writes loss_n per sample
 * (a [N, C] self), 1 the mean over samples, other values the sum. A target index outside [0, C) before the first
 * -1 is undefined on a device: the stub fails the launch (ACLNN_ERR_PARAM_INVALID, a check-mode finding).
 */
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_multilabel_margin_loss.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
enum { P_SELF, P_TARGET, P_REDUCTION, P_OUT, P_IS_TARGET };

typedef struct {
    int64_t n, c, reduction;
} Plan;

typedef struct {
    const aclStubOpCall *call;
    const Plan *p;
    float *loss;
    int64_t bad_row, bad_value;
    int failed;
} Ctx;

static void samples(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const Plan *p = x->p;
    const aclStubTensorDesc *self = x->call->v[P_SELF].tensor, *tg = x->call->v[P_TARGET].tensor;
    const aclStubTensorDesc *ist = x->call->v[P_IS_TARGET].tensor;
    int64_t C = p->c;
    float *buf = malloc((size_t)(2 * C + 1) * sizeof(float) + (size_t)C + 1);
    if (buf == NULL) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *v = buf, *terms = buf + C;
    unsigned char *is = (unsigned char *)(buf + 2 * C);
    for (int64_t n = begin; n < end; n++) {
        memset(is, 0, (size_t)C);
        for (int64_t j = 0; j < C; j++) v[j] = aclStubLoadPtrF32(self->dtype, aclStubElemAt(self, n * C + j));
        int64_t k = 0, bad = -1;
        for (; k < C; k++) {
            const void *tp = aclStubElemAt(tg, n * C + k);
            int64_t t = tg->dtype == ACL_INT64 ? *(const int64_t *)tp : *(const int32_t *)tp;
            if (t == -1) break;
            if (t < 0 || t >= C) {
                bad = t;
                break;
            }
            is[t] = 1;
        }
        if (bad != -1) {
            __atomic_store_n(&x->bad_row, n, __ATOMIC_RELAXED);
            __atomic_store_n(&x->bad_value, bad, __ATOMIC_RELAXED);
            __atomic_store_n(&x->failed, 2, __ATOMIC_RELAXED);
            continue;
        }
        float total = 0.0f;
        for (int64_t a = 0; a < k; a++) { /* target j = the a-th entry, summed over the non-targets in order */
            const void *tp = aclStubElemAt(tg, n * C + a);
            int64_t j = tg->dtype == ACL_INT64 ? *(const int64_t *)tp : *(const int32_t *)tp;
            int64_t m = 0;
            for (int64_t i = 0; i < C; i++) {
                if (is[i]) continue;
                float z = 1.0f - (v[j] - v[i]);
                terms[m++] = z > 0.0f ? z : 0.0f;
            }
            total += aclStubSumF32(terms, m);
        }
        x->loss[n] = total / (float)C;
        for (int64_t j = 0; j < C; j++)
            aclStubStorePtrF32(ist->dtype, aclStubElemAt(ist, n * C + j), is[j] ? 1.0f : 0.0f);
    }
    free(buf);
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    float *loss = aclStubKernelScratch(c, (size_t)(p->n + 1) * sizeof(float));
    if (loss == NULL) return aclStubKernelOutOfMemory(c);
    Ctx x = {c, p, loss, 0, 0, 0};
    aclStubParallelFor(p->n, 1 + 4096 / (p->c * p->c + 1), samples, &x);
    if (x.failed == 1) return aclStubKernelOutOfMemory(c);
    if (x.failed == 2) return aclStubIndexOutOfRange(c, "target", x.bad_value, x.bad_row, -1, p->c);
    const aclStubTensorDesc *out = c->v[P_OUT].tensor;
    if (p->reduction == 0 && c->v[P_SELF].tensor->ndim == 2) {
        for (int64_t n = 0; n < p->n; n++) aclStubStorePtrF32(out->dtype, aclStubElemAt(out, n), loss[n]);
        return OK;
    }
    float sum = aclStubSumF32(loss, p->n);
    aclStubStorePtrF32(out->dtype, aclStubElemAt(out, 0), p->reduction == 1 ? sum / (float)p->n : sum);
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    Plan *p = c->plan;
    const aclStubTensorDesc *self = c->v[P_SELF].tensor, *tg = c->v[P_TARGET].tensor, *out = c->v[P_OUT].tensor;
    const aclStubTensorDesc *ist = c->v[P_IS_TARGET].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, P_SELF, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, P_TARGET, ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, P_OUT, self->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, P_IS_TARGET, self->dtype));
    uint32_t nd = self->ndim;
    ACLSTUB_RETURN_ERROR_IF(!((nd == 2 && self->dims[1] != 0) || (nd == 1 && self->dims[0] != 0) || nd == 0), c,
                            INVALID, "expected a non-empty vector or matrix with an optional 0-dim batch size");
    int64_t N = nd == 2 ? self->dims[0] : 1, C = nd == 0 ? 1 : self->dims[nd - 1];
    if (nd <= 1) {
        ACLSTUB_RETURN_ERROR_IF(tg->ndim > 1 || aclStubNumel(tg) != C, c, INVALID, "inconsistent target size for "
                                "self's %lld classes", (long long)C);
    } else {
        ACLSTUB_RETURN_ERROR_IF(tg->ndim != 2 || tg->dims[0] != N || tg->dims[1] != C, c, INVALID, "target must "
                                "have self's shape [%lld, %lld]", (long long)N, (long long)C);
    }
    int64_t reduction = c->v[P_REDUCTION].i;
    if (reduction == 0 && nd == 2) {
        ACLSTUB_RETURN_ERROR_IF(out->ndim != 1 || out->dims[0] != N, c, INVALID, "out must be [%lld]", (long long)N);
    } else {
        ACLSTUB_RETURN_ERROR_IF(out->ndim > 1 || aclStubNumel(out) != 1, c, INVALID, "out must be a single element");
    }
    if (nd == 2 && N == 0) {
        ACLSTUB_RETURN_ERROR_IF(ist->ndim > 2 || aclStubNumel(ist) != 0, c, INVALID, "inconsistent isTarget size");
    } else {
        ACLSTUB_TRY(aclStubCheckShape(c, P_IS_TARGET, tg->dims, tg->ndim));
    }
    *p = (Plan){.n = N, .c = C, .reduction = reduction};
    return aclStubNumel(self) == 0 ? aclStubOpNothingToDo(c) : OK;
}

static const aclStubParam PARAMS[] = {
    {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0}, {"target", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"reduction", ACLSTUB_INT, 0, NULL, 0, 0, 0}, {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    {"isTarget", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef DEF = {"aclnnMultilabelMarginLoss", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel,
                                 sizeof(Plan)};
ACLSTUB_DEFINE_OP(aclnnMultilabelMarginLoss, DEF, (const aclTensor *, self), (const aclTensor *, target),
                  (int64_t, reduction), (aclTensor *, out), (aclTensor *, isTarget))
