/* The summation order of the Ascend vector unit's ReduceSum (see aclStubVectorReduceSumF32 in aclstub/op_sdk.h). */
#include "stub_internal.h"

/* Adjacent pairwise tree over m values, m a power of two: ((v0 + v1) + (v2 + v3)) + ... */
static float pairwise_tree(float *v, int64_t m) {
    for (; m > 1; m /= 2)
        for (int64_t i = 0; i < m / 2; i++) v[i] = aclStubSumF32(v[2 * i], v[2 * i + 1]);
    return v[0];
}

/* The folding step keeps ceil(total / 2) values rounded up to a 32-byte block of 8 floats. */
static int64_t fold_half(int64_t total) { return ((total + 1) / 2 + 7) / 8 * 8; }

static float reduce_chunk(float *v, int64_t n) {
    if (n < 64) { /* one masked repeat: 64 lanes, the unused ones +0.0 */
        float lanes[64] = {0};
        if (n > 0) memcpy(lanes, v, (size_t)n * sizeof(float));
        return pairwise_tree(lanes, 64);
    }
    int64_t threshold = 128, lanes = 64;
    if (n >= 4096) {
        threshold = 8192;
        lanes = 4096;
    } else if (n >= 512) {
        threshold = 1024;
        lanes = 512;
    }
    int64_t total = n;
    while (total > threshold) {
        int64_t half = fold_half(total);
        for (int64_t i = 0; i < total - half; i++) v[i] = aclStubSumF32(v[i], v[half + i]);
        total = half;
    }
    for (int64_t i = 0; i < total - lanes; i++) v[i] = aclStubSumF32(v[i], v[lanes + i]);
    return pairwise_tree(v, lanes);
}

float aclStubVectorReduceSumF32(float *v, int64_t n, int64_t chunk) {
    if (chunk <= 0) chunk = n;
    float acc = 0.0f;
    for (int64_t off = 0; off < n; off += chunk)
        acc = aclStubSumF32(acc, reduce_chunk(v + off, n - off < chunk ? n - off : chunk));
    return acc;
}
