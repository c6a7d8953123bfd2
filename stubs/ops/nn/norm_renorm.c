/*
 * The renorms of ops-nn norm/renorm: Renorm, InplaceRenorm (torch's renorm) and EmbeddingRenorm (torch's
 * embedding_renorm_).
 *
 * Renorm: every slice x.select(dim, i) whose p-norm exceeds maxNorm is scaled by maxNorm / (norm + 1e-7); the
 * others are copied. The norm is computed in float32 from the widened values: sum(|x|^p)^(1/p) (p = 1: sum |x|;
 * p = 2: sqrt(sum x^2); p = inf: max |x|; p = 0: the count of non-zero elements), the sums over a slice's elements in
 * row-major order and in the reduction engine's order (aclStubSumF32). As the op_api multiplies the input by the
 * factor in the input's dtype, a 16-bit input's factor is rounded to that dtype first, then each product rounded once.
 * EmbeddingRenorm renorms (dim 0) the rows of the 2-D selfRef that indices names, each once whatever its repetitions,
 * in place; an index outside [0, rows) fails the kernel (and is a check-mode finding). A NaN maxNorm is +inf.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_embedding_renorm.h"
#include "aclnnop/aclnn_renorm.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define FL ACLSTUB_DT_FLOATS

typedef struct {
    int64_t outer, len, inner; /* slices i < len of outer x inner elements */
    float p, max_norm;
    bool embedding;
} Plan;

static const aclStubTensorDesc *T(const aclStubOpCall *c, int i) { return c->v[i].tensor; }

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t s = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != s) return false;
        s *= t->dims[d];
    }
    return true;
}

static void load_run(float *dst, const aclStubTensorDesc *t, int64_t start, int64_t n) {
    if (contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowLoadF32(dst, (const char *)t->data + (t->offset + start) * (int64_t)es, t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) dst[j] = aclStubLoadPtrF32(t->dtype, aclStubElemAt(t, start + j));
}

static void store_run(const aclStubTensorDesc *t, int64_t start, const float *src, int64_t n) {
    if (contiguous(t)) {
        size_t es = aclDataTypeSize(t->dtype);
        aclStubRowStoreF32((char *)t->data + (t->offset + start) * (int64_t)es, src, t->dtype, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) aclStubStorePtrF32(t->dtype, aclStubElemAt(t, start + j), src[j]);
}

/* the p-norm of n values (overwritten) */
static float pnorm(float *v, int64_t n, float p) {
    if (isinf(p)) {
        float m = 0.0f;
        for (int64_t j = 0; j < n; j++) m = fabsf(v[j]) > m || v[j] != v[j] ? fabsf(v[j]) : m;
        return m;
    }
    if (p == 0.0f) {
        for (int64_t j = 0; j < n; j++) v[j] = v[j] != 0.0f;
        return aclStubSumF32(v, n);
    }
    if (p == 1.0f) {
        for (int64_t j = 0; j < n; j++) v[j] = fabsf(v[j]);
        return aclStubSumF32(v, n);
    }
    if (p == 2.0f) {
        for (int64_t j = 0; j < n; j++) v[j] = v[j] * v[j];
        return sqrtf(aclStubSumF32(v, n));
    }
    for (int64_t j = 0; j < n; j++) v[j] = (float)pow(fabs((double)v[j]), (double)p);
    return (float)pow((double)aclStubSumF32(v, n), 1.0 / (double)p);
}

/* the factor of a slice whose norm is `norm`, in the input's dtype */
static float factor(float norm, float max_norm, aclDataType dt) {
    float f = norm > max_norm ? max_norm / (norm + 1e-7f) : 1.0f;
    if (dt == ACL_FLOAT16) return aclStubF16ToF32(aclStubF32ToF16(f));
    if (dt == ACL_BF16) return aclStubBf16ToF32(aclStubF32ToBf16(f));
    return f;
}

typedef struct {
    const aclStubOpCall *c;
    const Plan *p;
    const aclStubTensorDesc *x, *y;
    const int64_t *rows; /* embedding: the rows to renorm (slice i is row rows[i]) */
    float *f;            /* per slice: the factor */
    int failed;
} Ctx;

/* slices [begin, end): their factors */
static void slice_norms(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const Plan *p = x->p;
    int64_t m = p->outer * p->inner;
    float *v = malloc((size_t)(m + 1) * sizeof(float));
    if (v == NULL) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t i = begin; i < end; i++) {
        int64_t s = x->rows ? x->rows[i] : i;
        for (int64_t o = 0; o < p->outer; o++) load_run(v + o * p->inner, x->x, (o * p->len + s) * p->inner, p->inner);
        x->f[i] = factor(pnorm(v, m, p->p), p->max_norm, x->x->dtype);
    }
    free(v);
}

/* rows (o, i) of `inner` elements: y = x * f[i] */
static void scale_rows(void *arg, int64_t begin, int64_t end) {
    Ctx *x = arg;
    const Plan *p = x->p;
    int64_t n = p->inner;
    float *v = malloc((size_t)(n + 1) * sizeof(float));
    if (v == NULL) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        int64_t o, i, s;
        if (x->rows) o = 0, i = r, s = x->rows[r];
        else o = r / p->len, i = r % p->len, s = i;
        int64_t base = (o * p->len + s) * n;
        load_run(v, x->x, base, n);
        float f = x->f[i];
        for (int64_t k = 0; k < n; k++) v[k] *= f;
        store_run(x->y, base, v, n);
    }
    free(v);
}

static aclnnStatus kernel(const aclStubOpCall *c) {
    const Plan *p = c->plan;
    Ctx x = {c, p, T(c, 0), NULL, NULL, NULL, 0};
    int64_t nslices = p->len;
    int64_t *rows = NULL;
    if (p->embedding) {
        x.y = x.x;
        const aclStubTensorDesc *idx = T(c, 1);
        const int64_t *iv;
        ACLSTUB_TRY(aclStubIndexLoad(c, idx, p->len, false, "indices", &iv));
        int64_t n = aclStubNumel(idx);
        rows = aclStubKernelScratch(c, (size_t)(n + 1) * (sizeof(int64_t) + sizeof(float)) + (size_t)p->len);
        if (rows == NULL) return aclStubKernelOutOfMemory(c);
        x.f = (float *)(void *)(rows + n + 1);
        unsigned char *seen = (unsigned char *)(x.f + n + 1);
        memset(seen, 0, (size_t)p->len);
        nslices = 0;
        for (int64_t j = 0; j < n; j++)
            if (!seen[iv[j]]) seen[iv[j]] = 1, rows[nslices++] = iv[j];
        x.rows = rows;
    } else {
        x.y = c->op->num_params > 4 ? T(c, 4) : x.x;
        x.f = aclStubKernelScratch(c, (size_t)(p->len + 1) * sizeof(float));
        if (x.f == NULL) return aclStubKernelOutOfMemory(c);
    }
    int64_t m = p->outer * p->inner;
    aclStubParallelFor(nslices, m > 0 ? 1 + 65536 / m : 1, slice_norms, &x);
    if (x.failed) return aclStubKernelOutOfMemory(c);
    int64_t nrows = p->embedding ? nslices : p->outer * p->len;
    aclStubParallelFor(nrows, p->inner > 0 ? 1 + 65536 / p->inner : 1, scale_rows, &x);
    return x.failed ? aclStubKernelOutOfMemory(c) : OK;
}

/* Renorm and InplaceRenorm: the op_api's rules after its NULL and dtype checks (the table's) */
static aclnnStatus check_renorm(aclStubOpCall *c) {
    Plan *p = c->plan;
    const aclStubTensorDesc *x = T(c, 0), *y = c->op->num_params > 4 ? T(c, 4) : x;
    ACLSTUB_RETURN_ERROR_IF(x->format != y->format, c, INVALID, "self's and out's formats must be equal");
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2 || y->ndim < 2, c, INVALID, "self and out must have at least 2 dimensions");
    ACLSTUB_RETURN_ERROR_IF(x->ndim > 8 || y->ndim > 8, c, INVALID, "self and out must have at most 8 dimensions");
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim), c, INVALID, "out has shape %s; "
                            "must be self's %s", aclStubShapeText(y->dims, y->ndim, a, sizeof a),
                            aclStubShapeText(x->dims, x->ndim, b, sizeof b));
    double pv = aclStubOpScalarF64(c, 1), mn = aclStubOpScalarF64(c, 3);
    int64_t dim = aclStubOpInt(c, 2), nd = x->ndim;
    ACLSTUB_RETURN_ERROR_IF((float)pv < 0.0f, c, INVALID, "p is %g; must be non-negative", pv);
    ACLSTUB_RETURN_ERROR_IF(dim < -nd || dim > nd - 1, c, INVALID, "dim is %lld; must be in [%lld, %lld]",
                            (long long)dim, (long long)-nd, (long long)(nd - 1));
    ACLSTUB_RETURN_ERROR_IF((float)mn < 0.0f, c, INVALID, "maxNorm is %g; must be non-negative", mn);
    if (dim < 0) dim += nd;
    p->outer = p->inner = 1;
    for (int64_t d = 0; d < nd; d++) {
        if (d < dim) p->outer *= x->dims[d];
        if (d > dim) p->inner *= x->dims[d];
    }
    p->len = x->dims[dim];
    p->p = (float)pv;
    p->max_norm = (float)mn;
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

/* EmbeddingRenorm: the op_api's rules after NULL and dtype checks */
static aclnnStatus check_embedding(aclStubOpCall *c) {
    Plan *p = c->plan;
    const aclStubTensorDesc *x = T(c, 0), *idx = T(c, 1);
    /* the dtype rules here: the table's would also refuse formats the op_api accepts (any but FRACTAL_NZ) */
    ACLSTUB_RETURN_ERROR_IF(!(ACLSTUB_DT(x->dtype) & FL), c, INVALID, "selfRef has data type %s; must be FLOAT, "
                            "FLOAT16 or BF16", aclStubDtypeName(x->dtype));
    ACLSTUB_RETURN_ERROR_IF(!(ACLSTUB_DT(idx->dtype) & ACLSTUB_DT_INDEX), c, INVALID, "indices has data type %s; must "
                            "be INT32 or INT64", aclStubDtypeName(idx->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, c, INVALID, "selfRef has %u dimensions; must have 2", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(idx->ndim > 8, c, INVALID, "indices has %u dimensions; must have at most 8", idx->ndim);
    ACLSTUB_RETURN_ERROR_IF(x->format == ACL_FORMAT_FRACTAL_NZ || idx->format == ACL_FORMAT_FRACTAL_NZ, c, INVALID,
                            "selfRef's and indices' formats must be ND");
    double mn = aclStubOpFloat(c, 2);
    p->embedding = true;
    p->outer = 1;
    p->len = x->dims[0];
    p->inner = x->dims[1];
    p->max_norm = isnan(mn) ? INFINITY : (float)mn;
    p->p = (float)aclStubOpFloat(c, 3);
    if (aclStubNumel(x) == 0 || aclStubNumel(idx) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static const aclStubParam P_RENORM[] = {
    {"self", ACLSTUB_INPUT, FL, NULL, 0, 0, 0}, {"p", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0}, {"maxNorm", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    {"out", ACLSTUB_OUTPUT, FL, "self", ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubParam P_INPLACE[] = {
    {"selfRef", ACLSTUB_INPLACE, FL, NULL, 0, 0, 0}, {"p", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0}, {"maxNorm", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0}};
static const aclStubParam P_EMB[] = {
    {"selfRef", ACLSTUB_INPLACE, 0, NULL, 0, 0, 0}, {"indices", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"maxNorm", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0}, {"normType", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0}};

static const aclStubOpDef OP_RENORM = {"aclnnRenorm", P_RENORM, ACLSTUB_LEN(P_RENORM), NULL, check_renorm, kernel,
                                       sizeof(Plan)};
static const aclStubOpDef OP_INPLACE = {"aclnnInplaceRenorm", P_INPLACE, ACLSTUB_LEN(P_INPLACE), NULL, check_renorm,
                                        kernel, sizeof(Plan)};
static const aclStubOpDef OP_EMB = {"aclnnEmbeddingRenorm", P_EMB, ACLSTUB_LEN(P_EMB), NULL, check_embedding, kernel,
                                    sizeof(Plan)};

ACLSTUB_DEFINE_OP(aclnnRenorm, OP_RENORM, (const aclTensor *, self), (const aclScalar *, p), (int64_t, dim),
                  (const aclScalar *, maxNorm), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceRenorm, OP_INPLACE, (aclTensor *, selfRef), (const aclScalar *, p), (int64_t, dim),
                  (const aclScalar *, maxNorm))
ACLSTUB_DEFINE_OP(aclnnEmbeddingRenorm, OP_EMB, (aclTensor *, selfRef), (const aclTensor *, indices),
                  (double, maxNorm), (double, normType))
