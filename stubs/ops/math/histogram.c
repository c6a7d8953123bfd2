/*
 * ops-math math/histogram_v2 and math/bincount: aclnnHistc (torch.histc) and aclnnBincount (torch.bincount).
 *
 * aclnnHistc counts the elements of self in `bins` equal bins over [min, max] as the Atlas A2/A3 kernel does: min
 * and max are converted to self's dtype; when they are equal (integers) or closer than 1e-6 (floats; or the same
 * infinity) the data's own minimum and maximum replace them, and when those are equal too the range becomes
 * [min - 1, max + 1]. An element v with min <= v <= max goes to bin (v - min) * bins / (max - min), computed in
 * self's integer type (INT64 in int64, the others in int32, wrapping, integer division) or in float32 for FLOAT
 * and FLOAT16, truncated to int32; v == max goes to the last bin; NaN and values outside are not counted. The
 * counts are int32, cast to out's dtype. An empty self gives zeros.
 *
 * aclnnBincount: self (1-D, cast to INT32 first) counts, or sums weights (FLOAT and DOUBLE as they are, the other
 * dtypes cast to DOUBLE; no weights: INT64 ones), in element order, into bins 0 .. size - 1, size = max(out's
 * length, minlength); the result is cast to out's dtype. A value at or above size is not counted (the AI CPU
 * kernel's rule); a negative value fails the kernel (the operator takes non-negative integers). out must have
 * the length size, else the op_api's ViewCopy fails (ACLNN_ERR_INNER_NULLPTR). An empty self gives zeros when
 * minlength > 0 and leaves out alone otherwise.
 */
#include <math.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_bincount.h"
#include "aclnnop/aclnn_histc.h"

#define DT ACLSTUB_DT
#define INVALID ACLNN_ERR_PARAM_INVALID
#define HISTC_INTS (DT(ACL_INT64) | DT(ACL_INT32) | DT(ACL_INT16) | DT(ACL_INT8) | DT(ACL_UINT8))
#define HISTC_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | HISTC_INTS)

/* ---- aclnnHistc ---------------------------------------------------------------------------------------------- */

enum { HC_SELF, HC_BINS, HC_MIN, HC_MAX, HC_OUT };

typedef struct {
    bool empty, from_data;
    int64_t imin, imax; /* integer self: min and max in self's dtype */
    float fmin, fmax;   /* floating self: min and max in self's dtype, as float */
} HistcPlan;

static aclnnStatus histc_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[HC_SELF].tensor, *out = call->v[HC_OUT].tensor;
    const aclStubValue *mn = &call->v[HC_MIN], *mx = &call->v[HC_MAX];
    HistcPlan *pl = call->plan;
    int64_t bins = call->v[HC_BINS].i;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, HISTC_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, HISTC_DT));
    float fmin = (float)aclStubScalarToDouble(mn->dtype, mn->scalar);
    float fmax = (float)aclStubScalarToDouble(mx->dtype, mx->scalar);
    bool same_inf = isinf(fmin) && isinf(fmax) && (fmin > 0) == (fmax > 0);
    ACLSTUB_RETURN_ERROR_IF(!same_inf && (!isfinite(fmin) || !isfinite(fmax)), call, INVALID,
                            "range of [%f, %f] is not finite", fmin, fmax);
    ACLSTUB_RETURN_ERROR_IF(bins <= 0, call, INVALID, "The value of bins can not less or equal 0.");
    bool ints = (HISTC_INTS & DT(self->dtype)) != 0;
    bool reversed = ints ? (int32_t)aclStubScalarToInt64(mn->dtype, mn->scalar) >
                               (int32_t)aclStubScalarToInt64(mx->dtype, mx->scalar)
                         : fmin > fmax;
    ACLSTUB_RETURN_ERROR_IF(reversed, call, INVALID, "The value of max should greater than or equal to min.");
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(self->dtype, out->dtype), call, INVALID,
                            "Cast from %s to %s is not supported.", aclStubDtypeName(self->dtype),
                            aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 1, call, INVALID, "out should be 1-D, got %u dimensions", out->ndim);
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, 8));
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != bins, call, INVALID, "The size of out tensor should be same as bins.");
    pl->empty = aclStubNumel(self) == 0;
    /* min and max as tensors of self's dtype (ConvertToTensor) */
    union {
        max_align_t align;
        unsigned char b[16];
    } lo, hi, smn, smx; /* the scalars' bytes copied to aligned storage */
    memset(&lo, 0, sizeof lo), memset(&hi, 0, sizeof hi);
    memcpy(smn.b, mn->scalar, sizeof smn.b), memcpy(smx.b, mx->scalar, sizeof smx.b);
    aclStubCastStrided(lo.b, 0, self->dtype, smn.b, 0, mn->dtype, 1);
    aclStubCastStrided(hi.b, 0, self->dtype, smx.b, 0, mx->dtype, 1);
    if (ints) {
        aclStubCastStrided(&pl->imin, 0, ACL_INT64, lo.b, 0, self->dtype, 1);
        aclStubCastStrided(&pl->imax, 0, ACL_INT64, hi.b, 0, self->dtype, 1);
        pl->from_data = aclStubScalarToInt64(mn->dtype, mn->scalar) == aclStubScalarToInt64(mx->dtype, mx->scalar);
    } else {
        aclStubCastStrided(&pl->fmin, 0, ACL_FLOAT, lo.b, 0, self->dtype, 1);
        aclStubCastStrided(&pl->fmax, 0, ACL_FLOAT, hi.b, 0, self->dtype, 1);
        pl->from_data = same_inf || (fmax - fmin < 1e-6f && fmax - fmin > -1e-6f);
    }
    return OK;
}

#define HISTC_CHUNK ((int64_t)1 << 16)

typedef struct {
    const void *x; /* contiguous INT64 (integer self) or FLOAT values */
    bool ints, wide;
    int64_t n, bins, imin, imax;
    float fmin, fmax;
    int32_t *counts; /* one row of bins + 1 per chunk */
} HistcCtx;

static void histc_chunks(void *arg, int64_t begin, int64_t end) {
    const HistcCtx *c = arg;
    for (int64_t ch = begin; ch < end; ch++) {
        int32_t *cnt = c->counts + ch * (c->bins + 1);
        int64_t lo = ch * HISTC_CHUNK, hi = lo + HISTC_CHUNK < c->n ? lo + HISTC_CHUNK : c->n;
        if (c->ints && c->wide) {
            const int64_t *x = c->x;
            int64_t len = (int64_t)((uint64_t)c->imax - (uint64_t)c->imin);
            if (len <= 0) continue; /* a range wider than the type: the device's division is undefined */
            for (int64_t i = lo; i < hi; i++)
                if (x[i] >= c->imin && x[i] <= c->imax) {
                    int64_t k = (int64_t)((uint64_t)(x[i] - c->imin) * (uint64_t)c->bins) / len;
                    if (k >= 0 && k <= c->bins) cnt[k]++; /* a wrapped product lands nowhere */
                }
        } else if (c->ints) {
            const int64_t *x = c->x;
            int32_t mn = (int32_t)c->imin, mx = (int32_t)c->imax, b = (int32_t)c->bins;
            int32_t len = (int32_t)((uint32_t)mx - (uint32_t)mn);
            if (len <= 0) continue; /* as above */
            for (int64_t i = lo; i < hi; i++) {
                int32_t v = (int32_t)x[i];
                if (v >= mn && v <= mx) {
                    int32_t k = (int32_t)((uint32_t)v - (uint32_t)mn) * b / len;
                    if (k >= 0 && k <= b) cnt[k]++; /* a wrapped product lands nowhere (the device's is undefined) */
                }
            }
        } else {
            const float *x = c->x;
            float len = c->fmax - c->fmin, b = (float)c->bins;
            for (int64_t i = lo; i < hi; i++)
                if (x[i] >= c->fmin && x[i] <= c->fmax) {
                    float q = (x[i] - c->fmin) * b / len; /* NaN for an infinite range: not counted */
                    if (q >= 0.0f && q < b + 1.0f) cnt[(int32_t)q]++;
                }
        }
    }
}

static aclnnStatus histc_kernel(const aclStubOpCall *call) {
    const HistcPlan *pl = call->plan;
    const aclStubTensorDesc *self = call->v[HC_SELF].tensor, *out = call->v[HC_OUT].tensor;
    int64_t bins = call->v[HC_BINS].i;
    aclStubTensorDesc buf, x;
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_INT32, false, &buf));
    int32_t *res = (int32_t *)aclStubViewBase(&buf);
    memset(res, 0, (size_t)bins * sizeof *res);
    if (!pl->empty) {
        bool ints = (HISTC_INTS & DT(self->dtype)) != 0;
        ACLSTUB_TRY(aclStubContiguousIn(call, self, ints ? ACL_INT64 : ACL_FLOAT, &x));
        int64_t n = aclStubNumel(self);
        HistcCtx c = {aclStubViewBase(&x), ints, self->dtype == ACL_INT64, n, bins, pl->imin, pl->imax, pl->fmin,
                      pl->fmax, NULL};
        if (pl->from_data) {
            if (ints) {
                const int64_t *v = c.x;
                c.imin = c.imax = v[0];
                for (int64_t i = 1; i < n; i++) {
                    if (v[i] < c.imin) c.imin = v[i];
                    if (v[i] > c.imax) c.imax = v[i];
                }
            } else {
                const float *v = c.x;
                c.fmin = c.fmax = v[0];
                for (int64_t i = 0; i < n; i++) {
                    if (isnan(v[i])) c.fmin = c.fmax = v[i];
                    if (isnan(c.fmin)) break;
                    if (v[i] < c.fmin) c.fmin = v[i];
                    if (v[i] > c.fmax) c.fmax = v[i];
                }
            }
        }
        if (ints && c.imin == c.imax) c.imin--, c.imax++;
        if (!ints && c.fmin == c.fmax) c.fmin -= 1.0f, c.fmax += 1.0f;
        int64_t chunks = (n + HISTC_CHUNK - 1) / HISTC_CHUNK;
        c.counts = aclStubKernelScratch(call, (size_t)(chunks * (bins + 1)) * sizeof(int32_t));
        if (c.counts == NULL) return aclStubKernelOutOfMemory(call);
        memset(c.counts, 0, (size_t)(chunks * (bins + 1)) * sizeof(int32_t));
        aclStubParallelFor(chunks, 1, histc_chunks, &c);
        for (int64_t ch = 0; ch < chunks; ch++) {
            const int32_t *cnt = c.counts + ch * (bins + 1);
            for (int64_t k = 0; k < bins; k++) res[k] += cnt[k];
            res[bins - 1] += cnt[bins];
        }
    }
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kHistcParams[] = {
    [HC_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [HC_BINS] = {"bins", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [HC_MIN] = {"min", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [HC_MAX] = {"max", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [HC_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kHistc = {"aclnnHistc", kHistcParams, ACLSTUB_LEN(kHistcParams), NULL, histc_check,
                                    histc_kernel, sizeof(HistcPlan)};
ACLSTUB_DEFINE_OP(aclnnHistc, kHistc, (const aclTensor *, self), (int64_t, bins), (const aclScalar *, min),
                  (const aclScalar *, max), (aclTensor *, out))

/* ---- aclnnBincount ------------------------------------------------------------------------------------------- */

enum { BC_SELF, BC_WEIGHTS, BC_MINLENGTH, BC_OUT };

#define BINCOUNT_SELF (DT(ACL_INT8) | DT(ACL_INT16) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_UINT8))
#define BINCOUNT_WEIGHTS                                                                                       \
    (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_DOUBLE) | DT(ACL_INT8) | DT(ACL_INT16) | DT(ACL_INT32) |         \
     DT(ACL_INT64) | DT(ACL_UINT8) | DT(ACL_BOOL))
#define BINCOUNT_OUT (DT(ACL_FLOAT) | DT(ACL_DOUBLE) | DT(ACL_INT32) | DT(ACL_INT64))

typedef struct {
    int64_t size;
    bool fill_zeros;
} BincountPlan;

static aclnnStatus bincount_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[BC_SELF].tensor, *w = call->v[BC_WEIGHTS].tensor,
                            *out = call->v[BC_OUT].tensor;
    BincountPlan *pl = call->plan;
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, BINCOUNT_SELF));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, BINCOUNT_OUT));
    if (w != NULL) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "weights", w, BINCOUNT_WEIGHTS));
    ACLSTUB_RETURN_ERROR_IF(aclStubIsPrivateFormat(self->format) || aclStubIsPrivateFormat(out->format), call,
                            INVALID, "Format only support ND,NCL,NCHW,NHWC,HWCN,NDHWC,NCDHW.");
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 1, call, INVALID, "self should be 1-D, got %u dimensions", self->ndim);
    if (w != NULL) {
        ACLSTUB_RETURN_ERROR_IF(w->format != self->format, call, INVALID,
                                "Input and weights should have same format.");
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(self->dims, self->ndim, w->dims, w->ndim), call, INVALID,
                                "Shape of self %s and weights %s should be equal.",
                                aclStubShapeText(self->dims, self->ndim, a, sizeof a),
                                aclStubShapeText(w->dims, w->ndim, b, sizeof b));
    }
    int64_t minlength = call->v[BC_MINLENGTH].i;
    if (aclStubNumel(self) == 0) {
        if (minlength <= 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
        pl->fill_zeros = true;
        return OK;
    }
    int64_t len = out->ndim >= 1 ? out->dims[0] : 1;
    pl->size = len > minlength ? len : minlength;
    ACLSTUB_RETURN_ERROR_IF(pl->size > INT32_MAX, call, INVALID, "The maximum output size cannot exceed 2147483647.");
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 1 || out->dims[0] != pl->size, call, ACLNN_ERR_INNER_NULLPTR,
                            "the result of shape [%lld] cannot be copied to out of shape %s", (long long)pl->size,
                            aclStubShapeText(out->dims, out->ndim, a, sizeof a));
    return OK;
}

static aclnnStatus bincount_kernel(const aclStubOpCall *call) {
    const BincountPlan *pl = call->plan;
    const aclStubTensorDesc *self = call->v[BC_SELF].tensor, *w = call->v[BC_WEIGHTS].tensor,
                            *out = call->v[BC_OUT].tensor;
    if (pl->fill_zeros) {
        uint64_t zero = 0;
        return aclStubFillView(call, out, ACL_INT64, &zero);
    }
    aclDataType acc = w == NULL ? ACL_INT64 : (w->dtype == ACL_FLOAT ? ACL_FLOAT : ACL_DOUBLE);
    aclStubTensorDesc x, wt, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_INT32, &x));
    if (w != NULL) ACLSTUB_TRY(aclStubContiguousIn(call, w, acc, &wt));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, acc, false, &buf));
    const int32_t *v = (const int32_t *)aclStubViewBase(&x);
    int64_t n = aclStubNumel(self), size = pl->size;
    for (int64_t i = 0; i < n; i++)
        if (v[i] < 0) return aclStubIndexOutOfRange(call, "self", v[i], i, 0, size);
    void *o = aclStubViewBase(&buf);
    memset(o, 0, (size_t)size * aclDataTypeSize(acc));
    if (acc == ACL_INT64) {
        int64_t *r = o;
        for (int64_t i = 0; i < n; i++)
            if (v[i] < size) r[v[i]]++;
    } else if (acc == ACL_FLOAT) {
        float *r = o;
        const float *ww = (const float *)aclStubViewBase(&wt);
        for (int64_t i = 0; i < n; i++)
            if (v[i] < size) r[v[i]] += ww[i];
    } else {
        double *r = o;
        const double *ww = (const double *)aclStubViewBase(&wt);
        for (int64_t i = 0; i < n; i++)
            if (v[i] < size) r[v[i]] += ww[i];
    }
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kBincountParams[] = {
    [BC_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [BC_WEIGHTS] = {"weights", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [BC_MINLENGTH] = {"minlength", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [BC_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kBincount = {"aclnnBincount", kBincountParams, ACLSTUB_LEN(kBincountParams), NULL,
                                       bincount_check, bincount_kernel, sizeof(BincountPlan)};
ACLSTUB_DEFINE_OP(aclnnBincount, kBincount, (const aclTensor *, self), (const aclTensor *, weights),
                  (int64_t, minlength), (aclTensor *, out))
