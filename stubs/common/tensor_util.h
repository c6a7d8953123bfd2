/* Small tensor helpers shared by the executor machinery and the kernels. */
#ifndef ACLNN_STUB_TENSOR_UTIL_H_
#define ACLNN_STUB_TENSOR_UTIL_H_

#include "stub_internal.h"

/* Number of elements of the view; 0 if any dimension is 0 or negative. */
static inline int64_t stub_numel(const aclTensor *t) {
    int64_t n = 1;
    for (uint64_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] <= 0) return 0;
        if (__builtin_mul_overflow(n, t->dims[i], &n)) return INT64_MAX;
    }
    return n;
}

/*
 * Byte range [*lo, *hi) that the view can address, relative to t->data. false if the arithmetic overflows.
 * Only meaningful for a non-empty view.
 */
static inline bool stub_tensor_byte_range(const aclTensor *t, int64_t *lo, int64_t *hi) {
    int64_t esize = (int64_t)aclDataTypeSize(t->dtype);
    int64_t min_e = t->offset, max_e = t->offset;
    for (uint64_t i = 0; i < t->ndim; i++) {
        int64_t span;
        if (__builtin_mul_overflow(t->dims[i] - 1, t->strides[i], &span)) return false;
        if (__builtin_add_overflow(span < 0 ? min_e : max_e, span, span < 0 ? &min_e : &max_e)) return false;
    }
    if (__builtin_mul_overflow(min_e, esize, lo)) return false;
    if (__builtin_add_overflow(max_e, 1, &max_e) || __builtin_mul_overflow(max_e, esize, hi)) return false;
    return true;
}

#endif /* ACLNN_STUB_TENSOR_UTIL_H_ */
