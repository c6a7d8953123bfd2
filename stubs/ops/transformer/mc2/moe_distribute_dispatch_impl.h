/*
 * The kernel and checks of aclnnMoeDistributeDispatch and aclnnMoeDistributeDispatchV2, included by each after its
 * parameter enumeration (the same names: X, EXPERT_IDS, ..., ASSIST for expandIdx or assistInfoForCombineOut) with
 * MD_V1 (0 or 1) and MD_OP_NAME defined.
 *
 * Every token goes to the ranks of its top-K experts and of the shared experts of the expert-parallel group
 * (dynamically quantised to INT8 on the way when quantMode is 2); each rank receives its experts' tokens in the
 * expanded output, grouped by local expert, then by source rank, then by token and slot order; with a
 * tensor-parallel group of 2 the two ranks of a pair then gather each other's tokens (this rank's rows, then its
 * partner's).
 *
 * What the combine needs travels in the stub's own layout (the documentation leaves it to the product): V2's
 * assistInfoForCombineOut holds (source rank, token, slot) for each of this rank's rows; V1's expandIdx holds, for
 * each slot (t, k) of this rank's tokens, its rank among the rows this rank sends to that expert; epRecvCountsOut
 * the running row counts per (local expert, source rank) for this rank's rows and then its partner's,
 * tpRecvCountsOut the rows of each rank of the pair. expertTokenNumsOut counts every row of a local expert (or their
 * running sum), expandScalesOut the expert scale of each row, dynamicScalesOut the scale of each quantised row.
 *
 * The exchange runs on the communicators' engines (libhccl), after the operations queued on them before.
 */
#ifndef ACLNN_STUB_MOE_DISTRIBUTE_DISPATCH_IMPL_H_
#define ACLNN_STUB_MOE_DISTRIBUTE_DISPATCH_IMPL_H_

#include <stdio.h>
#include <stdlib.h>

#include "moe_distribute_common.h"

typedef struct {
    MdLayout m;
    int64_t bs, h, k, a;
    int64_t quant, tokens_type;
    HcclComm ep, tp;
} Plan;

static aclnnStatus check(aclStubOpCall *call) {
    Plan *p = call->plan;
    const aclStubTensorDesc *x = aclStubOpTensor(call, X), *ids = aclStubOpTensor(call, EXPERT_IDS);
    const aclStubTensorDesc *scales = aclStubOpTensor(call, SCALES), *mask = aclStubOpTensor(call, MASK);
    const aclStubTensorDesc *escales = aclStubOpTensor(call, EXPERT_SCALES), *ex = aclStubOpTensor(call, EXPAND_X);
    const aclStubTensorDesc *dyn = aclStubOpTensor(call, DYN_SCALES), *assist = aclStubOpTensor(call, ASSIST);
    const aclStubTensorDesc *nums = aclStubOpTensor(call, TOKEN_NUMS), *ep = aclStubOpTensor(call, EP_RECV);
    const aclStubTensorDesc *tpr = aclStubOpTensor(call, TP_RECV), *es = aclStubOpTensor(call, EXPAND_SCALES);
    const aclnnStatus bad = ACLNN_ERR_INNER_TILING_ERROR;
    int64_t tp_size = aclStubOpInt(call, TP_WORLD);
    ACLSTUB_TRY(md_group_names(call, call->v[GROUP_EP].s, call->v[GROUP_TP].s, tp_size));
    p->quant = aclStubOpInt(call, QUANT_MODE);
    ACLSTUB_RETURN_ERROR_IF(p->quant != 0 && p->quant != 2, call, bad, "quantMode (%lld) must be 0 (none) or 2 "
                            "(dynamic)", (long long)p->quant);
    ACLSTUB_RETURN_ERROR_IF(p->quant == 2 && dyn == NULL, call, ACLNN_ERR_PARAM_NULLPTR, "dynamicScalesOut is NULL "
                            "but quantMode is 2");
    ACLSTUB_TRY(md_layout(call, &p->m, aclStubOpInt(call, EP_WORLD), aclStubOpInt(call, EP_RANK),
                          aclStubOpInt(call, MOE_EXPERTS), tp_size, aclStubOpInt(call, TP_RANK),
                          aclStubOpInt(call, SHARD_TYPE), aclStubOpInt(call, SHARED_NUM),
                          aclStubOpInt(call, SHARED_RANKS)));
    const MdLayout *m = &p->m;
    p->bs = x->dims[0];
    p->h = x->dims[1];
    p->k = ids->dims[1];
    ACLSTUB_RETURN_ERROR_IF(p->bs <= 0 || p->bs > 512, call, bad, "x has %lld tokens; Bs must be in (0, 512]",
                            (long long)p->bs);
    ACLSTUB_RETURN_ERROR_IF(p->h <= 0 || p->h > 10240, call, bad, "x has hidden size %lld; H must be in (0, 10240]",
                            (long long)p->h);
    ACLSTUB_RETURN_ERROR_IF(ids->dims[0] != p->bs, call, bad, "expertIds has %lld rows, x has %lld tokens",
                            (long long)ids->dims[0], (long long)p->bs);
    ACLSTUB_RETURN_ERROR_IF(p->k <= 0 || p->k > 16 || p->k > m->e, call, bad, "K (%lld, the columns of expertIds) "
                            "must be in (0, min(16, moeExpertNum)]", (long long)p->k);
    ACLSTUB_RETURN_ERROR_IF(scales && (scales->dims[0] != m->shared + m->e || scales->dims[1] != p->h), call, bad,
                            "scalesOptional must be (sharedExpertNum + moeExpertNum, H) = (%lld, %lld)",
                            (long long)(m->shared + m->e), (long long)p->h);
    ACLSTUB_RETURN_ERROR_IF(mask && (mask->dims[0] != p->bs || (mask->ndim == 2 && mask->dims[1] != p->k)), call, bad,
                            "xActiveMaskOptional must be (Bs,) or (Bs, K)");
    ACLSTUB_RETURN_ERROR_IF(escales && (escales->dims[0] != p->bs || escales->dims[1] != p->k), call, bad,
                            "expertScalesOptional must be (Bs, K) like expertIds");
    int64_t global_bs = aclStubOpInt(call, GLOBAL_BS);
    ACLSTUB_RETURN_ERROR_IF(global_bs != 0 && (global_bs < p->bs * m->w || global_bs % m->w != 0), call, bad,
                            "globalBs (%lld) must be 0 or a multiple of epWorldSize of at least Bs * epWorldSize "
                            "(%lld)", (long long)global_bs, (long long)(p->bs * m->w));
    p->tokens_type = aclStubOpInt(call, TOKEN_NUMS_TYPE);
    ACLSTUB_RETURN_ERROR_IF(p->tokens_type != 0 && p->tokens_type != 1, call, bad, "expertTokenNumsType (%lld) must "
                            "be 0 (running sum) or 1 (counts)", (long long)p->tokens_type);
    aclDataType want = p->quant == 2 ? ACL_INT8 : x->dtype;
    ACLSTUB_RETURN_ERROR_IF(ex->dtype != want, call, ACLNN_ERR_PARAM_INVALID, "expandXOut has dtype %s; it must be %s",
                            aclStubDtypeName(ex->dtype), aclStubDtypeName(want));
    ACLSTUB_RETURN_ERROR_IF(ex->dims[1] != p->h || ex->dims[0] % m->tp != 0, call, bad, "expandXOut must be "
                            "(max(tpWorldSize, 1) * A, H) with H = %lld", (long long)p->h);
    p->a = ex->dims[0] / m->tp;
    int64_t bsw = global_bs ? global_bs : p->bs * m->w;
    int64_t need = m->is_shared ? bsw * m->shared / m->s : bsw * (m->local < p->k ? m->local : p->k);
    ACLSTUB_RETURN_ERROR_IF(p->a < need, call, bad, "expandXOut holds A = %lld rows per rank; this rank may receive "
                            "%lld", (long long)p->a, (long long)need);
#if MD_V1
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(assist) < p->bs * p->k, call, bad, "expandIdx holds %lld values; it needs "
                            "Bs * K = %lld", (long long)aclStubNumel(assist), (long long)(p->bs * p->k));
#else
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(assist) < 3 * p->a, call, bad, "assistInfoForCombineOut holds %lld values; "
                            "it needs A * 128", (long long)aclStubNumel(assist));
#endif
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(nums) < m->local, call, bad, "expertTokenNumsOut holds %lld values, fewer "
                            "than this rank's %lld experts", (long long)aclStubNumel(nums), (long long)m->local);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(ep) < m->w * m->tp * m->local, call, bad, "epRecvCountsOut holds %lld "
                            "values; it needs epWorldSize * max(tpWorldSize, 1) * localExpertNum = %lld",
                            (long long)aclStubNumel(ep), (long long)(m->w * m->tp * m->local));
    ACLSTUB_RETURN_ERROR_IF(m->tp > 1 && aclStubNumel(tpr) < m->tp, call, bad, "tpRecvCountsOut must hold "
                            "tpWorldSize values");
    ACLSTUB_RETURN_ERROR_IF(dyn && p->quant == 2 && aclStubNumel(dyn) < m->tp * p->a, call, bad, "dynamicScalesOut "
                            "must hold a scale per row of expandXOut (%lld)", (long long)(m->tp * p->a));
    ACLSTUB_RETURN_ERROR_IF(es && aclStubNumel(es) < p->a, call, bad, "expandScalesOut must hold A (%lld) values",
                            (long long)p->a);
    if (p->quant != 2) aclStubOpIgnore(call, DYN_SCALES);
    if (escales == NULL) aclStubOpIgnore(call, EXPAND_SCALES);
    ACLSTUB_TRY(md_comm(call, "groupEp", call->v[GROUP_EP].s, m->w, m->rank, &p->ep));
    if (m->tp > 1) ACLSTUB_TRY(md_comm(call, "groupTp", call->v[GROUP_TP].s, m->tp, m->tp_rank, &p->tp));
    return OK;
}

/* ---- the kernel ----------------------------------------------------------------------------------------------- */

typedef struct {
    int32_t token, slot;
    float scale, dyn; /* expert scale (1 when absent), dynamic quantisation scale */
} Meta;

typedef struct {
    const Plan *p;
    int64_t lmax;          /* local experts per rank, the most any rank holds */
    int64_t *cnt;          /* [w][lmax]: rows this rank sends to (rank, local expert) */
    int64_t *all;          /* [w][w][lmax]: every rank's cnt */
    uint64_t *sc, *sd, *rc, *rd; /* all-to-all counts and displacements (bytes) */
    char *send_rows, *recv_rows;
    Meta *send_meta, *recv_meta;
    size_t row_bytes;
    int64_t recv_total;
    /* tensor-parallel step */
    int64_t mine, partner;
    int64_t *mine_counts, *partner_counts; /* [local][w] */
    char *ex;                              /* expandXOut rows */
    float *dyn;
} Xchg;

static HcclResult exchange_ep(HcCtx *ctx, void *arg) {
    Xchg *x = arg;
    int64_t w = x->p->m.w, me = x->p->m.rank, l = x->lmax;
    HcclResult ret = aclStubHcclAllGatherBytes(ctx, "dispatch counts", x->cnt, x->all,
                                               (uint64_t)(w * l) * sizeof(int64_t));
    if (ret != HCCL_SUCCESS) return ret;
    int64_t off = 0;
    for (int64_t s = 0; s < w; s++) {
        int64_t rows = 0;
        for (int64_t j = 0; j < l; j++) rows += x->all[(s * w + me) * l + j];
        x->rc[s] = (uint64_t)rows;
        x->rd[s] = (uint64_t)off;
        off += rows;
    }
    x->recv_total = off;
    x->recv_rows = malloc((size_t)(off ? off : 1) * x->row_bytes);
    x->recv_meta = malloc((size_t)(off ? off : 1) * sizeof(Meta));
    if (x->recv_rows == NULL || x->recv_meta == NULL) return HCCL_E_MEMORY;
    uint64_t rb[4][1024], *bytes[4];
    bool heap = w > 1024;
    for (int i = 0; i < 4; i++) bytes[i] = heap ? malloc((size_t)w * sizeof(uint64_t)) : rb[i];
    if (heap && (!bytes[0] || !bytes[1] || !bytes[2] || !bytes[3])) ret = HCCL_E_MEMORY;
    for (int pass = 0; pass < 2 && ret == HCCL_SUCCESS; pass++) {
        size_t unit = pass == 0 ? x->row_bytes : sizeof(Meta);
        for (int64_t i = 0; i < w; i++) {
            bytes[0][i] = x->sc[i] * unit;
            bytes[1][i] = x->sd[i] * unit;
            bytes[2][i] = x->rc[i] * unit;
            bytes[3][i] = x->rd[i] * unit;
        }
        ret = pass == 0 ? aclStubHcclAlltoAllvBytes(ctx, "dispatch tokens", x->send_rows, bytes[0], bytes[1],
                                                    x->recv_rows, bytes[2], bytes[3])
                        : aclStubHcclAlltoAllvBytes(ctx, "dispatch token info", x->send_meta, bytes[0], bytes[1],
                                                    x->recv_meta, bytes[2], bytes[3]);
    }
    if (heap)
        for (int i = 0; i < 4; i++) free(bytes[i]);
    return ret;
}

/* The pair of a tensor-parallel group swap their row counts, then their rows (and the rows' scales). */
static HcclResult exchange_tp(HcCtx *ctx, void *arg) {
    Xchg *x = arg;
    const MdLayout *m = &x->p->m;
    uint32_t me = aclStubHcclCtxRank(ctx), other = 1 - me;
    int64_t counts_len = m->local * m->w;
    int64_t *mine = malloc((size_t)(counts_len + 1) * sizeof *mine), *both = malloc((size_t)(counts_len + 1) * 2 *
                                                                                     sizeof *both);
    if (mine == NULL || both == NULL) {
        free(mine);
        free(both);
        return HCCL_E_MEMORY;
    }
    mine[0] = x->mine;
    memcpy(mine + 1, x->mine_counts, (size_t)counts_len * sizeof *mine);
    HcclResult ret = aclStubHcclAllGatherBytes(ctx, "dispatch tp counts", mine, both,
                                               (uint64_t)(counts_len + 1) * sizeof *mine);
    if (ret == HCCL_SUCCESS) {
        const int64_t *theirs = both + other * (counts_len + 1);
        x->partner = theirs[0];
        memcpy(x->partner_counts, theirs + 1, (size_t)counts_len * sizeof *theirs);
        if (x->mine + x->partner > m->tp * x->p->a) ret = HCCL_E_PARA;
    }
    for (int pass = 0; pass < 2 && ret == HCCL_SUCCESS; pass++) {
        if (pass == 1 && x->dyn == NULL) break;
        size_t unit = pass == 0 ? x->row_bytes : sizeof(float);
        char *base = pass == 0 ? x->ex : (char *)x->dyn;
        uint64_t sc[2] = {0, 0}, sd[2] = {0, 0}, rc[2] = {0, 0}, rd[2] = {0, 0};
        sc[other] = (uint64_t)x->mine * unit;
        rc[other] = (uint64_t)x->partner * unit;
        rd[other] = (uint64_t)x->mine * unit;
        ret = aclStubHcclAlltoAllvBytes(ctx, pass == 0 ? "dispatch tp tokens" : "dispatch tp scales", base, sc, sd,
                                        base, rc, rd);
    }
    free(mine);
    free(both);
    return ret;
}

static int64_t slot_expert(const Plan *p, const aclStubTensorDesc *ids, int64_t t, int64_t k) {
    return k < p->k ? aclStubIndexFlat(ids, t * p->k + k, p->k) : -1;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    const MdLayout *m = &p->m;
    const aclStubTensorDesc *x = aclStubOpTensor(call, X), *ids = aclStubOpTensor(call, EXPERT_IDS);
    const aclStubTensorDesc *scales = aclStubOpTensor(call, SCALES), *mask = aclStubOpTensor(call, MASK);
    const aclStubTensorDesc *escales = aclStubOpTensor(call, EXPERT_SCALES), *ex = aclStubOpTensor(call, EXPAND_X);
    const aclStubTensorDesc *dyn = aclStubOpTensor(call, DYN_SCALES), *assist = aclStubOpTensor(call, ASSIST);
    const aclStubTensorDesc *nums = aclStubOpTensor(call, TOKEN_NUMS), *ep = aclStubOpTensor(call, EP_RECV);
    const aclStubTensorDesc *tpr = aclStubOpTensor(call, TP_RECV), *es = aclStubOpTensor(call, EXPAND_SCALES);
    int64_t w = m->w, h = p->h, slots = p->k + m->shared, lmax = m->per_rank > 1 ? m->per_rank : 1;
    size_t xes = aclDataTypeSize(x->dtype), oes = aclDataTypeSize(ex->dtype);
    Xchg c = {.p = p, .lmax = lmax, .row_bytes = (size_t)h * oes};

    /* Where each slot goes: (rank, local expert), in token then slot order. */
    int64_t nslots = p->bs * slots;
    int64_t *dest = aclStubKernelScratch(call, (size_t)nslots * 2 * sizeof *dest);
    c.cnt = aclStubKernelScratch(call, (size_t)(w * lmax) * sizeof *c.cnt);
    c.all = aclStubKernelScratch(call, (size_t)(w * w * lmax) * sizeof *c.all);
    uint64_t *arrays = aclStubKernelScratch(call, (size_t)w * 4 * sizeof *arrays);
    if (!dest || !c.cnt || !c.all || !arrays) return aclStubKernelOutOfMemory(call);
    c.sc = arrays, c.sd = arrays + w, c.rc = arrays + 2 * w, c.rd = arrays + 3 * w;
    memset(c.cnt, 0, (size_t)(w * lmax) * sizeof *c.cnt);
    int64_t total = 0;
    for (int64_t t = 0; t < p->bs; t++)
        for (int64_t k = 0; k < slots; k++) {
            int64_t d = -1, l = 0, *slot = dest + 2 * (t * slots + k);
            if (k < p->k) {
                if (md_active(mask, t, k) && !md_route(m, slot_expert(p, ids, t, k), &d, &l))
                    return aclStubKernelFail(call, ACLNN_ERR_INNER, "expertIds[%lld][%lld] = %lld is not an expert "
                                             "(moeExpertNum %lld)", (long long)t, (long long)k,
                                             (long long)slot_expert(p, ids, t, k), (long long)m->e);
            } else if (md_token_active(mask, t, p->k)) {
                d = md_shared_dest(m, k - p->k);
            }
            slot[0] = d;
            slot[1] = l;
            if (d >= 0) {
                c.cnt[d * lmax + l]++;
                total++;
            }
        }
    /* Rows in (rank, local expert, token, slot) order: running offsets per (rank, local expert). */
    int64_t *start = aclStubKernelScratch(call, (size_t)(w * lmax) * sizeof *start);
    c.send_rows = aclStubKernelScratch(call, (size_t)(total ? total : 1) * c.row_bytes);
    c.send_meta = aclStubKernelScratch(call, (size_t)(total ? total : 1) * sizeof(Meta));
    float *row = p->quant == 2 ? aclStubKernelScratch(call, (size_t)h * 2 * sizeof *row) : NULL, *smooth = row ? row + h : NULL;
    if (!start || !c.send_rows || !c.send_meta || (p->quant == 2 && !row)) return aclStubKernelOutOfMemory(call);
    int64_t off = 0;
    for (int64_t d = 0; d < w; d++) {
        c.sd[d] = (uint64_t)off;
        for (int64_t l = 0; l < lmax; l++) {
            start[d * lmax + l] = off;
            off += c.cnt[d * lmax + l];
        }
        c.sc[d] = (uint64_t)off - c.sd[d];
    }
#if MD_V1
    /* expandIdx[t][k]: the rank of slot (t, k) among this rank's rows for its expert (-1 for a masked slot) */
    int32_t *order = (int32_t *)assist->data + assist->offset;
    int64_t *first = aclStubKernelScratch(call, (size_t)(w * lmax) * sizeof *first);
    if (!first) return aclStubKernelOutOfMemory(call);
    memcpy(first, start, (size_t)(w * lmax) * sizeof *first);
#endif
    for (int64_t t = 0; t < p->bs; t++)
        for (int64_t k = 0; k < slots; k++) {
            const int64_t *slot = dest + 2 * (t * slots + k);
#if MD_V1
            if (k < p->k) order[t * p->k + k] = slot[0] < 0 ? -1 : (int32_t)(start[slot[0] * lmax + slot[1]] -
                                                                          first[slot[0] * lmax + slot[1]]);
#endif
            if (slot[0] < 0) continue;
            int64_t at = start[slot[0] * lmax + slot[1]]++;
            char *out = c.send_rows + (size_t)at * c.row_bytes;
            Meta meta = {(int32_t)t, (int32_t)k, 1.0f, 1.0f};
            if (escales && k < p->k) meta.scale = *(const float *)aclStubElem2(escales, t, k);
            if (p->quant == 2) { /* smooth scales: the shared experts' rows first, then the MoE experts' */
                int64_t srow = k < p->k ? m->shared + slot_expert(p, ids, t, k) : k - p->k;
                aclStubRowLoadViewF32(row, x, t);
                if (scales) aclStubRowLoadViewF32(smooth, scales, srow);
                meta.dyn = aclStubRowQuantInt8Dynamic((int8_t *)out, row, scales ? smooth : NULL, h);
            } else {
                for (int64_t j = 0; j < h; j++) memcpy(out + (size_t)j * xes, aclStubElem2(x, t, j), xes);
            }
            c.send_meta[at] = meta;
        }

    /* The exchange over the expert-parallel group. */
    char msg[1024];
    HcclResult hr = aclStubHcclRun(p->ep, MD_OP_NAME, exchange_ep, &c, msg, sizeof msg);
    aclnnStatus status = OK;
    if (hr != HCCL_SUCCESS) status = aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over groupEp failed: %s", msg);

    /* This rank's rows: by local expert, then source rank. */
    int64_t local = m->local;
    c.mine_counts = aclStubKernelScratch(call, (size_t)(local * w) * 2 * sizeof *c.mine_counts);
    if (status == OK && c.mine_counts == NULL) status = aclStubKernelOutOfMemory(call);
    if (status == OK && c.recv_total > p->a)
        status = aclStubKernelFail(call, ACLNN_ERR_INNER, "this rank received %lld rows, more than A = %lld (the rows "
                                   "of expandXOut per rank)", (long long)c.recv_total, (long long)p->a);
    char *exrows = (char *)ex->data + ex->offset * (int64_t)oes;
#if !MD_V1
    int32_t *info = (int32_t *)assist->data + assist->offset;
#endif
    float *dyn_out = dyn ? (float *)dyn->data + dyn->offset : NULL, *es_out = es ? (float *)es->data + es->offset : NULL;
    if (status == OK) {
        c.partner_counts = c.mine_counts + local * w;
        int64_t pos = 0;
        for (int64_t l = 0; l < local; l++)
            for (int64_t s = 0; s < w; s++) {
                int64_t before = 0; /* rows from s for this rank's earlier local experts */
                for (int64_t j = 0; j < l; j++) before += c.all[(s * w + m->rank) * lmax + j];
                int64_t n = c.all[(s * w + m->rank) * lmax + l], from = (int64_t)c.rd[s] + before;
                memcpy(exrows + (size_t)pos * c.row_bytes, c.recv_rows + (size_t)from * c.row_bytes,
                       (size_t)n * c.row_bytes);
                for (int64_t i = 0; i < n; i++) {
                    const Meta *mt = &c.recv_meta[from + i];
#if !MD_V1
                    info[3 * (pos + i)] = (int32_t)s;
                    info[3 * (pos + i) + 1] = mt->token;
                    info[3 * (pos + i) + 2] = mt->slot;
#endif
                    if (es_out) es_out[pos + i] = mt->scale;
                    if (dyn_out) dyn_out[pos + i] = mt->dyn;
                }
                c.mine_counts[l * w + s] = n;
                pos += n;
            }
        c.mine = pos;
    }
    free(c.recv_rows);
    free(c.recv_meta);

    /* The tensor-parallel pair gathers each other's rows after its own. */
    if (status == OK && m->tp > 1) {
        c.ex = exrows;
        c.dyn = dyn_out;
        hr = aclStubHcclRun(p->tp, MD_OP_NAME, exchange_tp, &c, msg, sizeof msg);
        if (hr == HCCL_E_PARA && msg[0] == '\0')
            status = aclStubKernelFail(call, ACLNN_ERR_INNER, "the pair's rows (%lld + %lld) exceed expandXOut",
                                       (long long)c.mine, (long long)c.partner);
        else if (hr != HCCL_SUCCESS)
            status = aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over groupTp failed: %s", msg);
    }
    if (status != OK) return status;

    /* Counts: per local expert (every row of the rank), running row counts per (local expert, source). */
    int64_t *tn = (int64_t *)nums->data + nums->offset, run = 0;
    for (int64_t l = 0; l < local; l++) {
        int64_t n = 0;
        for (int64_t s = 0; s < w; s++) n += c.mine_counts[l * w + s] + (m->tp > 1 ? c.partner_counts[l * w + s] : 0);
        run += n;
        tn[l] = p->tokens_type == 1 ? n : run;
    }
    int32_t *er = (int32_t *)ep->data + ep->offset;
    int64_t acc = 0;
    for (int64_t b = 0; b < m->tp; b++)
        for (int64_t i = 0; i < local * w; i++) {
            acc += b == 0 ? c.mine_counts[i] : c.partner_counts[i];
            er[b * local * w + i] = (int32_t)acc;
        }
    if (m->tp > 1) {
        int32_t *tr = (int32_t *)tpr->data + tpr->offset;
        tr[m->tp_rank] = (int32_t)c.mine;
        tr[1 - m->tp_rank] = (int32_t)c.partner;
    }
    return OK;
}

#endif /* ACLNN_STUB_MOE_DISTRIBUTE_DISPATCH_IMPL_H_ */
