/* HCCL communicator management: creation (root info, rank table, all devices of a process, sub-communicators),
 * queries, barrier, destruction, errors and configuration. Valid C99 and C++. */
#ifndef HCCL_HCCL_COMM_H_
#define HCCL_HCCL_COMM_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One rank of the communicator described by rank table file clusterInfo (a path). */
ACL_FUNC_VISIBILITY HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
ACL_FUNC_VISIBILITY HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                                             HcclCommConfig *config, HcclComm *comm);

/* A sub-communicator of ranks rankIds[0 .. rankNum) of *comm (global rank numbers); the calling rank is rank
 * subCommRankId of it, and subCommId tells sub-communicators of one communicator apart. */
ACL_FUNC_VISIBILITY HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                                       uint64_t subCommId, uint32_t subCommRankId,
                                                       HcclCommConfig *config, HcclComm *subComm);

/* The root rank's identifier, to hand to every rank's HcclCommInitRootInfo. */
ACL_FUNC_VISIBILITY HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
ACL_FUNC_VISIBILITY HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                                    HcclComm *comm);
ACL_FUNC_VISIBILITY HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                                          uint32_t rank, const HcclCommConfig *config,
                                                          HcclComm *comm);

/* Process-wide settings. */
ACL_FUNC_VISIBILITY HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
ACL_FUNC_VISIBILITY HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue);

/* The communicator's name (at most 128 bytes with the terminating NUL). */
ACL_FUNC_VISIBILITY HcclResult HcclGetCommName(HcclComm comm, char *commName);

ACL_FUNC_VISIBILITY HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
ACL_FUNC_VISIBILITY HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);

/* Every rank waits on its stream until all ranks reach the barrier. */
ACL_FUNC_VISIBILITY HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

ACL_FUNC_VISIBILITY HcclResult HcclCommDestroy(HcclComm comm);

/* One communicator per device of devices[0 .. ndev) in this process; rank i runs on devices[i]. */
ACL_FUNC_VISIBILITY HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);

/* The first failure of work queued on the communicator, HCCL_SUCCESS when there is none. */
ACL_FUNC_VISIBILITY HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);

ACL_FUNC_VISIBILITY const char *HcclGetErrorString(HcclResult code);

/* How many HcclCommConfig items the library reads: every HCCL_COMM_CONFIG_* below the value returned. */
ACL_FUNC_VISIBILITY uint32_t HcclGetCommConfigCapability(void);

/* Fill config with its header (size, magic word, version) and every field's "not set" value. */
static inline void HcclCommConfigInit(HcclCommConfig *config) {
    typedef struct {
        size_t size;
        uint32_t magicWord;
        uint32_t version;
        uint64_t reserved;
    } HcclCommConfigHeader;
    HcclCommConfigHeader *header;
    if (config == NULL) return;
    header = (HcclCommConfigHeader *)(void *)config;
    header->size = sizeof(HcclCommConfig);
    header->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
    header->version = HCCL_COMM_CONFIG_VERSION;
    header->reserved = 0;
    config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
    config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
    config->hcclCommName[0] = '\0';
    config->hcclUdi[0] = '\0';
    config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
    config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
    config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
    config->hcclWorldRankID = 0;
    config->hcclJobID = 0;
}

#ifdef __cplusplus
}
#endif

#endif /* HCCL_HCCL_COMM_H_ */
