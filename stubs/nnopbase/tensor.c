/* aclTensor, aclScalar and aclIntArray: creation, destruction, getters and liveness. */
#include <stdlib.h>
#include <string.h>

#include "ptr_set.h"
#include "stub_internal.h"

enum { TENSOR_MAGIC = 0x54534e52u, SCALAR_MAGIC = 0x5343414cu, INTARRAY_MAGIC = 0x494e5441u };

static PtrSet live_tensors = PTR_SET_INIT;
static PtrSet live_scalars = PTR_SET_INIT;
static PtrSet live_int_arrays = PTR_SET_INIT;

static int64_t *copy_dims(int64_t *inline_buf, const int64_t *src, uint64_t n) {
    int64_t *dst = n <= STUB_MAX_INLINE_DIMS ? inline_buf : malloc(n * sizeof *dst);
    if (dst && n) memcpy(dst, src, n * sizeof *dst);
    return dst;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
    if ((viewDims == NULL && viewDimsNum > 0) || (storageDims == NULL && storageDimsNum > 0)) {
        aclStubSetErrMsg("aclCreateTensor: argument '%s' is NULL but its length is %llu",
                         viewDims == NULL && viewDimsNum > 0 ? "viewDims" : "storageDims",
                         (unsigned long long)(viewDims == NULL && viewDimsNum > 0 ? viewDimsNum : storageDimsNum));
        return NULL;
    }
    if (viewDimsNum > (1u << 20) || storageDimsNum > (1u << 20)) {
        aclStubSetErrMsg("aclCreateTensor: rank %llu is not plausible", (unsigned long long)viewDimsNum);
        return NULL;
    }
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) goto oom;
    t->magic = TENSOR_MAGIC;
    t->dtype = dataType;
    t->format = format;
    t->ndim = viewDimsNum;
    t->offset = offset;
    t->storage_ndim = storageDimsNum;
    t->data = tensorData;
    t->dims = copy_dims(t->inline_dims, viewDims, viewDimsNum);
    t->strides = viewDimsNum <= STUB_MAX_INLINE_DIMS ? t->inline_dims + STUB_MAX_INLINE_DIMS
                                                     : malloc(viewDimsNum * sizeof *t->strides);
    t->storage_dims = copy_dims(t->inline_dims + 2 * STUB_MAX_INLINE_DIMS, storageDims, storageDimsNum);
    if (!t->dims || !t->strides || !t->storage_dims) goto oom;
    if (stride) {
        if (viewDimsNum) memcpy(t->strides, stride, viewDimsNum * sizeof *t->strides);
    } else {
        int64_t s = 1;
        for (uint64_t i = viewDimsNum; i-- > 0;) {
            t->strides[i] = s;
            s *= viewDims[i];
        }
    }
    if (!ptr_set_insert(&live_tensors, t)) goto oom;
    return t;
oom:
    if (t) {
        if (t->dims != t->inline_dims) free(t->dims);
        if (t->strides != t->inline_dims + STUB_MAX_INLINE_DIMS) free(t->strides);
        if (t->storage_dims != t->inline_dims + 2 * STUB_MAX_INLINE_DIMS) free(t->storage_dims);
        free(t);
    }
    aclStubSetErrMsg("aclCreateTensor: out of host memory");
    return NULL;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    if (tensor == NULL) return OK;
    if (!ptr_set_remove(&live_tensors, tensor)) {
        aclStubSetErrMsg("aclDestroyTensor: argument 'tensor' (%p) is not a live aclTensor (never created or "
                         "already destroyed)", (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    aclTensor *t = (aclTensor *)tensor;
    if (t->dims != t->inline_dims) free(t->dims);
    if (t->strides != t->inline_dims + STUB_MAX_INLINE_DIMS) free(t->strides);
    if (t->storage_dims != t->inline_dims + 2 * STUB_MAX_INLINE_DIMS) free(t->storage_dims);
    t->magic = 0;
    free(t);
    return OK;
}

bool aclStubTensorIsLive(const aclTensor *tensor) { return ptr_set_contains(&live_tensors, tensor); }

int aclStubTensorDescribe(const aclTensor *tensor, aclStubTensorDesc *desc) {
    if (!ptr_set_contains(&live_tensors, tensor)) return 0;
    if (tensor->ndim > STUB_MAX_VIEW_DIMS) return -1;
    desc->dtype = tensor->dtype;
    desc->format = tensor->format;
    desc->ndim = (uint32_t)tensor->ndim;
    desc->offset = tensor->offset;
    desc->data = tensor->data;
    for (uint64_t i = 0; i < tensor->ndim; i++) {
        desc->dims[i] = tensor->dims[i];
        desc->strides[i] = tensor->strides[i];
    }
    return 1;
}

/* Getters reject what is not a live tensor the same way as a NULL one: they cannot touch it safely. */
#define CHECK_TENSOR(fn, tensor, out)                                                                         \
    do {                                                                                                    \
        if ((tensor) == NULL || (out) == NULL) {                                                            \
            aclStubSetErrMsg(fn ": argument '%s' is NULL", (tensor) == NULL ? "tensor" : #out);             \
            return ACLNN_ERR_PARAM_NULLPTR;                                                                 \
        }                                                                                                   \
        if (!aclStubTensorIsLive(tensor)) {                                                                 \
            aclStubSetErrMsg(fn ": argument 'tensor' (%p) is not a live aclTensor", (const void *)(tensor)); \
            return ACLNN_ERR_PARAM_INVALID;                                                                 \
        }                                                                                                   \
    } while (0)

static aclnnStatus copy_out(const char *fn, const int64_t *src, uint64_t n, int64_t **dst, uint64_t *num) {
    int64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) {
        aclStubSetErrMsg("%s: out of host memory", fn);
        return ACLNN_ERR_INNER;
    }
    if (n) memcpy(copy, src, n * sizeof *copy);
    *dst = copy;
    *num = n;
    return OK;
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
    CHECK_TENSOR("aclGetViewShape", tensor, viewDims);
    CHECK_TENSOR("aclGetViewShape", tensor, viewDimsNum);
    return copy_out("aclGetViewShape", tensor->dims, tensor->ndim, viewDims, viewDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
    CHECK_TENSOR("aclGetViewStrides", tensor, stridesValue);
    CHECK_TENSOR("aclGetViewStrides", tensor, stridesNum);
    return copy_out("aclGetViewStrides", tensor->strides, tensor->ndim, stridesValue, stridesNum);
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
    CHECK_TENSOR("aclGetStorageShape", tensor, storageDims);
    CHECK_TENSOR("aclGetStorageShape", tensor, storageDimsNum);
    return copy_out("aclGetStorageShape", tensor->storage_dims, tensor->storage_ndim, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
    CHECK_TENSOR("aclGetViewOffset", tensor, offset);
    *offset = tensor->offset;
    return OK;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
    CHECK_TENSOR("aclGetFormat", tensor, format);
    *format = tensor->format;
    return OK;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
    CHECK_TENSOR("aclGetDataType", tensor, dataType);
    *dataType = tensor->dtype;
    return OK;
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    if (value == NULL) {
        aclStubSetErrMsg("aclCreateScalar: argument 'value' is NULL");
        return NULL;
    }
    size_t size = aclDataTypeSize(dataType);
    if (size == 0 || size > sizeof(((aclScalar *)0)->value)) {
        aclStubSetErrMsg("aclCreateScalar: argument 'dataType' (%d) has no fixed element size", (int)dataType);
        return NULL;
    }
    aclScalar *s = calloc(1, sizeof *s);
    if (!s || !ptr_set_insert(&live_scalars, s)) {
        free(s);
        aclStubSetErrMsg("aclCreateScalar: out of host memory");
        return NULL;
    }
    s->magic = SCALAR_MAGIC;
    s->dtype = dataType;
    memcpy(s->value, value, size);
    return s;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    if (scalar == NULL) return OK;
    if (!ptr_set_remove(&live_scalars, scalar)) {
        aclStubSetErrMsg("aclDestroyScalar: argument 'scalar' (%p) is not a live aclScalar", (const void *)scalar);
        return ACLNN_ERR_PARAM_INVALID;
    }
    free((aclScalar *)scalar);
    return OK;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    if (value == NULL && size > 0) {
        aclStubSetErrMsg("aclCreateIntArray: argument 'value' is NULL but 'size' is %llu", (unsigned long long)size);
        return NULL;
    }
    if (size > ((uint64_t)1 << 40)) {
        aclStubSetErrMsg("aclCreateIntArray: argument 'size' (%llu) is not plausible", (unsigned long long)size);
        return NULL;
    }
    aclIntArray *a = calloc(1, sizeof *a);
    int64_t *values = malloc((size ? size : 1) * sizeof *values);
    if (!a || !values || !ptr_set_insert(&live_int_arrays, a)) {
        free(a);
        free(values);
        aclStubSetErrMsg("aclCreateIntArray: out of host memory");
        return NULL;
    }
    a->magic = INTARRAY_MAGIC;
    a->size = size;
    a->values = values;
    if (size) memcpy(values, value, size * sizeof *values);
    return a;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    if (array == NULL) return OK;
    if (!ptr_set_remove(&live_int_arrays, array)) {
        aclStubSetErrMsg("aclDestroyIntArray: argument 'array' (%p) is not a live aclIntArray", (const void *)array);
        return ACLNN_ERR_PARAM_INVALID;
    }
    free(array->values);
    free((aclIntArray *)array);
    return OK;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
    if (array == NULL || size == NULL) {
        aclStubSetErrMsg("aclGetIntArraySize: argument '%s' is NULL", array == NULL ? "array" : "size");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!aclStubIntArrayIsLive(array)) {
        aclStubSetErrMsg("aclGetIntArraySize: argument 'array' (%p) is not a live aclIntArray", (const void *)array);
        return ACLNN_ERR_PARAM_INVALID;
    }
    *size = array->size;
    return OK;
}

bool aclStubIntArrayIsLive(const aclIntArray *array) { return ptr_set_contains(&live_int_arrays, array); }

uint64_t aclStubLiveTensors(void) { return ptr_set_count(&live_tensors); }
uint64_t aclStubLiveScalars(void) { return ptr_set_count(&live_scalars); }
uint64_t aclStubLiveIntArrays(void) { return ptr_set_count(&live_int_arrays); }

bool aclStubScalarIsLive(const aclScalar *scalar) { return ptr_set_contains(&live_scalars, scalar); }
