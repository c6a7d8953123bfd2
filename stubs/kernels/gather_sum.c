/* The gather-and-sum kernel shared by the backward operators (see aclStubGatherSum in aclstub/op_sdk.h). */
#include <stdlib.h>

#include "stub_internal.h"

typedef struct {
    const aclStubGatherSum *g;
    int64_t h, rows_per_group; /* rows_per_group: C of a 3-D (E, C, H) source, else 0 */
    size_t esize;
} GatherCtx;

/* Pointer to a contiguous copy of source row r: the row itself when its elements are adjacent. */
static const void *source_row(const GatherCtx *c, int64_t r, void *scratch) {
    const aclStubTensorDesc *s = c->g->src;
    int64_t base, inner;
    if (c->rows_per_group) {
        base = s->offset + (r / c->rows_per_group) * s->strides[0] + (r % c->rows_per_group) * s->strides[1];
        inner = s->strides[2];
    } else {
        base = s->offset + r * s->strides[0];
        inner = s->strides[1];
    }
    const char *p = (const char *)s->data + base * (int64_t)c->esize;
    if (inner == 1 || c->h == 1) return p;
    for (int64_t j = 0; j < c->h; j++) memcpy((char *)scratch + j * c->esize, p + j * inner * (int64_t)c->esize, c->esize);
    return scratch;
}

typedef void RowAdd(float *dst, const void *src, aclDataType dtype, int64_t n);

/* Output row t into the float row a, combining its terms as g->init says, with `add` for the sums. */
static void sum_row(const GatherCtx *c, int64_t t, float *a, void *scratch, RowAdd *add) {
    const aclStubGatherSum *g = c->g;
    aclDataType dt = g->src->dtype;
    bool have = false;
    for (int64_t k = 0; k < g->k; k++) {
        int64_t d = aclStubIndex1(g->idx, t * g->k + k);
        if (d >= g->lo && d < g->hi) {
            const void *row = source_row(c, d - g->lo, scratch);
            if (have)
                add(a, row, dt, c->h);
            else if (g->init == ACLSTUB_SUM_ZERO_INIT) {
                memset(a, 0, (size_t)c->h * sizeof(float));
                add(a, row, dt, c->h);
            } else
                aclStubRowLoadF32(a, row, dt, c->h);
            have = true;
        } else if (!have && k == 0) {
            memset(a, 0, (size_t)c->h * sizeof(float));
            have = true;
        } else if (g->init == ACLSTUB_SUM_COPY_FIRST_ADD_ZERO && have) {
            aclStubRowAddZeroF32(a, c->h);
        }
    }
    if (!have) memset(a, 0, (size_t)c->h * sizeof(float)); /* K == 0 cannot happen; kept for safety */
}

/* Rows up to this many elements keep their scratch on the stack: small calls skip malloc entirely. */
#define STACK_ROW 1024

static void gather_range(void *arg, int64_t begin, int64_t end) {
    const GatherCtx *c = arg;
    const aclStubGatherSum *g = c->g;
    aclDataType dt = g->src->dtype;
    bool direct = dt == ACL_FLOAT; /* fp32 accumulates straight into the output row */
    float stack_acc[STACK_ROW], stack_scratch[STACK_ROW];
    bool small = c->h <= STACK_ROW;
    float *acc = direct ? NULL : small ? stack_acc : malloc((size_t)c->h * sizeof(float));
    void *scratch = small ? (void *)stack_scratch : malloc((size_t)c->h * c->esize);
    if ((!direct && !acc) || !scratch) {
        /* Out of memory inside a kernel cannot be reported per row; fall back to zero rows. */
        for (int64_t t = begin; t < end; t++) memset(aclStubElem2(g->out, t, 0), 0, (size_t)c->h * c->esize);
        if (!small) {
            free(acc);
            free(scratch);
        }
        return;
    }
    for (int64_t t = begin; t < end; t++) {
        float *a = direct ? (float *)aclStubElem2(g->out, t, 0) : acc;
        sum_row(c, t, a, scratch, aclStubRowAddF32Fast);
        if (aclStubRowAnyNaN(a, c->h)) sum_row(c, t, a, scratch, aclStubRowAddF32); /* rare: NaN payloads */
        if (!direct) aclStubRowStoreF32(aclStubElem2(g->out, t, 0), acc, dt, c->h);
    }
    if (!small) {
        free(acc);
        free(scratch);
    }
}

void aclStubRowGatherSum(const aclStubGatherSum *g) {
    GatherCtx c = {g, g->out->dims[1], g->src->ndim == 3 ? g->src->dims[1] : 0, aclDataTypeSize(g->src->dtype)};
    int64_t n = g->out->dims[0];
    if (n <= 0 || c.h <= 0) return;
    /* Enough rows per chunk that thread start-up is paid for; bounded below by one row. */
    int64_t min_chunk = (int64_t)(65536 / (g->k * c.h + 1)) + 1;
    aclStubParallelFor(n, min_chunk, gather_range, &c);
}
