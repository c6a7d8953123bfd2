/*
 * Row access shared by aclnnMoeFinalizeRoutingV2 and its backward: rows of 2-D views, and of 3-D (E, C, H)
 * views read as E*C rows, as contiguous float32 (exact widening of FLOAT16 and BF16).
 */
#ifndef ACLNN_STUB_FINALIZE_ROUTING_COMMON_H_
#define ACLNN_STUB_FINALIZE_ROUTING_COMMON_H_

#include "aclstub/op_sdk.h"

/* The element at p of a FLOAT, FLOAT16 or BF16 tensor as float. */
static inline float fr_load(const void *p, aclDataType dtype) {
    if (dtype == ACL_FLOAT) return *(const float *)p;
    return dtype == ACL_BF16 ? aclStubBf16ToF32(*(const uint16_t *)p) : aclStubF16ToF32(*(const uint16_t *)p);
}

/* Byte pointer to element 0 of row r, and the element stride along the row. */
static inline const char *fr_row_ptr(const aclStubTensorDesc *t, int64_t r, int64_t *inner) {
    int64_t base;
    if (t->ndim == 3) {
        base = t->offset + (r / t->dims[1]) * t->strides[0] + (r % t->dims[1]) * t->strides[1];
        *inner = t->strides[2];
    } else {
        base = t->offset + r * t->strides[0];
        *inner = t->strides[1];
    }
    return (const char *)t->data + base * (int64_t)aclDataTypeSize(t->dtype);
}

/* Row r (h elements) as contiguous floats: the row itself when it is a contiguous FLOAT row, else a copy in buf. */
static inline const float *fr_row_f32(const aclStubTensorDesc *t, int64_t r, int64_t h, float *buf) {
    int64_t inner;
    const char *p = fr_row_ptr(t, r, &inner);
    if (inner == 1 || h == 1) {
        if (t->dtype == ACL_FLOAT) return (const float *)p;
        aclStubRowLoadF32(buf, p, t->dtype, h);
        return buf;
    }
    int64_t step = inner * (int64_t)aclDataTypeSize(t->dtype);
    for (int64_t j = 0; j < h; j++) buf[j] = fr_load(p + j * step, t->dtype);
    return buf;
}

/* Rows up to this many elements keep their scratch on the stack: small calls skip malloc entirely. */
#define FR_STACK_ROW 1024

#endif /* ACLNN_STUB_FINALIZE_ROUTING_COMMON_H_ */
