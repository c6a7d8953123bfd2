/* synccheck's clocks, shared by the check module's files (sync.c, memory.c); check_lock held. */
#ifndef ACLNN_STUB_CHECK_SYNC_H_
#define ACLNN_STUB_CHECK_SYNC_H_

#include "check.h"

/* Streams beyond this many (per process) are not tracked by synccheck. */
#define CHECK_MAX_STREAMS 256

void check_sync_before_enqueue_locked(int stream);

/* Item `item` of `stream` is known to the host as finished. */
bool check_host_done_locked(int stream, uint64_t item);

/* Item `item` of `stream` happens before the next item queued on stream `next`. */
bool check_ordered_locked(int stream, uint64_t item, int next);

/* Items of a stream the host has not synchronised with. */
uint64_t check_unsynced_items_locked(int stream, uint64_t submitted);

#endif /* ACLNN_STUB_CHECK_SYNC_H_ */
