/*
 * aclnnDistributeBarrier: every rank of the group waits until all have reached the barrier. xRef only orders the
 * operator among others on the stream (it is neither read nor written). The barrier is an exchange of one byte per
 * rank on the communicator's engine (libhccl's aclStubHcclRun), so it runs after what was queued on it before and
 * fails, as HCCL's collectives do, when a rank never arrives.
 */
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_distribute_barrier.h"
#include "aclstub/op_sdk.h"
#include "hccl/hccl_comm.h"
#include "stub_hccl.h"

#define OK ACLNN_SUCCESS
#define GROUP_NAME_MAX 128

enum { X_REF, GROUP, WORLD_SIZE, NPARAMS };

#define XREF_DT                                                                                                       \
    (ACLSTUB_DT(ACL_BF16) | ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_FLOAT) | ACLSTUB_DT(ACL_BOOL) |                  \
     ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT16) | ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_INT64) |                   \
     ACLSTUB_DT(ACL_UINT8) | ACLSTUB_DT(ACL_UINT16) | ACLSTUB_DT(ACL_UINT32) | ACLSTUB_DT(ACL_UINT64))

static const aclStubParam PARAMS[] = {
    [X_REF] = {"xRef", ACLSTUB_INPLACE, XREF_DT, NULL, ACLSTUB_ANY_LAYOUT},
    [GROUP] = {"group", ACLSTUB_STRING},
    [WORLD_SIZE] = {"worldSize", ACLSTUB_INT},
};

typedef struct {
    HcclComm comm;
} Plan;

static aclnnStatus check(aclStubOpCall *call) {
    Plan *p = call->plan;
    const char *group = call->v[GROUP].s;
    ACLSTUB_RETURN_ERROR_IF(group == NULL, call, ACLNN_ERR_PARAM_NULLPTR, "Required group name is Empty.");
    size_t len = strnlen(group, GROUP_NAME_MAX);
    ACLSTUB_RETURN_ERROR_IF(len == 0 || len >= GROUP_NAME_MAX, call, ACLNN_ERR_PARAM_NULLPTR,
                            "Required group name length in range (0, %d), but it's %zu.", GROUP_NAME_MAX, len);
    int64_t w = aclStubOpInt(call, WORLD_SIZE);
    ACLSTUB_RETURN_ERROR_IF(w < 2 || w > 384, call, ACLNN_ERR_INNER_TILING_ERROR,
                            "WorldSize is invalid, only support [2, 384], but got worldSize=%lld.", (long long)w);
    HcclComm comm = aclStubHcclCommByName(group);
    if (comm == NULL) {
        const char *why = aclGetRecentErrMsg();
        return aclStubCallFail(call, 0, ACLNN_ERR_PARAM_INVALID, "group '%s' names no communicator: %s", group,
                               why ? why : "(no message)");
    }
    uint32_t n = 0;
    ACLSTUB_RETURN_ERROR_IF(HcclGetRankSize(comm, &n) != HCCL_SUCCESS, call, ACLNN_ERR_PARAM_INVALID,
                            "group '%s' was destroyed", group);
    ACLSTUB_RETURN_ERROR_IF((int64_t)n != w, call, ACLNN_ERR_INNER_TILING_ERROR,
                            "worldSize (%lld) is not the size of group '%s' (%u ranks)", (long long)w, group, n);
    p->comm = comm;
    return aclStubOpWaitsForPeers(call);
}

static HcclResult barrier(HcCtx *ctx, void *arg) {
    unsigned char *buf = arg; /* one byte sent, one per rank received */
    return aclStubHcclAllGatherBytes(ctx, "distribute barrier", buf, buf + 1, 1);
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    uint32_t n = 0;
    if (HcclGetRankSize(p->comm, &n) != HCCL_SUCCESS)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "the group's communicator was destroyed");
    unsigned char *buf = aclStubKernelScratch(call, (size_t)n + 1);
    if (buf == NULL) return aclStubKernelOutOfMemory(call);
    buf[0] = 1;
    char msg[1024];
    if (aclStubHcclRun(p->comm, "aclnnDistributeBarrier", barrier, buf, msg, sizeof msg) != HCCL_SUCCESS)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "the barrier over group failed: %s", msg);
    return OK;
}

static const aclStubOpDef OP = {"aclnnDistributeBarrier", PARAMS, NPARAMS, NULL, check, kernel, sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnDistributeBarrier, OP, (aclTensor *, xRef), (const char *, group), (int64_t, worldSize))
