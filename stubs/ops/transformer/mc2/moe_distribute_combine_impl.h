/*
 * The kernel and checks of aclnnMoeDistributeCombine and aclnnMoeDistributeCombineV2, included by each after its
 * parameter enumeration (the same names; ASSIST for expandIdx or assistInfoForCombine) with MD_V1 (0 or 1),
 * MD_OP_NAME and MD_SHARED_X(call) (sharedExpertXOptional, or NULL for V1, which has none) defined.
 *
 * The way back of the dispatch (moe_distribute_dispatch_impl.h, whose outputs it reads). With a tensor-parallel
 * pair, each rank first adds its partner's copy of its rows to its own (the two rows' sum in float32, rounded to the
 * data type); every row then goes back to its token's rank (V2: with the token and slot of assistInfoForCombine;
 * V1: the source rank of each row from epSendCounts, and the token's rank finds each slot's row from expertIds and
 * expandIdx); there x[t] = sum over the token's MoE slots k of row(t, k) * expertScales[t][k] (each product rounded
 * to float32, added in slot order from +0.0), plus each shared expert's row, plus sharedExpertXOptional[t] (V2),
 * rounded to the data type (round to nearest even). Tokens that take no part (the active mask) are zeros.
 * expandScales, activation and weight scales and the group list are accepted and not used.
 *
 * An includer that defines MD_ROW_TAIL(call, t, x, tmp) (aclnnMoeDistributeCombineAddRmsNorm) receives each token's
 * float32 sum x (h values; tmp is h floats of scratch) and writes its outputs itself; xOut is then (Bs, 1, H).
 */
#ifndef ACLNN_STUB_MOE_DISTRIBUTE_COMBINE_IMPL_H_
#define ACLNN_STUB_MOE_DISTRIBUTE_COMBINE_IMPL_H_

#include <stdlib.h>

#include "moe_distribute_common.h"

typedef struct {
    MdLayout m;
    int64_t bs, h, k, a;
    HcclComm ep, tp;
} Plan;

static aclnnStatus check(aclStubOpCall *call) {
    Plan *p = call->plan;
    const aclStubTensorDesc *ex = aclStubOpTensor(call, EXPAND_X), *ids = aclStubOpTensor(call, EXPERT_IDS);
    const aclStubTensorDesc *assist = aclStubOpTensor(call, ASSIST), *eps = aclStubOpTensor(call, EP_SEND);
    const aclStubTensorDesc *scales = aclStubOpTensor(call, EXPERT_SCALES), *tps = aclStubOpTensor(call, TP_SEND);
    const aclStubTensorDesc *mask = aclStubOpTensor(call, MASK), *sx = MD_SHARED_X(call);
    const aclStubTensorDesc *out = aclStubOpTensor(call, X_OUT);
    const aclnnStatus bad = ACLNN_ERR_INNER_TILING_ERROR;
    int64_t tp_size = aclStubOpInt(call, TP_WORLD);
    ACLSTUB_TRY(md_group_names(call, call->v[GROUP_EP].s, call->v[GROUP_TP].s, tp_size));
    ACLSTUB_TRY(md_layout(call, &p->m, aclStubOpInt(call, EP_WORLD), aclStubOpInt(call, EP_RANK),
                          aclStubOpInt(call, MOE_EXPERTS), tp_size, aclStubOpInt(call, TP_RANK),
                          aclStubOpInt(call, SHARD_TYPE), aclStubOpInt(call, SHARED_NUM),
                          aclStubOpInt(call, SHARED_RANKS)));
    const MdLayout *m = &p->m;
    p->bs = ids->dims[0];
    p->k = ids->dims[1];
    p->h = ex->dims[1];
    ACLSTUB_RETURN_ERROR_IF(p->bs <= 0 || p->bs > 512, call, bad, "expertIds has %lld tokens; Bs must be in (0, 512]",
                            (long long)p->bs);
    ACLSTUB_RETURN_ERROR_IF(p->k <= 0 || p->k > 16 || p->k > m->e, call, bad, "K (%lld, the columns of expertIds) "
                            "must be in (0, min(16, moeExpertNum)]", (long long)p->k);
    ACLSTUB_RETURN_ERROR_IF(p->h <= 0 || p->h > 10240, call, bad, "expandX has hidden size %lld; H must be in (0, "
                            "10240]", (long long)p->h);
    ACLSTUB_RETURN_ERROR_IF(ex->dims[0] % m->tp != 0, call, bad, "expandX must be (max(tpWorldSize, 1) * A, H)");
    p->a = ex->dims[0] / m->tp;
    ACLSTUB_RETURN_ERROR_IF(scales->dims[0] != p->bs || scales->dims[1] != p->k, call, bad, "expertScales must be "
                            "(Bs, K) like expertIds");
    ACLSTUB_RETURN_ERROR_IF(mask && (mask->dims[0] != p->bs || (mask->ndim == 2 && mask->dims[1] != p->k)), call, bad,
                            "xActiveMaskOptional must be (Bs,) or (Bs, K)");
    ACLSTUB_RETURN_ERROR_IF(sx && (sx->dims[0] != p->bs || sx->dims[1] != p->h), call, bad, "sharedExpertXOptional "
                            "must be (Bs, H)");
#ifdef MD_ROW_TAIL
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 3 || out->dims[0] != p->bs || out->dims[1] != 1 || out->dims[2] != p->h, call,
                            bad, "xOut must be (Bs, 1, H) = (%lld, 1, %lld)", (long long)p->bs, (long long)p->h);
#else
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != p->bs || out->dims[1] != p->h, call, bad, "xOut must be (Bs, H) = (%lld, "
                            "%lld)", (long long)p->bs, (long long)p->h);
#endif
#if MD_V1
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(assist) < p->bs * p->k, call, bad, "expandIdx holds %lld values; it needs "
                            "Bs * K = %lld", (long long)aclStubNumel(assist), (long long)(p->bs * p->k));
#else
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(assist) < 3 * p->a, call, bad, "assistInfoForCombine holds %lld values; it "
                            "needs A * 128", (long long)aclStubNumel(assist));
#endif
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(eps) < m->w * m->tp * m->local, call, bad, "epSendCounts holds %lld values; "
                            "it needs epWorldSize * max(tpWorldSize, 1) * localExpertNum = %lld",
                            (long long)aclStubNumel(eps), (long long)(m->w * m->tp * m->local));
    ACLSTUB_RETURN_ERROR_IF(m->tp > 1 && (tps == NULL || aclStubNumel(tps) < m->tp), call, ACLNN_ERR_PARAM_NULLPTR,
                            "tpSendCountsOptional must hold tpWorldSize values when there is a tensor-parallel group");
    int64_t od = aclStubOpInt(call, OUT_DTYPE), cq = aclStubOpInt(call, COMM_QUANT);
    ACLSTUB_RETURN_ERROR_IF(od != 0, call, bad, "outDtype (%lld) must be 0 (the dtype of expandX)", (long long)od);
    ACLSTUB_RETURN_ERROR_IF(cq != 0 && cq != 2, call, bad, "commQuantMode (%lld) must be 0 or 2", (long long)cq);
    int64_t global_bs = aclStubOpInt(call, GLOBAL_BS);
    ACLSTUB_RETURN_ERROR_IF(global_bs != 0 && (global_bs < p->bs * m->w || global_bs % m->w != 0), call, bad,
                            "globalBs (%lld) must be 0 or a multiple of epWorldSize of at least Bs * epWorldSize",
                            (long long)global_bs);
    for (int i = ACT_SCALE; i <= EXPAND_SCALES; i++) aclStubOpIgnore(call, i);
    if (m->tp <= 1) aclStubOpIgnore(call, TP_SEND);
    ACLSTUB_TRY(md_comm(call, "groupEp", call->v[GROUP_EP].s, m->w, m->rank, &p->ep));
    if (m->tp > 1) ACLSTUB_TRY(md_comm(call, "groupTp", call->v[GROUP_TP].s, m->tp, m->tp_rank, &p->tp));
    return OK;
}

/* ---- the kernel ----------------------------------------------------------------------------------------------- */

typedef struct {
    int32_t token, slot;
} Meta;

typedef struct {
    const Plan *p;
    size_t row_bytes;
    /* tensor-parallel step */
    const char *partner_rows; /* this rank's copy of its partner's rows */
    char *mine_from_partner;  /* the partner's copy of this rank's rows */
    int64_t mine, partner;
    /* expert-parallel step */
    uint64_t *sc, *sd, *rc, *rd;
    const char *send_rows;
    const Meta *send_meta;
    char *recv_rows;
    Meta *recv_meta;
} Xchg;

static HcclResult exchange_tp(HcCtx *ctx, void *arg) {
    Xchg *x = arg;
    uint32_t other = 1 - aclStubHcclCtxRank(ctx);
    uint64_t sc[2] = {0, 0}, sd[2] = {0, 0}, rc[2] = {0, 0}, rd[2] = {0, 0};
    sc[other] = (uint64_t)x->partner * x->row_bytes;
    rc[other] = (uint64_t)x->mine * x->row_bytes;
    return aclStubHcclAlltoAllvBytes(ctx, "combine tp tokens", x->partner_rows, sc, sd, x->mine_from_partner, rc, rd);
}

static HcclResult exchange_ep(HcCtx *ctx, void *arg) {
    Xchg *x = arg;
    int64_t w = x->p->m.w;
    uint64_t *b = malloc((size_t)w * 4 * sizeof *b);
    if (b == NULL) return HCCL_E_MEMORY;
    HcclResult ret = HCCL_SUCCESS;
    for (int pass = 0; pass < (MD_V1 ? 1 : 2) && ret == HCCL_SUCCESS; pass++) {
        size_t unit = pass == 0 ? x->row_bytes : sizeof(Meta);
        for (int64_t i = 0; i < w; i++) {
            b[i] = x->sc[i] * unit;
            b[w + i] = x->sd[i] * unit;
            b[2 * w + i] = x->rc[i] * unit;
            b[3 * w + i] = x->rd[i] * unit;
        }
        ret = pass == 0 ? aclStubHcclAlltoAllvBytes(ctx, "combine tokens", x->send_rows, b, b + w, x->recv_rows,
                                                    b + 2 * w, b + 3 * w)
                        : aclStubHcclAlltoAllvBytes(ctx, "combine token info", x->send_meta, b, b + w, x->recv_meta,
                                                    b + 2 * w, b + 3 * w);
    }
    free(b);
    return ret;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    const MdLayout *m = &p->m;
    const aclStubTensorDesc *ex = aclStubOpTensor(call, EXPAND_X), *ids = aclStubOpTensor(call, EXPERT_IDS);
    const aclStubTensorDesc *assist = aclStubOpTensor(call, ASSIST), *eps = aclStubOpTensor(call, EP_SEND);
    const aclStubTensorDesc *scales = aclStubOpTensor(call, EXPERT_SCALES), *tps = aclStubOpTensor(call, TP_SEND);
    const aclStubTensorDesc *mask = aclStubOpTensor(call, MASK), *sx = MD_SHARED_X(call);
    const aclStubTensorDesc *out = aclStubOpTensor(call, X_OUT);
    int64_t w = m->w, h = p->h, slots = p->k + m->shared;
    aclDataType dt = ex->dtype;
    size_t es = aclDataTypeSize(dt);
    Xchg c = {.p = p, .row_bytes = (size_t)h * es};
    char msg[1024];
    float *acc = aclStubKernelScratch(call, (size_t)h * 2 * sizeof *acc), *tmp = acc ? acc + h : NULL;
    uint64_t *arrays = aclStubKernelScratch(call, (size_t)w * 4 * sizeof *arrays);
    if (!acc || !arrays) return aclStubKernelOutOfMemory(call);
    c.sc = arrays, c.sd = arrays + w, c.rc = arrays + 2 * w, c.rd = arrays + 3 * w;

    /* This rank's rows: its own expert outputs, plus its partner's copy of them. */
    int64_t total = aclStubIndex1(eps, m->local * w - 1);
    if (m->tp > 1) {
        c.mine = aclStubIndex1(tps, m->tp_rank);
        c.partner = aclStubIndex1(tps, 1 - m->tp_rank);
    } else {
        c.mine = total;
    }
    if (c.mine < 0 || c.partner < 0 || c.mine > p->a || c.partner > p->a || total != c.mine)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "epSendCounts and tpSendCounts (%lld rows, %lld and %lld per "
                                 "rank of the pair) do not describe expandX's A = %lld rows", (long long)total,
                                 (long long)c.mine, (long long)c.partner, (long long)p->a);
    const char *rows = (const char *)ex->data + ex->offset * (int64_t)es;
    char *own = aclStubKernelScratch(call, (size_t)(c.mine ? c.mine : 1) * c.row_bytes);
    if (!own) return aclStubKernelOutOfMemory(call);
    memcpy(own, rows, (size_t)c.mine * c.row_bytes);
    if (m->tp > 1) {
        c.partner_rows = rows + (size_t)c.mine * c.row_bytes;
        c.mine_from_partner = aclStubKernelScratch(call, (size_t)(c.mine ? c.mine : 1) * c.row_bytes);
        if (!c.mine_from_partner) return aclStubKernelOutOfMemory(call);
        HcclResult hr = aclStubHcclRun(p->tp, MD_OP_NAME, exchange_tp, &c, msg, sizeof msg);
        if (hr != HCCL_SUCCESS)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over groupTp failed: %s", msg);
        for (int64_t i = 0; i < c.mine; i++) { /* the pair's partial outputs, summed in float32 */
            char *r = own + (size_t)i * c.row_bytes;
            aclStubRowLoadF32(acc, r, dt, h);
            aclStubRowAddF32(acc, c.mine_from_partner + (size_t)i * c.row_bytes, dt, h);
            aclStubRowStoreF32(r, acc, dt, h);
        }
    }

    /* Back to the tokens' ranks: rows grouped by destination, in row order. */
    const int32_t *info = (const int32_t *)assist->data + assist->offset;
#if MD_V1
    /* V1: each row's source rank from the running counts per (local expert, source rank) */
    int32_t *src = aclStubKernelScratch(call, (size_t)(c.mine ? c.mine : 1) * sizeof *src);
    if (!src) return aclStubKernelOutOfMemory(call);
    for (int64_t b = 0, prev = 0; b < m->local * w; b++) {
        int64_t upto = aclStubIndex1(eps, b);
        if (upto < prev || upto > c.mine)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "epSendCounts[%lld] = %lld is not a running row count of "
                                     "expandX", (long long)b, (long long)upto);
        for (int64_t i = prev; i < upto; i++) src[i] = (int32_t)(b % w);
        prev = upto;
    }
#define MD_SOURCE(i) src[i]
#else
#define MD_SOURCE(i) info[3 * (i)]
#endif
    memset(c.sc, 0, (size_t)w * sizeof *c.sc);
    for (int64_t i = 0; i < c.mine; i++) {
        int32_t s = MD_SOURCE(i);
        if (s < 0 || s >= w) return aclStubKernelFail(call, ACLNN_ERR_INNER, "assistInfoForCombine row %lld names rank "
                                                      "%d, not a rank of groupEp", (long long)i, (int)s);
        c.sc[s]++;
    }
    uint64_t off = 0;
    for (int64_t s = 0; s < w; s++) {
        c.sd[s] = off;
        off += c.sc[s];
    }
    char *send_rows = aclStubKernelScratch(call, (size_t)(c.mine ? c.mine : 1) * c.row_bytes);
    Meta *send_meta = aclStubKernelScratch(call, (size_t)(c.mine ? c.mine : 1) * sizeof(Meta));
    uint64_t *fill = aclStubKernelScratch(call, (size_t)w * sizeof *fill);
    if (!send_rows || !send_meta || !fill) return aclStubKernelOutOfMemory(call);
    memcpy(fill, c.sd, (size_t)w * sizeof *fill);
    for (int64_t i = 0; i < c.mine; i++) {
        uint64_t at = fill[MD_SOURCE(i)]++;
        memcpy(send_rows + at * c.row_bytes, own + (size_t)i * c.row_bytes, c.row_bytes);
#if !MD_V1
        send_meta[at] = (Meta){info[3 * i + 1], info[3 * i + 2]};
#endif
    }
#undef MD_SOURCE
    c.send_rows = send_rows;
    c.send_meta = send_meta;
    /* What comes back: one row per slot this rank sent (the dispatch's routing, again). */
    memset(c.rc, 0, (size_t)w * sizeof *c.rc);
    int64_t expected = 0;
#if MD_V1
    int64_t lmax = m->per_rank > 1 ? m->per_rank : 1;
    /* V1: rows come back from each rank by its local expert, then in this rank's slot order */
    int64_t *per_expert = aclStubKernelScratch(call, (size_t)(w * lmax) * sizeof *per_expert);
    if (!per_expert) return aclStubKernelOutOfMemory(call);
    memset(per_expert, 0, (size_t)(w * lmax) * sizeof *per_expert);
#endif
    for (int64_t t = 0; t < p->bs; t++)
        for (int64_t k = 0; k < slots; k++) {
            int64_t d = -1, l = 0;
            if (k < p->k) {
                int64_t e = aclStubIndexFlat(ids, t * p->k + k, p->k);
                if (md_active(mask, t, k) && !md_route(m, e, &d, &l))
                    return aclStubKernelFail(call, ACLNN_ERR_INNER, "expertIds[%lld][%lld] = %lld is not an expert",
                                             (long long)t, (long long)k, (long long)e);
            } else if (md_token_active(mask, t, p->k)) {
                d = md_shared_dest(m, k - p->k);
            }
            if (d >= 0) {
                c.rc[d]++;
                expected++;
#if MD_V1
                per_expert[d * lmax + l]++;
#endif
            }
        }
    off = 0;
    for (int64_t s = 0; s < w; s++) {
        c.rd[s] = off;
        off += c.rc[s];
    }
    c.recv_rows = aclStubKernelScratch(call, (size_t)(expected ? expected : 1) * c.row_bytes);
    c.recv_meta = aclStubKernelScratch(call, (size_t)(expected ? expected : 1) * sizeof(Meta));
    const char **slot_row = aclStubKernelScratch(call, (size_t)(p->bs * slots) * sizeof *slot_row);
    if (!c.recv_rows || !c.recv_meta || !slot_row) return aclStubKernelOutOfMemory(call);
    HcclResult hr = aclStubHcclRun(p->ep, MD_OP_NAME, exchange_ep, &c, msg, sizeof msg);
    if (hr != HCCL_SUCCESS) return aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over groupEp failed: %s", msg);

    /* Each token's sum, slot by slot. */
    memset(slot_row, 0, (size_t)(p->bs * slots) * sizeof *slot_row);
#if MD_V1
    int64_t *used = aclStubKernelScratch(call, (size_t)(w * lmax) * sizeof *used);
    if (!used) return aclStubKernelOutOfMemory(call);
    memset(used, 0, (size_t)(w * lmax) * sizeof *used);
    for (int64_t d = 0; d < w; d++) { /* where each (rank, local expert) block starts among the received rows */
        int64_t at = (int64_t)c.rd[d];
        for (int64_t l = 0; l < lmax; l++) {
            int64_t n = per_expert[d * lmax + l];
            per_expert[d * lmax + l] = at;
            at += n;
        }
    }
    for (int64_t t = 0; t < p->bs; t++)
        for (int64_t k = 0; k < slots; k++) {
            int64_t d = -1, l = 0;
            if (k < p->k) {
                if (!md_active(mask, t, k)) continue;
                md_route(m, aclStubIndexFlat(ids, t * p->k + k, p->k), &d, &l);
                int64_t idx = info[t * p->k + k];
                if (idx != used[d * lmax + l])
                    return aclStubKernelFail(call, ACLNN_ERR_INNER, "expandIdx[%lld] = %lld, but slot (%lld, %lld) is "
                                             "row %lld of this rank's rows for expert %lld: expandIdx does not come "
                                             "from aclnnMoeDistributeDispatch with these expertIds",
                                             (long long)(t * p->k + k), (long long)idx, (long long)t, (long long)k,
                                             (long long)used[d * lmax + l],
                                             (long long)aclStubIndexFlat(ids, t * p->k + k, p->k));
            } else if (md_token_active(mask, t, p->k)) {
                d = md_shared_dest(m, k - p->k);
            } else {
                continue;
            }
            slot_row[t * slots + k] = c.recv_rows + (size_t)(per_expert[d * lmax + l] + used[d * lmax + l]++) *
                                                        c.row_bytes;
        }
#else
    for (int64_t i = 0; i < expected; i++) {
        Meta mt = c.recv_meta[i];
        if (mt.token < 0 || mt.token >= p->bs || mt.slot < 0 || mt.slot >= slots)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "a row came back for token %d, slot %d, which this rank "
                                     "does not have", (int)mt.token, (int)mt.slot);
        slot_row[mt.token * slots + mt.slot] = c.recv_rows + (size_t)i * c.row_bytes;
    }
#endif
    char *dst = (char *)out->data + out->offset * (int64_t)es;
    for (int64_t t = 0; t < p->bs; t++) {
        memset(acc, 0, (size_t)h * sizeof *acc);
        for (int64_t k = 0; k < slots; k++) {
            const char *r = slot_row[t * slots + k];
            if (r == NULL) continue;
            if (k < p->k)
                aclStubRowScaleAddF32(acc, r, dt, *(const float *)aclStubElem2(scales, t, k), h);
            else
                aclStubRowAddF32(acc, r, dt, h);
        }
        if (sx) {
            aclStubRowLoadViewF32(tmp, sx, t);
            for (int64_t j = 0; j < h; j++) acc[j] += tmp[j];
        }
#ifdef MD_ROW_TAIL
        MD_ROW_TAIL(call, t, acc, tmp);
        (void)dst;
#else
        aclStubRowStoreF32(dst + (size_t)t * c.row_bytes, acc, dt, h);
#endif
    }
    return OK;
}

#endif /* ACLNN_STUB_MOE_DISTRIBUTE_COMBINE_IMPL_H_ */
