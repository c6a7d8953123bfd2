/*
 * What the routing-map operators share (aclnnMoeTokenPermuteWithRoutingMap, aclnnMoeTokenUnpermuteWithRoutingMap
 * and their backwards). Routing maps: a (T, E) INT8 or BOOL view in
 * which any non-zero byte marks token t as routed to expert e. The permute operators enumerate the set entries
 * expert-major (expert 0's tokens in ascending id, then expert 1's, ...), which is the order of
 * masked_select(routingMap.T).
 */
#ifndef ACLNN_STUB_ROUTING_MAP_COMMON_H_
#define ACLNN_STUB_ROUTING_MAP_COMMON_H_

#include "aclstub/op_sdk.h"

/* Byte pointer to map[t, 0]; element e is at [e * map->strides[1]]. Both map dtypes are one byte wide. */
static inline const uint8_t *rm_row(const aclStubTensorDesc *map, int64_t t) {
    return (const uint8_t *)map->data + map->offset + t * map->strides[0];
}

/*
 * The first set entry of row at or after column e and below e1, or e1 if there is none. Routing maps are sparse
 * (topK of E per row), so a contiguous row is scanned eight bytes at a time.
 */
static inline int64_t rm_next_set(const uint8_t *row, int64_t s1, int64_t e, int64_t e1) {
    if (s1 == 1) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        for (; e + 8 <= e1; e += 8) {
            uint64_t w;
            memcpy(&w, row + e, 8);
            if (w) return e + (__builtin_ctzll(w) >> 3); /* the lowest set byte is the first in memory */
        }
#endif
        for (; e < e1; e++)
            if (row[e]) return e;
        return e1;
    }
    for (; e < e1; e++)
        if (row[e * s1]) return e;
    return e1;
}

/*
 * offsets[e] = number of set entries in the columns before e, offsets[E] = all set entries: the expert-major
 * rank of column e's first set entry. offsets has E + 1 entries.
 */
void rm_expert_offsets(const aclStubTensorDesc *map, int64_t *offsets);

/*
 * Ordered index-add (pad mode of the routing-map operators): for t in [0, T),
 *   out[t] = narrow(+0.0 + term(rows[start[t]]) + term(rows[start[t] + 1]) + ...)   (float32 sums, in order)
 * with term(r) = src[r], or, when weights is set, float(narrow(src[r] * weights[r])) (the product rounded to
 * the dtype of src first). src (P, H) and out (T, H) are read and written through their strides. The work is
 * split by (column block, token), so every element's sum order is the same for any thread count.
 */
typedef struct {
    const aclStubTensorDesc *src, *out;
    const int64_t *start; /* T + 1 entries */
    const int64_t *rows;
    const float *weights; /* per source row, or NULL */
    int64_t t_n;
} RmIndexAdd;
bool rm_index_add(const RmIndexAdd *a); /* false when out of memory (the kernel must fail) */

/* Row t of a (T, H) view as float32 written to columns [c0, c0 + n), through the view's strides. */
void rm_store_row(const aclStubTensorDesc *out, int64_t t, int64_t c0, const float *acc, int64_t n);
/* Columns [c0, c0 + n) of row r of a (rows, H) view: a pointer to n adjacent elements (the row itself, or a copy
 * in scratch of n elements). */
const void *rm_load_row(const aclStubTensorDesc *src, int64_t r, int64_t c0, int64_t n, void *scratch);

#endif /* ACLNN_STUB_ROUTING_MAP_COMMON_H_ */
