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

/* Token rows of up to this many slots keep their term lists (this token's and the next's) on the stack. */
#define STACK_TERMS 64

/* Token t's terms: slot k is taken when its rank is in the window and its weight is not 0 (NaN is taken); a
 * skipped slot reads nothing. The sum starts from slot 0's product, or from +0.0 when slot 0 is skipped. */
static void token_terms(const aclStubWeightedGatherSum *g, int64_t t, aclStubTerms *x, float *w) {
    x->n = 0;
    x->zero_init = true;
    for (int64_t k = 0; k < g->k; k++) {
        int64_t d = aclStubIndex1(g->idx, t * g->k + k);
        if (d < g->lo || d >= g->hi) continue;
        float wk = aclStubLoad2F32(g->weights, t, k);
        if (wk == 0.0f) continue;
        if (k == 0) x->zero_init = false;
        x->rows[x->n] = aclStubElem2(g->src, d - g->lo, 0);
        w[x->n++] = wk;
    }
}

typedef struct {
    const aclStubWeightedGatherSum *g;
    int failed; /* a chunk could not get its term lists (out of memory): the kernel fails */
} WeightedCtx;

static void weighted_range(void *arg, int64_t begin, int64_t end) {
    const aclStubWeightedGatherSum *g = ((WeightedCtx *)arg)->g;
    int64_t h = g->out->dims[1];
    size_t esize = aclDataTypeSize(g->out->dtype);
    const void *stack_rows[2 * STACK_TERMS];
    float stack_w[2 * STACK_TERMS];
    bool small = g->k <= STACK_TERMS;
    const void **rows = small ? stack_rows : malloc(2 * (size_t)g->k * sizeof *rows);
    float *w = small ? stack_w : malloc(2 * (size_t)g->k * sizeof *w);
    if (!rows || !w) { /* out of memory: the kernel fails, never with rows silently zeroed */
        __atomic_store_n(&((WeightedCtx *)arg)->failed, 1, __ATOMIC_RELAXED);
    } else {
        int64_t inner = h == 1 ? 1 : g->src->strides[1];
        bool stream = g->out->dims[0] * h * (int64_t)esize >= ACLSTUB_STREAM_MIN_BYTES;
        /* The next token's terms are known while this one is summed, so they can be fetched ahead. */
        float *cur_w = w, *next_w = w + g->k;
        aclStubTerms cur = {rows, cur_w, 0, true}, next = {rows + g->k, next_w, 0, true};
        token_terms(g, begin, &cur, cur_w);
        for (int64_t t = begin; t < end; t++) {
            next.n = 0;
            if (t + 1 < end) token_terms(g, t + 1, &next, next_w);
            aclStubRowSumTerms(aclStubElem2(g->out, t, 0), &cur, inner, g->src->dtype, h, stream, &next);
            aclStubTerms done = cur;
            float *done_w = cur_w;
            cur = next;
            cur_w = next_w;
            next = done;
            next_w = done_w;
        }
        if (stream) aclStubStreamFence();
    }
    if (!small) {
        free(rows);
        free(w);
    }
}
bool aclStubRowWeightedGatherSum(const aclStubWeightedGatherSum *g) {
    int64_t n = g->out->dims[0], h = g->out->dims[1];
    if (n <= 0 || h <= 0) return true;
    WeightedCtx c = {g, 0};
    /* Enough rows per chunk that thread start-up is paid for; bounded below by one row. */
    aclStubParallelFor(n, (int64_t)(65536 / (g->k * h + 1)) + 1, weighted_range, &c);
    return !c.failed;
}
