/* The expert sort and drop/pad ranks shared by the init-routing operators (see init_routing_common.h). */
#include <stdlib.h>

#include "init_routing_common.h"

typedef struct {
    const IrSorted *s;
    const aclStubTensorDesc *expert_idx;
    int64_t first_id;
    int64_t *keys;
    int32_t *row_idx;
    int64_t *src_rows;
    int64_t e, c;
} SortCtx;

int64_t ir_lower_bound(const int64_t *v, int64_t lo, int64_t hi, int64_t key) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void load_keys(void *arg, int64_t begin, int64_t end) {
    const SortCtx *c = arg;
    int64_t k = c->s->k;
    for (int64_t i = begin; i < end; i++) {
        int64_t id = *(const int32_t *)aclStubElem2(c->expert_idx, i / k, i % k);
        c->keys[i] = id < c->first_id ? IR_KEY_LAST : id;
    }
}

static void gather_sorted(void *arg, int64_t begin, int64_t end) {
    const SortCtx *c = arg;
    for (int64_t j = begin; j < end; j++) c->s->sorted[j] = c->keys[c->s->order[j]];
}

bool ir_sort_slots(const aclStubTensorDesc *expert_idx, int64_t k, int64_t t, int64_t first_id, IrSorted *out) {
    size_t n1 = (size_t)(t > 0 ? t : 1);
    *out = (IrSorted){t, k, malloc(n1 * sizeof(int32_t)), malloc(n1 * sizeof(int64_t))};
    SortCtx c = {out, expert_idx, first_id, malloc(n1 * sizeof(int64_t)), NULL, NULL, 0, 0};
    bool ok = out->order && out->sorted && c.keys;
    if (ok) {
        aclStubParallelFor(t, 65536, load_keys, &c);
        ok = aclStubStableArgsort(c.keys, t, out->order);
    }
    if (ok) aclStubParallelFor(t, 65536, gather_sorted, &c);
    free(c.keys);
    if (!ok) ir_sorted_free(out);
    return ok;
}

void ir_sorted_free(IrSorted *s) {
    free(s->order);
    free(s->sorted);
    s->order = NULL;
    s->sorted = NULL;
}

/* A chunk finds the start of its first group by binary search, so chunks are independent. */
static void drop_pad_row_idx_range(void *arg, int64_t begin, int64_t end) {
    const SortCtx *c = arg;
    const int64_t *sorted = c->s->sorted;
    int64_t start = ir_lower_bound(sorted, 0, begin, sorted[begin]);
    for (int64_t j = begin; j < end; j++) {
        int64_t id = sorted[j];
        if (j > begin && id != sorted[j - 1]) start = j;
        int64_t rank = j - start;
        bool keep = id >= 0 && id < c->e && rank < c->c;
        c->row_idx[c->s->order[j]] = keep ? (int32_t)(id * c->c + rank) : -1;
    }
}

void ir_drop_pad_row_idx(const IrSorted *s, int32_t *row_idx, int64_t e, int64_t c) {
    SortCtx ctx = {s, NULL, 0, NULL, row_idx, NULL, e, c};
    aclStubParallelFor(s->t, 65536, drop_pad_row_idx_range, &ctx);
}

static void drop_pad_sources_range(void *arg, int64_t begin, int64_t end) {
    const SortCtx *c = arg;
    const IrSorted *s = c->s;
    int64_t cur = -1, first = 0, last = 0;
    for (int64_t d = begin; d < end; d++) {
        int64_t id = d / c->c, r = d % c->c;
        if (id != cur) {
            cur = id;
            first = ir_lower_bound(s->sorted, 0, s->t, id);
            last = ir_lower_bound(s->sorted, first, s->t, id + 1);
        }
        c->src_rows[d] = first + r < last ? s->order[first + r] / s->k : ACLSTUB_ROW_ZERO;
    }
}

void ir_drop_pad_sources(const IrSorted *s, int64_t *src_rows, int64_t e, int64_t c) {
    SortCtx ctx = {s, NULL, 0, NULL, NULL, src_rows, e, c};
    aclStubParallelFor(e * c, 65536, drop_pad_sources_range, &ctx);
}
