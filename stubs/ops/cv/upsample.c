/*
 * Upsampling of ops-cv image/: nearest (floor), nearest-exact (half-pixel), linear, bilinear, bicubic and trilinear
 * interpolation over the last 1, 2 or 3 dimensions of an (N, C, spatial...) tensor (NHWC / NDHWC: channels last),
 * and their backward operators. One table row per operator (mode, spatial dimensions, parameter positions, dtypes)
 * drives one check and one kernel per direction.
 *
 * Every axis is resampled separately: a table per axis gives, for each output position, its input positions and
 * weights (1 tap for nearest, 2 for linear, 4 for cubic), computed once per call from the sizes, alignCorners and
 * the scales, as torch.nn.functional.interpolate defines them (the op_api's documented formulas):
 *   scale  = alignCorners ? (in - 1) / (out - 1) (0 when out == 1) : scales > 0 ? 1 / scales : in / out
 *   nearest: src = min(floor(o * scale), in - 1)          nearest-exact: min(floor((o + 0.5) * scale), in - 1)
 *   linear:  x = alignCorners ? o * scale : max((o + 0.5) * scale - 0.5, 0); taps floor(x), floor(x) + 1 (clamped)
 *   cubic:   x as linear without the clamp at 0; taps floor(x) - 1 .. floor(x) + 2 clamped, Keys' kernel, A = -0.75
 * The forward pass applies the axes innermost first (W, then H, then D), each output element a sum of its taps in
 * order; the backward pass adds every output gradient, times its weight, into its taps' positions, axis by axis.
 * FLOAT16, BF16 and UINT8 data compute in float32 and are rounded once (as the op_api's casts around the float
 * kernel do), DOUBLE in double. Work is split over (outer, output position) rows of each pass, never inside a sum,
 * so results do not depend on the thread count.
 */
#include <math.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define MAX_TAPS 4

typedef enum { NEAREST, NEAREST_EXACT, LINEAR, CUBIC } UpMode;

/* UpRow.flags */
#define UP_CHANNELS_LAST 1u  /* NHWC (2-D) / NDHWC (3-D) storage formats put the channels last */
#define UP_NCHW_FORMATS 2u   /* only NCHW and NHWC formats (and ND, read as NCHW) are accepted */
#define UP_NO_ND 2048u       /* with UP_NCHW_FORMATS: ND refused too */
#define UP_F64_NHWC_ONLY 4u  /* DOUBLE data only in NHWC format */
#define UP_NULL_INNER 8u     /* NULL tensors answer ACLNN_ERR_INNER_NULLPTR */
#define UP_SCALES_POSITIVE 16u /* negative scales are refused */
#define UP_NONEMPTY_C 32u    /* a zero among self's non-batch dimensions is refused */
#define UP_EMPTY_FIRST 128u  /* an empty self or output is a call with nothing to do, whatever the other shapes */
#define UP_PRIVATE_FORMATS 256u /* private (C0-blocked) formats are refused */
#define UP_SCALE_AGREES 1024u /* scale >= 0 must give outputSize: (int64)(in * scale) == out (1-D) */
#define UP_MAX_SCALE_500 512u /* an effective scale above 500 is refused (outputs below 10^6 elements, scales that
                                 agree with the sizes) */

typedef struct {
    UpMode mode;
    int k;          /* spatial dimensions */
    bool backward;
    int align;      /* parameter index of alignCorners, or -1 */
    int scales;     /* parameter index of the first scale (k of them), or -1 */
    int out;        /* parameter index of the output */
    uint64_t dtypes;
    unsigned flags;
} UpRow;

typedef struct {
    int64_t planes;                 /* N * C */
    int64_t in[3], out[3];          /* spatial sizes (of the forward direction), D H W order, missing ones 1 */
    double scales[3];
    bool align, channels_last;
} UpPlan;

/* ---- index and weight tables ---------------------------------------------------------------------------------- */

static int64_t clamp_index(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

static float cubic1(float x, float a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
static float cubic2(float x, float a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }
static double cubic1d(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
static double cubic2d(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

static int taps_of(UpMode mode) { return mode == CUBIC ? 4 : mode == LINEAR ? 2 : 1; }

/* The taps of one axis: idx[o * taps + t], w[o * taps + t] (weights as float or double, by `wide`). */
static void axis_table(UpMode mode, bool align, double scales, int64_t in, int64_t out, bool wide, int64_t *idx,
                       void *weights) {
    float *wf = weights;
    double *wd = weights;
    if (mode == NEAREST || mode == NEAREST_EXACT) {
        float scale = scales > 0 ? (float)(1.0 / scales) : (float)in / (float)out;
        for (int64_t o = 0; o < out; o++) {
            int64_t s;
            if (mode == NEAREST && out == in) s = o;
            else if (mode == NEAREST && out == 2 * in) s = o >> 1;
            else if (mode == NEAREST) s = (int64_t)floorf((float)o * scale);
            else s = (int64_t)floorf((float)(((double)o + 0.5) * scale));
            idx[o] = s < in - 1 ? s : in - 1;
            if (wide) wd[o] = 1.0; else wf[o] = 1.0f;
        }
        return;
    }
    if (wide) {
        double scale = align ? (out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0)
                             : scales > 0 ? 1.0 / scales : (double)in / (double)out;
        for (int64_t o = 0; o < out; o++) {
            double x = align ? scale * (double)o : scale * ((double)o + 0.5) - 0.5;
            if (mode == LINEAR && !align && x < 0) x = 0;
            int64_t i0 = (int64_t)floor(x);
            if (i0 > in - 1) i0 = in - 1;
            double l = x - (double)i0;
            l = l < 0 ? 0 : l > 1 ? 1 : l;
            if (mode == LINEAR) {
                idx[2 * o] = i0;
                idx[2 * o + 1] = i0 + (i0 < in - 1 ? 1 : 0);
                wd[2 * o] = 1.0 - l;
                wd[2 * o + 1] = l;
            } else {
                const double a = -0.75;
                wd[4 * o] = cubic2d(l + 1.0, a);
                wd[4 * o + 1] = cubic1d(l, a);
                wd[4 * o + 2] = cubic1d(1.0 - l, a);
                wd[4 * o + 3] = cubic2d(2.0 - l, a);
                for (int t = 0; t < 4; t++) idx[4 * o + t] = clamp_index(i0 - 1 + t, in);
            }
        }
        return;
    }
    float scale = align ? (out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f)
                        : scales > 0 ? (float)(1.0 / scales) : (float)in / (float)out;
    for (int64_t o = 0; o < out; o++) {
        float x = align ? scale * (float)o : scale * ((float)o + 0.5f) - 0.5f;
        if (mode == LINEAR && !align && x < 0) x = 0;
        int64_t i0 = (int64_t)floorf(x);
        if (i0 > in - 1) i0 = in - 1;
        float l = x - (float)i0;
        l = l < 0 ? 0 : l > 1 ? 1 : l;
        if (mode == LINEAR) {
            idx[2 * o] = i0;
            idx[2 * o + 1] = i0 + (i0 < in - 1 ? 1 : 0);
            wf[2 * o] = 1.0f - l;
            wf[2 * o + 1] = l;
        } else {
            const float a = -0.75f;
            wf[4 * o] = cubic2(l + 1.0f, a);
            wf[4 * o + 1] = cubic1(l, a);
            wf[4 * o + 2] = cubic1(1.0f - l, a);
            wf[4 * o + 3] = cubic2(2.0f - l, a);
            for (int t = 0; t < 4; t++) idx[4 * o + t] = clamp_index(i0 - 1 + t, in);
        }
    }
}

/* ---- one axis: (outer, len, inner) blocks ------------------------------------------------------------------------ */

typedef struct {
    const void *src;
    void *dst;
    const int64_t *idx;
    const void *w;
    int64_t len_in, len_out, inner;
    int taps;
    bool copy; /* nearest: one tap of weight 1 */
} AxisCtx;

/* Forward: dst[o, j, :] = sum_t w[j, t] * src[o, idx[j, t], :], one (o, j) row per item. */
#define AXIS_FWD(TYPE)                                                                                      \
    static void axis_fwd_##TYPE(void *arg, int64_t begin, int64_t end) {                                     \
        const AxisCtx *c = arg;                                                                              \
        const TYPE *src = c->src, *w = c->w;                                                                 \
        TYPE *dst = c->dst;                                                                                  \
        int64_t inner = c->inner;                                                                            \
        for (int64_t r = begin; r < end; r++) {                                                              \
            int64_t o = r / c->len_out, j = r % c->len_out;                                                  \
            TYPE *d = dst + r * inner;                                                                       \
            const TYPE *base = src + o * c->len_in * inner;                                                  \
            const int64_t *ix = c->idx + j * c->taps;                                                        \
            if (c->copy) {                                                                                   \
                memcpy(d, base + ix[0] * inner, (size_t)inner * sizeof(TYPE));                               \
                continue;                                                                                    \
            }                                                                                                \
            const TYPE *s0 = base + ix[0] * inner;                                                           \
            TYPE w0 = w[j * c->taps];                                                                        \
            for (int64_t i = 0; i < inner; i++) d[i] = s0[i] * w0;                                           \
            for (int t = 1; t < c->taps; t++) {                                                              \
                const TYPE *s = base + ix[t] * inner;                                                        \
                TYPE wt = w[j * c->taps + t];                                                                \
                for (int64_t i = 0; i < inner; i++) d[i] += s[i] * wt;                                       \
            }                                                                                                \
        }                                                                                                    \
    }
/* Backward: dst[o, idx[j, t], :] += w[j, t] * src[o, j, :] in increasing (j, t), one outer block per item. */
#define AXIS_BWD(TYPE)                                                                                      \
    static void axis_bwd_##TYPE(void *arg, int64_t begin, int64_t end) {                                     \
        const AxisCtx *c = arg;                                                                              \
        const TYPE *src = c->src, *w = c->w;                                                                 \
        TYPE *dst = c->dst;                                                                                  \
        int64_t inner = c->inner;                                                                            \
        for (int64_t o = begin; o < end; o++) {                                                              \
            TYPE *db = dst + o * c->len_in * inner;                                                          \
            memset(db, 0, (size_t)(c->len_in * inner) * sizeof(TYPE));                                       \
            const TYPE *sb = src + o * c->len_out * inner;                                                   \
            for (int64_t j = 0; j < c->len_out; j++) {                                                       \
                const TYPE *s = sb + j * inner;                                                              \
                for (int t = 0; t < c->taps; t++) {                                                          \
                    TYPE *d = db + c->idx[j * c->taps + t] * inner;                                          \
                    TYPE wt = w[j * c->taps + t];                                                            \
                    if (c->copy)                                                                             \
                        for (int64_t i = 0; i < inner; i++) d[i] += s[i];                                    \
                    else                                                                                     \
                        for (int64_t i = 0; i < inner; i++) d[i] += s[i] * wt;                               \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }
AXIS_FWD(float)
AXIS_FWD(double)
AXIS_BWD(float)
AXIS_BWD(double)

/* ---- the kernel ------------------------------------------------------------------------------------------------------ */

/* A (N, C, spatial...) view of t: channels-last layouts permuted (no data moves). */
static aclStubTensorDesc channels_first(const aclStubTensorDesc *t, bool channels_last) {
    aclStubTensorDesc v = *t;
    if (channels_last) {
        int64_t perm[ACLSTUB_MAX_DIMS];
        perm[0] = 0;
        perm[1] = t->ndim - 1;
        for (uint32_t d = 2; d < t->ndim; d++) perm[d] = d - 1;
        aclStubViewPermute(&v, perm);
    }
    return v;
}

static aclnnStatus up_kernel(const aclStubOpCall *call) {
    const UpRow *row = aclStubFamilyRow(call);
    const UpPlan *p = call->plan;
    bool wide = T(0)->dtype == ACL_DOUBLE;
    aclDataType cdt = wide ? ACL_DOUBLE : ACL_FLOAT;
    size_t es = wide ? sizeof(double) : sizeof(float);
    int taps = taps_of(row->mode);
    aclStubTensorDesc sv = channels_first(T(0), p->channels_last), ov = channels_first(T(row->out), p->channels_last);
    aclStubTensorDesc in, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, &sv, cdt, &in));
    ACLSTUB_TRY(aclStubOutputBegin(call, &ov, cdt, false, &buf));
    if (aclStubViewsOverlap(&in, &buf)) { /* the input shares memory with the output: read a copy */
        aclStubTensorDesc c = in;
        c.data = aclStubKernelScratch(call, (size_t)aclStubNumel(&in) * es);
        if (c.data == NULL) return aclStubKernelOutOfMemory(call);
        c.offset = 0;
        ACLSTUB_TRY(aclStubCopyView(call, &c, &in, ACL_DT_UNDEFINED));
        in = c;
    }
    /* sizes along the passes: the source side holds `from`, the destination `to` (forward: in -> out) */
    const int64_t *from = row->backward ? p->out : p->in, *to = row->backward ? p->in : p->out;
    int64_t cur[3] = {from[0], from[1], from[2]};
    const void *src = aclStubViewBase(&in);
    for (int a = 2; a >= 3 - row->k; a--) { /* W, then H, then D */
        int64_t n_in = p->in[a], n_out = p->out[a];
        int64_t *idx = aclStubKernelScratch(call, (size_t)(n_out * taps) * sizeof(int64_t));
        void *w = aclStubKernelScratch(call, (size_t)(n_out * taps) * es);
        if (idx == NULL || w == NULL) return aclStubKernelOutOfMemory(call);
        axis_table(row->mode, p->align, p->scales[a], n_in, n_out, wide, idx, w);
        int64_t outer = p->planes, inner = 1;
        for (int b = 0; b < a; b++) outer *= cur[b];
        for (int b = a + 1; b < 3; b++) inner *= cur[b];
        cur[a] = to[a];
        bool last = a == 3 - row->k;
        void *dst = last ? aclStubViewBase(&buf) : aclStubKernelScratch(call, (size_t)(outer * cur[a] * inner) * es);
        if (dst == NULL) return aclStubKernelOutOfMemory(call);
        AxisCtx c = {src, dst, idx, w, n_in, n_out, inner, taps, row->mode == NEAREST || row->mode == NEAREST_EXACT};
        if (!row->backward)
            aclStubParallelFor(outer * n_out, 16384 / (inner + 1) + 1, wide ? axis_fwd_double : axis_fwd_float, &c);
        else
            aclStubParallelFor(outer, 16384 / (n_out * inner + 1) + 1, wide ? axis_bwd_double : axis_bwd_float, &c);
        src = dst;
    }
    return aclStubOutputEnd(call, &ov, &buf);
}

/* ---- checks ----------------------------------------------------------------------------------------------------------- */

static bool is_channels_last(const UpRow *row, aclFormat f) {
    return (row->flags & UP_CHANNELS_LAST) &&
           ((row->k == 2 && f == ACL_FORMAT_NHWC) || (row->k == 3 && f == ACL_FORMAT_NDHWC));
}

/* Spatial dimension s (0 .. k-1) and channel dimension of a (N, C, spatial) or channels-last view. */
static int64_t spatial(const aclStubTensorDesc *t, bool cl, int s) { return t->dims[(cl ? 1 : 2) + s]; }
static int64_t channels(const aclStubTensorDesc *t, bool cl) { return t->dims[cl ? t->ndim - 1 : 1]; }

static aclnnStatus up_check(aclStubOpCall *call) {
    const UpRow *row = aclStubFamilyRow(call);
    UpPlan *p = call->plan;
    const aclStubTensorDesc *x = T(0), *y = T(row->out);
    const char *xname = call->op->params[0].name, *yname = call->op->params[row->out].name;
    const aclStubValue *osize = &call->v[1], *isize = row->backward ? &call->v[2] : NULL;
    int k = row->k;
    if (row->flags & UP_NULL_INNER)
        for (size_t i = 0; i < call->op->num_params; i++)
            if ((call->op->params[i].role == ACLSTUB_OPTIONAL_INPUT || call->op->params[i].role == ACLSTUB_OPTIONAL_OUTPUT) &&
                !call->v[i].present)
                return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL", call->op->params[i].name);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, xname, x, row->dtypes));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, yname, y, xname, x));
    if ((uint32_t)x->ndim != (uint32_t)k + 2)
        return aclStubOpFail(call, INVALID, "argument '%s' must have %d dimensions, got %u", xname, k + 2, x->ndim);
    if (y->ndim != x->ndim)
        return aclStubOpFail(call, INVALID, "argument '%s' must have %d dimensions, got %u", yname, k + 2, y->ndim);
    if (osize->size != (uint64_t)k)
        return aclStubOpFail(call, INVALID, "outputSize must have %d entries, got %llu", k,
                             (unsigned long long)osize->size);
    if (isize != NULL && isize->size != (uint64_t)k + 2)
        return aclStubOpFail(call, INVALID, "inputSize must have %d entries, got %llu", k + 2,
                             (unsigned long long)isize->size);
    if ((row->flags & UP_NCHW_FORMATS) && x->format != ACL_FORMAT_NCHW && x->format != ACL_FORMAT_NHWC &&
        (x->format != ACL_FORMAT_ND || (row->flags & UP_NO_ND)))
        return aclStubOpFail(call, INVALID, "format of '%s' must be NCHW or NHWC", xname);
    if ((row->flags & (UP_NCHW_FORMATS | UP_CHANNELS_LAST)) && x->format != y->format)
        return aclStubOpFail(call, INVALID, "format of '%s' and '%s' must be equal", xname, yname);
    if ((row->flags & UP_F64_NHWC_ONLY) && x->dtype == ACL_DOUBLE && x->format != ACL_FORMAT_NHWC)
        return aclStubOpFail(call, INVALID, "DOUBLE data is supported in NHWC format only");
    if (row->scales >= 0 && (row->flags & UP_SCALES_POSITIVE))
        for (int s = 0; s < k; s++)
            if (call->v[row->scales + s].f < 0)
                return aclStubOpFail(call, INVALID, "scales must not be negative, got %g", call->v[row->scales + s].f);
    if ((row->flags & UP_PRIVATE_FORMATS) && aclStubIsPrivateFormat(x->format))
        return aclStubOpFail(call, INVALID, "format of '%s' must not be a private format", xname);
    if ((row->flags & UP_EMPTY_FIRST) && (aclStubNumel(x) == 0 || aclStubNumel(y) == 0))
        return aclStubOpNothingToDo(call);
    bool nonempty = (row->flags & UP_NONEMPTY_C) != 0;
    for (uint32_t d = 1; nonempty && d < x->ndim; d++)
        if (x->dims[d] == 0)
            return aclStubOpFail(call, INVALID, "argument '%s' must not be empty at dimension %u", xname, d);
    bool cl = is_channels_last(row, x->format);
    /* the forward direction's shapes: input (N, C, in...) and output (N, C, outputSize) */
    const aclStubTensorDesc *fin = row->backward ? y : x, *fout = row->backward ? x : y;
    int64_t n = fin->dims[0], c = channels(fin, cl);
    for (int s = 0; s < k; s++) {
        int64_t o = osize->ints[s];
        int64_t i = isize != NULL ? isize->ints[(cl && k == 2 ? 1 : 2) + s] : spatial(fin, cl, s);
        if (o <= 0 || i <= 0)
            return aclStubOpFail(call, INVALID, "input and output sizes must be greater than 0, got input %lld and "
                                 "output %lld at spatial dimension %d", (long long)i, (long long)o, s);
        if (spatial(fout, cl, s) != o)
            return aclStubOpFail(call, INVALID, "'%s' must have size %lld at spatial dimension %d (outputSize), got %lld",
                                 row->backward ? xname : yname, (long long)o, s, (long long)spatial(fout, cl, s));
        if (spatial(fin, cl, s) != i)
            return aclStubOpFail(call, INVALID, "'%s' must have size %lld at spatial dimension %d (inputSize), got %lld",
                                 yname, (long long)i, s, (long long)spatial(fin, cl, s));
        p->in[3 - k + s] = i;
        p->out[3 - k + s] = o;
        if (row->scales >= 0) p->scales[3 - k + s] = call->v[row->scales + s].f;
    }
    if (isize != NULL && (isize->ints[0] != n || isize->ints[cl && k == 2 ? 3 : 1] != c))
        return aclStubOpFail(call, INVALID, "inputSize's N and C (%lld, %lld) must be those of '%s' (%lld, %lld)",
                             (long long)isize->ints[0], (long long)isize->ints[cl && k == 2 ? 3 : 1], yname, (long long)n,
                             (long long)c);
    if ((row->flags & UP_SCALE_AGREES) && p->scales[2] >= 0 && (int64_t)((double)p->in[2] * p->scales[2]) != p->out[2])
        return aclStubOpFail(call, INVALID, "scale %f conflicts with outputSize %lld: scale * input size must equal it",
                             p->scales[2], (long long)p->out[2]);
    if (row->flags & UP_MAX_SCALE_500) {
        int64_t i = p->in[2], o = p->out[2];
        double given = p->scales[2], eff = given > 0 ? given : (double)o / (double)i;
        bool agrees = given == 0 || o == (int64_t)floor((double)i * given);
        if (eff > 500.0 && o < 1000000 && agrees)
            return aclStubOpFail(call, INVALID, "scales is too large: %f (at most 500)", eff);
    }
    if (fout->dims[0] != n || channels(fout, cl) != c)
        return aclStubOpFail(call, INVALID, "N and C of '%s' and '%s' must be equal", xname, yname);
    for (int s = k; s < 3; s++) p->in[2 - s] = p->out[2 - s] = 1;
    p->planes = n * c;
    p->align = row->align >= 0 && call->v[row->align].b;
    p->channels_last = cl;
    if (aclStubNumel(x) == 0 || aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* ---- the operators ----------------------------------------------------------------------------------------------------- */

#define IN(n) {n, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define ARR(n) {n, ACLSTUB_INT_ARRAY, 0, NULL, 0, 0, 0}
#define FLT(n) {n, ACLSTUB_FLOAT, 0, NULL, 0, 0, 0}
#define BOOLP(n) {n, ACLSTUB_BOOL, 0, NULL, 0, 0, 0}
#define OUT(n) {n, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}

static const aclStubParam kFwd[] = {IN("self"), ARR("outputSize"), OUT("out")};
static const aclStubParam kFwdS1[] = {IN("self"), ARR("outputSize"), FLT("scales"), OUT("out")};
static const aclStubParam kFwdS1L[] = {IN("self"), ARR("outputSize"), FLT("scaleL"), OUT("out")};
static const aclStubParam kFwdS2[] = {IN("self"), ARR("outputSize"), FLT("scalesH"), FLT("scalesW"), OUT("out")};
static const aclStubParam kFwdS3[] = {IN("self"), ARR("outputSize"), FLT("scalesD"), FLT("scalesH"), FLT("scalesW"),
                                      OUT("out")};
static const aclStubParam kFwdA1[] = {IN("self"), ARR("outputSize"), BOOLP("alignCorners"), FLT("scale"), OUT("out")};
static const aclStubParam kFwdA2[] = {IN("self"), ARR("outputSize"), BOOLP("alignCorners"), FLT("scalesH"),
                                      FLT("scalesW"), OUT("out")};
static const aclStubParam kFwdA2Null[] = {{"self", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}, ARR("outputSize"),
                                          BOOLP("alignCorners"), FLT("scalesH"), FLT("scalesW"),
                                          {"out", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubParam kFwdA3[] = {IN("self"), ARR("outputSize"), BOOLP("alignCorners"), FLT("scalesD"),
                                      FLT("scalesH"), FLT("scalesW"), OUT("out")};
static const aclStubParam kBwdS1[] = {IN("gradOut"), ARR("outputSize"), ARR("inputSize"), FLT("scales"), OUT("out")};
static const aclStubParam kBwdS1Exact[] = {IN("gradOutput"), ARR("outputSize"), ARR("inputSize"), FLT("scales"),
                                           OUT("out")};
static const aclStubParam kBwdS2[] = {IN("gradOut"), ARR("outputSize"), ARR("inputSize"), FLT("scalesH"),
                                      FLT("scalesW"), OUT("gradInput")};
static const aclStubParam kBwdS2Exact[] = {IN("gradOutput"), ARR("outputSize"), ARR("inputSize"), FLT("scalesH"),
                                           FLT("scalesW"), OUT("out")};
static const aclStubParam kBwdS3[] = {IN("gradOut"), ARR("outputSize"), ARR("inputSize"), FLT("scalesD"),
                                      FLT("scalesH"), FLT("scalesW"), OUT("gradInput")};
static const aclStubParam kBwdA1[] = {IN("gradOut"), ARR("outputSize"), ARR("inputSize"), BOOLP("alignCorners"),
                                      FLT("scales"), OUT("out")};
static const aclStubParam kBwdA2[] = {IN("gradOut"), ARR("outputSize"), ARR("inputSize"), BOOLP("alignCorners"),
                                      FLT("scalesH"), FLT("scalesW"), OUT("out")};
static const aclStubParam kBwdA2Grad[] = {IN("gradOut"), ARR("outputSize"), ARR("inputSize"), BOOLP("alignCorners"),
                                          FLT("scalesH"), FLT("scalesW"), OUT("gradInput")};
static const aclStubParam kBwdA3[] = {IN("gradOut"), ARR("outputSize"), ARR("inputSize"), BOOLP("alignCorners"),
                                      FLT("scalesD"), FLT("scalesH"), FLT("scalesW"), OUT("gradInput")};

#define F16_32 (DT(ACL_FLOAT) | DT(ACL_FLOAT16))
#define F16_32_BF16 ACLSTUB_DT_FLOATS
#define F_ALL ACLSTUB_DT_REALS
#define F_ALL_U8 (ACLSTUB_DT_REALS | DT(ACL_UINT8))
#define F_U8 (ACLSTUB_DT_FLOATS | DT(ACL_UINT8))

#define UP_OP(NAME, PARAMS, MODE, K, BWD, ALIGN, SCALES, DTYPES, FLAGS)                                      \
    static const UpRow NAME##_row_ = {MODE, K, BWD, ALIGN, SCALES, (int)ACLSTUB_LEN(PARAMS) - 1, DTYPES, FLAGS}; \
    static const aclStubFamilyOp NAME##_op_ = {                                                              \
        {#NAME, PARAMS, ACLSTUB_LEN(PARAMS), NULL, up_check, up_kernel, sizeof(UpPlan)}, &NAME##_row_}

#define CL UP_CHANNELS_LAST

UP_OP(aclnnUpsampleNearest1d, kFwd, NEAREST, 1, false, -1, -1, F_ALL_U8, 0);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest1d, aclnnUpsampleNearest1d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (aclTensor *, out))
UP_OP(aclnnUpsampleNearest2d, kFwd, NEAREST, 2, false, -1, -1, F_ALL_U8, CL | UP_NCHW_FORMATS);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest2d, aclnnUpsampleNearest2d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (aclTensor *, out))
UP_OP(aclnnUpsampleNearest1dV2, kFwdS1L, NEAREST, 1, false, -1, 2, F_ALL_U8, UP_NONEMPTY_C);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest1dV2, aclnnUpsampleNearest1dV2_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (float, scaleL), (aclTensor *, out))
UP_OP(aclnnUpsampleNearest2dV2, kFwdS2, NEAREST, 2, false, -1, 2, F_ALL_U8,
      CL | UP_EMPTY_FIRST | UP_PRIVATE_FORMATS);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest2dV2, aclnnUpsampleNearest2dV2_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (float, scalesH), (float, scalesW), (aclTensor *, out))
UP_OP(aclnnUpsampleNearest3d, kFwdS3, NEAREST, 3, false, -1, 2, F_ALL, CL | UP_NONEMPTY_C);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest3d, aclnnUpsampleNearest3d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (double, scalesD), (double, scalesH), (double, scalesW),
                  (aclTensor *, out))
UP_OP(aclnnUpsampleNearestExact1d, kFwdS1, NEAREST_EXACT, 1, false, -1, 2, F_U8, 0);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearestExact1d, aclnnUpsampleNearestExact1d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (double, scales), (aclTensor *, out))
UP_OP(aclnnUpsampleNearestExact2d, kFwdS2, NEAREST_EXACT, 2, false, -1, 2, F_U8, CL | UP_EMPTY_FIRST);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearestExact2d, aclnnUpsampleNearestExact2d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (double, scalesH), (double, scalesW), (aclTensor *, out))
UP_OP(aclnnUpsampleNearestExact3d, kFwdS3, NEAREST_EXACT, 3, false, -1, 2, F16_32_BF16, CL | UP_NONEMPTY_C);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearestExact3d, aclnnUpsampleNearestExact3d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (double, scalesD), (double, scalesH), (double, scalesW),
                  (aclTensor *, out))
UP_OP(aclnnUpsampleLinear1d, kFwdA1, LINEAR, 1, false, 2, 3, F16_32_BF16, UP_NONEMPTY_C | UP_SCALE_AGREES);
ACLSTUB_DEFINE_OP(aclnnUpsampleLinear1d, aclnnUpsampleLinear1d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (const bool, alignCorners), (const double, scale),
                  (aclTensor *, out))
UP_OP(aclnnUpsampleBilinear2d, kFwdA2Null, LINEAR, 2, false, 2, 3, F_ALL,
      CL | UP_NCHW_FORMATS | UP_NO_ND | UP_F64_NHWC_ONLY | UP_NULL_INNER | UP_SCALES_POSITIVE);
ACLSTUB_DEFINE_OP(aclnnUpsampleBilinear2d, aclnnUpsampleBilinear2d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (const bool, alignCorners), (const double, scalesH),
                  (const double, scalesW), (aclTensor *, out))
UP_OP(aclnnUpsampleBicubic2d, kFwdA2, CUBIC, 2, false, 2, 3, F16_32_BF16, CL | UP_NCHW_FORMATS);
ACLSTUB_DEFINE_OP(aclnnUpsampleBicubic2d, aclnnUpsampleBicubic2d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (const bool, alignCorners), (const double, scalesH),
                  (const double, scalesW), (aclTensor *, out))
UP_OP(aclnnUpsampleTrilinear3d, kFwdA3, LINEAR, 3, false, 2, 3, F_ALL, CL | UP_NONEMPTY_C);
ACLSTUB_DEFINE_OP(aclnnUpsampleTrilinear3d, aclnnUpsampleTrilinear3d_op_.def, (const aclTensor *, self),
                  (const aclIntArray *, outputSize), (bool, alignCorners), (double, scalesD), (double, scalesH),
                  (double, scalesW), (aclTensor *, out))

UP_OP(aclnnUpsampleNearest1dBackward, kBwdS1, NEAREST, 1, true, -1, 3, F_ALL, 0);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest1dBackward, aclnnUpsampleNearest1dBackward_op_.def, (const aclTensor *, gradOut),
                  (const aclIntArray *, outputSize), (const aclIntArray *, inputSize), (double, scales),
                  (aclTensor *, out))
UP_OP(aclnnUpsampleNearest2dBackward, kBwdS2, NEAREST, 2, true, -1, 3, F16_32_BF16, CL);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest2dBackward, aclnnUpsampleNearest2dBackward_op_.def, (const aclTensor *, gradOut),
                  (const aclIntArray *, outputSize), (const aclIntArray *, inputSize), (double, scalesH),
                  (double, scalesW), (aclTensor *, gradInput))
UP_OP(aclnnUpsampleNearest3dBackward, kBwdS3, NEAREST, 3, true, -1, 3, F_ALL, CL);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearest3dBackward, aclnnUpsampleNearest3dBackward_op_.def, (const aclTensor *, gradOut),
                  (const aclIntArray *, outputSize), (const aclIntArray *, inputSize), (double, scalesD),
                  (double, scalesH), (double, scalesW), (aclTensor *, gradInput))
UP_OP(aclnnUpsampleNearestExact1dBackward, kBwdS1Exact, NEAREST_EXACT, 1, true, -1, 3, F16_32_BF16,
      UP_SCALES_POSITIVE);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearestExact1dBackward, aclnnUpsampleNearestExact1dBackward_op_.def,
                  (const aclTensor *, gradOutput), (const aclIntArray *, outputSize), (const aclIntArray *, inputSize),
                  (double, scales), (aclTensor *, out))
UP_OP(aclnnUpsampleNearestExact2dBackward, kBwdS2Exact, NEAREST_EXACT, 2, true, -1, 3, F16_32_BF16,
      CL | UP_SCALES_POSITIVE | UP_EMPTY_FIRST);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearestExact2dBackward, aclnnUpsampleNearestExact2dBackward_op_.def,
                  (const aclTensor *, gradOutput), (const aclIntArray *, outputSize), (const aclIntArray *, inputSize),
                  (double, scalesH), (double, scalesW), (aclTensor *, out))
UP_OP(aclnnUpsampleNearestExact3dBackward, kBwdS3, NEAREST_EXACT, 3, true, -1, 3, F16_32_BF16, CL);
ACLSTUB_DEFINE_OP(aclnnUpsampleNearestExact3dBackward, aclnnUpsampleNearestExact3dBackward_op_.def,
                  (const aclTensor *, gradOut), (const aclIntArray *, outputSize), (const aclIntArray *, inputSize),
                  (double, scalesD), (double, scalesH), (double, scalesW), (aclTensor *, gradInput))
UP_OP(aclnnUpsampleLinear1dBackward, kBwdA1, LINEAR, 1, true, 3, 4, F16_32_BF16, UP_MAX_SCALE_500);
ACLSTUB_DEFINE_OP(aclnnUpsampleLinear1dBackward, aclnnUpsampleLinear1dBackward_op_.def, (const aclTensor *, gradOut),
                  (const aclIntArray *, outputSize), (const aclIntArray *, inputSize), (bool, alignCorners),
                  (double, scales), (aclTensor *, out))
UP_OP(aclnnUpsampleBilinear2dBackward, kBwdA2, LINEAR, 2, true, 3, 4, F16_32, CL);
ACLSTUB_DEFINE_OP(aclnnUpsampleBilinear2dBackward, aclnnUpsampleBilinear2dBackward_op_.def, (const aclTensor *, gradOut),
                  (const aclIntArray *, outputSize), (const aclIntArray *, inputSize), (bool, alignCorners),
                  (double, scalesH), (double, scalesW), (aclTensor *, out))
UP_OP(aclnnUpsampleBilinear2dBackwardV2, kBwdA2, LINEAR, 2, true, 3, 4, F16_32_BF16, CL);
ACLSTUB_DEFINE_OP(aclnnUpsampleBilinear2dBackwardV2, aclnnUpsampleBilinear2dBackwardV2_op_.def,
                  (const aclTensor *, gradOut), (const aclIntArray *, outputSize), (const aclIntArray *, inputSize),
                  (bool, alignCorners), (double, scalesH), (double, scalesW), (aclTensor *, out))
UP_OP(aclnnUpsampleBicubic2dBackward, kBwdA2Grad, CUBIC, 2, true, 3, 4, F16_32_BF16, CL);
ACLSTUB_DEFINE_OP(aclnnUpsampleBicubic2dBackward, aclnnUpsampleBicubic2dBackward_op_.def, (const aclTensor *, gradOut),
                  (const aclIntArray *, outputSize), (const aclIntArray *, inputSize), (const bool, alignCorners),
                  (double, scalesH), (double, scalesW), (aclTensor *, gradInput))
UP_OP(aclnnUpsampleTrilinear3dBackward, kBwdA3, LINEAR, 3, true, 3, 4, F_ALL, CL);
ACLSTUB_DEFINE_OP(aclnnUpsampleTrilinear3dBackward, aclnnUpsampleTrilinear3dBackward_op_.def,
                  (const aclTensor *, gradOut), (const aclIntArray *, outputSize), (const aclIntArray *, inputSize),
                  (bool, alignCorners), (double, scalesD), (double, scalesH), (double, scalesW),
                  (aclTensor *, gradInput))
