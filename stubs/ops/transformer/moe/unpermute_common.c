/* What the unpermute operators' backward passes share (see unpermute_common.h). */
#include "unpermute_common.h"

/* Atlas A2/A3 (spec 3.3): unified-buffer bytes given to the tiling, and vector cores. */
#define UB_BYTES 196352
#define VECTOR_CORES 48

static int64_t align_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }
static int64_t align_down(int64_t a, int64_t b) { return a / b * b; }

int64_t unpermute_probs_chunk(int64_t h, int64_t tokens, int64_t k, size_t token_bytes, size_t prob_bytes) {
    int64_t tb = (int64_t)token_bytes, pb = (int64_t)prob_bytes;
    int64_t per_core = (tokens + VECTOR_CORES - 1) / VECTOR_CORES, cap = align_down(256, k);
    int64_t idx = k > 256 ? k : per_core > cap / k ? cap : per_core * k; /* min(per_core * K, cap) */
    int64_t idx_align = align_up(idx, 32 / pb);
    int64_t fixed = 4 * pb * idx_align + 12 * idx_align + 256;
    int64_t chunk = align_down((UB_BYTES - fixed) / (6 * tb + 12), 512 / tb);
    if (h > UB_BYTES) return chunk; /* never one chunk (and h_align below cannot overflow) */
    int64_t h_align = align_up(h, 512 / tb);
    if ((UB_BYTES - fixed - (4 * tb + 12) * h_align) / (2 * tb * h_align) >= 1) return h;
    return chunk > 0 ? chunk : h;
}
