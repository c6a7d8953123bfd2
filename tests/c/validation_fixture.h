/*
 * What every validation program in this folder shares: device tensors and int arrays made for the cases
 * and destroyed at the end, the "<case> <status>" report (phase 2 runs whenever phase 1 succeeds, so
 * valid cases also run), and the final "<counter> <value>" lines of the stub's live-object counters,
 * which must all be 0. Each program is one translation unit that includes this header.
 */
#ifndef ACLNN_TESTS_VALIDATION_FIXTURE_H_
#define ACLNN_TESTS_VALIDATION_FIXTURE_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclstub/aclstub.h"

#define MAX_OBJECTS 4096

static aclTensor *tensors[MAX_OBJECTS];
static int num_tensors;
static void *blocks[MAX_OBJECTS];
static int num_blocks;
static aclIntArray *arrays[MAX_OBJECTS];
static int num_arrays;

static inline void fail(const char *what) {
    fprintf(stderr, "setup failed: %s: %s\n", what, aclGetRecentErrMsg());
    exit(2);
}

static inline void *device_block(size_t bytes) {
    void *p = NULL;
    if (num_blocks == MAX_OBJECTS || aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        fail("aclrtMalloc");
    blocks[num_blocks++] = p;
    return p;
}

/* A tensor over its own device block (8 bytes per addressed element, so any dtype fits, or `alloc` bytes
 * when it is too big to back: phase 1 reads no data); contiguous unless strides are given; NULL data when
 * it has no element (or a negative dimension). Zero strides describe huge tensors over one element.
 * Device memory is zero-filled, so every index tensor holds valid zeros. */
static inline aclTensor *make_tensor(int ndim, const int64_t *dims, aclDataType dtype, aclFormat format,
                                     const int64_t *strides, size_t alloc) {
    int64_t contiguous[8], span = 1;
    bool empty = false;
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        contiguous[i] = s;
        s *= dims[i] > 0 ? dims[i] : 1;
        empty |= dims[i] <= 0;
    }
    if (strides) {
        for (int i = 0; i < ndim; i++) span += (dims[i] - 1) * (strides[i] < 0 ? -strides[i] : strides[i]);
    } else {
        for (int i = 0; i < ndim; i++) span *= dims[i];
    }
    void *data = empty ? NULL : device_block(alloc ? alloc : (size_t)span * 8);
    aclTensor *t = aclCreateTensor(dims, (uint64_t)ndim, dtype, strides ? strides : contiguous, 0, format, dims,
                                   (uint64_t)ndim, data);
    if (!t || num_tensors == MAX_OBJECTS) fail("aclCreateTensor");
    tensors[num_tensors++] = t;
    return t;
}

static inline aclIntArray *int_array(int n, const int64_t *values) {
    aclIntArray *a = aclCreateIntArray(values, (uint64_t)n);
    if (!a || num_arrays == MAX_OBJECTS) fail("aclCreateIntArray");
    arrays[num_arrays++] = a;
    return a;
}

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define NDIM(...) ((int)(sizeof DIMS(__VA_ARGS__) / sizeof(int64_t)))
/* T(dtype, dims...): a contiguous ND tensor; TF: with a format; TS: with strides; TA: backed by 64 bytes;
 * T0: 0-D. RANGE(values...): an aclIntArray. */
#define T(dtype, ...) make_tensor(NDIM(__VA_ARGS__), DIMS(__VA_ARGS__), dtype, ACL_FORMAT_ND, NULL, 0)
#define TF(dtype, format, ...) make_tensor(NDIM(__VA_ARGS__), DIMS(__VA_ARGS__), dtype, format, NULL, 0)
#define TS(dtype, strides, ...) make_tensor(NDIM(__VA_ARGS__), DIMS(__VA_ARGS__), dtype, ACL_FORMAT_ND, strides, 0)
#define TA(dtype, ...) make_tensor(NDIM(__VA_ARGS__), DIMS(__VA_ARGS__), dtype, ACL_FORMAT_ND, NULL, 64)
#define T0(dtype) make_tensor(0, NULL, dtype, ACL_FORMAT_ND, NULL, 0)
#define RANGE(...) int_array(NDIM(__VA_ARGS__), DIMS(__VA_ARGS__))

static inline void report(const char *name, aclnnStatus status, uint64_t ws, aclOpExecutor *ex,
                          aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream)) {
    if (status == ACL_SUCCESS) {
        void *workspace = ws ? device_block(ws) : NULL;
        status = phase2(workspace, ws, ex, NULL);
    }
    printf("%s %d\n", name, (int)status);
}

/* The whole program: set up the device, run the cases, destroy everything, print the live counters. */
static inline int run_validation(void (*forward_cases)(void), void (*backward_cases)(void)) {
    if (aclInit(NULL) != ACL_SUCCESS) fail("aclInit");
    if (aclrtSetDevice(0) != ACL_SUCCESS) fail("aclrtSetDevice");

    forward_cases();
    backward_cases();

    for (int i = num_tensors - 1; i >= 0; i--)
        if (aclDestroyTensor(tensors[i]) != ACL_SUCCESS) fail("aclDestroyTensor");
    for (int i = num_arrays - 1; i >= 0; i--)
        if (aclDestroyIntArray(arrays[i]) != ACL_SUCCESS) fail("aclDestroyIntArray");
    for (int i = num_blocks - 1; i >= 0; i--)
        if (aclrtFree(blocks[i]) != ACL_SUCCESS) fail("aclrtFree");

    printf("live_allocations %llu\n", (unsigned long long)aclStubLiveAllocations());
    printf("live_allocation_bytes %llu\n", (unsigned long long)aclStubLiveAllocationBytes());
    printf("live_host_allocations %llu\n", (unsigned long long)aclStubLiveHostAllocations());
    printf("live_streams %llu\n", (unsigned long long)aclStubLiveStreams());
    printf("live_tensors %llu\n", (unsigned long long)aclStubLiveTensors());
    printf("live_scalars %llu\n", (unsigned long long)aclStubLiveScalars());
    printf("live_int_arrays %llu\n", (unsigned long long)aclStubLiveIntArrays());
    printf("live_executors %llu\n", (unsigned long long)aclStubLiveExecutors());

    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

#endif /* ACLNN_TESTS_VALIDATION_FIXTURE_H_ */
