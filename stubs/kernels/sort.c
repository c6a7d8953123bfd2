/* Stable LSD radix argsort on 64-bit keys: exact for any value, O(n) per byte that actually varies. */
#include <stdlib.h>

#include "stub_internal.h"

bool aclStubStableArgsort(const int64_t *keys, int64_t n, int32_t *order) {
    if (n <= 0) return true;
    uint64_t *k0 = malloc((size_t)n * sizeof *k0), *k1 = malloc((size_t)n * sizeof *k1);
    int32_t *v1 = malloc((size_t)n * sizeof *v1);
    if (!k0 || !k1 || !v1) {
        free(k0);
        free(k1);
        free(v1);
        return false;
    }
    uint64_t lo_or = 0, and_all = ~(uint64_t)0;
    for (int64_t i = 0; i < n; i++) {
        k0[i] = (uint64_t)keys[i] ^ (UINT64_C(1) << 63); /* signed order as unsigned order */
        order[i] = (int32_t)i;
        lo_or |= k0[i];
        and_all &= k0[i];
    }
    uint64_t varying = lo_or ^ and_all; /* bits that differ between some keys */
    uint64_t *ks = k0, *kd = k1;
    int32_t *vs = order, *vd = v1;
    for (int shift = 0; shift < 64; shift += 8) {
        if (((varying >> shift) & 0xff) == 0) continue; /* every key has the same byte here */
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) count[((ks[i] >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int64_t i = 0; i < n; i++) {
            int64_t d = count[(ks[i] >> shift) & 0xff]++;
            kd[d] = ks[i];
            vd[d] = vs[i];
        }
        uint64_t *tk = ks; ks = kd; kd = tk;
        int32_t *tv = vs; vs = vd; vd = tv;
    }
    if (vs != order) memcpy(order, vs, (size_t)n * sizeof *order);
    free(k0);
    free(k1);
    free(v1);
    return true;
}
