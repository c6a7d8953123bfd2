/* Routing-map scans shared by the routing-map operators (see routing_map_common.h). */
#include <stdlib.h>

#include "routing_map_common.h"

typedef struct {
    const aclStubTensorDesc *map;
    int64_t *counts; /* counts[e] = set entries of column e */
} CountCtx;

/* Each thread owns a range of experts and walks the rows, so the map is read row by row, not column-wise. */
static void count_range(void *arg, int64_t e0, int64_t e1) {
    const CountCtx *c = arg;
    int64_t t_n = c->map->dims[0], s1 = c->map->strides[1];
    int64_t *cnt = c->counts;
    for (int64_t e = e0; e < e1; e++) cnt[e] = 0;
    for (int64_t t = 0; t < t_n; t++) {
        const uint8_t *row = rm_row(c->map, t);
        for (int64_t e = rm_next_set(row, s1, e0, e1); e < e1; e = rm_next_set(row, s1, e + 1, e1)) cnt[e]++;
    }
}

void rm_expert_offsets(const aclStubTensorDesc *map, int64_t *offsets) {
    int64_t t_n = map->dims[0], e_n = map->dims[1];
    /* The counts land one slot up so the prefix sum can run in place. */
    offsets[0] = 0;
    if (e_n > 0 && t_n > 0) {
        CountCtx c = {map, offsets + 1};
        aclStubParallelFor(e_n, 1 + 65536 / (t_n + 1), count_range, &c);
    } else {
        for (int64_t e = 0; e < e_n; e++) offsets[e + 1] = 0;
    }
    for (int64_t e = 0; e < e_n; e++) offsets[e + 1] += offsets[e];
}

/* ---- rows through strides ---- */

const void *rm_load_row(const aclStubTensorDesc *src, int64_t r, int64_t c0, int64_t n, void *scratch) {
    int64_t es = (int64_t)aclDataTypeSize(src->dtype), inner = src->strides[1];
    const char *p = (const char *)src->data + (src->offset + r * src->strides[0] + c0 * inner) * es;
    if (inner == 1 || n == 1) return p;
    for (int64_t j = 0; j < n; j++) memcpy((char *)scratch + j * es, p + j * inner * es, (size_t)es);
    return scratch;
}

void rm_store_row(const aclStubTensorDesc *out, int64_t t, int64_t c0, const float *acc, int64_t n) {
    if (out->strides[1] == 1 || n == 1) {
        aclStubRowStoreF32(aclStubElem2(out, t, c0), acc, out->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) {
        void *p = aclStubElem2(out, t, c0 + j);
        if (out->dtype == ACL_FLOAT)
            memcpy(p, &acc[j], 4);
        else {
            uint16_t h = out->dtype == ACL_BF16 ? aclStubF32ToBf16(acc[j]) : aclStubF32ToF16(acc[j]);
            memcpy(p, &h, 2);
        }
    }
}

/* ---- ordered index-add ---- */

typedef struct {
    const RmIndexAdd *a;
    int64_t h, hb; /* hb: columns per work item */
    int failed;    /* a chunk could not get its buffers (out of memory) */
} IndexAddCtx;

/* Columns [c0, c0 + n) of token t's sum into acc. Unweighted sums may use plain adds (exact false), which differ
 * from the NaN rule only in the payload a NaN + NaN keeps: rows whose sums hold a NaN are redone exactly. */
static void sum_columns(const RmIndexAdd *a, int64_t t, int64_t c0, int64_t n, float *acc, void *scratch, bool exact) {
    aclDataType dt = a->src->dtype;
    int64_t es = (int64_t)aclDataTypeSize(dt);
    memset(acc, 0, (size_t)n * sizeof(float));
    for (int64_t r = a->start[t]; r < a->start[t + 1]; r++) {
        int64_t row = a->rows[r];
        if (r + 1 < a->start[t + 1] && a->src->strides[1] == 1) {
            /* The rows of a token are scattered: start fetching the next one while this one is summed. */
            const char *q = rm_load_row(a->src, a->rows[r + 1], c0, n, NULL);
            for (int64_t l = 0; l < 16 && l * 64 < n * es; l++) __builtin_prefetch(q + l * 64);
        }
        const void *p = rm_load_row(a->src, row, c0, n, scratch);
        if (a->weights)
            aclStubRowScaleAddRoundedF32(acc, p, dt, a->weights[row], n);
        else if (exact)
            aclStubRowAddF32(acc, p, dt, n);
        else
            aclStubRowAddF32Fast(acc, p, dt, n);
    }
}

static void index_add_range(void *arg, int64_t begin, int64_t end) {
    const IndexAddCtx *c = arg;
    const RmIndexAdd *a = c->a;
    aclDataType dt = a->src->dtype;
    float *acc = malloc((size_t)c->hb * sizeof(float));
    void *scratch = malloc((size_t)c->hb * aclDataTypeSize(dt));
    if (!acc || !scratch) { /* out of memory: the kernel fails, never with outputs silently zeroed */
        __atomic_store_n(&((IndexAddCtx *)arg)->failed, 1, __ATOMIC_RELAXED);
        end = begin;
    }
    for (int64_t it = begin; it < end; it++) {
        int64_t t = it % a->t_n, c0 = it / a->t_n * c->hb, n = c->h - c0 < c->hb ? c->h - c0 : c->hb;
        sum_columns(a, t, c0, n, acc, scratch, false);
        if (!a->weights && aclStubRowAnyNaN(acc, n)) /* rare: NaN payloads (weighted sums are always exact) */
            sum_columns(a, t, c0, n, acc, scratch, true);
        rm_store_row(a->out, t, c0, acc, n);
    }
    free(acc);
    free(scratch);
}

bool rm_index_add(const RmIndexAdd *a) {
    int64_t h = a->out->dims[1];
    if (a->t_n <= 0 || h <= 0) return true;
    /* Tokens that receive most rows must not load one thread: the threads split the columns too. */
    int threads = aclStubNumThreads();
    int64_t hb = (h + threads - 1) / threads;
    if (hb < 512) hb = 512;
    hb = (hb + 15) / 16 * 16;
    if (hb > h) hb = h;
    IndexAddCtx c = {a, h, hb, 0};
    aclStubParallelFor((h + hb - 1) / hb * a->t_n, 1 + 65536 / (hb + 1), index_add_range, &c);
    return !c.failed;
}
