/*
 * Sorting lanes (aclstub/op_reduce.h): stable argsort and top-k of one lane of FLOAT, DOUBLE or INT64 values.
 * Values become unsigned keys that order like them (NaN above +inf, -0.0 equal to +0.0, a descending order by
 * complementing the keys), then an LSD radix sort over the bytes the keys actually differ in (stable, so ties
 * keep their index order), or, for top-k, a radix select of the k-th key followed by a sort of the k chosen.
 */
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_reduce.h"

static inline uint64_t key_f32(float f) {
    if (f != f) return 0xffffffffu;
    if (f == 0.0f) f = 0.0f; /* -0.0 ties with +0.0 */
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static inline uint64_t key_f64(double f) {
    if (f != f) return ~UINT64_C(0);
    if (f == 0.0) f = 0.0;
    uint64_t u;
    memcpy(&u, &f, 8);
    return (u & (UINT64_C(1) << 63)) ? ~u : (u | (UINT64_C(1) << 63));
}

/* keys[i] = the key of value i, complemented for a descending order; false for an unknown type */
static bool make_keys(uint64_t *keys, const void *vals, aclDataType type, int64_t n, bool descending) {
    uint64_t flip = descending ? ~UINT64_C(0) : 0;
    if (type == ACL_FLOAT) {
        const float *v = vals;
        for (int64_t i = 0; i < n; i++) keys[i] = key_f32(v[i]) ^ (flip & 0xffffffffu);
    } else if (type == ACL_DOUBLE) {
        const double *v = vals;
        for (int64_t i = 0; i < n; i++) keys[i] = key_f64(v[i]) ^ flip;
    } else if (type == ACL_INT64) {
        const int64_t *v = vals;
        for (int64_t i = 0; i < n; i++) keys[i] = ((uint64_t)v[i] ^ (UINT64_C(1) << 63)) ^ flip;
    } else {
        return false;
    }
    return true;
}

/* Stable sort of (keys, idx) by keys, n >= 1; tmp holds n keys and n indices. Keys are rebased on their minimum
 * so only the varying low bytes take a pass. */
static void radix_sort(uint64_t *keys, int64_t *idx, int64_t n, uint64_t *tk, int64_t *ti) {
    if (n <= 32) { /* insertion sort: stable */
        for (int64_t i = 1; i < n; i++) {
            uint64_t k = keys[i];
            int64_t v = idx[i], j = i - 1;
            while (j >= 0 && keys[j] > k) {
                keys[j + 1] = keys[j];
                idx[j + 1] = idx[j];
                j--;
            }
            keys[j + 1] = k;
            idx[j + 1] = v;
        }
        return;
    }
    uint64_t lo = keys[0], hi = keys[0];
    for (int64_t i = 1; i < n; i++) {
        lo = keys[i] < lo ? keys[i] : lo;
        hi = keys[i] > hi ? keys[i] : hi;
    }
    uint64_t range = hi - lo;
    for (int64_t i = 0; i < n; i++) keys[i] -= lo;
    uint64_t *ks = keys, *kd = tk;
    int64_t *vs = idx, *vd = ti;
    for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) count[((ks[i] >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int64_t i = 0; i < n; i++) {
            int64_t d = count[(ks[i] >> shift) & 0xff]++;
            kd[d] = ks[i];
            vd[d] = vs[i];
        }
        uint64_t *t = ks;
        ks = kd;
        kd = t;
        int64_t *u = vs;
        vs = vd;
        vd = u;
    }
    if (vs != idx) {
        memcpy(idx, vs, (size_t)n * sizeof *idx);
        memcpy(keys, ks, (size_t)n * sizeof *keys);
    }
    for (int64_t i = 0; i < n; i++) keys[i] += lo;
}

bool aclStubArgsortLane(const void *vals, aclDataType type, int64_t n, bool descending, int64_t *order) {
    if (n <= 0) return true;
    uint64_t stack_k[64], stack_t[64];
    int64_t stack_i[64];
    uint64_t *keys = stack_k, *tk = stack_t;
    int64_t *ti = stack_i;
    if (n > 64) {
        keys = malloc((size_t)n * 2 * sizeof *keys);
        ti = malloc((size_t)n * sizeof *ti);
        if (keys == NULL || ti == NULL) {
            free(keys);
            free(ti);
            return false;
        }
        tk = keys + n;
    }
    bool ok = make_keys(keys, vals, type, n, descending);
    if (ok) {
        for (int64_t i = 0; i < n; i++) order[i] = i;
        radix_sort(keys, order, n, tk, ti);
    }
    if (keys != stack_k) {
        free(keys);
        free(ti);
    }
    return ok;
}

/* The key of rank r (0-based) among keys[0 .. n): a radix select from the top varying byte down. */
static uint64_t select_key(const uint64_t *keys, int64_t n, int64_t r) {
    uint64_t prefix = 0, mask = 0, lo = keys[0], hi = keys[0];
    for (int64_t i = 1; i < n; i++) {
        lo = keys[i] < lo ? keys[i] : lo;
        hi = keys[i] > hi ? keys[i] : hi;
    }
    int top = 56;
    while (top > 0 && ((lo ^ hi) >> top) == 0) top -= 8; /* bytes above top are the same in every key */
    if (top < 56) {
        mask = ~UINT64_C(0) << (top + 8);
        prefix = lo & mask;
    }
    for (int shift = top; shift >= 0; shift -= 8) {
        int64_t count[256] = {0};
        for (int64_t i = 0; i < n; i++)
            if ((keys[i] & mask) == prefix) count[(keys[i] >> shift) & 0xff]++;
        int b = 0;
        while (b < 255 && count[b] <= r) r -= count[b++];
        prefix |= (uint64_t)b << shift;
        mask |= UINT64_C(0xff) << shift;
    }
    return prefix;
}

/* Small k: one pass keeping the k best (key, index) pairs sorted; a value enters only when its key is below the
 * current k-th (strictly: an equal key with a later index ranks after it). */
#define SMALL_K 64
static bool topk_small(const void *vals, aclDataType type, int64_t n, int64_t k, bool largest, int64_t *order) {
    uint64_t best[SMALL_K], block[256];
    int64_t m = 0;
    for (int64_t i0 = 0; i0 < n; i0 += 256) {
        int64_t b = n - i0 < 256 ? n - i0 : 256;
        const char *at = (const char *)vals + i0 * (type == ACL_FLOAT ? 4 : 8);
        if (!make_keys(block, at, type, b, largest)) return false;
        for (int64_t j = 0; j < b; j++) {
            uint64_t key = block[j];
            if (m == k && key >= best[k - 1]) continue;
            int64_t pos = m < k ? m++ : k - 1; /* insert after every key <= key */
            while (pos > 0 && best[pos - 1] > key) {
                best[pos] = best[pos - 1];
                order[pos] = order[pos - 1];
                pos--;
            }
            best[pos] = key;
            order[pos] = i0 + j;
        }
    }
    return true;
}

bool aclStubTopkLane(const void *vals, aclDataType type, int64_t n, int64_t k, bool largest, int64_t *order) {
    if (k <= 0 || n <= 0) return true;
    if (k > n) k = n;
    if (k <= SMALL_K && k * 4 < n) return topk_small(vals, type, n, k, largest, order);
    if (k * 4 >= n) { /* most of the lane: sort it all */
        int64_t *all = k == n ? order : malloc((size_t)n * sizeof *all);
        if (all == NULL) return false;
        bool ok = aclStubArgsortLane(vals, type, n, largest, all);
        if (all != order) {
            memcpy(order, all, (size_t)k * sizeof *order);
            free(all);
        }
        return ok;
    }
    uint64_t *keys = malloc((size_t)(n + 2 * k) * sizeof *keys);
    int64_t *ti = malloc((size_t)k * sizeof *ti);
    if (keys == NULL || ti == NULL) {
        free(keys);
        free(ti);
        return false;
    }
    bool ok = make_keys(keys, vals, type, n, largest);
    if (ok) {
        uint64_t t = select_key(keys, n, k - 1);
        uint64_t *sel = keys + n, *tk = sel + k;
        int64_t below = 0, m = 0;
        for (int64_t i = 0; i < n; i++) below += keys[i] < t;
        int64_t equal_wanted = k - below;
        for (int64_t i = 0; i < n && m < k; i++) { /* in index order: ties keep it */
            if (keys[i] < t || (keys[i] == t && equal_wanted-- > 0)) {
                sel[m] = keys[i];
                order[m++] = i;
            }
        }
        radix_sort(sel, order, k, tk, ti);
    }
    free(keys);
    free(ti);
    return ok;
}
