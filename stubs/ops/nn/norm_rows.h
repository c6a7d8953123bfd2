/*
 * Row access shared by the normalisation operator files of ops-nn (internal, not installed): a table's tensor and
 * parameter name by 1-based index (0: absent), and one row of n elements read or written as float, through the
 * row kernels when the tensor is contiguous and element by element otherwise.
 */
#ifndef ACLSTUB_OPS_NN_NORM_ROWS_H_
#define ACLSTUB_OPS_NN_NORM_ROWS_H_

#include "aclstub/op_sdk.h"

static const aclStubTensorDesc *T(const aclStubOpCall *c, int i) { return i > 0 ? aclStubOpTensor(c, i - 1) : NULL; }
static const char *NAME(const aclStubOpCall *c, int i) { return aclStubOpName(c, i - 1); }

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t s = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != s) return false;
        s *= t->dims[d];
    }
    return true;
}

/* ---- rows ------------------------------------------------------------------------------------------------- */

static void load_row(float *dst, const aclStubTensorDesc *t, int64_t r, int64_t n) {
    if (contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowLoadF32(dst, (const char *)t->data + (t->offset + r * n) * (int64_t)es, t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) dst[j] = aclStubLoadPtrF32(t->dtype, aclStubElemAt(t, r * n + j));
}

static void store_row(const aclStubTensorDesc *t, int64_t r, const float *src, int64_t n) {
    if (contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowStoreF32((char *)t->data + (t->offset + r * n) * (int64_t)es, src, t->dtype, n);
        return;
    }

#endif /* ACLSTUB_OPS_NN_NORM_ROWS_H_ */
