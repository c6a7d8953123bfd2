/* The attention engine (see aclstub/op_attention.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_attention.h"
#include "cpu_dispatch.h"

#define BR 64 /* query rows per item */
#define BC 128 /* keys per block */
#define NR 8  /* rows of the register tile */

static int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/* ---- layouts ----------------------------------------------------------------------------------------------- */

aclStubAttnLayout aclStubAttnLayoutOf(const char *name, size_t len) {
    static const char *const names[] = {"BSH", "SBH", "BSND", "BNSD", "TND", "NSD"};
    if (name == NULL) return ACLSTUB_ATTN_BAD;
    const char *us = memchr(name, '_', len);
    if (us) len = (size_t)(us - name);
    for (int i = 0; i < ACLSTUB_ATTN_BAD; i++)
        if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0) return (aclStubAttnLayout)i;
    return ACLSTUB_ATTN_BAD;
}

int aclStubAttnLayoutRank(aclStubAttnLayout l) {
    return l == ACLSTUB_ATTN_BSH || l == ACLSTUB_ATTN_SBH || l == ACLSTUB_ATTN_TND ? 3 : 4;
}

aclStubAttnSeq aclStubAttnSeqOf(const aclStubTensorDesc *t, aclStubAttnLayout l, int64_t d) {
    aclStubAttnSeq s;
    memset(&s, 0, sizeof s);
    if (t == NULL) {
        s.dtype = ACL_DT_UNDEFINED;
        return s;
    }
    s.dtype = t->dtype;
    s.base = (char *)t->data + t->offset * (int64_t)aclDataTypeSize(t->dtype);
    const int64_t *st = t->strides;
    switch (l) {
    case ACLSTUB_ATTN_BSH: s.sb = st[0], s.ss = st[1], s.sn = d * st[2], s.sd = st[2]; break;
    case ACLSTUB_ATTN_SBH: s.ss = st[0], s.sb = st[1], s.sn = d * st[2], s.sd = st[2]; break;
    case ACLSTUB_ATTN_BSND: s.sb = st[0], s.ss = st[1], s.sn = st[2], s.sd = st[3]; break;
    case ACLSTUB_ATTN_BNSD: s.sb = st[0], s.sn = st[1], s.ss = st[2], s.sd = st[3]; break;
    case ACLSTUB_ATTN_TND: s.ss = st[0], s.sn = st[1], s.sd = st[2]; break;
    case ACLSTUB_ATTN_NSD: s.sb = st[0], s.sn = st[1], s.ss = st[2], s.sd = st[3]; break;
    default: break;
    }
    return s;
}

void aclStubAttnShape(const aclStubTensorDesc *t, aclStubAttnLayout l, int64_t n, int64_t shape[4]) {
    const int64_t *dm = t->dims;
    int64_t h = 0;
    switch (l) {
    case ACLSTUB_ATTN_BSH: shape[0] = dm[0], shape[2] = dm[1], h = dm[2]; break;
    case ACLSTUB_ATTN_SBH: shape[0] = dm[1], shape[2] = dm[0], h = dm[2]; break;
    case ACLSTUB_ATTN_BSND: shape[0] = dm[0], shape[2] = dm[1], shape[1] = dm[2], shape[3] = dm[3]; return;
    case ACLSTUB_ATTN_BNSD:
    case ACLSTUB_ATTN_NSD: shape[0] = dm[0], shape[1] = dm[1], shape[2] = dm[2], shape[3] = dm[3]; return;
    case ACLSTUB_ATTN_TND: shape[0] = 0, shape[2] = dm[0], shape[1] = dm[1], shape[3] = dm[2]; return;
    default: shape[0] = shape[1] = shape[2] = shape[3] = 0; return;
    }
    shape[1] = n;
    shape[3] = n > 0 && h % n == 0 ? h / n : -1;
}

bool aclStubAttnGridOf(const aclStubTensorDesc *t, int64_t b, int64_t n, int64_t sq, int64_t skv, aclStubAttnGrid *out,
                       char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    out->dtype = ACL_DT_UNDEFINED;
    if (t == NULL) return true;
    int r = (int)t->ndim;
    const int64_t *dm = t->dims, *st = t->strides;
    char shape[160];
    aclStubShapeText(dm, t->ndim, shape, sizeof shape);
    if (r < 1 || r > 4) {
        snprintf(why, why_size, "has shape %s; must be 1-D to 4-D ((B, N,) Sq, Skv)", shape);
        return false;
    }
    /* the key axis: the last dimension, at least Skv long (a longer mask is read in its first Skv columns) */
    if (dm[r - 1] < skv) {
        snprintf(why, why_size, "has shape %s; its last dimension must be at least Skv = %lld", shape, (long long)skv);
        return false;
    }
    out->dtype = t->dtype;
    out->base = (const char *)t->data + t->offset * (int64_t)aclDataTypeSize(t->dtype);
    out->sj = st[r - 1];
    int k = r - 2; /* the next axis to the left */
    /* the query axis: present unless the view is (B, Skv) / (B, 1, Skv) for a single query row */
    if (k >= 0 && !(sq == 1 && r <= 3 && r >= 2 && dm[k] == b && b != 1 && (r == 2 || dm[k - 1] == b))) {
        if (dm[k] != 1 && dm[k] < sq) {
            snprintf(why, why_size, "has shape %s; its query dimension must be 1 or at least Sq = %lld", shape,
                     (long long)sq);
            return false;
        }
        out->si = dm[k] == 1 ? 0 : st[k];
        k--;
    }
    if (k >= 0 && r == 4 && k == 1) { /* (B, N, ...) */
        if (dm[1] != 1 && dm[1] != n) {
            snprintf(why, why_size, "has shape %s; its head dimension must be 1 or N = %lld", shape, (long long)n);
            return false;
        }
        out->sn = dm[1] == 1 ? 0 : st[1];
        k--;
    }
    if (k >= 0) {
        if (k > 0 || (dm[0] != 1 && dm[0] != b)) {
            snprintf(why, why_size, "has shape %s; its batch dimension must be 1 or B = %lld", shape, (long long)b);
            return false;
        }
        out->sb = dm[0] == 1 ? 0 : st[0];
    }
    return true;
}

/* ---- the tile kernels ---------------------------------------------------------------------------------------- */

typedef float v8f __attribute__((vector_size(32)));
/* unaligned loads and stores (macros: a vector-returning function would change the ABI between clones) */
#define ld8(p) ({ v8f v_; memcpy(&v_, (p), sizeof v_); v_; })
#define st8(p, v) do { v8f w_ = (v); memcpy((p), &w_, sizeof w_); } while (0)

/* C (4 x n, row stride ldc) += A (4 x k, row stride lda) * B (k x n, row stride ldb); n a multiple of 16. */
STUB_CLONED static void tile_gemm(float *c, int64_t ldc, const float *a, int64_t lda, const float *b, int64_t ldb,
                                  int64_t k, int64_t n) {
    for (int64_t j = 0; j < n; j += 16) {
        v8f c00 = ld8(c + j), c01 = ld8(c + j + 8);
        v8f c10 = ld8(c + ldc + j), c11 = ld8(c + ldc + j + 8);
        v8f c20 = ld8(c + 2 * ldc + j), c21 = ld8(c + 2 * ldc + j + 8);
        v8f c30 = ld8(c + 3 * ldc + j), c31 = ld8(c + 3 * ldc + j + 8);
        const float *bp = b + j;
        for (int64_t p = 0; p < k; p++, bp += ldb) {
            v8f b0 = ld8(bp), b1 = ld8(bp + 8);
            float x0 = a[p], x1 = a[lda + p], x2 = a[2 * lda + p], x3 = a[3 * lda + p];
            v8f a0 = {x0, x0, x0, x0, x0, x0, x0, x0}, a1 = {x1, x1, x1, x1, x1, x1, x1, x1};
            v8f a2 = {x2, x2, x2, x2, x2, x2, x2, x2}, a3 = {x3, x3, x3, x3, x3, x3, x3, x3};
            c00 += a0 * b0, c01 += a0 * b1;
            c10 += a1 * b0, c11 += a1 * b1;
            c20 += a2 * b0, c21 += a2 * b1;
            c30 += a3 * b0, c31 += a3 * b1;
        }
        st8(c + j, c00);
        st8(c + j + 8, c01);
        st8(c + ldc + j, c10);
        st8(c + ldc + j + 8, c11);
        st8(c + 2 * ldc + j, c20);
        st8(c + 2 * ldc + j + 8, c21);
        st8(c + 3 * ldc + j, c30);
        st8(c + 3 * ldc + j + 8, c31);
    }
}

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
/* The same on 512-bit vectors (x86-64-v4), 32 columns at a time (and a 16-column tail). */
#define ATTN_V16 1
typedef float v16f __attribute__((vector_size(64)));
#define ld16(p) ({ v16f v_; memcpy(&v_, (p), sizeof v_); v_; })
#define st16(p, v) do { v16f w_ = (v); memcpy((p), &w_, sizeof w_); } while (0)
#define SPLAT16(x) {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}
/* 8 rows x 32 columns per tile (16 accumulators), and a 16-column tail. */
__attribute__((target("arch=x86-64-v4"))) static void tile_gemm16(float *c, int64_t ldc, const float *a, int64_t lda,
                                                                 const float *b, int64_t ldb, int64_t k, int64_t n) {
    int64_t j = 0;
    for (; j + 32 <= n; j += 32) {
        v16f acc[8][2];
        for (int r = 0; r < 8; r++) acc[r][0] = ld16(c + r * ldc + j), acc[r][1] = ld16(c + r * ldc + j + 16);
        const float *bp = b + j;
        for (int64_t p = 0; p < k; p++, bp += ldb) {
            v16f b0 = ld16(bp), b1 = ld16(bp + 16);
            for (int r = 0; r < 8; r++) {
                float x = a[r * lda + p];
                v16f ar = SPLAT16(x);
                acc[r][0] += ar * b0;
                acc[r][1] += ar * b1;
            }
        }
        for (int r = 0; r < 8; r++) {
            st16(c + r * ldc + j, acc[r][0]);
            st16(c + r * ldc + j + 16, acc[r][1]);
        }
    }
    if (j < n) {
        v16f acc[8];
        for (int r = 0; r < 8; r++) acc[r] = ld16(c + r * ldc + j);
        const float *bp = b + j;
        for (int64_t p = 0; p < k; p++, bp += ldb) {
            v16f b0 = ld16(bp);
            for (int r = 0; r < 8; r++) {
                float x = a[r * lda + p];
                v16f ar = SPLAT16(x);
                acc[r] += ar * b0;
            }
        }
        for (int r = 0; r < 8; r++) st16(c + r * ldc + j, acc[r]);
    }
}
#endif

/* C (m x n) += A (m x k) * B (k x n), m a multiple of NR. */
static void gemm(float *c, int64_t ldc, const float *a, int64_t lda, const float *b, int64_t ldb, int64_t m, int64_t k,
                 int64_t n) {
#ifdef ATTN_V16
    if (__builtin_cpu_supports("x86-64-v4")) {
        for (int64_t i = 0; i < m; i += 8) tile_gemm16(c + i * ldc, ldc, a + i * lda, lda, b, ldb, k, n);
        return;
    }
#endif
    for (int64_t i = 0; i < m; i += 4) tile_gemm(c + i * ldc, ldc, a + i * lda, lda, b, ldb, k, n);
}

/* e^x in float32 for x <= 88 (a degree-6 polynomial on [-ln2/2, ln2/2]; about 2 ulp); 0 below -87. */
static inline float exp_f32(float x) {
    float xc = x > 88.0f ? 88.0f : x < -87.0f ? -87.0f : x;
    float t = xc * 1.44269504f + 12582912.0f;
    float n = t - 12582912.0f;
    float r = xc - n * 0.693145752f;
    r = r - n * 1.42860677e-06f;
    float p = 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t e = ((int32_t)n + 127) << 23;
    float s;
    memcpy(&s, &e, 4);
    return x < -87.0f ? 0.0f : p * s;
}

/* p[j] = e^(s[j] - m) for j < n (n a multiple of 16); returns their sum, added in 16 lanes (lane j % 16) then
 * the lanes in order. s[j] = -inf gives 0. */
STUB_CLONED static float exp_row(float *p, const float *s, float m, int64_t n) {
    float lanes[16] = {0};
    for (int64_t j = 0; j < n; j += 16)
        for (int x = 0; x < 16; x++) {
            float e = exp_f32(s[j + x] - m);
            p[j + x] = e;
            lanes[x] += e;
        }
    float sum = 0.0f;
    for (int x = 0; x < 16; x++) sum += lanes[x];
    return sum;
}

/* max of s[0 .. n) (n a multiple of 16; -inf entries allowed, no NaN expected) */
STUB_CLONED static float max_row(const float *s, int64_t n) {
    float lanes[16];
    for (int x = 0; x < 16; x++) lanes[x] = -INFINITY;
    for (int64_t j = 0; j < n; j += 16)
        for (int x = 0; x < 16; x++) lanes[x] = s[j + x] > lanes[x] ? s[j + x] : lanes[x];
    float m = -INFINITY;
    for (int x = 0; x < 16; x++) m = lanes[x] > m ? lanes[x] : m;
    return m;
}

STUB_CLONED static void scale_row(float *x, float a, int64_t n) {
    for (int64_t j = 0; j < n; j++) x[j] *= a;
}

/* ---- sequences ---------------------------------------------------------------------------------------------- */

static inline const char *seq_row(const aclStubAttnSeq *s, int64_t b, int64_t n, int64_t pos) {
    int64_t off;
    if (s->block_table) {
        const aclStubTensorDesc *bt = s->block_table;
        int64_t blk = *(const int32_t *)aclStubElem2(bt, b, pos / s->block_size);
        off = blk * s->sblock + n * s->sn + (pos % s->block_size) * s->ss;
    } else if (s->starts) {
        off = (s->starts[b] + pos) * s->ss + n * s->sn;
    } else {
        off = b * s->sb + n * s->sn + pos * s->ss;
    }
    return s->base + off * (int64_t)aclDataTypeSize(s->dtype);
}

static void load_row(float *dst, const aclStubAttnSeq *s, int64_t b, int64_t n, int64_t pos, int64_t d) {
    size_t es = aclDataTypeSize(s->dtype);
    aclStubCastStrided(dst, 4, ACL_FLOAT, seq_row(s, b, n, pos), s->sd * (int64_t)es, s->dtype, d);
}

static void store_row(const aclStubAttnSeq *s, int64_t b, int64_t n, int64_t pos, const float *src, int64_t d) {
    size_t es = aclDataTypeSize(s->dtype);
    aclStubCastStrided((void *)seq_row(s, b, n, pos), s->sd * (int64_t)es, s->dtype, src, 4, ACL_FLOAT, d);
}

/* q (and q_rope) row into dst[0 .. d + d_rope) */
static void load_qk(float *dst, const aclStubAttnSeq *s, const aclStubAttnSeq *rope, int64_t dr, int64_t b, int64_t n,
                    int64_t pos, int64_t d) {
    load_row(dst, s, b, n, pos, d);
    if (dr > 0) load_row(dst + d, rope, b, n, pos, dr);
}

static int64_t qlen_of(const aclStubAttention *a, int64_t b) { return a->q_len ? a->q_len[b] : a->sq; }
static int64_t kvlen_of(const aclStubAttention *a, int64_t b) { return a->kv_len ? a->kv_len[b] : a->skv; }

/* ---- the packed keys and values ------------------------------------------------------------------------------ */

typedef struct {
    const aclStubAttention *a;
    int64_t dt, dvp, nblk; /* d + d_rope and dv rounded up to 16 (zero padded); key blocks per (b, kv head) */
    bool grad;             /* also K (rows) and V^T */
    float *kt, *kr, *vr, *vt;
    int64_t items;         /* per kind of item */
    atomic_int failed;
} Packed;

/* block (b, h, c): Kt (dt x BC), K rows (BC x dt), V rows (BC x dvp), V^T (dvp x BC) */
static int64_t blk_index(const Packed *pk, int64_t b, int64_t h, int64_t c) {
    return (b * pk->a->kv_heads + h) * pk->nblk + c;
}

static void pack_range(void *ctx, int64_t begin, int64_t end) {
    Packed *pk = ctx;
    const aclStubAttention *a = pk->a;
    int64_t dt = pk->dt, dvp = pk->dvp;
    float *row = malloc((size_t)(dt + dvp) * sizeof(float));
    if (row == NULL) {
        atomic_store(&pk->failed, 1);
        return;
    }
    for (int64_t it = begin; it < end; it++) {
        int64_t c = it % pk->nblk, bh = it / pk->nblk, b = bh / a->kv_heads, h = bh % a->kv_heads;
        int64_t kvl = kvlen_of(a, b);
        float *kt = pk->kt + it * dt * BC, *vr = pk->vr + it * BC * dvp;
        float *kr = pk->grad ? pk->kr + it * BC * dt : NULL, *vt = pk->grad ? pk->vt + it * dvp * BC : NULL;
        for (int64_t j = 0; j < BC; j++) {
            int64_t pos = c * BC + j;
            memset(row, 0, (size_t)(dt + dvp) * sizeof(float));
            if (pos < kvl) {
                load_qk(row, &a->k, &a->k_rope, a->d_rope, b, h, pos, a->d);
                load_row(row + dt, &a->v, b, h, pos, a->dv);
            }
            for (int64_t x = 0; x < dt; x++) kt[x * BC + j] = row[x];
            memcpy(vr + j * dvp, row + dt, (size_t)dvp * sizeof(float));
            if (kr) memcpy(kr + j * dt, row, (size_t)dt * sizeof(float));
            if (vt)
                for (int64_t x = 0; x < dvp; x++) vt[x * BC + j] = row[dt + x];
        }
    }
    free(row);
}

static aclnnStatus pack(const aclStubOpCall *call, const aclStubAttention *a, Packed *pk, bool grad) {
    memset(pk, 0, sizeof *pk);
    pk->a = a;
    pk->dt = round_up(a->d + a->d_rope, 16);
    pk->dvp = round_up(a->dv > 0 ? a->dv : 1, 16);
    pk->nblk = (a->skv + BC - 1) / BC;
    pk->grad = grad;
    int64_t nb = a->batch * a->kv_heads * pk->nblk;
    uint64_t bytes = aclStubAttentionWorkspaceSize(a->batch, a->kv_heads, a->skv, a->d + a->d_rope, a->dv, grad);
    float *mem = NULL;
    if (nb > 0) mem = call->workspace_size >= bytes && call->workspace ? call->workspace : aclStubKernelScratch(call, bytes);
    if (nb > 0 && mem == NULL) return aclStubKernelOutOfMemory(call);
    pk->kt = mem;
    pk->vr = mem + nb * pk->dt * BC;
    if (grad) {
        pk->kr = pk->vr + nb * BC * pk->dvp;
        pk->vt = pk->kr + nb * BC * pk->dt;
    }
    atomic_init(&pk->failed, 0);
    aclStubParallelFor(nb, 1, pack_range, pk);
    if (atomic_load(&pk->failed)) return aclStubKernelOutOfMemory(call);
    return OK;
}

uint64_t aclStubAttentionWorkspaceSize(int64_t batch, int64_t kv_heads, int64_t skv, int64_t d, int64_t dv, bool grad) {
    if (batch <= 0 || kv_heads <= 0 || skv <= 0) return 0;
    int64_t nb = batch * kv_heads * ((skv + BC - 1) / BC);
    int64_t per = (round_up(d, 16) * BC + BC * round_up(dv > 0 ? dv : 1, 16)) * (grad ? 2 : 1);
    return (uint64_t)nb * (uint64_t)per * sizeof(float);
}

/* ---- scores of a block ---------------------------------------------------------------------------------------- */

static const aclStubAttnBand *band_of(const aclStubAttention *a, int64_t b) {
    if (!a->use_band) return NULL;
    return b == a->band_batch ? &a->special_band : &a->band;
}

/* Visible keys of row i: [lo, hi] (inclusive) by the band, before the prefix. */
static void band_range(const aclStubAttnBand *bd, int64_t i, int64_t shift, int64_t *lo, int64_t *hi) {
    int64_t c = i + (bd->origin ? shift : 0);
    *lo = bd->pre >= INT64_MAX / 4 ? INT64_MIN / 2 : c - bd->pre;
    *hi = bd->next >= INT64_MAX / 4 ? INT64_MAX / 2 : c + bd->next;
    if (bd->pre <= -INT64_MAX / 4) *lo = INT64_MAX / 2;
    if (bd->next <= -INT64_MAX / 4) *hi = INT64_MIN / 2;
}

static float grid_value(const aclStubAttnGrid *g, const char *row, int64_t j) {
    const char *p = row + j * g->sj * (int64_t)aclDataTypeSize(g->dtype);
    return aclStubLoadPtrF32(g->dtype, p);
}

static const char *grid_row(const aclStubAttnGrid *g, int64_t b, int64_t n, int64_t i) {
    int64_t off = b * g->sb + n * g->sn + i * g->si;
    return g->base + off * (int64_t)aclDataTypeSize(g->dtype);
}

/*
 * Turn the raw products s[0 .. BC) of row i (keys j0 ...) into scores: scale, pse, and -inf where a key is not
 * visible. Returns whether any key is visible.
 */
static bool finish_scores(const aclStubAttention *a, float *s, int64_t b, int64_t n, int64_t i, int64_t j0,
                          int64_t kvl, int64_t shift, bool prescaled) {
    int64_t lim = kvl - j0 < BC ? kvl - j0 : BC;
    if (a->pse.dtype != ACL_DT_UNDEFINED) {
        const char *pr = grid_row(&a->pse, b, n, i);
        for (int64_t j = 0; j < lim; j++) {
            float p = grid_value(&a->pse, pr, j0 + j);
            s[j] = a->pse_before_scale ? (s[j] + p) * a->scale : (prescaled ? s[j] : s[j] * a->scale) + p;
        }
    } else if (!prescaled) {
        scale_row(s, a->scale, lim);
    }
    for (int64_t j = lim; j < BC; j++) s[j] = -INFINITY;
    const aclStubAttnBand *bd = band_of(a, b);
    if (bd) {
        int64_t lo, hi;
        band_range(bd, i, shift, &lo, &hi);
        int64_t pf = a->prefix ? a->prefix[b] : 0;
        for (int64_t j = 0; j < lim; j++) {
            int64_t jj = j0 + j;
            if ((jj < lo || jj > hi) && jj >= pf) s[j] = -INFINITY;
        }
    }
    if (a->mask.dtype != ACL_DT_UNDEFINED) {
        const uint8_t *mr = (const uint8_t *)grid_row(&a->mask, b, n, i);
        int64_t sj = a->mask.sj;
        for (int64_t j = 0; j < lim; j++)
            if (mr[(j0 + j) * sj]) s[j] = -INFINITY;
    }
    for (int64_t j = 0; j < lim; j++)
        if (s[j] != -INFINITY) return true;
    return false;
}

/* Whether block c of keys can hold a visible key for rows [i0, i1) (band only). */
static bool block_maybe_visible(const aclStubAttention *a, int64_t b, int64_t i0, int64_t i1, int64_t j0,
                                int64_t shift) {
    const aclStubAttnBand *bd = band_of(a, b);
    if (bd == NULL) return true;
    if (a->prefix && j0 < a->prefix[b]) return true;
    int64_t lo0, hi0, lo1, hi1;
    band_range(bd, i0, shift, &lo0, &hi0);
    band_range(bd, i1 - 1, shift, &lo1, &hi1);
    int64_t lo = lo0 < lo1 ? lo0 : lo1, hi = hi0 > hi1 ? hi0 : hi1;
    return !(hi < j0 || lo > j0 + BC - 1);
}

static void apply_dropout(const aclStubAttention *a, float *p, int64_t bit0, int64_t lim) {
    float inv = 1.0f / a->keep_prob;
    for (int64_t j = 0; j < lim; j++) {
        int64_t bit = bit0 + j;
        bool keep = a->drop_mask ? (a->drop_mask[bit >> 3] >> (bit & 7)) & 1 : true;
        p[j] = keep ? p[j] * inv : 0.0f;
    }
}

/* first bit of row (b, n, i) in the dropout mask */
static int64_t drop_bit(const aclStubAttention *a, int64_t b, int64_t n, int64_t i) {
    int64_t base = 0;
    if (a->q_len || a->kv_len) {
        for (int64_t x = 0; x < b; x++) base += a->heads * qlen_of(a, x) * kvlen_of(a, x);
        return base + (n * qlen_of(a, b) + i) * kvlen_of(a, b);
    }
    return ((b * a->heads + n) * a->sq + i) * a->skv;
}

/* ---- forward ----------------------------------------------------------------------------------------------- */

typedef struct {
    Packed *pk;
    int64_t qblocks;
} Fwd;

static void store_stats(const aclStubAttention *a, int64_t b, int64_t n, int64_t i, float m, float l) {
    if (a->stat_max || a->stat_sum) {
        int64_t row = a->st_starts ? (a->st_starts[b] + i) * a->st_si + n * a->st_sn
                                   : b * a->st_sb + n * a->st_sn + i * a->st_si;
        for (int64_t r = 0; r < a->st_rep; r++) {
            if (a->stat_max) a->stat_max[row + r] = m;
            if (a->stat_sum) a->stat_sum[row + r] = l;
        }
    }
    if (a->lse) {
        int64_t row = a->st_starts ? (a->st_starts[b] + i) * a->lse_si + n * a->lse_sn
                                   : b * a->lse_sb + n * a->lse_sn + i * a->lse_si;
        a->lse[row] = l > 0.0f ? m + logf(l) : INFINITY;
    }
}

/* An item is a block of BR rows of one (batch, key/value head): row R of the block stands for query head
 * h * group + R / qLen at position R % qLen, so the query heads sharing a cache head share its key blocks (a
 * decode step's single rows fill a tile together). */
static void fwd_range(void *ctx, int64_t begin, int64_t end) {
    Fwd *f = ctx;
    Packed *pk = f->pk;
    const aclStubAttention *a = pk->a;
    int64_t dt = pk->dt, dvp = pk->dvp;
    size_t floats = (size_t)(BR * dt + BR * BC * 2 + BR * dvp + 2 * BR);
    float *mem = malloc(floats * sizeof(float));
    int64_t *rn = malloc(2 * BR * sizeof(int64_t));
    if (mem == NULL || rn == NULL) {
        atomic_store(&pk->failed, 1);
        free(mem), free(rn);
        return;
    }
    int64_t *ri = rn + BR;
    float *qs = mem, *s = qs + BR * dt, *p = s + BR * BC, *o = p + BR * BC, *m = o + BR * dvp, *l = m + BR;
    int64_t group = a->heads / a->kv_heads;
    /* the query rows carry the scale (one multiply per query element instead of one per score), unless pse is
       added before the scale */
    bool prescaled = !(a->pse.dtype != ACL_DT_UNDEFINED && a->pse_before_scale);
    for (int64_t it = begin; it < end; it++) {
        int64_t qb = it % f->qblocks, bh = it / f->qblocks, b = bh / a->kv_heads, h = bh % a->kv_heads;
        int64_t ql = qlen_of(a, b), kvl = kvlen_of(a, b), shift = kvl - ql;
        int64_t r0 = qb * BR, total = group * ql, rows = total - r0 < BR ? total - r0 : BR;
        if (rows <= 0) continue;
        int64_t rp = round_up(rows, NR), imin = INT64_MAX, imax = -1;
        for (int64_t r = 0; r < rp; r++) {
            memset(qs + r * dt, 0, (size_t)dt * sizeof(float));
            m[r] = -INFINITY;
            l[r] = 0.0f;
            if (r >= rows) continue;
            rn[r] = h * group + (r0 + r) / ql, ri[r] = (r0 + r) % ql;
            imin = ri[r] < imin ? ri[r] : imin;
            imax = ri[r] > imax ? ri[r] : imax;
            load_qk(qs + r * dt, &a->q, &a->q_rope, a->d_rope, b, rn[r], ri[r], a->d);
            if (prescaled) scale_row(qs + r * dt, a->scale, dt);
        }
        memset(o, 0, (size_t)(rp * dvp) * sizeof(float));
        for (int64_t c = 0; c * BC < kvl; c++) {
            int64_t j0 = c * BC;
            if (!block_maybe_visible(a, b, imin, imax + 1, j0, shift)) continue;
            int64_t bi = blk_index(pk, b, h, c);
            memset(s, 0, (size_t)(rp * BC) * sizeof(float));
            gemm(s, BC, qs, dt, pk->kt + bi * dt * BC, BC, rp, dt, BC);
            bool any = false;
            for (int64_t r = 0; r < rows; r++) {
                float *sr = s + r * BC, *pr = p + r * BC;
                if (!finish_scores(a, sr, b, rn[r], ri[r], j0, kvl, shift, prescaled)) {
                    memset(pr, 0, BC * sizeof(float));
                    continue;
                }
                any = true;
                float bm = max_row(sr, BC);
                float mn = bm > m[r] ? bm : m[r];
                float alpha = m[r] == -INFINITY ? 0.0f : exp_f32(m[r] - mn);
                float sum = exp_row(pr, sr, mn, BC);
                l[r] = l[r] * alpha + sum;
                m[r] = mn;
                if (alpha != 1.0f) scale_row(o + r * dvp, alpha, dvp);
                if (a->keep_prob < 1.0f) {
                    int64_t lim = kvl - j0 < BC ? kvl - j0 : BC;
                    apply_dropout(a, pr, drop_bit(a, b, rn[r], ri[r]) + j0, lim);
                }
            }
            for (int64_t r = rows; r < rp; r++) memset(p + r * BC, 0, BC * sizeof(float));
            if (any) gemm(o, dvp, p, BC, pk->vr + bi * BC * dvp, dvp, rp, BC, dvp);
        }
        for (int64_t r = 0; r < rows; r++) {
            float mr = m[r], lr = l[r];
            if (a->sink) {
                float sk = a->sink[rn[r]], mn = sk > mr ? sk : mr;
                float alpha = mr == -INFINITY ? 0.0f : expf(mr - mn);
                lr = lr * alpha + expf(sk - mn);
                scale_row(o + r * dvp, alpha, dvp);
                mr = mn;
            }
            float inv = lr > 0.0f ? 1.0f / lr : 0.0f;
            scale_row(o + r * dvp, inv, dvp);
            if (a->out.dtype != ACL_DT_UNDEFINED) store_row(&a->out, b, rn[r], ri[r], o + r * dvp, a->dv);
            store_stats(a, b, rn[r], ri[r], mr, lr);
        }
    }
    free(mem);
    free(rn);
}

aclnnStatus aclStubAttentionRun(const aclStubOpCall *call, const aclStubAttention *a) {
    if (a->batch <= 0 || a->heads <= 0 || a->sq <= 0) return OK;
    Packed pk;
    ACLSTUB_TRY(pack(call, a, &pk, false));
    int64_t group = a->heads / a->kv_heads;
    Fwd f = {&pk, (group * a->sq + BR - 1) / BR};
    aclStubParallelFor(a->batch * a->kv_heads * f.qblocks, 1, fwd_range, &f);
    if (atomic_load(&pk.failed)) return aclStubKernelOutOfMemory(call);
    return OK;
}

/* ---- backward ------------------------------------------------------------------------------------------------ */

typedef struct {
    Packed *pk;
    const aclStubAttentionGrad *g;
    int64_t qblocks;
} Bwd;

/* The (rows x BC) probabilities p of block c for a loaded query block, their dropped copy pd, and whether any is
 * nonzero; row r's statistics m[r], l[r]. */
static bool block_probs(const aclStubAttention *a, const Packed *pk, const float *qs, int64_t rows, int64_t rp,
                        int64_t b, int64_t n, int64_t h, int64_t i0, int64_t c, const float *m, const float *l,
                        float *s, float *p, float *pd) {
    int64_t ql = qlen_of(a, b), kvl = kvlen_of(a, b), shift = kvl - ql, j0 = c * BC;
    int64_t lim = kvl - j0 < BC ? kvl - j0 : BC;
    memset(p, 0, (size_t)(rp * BC) * sizeof(float));
    memset(pd, 0, (size_t)(rp * BC) * sizeof(float));
    if (!block_maybe_visible(a, b, i0, i0 + rows, j0, shift)) return false;
    memset(s, 0, (size_t)(rp * BC) * sizeof(float));
    gemm(s, BC, qs, pk->dt, pk->kt + blk_index(pk, b, h, c) * pk->dt * BC, BC, rp, pk->dt, BC);
    bool any = false;
    for (int64_t r = 0; r < rows; r++) {
        float *sr = s + r * BC, *pr = p + r * BC;
        if (!finish_scores(a, sr, b, n, i0 + r, j0, kvl, shift, false) || !(l[r] > 0.0f)) continue;
        any = true;
        exp_row(pr, sr, m[r], BC);
        scale_row(pr, 1.0f / l[r], BC);
        memcpy(pd + r * BC, pr, BC * sizeof(float));
        if (a->keep_prob < 1.0f) apply_dropout(a, pd + r * BC, drop_bit(a, b, n, i0 + r) + j0, lim);
    }
    return any;
}

/* Loads a query block: q rows, dy rows, the statistics and D = rowsum(dy * out). */
static void load_qblock(const aclStubAttention *a, const aclStubAttentionGrad *g, const Packed *pk, int64_t b,
                        int64_t n, int64_t i0, int64_t rows, int64_t rp, float *qs, float *dys, float *m, float *l,
                        float *dd, float *tmp) {
    int64_t dt = pk->dt, dvp = pk->dvp;
    for (int64_t r = 0; r < rp; r++) {
        memset(qs + r * dt, 0, (size_t)dt * sizeof(float));
        memset(dys + r * dvp, 0, (size_t)dvp * sizeof(float));
        m[r] = -INFINITY, l[r] = 0.0f, dd[r] = 0.0f;
        if (r >= rows) continue;
        int64_t i = i0 + r;
        load_qk(qs + r * dt, &a->q, &a->q_rope, a->d_rope, b, n, i, a->d);
        load_row(dys + r * dvp, &g->dy, b, n, i, a->dv);
        load_row(tmp, &a->out, b, n, i, a->dv);
        float acc = 0.0f;
        for (int64_t x = 0; x < a->dv; x++) acc += dys[r * dvp + x] * tmp[x];
        dd[r] = acc;
        int64_t row = a->st_starts ? (a->st_starts[b] + i) * a->st_si + n * a->st_sn
                                   : b * a->st_sb + n * a->st_sn + i * a->st_si;
        m[r] = a->stat_max[row];
        l[r] = a->stat_sum[row];
    }
}

/* dS = P * (dP - D), dP = (dy V^T) * dropout; ds gets rows x BC */
static void block_ds(const aclStubAttention *a, const Packed *pk, const float *dys, int64_t rows, int64_t rp,
                     int64_t b, int64_t n, int64_t h, int64_t i0, int64_t c, const float *p, const float *dd,
                     float *ds) {
    int64_t kvl = kvlen_of(a, b), j0 = c * BC, lim = kvl - j0 < BC ? kvl - j0 : BC;
    memset(ds, 0, (size_t)(rp * BC) * sizeof(float));
    gemm(ds, BC, dys, pk->dvp, pk->vt + blk_index(pk, b, h, c) * pk->dvp * BC, BC, rp, pk->dvp, BC);
    for (int64_t r = 0; r < rows; r++) {
        float *dr = ds + r * BC;
        const float *pr = p + r * BC;
        if (a->keep_prob < 1.0f) apply_dropout(a, dr, drop_bit(a, b, n, i0 + r) + j0, lim);
        for (int64_t j = 0; j < BC; j++) dr[j] = pr[j] * (dr[j] - dd[r]);
    }
    for (int64_t r = rows; r < rp; r++) memset(ds + r * BC, 0, BC * sizeof(float));
}

static void transpose(float *dst, const float *src, int64_t rows, int64_t cols) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) dst[c * rows + r] = src[r * cols + c];
}

/* pass A: dq per (b, n, query block), and dpse */
static void dq_range(void *ctx, int64_t begin, int64_t end) {
    Bwd *w = ctx;
    Packed *pk = w->pk;
    const aclStubAttention *a = pk->a;
    const aclStubAttentionGrad *g = w->g;
    int64_t dt = pk->dt, dvp = pk->dvp;
    size_t floats = (size_t)(BR * dt * 2 + BR * dvp + BR * BC * 4 + 4 * BR + dvp + dt);
    float *mem = malloc(floats * sizeof(float));
    if (mem == NULL) {
        atomic_store(&pk->failed, 1);
        return;
    }
    float *qs = mem, *dq = qs + BR * dt, *dys = dq + BR * dt, *s = dys + BR * dvp, *p = s + BR * BC,
          *pd = p + BR * BC, *ds = pd + BR * BC, *m = ds + BR * BC, *l = m + BR, *dd = l + BR, *tmp = dd + BR;
    int64_t group = a->heads / a->kv_heads;
    for (int64_t it = begin; it < end; it++) {
        int64_t qb = it % w->qblocks, bn = it / w->qblocks, b = bn / a->heads, n = bn % a->heads, h = n / group;
        int64_t ql = qlen_of(a, b), kvl = kvlen_of(a, b), i0 = qb * BR, rows = ql - i0 < BR ? ql - i0 : BR;
        if (rows <= 0) continue;
        int64_t rp = round_up(rows, NR);
        load_qblock(a, g, pk, b, n, i0, rows, rp, qs, dys, m, l, dd, tmp);
        memset(dq, 0, (size_t)(rp * dt) * sizeof(float));
        for (int64_t c = 0; c * BC < kvl; c++) {
            bool any = block_probs(a, pk, qs, rows, rp, b, n, h, i0, c, m, l, s, p, pd);
            if (!any && g->dpse.dtype == ACL_DT_UNDEFINED) continue;
            block_ds(a, pk, dys, rows, rp, b, n, h, i0, c, p, dd, ds);
            if (g->dpse.dtype != ACL_DT_UNDEFINED) {
                int64_t j0 = c * BC, lim = kvl - j0 < BC ? kvl - j0 : BC;
                float f = a->pse_before_scale ? a->scale : 1.0f;
                for (int64_t r = 0; r < rows; r++) {
                    char *row = (char *)grid_row(&g->dpse, b, n, i0 + r);
                    size_t es = aclDataTypeSize(g->dpse.dtype);
                    for (int64_t j = 0; j < lim; j++)
                        aclStubStorePtrF32(g->dpse.dtype, row + (j0 + j) * g->dpse.sj * (int64_t)es,
                                           ds[r * BC + j] * f);
                }
            }
            if (any) gemm(dq, dt, ds, BC, pk->kr + blk_index(pk, b, h, c) * BC * dt, dt, rp, BC, dt);
        }
        for (int64_t r = 0; r < rows; r++) {
            scale_row(dq + r * dt, a->scale, dt);
            store_row(&g->dq, b, n, i0 + r, dq + r * dt, a->d);
            if (a->d_rope > 0) store_row(&g->dq_rope, b, n, i0 + r, dq + r * dt + a->d, a->d_rope);
        }
    }
    free(mem);
}

/* pass B: dk, dv per (b, kv head, key block), over every query head of the group and every query block */
static void dkv_range(void *ctx, int64_t begin, int64_t end) {
    Bwd *w = ctx;
    Packed *pk = w->pk;
    const aclStubAttention *a = pk->a;
    const aclStubAttentionGrad *g = w->g;
    int64_t dt = pk->dt, dvp = pk->dvp;
    size_t floats = (size_t)(BR * dt + BR * dvp + BR * BC * 4 + BC * BR + BC * dt + BC * dvp + 4 * BR + dvp + dt);
    float *mem = malloc(floats * sizeof(float));
    if (mem == NULL) {
        atomic_store(&pk->failed, 1);
        return;
    }
    float *qs = mem, *dys = qs + BR * dt, *s = dys + BR * dvp, *p = s + BR * BC, *pd = p + BR * BC,
          *ds = pd + BR * BC, *tr = ds + BR * BC, *dk = tr + BC * BR, *dv = dk + BC * dt, *m = dv + BC * dvp,
          *l = m + BR, *dd = l + BR, *tmp = dd + BR;
    int64_t group = a->heads / a->kv_heads;
    for (int64_t it = begin; it < end; it++) {
        int64_t c = it % pk->nblk, bh = it / pk->nblk, b = bh / a->kv_heads, h = bh % a->kv_heads;
        int64_t ql = qlen_of(a, b), kvl = kvlen_of(a, b), j0 = c * BC;
        if (j0 >= kvl) continue;
        memset(dk, 0, (size_t)(BC * dt) * sizeof(float));
        memset(dv, 0, (size_t)(BC * dvp) * sizeof(float));
        for (int64_t n = h * group; n < (h + 1) * group; n++) {
            for (int64_t i0 = 0; i0 < ql; i0 += BR) {
                int64_t rows = ql - i0 < BR ? ql - i0 : BR, rp = round_up(rows, NR);
                if (!block_maybe_visible(a, b, i0, i0 + rows, j0, kvl - ql)) continue;
                load_qblock(a, g, pk, b, n, i0, rows, rp, qs, dys, m, l, dd, tmp);
                if (!block_probs(a, pk, qs, rows, rp, b, n, h, i0, c, m, l, s, p, pd)) continue;
                block_ds(a, pk, dys, rows, rp, b, n, h, i0, c, p, dd, ds);
                transpose(tr, pd, rp, BC); /* BC x rp */
                gemm(dv, dvp, tr, rp, dys, dvp, BC, rp, dvp);
                transpose(tr, ds, rp, BC);
                gemm(dk, dt, tr, rp, qs, dt, BC, rp, dt);
            }
        }
        int64_t lim = kvl - j0 < BC ? kvl - j0 : BC;
        for (int64_t j = 0; j < lim; j++) {
            scale_row(dk + j * dt, a->scale, dt);
            store_row(&g->dk, b, h, j0 + j, dk + j * dt, a->d);
            if (a->d_rope > 0) store_row(&g->dk_rope, b, h, j0 + j, dk + j * dt + a->d, a->d_rope);
            store_row(&g->dv, b, h, j0 + j, dv + j * dvp, a->dv);
        }
    }
    free(mem);
}

aclnnStatus aclStubAttentionGradRun(const aclStubOpCall *call, const aclStubAttention *a,
                                    const aclStubAttentionGrad *g) {
    if (a->batch <= 0 || a->heads <= 0) return OK;
    Packed pk;
    ACLSTUB_TRY(pack(call, a, &pk, true));
    Bwd w = {&pk, g, (a->sq + BR - 1) / BR};
    aclStubParallelFor(a->batch * a->heads * w.qblocks, 1, dq_range, &w);
    aclStubParallelFor(a->batch * a->kv_heads * pk.nblk, 1, dkv_range, &w);
    if (atomic_load(&pk.failed)) return aclStubKernelOutOfMemory(call);
    return OK;
}
