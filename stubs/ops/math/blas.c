/*
 * Vector products of ops-math math/: aclnnDot, aclnnGer, aclnnAddr and aclnnInplaceAddr.
 *
 * Dot is the vector unit's reduction (aclStubMmDot). Ger and Addr are elementwise on the device (Mul, Add and
 * LogicalAnd/LogicalOr in the promoted dtype): they run on the element iterator over the outer product's shape,
 * vec1 read as a column and vec2 as a row, 16-bit floats computed in float32 and rounded once.
 */
#include <string.h>

#include "aclnnop/aclnn_addr.h"
#include "aclnnop/aclnn_dot.h"
#include "aclnnop/aclnn_ger.h"
#include "aclstub/op_elementwise.h"
#include "aclstub/op_matmul.h"

static char shape_buf[2][160];
static const char *shp(int k, const aclStubTensorDesc *t) {
    return aclStubShapeText(t->dims, t->ndim, shape_buf[k & 1], sizeof shape_buf[0]);
}

/* ---- aclnnDot ------------------------------------------------------------------------------------------------ */

#define DOT_DT (ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_UINT8))
enum { D_SELF, D_TENSOR, D_OUT };
static const aclStubParam kDotParams[] = {
    [D_SELF] = {"self", ACLSTUB_INPUT, 0},
    [D_TENSOR] = {"tensor", ACLSTUB_INPUT, 0},
    [D_OUT] = {"out", ACLSTUB_OUTPUT, 0},
};

static aclnnStatus dot_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, D_SELF), *y = aclStubOpTensor(call, D_TENSOR),
                            *out = aclStubOpTensor(call, D_OUT);
    char buf[256];
    ACLSTUB_RETURN_ERROR_IF(x->dtype != y->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "tensor's dtype %s must be the same as self's %s", aclStubDtypeName(y->dtype),
                            aclStubDtypeName(x->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->dtype != out->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "out's dtype %s must be the same as self's %s", aclStubDtypeName(out->dtype),
                            aclStubDtypeName(x->dtype));
    ACLSTUB_RETURN_ERROR_IF((unsigned)x->dtype >= 64 || !(DOT_DT & ACLSTUB_DT(x->dtype)), call,
                            ACLNN_ERR_PARAM_INVALID, "self has data type %s; supported: %s",
                            aclStubDtypeName(x->dtype), aclStubDtypeSetName(DOT_DT, buf, sizeof buf));
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 1 || y->ndim != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "expected 1D input tensors, but got %s and %s tensors.", shp(0, x), shp(1, y));
    ACLSTUB_RETURN_ERROR_IF(x->dims[0] != y->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                            "expected consistent tensor size, but got %s and %s tensors.", shp(0, x), shp(1, y));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 0, call, ACLNN_ERR_PARAM_INVALID, "expected 0D output tensor, but got %s tensor.",
                            shp(0, out));
    return OK;
}

static aclnnStatus dot_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, D_SELF), *y = aclStubOpTensor(call, D_TENSOR),
                            *out = aclStubOpTensor(call, D_OUT);
    return aclStubMmDot(call, x, y, x->dtype, aclStubElemAt(out, 0), out->dtype);
}

static const aclStubOpDef kDot = {"aclnnDot", kDotParams, ACLSTUB_LEN(kDotParams), NULL, dot_check, dot_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnDot, kDot, (const aclTensor *, self), (const aclTensor *, tensor), (aclTensor *, out))

/* ---- outer products on the element iterator ----------------------------------------------------------------- */

/* A 1-D view as a column (n, 1) or a row (1, n) of a 2-D operand. */
static aclStubTensorDesc as_2d(const aclStubTensorDesc *v, bool column) {
    aclStubTensorDesc t = *v;
    t.ndim = 2;
    t.dims[0] = column ? v->dims[0] : 1;
    t.dims[1] = column ? 1 : v->dims[0];
    t.strides[0] = column ? v->strides[0] : 0;
    t.strides[1] = column ? 0 : v->strides[0];
    return t;
}

static aclnnStatus run_outer(const aclStubOpCall *call, const aclStubEwLoops *loops, aclDataType compute,
                             const aclStubTensorDesc *out, const aclStubTensorDesc *self, const aclStubTensorDesc *v1,
                             const aclStubTensorDesc *v2, const aclStubEwCtx *ctx) {
    aclDataType loop;
    int ct = aclStubEwComputeIndex(compute, &loop);
    aclStubLoopFn fn = ct >= 0 ? loops->fn[ct] : NULL;
    if (fn == NULL)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "no kernel for data type %s", aclStubDtypeName(compute));
    aclStubTensorDesc col = as_2d(v1, true), row = as_2d(v2, false);
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    const aclStubTensorDesc *ops[4] = {out, self, &col, &row};
    int k = 0;
    for (int i = 0; i < 4; i++) {
        if (i == 1 && self == NULL) continue;
        it.tensor[k] = ops[i];
        it.loop_dtype[k] = loop;
        it.has_via[k] = loop != compute;
        it.via[k] = compute;
        k++;
    }
    it.num_inputs = k - 1;
    return aclStubIterRun(call, &it, fn, ctx);
}

/* ---- aclnnGer ------------------------------------------------------------------------------------------------- */

#define GER_DT                                                                                                \
    (ACLSTUB_DT(ACL_FLOAT) | ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_DOUBLE) |          \
     ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_UINT8) | ACLSTUB_DT(ACL_INT16) | ACLSTUB_DT(ACL_BOOL) |                \
     ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT_COMPLEX)
enum { G_SELF, G_VEC2, G_OUT };
static const aclStubParam kGerParams[] = {
    [G_SELF] = {"self", ACLSTUB_INPUT, GER_DT},
    [G_VEC2] = {"vec2", ACLSTUB_INPUT, GER_DT},
    [G_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus ger_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, G_SELF), *y = aclStubOpTensor(call, G_VEC2),
                            *out = aclStubOpTensor(call, G_OUT);
    aclDataType p = aclStubPromoteType(x->dtype, y->dtype);
    ACLSTUB_RETURN_ERROR_IF((int)p < 0 || p == ACL_DT_UNDEFINED, call, ACLNN_ERR_PARAM_INVALID,
                            "Self dtype %s and vec2 dtype %s can not promote dtype.", aclStubDtypeName(x->dtype),
                            aclStubDtypeName(y->dtype));
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(p, out->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "promote dtype %s can't be cast to the desired output type %s", aclStubDtypeName(p),
                            aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "Expected 1-D argument, but got %u-D.", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(y->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "Expected 1-D argument, but got %u-D.", y->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "Expected 2-D argument, but got %u-D.",
                            out->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != x->dims[0] || out->dims[1] != y->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                            "Expected sizes of out{%lld, %lld}should be equal to self * vec2 {%lld, %lld}",
                            (long long)out->dims[0], (long long)out->dims[1], (long long)x->dims[0],
                            (long long)y->dims[0]);
    if (aclStubNumel(x) == 0 || aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

ACLSTUB_EW_BINARY(ger_loops, ACLSTUB_EW_ALL, a * b)

static aclnnStatus ger_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, G_SELF), *y = aclStubOpTensor(call, G_VEC2),
                            *out = aclStubOpTensor(call, G_OUT);
    aclStubEwCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    return run_outer(call, &ger_loops, aclStubPromoteType(x->dtype, y->dtype), out, NULL, x, y, &ctx);
}

static const aclStubOpDef kGer = {"aclnnGer", kGerParams, ACLSTUB_LEN(kGerParams), NULL, ger_check, ger_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnGer, kGer, (const aclTensor *, self), (const aclTensor *, vec2), (aclTensor *, out))

/* ---- aclnnAddr, aclnnInplaceAddr ------------------------------------------------------------------------------ */

/*
 * out = beta * self + (alpha * vec1) (x) vec2 in promote(self, vec1, vec2): beta 0 ignores self, beta 1 (or
 * absent) adds self unscaled; alpha absent is 1. BOOL multiplies as AND and adds as OR.
 */
#define ADDR_DT                                                                                               \
    (ACLSTUB_DT(ACL_DOUBLE) | ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_INT32) |               \
     ACLSTUB_DT(ACL_INT16) | ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_UINT8) | ACLSTUB_DT(ACL_BOOL))

typedef struct {
    int self, vec1, vec2, beta, alpha, out;
} AddrRow;
static const AddrRow kAddrRow = {0, 1, 2, 3, 4, 5}, kInplaceAddrRow = {0, 1, 2, 3, 4, 0};

static const aclStubParam kAddrParams[] = {
    {.name = "self", .role = ACLSTUB_INPUT, .dtypes = ADDR_DT},
    {.name = "vec1", .role = ACLSTUB_INPUT, .dtypes = ADDR_DT},
    {.name = "vec2", .role = ACLSTUB_INPUT, .dtypes = ADDR_DT},
    {.name = "betaOptional", .role = ACLSTUB_SCALAR, .flags = ACLSTUB_NULLABLE},
    {.name = "alphaOptional", .role = ACLSTUB_SCALAR, .flags = ACLSTUB_NULLABLE},
    {.name = "out", .role = ACLSTUB_OUTPUT, .dtypes = ADDR_DT, .flags = ACLSTUB_ANY_LAYOUT},
};
static const aclStubParam kInplaceAddrParams[] = {
    {.name = "selfRef", .role = ACLSTUB_INPLACE, .dtypes = ADDR_DT, .flags = ACLSTUB_ANY_LAYOUT},
    {.name = "vec1", .role = ACLSTUB_INPUT, .dtypes = ADDR_DT},
    {.name = "vec2", .role = ACLSTUB_INPUT, .dtypes = ADDR_DT},
    {.name = "betaOptional", .role = ACLSTUB_SCALAR, .flags = ACLSTUB_NULLABLE},
    {.name = "alphaOptional", .role = ACLSTUB_SCALAR, .flags = ACLSTUB_NULLABLE},
};

static aclDataType addr_high(const aclStubTensorDesc *s, const aclStubTensorDesc *v1, const aclStubTensorDesc *v2) {
    return aclStubPromoteType(s->dtype, aclStubPromoteType(v2->dtype, v1->dtype));
}

static aclnnStatus addr_check(aclStubOpCall *call) {
    const AddrRow *row = aclStubFamilyRow(call);
    const aclStubTensorDesc *self = aclStubOpTensor(call, row->self), *v1 = aclStubOpTensor(call, row->vec1),
                            *v2 = aclStubOpTensor(call, row->vec2), *out = aclStubOpTensor(call, row->out);
    char buf[256];
    bool all_int = aclStubIsIntegral(self->dtype, true) && aclStubIsIntegral(v1->dtype, true) &&
                   aclStubIsIntegral(v2->dtype, true);
    aclDataType high = addr_high(self, v1, v2);
    for (int i = row->beta; i <= row->alpha; i++) {
        if (!call->v[i].present) continue;
        aclDataType t = call->v[i].dtype;
        ACLSTUB_RETURN_ERROR_IF((unsigned)t >= 64 || !(ADDR_DT & ACLSTUB_DT(t)), call, ACLNN_ERR_PARAM_INVALID,
                                "argument '%s' has data type %s; supported: %s", aclStubOpName(call, i),
                                aclStubDtypeName(t), aclStubDtypeSetName(ADDR_DT, buf, sizeof buf));
    }
    for (int i = row->beta; i <= row->alpha; i++) {
        if (!call->v[i].present) continue;
        aclDataType t = call->v[i].dtype;
        ACLSTUB_RETURN_ERROR_IF(high != ACL_BOOL && t == ACL_BOOL, call, ACLNN_ERR_PARAM_INVALID,
                                "Boolean %s only supported for Boolean results.", i == row->beta ? "beta" : "alpha");
    }
    for (int i = row->beta; i <= row->alpha; i++) {
        if (!call->v[i].present) continue;
        ACLSTUB_RETURN_ERROR_IF(all_int && !aclStubIsIntegral(call->v[i].dtype, true), call, ACLNN_ERR_PARAM_INVALID,
                                "For integral input tensors, argument %s must not be a floating point number",
                                i == row->beta ? "beta" : "alpha");
    }
    ACLSTUB_RETURN_ERROR_IF(v1->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "vec1 must be 1-D, got %s", shp(0, v1));
    ACLSTUB_RETURN_ERROR_IF(v2->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "vec2 must be 1-D, got %s", shp(0, v2));
    ACLSTUB_RETURN_ERROR_IF(self->ndim > 2, call, ACLNN_ERR_PARAM_INVALID, "self must have at most 2 dimensions, got %s",
                            shp(0, self));
    bool inplace = row->out == row->self;
    ACLSTUB_RETURN_ERROR_IF(inplace && self->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "selfRef must be 2-D, got %s",
                            shp(0, self));
    int64_t outer[2] = {v1->dims[0], v2->dims[0]}, b[ACLSTUB_MAX_DIMS];
    uint32_t nb = self->ndim;
    memcpy(b, self->dims, sizeof(int64_t) * self->ndim);
    ACLSTUB_RETURN_ERROR_IF(!inplace && !aclStubBroadcastShape(self->dims, self->ndim, outer, 2, b, &nb), call,
                            ACLNN_ERR_PARAM_INVALID, "the size of tensor self %s must match the size of tensor outer "
                            "[%lld, %lld].", shp(0, self), (long long)outer[0], (long long)outer[1]);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(b, nb, outer, 2), call, ACLNN_ERR_PARAM_INVALID,
                            "size mismatch, input: %s, v1: %s, v2: %s", aclStubShapeText(b, nb, buf, sizeof buf),
                            shp(0, v1), shp(1, v2));
    /* empty vectors: nothing is computed and out is not looked at */
    if (v1->dims[0] == 0 || v2->dims[0] == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, outer, 2), call, ACLNN_ERR_PARAM_INVALID,
                            "out's shape %s must be [%lld, %lld]", shp(0, out), (long long)outer[0], (long long)outer[1]);
    return OK;
}

/* a: self, b: vec1 (a column), c: vec2 (a row); s0 alpha, s1 beta; i2: 0 ignore self, 1 add self, 2 beta * self */
ACLSTUB_EW_TERNARY(addr_loops, ACLSTUB_EW_NUMBERS,
                   i2 == 0 ? (s0 * b) * c : i2 == 1 ? a + (s0 * b) * c : a * s1 + (s0 * b) * c)

static aclnnStatus addr_kernel(const aclStubOpCall *call) {
    const AddrRow *row = aclStubFamilyRow(call);
    const aclStubTensorDesc *self = aclStubOpTensor(call, row->self), *v1 = aclStubOpTensor(call, row->vec1),
                            *v2 = aclStubOpTensor(call, row->vec2), *out = aclStubOpTensor(call, row->out);
    aclStubEwCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.f[0] = 1.0, ctx.i[0] = 1;
    if (call->v[row->alpha].present) {
        ctx.f[0] = aclStubOpScalarF64(call, row->alpha);
        ctx.i[0] = aclStubOpScalarI64(call, row->alpha);
    }
    ctx.i[2] = 1;
    if (call->v[row->beta].present) {
        ctx.f[1] = aclStubOpScalarF64(call, row->beta);
        ctx.i[1] = aclStubOpScalarI64(call, row->beta);
        float bf = (float)ctx.f[1];
        ctx.i[2] = bf == 0.0f ? 0 : bf == 1.0f ? 1 : 2;
    }
    /* the ternary loops read self even when it is ignored: give them a broadcast element of it */
    return run_outer(call, &addr_loops, addr_high(self, v1, v2), out, self, v1, v2, &ctx);
}

static const aclStubFamilyOp kAddr = {
    {"aclnnAddr", kAddrParams, ACLSTUB_LEN(kAddrParams), NULL, addr_check, addr_kernel, 0}, &kAddrRow};
static const aclStubFamilyOp kInplaceAddr = {
    {"aclnnInplaceAddr", kInplaceAddrParams, ACLSTUB_LEN(kInplaceAddrParams), NULL, addr_check, addr_kernel, 0},
    &kInplaceAddrRow};
ACLSTUB_DEFINE_OP(aclnnAddr, kAddr.def, (const aclTensor *, self), (const aclTensor *, vec1), (const aclTensor *, vec2),
                  (const aclScalar *, betaOptional), (const aclScalar *, alphaOptional), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceAddr, kInplaceAddr.def, (aclTensor *, selfRef), (const aclTensor *, vec1),
                  (const aclTensor *, vec2), (const aclScalar *, betaOptional), (const aclScalar *, alphaOptional))
