/*
 * The attention engine of the operator SDK (libnnopbase): scaled dot-product attention for the flash-attention
 * family (FlashAttentionScore and its grad, PromptFlashAttention, IncreFlashAttention, FusedInferAttentionScore).
 *
 *   - Sequences are read through their views (any strides): a layout string (BSH, SBH, BSND, BNSD, TND, and
 *     the paged-cache layouts of a block table) says which axis is batch, head, position and head dimension.
 *   - Every value is computed in float32 (16-bit inputs widened exactly, the result rounded once to the output
 *     dtype), blocked the flash-attention way: a block of query rows against blocks of 64 keys, with an online
 *     (running max and running sum) softmax, so no S x S matrix is ever held and no exponent overflows.
 *   - Products of the blocks run on a register-tiled float32 kernel compiled for the host CPU (AVX-512, AVX2
 *     or portable vectors, chosen at run time); its sums may use fused multiply-adds.
 *   - The work is split by (batch, head, block of 64 query rows), fixed by the shape alone: results do not
 *     depend on the thread count.
 *   - Visibility of key j to query row i of batch b: the explicit mask (true/nonzero = masked) when one is
 *     read, and the band j - i - shift <= next, i + shift - j <= pre (shift 0: left-up origin; shift =
 *     kvLen - qLen: right-down origin), or j < prefix. A row that sees no key gives zeros (the "invalid row"
 *     rule of innerPrecise 2), softmax max -inf, sum 0, and lse +inf.
 */
#ifndef ACLSTUB_OP_ATTENTION_H_
#define ACLSTUB_OP_ATTENTION_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sequence operand: element (b, n, s, d) of dtype at base + (sb*b + sn*n + ss*s + sd*d) elements, where for
 * a packed (TND) sequence s counts from starts[b], and for a paged one s is split into a block of the block
 * table (block_table[b, s / block_size], at sblock elements per block) and a position in it. */
typedef struct {
    aclDataType dtype;
    char *base;
    int64_t sb, sn, ss, sd;
    const int64_t *starts;              /* TND: first token of each batch, or NULL */
    const aclStubTensorDesc *block_table; /* paged: (B, max blocks) INT32, or NULL */
    int64_t block_size, sblock;
} aclStubAttnSeq;

/* The axes of a layout. */
typedef enum {
    ACLSTUB_ATTN_BSH,
    ACLSTUB_ATTN_SBH,
    ACLSTUB_ATTN_BSND,
    ACLSTUB_ATTN_BNSD,
    ACLSTUB_ATTN_TND,
    ACLSTUB_ATTN_NSD, /* a paged cache (blocks, N, block size, D) */
    ACLSTUB_ATTN_BAD
} aclStubAttnLayout;

/* "BSH" -> ACLSTUB_ATTN_BSH, ... (ACLSTUB_ATTN_BAD for an unknown name); the text before '_' only. */
ACLSTUB_API aclStubAttnLayout aclStubAttnLayoutOf(const char *name, size_t len);
/* Number of dimensions of a layout (3 or 4). */
ACLSTUB_API int aclStubAttnLayoutRank(aclStubAttnLayout l);

/* The sequence view of t in layout l with n heads of d elements (BSH/SBH split H = n * d). */
ACLSTUB_API aclStubAttnSeq aclStubAttnSeqOf(const aclStubTensorDesc *t, aclStubAttnLayout l, int64_t d);
/* (B, N, S, D) of t in layout l with n heads (BSH/SBH: N = n, D = H / n; TND: B = 0, S = T). */
ACLSTUB_API void aclStubAttnShape(const aclStubTensorDesc *t, aclStubAttnLayout l, int64_t n, int64_t shape[4]);

/* A 4-D strided view (b, n, i, j) with zero strides broadcasting: masks and position shifts. */
typedef struct {
    aclDataType dtype; /* ACL_DT_UNDEFINED: absent */
    const char *base;
    int64_t sb, sn, si, sj;
    const int64_t *starts_i, *starts_j; /* packed (TND) masks: row offsets per batch, or NULL */
} aclStubAttnGrid;

/*
 * The grid of a mask or pse view whose trailing dimensions are (Sq, Skv) (or (Skv) alone when `vector_row`),
 * preceded by (B, N), (B), (1) or nothing; dimensions of size 1 broadcast. false (with why) when its shape is
 * not one of these for the given B, N, Sq, Skv.
 */
ACLSTUB_API bool aclStubAttnGridOf(const aclStubTensorDesc *t, int64_t b, int64_t n, int64_t sq, int64_t skv,
                                   aclStubAttnGrid *out, char *why, size_t why_size);

/* The sparse mode's band, per batch. */
typedef struct {
    int64_t pre, next; /* INT64_MAX: unbounded */
    int origin;        /* 0 left-up (shift 0), 1 right-down (shift kvLen - qLen) */
} aclStubAttnBand;

typedef struct {
    int64_t batch, heads, kv_heads, d, dv;
    int64_t sq, skv;            /* the longest lengths */
    const int64_t *q_len;       /* per batch, or NULL: sq */
    const int64_t *kv_len;      /* per batch, or NULL: skv */
    aclStubAttnSeq q, k, v, out;
    aclStubAttnSeq q_rope, k_rope; /* dtype ACL_DT_UNDEFINED: absent; else d_rope more dimensions of q and k */
    int64_t d_rope;
    float scale;
    aclStubAttnGrid pse;        /* added to the scores */
    int pse_before_scale;       /* 1: scale * (qk + pse); 0: scale * qk + pse */
    aclStubAttnGrid mask;       /* nonzero = masked */
    bool use_band;
    aclStubAttnBand band;       /* every batch but the special one */
    int64_t band_batch;         /* the batch using special_band (sparse modes 7 and 8), or -1 */
    aclStubAttnBand special_band;
    const int64_t *prefix;      /* sparse modes 5 and 6: keys j < prefix[b] are visible too (NULL: none) */
    /* dropout: keep with probability keep_prob; drop_mask bit ((b*N + n)*Sq + i)*Skv + j set = kept (packed
       per batch for TND); kept values are divided by keep_prob */
    float keep_prob;
    const uint8_t *drop_mask;
    /* extra per-row results (float32; NULL: not written): softmax max and sum at row (b, n, i) repeated `rep`
       times at stat + sb*b + sn*n + si*i + k (starts for TND), and the log-sum-exp */
    float *stat_max, *stat_sum, *lse;
    int64_t st_sb, st_sn, st_si, st_rep;
    const int64_t *st_starts;
    int64_t lse_sb, lse_sn, lse_si;
    const float *sink;          /* learnable sink logits per head (added to the softmax denominator), or NULL */
} aclStubAttention;

/* The packed keys and values of a call (its d counts the rope part too): request it as workspace from check
 * (aclStubOpRequestWorkspace) and the kernels use the caller's workspace instead of host scratch. */
ACLSTUB_API uint64_t aclStubAttentionWorkspaceSize(int64_t batch, int64_t kv_heads, int64_t skv, int64_t d, int64_t dv,
                                                   bool grad);

/* The forward pass, from a kernel: OK or a kernel status (out of memory). */
ACLSTUB_API aclnnStatus aclStubAttentionRun(const aclStubOpCall *call, const aclStubAttention *a);

/*
 * The backward pass of a forward described by a (its out = the forward's attention output, stat_max and
 * stat_sum its softmax statistics, read): dq, dk, dv (dtype, strides as sequences like q, k, v) from dy (like
 * out). dpse, when its dtype is set, receives d(score) summed the way pse broadcasts (must be a full (B, N, Sq,
 * Skv) view here). OK or a kernel status.
 */
typedef struct {
    aclStubAttnSeq dy, dq, dk, dv;
    aclStubAttnSeq dq_rope, dk_rope;
    aclStubAttnGrid dpse;
} aclStubAttentionGrad;
ACLSTUB_API aclnnStatus aclStubAttentionGradRun(const aclStubOpCall *call, const aclStubAttention *a,
                                                const aclStubAttentionGrad *g);

#ifdef __cplusplus
}
#endif

#endif /* ACLSTUB_OP_ATTENTION_H_ */
