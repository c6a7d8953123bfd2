/* aclTensor, aclScalar and aclIntArray: creation, destruction, getters, liveness and snapshots. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "handle_table.h"
#include "meta_internal.h"

#define INLINE_DIMS 8

/* Private: callers hold tokens (handle_table.h), never these addresses. */
struct aclTensor {
    aclDataType dtype;
    aclFormat format;
    uint64_t ndim;
    int64_t *dims;    /* view shape, ndim entries */
    int64_t *strides; /* in elements, ndim entries */
    int64_t offset;   /* in elements */
    uint64_t storage_ndim;
    int64_t *storage_dims;
    void *data;
    int64_t inline_dims[3 * INLINE_DIMS]; /* dims, strides, storage dims when they fit */
};

struct aclIntArray {
    uint64_t size;
    int64_t *values;
};

struct aclScalar {
    aclDataType dtype;
    unsigned char value[16];
};

static HandleTable tensors = HANDLE_TABLE_INIT(HANDLE_TENSOR);
static HandleTable scalars = HANDLE_TABLE_INIT(HANDLE_SCALAR);
static HandleTable int_arrays = HANDLE_TABLE_INIT(HANDLE_INT_ARRAY);

/* Guards the fields of live tensors, which aclInitTensor and the address setters change in place; taken
 * after the registry's read lock (acquire_tensor), so a tensor is never freed or torn while it is read. */
static pthread_rwlock_t contents = PTHREAD_RWLOCK_INITIALIZER;

/* A child of a fork() made while another thread held a registry lock must not inherit it held. */
static void reset_after_fork(void) {
    handle_table_reset_after_fork(&tensors);
    handle_table_reset_after_fork(&scalars);
    handle_table_reset_after_fork(&int_arrays);
    pthread_rwlock_init(&contents, NULL);
}

/* The tensor behind token, registry read-locked and its contents locked for reading or writing; NULL when
 * the token is not a live tensor. Pair with release_tensor. */
static aclTensor *acquire_tensor(const aclTensor *token, bool write) {
    aclTensor *t = handle_acquire(&tensors, token);
    if (t) (write ? pthread_rwlock_wrlock : pthread_rwlock_rdlock)(&contents);
    return t;
}

static void release_tensor(void) {
    pthread_rwlock_unlock(&contents);
    handle_release(&tensors);
}
__attribute__((constructor)) static void install_fork_handler(void) { pthread_atfork(NULL, NULL, reset_after_fork); }

static bool is_inline(const aclTensor *t, const int64_t *p) {
    return p >= t->inline_dims && p < t->inline_dims + 3 * INLINE_DIMS;
}

static void free_arrays(aclTensor *t) {
    if (!is_inline(t, t->dims)) free(t->dims);
    if (!is_inline(t, t->strides)) free(t->strides);
    if (!is_inline(t, t->storage_dims)) free(t->storage_dims);
}

static void tensor_free(aclTensor *t) {
    free_arrays(t);
    free(t);
}

/* Move src's description into dst; arrays held inline move into dst's own inline storage. */
static void tensor_move(aclTensor *dst, const aclTensor *src) {
    *dst = *src;
    if (is_inline(src, src->dims)) dst->dims = dst->inline_dims + (src->dims - src->inline_dims);
    if (is_inline(src, src->strides)) dst->strides = dst->inline_dims + (src->strides - src->inline_dims);
    if (is_inline(src, src->storage_dims))
        dst->storage_dims = dst->inline_dims + (src->storage_dims - src->inline_dims);
}

static int64_t *dims_buffer(int64_t *inline_buf, uint64_t n) {
    return n <= INLINE_DIMS ? inline_buf : malloc(n * sizeof(int64_t));
}

/* Fill the zeroed tensor t from aclCreateTensor's arguments: 161001/161002 (message recorded) for bad
 * arguments, 561000 when out of memory (t's arrays freed). */
static aclnnStatus tensor_init(const char *fn, aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum,
                               aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format,
                               const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
    if ((viewDims == NULL && viewDimsNum > 0) || (storageDims == NULL && storageDimsNum > 0)) {
        aclStubSetErrMsg("%s: argument '%s' is NULL but its length is %llu", fn,
                         viewDims == NULL && viewDimsNum > 0 ? "viewDims" : "storageDims",
                         (unsigned long long)(viewDims == NULL && viewDimsNum > 0 ? viewDimsNum : storageDimsNum));
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (viewDimsNum > (1u << 20) || storageDimsNum > (1u << 20)) {
        aclStubSetErrMsg("%s: rank %llu is not plausible", fn, (unsigned long long)viewDimsNum);
        return ACLNN_ERR_PARAM_INVALID;
    }
    t->dtype = dataType;
    t->format = format;
    t->ndim = viewDimsNum;
    t->offset = offset;
    t->storage_ndim = storageDimsNum;
    t->data = tensorData;
    t->dims = dims_buffer(t->inline_dims, viewDimsNum);
    t->strides = dims_buffer(t->inline_dims + INLINE_DIMS, viewDimsNum);
    t->storage_dims = dims_buffer(t->inline_dims + 2 * INLINE_DIMS, storageDimsNum);
    if (!t->dims || !t->strides || !t->storage_dims) {
        free_arrays(t);
        aclStubSetErrMsg("%s: out of host memory", fn);
        return ACLNN_ERR_INNER;
    }
    if (viewDimsNum) memcpy(t->dims, viewDims, viewDimsNum * sizeof *t->dims);
    if (storageDimsNum) memcpy(t->storage_dims, storageDims, storageDimsNum * sizeof *t->storage_dims);
    if (stride) {
        if (viewDimsNum) memcpy(t->strides, stride, viewDimsNum * sizeof *t->strides);
    } else {
        /* Row-major strides; a product that overflows saturates (no buffer can back such a view anyway). */
        int64_t s = 1;
        for (uint64_t i = viewDimsNum; i-- > 0;) {
            t->strides[i] = s;
            if (__builtin_mul_overflow(s, viewDims[i], &s)) s = INT64_MAX;
        }
    }
    return OK;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) {
        aclStubSetErrMsg("aclCreateTensor: out of host memory");
        return NULL;
    }
    if (tensor_init("aclCreateTensor", t, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                    storageDimsNum, tensorData) != OK) {
        free(t);
        return NULL;
    }
    aclTensor *token = handle_insert(&tensors, t);
    if (!token) {
        tensor_free(t);
        aclStubSetErrMsg("aclCreateTensor: out of host memory");
    }
    return token;
}

aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                          const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                          uint64_t storageDimsNum, void *tensorDataAddr) {
    if (tensor == NULL) {
        aclStubSetErrMsg("aclInitTensor: argument 'tensor' is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    aclTensor fresh = {0}, old;
    aclnnStatus status = tensor_init("aclInitTensor", &fresh, viewDims, viewDimsNum, dataType, stride, offset, format,
                                     storageDims, storageDimsNum, tensorDataAddr);
    if (status != OK) return status;
    aclTensor *t = acquire_tensor(tensor, true);
    if (!t) {
        free_arrays(&fresh);
        aclStubSetErrMsg("aclInitTensor: argument 'tensor' (%p) is not a live aclTensor", (void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    tensor_move(&old, t);
    tensor_move(t, &fresh);
    release_tensor();
    free_arrays(&old);
    return OK;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    if (tensor == NULL) return OK;
    aclTensor *t = handle_remove(&tensors, tensor);
    if (!t) {
        aclStubSetErrMsg("aclDestroyTensor: argument 'tensor' (%p) is not a live aclTensor (never created or "
                         "already destroyed)", (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    tensor_free(t);
    return OK;
}

bool aclStubTensorIsLive(const aclTensor *tensor) { return handle_is_live(&tensors, tensor); }

bool aclStubTensorSetStorage(const aclTensor *tensor, aclFormat format, const int64_t *dims, uint64_t n) {
    aclTensor *t = acquire_tensor(tensor, true);
    if (!t) return false;
    int64_t *d = n <= INLINE_DIMS ? t->inline_dims + 2 * INLINE_DIMS : malloc(n * sizeof *d);
    bool ok = d != NULL;
    if (ok && d != t->storage_dims && !is_inline(t, t->storage_dims)) free(t->storage_dims);
    if (ok) t->storage_dims = d;
    if (ok) {
        t->format = format;
        t->storage_ndim = n;
        if (n) memcpy(t->storage_dims, dims, n * sizeof *dims);
    }
    release_tensor();
    return ok;
}

bool meta_tensor_set_view_shape(const aclTensor *tensor, const int64_t *dims, uint64_t ndim) {
    aclTensor *t = acquire_tensor(tensor, true);
    if (!t) return false;
    bool ok = true;
    if (ndim > t->ndim && !(ndim <= INLINE_DIMS && is_inline(t, t->dims) && is_inline(t, t->strides))) {
        int64_t *d = malloc(ndim * sizeof *d), *s = malloc(ndim * sizeof *s);
        if (d && s) {
            if (!is_inline(t, t->dims)) free(t->dims);
            if (!is_inline(t, t->strides)) free(t->strides);
            t->dims = d;
            t->strides = s;
        } else {
            free(d);
            free(s);
            ok = false;
        }
    }
    if (ok) {
        t->ndim = ndim;
        int64_t stride = 1;
        for (uint64_t i = ndim; i-- > 0;) {
            t->dims[i] = dims[i];
            t->strides[i] = stride;
            stride *= dims[i] > 0 ? dims[i] : 1;
        }
    }
    release_tensor();
    return ok;
}

int aclStubTensorDescribe(const aclTensor *tensor, aclStubTensorDesc *desc) {
    const aclTensor *t = acquire_tensor(tensor, false);
    if (!t) return 0;
    int result = -1;
    if (t->ndim <= STUB_MAX_VIEW_DIMS) {
        desc->dtype = t->dtype;
        desc->format = t->format;
        desc->ndim = (uint32_t)t->ndim;
        desc->offset = t->offset;
        desc->data = t->data;
        memcpy(desc->dims, t->dims, t->ndim * sizeof *t->dims);
        memcpy(desc->strides, t->strides, t->ndim * sizeof *t->strides);
        desc->storage_ndim = t->storage_ndim <= ACLSTUB_MAX_STORAGE_DIMS ? (uint32_t)t->storage_ndim : 0;
        memcpy(desc->storage_dims, t->storage_dims, desc->storage_ndim * sizeof *t->storage_dims);
        result = 1;
    }
    release_tensor();
    return result;
}

/* Getters reject what is not a live tensor the same way as a NULL one: they cannot touch it safely. */
#define CHECK_NOT_NULL(fn, tensor, out)                                                         \
    do {                                                                                        \
        if ((tensor) == NULL || (out) == NULL) {                                                \
            aclStubSetErrMsg(fn ": argument '%s' is NULL", (tensor) == NULL ? "tensor" : #out); \
            return ACLNN_ERR_PARAM_NULLPTR;                                                     \
        }                                                                                       \
    } while (0)
#define ACQUIRE_TENSOR(fn, tensor, t)                                                                       \
    do {                                                                                                    \
        if (((t) = acquire_tensor(tensor, false)) == NULL) {                                             \
            aclStubSetErrMsg(fn ": argument 'tensor' (%p) is not a live aclTensor", (const void *)(tensor)); \
            return ACLNN_ERR_PARAM_INVALID;                                                                 \
        }                                                                                                   \
    } while (0)

/* A malloc'ed copy of n int64 values (the caller frees it), released with the registry lock. */
static aclnnStatus copy_out(const char *fn, const int64_t *src, uint64_t n, int64_t **dst, uint64_t *num) {
    int64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (copy && n) memcpy(copy, src, n * sizeof *copy);
    release_tensor();
    if (!copy) {
        aclStubSetErrMsg("%s: out of host memory", fn);
        return ACLNN_ERR_INNER;
    }
    *dst = copy;
    *num = n;
    return OK;
}

/* The getters of a tensor's arrays: a malloc'ed copy the caller frees. */
#define ARRAY_GETTER(fn, values, count, field, nfield)                        \
    aclnnStatus fn(const aclTensor *tensor, int64_t **values, uint64_t *count) { \
        const aclTensor *t;                                                   \
        CHECK_NOT_NULL(#fn, tensor, values);                                  \
        CHECK_NOT_NULL(#fn, tensor, count);                                   \
        ACQUIRE_TENSOR(#fn, tensor, t);                                       \
        return copy_out(#fn, t->field, t->nfield, values, count);             \
    }

ARRAY_GETTER(aclGetViewShape, viewDims, viewDimsNum, dims, ndim)
ARRAY_GETTER(aclGetViewStrides, stridesValue, stridesNum, strides, ndim)
ARRAY_GETTER(aclGetStorageShape, storageDims, storageDimsNum, storage_dims, storage_ndim)

/* The getters of one field of a tensor. */
#define FIELD_GETTER(fn, type, out, field)                   \
    aclnnStatus fn(const aclTensor *tensor, type *out) {     \
        const aclTensor *t;                                  \
        CHECK_NOT_NULL(#fn, tensor, out);                    \
        ACQUIRE_TENSOR(#fn, tensor, t);                      \
        *out = t->field;                                     \
        release_tensor();                                    \
        return OK;                                           \
    }

FIELD_GETTER(aclGetViewOffset, int64_t, offset, offset)
FIELD_GETTER(aclGetFormat, aclFormat, format, format)
FIELD_GETTER(aclGetDataType, aclDataType, dataType, dtype)

aclnnStatus meta_tensor_set_data(const char *fn, const aclTensor *tensor, void *addr) {
    aclTensor *t = acquire_tensor(tensor, true);
    if (!t) {
        aclStubSetErrMsg("%s: argument 'tensor' (%p) is not a live aclTensor", fn, (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    t->data = addr;
    release_tensor();
    return OK;
}

aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
    if (tensor == NULL) {
        aclStubSetErrMsg("aclSetRawTensorAddr: argument 'tensor' is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return meta_tensor_set_data("aclSetRawTensorAddr", tensor, addr);
}

FIELD_GETTER(aclGetRawTensorAddr, void *, addr, data)

/*
 * Dumping is configured through the runtime's dump settings, which the stub does not have, so this is
 * CANN's call with dumping off: the arguments are checked (every tensor live, the stream live) and nothing
 * is written.
 */
aclnnStatus aclDumpOpTensors(const char *opType, const char *opName, aclTensor **tensors, size_t inputTensorNum,
                             size_t outputTensorNum, aclrtStream stream) {
    const char *null = opType == NULL ? "opType" : opName == NULL ? "opName" : tensors == NULL ? "tensors"
                                                  : stream == NULL ? "stream" : NULL;
    if (null) {
        aclStubSetErrMsg("aclDumpOpTensors: argument '%s' is NULL", null);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    size_t total;
    if (__builtin_add_overflow(inputTensorNum, outputTensorNum, &total)) {
        aclStubSetErrMsg("aclDumpOpTensors: inputTensorNum + outputTensorNum overflows");
        return ACLNN_ERR_PARAM_INVALID;
    }
    for (size_t i = 0; i < total; i++) {
        if (tensors[i] != NULL && !aclStubTensorIsLive(tensors[i])) {
            aclStubSetErrMsg("aclDumpOpTensors: tensors[%zu] (%p) is not a live aclTensor", i, (void *)tensors[i]);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    if (!aclStubStreamIsLive(stream)) {
        aclStubSetErrMsg("aclDumpOpTensors: argument 'stream' (%p) is not a live stream", stream);
        return ACLNN_ERR_PARAM_INVALID;
    }
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
    if (s) {
        s->dtype = dataType;
        memcpy(s->value, value, size);
    }
    aclScalar *token = s ? handle_insert(&scalars, s) : NULL;
    if (!token) {
        free(s);
        aclStubSetErrMsg("aclCreateScalar: out of host memory");
    }
    return token;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    if (scalar == NULL) return OK;
    aclScalar *s = handle_remove(&scalars, scalar);
    if (!s) {
        aclStubSetErrMsg("aclDestroyScalar: argument 'scalar' (%p) is not a live aclScalar", (const void *)scalar);
        return ACLNN_ERR_PARAM_INVALID;
    }
    free(s);
    return OK;
}

bool meta_scalar_copy(const aclScalar *scalar, aclDataType *dtype, unsigned char value[16]) {
    const aclScalar *s = handle_acquire(&scalars, scalar);
    if (!s) return false;
    *dtype = s->dtype;
    memcpy(value, s->value, sizeof s->value);
    handle_release(&scalars);
    return true;
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
    if (a && values) {
        a->size = size;
        a->values = values;
        if (size) memcpy(values, value, size * sizeof *values);
    }
    aclIntArray *token = a && values ? handle_insert(&int_arrays, a) : NULL;
    if (!token) {
        free(a);
        free(values);
        aclStubSetErrMsg("aclCreateIntArray: out of host memory");
    }
    return token;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    if (array == NULL) return OK;
    aclIntArray *a = handle_remove(&int_arrays, array);
    if (!a) {
        aclStubSetErrMsg("aclDestroyIntArray: argument 'array' (%p) is not a live aclIntArray", (const void *)array);
        return ACLNN_ERR_PARAM_INVALID;
    }
    free(a->values);
    free(a);
    return OK;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
    if (array == NULL || size == NULL) {
        aclStubSetErrMsg("aclGetIntArraySize: argument '%s' is NULL", array == NULL ? "array" : "size");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!meta_int_array_size(array, size)) {
        aclStubSetErrMsg("aclGetIntArraySize: argument 'array' (%p) is not a live aclIntArray", (const void *)array);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return OK;
}

bool meta_int_array_size(const aclIntArray *array, uint64_t *size) {
    const aclIntArray *a = handle_acquire(&int_arrays, array);
    if (!a) return false;
    *size = a->size;
    handle_release(&int_arrays);
    return true;
}

bool meta_int_array_copy(const aclIntArray *array, int64_t *dst, uint64_t size) {
    const aclIntArray *a = handle_acquire(&int_arrays, array);
    if (!a) return false;
    bool ok = a->size == size;
    if (ok && size) memcpy(dst, a->values, size * sizeof *dst);
    handle_release(&int_arrays);
    return ok;
}

bool aclStubIntArrayIsLive(const aclIntArray *array) { return handle_is_live(&int_arrays, array); }

uint64_t aclStubLiveTensors(void) { return handle_count(&tensors); }
uint64_t aclStubLiveScalars(void) { return handle_count(&scalars); }
uint64_t aclStubLiveIntArrays(void) { return handle_count(&int_arrays); }

bool aclStubScalarIsLive(const aclScalar *scalar) { return handle_is_live(&scalars, scalar); }
