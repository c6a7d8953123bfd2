/*
 * Routing maps shared by aclnnMoeTokenPermuteWithRoutingMap and its backward: a (T, E) INT8 or BOOL view in
 * which any non-zero byte marks token t as routed to expert e. Both operators enumerate the set entries
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

#endif /* ACLNN_STUB_ROUTING_MAP_COMMON_H_ */
