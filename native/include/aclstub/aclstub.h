/*
 * Introspection of the aclnn-py CPU stub. Not part of the CANN ABI: real toolkits do not export these
 * symbols, so clients look them up at run time (the Python loader does) instead of linking them.
 */
#ifndef ACLSTUB_ACLSTUB_H_
#define ACLSTUB_ACLSTUB_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libascendcl.so */
ACL_FUNC_VISIBILITY const char *aclStubVersion(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveAllocations(void);     /* aclrtMalloc blocks not yet freed, lent spans */
ACL_FUNC_VISIBILITY uint64_t aclStubLiveAllocationBytes(void); /* their requested sizes, summed */
ACL_FUNC_VISIBILITY uint64_t aclStubLiveHostAllocations(void); /* aclrtMallocHost blocks not yet freed */
ACL_FUNC_VISIBILITY uint64_t aclStubLiveStreams(void);  /* explicitly created streams */
ACL_FUNC_VISIBILITY uint64_t aclStubLiveEvents(void);   /* events not yet destroyed (or still referenced) */
ACL_FUNC_VISIBILITY uint64_t aclStubLiveContexts(void); /* explicitly created contexts */
ACL_FUNC_VISIBILITY uint64_t aclStubPendingWork(void);  /* items queued on streams and not yet finished */
/* The calling thread's current context, NULL when it has none: aclrtGetCurrentContext without an error. */
ACL_FUNC_VISIBILITY void *aclStubCurrentContext(void);

/* libascendcl.so: lend host memory to the current device, the stub's zero-copy path (its device memory is
 * host memory). [hostPtr, hostPtr + size) becomes a device block at the same address (*devPtr == hostPtr):
 * operators, copies and check mode treat it as aclrtMalloc memory, except that it keeps its contents (check
 * mode neither poisons it nor reports reads of it as uninitialised), does not count against the device's
 * memory, and is never freed by the stub. It also stays host memory to the host side of a copy (its owner,
 * or another thread, may copy from or into an array part of which is lent); ACL_MEMCPY_DEFAULT takes a span
 * for device memory when it lies in one lent block, for host memory otherwise. The caller keeps it valid until aclStubReclaimHostMemory(devPtr)
 * returns: that waits for the queued work that uses it (only that work, on whichever streams it was queued)
 * and removes the block. A span overlapping device memory, aclrtFree of a lent block and reclaiming anything
 * else are refused with ACL_ERROR_RT_PARAM_INVALID; NULL pointers and size 0 with ACL_ERROR_INVALID_PARAM.
 * aclStubLiveAllocations counts lent spans until they are reclaimed. */
ACL_FUNC_VISIBILITY aclError aclStubLendHostMemory(void *hostPtr, size_t size, void **devPtr);
ACL_FUNC_VISIBILITY aclError aclStubReclaimHostMemory(void *devPtr);

/* libnnopbase.so */
ACL_FUNC_VISIBILITY uint64_t aclStubLiveTensors(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveScalars(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveIntArrays(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveFloatArrays(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveBoolArrays(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveTensorLists(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveScalarLists(void);
ACL_FUNC_VISIBILITY uint64_t aclStubLiveExecutors(void);

/* libnnopbase.so: kernel threads; n <= 0 restores the default
 * (ACLNN_STUB_NUM_THREADS, else the number of cores). Returns the count now in force. */
ACL_FUNC_VISIBILITY int32_t aclStubSetNumThreads(int32_t n);

/* libnnopbase.so: the operators built on the operator SDK (aclstub/op_sdk.h) loaded in this process.
 * aclStubRegisteredOp(i): the i-th operator's name, NULL past the last. aclStubDescribeOp writes one line per
 * parameter, "name<TAB>role<TAB>dtype,dtype,...<TAB>same-dtype-as", into buf (cap bytes, always
 * terminated) and returns the size a complete description needs (1 when the operator is unknown). */
ACL_FUNC_VISIBILITY const char *aclStubRegisteredOp(size_t index);
ACL_FUNC_VISIBILITY size_t aclStubDescribeOp(const char *name, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ACLSTUB_ACLSTUB_H_ */
