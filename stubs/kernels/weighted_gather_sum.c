/* The weighted gather-and-sum kernel of the unpermute operators (see aclStubWeightedGatherSum in
 * aclstub/op_sdk.h), and the float32 loads it reads its rows and weights with. */
#include <stdlib.h>

#include "stub_internal.h"

/* Elements [off, off + len) of row `row` of a 2-D view as float32, into dst. */
static void segment_f32(float *dst, const aclStubTensorDesc *t, int64_t row, int64_t off, int64_t len) {
    if (t->strides[1] == 1 || t->dims[1] == 1) {
        aclStubRowLoadF32(dst, aclStubElem2(t, row, off), t->dtype, len);
        return;
    }
    for (int64_t j = 0; j < len; j++) dst[j] = aclStubLoad2F32(t, row, off + j);
}

/* The same segment without a copy when it already is float32 and contiguous, else converted into scratch. */
static const float *segment_view_f32(float *scratch, const aclStubTensorDesc *t, int64_t row, int64_t off,
                                     int64_t len) {
    if (t->dtype == ACL_FLOAT && (t->strides[1] == 1 || t->dims[1] == 1)) return aclStubElem2(t, row, off);
    segment_f32(scratch, t, row, off, len);
    return scratch;
}

void aclStubRowLoadViewF32(float *dst, const aclStubTensorDesc *t, int64_t row) {
    segment_f32(dst, t, row, 0, t->dims[1]);
}

const float *aclStubRowViewF32(float *scratch, const aclStubTensorDesc *t, int64_t row) {
    return segment_view_f32(scratch, t, row, 0, t->dims[1]);
}

/* Columns per block: a block of the sum, and one of a converted source row, stay in the L1 cache while
 * the K slots of a token are added; every column is still summed in slot order. */
#define BLOCK 1024

typedef struct {
    int64_t row; /* source row d - lo */
    float w;
    bool first; /* slot 0: its product initialises the sum */
} Taken;

static void weighted_range(void *arg, int64_t begin, int64_t end) {
    const aclStubWeightedGatherSum *g = arg;
    int64_t h = g->out->dims[1];
    bool direct = g->out->dtype == ACL_FLOAT; /* fp32 accumulates straight into the output row */
    float acc[BLOCK], scratch[BLOCK];
    Taken *taken = malloc((size_t)g->k * sizeof *taken);
    size_t esize = aclDataTypeSize(g->out->dtype);
    for (int64_t t = begin; t < end; t++) {
        char *out_row = aclStubElem2(g->out, t, 0);
        if (!taken) { /* out of memory inside a kernel cannot be reported per row: zero rows */
            memset(out_row, 0, (size_t)h * esize);
            continue;
        }
        /* Slot k is taken when its rank is in the window and its weight is not 0 (NaN is taken): a skipped
         * slot reads nothing. */
        int64_t n = 0;
        for (int64_t k = 0; k < g->k; k++) {
            int64_t d = aclStubIndex1(g->idx, t * g->k + k);
            if (d < g->lo || d >= g->hi) continue;
            float w = aclStubLoad2F32(g->weights, t, k);
            if (w != 0.0f) taken[n++] = (Taken){d - g->lo, w, k == 0};
        }
        for (int64_t off = 0; off < h; off += BLOCK) {
            int64_t len = h - off < BLOCK ? h - off : BLOCK;
            float *a = direct ? (float *)(void *)out_row + off : acc;
            if (n == 0 || !taken[0].first) memset(a, 0, (size_t)len * sizeof(float)); /* +0.0 */
            for (int64_t i = 0; i < n; i++)
                aclStubRowMulAccF32(a, segment_view_f32(scratch, g->src, taken[i].row, off, len), taken[i].w,
                                    taken[i].first, len);
            if (!direct) aclStubRowStoreF32(out_row + off * (int64_t)esize, acc, g->out->dtype, len);
        }
    }
    free(taken);
}

void aclStubRowWeightedGatherSum(const aclStubWeightedGatherSum *g) {
    int64_t n = g->out->dims[0], h = g->out->dims[1];
    if (n <= 0 || h <= 0) return;
    /* Enough rows per chunk that thread start-up is paid for; bounded below by one row. */
    aclStubParallelFor(n, (int64_t)(65536 / (g->k * h + 1)) + 1, weighted_range, (void *)g);
}
