/*
 * Gated activations of ops-nn activation/: the input is split in two halves along a dimension, A (the first) and
 * B (the second), and the output combines them: Glu (A sigmoid(B)), SwiGlu (swish(A) B), GeGlu (A gelu(B), or
 * gelu(A) B with activateLeft, plus gelu of the activated half) and their backward operators, whose gradient is
 * written as its two halves. The halves are views of the input (no copy); the element iterator runs one loop over
 * the output's half shape, in float32 (double for DOUBLE), each result rounded once to its dtype.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "act_math.h"
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_geglu_backward.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "aclnnop/aclnn_swi_glu.h"
#include "aclnnop/aclnn_swi_glu_grad.h"

#define DT ACLSTUB_DT
#define F3 ACLSTUB_DT_FLOATS

typedef struct {
    int64_t dim;      /* the split dimension, non-negative */
    bool left;        /* the activation applies to A (else B) */
    int approximate;  /* gelu: 1 tanh, 0 erf */
    aclDataType compute;
} GatePlan;

/* ---- loops: out (and out2) from a and b; backward: ga and gb from g, a and b -------------------------------- */

#define GATE_LD(T, k, i) ((double)*(const T *)(const void *)(d_[k] + (i) * s_[k]))
#define GATE_ST(T, k, i, v) (*(T *)(void *)(d_[k] + (i) * s_[k]) = (T)(v))
#define GATE_LOOP_T_(NAME, T, NOUT, BODY)                                                                     \
    ACLSTUB_EW_CLONES_ static void NAME##_##T(char **d_, const int64_t *s_, int64_t n_, const void *c_) {   \
        const GatePlan *p = (const GatePlan *)c_;                                                            \
        (void)p;                                                                                             \
        for (int64_t i_ = 0; i_ < n_; i_++) {                                                                \
            BODY(T)                                                                                          \
        }                                                                                                    \
    }
#define GATE_LOOP(NAME, NOUT, BODY)                                                                          \
    GATE_LOOP_T_(NAME, float, NOUT, BODY)                                                                    \
    GATE_LOOP_T_(NAME, double, NOUT, BODY)                                                                   \
    static const aclStubLoopFn NAME##_loops[2] = {NAME##_float, NAME##_double};

static inline ACT_INLINE double gelu_of(double x, int approximate) {
    return approximate == 1 ? act_gelu_tanh(x) : act_gelu_erf(x);
}
static inline ACT_INLINE double gelu_grad_of(double x, int approximate) {
    return approximate == 1 ? act_gelu_tanh_grad(x) : act_gelu_erf_grad(x);
}

/* glu: A sigmoid(B) */
#define GLU_BODY(T) GATE_ST(T, 0, i_, GATE_LD(T, 1, i_) * act_sigmoid(GATE_LD(T, 2, i_)));
GATE_LOOP(glu, 1, GLU_BODY)
#define GLU_BW_BODY(T)                                                                                       \
    double g = GATE_LD(T, 2, i_), a = GATE_LD(T, 3, i_), s = act_sigmoid(GATE_LD(T, 4, i_));                 \
    GATE_ST(T, 0, i_, g * s);                                                                                \
    GATE_ST(T, 1, i_, g * a * s * (1.0 - s));
GATE_LOOP(glu_bw, 2, GLU_BW_BODY)

/* swiglu: swish(A) B */
#define SWIGLU_BODY(T) GATE_ST(T, 0, i_, act_swish(GATE_LD(T, 1, i_), 1.0) * GATE_LD(T, 2, i_));
GATE_LOOP(swiglu, 1, SWIGLU_BODY)
#define SWIGLU_BW_BODY(T)                                                                                    \
    double g = GATE_LD(T, 2, i_), a = GATE_LD(T, 3, i_), b = GATE_LD(T, 4, i_), s = act_sigmoid(a);          \
    GATE_ST(T, 0, i_, g * (s + s * (1.0 - s) * a) * b);                                                      \
    GATE_ST(T, 1, i_, g * s * a);
GATE_LOOP(swiglu_bw, 2, SWIGLU_BW_BODY)

/* geglu: the activated half through gelu times the other; out2 the gelu itself */
#define GEGLU_BODY(T)                                                                                        \
    double a = GATE_LD(T, 2, i_), b = GATE_LD(T, 3, i_), act = p->left ? a : b, other = p->left ? b : a;     \
    double ge = gelu_of(act, p->approximate);                                                                \
    GATE_ST(T, 0, i_, ge * other);                                                                           \
    GATE_ST(T, 1, i_, ge);
GATE_LOOP(geglu, 2, GEGLU_BODY)
#define GEGLU_BW_BODY(T)                                                                                     \
    double g = GATE_LD(T, 2, i_), a = GATE_LD(T, 3, i_), b = GATE_LD(T, 4, i_);                              \
    double act = p->left ? a : b, other = p->left ? b : a;                                                   \
    double g_other = g * gelu_of(act, p->approximate), g_act = g * other * gelu_grad_of(act, p->approximate); \
    GATE_ST(T, 0, i_, p->left ? g_act : g_other);                                                            \
    GATE_ST(T, 1, i_, p->left ? g_other : g_act);
GATE_LOOP(geglu_bw, 2, GEGLU_BW_BODY)

/* ---- views and the kernel ------------------------------------------------------------------------------------ */

/* The halves of t along dim (t->dims[dim] even): views into t's memory. */
static void halves(const aclStubTensorDesc *t, int64_t dim, aclStubTensorDesc *a, aclStubTensorDesc *b) {
    *a = *t;
    a->dims[dim] = t->dims[dim] / 2;
    *b = *a;
    b->offset += a->dims[dim] * t->strides[dim];
}

/* A contiguous tensor read as another shape of the same element count. */
static void reshaped(const aclStubTensorDesc *t, const int64_t *dims, uint32_t n, aclStubTensorDesc *out) {
    *out = *t;
    out->ndim = n;
    int64_t s = 1;
    for (uint32_t d = n; d-- > 0;) {
        out->dims[d] = dims[d];
        out->strides[d] = s;
        s *= dims[d] > 0 ? dims[d] : 1;
    }
}

/* Runs loops over the output half shape: outputs first (nout of them), then inputs. */
static aclnnStatus run_gate(const aclStubOpCall *call, const aclStubLoopFn *loops, GatePlan plan, int nout,
                            const aclStubTensorDesc *const *t, int nt) {
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = nout;
    it.num_inputs = nt - nout;
    aclDataType loop = plan.compute == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
    for (int k = 0; k < nt; k++) {
        it.tensor[k] = t[k];
        it.loop_dtype[k] = loop;
        it.has_via[k] = k < nout && loop != t[k]->dtype && plan.compute != t[k]->dtype;
        it.via[k] = plan.compute;
    }
    return aclStubIterRun(call, &it, loops[loop == ACL_DOUBLE], &plan);
}

static int64_t norm_dim(int64_t dim, uint32_t ndim) { return dim < 0 ? dim + (int64_t)(ndim ? ndim : 1) : dim; }

static aclnnStatus fail_shape(const aclStubOpCall *call, aclnnStatus st, const char *what, const aclStubTensorDesc *t,
                              const int64_t *want, uint32_t nwant) {
    char a[128], b[128];
    return aclStubOpFail(call, st, "the shape of %s must be %s, but got %s", what,
                         aclStubShapeText(want, nwant, a, sizeof a), aclStubShapeText(t->dims, t->ndim, b, sizeof b));
}

static aclnnStatus in_list(const aclStubOpCall *call, int i, uint64_t dtypes) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    char buf[256];
    if ((unsigned)t->dtype >= 64 || !(dtypes & DT(t->dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                             aclStubOpName(call, i), aclStubDtypeName(t->dtype),
                             aclStubDtypeSetName(dtypes, buf, sizeof buf));
    return OK;
}

static aclnnStatus same_dtype(const aclStubOpCall *call, int i, int ref) {
    const aclStubTensorDesc *t = call->v[i].tensor, *r = call->v[ref].tensor;
    ACLSTUB_RETURN_ERROR_IF(t->dtype != r->dtype, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s but "
                            "must have the data type %s of '%s'", aclStubOpName(call, i), aclStubDtypeName(t->dtype),
                            aclStubDtypeName(r->dtype), aclStubOpName(call, ref));
    return OK;
}

static aclnnStatus max_rank(const aclStubOpCall *call, int i, aclnnStatus st) {
    ACLSTUB_RETURN_ERROR_IF(call->v[i].tensor->ndim > 8, call, st, "argument '%s' has %u dimensions; at most 8 are "
                            "supported", aclStubOpName(call, i), call->v[i].tensor->ndim);
    return OK;
}

/* The half shape of x along dim: x's shape with dims[dim] halved. */
static void half_shape(const aclStubTensorDesc *x, int64_t dim, int64_t *dims) {
    memcpy(dims, x->dims, x->ndim * sizeof dims[0]);
    dims[dim] /= 2;
}

/* ---- glu (op_api) --------------------------------------------------------------------------------------------- */

#define GLU_DT (F3 | DT(ACL_DOUBLE))
enum { GLU_SELF, GLU_DIM, GLU_OUT };
static aclnnStatus glu_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[GLU_SELF].tensor, *y = call->v[GLU_OUT].tensor;
    ACLSTUB_TRY(in_list(call, GLU_SELF, GLU_DT));
    ACLSTUB_TRY(in_list(call, GLU_OUT, GLU_DT));
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(x->dtype, y->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "self dtype %s can't be cast to the desired output type %s", aclStubDtypeName(x->dtype),
                            aclStubDtypeName(y->dtype));
    ACLSTUB_TRY(max_rank(call, GLU_SELF, ACLNN_ERR_PARAM_INVALID));
    ACLSTUB_TRY(max_rank(call, GLU_OUT, ACLNN_ERR_PARAM_INVALID));
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 1, call, ACLNN_ERR_PARAM_INVALID, "self must have at least 1 dimension");
    int64_t dim = aclStubOpInt(call, GLU_DIM), nd = x->ndim;
    ACLSTUB_RETURN_ERROR_IF(dim < -nd || dim >= nd, call, ACLNN_ERR_PARAM_INVALID, "Input dimension out of range "
                            "(expected to be in range of [%lld, %lld], but got %lld).", (long long)-nd,
                            (long long)(nd - 1), (long long)dim);
    dim = norm_dim(dim, x->ndim);
    ACLSTUB_RETURN_ERROR_IF(x->dims[dim] % 2, call, ACLNN_ERR_PARAM_INVALID, "Split dimension must be even, but "
                            "dimension %lld is size %lld.", (long long)dim, (long long)x->dims[dim]);
    int64_t want[ACLSTUB_MAX_DIMS];
    half_shape(x, dim, want);
    if (!aclStubShapeEqual(want, x->ndim, y->dims, y->ndim))
        return fail_shape(call, ACLNN_ERR_PARAM_INVALID, "out", y, want, x->ndim);
    GatePlan *p = call->plan;
    p->dim = dim;
    p->compute = x->dtype;
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}
static aclnnStatus glu_kernel(const aclStubOpCall *call) {
    const GatePlan *p = call->plan;
    aclStubTensorDesc a, b;
    halves(call->v[GLU_SELF].tensor, p->dim, &a, &b);
    const aclStubTensorDesc *t[] = {call->v[GLU_OUT].tensor, &a, &b};
    return run_gate(call, glu_loops, *p, 1, t, 3);
}
static const aclStubParam GLU_PARAMS[] = {
    [GLU_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [GLU_DIM] = {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [GLU_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef GLU_OP = {"aclnnGlu", GLU_PARAMS, 3, NULL, glu_check, glu_kernel, sizeof(GatePlan)};
ACLSTUB_DEFINE_OP(aclnnGlu, GLU_OP, (const aclTensor *, self), (int64_t, dim), (const aclTensor *, out))

enum { GLUB_GRAD, GLUB_SELF, GLUB_DIM, GLUB_OUT };
static aclnnStatus glu_bw_check(aclStubOpCall *call) {
    const aclStubTensorDesc *g = call->v[GLUB_GRAD].tensor, *x = call->v[GLUB_SELF].tensor,
                            *y = call->v[GLUB_OUT].tensor;
    ACLSTUB_TRY(in_list(call, GLUB_SELF, GLU_DT));
    ACLSTUB_TRY(same_dtype(call, GLUB_GRAD, GLUB_SELF));
    ACLSTUB_TRY(same_dtype(call, GLUB_OUT, GLUB_SELF));
    ACLSTUB_TRY(max_rank(call, GLUB_SELF, ACLNN_ERR_PARAM_INVALID));
    ACLSTUB_TRY(max_rank(call, GLUB_OUT, ACLNN_ERR_PARAM_INVALID));
    ACLSTUB_TRY(max_rank(call, GLUB_GRAD, ACLNN_ERR_PARAM_INVALID));
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 1, call, ACLNN_ERR_PARAM_INVALID, "self must have at least 1 dimension");
    int64_t dim = aclStubOpInt(call, GLUB_DIM), nd = x->ndim;
    ACLSTUB_RETURN_ERROR_IF(dim < -nd || dim >= nd, call, ACLNN_ERR_PARAM_INVALID, "Dimension out of range (expected "
                            "to be in range of [%lld, %lld], but got %lld).", (long long)-nd, (long long)(nd - 1),
                            (long long)dim);
    dim = norm_dim(dim, x->ndim);
    ACLSTUB_RETURN_ERROR_IF(x->dims[dim] % 2, call, ACLNN_ERR_PARAM_INVALID, "Halving dimension must be even, but "
                            "dimension %lld is size %lld.", (long long)dim, (long long)x->dims[dim]);
    int64_t want[ACLSTUB_MAX_DIMS];
    half_shape(x, dim, want);
    if (!aclStubShapeEqual(want, x->ndim, g->dims, g->ndim))
        return fail_shape(call, ACLNN_ERR_PARAM_INVALID, "gradOut", g, want, x->ndim);
    if (!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim))
        return fail_shape(call, ACLNN_ERR_PARAM_INVALID, "out", y, x->dims, x->ndim);
    GatePlan *p = call->plan;
    p->dim = dim;
    p->compute = x->dtype;
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}
static aclnnStatus glu_bw_kernel(const aclStubOpCall *call) {
    const GatePlan *p = call->plan;
    aclStubTensorDesc a, b, ga, gb;
    halves(call->v[GLUB_SELF].tensor, p->dim, &a, &b);
    halves(call->v[GLUB_OUT].tensor, p->dim, &ga, &gb);
    const aclStubTensorDesc *t[] = {&ga, &gb, call->v[GLUB_GRAD].tensor, &a, &b};
    return run_gate(call, glu_bw_loops, *p, 2, t, 5);
}
static const aclStubParam GLUB_PARAMS[] = {
    [GLUB_GRAD] = {"gradOut", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [GLUB_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [GLUB_DIM] = {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [GLUB_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef GLUB_OP = {"aclnnGluBackward", GLUB_PARAMS, 4, NULL, glu_bw_check, glu_bw_kernel,
                                     sizeof(GatePlan)};
ACLSTUB_DEFINE_OP(aclnnGluBackward, GLUB_OP, (const aclTensor *, gradOut), (const aclTensor *, self), (int64_t, dim),
                  (const aclTensor *, out))

/* ---- swiglu (generated entry points: dtype rules 161002, then empty outputs, then the tiling's 561002) -------- */

/* The split of the tiling: the dimensions from dim on are one axis, halved. With dims[dim] even the halves are the
 * halves along dim; otherwise the trailing dimensions must be one contiguous run to be read as that axis. */
static aclnnStatus swiglu_split(const aclStubOpCall *call, const aclStubTensorDesc *x, int64_t dim_attr,
                                int64_t *dim, aclStubTensorDesc *x2, bool *flat) {
    int64_t nd = x->ndim;
    ACLSTUB_RETURN_ERROR_IF(dim_attr < -nd || dim_attr >= nd, call, ACLNN_ERR_INNER_TILING_ERROR,
                            "dim %lld is out of range for x of %lld dimensions", (long long)dim_attr, (long long)nd);
    *dim = norm_dim(dim_attr, x->ndim);
    int64_t after = 1, before = 1;
    for (int64_t d = 0; d < nd; d++) *(d < *dim ? &before : &after) *= x->dims[d];
    ACLSTUB_RETURN_ERROR_IF(after % 2, call, ACLNN_ERR_INNER_TILING_ERROR, "The split axis of input x must be an even "
                            "number (the dimensions from %lld on hold %lld elements)", (long long)*dim,
                            (long long)after);
    *flat = x->dims[*dim] % 2 != 0;
    if (*flat) { /* read x as (before, after): the trailing dimensions must be contiguous */
        int64_t expect = x->strides[nd - 1];
        for (int64_t d = nd; d-- > *dim;) {
            ACLSTUB_RETURN_ERROR_IF(x->dims[d] != 1 && x->strides[d] != expect, call, ACLNN_ERR_INNER_TILING_ERROR,
                                    "x must be contiguous from dimension %lld on when dimension %lld is odd",
                                    (long long)*dim, (long long)*dim);
            expect *= x->dims[d];
        }
        *x2 = *x;
        x2->ndim = 2;
        x2->dims[0] = before;
        x2->dims[1] = after;
        x2->strides[1] = x->strides[nd - 1];
        x2->strides[0] = before > 1 && *dim > 0 ? x->strides[*dim - 1] : after * x->strides[nd - 1];
        *dim = 1;
    } else {
        *x2 = *x;
    }
    return OK;
}

enum { SWI_X, SWI_DIM, SWI_OUT };
static aclnnStatus swiglu_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[SWI_X].tensor, *y = call->v[SWI_OUT].tensor;
    ACLSTUB_TRY(in_list(call, SWI_X, F3));
    ACLSTUB_TRY(same_dtype(call, SWI_OUT, SWI_X));
    if (aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    GatePlan *p = call->plan;
    aclStubTensorDesc x2;
    bool flat;
    ACLSTUB_TRY(swiglu_split(call, x, aclStubOpInt(call, SWI_DIM), &p->dim, &x2, &flat));
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(y) * 2 != aclStubNumel(x), call, ACLNN_ERR_INNER_TILING_ERROR,
                            "out holds %lld elements; half of x's %lld are needed", (long long)aclStubNumel(y),
                            (long long)aclStubNumel(x));
    p->compute = x->dtype;
    return OK;
}
static aclnnStatus swiglu_kernel(const aclStubOpCall *call) {
    GatePlan p = *(const GatePlan *)call->plan;
    const aclStubTensorDesc *x = call->v[SWI_X].tensor;
    aclStubTensorDesc x2, a, b, y;
    bool flat;
    int64_t dim;
    ACLSTUB_TRY(swiglu_split(call, x, aclStubOpInt(call, SWI_DIM), &dim, &x2, &flat));
    halves(&x2, dim, &a, &b);
    reshaped(call->v[SWI_OUT].tensor, a.dims, a.ndim, &y);
    const aclStubTensorDesc *t[] = {&y, &a, &b};
    return run_gate(call, swiglu_loops, p, 1, t, 3);
}
static const aclStubParam SWI_PARAMS[] = {
    [SWI_X] = {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SWI_DIM] = {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [SWI_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef SWI_OP = {"aclnnSwiGlu", SWI_PARAMS, 3, NULL, swiglu_check, swiglu_kernel,
                                    sizeof(GatePlan)};
ACLSTUB_DEFINE_OP(aclnnSwiGlu, SWI_OP, (const aclTensor *, x), (int64_t, dim), (const aclTensor *, out))

enum { SWIG_YGRAD, SWIG_X, SWIG_DIM, SWIG_OUT };
static aclnnStatus swiglu_grad_check(aclStubOpCall *call) {
    const aclStubTensorDesc *g = call->v[SWIG_YGRAD].tensor, *x = call->v[SWIG_X].tensor,
                            *y = call->v[SWIG_OUT].tensor;
    ACLSTUB_TRY(in_list(call, SWIG_YGRAD, F3));
    ACLSTUB_TRY(same_dtype(call, SWIG_X, SWIG_YGRAD));
    ACLSTUB_TRY(same_dtype(call, SWIG_OUT, SWIG_YGRAD));
    if (aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    GatePlan *p = call->plan;
    aclStubTensorDesc x2;
    bool flat;
    ACLSTUB_TRY(swiglu_split(call, x, aclStubOpInt(call, SWIG_DIM), &p->dim, &x2, &flat));
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(g) * 2 != aclStubNumel(x) || aclStubNumel(y) != aclStubNumel(x), call,
                            ACLNN_ERR_INNER_TILING_ERROR, "yGrad must hold half of x's %lld elements (%lld) and out "
                            "all of them (%lld)", (long long)aclStubNumel(x), (long long)aclStubNumel(g),
                            (long long)aclStubNumel(y));
    p->compute = x->dtype;
    return OK;
}
static aclnnStatus swiglu_grad_kernel(const aclStubOpCall *call) {
    GatePlan p = *(const GatePlan *)call->plan;
    aclStubTensorDesc x2, a, b, y2, ga, gb, g;
    bool flat;
    int64_t dim;
    ACLSTUB_TRY(swiglu_split(call, call->v[SWIG_X].tensor, aclStubOpInt(call, SWIG_DIM), &dim, &x2, &flat));
    halves(&x2, dim, &a, &b);
    reshaped(call->v[SWIG_OUT].tensor, x2.dims, x2.ndim, &y2);
    halves(&y2, dim, &ga, &gb);
    const aclStubTensorDesc *yg = call->v[SWIG_YGRAD].tensor;
    if (aclStubShapeEqual(yg->dims, yg->ndim, a.dims, a.ndim))
        g = *yg;
    else
        reshaped(yg, a.dims, a.ndim, &g); /* a contiguous gradient of another shape with the same elements */
    const aclStubTensorDesc *t[] = {&ga, &gb, &g, &a, &b};
    return run_gate(call, swiglu_bw_loops, p, 2, t, 5);
}
static const aclStubParam SWIG_PARAMS[] = {
    [SWIG_YGRAD] = {"yGrad", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SWIG_X] = {"x", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [SWIG_DIM] = {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [SWIG_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef SWIG_OP = {"aclnnSwiGluGrad", SWIG_PARAMS, 4, NULL, swiglu_grad_check, swiglu_grad_kernel,
                                     sizeof(GatePlan)};
ACLSTUB_DEFINE_OP(aclnnSwiGluGrad, SWIG_OP, (const aclTensor *, yGrad), (const aclTensor *, x), (int64_t, dim),
                  (const aclTensor *, out))

/* ---- geglu (op_api) ------------------------------------------------------------------------------------------- */

enum { GEG_SELF, GEG_DIM, GEG_APPROX, GEG_LEFT, GEG_OUT, GEG_GELU }; /* V1 has no activateLeft: indices shift */
static aclnnStatus geglu_check_at(aclStubOpCall *call, int left_param) {
    const int out_i = left_param >= 0 ? 4 : 3, gelu_i = out_i + 1;
    const aclStubTensorDesc *x = call->v[GEG_SELF].tensor, *y = call->v[out_i].tensor, *yg = call->v[gelu_i].tensor;
    ACLSTUB_TRY(in_list(call, GEG_SELF, F3));
    ACLSTUB_TRY(in_list(call, out_i, F3));
    ACLSTUB_TRY(in_list(call, gelu_i, F3));
    bool empty = aclStubNumel(x) == 0 || x->ndim == 0;
    if (!empty) {
        ACLSTUB_TRY(same_dtype(call, out_i, GEG_SELF));
        ACLSTUB_TRY(same_dtype(call, gelu_i, GEG_SELF));
    }
    ACLSTUB_TRY(max_rank(call, GEG_SELF, ACLNN_ERR_PARAM_INVALID));
    ACLSTUB_TRY(max_rank(call, out_i, ACLNN_ERR_PARAM_INVALID));
    ACLSTUB_TRY(max_rank(call, gelu_i, ACLNN_ERR_PARAM_INVALID));
    int64_t nd = x->ndim ? x->ndim : 1, dim = aclStubOpInt(call, GEG_DIM);
    ACLSTUB_RETURN_ERROR_IF(dim < -nd || dim >= nd, call, ACLNN_ERR_PARAM_INVALID, "Expected aclnnGeGlu dim value %lld "
                            "to be in range [%lld, %lld] but check failed.", (long long)dim, (long long)-nd,
                            (long long)(nd - 1));
    dim = dim < 0 ? dim + nd : dim;
    int64_t xs = x->ndim ? x->dims[dim] : 1, ys = y->ndim > dim ? y->dims[dim] : 1,
            gs = yg->ndim > dim ? yg->dims[dim] : 1;
    ACLSTUB_RETURN_ERROR_IF(xs % 2, call, ACLNN_ERR_PARAM_INVALID, "selfSliceDimSize[%lld] must be even number.",
                            (long long)xs);
    ACLSTUB_RETURN_ERROR_IF(ys != xs / 2 || gs != xs / 2, call, ACLNN_ERR_PARAM_INVALID, "Expected aclnnGeGlu out and "
                            "outGelu slice dim sizes (%lld, %lld) to be equal to %lld", (long long)ys, (long long)gs,
                            (long long)(xs / 2));
    ACLSTUB_RETURN_ERROR_IF((int64_t)y->ndim != nd || (int64_t)yg->ndim != nd, call, ACLNN_ERR_PARAM_INVALID,
                            "outDimNum[%u] and outGeluDimNum[%u] must be the same with inputDimNum[%lld].", y->ndim,
                            yg->ndim, (long long)nd);
    for (int64_t d = 0; d < (int64_t)x->ndim; d++)
        ACLSTUB_RETURN_ERROR_IF(d != dim && (x->dims[d] != y->dims[d] || y->dims[d] != yg->dims[d]), call,
                                ACLNN_ERR_PARAM_INVALID, "Except the slice dim[%lld], all other shape dim must be "
                                "the same", (long long)dim);
    int64_t approx = aclStubOpInt(call, GEG_APPROX);
    ACLSTUB_RETURN_ERROR_IF(approx < 0 || approx > 1, call, ACLNN_ERR_PARAM_INVALID, "Approximate should be 0 or 1, "
                            "but current is %lld", (long long)approx);
    GatePlan *p = call->plan;
    p->dim = dim;
    p->approximate = (int)approx;
    p->left = left_param >= 0 && aclStubOpBool(call, left_param);
    p->compute = x->dtype;
    if (empty) return aclStubOpNothingToDo(call);
    return OK;
}
static aclnnStatus geglu_check(aclStubOpCall *call) { return geglu_check_at(call, -1); }
static aclnnStatus geglu_v3_check(aclStubOpCall *call) { return geglu_check_at(call, GEG_LEFT); }
static aclnnStatus geglu_kernel(const aclStubOpCall *call) {
    const GatePlan *p = call->plan;
    const int out_i = call->op->num_params == 6 ? 4 : 3;
    aclStubTensorDesc a, b;
    halves(call->v[GEG_SELF].tensor, p->dim, &a, &b);
    const aclStubTensorDesc *t[] = {call->v[out_i].tensor, call->v[out_i + 1].tensor, &a, &b};
    return run_gate(call, geglu_loops, *p, 2, t, 4);
}
static const aclStubParam GEG_PARAMS[] = {
    {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},          {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"approximate", ACLSTUB_INT, 0, NULL, 0, 0, 0},     {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    {"outGelu", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubParam GEG3_PARAMS[] = {
    {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},          {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"approximate", ACLSTUB_INT, 0, NULL, 0, 0, 0},     {"activateLeft", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    {"outGelu", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef GEG_OP = {"aclnnGeGlu", GEG_PARAMS, 5, NULL, geglu_check, geglu_kernel, sizeof(GatePlan)};
static const aclStubOpDef GEG3_OP = {"aclnnGeGluV3", GEG3_PARAMS, 6, NULL, geglu_v3_check, geglu_kernel,
                                     sizeof(GatePlan)};
ACLSTUB_DEFINE_OP(aclnnGeGlu, GEG_OP, (const aclTensor *, self), (int64_t, dim), (int64_t, approximate),
                  (aclTensor *, out), (aclTensor *, outGelu))
ACLSTUB_DEFINE_OP(aclnnGeGluV3, GEG3_OP, (const aclTensor *, self), (int64_t, dim), (int64_t, approximate),
                  (bool, activateLeft), (aclTensor *, out), (aclTensor *, outGelu))

/* backward: gradOutput, self, gelu (the forward's outGelu: recomputed here), dim, approximate[, activateLeft] */
enum { GEGB_GRAD, GEGB_SELF, GEGB_GELU, GEGB_DIM, GEGB_APPROX, GEGB_LEFT };
static aclnnStatus geglu_bw_check_at(aclStubOpCall *call, int left_param) {
    const int out_i = left_param >= 0 ? 6 : 5;
    const aclStubTensorDesc *g = call->v[GEGB_GRAD].tensor, *x = call->v[GEGB_SELF].tensor,
                            *ge = call->v[GEGB_GELU].tensor, *y = call->v[out_i].tensor;
    ACLSTUB_TRY(in_list(call, GEGB_GRAD, F3));
    ACLSTUB_TRY(same_dtype(call, GEGB_SELF, GEGB_GRAD));
    ACLSTUB_TRY(same_dtype(call, GEGB_GELU, GEGB_GRAD));
    ACLSTUB_TRY(same_dtype(call, out_i, GEGB_GRAD));
    if (!aclStubShapeEqual(ge->dims, ge->ndim, g->dims, g->ndim))
        return fail_shape(call, ACLNN_ERR_PARAM_INVALID, "gelu", ge, g->dims, g->ndim);
    if (!aclStubShapeEqual(y->dims, y->ndim, x->dims, x->ndim))
        return fail_shape(call, ACLNN_ERR_PARAM_INVALID, "gradInput", y, x->dims, x->ndim);
    int64_t nd = x->ndim ? x->ndim : 1, dim = aclStubOpInt(call, GEGB_DIM);
    ACLSTUB_RETURN_ERROR_IF(dim < -nd || dim >= nd, call, ACLNN_ERR_PARAM_INVALID, "expected dim to be in range of "
                            "[%lld, %lld], but got %lld.", (long long)-nd, (long long)(nd - 1), (long long)dim);
    dim = dim < 0 ? dim + nd : dim;
    ACLSTUB_RETURN_ERROR_IF(g->ndim != x->ndim, call, ACLNN_ERR_PARAM_INVALID, "gradOutput and self must have same "
                            "dimensions");
    int64_t want[ACLSTUB_MAX_DIMS];
    if (x->ndim) {
        half_shape(x, dim, want);
        ACLSTUB_RETURN_ERROR_IF(x->dims[dim] % 2 || !aclStubShapeEqual(want, x->ndim, g->dims, g->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "gradOutput must be self halved along dimension %lld",
                                (long long)dim);
    }
    int64_t approx = aclStubOpInt(call, GEGB_APPROX);
    ACLSTUB_RETURN_ERROR_IF(approx != 0 && approx != 1, call, ACLNN_ERR_PARAM_INVALID, "approximate should be 0 or 1, "
                            "but current is %lld", (long long)approx);
    GatePlan *p = call->plan;
    p->dim = dim;
    p->approximate = (int)approx;
    p->left = left_param >= 0 && aclStubOpBool(call, left_param);
    p->compute = x->dtype;
    if (aclStubNumel(x) == 0 || x->ndim == 0) return aclStubOpNothingToDo(call);
    return OK;
}
static aclnnStatus geglu_bw_check(aclStubOpCall *call) { return geglu_bw_check_at(call, -1); }
static aclnnStatus geglu_bw_v3_check(aclStubOpCall *call) { return geglu_bw_check_at(call, GEGB_LEFT); }
static aclnnStatus geglu_bw_kernel(const aclStubOpCall *call) {
    const GatePlan *p = call->plan;
    const int out_i = call->op->num_params == 7 ? 6 : 5;
    aclStubTensorDesc a, b, ga, gb;
    halves(call->v[GEGB_SELF].tensor, p->dim, &a, &b);
    halves(call->v[out_i].tensor, p->dim, &ga, &gb);
    const aclStubTensorDesc *t[] = {&ga, &gb, call->v[GEGB_GRAD].tensor, &a, &b};
    return run_gate(call, geglu_bw_loops, *p, 2, t, 5);
}
static const aclStubParam GEGB_PARAMS[] = {
    {"gradOutput", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},  {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"gelu", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},        {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"approximate", ACLSTUB_INT, 0, NULL, 0, 0, 0},   {"gradInput", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubParam GEGB3_PARAMS[] = {
    {"gradOutput", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},  {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"gelu", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},        {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"approximate", ACLSTUB_INT, 0, NULL, 0, 0, 0},   {"activateLeft", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    {"gradInput", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef GEGB_OP = {"aclnnGeGluBackward", GEGB_PARAMS, 6, NULL, geglu_bw_check, geglu_bw_kernel,
                                     sizeof(GatePlan)};
static const aclStubOpDef GEGB3_OP = {"aclnnGeGluV3Backward", GEGB3_PARAMS, 7, NULL, geglu_bw_v3_check,
                                      geglu_bw_kernel, sizeof(GatePlan)};
ACLSTUB_DEFINE_OP(aclnnGeGluBackward, GEGB_OP, (const aclTensor *, gradOutput), (const aclTensor *, self),
                  (const aclTensor *, gelu), (int64_t, dim), (int64_t, approximate), (aclTensor *, gradInput))
ACLSTUB_DEFINE_OP(aclnnGeGluV3Backward, GEGB3_OP, (const aclTensor *, gradOutput), (const aclTensor *, self),
                  (const aclTensor *, gelu), (int64_t, dim), (int64_t, approximate), (bool, activateLeft),
                  (aclTensor *, gradInput))
