/*
 * PReLU of ops-nn activation/ (p_relu, p_relu_grad_update): out = self where self > 0, else weight[c] * self, with
 * c the index along dimension 1 (one weight for every element when the weight holds one value). The forward runs on
 * the element iterator with the weight as a view broadcast along dimension 1; the backward writes gradInput the
 * same way and sums each channel's contributions to gradWeight in double, rounded once.
 */
#include <string.h>

#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_prelu.h"
#include "aclnnop/aclnn_prelu_backward.h"

#define DT ACLSTUB_DT
#define F3 ACLSTUB_DT_FLOATS

typedef struct {
    aclDataType compute;
} PreluPlan;

static aclnnStatus in_list(const aclStubOpCall *call, int i) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    char buf[128];
    if ((unsigned)t->dtype >= 64 || !(F3 & DT(t->dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                             aclStubOpName(call, i), aclStubDtypeName(t->dtype),
                             aclStubDtypeSetName(F3, buf, sizeof buf));
    return OK;
}

static aclnnStatus max_rank(const aclStubOpCall *call, int i) {
    ACLSTUB_RETURN_ERROR_IF(call->v[i].tensor->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has %u "
                            "dimensions; at most 8 are supported", aclStubOpName(call, i), call->v[i].tensor->ndim);
    return OK;
}

static int64_t channels(const aclStubTensorDesc *x) { return x->ndim <= 1 ? 1 : x->dims[1]; }

/* The weight as a view over x's shape: its values along dimension 1 (all strides 0 for a single weight). The
 * weight's elements are taken in row-major order through one stride, which holds when its dimensions merge into
 * one run (any 1-D weight, any contiguous one); false otherwise. */
static bool weight_view(const aclStubTensorDesc *w, const aclStubTensorDesc *x, aclStubTensorDesc *out) {
    int64_t n = aclStubNumel(w), step = 0;
    bool first = true;
    for (uint32_t d = w->ndim; d-- > 0;) { /* the single stride of the flattened weight */
        if (w->dims[d] == 1) continue;
        if (first) {
            step = w->strides[d];
            first = false;
            continue;
        }
        int64_t inner = 1;
        for (uint32_t e = d + 1; e < w->ndim; e++) inner *= w->dims[e];
        if (w->strides[d] != step * inner) return false;
    }
    *out = *w;
    out->ndim = x->ndim;
    for (uint32_t d = 0; d < x->ndim; d++) {
        out->dims[d] = d == 1 && n > 1 ? n : 1;
        out->strides[d] = d == 1 && n > 1 ? step : 0;
    }
    if (x->ndim == 1 && n > 1) { /* a 1-D input has one channel: a single weight */
        out->dims[0] = 1;
        out->strides[0] = 0;
    }
    return true;
}

ACLSTUB_EW_BINARY(prelu_loops, ACLSTUB_EW_FLOATS, a > 0 ? a : b * a)

enum { PR_SELF, PR_WEIGHT, PR_OUT };
static aclnnStatus prelu_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[PR_SELF].tensor, *w = call->v[PR_WEIGHT].tensor, *y = call->v[PR_OUT].tensor;
    for (int i = 0; i < 3; i++) ACLSTUB_TRY(in_list(call, i));
    aclDataType promoted = aclStubPromoteType(x->dtype, w->dtype);
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(promoted, y->dtype), call, ACLNN_ERR_PARAM_INVALID, "promote dtype %s "
                            "can't be cast to the desired output type %s", aclStubDtypeName(promoted),
                            aclStubDtypeName(y->dtype));
    for (int i = 0; i < 3; i++) ACLSTUB_TRY(max_rank(call, i));
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "shape of out should be %s, but current is %s",
                            aclStubShapeText(x->dims, x->ndim, a, sizeof a),
                            aclStubShapeText(y->dims, y->ndim, b, sizeof b));
    int64_t n = aclStubNumel(w);
    ACLSTUB_RETURN_ERROR_IF(n != channels(x) && n != 1, call, ACLNN_ERR_PARAM_INVALID, "expected weight tensor size "
                            "equal input channels, but found %lld does not equal %lld", (long long)n,
                            (long long)channels(x));
    ((PreluPlan *)call->plan)->compute = promoted;
    if (aclStubNumel(x) == 0 || n == 0) return aclStubOpNothingToDo(call);
    aclStubTensorDesc wv;
    ACLSTUB_RETURN_ERROR_IF(!weight_view(w, x, &wv), call, ACLNN_ERR_PARAM_INVALID, "weight must be a tensor whose "
                            "elements are one strided run");
    return OK;
}

/* Runs loops (outputs first) in float32 with the computation dtype's rounding. */
static aclnnStatus run_loop(const aclStubOpCall *call, aclStubLoopFn fn, aclDataType compute, int nout,
                            const aclStubTensorDesc *const *t, int nt) {
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = nout;
    it.num_inputs = nt - nout;
    for (int k = 0; k < nt; k++) {
        it.tensor[k] = t[k];
        it.loop_dtype[k] = ACL_FLOAT;
        it.has_via[k] = compute != ACL_FLOAT;
        it.via[k] = compute;
    }
    aclStubEwCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    return aclStubIterRun(call, &it, fn, &ctx);
}

static aclnnStatus prelu_kernel(const aclStubOpCall *call) {
    const PreluPlan *p = call->plan;
    const aclStubTensorDesc *x = call->v[PR_SELF].tensor;
    aclStubTensorDesc wv;
    weight_view(call->v[PR_WEIGHT].tensor, x, &wv);
    const aclStubTensorDesc *t[] = {call->v[PR_OUT].tensor, x, &wv};
    return run_loop(call, prelu_loops.fn[ACLSTUB_CT_F32], p->compute, 1, t, 3);
}
static const aclStubParam PR_PARAMS[] = {
    [PR_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [PR_WEIGHT] = {"weight", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [PR_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef PR_OP = {"aclnnPrelu", PR_PARAMS, 3, NULL, prelu_check, prelu_kernel, sizeof(PreluPlan)};
ACLSTUB_DEFINE_OP(aclnnPrelu, PR_OP, (const aclTensor *, self), (const aclTensor *, weight), (aclTensor *, out))

/* ---- backward ------------------------------------------------------------------------------------------------- */

enum { PB_GRAD, PB_SELF, PB_WEIGHT, PB_GRAD_INPUT, PB_GRAD_WEIGHT };
/* gradInput = gradOutput where self > 0, else weight * gradOutput */
static void prelu_grad_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    for (int64_t i = 0; i < n; i++) {
        float g = *(const float *)(const void *)(d[1] + i * s[1]), x = *(const float *)(const void *)(d[2] + i * s[2]);
        float w = *(const float *)(const void *)(d[3] + i * s[3]);
        *(float *)(void *)(d[0] + i * s[0]) = x > 0 ? g : w * g;
    }
}

static aclnnStatus same_dtype(const aclStubOpCall *call, int i) {
    const aclStubTensorDesc *t = call->v[i].tensor, *r = call->v[PB_SELF].tensor;
    ACLSTUB_RETURN_ERROR_IF(t->dtype != r->dtype, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s but "
                            "must have self's %s", aclStubOpName(call, i), aclStubDtypeName(t->dtype),
                            aclStubDtypeName(r->dtype));
    return OK;
}

static aclnnStatus prelu_bw_check(aclStubOpCall *call) {
    const aclStubTensorDesc *g = call->v[PB_GRAD].tensor, *x = call->v[PB_SELF].tensor, *w = call->v[PB_WEIGHT].tensor,
                            *gi = call->v[PB_GRAD_INPUT].tensor, *gw = call->v[PB_GRAD_WEIGHT].tensor;
    ACLSTUB_TRY(in_list(call, PB_SELF));
    ACLSTUB_TRY(same_dtype(call, PB_GRAD));
    ACLSTUB_TRY(same_dtype(call, PB_WEIGHT));
    ACLSTUB_TRY(same_dtype(call, PB_GRAD_INPUT));
    ACLSTUB_TRY(same_dtype(call, PB_GRAD_WEIGHT));
    for (int i = 0; i < 5; i++) ACLSTUB_TRY(max_rank(call, i));
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(gi->dims, gi->ndim, x->dims, x->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "shape of gradInput should be %s, but current is %s",
                            aclStubShapeText(x->dims, x->ndim, a, sizeof a),
                            aclStubShapeText(gi->dims, gi->ndim, b, sizeof b));
    int64_t n = aclStubNumel(w);
    if (n != 1) {
        ACLSTUB_RETURN_ERROR_IF(x->ndim < 1, call, ACLNN_ERR_PARAM_INVALID, "self must have at least 1 dimension");
        int64_t c = x->ndim > 1 ? x->dims[1] : 1;
        ACLSTUB_RETURN_ERROR_IF(n != c, call, ACLNN_ERR_PARAM_INVALID, "the number of weight elements must be 1 or "
                                "self channel size");
        ACLSTUB_RETURN_ERROR_IF(gw->ndim != 1 || gw->dims[0] != c, call, ACLNN_ERR_PARAM_INVALID, "shape of gradWeight "
                                "should be [%lld], but current is %s", (long long)c,
                                aclStubShapeText(gw->dims, gw->ndim, a, sizeof a));
    } else {
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(w->dims, w->ndim, gw->dims, gw->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "shape of gradWeight should be the shape of weight %s",
                                aclStubShapeText(w->dims, w->ndim, a, sizeof a));
    }
    int64_t bs[ACLSTUB_MAX_DIMS];
    uint32_t nb;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(x->dims, x->ndim, g->dims, g->ndim, bs, &nb) ||
                                !aclStubShapeEqual(bs, nb, x->dims, x->ndim),
                            call, ACLNN_ERR_PARAM_INVALID, "the broadcast shape of gradOutput %s and self %s must be "
                            "self's shape", aclStubShapeText(g->dims, g->ndim, a, sizeof a),
                            aclStubShapeText(x->dims, x->ndim, b, sizeof b));
    ((PreluPlan *)call->plan)->compute = x->dtype;
    if (aclStubNumel(g) == 0 || aclStubNumel(x) == 0 || n == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(gw) < 1, call, ACLNN_ERR_PARAM_INVALID, "gradWeight holds no element");
    aclStubTensorDesc wv;
    ACLSTUB_RETURN_ERROR_IF(!weight_view(w, x, &wv), call, ACLNN_ERR_PARAM_INVALID, "weight must be a tensor whose "
                            "elements are one strided run");
    return OK;
}

static aclnnStatus prelu_bw_kernel(const aclStubOpCall *call) {
    const PreluPlan *p = call->plan;
    const aclStubTensorDesc *g = call->v[PB_GRAD].tensor, *x = call->v[PB_SELF].tensor, *w = call->v[PB_WEIGHT].tensor,
                            *gw = call->v[PB_GRAD_WEIGHT].tensor;
    aclStubTensorDesc wv;
    weight_view(w, x, &wv);
    const aclStubTensorDesc *t[] = {call->v[PB_GRAD_INPUT].tensor, g, x, &wv};
    ACLSTUB_TRY(run_loop(call, prelu_grad_loop, p->compute, 1, t, 4));

    /* gradWeight[c] = sum of gradOutput * self where self <= 0, over everything but channel c */
    int64_t c_n = aclStubNumel(w), total = aclStubNumel(x), ch = channels(x), inner = 1;
    for (uint32_t d = 2; d < x->ndim; d++) inner *= x->dims[d];
    double *acc = aclStubKernelScratch(call, (size_t)c_n * sizeof(double));
    if (acc == NULL) return aclStubKernelOutOfMemory(call);
    memset(acc, 0, (size_t)c_n * sizeof(double));
    int64_t gd[ACLSTUB_MAX_DIMS];
    for (int64_t e = 0; e < total; e++) {
        int64_t rest = e; /* g broadcast to x's shape: its element for x's index e */
        const char *gp = (const char *)g->data + g->offset * (int64_t)aclDataTypeSize(g->dtype);
        for (uint32_t d = x->ndim; d-- > 0;) {
            gd[d] = rest % x->dims[d];
            rest /= x->dims[d];
        }
        for (uint32_t d = 0; d < g->ndim; d++) {
            uint32_t xd = d + x->ndim - g->ndim;
            gp += (g->dims[d] == 1 ? 0 : gd[xd]) * g->strides[d] * (int64_t)aclDataTypeSize(g->dtype);
        }
        double xv = aclStubLoadPtrF32(x->dtype, aclStubElemAt(x, e));
        if (xv > 0) continue;
        int64_t c = c_n == 1 ? 0 : (x->ndim > 1 ? (e / inner) % ch : 0);
        acc[c] += aclStubLoadPtrF32(g->dtype, gp) * xv;
    }
    for (int64_t c = 0; c < c_n; c++) aclStubStorePtrF32(gw->dtype, aclStubElemAt(gw, c), (float)acc[c]);
    return OK;
}
static const aclStubParam PB_PARAMS[] = {
    [PB_GRAD] = {"gradOutput", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [PB_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [PB_WEIGHT] = {"weight", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [PB_GRAD_INPUT] = {"gradInput", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    [PB_GRAD_WEIGHT] = {"gradWeight", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef PB_OP = {"aclnnPreluBackward", PB_PARAMS, 5, NULL, prelu_bw_check, prelu_bw_kernel,
                                   sizeof(PreluPlan)};
ACLSTUB_DEFINE_OP(aclnnPreluBackward, PB_OP, (const aclTensor *, gradOutput), (const aclTensor *, self),
                  (const aclTensor *, weight), (aclTensor *, gradInput), (aclTensor *, gradWeight))
