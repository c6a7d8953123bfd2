/*
 * synccheck's happens-before relation, as vector clocks. Items on a stream are numbered by the stream's
 * submission count. For each stream, clock[s][j] is the latest item of stream j that the next item of s is
 * ordered after (through events it waited for); host[j] is the latest item of stream j the host has
 * synchronised with (stream, event or device synchronisation, a query that found it complete). Work the
 * host queues after a synchronisation is ordered after what it synchronised with. The relation depends on
 * the program's calls only, never on when the workers happen to run: findings are deterministic.
 * All functions run with check_lock held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_sync.h"

static uint64_t *clocks[CHECK_MAX_STREAMS];
static uint64_t host[CHECK_MAX_STREAMS];
static int stream_count;

static void merge(uint64_t *into, const uint64_t *from) {
    for (int j = 0; j < stream_count; j++)
        if (from[j] > into[j]) into[j] = from[j];
}

int check_stream_id(uint64_t submitted_before) {
    check_lock();
    int id = -1;
    if (stream_count < CHECK_MAX_STREAMS && (clocks[stream_count] = calloc(CHECK_MAX_STREAMS, sizeof(uint64_t)))) {
        id = stream_count++;
        host[id] = submitted_before; /* work queued before tracking began is taken as done */
    }
    check_unlock();
    return id;
}

/* The host's knowledge flows into what it queues next on stream s. */
void check_sync_before_enqueue_locked(int s) {
    if (s >= 0) merge(clocks[s], host);
}

bool check_host_done_locked(int stream, uint64_t item) { return stream < 0 || item <= host[stream]; }

bool check_ordered_locked(int stream, uint64_t item, int next) {
    if (stream < 0 || item <= host[stream] || stream == next) return true;
    return next >= 0 && item <= clocks[next][stream];
}

void check_host_synced_stream(int stream, uint64_t submitted) {
    if (stream < 0) return;
    check_lock();
    merge(host, clocks[stream]);
    if (submitted > host[stream]) host[stream] = submitted;
    check_unlock();
}

uint64_t check_unsynced_items_locked(int stream, uint64_t submitted) {
    return stream >= 0 && submitted > host[stream] ? submitted - host[stream] : 0;
}

void check_event_record(void **slot, int stream, uint64_t item) {
    if (stream < 0) return;
    check_lock();
    if (*slot == NULL) *slot = calloc(CHECK_MAX_STREAMS, sizeof(uint64_t));
    uint64_t *snap = *slot;
    if (snap != NULL) {
        merge(clocks[stream], host);
        memcpy(snap, clocks[stream], CHECK_MAX_STREAMS * sizeof *snap);
        snap[stream] = item;
    }
    check_unlock();
}

void check_stream_wait(int stream, void *const *slot) {
    if (stream < 0 || *slot == NULL) return;
    check_lock();
    merge(clocks[stream], *slot);
    check_unlock();
}

void check_host_synced_event(void *const *slot) {
    if (*slot == NULL) return;
    check_lock();
    merge(host, *slot);
    check_unlock();
}

void check_event_free(void **slot) {
    free(*slot);
    *slot = NULL;
}

void check_stream_released(const char *call, int stream, uint64_t submitted) {
    if (stream < 0) return;
    const CheckSite *site = check_site_locked(); /* rt_lock is held */
    check_lock();
    uint64_t n = check_unsynced_items_locked(stream, submitted);
    if (n > 0) {
        char message[256];
        snprintf(message, sizeof message, "%s while %llu item(s) queued on a stream are not synchronised "
                 "(aclrtSynchronizeStream first)", call, (unsigned long long)n);
        check_add_finding(CHECK_SYNC, "release-with-queued-work", call, site, NULL, NULL, message);
    }
    /* The release waits for that work, so the host knows it finished. */
    merge(host, clocks[stream]);
    if (submitted > host[stream]) host[stream] = submitted;
    check_unlock();
}
