/*
 * Matrix products of ops-nn matmul/ (mat_mul_v3, batch_mat_mul_v3, mv, addmv): aclnnMatmul, aclnnMm,
 * aclnnBatchMatMul, aclnnAddmm, aclnnBaddbmm, aclnnAddbmm (with their in-place variants), aclnnMv, aclnnAddmv,
 * on the matmul engine (aclstub/op_matmul.h).
 *
 * Every operator follows its op_api's checks in order; the computation type comes from the cube's dtype table
 * and cubeMathType (aclStubMmComputeFor), the product is rounded once to its result type, and an addition
 * (beta * self + alpha * product) is computed in float32 and rounded once to out's dtype.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_addbmm.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_addmv.h"
#include "aclnnop/aclnn_baddbmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_gemm.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mv.h"
#include "aclnnop/aclnn_transpose_batch_mat_mul.h"
#include "aclstub/op_matmul.h"
#include "aclstub/op_nz.h"

#define FLT ACLSTUB_DT_FLOATS
#define OUT_ANY ACLSTUB_ANY_LAYOUT /* outputs are written through their strides (the op_api's ViewCopy) */

static char shape_buf[2][160];
static const char *shp(int k, const aclStubTensorDesc *t) {
    return aclStubShapeText(t->dims, t->ndim, shape_buf[k & 1], sizeof shape_buf[0]);
}

/* ND-like formats (the op_api refuses the NZ ones) */
static bool sdk_nd(const aclStubTensorDesc *t) {
    return t->format == ACL_FORMAT_ND || t->format == ACL_FORMAT_NCHW || t->format == ACL_FORMAT_NHWC ||
           t->format == ACL_FORMAT_NCDHW || t->format == ACL_FORMAT_NCL;
}

static bool float_is(float v, float x) { return fabsf(v - x) <= 1.1920929e-07f; } /* the op_api's epsilon test */
static float scalar_f32(const aclStubOpCall *call, int i) { return (float)aclStubOpScalarF64(call, i); }

/* The cube's dtype check (Dav2201MatMulRule::CheckInput): dtypes come from the tables; cubeMathType here. */
static aclnnStatus check_cube(const aclStubOpCall *call, int cmt_param) {
    return aclStubMmCheckCubeMathType(call, (int)(int8_t)aclStubOpInt(call, cmt_param));
}

/* The product a @ b of two views with batch dims broadcast (Matmul's shape rules); 1-D a is a row, 1-D b a column. */
typedef struct {
    int nbatch;
    int64_t batch[ACLSTUB_MM_MAX_BATCH];
    int64_t m, k, n;
    int64_t shape[ACLSTUB_MM_MAX_BATCH + 2];
    int rank;
} Shape;

static bool product_shape(const aclStubTensorDesc *a, const aclStubTensorDesc *b, Shape *s) {
    memset(s, 0, sizeof *s);
    int na = (int)a->ndim, nb = (int)b->ndim;
    s->m = na >= 2 ? a->dims[na - 2] : 1;
    s->k = a->dims[na - 1];
    s->n = nb >= 2 ? b->dims[nb - 1] : 1;
    int ba = na > 2 ? na - 2 : 0, bb = nb > 2 ? nb - 2 : 0;
    uint32_t nout = 0;
    if (!aclStubBroadcastShape(a->dims, (uint32_t)ba, b->dims, (uint32_t)bb, s->batch, &nout)) return false;
    s->nbatch = (int)nout;
    for (int d = 0; d < s->nbatch; d++) s->shape[s->rank++] = s->batch[d];
    if (na >= 2) s->shape[s->rank++] = s->m;
    if (nb >= 2) s->shape[s->rank++] = s->n;
    return true;
}

static int64_t shape_numel(const int64_t *dims, int n) {
    int64_t v = 1;
    for (int i = 0; i < n; i++) v *= dims[i] > 0 ? dims[i] : 0;
    return v;
}

static bool is_contiguous(const aclStubTensorDesc *t) {
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->dims[d];
    }
    return true;
}

/* A contiguous view of `data` (offset in elements) with the given dims. */
static aclStubTensorDesc contiguous_view(aclDataType dtype, void *data, int64_t offset, const int64_t *dims, int rank) {
    aclStubTensorDesc t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.format = ACL_FORMAT_ND;
    t.ndim = (uint32_t)rank;
    t.offset = offset;
    t.data = data;
    int64_t s = 1;
    for (int d = rank; d-- > 0;) {
        t.dims[d] = dims[d];
        t.strides[d] = s;
        s *= dims[d] > 0 ? dims[d] : 1;
    }
    return t;
}

/* Fills the engine's description of a @ b into out (out has the product's shape: batch, m, n). */
static void describe(aclStubMatmul *mm, const Shape *s, const aclStubTensorDesc *a, const aclStubTensorDesc *b,
                     const aclStubTensorDesc *out, aclStubMmCompute compute, aclDataType result) {
    memset(mm, 0, sizeof *mm);
    mm->nbatch = s->nbatch;
    memcpy(mm->batch, s->batch, sizeof s->batch);
    mm->m = s->m, mm->n = s->n, mm->k = s->k;
    mm->a = aclStubMatOfView(a, s->nbatch, s->batch, false, true);
    mm->b = aclStubMatOfView(b, s->nbatch, s->batch, false, false);
    /* out: the product's dims (batch, m, n) with m or n dropped for 1-D operands */
    aclStubTensorDesc o = *out;
    int64_t dims[ACLSTUB_MM_MAX_BATCH + 2], strides[ACLSTUB_MM_MAX_BATCH + 2];
    int r = 0, src = 0;
    for (int d = 0; d < s->nbatch; d++, src++) dims[r] = s->batch[d], strides[r++] = out->strides[src];
    dims[r] = s->m, strides[r++] = a->ndim >= 2 ? out->strides[src++] : 0;
    dims[r] = s->n, strides[r++] = b->ndim >= 2 ? out->strides[src++] : 0;
    o.ndim = (uint32_t)r;
    memcpy(o.dims, dims, sizeof(int64_t) * (size_t)r);
    memcpy(o.strides, strides, sizeof(int64_t) * (size_t)r);
    mm->out = aclStubMatOfView(&o, s->nbatch, s->batch, false, true);
    mm->add.dtype = ACL_DT_UNDEFINED;
    mm->compute = compute;
    mm->result = result;
    mm->alpha = 1.0f, mm->beta = 1.0f;
}

/* ---- aclnnMatmul, aclnnMm, aclnnBatchMatMul ------------------------------------------------------------ */

enum { P_SELF, P_MAT2, P_OUT, P_CMT };
static const aclStubParam kMatmulParams[] = {
    [P_SELF] = {"self", ACLSTUB_INPUT, FLT},
    [P_MAT2] = {"mat2", ACLSTUB_INPUT, FLT},
    [P_OUT] = {"out", ACLSTUB_OUTPUT, FLT, NULL, OUT_ANY},
    [P_CMT] = {"cubeMathType", ACLSTUB_INT},
};

typedef struct {
    bool reshaped; /* out has another shape of the same size (written in row-major order) */
} MatmulPlan;

static aclnnStatus matmul_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *mat2 = aclStubOpTensor(call, P_MAT2),
                            *out = aclStubOpTensor(call, P_OUT);
    MatmulPlan *plan = call->plan;
    ACLSTUB_TRY(check_cube(call, P_CMT));
    ACLSTUB_RETURN_ERROR_IF(self->ndim > 6 || mat2->ndim > 6, call, ACLNN_ERR_PARAM_INVALID,
                            "self %s and mat2 %s must have at most 6 dimensions", shp(0, self), shp(1, mat2));
    ACLSTUB_RETURN_ERROR_IF(self->ndim == 0 || mat2->ndim == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "Matmul not support %s, %s", shp(0, self), shp(1, mat2));
    int64_t kb = mat2->ndim <= 2 ? mat2->dims[0] : mat2->dims[mat2->ndim - 2];
    ACLSTUB_RETURN_ERROR_IF(self->dims[self->ndim - 1] != kb, call, ACLNN_ERR_PARAM_INVALID,
                            "The k-axis of the two inputs are different %s, %s", shp(0, self), shp(1, mat2));
    Shape s;
    ACLSTUB_RETURN_ERROR_IF(!product_shape(self, mat2, &s), call, ACLNN_ERR_PARAM_INVALID, "Broadcast %s and %s failed.",
                            shp(0, self), shp(1, mat2));
    int64_t numel = shape_numel(s.shape, s.rank);
    if (aclStubNumel(out) == 0 && (aclStubNumel(self) == 0 || aclStubNumel(mat2) == 0)) return aclStubOpNothingToDo(call);
    /* the result is reshaped to out's shape before the copy into out: the sizes must agree */
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) != numel, call, ACLNN_ERR_INNER_NULLPTR,
                            "the product has shape %s, which cannot be reshaped to out's shape %s",
                            aclStubShapeText(s.shape, (uint32_t)s.rank, shape_buf[0], sizeof shape_buf[0]),
                            shp(1, out));
    plan->reshaped = !aclStubShapeEqual(out->dims, out->ndim, s.shape, (uint32_t)s.rank);
    if (numel == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* Runs mm into out, or into a contiguous scratch copied into out in row-major order when out has another shape. */
static aclnnStatus run_into(const aclStubOpCall *call, aclStubMatmul *mm, const Shape *s, const aclStubTensorDesc *a,
                            const aclStubTensorDesc *b, const aclStubTensorDesc *out, bool reshaped) {
    if (!reshaped) {
        aclStubMatmul m2 = *mm;
        describe(mm, s, a, b, out, m2.compute, m2.result);
        return aclStubMatmulRun(call, mm);
    }
    int64_t numel = aclStubNumel(out);
    size_t es = aclDataTypeSize(out->dtype);
    void *data = out->data;
    int64_t offset = out->offset;
    char *tmp = NULL;
    if (!is_contiguous(out)) {
        tmp = aclStubKernelScratch(call, (size_t)numel * es);
        if (tmp == NULL) return aclStubKernelOutOfMemory(call);
        data = tmp, offset = 0;
    }
    aclStubTensorDesc flat = contiguous_view(out->dtype, data, offset, s->shape, s->rank);
    aclStubMatmul m2 = *mm;
    describe(mm, s, a, b, &flat, m2.compute, m2.result);
    ACLSTUB_TRY(aclStubMatmulRun(call, mm));
    if (tmp != NULL)
        for (int64_t i = 0; i < numel; i++) memcpy(aclStubElemAt(out, i), tmp + (size_t)i * es, es);
    return OK;
}

static aclnnStatus matmul_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *mat2 = aclStubOpTensor(call, P_MAT2),
                            *out = aclStubOpTensor(call, P_OUT);
    const MatmulPlan *plan = call->plan;
    int cmt = (int)(int8_t)aclStubOpInt(call, P_CMT);
    Shape s;
    product_shape(self, mat2, &s);
    aclStubMatmul mm;
    if (self->ndim == 1 && mat2->ndim == 1) {
        /* the op_api's Dot: the promoted dtype, cubeMathType ignored */
        aclDataType t = aclStubPromoteType(self->dtype, mat2->dtype);
        mm.compute = t == ACL_FLOAT ? ACLSTUB_MM_FP32 : t == ACL_BF16 ? ACLSTUB_MM_BF16 : ACLSTUB_MM_FP16;
        mm.result = t;
    } else {
        mm.compute = aclStubMmComputeFor(self->dtype, mat2->dtype, cmt);
        mm.result = aclStubMmResultFor(mm.compute, out->dtype, cmt);
    }
    return run_into(call, &mm, &s, self, mat2, out, plan->reshaped);
}

static const aclStubOpDef kMatmul = {"aclnnMatmul", kMatmulParams, 4, NULL, matmul_check, matmul_kernel,
                                     sizeof(MatmulPlan)};
ACLSTUB_DEFINE_OP(aclnnMatmul, kMatmul, (const aclTensor *, self), (const aclTensor *, mat2), (aclTensor *, out),
                  (int8_t, cubeMathType))

/* aclnnMm: 2-D operands and out (the op_api checks out's shape). */
static aclnnStatus mm_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *mat2 = aclStubOpTensor(call, P_MAT2),
                            *out = aclStubOpTensor(call, P_OUT);
    ACLSTUB_TRY(check_cube(call, P_CMT));
    ACLSTUB_RETURN_ERROR_IF(mat2->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "mat2 must be 2-D, got %s", shp(0, mat2));
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "self must be 2-D, got %s", shp(0, self));
    ACLSTUB_RETURN_ERROR_IF(mat2->dims[0] != self->dims[1], call, ACLNN_ERR_PARAM_INVALID,
                            "The k-axis of the two inputs are different, self Kdim[%lld], mat2 Kdim[%lld].",
                            (long long)self->dims[1], (long long)mat2->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "out must be 2-D, got %s", shp(0, out));
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != self->dims[0] || out->dims[1] != mat2->dims[1], call,
                            ACLNN_ERR_PARAM_INVALID,
                            "output's shape is not match input, out_m[%lld] must be same with self_m[%lld], "
                            "out_n[%lld] must be same with mat2_n[%lld].",
                            (long long)out->dims[0], (long long)self->dims[0], (long long)out->dims[1],
                            (long long)mat2->dims[1]);
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus plain_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *mat2 = aclStubOpTensor(call, P_MAT2),
                            *out = aclStubOpTensor(call, P_OUT);
    int cmt = (int)(int8_t)aclStubOpInt(call, P_CMT);
    Shape s;
    product_shape(self, mat2, &s);
    aclStubMatmul mm;
    aclStubMmCompute c = aclStubMmComputeFor(self->dtype, mat2->dtype, cmt);
    describe(&mm, &s, self, mat2, out, c, aclStubMmResultFor(c, out->dtype, cmt));
    return aclStubMatmulRun(call, &mm);
}

static const aclStubOpDef kMm = {"aclnnMm", kMatmulParams, 4, NULL, mm_check, plain_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnMm, kMm, (const aclTensor *, self), (const aclTensor *, mat2), (aclTensor *, out),
                  (int8_t, cubeMathType))

/* aclnnBatchMatMul: 3-D operands, the batch of 1 broadcast. */
static aclnnStatus bmm_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *mat2 = aclStubOpTensor(call, P_MAT2),
                            *out = aclStubOpTensor(call, P_OUT);
    ACLSTUB_TRY(check_cube(call, P_CMT));
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 3 || mat2->ndim != 3 || out->ndim != 3, call, ACLNN_ERR_PARAM_INVALID,
                            "self, mat2 and out must be 3-D, got self %s, mat2 %s, out %u-D", shp(0, self),
                            shp(1, mat2), out->ndim);
    ACLSTUB_RETURN_ERROR_IF(self->dims[2] != mat2->dims[1], call, ACLNN_ERR_PARAM_INVALID,
                            "self's last dim and mat2's penultimate dim shoule be same, self [%lld], mat2 [%lld].",
                            (long long)self->dims[2], (long long)mat2->dims[1]);
    ACLSTUB_RETURN_ERROR_IF(self->dims[0] != mat2->dims[0] && self->dims[0] != 1 && mat2->dims[0] != 1, call,
                            ACLNN_ERR_PARAM_INVALID,
                            "self's first dim and mat2's first dim shoule be same, or at least one of the self's first "
                            "dim and mat2's first dim is 1.Now self [%lld], mat2 [%lld].",
                            (long long)self->dims[0], (long long)mat2->dims[0]);
    int64_t b = self->dims[0] >= mat2->dims[0] ? self->dims[0] : mat2->dims[0];
    ACLSTUB_RETURN_ERROR_IF(out->dims[1] != self->dims[1] || out->dims[2] != mat2->dims[2] || out->dims[0] != b, call,
                            ACLNN_ERR_PARAM_INVALID,
                            "output's shape is not match input, out_m[%lld] must be same with self_m[%lld], out_n[%lld] "
                            "must be same with other_n[%lld], out_batch[%lld] must be same with input_batch[%lld].",
                            (long long)out->dims[1], (long long)self->dims[1], (long long)out->dims[2],
                            (long long)mat2->dims[2], (long long)out->dims[0], (long long)b);
    if (self->dims[0] == 0 || self->dims[1] == 0 || mat2->dims[2] == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static const aclStubOpDef kBmm = {"aclnnBatchMatMul", kMatmulParams, 4, NULL, bmm_check, plain_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnBatchMatMul, kBmm, (const aclTensor *, self), (const aclTensor *, mat2), (aclTensor *, out),
                  (int8_t, cubeMathType))

/* ---- aclnnMatmulWeightNz, aclnnBatchMatMulWeightNz: mat2 in FRACTAL_NZ (aclstub/op_nz.h) ----------------------- */

static const aclStubParam kMatmulNzParams[] = {
    [P_SELF] = {"self", ACLSTUB_INPUT, FLT},
    [P_MAT2] = {"mat2", ACLSTUB_INPUT, FLT, NULL, ACLSTUB_NZ_INPUT},
    [P_OUT] = {"out", ACLSTUB_OUTPUT, FLT, NULL, OUT_ANY},
    [P_CMT] = {"cubeMathType", ACLSTUB_INT},
};

/* The product of mat2's storage shape against the NZ shape its view needs (CheckWeightNzStorageShape). */
static bool nz_storage_matches(const aclStubTensorDesc *mat2) {
    aclStubNzGeom g;
    if (!aclStubNzGeometry(mat2, 0, &g)) return false;
    int64_t have = 1;
    for (uint32_t i = 0; i < mat2->storage_ndim; i++) have *= mat2->storage_dims[i];
    return have == aclStubNzNumel(&g);
}

/* CheckWeightNzParam (Atlas A2/A3): dtypes, then the NZ shape rules, then the cube's rules, then the storage. */
static aclnnStatus mm_nz_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *mat2 = aclStubOpTensor(call, P_MAT2),
                            *out = aclStubOpTensor(call, P_OUT);
    int cmt = (int)(int8_t)aclStubOpInt(call, P_CMT);
    ACLSTUB_RETURN_ERROR_IF(cmt == 0 && out->dtype == ACL_FLOAT16 && self->dtype == ACL_FLOAT, call,
                            ACLNN_ERR_PARAM_INVALID,
                            "Input tensor's dtype[DT_FLOAT] should be same with output's dtype[DT_FLOAT16].");
    ACLSTUB_RETURN_ERROR_IF((self->dtype == ACL_FLOAT16 && mat2->dtype == ACL_BF16) ||
                                (self->dtype == ACL_BF16 && mat2->dtype == ACL_FLOAT16),
                            call, ACLNN_ERR_PARAM_INVALID, "The dtypes of self and mat2 must be both DT_BF16 or both "
                            "DT_FLOAT16, now self's dtype is [%s], mat2's dtype is [%s]",
                            aclStubDtypeName(self->dtype), aclStubDtypeName(mat2->dtype));
    ACLSTUB_RETURN_ERROR_IF(mat2->format != ACL_FORMAT_FRACTAL_NZ, call, ACLNN_ERR_PARAM_INVALID,
                            "Format of mat2 must be FRACTAL_NZ, actual is %d.", (int)mat2->format);
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 2 || mat2->ndim != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "self %s and mat2 %s must be 2-D", shp(0, self), shp(1, mat2));
    ACLSTUB_RETURN_ERROR_IF(mat2->storage_ndim != 4, call, ACLNN_ERR_PARAM_INVALID,
                            "Only support mat2 storageShapeDim is 4, which are [%u].", mat2->storage_ndim);
    ACLSTUB_RETURN_ERROR_IF(mat2->dims[0] == 1 || mat2->dims[1] == 1, call, ACLNN_ERR_PARAM_INVALID,
                            "Not supported mat2 n = 1 or k = 1 when format is FRACTAL_NZ, mat2: %s", shp(0, mat2));
    ACLSTUB_RETURN_ERROR_IF(self->dims[1] != mat2->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                            "The k-axis of the two inputs are different %s, %s", shp(0, self), shp(1, mat2));
    ACLSTUB_TRY(mm_check(call));
    ACLSTUB_RETURN_ERROR_IF(!nz_storage_matches(mat2), call, ACLNN_ERR_PARAM_INVALID,
                            "mat2's format only supports NZ, but now mat2's format is not NZ, please convert the "
                            "input format to NZ.");
    return OK;
}

static const aclStubOpDef kMmNz = {"aclnnMatmulWeightNz", kMatmulNzParams, 4, NULL, mm_nz_check, plain_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnMatmulWeightNz, kMmNz, (const aclTensor *, self), (const aclTensor *, mat2), (aclTensor *, out),
                  (int8_t, cubeMathType))

/* CheckParamsWeightNz: FLOAT16/BF16 operands of one dtype, out of that dtype or FLOAT, 3-D shapes as
 * aclnnBatchMatMul, mat2's storage 5-D. */
static aclnnStatus bmm_nz_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *mat2 = aclStubOpTensor(call, P_MAT2),
                            *out = aclStubOpTensor(call, P_OUT);
    const uint64_t half = ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16);
    ACLSTUB_RETURN_ERROR_IF(!(half & ACLSTUB_DT(self->dtype)) || !(half & ACLSTUB_DT(mat2->dtype)), call, ACLNN_ERR_PARAM_INVALID,
                            "self (%s) and mat2 (%s) must be FLOAT16 or BF16", aclStubDtypeName(self->dtype),
                            aclStubDtypeName(mat2->dtype));
    ACLSTUB_RETURN_ERROR_IF(self->dtype != mat2->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "self's dtype [%s] and mat2's dtype [%s] are not equal.", aclStubDtypeName(self->dtype),
                            aclStubDtypeName(mat2->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != ACL_FLOAT && out->dtype != self->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "self's dtype [%s] and out's dtype [%s] are not equal.", aclStubDtypeName(self->dtype),
                            aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(mat2->format != ACL_FORMAT_FRACTAL_NZ, call, ACLNN_ERR_PARAM_INVALID,
                            "Format of mat2 must be FRACTAL_NZ, actual is %d.", (int)mat2->format);
    ACLSTUB_RETURN_ERROR_IF(mat2->storage_ndim != 5, call, ACLNN_ERR_PARAM_INVALID,
                            "Only support mat2 storageShapeDim is 5, which are [%u].", mat2->storage_ndim);
    ACLSTUB_TRY(bmm_check(call));
    ACLSTUB_RETURN_ERROR_IF(!nz_storage_matches(mat2), call, ACLNN_ERR_PARAM_INVALID,
                            "mat2's storage shape does not hold its view in FRACTAL_NZ");
    return OK;
}

static const aclStubOpDef kBmmNz = {"aclnnBatchMatMulWeightNz", kMatmulNzParams, 4, NULL, bmm_nz_check, plain_kernel,
                                    0};
ACLSTUB_DEFINE_OP(aclnnBatchMatMulWeightNz, kBmmNz, (const aclTensor *, self), (const aclTensor *, mat2),
                  (aclTensor *, out), (int8_t, cubeMathType))

/* ---- aclnnAddmm, aclnnBaddbmm, aclnnAddbmm and their in-place variants ------------------------------------ */

/*
 * out = beta * self + alpha * (mat1 @ mat2), self broadcast to the product. The op_api's branches: alpha == 0
 * gives beta * self (no product), beta == 0 gives alpha * product (self not read), an empty reduction (K == 0)
 * gives beta * self for Addmm, the zero product otherwise.
 */
typedef enum { ADDMM, BADDBMM, ADDBMM } AddKind;
typedef struct {
    AddKind kind;
    int self, mat1, mat2, beta, alpha, out, cmt; /* parameter indices */
} AddRow;

typedef struct {
    bool nothing;
} AddPlan;

static aclnnStatus add_check(aclStubOpCall *call) {
    const AddRow *row = aclStubFamilyRow(call);
    const aclStubTensorDesc *self = aclStubOpTensor(call, row->self), *m1 = aclStubOpTensor(call, row->mat1),
                            *m2 = aclStubOpTensor(call, row->mat2), *out = aclStubOpTensor(call, row->out);
    int cmt = (int)(int8_t)aclStubOpInt(call, row->cmt);
    ACLSTUB_TRY(check_cube(call, row->cmt));
    int64_t prod[3];
    if (row->kind == ADDMM) {
        ACLSTUB_RETURN_ERROR_IF(m1->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "mat1 must be 2-D, got %s", shp(0, m1));
        ACLSTUB_RETURN_ERROR_IF(m2->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "mat2 must be 2-D, got %s", shp(0, m2));
        ACLSTUB_RETURN_ERROR_IF(m1->dims[1] != m2->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                                "The k-axis of the two inputs are different.");
        ACLSTUB_RETURN_ERROR_IF(self->ndim > 2, call, ACLNN_ERR_PARAM_INVALID, "The dim of self should be less than 3.");
        prod[0] = m1->dims[0], prod[1] = m2->dims[1];
        int64_t b[2];
        uint32_t nb;
        ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(self->dims, self->ndim, prod, 2, b, &nb) ||
                                    !aclStubShapeEqual(b, nb, prod, 2),
                                call, ACLNN_ERR_PARAM_INVALID, "self %s cannot broadcast to [%lld, %lld]", shp(0, self),
                                (long long)prod[0], (long long)prod[1]);
        ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "out must be 2-D, got %s", shp(0, out));
        if (prod[0] == 0 || prod[1] == 0) {
            ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) != 0, call, ACLNN_ERR_PARAM_INVALID,
                                    "Shape of out should be empty, but the current is %s.", shp(0, out));
        } else {
            ACLSTUB_RETURN_ERROR_IF(out->dims[0] != prod[0] || out->dims[1] != prod[1], call, ACLNN_ERR_PARAM_INVALID,
                                    "Shape of out should be [%lld,%lld], but the current is %s.", (long long)prod[0],
                                    (long long)prod[1], shp(0, out));
        }
        ACLSTUB_RETURN_ERROR_IF(cmt > 4, call, ACLNN_ERR_PARAM_INVALID,
                                "The value of cubeMathType only support {0: KEEP_DTYPE, 1: ALLOW_FP32_DOWN_PRECISION, "
                                "2: USE_FP16, 3: USE_HF32, 4: USE_FP32_ADD}, but got %d",
                                cmt);
        if (aclStubNumel(self) == 0 || prod[0] == 0 || prod[1] == 0) return aclStubOpNothingToDo(call);
        return OK;
    }
    ACLSTUB_RETURN_ERROR_IF(m1->ndim != 3, call, ACLNN_ERR_PARAM_INVALID, "batch1 must be 3-D, got %s", shp(0, m1));
    ACLSTUB_RETURN_ERROR_IF(m2->ndim != 3, call, ACLNN_ERR_PARAM_INVALID, "batch2 must be 3-D, got %s", shp(0, m2));
    ACLSTUB_RETURN_ERROR_IF(m1->dims[2] != m2->dims[1], call, ACLNN_ERR_PARAM_INVALID,
                            "batch1's last dim and batch2's penultimate dim shoule be same, batch1 [%lld], batch2 [%lld].",
                            (long long)m1->dims[2], (long long)m2->dims[1]);
    if (row->kind == BADDBMM) {
        ACLSTUB_RETURN_ERROR_IF(m1->dims[0] != m2->dims[0] && m1->dims[0] != 1 && m2->dims[0] != 1, call,
                                ACLNN_ERR_PARAM_INVALID, "mat1's batch dim and mat2's batch dim can not broadcast");
        bool mat_empty = m1->dims[0] == 0 || m1->dims[1] == 0 || m2->dims[2] == 0;
        ACLSTUB_RETURN_ERROR_IF((aclStubNumel(self) == 0) != mat_empty, call, ACLNN_ERR_PARAM_INVALID,
                                "self and batch1@batch2 should be both empty tensors, or not, self is [%d], "
                                "batch1@batch2 is [%d].",
                                aclStubNumel(self) == 0, mat_empty);
        int64_t bmm[3] = {m1->dims[0], m1->dims[1], m2->dims[2]}, b[ACLSTUB_MAX_DIMS];
        uint32_t nb;
        ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(self->dims, self->ndim, bmm, 3, b, &nb), call,
                                ACLNN_ERR_PARAM_INVALID, "Shape of self and batch1@batch2 can't broadcast.");
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(b, nb, out->dims, out->ndim), call, ACLNN_ERR_PARAM_INVALID,
                                "Shape of out should be %s, but current is %s.",
                                aclStubShapeText(b, nb, shape_buf[0], sizeof shape_buf[0]), shp(1, out));
        ACLSTUB_RETURN_ERROR_IF((b[0] != 1 && m1->dims[0] == 1) || (b[1] != 1 && m1->dims[1] == 1) ||
                                    (b[2] != 1 && m2->dims[2] == 1),
                                call, ACLNN_ERR_PARAM_INVALID,
                                "batch1@batch2's shape should be same with broadcastShape, broadcastShape %s",
                                aclStubShapeText(b, nb, shape_buf[0], sizeof shape_buf[0]));
        ACLSTUB_RETURN_ERROR_IF(cmt > 4, call, ACLNN_ERR_PARAM_INVALID,
                                "The value of cubeMathType only support {0: KEEP_DTYPE, 1: ALLOW_FP32_DOWN_PRECISION, "
                                "2: USE_FP16, 3: USE_HF32, 4: USE_FP32_ADD}, but got %d",
                                cmt);
        if (mat_empty) return aclStubOpNothingToDo(call);
        return OK;
    }
    /* ADDBMM: the batch dims broadcast, self (1-D or 2-D) broadcasts to (M, N) */
    ACLSTUB_RETURN_ERROR_IF(m1->dims[0] != m2->dims[0] && m1->dims[0] != 1 && m2->dims[0] != 1, call,
                            ACLNN_ERR_PARAM_INVALID, "self's batch dim and mat2's batch dim can not broadcast");
    bool mat_empty = m1->dims[1] == 0 || m2->dims[2] == 0;
    ACLSTUB_RETURN_ERROR_IF((aclStubNumel(self) == 0) != mat_empty, call, ACLNN_ERR_PARAM_INVALID,
                            "self and batch1@batch2's last two dims should be both empty or not, self is [%d], "
                            "batch1@batch2 is [%d]",
                            aclStubNumel(self) == 0, mat_empty);
    ACLSTUB_RETURN_ERROR_IF(self->ndim < 1 || self->ndim > 2, call, ACLNN_ERR_PARAM_INVALID,
                            "self must have 1 or 2 dimensions, got %s", shp(0, self));
    prod[0] = m1->dims[1], prod[1] = m2->dims[2];
    int64_t b[ACLSTUB_MAX_DIMS];
    uint32_t nb;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(self->dims, self->ndim, prod, 2, b, &nb), call,
                            ACLNN_ERR_PARAM_INVALID, "Shape of self and batch1@batch2's last two dims can't broadcast.");
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(b, nb, out->dims, out->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "Shape of out should be %s, but current is %s.",
                            aclStubShapeText(b, nb, shape_buf[0], sizeof shape_buf[0]), shp(1, out));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(b, nb, prod, 2), call, ACLNN_ERR_PARAM_INVALID,
                            "Shape of out should be [%lld, %lld], but current is %s.", (long long)prod[0],
                            (long long)prod[1], aclStubShapeText(b, nb, shape_buf[0], sizeof shape_buf[0]));
    if (mat_empty) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus add_kernel(const aclStubOpCall *call) {
    const AddRow *row = aclStubFamilyRow(call);
    const aclStubTensorDesc *self = aclStubOpTensor(call, row->self), *m1 = aclStubOpTensor(call, row->mat1),
                            *m2 = aclStubOpTensor(call, row->mat2), *out = aclStubOpTensor(call, row->out);
    int cmt = (int)(int8_t)aclStubOpInt(call, row->cmt);
    float alpha = scalar_f32(call, row->alpha), beta = scalar_f32(call, row->beta);
    Shape s;
    memset(&s, 0, sizeof s);
    s.m = m1->dims[m1->ndim - 2], s.k = m1->dims[m1->ndim - 1], s.n = m2->dims[m2->ndim - 1];
    if (row->kind != ADDMM) {
        s.nbatch = 1;
        s.batch[0] = m1->dims[0] > m2->dims[0] ? m1->dims[0] : m2->dims[0];
    }
    aclStubMmCompute c = aclStubMmComputeFor(m1->dtype, m2->dtype, cmt);
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.nbatch = s.nbatch;
    memcpy(mm.batch, s.batch, sizeof s.batch);
    mm.m = s.m, mm.n = s.n, mm.k = s.k;
    mm.a = aclStubMatOfView(m1, s.nbatch, s.batch, false, true);
    mm.b = aclStubMatOfView(m2, s.nbatch, s.batch, false, false);
    mm.out = aclStubMatOfView(out, row->kind == BADDBMM ? 1 : 0, s.batch, false, true);
    mm.compute = c;
    /* The op_api adds a float32 product (its 16-bit additions ask the cube for float32 results), but under USE_FP16
     * the product is the cube's 16-bit one; Addbmm sums products of out's result type (a BatchMatMul into out) */
    mm.result = aclStubMmResultFor(c, row->kind == ADDBMM ? out->dtype : ACL_FLOAT, cmt);
    mm.sum_batches = row->kind == ADDBMM;
    mm.alpha = alpha;
    mm.beta = beta;
    bool alpha0 = float_is(alpha, 0.0f), beta0 = float_is(beta, 0.0f);
    mm.add = aclStubMatOfView(self, row->kind == BADDBMM ? 1 : 0, s.batch, false, true);
    if ((row->kind != BADDBMM && alpha0) || (row->kind == ADDMM && s.k == 0)) {
        /* beta * self alone (Addbmm: zeros when beta is 0 too) */
        mm.skip_product = true;
        if (row->kind == ADDBMM && beta0) mm.add.dtype = ACL_DT_UNDEFINED;
    } else if (beta0) {
        /* self is not read: alpha * product */
        mm.add.dtype = ACL_DT_UNDEFINED;
        mm.result = aclStubMmResultFor(c, out->dtype, cmt);
    }
    if (float_is(mm.alpha, 1.0f)) mm.alpha = 1.0f;
    if (float_is(mm.beta, 1.0f)) mm.beta = 1.0f;
    return aclStubMatmulRun(call, &mm);
}

#define PARAM(NAME, ROLE, DT, FLAGS) {.name = NAME, .role = ROLE, .dtypes = DT, .flags = FLAGS}
#define ADD_PARAMS(N0, N1, N2)                                                                                     \
    {PARAM(N0, ACLSTUB_INPUT, FLT, 0), PARAM(N1, ACLSTUB_INPUT, FLT, 0),                          \
     PARAM(N2, ACLSTUB_INPUT, FLT, 0), PARAM("beta", ACLSTUB_SCALAR, 0, 0),                             \
     PARAM("alpha", ACLSTUB_SCALAR, 0, 0), PARAM("out", ACLSTUB_OUTPUT, FLT, OUT_ANY),                        \
     PARAM("cubeMathType", ACLSTUB_INT, 0, 0)}
#define INPLACE_PARAMS(N0, N1, N2)                                                                                 \
    {PARAM(N0, ACLSTUB_INPLACE, FLT, OUT_ANY), PARAM(N1, ACLSTUB_INPUT, FLT, 0),                  \
     PARAM(N2, ACLSTUB_INPUT, FLT, 0), PARAM("beta", ACLSTUB_SCALAR, 0, 0),                             \
     PARAM("alpha", ACLSTUB_SCALAR, 0, 0), PARAM("cubeMathType", ACLSTUB_INT, 0, 0)}

static const aclStubParam kAddmmParams[] = ADD_PARAMS("self", "mat1", "mat2");
static const aclStubParam kInplaceAddmmParams[] = INPLACE_PARAMS("selfRef", "mat1", "mat2");
static const aclStubParam kBaddbmmParams[] = ADD_PARAMS("self", "batch1", "batch2");
static const aclStubParam kInplaceBaddbmmParams[] = INPLACE_PARAMS("selfRef", "batch1", "batch2");

static const AddRow kAddmmRow = {ADDMM, 0, 1, 2, 3, 4, 5, 6}, kInplaceAddmmRow = {ADDMM, 0, 1, 2, 3, 4, 0, 5};
static const AddRow kBaddbmmRow = {BADDBMM, 0, 1, 2, 3, 4, 5, 6}, kInplaceBaddbmmRow = {BADDBMM, 0, 1, 2, 3, 4, 0, 5};
static const AddRow kAddbmmRow = {ADDBMM, 0, 1, 2, 3, 4, 5, 6}, kInplaceAddbmmRow = {ADDBMM, 0, 1, 2, 3, 4, 0, 5};

#define ADD_OP(NAME, PARAMS, ROW)                                                                             \
    static const aclStubFamilyOp k##NAME = {{#NAME, PARAMS, ACLSTUB_LEN(PARAMS), NULL, add_check, add_kernel, 0}, &ROW};
ADD_OP(aclnnAddmm, kAddmmParams, kAddmmRow)
ADD_OP(aclnnInplaceAddmm, kInplaceAddmmParams, kInplaceAddmmRow)
ADD_OP(aclnnBaddbmm, kBaddbmmParams, kBaddbmmRow)
ADD_OP(aclnnInplaceBaddbmm, kInplaceBaddbmmParams, kInplaceBaddbmmRow)
ADD_OP(aclnnAddbmm, kBaddbmmParams, kAddbmmRow)
ADD_OP(aclnnInplaceAddbmm, kInplaceBaddbmmParams, kInplaceAddbmmRow)

ACLSTUB_DEFINE_OP(aclnnAddmm, kaclnnAddmm.def, (const aclTensor *, self), (const aclTensor *, mat1),
                  (const aclTensor *, mat2), (const aclScalar *, beta), (const aclScalar *, alpha), (aclTensor *, out),
                  (int8_t, cubeMathType))
ACLSTUB_DEFINE_OP(aclnnInplaceAddmm, kaclnnInplaceAddmm.def, (const aclTensor *, selfRef), (const aclTensor *, mat1),
                  (const aclTensor *, mat2), (const aclScalar *, beta), (const aclScalar *, alpha),
                  (int8_t, cubeMathType))
ACLSTUB_DEFINE_OP(aclnnBaddbmm, kaclnnBaddbmm.def, (const aclTensor *, self), (const aclTensor *, batch1),
                  (const aclTensor *, batch2), (const aclScalar *, beta), (const aclScalar *, alpha),
                  (aclTensor *, out), (int8_t, cubeMathType))
ACLSTUB_DEFINE_OP(aclnnInplaceBaddbmm, kaclnnInplaceBaddbmm.def, (const aclTensor *, selfRef),
                  (const aclTensor *, batch1), (const aclTensor *, batch2), (const aclScalar *, beta),
                  (const aclScalar *, alpha), (int8_t, cubeMathType))
ACLSTUB_DEFINE_OP(aclnnAddbmm, kaclnnAddbmm.def, (const aclTensor *, self), (const aclTensor *, batch1),
                  (const aclTensor *, batch2), (const aclScalar *, beta), (const aclScalar *, alpha),
                  (aclTensor *, out), (int8_t, cubeMathType))
ACLSTUB_DEFINE_OP(aclnnInplaceAddbmm, kaclnnInplaceAddbmm.def, (aclTensor *, selfRef), (const aclTensor *, batch1),
                  (const aclTensor *, batch2), (const aclScalar *, beta), (const aclScalar *, alpha),
                  (int8_t, cubeMathType))

/* ---- aclnnMv ------------------------------------------------------------------------------------------------- */

enum { MV_SELF, MV_VEC, MV_OUT, MV_CMT };
static const aclStubParam kMvParams[] = {
    [MV_SELF] = {"self", ACLSTUB_INPUT, FLT},
    [MV_VEC] = {"vec", ACLSTUB_INPUT, FLT},
    [MV_OUT] = {"out", ACLSTUB_OUTPUT, FLT, "vec", OUT_ANY},
    [MV_CMT] = {"cubeMathType", ACLSTUB_INT},
};

static aclnnStatus mv_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, MV_SELF), *vec = aclStubOpTensor(call, MV_VEC),
                            *out = aclStubOpTensor(call, MV_OUT);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(self) != 0 && self->dtype != vec->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "self's dtype %s must be the same as vec's %s", aclStubDtypeName(self->dtype),
                            aclStubDtypeName(vec->dtype));
    ACLSTUB_TRY(check_cube(call, MV_CMT));
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "self must be 2-D, got %s", shp(0, self));
    ACLSTUB_RETURN_ERROR_IF(vec->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "vec must be 1-D, got %s", shp(0, vec));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "out must be 1-D, got %s", shp(0, out));
    ACLSTUB_RETURN_ERROR_IF(vec->dims[0] != self->dims[1], call, ACLNN_ERR_PARAM_INVALID,
                            "vec's shape %s must be [%lld]", shp(0, vec), (long long)self->dims[1]);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != self->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                            "out's shape %s must be [%lld]", shp(0, out), (long long)self->dims[0]);
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus mv_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, MV_SELF), *vec = aclStubOpTensor(call, MV_VEC),
                            *out = aclStubOpTensor(call, MV_OUT);
    int cmt = (int)(int8_t)aclStubOpInt(call, MV_CMT);
    Shape s;
    product_shape(self, vec, &s);
    aclStubMatmul mm;
    aclStubMmCompute c = aclStubMmComputeFor(vec->dtype, vec->dtype, cmt == 4 ? 0 : cmt);
    describe(&mm, &s, self, vec, out, c, aclStubMmResultFor(c, out->dtype, cmt));
    return aclStubMatmulRun(call, &mm);
}

static const aclStubOpDef kMv = {"aclnnMv", kMvParams, 4, NULL, mv_check, mv_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnMv, kMv, (const aclTensor *, self), (const aclTensor *, vec), (aclTensor *, out),
                  (int8_t, cubeMathType))

/* ---- aclnnAddmv ------------------------------------------------------------------------------------------------ */

/*
 * out = beta * self + alpha * (mat @ vec) in the op_api's dtype chain: the product in promote(mat, vec) (the cube
 * for FLOAT, FLOAT16 and BF16, rounded to the cube's output type; an exact sum wrapped to the type for integers;
 * a double sum for DOUBLE; any(mat & vec) for BOOL), times alpha in promote(alpha, that) when alpha != 1; self
 * times beta in promote(beta, self) when beta != 1; their sum in the promotion of both, cast to out.
 */
#define ADDMV_DT                                                                                              \
    (ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_INT16) |               \
     ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_UINT8) | ACLSTUB_DT(ACL_DOUBLE) | ACLSTUB_DT(ACL_BOOL))
enum { AMV_SELF, AMV_MAT, AMV_VEC, AMV_ALPHA, AMV_BETA, AMV_OUT, AMV_CMT };
static const aclStubParam kAddmvParams[] = {
    [AMV_SELF] = {"self", ACLSTUB_INPUT, ADDMV_DT},
    [AMV_MAT] = {"mat", ACLSTUB_INPUT, ADDMV_DT},
    [AMV_VEC] = {"vec", ACLSTUB_INPUT, ADDMV_DT},
    [AMV_ALPHA] = {"alpha", ACLSTUB_SCALAR},
    [AMV_BETA] = {"beta", ACLSTUB_SCALAR},
    [AMV_OUT] = {"out", ACLSTUB_OUTPUT, ADDMV_DT, NULL, OUT_ANY},
    [AMV_CMT] = {"cubeMathType", ACLSTUB_INT},
};

/* A value of the chain: integral types exact in int64 (wrapped to their width), the others in double. */
typedef struct {
    aclDataType t;
    int64_t i;
    double f;
} Val;

static bool is_int_type(aclDataType t) { return aclStubIsIntegral(t, true); }

static Val val_cast(Val v, aclDataType t) {
    Val r = {t, 0, 0.0};
    unsigned char buf[16];
    if (is_int_type(v.t))
        aclStubCastStrided(buf, 0, t, &v.i, 0, ACL_INT64, 1);
    else
        aclStubCastStrided(buf, 0, t, &v.f, 0, ACL_DOUBLE, 1);
    if (is_int_type(t))
        aclStubCastStrided(&r.i, 0, ACL_INT64, buf, 0, t, 1);
    else
        aclStubCastStrided(&r.f, 0, ACL_DOUBLE, buf, 0, t, 1);
    return r;
}

static Val val_of(aclDataType t, const void *p) {
    Val r = {t, 0, 0.0};
    if (is_int_type(t))
        aclStubCastStrided(&r.i, 0, ACL_INT64, p, 0, t, 1);
    else
        aclStubCastStrided(&r.f, 0, ACL_DOUBLE, p, 0, t, 1);
    return r;
}

/* a op b in type t (both already of type t): BOOL multiplies as AND and adds as OR. */
static Val val_op(Val a, Val b, bool mul) {
    Val r = a;
    if (a.t == ACL_BOOL) {
        r.i = mul ? (a.i && b.i) : (a.i || b.i);
        return r;
    }
    if (is_int_type(a.t)) {
        r.i = mul ? (int64_t)((uint64_t)a.i * (uint64_t)b.i) : (int64_t)((uint64_t)a.i + (uint64_t)b.i);
    } else {
        r.f = mul ? a.f * b.f : a.f + b.f;
    }
    return val_cast(r, a.t);
}

static Val scalar_val(const aclStubOpCall *call, int i) { return val_of(call->v[i].dtype, call->v[i].scalar); }

static aclnnStatus addmv_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, AMV_SELF), *mat = aclStubOpTensor(call, AMV_MAT),
                            *vec = aclStubOpTensor(call, AMV_VEC), *out = aclStubOpTensor(call, AMV_OUT);
    for (int i = AMV_ALPHA; i <= AMV_BETA; i++) {
        aclDataType t = call->v[i].dtype;
        ACLSTUB_RETURN_ERROR_IF((unsigned)t >= 64 || !(ADDMV_DT & ACLSTUB_DT(t)), call, ACLNN_ERR_PARAM_INVALID,
                                "argument '%s' has data type %s, which addmv does not support", aclStubOpName(call, i),
                                aclStubDtypeName(t));
    }
    float alpha = scalar_f32(call, AMV_ALPHA), beta = scalar_f32(call, AMV_BETA);
    aclDataType p = aclStubPromoteType(mat->dtype, vec->dtype);
    ACLSTUB_RETURN_ERROR_IF((int)p < 0 || p == ACL_DT_UNDEFINED, call, ACLNN_ERR_PARAM_INVALID,
                            "Mat dtype %s and Vec dtype %s can not promote dtype.", aclStubDtypeName(mat->dtype),
                            aclStubDtypeName(vec->dtype));
    aclDataType p2 = float_is(alpha, 1.0f) ? p : aclStubPromoteType(call->v[AMV_ALPHA].dtype, p);
    aclDataType p3 = float_is(beta, 1.0f) ? self->dtype : aclStubPromoteType(call->v[AMV_BETA].dtype, self->dtype);
    aclDataType fin = aclStubPromoteType(p3, p2);
    ACLSTUB_RETURN_ERROR_IF((int)p2 < 0 || (int)p3 < 0 || (int)fin < 0 || fin == ACL_DT_UNDEFINED, call,
                            ACLNN_ERR_PARAM_INVALID, "the dtypes of beta*self and alpha*(mat@vec) can not promote.");
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(fin, out->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "the result dtype %s can not cast to out's dtype %s", aclStubDtypeName(fin),
                            aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(self->ndim > 1 || mat->ndim != 2 || vec->ndim != 1 || out->ndim != 1, call,
                            ACLNN_ERR_PARAM_INVALID,
                            "Expect input tensor dim [0/1,2,1,1], but receive self [%u], mat [%u], vec [%u], out [%u].",
                            self->ndim, mat->ndim, vec->ndim, out->ndim);
    ACLSTUB_RETURN_ERROR_IF(mat->dims[1] != vec->dims[0] || mat->dims[0] != out->dims[0] ||
                                (self->ndim != 0 && mat->dims[0] != self->dims[0] &&
                                 (self->dims[0] != 1 || float_is(alpha, 0.0f))),
                            call, ACLNN_ERR_PARAM_INVALID,
                            "Input tensor shape not satisfy, current shape : self %s, mat %s, vec %u-D, out %u-D.",
                            shp(0, self), shp(1, mat), vec->ndim, out->ndim);
    ACLSTUB_TRY(check_cube(call, AMV_CMT));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus addmv_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, AMV_SELF), *mat = aclStubOpTensor(call, AMV_MAT),
                            *vec = aclStubOpTensor(call, AMV_VEC), *out = aclStubOpTensor(call, AMV_OUT);
    int cmt = (int)(int8_t)aclStubOpInt(call, AMV_CMT);
    float alpha = scalar_f32(call, AMV_ALPHA), beta = scalar_f32(call, AMV_BETA);
    int64_t m = mat->dims[0], k = mat->dims[1];
    aclDataType p = aclStubPromoteType(mat->dtype, vec->dtype);
    bool product = !float_is(alpha, 0.0f) && aclStubNumel(mat) != 0 && aclStubNumel(vec) != 0;
    Val *prod = aclStubKernelScratch(call, sizeof(Val) * (size_t)(m > 0 ? m : 1));
    if (prod == NULL) return aclStubKernelOutOfMemory(call);
    if (product && (ACLSTUB_DT_FLOATS & ACLSTUB_DT(p))) {
        /* the cube, its output of type p (16-bit results rounded), read back */
        aclStubMmCompute c = aclStubMmComputeFor(mat->dtype, vec->dtype, cmt == 4 ? 0 : cmt);
        aclDataType r = aclStubMmResultFor(c, p, cmt == 4 ? 0 : cmt);
        float *tmp = aclStubKernelScratch(call, sizeof(float) * (size_t)m);
        if (tmp == NULL) return aclStubKernelOutOfMemory(call);
        int64_t dims[1] = {m};
        aclStubTensorDesc o = contiguous_view(ACL_FLOAT, tmp, 0, dims, 1);
        Shape s;
        product_shape(mat, vec, &s);
        aclStubMatmul mm;
        describe(&mm, &s, mat, vec, &o, c, r);
        ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
        for (int64_t i = 0; i < m; i++) prod[i] = val_cast((Val){ACL_FLOAT, 0, tmp[i]}, p);
    } else if (product) {
        for (int64_t i = 0; i < m; i++) {
            Val acc = val_cast((Val){ACL_INT64, 0, 0.0}, p);
            for (int64_t j = 0; j < k; j++) {
                Val a = val_cast(val_of(mat->dtype, aclStubElem2(mat, i, j)), p);
                Val b = val_cast(val_of(vec->dtype, aclStubElem1(vec, j)), p);
                acc = val_op(acc, val_op(a, b, true), false);
            }
            prod[i] = acc;
        }
    }
    aclDataType p2 = float_is(alpha, 1.0f) ? p : aclStubPromoteType(call->v[AMV_ALPHA].dtype, p);
    Val alpha_v = val_cast(scalar_val(call, AMV_ALPHA), p2);
    bool with_self = !product || !float_is(beta, 0.0f);
    aclDataType p3 = float_is(beta, 1.0f) ? self->dtype : aclStubPromoteType(call->v[AMV_BETA].dtype, self->dtype);
    Val beta_v = val_cast(scalar_val(call, AMV_BETA), p3);
    for (int64_t i = 0; i < out->dims[0]; i++) {
        Val r = {ACL_DT_UNDEFINED, 0, 0.0}, sv = r;
        if (product) {
            r = prod[i];
            if (!float_is(alpha, 1.0f)) r = val_op(val_cast(r, p2), alpha_v, true);
        }
        if (with_self) {
            const void *sp = self->ndim == 0 ? aclStubElemAt(self, 0) : aclStubElem1(self, self->dims[0] == 1 ? 0 : i);
            sv = val_of(self->dtype, sp);
            if (!float_is(beta, 1.0f)) sv = val_op(val_cast(sv, p3), beta_v, true);
        }
        if (product && with_self) {
            aclDataType t = aclStubPromoteType(sv.t, r.t);
            r = val_op(val_cast(sv, t), val_cast(r, t), false);
        } else if (with_self) {
            r = sv;
        }
        if (is_int_type(r.t))
            aclStubCastStrided(aclStubElem1(out, i), 0, out->dtype, &r.i, 0, ACL_INT64, 1);
        else
            aclStubCastStrided(aclStubElem1(out, i), 0, out->dtype, &r.f, 0, ACL_DOUBLE, 1);
    }
    return OK;
}

static const aclStubOpDef kAddmv = {"aclnnAddmv", kAddmvParams, ACLSTUB_LEN(kAddmvParams), NULL, addmv_check,
                                    addmv_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnAddmv, kAddmv, (const aclTensor *, self), (const aclTensor *, mat), (const aclTensor *, vec),
                  (const aclScalar *, alpha), (const aclScalar *, beta), (aclTensor *, out), (int8_t, cubeMathType))

/* ---- aclnnGemm ---------------------------------------------------------------------------------------------------- */

/*
 * out = alpha * op(A) @ op(B) + beta * C, op transposing when transA/transB is set (A given as (k, m), B as (n, k)),
 * C broadcast to (m, n). The op_api's branches on Atlas A2: an empty reduction gives beta * C; beta 0 leaves C out;
 * the product is the cube's (rounded to its 16-bit type for 16-bit operands) before the float32 epilogue.
 */
enum { G_A, G_B, G_C, G_ALPHA, G_BETA, G_TA, G_TB, G_OUT, G_CMT };
static const aclStubParam kGemmParams[] = {
    [G_A] = {"A", ACLSTUB_INPUT, FLT},
    [G_B] = {"B", ACLSTUB_INPUT, FLT},
    [G_C] = {"C", ACLSTUB_INPUT, FLT},
    [G_ALPHA] = {"alpha", ACLSTUB_FLOAT},
    [G_BETA] = {"beta", ACLSTUB_FLOAT},
    [G_TA] = {"transA", ACLSTUB_INT},
    [G_TB] = {"transB", ACLSTUB_INT},
    [G_OUT] = {"out", ACLSTUB_OUTPUT, FLT, NULL, OUT_ANY},
    [G_CMT] = {"cubeMathType", ACLSTUB_INT},
};

static aclnnStatus gemm_check(aclStubOpCall *call) {
    const aclStubTensorDesc *a = aclStubOpTensor(call, G_A), *b = aclStubOpTensor(call, G_B),
                            *c = aclStubOpTensor(call, G_C), *out = aclStubOpTensor(call, G_OUT);
    bool ta = aclStubOpInt(call, G_TA) != 0, tb = aclStubOpInt(call, G_TB) != 0;
    ACLSTUB_RETURN_ERROR_IF(a->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "A must be 2-D, got %s", shp(0, a));
    ACLSTUB_RETURN_ERROR_IF(b->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "B must be 2-D, got %s", shp(0, b));
    int64_t m = a->dims[ta ? 1 : 0], k = a->dims[ta ? 0 : 1], kb = b->dims[tb ? 1 : 0], n = b->dims[tb ? 0 : 1];
    ACLSTUB_RETURN_ERROR_IF(k != kb, call, ACLNN_ERR_PARAM_INVALID, "The k-axis of the two inputs are different.");
    int64_t prod[2] = {m, n}, bc[ACLSTUB_MAX_DIMS];
    uint32_t nb;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(c->dims, c->ndim, prod, 2, bc, &nb) || !aclStubShapeEqual(bc, nb, prod, 2),
                            call, ACLNN_ERR_PARAM_INVALID, "C %s cannot broadcast to [%lld, %lld]", shp(0, c),
                            (long long)m, (long long)n);
    if (m == 0 || n == 0)
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) != 0, call, ACLNN_ERR_PARAM_INVALID, "out must be empty, got %s",
                                shp(0, out));
    else
        ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[0] != m || out->dims[1] != n, call,
                                ACLNN_ERR_PARAM_INVALID, "out's shape %s must be [%lld, %lld]", shp(0, out),
                                (long long)m, (long long)n);
    ACLSTUB_TRY(check_cube(call, G_CMT));
    if (aclStubNumel(c) == 0 || m == 0 || n == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus gemm_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *a = aclStubOpTensor(call, G_A), *b = aclStubOpTensor(call, G_B),
                            *c = aclStubOpTensor(call, G_C), *out = aclStubOpTensor(call, G_OUT);
    bool ta = aclStubOpInt(call, G_TA) != 0, tb = aclStubOpInt(call, G_TB) != 0;
    int cmt = (int)(int8_t)aclStubOpInt(call, G_CMT);
    float alpha = (float)aclStubOpFloat(call, G_ALPHA), beta = (float)aclStubOpFloat(call, G_BETA);
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.m = a->dims[ta ? 1 : 0], mm.k = a->dims[ta ? 0 : 1], mm.n = b->dims[tb ? 0 : 1];
    mm.a = aclStubMatOfView(a, 0, mm.batch, ta, true);
    mm.b = aclStubMatOfView(b, 0, mm.batch, tb, false);
    mm.out = aclStubMatOfView(out, 0, mm.batch, false, true);
    mm.compute = aclStubMmComputeFor(a->dtype, b->dtype, cmt == 4 ? 0 : cmt);
    mm.result = mm.compute == ACLSTUB_MM_FP16 ? ACL_FLOAT16 : mm.compute == ACLSTUB_MM_BF16 ? ACL_BF16 : ACL_FLOAT;
    mm.alpha = float_is(alpha, 1.0f) ? 1.0f : alpha;
    mm.beta = float_is(beta, 1.0f) ? 1.0f : beta;
    mm.add = float_is(beta, 0.0f) ? (aclStubMat){.dtype = ACL_DT_UNDEFINED} : aclStubMatOfView(c, 0, mm.batch, false, true);
    if (mm.k == 0) mm.skip_product = true; /* beta * C */
    return aclStubMatmulRun(call, &mm);
}

static const aclStubOpDef kGemm = {"aclnnGemm", kGemmParams, ACLSTUB_LEN(kGemmParams), NULL, gemm_check, gemm_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnGemm, kGemm, (const aclTensor *, A), (const aclTensor *, B), (const aclTensor *, C),
                  (float, alpha), (float, beta), (int64_t, transA), (int64_t, transB), (aclTensor *, out),
                  (int8_t, cubeMathType))

/* ---- aclnnTransposeBatchMatMul ------------------------------------------------------------------------------------ */

/*
 * out = permute(x1', x2') with x1' = x1 read as (B, M, K) (permX1 [1, 0, 2]: x1 is (M, B, K)), x2' as (B, K, N)
 * (permX2 [0, 2, 1]: x2 is (B, N, K)) and out (M, B, N) (permY [1, 0, 2]); batchSplitFactor f > 1 writes
 * (f, M, B / f * N); a scale (B * N UINT64/INT64 parameters) quantises a FLOAT16 product to an INT8 (M, 1, B * N) out.
 * HFLOAT32 only under USE_HF32 (3); the product is rounded once to out's dtype.
 */
enum { T_X1, T_X2, T_BIAS, T_SCALE, T_P1, T_P2, T_PY, T_CMT, T_BSF, T_OUT };
static const aclStubParam kTbmmParams[] = {
    [T_X1] = {"x1", ACLSTUB_INPUT},
    [T_X2] = {"x2", ACLSTUB_INPUT},
    [T_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT},
    [T_SCALE] = {"scale", ACLSTUB_OPTIONAL_INPUT},
    [T_P1] = {"permX1", ACLSTUB_INT_ARRAY},
    [T_P2] = {"permX2", ACLSTUB_INT_ARRAY},
    [T_PY] = {"permY", ACLSTUB_INT_ARRAY},
    [T_CMT] = {"cubeMathType", ACLSTUB_INT},
    [T_BSF] = {"batchSplitFactor", ACLSTUB_INT},
    [T_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, OUT_ANY},
};

static bool perm_is(const aclStubOpCall *call, int i, int a, int b, int c) {
    const int64_t *p = call->v[i].ints;
    return call->v[i].size == 3 && p[0] == a && p[1] == b && p[2] == c;
}

static aclnnStatus tbmm_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, T_X1), *x2 = aclStubOpTensor(call, T_X2),
                            *scale = aclStubOpTensor(call, T_SCALE), *out = aclStubOpTensor(call, T_OUT);
    int64_t bsf = (int32_t)aclStubOpInt(call, T_BSF);
    char buf[256];
    ACLSTUB_RETURN_ERROR_IF(x1->ndim != 3 || x2->ndim != 3, call, ACLNN_ERR_PARAM_INVALID,
                            "x1 %s and x2 %s must be 3-D", shp(0, x1), shp(1, x2));
    ACLSTUB_RETURN_ERROR_IF(call->v[T_P1].size != 3 || call->v[T_P2].size != 3 || call->v[T_PY].size != 3, call,
                            ACLNN_ERR_PARAM_INVALID, "permX1, permX2 and permY must have 3 entries");
    ACLSTUB_TRY(check_cube(call, T_CMT));
    ACLSTUB_RETURN_ERROR_IF(scale && bsf != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "batchSplitFactor must be 1 with a scale, got %lld", (long long)bsf);
    ACLSTUB_RETURN_ERROR_IF(x1->format == ACL_FORMAT_FRACTAL_NZ || out->format == ACL_FORMAT_FRACTAL_NZ, call,
                            ACLNN_ERR_PARAM_INVALID, "x1 and out do not support the NZ format");
    ACLSTUB_RETURN_ERROR_IF(x1->dtype != x2->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "x1's dtype %s and x2's dtype %s must be the same", aclStubDtypeName(x1->dtype),
                            aclStubDtypeName(x2->dtype));
    ACLSTUB_RETURN_ERROR_IF(!(FLT & ACLSTUB_DT(x1->dtype)), call, ACLNN_ERR_PARAM_INVALID,
                            "x1 has data type %s; supported: %s", aclStubDtypeName(x1->dtype),
                            aclStubDtypeSetName(FLT, buf, sizeof buf));
    ACLSTUB_RETURN_ERROR_IF(!sdk_nd(x2) && call->op->params == kTbmmParams, call, ACLNN_ERR_PARAM_INVALID,
                            "x2's NZ format is not supported here (aclnnTransposeBatchMatMulWeightNz takes it)");
    if (scale) {
        ACLSTUB_RETURN_ERROR_IF(scale->dtype != ACL_INT64 && scale->dtype != ACL_UINT64, call, ACLNN_ERR_PARAM_INVALID,
                                "scale must be INT64 or UINT64, got %s", aclStubDtypeName(scale->dtype));
        ACLSTUB_RETURN_ERROR_IF(x1->dtype != ACL_FLOAT16, call, ACLNN_ERR_PARAM_INVALID,
                                "a scale needs FLOAT16 x1 and x2, got %s", aclStubDtypeName(x1->dtype));
    }
    uint64_t odt = FLT | ACLSTUB_DT(ACL_INT8);
    ACLSTUB_RETURN_ERROR_IF(!(odt & ACLSTUB_DT(out->dtype)), call, ACLNN_ERR_PARAM_INVALID,
                            "out has data type %s; supported: %s", aclStubDtypeName(out->dtype),
                            aclStubDtypeSetName(odt, buf, sizeof buf));
    ACLSTUB_RETURN_ERROR_IF(!perm_is(call, T_P1, 1, 0, 2) && !perm_is(call, T_P1, 0, 1, 2), call,
                            ACLNN_ERR_PARAM_INVALID, "the perm of x1 should be [0, 1, 2] or [1, 0, 2].");
    ACLSTUB_RETURN_ERROR_IF(!perm_is(call, T_P2, 0, 1, 2) && !perm_is(call, T_P2, 0, 2, 1), call,
                            ACLNN_ERR_PARAM_INVALID, "the perm of x2 should be [0, 1, 2] or [0, 2, 1].");
    ACLSTUB_RETURN_ERROR_IF(!perm_is(call, T_PY, 1, 0, 2), call, ACLNN_ERR_PARAM_INVALID,
                            "the perm of y should be [1, 0, 2].");
    const int64_t *p1 = call->v[T_P1].ints, *p2 = call->v[T_P2].ints;
    bool t1 = p1[0] == 1, t2 = p2[1] == 2;
    int64_t k1 = x1->dims[p1[2]], k2 = x2->dims[p2[1]], b = x2->dims[p2[0]], n = x2->dims[p2[2]], m = x1->dims[p1[1]];
    ACLSTUB_RETURN_ERROR_IF(k1 != k2, call, ACLNN_ERR_PARAM_INVALID, "The k-axis of the two inputs are different %s, %s",
                            shp(0, x1), shp(1, x2));
    ACLSTUB_RETURN_ERROR_IF(n >= 65536 || b >= 65536, call, ACLNN_ERR_PARAM_INVALID,
                            "Batch and N should be less than 65536.");
    ACLSTUB_RETURN_ERROR_IF(!t1 && k1 >= 65536, call, ACLNN_ERR_PARAM_INVALID,
                            "When x1 is not transposed([B,M,K]), K should be less than 65536.");
    ACLSTUB_RETURN_ERROR_IF(t1 && (k1 >= 65536 || b * k1 >= 65536) && (scale || bsf != 1), call,
                            ACLNN_ERR_PARAM_INVALID,
                            "When x1 is transposed([M,B,K]) and Batch * K > 65535, input scale or batch_split_factor != 1 "
                            "are not supported.");
    ACLSTUB_RETURN_ERROR_IF(t2 && (scale || bsf != 1 || !t1), call, ACLNN_ERR_PARAM_INVALID,
                            "When x2 is transposed, input scale or batch_split_factor != 1 are not supported, permX1 "
                            "must be [1,0,2].");
    if (scale)
        ACLSTUB_RETURN_ERROR_IF(scale->ndim != 1 || scale->dims[0] != b * n || b * n >= 65536, call,
                                ACLNN_ERR_PARAM_INVALID, "scale %s must be [%lld] (batch * n, below 65536)",
                                shp(0, scale), (long long)(b * n));
    ACLSTUB_RETURN_ERROR_IF(bsf <= 0, call, ACLNN_ERR_PARAM_INVALID, "batchSplitFactor must be positive, got %lld",
                            (long long)bsf);
    ACLSTUB_RETURN_ERROR_IF(bsf > 1 && x1->dims[p1[0]] % bsf != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "batchSplitFactor %lld must divide the batch %lld", (long long)bsf,
                            (long long)x1->dims[p1[0]]);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(x1) == 0 || aclStubNumel(x2) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "x1 and x2 must not be empty");
    ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(call, T_BIAS) != NULL, call, ACLNN_ERR_PARAM_INVALID,
                            "bias is reserved: pass nullptr");
    int64_t want[3] = {m, b, n};
    if (scale) want[1] = 1, want[2] = b * n;
    if (bsf > 1) want[0] = bsf, want[1] = m, want[2] = b / bsf * n;
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, want, 3), call, ACLNN_ERR_PARAM_INVALID,
                            "out's shape %s should be %s", shp(0, out), aclStubShapeText(want, 3, buf, sizeof buf));
    ACLSTUB_RETURN_ERROR_IF(scale && out->dtype != ACL_INT8, call, ACLNN_ERR_PARAM_INVALID,
                            "with a scale out must be INT8, got %s", aclStubDtypeName(out->dtype));
    return OK;
}

typedef struct {
    const aclStubTensorDesc *scale;
    int64_t n;
} TbmmQuant;

/* the INT8 out of a scaled product: round-half-even(p * scale + offset) per (batch, column) */
static void tbmm_quant_row(const aclStubMatmul *mm, const aclStubMmRow *row) {
    const TbmmQuant *q = mm->ctx;
    for (int64_t j = 0; j < row->n; j++) {
        uint64_t u;
        memcpy(&u, aclStubElem1(q->scale, row->item * q->n + row->j0 + j), 8);
        float v = row->f[j] * aclStubQuantParamScale(u) + (float)aclStubQuantParamOffset(u);
        v = v == v ? __builtin_rintf(v) : 0.0f;
        v = v < 127.0f ? (v > -128.0f ? v : -128.0f) : 127.0f;
        *((int8_t *)row->out + j * row->out_cs) = (int8_t)(int32_t)v;
    }
}

static aclnnStatus tbmm_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, T_X1), *x2 = aclStubOpTensor(call, T_X2),
                            *scale = aclStubOpTensor(call, T_SCALE), *out = aclStubOpTensor(call, T_OUT);
    const int64_t *p1 = call->v[T_P1].ints, *p2 = call->v[T_P2].ints;
    int64_t bsf = (int32_t)aclStubOpInt(call, T_BSF);
    int cmt = (int)(int8_t)aclStubOpInt(call, T_CMT);
    int64_t b = x2->dims[p2[0]], m = x1->dims[p1[1]], k = x1->dims[p1[2]], n = x2->dims[p2[2]];
    /* logical views: x1 (B, M, K), x2 (B, K, N), out (B, M, N) */
    aclStubTensorDesc a = *x1, w = *x2, o = *out;
    for (int d = 0; d < 3; d++) {
        a.dims[d] = x1->dims[p1[d]], a.strides[d] = x1->strides[p1[d]];
        w.dims[d] = x2->dims[p2[d]], w.strides[d] = x2->strides[p2[d]];
    }
    o.dims[0] = b, o.dims[1] = m, o.dims[2] = n;
    if (scale) { /* (M, 1, B * N) */
        o.strides[0] = n * out->strides[2], o.strides[1] = out->strides[0], o.strides[2] = out->strides[2];
    } else if (bsf > 1) { /* (f, M, B / f * N): batch b at (b / (B / f), m, (b % (B / f)) * N + n) */
        o.strides[0] = 0; /* set per split below */
    } else { /* (M, B, N) */
        o.strides[0] = out->strides[1], o.strides[1] = out->strides[0], o.strides[2] = out->strides[2];
    }
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.m = m, mm.k = k, mm.n = n;
    mm.compute = x1->dtype == ACL_FLOAT ? (cmt == 3 ? ACLSTUB_MM_HF32 : ACLSTUB_MM_FP32)
                                        : aclStubMmComputeFor(x1->dtype, x2->dtype, 0);
    mm.result = ACL_FLOAT;
    mm.alpha = mm.beta = 1.0f;
    mm.add.dtype = ACL_DT_UNDEFINED;
    TbmmQuant q = {scale, n};
    if (scale) mm.row_fn = tbmm_quant_row, mm.ctx = &q;
    if (bsf > 1) { /* two batch dims: (f, B / f) */
        int64_t per = b / bsf;
        mm.nbatch = 2;
        mm.batch[0] = bsf, mm.batch[1] = per;
        aclStubTensorDesc a4 = a, w4 = w, o4 = o;
        a4.ndim = w4.ndim = o4.ndim = 4;
        const aclStubTensorDesc *src[2] = {&a, &w};
        aclStubTensorDesc *dst[2] = {&a4, &w4};
        for (int i = 0; i < 2; i++) {
            dst[i]->dims[0] = bsf, dst[i]->strides[0] = per * src[i]->strides[0];
            dst[i]->dims[1] = per, dst[i]->strides[1] = src[i]->strides[0];
            dst[i]->dims[2] = src[i]->dims[1], dst[i]->strides[2] = src[i]->strides[1];
            dst[i]->dims[3] = src[i]->dims[2], dst[i]->strides[3] = src[i]->strides[2];
        }
        o4.dims[0] = bsf, o4.strides[0] = out->strides[0];
        o4.dims[1] = per, o4.strides[1] = n * out->strides[2];
        o4.dims[2] = m, o4.strides[2] = out->strides[1];
        o4.dims[3] = n, o4.strides[3] = out->strides[2];
        mm.a = aclStubMatOfView(&a4, 2, mm.batch, false, true);
        mm.b = aclStubMatOfView(&w4, 2, mm.batch, false, false);
        mm.out = aclStubMatOfView(&o4, 2, mm.batch, false, true);
        return aclStubMatmulRun(call, &mm);
    }
    mm.nbatch = 1;
    mm.batch[0] = b;
    mm.a = aclStubMatOfView(&a, 1, mm.batch, false, true);
    mm.b = aclStubMatOfView(&w, 1, mm.batch, false, false);
    mm.out = aclStubMatOfView(&o, 1, mm.batch, false, true);
    return aclStubMatmulRun(call, &mm);
}

static const aclStubOpDef kTbmm = {"aclnnTransposeBatchMatMul", kTbmmParams, ACLSTUB_LEN(kTbmmParams), NULL,
                                   tbmm_check, tbmm_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnTransposeBatchMatMul, kTbmm, (const aclTensor *, x1), (const aclTensor *, x2),
                  (const aclTensor *, bias), (const aclTensor *, scale), (const aclIntArray *, permX1),
                  (const aclIntArray *, permX2), (const aclIntArray *, permY), (int8_t, cubeMathType),
                  (const int32_t, batchSplitFactor), (aclTensor *, out))

/* aclnnTransposeBatchMatMulWeightNz: x2 in FRACTAL_NZ (required), no empty operands, no bias. */
static const aclStubParam kTbmmNzParams[] = {
    [T_X1] = {"x1", ACLSTUB_INPUT},
    [T_X2] = {"x2", ACLSTUB_INPUT, 0, NULL, ACLSTUB_NZ_INPUT},
    [T_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT},
    [T_SCALE] = {"scale", ACLSTUB_OPTIONAL_INPUT},
    [T_P1] = {"permX1", ACLSTUB_INT_ARRAY},
    [T_P2] = {"permX2", ACLSTUB_INT_ARRAY},
    [T_PY] = {"permY", ACLSTUB_INT_ARRAY},
    [T_CMT] = {"cubeMathType", ACLSTUB_INT},
    [T_BSF] = {"batchSplitFactor", ACLSTUB_INT},
    [T_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, OUT_ANY},
};
static aclnnStatus tbmm_nz_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, T_X1), *x2 = aclStubOpTensor(call, T_X2);
    const aclStubTensorDesc *out = aclStubOpTensor(call, T_OUT);
    ACLSTUB_TRY(tbmm_check(call));
    /* CheckDtypeValid's weight-NZ branch (DAV_2201) */
    ACLSTUB_RETURN_ERROR_IF(x2->format == ACL_FORMAT_FRACTAL_NZ && x1->dtype != out->dtype, call,
                            ACLNN_ERR_PARAM_INVALID, "x1's dtype [%s] and out's dtype [%s] are not equal in DAV_2201.",
                            aclStubDtypeName(x1->dtype), aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(x2->format != ACL_FORMAT_FRACTAL_NZ, call, ACLNN_ERR_PARAM_INVALID,
                            "Format of x2 must be FRACTAL_NZ, actual is %d.", (int)x2->format);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(x1) == 0 || aclStubNumel(x2) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "aclnnTransposeBatchMatMulWeightNz do not support empty tensor!");
    ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(call, T_BIAS) != NULL, call, ACLNN_ERR_PARAM_INVALID,
                            "The bias is not support in TBMM.");
    /* the graph's TransposeBatchMatMul takes x2's storage as the NZ of its view */
    ACLSTUB_RETURN_ERROR_IF(!nz_storage_matches(x2), call, ACLNN_ERR_PARAM_INVALID,
                            "x2's storage shape does not hold its view in FRACTAL_NZ");
    return OK;
}
static const aclStubOpDef kTbmmNz = {"aclnnTransposeBatchMatMulWeightNz", kTbmmNzParams, ACLSTUB_LEN(kTbmmNzParams),
                                     NULL, tbmm_nz_check, tbmm_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnTransposeBatchMatMulWeightNz, kTbmmNz, (const aclTensor *, x1), (const aclTensor *, x2),
                  (const aclTensor *, bias), (const aclTensor *, scale), (const aclIntArray *, permX1),
                  (const aclIntArray *, permX2), (const aclIntArray *, permY), (int8_t, cubeMathType),
                  (const int32_t, batchSplitFactor), (aclTensor *, out))
