/* Routing-map scans shared by the routing-map operators (see routing_map_common.h). */
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
