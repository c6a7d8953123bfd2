/*
 * ops-math conversion/clip_by_value_v2: aclnnClamp, ClampMin, ClampMax, InplaceClampMax (scalar bounds),
 * ClampTensor, ClampMinTensor, ClampMaxTensor and their in-place variants (tensor bounds, broadcast), aclnnHardtanh
 * and aclnnInplaceHardtanh, as the op_api builds them for Atlas A2/A3 (ClipByValueV2 on one dtype):
 *
 *   scalar bounds:   computed in out's dtype: self cast to it (CanCast), each bound converted to it, a missing
 *                    bound is no bound (the op_api's +-inf or the type's limits); self and out of one shape;
 *   tensor bounds:   computed in PromoteType(self, min, max), which must be in the support list and cast to out;
 *                    self, min and max broadcast to out's shape; any empty operand is nothing to do;
 *   hardtanh:        out has self's dtype; the bounds converted to it; min <= max (compared as the min's kind).
 *
 * y = min(max(x, lo), hi): a bound above the other gives hi; a NaN in x or a bound gives NaN (the kernel's
 * rule). 16-bit floats compute exactly in float32 (results are one of the operands).
 */
#include <math.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_hardtanh.h"

#define MAX_DIM 8
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID

/* Atlas A2/A3 (DAV_2201) */
#define CLAMP_DT                                                                                             \
    (DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_INT16) | DT(ACL_INT8) |          \
     DT(ACL_UINT8) | DT(ACL_DOUBLE) | DT(ACL_BF16))

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OPT_IN(name) {name, ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define INPLACE(name) {name, ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define SCALAR(name) {name, ACLSTUB_SCALAR, 0, NULL, 0, 0, 0}
#define OPT_SCALAR(name) {name, ACLSTUB_SCALAR, 0, NULL, ACLSTUB_NULLABLE, 0, 0}

/* Where an operator's operands are: parameter indices (-1: none). */
typedef struct {
    int self, lo, hi, out;
} ClampLayout;

typedef struct {
    aclDataType compute;
    bool has_lo, has_hi;
    aclStubScalarDesc lo, hi; /* scalar bounds in the compute dtype */
} ClampPlan;

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* ---- the loop ---------------------------------------------------------------------------------------------- */

typedef struct {
    bool has_lo, has_hi;
} ClampCtx;

/*
 * One element: a NaN bound gives itself, else the bound the element passes (a NaN element stays NaN: both compares
 * are false). Selects, not branches: the contiguous loops below vectorise (random data mispredicted the branches
 * of the strided loop at tens of cycles an element). For integers the NaN tests fold away.
 */
#define CLAMP_ONE(x, lo, hi, HL, HH)                                                                         \
    do {                                                                                                     \
        if (HL) x = (lo) != (lo) ? (lo) : (x < (lo) ? (lo) : x);                                             \
        if (HH) x = (hi) != (hi) ? (hi) : (x > (hi) ? (hi) : x);                                             \
    } while (0)

/* Contiguous self and out; each bound a scalar (LS, HS 0) or contiguous (1): constants after inlining. */
#define DEFINE_LOOP(NAME, T)                                                                                 \
    static inline __attribute__((always_inline)) void NAME##_contig(T *o, const T *x, const T *lo, int64_t LS, \
                                                                    const T *hi, int64_t HS, int64_t n,      \
                                                                    bool HL, bool HH) {                      \
        for (int64_t i = 0; i < n; i++) {                                                                    \
            T v = x[i];                                                                                      \
            T l = HL ? lo[i * LS] : (T)0, h = HH ? hi[i * HS] : (T)0;                                         \
            CLAMP_ONE(v, l, h, HL, HH);                                                                      \
            o[i] = v;                                                                                        \
        }                                                                                                    \
    }                                                                                                        \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *ctx) {                               \
        const ClampCtx *c = ctx;                                                                             \
        const bool hl = c->has_lo, hh = c->has_hi;                                                           \
        const int64_t z = (int64_t)sizeof(T);                                                                \
        if (s[0] == z && s[1] == z && (!hl || s[2] == 0 || s[2] == z) && (!hh || s[3] == 0 || s[3] == z)) {  \
            T *o = (T *)(void *)d[0];                                                                        \
            const T *x = (const T *)(const void *)d[1], *lo = (const T *)(const void *)d[2],                 \
                    *hi = (const T *)(const void *)d[3];                                                     \
            int ls = hl && s[2] == z, hs = hh && s[3] == z;                                                  \
            switch ((hl ? 8 : 0) | (hh ? 4 : 0) | (ls ? 2 : 0) | (hs ? 1 : 0)) {                             \
            case 8: NAME##_contig(o, x, lo, 0, hi, 0, n, true, false); return;                               \
            case 10: NAME##_contig(o, x, lo, 1, hi, 0, n, true, false); return;                              \
            case 4: NAME##_contig(o, x, lo, 0, hi, 0, n, false, true); return;                               \
            case 5: NAME##_contig(o, x, lo, 0, hi, 1, n, false, true); return;                               \
            case 12: NAME##_contig(o, x, lo, 0, hi, 0, n, true, true); return;                               \
            case 13: NAME##_contig(o, x, lo, 0, hi, 1, n, true, true); return;                               \
            case 14: NAME##_contig(o, x, lo, 1, hi, 0, n, true, true); return;                               \
            case 15: NAME##_contig(o, x, lo, 1, hi, 1, n, true, true); return;                               \
            default: break;                                                                                  \
            }                                                                                                \
        }                                                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                                    \
            T v = *(const T *)(const void *)(d[1] + i * s[1]);                                               \
            T l = hl ? *(const T *)(const void *)(d[2] + i * s[2]) : (T)0;                                   \
            T h = hh ? *(const T *)(const void *)(d[3] + i * s[3]) : (T)0;                                   \
            CLAMP_ONE(v, l, h, hl, hh);                                                                      \
            *(T *)(void *)(d[0] + i * s[0]) = v;                                                             \
        }                                                                                                    \
    }
DEFINE_LOOP(clamp_f32, float)
DEFINE_LOOP(clamp_f64, double)
DEFINE_LOOP(clamp_i8, int8_t)
DEFINE_LOOP(clamp_i16, int16_t)
DEFINE_LOOP(clamp_i32, int32_t)
DEFINE_LOOP(clamp_i64, int64_t)
DEFINE_LOOP(clamp_u8, uint8_t)

/* The loop of a compute dtype and the dtype it reads (16-bit floats run the float32 loop). */
static aclStubLoopFn loop_of(aclDataType dt, aclDataType *loop_dtype) {
    *loop_dtype = dt;
    switch (dt) {
    case ACL_FLOAT16:
    case ACL_BF16:
        *loop_dtype = ACL_FLOAT;
        return clamp_f32;
    case ACL_FLOAT: return clamp_f32;
    case ACL_DOUBLE: return clamp_f64;
    case ACL_INT8: return clamp_i8;
    case ACL_INT16: return clamp_i16;
    case ACL_INT32: return clamp_i32;
    case ACL_INT64: return clamp_i64;
    case ACL_UINT8: return clamp_u8;
    default: return NULL;
    }
}

/* A scalar converted to dt as the op_api's ConvertToTensor does (the device's Cast of its value). */
static aclStubScalarDesc scalar_as(const aclStubValue *v, aclDataType dt) {
    aclStubScalarDesc s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    union { /* aligned copies: the conversions load and store whole elements */
        max_align_t align;
        unsigned char bytes[16];
    } in, out;
    memcpy(in.bytes, v->scalar, sizeof in.bytes);
    memset(out.bytes, 0, sizeof out.bytes);
    if (!aclStubCastStrided(out.bytes, 0, dt, in.bytes, 0, v->dtype, 1))
        aclStubStoreDouble(out.bytes, dt, aclStubScalarToDouble(v->dtype, v->scalar));
    memcpy(s.value, out.bytes, sizeof s.value);
    return s;
}

/* An input the kernel reads while writing out: itself, unless it overlaps out other than as the same view. */
static aclnnStatus apart(const aclStubOpCall *call, const aclStubTensorDesc *t, const aclStubTensorDesc *out,
                         aclStubTensorDesc *res) {
    bool same = t->data == out->data && t->offset == out->offset && t->ndim == out->ndim && t->dtype == out->dtype &&
                memcmp(t->dims, out->dims, t->ndim * sizeof(int64_t)) == 0 &&
                memcmp(t->strides, out->strides, t->ndim * sizeof(int64_t)) == 0;
    if (same || !aclStubViewsOverlap(t, out)) {
        *res = *t;
        return OK;
    }
    return aclStubInputApart(call, t, t->dtype, out, res);
}

static aclnnStatus clamp_kernel(const aclStubOpCall *call) {
    const ClampLayout *l = aclStubFamilyRow(call);
    const ClampPlan *p = call->plan;
    const aclStubTensorDesc *out = T(l->out);
    aclStubTensorDesc in[3];
    const aclStubTensorDesc *src[3] = {T(l->self), l->lo >= 0 ? T(l->lo) : NULL, l->hi >= 0 ? T(l->hi) : NULL};
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 3;
    it.tensor[0] = out;
    aclDataType loop_dtype;
    aclStubLoopFn fn = loop_of(p->compute, &loop_dtype);
    if (fn == NULL) return aclStubKernelFail(call, ACLNN_ERR_INNER, "no loop for %s", aclStubDtypeName(p->compute));
    bool narrow = loop_dtype != p->compute;
    it.loop_dtype[0] = loop_dtype;
    for (int k = 0; k < 3; k++) {
        it.loop_dtype[k + 1] = loop_dtype;
        if (src[k] != NULL && (k == 0 || (k == 1 ? p->has_lo : p->has_hi))) {
            ACLSTUB_TRY(apart(call, src[k], out, &in[k]));
            it.tensor[k + 1] = &in[k];
            if (narrow && in[k].dtype != p->compute) { /* the op_api's Cast to the 16-bit compute dtype */
                it.has_via[k + 1] = true;
                it.via[k + 1] = p->compute;
            }
        } else if (k > 0) {
            it.scalar[k + 1] = k == 1 ? p->lo : p->hi;
            if (!(k == 1 ? p->has_lo : p->has_hi)) it.scalar[k + 1].dtype = p->compute;
        }
    }
    ClampCtx ctx = {p->has_lo, p->has_hi};
    return aclStubIterRun(call, &it, fn, &ctx);
}

/* ---- scalar bounds: aclnnClamp, ClampMin, ClampMax, InplaceClampMax ------------------------------------------ */

static aclnnStatus clamp_scalar_check(aclStubOpCall *call) {
    const ClampLayout *l = aclStubFamilyRow(call);
    ClampPlan *p = call->plan;
    const aclStubTensorDesc *self = T(l->self), *out = T(l->out);
    p->has_lo = l->lo >= 0 && call->v[l->lo].present;
    p->has_hi = l->hi >= 0 && call->v[l->hi].present;
    if (!p->has_lo && !p->has_hi)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "clamp: At least one of 'min' or 'max' must not be None.");
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, CLAMP_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, CLAMP_DT));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    if (aclStubNumel(self) == 0) return nothing(call);
    if (!aclStubCanCast(self->dtype, out->dtype))
        return aclStubOpFail(call, INVALID, "self type %s can't be cast to the output type %s.",
                             aclStubDtypeName(self->dtype), aclStubDtypeName(out->dtype));
    p->compute = out->dtype;
    if (p->has_lo) p->lo = scalar_as(&call->v[l->lo], p->compute);
    if (p->has_hi) p->hi = scalar_as(&call->v[l->hi], p->compute);
    return OK;
}

/* ---- tensor bounds: aclnnClampTensor, ClampMinTensor, ClampMaxTensor and in-place variants ---------------- */

static aclnnStatus clamp_tensor_check(aclStubOpCall *call) {
    const ClampLayout *l = aclStubFamilyRow(call);
    ClampPlan *p = call->plan;
    const aclStubTensorDesc *self = T(l->self), *out = T(l->out);
    const aclStubTensorDesc *lo = l->lo >= 0 ? T(l->lo) : NULL, *hi = l->hi >= 0 ? T(l->hi) : NULL;
    p->has_lo = lo != NULL;
    p->has_hi = hi != NULL;
    if (lo == NULL && hi == NULL)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "clamp: At least one of 'min' or 'max' must not be None.");
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, CLAMP_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, CLAMP_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    if (lo != NULL) ACLSTUB_TRY(aclStubCheckMaxRank(call, "clipValueMin", lo, MAX_DIM));
    if (hi != NULL) ACLSTUB_TRY(aclStubCheckMaxRank(call, "clipValueMax", hi, MAX_DIM));
    if (aclStubNumel(self) == 0 || (lo != NULL && aclStubNumel(lo) == 0) || (hi != NULL && aclStubNumel(hi) == 0))
        return nothing(call);
    aclDataType promote = self->dtype;
    if (lo != NULL) promote = aclStubPromoteType(promote, lo->dtype);
    if (hi != NULL && (int)promote >= 0) promote = aclStubPromoteType(promote, hi->dtype);
    if ((int)promote < 0) return aclStubOpFail(call, INVALID, "promote type fail.");
    if (!aclStubCanCast(promote, out->dtype))
        return aclStubOpFail(call, INVALID, "Result type %s can't be cast to the desired output type %s.",
                             aclStubDtypeName(promote), aclStubDtypeName(out->dtype));
    if (!(CLAMP_DT & DT(promote)))
        return aclStubOpFail(call, INVALID, "promote dtype not implemented for %s.", aclStubDtypeName(promote));
    int64_t shape[ACLSTUB_MAX_DIMS], tmp[ACLSTUB_MAX_DIMS];
    uint32_t n = self->ndim, m;
    memcpy(shape, self->dims, n * sizeof(int64_t));
    char a[256], b[256];
    for (int k = 0; k < 2; k++) {
        const aclStubTensorDesc *t = k == 0 ? lo : hi;
        if (t == NULL) continue;
        if (!aclStubBroadcastShape(shape, n, t->dims, t->ndim, tmp, &m))
            return aclStubOpFail(call, INVALID, "the size of tensor %s %s must match the size of tensor %s %s.",
                                 k == 0 ? "self" : "self/min", aclStubShapeText(shape, n, a, sizeof a),
                                 k == 0 ? "min" : "max", aclStubShapeText(t->dims, t->ndim, b, sizeof b));
        memcpy(shape, tmp, m * sizeof(int64_t));
        n = m;
    }
    if (n != out->ndim || memcmp(shape, out->dims, n * sizeof(int64_t)) != 0)
        return aclStubOpFail(call, INVALID, "expected tensor for out to have same size as tensor for broadcast, but "
                             "%s does not equal %s.", aclStubShapeText(out->dims, out->ndim, a, sizeof a),
                             aclStubShapeText(shape, n, b, sizeof b));
    p->compute = promote;
    return OK;
}

/* ---- aclnnHardtanh, aclnnInplaceHardtanh ----------------------------------------------------------------------- */

static aclnnStatus hardtanh_check(aclStubOpCall *call) {
    const ClampLayout *l = aclStubFamilyRow(call);
    ClampPlan *p = call->plan;
    const aclStubTensorDesc *self = T(l->self), *out = T(l->out);
    const aclStubValue *lo = &call->v[l->lo], *hi = &call->v[l->hi];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, CLAMP_DT));
    if (!(CLAMP_DT & DT(lo->dtype)))
        return aclStubOpFail(call, INVALID, "clipValueMin dtype %s should be in dtype support list.",
                             aclStubDtypeName(lo->dtype));
    if (!(CLAMP_DT & DT(hi->dtype)))
        return aclStubOpFail(call, INVALID, "clipValueMax dtype %s should be in dtype support list.",
                             aclStubDtypeName(hi->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    if (aclStubIsIntegral(lo->dtype, true)) {
        int64_t a = aclStubScalarToInt64(lo->dtype, lo->scalar), b = aclStubScalarToInt64(hi->dtype, hi->scalar);
        if (a > b)
            return aclStubOpFail(call, INVALID, "min must less than max or equal to max, but min is %lld and max is "
                                 "%lld.", (long long)a, (long long)b);
    } else {
        double a = aclStubScalarToDouble(lo->dtype, lo->scalar), b = aclStubScalarToDouble(hi->dtype, hi->scalar);
        if (a > b)
            return aclStubOpFail(call, INVALID, "min must less than max or equal to max, but min is %f and max is %f.",
                                 a, b);
    }
    if (aclStubNumel(self) == 0) return nothing(call);
    p->compute = self->dtype;
    p->has_lo = p->has_hi = true;
    p->lo = scalar_as(lo, p->compute);
    p->hi = scalar_as(hi, p->compute);
    return OK;
}

/* ---- tables ------------------------------------------------------------------------------------------------ */

#define CLAMP_OP(NAME, PARAMS, CHECK, ...)                                                                   \
    static const ClampLayout NAME##_layout = {__VA_ARGS__};                                                  \
    static const aclStubFamilyOp NAME##_def = {                                                              \
        {#NAME, PARAMS, ACLSTUB_LEN(PARAMS), NULL, CHECK, clamp_kernel, sizeof(ClampPlan)}, &NAME##_layout};

static const aclStubParam kClampParams[] = {IN("self"), OPT_SCALAR("clipValueMin"), OPT_SCALAR("clipValueMax"),
                                            OUT("out")};
static const aclStubParam kClampMinParams[] = {IN("self"), SCALAR("clipValueMin"), OUT("out")};
static const aclStubParam kClampMaxParams[] = {IN("self"), SCALAR("clipValueMax"), OUT("out")};
static const aclStubParam kInplaceClampMaxParams[] = {INPLACE("selfRef"), SCALAR("clipValueMax")};
static const aclStubParam kClampTensorParams[] = {IN("self"), OPT_IN("clipValueMin"), OPT_IN("clipValueMax"),
                                                  OUT("out")};
static const aclStubParam kClampMinTensorParams[] = {IN("self"), IN("clipValueMin"), OUT("out")};
static const aclStubParam kInplaceClampMinTensorParams[] = {INPLACE("selfRef"), IN("clipValueMin")};
static const aclStubParam kClampMaxTensorParams[] = {IN("self"), IN("max"), OUT("out")};
static const aclStubParam kInplaceClampMaxTensorParams[] = {INPLACE("selfRef"), IN("max")};
static const aclStubParam kHardtanhParams[] = {IN("self"), SCALAR("clipValueMin"), SCALAR("clipValueMax"), OUT("out")};
static const aclStubParam kInplaceHardtanhParams[] = {INPLACE("selfRef"), SCALAR("clipValueMin"),
                                                      SCALAR("clipValueMax")};

CLAMP_OP(aclnnClamp, kClampParams, clamp_scalar_check, 0, 1, 2, 3)
CLAMP_OP(aclnnClampMin, kClampMinParams, clamp_scalar_check, 0, 1, -1, 2)
CLAMP_OP(aclnnClampMax, kClampMaxParams, clamp_scalar_check, 0, -1, 1, 2)
CLAMP_OP(aclnnInplaceClampMax, kInplaceClampMaxParams, clamp_scalar_check, 0, -1, 1, 0)
CLAMP_OP(aclnnClampTensor, kClampTensorParams, clamp_tensor_check, 0, 1, 2, 3)
CLAMP_OP(aclnnClampMinTensor, kClampMinTensorParams, clamp_tensor_check, 0, 1, -1, 2)
CLAMP_OP(aclnnInplaceClampMinTensor, kInplaceClampMinTensorParams, clamp_tensor_check, 0, 1, -1, 0)
CLAMP_OP(aclnnClampMaxTensor, kClampMaxTensorParams, clamp_tensor_check, 0, -1, 1, 2)
CLAMP_OP(aclnnInplaceClampMaxTensor, kInplaceClampMaxTensorParams, clamp_tensor_check, 0, -1, 1, 0)
CLAMP_OP(aclnnHardtanh, kHardtanhParams, hardtanh_check, 0, 1, 2, 3)
CLAMP_OP(aclnnInplaceHardtanh, kInplaceHardtanhParams, hardtanh_check, 0, 1, 2, 0)

ACLSTUB_DEFINE_OP(aclnnClamp, aclnnClamp_def.def, (const aclTensor *, self), (const aclScalar *, clipValueMin),
                  (const aclScalar *, clipValueMax), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnClampMin, aclnnClampMin_def.def, (const aclTensor *, self), (const aclScalar *, clipValueMin),
                  (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnClampMax, aclnnClampMax_def.def, (const aclTensor *, self), (const aclScalar *, clipValueMax),
                  (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceClampMax, aclnnInplaceClampMax_def.def, (const aclTensor *, selfRef),
                  (const aclScalar *, clipValueMax))
ACLSTUB_DEFINE_OP(aclnnClampTensor, aclnnClampTensor_def.def, (const aclTensor *, self),
                  (const aclTensor *, clipValueMin), (const aclTensor *, clipValueMax), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnClampMinTensor, aclnnClampMinTensor_def.def, (const aclTensor *, self),
                  (const aclTensor *, clipValueMin), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceClampMinTensor, aclnnInplaceClampMinTensor_def.def, (aclTensor *, selfRef),
                  (const aclTensor *, clipValueMin))
ACLSTUB_DEFINE_OP(aclnnClampMaxTensor, aclnnClampMaxTensor_def.def, (const aclTensor *, self), (const aclTensor *, max),
                  (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceClampMaxTensor, aclnnInplaceClampMaxTensor_def.def, (aclTensor *, selfRef),
                  (const aclTensor *, max))
ACLSTUB_DEFINE_OP(aclnnHardtanh, aclnnHardtanh_def.def, (const aclTensor *, self), (const aclScalar *, clipValueMin),
                  (const aclScalar *, clipValueMax), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceHardtanh, aclnnInplaceHardtanh_def.def, (aclTensor *, selfRef),
                  (const aclScalar *, clipValueMin), (const aclScalar *, clipValueMax))
