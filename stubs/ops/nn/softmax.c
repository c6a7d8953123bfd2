/*
 * The softmax family of ops-nn activation/ on the lanes engine (aclstub/op_reduce.h): aclnnSoftmax,
 * aclnnLogSoftmax, aclnnSoftmaxBackward, aclnnLogSoftmaxBackward, aclnnSoftmaxCrossEntropyWithLogits.
 *
 * A lane (the values along dim) is computed in float32 for FLOAT, FLOAT16 and BF16 data (rounded once to the
 * output's dtype), in float64 for DOUBLE:
 *   softmax      y = exp(x - max) / sum(exp(x - max))        (a NaN in the lane makes it NaN)
 *   log_softmax  y = (x - max) - log(sum(exp(x - max)))
 *   backward     softmax: g_in = y * (g - sum(g * y)); log_softmax: g_in = g - exp(y) * sum(g)
 * exp is aclStubExpF32 (float64 inside, rounded once), log the C library's in float64; sums take the reduction
 * engine's order (32 lanes per 4096-term chunk, adjacent-pair trees).
 */
#include <math.h>
#include <stdlib.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"

#define DT ACLSTUB_DT
#define CHUNK ACLSTUB_REDUCE_CHUNK
#define MAX_DIMS 8

typedef enum { K_SOFTMAX, K_LOG_SOFTMAX, K_SOFTMAX_GRAD, K_LOG_SOFTMAX_GRAD, K_CROSS_ENTROPY } Kind;

typedef struct {
    Kind kind;
    int64_t dim;
    aclDataType compute; /* FLOAT or DOUBLE */
    aclDataType via;     /* the dtype the op_api computes in (FLOAT16 for a FLOAT16 input...) */
    int in[2], out[2], nin, nout;
} Plan;

/* ---- float32 lanes ---------------------------------------------------------------------------------------- */

/* The sum of map(a, b) over n values in the engine's order: each chunk of CHUNK mapped values summed by
 * aclStubSumF32 (one chunk: lanes and tree), the chunk sums by aclStubTreeF32. map: 0 exp(a - s), 1 a * b. */
static float mapped_sum(int map, const float *a, const float *b, float s, int64_t n) {
    float buf[CHUNK];
    float parts[256];
    int64_t nc = (n + CHUNK - 1) / CHUNK;
    float *v = nc <= 256 ? parts : malloc((size_t)nc * sizeof(float));
    if (v == NULL) return NAN; /* out of memory for the chunk sums of a lane of over a million values */
    for (int64_t c = 0; c < nc; c++) {
        int64_t o = c * CHUNK, m = n - o < CHUNK ? n - o : CHUNK;
        if (map == 0)
            aclStubExpRowF32(buf, a + o, s, m);
        else
            for (int64_t i = 0; i < m; i++) buf[i] = a[o + i] * b[o + i];
        v[c] = aclStubSumF32(buf, m);
    }
    float r = aclStubTreeF32(v, nc);
    if (v != parts) free(v);
    return r;
}

static void softmax_f32(const float *x, float *y, int64_t n) {
    float m = aclStubMaxF32(x, n);
    aclStubExpRowF32(y, x, m, n);
    float s = aclStubSumF32(y, n);
    for (int64_t i = 0; i < n; i++) y[i] = y[i] / s;
}

static void log_softmax_f32(const float *x, float *y, int64_t n) {
    float m = aclStubMaxF32(x, n);
    float ls = (float)log((double)mapped_sum(0, x, NULL, m, n));
    for (int64_t i = 0; i < n; i++) y[i] = (x[i] - m) - ls;
}

static void softmax_grad_f32(const float *g, const float *y, float *out, int64_t n) {
    float dot = mapped_sum(1, g, y, 0.0f, n);
    for (int64_t i = 0; i < n; i++) out[i] = y[i] * (g[i] - dot);
}

static void log_softmax_grad_f32(const float *g, const float *y, float *out, int64_t n) {
    float s = aclStubSumF32(g, n);
    float e[256]; /* out may be g or y (in place): a block of exp(y) at a time */
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        aclStubExpRowF32(e, y + i, 0.0f, m);
        for (int64_t j = 0; j < m; j++) out[i + j] = g[i + j] - e[j] * s;
    }
}

/* loss = sum(labels * (lse - x)), backprop = exp(x - lse) - labels, lse = max + log(sum(exp(x - max))) */
static void cross_entropy_f32(const float *x, const float *labels, float *loss, float *backprop, int64_t n) {
    float m = aclStubMaxF32(x, n);
    float lse = (float)(log((double)mapped_sum(0, x, NULL, m, n)) + (double)m);
    for (int64_t i = 0; i < n; i++) backprop[i] = lse - x[i]; /* -log_softmax, for the loss */
    *loss = mapped_sum(1, labels, backprop, 0.0f, n);
    aclStubExpRowF32(backprop, x, lse, n);
    for (int64_t i = 0; i < n; i++) backprop[i] -= labels[i];
}

/* ---- float64 lanes ---------------------------------------------------------------------------------------- */

static double max_f64(const double *x, int64_t n) {
    double m = -INFINITY;
    for (int64_t i = 0; i < n; i++) m = (x[i] > m || x[i] != x[i]) && m == m ? x[i] : m;
    return m;
}

static double mapped_sum_f64(const double *a, double s, int64_t n) { /* the sum of exp(a - s) */
    double buf[CHUNK];
    double parts[256];
    int64_t nc = (n + CHUNK - 1) / CHUNK;
    double *v = nc <= 256 ? parts : malloc((size_t)nc * sizeof(double));
    if (v == NULL) return NAN;
    for (int64_t c = 0; c < nc; c++) {
        int64_t o = c * CHUNK, m = n - o < CHUNK ? n - o : CHUNK;
        for (int64_t i = 0; i < m; i++) buf[i] = exp(a[o + i] - s);
        v[c] = aclStubSumF64(buf, m);
    }
    double r = aclStubTreeF64(v, nc);
    if (v != parts) free(v);
    return r;
}

static void lane_f64(Kind kind, void *const *b, const int64_t *n) {
    int64_t len = n[0];
    const double *x = b[0];
    if (kind == K_SOFTMAX || kind == K_LOG_SOFTMAX) {
        double *y = b[1];
        double m = max_f64(x, len);
        if (kind == K_SOFTMAX) {
            for (int64_t i = 0; i < len; i++) y[i] = exp(x[i] - m);
            double s = aclStubSumF64(y, len);
            for (int64_t i = 0; i < len; i++) y[i] = y[i] / s;
        } else {
            double ls = log(mapped_sum_f64(x, m, len));
            for (int64_t i = 0; i < len; i++) y[i] = (x[i] - m) - ls;
        }
    }
}

/* ---- the lane function and the kernel ------------------------------------------------------------------- */

static void lane(const void *ctx, void *const *b, const int64_t *n, int64_t index) {
    (void)index;
    const Plan *p = ctx;
    if (p->compute == ACL_DOUBLE) {
        lane_f64(p->kind, b, n);
        return;
    }
    switch (p->kind) {
    case K_SOFTMAX: softmax_f32(b[0], b[1], n[0]); break;
    case K_LOG_SOFTMAX: log_softmax_f32(b[0], b[1], n[0]); break;
    case K_SOFTMAX_GRAD: softmax_grad_f32(b[0], b[1], b[2], n[0]); break;
    case K_LOG_SOFTMAX_GRAD: log_softmax_grad_f32(b[0], b[1], b[2], n[0]); break;
    case K_CROSS_ENTROPY: cross_entropy_f32(b[0], b[1], b[2], b[3], n[0]); break;
    }
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    aclStubLanes l;
    memset(&l, 0, sizeof l);
    l.num_inputs = p->nin;
    l.num_outputs = p->nout;
    aclStubTensorDesc views[ACLSTUB_LANES_MAX];
    for (int k = 0; k < p->nin + p->nout; k++) {
        int param = k < p->nin ? p->in[k] : p->out[k - p->nin];
        views[k] = *call->v[param].tensor;
        l.tensor[k] = &views[k];
        l.type[k] = p->compute;
        l.via[k] = p->via;
    }
    if (p->kind == K_CROSS_ENTROPY) {
        views[2] = aclStubUnsqueezed(&views[2], 1); /* loss: one value per row */
        for (int k = 0; k < 2; k++) /* a row of one broadcasts over the batch */
            if (views[k].dims[0] == 1 && views[3].dims[0] != 1) {
                views[k].dims[0] = views[3].dims[0];
                views[k].strides[0] = 0;
            }
    }
    l.dim = p->dim;
    l.fn = lane;
    l.ctx = p;
    l.work_per_element = 8;
    return aclStubLanesRun(call, &l);
}

static int64_t wrap_dim(int64_t dim, uint32_t n) { return dim < 0 ? dim + (n ? (int64_t)n : 1) : dim; }

static aclnnStatus dim_ok(aclStubOpCall *call, int64_t dim, uint32_t n) {
    int64_t rank = n ? (int64_t)n : 1;
    ACLSTUB_RETURN_ERROR_IF(dim < -rank || dim >= rank, call, ACLNN_ERR_PARAM_INVALID,
                            "dim %lld must be in the range of [%lld, %lld]", (long long)dim, (long long)-rank,
                            (long long)(rank - 1));
    return OK;
}

static aclnnStatus same_shape(aclStubOpCall *call, int a, int b) {
    const aclStubTensorDesc *x = call->v[a].tensor, *y = call->v[b].tensor;
    if (aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim)) return OK;
    char s1[256], s2[256];
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Expected tensor for %s to have same size as tensor for %s, "
                         "but %s does not equal %s", call->op->params[a].name, call->op->params[b].name,
                         aclStubShapeText(x->dims, x->ndim, s1, sizeof s1),
                         aclStubShapeText(y->dims, y->ndim, s2, sizeof s2));
}

static void plan_lanes(aclStubOpCall *call, Kind kind, int64_t dim, aclDataType computed_in) {
    Plan *p = call->plan;
    p->kind = kind;
    p->dim = dim;
    p->compute = computed_in == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
    p->via = computed_in == p->compute ? ACL_DT_UNDEFINED : computed_in;
}

/* ---- aclnnSoftmax, aclnnLogSoftmax ------------------------------------------------------------------------- */

#define SOFTMAX_DT (ACLSTUB_DT_FLOATS | DT(ACL_DOUBLE))
enum { SM_SELF, SM_DIM, SM_OUT };

/* aclnn_softmax.cpp: an empty self is accepted before any check; dtypes, dim, rank and shape */
static aclnnStatus softmax_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[SM_SELF].tensor;
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SM_SELF, SOFTMAX_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SM_OUT, SOFTMAX_DT));
    ACLSTUB_TRY(dim_ok(call, call->v[SM_DIM].i, self->ndim));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, SM_SELF, MAX_DIMS));
    ACLSTUB_TRY(same_shape(call, SM_SELF, SM_OUT));
    /* the kernel runs in self's dtype, then casts to out's */
    plan_lanes(call, K_SOFTMAX, wrap_dim(call->v[SM_DIM].i, self->ndim), self->dtype);
    Plan *p = call->plan;
    p->nin = 1, p->nout = 1, p->in[0] = SM_SELF, p->out[0] = SM_OUT;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnSoftmax, softmax_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (aclTensor *, out))

/* aclnn_log_softmax.cpp: dim, dtypes, out castable both ways, ranks and shape; self cast to out's dtype first */
static aclnnStatus log_softmax_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[SM_SELF].tensor, *out = call->v[SM_OUT].tensor;
    ACLSTUB_TRY(dim_ok(call, call->v[SM_DIM].i, self->ndim));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SM_SELF, SOFTMAX_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SM_OUT, SOFTMAX_DT));
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(out->dtype, self->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "Result type %s can't be cast to the desired output type %s", aclStubDtypeName(out->dtype),
                            aclStubDtypeName(self->dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, SM_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, SM_OUT, MAX_DIMS));
    ACLSTUB_TRY(same_shape(call, SM_OUT, SM_SELF));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    plan_lanes(call, K_LOG_SOFTMAX, wrap_dim(call->v[SM_DIM].i, self->ndim), out->dtype);
    Plan *p = call->plan;
    p->nin = 1, p->nout = 1, p->in[0] = SM_SELF, p->out[0] = SM_OUT;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnLogSoftmax, log_softmax_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (int64_t, dim), (aclTensor *, out))

/* ---- aclnnSoftmaxBackward, aclnnLogSoftmaxBackward ----------------------------------------------------------- */

#define GRAD_DT ACLSTUB_DT_FLOATS
enum { SB_GRAD, SB_OUTPUT, SB_DIM, SB_OUT };

static aclnnStatus backward_check(aclStubOpCall *call, Kind kind) {
    const aclStubTensorDesc *g = call->v[SB_GRAD].tensor, *y = call->v[SB_OUTPUT].tensor;
    if (aclStubNumel(g) == 0 || aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    if (kind == K_SOFTMAX_GRAD) { /* aclnn_softmax_backward.cpp: dtypes, dim, shapes */
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SB_GRAD, GRAD_DT));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SB_OUTPUT, GRAD_DT));
        ACLSTUB_TRY(aclStubCheckDtypeIs(call, SB_OUTPUT, g->dtype));
        ACLSTUB_TRY(dim_ok(call, call->v[SB_DIM].i, g->ndim));
        ACLSTUB_TRY(aclStubCheckMaxDim(call, SB_GRAD, MAX_DIMS));
    } else { /* aclnn_logsoftmax_backward.cpp: dtypes, shapes, dim */
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SB_OUTPUT, GRAD_DT));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SB_GRAD, GRAD_DT));
        ACLSTUB_TRY(aclStubCheckDtypeIs(call, SB_OUTPUT, g->dtype));
        ACLSTUB_TRY(aclStubCheckMaxDim(call, SB_GRAD, MAX_DIMS));
        ACLSTUB_TRY(aclStubCheckMaxDim(call, SB_OUTPUT, MAX_DIMS));
    }
    ACLSTUB_TRY(same_shape(call, SB_GRAD, SB_OUTPUT));
    ACLSTUB_TRY(same_shape(call, SB_GRAD, SB_OUT));
    if (kind == K_LOG_SOFTMAX_GRAD) ACLSTUB_TRY(dim_ok(call, call->v[SB_DIM].i, g->ndim));
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanConvert(call->v[SB_OUT].tensor->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "out has data type %s", aclStubDtypeName(call->v[SB_OUT].tensor->dtype));
    plan_lanes(call, kind, wrap_dim(call->v[SB_DIM].i, g->ndim), g->dtype);
    Plan *p = call->plan;
    p->nin = 2, p->nout = 1, p->in[0] = SB_GRAD, p->in[1] = SB_OUTPUT, p->out[0] = SB_OUT;
    return OK;
}
static aclnnStatus softmax_backward_check(aclStubOpCall *call) { return backward_check(call, K_SOFTMAX_GRAD); }
static aclnnStatus log_softmax_backward_check(aclStubOpCall *call) { return backward_check(call, K_LOG_SOFTMAX_GRAD); }
ACLSTUB_OP_FROM_PROTO(aclnnSoftmaxBackward, softmax_backward_check, kernel, sizeof(Plan),
                      (const aclTensor *, gradOutput), (const aclTensor *, output), (int64_t, dim), (aclTensor *, out))
ACLSTUB_OP_FROM_PROTO(aclnnLogSoftmaxBackward, log_softmax_backward_check, kernel, sizeof(Plan),
                      (const aclTensor *, gradOutput), (const aclTensor *, output), (int64_t, dim), (aclTensor *, out))

/* ---- aclnnSoftmaxCrossEntropyWithLogits ------------------------------------------------------------------------ */

enum { CE_FEATURES, CE_LABELS, CE_LOSS, CE_BACKPROP };
static aclnnStatus cross_entropy_check(aclStubOpCall *call) {
    const aclStubTensorDesc *f = call->v[CE_FEATURES].tensor, *l = call->v[CE_LABELS].tensor;
    const aclStubTensorDesc *loss = call->v[CE_LOSS].tensor, *bp = call->v[CE_BACKPROP].tensor;
    for (int i = CE_FEATURES; i <= CE_BACKPROP; i++) ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, i, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, CE_LOSS, f->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, CE_BACKPROP, f->dtype));
    for (int i = CE_FEATURES; i <= CE_BACKPROP; i++) ACLSTUB_TRY(aclStubCheckMaxDim(call, i, MAX_DIMS));
    ACLSTUB_RETURN_ERROR_IF(f->ndim != 2 || l->ndim != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "features and labels must be 2-D, got %u-D and %u-D", f->ndim, l->ndim);
    if (aclStubNumel(f) == 0 || aclStubNumel(l) == 0) return aclStubOpNothingToDo(call);
    /* the kernel's shapes: features and labels broadcast to [N, C]; loss [N]; backprop [N, C] */
    int64_t shape[2];
    uint32_t nd;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(f->dims, 2, l->dims, 2, shape, &nd) ||
                                (f->dims[1] != l->dims[1]),
                            call, ACLNN_ERR_PARAM_INVALID, "features and labels must have the same shape");
    ACLSTUB_TRY(aclStubCheckShape(call, CE_BACKPROP, shape, 2));
    ACLSTUB_TRY(aclStubCheckShape(call, CE_LOSS, shape, 1));
    (void)loss;
    (void)bp;
    plan_lanes(call, K_CROSS_ENTROPY, 1, f->dtype == ACL_DOUBLE ? ACL_FLOAT : f->dtype);
    Plan *p = call->plan;
    p->nin = 2, p->nout = 2, p->in[0] = CE_FEATURES, p->in[1] = CE_LABELS, p->out[0] = CE_LOSS,
    p->out[1] = CE_BACKPROP;
    return OK;
}
/* labels is an input although the official prototype declares it `aclTensor *` */
static const aclStubParam cross_entropy_params[] = {
    {"features", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"labels", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"loss", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    {"backprop", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef cross_entropy_def = {"aclnnSoftmaxCrossEntropyWithLogits", cross_entropy_params, 4, NULL,
                                               cross_entropy_check, kernel, sizeof(Plan)};
ACLSTUB_DEFINE_OP(aclnnSoftmaxCrossEntropyWithLogits, cross_entropy_def, (const aclTensor *, features),
                  (aclTensor *, labels), (aclTensor *, loss), (aclTensor *, backprop))
