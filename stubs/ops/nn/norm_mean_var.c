/*
 * The mean-and-variance norms of ops-nn norm/: LayerNorm (with LayerNormWithImplMode and FastLayerNorm),
 * LayerNormBackward, GroupNorm, GroupNormSilu (V1 and V2: y = silu(group norm), the silu in float32), GroupNormSwish
 * (y / (1 + exp(-swishScale * y))),
 * GroupNormBackward, InstanceNorm, BatchNorm and BatchNormBackward (with
 * FastBatchNormBackward, whose version argument selects a device kernel: one result here).
 *
 * Layout. Every operator reads its input in row-major order as samples x channels x inner elements (inner: the
 * product of the dimensions after the channel; InstanceNorm's NHWC input is read through an NCHW view):
 *   - a "grouped" norm (LayerNorm, GroupNorm, InstanceNorm) normalises G groups of L consecutive elements (a row of
 *     the normalised shape; C / group channels of one sample; one channel of one sample); element j of group g
 *     takes the affine parameters of channel (g % groups_per_sample) * channels_per_group + j / inner;
 *   - BatchNorm normalises each channel over every sample.
 * Arithmetic. Values are widened to float32 (16-bit data computes in float32, as the op_api's kernels do);
 * mean = sum(x) / n and var = sum((x - mean)^2) / n (biased), both sums in the reduction engine's order
 * (aclStubSumF32: 32 lanes, chunks of 4096, adjacent-pair trees), rstd = 1 / sqrt(var + eps), y = ((x - mean) *
 * rstd) * w + b rounded once to the output's dtype. Sums over channels (the weight and bias gradients, batch
 * statistics) gather a channel's terms in row-major order and add them in the same order, so no result depends
 * on the thread count. Backward: xhat = (x - mean) * rstd, g = dy * w, dx = rstd * (g - sum(g) / n - xhat *
 * sum(g * xhat) / n); dw = sum(dy * xhat), db = sum(dy) per channel. BatchNorm in training updates the running
 * statistics in place: running = (1 - momentum) * running + momentum * batch (the variance unbiased, n / (n - 1)).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_group_norm_silu.h"
#include "aclnnop/aclnn_group_norm_swish.h"
#include "aclnnop/aclnn_instance_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define NULLPTR ACLNN_ERR_PARAM_NULLPTR
#define DT(x) ACLSTUB_DT(x)
#define FLOATS ACLSTUB_DT_FLOATS
#define MAX_DIMS 8

typedef enum { K_LAYER, K_LAYER_GRAD, K_GROUP, K_GROUP_GRAD, K_INSTANCE, K_BATCH, K_BATCH_GRAD, K_GROUP_SILU } Kind;

typedef struct {
    Kind kind;
    int64_t groups, len;                /* grouped norms: G groups of L elements */
    int64_t samples, channels, inner;   /* the channel layout (channel c of sample s: (s * channels + c) * inner) */
    int64_t gps, cpg;                   /* groups per sample, channels per group */
    float eps, momentum;
    bool training, nhwc, variance_out;  /* InstanceNorm: NHWC input, writes the variance instead of rstd */
    bool silu;                          /* GroupNormSilu: y = silu(y); GroupNormSwish: y / (1 + exp(-k y)) */
    float swish;                        /* k (1 for silu) */
    bool mask[3];                       /* backward: dx, dw, db */
    bool fill_only;                     /* an empty input: the kernel only fills outputs, as the op_api does */
    int num_fills;
    struct {
        int param;
        double value;
    } fill[2];
} Plan;

static const aclStubTensorDesc *T(const aclStubOpCall *c, int i) { return c->v[i].tensor; }
static const char *NAME(const aclStubOpCall *c, int i) { return c->op->params[i].name; }

/* ---- loads and stores ----------------------------------------------------------------------------------------- */

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t s = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != s) return false;
        s *= t->dims[d];
    }
    return true;
}

/* elements [start, start + n) of t's row-major order as float32 */
static void load_range(const aclStubTensorDesc *t, int64_t start, int64_t n, float *dst) {
    if (contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowLoadF32(dst, (const char *)t->data + (t->offset + start) * (int64_t)es, t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) dst[j] = aclStubLoadPtrF32(t->dtype, aclStubElemAt(t, start + j));
}

static void store_range(const aclStubTensorDesc *t, int64_t start, int64_t n, const float *src) {
    if (contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowStoreF32((char *)t->data + (t->offset + start) * (int64_t)es, src, t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) aclStubStorePtrF32(t->dtype, aclStubElemAt(t, start + j), src[j]);
}

static float load1(const aclStubTensorDesc *t, int64_t i) { return aclStubLoadPtrF32(t->dtype, aclStubElemAt(t, i)); }
static void store1(const aclStubTensorDesc *t, int64_t i, float v) { aclStubStorePtrF32(t->dtype, aclStubElemAt(t, i), v); }

/* n values of a per-channel vector, or `fill` when it is absent */
static void load_vec(float *dst, const aclStubTensorDesc *t, int64_t n, float fill) {
    for (int64_t j = 0; j < n; j++) dst[j] = t ? load1(t, j) : fill;
}

/* a whole tensor (total elements) staged as float32, a block per task */
typedef struct {
    const aclStubTensorDesc *t;
    float *dst;
    int64_t total;
} Stage;
#define STAGE_BLOCK 16384
static void stage_blocks(void *arg, int64_t begin, int64_t end) {
    Stage *s = arg;
    for (int64_t b = begin; b < end; b++) {
        int64_t lo = b * STAGE_BLOCK, n = s->total - lo < STAGE_BLOCK ? s->total - lo : STAGE_BLOCK;
        load_range(s->t, lo, n, s->dst + lo);
    }
}
static void stage(const aclStubTensorDesc *t, float *dst, int64_t total) {
    Stage s = {t, dst, total};
    aclStubParallelFor((total + STAGE_BLOCK - 1) / STAGE_BLOCK, 1, stage_blocks, &s);
}

/* ---- channel sums: the terms of channel c in row-major order (samples, then inner elements) ---------------------- */

typedef struct {
    const Plan *p;
    const float *a, *b;   /* terms a (or a * b when b is set) */
    const float *center;  /* optional per-channel value subtracted from a before squaring (variance) */
    float *out;
    int failed;
} ChannelSum;

static void channel_sums(void *arg, int64_t begin, int64_t end) {
    ChannelSum *cs = arg;
    const Plan *p = cs->p;
    int64_t n = p->samples * p->inner;
    float *buf = malloc((size_t)(n + 1) * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&cs->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t c = begin; c < end; c++) {
        float *q = buf;
        for (int64_t s = 0; s < p->samples; s++) {
            int64_t base = (s * p->channels + c) * p->inner;
            if (cs->center) {
                float m = cs->center[c];
                for (int64_t k = 0; k < p->inner; k++) {
                    float d = cs->a[base + k] - m;
                    *q++ = d * d;
                }
            } else if (cs->b) {
                for (int64_t k = 0; k < p->inner; k++) *q++ = cs->a[base + k] * cs->b[base + k];
            } else {
                memcpy(q, cs->a + base, (size_t)p->inner * sizeof(float));
                q += p->inner;
            }
        }
        cs->out[c] = aclStubSumF32(buf, n);
    }
    free(buf);
}

static bool run_channel_sums(const Plan *p, const float *a, const float *b, const float *center, float *out) {
    ChannelSum cs = {p, a, b, center, out, 0};
    int64_t per = p->samples * p->inner;
    aclStubParallelFor(p->channels, per > 0 ? 1 + 65536 / per : 1, channel_sums, &cs);
    return !cs.failed;
}

/* ---- grouped norms: forward ----------------------------------------------------------------------------------- */

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *x, *y, *mean, *rstd;
    const float *w, *b;
    int failed;
} GroupFwd;

static void group_forward(void *arg, int64_t begin, int64_t end) {
    GroupFwd *f = arg;
    const Plan *p = f->p;
    int64_t L = p->len;
    float *buf = malloc((size_t)(2 * L + 1) * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&f->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *x = buf, *t = buf + L;
    for (int64_t g = begin; g < end; g++) {
        load_range(f->x, g * L, L, x);
        float mean = aclStubSumF32(x, L) / (float)L;
        for (int64_t j = 0; j < L; j++) t[j] = (x[j] - mean) * (x[j] - mean);
        float var = aclStubSumF32(t, L) / (float)L;
        float rstd = 1.0f / sqrtf(var + p->eps);
        int64_t a0 = (g % p->gps) * p->cpg;
        for (int64_t j = 0; j < L; j++) {
            int64_t a = a0 + j / p->inner;
            t[j] = ((x[j] - mean) * rstd) * f->w[a] + f->b[a];
        }
        if (p->silu)
            for (int64_t j = 0; j < L; j++) t[j] = t[j] / (1.0f + expf(-(p->swish * t[j])));
        store_range(f->y, g * L, L, t);
        if (f->mean) store1(f->mean, g, mean);
        if (f->rstd) store1(f->rstd, g, p->variance_out ? var : rstd);
    }
    free(buf);
}

/* ---- grouped norms: backward ---------------------------------------------------------------------------------- */

typedef struct {
    const Plan *p;
    const aclStubTensorDesc *dy, *x, *mean, *rstd, *dx;
    const float *w;
    float *dyx, *dys; /* staged dy * xhat and dy, for the channel sums (NULL when not needed) */
    int failed;
} GroupBwd;

static void group_backward(void *arg, int64_t begin, int64_t end) {
    GroupBwd *f = arg;
    const Plan *p = f->p;
    int64_t L = p->len;
    float *buf = malloc((size_t)(4 * L + 1) * sizeof(float));
    if (buf == NULL) {
        __atomic_store_n(&f->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *x = buf, *dy = buf + L, *g = buf + 2 * L, *t = buf + 3 * L;
    for (int64_t k = begin; k < end; k++) {
        load_range(f->x, k * L, L, x);
        load_range(f->dy, k * L, L, dy);
        float mean = load1(f->mean, k), rstd = load1(f->rstd, k);
        int64_t a0 = (k % p->gps) * p->cpg;
        for (int64_t j = 0; j < L; j++) {
            x[j] = (x[j] - mean) * rstd; /* xhat */
            g[j] = dy[j] * f->w[a0 + j / p->inner];
        }
        if (f->dx) {
            float s1 = aclStubSumF32(g, L) / (float)L;
            for (int64_t j = 0; j < L; j++) t[j] = g[j] * x[j];
            float s2 = aclStubSumF32(t, L) / (float)L;
            for (int64_t j = 0; j < L; j++) t[j] = rstd * ((g[j] - s1) - x[j] * s2);
            store_range(f->dx, k * L, L, t);
        }
        if (f->dyx)
            for (int64_t j = 0; j < L; j++) f->dyx[k * L + j] = dy[j] * x[j];
        if (f->dys) memcpy(f->dys + k * L, dy, (size_t)L * sizeof(float));
    }
    free(buf);
}

/* ---- BatchNorm ------------------------------------------------------------------------------------------------ */

/* rows of `inner` elements (row = sample * channels + channel): forward y = ((x - mean) * invstd) * w + b;
 * backward dx = dy * (w * invstd) (eval) or (w * invstd) * ((dy - k1) - xhat * k2) with x holding xhat (training) */
typedef struct {
    const Plan *p;
    const float *x, *dy;
    const float *mean, *invstd, *w, *b, *k1, *k2;
    const aclStubTensorDesc *out;
    int failed;
} BatchRows;

static void batch_rows(void *arg, int64_t begin, int64_t end) {
    BatchRows *r = arg;
    const Plan *p = r->p;
    int64_t n = p->inner;
    float *t = malloc((size_t)(n + 1) * sizeof(float));
    if (t == NULL) {
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t row = begin; row < end; row++) {
        int64_t c = row % p->channels;
        const float *x = r->x + row * n, *dy = r->dy ? r->dy + row * n : NULL;
        float is = r->invstd[c], w = r->w[c];
        if (dy == NULL) {
            float m = r->mean[c], b = r->b[c];
            for (int64_t k = 0; k < n; k++) t[k] = ((x[k] - m) * is) * w + b;
        } else if (r->k1 == NULL) {
            for (int64_t k = 0; k < n; k++) t[k] = dy[k] * (w * is);
        } else {
            float k1 = r->k1[c], k2 = r->k2[c];
            for (int64_t k = 0; k < n; k++) t[k] = (w * is) * ((dy[k] - k1) - x[k] * k2);
        }
        store_range(r->out, row * n, n, t);
    }
    free(t);
}

/* x = (x - mean) * invstd in place, per row */
typedef struct {
    const Plan *p;
    float *x;
    const float *mean, *invstd;
} Normalise;
static void normalise_rows(void *arg, int64_t begin, int64_t end) {
    Normalise *z = arg;
    int64_t n = z->p->inner;
    for (int64_t row = begin; row < end; row++) {
        int64_t c = row % z->p->channels;
        float m = z->mean[c], is = z->invstd[c], *x = z->x + row * n;
        for (int64_t k = 0; k < n; k++) x[k] = (x[k] - m) * is;
    }
}

/* ---- parameter indices -------------------------------------------------------------------------------------- */

enum { LN_INPUT, LN_SHAPE, LN_WEIGHT, LN_BIAS, LN_EPS, LN_OUT, LN_MEAN, LN_RSTD, LN_IMPL };
enum { LB_DY, LB_INPUT, LB_SHAPE, LB_MEAN, LB_RSTD, LB_WEIGHT, LB_BIAS, LB_MASK, LB_DX, LB_DW, LB_DB };
enum { GN_SELF, GN_GAMMA, GN_BETA, GN_N, GN_C, GN_HXW, GN_GROUP, GN_EPS, GN_OUT, GN_MEAN, GN_RSTD };
/* GroupNormSilu; V2 has activateSilu at GS_OUT and its outputs one further (GS_ACTIVATE: V1's parameter count) */
enum { GS_SELF, GS_GAMMA, GS_BETA, GS_GROUP, GS_EPS, GS_OUT, GS_MEAN, GS_RSTD, GS_ACTIVATE };
enum { GW_X, GW_GAMMA, GW_BETA, GW_GROUPS, GW_FORMAT, GW_EPS, GW_ACTIVATE, GW_SCALE, GW_Y, GW_MEAN, GW_RSTD };
enum { GB_DY, GB_INPUT, GB_MEAN, GB_RSTD, GB_GAMMA, GB_N, GB_C, GB_HXW, GB_GROUP, GB_MASK, GB_DX, GB_DW, GB_DB };
enum { IN_X, IN_GAMMA, IN_BETA, IN_FORMAT, IN_EPS, IN_Y, IN_MEAN, IN_VAR };
enum { BN_INPUT, BN_WEIGHT, BN_BIAS, BN_RMEAN, BN_RVAR, BN_TRAINING, BN_MOMENTUM, BN_EPS, BN_OUT, BN_SMEAN, BN_SINV };
enum { BB_DY, BB_INPUT, BB_WEIGHT, BB_RMEAN, BB_RVAR, BB_SMEAN, BB_SINV, BB_TRAINING, BB_EPS, BB_MASK, BB_DX, BB_DW,
       BB_DB };

/* BatchNormBackward's gradInput; aclnnFastBatchNormBackward has an int version before it */
static int bb_dx(const aclStubOpCall *c) { return c->op->num_params > BB_DB + 1 ? BB_DX + 1 : BB_DX; }

/* ---- kernels ------------------------------------------------------------------------------------------------- */

static aclnnStatus grouped_kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    int x, w, b, y, mean, rstd;
    if (p->kind == K_LAYER) x = LN_INPUT, w = LN_WEIGHT, b = LN_BIAS, y = LN_OUT, mean = LN_MEAN, rstd = LN_RSTD;
    else if (p->kind == K_GROUP) x = GN_SELF, w = GN_GAMMA, b = GN_BETA, y = GN_OUT, mean = GN_MEAN, rstd = GN_RSTD;
    else if (p->kind == K_GROUP_SILU && c->op->num_params == GW_RSTD + 1) /* GroupNormSwish */
        x = GW_X, w = GW_GAMMA, b = GW_BETA, y = GW_Y, mean = GW_MEAN, rstd = GW_RSTD;
    else if (p->kind == K_GROUP_SILU) {
        int v2 = c->op->num_params > GS_ACTIVATE; /* V2 has activateSilu before its outputs */
        x = GS_SELF, w = GS_GAMMA, b = GS_BETA, y = GS_OUT + v2, mean = GS_MEAN + v2, rstd = GS_RSTD + v2;
    }
    else x = IN_X, w = IN_GAMMA, b = IN_BETA, y = IN_Y, mean = IN_MEAN, rstd = IN_VAR;
    int64_t na = p->gps * p->cpg;
    float *vec = aclStubKernelScratch(c, (size_t)(2 * na + 1) * sizeof(float));
    if (vec == NULL) return aclStubKernelOutOfMemory(c);
    load_vec(vec, T(c, w), na, 1.0f);
    load_vec(vec + na, T(c, b), na, 0.0f);
    aclStubTensorDesc xv, yv;
    const aclStubTensorDesc *xs = T(c, x), *ys = T(c, y);
    if (p->nhwc) { /* NHWC read and written through NCHW views */
        static const int perm[4] = {0, 3, 1, 2};
        xv = *xs, yv = *ys;
        for (int d = 0; d < 4; d++) {
            xv.dims[d] = xs->dims[perm[d]], xv.strides[d] = xs->strides[perm[d]];
            yv.dims[d] = ys->dims[perm[d]], yv.strides[d] = ys->strides[perm[d]];
        }
        xs = &xv, ys = &yv;
    }
    GroupFwd f = {p, xs, ys, T(c, mean), T(c, rstd), vec, vec + na, 0};
    aclStubParallelFor(p->groups, p->len > 0 ? 1 + 65536 / p->len : 1, group_forward, &f);
    return f.failed ? aclStubKernelOutOfMemory(c) : OK;
}

static aclnnStatus grouped_grad_kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    bool layer = p->kind == K_LAYER_GRAD;
    int dy = layer ? LB_DY : GB_DY, x = layer ? LB_INPUT : GB_INPUT, mean = layer ? LB_MEAN : GB_MEAN;
    int rstd = layer ? LB_RSTD : GB_RSTD, w = layer ? LB_WEIGHT : GB_GAMMA, dx = layer ? LB_DX : GB_DX;
    int dw = layer ? LB_DW : GB_DW, db = layer ? LB_DB : GB_DB;
    int64_t na = p->gps * p->cpg, total = p->groups * p->len;
    size_t floats = (size_t)na * 3 + 1 + (p->mask[1] ? (size_t)total : 0) + (p->mask[2] ? (size_t)total : 0);
    float *vec = aclStubKernelScratch(c, floats * sizeof(float));
    if (vec == NULL) return aclStubKernelOutOfMemory(c);
    float *wv = vec, *sw = vec + na, *sb = vec + 2 * na, *more = vec + 3 * na;
    load_vec(wv, T(c, w), na, 1.0f);
    GroupBwd f = {p, T(c, dy), T(c, x), T(c, mean), T(c, rstd), p->mask[0] ? T(c, dx) : NULL, wv, NULL, NULL, 0};
    if (p->mask[1]) f.dyx = more, more += total;
    if (p->mask[2]) f.dys = more;
    aclStubParallelFor(p->groups, p->len > 0 ? 1 + 65536 / p->len : 1, group_backward, &f);
    if (f.failed) return aclStubKernelOutOfMemory(c);
    if (p->mask[1]) {
        if (!run_channel_sums(p, f.dyx, NULL, NULL, sw)) return aclStubKernelOutOfMemory(c);
        for (int64_t a = 0; a < na; a++) store1(T(c, dw), a, sw[a]);
    }
    if (p->mask[2]) {
        if (!run_channel_sums(p, f.dys, NULL, NULL, sb)) return aclStubKernelOutOfMemory(c);
        for (int64_t a = 0; a < na; a++) store1(T(c, db), a, sb[a]);
    }
    return OK;
}

static aclnnStatus batch_kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    int64_t C = p->channels, total = p->samples * C * p->inner, count = p->samples * p->inner;
    float *x = aclStubKernelScratch(c, ((size_t)total + 8 * (size_t)C + 1) * sizeof(float));
    if (x == NULL) return aclStubKernelOutOfMemory(c);
    float *mean = x + total, *var = mean + C, *invstd = var + C, *w = invstd + C, *b = w + C;
    stage(T(c, BN_INPUT), x, total);
    load_vec(w, T(c, BN_WEIGHT), C, 1.0f);
    load_vec(b, T(c, BN_BIAS), C, 0.0f);
    if (p->training) {
        if (!run_channel_sums(p, x, NULL, NULL, mean)) return aclStubKernelOutOfMemory(c);
        for (int64_t k = 0; k < C; k++) mean[k] /= (float)count;
        if (!run_channel_sums(p, x, NULL, mean, var)) return aclStubKernelOutOfMemory(c);
        for (int64_t k = 0; k < C; k++) var[k] /= (float)count;
    } else {
        load_vec(mean, T(c, BN_RMEAN), C, 0.0f);
        load_vec(var, T(c, BN_RVAR), C, 1.0f);
    }
    for (int64_t k = 0; k < C; k++) invstd[k] = 1.0f / sqrtf(var[k] + p->eps);
    BatchRows r = {p, x, NULL, mean, invstd, w, b, NULL, NULL, T(c, BN_OUT), 0};
    aclStubParallelFor(p->samples * C, p->inner > 0 ? 1 + 65536 / p->inner : 1, batch_rows, &r);
    if (r.failed) return aclStubKernelOutOfMemory(c);
    if (p->training) {
        const aclStubTensorDesc *rm = T(c, BN_RMEAN), *rv = T(c, BN_RVAR);
        float mom = p->momentum, unbias = (float)count / (float)(count - 1);
        for (int64_t k = 0; k < C; k++) {
            store1(T(c, BN_SMEAN), k, mean[k]);
            store1(T(c, BN_SINV), k, invstd[k]);
            if (rm) store1(rm, k, (1.0f - mom) * load1(rm, k) + mom * mean[k]);
            if (rv) store1(rv, k, (1.0f - mom) * load1(rv, k) + mom * (var[k] * unbias));
        }
    }
    return OK;
}

static aclnnStatus batch_grad_kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    int64_t C = p->channels, total = p->samples * C * p->inner, count = p->samples * p->inner;
    int64_t rows = p->samples * C, chunk = p->inner > 0 ? 1 + 65536 / p->inner : 1;
    float *x = aclStubKernelScratch(c, (2 * (size_t)total + 7 * (size_t)C + 1) * sizeof(float));
    if (x == NULL) return aclStubKernelOutOfMemory(c);
    float *dy = x + total, *mean = dy + total, *invstd = mean + C, *w = invstd + C, *sdy = w + C, *sdyx = sdy + C;
    float *k1 = sdyx + C, *k2 = k1 + C;
    stage(T(c, BB_INPUT), x, total);
    stage(T(c, BB_DY), dy, total);
    load_vec(w, T(c, BB_WEIGHT), C, 1.0f);
    if (p->training) {
        load_vec(mean, T(c, BB_SMEAN), C, 0.0f);
        load_vec(invstd, T(c, BB_SINV), C, 1.0f);
    } else {
        load_vec(mean, T(c, BB_RMEAN), C, 0.0f);
        load_vec(invstd, T(c, BB_RVAR), C, 1.0f);
        for (int64_t k = 0; k < C; k++) invstd[k] = 1.0f / sqrtf(invstd[k] + p->eps);
    }
    Normalise z = {p, x, mean, invstd};
    aclStubParallelFor(rows, chunk, normalise_rows, &z); /* x now holds xhat */
    if (p->mask[1] || p->mask[2] || (p->mask[0] && p->training)) {
        if (!run_channel_sums(p, dy, NULL, NULL, sdy) || !run_channel_sums(p, dy, x, NULL, sdyx))
            return aclStubKernelOutOfMemory(c);
    }
    if (p->mask[0]) {
        BatchRows r = {p, x, dy, mean, invstd, w, NULL, NULL, NULL, T(c, bb_dx(c)), 0};
        if (p->training) {
            for (int64_t k = 0; k < C; k++) k1[k] = sdy[k] / (float)count, k2[k] = sdyx[k] / (float)count;
            r.k1 = k1, r.k2 = k2;
        }
        aclStubParallelFor(rows, chunk, batch_rows, &r);
        if (r.failed) return aclStubKernelOutOfMemory(c);
    }
    for (int j = 1; j < 3; j++) {
        const aclStubTensorDesc *g = p->mask[j] ? T(c, bb_dx(c) + j) : NULL;
        int64_t n = g ? aclStubNumel(g) : 0;
        for (int64_t k = 0; k < C && k < n; k++) store1(g, k, j == 1 ? sdyx[k] : sdy[k]);
    }
    return OK;
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    if (p->fill_only) {
        for (int k = 0; k < p->num_fills; k++) ACLSTUB_TRY(aclStubFill(c, T(c, p->fill[k].param), p->fill[k].value));
        return OK;
    }
    switch (p->kind) {
    case K_LAYER: case K_GROUP: case K_INSTANCE: case K_GROUP_SILU: return grouped_kernel(c);
    case K_LAYER_GRAD: case K_GROUP_GRAD: return grouped_grad_kernel(c);
    case K_BATCH: return batch_kernel(c);
    default: return batch_grad_kernel(c);
    }
}

/* ---- check helpers ---------------------------------------------------------------------------------------------- */

static aclnnStatus dtype_same(const aclStubOpCall *c, int i, int j) {
    const aclStubTensorDesc *a = T(c, i), *b = T(c, j);
    if (a == NULL || b == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(a->dtype != b->dtype, (aclStubOpCall *)c, INVALID, "%s has data type %s and %s has %s; "
                            "they must be the same", NAME(c, i), aclStubDtypeName(a->dtype), NAME(c, j),
                            aclStubDtypeName(b->dtype));
    return OK;
}

/* a 1-D vector of n elements (NULL passes) */
static aclnnStatus vector_of(aclStubOpCall *c, int i, int64_t n, const char *what) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(t->ndim != 1 || t->dims[0] != n, c, INVALID, "%s must be a 1-D tensor of %lld elements "
                            "(%s), got %u dimensions", NAME(c, i), (long long)n, what, t->ndim);
    return OK;
}

static aclnnStatus numel_is(aclStubOpCall *c, int i, int64_t n, const char *what) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(t) != n, c, INVALID, "%s has %lld elements; expected %s = %lld", NAME(c, i),
                            (long long)aclStubNumel(t), what, (long long)n);
    return OK;
}

static aclnnStatus same_shape(aclStubOpCall *c, int i, int ref) {
    const aclStubTensorDesc *t = T(c, i), *r = T(c, ref);
    if (t == NULL || r == NULL) return OK;
    return aclStubCheckShape(c, i, r->dims, r->ndim);
}

static aclnnStatus min_dim(aclStubOpCall *c, int i, uint32_t n) {
    const aclStubTensorDesc *t = T(c, i);
    if (t == NULL) return OK;
    ACLSTUB_RETURN_ERROR_IF(t->ndim < n, c, INVALID, "%s has %u dimensions; expected at least %u", NAME(c, i), t->ndim,
                            n);
    return OK;
}

static aclnnStatus check_all_dtypes_in(aclStubOpCall *c, const int *idx, int n, uint64_t set) {
    for (int k = 0; k < n; k++) ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, idx[k], set));
    return OK;
}

static bool mask_at(const aclStubOpCall *c, int i, uint64_t k) { return c->v[i].bools && k < c->v[i].size && c->v[i].bools[k]; }

static aclnnStatus fill_if(aclStubOpCall *c, int i, double v);
static aclnnStatus finish_fills(aclStubOpCall *c) {
    return ((Plan *)c->plan)->fill_only ? OK : aclStubOpNothingToDo(c);
}

/* ---- LayerNorm, LayerNormWithImplMode, FastLayerNorm ------------------------------------------------------------- */

static aclnnStatus layer_norm_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    const aclStubTensorDesc *in = T(c, LN_INPUT), *w = T(c, LN_WEIGHT), *b = T(c, LN_BIAS);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, LN_INPUT, FLOATS));
    if (w) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, LN_WEIGHT, FLOATS));
        if (w->dtype != ACL_FLOAT) ACLSTUB_TRY(dtype_same(c, LN_WEIGHT, LN_INPUT));
    }
    if (b) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, LN_BIAS, FLOATS));
        if (b->dtype != ACL_FLOAT) ACLSTUB_TRY(dtype_same(c, LN_BIAS, LN_INPUT));
    }
    ACLSTUB_TRY(dtype_same(c, LN_WEIGHT, LN_BIAS));
    static const int outs[] = {LN_OUT, LN_MEAN, LN_RSTD};
    ACLSTUB_TRY(check_all_dtypes_in(c, outs, 3, FLOATS));
    static const int all[] = {LN_INPUT, LN_OUT, LN_WEIGHT, LN_BIAS, LN_MEAN, LN_RSTD};
    for (int k = 0; k < 6; k++) ACLSTUB_TRY(aclStubCheckMaxDim(c, all[k], MAX_DIMS));
    uint64_t ns = c->v[LN_SHAPE].size;
    const int64_t *norm = c->v[LN_SHAPE].ints;
    ACLSTUB_RETURN_ERROR_IF(ns > MAX_DIMS, c, INVALID, "normalizedShape has %llu entries; at most %d",
                            (unsigned long long)ns, MAX_DIMS);
    ACLSTUB_RETURN_ERROR_IF(ns < 1, c, INVALID, "normalizedShape must have at least 1 entry");
    ACLSTUB_TRY(min_dim(c, LN_INPUT, (uint32_t)ns));
    ACLSTUB_RETURN_ERROR_IF(w && w->ndim != ns, c, INVALID, "weightOptional has %u dimensions; expected %llu (the "
                            "length of normalizedShape)", w->ndim, (unsigned long long)ns);
    ACLSTUB_RETURN_ERROR_IF(b && b->ndim != ns, c, INVALID, "biasOptional has %u dimensions; expected %llu (the "
                            "length of normalizedShape)", b->ndim, (unsigned long long)ns);
    uint32_t axis = in->ndim - (uint32_t)ns;
    for (uint32_t i = 0; i < ns; i++) {
        ACLSTUB_RETURN_ERROR_IF(norm[i] != in->dims[axis + i], c, INVALID, "normalizedShape[%u] = %lld must equal "
                                "input's dimension %u (%lld)", i, (long long)norm[i], axis + i,
                                (long long)in->dims[axis + i]);
        ACLSTUB_RETURN_ERROR_IF(w && w->dims[i] != norm[i], c, INVALID, "weightOptional.shape[%u] = %lld must equal "
                                "normalizedShape[%u] = %lld", i, (long long)w->dims[i], i, (long long)norm[i]);
        ACLSTUB_RETURN_ERROR_IF(b && b->dims[i] != norm[i], c, INVALID, "biasOptional.shape[%u] = %lld must equal "
                                "normalizedShape[%u] = %lld", i, (long long)b->dims[i], i, (long long)norm[i]);
    }
    ACLSTUB_TRY(same_shape(c, LN_OUT, LN_INPUT));
    /* mean and rstd: input's shape with the normalised dimensions 1 (an empty one is left alone) */
    for (int k = LN_MEAN; k <= LN_RSTD; k++) {
        const aclStubTensorDesc *t = T(c, k);
        if (t == NULL || aclStubNumel(t) == 0) continue;
        ACLSTUB_RETURN_ERROR_IF(t->ndim != in->ndim, c, INVALID, "%s has %u dimensions; expected input's %u",
                                NAME(c, k), t->ndim, in->ndim);
        for (uint32_t d = 0; d < in->ndim; d++) {
            int64_t want = d < axis ? in->dims[d] : 1;
            ACLSTUB_RETURN_ERROR_IF(t->dims[d] != want, c, INVALID, "%s.shape[%u] = %lld; expected %lld (input's "
                                    "shape with the normalised dimensions 1)", NAME(c, k), d, (long long)t->dims[d],
                                    (long long)want);
        }
    }
    if (T(c, LN_MEAN) && T(c, LN_RSTD) && aclStubNumel(T(c, LN_MEAN)) != 0 && aclStubNumel(T(c, LN_RSTD)) != 0)
        ACLSTUB_TRY(same_shape(c, LN_RSTD, LN_MEAN));
    if (c->op->num_params > LN_IMPL) {
        int64_t mode = c->v[LN_IMPL].i;
        ACLSTUB_RETURN_ERROR_IF(mode < 0 || mode > 2, c, INVALID, "implMode must be in [0, 1, 2], got %lld",
                                (long long)mode);
        ACLSTUB_RETURN_ERROR_IF(mode == 2 && (in->dtype != ACL_FLOAT16 || (w && w->dtype != ACL_FLOAT16) ||
                                (b && b->dtype != ACL_FLOAT16)), c, INVALID, "implMode 2 (KEEP_FP16) needs FLOAT16 "
                                "input, weight and bias");
    }
    int64_t M = 1, N = 1;
    for (uint32_t d = 0; d < in->ndim; d++) *(d < axis ? &M : &N) *= in->dims[d];
    *p = (Plan){.kind = K_LAYER, .groups = M, .len = N, .samples = M, .channels = N, .inner = 1, .gps = 1, .cpg = N,
                .eps = (float)c->v[LN_EPS].f};
    if (M == 0) return aclStubOpNothingToDo(c);
    if (N == 0) { /* the op_api fills mean with 0 and rstd with NaN */
        ACLSTUB_TRY(fill_if(c, LN_MEAN, 0.0));
        ACLSTUB_TRY(fill_if(c, LN_RSTD, NAN));
        return finish_fills(c);
    }
    return OK;
}

static aclnnStatus layer_norm_grad_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    const aclStubTensorDesc *in = T(c, LB_INPUT), *w = T(c, LB_WEIGHT);
    ACLSTUB_RETURN_ERROR_IF(c->v[LB_MASK].size != 3, c, INVALID, "outputMask must have 3 entries, got %llu",
                            (unsigned long long)c->v[LB_MASK].size);
    for (int k = 0; k < 3; k++) {
        p->mask[k] = mask_at(c, LB_MASK, (uint64_t)k);
        ACLSTUB_RETURN_ERROR_IF(p->mask[k] && T(c, LB_DX + k) == NULL, c, NULLPTR, "%s must not be NULL when "
                                "outputMask[%d] is true", NAME(c, LB_DX + k), k);
        if (!p->mask[k]) aclStubOpIgnore(c, LB_DX + k);
    }
    uint64_t ns = c->v[LB_SHAPE].size;
    const int64_t *norm = c->v[LB_SHAPE].ints;
    int64_t axis = (int64_t)in->ndim - (int64_t)ns, M = 1, N = 1;
    for (int64_t d = 0; d < (int64_t)in->ndim; d++) *(d < axis ? &M : &N) *= in->dims[d];
    static const int ins[] = {LB_DY, LB_INPUT, LB_MEAN, LB_RSTD};
    ACLSTUB_TRY(check_all_dtypes_in(c, ins, 4, FLOATS));
    ACLSTUB_TRY(dtype_same(c, LB_DY, LB_INPUT));
    if (w) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, LB_WEIGHT, FLOATS));
        if (w->dtype != ACL_FLOAT) ACLSTUB_TRY(dtype_same(c, LB_WEIGHT, LB_INPUT));
    }
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, LB_BIAS, FLOATS));
    static const int outs[] = {LB_DX, LB_DW, LB_DB};
    ACLSTUB_TRY(check_all_dtypes_in(c, outs, 3, FLOATS));
    static const int ranks[] = {LB_DY, LB_INPUT, LB_MEAN, LB_RSTD};
    for (int k = 0; k < 4; k++) ACLSTUB_TRY(aclStubCheckMaxDim(c, ranks[k], MAX_DIMS));
    ACLSTUB_RETURN_ERROR_IF(ns > MAX_DIMS, c, INVALID, "normalizedShape has %llu entries; at most %d",
                            (unsigned long long)ns, MAX_DIMS);
    for (int k = 0; k < 3; k++) ACLSTUB_TRY(aclStubCheckMaxDim(c, outs[k], MAX_DIMS));
    ACLSTUB_RETURN_ERROR_IF(ns < 1, c, INVALID, "normalizedShape must have at least 1 entry");
    ACLSTUB_TRY(min_dim(c, LB_INPUT, (uint32_t)ns));
    /* the op_api compares normalizedShape[i] with dimension i + axis for i from axis to ns - 1 */
    for (int k = 0; k < 3; k++) {
        int ti = k == 0 ? LB_INPUT : k == 1 ? LB_WEIGHT : LB_BIAS;
        const aclStubTensorDesc *t = T(c, ti);
        if (t == NULL) continue;
        if (k > 0) {
            ACLSTUB_TRY(aclStubCheckMaxDim(c, ti, MAX_DIMS));
            ACLSTUB_RETURN_ERROR_IF(t->ndim != ns, c, INVALID, "%s has %u dimensions; expected %llu (the length of "
                                    "normalizedShape)", NAME(c, ti), t->ndim, (unsigned long long)ns);
        }
        int64_t ax = (int64_t)t->ndim - (int64_t)ns;
        for (int64_t i = ax; i < (int64_t)ns; i++)
            ACLSTUB_RETURN_ERROR_IF(i >= 0 && i + ax < (int64_t)t->ndim && norm[i] != t->dims[i + ax], c, INVALID,
                                    "normalizedShape[%lld] = %lld must equal %s's dimension %lld (%lld)",
                                    (long long)i, (long long)norm[i], NAME(c, ti), (long long)(i + ax),
                                    (long long)t->dims[i + ax]);
    }
    ACLSTUB_TRY(same_shape(c, LB_DY, LB_INPUT));
    ACLSTUB_TRY(same_shape(c, LB_RSTD, LB_MEAN));
    ACLSTUB_TRY(numel_is(c, LB_MEAN, M, "the product of input's leading dimensions"));
    if (p->mask[0]) ACLSTUB_TRY(same_shape(c, LB_DX, LB_INPUT));
    if (p->mask[1]) ACLSTUB_TRY(numel_is(c, LB_DW, N, "the product of normalizedShape"));
    if (p->mask[2]) ACLSTUB_TRY(numel_is(c, LB_DB, N, "the product of normalizedShape"));
    /* weight: N elements (its shape was compared with normalizedShape's tail only) */
    ACLSTUB_TRY(numel_is(c, LB_WEIGHT, N, "the product of normalizedShape"));
    *p = (Plan){.kind = K_LAYER_GRAD, .groups = M, .len = N, .samples = M, .channels = N, .inner = 1, .gps = 1,
                .cpg = N, .mask = {p->mask[0], p->mask[1], p->mask[2]}};
    if (!p->mask[0] && !p->mask[1] && !p->mask[2]) return aclStubOpNothingToDo(c);
    if (M <= 0 || N <= 0) {
        if (M <= 0 && p->mask[1]) ACLSTUB_TRY(fill_if(c, LB_DW, 0.0));
        if (M <= 0 && p->mask[2]) ACLSTUB_TRY(fill_if(c, LB_DB, 0.0));
        return finish_fills(c);
    }
    return OK;
}

/* ---- GroupNorm, GroupNormBackward ------------------------------------------------------------------------------- */

static aclnnStatus group_attrs(aclStubOpCall *c, int64_t C, int64_t group) {
    ACLSTUB_RETURN_ERROR_IF(group <= 0, c, INVALID, "group must be greater than 0, got %lld", (long long)group);
    ACLSTUB_RETURN_ERROR_IF(C % group != 0, c, INVALID, "C (%lld) must be divisible by group (%lld)", (long long)C,
                            (long long)group);
    return OK;
}

static void group_plan(Plan *p, Kind kind, int64_t N, int64_t C, int64_t HxW, int64_t group) {
    *p = (Plan){.kind = kind, .groups = N * group, .len = C / group * HxW, .samples = N, .channels = C, .inner = HxW,
                .gps = group, .cpg = C / group};
}

static aclnnStatus group_norm_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    const aclStubTensorDesc *self = T(c, GN_SELF);
    int64_t N = c->v[GN_N].i, C = c->v[GN_C].i, HxW = c->v[GN_HXW].i, group = c->v[GN_GROUP].i;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, GN_SELF, FLOATS));
    static const int same[] = {GN_GAMMA, GN_BETA, GN_OUT, GN_MEAN, GN_RSTD};
    for (int k = 0; k < 5; k++) ACLSTUB_TRY(aclStubCheckDtypeIs(c, same[k], self->dtype));
    ACLSTUB_TRY(group_attrs(c, C, group));
    ACLSTUB_RETURN_ERROR_IF(!(c->v[GN_EPS].f > 0.0), c, INVALID, "eps must be greater than 0, got %g", c->v[GN_EPS].f);
    ACLSTUB_TRY(min_dim(c, GN_SELF, 2));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, GN_SELF, MAX_DIMS));
    ACLSTUB_TRY(same_shape(c, GN_OUT, GN_SELF));
    int64_t mv[2] = {N, group};
    ACLSTUB_TRY(aclStubCheckShape(c, GN_MEAN, mv, 2));
    ACLSTUB_TRY(aclStubCheckShape(c, GN_RSTD, mv, 2));
    ACLSTUB_RETURN_ERROR_IF(self->dims[0] != N, c, INVALID, "self.shape[0] (%lld) must equal N (%lld)",
                            (long long)self->dims[0], (long long)N);
    ACLSTUB_RETURN_ERROR_IF(self->dims[1] != C, c, INVALID, "self.shape[1] (%lld) must equal C (%lld)",
                            (long long)self->dims[1], (long long)C);
    int64_t rest = 1;
    for (uint32_t d = 2; d < self->ndim; d++) rest *= self->dims[d];
    ACLSTUB_RETURN_ERROR_IF(rest != HxW, c, INVALID, "the size of self outside N and C (%lld) must equal HxW (%lld)",
                            (long long)rest, (long long)HxW);
    ACLSTUB_TRY(vector_of(c, GN_GAMMA, C, "C"));
    ACLSTUB_TRY(vector_of(c, GN_BETA, C, "C"));
    const aclStubTensorDesc *out = T(c, GN_OUT);
    ACLSTUB_RETURN_ERROR_IF(self->format != out->format, c, INVALID, "self and out must have one format");
    ACLSTUB_RETURN_ERROR_IF(aclStubIsPrivateFormat(self->format) || self->format == ACL_FORMAT_NHWC ||
                            self->format == ACL_FORMAT_HWCN || self->format == ACL_FORMAT_NDHWC, c, INVALID,
                            "self's format must be ND, NCL, NCHW or NCDHW");
    group_plan(p, K_GROUP, N, C, HxW, group);
    p->eps = (float)c->v[GN_EPS].f;
    if (aclStubNumel(self) == 0) { /* the op_api fills mean with 0 and rstd with NaN */
        ACLSTUB_TRY(fill_if(c, GN_MEAN, 0.0));
        ACLSTUB_TRY(fill_if(c, GN_RSTD, NAN));
        return finish_fills(c);
    }
    return OK;
}

/* GroupNormSilu and V2: the op_api's rules (Atlas A2/A3): NULL self, out, meanOut, rstdOut; dtypes (gamma and beta
 * self's or FLOAT, one of them; mean and rstd self's); shapes; group > 0, N > 0, C > 0, eps > 0, C % group == 0 */
static aclnnStatus group_norm_silu_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    int v2 = c->op->num_params > GS_ACTIVATE, out = GS_OUT + v2, mean = GS_MEAN + v2, rstd = GS_RSTD + v2;
    const aclStubTensorDesc *self = T(c, GS_SELF), *g = T(c, GS_GAMMA), *b = T(c, GS_BETA);
    static const int fl[] = {GS_SELF, GS_GAMMA, GS_BETA};
    ACLSTUB_TRY(check_all_dtypes_in(c, fl, 3, FLOATS));
    if (g && b) {
        ACLSTUB_TRY(dtype_same(c, GS_GAMMA, GS_BETA));
        ACLSTUB_RETURN_ERROR_IF(g->dtype != self->dtype && g->dtype != ACL_FLOAT, c, INVALID,
                                "gamma's data type must be self's or FLOAT");
    }
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, out, self->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, mean, self->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, rstd, self->dtype));
    if (self->dtype == ACL_FLOAT) {
        ACLSTUB_TRY(aclStubCheckDtypeIs(c, GS_GAMMA, ACL_FLOAT));
        ACLSTUB_TRY(aclStubCheckDtypeIs(c, GS_BETA, ACL_FLOAT));
    }
    int64_t group = c->v[GS_GROUP].i;
    ACLSTUB_TRY(min_dim(c, GS_SELF, 2));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, GS_SELF, MAX_DIMS));
    ACLSTUB_TRY(same_shape(c, out, GS_SELF));
    int64_t N = self->dims[0], C = self->dims[1], mv[2] = {N, group};
    ACLSTUB_TRY(aclStubCheckShape(c, mean, mv, 2));
    ACLSTUB_TRY(aclStubCheckShape(c, rstd, mv, 2));
    ACLSTUB_TRY(vector_of(c, GS_GAMMA, C, "C"));
    ACLSTUB_TRY(vector_of(c, GS_BETA, C, "C"));
    ACLSTUB_RETURN_ERROR_IF(group <= 0, c, INVALID, "group must be greater than 0, got %lld", (long long)group);
    ACLSTUB_RETURN_ERROR_IF(N <= 0, c, INVALID, "N (self.shape[0]) must be greater than 0, got %lld", (long long)N);
    ACLSTUB_RETURN_ERROR_IF(C <= 0, c, INVALID, "C (self.shape[1]) must be greater than 0, got %lld", (long long)C);
    ACLSTUB_RETURN_ERROR_IF(!(c->v[GS_EPS].f > 0.0), c, INVALID, "eps must be greater than 0, got %g", c->v[GS_EPS].f);
    ACLSTUB_RETURN_ERROR_IF(C % group != 0, c, INVALID, "C (%lld) must be divisible by group (%lld)", (long long)C,
                            (long long)group);
    int64_t HxW = 1;
    for (uint32_t d = 2; d < self->ndim; d++) HxW *= self->dims[d];
    group_plan(p, K_GROUP_SILU, N, C, HxW, group);
    p->eps = (float)c->v[GS_EPS].f;
    p->silu = !v2 || c->v[GS_OUT].b; /* V2: activateSilu where V1 has out */
    p->swish = 1.0f;
    if (aclStubNumel(self) == 0) { /* the op_api fills mean with 0 and rstd with NaN */
        ACLSTUB_TRY(fill_if(c, mean, 0.0));
        ACLSTUB_TRY(fill_if(c, rstd, NAN));
        return finish_fills(c);
    }
    return OK;
}

/* GroupNormSwish (generated entry points): its document's dtype rules (161002: x FLOAT, FLOAT16 or BF16; gamma and
 * beta one dtype, x's or FLOAT; yOut x's; meanOut and rstdOut gamma's), then its shape rules as the tiling's
 * (ACLNN_ERR_INNER_TILING_ERROR): x 2-8 dimensions with N, C > 0 and C divisible by numGroups, gamma and beta [C],
 * yOut x's shape, meanOut and rstdOut [N, numGroups] */
static aclnnStatus group_norm_swish_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    const aclStubTensorDesc *x = T(c, GW_X), *g = T(c, GW_GAMMA);
    static const int fl[] = {GW_X, GW_GAMMA, GW_BETA};
    ACLSTUB_TRY(check_all_dtypes_in(c, fl, 3, FLOATS));
    ACLSTUB_TRY(dtype_same(c, GW_BETA, GW_GAMMA));
    ACLSTUB_RETURN_ERROR_IF(g->dtype != x->dtype && g->dtype != ACL_FLOAT, c, INVALID,
                            "gamma's data type must be x's or FLOAT");
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, GW_Y, x->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, GW_MEAN, g->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(c, GW_RSTD, g->dtype));
    const aclnnStatus TILING = ACLNN_ERR_INNER_TILING_ERROR;
    int64_t group = c->v[GW_GROUPS].i;
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2 || x->ndim > MAX_DIMS, c, TILING, "x has %u dimensions; must have 2 to 8",
                            x->ndim);
    int64_t N = x->dims[0], C = x->dims[1];
    ACLSTUB_RETURN_ERROR_IF(N <= 0 || C <= 0, c, TILING, "x's first two dimensions must be greater than 0");
    ACLSTUB_RETURN_ERROR_IF(group <= 0 || C % group != 0, c, TILING, "numGroups (%lld) must be positive and divide "
                            "C (%lld)", (long long)group, (long long)C);
    const aclStubTensorDesc *b = T(c, GW_BETA), *y = T(c, GW_Y), *m = T(c, GW_MEAN), *r = T(c, GW_RSTD);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(g) != C || aclStubNumel(b) != C, c, TILING, "gamma and beta must have C "
                            "(%lld) elements", (long long)C);
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(y->dims, y->ndim, x->dims, x->ndim), c, TILING,
                            "yOut must have x's shape");
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(m) != N * group || aclStubNumel(r) != N * group, c, TILING,
                            "meanOut and rstdOut must have N * numGroups (%lld) elements", (long long)(N * group));
    int64_t HxW = 1;
    for (uint32_t d = 2; d < x->ndim; d++) HxW *= x->dims[d];
    group_plan(p, K_GROUP_SILU, N, C, HxW, group);
    p->eps = (float)c->v[GW_EPS].f;
    p->silu = c->v[GW_ACTIVATE].b;
    p->swish = (float)c->v[GW_SCALE].f;
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus group_norm_grad_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    int64_t N = c->v[GB_N].i, C = c->v[GB_C].i, HxW = c->v[GB_HXW].i, group = c->v[GB_GROUP].i;
    ACLSTUB_RETURN_ERROR_IF(!c->v[GB_MASK].present, c, INVALID, "outputMask must not be NULL");
    ACLSTUB_RETURN_ERROR_IF(c->v[GB_MASK].size != 3, c, INVALID, "outputMask must have 3 entries, got %llu",
                            (unsigned long long)c->v[GB_MASK].size);
    bool mask[3];
    for (int k = 0; k < 3; k++) {
        mask[k] = mask_at(c, GB_MASK, (uint64_t)k);
        ACLSTUB_RETURN_ERROR_IF(mask[k] && T(c, GB_DX + k) == NULL, c, INVALID, "%s must not be NULL when "
                                "outputMask[%d] is true", NAME(c, GB_DX + k), k);
        if (!mask[k]) aclStubOpIgnore(c, GB_DX + k);
    }
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, GB_DY, FLOATS));
    aclDataType dt = T(c, GB_DY)->dtype;
    static const int same[] = {GB_INPUT, GB_MEAN, GB_RSTD, GB_GAMMA, GB_DX, GB_DW, GB_DB};
    for (int k = 0; k < 7; k++) ACLSTUB_TRY(aclStubCheckDtypeIs(c, same[k], dt));
    ACLSTUB_TRY(group_attrs(c, C, group));
    ACLSTUB_RETURN_ERROR_IF(C / group > 8000, c, INVALID, "C / group must be at most 8000, got %lld",
                            (long long)(C / group));
    ACLSTUB_RETURN_ERROR_IF(C > 240000, c, INVALID, "C must not exceed 240000, got %lld", (long long)C);
    ACLSTUB_TRY(aclStubCheckMaxDim(c, GB_DY, MAX_DIMS));
    ACLSTUB_TRY(numel_is(c, GB_DY, N * C * HxW, "N * C * HxW"));
    ACLSTUB_TRY(numel_is(c, GB_INPUT, N * C * HxW, "N * C * HxW"));
    ACLSTUB_TRY(numel_is(c, GB_MEAN, N * group, "N * group"));
    ACLSTUB_TRY(numel_is(c, GB_RSTD, N * group, "N * group"));
    ACLSTUB_TRY(numel_is(c, GB_GAMMA, C, "C"));
    const aclStubTensorDesc *g = T(c, GB_GAMMA);
    if (mask[0]) ACLSTUB_TRY(same_shape(c, GB_DX, GB_INPUT));
    int64_t cdim[1] = {C};
    for (int k = 1; k < 3; k++)
        if (mask[k]) ACLSTUB_TRY(g ? same_shape(c, GB_DX + k, GB_GAMMA) : aclStubCheckShape(c, GB_DX + k, cdim, 1));
    group_plan(p, K_GROUP_GRAD, N, C, HxW, group);
    for (int k = 0; k < 3; k++) p->mask[k] = mask[k];
    if (aclStubNumel(T(c, GB_DY)) == 0 || aclStubNumel(T(c, GB_INPUT)) == 0 || (!mask[0] && !mask[1] && !mask[2]))
        return aclStubOpNothingToDo(c);
    return OK;
}

/* ---- InstanceNorm ----------------------------------------------------------------------------------------------- */

static aclnnStatus instance_norm_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    const char *fmt = c->v[IN_FORMAT].s;
    ACLSTUB_RETURN_ERROR_IF(fmt == NULL, c, NULLPTR, "dataFormat must not be NULL");
    bool nhwc = strncmp(fmt, "NHWC", 4) == 0;
    ACLSTUB_RETURN_ERROR_IF(!nhwc && strncmp(fmt, "NCHW", 4) != 0, c, INVALID, "dataFormat must be \"NCHW\" or "
                            "\"NHWC\", got \"%s\"", fmt);
    const aclStubTensorDesc *x = T(c, IN_X);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, IN_X, DT(ACL_FLOAT) | DT(ACL_FLOAT16)));
    for (int k = IN_GAMMA; k <= IN_VAR; k++)
        if (k != IN_FORMAT && k != IN_EPS) ACLSTUB_TRY(aclStubCheckDtypeIs(c, k, x->dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, IN_X, MAX_DIMS));
    const aclStubTensorDesc *g = T(c, IN_GAMMA), *b = T(c, IN_BETA);
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 4 || g->ndim != 1 || b->ndim != 1, c, INVALID, "x must have 4 dimensions, "
                            "gamma and beta 1");
    int64_t C = nhwc ? x->dims[3] : x->dims[1];
    ACLSTUB_RETURN_ERROR_IF(g->dims[0] != C, c, INVALID, "gamma.shape[0] (%lld) must equal x's C axis (%lld)",
                            (long long)g->dims[0], (long long)C);
    for (int k = IN_GAMMA; k <= IN_VAR; k++)
        if (k != IN_FORMAT && k != IN_EPS && aclStubNumel(T(c, k)) == 0) return aclStubOpNothingToDo(c);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    /* not in the op_api (its kernel writes what the shapes imply): the stub never writes past an output */
    ACLSTUB_TRY(numel_is(c, IN_BETA, C, "C"));
    ACLSTUB_TRY(same_shape(c, IN_Y, IN_X));
    int64_t N = x->dims[0], HW = nhwc ? x->dims[1] * x->dims[2] : x->dims[2] * x->dims[3];
    ACLSTUB_TRY(numel_is(c, IN_MEAN, N * C, "N * C"));
    ACLSTUB_TRY(numel_is(c, IN_VAR, N * C, "N * C"));
    *p = (Plan){.kind = K_INSTANCE, .groups = N * C, .len = HW, .samples = N, .channels = C, .inner = HW, .gps = C,
                .cpg = 1, .eps = (float)c->v[IN_EPS].f, .nhwc = nhwc, .variance_out = true};
    return OK;
}

/* ---- BatchNorm, BatchNormBackward ----------------------------------------------------------------------------- */

static aclnnStatus batch_format(aclStubOpCall *c, int in, int out, bool out_present) {
    const aclStubTensorDesc *x = T(c, in), *y = T(c, out);
    if (out_present) {
        ACLSTUB_RETURN_ERROR_IF(x->format != y->format, c, INVALID, "%s and %s must have one format", NAME(c, in),
                                NAME(c, out));
    }
    ACLSTUB_RETURN_ERROR_IF(x->ndim == 5 && x->format != ACL_FORMAT_NCDHW, c, INVALID, "%s must be NCDHW when it has "
                            "5 dimensions", NAME(c, in));
    ACLSTUB_RETURN_ERROR_IF(out_present && y->ndim == 5 && y->format != ACL_FORMAT_NCDHW, c, INVALID, "%s must be "
                            "NCDHW when it has 5 dimensions", NAME(c, out));
    return OK;
}

static void batch_plan(Plan *p, Kind kind, const aclStubTensorDesc *x) {
    int64_t inner = 1;
    for (uint32_t d = 2; d < x->ndim; d++) inner *= x->dims[d];
    *p = (Plan){.kind = kind, .samples = x->dims[0], .channels = x->dims[1], .inner = inner};
}

static aclnnStatus batch_norm_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    bool training = c->v[BN_TRAINING].b;
    if (training) {
        ACLSTUB_RETURN_ERROR_IF(T(c, BN_SMEAN) == NULL, c, NULLPTR, "saveMean must not be NULL in training");
        ACLSTUB_RETURN_ERROR_IF(T(c, BN_SINV) == NULL, c, NULLPTR, "saveInvstd must not be NULL in training");
    }
    const aclStubTensorDesc *x = T(c, BN_INPUT);
    if (aclStubNumel(x) == 0) { /* the op_api fills saveMean with 0 and saveInvstd with NaN, checking nothing else */
        ACLSTUB_TRY(fill_if(c, BN_SMEAN, 0.0));
        ACLSTUB_TRY(fill_if(c, BN_SINV, NAN));
        return finish_fills(c);
    }
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, BN_INPUT, FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, BN_OUT, FLOATS));
    if (training) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, BN_SMEAN, FLOATS));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, BN_SINV, FLOATS));
    }
    static const int opt[] = {BN_WEIGHT, BN_BIAS, BN_RMEAN, BN_RVAR};
    ACLSTUB_TRY(check_all_dtypes_in(c, opt, 4, FLOATS));
    ACLSTUB_TRY(batch_format(c, BN_INPUT, BN_OUT, true));
    ACLSTUB_TRY(aclStubCheckFormat(c, BN_INPUT));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, BN_INPUT, MAX_DIMS));
    ACLSTUB_TRY(min_dim(c, BN_INPUT, 2));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, BN_OUT, MAX_DIMS));
    ACLSTUB_TRY(min_dim(c, BN_OUT, 2));
    ACLSTUB_TRY(same_shape(c, BN_OUT, BN_INPUT));
    int64_t C = x->dims[1];
    for (int k = 0; k < 4; k++) ACLSTUB_TRY(vector_of(c, opt[k], C, "the channels of input"));
    if (training) {
        ACLSTUB_TRY(aclStubCheckShape(c, BN_SMEAN, &C, 1));
        ACLSTUB_TRY(aclStubCheckShape(c, BN_SINV, &C, 1));
    } else {
        aclStubOpIgnore(c, BN_SMEAN);
        aclStubOpIgnore(c, BN_SINV);
    }
    batch_plan(p, K_BATCH, x);
    p->training = training;
    p->momentum = (float)c->v[BN_MOMENTUM].f;
    p->eps = (float)c->v[BN_EPS].f;
    return OK;
}

static aclnnStatus batch_norm_grad_check(aclStubOpCall *c) {
    Plan *p = c->plan;
    *p = (Plan){0};
    bool training = c->v[BB_TRAINING].b;
    if (aclStubNumel(T(c, BB_INPUT)) == 0 || aclStubNumel(T(c, BB_DY)) == 0) return aclStubOpNothingToDo(c);
    ACLSTUB_RETURN_ERROR_IF(!c->v[BB_MASK].present || c->v[BB_MASK].size < 1, c, NULLPTR, "outputMask must have at "
                            "least 1 entry");
    bool mask[3];
    for (int k = 0; k < 3; k++) {
        mask[k] = mask_at(c, BB_MASK, (uint64_t)k);
        ACLSTUB_RETURN_ERROR_IF(mask[k] && T(c, bb_dx(c) + k) == NULL, c, NULLPTR, "%s must not be NULL when "
                                "outputMask[%d] is true", NAME(c, bb_dx(c) + k), k);
        if (!mask[k]) aclStubOpIgnore(c, bb_dx(c) + k);
    }
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, BB_DY, FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, BB_INPUT, FLOATS));
    ACLSTUB_TRY(dtype_same(c, BB_INPUT, BB_DY));
    const int outs[] = {bb_dx(c), bb_dx(c) + 1, bb_dx(c) + 2};
    ACLSTUB_TRY(check_all_dtypes_in(c, outs, 3, FLOATS));
    static const int opt[] = {BB_WEIGHT, BB_RMEAN, BB_RVAR, BB_SMEAN, BB_SINV};
    ACLSTUB_TRY(check_all_dtypes_in(c, opt, 5, FLOATS));
    const aclStubTensorDesc *dy = T(c, BB_DY), *x = T(c, BB_INPUT);
    ACLSTUB_RETURN_ERROR_IF(dy->format != x->format, c, INVALID, "gradOut and input must have one format");
    if (mask[0]) ACLSTUB_RETURN_ERROR_IF(dy->format != T(c, bb_dx(c))->format, c, INVALID, "gradOut and gradInput must "
                                         "have one format");
    ACLSTUB_TRY(aclStubCheckFormat(c, BB_DY));
    ACLSTUB_TRY(aclStubCheckFormat(c, BB_INPUT));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, BB_INPUT, MAX_DIMS));
    ACLSTUB_TRY(min_dim(c, BB_INPUT, 2));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, BB_DY, MAX_DIMS));
    ACLSTUB_TRY(min_dim(c, BB_DY, 2));
    ACLSTUB_TRY(same_shape(c, BB_DY, BB_INPUT));
    if (mask[0]) {
        ACLSTUB_TRY(aclStubCheckMaxDim(c, bb_dx(c), MAX_DIMS));
        ACLSTUB_TRY(min_dim(c, bb_dx(c), 2));
        ACLSTUB_TRY(same_shape(c, bb_dx(c), BB_DY));
    }
    int64_t C = x->dims[1];
    for (int k = 0; k < 3; k++) ACLSTUB_TRY(vector_of(c, opt[k], C, "the channels of input"));
    /* the saved statistics' shapes: the op_api's rule of its other SoCs, which keeps every read within them (the
       weight and bias gradients are not checked on Atlas A2/A3: the kernel writes at most their element count) */
    if (training)
        for (int k = BB_SMEAN; k <= BB_SINV; k++) ACLSTUB_TRY(vector_of(c, k, C, "the channels of input"));
    const char *missing = training ? (T(c, BB_SMEAN) == NULL ? "saveMean" : T(c, BB_SINV) == NULL ? "saveInvstd" : NULL)
                                   : (T(c, BB_RMEAN) == NULL ? "runningMean" : T(c, BB_RVAR) == NULL ? "runningVar"
                                                                                                     : NULL);
    ACLSTUB_RETURN_ERROR_IF(missing != NULL, c, ACLNN_ERR_INNER_NULLPTR, "%s is needed when training is %s", missing,
                            training ? "true" : "false");
    if (training) aclStubOpIgnore(c, BB_RMEAN), aclStubOpIgnore(c, BB_RVAR);
    else aclStubOpIgnore(c, BB_SMEAN), aclStubOpIgnore(c, BB_SINV);
    batch_plan(p, K_BATCH_GRAD, x);
    p->training = training;
    p->eps = (float)c->v[BB_EPS].f;
    for (int k = 0; k < 3; k++) p->mask[k] = mask[k];
    if (!mask[0] && !mask[1] && !mask[2]) return aclStubOpNothingToDo(c);
    return OK;
}

/* The op_api's "ProcessEmptyTensorWithValue": outputs filled in phase 1 (the stub: by a kernel with nothing else to
 * do). The plan records which parameters to fill; an absent or empty tensor is skipped. */
static aclnnStatus fill_if(aclStubOpCall *c, int i, double v) {
    Plan *p = c->plan;
    *p = (Plan){0};
    if (T(c, i) == NULL || aclStubNumel(T(c, i)) == 0) return OK;
    p->fill_only = true;
    if (p->num_fills >= 2) return OK;
    p->fill[p->num_fills].param = i;
    p->fill[p->num_fills].value = v;
    p->num_fills++;
    return OK;
}

/* ---- the tables ------------------------------------------------------------------------------------------------- */

#define IN(n) {n, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OPT(n) {n, ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}
#define OUT(n) {n, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define OOUT(n) {n, ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(n, role) {n, role, 0, NULL, 0, 0, 0}
#define NULLABLE(n, role) {n, role, 0, NULL, ACLSTUB_NULLABLE, 0, 0}

static const aclStubParam P_LN[] = {IN("input"), ATTR("normalizedShape", ACLSTUB_INT_ARRAY), OPT("weightOptional"),
                                    OPT("biasOptional"), ATTR("eps", ACLSTUB_FLOAT), OUT("out"),
                                    OOUT("meanOutOptional"), OOUT("rstdOutOptional"), ATTR("implMode", ACLSTUB_INT)};
static const aclStubParam P_LB[] = {IN("gradOut"), IN("input"), ATTR("normalizedShape", ACLSTUB_INT_ARRAY), IN("mean"),
                                    IN("rstd"), OPT("weightOptional"), OPT("biasOptional"),
                                    ATTR("outputMask", ACLSTUB_BOOL_ARRAY), OOUT("gradInputOut"),
                                    OOUT("gradWeightOut"), OOUT("gradBiasOut")};
static const aclStubParam P_GN[] = {IN("self"), OPT("gamma"), OPT("beta"), ATTR("N", ACLSTUB_INT),
                                    ATTR("C", ACLSTUB_INT), ATTR("HxW", ACLSTUB_INT), ATTR("group", ACLSTUB_INT),
                                    ATTR("eps", ACLSTUB_FLOAT), OUT("out"), OUT("meanOut"), OUT("rstdOut")};
static const aclStubParam P_GS[] = {IN("self"), OPT("gamma"), OPT("beta"), ATTR("group", ACLSTUB_INT),
                                    ATTR("eps", ACLSTUB_FLOAT), OUT("out"), OUT("meanOut"), OUT("rstdOut")};
static const aclStubParam P_GS2[] = {IN("self"), OPT("gamma"), OPT("beta"), ATTR("group", ACLSTUB_INT),
                                     ATTR("eps", ACLSTUB_FLOAT), ATTR("activateSilu", ACLSTUB_BOOL), OUT("out"),
                                     OUT("meanOut"), OUT("rstdOut")};
static const aclStubParam P_GW[] = {IN("x"), IN("gamma"), IN("beta"), ATTR("numGroups", ACLSTUB_INT),
                                    NULLABLE("dataFormatOptional", ACLSTUB_STRING), ATTR("eps", ACLSTUB_FLOAT),
                                    ATTR("activateSwish", ACLSTUB_BOOL), ATTR("swishScale", ACLSTUB_FLOAT),
                                    OUT("yOut"), OUT("meanOut"), OUT("rstdOut")};
static const aclStubParam P_GB[] = {IN("gradOut"), IN("input"), IN("mean"), IN("rstd"), OPT("gamma"),
                                    ATTR("N", ACLSTUB_INT), ATTR("C", ACLSTUB_INT), ATTR("HxW", ACLSTUB_INT),
                                    ATTR("group", ACLSTUB_INT), NULLABLE("outputMask", ACLSTUB_BOOL_ARRAY),
                                    OOUT("gradInput"), OOUT("gradGammaOut"), OOUT("gradBetaOut")};
static const aclStubParam P_IN[] = {IN("x"), IN("gamma"), IN("beta"), NULLABLE("dataFormat", ACLSTUB_STRING),
                                    ATTR("eps", ACLSTUB_FLOAT), OUT("y"), OUT("mean"), OUT("variance")};
static const aclStubParam P_BN[] = {IN("input"), OPT("weight"), OPT("bias"), OPT("runningMean"), OPT("runningVar"),
                                    ATTR("training", ACLSTUB_BOOL), ATTR("momentum", ACLSTUB_FLOAT),
                                    ATTR("eps", ACLSTUB_FLOAT), OUT("output"), OOUT("saveMean"), OOUT("saveInvstd")};
static const aclStubParam P_FBB[] = {IN("gradOut"), IN("input"), OPT("weight"), OPT("runningMean"), OPT("runningVar"),
                                     OPT("saveMean"), OPT("saveInvstd"), ATTR("training", ACLSTUB_BOOL),
                                     ATTR("eps", ACLSTUB_FLOAT), NULLABLE("outputMask", ACLSTUB_BOOL_ARRAY),
                                     ATTR("version", ACLSTUB_INT), OOUT("gradInput"), OOUT("gradWeight"),
                                     OOUT("gradBias")};
static const aclStubParam P_BB[] = {IN("gradOut"), IN("input"), OPT("weight"), OPT("runningMean"), OPT("runningVar"),
                                    OPT("saveMean"), OPT("saveInvstd"), ATTR("training", ACLSTUB_BOOL),
                                    ATTR("eps", ACLSTUB_FLOAT), NULLABLE("outputMask", ACLSTUB_BOOL_ARRAY),
                                    OOUT("gradInput"), OOUT("gradWeight"), OOUT("gradBias")};

#define DEF(var, name, params, n, check) \
    static const aclStubOpDef var = {name, params, n, NULL, check, kernel, sizeof(Plan)}
DEF(D_LN, "aclnnLayerNorm", P_LN, LN_IMPL, layer_norm_check);
DEF(D_LN_IMPL, "aclnnLayerNormWithImplMode", P_LN, LN_IMPL + 1, layer_norm_check);
DEF(D_LN_FAST, "aclnnFastLayerNorm", P_LN, LN_IMPL, layer_norm_check);
DEF(D_LB, "aclnnLayerNormBackward", P_LB, ACLSTUB_LEN(P_LB), layer_norm_grad_check);
DEF(D_GN, "aclnnGroupNorm", P_GN, ACLSTUB_LEN(P_GN), group_norm_check);
DEF(D_GB, "aclnnGroupNormBackward", P_GB, ACLSTUB_LEN(P_GB), group_norm_grad_check);
DEF(D_GS, "aclnnGroupNormSilu", P_GS, ACLSTUB_LEN(P_GS), group_norm_silu_check);
DEF(D_GS2, "aclnnGroupNormSiluV2", P_GS2, ACLSTUB_LEN(P_GS2), group_norm_silu_check);
DEF(D_GW, "aclnnGroupNormSwish", P_GW, ACLSTUB_LEN(P_GW), group_norm_swish_check);
DEF(D_IN, "aclnnInstanceNorm", P_IN, ACLSTUB_LEN(P_IN), instance_norm_check);
DEF(D_BN, "aclnnBatchNorm", P_BN, ACLSTUB_LEN(P_BN), batch_norm_check);
DEF(D_BB, "aclnnBatchNormBackward", P_BB, ACLSTUB_LEN(P_BB), batch_norm_grad_check);
DEF(D_FBB, "aclnnFastBatchNormBackward", P_FBB, ACLSTUB_LEN(P_FBB), batch_norm_grad_check);

#define T_(n) (const aclTensor *, n)
#define M_(n) (aclTensor *, n)
#define LN_ARGS T_(input), (const aclIntArray *, normalizedShape), T_(weightOptional), T_(biasOptional), \
    (double, eps), M_(out), M_(meanOutOptional), M_(rstdOutOptional)
ACLSTUB_DEFINE_OP(aclnnLayerNorm, D_LN, LN_ARGS)
ACLSTUB_DEFINE_OP(aclnnLayerNormWithImplMode, D_LN_IMPL, LN_ARGS, (int32_t, implMode))
ACLSTUB_DEFINE_OP(aclnnFastLayerNorm, D_LN_FAST, LN_ARGS)
ACLSTUB_DEFINE_OP(aclnnLayerNormBackward, D_LB, T_(gradOut), T_(input), (const aclIntArray *, normalizedShape),
                  T_(mean), T_(rstd), T_(weightOptional), T_(biasOptional), (const aclBoolArray *, outputMask),
                  M_(gradInputOut), M_(gradWeightOut), M_(gradBiasOut))
ACLSTUB_DEFINE_OP(aclnnGroupNorm, D_GN, T_(self), T_(gamma), T_(beta), (int64_t, N), (int64_t, C), (int64_t, HxW),
                  (int64_t, group), (double, eps), M_(out), M_(meanOut), M_(rstdOut))
ACLSTUB_DEFINE_OP(aclnnGroupNormBackward, D_GB, T_(gradOut), T_(input), T_(mean), T_(rstd), T_(gamma), (int64_t, N),
                  (int64_t, C), (int64_t, HxW), (int64_t, group), (const aclBoolArray *, outputMask),
                  M_(gradInput), M_(gradGammaOut), M_(gradBetaOut))
ACLSTUB_DEFINE_OP(aclnnInstanceNorm, D_IN, T_(x), T_(gamma), T_(beta), (const char *, dataFormat), (double, eps),
                  M_(y), M_(mean), M_(variance))
ACLSTUB_DEFINE_OP(aclnnBatchNorm, D_BN, T_(input), T_(weight), T_(bias), M_(runningMean), M_(runningVar),
                  (bool, training), (double, momentum), (double, eps), M_(output), M_(saveMean), M_(saveInvstd))
ACLSTUB_DEFINE_OP(aclnnBatchNormBackward, D_BB, T_(gradOut), T_(input), T_(weight), T_(runningMean), T_(runningVar),
                  T_(saveMean), T_(saveInvstd), (bool, training), (double, eps), (const aclBoolArray *, outputMask),
                  M_(gradInput), M_(gradWeight), M_(gradBias))
ACLSTUB_DEFINE_OP(aclnnFastBatchNormBackward, D_FBB, T_(gradOut), T_(input), T_(weight), T_(runningMean),
                  T_(runningVar), T_(saveMean), T_(saveInvstd), (bool, training), (double, eps),
                  (const aclBoolArray *, outputMask), (int, version), M_(gradInput), M_(gradWeight), M_(gradBias))
ACLSTUB_DEFINE_OP(aclnnGroupNormSilu, D_GS, T_(self), T_(gamma), T_(beta), (int64_t, group), (double, eps), M_(out),
                  M_(meanOut), M_(rstdOut))
ACLSTUB_DEFINE_OP(aclnnGroupNormSiluV2, D_GS2, T_(self), T_(gamma), T_(beta), (int64_t, group), (double, eps),
                  (bool, activateSilu), M_(out), M_(meanOut), M_(rstdOut))
ACLSTUB_DEFINE_OP(aclnnGroupNormSwish, D_GW, T_(x), T_(gamma), T_(beta), (int64_t, numGroups),
                  (char *, dataFormatOptional), (double, eps), (bool, activateSwish), (double, swishScale), T_(yOut),
                  T_(meanOut), T_(rstdOut))
