/*
 * Linear algebra of ops-math math/ (cross, cholesky, logdet, slogdet, qr, svd, triangular_solve): aclnnLinalgCross,
 * aclnnLinalgCholesky, aclnnLogdet, aclnnSlogdet, aclnnQr, aclnnLinalgQr, aclnnSvd, aclnnTriangularSolve.
 *
 * Every operator runs its op_api's checks in order with its status codes (QR's and TriangularSolve's NULL checks
 * give 561103 as theirs do). Factorisations are LAPACK's (aclstub/op_linalg.h) in float64 or complex128, one matrix
 * per call on the stub's threads, rounded once to the dtype of the device's kernel (FLOAT for the FLOAT16/BF16
 * inputs the op_api casts up, the input's dtype otherwise) and cast to each output's dtype as the op_api's Cast
 * does. Stub rules where the docs give no result: a matrix that is not positive definite gives a Cholesky factor of
 * NaNs; an SVD that does not converge (or a matrix with a NaN) gives NaNs; the signs of QR's and SVD's vectors are
 * LAPACK's. Determinants follow the AI CPU kernel's LogMatrixDeterminant: a singular matrix has sign 0 and
 * log|det| -inf; Logdet adds log(sign) (NaN for a negative determinant).
 *
 * Cross is elementwise: a1 b2 - a2 b1 (and the two others) along dim, in float32 for FLOAT, FLOAT16 and BF16
 * (rounded once), in double for DOUBLE, wrapping integer arithmetic, complex products for the complex dtypes.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_linalg_cholesky.h"
#include "aclnnop/aclnn_linalg_cross.h"
#include "aclnnop/aclnn_linalg_qr.h"
#include "aclnnop/aclnn_logdet.h"
#include "aclnnop/aclnn_qr.h"
#include "aclnnop/aclnn_slogdet.h"
#include "aclnnop/aclnn_svd.h"
#include "aclnnop/aclnn_triangular_solve.h"
#include "aclstub/op_linalg.h"

#define DT ACLSTUB_DT
#define ANY ACLSTUB_ANY_LAYOUT

static char shape_buf[3][160];
static const char *shp(int k, const aclStubTensorDesc *t) {
    return aclStubShapeText(t->dims, t->ndim, shape_buf[k % 3], sizeof shape_buf[0]);
}
static const char *shape_text(int k, const int64_t *dims, uint32_t n) {
    return aclStubShapeText(dims, n, shape_buf[k % 3], sizeof shape_buf[0]);
}

static aclnnStatus need(const aclStubOpCall *call, int i, aclnnStatus status) {
    if (call->v[i].present) return OK;
    return aclStubOpFail(call, status, "argument '%s' is NULL", call->op->params[i].name);
}

static aclnnStatus dtype_in(const aclStubOpCall *call, int i, uint64_t set) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    char buf[256];
    ACLSTUB_RETURN_ERROR_IF((unsigned)t->dtype >= 64 || !(set & DT(t->dtype)), call, ACLNN_ERR_PARAM_INVALID,
                            "%s has data type %s; supported: %s", call->op->params[i].name, aclStubDtypeName(t->dtype),
                            aclStubDtypeSetName(set, buf, sizeof buf));
    return OK;
}

static aclnnStatus same_dtype(const aclStubOpCall *call, int i, int j) {
    const aclStubTensorDesc *a = aclStubOpTensor(call, i), *b = aclStubOpTensor(call, j);
    ACLSTUB_RETURN_ERROR_IF(a->dtype != b->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "%s's dtype %s must be the same as %s's %s", call->op->params[j].name,
                            aclStubDtypeName(b->dtype), call->op->params[i].name, aclStubDtypeName(a->dtype));
    return OK;
}

static aclnnStatus rank_in(const aclStubOpCall *call, int i, uint32_t lo, uint32_t hi) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    ACLSTUB_RETURN_ERROR_IF(t->ndim < lo, call, ACLNN_ERR_PARAM_INVALID, "%s's dim num should be at least %u, got %u",
                            call->op->params[i].name, lo, t->ndim);
    ACLSTUB_RETURN_ERROR_IF(hi > 0 && t->ndim > hi, call, ACLNN_ERR_PARAM_INVALID,
                            "%s's dim num should be at most %u, got %u", call->op->params[i].name, hi, t->ndim);
    return OK;
}

static bool shape_is(const aclStubTensorDesc *t, const int64_t *dims, uint32_t n) {
    return aclStubShapeEqual(t->dims, t->ndim, dims, n);
}

static int64_t prod(const int64_t *d, int n) {
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= d[i];
    return p;
}

/* A batch of independent matrix problems on the stub's threads; a kernel that runs out of memory says so. */
typedef struct Batch Batch;
typedef bool (*ItemFn)(const Batch *b, int64_t item);
struct Batch {
    const aclStubOpCall *call;
    int nb;
    int64_t batch[ACLSTUB_MAX_DIMS];
    ItemFn fn;
    atomic_int failed;
    const void *ctx;
};

static void run_items(void *ctx, int64_t begin, int64_t end) {
    Batch *b = ctx;
    for (int64_t i = begin; i < end; i++)
        if (!b->fn(b, i)) atomic_store(&b->failed, 1);
}

static aclnnStatus run_batch(const aclStubOpCall *call, int nb, const int64_t *batch, ItemFn fn, const void *ctx) {
    ACLSTUB_TRY(aclStubLinalgReady(call));
    Batch b;
    memset(&b, 0, sizeof b);
    b.call = call;
    b.nb = nb;
    for (int i = 0; i < nb; i++) b.batch[i] = batch[i];
    b.fn = fn;
    b.ctx = ctx;
    atomic_init(&b.failed, 0);
    aclStubParallelFor(prod(batch, nb), 1, run_items, &b);
    return atomic_load(&b.failed) ? aclStubKernelOutOfMemory(call) : OK;
}

static void fill_nan(double *a, int64_t count) {
    for (int64_t i = 0; i < count; i++) a[i] = NAN;
}

static void *mat(const Batch *b, const aclStubTensorDesc *t, int64_t item, int64_t *rs, int64_t *cs) {
    return aclStubLinalgMatrix(t, 2, b->nb, b->batch, item, rs, cs);
}

/* Matrix `item` of t (m x n) into the work matrix dst. */
static void load_item(const Batch *b, const aclStubTensorDesc *t, int64_t item, double *dst, int64_t ld, bool cplx,
                      int64_t m, int64_t n) {
    int64_t rs, cs;
    const void *p = mat(b, t, item, &rs, &cs);
    aclStubLinalgLoad(dst, ld, cplx, p, t->dtype, rs, cs, m, n);
}

/* The work matrix src (m x n) to item `item` of t: a matrix (tail 2; transposed when swap), a vector's entries as
 * one row (tail 1) or one value (tail 0). */
static void store_item(const Batch *b, const aclStubTensorDesc *t, int tail, bool swap, int64_t item,
                       const double *src, int64_t ld, bool cplx, aclDataType via, int64_t m, int64_t n) {
    int64_t rs, cs;
    void *p = aclStubLinalgMatrix(t, tail, b->nb, b->batch, item, &rs, &cs);
    if (swap) {
        int64_t x = rs;
        rs = cs, cs = x;
    }
    aclStubLinalgStore(p, t->dtype, rs, cs, src, ld, cplx, via, m, n);
}

/* ==== aclnnLinalgCross ========================================================================================== */

#define CROSS_DT                                                                                                   \
    (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_DOUBLE) | DT(ACL_INT8) | DT(ACL_INT16) | DT(ACL_INT32) | DT(ACL_INT64) | \
     DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128) | DT(ACL_UINT8) | DT(ACL_BF16))
enum { CR_SELF, CR_OTHER, CR_DIM, CR_OUT };
static const aclStubParam kCrossParams[] = {
    [CR_SELF] = {"self", ACLSTUB_INPUT, 0},
    [CR_OTHER] = {"other", ACLSTUB_INPUT, 0},
    [CR_DIM] = {"dim", ACLSTUB_INT},
    [CR_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ANY},
};

typedef struct {
    int dim; /* in out's dimensions */
} CrossPlan;

static aclnnStatus cross_check(aclStubOpCall *call) {
    const aclStubTensorDesc *a = aclStubOpTensor(call, CR_SELF), *b = aclStubOpTensor(call, CR_OTHER),
                            *out = aclStubOpTensor(call, CR_OUT);
    int64_t dim = aclStubOpInt(call, CR_DIM);
    ACLSTUB_TRY(dtype_in(call, CR_SELF, CROSS_DT));
    ACLSTUB_TRY(same_dtype(call, CR_SELF, CR_OTHER));
    ACLSTUB_TRY(same_dtype(call, CR_SELF, CR_OUT));
    ACLSTUB_TRY(rank_in(call, CR_SELF, 0, 8));
    ACLSTUB_TRY(rank_in(call, CR_OTHER, 0, 8));
    ACLSTUB_TRY(rank_in(call, CR_OUT, 0, 8));
    int64_t bs[ACLSTUB_MAX_DIMS];
    uint32_t nbs;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(a->dims, a->ndim, b->dims, b->ndim, bs, &nbs), call,
                            ACLNN_ERR_PARAM_INVALID, "self's shape %s and other's shape %s cannot broadcast",
                            shp(0, a), shp(1, b));
    ACLSTUB_RETURN_ERROR_IF(!shape_is(out, bs, nbs), call, ACLNN_ERR_PARAM_INVALID,
                            "expected consistent tensor shape for the broadcast shape and out, but got %s and %s "
                            "respectively.",
                            shape_text(0, bs, nbs), shp(1, out));
    int64_t r = a->ndim;
    ACLSTUB_RETURN_ERROR_IF(dim >= r || dim < -r, call, ACLNN_ERR_PARAM_INVALID,
                            "Dimension out of range(expected to be in range of [%lld, %lld], but got %lld.",
                            (long long)-r, (long long)(r - 1), (long long)dim);
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    int64_t inner = dim;
    bool differ = !aclStubShapeEqual(a->dims, a->ndim, b->dims, b->ndim);
    if (differ && inner >= 0 && a->ndim < b->ndim) inner += b->ndim - a->ndim;
    const aclStubTensorDesc *ref = differ ? out : a;
    if (inner < 0) inner += ref->ndim;
    ACLSTUB_RETURN_ERROR_IF(inner < 0 || inner >= (int64_t)ref->ndim || ref->dims[inner] != 3, call,
                            ACLNN_ERR_PARAM_INVALID, "dimension %lld does not have size 3.",
                            (long long)(dim < 0 ? dim : inner));
    ((CrossPlan *)call->plan)->dim = (int)(inner + (int64_t)out->ndim - (int64_t)ref->ndim);
    return OK;
}

typedef struct {
    const aclStubTensorDesc *a, *b, *out;
    int dim;
    int64_t astr[ACLSTUB_MAX_DIMS], bstr[ACLSTUB_MAX_DIMS]; /* broadcast strides over out's dims */
    aclDataType ct;                                         /* the computation's dtype */
} CrossJob;

static void bstrides(const aclStubTensorDesc *t, const aclStubTensorDesc *out, int64_t *s) {
    int off = (int)out->ndim - (int)t->ndim;
    for (int d = 0; d < (int)out->ndim; d++) {
        int td = d - off;
        s[d] = td >= 0 && t->dims[td] != 1 ? t->strides[td] : 0;
    }
}

#define CROSS_LOOP(T, MUL, SUB)                                                               \
    do {                                                                                      \
        T x[3], y[3], z[3];                                                                   \
        aclStubCastStrided(x, sizeof(T), j->ct, pa, sa * (int64_t)ea, j->a->dtype, 3);         \
        aclStubCastStrided(y, sizeof(T), j->ct, pb, sb * (int64_t)eb, j->b->dtype, 3);         \
        z[0] = SUB(MUL(x[1], y[2]), MUL(x[2], y[1]));                                         \
        z[1] = SUB(MUL(x[2], y[0]), MUL(x[0], y[2]));                                         \
        z[2] = SUB(MUL(x[0], y[1]), MUL(x[1], y[0]));                                         \
        aclStubCastStrided(po, so * (int64_t)eo, j->out->dtype, z, sizeof(T), j->ct, 3);       \
    } while (0)

typedef struct {
    float re, im;
} c64;
typedef struct {
    double re, im;
} c128;
#define MUL_PLAIN(p, q) ((p) * (q))
#define SUB_PLAIN(p, q) ((p) - (q))
static inline c64 c64_mul(c64 p, c64 q) {
    c64 r;
    float rr = p.re * q.re, ii = p.im * q.im, ri = p.re * q.im, ir = p.im * q.re;
    r.re = rr - ii;
    r.im = ri + ir;
    return r;
}
static inline c64 c64_sub(c64 p, c64 q) {
    c64 r = {p.re - q.re, p.im - q.im};
    return r;
}
static inline c128 c128_mul(c128 p, c128 q) {
    c128 r;
    double rr = p.re * q.re, ii = p.im * q.im, ri = p.re * q.im, ir = p.im * q.re;
    r.re = rr - ii;
    r.im = ri + ir;
    return r;
}
static inline c128 c128_sub(c128 p, c128 q) {
    c128 r = {p.re - q.re, p.im - q.im};
    return r;
}
static inline int64_t i64_mul(int64_t p, int64_t q) { return (int64_t)((uint64_t)p * (uint64_t)q); }
static inline int64_t i64_sub(int64_t p, int64_t q) { return (int64_t)((uint64_t)p - (uint64_t)q); }

static void cross_range(void *ctx, int64_t begin, int64_t end) {
    const CrossJob *j = ctx;
    const aclStubTensorDesc *out = j->out;
    int nd = (int)out->ndim, dim = j->dim;
    size_t ea = aclDataTypeSize(j->a->dtype), eb = aclDataTypeSize(j->b->dtype), eo = aclDataTypeSize(out->dtype);
    int64_t sa = j->astr[dim], sb = j->bstr[dim], so = out->strides[dim];
    for (int64_t v = begin; v < end; v++) {
        /* vector v: out's index over every dimension but dim, row-major */
        int64_t rest = v, oa = j->a->offset, ob = j->b->offset, oo = out->offset;
        for (int d = nd - 1; d >= 0; d--) {
            if (d == dim) continue;
            int64_t idx = rest % out->dims[d];
            rest /= out->dims[d];
            oa += idx * j->astr[d];
            ob += idx * j->bstr[d];
            oo += idx * out->strides[d];
        }
        const char *pa = (const char *)j->a->data + oa * (int64_t)ea, *pb = (const char *)j->b->data + ob * (int64_t)eb;
        char *po = (char *)out->data + oo * (int64_t)eo;
        switch (j->ct) {
        case ACL_FLOAT: CROSS_LOOP(float, MUL_PLAIN, SUB_PLAIN); break;
        case ACL_DOUBLE: CROSS_LOOP(double, MUL_PLAIN, SUB_PLAIN); break;
        case ACL_COMPLEX64: CROSS_LOOP(c64, c64_mul, c64_sub); break;
        case ACL_COMPLEX128: CROSS_LOOP(c128, c128_mul, c128_sub); break;
        default: CROSS_LOOP(int64_t, i64_mul, i64_sub); break;
        }
    }
}

static aclnnStatus cross_kernel(const aclStubOpCall *call) {
    CrossJob j;
    memset(&j, 0, sizeof j);
    j.a = aclStubOpTensor(call, CR_SELF);
    j.b = aclStubOpTensor(call, CR_OTHER);
    j.out = aclStubOpTensor(call, CR_OUT);
    j.dim = ((const CrossPlan *)call->plan)->dim;
    bstrides(j.a, j.out, j.astr);
    bstrides(j.b, j.out, j.bstr);
    switch (j.a->dtype) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_BF16: j.ct = ACL_FLOAT; break;
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
    case ACL_COMPLEX128: j.ct = j.a->dtype; break;
    default: j.ct = ACL_INT64; break;
    }
    aclStubParallelFor(aclStubNumel(j.out) / 3, 4096, cross_range, &j);
    return OK;
}

static const aclStubOpDef kCross = {"aclnnLinalgCross", kCrossParams, ACLSTUB_LEN(kCrossParams), NULL,
                                    cross_check,        cross_kernel, sizeof(CrossPlan)};
ACLSTUB_DEFINE_OP(aclnnLinalgCross, kCross, (const aclTensor *, self), (const aclTensor *, other), (int64_t, dim),
                  (aclTensor *, out))

/* ==== aclnnLinalgCholesky ========================================================================================= */

enum { CH_SELF, CH_UPPER, CH_OUT };
static const aclStubParam kCholParams[] = {
    [CH_SELF] = {"self", ACLSTUB_INPUT, 0},
    [CH_UPPER] = {"upper", ACLSTUB_BOOL},
    [CH_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ANY},
};

static bool private_format(aclFormat f) {
    return !(f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_NCDHW ||
             f == ACL_FORMAT_NDHWC || f == ACL_FORMAT_NCL || f == ACL_FORMAT_HWCN);
}

static aclnnStatus chol_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, CH_SELF), *out = aclStubOpTensor(call, CH_OUT);
    ACLSTUB_TRY(same_dtype(call, CH_SELF, CH_OUT));
    ACLSTUB_TRY(dtype_in(call, CH_SELF, DT(ACL_FLOAT) | DT(ACL_BF16) | DT(ACL_FLOAT16)));
    ACLSTUB_RETURN_ERROR_IF(x->format != out->format, call, ACLNN_ERR_PARAM_INVALID,
                            "Format of input and output should be equal. self [%s], out [%s].", shp(0, x), shp(1, out));
    ACLSTUB_RETURN_ERROR_IF(private_format(x->format), call, ACLNN_ERR_PARAM_INVALID, "Format only support ND.");
    ACLSTUB_TRY(rank_in(call, CH_SELF, 0, 8));
    ACLSTUB_TRY(rank_in(call, CH_SELF, 2, 0));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, out->dims, out->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "Expected out's shape %s to be equal to self's %s", shp(0, out), shp(1, x));
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    int64_t n = x->dims[x->ndim - 1], m = x->dims[x->ndim - 2];
    ACLSTUB_RETURN_ERROR_IF(n != m, call, ACLNN_ERR_PARAM_INVALID,
                            "self must be batches of square matrices, but they are [%lld] by [%lld] matrices",
                            (long long)m, (long long)n);
    ACLSTUB_RETURN_ERROR_IF(n > 8192, call, ACLNN_ERR_PARAM_INVALID, "The last dim must be less than or equal to 8192.");
    return OK;
}

static bool chol_item(const Batch *b, int64_t item) {
    const aclStubOpCall *call = b->call;
    const aclStubTensorDesc *x = aclStubOpTensor(call, CH_SELF), *out = aclStubOpTensor(call, CH_OUT);
    bool upper = aclStubOpBool(call, CH_UPPER);
    int64_t n = x->dims[x->ndim - 1];
    double *a = malloc(sizeof(double) * (size_t)(n * n));
    if (a == NULL) return false;
    load_item(b, x, item, a, n, false, n, n);
    int info = aclStubLapackPotrf(false, upper, n, a, n);
    if (info == -1000) {
        free(a);
        return false;
    }
    if (info != 0)
        fill_nan(a, n * n); /* not positive definite */
    else
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++)
                if (upper ? i > j : i < j) a[j * n + i] = 0.0;
    store_item(b, out, 2, false, item, a, n, false, ACL_FLOAT, n, n);
    free(a);
    return true;
}

static aclnnStatus chol_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, CH_SELF);
    return run_batch(call, (int)x->ndim - 2, x->dims, chol_item, NULL);
}

static const aclStubOpDef kChol = {"aclnnLinalgCholesky", kCholParams, ACLSTUB_LEN(kCholParams), NULL,
                                   chol_check,            chol_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnLinalgCholesky, kChol, (const aclTensor *, self), (bool, upper), (aclTensor *, out))

/* ==== aclnnSlogdet, aclnnLogdet ================================================================================== */

#define DET_DT (DT(ACL_FLOAT) | DT(ACL_DOUBLE) | DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128))
enum { SD_SELF, SD_SIGN, SD_LOG };
static const aclStubParam kSlogdetParams[] = {
    [SD_SELF] = {"self", ACLSTUB_INPUT, 0},
    [SD_SIGN] = {"signOut", ACLSTUB_OUTPUT, 0, NULL, ANY},
    [SD_LOG] = {"logOut", ACLSTUB_OUTPUT, 0, NULL, ANY},
};
enum { LD_SELF, LD_OUT };
static const aclStubParam kLogdetParams[] = {
    [LD_SELF] = {"self", ACLSTUB_INPUT, 0},
    [LD_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ANY},
};

static aclnnStatus det_check(aclStubOpCall *call, int nout) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, 0);
    ACLSTUB_TRY(dtype_in(call, 0, DET_DT));
    for (int o = 1; o <= nout; o++) ACLSTUB_TRY(dtype_in(call, o, DET_DT));
    for (int o = 1; o <= nout; o++) {
        const aclStubTensorDesc *t = aclStubOpTensor(call, o);
        ACLSTUB_RETURN_ERROR_IF(aclStubIsComplex(x->dtype) && !aclStubIsComplex(t->dtype), call,
                                ACLNN_ERR_PARAM_INVALID,
                                "The self's dtype is %s, %s's dtype should also be complex type but got %s with "
                                "dtype %s.",
                                aclStubDtypeName(x->dtype), call->op->params[o].name, call->op->params[o].name,
                                aclStubDtypeName(t->dtype));
    }
    ACLSTUB_TRY(rank_in(call, 0, 2, 0));
    int64_t m = x->dims[x->ndim - 2], n = x->dims[x->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(m != n, call, ACLNN_ERR_PARAM_INVALID,
                            "The last two dimensions of self must be equal, but they are %lld by %lld matrices.",
                            (long long)m, (long long)n);
    for (int o = 1; o <= nout; o++) {
        const aclStubTensorDesc *t = aclStubOpTensor(call, o);
        ACLSTUB_RETURN_ERROR_IF(!shape_is(t, x->dims, x->ndim - 2), call, ACLNN_ERR_PARAM_INVALID,
                                "expect shape of %s is %s, but got %s.", call->op->params[o].name,
                                shape_text(0, x->dims, x->ndim - 2), shp(1, t));
    }
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}
static aclnnStatus slogdet_check(aclStubOpCall *call) { return det_check(call, 2); }
static aclnnStatus logdet_check(aclStubOpCall *call) { return det_check(call, 1); }

/* sign and log|det| of one matrix by LU (the AI CPU kernel's LogMatrixDeterminant), in double or complex128 */
static bool det_item(const Batch *b, int64_t item) {
    const aclStubOpCall *call = b->call;
    bool logdet = call->op->num_params == ACLSTUB_LEN(kLogdetParams);
    const aclStubTensorDesc *x = aclStubOpTensor(call, 0);
    bool cplx = aclStubIsComplex(x->dtype);
    int w = cplx ? 2 : 1;
    int64_t n = x->dims[x->ndim - 1];
    double *a = malloc(sizeof(double) * (size_t)(w * n * n));
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    if (a == NULL || ipiv == NULL) {
        free(a);
        free(ipiv);
        return false;
    }
    load_item(b, x, item, a, n, cplx, n, n);
    int info = aclStubLapackGetrf(cplx, n, a, n, ipiv);
    double sre = 1.0, sim = 0.0, lg = 0.0;
    if (info > 0) {
        sre = 0.0, lg = -INFINITY; /* singular */
    } else {
        for (int64_t i = 0; i < n; i++) {
            if (ipiv[i] != i + 1) sre = -sre, sim = -sim;
            double ur = a[(i * n + i) * w], ui = cplx ? a[(i * n + i) * w + 1] : 0.0;
            double mag = cplx ? hypot(ur, ui) : fabs(ur);
            lg += log(mag);
            double pr = ur / mag, pi = ui / mag; /* the diagonal's sign (a unit complex number) */
            double nr = sre * pr - sim * pi, ni = sre * pi + sim * pr;
            sre = nr, sim = ni;
        }
    }
    free(a);
    free(ipiv);
    double v[2];
    if (logdet) {
        /* log|det| + log(sign), both in self's dtype (the op_api's Log and Add) */
        const aclStubTensorDesc *out = aclStubOpTensor(call, LD_OUT);
        if (cplx) {
            v[0] = lg + log(hypot(sre, sim));
            v[1] = atan2(sim, sre);
        } else {
            v[0] = sre > 0 ? lg : sre == 0 ? -INFINITY : NAN;
            if (isnan(sre)) v[0] = NAN;
            v[1] = 0.0;
        }
        store_item(b, out, 0, false, item, v, 1, cplx, x->dtype, 1, 1);
        return true;
    }
    const aclStubTensorDesc *so = aclStubOpTensor(call, SD_SIGN), *lo = aclStubOpTensor(call, SD_LOG);
    v[0] = sre, v[1] = sim;
    store_item(b, so, 0, false, item, v, 1, cplx, x->dtype, 1, 1);
    v[0] = lg, v[1] = 0.0;
    store_item(b, lo, 0, false, item, v, 1, cplx, x->dtype, 1, 1);
    return true;
}

static aclnnStatus det_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, 0);
    return run_batch(call, (int)x->ndim - 2, x->dims, det_item, NULL);
}

static const aclStubOpDef kSlogdet = {"aclnnSlogdet", kSlogdetParams, ACLSTUB_LEN(kSlogdetParams), NULL,
                                      slogdet_check,  det_kernel,     0};
ACLSTUB_DEFINE_OP(aclnnSlogdet, kSlogdet, (const aclTensor *, self), (aclTensor *, signOut), (aclTensor *, logOut))
static const aclStubOpDef kLogdet = {"aclnnLogdet", kLogdetParams, ACLSTUB_LEN(kLogdetParams), NULL,
                                     logdet_check,  det_kernel,    0};
ACLSTUB_DEFINE_OP(aclnnLogdet, kLogdet, (const aclTensor *, self), (aclTensor *, out))

/* ==== aclnnQr, aclnnLinalgQr ======================================================================================= */

#define QR_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_DOUBLE) | DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128))
enum { QR_SELF, QR_MODE, QR_Q, QR_R };
enum { MODE_REDUCED = 0, MODE_COMPLETE = 1, MODE_R = 2 };
static const aclStubParam kQrParams[] = {
    [QR_SELF] = {"self", ACLSTUB_OPTIONAL_INPUT, 0},
    [QR_MODE] = {"some", ACLSTUB_BOOL},
    [QR_Q] = {"Q", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ANY},
    [QR_R] = {"R", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ANY},
};
static const aclStubParam kLinalgQrParams[] = {
    [QR_SELF] = {"self", ACLSTUB_OPTIONAL_INPUT, 0},
    [QR_MODE] = {"mode", ACLSTUB_INT},
    [QR_Q] = {"Q", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ANY},
    [QR_R] = {"R", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ANY},
};

typedef struct {
    int mode;
} QrPlan;

static aclnnStatus qr_check(aclStubOpCall *call) {
    bool linalg = call->op->params == kLinalgQrParams;
    for (int i = 0; i < 4; i++)
        if (i != QR_MODE) ACLSTUB_TRY(need(call, i, ACLNN_ERR_INNER_NULLPTR));
    const aclStubTensorDesc *x = aclStubOpTensor(call, QR_SELF), *q = aclStubOpTensor(call, QR_Q),
                            *r = aclStubOpTensor(call, QR_R);
    ACLSTUB_TRY(dtype_in(call, QR_SELF, QR_DT));
    ACLSTUB_TRY(dtype_in(call, QR_Q, QR_DT));
    ACLSTUB_TRY(dtype_in(call, QR_R, QR_DT));
    ACLSTUB_TRY(rank_in(call, QR_SELF, 2, 8));
    int mode = linalg ? (aclStubOpInt(call, QR_MODE) == MODE_COMPLETE ? MODE_COMPLETE
                         : aclStubOpInt(call, QR_MODE) == MODE_R      ? MODE_R
                                                                      : MODE_REDUCED)
                      : (aclStubOpBool(call, QR_MODE) ? MODE_REDUCED : MODE_COMPLETE);
    uint32_t nd = x->ndim;
    int64_t m = x->dims[nd - 2], n = x->dims[nd - 1], k = m < n ? m : n;
    int64_t qs[ACLSTUB_MAX_DIMS], rsh[ACLSTUB_MAX_DIMS];
    uint32_t nq = nd;
    memcpy(qs, x->dims, sizeof(int64_t) * nd);
    memcpy(rsh, x->dims, sizeof(int64_t) * nd);
    if (mode == MODE_R) {
        nq = 1, qs[0] = 0;
        rsh[nd - 2] = k;
    } else if (mode == MODE_COMPLETE) {
        qs[nd - 1] = m;
    } else {
        qs[nd - 1] = k;
        rsh[nd - 2] = k;
    }
    ACLSTUB_RETURN_ERROR_IF(!shape_is(q, qs, nq), call, ACLNN_ERR_PARAM_INVALID,
                            "The output Q should have the following shape %s, but got %s instead.",
                            shape_text(0, qs, nq), shp(1, q));
    ACLSTUB_RETURN_ERROR_IF(!shape_is(r, rsh, nd), call, ACLNN_ERR_PARAM_INVALID,
                            "The output R should have the following shape %s, but got %s instead.",
                            shape_text(0, rsh, nd), shp(1, r));
    if (aclStubNumel(x) == 0 && aclStubNumel(q) == 0) return aclStubOpNothingToDo(call);
    ((QrPlan *)call->plan)->mode = mode;
    return OK;
}

static bool qr_item(const Batch *b, int64_t item) {
    const aclStubOpCall *call = b->call;
    const aclStubTensorDesc *x = aclStubOpTensor(call, QR_SELF), *qo = aclStubOpTensor(call, QR_Q),
                            *ro = aclStubOpTensor(call, QR_R);
    int mode = ((const QrPlan *)call->plan)->mode;
    bool cplx = aclStubIsComplex(x->dtype);
    int w = cplx ? 2 : 1;
    aclDataType via = x->dtype == ACL_FLOAT16 ? ACL_FLOAT : x->dtype;
    int64_t m = x->dims[x->ndim - 2], n = x->dims[x->ndim - 1], k = m < n ? m : n;
    int64_t qcols = mode == MODE_COMPLETE ? m : k, rrows = mode == MODE_COMPLETE ? m : k;
    double *a = malloc(sizeof(double) * (size_t)(w * (m > 0 ? m : 1) * (n > 0 ? n : 1)));
    double *q = mode == MODE_R ? NULL : malloc(sizeof(double) * (size_t)(w * (m > 0 ? m : 1) * (qcols > 0 ? qcols : 1)));
    if (a == NULL || (mode != MODE_R && q == NULL)) {
        free(a);
        free(q);
        return false;
    }
    if (m * n > 0) load_item(b, x, item, a, m, cplx, m, n);
    int info = aclStubLapackQr(cplx, m, n, a, m > 0 ? m : 1, q, m > 0 ? m : 1, mode == MODE_R ? 0 : qcols);
    if (info == -1000) {
        free(a);
        free(q);
        return false;
    }
    if (info != 0) {
        fill_nan(a, w * m * n);
        if (q) fill_nan(q, w * m * qcols);
    }
    if (q != NULL && m * qcols > 0)
        store_item(b, qo, 2, false, item, q, m, cplx, via, m, qcols);
    if (rrows * n > 0) store_item(b, ro, 2, false, item, a, m, cplx, via, rrows, n);
    free(a);
    free(q);
    return true;
}

static aclnnStatus qr_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, QR_SELF);
    return run_batch(call, (int)x->ndim - 2, x->dims, qr_item, NULL);
}

static const aclStubOpDef kQr = {"aclnnQr", kQrParams, ACLSTUB_LEN(kQrParams), NULL, qr_check, qr_kernel,
                                 sizeof(QrPlan)};
ACLSTUB_DEFINE_OP(aclnnQr, kQr, (const aclTensor *, self), (bool, some), (aclTensor *, Q), (aclTensor *, R))
static const aclStubOpDef kLinalgQr = {"aclnnLinalgQr", kLinalgQrParams, ACLSTUB_LEN(kLinalgQrParams), NULL,
                                       qr_check,        qr_kernel,       sizeof(QrPlan)};
ACLSTUB_DEFINE_OP(aclnnLinalgQr, kLinalgQr, (const aclTensor *, self), (int64_t, mode), (aclTensor *, Q),
                  (aclTensor *, R))

/* ==== aclnnSvd ======================================================================================================= */

#define SVD_DT (DT(ACL_DOUBLE) | DT(ACL_FLOAT) | DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128))
enum { SV_INPUT, SV_FULL, SV_UV, SV_SIGMA, SV_U, SV_V };
static const aclStubParam kSvdParams[] = {
    [SV_INPUT] = {"input", ACLSTUB_INPUT, 0},
    [SV_FULL] = {"fullMatrices", ACLSTUB_BOOL},
    [SV_UV] = {"computeUV", ACLSTUB_BOOL},
    [SV_SIGMA] = {"sigma", ACLSTUB_OUTPUT, 0, NULL, ANY},
    [SV_U] = {"u", ACLSTUB_OUTPUT, 0, NULL, ANY},
    [SV_V] = {"v", ACLSTUB_OUTPUT, 0, NULL, ANY},
};

static aclnnStatus svd_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, SV_INPUT);
    for (int i = SV_INPUT; i <= SV_V; i++)
        if (i == SV_INPUT || i >= SV_SIGMA) ACLSTUB_TRY(dtype_in(call, i, SVD_DT));
    ACLSTUB_TRY(same_dtype(call, SV_INPUT, SV_SIGMA));
    ACLSTUB_TRY(same_dtype(call, SV_INPUT, SV_U));
    ACLSTUB_TRY(same_dtype(call, SV_INPUT, SV_V));
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2, call, ACLNN_ERR_PARAM_INVALID,
                            "Input dim num should be greater than or equal to 2.");
    ACLSTUB_RETURN_ERROR_IF(x->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "Input dim num should be less than or equal to 8.");
    bool full = aclStubOpBool(call, SV_FULL), uv = aclStubOpBool(call, SV_UV);
    uint32_t nb = x->ndim - 2;
    int64_t m = x->dims[nb], n = x->dims[nb + 1], k = m < n ? m : n;
    int64_t s[ACLSTUB_MAX_DIMS], u[ACLSTUB_MAX_DIMS], v[ACLSTUB_MAX_DIMS];
    memcpy(s, x->dims, sizeof(int64_t) * nb);
    memcpy(u, x->dims, sizeof(int64_t) * nb);
    memcpy(v, x->dims, sizeof(int64_t) * nb);
    s[nb] = k;
    u[nb] = m, u[nb + 1] = full ? m : k;
    v[nb] = n, v[nb + 1] = full ? n : k;
    ACLSTUB_RETURN_ERROR_IF(!shape_is(aclStubOpTensor(call, SV_SIGMA), s, nb + 1), call, ACLNN_ERR_PARAM_INVALID,
                            "Shape of output tensor sigma is invalid.");
    if (uv) {
        ACLSTUB_RETURN_ERROR_IF(!shape_is(aclStubOpTensor(call, SV_U), u, nb + 2), call, ACLNN_ERR_PARAM_INVALID,
                                "Shape of output tensor u is invalid.");
        ACLSTUB_RETURN_ERROR_IF(!shape_is(aclStubOpTensor(call, SV_V), v, nb + 2), call, ACLNN_ERR_PARAM_INVALID,
                                "Shape of output tensor v is invalid.");
    } else {
        aclStubOpIgnore(call, SV_U);
        aclStubOpIgnore(call, SV_V);
    }
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static bool svd_item(const Batch *b, int64_t item) {
    const aclStubOpCall *call = b->call;
    const aclStubTensorDesc *x = aclStubOpTensor(call, SV_INPUT), *so = aclStubOpTensor(call, SV_SIGMA),
                            *uo = aclStubOpTensor(call, SV_U), *vo = aclStubOpTensor(call, SV_V);
    bool full = aclStubOpBool(call, SV_FULL), uv = uo != NULL;
    bool cplx = aclStubIsComplex(x->dtype);
    int w = cplx ? 2 : 1;
    int64_t m = x->dims[x->ndim - 2], n = x->dims[x->ndim - 1], k = m < n ? m : n;
    int64_t ucols = full ? m : k, vrows = full ? n : k;
    double *a = malloc(sizeof(double) * (size_t)(w * m * n)), *s = malloc(sizeof(double) * (size_t)k);
    double *u = uv ? malloc(sizeof(double) * (size_t)(w * m * ucols)) : NULL;
    double *vt = uv ? malloc(sizeof(double) * (size_t)(w * vrows * n)) : NULL;
    bool ok = a != NULL && s != NULL && (!uv || (u != NULL && vt != NULL));
    int info = 0;
    if (ok) {
        load_item(b, x, item, a, m, cplx, m, n);
        info = aclStubLapackSvd(cplx, full, m, n, a, m, s, u, m, vt, vrows);
        ok = info != -1000;
    }
    if (ok) {
        if (info != 0) {
            fill_nan(s, k);
            if (uv) fill_nan(u, w * m * ucols), fill_nan(vt, w * vrows * n);
        }
        store_item(b, so, 1, false, item, s, 1, false, x->dtype, 1, k);
        if (uv) {
            store_item(b, uo, 2, false, item, u, m, cplx, x->dtype, m, ucols);
            /* v = (V^H)^H: vt's rows are v's columns, conjugated */
            if (cplx)
                for (int64_t i = 0; i < vrows * n; i++) vt[2 * i + 1] = -vt[2 * i + 1];
            store_item(b, vo, 2, true, item, vt, vrows, cplx, x->dtype, vrows, n);
        }
    }
    free(a);
    free(s);
    free(u);
    free(vt);
    return ok;
}

static aclnnStatus svd_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, SV_INPUT);
    return run_batch(call, (int)x->ndim - 2, x->dims, svd_item, NULL);
}

static const aclStubOpDef kSvd = {"aclnnSvd", kSvdParams, ACLSTUB_LEN(kSvdParams), NULL, svd_check, svd_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnSvd, kSvd, (const aclTensor *, input), (const bool, fullMatrices), (const bool, computeUV),
                  (aclTensor *, sigma), (aclTensor *, u), (aclTensor *, v))

/* ==== aclnnTriangularSolve ========================================================================================== */

#define TS_DT (DT(ACL_FLOAT) | DT(ACL_DOUBLE) | DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128))
enum { TS_SELF, TS_A, TS_UPPER, TS_TRANS, TS_UNIT, TS_X, TS_M };
static const aclStubParam kTsParams[] = {
    [TS_SELF] = {"self", ACLSTUB_OPTIONAL_INPUT, 0},
    [TS_A] = {"A", ACLSTUB_OPTIONAL_INPUT, 0},
    [TS_UPPER] = {"upper", ACLSTUB_BOOL},
    [TS_TRANS] = {"transpose", ACLSTUB_BOOL},
    [TS_UNIT] = {"unitriangular", ACLSTUB_BOOL},
    [TS_X] = {"xOut", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ANY},
    [TS_M] = {"mOut", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ANY},
};

typedef struct {
    int nb;
    int64_t batch[ACLSTUB_MAX_DIMS];
} TsPlan;

static aclnnStatus ts_check(aclStubOpCall *call) {
    ACLSTUB_TRY(need(call, TS_SELF, ACLNN_ERR_INNER_NULLPTR));
    ACLSTUB_TRY(need(call, TS_A, ACLNN_ERR_INNER_NULLPTR));
    ACLSTUB_TRY(need(call, TS_X, ACLNN_ERR_INNER_NULLPTR));
    const aclStubTensorDesc *b = aclStubOpTensor(call, TS_SELF), *a = aclStubOpTensor(call, TS_A),
                            *x = aclStubOpTensor(call, TS_X), *mo = aclStubOpTensor(call, TS_M);
    ACLSTUB_TRY(dtype_in(call, TS_SELF, TS_DT));
    ACLSTUB_TRY(dtype_in(call, TS_A, TS_DT));
    ACLSTUB_TRY(dtype_in(call, TS_X, TS_DT));
    ACLSTUB_TRY(same_dtype(call, TS_SELF, TS_A));
    ACLSTUB_TRY(same_dtype(call, TS_SELF, TS_X));
    if (mo != NULL) {
        ACLSTUB_TRY(dtype_in(call, TS_M, TS_DT));
        ACLSTUB_TRY(same_dtype(call, TS_SELF, TS_M));
    }
    ACLSTUB_TRY(rank_in(call, TS_SELF, 2, 0));
    ACLSTUB_TRY(rank_in(call, TS_A, 2, 0));
    ACLSTUB_TRY(rank_in(call, TS_X, 2, 0));
    ACLSTUB_TRY(rank_in(call, TS_SELF, 0, 8));
    ACLSTUB_TRY(rank_in(call, TS_A, 0, 8));
    ACLSTUB_TRY(rank_in(call, TS_X, 0, 8));
    int64_t ah = a->dims[a->ndim - 2], aw = a->dims[a->ndim - 1], bh = b->dims[b->ndim - 2], bw = b->dims[b->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(ah != aw, call, ACLNN_ERR_PARAM_INVALID,
                            "A must be batchs of square matrices, but they are %lld by %lld matrices.", (long long)ah,
                            (long long)aw);
    ACLSTUB_RETURN_ERROR_IF(bh != ah, call, ACLNN_ERR_PARAM_INVALID,
                            "Incompatible matrix sizes for triangular_solve: each A matrix is %lld by %lld but each b "
                            "matrix is %lld by %lld.",
                            (long long)ah, (long long)aw, (long long)bh, (long long)bw);
    int64_t tmp[ACLSTUB_MAX_DIMS], bs[ACLSTUB_MAX_DIMS];
    memcpy(tmp, b->dims, sizeof(int64_t) * b->ndim);
    tmp[b->ndim - 1] = bh;
    uint32_t nbs;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(a->dims, a->ndim, tmp, b->ndim, bs, &nbs), call,
                            ACLNN_ERR_PARAM_INVALID,
                            "Broadcast fail, the size of tensor a must match the size of tensor b at non-singleton "
                            "diemnsion.");
    int64_t xs[ACLSTUB_MAX_DIMS];
    memcpy(xs, bs, sizeof(int64_t) * nbs);
    xs[nbs - 1] = bw;
    ACLSTUB_RETURN_ERROR_IF(!shape_is(x, xs, nbs), call, ACLNN_ERR_PARAM_INVALID,
                            "Expected xOut's shape %s, but got %s.", shape_text(0, xs, nbs), shp(1, x));
    if (mo != NULL) {
        ACLSTUB_TRY(rank_in(call, TS_M, 2, 8));
        ACLSTUB_RETURN_ERROR_IF(!shape_is(mo, bs, nbs), call, ACLNN_ERR_PARAM_INVALID,
                                "Expected mOut's shape %s, but got %s.", shape_text(0, bs, nbs), shp(1, mo));
    }
    if (aclStubNumel(a) == 0 || aclStubNumel(b) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(call, TS_UNIT) && a->dtype != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID,
                            "unitriangular mode only support float.");
    TsPlan *p = call->plan;
    p->nb = (int)nbs - 2;
    memcpy(p->batch, bs, sizeof(int64_t) * (nbs - 2));
    return OK;
}

static bool ts_item(const Batch *bt, int64_t item) {
    const aclStubOpCall *call = bt->call;
    const aclStubTensorDesc *b = aclStubOpTensor(call, TS_SELF), *a = aclStubOpTensor(call, TS_A),
                            *x = aclStubOpTensor(call, TS_X), *mo = aclStubOpTensor(call, TS_M);
    bool cplx = aclStubIsComplex(a->dtype), unit = aclStubOpBool(call, TS_UNIT);
    int w = cplx ? 2 : 1;
    int64_t n = a->dims[a->ndim - 1], r = b->dims[b->ndim - 1];
    double *am = malloc(sizeof(double) * (size_t)(w * n * n)), *bm = malloc(sizeof(double) * (size_t)(w * n * r));
    if (am == NULL || bm == NULL) {
        free(am);
        free(bm);
        return false;
    }
    load_item(bt, a, item, am, n, cplx, n, n);
    if (mo != NULL) store_item(bt, mo, 2, false, item, am, n, cplx, a->dtype, n, n);
    if (unit) /* A * (1 - I) + I in float32 (FLOAT only): a NaN or infinity on the diagonal stays NaN */
        for (int64_t i = 0; i < n; i++) {
            float d = (float)am[i * n + i];
            am[i * n + i] = (double)(d * 0.0f + 1.0f);
        }
    load_item(bt, b, item, bm, n, cplx, n, r);
    aclStubLapackTrsm(cplx, aclStubOpBool(call, TS_UPPER), aclStubOpBool(call, TS_TRANS), n, r, am, n, bm, n);
    store_item(bt, x, 2, false, item, bm, n, cplx, a->dtype, n, r);
    free(am);
    free(bm);
    return true;
}

static aclnnStatus ts_kernel(const aclStubOpCall *call) {
    const TsPlan *p = call->plan;
    return run_batch(call, p->nb, p->batch, ts_item, NULL);
}

static const aclStubOpDef kTs = {"aclnnTriangularSolve", kTsParams, ACLSTUB_LEN(kTsParams), NULL,
                                 ts_check,               ts_kernel, sizeof(TsPlan)};
ACLSTUB_DEFINE_OP(aclnnTriangularSolve, kTs, (const aclTensor *, self), (const aclTensor *, A), (bool, upper),
                  (bool, transpose), (bool, unitriangular), (aclTensor *, xOut), (aclTensor *, mOut))
