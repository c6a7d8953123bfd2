/*
 * ops-math math/stft: aclStft (official header aclnnop/acl_stft.h), the short-time Fourier transform of torch.stft
 * without centring: self (len) or (batch, len), FLOAT, DOUBLE, COMPLEX64 or COMPLEX128, gives for frame m and
 * frequency f < n (n = nFft / 2 + 1 when onesided, else nFft)
 *   X[f, m] = s * sum_{k < nFft} w[k] * self[m * hopLength + k] * exp(-2 pi i f k / nFft),
 * m < (len - nFft) / hopLength + 1, s = 1 / sqrt(nFft) when normalized, else 1. w is the window (winLength
 * values, ones when windowOptional is NULL) placed at (nFft - winLength) / 2 in nFft zeros, as the op_api pads
 * it. out is (batch,) n, frames complex when returnComplex, else (batch,) n, frames, 2 real (real, imaginary).
 * The op_api's checks in its order; out's dtype must be a complex one for returnComplex and a real one otherwise
 * (the result's kind: its ViewCopy fails otherwise, ACLNN_ERR_INNER_NULLPTR). A window whose length is not
 * winLength is refused (161002) even when winLength is nFft, where the op_api does not look: the kernel would read
 * past it. Sums in double complex with twiddles exp(-2 pi i r / nFft), r = f k mod nFft, each result rounded once
 * to out's dtype.
 */
#include <math.h>

#include "aclstub/op_index.h"
#include "aclnnop/acl_stft.h"

#define DT ACLSTUB_DT
#define INVALID ACLNN_ERR_PARAM_INVALID
#define STFT_DT (DT(ACL_FLOAT) | DT(ACL_DOUBLE) | DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128))
#define STFT_COMPLEX (DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128))

enum { ST_SELF, ST_WINDOW, ST_OUT, ST_NFFT, ST_HOP, ST_WIN, ST_NORM, ST_ONESIDED, ST_COMPLEX };

typedef struct {
    int64_t batch, len, nfft, hop, win, n, frames;
    bool normalized, ret_complex;
} StftPlan;

static aclnnStatus stft_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[ST_SELF].tensor, *w = call->v[ST_WINDOW].tensor,
                            *out = call->v[ST_OUT].tensor;
    StftPlan *pl = call->plan;
    int64_t nfft = call->v[ST_NFFT].i, hop = call->v[ST_HOP].i, win = call->v[ST_WIN].i;
    bool onesided = call->v[ST_ONESIDED].b, ret_complex = call->v[ST_COMPLEX].b;
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, STFT_DT));
    if (w != NULL) {
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, "windowOptional", w, STFT_DT));
        ACLSTUB_TRY(aclStubCheckDtypeSame(call, "windowOptional", w, "self", self));
    }
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, STFT_DT));
    ACLSTUB_RETURN_ERROR_IF(self->format != ACL_FORMAT_ND, call, INVALID, "Input format only support ND");
    ACLSTUB_RETURN_ERROR_IF(self->ndim < 1 || self->ndim > 2, call, INVALID, "self must be 1-D or 2-D, got %u dimensions",
                            self->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim < 2 || out->ndim > 4, call, INVALID, "out must have 2 to 4 dimensions, got %u",
                            out->ndim);
    int64_t len = self->dims[self->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(nfft <= 0, call, INVALID, "expect nFft > 0");
    ACLSTUB_RETURN_ERROR_IF(len < nfft, call, INVALID, "expect input length >= nFft");
    ACLSTUB_RETURN_ERROR_IF(hop <= 0, call, INVALID, "expect hopLength > 0");
    ACLSTUB_RETURN_ERROR_IF(win <= 0 || win > nfft, call, INVALID, "expect 0 < winLength <= nFft");
    bool complex_in = (STFT_COMPLEX & DT(self->dtype)) != 0;
    if (w != NULL) {
        ACLSTUB_RETURN_ERROR_IF(w->ndim != 1, call, INVALID, "windowOptional must be 1-D, got %u dimensions", w->ndim);
        ACLSTUB_RETURN_ERROR_IF(w->dims[0] != win, call, INVALID,
                                "expect winLength and window size should be equal (window %lld, winLength %lld)",
                                (long long)w->dims[0], (long long)win);
        complex_in = complex_in || (STFT_COMPLEX & DT(w->dtype)) != 0;
    }
    ACLSTUB_RETURN_ERROR_IF(complex_in && onesided, call, INVALID, "when input is complex, onesided can't be true");
    int64_t batch = self->ndim == 2 ? self->dims[0] : 0;
    int64_t frames = (len - nfft) / hop + 1, n = onesided ? nfft / 2 + 1 : nfft;
    int64_t want[4];
    uint32_t nw = 0;
    if (batch > 0) want[nw++] = batch;
    want[nw++] = n;
    want[nw++] = frames;
    if (!ret_complex) want[nw++] = 2;
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, want, nw), call, INVALID,
                            "out shape %s should be %s", aclStubShapeText(out->dims, out->ndim, a, sizeof a),
                            aclStubShapeText(want, nw, b, sizeof b));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(ret_complex != ((STFT_COMPLEX & DT(out->dtype)) != 0), call, ACLNN_ERR_INNER_NULLPTR,
                            "a %s result cannot be copied to out of dtype %s", ret_complex ? "complex" : "real",
                            aclStubDtypeName(out->dtype));
    *pl = (StftPlan){batch > 0 ? batch : 1, len, nfft, hop, win, n, frames, call->v[ST_NORM].b, ret_complex};
    return OK;
}

typedef struct {
    const StftPlan *pl;
    const double *x;       /* (batch, len) complex as (re, im) pairs */
    const double *w;       /* nFft padded window, (re, im) pairs */
    const double *cs, *sn; /* cos and sin of 2 pi r / nFft */
    double *out;           /* (batch, n, frames) (re, im) pairs */
} StftCtx;

static void stft_frames(void *arg, int64_t begin, int64_t end) {
    const StftCtx *c = arg;
    const StftPlan *pl = c->pl;
    double scale = pl->normalized ? 1.0 / sqrt((double)pl->nfft) : 1.0;
    for (int64_t job = begin; job < end; job++) { /* job = (b, m) */
        int64_t b = job / pl->frames, m = job % pl->frames;
        const double *x = c->x + 2 * (b * pl->len + m * pl->hop);
        for (int64_t f = 0; f < pl->n; f++) {
            double re = 0.0, im = 0.0;
            int64_t r = 0; /* f * k mod nFft */
            for (int64_t k = 0; k < pl->nfft; k++) {
                double wr = c->w[2 * k], wi = c->w[2 * k + 1];
                double yr = wr * x[2 * k] - wi * x[2 * k + 1], yi = wr * x[2 * k + 1] + wi * x[2 * k];
                /* times exp(-i theta) = cos(theta) - i sin(theta) */
                re += yr * c->cs[r] + yi * c->sn[r];
                im += yi * c->cs[r] - yr * c->sn[r];
                r += f;
                if (r >= pl->nfft) r %= pl->nfft;
            }
            double *o = c->out + 2 * ((b * pl->n + f) * pl->frames + m);
            o[0] = re * scale;
            o[1] = im * scale;
        }
    }
}

static aclnnStatus stft_kernel(const aclStubOpCall *call) {
    const StftPlan *pl = call->plan;
    const aclStubTensorDesc *w = call->v[ST_WINDOW].tensor, *out = call->v[ST_OUT].tensor;
    aclStubTensorDesc x, wt, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[ST_SELF].tensor, ACL_COMPLEX128, &x));
    double *wpad = aclStubKernelScratch(call, (size_t)pl->nfft * 2 * sizeof(double));
    double *cs = aclStubKernelScratch(call, (size_t)pl->nfft * 2 * sizeof(double));
    if (wpad == NULL || cs == NULL) return aclStubKernelOutOfMemory(call);
    double *sn = cs + pl->nfft;
    memset(wpad, 0, (size_t)pl->nfft * 2 * sizeof(double));
    int64_t left = (pl->nfft - pl->win) / 2;
    if (w != NULL) {
        ACLSTUB_TRY(aclStubContiguousIn(call, w, ACL_COMPLEX128, &wt));
        memcpy(wpad + 2 * left, aclStubViewBase(&wt), (size_t)pl->win * 2 * sizeof(double));
    } else {
        for (int64_t k = 0; k < pl->win; k++) wpad[2 * (left + k)] = 1.0;
    }
    const double two_pi = 6.283185307179586476925286766559;
    for (int64_t r = 0; r < pl->nfft; r++) {
        cs[r] = cos(two_pi * (double)r / (double)pl->nfft);
        sn[r] = sin(two_pi * (double)r / (double)pl->nfft);
    }
    int64_t count = pl->batch * pl->n * pl->frames;
    double *res = aclStubKernelScratch(call, (size_t)count * 2 * sizeof(double));
    if (res == NULL) return aclStubKernelOutOfMemory(call);
    StftCtx c = {pl, (const double *)aclStubViewBase(&x), wpad, cs, sn, res};
    aclStubParallelFor(pl->batch * pl->frames, 1 + 65536 / (pl->n * pl->nfft), stft_frames, &c);
    /* into a contiguous buffer of out's dtype: complex values, or (re, im) pairs of a real dtype */
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    char *dst = aclStubViewBase(&buf);
    int64_t es = (int64_t)aclDataTypeSize(out->dtype);
    if (pl->ret_complex) {
        aclStubCastStrided(dst, es, out->dtype, res, 16, ACL_COMPLEX128, count);
    } else {
        aclStubCastStrided(dst, 2 * es, out->dtype, res, 16, ACL_DOUBLE, count);
        aclStubCastStrided(dst + es, 2 * es, out->dtype, res + 1, 16, ACL_DOUBLE, count);
    }
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kStftParams[] = {
    [ST_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [ST_WINDOW] = {"windowOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [ST_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    [ST_NFFT] = {"nFft", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [ST_HOP] = {"hopLength", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [ST_WIN] = {"winLength", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [ST_NORM] = {"normalized", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [ST_ONESIDED] = {"onesided", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [ST_COMPLEX] = {"returnComplex", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef kStft = {"aclStft", kStftParams, ACLSTUB_LEN(kStftParams), NULL, stft_check, stft_kernel,
                                   sizeof(StftPlan)};
ACLSTUB_DEFINE_OP(aclStft, kStft, (const aclTensor *, self), (const aclTensor *, windowOptional), (aclTensor *, out),
                  (int64_t, nFft), (int64_t, hopLength), (int64_t, winLength), (bool, normalized), (bool, onesided),
                  (bool, returnComplex))
