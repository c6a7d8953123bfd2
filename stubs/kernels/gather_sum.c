/*
 * The gather-and-sum kernel shared by the backward operators (see aclStubGatherSum in aclstub/op_sdk.h): each
 * output row lists its terms (the source rows it sums, in order) and aclStubRowSumTerms adds them up.
 */
#include <stdlib.h>

#include "stub_internal.h"

/* Output rows of up to this many terms keep their term lists (this row's and the next's) on the stack. */
#define STACK_TERMS 64

typedef struct {
    const aclStubGatherSum *g;
    int64_t h, rows_per_group; /* rows_per_group: C of a 3-D (E, C, H) source, else 0 */
    int64_t inner;             /* element stride inside a source row (1 for a single column) */
    size_t esize;
    bool stream; /* output much larger than the caches: non-temporal stores */
    int failed;  /* a chunk could not get its term lists (out of memory): the kernel fails */
} GatherCtx;

static const void *source_row(const GatherCtx *c, int64_t r) {
    const aclStubTensorDesc *s = c->g->src;
    int64_t base = c->rows_per_group
                       ? s->offset + (r / c->rows_per_group) * s->strides[0] + (r % c->rows_per_group) * s->strides[1]
                       : s->offset + r * s->strides[0];
    return (const char *)s->data + base * (int64_t)c->esize;
}

/* Output row t's terms, combined as g->init says (aclStubSumInit); a skipped slot that adds +0.0 is NULL. */
static void row_terms(const GatherCtx *c, int64_t t, aclStubTerms *x) {
    const aclStubGatherSum *g = c->g;
    x->n = 0;
    x->zero_init = true;
    for (int64_t k = 0; k < g->k; k++) {
        int64_t d = aclStubIndex1(g->idx, t * g->k + k);
        if (d >= g->lo && d < g->hi) {
            if (k == 0 && g->init != ACLSTUB_SUM_ZERO_INIT) x->zero_init = false;
            x->rows[x->n++] = source_row(c, d - g->lo);
        } else if (k > 0 && g->init == ACLSTUB_SUM_COPY_FIRST_ADD_ZERO) {
            x->rows[x->n++] = NULL;
        }
    }
}

static void gather_range(void *arg, int64_t begin, int64_t end) {
    const GatherCtx *c = arg;
    const aclStubGatherSum *g = c->g;
    const void *stack_rows[2 * STACK_TERMS];
    const void **rows = g->k <= STACK_TERMS ? stack_rows : malloc(2 * (size_t)g->k * sizeof *rows);
    if (!rows) { /* out of memory: the kernel fails, never with rows silently zeroed */
        __atomic_store_n(&((GatherCtx *)arg)->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    /* The next row's terms are known while this one is summed, so they can be fetched ahead. */
    aclStubTerms cur = {rows, NULL, 0, true}, next = {rows + g->k, NULL, 0, true};
    row_terms(c, begin, &cur);
    for (int64_t t = begin; t < end; t++) {
        next.n = 0;
        if (t + 1 < end) row_terms(c, t + 1, &next);
        aclStubRowSumTerms(aclStubElem2(g->out, t, 0), &cur, c->inner, g->src->dtype, c->h, c->stream, &next);
        aclStubTerms done = cur;
        cur = next;
        next = done;
    }
    if (c->stream) aclStubStreamFence();
    if (rows != stack_rows) free(rows);
}

bool aclStubRowGatherSum(const aclStubGatherSum *g) {
    const aclStubTensorDesc *s = g->src;
    int64_t h = g->out->dims[1], n = g->out->dims[0];
    if (n <= 0 || h <= 0) return true;
    size_t esize = aclDataTypeSize(s->dtype);
    GatherCtx c = {g, h, s->ndim == 3 ? s->dims[1] : 0, h == 1 ? 1 : s->strides[s->ndim - 1], esize,
                   n * h * (int64_t)esize >= ACLSTUB_STREAM_MIN_BYTES, 0};
    /* Enough rows per chunk that thread start-up is paid for; bounded below by one row. */
    int64_t min_chunk = (int64_t)(65536 / (g->k * h + 1)) + 1;
    aclStubParallelFor(n, min_chunk, gather_range, &c);
    return !c.failed;
}
