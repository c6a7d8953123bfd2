/*
 * Masks and diagonals of ops-math conversion/ and math/: tril/triu (and in place), masked fill with a scalar or
 * a 0-D tensor, diag, diagflat, fill_diagonal and one_hot. Selections run over the element
 * iterator (aclstub/op_index.h); diagonals are strided views of their tensors.
 */
#include <math.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_diag.h"
#include "aclnnop/aclnn_diag_flat.h"
#include "aclnnop/aclnn_fill_diagonal.h"
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "aclnnop/aclnn_masked_fill_tensor.h"
#include "aclnnop/aclnn_masked_select.h"
#include "aclnnop/aclnn_one_hot.h"
#include "aclnnop/aclnn_s_where.h"
#include "aclnnop/aclnn_tril.h"
#include "aclnnop/aclnn_triu.h"

#define MAX_DIM 8
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID

#define TRI_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define MASKED_FILL_DT (DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_FLOAT16) | DT(ACL_INT8) | DT(ACL_BOOL) | DT(ACL_BF16))
#define DIAG_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | DT(ACL_COMPLEX64))
#define DIAG_EMPTY_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define FILL_DIAG_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define MASKED_SELECT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define ONE_HOT_INDEX_DT (DT(ACL_INT32) | DT(ACL_INT64))
#define ONE_HOT_VALUE_DT (DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64))

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define INPLACE(name) {name, ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* The tensor written: an in-place variant's first parameter, else the last one. */
static const aclStubTensorDesc *written(const aclStubOpCall *call) {
    return call->op->params[0].role == ACLSTUB_INPLACE ? T(0) : T(call->op->num_params - 1);
}

/* ---- select over the element iterator: out = cond ? a : b ------------------------------------------------------ */

#define SELECT_N(N)                                                                                          \
    for (int64_t i = 0; i < n; i++)                                                                          \
        memcpy(d[0] + i * s[0], d[1][i * s[1]] ? d[2] + i * s[2] : d[3] + i * s[3], N);                       \
    return;

static void select_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    size_t es = *(const size_t *)ctx;
    switch (es) {
    case 1: SELECT_N(1)
    case 2: SELECT_N(2)
    case 4: SELECT_N(4)
    case 8: SELECT_N(8)
    case 16: SELECT_N(16)
    default:
        for (int64_t i = 0; i < n; i++) memcpy(d[0] + i * s[0], d[1][i * s[1]] ? d[2] + i * s[2] : d[3] + i * s[3], es);
    }
}

/* out = cond ? a : b, broadcast to out; a and b (tensors, or scalars when NULL) converted to `compute` first,
 * the result converted to out's dtype. */
static aclnnStatus select_run(const aclStubOpCall *call, const aclStubTensorDesc *out, const aclStubTensorDesc *cond,
                              const aclStubTensorDesc *a, const aclStubScalarDesc *as, const aclStubTensorDesc *b,
                              aclDataType compute) {
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 3;
    it.tensor[0] = out;
    it.tensor[1] = cond;
    it.tensor[2] = a;
    it.tensor[3] = b;
    if (a == NULL) it.scalar[2] = *as;
    it.loop_dtype[0] = it.loop_dtype[2] = it.loop_dtype[3] = compute;
    it.loop_dtype[1] = ACL_BOOL;
    size_t es = aclDataTypeSize(compute);
    return aclStubIterRun(call, &it, select_loop, &es);
}

/* ---- aclnnTril, aclnnTriu and their in-place variants --------------------------------------------------------- */

typedef struct {
    int64_t diagonal;
    bool upper;
} TriPlan;

typedef struct {
    char *out;
    const char *in;
    int64_t rows, cols, diagonal;
    size_t es;
    bool upper;
} TriCtx;

static void tri_rows(void *arg, int64_t begin, int64_t end) {
    const TriCtx *c = arg;
    int64_t es = (int64_t)c->es, row = c->cols * es;
    for (int64_t r = begin; r < end; r++) {
        int64_t i = r % c->rows, lo, hi; /* columns [lo, hi) are kept */
        if (c->upper) {
            int64_t first = i + c->diagonal;
            lo = first < 0 ? 0 : first > c->cols ? c->cols : first;
            hi = c->cols;
        } else {
            int64_t last = i + c->diagonal + 1;
            lo = 0;
            hi = last < 0 ? 0 : last > c->cols ? c->cols : last;
        }
        char *o = c->out + r * row;
        const char *x = c->in + r * row;
        memset(o, 0, (size_t)(lo * es));
        if (hi > lo && o != x) memmove(o + lo * es, x + lo * es, (size_t)((hi - lo) * es));
        memset(o + hi * es, 0, (size_t)((c->cols - hi) * es));
    }
}

static aclnnStatus tri_kernel(const aclStubOpCall *call) {
    const TriPlan *plan = call->plan;
    const aclStubTensorDesc *self = T(0), *out = written(call);
    aclStubTensorDesc in, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_DT_UNDEFINED, &in));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    if (buf.data != in.data && aclStubViewsOverlap(&in, &buf)) { /* out overlaps a contiguous self: stage self */
        aclStubTensorDesc staged = in;
        staged.data = aclStubKernelScratch(call, (size_t)aclStubNumel(&in) * aclDataTypeSize(in.dtype));
        if (staged.data == NULL) return aclStubKernelOutOfMemory(call);
        staged.offset = 0;
        ACLSTUB_TRY(aclStubCopyView(call, &staged, &in, ACL_DT_UNDEFINED));
        in = staged;
    }
    int64_t rows = self->dims[self->ndim - 2], cols = self->dims[self->ndim - 1];
    TriCtx c = {aclStubViewBase(&buf), aclStubViewBase(&in), rows, cols, plan->diagonal, aclDataTypeSize(self->dtype),
                plan->upper};
    int64_t total = aclStubNumel(self) / (cols > 0 ? cols : 1);
    aclStubParallelFor(total, 65536 / (cols * (int64_t)c.es + 1) + 1, tri_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

static aclnnStatus tril_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = written(call);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, TRI_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, TRI_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    if (self->format != out->format)
        return aclStubOpFail(call, INVALID, "self format (%d) is different from out format (%d)", (int)self->format,
                             (int)out->format);
    if (self->ndim <= 1) return aclStubOpFail(call, INVALID, "self must have at least 2 dimensions");
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    if (aclStubNumel(self) == 0) return nothing(call);
    *(TriPlan *)call->plan = (TriPlan){call->v[1].i, false};
    return OK;
}

static aclnnStatus triu_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = written(call);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, TRI_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "self", self, "out", out));
    if (aclStubIsPrivateFormat(self->format))
        return aclStubOpFail(call, INVALID, "format only supports ND, NCHW, NHWC, HWCN, NDHWC and NCDHW");
    if (self->format != out->format)
        return aclStubOpFail(call, INVALID, "self format (%d) is different from out format (%d)", (int)self->format,
                             (int)out->format);
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (aclStubNumel(self) > 0 && self->ndim < 2) return aclStubOpFail(call, INVALID, "self must have at least 2 dimensions");
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    if (aclStubNumel(self) == 0) return nothing(call);
    *(TriPlan *)call->plan = (TriPlan){call->v[1].i, true};
    return OK;
}

static const aclStubParam kTriParams[] = {IN("self"), ATTR("diagonal", ACLSTUB_INT), OUT("out")};
static const aclStubParam kTriInplaceParams[] = {INPLACE("selfRef"), ATTR("diagonal", ACLSTUB_INT)};
static const aclStubOpDef kTril = {"aclnnTril", kTriParams, 3, NULL, tril_check, tri_kernel, sizeof(TriPlan)};
static const aclStubOpDef kInplaceTril = {"aclnnInplaceTril", kTriInplaceParams, 2, NULL, tril_check, tri_kernel,
                                          sizeof(TriPlan)};
static const aclStubOpDef kTriu = {"aclnnTriu", kTriParams, 3, NULL, triu_check, tri_kernel, sizeof(TriPlan)};
static const aclStubOpDef kInplaceTriu = {"aclnnInplaceTriu", kTriInplaceParams, 2, NULL, triu_check, tri_kernel,
                                          sizeof(TriPlan)};
ACLSTUB_DEFINE_OP(aclnnTril, kTril, (const aclTensor *, self), (int64_t, diagonal), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceTril, kInplaceTril, (const aclTensor *, selfRef), (int64_t, diagonal))
ACLSTUB_DEFINE_OP(aclnnTriu, kTriu, (const aclTensor *, self), (int64_t, diagonal), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceTriu, kInplaceTriu, (aclTensor *, selfRef), (int64_t, diagonal))

/* ---- aclnnInplaceMaskedFillScalar, aclnnInplaceMaskedFillTensor ------------------------------------------------ */

static aclnnStatus masked_fill_shape(aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubTensorDesc *mask) {
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "mask", mask, MAX_DIM));
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t n;
    if (!aclStubBroadcastShape(self->dims, self->ndim, mask->dims, mask->ndim, shape, &n))
        return aclStubOpFail(call, INVALID, "the shapes of selfRef %s and mask %s can not broadcast",
                             aclStubShapeText(self->dims, self->ndim, a, sizeof a),
                             aclStubShapeText(mask->dims, mask->ndim, b, sizeof b));
    if (!aclStubShapeEqual(shape, n, self->dims, self->ndim))
        return aclStubOpFail(call, INVALID, "shape of out should be %s, but current is %s",
                             aclStubShapeText(shape, n, a, sizeof a), aclStubShapeText(self->dims, self->ndim, b, sizeof b));
    return OK;
}

static aclnnStatus masked_fill_scalar_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *mask = T(1);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, MASKED_FILL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "mask", mask, DT(ACL_BOOL)));
    ACLSTUB_TRY(masked_fill_shape(call, self, mask));
    if (aclStubNumel(self) == 0 || aclStubNumel(mask) == 0) return nothing(call);
    return OK;
}

static aclnnStatus masked_fill_scalar_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0);
    aclStubScalarDesc value = {call->v[2].dtype, {0}};
    memcpy(value.value, call->v[2].scalar, sizeof value.value);
    aclStubTensorDesc mask;
    ACLSTUB_TRY(aclStubContiguousIn(call, T(1), ACL_DT_UNDEFINED, &mask));
    if (aclStubViewsOverlap(&mask, self)) ACLSTUB_TRY(aclStubContiguousIn(call, T(1), ACL_INT8, &mask));
    return select_run(call, self, &mask, NULL, &value, self, self->dtype);
}

static const aclStubParam kMaskedFillScalarParams[] = {INPLACE("selfRef"), IN("mask"), ATTR("value", ACLSTUB_SCALAR)};
static const aclStubOpDef kMaskedFillScalar = {"aclnnInplaceMaskedFillScalar", kMaskedFillScalarParams, 3, NULL,
                                               masked_fill_scalar_check, masked_fill_scalar_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceMaskedFillScalar, kMaskedFillScalar, (aclTensor *, selfRef), (const aclTensor *, mask),
                  (const aclScalar *, value))

static aclnnStatus masked_fill_tensor_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *mask = T(1), *value = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, MASKED_FILL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "value", value, MASKED_FILL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "mask", mask, DT(ACL_BOOL)));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "mask", mask, MAX_DIM));
    if (value->ndim != 0) return aclStubOpFail(call, INVALID, "value must be a 0-D tensor, got %u dimensions", value->ndim);
    ACLSTUB_TRY(masked_fill_shape(call, self, mask));
    if (aclStubNumel(self) == 0 || aclStubNumel(mask) == 0) return nothing(call);
    return OK;
}

static aclnnStatus masked_fill_tensor_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0);
    aclStubTensorDesc mask, value;
    ACLSTUB_TRY(aclStubContiguousIn(call, T(1), ACL_DT_UNDEFINED, &mask));
    if (aclStubViewsOverlap(&mask, self)) ACLSTUB_TRY(aclStubContiguousIn(call, T(1), ACL_INT8, &mask));
    ACLSTUB_TRY(aclStubContiguousIn(call, T(2), self->dtype, &value)); /* the value cast first, as the op_api */
    if (aclStubViewsOverlap(&value, self)) {
        aclStubScalarDesc v = {self->dtype, {0}};
        memcpy(v.value, aclStubViewBase(&value), aclDataTypeSize(self->dtype));
        return select_run(call, self, &mask, NULL, &v, self, self->dtype);
    }
    return select_run(call, self, &mask, &value, NULL, self, self->dtype);
}

static const aclStubParam kMaskedFillTensorParams[] = {INPLACE("selfRef"), IN("mask"), IN("value")};
static const aclStubOpDef kMaskedFillTensor = {"aclnnInplaceMaskedFillTensor", kMaskedFillTensorParams, 3, NULL,
                                               masked_fill_tensor_check, masked_fill_tensor_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceMaskedFillTensor, kMaskedFillTensor, (aclTensor *, selfRef), (const aclTensor *, mask),
                  (const aclTensor *, value))

/* ---- aclnnDiag, aclnnDiagFlat ------------------------------------------------------------------------------------ */

typedef struct {
    int64_t diagonal;
    bool to_matrix;  /* a vector (or the flattened input) becomes a matrix's diagonal */
    bool zeros_only; /* empty input with a nonzero diagonal: out is zeros */
} DiagPlan;

/* The diagonal `k` of a 2-D view as a 1-D view (len may be 0). */
static aclStubTensorDesc diagonal_view(const aclStubTensorDesc *m, int64_t k, int64_t len) {
    aclStubTensorDesc d = *m;
    d.offset += k >= 0 ? k * m->strides[1] : -k * m->strides[0];
    d.ndim = 1;
    d.dims[0] = len;
    d.strides[0] = m->strides[0] + m->strides[1];
    return d;
}

static int64_t diag_length(int64_t rows, int64_t cols, int64_t k) {
    int64_t n = k >= 0 ? (rows < cols - k ? rows : cols - k) : (rows + k < cols ? rows + k : cols);
    return n > 0 ? n : 0;
}

static aclnnStatus diag_kernel(const aclStubOpCall *call) {
    const DiagPlan *plan = call->plan;
    const aclStubTensorDesc *self = T(0), *out = T(2);
    const int64_t zero = 0;
    if (plan->zeros_only) return aclStubFillView(call, out, ACL_INT64, &zero);
    aclStubTensorDesc x;
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_DT_UNDEFINED, &x));
    if (aclStubViewsOverlap(&x, out)) {
        aclStubTensorDesc c = x;
        c.data = aclStubKernelScratch(call, (size_t)aclStubNumel(&x) * aclDataTypeSize(x.dtype));
        if (c.data == NULL) return aclStubKernelOutOfMemory(call);
        c.offset = 0;
        ACLSTUB_TRY(aclStubCopyView(call, &c, &x, ACL_DT_UNDEFINED));
        x = c;
    }
    if (plan->to_matrix) {
        int64_t n = aclStubNumel(&x);
        aclStubViewReshape(&x, &n, 1);
        ACLSTUB_TRY(aclStubFillView(call, out, ACL_INT64, &zero));
        aclStubTensorDesc d = diagonal_view(out, plan->diagonal, n);
        return aclStubCopyView(call, &d, &x, ACL_DT_UNDEFINED);
    }
    aclStubTensorDesc d = diagonal_view(&x, plan->diagonal, out->dims[0]);
    return aclStubCopyView(call, out, &d, ACL_DT_UNDEFINED);
}

static aclnnStatus diag_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(2);
    int64_t k = call->v[1].i;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, DIAG_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "self", self, "out", out));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, 2));
    DiagPlan *plan = call->plan;
    plan->diagonal = k;
    bool empty = aclStubNumel(self) == 0;
    if ((empty && k == 0) ||
        (self->ndim == 2 && ((k > 0 && self->dims[1] == k) || (k < 0 && self->dims[0] == -k))))
        return nothing(call);
    if (empty) { /* |k| > 0: out is filled with zeros */
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, DIAG_EMPTY_DT));
        plan->zeros_only = true;
        if (aclStubNumel(out) == 0) return nothing(call);
        return OK;
    }
    int64_t shape[2];
    uint32_t n;
    if (self->ndim < 2) {
        int64_t len = aclStubNumel(self), ak = k < 0 ? -k : k;
        shape[0] = shape[1] = len + ak;
        n = 2;
        plan->to_matrix = true;
    } else {
        shape[0] = diag_length(self->dims[0], self->dims[1], k);
        n = 1;
    }
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, n));
    if (aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static const aclStubParam kDiagParams[] = {IN("self"), ATTR("diagonal", ACLSTUB_INT), OUT("out")};
static const aclStubOpDef kDiag = {"aclnnDiag", kDiagParams, 3, NULL, diag_check, diag_kernel, sizeof(DiagPlan)};
ACLSTUB_DEFINE_OP(aclnnDiag, kDiag, (const aclTensor *, self), (int64_t, diagonal), (aclTensor *, out))

static aclnnStatus diag_flat_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(2);
    int64_t k = call->v[1].i;
    /* the op_api answers NULL arguments with ACLNN_ERR_INNER_NULLPTR */
    if (self == NULL) return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "argument 'self' is NULL");
    if (out == NULL) return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "argument 'out' is NULL");
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, DIAG_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, DIAG_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    if (aclStubNumel(self) == 0) return nothing(call);
    int64_t len = aclStubNumel(self), ak = k < 0 ? -k : k;
    int64_t shape[2] = {len + ak, len + ak};
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, 2));
    DiagPlan *plan = call->plan;
    plan->diagonal = k;
    plan->to_matrix = true;
    return OK;
}

static const aclStubParam kDiagFlatParams[] = {{"self", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
                                               ATTR("diagonal", ACLSTUB_INT),
                                               {"out", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kDiagFlat = {"aclnnDiagFlat", kDiagFlatParams, 3, NULL, diag_flat_check, diag_kernel,
                                       sizeof(DiagPlan)};
ACLSTUB_DEFINE_OP(aclnnDiagFlat, kDiagFlat, (const aclTensor *, self), (int64_t, diagonal), (aclTensor *, out))

/* ---- aclnnInplaceFillDiagonal ------------------------------------------------------------------------------------- */

static aclnnStatus fill_diagonal_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, FILL_DIAG_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    if (self->ndim < 2) return aclStubOpFail(call, INVALID, "selfRef must have at least 2 dimensions");
    for (uint32_t d = 1; self->ndim > 2 && d < self->ndim; d++)
        if (self->dims[d] != self->dims[0])
            return aclStubOpFail(call, INVALID, "all dimensions of a selfRef with more than 2 must be of equal length");
    aclDataType vt = call->v[1].dtype;
    if (!aclStubCanCast(vt, ACL_FLOAT))
        return aclStubOpFail(call, INVALID, "fillValue dtype %s can't be cast to ACL_FLOAT", aclStubDtypeName(vt));
    if (aclStubScalarOverflows(vt, call->v[1].scalar, self->dtype))
        return aclStubOpFail(call, INVALID, "value cannot be converted to type %s without overflow",
                             aclStubDtypeName(self->dtype));
    if (aclStubNumel(self) == 0) return nothing(call);
    return OK;
}

static aclnnStatus fill_diagonal_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0);
    int64_t h = self->dims[0], w = self->dims[1], size = h < w ? h : w, stride = 0;
    for (uint32_t d = 0; d < self->ndim; d++) {
        size = self->dims[d] < size ? self->dims[d] : size;
        stride += self->strides[d];
    }
    aclStubTensorDesc diag = *self;
    diag.ndim = 1;
    diag.dims[0] = size;
    diag.strides[0] = stride;
    ACLSTUB_TRY(aclStubFillView(call, &diag, call->v[1].dtype, call->v[1].scalar));
    if (call->v[2].b && self->ndim == 2 && h > w + 1) {
        /* torch's wrap: the diagonal restarts every w + 1 rows (flat positions k * (w + 1) of the row-major order) */
        int64_t step = w + 1, count = (h * w + step - 1) / step;
        for (int64_t k = size; k < count; k++) {
            int64_t p = k * step, r = p / w, c = p % w;
            aclStubTensorDesc e = *self;
            e.offset += r * self->strides[0] + c * self->strides[1];
            e.ndim = 0;
            ACLSTUB_TRY(aclStubFillView(call, &e, call->v[1].dtype, call->v[1].scalar));
        }
    }
    return OK;
}

static const aclStubParam kFillDiagonalParams[] = {INPLACE("selfRef"), ATTR("fillValue", ACLSTUB_SCALAR),
                                                   ATTR("wrap", ACLSTUB_BOOL)};
static const aclStubOpDef kFillDiagonal = {"aclnnInplaceFillDiagonal", kFillDiagonalParams, 3, NULL,
                                           fill_diagonal_check, fill_diagonal_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInplaceFillDiagonal, kFillDiagonal, (aclTensor *, selfRef), (const aclScalar *, fillValue),
                  (bool, wrap))

/* ---- aclnnOneHot --------------------------------------------------------------------------------------------------- */

enum { OH_SELF, OH_CLASSES, OH_ON, OH_OFF, OH_AXIS, OH_OUT };

typedef struct {
    int64_t dim;
} OneHotPlan;

typedef struct {
    char *out;
    const int64_t *idx;
    const unsigned char *on, *off;
    int64_t classes, inner;
    size_t es;
} OneHotCtx;

static void one_hot_rows(void *arg, int64_t begin, int64_t end) {
    const OneHotCtx *c = arg;
    for (int64_t r = begin; r < end; r++) { /* r = (o, class) */
        int64_t o = r / c->classes, cls = r % c->classes;
        const int64_t *ix = c->idx + o * c->inner;
        char *row = c->out + r * c->inner * (int64_t)c->es;
        for (int64_t i = 0; i < c->inner; i++) memcpy(row + i * (int64_t)c->es, ix[i] == cls ? c->on : c->off, c->es);
    }
}

static aclnnStatus one_hot_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(OH_SELF), *on = T(OH_ON), *off = T(OH_OFF), *out = T(OH_OUT);
    int64_t classes = call->v[OH_CLASSES].i, axis = call->v[OH_AXIS].i;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, ONE_HOT_INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, ONE_HOT_VALUE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "onValue", on, ONE_HOT_VALUE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "offValue", off, ONE_HOT_VALUE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "onValue", on, "out", out));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "offValue", off, "out", out));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "onValue", on, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "offValue", off, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    bool empty = aclStubNumel(self) == 0;
    if (empty ? classes <= 0 : classes < 0)
        return aclStubOpFail(call, INVALID, "numClasses should be greater than %s0, but got %lld", empty ? "" : "or equal to ",
                             (long long)classes);
    if (axis < -1 || axis > (int64_t)self->ndim)
        return aclStubOpFail(call, INVALID, "axis should be in [-1, %u], but got %lld", self->ndim, (long long)axis);
    if (out->ndim != self->ndim + 1)
        return aclStubOpFail(call, INVALID, "out must have %u dimensions, got %u", self->ndim + 1, out->ndim);
    int64_t dim = axis < 0 ? axis + self->ndim + 1 : axis, shape[ACLSTUB_MAX_DIMS];
    for (int64_t i = 0; i <= (int64_t)self->ndim; i++)
        shape[i] = i < dim ? self->dims[i] : i == dim ? classes : self->dims[i - 1];
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, self->ndim + 1));
    if (empty || classes == 0) return nothing(call);
    if (aclStubNumel(on) == 0 || aclStubNumel(off) == 0)
        return aclStubOpFail(call, INVALID, "onValue and offValue must hold a value");
    ((OneHotPlan *)call->plan)->dim = dim;
    return OK;
}

static aclnnStatus one_hot_kernel(const aclStubOpCall *call) {
    const OneHotPlan *plan = call->plan;
    const aclStubTensorDesc *self = T(OH_SELF), *out = T(OH_OUT);
    aclStubTensorDesc idx = *self, buf;
    idx.dtype = ACL_INT64;
    idx.offset = 0;
    aclStubContiguousStrides(&idx);
    idx.data = aclStubKernelScratch(call, (size_t)aclStubNumel(self) * sizeof(int64_t));
    if (idx.data == NULL) return aclStubKernelOutOfMemory(call);
    ACLSTUB_TRY(aclStubCopyView(call, &idx, self, ACL_DT_UNDEFINED));
    unsigned char on[16], off[16];
    memcpy(on, aclStubElemAt(T(OH_ON), 0), aclDataTypeSize(out->dtype));
    memcpy(off, aclStubElemAt(T(OH_OFF), 0), aclDataTypeSize(out->dtype));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    int64_t classes = out->dims[plan->dim];
    OneHotCtx c = {aclStubViewBase(&buf), idx.data, on, off, classes,
                   aclStubDimProduct(self->dims, plan->dim, self->ndim), aclDataTypeSize(out->dtype)};
    int64_t outer = aclStubDimProduct(self->dims, 0, plan->dim);
    aclStubParallelFor(outer * classes, 32768 / (c.inner + 1) + 1, one_hot_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kOneHotParams[] = {IN("self"), ATTR("numClasses", ACLSTUB_INT), IN("onValue"),
                                             IN("offValue"), ATTR("axis", ACLSTUB_INT), OUT("out")};
static const aclStubOpDef kOneHot = {"aclnnOneHot", kOneHotParams, 6, NULL, one_hot_check, one_hot_kernel,
                                     sizeof(OneHotPlan)};
ACLSTUB_DEFINE_OP(aclnnOneHot, kOneHot, (const aclTensor *, self), (int, numClasses), (const aclTensor *, onValue),
                  (const aclTensor *, offValue), (int64_t, axis), (aclTensor *, out))

/* ---- aclnnMaskedSelect ---------------------------------------------------------------------------------------------- */

/* The selected elements of self (broadcast with mask), in row-major order, at the front of the 1-D out, whose view
 * shape becomes [count] (a data-dependent output: the caller allocates the broadcast size). */
static aclnnStatus masked_select_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *mask = T(1), *out = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, MASKED_SELECT_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "mask", mask, DT(ACL_UINT8) | DT(ACL_BOOL)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, MASKED_SELECT_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "mask", mask, MAX_DIM));
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t n;
    if (!aclStubBroadcastShape(self->dims, self->ndim, mask->dims, mask->ndim, shape, &n))
        return aclStubOpFail(call, INVALID, "the shapes of self and mask can not broadcast");
    if (out->ndim != 1) return aclStubOpFail(call, INVALID, "out must be 1-D, got %u dimensions", out->ndim);
    int64_t size = 1;
    for (uint32_t d = 0; d < n; d++) size *= shape[d];
    if (out->dims[0] != size)
        return aclStubOpFail(call, INVALID, "out must hold the broadcast size %lld, got %lld", (long long)size,
                             (long long)out->dims[0]);
    if (aclStubNumel(self) == 0 || aclStubNumel(mask) == 0 || aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus masked_select_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *mask = T(1), *out = T(2);
    aclStubTensorDesc x = *out, m = *out; /* both broadcast to the out's length, as contiguous scratch */
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t n;
    aclStubBroadcastShape(self->dims, self->ndim, mask->dims, mask->ndim, shape, &n);
    int64_t total = out->dims[0];
    x.dtype = self->dtype;
    m.dtype = ACL_BOOL;
    aclStubViewReshape(&x, shape, n);
    aclStubViewReshape(&m, shape, n);
    x.offset = m.offset = 0;
    x.data = aclStubKernelScratch(call, (size_t)total * aclDataTypeSize(self->dtype));
    m.data = aclStubKernelScratch(call, (size_t)total);
    if (x.data == NULL || m.data == NULL) return aclStubKernelOutOfMemory(call);
    ACLSTUB_TRY(aclStubCopyView(call, &x, self, ACL_DT_UNDEFINED));
    ACLSTUB_TRY(aclStubCopyView(call, &m, mask, ACL_DT_UNDEFINED));
    const uint8_t *keep = m.data;
    size_t es = aclDataTypeSize(self->dtype);
    char *packed = x.data; /* compacted in place, front to back */
    int64_t count = 0;
    for (int64_t i = 0; i < total; i++)
        if (keep[i]) {
            if (count != i) memcpy(packed + count * (int64_t)es, packed + i * (int64_t)es, es);
            count++;
        }
    aclStubTensorDesc src = x, dst = *out;
    src.ndim = dst.ndim = 1;
    src.dims[0] = dst.dims[0] = count;
    src.strides[0] = 1;
    ACLSTUB_TRY(aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED));
    aclStubKernelSetOutputShape(call, 2, &count, 1);
    return OK;
}

static const aclStubParam kMaskedSelectParams[] = {IN("self"), IN("mask"), {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0}};
static const aclStubOpDef kMaskedSelect = {"aclnnMaskedSelect", kMaskedSelectParams, 3, NULL, masked_select_check,
                                           masked_select_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnMaskedSelect, kMaskedSelect, (const aclTensor *, self), (const aclTensor *, mask),
                  (aclTensor *, out))
