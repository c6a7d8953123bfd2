/* The weighted gather-and-sum kernel of the unpermute operators (see aclStubWeightedGatherSum in
 * aclstub/op_sdk.h), and the float32 loads it reads its rows and weights with. */
#include <stdlib.h>

#include "stub_internal.h"

float aclStubLoad2F32(const aclStubTensorDesc *t, int64_t i, int64_t j) {
    const void *p = aclStubElem2(t, i, j);
    if (t->dtype == ACL_FLOAT) return *(const float *)p;
    return t->dtype == ACL_BF16 ? aclStubBf16ToF32(*(const uint16_t *)p) : aclStubF16ToF32(*(const uint16_t *)p);
}

void aclStubStore2F32(const aclStubTensorDesc *t, int64_t i, int64_t j, float f) {
    void *p = aclStubElem2(t, i, j);
    if (t->dtype == ACL_FLOAT)
        *(float *)p = f;
    else
        *(uint16_t *)p = t->dtype == ACL_BF16 ? aclStubF32ToBf16(f) : aclStubF32ToF16(f);
}

void aclStubRowLoadViewF32(float *dst, const aclStubTensorDesc *t, int64_t row) {
    int64_t h = t->dims[1];
    if (t->strides[1] == 1 || h == 1) {
        aclStubRowLoadF32(dst, aclStubElem2(t, row, 0), t->dtype, h);
        return;
    }
    for (int64_t j = 0; j < h; j++) dst[j] = aclStubLoad2F32(t, row, j);
}

const float *aclStubRowViewF32(float *scratch, const aclStubTensorDesc *t, int64_t row) {
    if (t->dtype == ACL_FLOAT && (t->strides[1] == 1 || t->dims[1] == 1)) return aclStubElem2(t, row, 0);
    aclStubRowLoadViewF32(scratch, t, row);
    return scratch;
}

/* Rows up to this many elements keep their buffers on the stack: small calls skip malloc entirely. */
#define STACK_ROW 1024

static void weighted_range(void *arg, int64_t begin, int64_t end) {
    const aclStubWeightedGatherSum *g = arg;
    int64_t h = g->out->dims[1];
    bool direct = g->out->dtype == ACL_FLOAT; /* fp32 accumulates straight into the output row */
    float stack_acc[STACK_ROW], stack_row[STACK_ROW];
    bool small = h <= STACK_ROW;
    float *acc = small ? stack_acc : malloc((size_t)h * sizeof(float));
    float *row = small ? stack_row : malloc((size_t)h * sizeof(float));
    size_t out_row_bytes = (size_t)h * aclDataTypeSize(g->out->dtype);
    for (int64_t t = begin; t < end; t++) {
        void *out_row = aclStubElem2(g->out, t, 0);
        if (!acc || !row) { /* out of memory inside a kernel cannot be reported per row: zero rows */
            memset(out_row, 0, out_row_bytes);
            continue;
        }
        float *a = direct ? (float *)out_row : acc;
        for (int64_t k = 0; k < g->k; k++) {
            int64_t d = aclStubIndex1(g->idx, t * g->k + k);
            float w = 0.0f;
            bool taken = d >= g->lo && d < g->hi && (w = aclStubLoad2F32(g->weights, t, k)) != 0.0f;
            if (!taken) {
                if (k == 0) memset(a, 0, (size_t)h * sizeof(float));
                continue;
            }
            aclStubRowMulAccF32(a, aclStubRowViewF32(row, g->src, d - g->lo), w, k == 0, h);
        }
        if (!direct) aclStubRowStoreF32(out_row, acc, g->out->dtype, h);
    }
    if (!small) {
        free(acc);
        free(row);
    }
}

void aclStubRowWeightedGatherSum(const aclStubWeightedGatherSum *g) {
    int64_t n = g->out->dims[0], h = g->out->dims[1];
    if (n <= 0 || h <= 0) return;
    /* Enough rows per chunk that thread start-up is paid for; bounded below by one row. */
    aclStubParallelFor(n, (int64_t)(65536 / (g->k * h + 1)) + 1, weighted_range, (void *)g);
}
