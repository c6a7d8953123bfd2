/*
 * ops-math conversion/: the FRACTAL_NZ weight layout (aclstub/op_nz.h) as the matmul operators' callers make it:
 * aclnnCalculateMatmulWeightSize(V2) and aclnnTransMatmulWeight (trans_data), aclnnNpuFormatCast and
 * aclnnNpuFormatCastCalculateSizeAndFormat (npu_format_cast: ND <-> FRACTAL_NZ). Checks and codes in the op_api's
 * order for Atlas A2/A3.
 */
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_npu_format_cast.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "aclstub/op_nz.h"
#include "aclstub/op_index.h"

#define DT(x) ACLSTUB_DT(x)

static int64_t ceil_align(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/* ---- aclnnCalculateMatmulWeightSize(V2) --------------------------------------------------------------------- */

/* The op_api's element count of the NZ weight: leading dimensions as they are, the last two aligned (FLOAT16 and
 * BF16: 16 and 16; other dtypes: 16 and 32). */
static uint64_t weight_size(const int64_t *dims, uint64_t n, aclDataType dtype) {
    int64_t size = 1;
    bool half = dtype == ACL_FLOAT16 || dtype == ACL_BF16;
    for (uint64_t i = 0; i < n; i++) {
        int64_t d = dims[i];
        if (i + 2 == n) d = ceil_align(d, 16);
        else if (i + 1 == n) d = ceil_align(d, half ? 16 : 32);
        size *= d;
    }
    return (uint64_t)size;
}

static aclnnStatus calc_weight_size(const char *fn, const aclIntArray *tensorShape, aclDataType dtype,
                                    uint64_t *weightTensorSize, bool v2) {
    if (tensorShape == NULL) return aclStubHostFail(fn, ACLNN_ERR_PARAM_NULLPTR, "argument 'tensorShape' is NULL");
    if (weightTensorSize == NULL)
        return aclStubHostFail(fn, ACLNN_ERR_PARAM_NULLPTR, "expected a value of type number for argument "
                               "weightTensorSize but instead found type null");
    int64_t dims[8];
    uint64_t n = 0;
    if (!aclStubHostIntArray(tensorShape, dims, 8, &n))
        return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "argument 'tensorShape' is not a live aclIntArray");
    if (n < 2 || n > 6)
        return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "It is expected that tensorShape has 2-6 dimensions, but "
                               "got dimensions %llu", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        if (v2 && dims[i] == 0) return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "No zeros are allow in shape");
        if (dims[i] < 0 || dims[i] > ((int64_t)1 << 40))
            return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "tensorShape[%llu] = %lld is out of range",
                                   (unsigned long long)i, (long long)dims[i]);
    }
    *weightTensorSize = weight_size(dims, n, dtype);
    return OK;
}

ACLSTUB_EXTERN_C ACLSTUB_API aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape,
                                                                       uint64_t *weightTensorSize) {
    return calc_weight_size("aclnnCalculateMatmulWeightSize", tensorShape, ACL_FLOAT16, weightTensorSize, false);
}

ACLSTUB_EXTERN_C ACLSTUB_API aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape,
                                                                         aclDataType dataType,
                                                                         uint64_t *weightTensorSize) {
    return calc_weight_size("aclnnCalculateMatmulWeightSizeV2", tensorShape, dataType, weightTensorSize, true);
}

/* ---- aclnnTransMatmulWeight --------------------------------------------------------------------------------- */

/* Atlas A2/A3 (ASCEND910B_DTYPE_DTYPE_SUPPORT_LIST) */
#define TMW_DTYPES                                                                                            \
    (DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_INT8) | DT(ACL_FLOAT8_E4M3FN) | DT(ACL_HIFLOAT8) | DT(ACL_UINT8))

enum { TMW_W };
static const aclStubParam kTmwParams[] = {
    [TMW_W] = {"mmWeightRef", ACLSTUB_INPLACE, TMW_DTYPES, NULL, ACLSTUB_ANY_LAYOUT, 0, 8},
};

typedef struct {
    aclStubTensorDesc nd; /* the weight as phase 1 saw it (ND) */
    aclStubNzGeom g;
} TmwPlan;

/* The physical matrices of an ND view (its transpose when the view is a transposed one), as a view whose row-major
 * order is the NZ packing's. */
static aclStubTensorDesc physical_view(const aclStubTensorDesc *t, const aclStubNzGeom *g) {
    aclStubTensorDesc p = *t;
    if (g->transposed) {
        uint32_t r = t->ndim;
        p.dims[r - 2] = t->dims[r - 1];
        p.dims[r - 1] = t->dims[r - 2];
        p.strides[r - 2] = t->strides[r - 1];
        p.strides[r - 1] = t->strides[r - 2];
    }
    return p;
}

static aclnnStatus tmw_check(aclStubOpCall *call) {
    TmwPlan *plan = call->plan;
    const aclStubTensorDesc *w = call->v[TMW_W].tensor;
    if (aclStubNumel(w) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(w->ndim < 2 || w->ndim > 6, call, ACLNN_ERR_PARAM_INVALID,
                            "It is expected that tensorShape has 2-6 dimensions, but got dimensions %u.", w->ndim);
    plan->nd = *w;
    aclStubNzGeometry(w, aclStubNzC0(w->dtype), &plan->g);
    /* the storage shape of the physical matrices */
    aclStubTensorDesc p = physical_view(w, &plan->g);
    int64_t shape[ACLSTUB_MAX_STORAGE_DIMS];
    aclStubNzStorageShape(p.dims, p.ndim, plan->g.c0, shape);
    return aclStubOpSetStorage(call, TMW_W, ACL_FORMAT_FRACTAL_NZ, shape, p.ndim + 2);
}

static aclnnStatus tmw_kernel(const aclStubOpCall *call) {
    const TmwPlan *plan = call->plan;
    aclStubTensorDesc nd = physical_view(&plan->nd, &plan->g);
    nd.data = call->v[TMW_W].tensor->data; /* today's pointer */
    /* the ND values first (they share the buffer with the NZ result), then the packing */
    aclStubTensorDesc copy = nd;
    void *tmp = aclStubKernelScratch(call, (size_t)aclStubNumel(&nd) * aclDataTypeSize(nd.dtype));
    if (tmp == NULL) return aclStubKernelOutOfMemory(call);
    copy.data = tmp;
    copy.offset = 0;
    aclStubContiguousStrides(&copy);
    ACLSTUB_TRY(aclStubCopyView(call, &copy, &nd, ACL_DT_UNDEFINED));
    unsigned char *dst = (unsigned char *)nd.data + nd.offset * (int64_t)aclDataTypeSize(nd.dtype);
    aclStubNzPack(&plan->g, nd.dtype, tmp, dst);
    return OK;
}

static const aclStubOpDef kTmw = {"aclnnTransMatmulWeight", kTmwParams, ACLSTUB_LEN(kTmwParams), NULL, tmw_check,
                                  tmw_kernel, sizeof(TmwPlan)};
ACLSTUB_DEFINE_OP(aclnnTransMatmulWeight, kTmw, (aclTensor *, mmWeightRef))

/* ---- aclnnNpuFormatCast ------------------------------------------------------------------------------------- */

/* WEIGHT_DTYPE_SUPPORT_LIST of CalculateSizeAndFormat, and the Atlas A2/A3 list of the cast itself. */
#define NFC_WEIGHT_DTYPES                                                                                     \
    (DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_INT32) |         \
     DT(ACL_UINT32) | DT(ACL_FLOAT8_E4M3FN) | DT(ACL_FLOAT4_E2M1) | DT(ACL_HIFLOAT8) | DT(ACL_FLOAT4_E1M2))
#define NFC_DTYPES                                                                                            \
    (DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_INT32) | DT(ACL_UINT32))

static bool nd_to_nz_source(aclFormat f) {
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCL || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NCDHW;
}

/* The Atlas A2/A3 TransData pairs other than ND/NCL/NCHW/NCDHW <-> FRACTAL_NZ (5HD, FRACTAL_Z, FRACTAL_Z_3D). */
static bool other_transdata_pair(int src, int dst) {
    static const int pairs[][2] = {{30, 32}, {30, 33}, {31, 33}, {0, 3}, {1, 3}, {0, 4}, {16, 4}, {27, 32}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if ((pairs[i][0] == src && pairs[i][1] == dst) || (pairs[i][0] == dst && pairs[i][1] == src)) return true;
    return false;
}

ACLSTUB_EXTERN_C ACLSTUB_API aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(const aclTensor *srcTensor,
                                                                                 const int dstFormat,
                                                                                 int additionalDtype,
                                                                                 int64_t **dstShape,
                                                                                 uint64_t *dstShapeSize,
                                                                                 int *actualFormat) {
    static const char fn[] = "aclnnNpuFormatCastCalculateSizeAndFormat";
    aclStubTensorDesc t;
    /* the op_api folds its input checks (a NULL srcTensor included) into ACLNN_ERR_PARAM_INVALID */
    if (srcTensor == NULL) return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "srcTensor is nullptr.");
    int r = aclStubHostTensor(srcTensor, &t);
    if (r != 1) return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "argument 'srcTensor' is not a live aclTensor");
    if ((unsigned)t.dtype >= 64 || !(NFC_WEIGHT_DTYPES & DT(t.dtype)))
        return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "The dtype of srcTensor must be one of the weight dtypes, "
                               "got %s", aclStubDtypeName(t.dtype));
    if (dstShape == NULL || dstShapeSize == NULL || actualFormat == NULL)
        return aclStubHostFail(fn, ACLNN_ERR_PARAM_NULLPTR, "argument '%s' is NULL",
                               dstShape == NULL ? "dstShape" : dstShapeSize == NULL ? "dstShapeSize" : "actualFormat");
    if (additionalDtype == -1) additionalDtype = (int)t.dtype;
    int src = (int)t.format;
    bool to_nz = dstFormat == ACL_FORMAT_FRACTAL_NZ &&
                 (src == ACL_FORMAT_ND || src == ACL_FORMAT_NCL ||
                  (additionalDtype == (int)t.dtype && nd_to_nz_source(t.format)));
    bool to_nd = aclStubIsNzFormat(t.format) && dstFormat == ACL_FORMAT_ND;
    if (!to_nz && !to_nd) {
        if (other_transdata_pair(src, dstFormat))
            return aclStubHostFail(fn, ACLNN_ERR_RUNTIME_ERROR, "the conversion from format %d to %d is not "
                                   "implemented by the stub (only ND <-> FRACTAL_NZ)", src, dstFormat);
        return aclStubHostFail(fn, ACLNN_ERR_RUNTIME_ERROR, "aclnnNpuFormatCastCalculateSizeAndFormat unsupported "
                               "format transformation (%d to %d)", src, dstFormat);
    }
    if (aclStubNumel(&t) == 0)
        return aclStubHostFail(fn, ACLNN_ERR_RUNTIME_ERROR, "aclnn empty tensor is not supported, fallback aclop.");
    if (to_nd && src != ACL_FORMAT_FRACTAL_NZ)
        return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "the format of srcTensor is %d, expected "
                               "FORMAT_FRACTAL_NZ", src);
    if (t.ndim < 2 || t.ndim > 6)
        return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "srcTensor's view shape must have 2-6 dimensions, got %u",
                               t.ndim);
    uint64_t n = to_nz ? t.ndim + 2 : t.ndim;
    int64_t *shape = malloc(n * sizeof *shape);
    if (shape == NULL) return aclStubHostFail(fn, ACLNN_ERR_RUNTIME_ERROR, "Failed to allocate memory for the NZ");
    if (to_nz) {
        size_t size = (unsigned)additionalDtype < 64 ? aclDataTypeSize((aclDataType)additionalDtype) : 0;
        if (size == 0 || size > 32) {
            free(shape);
            return aclStubHostFail(fn, ACLNN_ERR_PARAM_INVALID, "additionalDtype %d has no element size",
                                   additionalDtype);
        }
        aclStubNzStorageShape(t.dims, t.ndim, (int64_t)(32 / size), shape);
        *actualFormat = ACL_FORMAT_FRACTAL_NZ;
    } else {
        memcpy(shape, t.dims, n * sizeof *shape);
        *actualFormat = ACL_FORMAT_ND;
    }
    *dstShape = shape;
    *dstShapeSize = n;
    return OK;
}

enum { NFC_SRC, NFC_DST };
static const aclStubParam kNfcParams[] = {
    /* NULL tensors are the op_api's ACLNN_ERR_INNER_NULLPTR, checked first by nfc_check */
    [NFC_SRC] = {"srcTensor", ACLSTUB_OPTIONAL_INPUT, 0},
    [NFC_DST] = {"dstTensor", ACLSTUB_OPTIONAL_OUTPUT, 0},
};

typedef struct {
    bool to_nz;
    aclStubNzGeom g;
} NfcPlan;

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->dims[d];
    }
    return true;
}

static aclnnStatus nfc_check(aclStubOpCall *call) {
    NfcPlan *plan = call->plan;
    const aclStubTensorDesc *s = call->v[NFC_SRC].tensor, *d = call->v[NFC_DST].tensor;
    ACLSTUB_RETURN_ERROR_IF(s == NULL || d == NULL, call, ACLNN_ERR_INNER_NULLPTR, "%s is nullptr.",
                            s == NULL ? "srcTensor" : "dstTensor");
    /* CheckGetWorkSpaceSizeInputs, then the Atlas A2/A3 dtype list */
    ACLSTUB_RETURN_ERROR_IF(!contiguous(s), call, ACLNN_ERR_PARAM_INVALID, "srcTensor must be contiguous.");
    ACLSTUB_RETURN_ERROR_IF(!contiguous(d), call, ACLNN_ERR_PARAM_INVALID, "dstTensor must be contiguous.");
    char buf[256];
    ACLSTUB_RETURN_ERROR_IF((unsigned)s->dtype >= 64 || !(NFC_DTYPES & DT(s->dtype)), call, ACLNN_ERR_PARAM_INVALID,
                            "srcTensor has data type %s; supported: %s", aclStubDtypeName(s->dtype),
                            aclStubDtypeSetName(NFC_DTYPES, buf, sizeof buf));
    ACLSTUB_RETURN_ERROR_IF((unsigned)d->dtype >= 64 || !(NFC_DTYPES & DT(d->dtype)), call, ACLNN_ERR_PARAM_INVALID,
                            "dstTensor has data type %s; supported: %s", aclStubDtypeName(d->dtype),
                            aclStubDtypeSetName(NFC_DTYPES, buf, sizeof buf));
    bool to_nz = nd_to_nz_source(s->format) && d->format == ACL_FORMAT_FRACTAL_NZ;
    bool to_nd = s->format == ACL_FORMAT_FRACTAL_NZ && nd_to_nz_source(d->format);
    if (!to_nz && !to_nd) {
        ACLSTUB_RETURN_ERROR_IF(other_transdata_pair((int)s->format, (int)d->format), call, ACLNN_ERR_RUNTIME_ERROR,
                                "the conversion from format %d to %d is not implemented by the stub (only ND <-> "
                                "FRACTAL_NZ)", (int)s->format, (int)d->format);
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Unsupported format transformation from [%d] to [%d]",
                             (int)s->format, (int)d->format);
    }
    /* the stub's own rules (TransData moves elements, it does not convert them) */
    ACLSTUB_RETURN_ERROR_IF(s->dtype != d->dtype, call, ACLNN_ERR_PARAM_INVALID, "srcTensor (%s) and dstTensor (%s) "
                            "must have the same data type", aclStubDtypeName(s->dtype), aclStubDtypeName(d->dtype));
    ACLSTUB_RETURN_ERROR_IF(s->ndim < 2 || !aclStubShapeEqual(s->dims, s->ndim, d->dims, d->ndim), call,
                            ACLNN_ERR_PARAM_INVALID, "srcTensor and dstTensor must have the same view shape of at "
                            "least 2 dimensions");
    const aclStubTensorDesc *nz = to_nz ? d : s;
    ACLSTUB_RETURN_ERROR_IF(nz->storage_ndim < 4 || nz->storage_ndim > 8, call, ACLNN_ERR_PARAM_INVALID,
                            "the StorageShape of the FRACTAL_NZ tensor must have 4-8 dimensions, got %u",
                            nz->storage_ndim);
    aclStubNzGeometry(nz, 0, &plan->g);
    ACLSTUB_RETURN_ERROR_IF(plan->g.transposed, call, ACLNN_ERR_PARAM_INVALID, "the FRACTAL_NZ tensor must be "
                            "contiguous");
    int64_t want[ACLSTUB_MAX_STORAGE_DIMS + 2];
    aclStubNzStorageShape(nz->dims, nz->ndim, plan->g.c0, want);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(want, nz->ndim + 2, nz->storage_dims, nz->storage_ndim), call,
                            ACLNN_ERR_PARAM_INVALID, "the StorageShape of the FRACTAL_NZ tensor does not match its "
                            "view shape and C0 %lld", (long long)plan->g.c0);
    plan->to_nz = to_nz;
    if (aclStubNumel(s) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus nfc_kernel(const aclStubOpCall *call) {
    const NfcPlan *plan = call->plan;
    const aclStubTensorDesc *s = call->v[NFC_SRC].tensor, *d = call->v[NFC_DST].tensor;
    size_t es = aclDataTypeSize(s->dtype);
    const unsigned char *src = (const unsigned char *)s->data + s->offset * (int64_t)es;
    unsigned char *dst = (unsigned char *)d->data + d->offset * (int64_t)es;
    if (plan->to_nz) aclStubNzPack(&plan->g, s->dtype, src, dst);
    else aclStubNzUnpack(&plan->g, s->dtype, src, dst);
    return OK;
}

static const aclStubOpDef kNfc = {"aclnnNpuFormatCast", kNfcParams, ACLSTUB_LEN(kNfcParams), NULL, nfc_check,
                                  nfc_kernel, sizeof(NfcPlan)};
ACLSTUB_DEFINE_OP(aclnnNpuFormatCast, kNfc, (const aclTensor *, srcTensor), (aclTensor *, dstTensor))
