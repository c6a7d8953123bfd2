/* HCCL (collective communication) types: status codes, communicator handle, reduction operations, data
 * types, root info and communicator configuration. Valid C99 and C++. */
#ifndef HCCL_HCCL_TYPES_H_
#define HCCL_HCCL_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status of every HCCL function. */
typedef enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,               /* invalid parameter */
    HCCL_E_PTR = 2,                /* NULL pointer */
    HCCL_E_MEMORY = 3,             /* out of memory */
    HCCL_E_INTERNAL = 4,           /* internal error */
    HCCL_E_NOT_SUPPORT = 5,        /* not supported */
    HCCL_E_NOT_FOUND = 6,          /* resource not found */
    HCCL_E_UNAVAIL = 7,            /* resource unavailable */
    HCCL_E_SYSCALL = 8,            /* a system call failed */
    HCCL_E_TIMEOUT = 9,            /* timed out */
    HCCL_E_OPEN_FILE_FAILURE = 10, /* a file could not be opened */
    HCCL_E_TCP_CONNECT = 11,
    HCCL_E_ROCE_CONNECT = 12,
    HCCL_E_TCP_TRANSFER = 13,
    HCCL_E_ROCE_TRANSFER = 14,
    HCCL_E_RUNTIME = 15,           /* a runtime call failed */
    HCCL_E_DRV = 16,
    HCCL_E_PROFILING = 17,
    HCCL_E_CCE = 18,
    HCCL_E_NETWORK = 19,
    HCCL_E_AGAIN = 20,             /* try again */
    HCCL_E_REMOTE = 21,            /* error reported by a remote rank */
    HCCL_E_SUSPENDING = 22,        /* the communicator is suspended */
    HCCL_E_OPRETRY_FAIL = 23,
    HCCL_E_RESERVED
} HcclResult;

/* A communicator. */
typedef void *HcclComm;

typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3,
    HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6,
    HCCL_DATA_TYPE_UINT8 = 7,
    HCCL_DATA_TYPE_UINT16 = 8,
    HCCL_DATA_TYPE_UINT32 = 9,
    HCCL_DATA_TYPE_FP64 = 10,
    HCCL_DATA_TYPE_BFP16 = 11,
    HCCL_DATA_TYPE_INT128 = 12,
    /* 13 is not assigned */
    HCCL_DATA_TYPE_HIF8 = 14,
    HCCL_DATA_TYPE_FP8E4M3 = 15,
    HCCL_DATA_TYPE_FP8E5M2 = 16,
    HCCL_DATA_TYPE_FP8E8M0 = 17,
    HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

/* Process-wide settings (HcclSetConfig / HcclGetConfig). */
typedef enum {
    HCCL_DETERMINISTIC = 0, /* 0: reductions may run in any order, 1: deterministic */
    HCCL_ACCELERATOR,
    HCCL_CONFIG_RESERVED
} HcclConfig;

union HcclConfigValue {
    int32_t value;
};
typedef union HcclConfigValue HcclConfigValue;

static const uint32_t HCCL_ROOT_INFO_BYTES = 4108;
static const uint32_t COMM_NAME_MAX_LENGTH = 128;
static const uint32_t UDI_MAX_LENGTH = 128;

/* What HcclGetRootInfo writes and every rank passes to HcclCommInitRootInfo: 4108 opaque bytes. */
typedef struct HcclRootInfoDef {
    char internal[4108]; /* HCCL_ROOT_INFO_BYTES */
} HcclRootInfo;

static const uint32_t HCCL_COMM_CONFIG_INFO_BYTES = 24;
static const uint32_t HCCL_COMM_CONFIG_MAGIC_WORD = 0xf0f0f0f0u;
static const uint32_t HCCL_COMM_CONFIG_VERSION = 6;
static const uint32_t HCCL_COMM_DEFAULT_BUFFSIZE = 200; /* MB */
static const uint32_t HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET = 0xffffffffu;
static const uint32_t HCCL_COMM_DEFAULT_DETERMINISTIC = 0;
static const uint32_t HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET = 0xffffffffu;
static const uint32_t HCCL_COMM_DEFAULT_OP_EXPANSION_MODE = 0;
static const uint32_t HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET = 0xffffffffu;
static const uint32_t HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET = 0xffffffffu;

/* Communicator configuration; initialise it with HcclCommConfigInit (hccl_comm.h), then set fields. The first
 * 24 bytes hold the structure's size, a magic word and its version. */
typedef struct HcclCommConfigDef {
    char reserved[24]; /* HCCL_COMM_CONFIG_INFO_BYTES */
    uint32_t hcclBufferSize;
    uint32_t hcclDeterministic;
    char hcclCommName[128]; /* COMM_NAME_MAX_LENGTH */
    char hcclUdi[128];      /* UDI_MAX_LENGTH */
    uint32_t hcclOpExpansionMode; /* 0 default, 1 host, 2 AI CPU, 3 AI vector */
    uint32_t hcclRdmaTrafficClass;
    uint32_t hcclRdmaServiceLevel;
    uint32_t hcclWorldRankID;
    uint64_t hcclJobID;
} HcclCommConfig;

/* Bits of HcclGetCommConfigCapability(): which configuration fields the library reads. */
typedef enum {
    HCCL_COMM_CONFIG_BUFFER_SIZE = 0,
    HCCL_COMM_CONFIG_DETERMINISTIC = 1,
    HCCL_COMM_CONFIG_COMM_NAME = 2,
    HCCL_COMM_CONFIG_OP_EXPANSION_MODE = 3,
    HCCL_COMM_CONFIG_SUPPORT_INIT_BY_ENV = 4,
    HCCL_COMM_CONFIG_WORLD_RANKID = 5,
    HCCL_COMM_CONFIG_JOBID = 6,
    HCCL_COMM_CONFIG_RESERVED
} HcclCommConfigCapability;

typedef enum { HCCL_SEND = 0, HCCL_RECV = 1, HCCL_SEND_RECV_RESERVED } HcclSendRecvType;

/* One entry of HcclBatchSendRecv. */
typedef struct HcclSendRecvItemDef {
    HcclSendRecvType sendRecvType;
    void *buf;
    uint64_t count;
    HcclDataType dataType;
    uint32_t remoteRank;
} HcclSendRecvItem;

/* Operation kinds (as reported by the toolkit's logs and MC2 interfaces). */
typedef enum {
    HCCL_CMD_INVALID = 0,
    HCCL_CMD_BROADCAST = 1,
    HCCL_CMD_ALLREDUCE,
    HCCL_CMD_REDUCE,
    HCCL_CMD_SEND,
    HCCL_CMD_RECEIVE,
    HCCL_CMD_ALLGATHER,
    HCCL_CMD_REDUCE_SCATTER,
    HCCL_CMD_ALLTOALLV,
    HCCL_CMD_ALLTOALLVC,
    HCCL_CMD_ALLTOALL,
    HCCL_CMD_GATHER,
    HCCL_CMD_SCATTER,
    HCCL_CMD_BATCH_SEND_RECV,
    HCCL_CMD_BATCH_PUT,
    HCCL_CMD_BATCH_GET,
    HCCL_CMD_ALLGATHER_V,
    HCCL_CMD_REDUCE_SCATTER_V,
    HCCL_CMD_BATCH_WRITE,
    HCCL_CMD_HALF_ALLTOALLV = 20,
    HCCL_CMD_ALL,
    HCCL_CMD_FINALIZE = 100,
    HCCL_CMD_INTER_GROUP_SYNC,
    HCCL_CMD_INIT,
    HCCL_CMD_BARRIER,
    HCCL_CMD_MAX
} HcclCMDType;

#ifdef __cplusplus
}
#endif

#endif /* HCCL_HCCL_TYPES_H_ */
