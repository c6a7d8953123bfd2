/* HCCL collective and point-to-point operations. Each one is queued on the caller's stream: it runs when the
 * stream reaches it, and aclrtSynchronizeStream waits for it. Counts are in elements of dataType. Valid C99
 * and C++. */
#ifndef HCCL_HCCL_H_
#define HCCL_HCCL_H_

#include "hccl/hccl_types.h"
#include "hccl/hccl_comm.h"
#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* recvBuf of every rank = op over the ranks' sendBuf (count elements). */
ACL_FUNC_VISIBILITY HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                             HcclReduceOp op, HcclComm comm, aclrtStream stream);

/* buf of every rank = buf of rank root. */
ACL_FUNC_VISIBILITY HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                             HcclComm comm, aclrtStream stream);

/* recvBuf of rank r = op over the ranks of block r (recvCount elements) of their sendBuf. */
ACL_FUNC_VISIBILITY HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                                 HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                                 aclrtStream stream);

/* As HcclReduceScatter with block r at sendDispls[r], sendCounts[r] elements long (uint64_t arrays, the same
 * on every rank); recvCount is this rank's block length. */
ACL_FUNC_VISIBILITY HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                                  void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                                  HcclReduceOp op, HcclComm comm, aclrtStream stream);

/* recvBuf of rank r = block r (recvCount elements) of rank root's sendBuf; sendBuf may be NULL off the root. */
ACL_FUNC_VISIBILITY HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                           uint32_t root, HcclComm comm, aclrtStream stream);

/* recvBuf of every rank = the ranks' sendBuf (sendCount elements each) in rank order. */
ACL_FUNC_VISIBILITY HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                             HcclDataType dataType, HcclComm comm, aclrtStream stream);

/* As HcclAllGather with rank j's block at recvDispls[j], recvCounts[j] elements long (uint64_t arrays, the same
 * on every rank). */
ACL_FUNC_VISIBILITY HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                                              const void *recvCounts, const void *recvDispls, HcclDataType dataType,
                                              HcclComm comm, aclrtStream stream);

/* Point to point: matched in order with the peer's HcclRecv / HcclSend. */
ACL_FUNC_VISIBILITY HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                        HcclComm comm, aclrtStream stream);
ACL_FUNC_VISIBILITY HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                        HcclComm comm, aclrtStream stream);

/* All-to-all whose counts come from sendCountMatrix (uint64_t, rankSize x rankSize, row i: what rank i sends
 * to each rank), the same on every rank. */
ACL_FUNC_VISIBILITY HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
                                              HcclDataType sendType, const void *recvBuf, HcclDataType recvType,
                                              HcclComm comm, aclrtStream stream);

/* Rank r sends sendCounts[j] elements at sdispls[j] to rank j and receives recvCounts[j] elements at
 * rdispls[j] from it (uint64_t arrays of rankSize entries). */
ACL_FUNC_VISIBILITY HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                             HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                             const void *rdispls, HcclDataType recvType, HcclComm comm,
                                             aclrtStream stream);

/* Rank r sends block j (sendCount elements) to rank j and receives block j (recvCount elements) from it. */
ACL_FUNC_VISIBILITY HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                            const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                                            HcclComm comm, aclrtStream stream);

/* recvBuf of rank root = op over the ranks' sendBuf. */
ACL_FUNC_VISIBILITY HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                          HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);

/* The sends and receives of sendRecvInfo[0 .. itemNum) run together (none waits for another of the batch). */
ACL_FUNC_VISIBILITY HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* HCCL_HCCL_H_ */
