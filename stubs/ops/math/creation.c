/*
 * Creation operators of ops-math math/: aclnnArange, aclnnRange, aclnnLinspace, aclnnLogSpace, aclnnEye,
 * aclnnInplaceOne (aclnnInplaceZero is movement.c's strided fill). Every element of the output, in row-major order, gets a value of its flat
 * index i:
 *   arange/range  start + i * step, in int64 for an INT64 output, else in float64, then cast to out's dtype;
 *   linspace      start + i * step for i < steps / 2, else end - (steps - 1 - i) * step, step = (end - start) /
 *                 (steps - 1), in float64 for DOUBLE and integer outputs, else in float32;
 *   logspace      base ^ linspace(start, end, steps), in float32 (pow computed in float64, rounded once);
 *   eye           1 on the diagonal, 0 elsewhere.
 */
#include <math.h>
#include <stdlib.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_eye.h"
#include "aclnnop/aclnn_linspace.h"
#include "aclnnop/aclnn_logspace.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_range.h"
#include "aclnnop/aclnn_zero.h"

#define DT ACLSTUB_DT

typedef enum { G_ARANGE, G_LINSPACE, G_LOGSPACE, G_EYE, G_FILL } Gen;

typedef struct {
    Gen gen;
    int out;
    double start, end, step, base, value;
    int64_t istart, istep, steps, m;
    bool int64_math, f32_math;
} Plan;

/* values [i0, i0 + n) of the flat output into buf (as doubles, or int64 when int64_math) */
static void generate(const Plan *p, int64_t i0, int64_t n, void *buf) {
    double *d = buf;
    float f[2048];
    switch (p->gen) {
    case G_ARANGE:
        if (p->int64_math)
            for (int64_t j = 0; j < n; j++) ((int64_t *)buf)[j] = p->istart + (i0 + j) * p->istep;
        else
            for (int64_t j = 0; j < n; j++) d[j] = p->start + (double)(i0 + j) * p->step;
        break;
    case G_LINSPACE:
    case G_LOGSPACE: {
        int64_t half = p->steps / 2;
        if (p->f32_math) {
            float s = (float)p->start, e = (float)p->end, st = (e - s) / (float)(p->steps - 1);
            for (int64_t j = 0; j < n; j++) {
                int64_t i = i0 + j;
                f[j] = i < half ? s + (float)i * st : e - (float)(p->steps - 1 - i) * st;
            }
            if (p->gen == G_LOGSPACE)
                for (int64_t j = 0; j < n; j++) f[j] = (float)pow((double)(float)p->base, (double)f[j]);
            for (int64_t j = 0; j < n; j++) d[j] = f[j];
        } else {
            double st = (p->end - p->start) / (double)(p->steps - 1);
            for (int64_t j = 0; j < n; j++) {
                int64_t i = i0 + j;
                d[j] = i < half ? p->start + (double)i * st : p->end - (double)(p->steps - 1 - i) * st;
            }
        }
        break;
    }
    case G_EYE:
        for (int64_t j = 0; j < n; j++) d[j] = (i0 + j) / p->m == (i0 + j) % p->m ? 1.0 : 0.0;
        break;
    case G_FILL:
        for (int64_t j = 0; j < n; j++) d[j] = p->value;
        break;
    }
}

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *out;
    char *base;
    int failed;
} Job;

#define BLOCK 2048
static void fill_range(void *arg, int64_t begin, int64_t end) {
    Job *job = arg;
    double buf[BLOCK];
    aclDataType st = job->p->int64_math ? ACL_INT64 : ACL_DOUBLE;
    int64_t esize = (int64_t)aclDataTypeSize(job->out->dtype);
    for (int64_t i = begin; i < end; i += BLOCK) {
        int64_t m = end - i < BLOCK ? end - i : BLOCK;
        generate(job->p, i, m, buf);
        if (!aclStubCastStrided(job->base + i * esize, esize, job->out->dtype, buf, 8, st, m))
            __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    }
}

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->dims[d];
    }
    return true;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    const aclStubTensorDesc *out = call->v[p->out].tensor;
    int64_t n = aclStubNumel(out);
    if (n == 0) return OK;
    if (p->gen == G_FILL) return aclStubFill(call, out, p->value);
    aclStubTensorDesc flat = *out;
    if (!contiguous(out)) { /* generate into a contiguous copy, then copy it in */
        flat.offset = 0;
        flat.data = aclStubKernelScratch(call, (size_t)n * aclDataTypeSize(out->dtype));
        if (flat.data == NULL) return aclStubKernelOutOfMemory(call);
        int64_t s = 1;
        for (uint32_t d = out->ndim; d-- > 0;) {
            flat.strides[d] = s;
            s *= out->dims[d];
        }
    }
    Job job = {p, &flat, (char *)flat.data + flat.offset * (int64_t)aclDataTypeSize(flat.dtype), 0};
    aclStubParallelFor(n, 65536, fill_range, &job);
    if (job.failed) return aclStubKernelFail(call, ACLNN_ERR_INNER, "cannot write %s", aclStubDtypeName(out->dtype));
    return flat.data == out->data ? OK : aclStubCopy(call, out, &flat);
}

/* ---- aclnnArange, aclnnRange ------------------------------------------------------------------------------------ */

/* the 910B lists of aclnn_arange.cpp / aclnn_range.cpp */
#define RANGE_IN_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
#define RANGE_OUT_DT (ACLSTUB_DT_REALS | DT(ACL_INT64) | DT(ACL_INT32))
enum { AR_START, AR_END, AR_STEP, AR_OUT };

static aclnnStatus scalar_in(aclStubOpCall *call, int i, uint64_t set) {
    aclDataType t = call->v[i].dtype;
    if ((unsigned)t < 64 && (set & DT(t))) return OK;
    char buf[256];
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Tensor %s not implemented for %s, should be in dtype support "
                         "list [%s]", call->op->params[i].name, aclStubDtypeName(t),
                         aclStubDtypeSetName(set, buf, sizeof buf));
}

static aclnnStatus range_check(aclStubOpCall *call) {
    for (int i = AR_START; i <= AR_STEP; i++) ACLSTUB_TRY(scalar_in(call, i, RANGE_IN_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AR_OUT, RANGE_OUT_DT));
    aclDataType ot = call->v[AR_OUT].tensor->dtype;
    Plan *p = call->plan;
    p->gen = G_ARANGE;
    p->out = AR_OUT;
    bool bad;
    if (ot == ACL_INT64 || ot == ACL_INT32) {
        int64_t s = aclStubOpScalarI64(call, AR_START), e = aclStubOpScalarI64(call, AR_END),
                st = aclStubOpScalarI64(call, AR_STEP);
        bad = st == 0 || (st > 0 && s > e) || (st < 0 && s < e);
    } else if (ot == ACL_DOUBLE) {
        double s = aclStubOpScalarF64(call, AR_START), e = aclStubOpScalarF64(call, AR_END),
               st = aclStubOpScalarF64(call, AR_STEP);
        bad = !(st > 0 || st < 0) || (st > 0 && s > e) || (st < 0 && s < e);
    } else {
        float s = (float)aclStubOpScalarF64(call, AR_START), e = (float)aclStubOpScalarF64(call, AR_END),
              st = (float)aclStubOpScalarF64(call, AR_STEP);
        bad = !(st > 0 || st < 0) || (st > 0 && s > e) || (st < 0 && s < e);
    }
    ACLSTUB_RETURN_ERROR_IF(bad, call, ACLNN_ERR_PARAM_INVALID,
                            "upper bound and lower bound inconsistent with step sign. start:%g, end:%g, step:%g",
                            aclStubOpScalarF64(call, AR_START), aclStubOpScalarF64(call, AR_END),
                            aclStubOpScalarF64(call, AR_STEP));
    p->int64_math = ot == ACL_INT64;
    p->istart = aclStubOpScalarI64(call, AR_START);
    p->istep = aclStubOpScalarI64(call, AR_STEP);
    p->start = aclStubOpScalarF64(call, AR_START);
    p->step = aclStubOpScalarF64(call, AR_STEP);
    if (aclStubNumel(call->v[AR_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnArange, range_check, kernel, sizeof(Plan), (const aclScalar *, start),
                      (const aclScalar *, end), (const aclScalar *, step), (aclTensor *, out))
ACLSTUB_OP_FROM_PROTO(aclnnRange, range_check, kernel, sizeof(Plan), (const aclScalar *, start),
                      (const aclScalar *, end), (const aclScalar *, step), (aclTensor *, out))

/* ---- aclnnLinspace, aclnnLogSpace ------------------------------------------------------------------------------ */

/* ASCEND910B_DTYPE_SUPPORT_LIST of aclnn_linspace.cpp */
#define LINSPACE_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS)
enum { LI_START, LI_END, LI_STEPS, LI_OUT };
/* aclnn_linspace.cpp: its NULL checks answer ACLNN_ERR_INNER_NULLPTR; scalars' dtypes, then out's */
static aclnnStatus linspace_check(aclStubOpCall *call) {
    const aclStubTensorDesc *out = call->v[LI_OUT].tensor;
    for (int i = LI_START; i <= LI_OUT; i++) {
        if (i == LI_STEPS) continue;
        bool null = i == LI_OUT ? out == NULL : !call->v[i].present;
        ACLSTUB_RETURN_ERROR_IF(null, call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL", call->op->params[i].name);
    }
    for (int i = LI_START; i <= LI_END; i++)
        ACLSTUB_RETURN_ERROR_IF(aclStubIsComplex(call->v[i].dtype), call, ACLNN_ERR_PARAM_INVALID,
                                "%s must not be complex", call->op->params[i].name);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, LI_OUT, LINSPACE_DT));
    int64_t steps = call->v[LI_STEPS].i;
    ACLSTUB_RETURN_ERROR_IF(steps < 0, call, ACLNN_ERR_PARAM_INVALID, "steps must be non-negative, got %lld",
                            (long long)steps);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) != steps, call, ACLNN_ERR_PARAM_INVALID,
                            "out holds %lld elements but steps is %lld", (long long)aclStubNumel(out),
                            (long long)steps);
    Plan *p = call->plan;
    p->out = LI_OUT;
    p->start = aclStubOpScalarF64(call, LI_START);
    p->end = aclStubOpScalarF64(call, LI_END);
    p->steps = steps;
    if (steps == 0) return aclStubOpNothingToDo(call);
    if (steps == 1) {
        p->gen = G_FILL;
        p->value = p->start;
        return OK;
    }
    p->gen = G_LINSPACE;
    p->f32_math = out->dtype == ACL_FLOAT || out->dtype == ACL_FLOAT16 || out->dtype == ACL_BF16;
    return OK;
}
static const aclStubParam linspace_params[] = {
    {"start", ACLSTUB_SCALAR, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    {"end", ACLSTUB_SCALAR, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    {"steps", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"out", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef linspace_def = {"aclnnLinspace", linspace_params, 4, NULL, linspace_check, kernel,
                                          sizeof(Plan)};
ACLSTUB_DEFINE_OP(aclnnLinspace, linspace_def, (const aclScalar *, start), (const aclScalar *, end), (int64_t, steps),
                  (aclTensor *, out))

/* aclnn_logspace.cpp: its NULL checks answer ACLNN_ERR_INNER_NULLPTR; result (declared const) is written */
enum { LO_START, LO_END, LO_STEPS, LO_BASE, LO_RESULT };
static aclnnStatus logspace_check(aclStubOpCall *call) {
    for (int i = LO_START; i <= LO_RESULT; i++) {
        if (i == LO_STEPS || i == LO_BASE) continue;
        bool null = i == LO_RESULT ? call->v[i].tensor == NULL : !call->v[i].present;
        ACLSTUB_RETURN_ERROR_IF(null, call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL",
                                call->op->params[i].name);
    }
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, LO_RESULT, ACLSTUB_DT_FLOATS));
    int64_t steps = call->v[LO_STEPS].i;
    ACLSTUB_RETURN_ERROR_IF(steps < 0, call, ACLNN_ERR_PARAM_INVALID, "steps must be non-negative, got %lld",
                            (long long)steps);
    if (steps == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(call->v[LO_RESULT].tensor) != steps, call, ACLNN_ERR_PARAM_INVALID,
                            "result holds %lld elements but steps is %lld",
                            (long long)aclStubNumel(call->v[LO_RESULT].tensor), (long long)steps);
    Plan *p = call->plan;
    p->out = LO_RESULT;
    p->gen = G_LOGSPACE;
    p->f32_math = true;
    p->start = aclStubOpScalarF64(call, LO_START);
    p->end = aclStubOpScalarF64(call, LO_END);
    p->steps = steps;
    p->base = call->v[LO_BASE].f;
    if (steps == 1) { /* base ^ start */
        p->gen = G_FILL;
        p->value = (float)pow((double)(float)p->base, (double)(float)p->start);
    }
    return OK;
}
static const aclStubParam logspace_params[] = {
    {"start", ACLSTUB_SCALAR, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    {"end", ACLSTUB_SCALAR, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    {"steps", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"base", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    {"result", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef logspace_def = {"aclnnLogSpace", logspace_params, 5, NULL, logspace_check, kernel,
                                          sizeof(Plan)};
ACLSTUB_DEFINE_OP(aclnnLogSpace, logspace_def, (const aclScalar *, start), (const aclScalar *, end),
                  (int64_t, steps), (double, base), (const aclTensor *, result))

/* ---- aclnnEye -------------------------------------------------------------------------------------------------- */

#define EYE_DT (DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_FLOAT16) | DT(ACL_INT8) | DT(ACL_INT16) | DT(ACL_UINT8) | \
                DT(ACL_INT64) | DT(ACL_BOOL) | DT(ACL_BF16))
enum { EY_N, EY_M, EY_OUT };
static aclnnStatus eye_check(aclStubOpCall *call) {
    const aclStubTensorDesc *out = call->v[EY_OUT].tensor;
    int64_t n = call->v[EY_N].i, m = call->v[EY_M].i;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, EY_OUT, EYE_DT));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || n < 0 || m < 0 || out->dims[0] != n || out->dims[1] != m, call,
                            ACLNN_ERR_PARAM_INVALID, "Expected out shape to be (%lld, %lld)", (long long)n,
                            (long long)m);
    if (n == 0 || m == 0) return aclStubOpNothingToDo(call);
    Plan *p = call->plan;
    p->out = EY_OUT;
    p->gen = G_EYE;
    p->m = m;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnEye, eye_check, kernel, sizeof(Plan), (int64_t, n), (int64_t, m), (aclTensor *, out))

/* ---- aclnnInplaceOne ------------------------------------------------------------------------------------ */

#define ONE_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
static aclnnStatus one_check(aclStubOpCall *call) {
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, 0, ONE_DT));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, 0, 8));
    if (aclStubNumel(call->v[0].tensor) == 0) return aclStubOpNothingToDo(call);
    Plan *p = call->plan;
    p->out = 0;
    p->gen = G_FILL;
    p->value = 1.0;
    return OK;
}
static const aclStubParam fill_params[] = {{"selfRef", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef one_def = {"aclnnInplaceOne", fill_params, 1, NULL, one_check, kernel, sizeof(Plan)};
ACLSTUB_DEFINE_OP(aclnnInplaceOne, one_def, (const aclTensor *, selfRef))
