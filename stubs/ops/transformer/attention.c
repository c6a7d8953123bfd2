/*
 * The flash-attention family on the attention engine (aclstub/op_attention.h): FlashAttentionScore (V2, VarLen
 * V1-V4) and its grad (V2, Unpadding V1-V4), PromptFlashAttention (V1-V3), IncreFlashAttention (V1-V4) and
 * FusedInferAttentionScore (V1-V4). One check and one kernel serve every entry point: each parameter's role
 * comes from its official name (the operators share names for shared meanings).
 *
 * Not implemented (refused with ACLNN_ERR_PARAM_INVALID naming the argument): the quantised paths (deqScale*,
 * quantScale*, quantOffset2, antiquant*, dequantScaleQuery: INT8 queries or caches), query/kv padding sizes,
 * shared prefixes, pseType 2 and 3 (ALiBi generated inside), key/value lists of more than one tensor, the
 * paddingMask input. Dropout reads dropMask bits (bit ((b*N + n)*Sq + i)*Skv + j, least significant first;
 * per batch back to back for TND) when keepProb < 1.
 */
#include <stdio.h>
#include <string.h>

#include "aclstub/op_attention.h"
#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aclnnop/aclnn_fused_infer_attention_score.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v3.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v4.h"
#include "aclnnop/aclnn_incre_flash_attention.h"
#include "aclnnop/aclnn_incre_flash_attention_v2.h"
#include "aclnnop/aclnn_incre_flash_attention_v3.h"
#include "aclnnop/aclnn_incre_flash_attention_v4.h"
#include "aclnnop/aclnn_prompt_flash_attention.h"
#include "aclnnop/aclnn_prompt_flash_attention_v2.h"
#include "aclnnop/aclnn_prompt_flash_attention_v3.h"

/* ---- roles ------------------------------------------------------------------------------------------------ */

enum {
    R_Q, R_QROPE, R_K, R_KROPE, R_V, R_DY, R_PSE, R_DROP, R_PAD, R_MASK, R_PREFIX, R_SEQ_Q, R_SEQ_KV, R_QSTART,
    R_KVSTART, R_SCALE, R_KEEP, R_PRE, R_NEXT, R_HEADS, R_LAYOUT, R_INNER, R_SPARSE, R_PSETYPE, R_KVHEADS, R_BT,
    R_BS, R_LSEFLAG, R_SMLAYOUT, R_SINK, R_SMAX, R_SSUM, R_SOUT, R_OUT, R_LSE, R_SMAX_IN, R_SSUM_IN, R_SIN,
    R_ATTN_IN, R_DQ, R_DQROPE, R_DK, R_DKROPE, R_DV, R_DPSE, R_COUNT
};

static const char *const ROLE_NAMES[R_COUNT] = {
    [R_Q] = "query", [R_QROPE] = "queryRope|queryRopeOptional", [R_K] = "key|keyIn",
    [R_KROPE] = "keyRope|keyInRope|keyRopeOptional", [R_V] = "value", [R_DY] = "dy",
    [R_PSE] = "realShiftOptional|pseShiftOptional|pseShift", [R_DROP] = "dropMaskOptional",
    [R_PAD] = "paddingMaskOptional", [R_MASK] = "attenMaskOptional|attenMask", [R_PREFIX] = "prefixOptional",
    [R_SEQ_Q] = "actualSeqQLenOptional|actualSeqLengths|actualSeqLengthsOptional",
    [R_SEQ_KV] = "actualSeqKvLenOptional|actualSeqLengthsKv|actualSeqLengthsKvOptional",
    [R_QSTART] = "qStartIdxOptional", [R_KVSTART] = "kvStartIdxOptional", [R_SCALE] = "scaleValue",
    [R_KEEP] = "keepProb", [R_PRE] = "preTokens", [R_NEXT] = "nextTokens", [R_HEADS] = "headNum|numHeads",
    [R_LAYOUT] = "inputLayout", [R_INNER] = "innerPrecise", [R_SPARSE] = "sparseMode", [R_PSETYPE] = "pseType",
    [R_KVHEADS] = "numKeyValueHeads", [R_BT] = "blocktable|blockTable|blockTableOptional", [R_BS] = "blockSize",
    [R_LSEFLAG] = "softmaxLseFlag", [R_SMLAYOUT] = "softmaxOutLayout|softmaxInLayout",
    [R_SINK] = "learnableSinkOptional", [R_SMAX] = "softmaxMaxOut", [R_SSUM] = "softmaxSumOut",
    [R_SOUT] = "softmaxOutOut", [R_OUT] = "attentionOutOut|attentionOut", [R_LSE] = "softmaxLse",
    [R_SMAX_IN] = "softmaxMaxOptional", [R_SSUM_IN] = "softmaxSumOptional", [R_SIN] = "softmaxInOptional",
    [R_ATTN_IN] = "attentionInOptional", [R_DQ] = "dqOut", [R_DQROPE] = "dqRopeOut", [R_DK] = "dkOut",
    [R_DKROPE] = "dkRopeOut", [R_DV] = "dvOut", [R_DPSE] = "dpseOut",
};

/* Attributes that only tune the device (or select quantisation modes whose tensors are refused when given). */
static const char *const IGNORED = "antiquantMode|keyAntiquantMode|valueAntiquantMode|queryQuantMode";

static bool name_in(const char *name, const char *list) {
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0) return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

typedef enum { FA, FAG, PFA, IFA, FIA } Kind;

typedef struct {
    Kind kind;
    bool varlen; /* FlashAttentionVarLen / Unpadding: TND with cumulative lengths */
} Row;

typedef struct {
    int idx[R_COUNT];
    aclStubAttnLayout in_l, out_l;
    int64_t b, n, nkv, sq, skv, d, dv, drope, t_q;
    bool paged, tnd;
    int64_t block_size;
    int sparse;
    int64_t pre, next;
    int pse_before;
    float scale, keep;
    bool stats_tnd_first; /* TND statistics as (T, N, 8) rather than (N, T, 8) */
    bool write_lse;
    bool has_mask; /* an attenMask was given: the sparse mode applies (none given: everything visible) */
    int64_t kv_read; /* the longest key/value length read (the masks' and pse's last dimension) */
} Plan;

static const aclStubValue *role(const aclStubOpCall *c, const Plan *p, int r) {
    return p->idx[r] >= 0 ? &c->v[p->idx[r]] : NULL;
}
static const aclStubTensorDesc *rtensor(const aclStubOpCall *c, const Plan *p, int r) {
    const aclStubValue *v = role(c, p, r);
    return v ? v->tensor : NULL;
}
static int64_t rint_or(const aclStubOpCall *c, const Plan *p, int r, int64_t dflt) {
    const aclStubValue *v = role(c, p, r);
    return v ? v->i : dflt;
}

/* The key/value operand: a tensor, or the single tensor of a list. */
static const aclStubTensorDesc *kv_tensor(const aclStubOpCall *c, const Plan *p, int r) {
    const aclStubValue *v = role(c, p, r);
    if (v == NULL) return NULL;
    if (c->op->params[p->idx[r]].role == ACLSTUB_TENSOR_LIST) return v->present && v->size > 0 ? &v->tensors[0] : NULL;
    return v->tensor;
}

/* ---- checks ------------------------------------------------------------------------------------------------ */

#define INVALID ACLNN_ERR_PARAM_INVALID

static aclnnStatus want_dims(aclStubOpCall *c, const aclStubTensorDesc *t, const char *name, const int64_t *dims,
                             uint32_t n) {
    if (aclStubShapeEqual(t->dims, t->ndim, dims, n)) return OK;
    char got[160], want[160];
    return aclStubOpFail(c, INVALID, "%s has shape %s; must be %s", name, aclStubShapeText(t->dims, t->ndim, got,
                         sizeof got), aclStubShapeText(dims, n, want, sizeof want));
}

/* The shape of a sequence operand of (B, N, S, D) in layout l (T tokens for TND). */
static uint32_t layout_dims(aclStubAttnLayout l, int64_t b, int64_t n, int64_t s, int64_t d, int64_t t, int64_t *out) {
    switch (l) {
    case ACLSTUB_ATTN_BSH: out[0] = b, out[1] = s, out[2] = n * d; return 3;
    case ACLSTUB_ATTN_SBH: out[0] = s, out[1] = b, out[2] = n * d; return 3;
    case ACLSTUB_ATTN_BSND: out[0] = b, out[1] = s, out[2] = n, out[3] = d; return 4;
    case ACLSTUB_ATTN_BNSD: out[0] = b, out[1] = n, out[2] = s, out[3] = d; return 4;
    case ACLSTUB_ATTN_TND: out[0] = t, out[1] = n, out[2] = d; return 3;
    default: return 0;
    }
}

static aclnnStatus check_lengths(aclStubOpCall *c, const aclStubValue *v, const char *name, int64_t b, bool cumulative,
                                 int64_t limit) {
    if (v == NULL || v->ints == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(v->size != 1 && (int64_t)v->size != b, c, INVALID, "%s has %llu entries; must have 1 or "
                            "B = %lld", name, (unsigned long long)v->size, (long long)b);
    int64_t prev = 0;
    for (uint64_t i = 0; i < v->size; i++) {
        int64_t x = v->ints[i];
        ACLSTUB_RETURN_ERROR_IF(x < 0 || x > limit, c, INVALID, "%s[%llu] = %lld must be in [0, %lld]", name,
                                (unsigned long long)i, (long long)x, (long long)limit);
        ACLSTUB_RETURN_ERROR_IF(cumulative && x < prev, c, INVALID, "%s must not decrease (cumulative lengths): "
                                "entry %llu is %lld after %lld", name, (unsigned long long)i, (long long)x,
                                (long long)prev);
        prev = x;
    }
    return OK;
}

static aclnnStatus check(aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    Plan *p = c->plan;
    for (int r = 0; r < R_COUNT; r++) p->idx[r] = -1;
    for (size_t i = 0; i < c->op->num_params; i++) {
        const aclStubParam *prm = &c->op->params[i];
        int r = 0;
        while (r < R_COUNT && !name_in(prm->name, ROLE_NAMES[r])) r++;
        if (r < R_COUNT) {
            p->idx[r] = (int)i;
            continue;
        }
        if (name_in(prm->name, IGNORED)) continue;
        bool present = c->v[i].present;
        ACLSTUB_RETURN_ERROR_IF(present, c, INVALID, "argument '%s' (quantised, padded or shared-prefix attention) "
                                "is not supported by this implementation; pass NULL", prm->name);
        if (prm->role == ACLSTUB_OPTIONAL_INPUT || prm->role == ACLSTUB_INPUT) aclStubOpIgnore(c, (int)i);
    }
    if (row->kind == IFA) { /* a single query row: actualSeqLengths are the key/value lengths */
        p->idx[R_SEQ_KV] = p->idx[R_SEQ_Q];
        p->idx[R_SEQ_Q] = -1;
    }
    const aclStubTensorDesc *q = rtensor(c, p, R_Q), *k = kv_tensor(c, p, R_K), *v = kv_tensor(c, p, R_V);
    ACLSTUB_RETURN_ERROR_IF(k == NULL || v == NULL, c, ACLNN_ERR_PARAM_NULLPTR, "key and value must hold a tensor");
    for (int r = R_K; r <= R_V; r += R_V - R_K) {
        const aclStubValue *lv = role(c, p, r);
        if (c->op->params[p->idx[r]].role == ACLSTUB_TENSOR_LIST) {
            ACLSTUB_RETURN_ERROR_IF(lv->size != 1, c, INVALID, "%s holds %llu tensors; this implementation takes one "
                                    "(the whole cache)", aclStubOpName(c, p->idx[r]), (unsigned long long)lv->size);
            ACLSTUB_RETURN_ERROR_IF(lv->tensors[0].dtype != q->dtype, c, INVALID, "%s has data type %s; must be "
                                    "the query's %s", aclStubOpName(c, p->idx[r]), aclStubDtypeName(lv->tensors[0].dtype),
                                    aclStubDtypeName(q->dtype));
        }
    }
    ACLSTUB_RETURN_ERROR_IF(rtensor(c, p, R_PAD), c, INVALID, "paddingMaskOptional is not supported; pass NULL");
    /* layout */
    const aclStubValue *lay = role(c, p, R_LAYOUT);
    const char *ls = lay && lay->s ? lay->s : "";
    p->in_l = aclStubAttnLayoutOf(ls, strlen(ls));
    const char *us = strchr(ls, '_');
    p->out_l = us ? aclStubAttnLayoutOf(us + 1, strlen(us + 1)) : p->in_l;
    bool fa = row->kind == FA || row->kind == FAG;
    bool ok_layout = p->in_l != ACLSTUB_ATTN_BAD && p->in_l != ACLSTUB_ATTN_NSD && p->out_l != ACLSTUB_ATTN_BAD &&
                     p->out_l != ACLSTUB_ATTN_NSD;
    if (fa) ok_layout = ok_layout && !us && (row->varlen ? p->in_l == ACLSTUB_ATTN_TND : p->in_l != ACLSTUB_ATTN_TND);
    else ok_layout = ok_layout && p->in_l != ACLSTUB_ATTN_SBH;
    ACLSTUB_RETURN_ERROR_IF(!ok_layout, c, INVALID, "inputLayout '%s' is not supported (%s)", ls,
                            fa ? (row->varlen ? "TND" : "BSH, SBH, BSND or BNSD")
                               : "BSH, BSND, BNSD, TND or BNSD_BSND");
    p->tnd = p->in_l == ACLSTUB_ATTN_TND;
    int rank = aclStubAttnLayoutRank(p->in_l);
    ACLSTUB_RETURN_ERROR_IF((int)q->ndim != rank, c, INVALID, "query must be %d-D in layout %s, got %u-D", rank, ls,
                            q->ndim);
    int64_t heads = rint_or(c, p, R_HEADS, 0);
    ACLSTUB_RETURN_ERROR_IF(heads <= 0, c, INVALID, "%s = %lld must be positive", aclStubOpName(c, p->idx[R_HEADS]),
                            (long long)heads);
    int64_t qs[4];
    aclStubAttnShape(q, p->in_l, heads, qs);
    ACLSTUB_RETURN_ERROR_IF(qs[1] != heads || qs[3] <= 0, c, INVALID, "query's heads (%lld of %lld) must match %s = "
                            "%lld", (long long)qs[1], (long long)qs[3], aclStubOpName(c, p->idx[R_HEADS]),
                            (long long)heads);
    p->n = heads, p->d = qs[3], p->sq = qs[2], p->b = qs[0], p->t_q = p->tnd ? qs[2] : 0;
    /* rope parts (MLA) */
    const aclStubTensorDesc *qr = rtensor(c, p, R_QROPE), *kr = rtensor(c, p, R_KROPE);
    ACLSTUB_RETURN_ERROR_IF((qr == NULL) != (kr == NULL), c, INVALID, "the rope parts of query and key come together");
    /* key / value geometry */
    const aclStubTensorDesc *bt = rtensor(c, p, R_BT);
    p->paged = bt != NULL;
    int64_t ks[4], vs[4];
    int64_t hint_kv = rint_or(c, p, R_KVHEADS, 0);
    if (hint_kv == 0) hint_kv = heads;
    if (p->paged) {
        ACLSTUB_RETURN_ERROR_IF(bt->dtype != ACL_INT32 || bt->ndim != 2, c, INVALID, "blockTable must be a 2-D INT32 "
                                "tensor (B, max blocks per sequence)");
        p->block_size = rint_or(c, p, R_BS, 0);
        ACLSTUB_RETURN_ERROR_IF(p->block_size <= 0, c, INVALID, "blockSize = %lld must be positive with a block table",
                                (long long)p->block_size);
        ACLSTUB_RETURN_ERROR_IF(k->ndim != 3 && k->ndim != 4, c, INVALID, "a paged key cache must be (blocks, "
                                "blockSize, H) or (blocks, N, blockSize, D), got %u-D", k->ndim);
        ACLSTUB_RETURN_ERROR_IF(k->ndim != v->ndim, c, INVALID, "key and value caches must have the same rank");
        aclStubAttnLayout cl = k->ndim == 3 ? ACLSTUB_ATTN_BSH : ACLSTUB_ATTN_NSD;
        aclStubAttnShape(k, cl, hint_kv, ks);
        aclStubAttnShape(v, cl, hint_kv, vs);
        ACLSTUB_RETURN_ERROR_IF(ks[2] != p->block_size || vs[2] != p->block_size, c, INVALID, "the caches' block "
                                "axis is %lld; must be blockSize = %lld", (long long)ks[2], (long long)p->block_size);
        ACLSTUB_RETURN_ERROR_IF(bt->dims[0] != p->b, c, INVALID, "blockTable.shape[0] = %lld must be B = %lld",
                                (long long)bt->dims[0], (long long)p->b);
        p->skv = bt->dims[1] * p->block_size;
        ACLSTUB_RETURN_ERROR_IF(role(c, p, R_SEQ_KV) == NULL || role(c, p, R_SEQ_KV)->ints == NULL, c, INVALID,
                                "a paged cache needs actualSeqLengthsKv");
    } else {
        ACLSTUB_RETURN_ERROR_IF((int)k->ndim != rank || (int)v->ndim != rank, c, INVALID, "key and value must be "
                                "%d-D in layout %s", rank, ls);
        int64_t nk = hint_kv;
        if (fa && (p->in_l == ACLSTUB_ATTN_BSH || p->in_l == ACLSTUB_ATTN_SBH)) {
            int64_t hk = k->dims[2];
            nk = p->d > 0 && hk % p->d == 0 ? hk / p->d : -1;
            ACLSTUB_RETURN_ERROR_IF(nk <= 0, c, INVALID, "key's hidden size %lld must be a multiple of D = %lld",
                                    (long long)hk, (long long)p->d);
        }
        aclStubAttnShape(k, p->in_l, nk, ks);
        int64_t nv = nk;
        if (fa && (p->in_l == ACLSTUB_ATTN_BSH || p->in_l == ACLSTUB_ATTN_SBH) && v->dims[2] % nk != 0) nv = -1;
        ACLSTUB_RETURN_ERROR_IF(nv <= 0, c, INVALID, "value's hidden size must be a multiple of the key heads");
        aclStubAttnShape(v, p->in_l, nv, vs);
        ACLSTUB_RETURN_ERROR_IF(!p->tnd && (ks[0] != p->b || vs[0] != p->b), c, INVALID, "query, key and value "
                                "must have the same batch size (%lld, %lld, %lld)", (long long)p->b, (long long)ks[0],
                                (long long)vs[0]);
        ACLSTUB_RETURN_ERROR_IF(ks[2] != vs[2] || ks[1] != vs[1], c, INVALID, "key and value must agree but in D");
        p->skv = ks[2];
    }
    p->nkv = ks[1];
    ACLSTUB_RETURN_ERROR_IF(ks[3] != p->d, c, INVALID, "key's head dimension %lld must equal query's %lld",
                            (long long)ks[3], (long long)p->d);
    p->dv = vs[3];
    ACLSTUB_RETURN_ERROR_IF(p->dv <= 0 || p->dv > p->d, c, INVALID, "value's head dimension %lld must be in [1, D = "
                            "%lld]", (long long)p->dv, (long long)p->d);
    ACLSTUB_RETURN_ERROR_IF(p->nkv <= 0 || heads % p->nkv != 0, c, INVALID, "the query heads (%lld) must be a multiple "
                            "of the key/value heads (%lld)", (long long)heads, (long long)p->nkv);
    if (!fa && rint_or(c, p, R_KVHEADS, 0) != 0)
        ACLSTUB_RETURN_ERROR_IF(rint_or(c, p, R_KVHEADS, 0) != p->nkv, c, INVALID, "numKeyValueHeads = %lld but the "
                                "key has %lld heads", (long long)rint_or(c, p, R_KVHEADS, 0), (long long)p->nkv);
    if (row->kind == IFA) ACLSTUB_RETURN_ERROR_IF(p->sq != 1, c, INVALID, "query's sequence length must be 1, got %lld",
                                                  (long long)p->sq);
    p->drope = 0;
    if (qr) {
        int64_t a[4], bshape[4];
        aclStubAttnShape(qr, p->in_l, heads, a);
        ACLSTUB_RETURN_ERROR_IF((int)qr->ndim != rank || a[2] != p->sq || a[1] != heads || a[3] <= 0, c, INVALID,
                                "queryRope must be query's shape but in D");
        p->drope = a[3];
        if (!p->paged) {
            aclStubAttnShape(kr, p->in_l, p->nkv, bshape);
            ACLSTUB_RETURN_ERROR_IF((int)kr->ndim != rank || bshape[2] != p->skv || bshape[3] != p->drope, c, INVALID,
                                    "keyRope must be key's shape with queryRope's D");
        }
    }
    /* lengths (TND: cumulative, one entry per batch, which gives B) */
    int64_t tk = p->tnd ? k->dims[0] : p->skv;
    if (p->tnd) {
        const aclStubValue *sq = role(c, p, R_SEQ_Q), *skv = role(c, p, R_SEQ_KV);
        ACLSTUB_RETURN_ERROR_IF(!sq || !sq->ints || !skv || !skv->ints || sq->size != skv->size || sq->size == 0, c,
                                INVALID, "layout TND needs the cumulative query and key lengths, as many of each");
        p->b = (int64_t)sq->size;
    }
    if (p->idx[R_SEQ_Q] >= 0)
        ACLSTUB_TRY(check_lengths(c, role(c, p, R_SEQ_Q), aclStubOpName(c, p->idx[R_SEQ_Q]), p->b, p->tnd,
                                  p->tnd ? p->t_q : p->sq));
    if (p->idx[R_SEQ_KV] >= 0)
        ACLSTUB_TRY(check_lengths(c, role(c, p, R_SEQ_KV), aclStubOpName(c, p->idx[R_SEQ_KV]), p->b, p->tnd, tk));
    int64_t kv_read = p->skv; /* the keys any batch reads */
    if (p->tnd) {
        const aclStubValue *sq = role(c, p, R_SEQ_Q), *skv = role(c, p, R_SEQ_KV);
        int64_t mq = 0, mk = 0;
        for (int64_t i = 0; i < p->b; i++) {
            int64_t lq = sq->ints[i] - (i ? sq->ints[i - 1] : 0), lk = skv->ints[i] - (i ? skv->ints[i - 1] : 0);
            mq = lq > mq ? lq : mq;
            mk = lk > mk ? lk : mk;
        }
        p->sq = mq, p->skv = kv_read = mk;
    } else if (p->idx[R_SEQ_KV] >= 0 && role(c, p, R_SEQ_KV)->ints) {
        const aclStubValue *skv = role(c, p, R_SEQ_KV);
        kv_read = 0;
        for (uint64_t i = 0; i < skv->size; i++) kv_read = skv->ints[i] > kv_read ? skv->ints[i] : kv_read;
    }
    p->kv_read = kv_read;
    /* attributes */
    p->scale = (float)aclStubOpFloat(c, p->idx[R_SCALE]);
    p->keep = p->idx[R_KEEP] >= 0 ? (float)aclStubOpFloat(c, p->idx[R_KEEP]) : 1.0f;
    ACLSTUB_RETURN_ERROR_IF(!(p->keep > 0.0f && p->keep <= 1.0f), c, INVALID, "keepProb = %g must be in (0, 1]",
                            (double)p->keep);
    const aclStubTensorDesc *drop = rtensor(c, p, R_DROP);
    if (p->keep < 1.0f) {
        ACLSTUB_RETURN_ERROR_IF(drop == NULL, c, INVALID, "keepProb = %g < 1 needs dropMaskOptional", (double)p->keep);
        int64_t bits = 0; /* one bit per score, batch after batch */
        const aclStubValue *lq = role(c, p, R_SEQ_Q), *lk = role(c, p, R_SEQ_KV);
        for (int64_t b = 0; b < p->b; b++) {
            int64_t nq = p->sq, nk = p->skv;
            if (p->tnd) {
                nq = lq->ints[b] - (b ? lq->ints[b - 1] : 0);
                nk = lk->ints[b] - (b ? lk->ints[b - 1] : 0);
            }
            bits += p->n * nq * nk;
        }
        ACLSTUB_RETURN_ERROR_IF(drop->ndim != 1 || drop->dims[0] * 8 < bits || drop->strides[0] != 1, c, INVALID,
                                "dropMaskOptional must be a contiguous 1-D UINT8 tensor of at least %lld bytes",
                                (long long)((bits + 7) / 8));
    } else if (drop) {
        aclStubOpIgnore(c, p->idx[R_DROP]);
    }
    p->sparse = (int)rint_or(c, p, R_SPARSE, 0);
    p->pre = rint_or(c, p, R_PRE, INT64_MAX), p->next = rint_or(c, p, R_NEXT, INT64_MAX);
    int max_sparse = fa ? (row->varlen ? 8 : 6) : 4;
    ACLSTUB_RETURN_ERROR_IF(p->sparse < 0 || p->sparse > max_sparse || (fa && row->varlen && p->sparse == 5), c,
                            INVALID, "sparseMode = %d is not supported (0 to %d%s)", p->sparse, max_sparse,
                            fa && row->varlen ? ", not 5" : "");
    int pse_type = (int)rint_or(c, p, R_PSETYPE, 1);
    ACLSTUB_RETURN_ERROR_IF(pse_type != 0 && pse_type != 1, c, INVALID, "pseType = %d is not supported (0 and 1; "
                            "2 and 3, the generated ALiBi, are not implemented)", pse_type);
    p->pse_before = fa && pse_type == 1;
    const aclStubTensorDesc *mask = rtensor(c, p, R_MASK), *pse = rtensor(c, p, R_PSE);
    p->has_mask = mask != NULL;
    char why[200];
    aclStubAttnGrid g;
    if (mask && (p->sparse <= 1 || !fa)) {
        ACLSTUB_RETURN_ERROR_IF(mask->dtype != ACL_BOOL && mask->dtype != ACL_UINT8 && mask->dtype != ACL_INT8, c,
                                INVALID, "attenMask has data type %s; must be BOOL, UINT8 or INT8",
                                aclStubDtypeName(mask->dtype));
        bool need_read = p->sparse <= 1;
        if (need_read && !p->tnd)
            ACLSTUB_RETURN_ERROR_IF(!aclStubAttnGridOf(mask, p->b, p->n, p->sq, kv_read, &g, why, sizeof why), c,
                                    INVALID, "attenMask %s", why);
        if (!need_read) aclStubOpIgnore(c, p->idx[R_MASK]);
        ACLSTUB_RETURN_ERROR_IF(p->tnd && need_read && mask->ndim != 2, c, INVALID, "attenMask must be 2-D (Sq, Skv) "
                                "with layout TND");
    } else if (mask) {
        aclStubOpIgnore(c, p->idx[R_MASK]);
    }
    if (pse) {
        ACLSTUB_RETURN_ERROR_IF(p->tnd, c, INVALID, "%s is not supported with layout TND", aclStubOpName(c, p->idx[R_PSE]));
        ACLSTUB_RETURN_ERROR_IF(!(ACLSTUB_DT_FLOATS & ACLSTUB_DT(pse->dtype)), c, INVALID, "%s has data type %s; must "
                                "be FLOAT, FLOAT16 or BF16", aclStubOpName(c, p->idx[R_PSE]),
                                aclStubDtypeName(pse->dtype));
        ACLSTUB_RETURN_ERROR_IF(!aclStubAttnGridOf(pse, p->b, p->n, p->sq, kv_read, &g, why, sizeof why), c, INVALID,
                                "%s %s", aclStubOpName(c, p->idx[R_PSE]), why);
    }
    const aclStubValue *prefix = role(c, p, R_PREFIX);
    if ((p->sparse == 5 || p->sparse == 6) && mask)
        ACLSTUB_RETURN_ERROR_IF(!prefix || !prefix->ints || (int64_t)prefix->size < p->b, c, INVALID, "sparseMode %d "
                                "needs prefixOptional with B = %lld entries", p->sparse, (long long)p->b);
    const aclStubTensorDesc *sink = rtensor(c, p, R_SINK);
    if (sink)
        ACLSTUB_RETURN_ERROR_IF(sink->dtype != ACL_FLOAT || sink->ndim != 1 || sink->dims[0] != p->n, c, INVALID,
                                "learnableSinkOptional must be a FLOAT (N,) tensor");
    /* outputs */
    int64_t want[4];
    uint32_t nd;
    const aclStubTensorDesc *out = rtensor(c, p, row->kind == FAG ? R_DQ : R_OUT);
    nd = layout_dims(p->out_l, p->b, p->n, p->tnd ? qs[2] : p->sq, row->kind == FAG ? p->d : p->dv, p->t_q, want);
    if (p->tnd) want[0] = p->t_q;
    ACLSTUB_TRY(want_dims(c, out, aclStubOpName(c, p->idx[row->kind == FAG ? R_DQ : R_OUT]), want, nd));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != q->dtype, c, INVALID, "%s has data type %s; must be the query's %s",
                            aclStubOpName(c, p->idx[row->kind == FAG ? R_DQ : R_OUT]), aclStubDtypeName(out->dtype),
                            aclStubDtypeName(q->dtype));
    const aclStubValue *sml = role(c, p, R_SMLAYOUT);
    p->stats_tnd_first = sml && sml->s && strcmp(sml->s, "same_as_input") == 0;
    int stat_roles[2][2] = {{R_SMAX, R_SSUM}, {R_SMAX_IN, R_SSUM_IN}};
    for (int s = 0; s < 2; s++) {
        const aclStubTensorDesc *st = rtensor(c, p, stat_roles[row->kind == FAG][s]);
        if (st == NULL) {
            ACLSTUB_RETURN_ERROR_IF(row->kind == FAG, c, INVALID, "the softmax statistics (softmaxMax and softmaxSum) "
                                    "are needed by the backward pass");
            continue;
        }
        const char *nm = aclStubOpName(c, p->idx[stat_roles[row->kind == FAG][s]]);
        ACLSTUB_RETURN_ERROR_IF(st->dtype != ACL_FLOAT, c, INVALID, "%s must be FLOAT", nm);
        int64_t sw[4] = {p->b, p->n, p->sq, 8};
        if (p->tnd) {
            int64_t a[3] = {p->n, p->t_q, 8}, b2[3] = {p->t_q, p->n, 8};
            ACLSTUB_TRY(want_dims(c, st, nm, p->stats_tnd_first ? b2 : a, 3));
        } else {
            ACLSTUB_TRY(want_dims(c, st, nm, sw, 4));
        }
        ACLSTUB_RETURN_ERROR_IF(st->strides[st->ndim - 1] != 1, c, INVALID, "%s must be contiguous", nm);
    }
    if (row->kind == FAG) {
        const aclStubTensorDesc *dy = rtensor(c, p, R_DY), *ain = rtensor(c, p, R_ATTN_IN);
        ACLSTUB_RETURN_ERROR_IF(ain == NULL, c, INVALID, "attentionInOptional (the forward's output) is needed");
        int64_t ow[4];
        uint32_t on = layout_dims(p->in_l, p->b, p->n, p->sq, p->dv, p->t_q, ow);
        ACLSTUB_TRY(want_dims(c, dy, "dy", ow, on));
        ACLSTUB_TRY(want_dims(c, ain, "attentionInOptional", ow, on));
        const aclStubTensorDesc *dk = rtensor(c, p, R_DK), *dv = rtensor(c, p, R_DV);
        ACLSTUB_TRY(want_dims(c, dk, "dkOut", k->dims, k->ndim));
        ACLSTUB_TRY(want_dims(c, dv, "dvOut", v->dims, v->ndim));
        if (qr) {
            ACLSTUB_TRY(want_dims(c, rtensor(c, p, R_DQROPE), "dqRopeOut", qr->dims, qr->ndim));
            ACLSTUB_TRY(want_dims(c, rtensor(c, p, R_DKROPE), "dkRopeOut", kr->dims, kr->ndim));
        }
        const aclStubTensorDesc *dpse = rtensor(c, p, R_DPSE);
        if (dpse && pse && aclStubNumel(dpse) > 0) {
            int64_t full[4] = {p->b, p->n, p->sq, p->skv};
            ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(pse->dims, pse->ndim, full, 4), c, INVALID, "dpseOut of a "
                                    "broadcast pse (%u-D) is not implemented; pass a (B, N, Sq, Skv) pse", pse->ndim);
            ACLSTUB_TRY(want_dims(c, dpse, "dpseOut", full, 4));
        } else if (dpse) {
            aclStubOpIgnore(c, p->idx[R_DPSE]);
        }
    }
    const aclStubTensorDesc *lse = rtensor(c, p, R_LSE);
    p->write_lse = lse && role(c, p, R_LSEFLAG) && role(c, p, R_LSEFLAG)->b;
    if (p->write_lse) {
        ACLSTUB_RETURN_ERROR_IF(lse->dtype != ACL_FLOAT, c, INVALID, "softmaxLse must be FLOAT");
        int64_t lw[4] = {p->b, p->n, p->sq, 1}, lt[3] = {p->t_q, p->n, 1};
        ACLSTUB_TRY(p->tnd ? want_dims(c, lse, "softmaxLse", lt, 3) : want_dims(c, lse, "softmaxLse", lw, 4));
    } else if (lse) {
        aclStubOpIgnore(c, p->idx[R_LSE]);
    }
    if (p->idx[R_SOUT] >= 0) aclStubOpIgnore(c, p->idx[R_SOUT]);
    if (p->idx[R_SIN] >= 0) aclStubOpIgnore(c, p->idx[R_SIN]);
    if (p->b == 0 || p->sq == 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);
    aclStubOpRequestWorkspace(c, aclStubAttentionWorkspaceSize(p->b, p->nkv, p->skv, p->d + p->drope, p->dv,
                                                                row->kind == FAG));
    return OK;
}

/* ---- kernel -------------------------------------------------------------------------------------------------- */

/* Per-batch lengths from an int array (1 entry: every batch; cumulative: differences). */
static void lengths(const aclStubValue *v, int64_t b, bool cumulative, int64_t dflt, int64_t *len, int64_t *starts) {
    int64_t prev = 0;
    for (int64_t i = 0; i < b; i++) {
        int64_t x = v && v->ints ? v->ints[v->size == 1 ? 0 : i] : dflt;
        if (cumulative) {
            len[i] = x - prev;
            if (starts) starts[i] = prev;
            prev = x;
        } else {
            len[i] = x;
        }
    }
}

static aclStubAttnSeq seq_of(const aclStubTensorDesc *t, aclStubAttnLayout l, int64_t d, const Plan *p,
                             const aclStubTensorDesc *bt, const int64_t *starts) {
    if (p->paged && bt && t) {
        aclStubAttnSeq s = aclStubAttnSeqOf(t, t->ndim == 3 ? ACLSTUB_ATTN_BSH : ACLSTUB_ATTN_NSD, d);
        s.sblock = t->ndim == 3 ? t->strides[0] : t->strides[0];
        s.block_table = bt;
        s.block_size = p->block_size;
        return s;
    }
    aclStubAttnSeq s = aclStubAttnSeqOf(t, l, d);
    s.starts = starts;
    return s;
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Row *row = aclStubFamilyRow(c);
    const Plan *p = c->plan;
    int64_t b = p->b;
    int64_t *mem = aclStubKernelScratch(c, (size_t)(6 * b + 1) * sizeof(int64_t));
    if (mem == NULL) return aclStubKernelOutOfMemory(c);
    int64_t *qlen = mem, *kvlen = mem + b, *qstart = mem + 2 * b, *kvstart = mem + 3 * b, *prefix = mem + 4 * b;
    lengths(role(c, p, R_SEQ_Q), b, p->tnd, p->sq, qlen, qstart);
    lengths(role(c, p, R_SEQ_KV), b, p->tnd, p->skv, kvlen, kvstart);
    for (int64_t i = 0; i < b; i++) {
        if (qlen[i] > p->sq) qlen[i] = p->sq;
        if (kvlen[i] > p->skv) kvlen[i] = p->skv;
    }
    const aclStubTensorDesc *q = rtensor(c, p, R_Q), *k = kv_tensor(c, p, R_K), *v = kv_tensor(c, p, R_V);
    const aclStubTensorDesc *bt = rtensor(c, p, R_BT);
    aclStubAttention a;
    memset(&a, 0, sizeof a);
    a.batch = b, a.heads = p->n, a.kv_heads = p->nkv, a.d = p->d, a.dv = p->dv, a.sq = p->sq, a.skv = p->skv;
    a.q_len = qlen, a.kv_len = kvlen;
    a.q = seq_of(q, p->in_l, p->d, p, NULL, p->tnd ? qstart : NULL);
    a.k = seq_of(k, p->in_l, p->d, p, bt, p->tnd ? kvstart : NULL);
    a.v = seq_of(v, p->in_l, p->dv, p, bt, p->tnd ? kvstart : NULL);
    a.q_rope = seq_of(rtensor(c, p, R_QROPE), p->in_l, p->drope, p, NULL, p->tnd ? qstart : NULL);
    a.k_rope = seq_of(rtensor(c, p, R_KROPE), p->in_l, p->drope, p, bt, p->tnd ? kvstart : NULL);
    a.d_rope = p->drope;
    a.scale = p->scale;
    a.pse_before_scale = p->pse_before;
    char why[160];
    aclStubAttnGridOf(rtensor(c, p, R_PSE), b, p->n, p->sq, p->kv_read, &a.pse, why, sizeof why);
    const aclStubTensorDesc *mask = rtensor(c, p, R_MASK);
    if (mask && p->sparse <= 1) {
        aclStubAttnGridOf(mask, b, p->n, p->sq, p->kv_read, &a.mask, why, sizeof why);
        if (p->tnd) a.mask.sb = 0;
    } else {
        a.mask.dtype = ACL_DT_UNDEFINED;
    }
    /* the band of the sparse mode (none without a mask: everything visible) */
    a.band_batch = -1;
    if (p->has_mask && p->sparse != 1) {
        a.use_band = true;
        const int64_t inf = INT64_MAX;
        switch (p->sparse) {
        case 0: a.band = (aclStubAttnBand){p->pre, p->next, 0}; break;
        case 2: a.band = (aclStubAttnBand){inf, 0, 0}; break;
        case 3: a.band = (aclStubAttnBand){inf, 0, 1}; break;
        case 4: a.band = (aclStubAttnBand){p->pre, p->next, 1}; break;
        case 5:
        case 6: {
            a.band = (aclStubAttnBand){inf, 0, 1};
            const aclStubValue *pv = role(c, p, R_PREFIX);
            for (int64_t i = 0; i < b; i++) prefix[i] = pv->ints[i];
            a.prefix = prefix;
            break;
        }
        case 7:
        case 8: {
            a.band = (aclStubAttnBand){inf, 0, p->sparse == 7 ? 1 : 0};
            a.special_band = (aclStubAttnBand){p->pre, p->next, 1};
            for (int64_t i = 0; i < b; i++) {
                int64_t x = p->sparse == 7 ? b - 1 - i : i;
                if (qlen[x] > 0 && kvlen[x] > 0) {
                    a.band_batch = x;
                    break;
                }
            }
            break;
        }
        default: break;
        }
    }
    a.keep_prob = p->keep;
    const aclStubTensorDesc *drop = rtensor(c, p, R_DROP);
    a.drop_mask = drop ? (const uint8_t *)drop->data + drop->offset : NULL;
    const aclStubTensorDesc *sink = rtensor(c, p, R_SINK);
    a.sink = sink ? (const float *)sink->data + sink->offset : NULL;
    /* statistics */
    const aclStubTensorDesc *smax = rtensor(c, p, row->kind == FAG ? R_SMAX_IN : R_SMAX);
    const aclStubTensorDesc *ssum = rtensor(c, p, row->kind == FAG ? R_SSUM_IN : R_SSUM);
    const aclStubTensorDesc *st = smax ? smax : ssum;
    if (st) {
        a.stat_max = smax ? (float *)smax->data + smax->offset : NULL;
        a.stat_sum = ssum ? (float *)ssum->data + ssum->offset : NULL;
        a.st_rep = 8;
        if (p->tnd) {
            a.st_starts = qstart;
            a.st_si = st->strides[p->stats_tnd_first ? 0 : 1];
            a.st_sn = st->strides[p->stats_tnd_first ? 1 : 0];
        } else {
            a.st_sb = st->strides[0], a.st_sn = st->strides[1], a.st_si = st->strides[2];
        }
    }
    if (p->write_lse) {
        const aclStubTensorDesc *lse = rtensor(c, p, R_LSE);
        a.lse = (float *)lse->data + lse->offset;
        if (p->tnd) {
            a.st_starts = qstart;
            a.lse_si = lse->strides[0], a.lse_sn = lse->strides[1];
        } else {
            a.lse_sb = lse->strides[0], a.lse_sn = lse->strides[1], a.lse_si = lse->strides[2];
        }
    }
    if (row->kind != FAG) {
        a.out = seq_of(rtensor(c, p, R_OUT), p->out_l, p->dv, p, NULL, p->tnd ? qstart : NULL);
        return aclStubAttentionRun(c, &a);
    }
    a.out = seq_of(rtensor(c, p, R_ATTN_IN), p->in_l, p->dv, p, NULL, p->tnd ? qstart : NULL);
    aclStubAttentionGrad g;
    memset(&g, 0, sizeof g);
    g.dy = seq_of(rtensor(c, p, R_DY), p->in_l, p->dv, p, NULL, p->tnd ? qstart : NULL);
    g.dq = seq_of(rtensor(c, p, R_DQ), p->in_l, p->d, p, NULL, p->tnd ? qstart : NULL);
    g.dk = seq_of(rtensor(c, p, R_DK), p->in_l, p->d, p, NULL, p->tnd ? kvstart : NULL);
    g.dv = seq_of(rtensor(c, p, R_DV), p->in_l, p->dv, p, NULL, p->tnd ? kvstart : NULL);
    g.dq_rope = seq_of(rtensor(c, p, R_DQROPE), p->in_l, p->drope, p, NULL, p->tnd ? qstart : NULL);
    g.dk_rope = seq_of(rtensor(c, p, R_DKROPE), p->in_l, p->drope, p, NULL, p->tnd ? kvstart : NULL);
    aclStubAttnGridOf(rtensor(c, p, R_DPSE), b, p->n, p->sq, p->skv, &g.dpse, why, sizeof why);
    return aclStubAttentionGradRun(c, &a, &g);
}

/* ---- the entry points ---------------------------------------------------------------------------------------- */

#define DT_TRAIN ACLSTUB_DT_FLOATS
#define DT_INFER (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))
#define IN(n, dt) {n, ACLSTUB_INPUT, dt, NULL, 0, 0, 0}
#define OPT(n) {n, ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}
#define LIST(n) {n, ACLSTUB_TENSOR_LIST, 0, NULL, 0, 0, 0}
#define IARR(n) {n, ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE, 0, 0}
#define INT(n) {n, ACLSTUB_INT, 0, NULL, 0, 0, 0}
#define DBL(n) {n, ACLSTUB_FLOAT, 0, NULL, 0, 0, 0}
#define STR(n) {n, ACLSTUB_STRING, 0, NULL, 0, 0, 0}
#define BOOL_(n) {n, ACLSTUB_BOOL, 0, NULL, 0, 0, 0}
#define OUT(n, dt) {n, ACLSTUB_OUTPUT, dt, NULL, 0, 0, 0}
#define OOUT(n) {n, ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}

#define FA_HEAD(dt) IN("query", dt), IN("key", dt), IN("value", dt), OPT("realShiftOptional"), \
    OPT("dropMaskOptional"), OPT("paddingMaskOptional"), OPT("attenMaskOptional"), IARR("prefixOptional")
#define FA_ATTRS DBL("scaleValue"), DBL("keepProb"), INT("preTokens"), INT("nextTokens"), INT("headNum"), \
    STR("inputLayout"), INT("innerPrecise"), INT("sparseMode")
#define FA_OUTS OOUT("softmaxMaxOut"), OOUT("softmaxSumOut"), OOUT("softmaxOutOut"), \
    {"attentionOutOut", ACLSTUB_OUTPUT, DT_TRAIN, "query", ACLSTUB_ANY_LAYOUT, 0, 0}

static const aclStubParam P_FA[] = {FA_HEAD(DT_TRAIN), FA_ATTRS, FA_OUTS};
static const aclStubParam P_FA_VL[] = {FA_HEAD(DT_TRAIN), IARR("actualSeqQLenOptional"),
                                       IARR("actualSeqKvLenOptional"), FA_ATTRS, FA_OUTS};
static const aclStubParam P_FA2[] = {FA_HEAD(DT_TRAIN), IARR("qStartIdxOptional"), IARR("kvStartIdxOptional"),
                                     FA_ATTRS, INT("pseType"), FA_OUTS};
static const aclStubParam P_FA_VL2[] = {FA_HEAD(DT_TRAIN), IARR("actualSeqQLenOptional"),
                                        IARR("actualSeqKvLenOptional"), IARR("qStartIdxOptional"),
                                        IARR("kvStartIdxOptional"), FA_ATTRS, INT("pseType"), FA_OUTS};
static const aclStubParam P_FA_VL3[] = {
    IN("query", DT_TRAIN), IN("queryRope", DT_TRAIN), IN("key", DT_TRAIN), IN("keyRope", DT_TRAIN),
    IN("value", DT_TRAIN), OPT("realShiftOptional"), OPT("dropMaskOptional"), OPT("paddingMaskOptional"),
    OPT("attenMaskOptional"), IARR("prefixOptional"), IARR("actualSeqQLenOptional"), IARR("actualSeqKvLenOptional"),
    IARR("qStartIdxOptional"), IARR("kvStartIdxOptional"), FA_ATTRS, INT("pseType"), FA_OUTS};
static const aclStubParam P_FA_VL4[] = {FA_HEAD(DT_TRAIN), IARR("actualSeqQLenOptional"),
                                        IARR("actualSeqKvLenOptional"), FA_ATTRS, STR("softmaxOutLayout"), FA_OUTS};

#define FAG_HEAD IN("query", DT_TRAIN), IN("keyIn", DT_TRAIN), IN("value", DT_TRAIN), IN("dy", DT_TRAIN), \
    OPT("pseShiftOptional"), OPT("dropMaskOptional"), OPT("paddingMaskOptional"), OPT("attenMaskOptional"), \
    OPT("softmaxMaxOptional"), OPT("softmaxSumOptional"), OPT("softmaxInOptional"), OPT("attentionInOptional"), \
    IARR("prefixOptional")
#define FAG_OUTS OUT("dqOut", DT_TRAIN), OUT("dkOut", DT_TRAIN), OUT("dvOut", DT_TRAIN), OOUT("dpseOut")

static const aclStubParam P_FAG[] = {FAG_HEAD, FA_ATTRS, FAG_OUTS};
static const aclStubParam P_FAG_VL[] = {FAG_HEAD, IARR("actualSeqQLenOptional"), IARR("actualSeqKvLenOptional"),
                                        FA_ATTRS, FAG_OUTS};
static const aclStubParam P_FAG2[] = {FAG_HEAD, IARR("qStartIdxOptional"), IARR("kvStartIdxOptional"), FA_ATTRS,
                                      INT("pseType"), FAG_OUTS};
static const aclStubParam P_FAG_VL2[] = {FAG_HEAD, IARR("actualSeqQLenOptional"), IARR("actualSeqKvLenOptional"),
                                         IARR("qStartIdxOptional"), IARR("kvStartIdxOptional"), FA_ATTRS,
                                         INT("pseType"), FAG_OUTS};
static const aclStubParam P_FAG_VL3[] = {
    IN("query", DT_TRAIN), IN("queryRope", DT_TRAIN), IN("keyIn", DT_TRAIN), IN("keyInRope", DT_TRAIN),
    IN("value", DT_TRAIN), IN("dy", DT_TRAIN), OPT("pseShiftOptional"), OPT("dropMaskOptional"),
    OPT("paddingMaskOptional"), OPT("attenMaskOptional"), OPT("softmaxMaxOptional"), OPT("softmaxSumOptional"),
    OPT("softmaxInOptional"), OPT("attentionInOptional"), IARR("prefixOptional"), IARR("actualSeqQLenOptional"),
    IARR("actualSeqKvLenOptional"), IARR("qStartIdxOptional"), IARR("kvStartIdxOptional"), FA_ATTRS,
    INT("pseType"), OUT("dqOut", DT_TRAIN), OUT("dqRopeOut", DT_TRAIN), OUT("dkOut", DT_TRAIN),
    OUT("dkRopeOut", DT_TRAIN), OUT("dvOut", DT_TRAIN), OOUT("dpseOut")};
static const aclStubParam P_FAG_VL4[] = {FAG_HEAD, IARR("actualSeqQLenOptional"), IARR("actualSeqKvLenOptional"),
                                         FA_ATTRS, FAG_OUTS, STR("softmaxInLayout")};

#define PFA_HEAD IN("query", DT_INFER), IN("key", DT_INFER), IN("value", DT_INFER), OPT("pseShift"), \
    OPT("attenMask"), IARR("actualSeqLengths")
#define QUANT5(a, b, c) OPT(a), OPT("quantScale1"), OPT(b), OPT("quantScale2"), OPT(c)
static const aclStubParam P_PFA[] = {PFA_HEAD, INT("numHeads"), DBL("scaleValue"), INT("preTokens"),
                                     INT("nextTokens"), STR("inputLayout"), INT("numKeyValueHeads"),
                                     OUT("attentionOut", DT_INFER)};
static const aclStubParam P_PFA2[] = {PFA_HEAD, IARR("actualSeqLengthsKv"),
                                      QUANT5("deqScale1", "deqScale2", "quantOffset2"), INT("numHeads"),
                                      DBL("scaleValue"), INT("preTokens"), INT("nextTokens"), STR("inputLayout"),
                                      INT("numKeyValueHeads"), INT("sparseMode"), OUT("attentionOut", DT_INFER)};
static const aclStubParam P_PFA3[] = {PFA_HEAD, IARR("actualSeqLengthsKv"),
                                      QUANT5("deqScale1", "deqScale2", "quantOffset2"), INT("numHeads"),
                                      DBL("scaleValue"), INT("preTokens"), INT("nextTokens"), STR("inputLayout"),
                                      INT("numKeyValueHeads"), INT("sparseMode"), INT("innerPrecise"),
                                      OUT("attentionOut", DT_INFER)};

#define IFA_HEAD IN("query", DT_INFER), LIST("key"), LIST("value"), OPT("pseShift"), OPT("attenMask"), \
    IARR("actualSeqLengths")
static const aclStubParam P_IFA[] = {IFA_HEAD, INT("numHeads"), DBL("scaleValue"), STR("inputLayout"),
                                     INT("numKeyValueHeads"), OUT("attentionOut", DT_INFER)};
static const aclStubParam P_IFA2[] = {IFA_HEAD, QUANT5("dequantScale1", "dequantScale2", "quantOffset2"),
                                      INT("numHeads"), DBL("scaleValue"), STR("inputLayout"),
                                      INT("numKeyValueHeads"), OUT("attentionOut", DT_INFER)};
static const aclStubParam P_IFA3[] = {IFA_HEAD, QUANT5("dequantScale1", "dequantScale2", "quantOffset2"),
                                      OPT("antiquantScale"), OPT("antiquantOffset"), OPT("blocktable"),
                                      INT("numHeads"), DBL("scaleValue"), STR("inputLayout"),
                                      INT("numKeyValueHeads"), INT("blockSize"), INT("innerPrecise"),
                                      OUT("attentionOut", DT_INFER)};
static const aclStubParam P_IFA4[] = {IFA_HEAD, QUANT5("dequantScale1", "dequantScale2", "quantOffset2"),
                                      OPT("antiquantScale"), OPT("antiquantOffset"), OPT("blocktable"),
                                      OPT("kvPaddingSize"), INT("numHeads"), DBL("scaleValue"), STR("inputLayout"),
                                      INT("numKeyValueHeads"), INT("blockSize"), INT("innerPrecise"),
                                      OUT("attentionOut", DT_INFER)};

#define FIA_HEAD IN("query", DT_INFER), LIST("key"), LIST("value"), OPT("pseShiftOptional"), \
    OPT("attenMaskOptional"), IARR("actualSeqLengthsOptional"), IARR("actualSeqLengthsKvOptional"), \
    QUANT5("deqScale1Optional", "deqScale2Optional", "quantOffset2Optional"), OPT("antiquantScaleOptional"), \
    OPT("antiquantOffsetOptional"), OPT("blockTableOptional"), OPT("queryPaddingSizeOptional"), \
    OPT("kvPaddingSizeOptional")
#define FIA_KV_QUANT OPT("keyAntiquantScaleOptional"), OPT("keyAntiquantOffsetOptional"), \
    OPT("valueAntiquantScaleOptional"), OPT("valueAntiquantOffsetOptional"), OPT("keySharedPrefixOptional"), \
    OPT("valueSharedPrefixOptional"), IARR("actualSharedPrefixLenOptional")
#define FIA_ATTRS INT("numHeads"), DBL("scaleValue"), INT("preTokens"), INT("nextTokens"), STR("inputLayout"), \
    INT("numKeyValueHeads"), INT("sparseMode"), INT("innerPrecise"), INT("blockSize"), INT("antiquantMode"), \
    BOOL_("softmaxLseFlag")
#define FIA_OUTS OUT("attentionOut", DT_INFER), OOUT("softmaxLse")
static const aclStubParam P_FIA[] = {FIA_HEAD, FIA_ATTRS, FIA_OUTS};
static const aclStubParam P_FIA2[] = {FIA_HEAD, FIA_KV_QUANT, FIA_ATTRS, INT("keyAntiquantMode"),
                                      INT("valueAntiquantMode"), FIA_OUTS};
static const aclStubParam P_FIA3[] = {FIA_HEAD, FIA_KV_QUANT, OPT("queryRopeOptional"), OPT("keyRopeOptional"),
                                      OPT("keyRopeAntiquantScaleOptional"), FIA_ATTRS, INT("keyAntiquantMode"),
                                      INT("valueAntiquantMode"), FIA_OUTS};
static const aclStubParam P_FIA4[] = {FIA_HEAD, FIA_KV_QUANT, OPT("queryRopeOptional"), OPT("keyRopeOptional"),
                                      OPT("keyRopeAntiquantScaleOptional"), OPT("dequantScaleQueryOptional"),
                                      OPT("learnableSinkOptional"), FIA_ATTRS, INT("keyAntiquantMode"),
                                      INT("valueAntiquantMode"), INT("queryQuantMode"), FIA_OUTS};

static const Row ROW_FA = {FA, false}, ROW_FA_VL = {FA, true}, ROW_FAG = {FAG, false}, ROW_FAG_VL = {FAG, true};
static const Row ROW_PFA = {PFA, false}, ROW_IFA = {IFA, false}, ROW_FIA = {FIA, false};

#define DEF(var, name, params, row) \
    static const aclStubFamilyOp var = {{name, params, ACLSTUB_LEN(params), NULL, check, kernel, sizeof(Plan)}, &row}

DEF(OP_FA, "aclnnFlashAttentionScore", P_FA, ROW_FA);
DEF(OP_FA2, "aclnnFlashAttentionScoreV2", P_FA2, ROW_FA);
DEF(OP_FA_VL, "aclnnFlashAttentionVarLenScore", P_FA_VL, ROW_FA_VL);
DEF(OP_FA_VL2, "aclnnFlashAttentionVarLenScoreV2", P_FA_VL2, ROW_FA_VL);
DEF(OP_FA_VL3, "aclnnFlashAttentionVarLenScoreV3", P_FA_VL3, ROW_FA_VL);
DEF(OP_FA_VL4, "aclnnFlashAttentionVarLenScoreV4", P_FA_VL4, ROW_FA_VL);
DEF(OP_FAG, "aclnnFlashAttentionScoreGrad", P_FAG, ROW_FAG);
DEF(OP_FAG2, "aclnnFlashAttentionScoreGradV2", P_FAG2, ROW_FAG);
DEF(OP_FAG_VL, "aclnnFlashAttentionUnpaddingScoreGrad", P_FAG_VL, ROW_FAG_VL);
DEF(OP_FAG_VL2, "aclnnFlashAttentionUnpaddingScoreGradV2", P_FAG_VL2, ROW_FAG_VL);
DEF(OP_FAG_VL3, "aclnnFlashAttentionUnpaddingScoreGradV3", P_FAG_VL3, ROW_FAG_VL);
DEF(OP_FAG_VL4, "aclnnFlashAttentionUnpaddingScoreGradV4", P_FAG_VL4, ROW_FAG_VL);
DEF(OP_PFA, "aclnnPromptFlashAttention", P_PFA, ROW_PFA);
DEF(OP_PFA2, "aclnnPromptFlashAttentionV2", P_PFA2, ROW_PFA);
DEF(OP_PFA3, "aclnnPromptFlashAttentionV3", P_PFA3, ROW_PFA);
DEF(OP_IFA, "aclnnIncreFlashAttention", P_IFA, ROW_IFA);
DEF(OP_IFA2, "aclnnIncreFlashAttentionV2", P_IFA2, ROW_IFA);
DEF(OP_IFA3, "aclnnIncreFlashAttentionV3", P_IFA3, ROW_IFA);
DEF(OP_IFA4, "aclnnIncreFlashAttentionV4", P_IFA4, ROW_IFA);
DEF(OP_FIA, "aclnnFusedInferAttentionScore", P_FIA, ROW_FIA);
DEF(OP_FIA2, "aclnnFusedInferAttentionScoreV2", P_FIA2, ROW_FIA);
DEF(OP_FIA3, "aclnnFusedInferAttentionScoreV3", P_FIA3, ROW_FIA);
DEF(OP_FIA4, "aclnnFusedInferAttentionScoreV4", P_FIA4, ROW_FIA);

#define T_(n) (const aclTensor *, n)
#define TL_(n) (const aclTensorList *, n)
#define IA_(n) (const aclIntArray *, n)
#define I_(n) (int64_t, n)
#define D_(n) (double, n)
#define S_(n) (char *, n)
#define B_(n) (bool, n)

#define FA_HEAD_ARGS T_(query), T_(key), T_(value), T_(realShiftOptional), T_(dropMaskOptional), \
    T_(paddingMaskOptional), T_(attenMaskOptional), IA_(prefixOptional)
#define FA_ATTR_ARGS D_(scaleValue), D_(keepProb), I_(preTokens), I_(nextTokens), I_(headNum), S_(inputLayout), \
    I_(innerPrecise), I_(sparseMode)
#define FA_OUT_ARGS T_(softmaxMaxOut), T_(softmaxSumOut), T_(softmaxOutOut), T_(attentionOutOut)

ACLSTUB_DEFINE_OP(aclnnFlashAttentionScore, OP_FA.def, FA_HEAD_ARGS, FA_ATTR_ARGS, FA_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionScoreV2, OP_FA2.def, FA_HEAD_ARGS, IA_(qStartIdxOptional),
                  IA_(kvStartIdxOptional), FA_ATTR_ARGS, I_(pseType), FA_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionVarLenScore, OP_FA_VL.def, FA_HEAD_ARGS, IA_(actualSeqQLenOptional),
                  IA_(actualSeqKvLenOptional), FA_ATTR_ARGS, FA_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionVarLenScoreV2, OP_FA_VL2.def, FA_HEAD_ARGS, IA_(actualSeqQLenOptional),
                  IA_(actualSeqKvLenOptional), IA_(qStartIdxOptional), IA_(kvStartIdxOptional), FA_ATTR_ARGS,
                  I_(pseType), FA_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionVarLenScoreV3, OP_FA_VL3.def, T_(query), T_(queryRope), T_(key), T_(keyRope),
                  T_(value), T_(realShiftOptional), T_(dropMaskOptional), T_(paddingMaskOptional),
                  T_(attenMaskOptional), IA_(prefixOptional), IA_(actualSeqQLenOptional), IA_(actualSeqKvLenOptional),
                  IA_(qStartIdxOptional), IA_(kvStartIdxOptional), FA_ATTR_ARGS, I_(pseType), FA_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionVarLenScoreV4, OP_FA_VL4.def, FA_HEAD_ARGS, IA_(actualSeqQLenOptional),
                  IA_(actualSeqKvLenOptional), FA_ATTR_ARGS, S_(softmaxOutLayout), FA_OUT_ARGS)

#define FAG_HEAD_ARGS T_(query), T_(keyIn), T_(value), T_(dy), T_(pseShiftOptional), T_(dropMaskOptional), \
    T_(paddingMaskOptional), T_(attenMaskOptional), T_(softmaxMaxOptional), T_(softmaxSumOptional), \
    T_(softmaxInOptional), T_(attentionInOptional), IA_(prefixOptional)
#define FAG_OUT_ARGS T_(dqOut), T_(dkOut), T_(dvOut), T_(dpseOut)

ACLSTUB_DEFINE_OP(aclnnFlashAttentionScoreGrad, OP_FAG.def, FAG_HEAD_ARGS, FA_ATTR_ARGS, FAG_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionScoreGradV2, OP_FAG2.def, FAG_HEAD_ARGS, IA_(qStartIdxOptional),
                  IA_(kvStartIdxOptional), FA_ATTR_ARGS, I_(pseType), FAG_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionUnpaddingScoreGrad, OP_FAG_VL.def, FAG_HEAD_ARGS, IA_(actualSeqQLenOptional),
                  IA_(actualSeqKvLenOptional), FA_ATTR_ARGS, FAG_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionUnpaddingScoreGradV2, OP_FAG_VL2.def, FAG_HEAD_ARGS,
                  IA_(actualSeqQLenOptional), IA_(actualSeqKvLenOptional), IA_(qStartIdxOptional),
                  IA_(kvStartIdxOptional), FA_ATTR_ARGS, I_(pseType), FAG_OUT_ARGS)
ACLSTUB_DEFINE_OP(aclnnFlashAttentionUnpaddingScoreGradV3, OP_FAG_VL3.def, T_(query), T_(queryRope), T_(keyIn),
                  T_(keyInRope), T_(value), T_(dy), T_(pseShiftOptional), T_(dropMaskOptional),
                  T_(paddingMaskOptional), T_(attenMaskOptional), T_(softmaxMaxOptional), T_(softmaxSumOptional),
                  T_(softmaxInOptional), T_(attentionInOptional), IA_(prefixOptional), IA_(actualSeqQLenOptional),
                  IA_(actualSeqKvLenOptional), IA_(qStartIdxOptional), IA_(kvStartIdxOptional), FA_ATTR_ARGS,
                  I_(pseType), T_(dqOut), T_(dqRopeOut), T_(dkOut), T_(dkRopeOut), T_(dvOut), T_(dpseOut))
ACLSTUB_DEFINE_OP(aclnnFlashAttentionUnpaddingScoreGradV4, OP_FAG_VL4.def, FAG_HEAD_ARGS,
                  IA_(actualSeqQLenOptional), IA_(actualSeqKvLenOptional), FA_ATTR_ARGS, FAG_OUT_ARGS,
                  S_(softmaxInLayout))

#define PFA_HEAD_ARGS T_(query), T_(key), T_(value), T_(pseShift), T_(attenMask), IA_(actualSeqLengths)
ACLSTUB_DEFINE_OP(aclnnPromptFlashAttention, OP_PFA.def, PFA_HEAD_ARGS, I_(numHeads), D_(scaleValue),
                  I_(preTokens), I_(nextTokens), S_(inputLayout), I_(numKeyValueHeads), T_(attentionOut))
ACLSTUB_DEFINE_OP(aclnnPromptFlashAttentionV2, OP_PFA2.def, PFA_HEAD_ARGS, IA_(actualSeqLengthsKv), T_(deqScale1),
                  T_(quantScale1), T_(deqScale2), T_(quantScale2), T_(quantOffset2), I_(numHeads), D_(scaleValue),
                  I_(preTokens), I_(nextTokens), S_(inputLayout), I_(numKeyValueHeads), I_(sparseMode),
                  T_(attentionOut))
ACLSTUB_DEFINE_OP(aclnnPromptFlashAttentionV3, OP_PFA3.def, PFA_HEAD_ARGS, IA_(actualSeqLengthsKv), T_(deqScale1),
                  T_(quantScale1), T_(deqScale2), T_(quantScale2), T_(quantOffset2), I_(numHeads), D_(scaleValue),
                  I_(preTokens), I_(nextTokens), S_(inputLayout), I_(numKeyValueHeads), I_(sparseMode),
                  I_(innerPrecise), T_(attentionOut))

#define IFA_HEAD_ARGS T_(query), TL_(key), TL_(value), T_(pseShift), T_(attenMask), IA_(actualSeqLengths)
#define IFA_QUANT_ARGS T_(dequantScale1), T_(quantScale1), T_(dequantScale2), T_(quantScale2), T_(quantOffset2)
ACLSTUB_DEFINE_OP(aclnnIncreFlashAttention, OP_IFA.def, IFA_HEAD_ARGS, I_(numHeads), D_(scaleValue),
                  S_(inputLayout), I_(numKeyValueHeads), T_(attentionOut))
ACLSTUB_DEFINE_OP(aclnnIncreFlashAttentionV2, OP_IFA2.def, IFA_HEAD_ARGS, IFA_QUANT_ARGS, I_(numHeads),
                  D_(scaleValue), S_(inputLayout), I_(numKeyValueHeads), T_(attentionOut))
ACLSTUB_DEFINE_OP(aclnnIncreFlashAttentionV3, OP_IFA3.def, IFA_HEAD_ARGS, IFA_QUANT_ARGS, T_(antiquantScale),
                  T_(antiquantOffset), T_(blocktable), I_(numHeads), D_(scaleValue), S_(inputLayout),
                  I_(numKeyValueHeads), I_(blockSize), I_(innerPrecise), T_(attentionOut))
ACLSTUB_DEFINE_OP(aclnnIncreFlashAttentionV4, OP_IFA4.def, IFA_HEAD_ARGS, IFA_QUANT_ARGS, T_(antiquantScale),
                  T_(antiquantOffset), T_(blocktable), T_(kvPaddingSize), I_(numHeads), D_(scaleValue),
                  S_(inputLayout), I_(numKeyValueHeads), I_(blockSize), I_(innerPrecise), T_(attentionOut))

#define FIA_HEAD_ARGS T_(query), TL_(key), TL_(value), T_(pseShiftOptional), T_(attenMaskOptional), \
    IA_(actualSeqLengthsOptional), IA_(actualSeqLengthsKvOptional), T_(deqScale1Optional), \
    T_(quantScale1Optional), T_(deqScale2Optional), T_(quantScale2Optional), T_(quantOffset2Optional), \
    T_(antiquantScaleOptional), T_(antiquantOffsetOptional), T_(blockTableOptional), \
    T_(queryPaddingSizeOptional), T_(kvPaddingSizeOptional)
#define FIA_KV_ARGS T_(keyAntiquantScaleOptional), T_(keyAntiquantOffsetOptional), T_(valueAntiquantScaleOptional), \
    T_(valueAntiquantOffsetOptional), T_(keySharedPrefixOptional), T_(valueSharedPrefixOptional), \
    IA_(actualSharedPrefixLenOptional)
#define FIA_ATTR_ARGS I_(numHeads), D_(scaleValue), I_(preTokens), I_(nextTokens), S_(inputLayout), \
    I_(numKeyValueHeads), I_(sparseMode), I_(innerPrecise), I_(blockSize), I_(antiquantMode), B_(softmaxLseFlag)
ACLSTUB_DEFINE_OP(aclnnFusedInferAttentionScore, OP_FIA.def, FIA_HEAD_ARGS, FIA_ATTR_ARGS, T_(attentionOut),
                  T_(softmaxLse))
ACLSTUB_DEFINE_OP(aclnnFusedInferAttentionScoreV2, OP_FIA2.def, FIA_HEAD_ARGS, FIA_KV_ARGS, FIA_ATTR_ARGS,
                  I_(keyAntiquantMode), I_(valueAntiquantMode), T_(attentionOut), T_(softmaxLse))
ACLSTUB_DEFINE_OP(aclnnFusedInferAttentionScoreV3, OP_FIA3.def, FIA_HEAD_ARGS, FIA_KV_ARGS, T_(queryRopeOptional),
                  T_(keyRopeOptional), T_(keyRopeAntiquantScaleOptional), FIA_ATTR_ARGS, I_(keyAntiquantMode),
                  I_(valueAntiquantMode), T_(attentionOut), T_(softmaxLse))
ACLSTUB_DEFINE_OP(aclnnFusedInferAttentionScoreV4, OP_FIA4.def, FIA_HEAD_ARGS, FIA_KV_ARGS, T_(queryRopeOptional),
                  T_(keyRopeOptional), T_(keyRopeAntiquantScaleOptional), T_(dequantScaleQueryOptional),
                  T_(learnableSinkOptional), FIA_ATTR_ARGS, I_(keyAntiquantMode), I_(valueAntiquantMode),
                  I_(queryQuantMode), T_(attentionOut), T_(softmaxLse))
