/*
 * ops-math conversion/im2col and conversion/unfold_grad:
 *
 *   aclnnIm2col      torch.nn.functional.unfold: (N, C, H, W) or (C, H, W) to (N, C*kh*kw, L) or (C*kh*kw, L),
 *                    L = oh * ow, zero padding; rows (c, ki, kj), columns (y, x) in row-major order.
 *   aclnnUnfoldGrad  the gradient of Tensor.unfold(dim, size, step): gradIn[.., p, ..] sums gradOut[.., w, .., k]
 *                    over the windows w with w * step + k = p, in increasing w (16-bit floats in float32).
 *
 * Both write every output element exactly once (rows split over the stub's threads), so results do not depend
 * on the thread count.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_im2col.h"
#include "aclnnop/aclnn_unfold_grad.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define TILING ACLNN_ERR_INNER_TILING_ERROR
#define IM2COL_DT ACLSTUB_DT_FLOATS
#define UNFOLD_GRAD_DT ACLSTUB_DT_FLOATS

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* ---- aclnnIm2col ------------------------------------------------------------------------------------------- */

enum { IC_SELF, IC_KERNEL, IC_DILATION, IC_PADDING, IC_STRIDE, IC_OUT };

typedef struct {
    int64_t n, c, h, w, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow;
} Im2colPlan;

/* floor division (the op_api's div_rtn) */
static int64_t div_floor(int64_t x, int64_t y) {
    int64_t q = x / y, r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q;
}

static aclnnStatus im2col_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(IC_SELF), *out = T(IC_OUT);
    static const char *names[] = {"kernelSize", "dilation", "padding", "stride"};
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, IM2COL_DT));
    if (self->ndim != 3 && self->ndim != 4)
        return aclStubOpFail(call, INVALID, "Expected self dim [%u] to be 3 or 4 but check failed.", self->ndim);
    for (uint32_t i = self->ndim == 4 ? 1 : 0; i < self->ndim; i++)
        if (self->dims[i] <= 0)
            return aclStubOpFail(call, INVALID, "self'dims is invalid, self No.[%u] dim is [%lld].", i + 1,
                                 (long long)self->dims[i]);
    for (int k = 0; k < 4; k++)
        if (call->v[IC_KERNEL + k].size != 2)
            return aclStubOpFail(call, INVALID, "It is expected %s equals to 2, but got size %llu.", names[k],
                                 (unsigned long long)call->v[IC_KERNEL + k].size);
    const int64_t *ks = call->v[IC_KERNEL].ints, *dil = call->v[IC_DILATION].ints, *pad = call->v[IC_PADDING].ints,
                  *st = call->v[IC_STRIDE].ints;
    static const int order[3] = {IC_KERNEL, IC_STRIDE, IC_DILATION};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2; i++)
            if (call->v[order[k]].ints[i] <= 0)
                return aclStubOpFail(call, INVALID, "It is expected %s be greater than zero, but %s No.[%d] dim is "
                                     "[%lld].", names[order[k] - IC_KERNEL], names[order[k] - IC_KERNEL], i + 1,
                                     (long long)call->v[order[k]].ints[i]);
    for (int i = 0; i < 2; i++)
        if (pad[i] < 0)
            return aclStubOpFail(call, INVALID, "It is expected padding be greater than or equal to zero, but padding "
                                 "No.[%d] dim is [%lld].", i + 1, (long long)pad[i]);
    Im2colPlan *p = call->plan;
    bool batched = self->ndim == 4;
    p->n = batched ? self->dims[0] : 1;
    p->c = self->dims[batched ? 1 : 0];
    p->h = self->dims[batched ? 2 : 1];
    p->w = self->dims[batched ? 3 : 2];
    p->kh = ks[0], p->kw = ks[1], p->dh = dil[0], p->dw = dil[1], p->ph = pad[0], p->pw = pad[1];
    p->sh = st[0], p->sw = st[1];
    p->oh = div_floor(p->h + 2 * p->ph - (p->dh * (p->kh - 1) + 1), p->sh) + 1;
    p->ow = div_floor(p->w + 2 * p->pw - (p->dw * (p->kw - 1) + 1), p->sw) + 1;
    if (p->oh < 1 || p->ow < 1)
        return aclStubOpFail(call, INVALID, "The shape (%lld, %lld) of the array calculated by other parameters must "
                             "be at least one.", (long long)p->oh, (long long)p->ow);
    int64_t shape[3] = {p->n, p->c * p->kh * p->kw, p->oh * p->ow};
    const int64_t *want = batched ? shape : shape + 1;
    uint32_t nd = batched ? 3 : 2;
    if (out->ndim != nd || memcmp(out->dims, want, nd * sizeof(int64_t)) != 0)
        return aclStubOpFail(call, INVALID, "Expect out shape [%s], but got: [%s].", aclStubShapeText(want, nd, a, sizeof a),
                             aclStubShapeText(out->dims, out->ndim, b, sizeof b));
    if (aclStubNumel(self) == 0) return nothing(call);
    if (!aclStubCanConvert(out->dtype))
        return aclStubOpFail(call, INVALID, "out dtype %s is not supported", aclStubDtypeName(out->dtype));
    return OK;
}

typedef struct {
    const Im2colPlan *p;
    const char *in;
    char *out;
    size_t es;
} Im2colCtx;

/* One output row (n, c, ki, kj) per item. */
static void im2col_rows(void *arg, int64_t begin, int64_t end) {
    const Im2colCtx *x = arg;
    const Im2colPlan *p = x->p;
    size_t es = x->es;
    int64_t L = p->oh * p->ow;
    for (int64_t r = begin; r < end; r++) {
        int64_t kj = r % p->kw, ki = (r / p->kw) % p->kh, nc = r / (p->kw * p->kh);
        const char *plane = x->in + (size_t)(nc * p->h * p->w) * es;
        char *row = x->out + (size_t)(r * L) * es;
        for (int64_t y = 0; y < p->oh; y++) {
            int64_t iy = y * p->sh - p->ph + ki * p->dh;
            char *dst = row + (size_t)(y * p->ow) * es;
            if (iy < 0 || iy >= p->h) {
                memset(dst, 0, (size_t)p->ow * es);
                continue;
            }
            const char *src = plane + (size_t)(iy * p->w) * es;
            for (int64_t xo = 0; xo < p->ow; xo++) {
                int64_t ix = xo * p->sw - p->pw + kj * p->dw;
                if (ix < 0 || ix >= p->w)
                    memset(dst + xo * es, 0, es);
                else
                    memcpy(dst + xo * es, src + ix * es, es);
            }
        }
    }
}

static aclnnStatus im2col_kernel(const aclStubOpCall *call) {
    const Im2colPlan *p = call->plan;
    const aclStubTensorDesc *self = T(IC_SELF), *out = T(IC_OUT);
    aclStubTensorDesc in, buf;
    ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &in));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, self->dtype, false, &buf));
    Im2colCtx x = {p, aclStubViewBase(&in), aclStubViewBase(&buf), aclDataTypeSize(self->dtype)};
    int64_t rows = p->n * p->c * p->kh * p->kw;
    aclStubParallelFor(rows, 1 + 16384 / (p->oh * p->ow), im2col_rows, &x);
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kIm2colParams[] = {IN("self"), ATTR("kernelSize", ACLSTUB_INT_ARRAY),
                                             ATTR("dilation", ACLSTUB_INT_ARRAY), ATTR("padding", ACLSTUB_INT_ARRAY),
                                             ATTR("stride", ACLSTUB_INT_ARRAY), OUT("out")};
static const aclStubOpDef kIm2col = {"aclnnIm2col", kIm2colParams, 6, NULL, im2col_check, im2col_kernel,
                                     sizeof(Im2colPlan)};
ACLSTUB_DEFINE_OP(aclnnIm2col, kIm2col, (const aclTensor *, self), (const aclIntArray *, kernelSize),
                  (const aclIntArray *, dilation), (const aclIntArray *, padding), (const aclIntArray *, stride),
                  (const aclTensor *, out))

/* ---- aclnnUnfoldGrad --------------------------------------------------------------------------------------- */

enum { UG_GRAD, UG_SIZES, UG_DIM, UG_SIZE, UG_STEP, UG_IN };

typedef struct {
    int64_t outer, len, inner, windows, size, step;
} UnfoldGradPlan;

static aclnnStatus unfold_grad_check(aclStubOpCall *call) {
    const aclStubTensorDesc *grad = T(UG_GRAD), *gin = T(UG_IN);
    const aclStubValue *sizes = &call->v[UG_SIZES];
    int64_t dim = call->v[UG_DIM].i, size = call->v[UG_SIZE].i, step = call->v[UG_STEP].i;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "gradOut", grad, UNFOLD_GRAD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "gradIn", gin, UNFOLD_GRAD_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "gradOut", grad, 8));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "gradIn", gin, 8));
    if (grad->ndim < 1 || gin->ndim < 1)
        return aclStubOpFail(call, INVALID, "%s must have at least 1 dimension", grad->ndim < 1 ? "gradOut" : "gradIn");
    if (sizes->size != grad->ndim - 1)
        return aclStubOpFail(call, INVALID, "inputSizes length should be equal to Dim of gradOut - 1, but got %llu.",
                             (unsigned long long)sizes->size);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "gradIn", gin, sizes->ints, (uint32_t)sizes->size));
    if (dim < 0 || dim >= (int64_t)grad->ndim - 1)
        return aclStubOpFail(call, INVALID, "dim %lld must be in [0, %u)", (long long)dim, grad->ndim - 1);
    if (size <= 0) return aclStubOpFail(call, INVALID, "size %lld must be greater than 0", (long long)size);
    if (step <= 0) return aclStubOpFail(call, INVALID, "step %lld must be greater than 0", (long long)step);
    if (grad->format == ACL_FORMAT_FRACTAL_NZ)
        return aclStubOpFail(call, INVALID, "Format of gradOut gets [FRACTAL_NZ], this format not support.");
    if (aclStubNumel(grad) == 0 || aclStubNumel(gin) == 0) return nothing(call);
    /* the tiling's rules (phase 1 on a device) */
    int64_t len = sizes->ints[dim];
    if (size > len)
        return aclStubOpFail(call, TILING, "size %lld must not exceed inputSizes[%lld] = %lld", (long long)size,
                             (long long)dim, (long long)len);
    int64_t windows = (len - size) / step + 1;
    if (grad->dims[dim] != windows)
        return aclStubOpFail(call, TILING, "The size of dimension dim in the gradOut %lld must be ((inputSize[dim] - "
                             "size) / step + 1) %lld.", (long long)grad->dims[dim], (long long)windows);
    if (grad->dims[grad->ndim - 1] != size)
        return aclStubOpFail(call, TILING, "The last dimension of gradOut %lld must be size %lld.",
                             (long long)grad->dims[grad->ndim - 1], (long long)size);
    UnfoldGradPlan *p = call->plan;
    p->outer = aclStubDimProduct(gin->dims, 0, dim);
    p->len = len;
    p->inner = aclStubDimProduct(gin->dims, dim + 1, gin->ndim);
    p->windows = windows;
    p->size = size;
    p->step = step;
    return OK;
}

typedef struct {
    const UnfoldGradPlan *p;
    const char *grad; /* (outer, windows, inner, size) */
    char *out;        /* (outer, len, inner) in the compute dtype */
    aclDataType dtype; /* FLOAT: float32 sums; else the grad's 16-bit dtype summed in float32 */
} UnfoldGradCtx;

static float load_f32(const char *base, int64_t i, aclDataType dt) {
    float v;
    aclStubCastStrided(&v, 0, ACL_FLOAT, base + i * (int64_t)aclDataTypeSize(dt), 0, dt, 1);
    return v;
}

/* One (o, p) row of gradIn per item. */
static void unfold_grad_rows(void *arg, int64_t begin, int64_t end) {
    const UnfoldGradCtx *x = arg;
    const UnfoldGradPlan *p = x->p;
    for (int64_t r = begin; r < end; r++) {
        int64_t o = r / p->len, pos = r % p->len;
        int64_t w_hi = pos / p->step < p->windows - 1 ? pos / p->step : p->windows - 1;
        int64_t w_lo = pos - p->size + 1 <= 0 ? 0 : (pos - p->size + 1 + p->step - 1) / p->step;
        float *row = (float *)x->out + r * p->inner;
        for (int64_t i = 0; i < p->inner; i++) {
            float acc = 0.0f;
            for (int64_t w = w_lo; w <= w_hi; w++) {
                int64_t k = pos - w * p->step;
                acc += load_f32(x->grad, ((o * p->windows + w) * p->inner + i) * p->size + k, x->dtype);
            }
            row[i] = acc;
        }
    }
}

static aclnnStatus unfold_grad_kernel(const aclStubOpCall *call) {
    const UnfoldGradPlan *p = call->plan;
    const aclStubTensorDesc *grad = T(UG_GRAD), *gin = T(UG_IN);
    aclStubTensorDesc in, buf;
    ACLSTUB_TRY(aclStubInputApart(call, grad, ACL_DT_UNDEFINED, gin, &in));
    /* sums in float32, rounded once to the grad's dtype (the op_api casts to gradOut's), then to gradIn's */
    ACLSTUB_TRY(aclStubOutputBegin(call, gin, ACL_FLOAT, false, &buf));
    UnfoldGradCtx x = {p, aclStubViewBase(&in), aclStubViewBase(&buf), grad->dtype};
    aclStubParallelFor(p->outer * p->len, 1 + 4096 / (p->inner * p->size), unfold_grad_rows, &x);
    if (grad->dtype != ACL_FLOAT && gin->dtype != grad->dtype) { /* round to gradOut's dtype first */
        aclStubTensorDesc mid = buf;
        mid.dtype = grad->dtype;
        mid.data = aclStubKernelScratch(call, (size_t)aclStubNumel(gin) * aclDataTypeSize(grad->dtype));
        if (mid.data == NULL) return aclStubKernelOutOfMemory(call);
        mid.offset = 0;
        ACLSTUB_TRY(aclStubCopyView(call, &mid, &buf, ACL_DT_UNDEFINED));
        ACLSTUB_TRY(aclStubCopyView(call, &buf, &mid, ACL_DT_UNDEFINED));
    }
    return aclStubOutputEnd(call, gin, &buf);
}

static const aclStubParam kUnfoldGradParams[] = {IN("gradOut"), ATTR("inputSizes", ACLSTUB_INT_ARRAY),
                                                 ATTR("dim", ACLSTUB_INT), ATTR("size", ACLSTUB_INT),
                                                 ATTR("step", ACLSTUB_INT), OUT("gradIn")};
static const aclStubOpDef kUnfoldGrad = {"aclnnUnfoldGrad", kUnfoldGradParams, 6, NULL, unfold_grad_check,
                                         unfold_grad_kernel, sizeof(UnfoldGradPlan)};
ACLSTUB_DEFINE_OP(aclnnUnfoldGrad, kUnfoldGrad, (const aclTensor *, gradOut), (const aclIntArray *, inputSizes),
                  (int64_t, dim), (int64_t, size), (int64_t, step), (const aclTensor *, gradIn))
