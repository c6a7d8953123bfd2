/*
 * Gated activations of ops-nn activation/ with generated entry points (dtype rules 161002, nothing to do for empty
 * outputs, then the tiling's rules as ACLNN_ERR_INNER_TILING_ERROR): FatreluMul and GeluMul (the last dimension
 * split in halves), SituGlu and its gradient, ClippedSwiglu (V1 and V2, with clampMode) and its gradient (the
 * dimensions from dim on read as one axis, split in halves or interleaved, the first sum(groupIndex) rows only).
 * Inputs are read through views of their halves; an input whose trailing dimensions are not one strided run is
 * first copied into kernel scratch.
 */
#include <string.h>

#include "act_math.h"
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_clipped_swiglu.h"
#include "aclnnop/aclnn_clipped_swiglu_grad.h"
#include "aclnnop/aclnn_clipped_swiglu_v2.h"
#include "aclnnop/aclnn_fatrelu_mul.h"
#include "aclnnop/aclnn_gelu_mul.h"
#include "aclnnop/aclnn_situ_glu.h"
#include "aclnnop/aclnn_situ_glu_grad.h"

#define DT ACLSTUB_DT
#define F3 ACLSTUB_DT_FLOATS
#define TILING ACLNN_ERR_INNER_TILING_ERROR

typedef struct {
    int64_t dim;       /* the split dimension, non-negative */
    double p0, p1, p2; /* threshold / beta / alpha, linearBeta / limit, bias */
    int64_t mode;      /* gelu: 1 tanh; clipped: clampMode */
    bool left;         /* situ: the gate is the first half */
    bool interleaved;  /* clipped: halves are the even and odd positions */
    int64_t rows;      /* clipped: rows processed (the first sum(groupIndex)), -1 for all */
} ExtPlan;

/* ---- loops (float32 values; out then in, as the iterator lays them out) ---------------------------------------- */

#define LD(k) ((double)*(const float *)(const void *)(d[k] + i * s[k]))
#define ST(k, v) (*(float *)(void *)(d[k] + i * s[k]) = (float)(v))
#define EXT_LOOP(NAME, ...)                                                                                  \
    ACLSTUB_EW_CLONES_ static void NAME(char **d, const int64_t *s, int64_t n, const void *c) {               \
        const ExtPlan *p = (const ExtPlan *)c;                                                               \
        (void)p;                                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                                    \
            __VA_ARGS__                                                                                      \
        }                                                                                                    \
    }

/* fatrelu: (a < threshold ? 0 : a) * b */
EXT_LOOP(fatrelu_loop, double a = LD(1); ST(0, (a < p->p0 ? 0.0 : a) * LD(2));)
/* gelu mul: gelu(a) * b */
EXT_LOOP(gelu_mul_loop, double a = LD(1);
         ST(0, (p->mode == 1 ? act_gelu_tanh(a) : act_gelu_erf(a)) * LD(2));)

/* situ: beta tanh(gate / beta) sigmoid(gate) times up (through linearBeta tanh(up / linearBeta) when positive) */
static inline ACT_INLINE double situ_up(double up, double lb) { return lb > 0 ? lb * act_tanh(up / lb) : up; }
EXT_LOOP(situ_loop, double gate = p->left ? LD(1) : LD(2), up = p->left ? LD(2) : LD(1);
         ST(0, p->p0 * act_tanh(gate / p->p0) * act_sigmoid(gate) * situ_up(up, p->p1));)
EXT_LOOP(situ_grad_loop, double g = LD(2), gate = p->left ? LD(3) : LD(4), up = p->left ? LD(4) : LD(3);
         double t = act_tanh(gate / p->p0), sg = act_sigmoid(gate), situ_a = p->p0 * t * sg;
         double up_t = p->p1 > 0 ? act_tanh(up / p->p1) : 0.0;
         double ggate = g * situ_up(up, p->p1) * sg * ((1.0 - t * t) + p->p0 * t * (1.0 - sg));
         double gup = g * situ_a * (p->p1 > 0 ? 1.0 - up_t * up_t : 1.0);
         ST(0, p->left ? ggate : gup); ST(1, p->left ? gup : ggate);)

/* clipped swiglu: clampMode 0: min(A, limit) sigmoid(alpha min(A, limit)) (clamp(B, +-limit) + bias);
 * clampMode 1: min(A sigmoid(A), limit) clamp(B, +-limit) */
EXT_LOOP(clipped_loop, double a = LD(1), b = LD(2), lim = p->p1;
         double bc = b < -lim ? -lim : (b > lim ? lim : b);
         double ac = a > lim ? lim : a;
         double g1 = a * act_sigmoid(a);
         double y = p->mode == 1 ? (g1 > lim ? lim : g1) * bc : ac * act_sigmoid(p->p0 * ac) * (bc + p->p2);
         ST(0, y);)
EXT_LOOP(clipped_grad_loop, double g = LD(2), a = LD(3), b = LD(4), lim = p->p1;
         double ac = a > lim ? lim : a, bc = b < -lim ? -lim : (b > lim ? lim : b);
         double sg = act_sigmoid(p->p0 * ac);
         ST(0, a <= lim ? g * (bc + p->p2) * sg * (1.0 + p->p0 * ac * (1.0 - sg)) : 0.0);
         ST(1, (b >= -lim && b <= lim) ? g * ac * sg : 0.0);)

/* ---- views ----------------------------------------------------------------------------------------------------- */

/* t read as (pre, M): the dimensions before dim as rows, those from dim on as one axis. false when the trailing
 * dimensions are not one strided run, or the leading ones not one run of rows. */
static bool one_run(const aclStubTensorDesc *t, int64_t lo, int64_t hi, int64_t *stride) {
    int64_t expect = -1;
    *stride = -1;
    for (int64_t d = hi; d-- > lo;) {
        if (t->dims[d] == 1) continue;
        if (expect >= 0 && t->strides[d] != expect) return false;
        if (expect < 0) *stride = t->strides[d];
        expect = (expect < 0 ? t->strides[d] : expect) * t->dims[d];
    }
    return true;
}
static bool flat2(const aclStubTensorDesc *t, int64_t dim, aclStubTensorDesc *out) {
    int64_t pre = 1, m = 1, inner, outer;
    for (int64_t d = 0; d < (int64_t)t->ndim; d++) *(d < dim ? &pre : &m) *= t->dims[d];
    if (!one_run(t, dim, t->ndim, &inner) || !one_run(t, 0, dim, &outer)) return false;
    *out = *t;
    out->ndim = 2;
    out->dims[0] = pre;
    out->dims[1] = m;
    out->strides[0] = outer < 0 ? m : outer;
    out->strides[1] = inner < 0 ? 1 : inner;
    return true;
}

/* A contiguous copy of t in kernel scratch (when flat2 cannot read t as it is). */
ACLSTUB_EW_UNARY(ext_copy, ACLSTUB_EW_FLOATS, x)
static aclnnStatus contiguous_copy(const aclStubOpCall *call, const aclStubTensorDesc *t, aclStubTensorDesc *out) {
    int64_t n = aclStubNumel(t), s = 1;
    void *buf = aclStubKernelScratch(call, (size_t)n * aclDataTypeSize(t->dtype));
    if (buf == NULL) return aclStubKernelOutOfMemory(call);
    *out = *t;
    out->data = buf;
    out->offset = 0;
    for (uint32_t d = t->ndim; d-- > 0;) {
        out->strides[d] = s;
        s *= t->dims[d];
    }
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = it.num_inputs = 1;
    it.tensor[0] = out;
    it.tensor[1] = t;
    it.loop_dtype[0] = it.loop_dtype[1] = t->dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
    aclStubEwCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    return aclStubIterRun(call, &it, ext_copy.fn[t->dtype == ACL_DOUBLE ? ACLSTUB_CT_F64 : ACLSTUB_CT_F32], &ctx);
}

/* The (pre, M) view of t, copied first when needed; the first `rows` rows only when rows >= 0. */
static aclnnStatus flat_view(const aclStubOpCall *call, const aclStubTensorDesc *t, int64_t dim, int64_t rows,
                             aclStubTensorDesc *out) {
    if (!flat2(t, dim, out)) {
        aclStubTensorDesc c;
        ACLSTUB_TRY(contiguous_copy(call, t, &c));
        flat2(&c, dim, out);
    }
    if (rows >= 0 && rows < out->dims[0]) out->dims[0] = rows;
    return OK;
}

/* The halves of a (pre, M) view: front and back, or even and odd positions. */
static void split(const aclStubTensorDesc *t, bool interleaved, aclStubTensorDesc *a, aclStubTensorDesc *b) {
    *a = *t;
    a->dims[1] = t->dims[1] / 2;
    if (interleaved) a->strides[1] = t->strides[1] * 2;
    *b = *a;
    b->offset += interleaved ? t->strides[1] : a->dims[1] * t->strides[1];
}

static aclnnStatus run(const aclStubOpCall *call, aclStubLoopFn fn, const ExtPlan *p, int nout,
                       const aclStubTensorDesc *const *t, int nt) {
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = nout;
    it.num_inputs = nt - nout;
    for (int k = 0; k < nt; k++) {
        it.tensor[k] = t[k];
        it.loop_dtype[k] = ACL_FLOAT;
    }
    return aclStubIterRun(call, &it, fn, p);
}

/* ---- rules ----------------------------------------------------------------------------------------------------- */

static aclnnStatus dtype_of_row(const aclStubOpCall *call, const int *params, int n) {
    const aclStubTensorDesc *x = call->v[params[0]].tensor;
    char buf[128];
    for (int k = 0; k < n; k++) {
        const aclStubTensorDesc *t = call->v[params[k]].tensor;
        if (t == NULL) continue;
        ACLSTUB_RETURN_ERROR_IF((unsigned)t->dtype >= 64 || !(F3 & DT(t->dtype)) || t->dtype != x->dtype, call,
                                ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; every tensor must have one "
                                "dtype of %s", aclStubOpName(call, params[k]), aclStubDtypeName(t->dtype),
                                aclStubDtypeSetName(F3, buf, sizeof buf));
    }
    return OK;
}

static aclnnStatus cut_dim(const aclStubOpCall *call, const aclStubTensorDesc *x, int64_t dim, int64_t *out) {
    int64_t nd = x->ndim;
    ACLSTUB_RETURN_ERROR_IF(dim < -nd || dim >= nd, call, TILING, "dim should in [-%lld, %lld], but get %lld",
                            (long long)nd, (long long)(nd - 1), (long long)dim);
    *out = dim < 0 ? dim + nd : dim;
    ACLSTUB_RETURN_ERROR_IF(x->dims[*out] % 2, call, TILING, "x[dim] should be divisible by 2, but get %lld",
                            (long long)x->dims[*out]);
    return OK;
}

/* y must be x halved along dim (rank, that dimension and the others). */
static aclnnStatus halved(const aclStubOpCall *call, const aclStubTensorDesc *x, int64_t dim, int yi) {
    const aclStubTensorDesc *y = call->v[yi].tensor;
    ACLSTUB_RETURN_ERROR_IF(y->ndim != x->ndim, call, TILING, "%s rank (%u) should be equal to x rank (%u)",
                            aclStubOpName(call, yi), y->ndim, x->ndim);
    for (uint32_t d = 0; d < x->ndim; d++)
        ACLSTUB_RETURN_ERROR_IF(y->dims[d] != ((int64_t)d == dim ? x->dims[d] / 2 : x->dims[d]), call, TILING,
                                "%s[%u] should be %lld, but get %lld", aclStubOpName(call, yi), d,
                                (long long)((int64_t)d == dim ? x->dims[d] / 2 : x->dims[d]), (long long)y->dims[d]);
    return OK;
}

/* ---- FatreluMul, GeluMul: the last dimension, at most 1024, even; at most 200000 rows -------------------------- */

static aclnnStatus last_dim_rules(const aclStubOpCall *call, const aclStubTensorDesc *x, int yi) {
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2, call, TILING, "Input shape dim should be no less than 2.");
    int64_t last = x->dims[x->ndim - 1], batch = aclStubNumel(x) / (last ? last : 1);
    ACLSTUB_RETURN_ERROR_IF(last == 0, call, TILING, "Last dim elements can not be zero.");
    ACLSTUB_RETURN_ERROR_IF(last > 1024, call, TILING, "Last dim size should be no more than 1024.");
    ACLSTUB_RETURN_ERROR_IF(last % 2, call, TILING, "Last dim size should be even.");
    ACLSTUB_RETURN_ERROR_IF(batch > 200000, call, TILING, "Batch dim size should be no more than 200000.");
    return halved(call, x, x->ndim - 1, yi);
}

enum { FR_INPUT, FR_THRESHOLD, FR_OUT };
static aclnnStatus fatrelu_check(aclStubOpCall *call) {
    static const int row[] = {FR_INPUT, FR_THRESHOLD, FR_OUT};
    ACLSTUB_TRY(dtype_of_row(call, row, 3));
    if (aclStubNumel(call->v[FR_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
    const aclStubTensorDesc *x = call->v[FR_INPUT].tensor;
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2, call, TILING, "Input shape dim should be no less than 2.");
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(call->v[FR_THRESHOLD].tensor) != 1, call, TILING,
                            "Threshold elements can only be one.");
    ACLSTUB_TRY(last_dim_rules(call, x, FR_OUT));
    ((ExtPlan *)call->plan)->dim = x->ndim - 1;
    return OK;
}
static aclnnStatus fatrelu_kernel(const aclStubOpCall *call) {
    ExtPlan p = *(const ExtPlan *)call->plan;
    p.p0 = aclStubLoadPtrF32(call->v[FR_THRESHOLD].tensor->dtype, aclStubElemAt(call->v[FR_THRESHOLD].tensor, 0));
    aclStubTensorDesc x2, a, b, y2;
    ACLSTUB_TRY(flat_view(call, call->v[FR_INPUT].tensor, p.dim, -1, &x2));
    split(&x2, false, &a, &b);
    flat2(call->v[FR_OUT].tensor, p.dim, &y2);
    const aclStubTensorDesc *t[] = {&y2, &a, &b};
    return run(call, fatrelu_loop, &p, 1, t, 3);
}
static const aclStubParam FR_PARAMS[] = {
    [FR_INPUT] = {"input", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [FR_THRESHOLD] = {"threshold", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [FR_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef FR_OP = {"aclnnFatreluMul", FR_PARAMS, 3, NULL, fatrelu_check, fatrelu_kernel,
                                   sizeof(ExtPlan)};
ACLSTUB_DEFINE_OP(aclnnFatreluMul, FR_OP, (const aclTensor *, input), (const aclTensor *, threshold),
                  (const aclTensor *, out))

enum { GM_INPUT, GM_APPROX, GM_OUT };
static aclnnStatus gelu_mul_check(aclStubOpCall *call) {
    static const int row[] = {GM_INPUT, GM_OUT};
    ACLSTUB_TRY(dtype_of_row(call, row, 2));
    if (aclStubNumel(call->v[GM_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
    const char *mode = call->v[GM_APPROX].s ? call->v[GM_APPROX].s : "none";
    const aclStubTensorDesc *x = call->v[GM_INPUT].tensor;
    ACLSTUB_TRY(last_dim_rules(call, x, GM_OUT));
    ACLSTUB_RETURN_ERROR_IF(strcmp(mode, "none") != 0 && strcmp(mode, "tanh") != 0, call, TILING,
                            "Approximate can only be 'tanh' or 'none'.");
    ExtPlan *p = call->plan;
    p->dim = x->ndim - 1;
    p->mode = strcmp(mode, "tanh") == 0;
    return OK;
}
static aclnnStatus gelu_mul_kernel(const aclStubOpCall *call) {
    const ExtPlan *p = call->plan;
    aclStubTensorDesc x2, a, b, y2;
    ACLSTUB_TRY(flat_view(call, call->v[GM_INPUT].tensor, p->dim, -1, &x2));
    split(&x2, false, &a, &b);
    flat2(call->v[GM_OUT].tensor, p->dim, &y2);
    const aclStubTensorDesc *t[] = {&y2, &a, &b};
    return run(call, gelu_mul_loop, p, 1, t, 3);
}
static const aclStubParam GM_PARAMS[] = {
    [GM_INPUT] = {"input", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [GM_APPROX] = {"approximateOptional", ACLSTUB_STRING, 0, NULL, 0, 0, 0},
    [GM_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef GM_OP = {"aclnnGeluMul", GM_PARAMS, 3, NULL, gelu_mul_check, gelu_mul_kernel,
                                   sizeof(ExtPlan)};
ACLSTUB_DEFINE_OP(aclnnGeluMul, GM_OP, (const aclTensor *, input), (char *, approximateOptional),
                  (const aclTensor *, out))

/* ---- SituGlu and its gradient ---------------------------------------------------------------------------------- */

enum { SG_X, SG_DIM, SG_BETA, SG_LINEAR_BETA, SG_LEFT, SG_OUT };
static aclnnStatus situ_check(aclStubOpCall *call) {
    static const int row[] = {SG_X, SG_OUT};
    ACLSTUB_TRY(dtype_of_row(call, row, 2));
    if (aclStubNumel(call->v[SG_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
    ExtPlan *p = call->plan;
    const aclStubTensorDesc *x = call->v[SG_X].tensor;
    ACLSTUB_TRY(cut_dim(call, x, aclStubOpInt(call, SG_DIM), &p->dim));
    ACLSTUB_TRY(halved(call, x, p->dim, SG_OUT));
    p->p0 = aclStubOpFloat(call, SG_BETA);
    p->p1 = aclStubOpFloat(call, SG_LINEAR_BETA);
    p->left = aclStubOpBool(call, SG_LEFT);
    return OK;
}
static aclnnStatus situ_kernel(const aclStubOpCall *call) {
    const ExtPlan *p = call->plan;
    aclStubTensorDesc x2, a, b, y2;
    ACLSTUB_TRY(flat_view(call, call->v[SG_X].tensor, p->dim, -1, &x2));
    split(&x2, false, &a, &b);
    flat2(call->v[SG_OUT].tensor, p->dim, &y2);
    const aclStubTensorDesc *t[] = {&y2, &a, &b};
    return run(call, situ_loop, p, 1, t, 3);
}
static const aclStubParam SG_PARAMS[] = {
    [SG_X] = {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SG_DIM] = {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [SG_BETA] = {"beta", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [SG_LINEAR_BETA] = {"linearBeta", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [SG_LEFT] = {"activateLeft", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [SG_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef SG_OP = {"aclnnSituGlu", SG_PARAMS, 6, NULL, situ_check, situ_kernel, sizeof(ExtPlan)};
ACLSTUB_DEFINE_OP(aclnnSituGlu, SG_OP, (const aclTensor *, x), (int64_t, dim), (double, beta), (double, linearBeta),
                  (bool, activateLeft), (const aclTensor *, out))

enum { SGG_GRAD, SGG_X, SGG_DIM, SGG_BETA, SGG_LINEAR_BETA, SGG_LEFT, SGG_OUT };
static aclnnStatus situ_grad_check(aclStubOpCall *call) {
    static const int row[] = {SGG_X, SGG_GRAD, SGG_OUT};
    ACLSTUB_TRY(dtype_of_row(call, row, 3));
    if (aclStubNumel(call->v[SGG_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
    ExtPlan *p = call->plan;
    const aclStubTensorDesc *x = call->v[SGG_X].tensor, *y = call->v[SGG_OUT].tensor;
    ACLSTUB_TRY(cut_dim(call, x, aclStubOpInt(call, SGG_DIM), &p->dim));
    ACLSTUB_TRY(halved(call, x, p->dim, SGG_GRAD));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim), call, TILING,
                            "out must have the shape of x");
    p->p0 = aclStubOpFloat(call, SGG_BETA);
    p->p1 = aclStubOpFloat(call, SGG_LINEAR_BETA);
    p->left = aclStubOpBool(call, SGG_LEFT);
    return OK;
}
static aclnnStatus situ_grad_kernel(const aclStubOpCall *call) {
    const ExtPlan *p = call->plan;
    aclStubTensorDesc x2, a, b, y2, ga, gb, g2;
    ACLSTUB_TRY(flat_view(call, call->v[SGG_X].tensor, p->dim, -1, &x2));
    ACLSTUB_TRY(flat_view(call, call->v[SGG_GRAD].tensor, p->dim, -1, &g2));
    split(&x2, false, &a, &b);
    flat2(call->v[SGG_OUT].tensor, p->dim, &y2);
    split(&y2, false, &ga, &gb);
    const aclStubTensorDesc *t[] = {&ga, &gb, &g2, &a, &b};
    return run(call, situ_grad_loop, p, 2, t, 5);
}
static const aclStubParam SGG_PARAMS[] = {
    [SGG_GRAD] = {"gradY", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SGG_X] = {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SGG_DIM] = {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [SGG_BETA] = {"beta", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [SGG_LINEAR_BETA] = {"linearBeta", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [SGG_LEFT] = {"activateLeft", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [SGG_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef SGG_OP = {"aclnnSituGluGrad", SGG_PARAMS, 7, NULL, situ_grad_check, situ_grad_kernel,
                                    sizeof(ExtPlan)};
ACLSTUB_DEFINE_OP(aclnnSituGluGrad, SGG_OP, (const aclTensor *, gradY), (const aclTensor *, x), (int64_t, dim),
                  (double, beta), (double, linearBeta), (bool, activateLeft), (const aclTensor *, out))

/* ---- ClippedSwiglu (V1, V2) and its gradient ------------------------------------------------------------------- */

/* groupIndexOptional: a 1-D INT64 tensor (its dtype is the row's rule; its rank the tiling's) */
static aclnnStatus group_index_rules(const aclStubOpCall *call, int gi) {
    const aclStubTensorDesc *g = call->v[gi].tensor;
    if (g == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(g->ndim != 1, call, TILING, "groupIndex must be 1-D, got %u dimensions", g->ndim);
    return OK;
}
static aclnnStatus group_index_dtype(const aclStubOpCall *call, int gi) {
    const aclStubTensorDesc *g = call->v[gi].tensor;
    ACLSTUB_RETURN_ERROR_IF(g != NULL && g->dtype != ACL_INT64, call, ACLNN_ERR_PARAM_INVALID,
                            "groupIndex has data type %s; it must be ACL_INT64", aclStubDtypeName(g->dtype));
    return OK;
}
/* The rows to process: min(sum(groupIndex), pre), or -1 (all) without groupIndex. */
static int64_t valid_rows(const aclStubOpCall *call, int gi) {
    const aclStubTensorDesc *g = call->v[gi].tensor;
    if (g == NULL) return -1;
    int64_t sum = 0, n = aclStubNumel(g);
    for (int64_t i = 0; i < n; i++) sum += *(const int64_t *)aclStubElemAt(g, i);
    return sum < 0 ? 0 : sum;
}

/* x, groupIndexOptional, dim, alpha, limit, bias, interleaved[, clampMode], out */
enum { CS_X, CS_GROUP, CS_DIM, CS_ALPHA, CS_LIMIT, CS_BIAS, CS_INTERLEAVED, CS_MODE };
static aclnnStatus clipped_check(aclStubOpCall *call) {
    const int out_i = (int)call->op->num_params - 1;
    const int row[] = {CS_X, out_i};
    ACLSTUB_TRY(dtype_of_row(call, row, 2));
    ACLSTUB_TRY(group_index_dtype(call, CS_GROUP));
    if (aclStubNumel(call->v[out_i].tensor) == 0) return aclStubOpNothingToDo(call);
    ExtPlan *p = call->plan;
    const aclStubTensorDesc *x = call->v[CS_X].tensor;
    ACLSTUB_TRY(cut_dim(call, x, aclStubOpInt(call, CS_DIM), &p->dim));
    ACLSTUB_TRY(group_index_rules(call, CS_GROUP));
    ACLSTUB_TRY(halved(call, x, p->dim, out_i));
    p->p0 = aclStubOpFloat(call, CS_ALPHA);
    p->p1 = aclStubOpFloat(call, CS_LIMIT);
    p->p2 = aclStubOpFloat(call, CS_BIAS);
    p->interleaved = aclStubOpBool(call, CS_INTERLEAVED);
    p->mode = call->op->num_params == 9 ? aclStubOpInt(call, CS_MODE) : 0;
    return OK;
}
static aclnnStatus clipped_kernel(const aclStubOpCall *call) {
    ExtPlan p = *(const ExtPlan *)call->plan;
    const int out_i = (int)call->op->num_params - 1;
    p.rows = valid_rows(call, CS_GROUP);
    aclStubTensorDesc x2, a, b, y2;
    ACLSTUB_TRY(flat_view(call, call->v[CS_X].tensor, p.dim, p.rows, &x2));
    split(&x2, p.interleaved, &a, &b);
    flat2(call->v[out_i].tensor, p.dim, &y2);
    y2.dims[0] = x2.dims[0];
    if (aclStubNumel(&y2) == 0) return OK;
    const aclStubTensorDesc *t[] = {&y2, &a, &b};
    return run(call, clipped_loop, &p, 1, t, 3);
}
static const aclStubParam CS_PARAMS[] = {
    {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},        {"groupIndexOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},        {"alpha", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    {"limit", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},    {"bias", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    {"interleaved", ACLSTUB_BOOL, 0, NULL, 0, 0, 0}, {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubParam CS2_PARAMS[] = {
    {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},        {"groupIndexOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},        {"alpha", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    {"limit", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},    {"bias", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    {"interleaved", ACLSTUB_BOOL, 0, NULL, 0, 0, 0}, {"clampMode", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef CS_OP = {"aclnnClippedSwiglu", CS_PARAMS, 8, NULL, clipped_check, clipped_kernel,
                                   sizeof(ExtPlan)};
static const aclStubOpDef CS2_OP = {"aclnnClippedSwigluV2", CS2_PARAMS, 9, NULL, clipped_check, clipped_kernel,
                                    sizeof(ExtPlan)};
ACLSTUB_DEFINE_OP(aclnnClippedSwiglu, CS_OP, (const aclTensor *, x), (const aclTensor *, groupIndexOptional),
                  (int64_t, dim), (double, alpha), (double, limit), (double, bias), (bool, interleaved),
                  (const aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnClippedSwigluV2, CS2_OP, (const aclTensor *, x), (const aclTensor *, groupIndexOptional),
                  (int64_t, dim), (double, alpha), (double, limit), (double, bias), (bool, interleaved),
                  (int64_t, clampMode), (const aclTensor *, out))

/* gradY, x, groupIndexOptional, dim, alpha, limit, bias, interleaved, gradXOut: rows past sum(groupIndex) are 0 */
enum { CG_GRAD, CG_X, CG_GROUP, CG_DIM, CG_ALPHA, CG_LIMIT, CG_BIAS, CG_INTERLEAVED, CG_OUT };
static aclnnStatus clipped_grad_check(aclStubOpCall *call) {
    static const int row[] = {CG_GRAD, CG_X, CG_OUT};
    ACLSTUB_TRY(dtype_of_row(call, row, 3));
    ACLSTUB_TRY(group_index_dtype(call, CG_GROUP));
    if (aclStubNumel(call->v[CG_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
    ExtPlan *p = call->plan;
    const aclStubTensorDesc *x = call->v[CG_X].tensor, *y = call->v[CG_OUT].tensor;
    p->p1 = aclStubOpFloat(call, CG_LIMIT);
    ACLSTUB_RETURN_ERROR_IF(!(p->p1 > 0), call, TILING, "limit must be > 0, but got %f.", p->p1);
    ACLSTUB_TRY(cut_dim(call, x, aclStubOpInt(call, CG_DIM), &p->dim));
    ACLSTUB_TRY(halved(call, x, p->dim, CG_GRAD));
    ACLSTUB_TRY(group_index_rules(call, CG_GROUP));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim), call, TILING,
                            "gradXOut must have the shape of x");
    p->p0 = aclStubOpFloat(call, CG_ALPHA);
    p->p2 = aclStubOpFloat(call, CG_BIAS);
    p->interleaved = aclStubOpBool(call, CG_INTERLEAVED);
    return OK;
}
ACLSTUB_EW_UNARY(ext_zero, ACLSTUB_EW_FLOATS, ((void)x, 0))
static aclnnStatus clipped_grad_kernel(const aclStubOpCall *call) {
    ExtPlan p = *(const ExtPlan *)call->plan;
    p.rows = valid_rows(call, CG_GROUP);
    aclStubTensorDesc x2, a, b, y2, ga, gb, g2;
    ACLSTUB_TRY(flat_view(call, call->v[CG_X].tensor, p.dim, p.rows, &x2));
    ACLSTUB_TRY(flat_view(call, call->v[CG_GRAD].tensor, p.dim, p.rows, &g2));
    split(&x2, p.interleaved, &a, &b);
    flat2(call->v[CG_OUT].tensor, p.dim, &y2);
    int64_t all_rows = y2.dims[0];
    y2.dims[0] = x2.dims[0];
    split(&y2, p.interleaved, &ga, &gb);
    if (aclStubNumel(&ga) > 0) {
        const aclStubTensorDesc *t[] = {&ga, &gb, &g2, &a, &b};
        ACLSTUB_TRY(run(call, clipped_grad_loop, &p, 2, t, 5));
    }
    if (x2.dims[0] < all_rows) { /* the rows past the groups: zero */
        aclStubTensorDesc rest = y2;
        rest.offset += x2.dims[0] * y2.strides[0];
        rest.dims[0] = all_rows - x2.dims[0];
        const aclStubTensorDesc *t[] = {&rest, &rest};
        aclStubEwCtx ctx;
        memset(&ctx, 0, sizeof ctx);
        aclStubIter it;
        memset(&it, 0, sizeof it);
        it.num_outputs = it.num_inputs = 1;
        it.tensor[0] = t[0];
        it.tensor[1] = t[1];
        it.loop_dtype[0] = it.loop_dtype[1] = ACL_FLOAT;
        ACLSTUB_TRY(aclStubIterRun(call, &it, ext_zero.fn[ACLSTUB_CT_F32], &ctx));
    }
    return OK;
}
static const aclStubParam CG_PARAMS[] = {
    [CG_GRAD] = {"gradY", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CG_X] = {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [CG_GROUP] = {"groupIndexOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [CG_DIM] = {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [CG_ALPHA] = {"alpha", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [CG_LIMIT] = {"limit", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [CG_BIAS] = {"bias", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [CG_INTERLEAVED] = {"interleaved", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [CG_OUT] = {"gradXOut", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef CG_OP = {"aclnnClippedSwigluGrad", CG_PARAMS, 9, NULL, clipped_grad_check,
                                   clipped_grad_kernel, sizeof(ExtPlan)};
ACLSTUB_DEFINE_OP(aclnnClippedSwigluGrad, CG_OP, (const aclTensor *, gradY), (const aclTensor *, x),
                  (const aclTensor *, groupIndexOptional), (int64_t, dim), (double, alpha), (double, limit),
                  (double, bias), (bool, interleaved), (const aclTensor *, gradXOut))
