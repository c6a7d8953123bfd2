/*
 * Routing maps shared by aclnnMoeTokenPermuteWithRoutingMap and its backward: a (T, E) INT8 or BOOL view in
 * which any non-zero byte marks token t as routed to expert e. Both operators enumerate the set entries
 * expert-major (expert 0's tokens in ascending id, then expert 1's, ...), which is the order of
 * masked_select(routingMap.T).
 */
#ifndef ACLNN_STUB_ROUTING_MAP_COMMON_H_
#define ACLNN_STUB_ROUTING_MAP_COMMON_H_

#include "op_common.h"

/* Byte pointer to map[t, 0]; element e is at [e * map->strides[1]]. Both map dtypes are one byte wide. */
static inline const uint8_t *rm_row(const aclTensor *map, int64_t t) {
    return (const uint8_t *)map->data + map->offset + t * map->strides[0];
}

/*
 * offsets[e] = number of set entries in the columns before e, offsets[E] = all set entries: the expert-major
 * rank of column e's first set entry. offsets has E + 1 entries.
 */
void rm_expert_offsets(const aclTensor *map, int64_t *offsets);

#endif /* ACLNN_STUB_ROUTING_MAP_COMMON_H_ */
