/*
 * What aclnnMoeDistributeDispatchV2 and aclnnMoeDistributeCombineV2 share: the expert layout of the expert-parallel
 * group, the routing of a token's slots, and the checks of the group attributes.
 *
 * Ranks [0, S) of the EP group hold the shared experts (S = sharedExpertRankNum), S / sharedExpertNum copies of
 * each; ranks [S, W) hold the MoE experts, E / (W - S) each, in order (expert e on rank S + e / perRank, as local
 * expert e % perRank). A token of rank r reaches MoE expert expertIds[t][k] and, for each shared expert s, the copy
 * r % copies + s * copies. Slots are numbered k in [0, K) for MoE experts and K + s for shared ones.
 */
#ifndef ACLNN_STUB_MOE_DISTRIBUTE_COMMON_H_
#define ACLNN_STUB_MOE_DISTRIBUTE_COMMON_H_

#include <string.h>

#include "acl/acl.h"
#include "aclstub/op_sdk.h"
#include "hccl/hccl_comm.h"
#include "stub_hccl.h"

#define MD_GROUP_NAME_MAX 128

/* The expert layout of an EP group, and what the calling rank holds. */
typedef struct {
    int64_t w, rank, s, e, shared, per_rank, copies; /* per_rank: MoE experts per MoE rank; copies: of each shared */
    int64_t local;                                   /* experts on the calling rank */
    bool is_shared;
    int64_t tp, tp_rank; /* tp: 1 without a tensor-parallel group */
} MdLayout;

/* The destination rank and local expert of slot (t, k) of token t; false for an expert id outside [0, E). */
static inline bool md_route(const MdLayout *m, int64_t expert, int64_t *dest, int64_t *local) {
    if (expert < 0 || expert >= m->e) return false;
    *dest = m->s + expert / m->per_rank;
    *local = expert % m->per_rank;
    return true;
}

static inline int64_t md_shared_dest(const MdLayout *m, int64_t shared_index) {
    return m->rank % m->copies + shared_index * m->copies;
}

/* The attribute rules both operators apply (561002 as the tiling reports them), and the layout they imply. */
static inline aclnnStatus md_layout(aclStubOpCall *call, MdLayout *m, int64_t w, int64_t rank, int64_t e, int64_t tp,
                                    int64_t tp_rank, int64_t shard_type, int64_t shared, int64_t s) {
    const aclnnStatus bad = ACLNN_ERR_INNER_TILING_ERROR;
    ACLSTUB_RETURN_ERROR_IF(w < 2 || w > 768, call, bad, "epWorldSize (%lld) must be in [2, 768]", (long long)w);
    ACLSTUB_RETURN_ERROR_IF(rank < 0 || rank >= w, call, bad, "epRankId (%lld) must be in [0, epWorldSize %lld)",
                            (long long)rank, (long long)w);
    ACLSTUB_RETURN_ERROR_IF(tp < 0 || tp > 2, call, bad, "tpWorldSize (%lld) must be 0, 1 or 2", (long long)tp);
    ACLSTUB_RETURN_ERROR_IF(tp_rank < 0 || tp_rank >= (tp > 1 ? tp : 1), call, bad,
                            "tpRankId (%lld) must be in [0, max(tpWorldSize, 1))", (long long)tp_rank);
    ACLSTUB_RETURN_ERROR_IF(shard_type != 0, call, bad, "expertShardType (%lld) must be 0 (shared-expert ranks "
                            "first)", (long long)shard_type);
    ACLSTUB_RETURN_ERROR_IF(shared < 0 || shared > 4, call, bad, "sharedExpertNum (%lld) must be in [0, 4]",
                            (long long)shared);
    ACLSTUB_RETURN_ERROR_IF(s < 0 || s >= w, call, bad, "sharedExpertRankNum (%lld) must be in [0, epWorldSize %lld)",
                            (long long)s, (long long)w);
    ACLSTUB_RETURN_ERROR_IF(s == 0 && shared > 1, call, bad, "sharedExpertNum (%lld) must be 0 or 1 when "
                            "sharedExpertRankNum is 0", (long long)shared);
    ACLSTUB_RETURN_ERROR_IF(s > 0 && (shared == 0 || s % shared != 0), call, bad, "sharedExpertRankNum (%lld) must be "
                            "a multiple of sharedExpertNum (%lld)", (long long)s, (long long)shared);
    ACLSTUB_RETURN_ERROR_IF(e <= 0 || e > 1024, call, bad, "moeExpertNum (%lld) must be in (0, 1024]", (long long)e);
    ACLSTUB_RETURN_ERROR_IF(e % (w - s) != 0, call, bad, "moeExpertNum (%lld) must be a multiple of epWorldSize - "
                            "sharedExpertRankNum (%lld)", (long long)e, (long long)(w - s));
    m->w = w;
    m->rank = rank;
    m->e = e;
    m->s = s;
    m->shared = s > 0 ? shared : 0;
    m->per_rank = e / (w - s);
    m->copies = s > 0 ? s / shared : 1;
    m->is_shared = rank < s;
    m->local = m->is_shared ? 1 : m->per_rank;
    m->tp = tp > 1 ? tp : 1;
    m->tp_rank = tp > 1 ? tp_rank : 0;
    ACLSTUB_RETURN_ERROR_IF(m->tp > 1 && m->local > 1, call, bad, "with a tensor-parallel group each rank holds one "
                            "expert, not %lld (moeExpertNum / (epWorldSize - sharedExpertRankNum))", (long long)m->local);
    return OK;
}

/* The communicator a group name stands for (resolved when phase 1 runs, on the caller's device), checked against
 * the size and rank the caller gives. */
static inline aclnnStatus md_comm(aclStubOpCall *call, const char *what, const char *group, int64_t size,
                                  int64_t rank, HcclComm *out) {
    HcclComm comm = aclStubHcclCommByName(group);
    if (comm == NULL) {
        const char *why = aclGetRecentErrMsg();
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s '%s' names no communicator: %s", what, group,
                             why ? why : "(no message)");
    }
    uint32_t n = 0, r = 0;
    if (HcclGetRankSize(comm, &n) != HCCL_SUCCESS || HcclGetRankId(comm, &r) != HCCL_SUCCESS)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s '%s' was destroyed", what, group);
    ACLSTUB_RETURN_ERROR_IF((int64_t)n != size || (int64_t)r != rank, call, ACLNN_ERR_PARAM_INVALID,
                            "%s '%s' has %u ranks and this is rank %u, but the call says size %lld and rank %lld", what,
                            group, n, r, (long long)size, (long long)rank);
    *out = comm;
    return aclStubOpWaitsForPeers(call); /* the kernel exchanges with the other ranks: never run inline */
}

/* The group names' rules of the op_api (161001 for an empty or overlong name). */
static inline aclnnStatus md_group_names(aclStubOpCall *call, const char *ep, const char *tp, int64_t tp_size) {
    ACLSTUB_RETURN_ERROR_IF(ep == NULL || ep[0] == '\0', call, ACLNN_ERR_PARAM_NULLPTR, "groupEp is empty");
    ACLSTUB_RETURN_ERROR_IF(strnlen(ep, MD_GROUP_NAME_MAX) >= MD_GROUP_NAME_MAX, call, ACLNN_ERR_PARAM_NULLPTR,
                            "groupEp is longer than %d characters", MD_GROUP_NAME_MAX - 1);
    ACLSTUB_RETURN_ERROR_IF(tp != NULL && strnlen(tp, MD_GROUP_NAME_MAX) >= MD_GROUP_NAME_MAX, call,
                            ACLNN_ERR_PARAM_NULLPTR, "groupTp is longer than %d characters", MD_GROUP_NAME_MAX - 1);
    ACLSTUB_RETURN_ERROR_IF(tp_size > 1 && (tp == NULL || tp[0] == '\0'), call, ACLNN_ERR_PARAM_NULLPTR,
                            "groupTp is empty but tpWorldSize is %lld", (long long)tp_size);
    ACLSTUB_RETURN_ERROR_IF(tp_size > 1 && strcmp(ep, tp) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "groupEp and groupTp are the same group ('%s')", ep);
    return OK;
}

/* Whether slot k of token t takes part: the mask is absent, 1-D per token, or 2-D per slot. */
static inline bool md_active(const aclStubTensorDesc *mask, int64_t t, int64_t k) {
    if (mask == NULL) return true;
    const void *p = mask->ndim == 1 ? aclStubElem1(mask, t) : aclStubElem2(mask, t, k);
    return *(const uint8_t *)p != 0;
}

static inline bool md_token_active(const aclStubTensorDesc *mask, int64_t t, int64_t kk) {
    if (mask == NULL || mask->ndim == 1) return md_active(mask, t, 0);
    for (int64_t k = 0; k < kk; k++)
        if (md_active(mask, t, k)) return true;
    return false;
}

#endif /* ACLNN_STUB_MOE_DISTRIBUTE_COMMON_H_ */
