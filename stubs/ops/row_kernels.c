/*
 * Row kernels: the inner loops of every operator. Each is compiled several times for different x86-64
 * levels and the best one for the host CPU is picked when the library loads, so one build runs anywhere.
 */
#include "op_common.h"

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define ROW_KERNEL __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ROW_KERNEL
#endif

typedef _Float16 f16;

ROW_KERNEL void row_load_f32(float *restrict dst, const void *restrict src, aclDataType dtype, int64_t n) {
    if (dtype == ACL_FLOAT) {
        memcpy(dst, src, (size_t)n * sizeof(float));
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)s[i] << 16;
            memcpy(&dst[i], &u, 4);
        }
    } else {
        const f16 *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = (float)s[i];
    }
}

ROW_KERNEL void row_add_f32(float *restrict dst, const void *restrict src, aclDataType dtype, int64_t n) {
    if (dtype == ACL_FLOAT) {
        const float *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] += s[i];
    } else if (dtype == ACL_BF16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)s[i] << 16;
            float f;
            memcpy(&f, &u, 4);
            dst[i] += f;
        }
    } else {
        const f16 *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] += (float)s[i];
    }
}

ROW_KERNEL void row_add_zero_f32(float *restrict dst, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] += 0.0f;
}

ROW_KERNEL void row_store_f32(void *restrict dst, const float *restrict src, aclDataType dtype, int64_t n) {
    if (dtype == ACL_FLOAT) {
        memcpy(dst, src, (size_t)n * sizeof(float));
    } else if (dtype == ACL_BF16) {
        uint16_t *d = dst;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, &src[i], 4);
            uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
            uint32_t nan = (u >> 16) | 0x40u;
            d[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
        }
    } else {
        f16 *d = dst;
        for (int64_t i = 0; i < n; i++) d[i] = (f16)src[i];
    }
}
