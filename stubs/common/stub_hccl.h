/*
 * What libhccl offers the stub's other libraries (the distributed MoE operators): the communicator an operator
 * names by group, and exchanges run on a communicator's engine, in order with its other operations. Every symbol
 * has the aclStub prefix; none is part of CANN's ABI.
 */
#ifndef ACLNN_STUB_HCCL_H_
#define ACLNN_STUB_HCCL_H_

#include <stddef.h>
#include <stdint.h>

#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STUB_HCCL_API __attribute__((visibility("default")))

typedef struct HcCtx HcCtx;
typedef HcclResult (*aclStubHcclFn)(HcCtx *ctx, void *arg);

/* The communicator named `group` (HcclGetCommName) whose rank runs on the calling thread's current device (or the
 * only one of that name in the process); NULL with a message (aclGetRecentErrMsg) when there is none or several. */
STUB_HCCL_API HcclComm aclStubHcclCommByName(const char *group);

/* Run fn(ctx, arg) on comm's engine, after the operations queued on it before, and wait for it (a stream worker
 * that waits is replaced meanwhile). On failure the report is copied to msg (cap bytes). Every rank of the
 * communicator must run the same exchange, with the same steps in the same order. */
STUB_HCCL_API HcclResult aclStubHcclRun(HcclComm comm, const char *name, aclStubHcclFn fn, void *arg, char *msg,
                                        size_t cap);

/* Steps of an exchange (from fn): every rank sends `bytes` and receives every rank's, in rank order... */
STUB_HCCL_API HcclResult aclStubHcclAllGatherBytes(HcCtx *ctx, const char *name, const void *send, void *recv,
                                                   uint64_t bytes);
/* ... or sends sendCounts[i] bytes at sendDispls[i] to rank i and receives recvCounts[j] bytes at recvDispls[j] from
 * rank j (arrays of the communicator's size; every pair must agree). */
STUB_HCCL_API HcclResult aclStubHcclAlltoAllvBytes(HcCtx *ctx, const char *name, const void *send,
                                                   const uint64_t *sendCounts, const uint64_t *sendDispls, void *recv,
                                                   const uint64_t *recvCounts, const uint64_t *recvDispls);
STUB_HCCL_API uint32_t aclStubHcclCtxRank(const HcCtx *ctx);
STUB_HCCL_API uint32_t aclStubHcclCtxSize(const HcCtx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_STUB_HCCL_H_ */
