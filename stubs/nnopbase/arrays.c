/* aclFloatArray and aclBoolArray: creation, destruction, size, and value copies for the operators. */
#include <stdlib.h>

#include "meta_vector.h"

_Static_assert(sizeof(bool) == 1, "bool arrays are stored bytewise");

/* A caller's bool array may hold bytes other than 0 and 1 (a C cast, a Python buffer): they are stored as
 * bytes and handed out as proper bools, never read as bool. */
static void copy_out_bools(void *out, const unsigned char *bytes, uint64_t n) {
    bool *dst = out;
    for (uint64_t i = 0; i < n; i++) dst[i] = bytes[i] != 0;
}

static MetaVectorKind float_arrays = META_VECTOR_KIND(HANDLE_FLOAT_ARRAY, "aclFloatArray", float, NULL);
static MetaVectorKind bool_arrays = META_VECTOR_KIND(HANDLE_BOOL_ARRAY, "aclBoolArray", unsigned char,
                                                     copy_out_bools);

__attribute__((constructor)) static void register_array_kinds(void) {
    meta_vector_register_fork_safety(&float_arrays);
    meta_vector_register_fork_safety(&bool_arrays);
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
    return meta_vector_create(&float_arrays, "aclCreateFloatArray", value, size);
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
    return meta_vector_create(&bool_arrays, "aclCreateBoolArray", value, size);
}

static aclnnStatus destroy_array(MetaVectorKind *kind, const char *fn, const void *array) {
    if (array == NULL) return OK;
    MetaVector *v = meta_vector_take(kind, fn, array);
    if (v == NULL) return ACLNN_ERR_PARAM_INVALID;
    free(v);
    return OK;
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
    return destroy_array(&float_arrays, "aclDestroyFloatArray", array);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
    return destroy_array(&bool_arrays, "aclDestroyBoolArray", array);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size) {
    return meta_vector_get_size(&float_arrays, "aclGetFloatArraySize", "array", array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) {
    return meta_vector_get_size(&bool_arrays, "aclGetBoolArraySize", "array", array, size);
}

bool aclStubFloatArrayValues(const aclFloatArray *array, float *values, uint64_t capacity, uint64_t *size) {
    return meta_vector_copy(&float_arrays, array, values, capacity, size);
}

bool aclStubBoolArrayValues(const aclBoolArray *array, bool *values, uint64_t capacity, uint64_t *size) {
    return meta_vector_copy(&bool_arrays, array, values, capacity, size);
}

uint64_t aclStubLiveFloatArrays(void) { return meta_vector_count(&float_arrays); }
uint64_t aclStubLiveBoolArrays(void) { return meta_vector_count(&bool_arrays); }
