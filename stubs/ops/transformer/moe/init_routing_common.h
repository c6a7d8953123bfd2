/*
 * The expert sort shared by aclnnMoeInitRoutingV2 and aclnnMoeInitRoutingV3: the N*K (token, expert) slots of
 * expertIdx ordered stably by expert id, and the capacity ranks of the drop/pad layout built on that order.
 */
#ifndef ACLNN_STUB_INIT_ROUTING_COMMON_H_
#define ACLNN_STUB_INIT_ROUTING_COMMON_H_

#include "aclstub/op_sdk.h"

typedef struct {
    int64_t t, k;    /* slots N*K, topK */
    int32_t *order;  /* sorted position -> slot */
    int64_t *sorted; /* sort key at each sorted position (ascending) */
} IrSorted;

/* Sort key of the ids below `first_id` (V3's active expert range): after every real id, in slot order. */
#define IR_KEY_LAST INT64_MAX

/*
 * Sort the slots of the (N, K) INT32 view expert_idx by key: the id itself, or IR_KEY_LAST for ids below
 * first_id (INT64_MIN keeps every id). Exact integer sort (the device's float32 keys would misorder ids
 * >= 2^24). false when out of memory (nothing to free then).
 */
bool ir_sort_slots(const aclStubTensorDesc *expert_idx, int64_t k, int64_t t, int64_t first_id, IrSorted *out);
void ir_sorted_free(IrSorted *s);

/* First position p in [lo, hi) with v[p] >= key (v ascending). */
int64_t ir_lower_bound(const int64_t *v, int64_t lo, int64_t hi, int64_t key);

/*
 * Drop/pad layout: the slot at sorted position j has rank j - (first position of its id); it is kept when its
 * id is in [0, e) and the rank is below c. row_idx[slot] = id * c + rank for kept slots, -1 for the others.
 */
void ir_drop_pad_row_idx(const IrSorted *s, int32_t *row_idx, int64_t e, int64_t c);
/* Drop/pad layout: src_rows[d] = the token of the slot kept in row d = (id, rank) of (E, C), or ACLSTUB_ROW_ZERO. */
void ir_drop_pad_sources(const IrSorted *s, int64_t *src_rows, int64_t e, int64_t c);

#endif /* ACLNN_STUB_INIT_ROUTING_COMMON_H_ */
