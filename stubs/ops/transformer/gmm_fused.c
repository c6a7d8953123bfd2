/*
 * The fused grouped matrix products of ops-transformer gmm/: aclnnGroupedMatmulAdd and aclnnGroupedMatmulSwigluQuant
 * (+WeightNZ), on the matmul engine (aclstub/op_matmul.h), one product per group of the group list.
 *
 * GroupedMatmulAdd (no op_api: the toolkit generates its phase 1 from the operator's definition, which checks the
 * dtypes; the shape rules are the tiling's): x (k, m) and weight (k, n) split along k by the cumulative group list,
 * y (groups * m, n) FLOAT updated in place, y[g] += x[k_g]^T @ w[k_g], the 16-bit products exact, summed in float32.
 * The device's kernel is built for transposeX true and transposeWeight false only; the stub, as the device, reads
 * x as (k, m) and weight as (k, n) whatever the attributes say.
 *
 * GroupedMatmulSwigluQuant (A8W8): for the rows of each group (cumulative INT64 group list, one expert each),
 * C = float32(x @ w[e]) * weightScale[e] * xScale (the dequantisation row of the engine), then
 * S = silu(C[:, :n/2]) * C[:, n/2:], outputScale = max|S| / 127 per row, output = round-half-even(S / outputScale)
 * saturated to INT8 (a row of zeros gives zeros and a zero scale). Rows past the last group are not written.
 * The weight is FRACTAL_NZ, as the op_api requires for INT8 weights: a 5-D (e, n/32, k/16, 16, 32) view, or an
 * (e, k, n) view of NZ data. An INT32 bias is added to the int32 sums (the docs' formula); offset and outputOffset
 * (the asymmetric mode the docs call unsupported) are not used.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_grouped_matmul_add.h"
#include "aclnnop/aclnn_grouped_matmul_finalize_routing_weight_nz.h"
#include "aclnnop/aclnn_grouped_matmul_finalize_routing_weight_nz_v2.h"
#include "aclnnop/aclnn_grouped_matmul_swiglu_quant.h"
#include "aclnnop/aclnn_grouped_matmul_swiglu_quant_weight_nz.h"
#include "aclstub/op_matmul.h"
#include "aclstub/op_nz.h"
#include "aclstub/op_reduce.h"

static char shape_buf[3][160];
static const char *shp(int k, const aclStubTensorDesc *t) {
    char *b = shape_buf[k];
    int n = snprintf(b, sizeof shape_buf[k], "[");
    for (uint32_t d = 0; t && d < t->ndim && n < 150; d++) n += snprintf(b + n, sizeof shape_buf[k] - (size_t)n, d ? ", %lld" : "%lld", (long long)t->dims[d]);
    snprintf(b + n, sizeof shape_buf[k] - (size_t)n, "]");
    return b;
}

/* A contiguous 2-D (rows, cols) view of dtype dt over data. */
static aclStubTensorDesc dense2(aclDataType dt, void *data, int64_t rows, int64_t cols) {
    aclStubTensorDesc v;
    memset(&v, 0, sizeof v);
    v.dtype = dt, v.format = ACL_FORMAT_ND, v.ndim = 2, v.data = data;
    v.dims[0] = rows, v.dims[1] = cols, v.strides[0] = cols, v.strides[1] = 1;
    return v;
}

/* Rows [r0, r0 + m) of a 2-D view, or of a 1-D one. */
static aclStubTensorDesc rows_of(const aclStubTensorDesc *t, int64_t r0, int64_t m) {
    aclStubTensorDesc v = *t;
    v.offset += r0 * t->strides[0];
    v.dims[0] = m;
    return v;
}

/* Cumulative group ends of an INT64 group list (1-D); n entries. */
static int64_t group_end(const aclStubTensorDesc *gl, int64_t g) { return aclStubIndex1(gl, g); }

/* ==== GroupedMatmulAdd ============================================================================================= */

enum { GA_X, GA_W, GA_GL, GA_Y, GA_TX, GA_TW, GA_GT };
#define F16S (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))
static const aclStubParam kGaParams[] = {
    {.name = "x", .role = ACLSTUB_INPUT, .dtypes = F16S},
    {.name = "weight", .role = ACLSTUB_INPUT, .dtypes = F16S, .same_dtype_as = "x"},
    {.name = "groupList", .role = ACLSTUB_INPUT, .dtypes = ACLSTUB_DT(ACL_INT64)},
    {.name = "yRef", .role = ACLSTUB_INPLACE, .dtypes = ACLSTUB_DT(ACL_FLOAT)},
    {.name = "transposeX", .role = ACLSTUB_BOOL},
    {.name = "transposeWeight", .role = ACLSTUB_BOOL},
    {.name = "groupType", .role = ACLSTUB_INT},
};

static aclnnStatus ga_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, GA_X), *w = aclStubOpTensor(call, GA_W),
                            *gl = aclStubOpTensor(call, GA_GL), *y = aclStubOpTensor(call, GA_Y);
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "xShape error xShape.GetDimNum():%u", x->ndim);
    ACLSTUB_RETURN_ERROR_IF(w->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "wShape error wShape.GetDimNum():%u", w->ndim);
    ACLSTUB_RETURN_ERROR_IF(gl->ndim != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "groupListShape error groupListShape.GetDimNum():%u", gl->ndim);
    ACLSTUB_RETURN_ERROR_IF(x->dims[0] != w->dims[0], call, ACLNN_ERR_PARAM_INVALID, "shape Error xk:%lld wk:%lld",
                            (long long)x->dims[0], (long long)w->dims[0]);
    int64_t g = gl->dims[0], m = x->dims[1], n = w->dims[1];
    ACLSTUB_RETURN_ERROR_IF(aclStubOpInt(call, GA_GT) != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "groupType %lld is not supported: the groups split k (groupType 2)",
                            (long long)aclStubOpInt(call, GA_GT));
    ACLSTUB_RETURN_ERROR_IF(y->ndim != 2 || y->dims[0] != g * m || y->dims[1] != n, call, ACLNN_ERR_PARAM_INVALID,
                            "yRef %s must be [groups * m, n] = [%lld, %lld] for x %s, weight %s and %lld groups",
                            shp(0, y), (long long)(g * m), (long long)n, shp(1, x), shp(2, w), (long long)g);
    if (aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus ga_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, GA_X), *w = aclStubOpTensor(call, GA_W),
                            *gl = aclStubOpTensor(call, GA_GL), *y = aclStubOpTensor(call, GA_Y);
    int64_t groups = gl->dims[0], m = x->dims[1], n = w->dims[1], ktot = x->dims[0], start = 0;
    for (int64_t g = 0; g < groups; g++) {
        int64_t end = group_end(gl, g);
        if (end < start || end > ktot)
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID,
                                     "groupList[%lld] = %lld: the cumulative k must grow and stay within x's %lld rows",
                                     (long long)g, (long long)end, (long long)ktot);
        aclStubTensorDesc xv = rows_of(x, start, end - start), wv = rows_of(w, start, end - start),
                          yv = rows_of(y, g * m, m);
        aclStubMatmul mm;
        memset(&mm, 0, sizeof mm);
        mm.m = m, mm.n = n, mm.k = end - start;
        mm.a = aclStubMatOfView(&xv, 0, NULL, true, true);
        mm.b = aclStubMatOfView(&wv, 0, NULL, false, false);
        mm.out = aclStubMatOfView(&yv, 0, NULL, false, true);
        mm.add = mm.out;
        mm.compute = aclStubMmComputeFor(x->dtype, w->dtype, 0);
        mm.result = ACL_FLOAT;
        mm.alpha = mm.beta = 1.0f;
        mm.skip_product = mm.k == 0;
        if (mm.k > 0) ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
        start = end;
    }
    return OK;
}

static const aclStubOpDef kGa = {"aclnnGroupedMatmulAdd", kGaParams, ACLSTUB_LEN(kGaParams), NULL, ga_check,
                                 ga_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulAdd, kGa, (const aclTensor *, x), (const aclTensor *, weight),
                  (const aclTensor *, groupList), (aclTensor *, yRef), (bool, transposeX), (bool, transposeWeight),
                  (int64_t, groupType))

/* ==== FRACTAL_NZ weights ============================================================================================== */

/*
 * Expert e of an INT8 NZ weight as a dense (k, n) matrix (aclstub/op_nz.h: the (k, n) matrix as
 * (ceil(n / 32), ceil(k / 16), 16, 32) blocks, an expert after the other), unpacked by the SDK on the stub's
 * threads. The view is the 5-D storage shape or the (e, k, n) shape; only the experts a group uses are unpacked.
 */
static void nz_expert_to_nd(const aclStubTensorDesc *w, int64_t e, int64_t k, int64_t n, int8_t *dst) {
    aclStubNzGeom g;
    memset(&g, 0, sizeof g);
    g.batch = 1, g.rows = k, g.cols = n, g.c0 = aclStubNzC0(ACL_INT8), g.r1 = (k + 15) / 16;
    g.c1 = (n + g.c0 - 1) / g.c0;
    const int8_t *base = (const int8_t *)w->data + w->offset + e * aclStubNzNumel(&g);
    aclStubNzUnpack(&g, ACL_INT8, base, dst);
}

/* ==== GroupedMatmulSwigluQuant ======================================================================================== */

enum { SQ_X, SQ_W, SQ_BIAS, SQ_OFFSET, SQ_WS, SQ_XS, SQ_GL, SQ_OUT, SQ_OS, SQ_OO };
static const aclStubParam kSqParams[] = {
    {.name = "x", .role = ACLSTUB_INPUT},
    {.name = "weight", .role = ACLSTUB_INPUT},
    {.name = "bias", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "offset", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "weightScale", .role = ACLSTUB_INPUT},
    {.name = "xScale", .role = ACLSTUB_INPUT},
    {.name = "groupList", .role = ACLSTUB_INPUT},
    {.name = "output", .role = ACLSTUB_OUTPUT},
    {.name = "outputScale", .role = ACLSTUB_OUTPUT},
    {.name = "outputOffset", .role = ACLSTUB_OPTIONAL_OUTPUT},
};
typedef struct {
    bool weight_nz_api; /* aclnnGroupedMatmulSwigluQuantWeightNZ: the weight is NZ whatever its format says */
} SqRow;

static bool sq_weight_nz(const aclStubOpCall *call) {
    const SqRow *r = aclStubFamilyRow(call);
    return r->weight_nz_api || aclStubOpTensor(call, SQ_W)->format == ACL_FORMAT_FRACTAL_NZ;
}
/* The weight's view is NZ (5-D) rather than (e, k, n). */
static bool sq_view_nz(const aclStubOpCall *call) {
    const SqRow *r = aclStubFamilyRow(call);
    const aclStubTensorDesc *w = aclStubOpTensor(call, SQ_W);
    return r->weight_nz_api ? w->ndim == 5 : aclStubIsPrivateFormat(w->format);
}

static aclnnStatus want_rank(aclStubOpCall *call, int i, uint32_t rank) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    ACLSTUB_RETURN_ERROR_IF(t->ndim != rank, call, ACLNN_ERR_PARAM_INVALID, "%s's dim num should be %u, but got %u.",
                            aclStubOpName(call, i), rank, t->ndim);
    return OK;
}
static aclnnStatus want_shape(aclStubOpCall *call, int i, const int64_t *dims, uint32_t rank) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    bool ok = t->ndim == rank;
    for (uint32_t d = 0; ok && d < rank; d++) ok = t->dims[d] == dims[d];
    if (ok) return OK;
    aclStubTensorDesc want;
    memset(&want, 0, sizeof want);
    want.ndim = rank;
    memcpy(want.dims, dims, sizeof(int64_t) * rank);
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "expected %s shape is %s, but got %s.",
                         aclStubOpName(call, i), shp(0, &want), shp(1, t));
}
static aclnnStatus want_dtype(aclStubOpCall *call, int i, uint64_t set) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    if (t == NULL || (ACLSTUB_DT(t->dtype) & set)) return OK;
    char buf[200];
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s's dtype %s should be in dtype support list [%s].",
                         aclStubOpName(call, i), aclStubDtypeName(t->dtype), aclStubDtypeSetName(set, buf, sizeof buf));
}

static aclnnStatus sq_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, SQ_X), *w = aclStubOpTensor(call, SQ_W),
                            *ws = aclStubOpTensor(call, SQ_WS), *gl = aclStubOpTensor(call, SQ_GL),
                            *out = aclStubOpTensor(call, SQ_OUT), *os = aclStubOpTensor(call, SQ_OS),
                            *bias = aclStubOpTensor(call, SQ_BIAS);
    const SqRow *row = aclStubFamilyRow(call);
    ACLSTUB_RETURN_ERROR_IF(row->weight_nz_api && w->storage_ndim != 5, call, ACLNN_ERR_PARAM_INVALID,
                            "The dimnum of storageShape for second input (weight) must be 5, but got %u.",
                            w->storage_ndim);
    bool a8w4 = x->dtype == ACL_INT8 && (w->dtype == ACL_INT4 || w->dtype == ACL_INT32);
    ACLSTUB_RETURN_ERROR_IF(a8w4 && bias == NULL, call, ACLNN_ERR_PARAM_NULLPTR,
                            "The current version does not support the scenario that without bias. When x is Int8 and "
                            "weight is int4, bias serves as an auxiliary matrix to weight, and this parameter cannot be "
                            "nullptr.");
    ACLSTUB_RETURN_ERROR_IF(a8w4, call, ACLNN_ERR_PARAM_INVALID,
                            "A8W4 (an INT4 weight, UINT64 weightScale and the bias as its auxiliary matrix) is not "
                            "implemented");
    if (x->dtype == ACL_INT8 && w->dtype == ACL_INT8) {
        ACLSTUB_TRY(want_rank(call, SQ_X, 2));
        ACLSTUB_TRY(want_rank(call, SQ_W, sq_view_nz(call) ? 5 : 3));
        ACLSTUB_TRY(want_rank(call, SQ_WS, 2));
        ACLSTUB_TRY(want_rank(call, SQ_XS, 1));
        ACLSTUB_TRY(want_rank(call, SQ_GL, 1));
        ACLSTUB_TRY(want_rank(call, SQ_OUT, 2));
        ACLSTUB_TRY(want_rank(call, SQ_OS, 1));
        int64_t m = x->dims[0], k = x->dims[1], n = ws->dims[1], e = w->dims[0];
        ACLSTUB_RETURN_ERROR_IF(n % 2 != 0, call, ACLNN_ERR_PARAM_INVALID, "N is %lld , not an even number.",
                                (long long)n);
        int64_t xs[2] = {m, k}, wnd[3] = {e, k, n}, wnz[5] = {e, n / 32, k / 16, 16, 32}, wss[2] = {e, n},
                xss[1] = {m}, outs[2] = {m, n / 2};
        ACLSTUB_TRY(want_shape(call, SQ_X, xs, 2));
        ACLSTUB_TRY(sq_view_nz(call) ? want_shape(call, SQ_W, wnz, 5) : want_shape(call, SQ_W, wnd, 3));
        ACLSTUB_TRY(want_shape(call, SQ_WS, wss, 2));
        ACLSTUB_TRY(want_shape(call, SQ_XS, xss, 1));
        ACLSTUB_TRY(want_shape(call, SQ_OUT, outs, 2));
        ACLSTUB_TRY(want_shape(call, SQ_OS, xss, 1));
        ACLSTUB_RETURN_ERROR_IF(gl->dims[0] > e, call, ACLNN_ERR_PARAM_INVALID,
                                "A8W8, Length of 'groupList' out of range (expected to be in range of [1, %lld], but "
                                "got %lld)", (long long)e, (long long)gl->dims[0]);
        ACLSTUB_RETURN_ERROR_IF(n > 10240, call, ACLNN_ERR_PARAM_INVALID,
                                "A8W8: The current version does not support the scenario that N(%lld) is greater than "
                                "10240.", (long long)n);
        ACLSTUB_RETURN_ERROR_IF(k >= 65536, call, ACLNN_ERR_PARAM_INVALID,
                                "A8W8, The tail axis dimension of input0(x) is %lld, which need lower than 65536.",
                                (long long)k);
    }
    ACLSTUB_TRY(want_dtype(call, SQ_X, ACLSTUB_DT(ACL_INT8)));
    ACLSTUB_TRY(want_dtype(call, SQ_W, ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT4)));
    ACLSTUB_TRY(want_dtype(call, SQ_WS, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(want_dtype(call, SQ_XS, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(want_dtype(call, SQ_GL, ACLSTUB_DT(ACL_INT64)));
    ACLSTUB_TRY(want_dtype(call, SQ_OUT, ACLSTUB_DT(ACL_INT8)));
    ACLSTUB_TRY(want_dtype(call, SQ_OS, ACLSTUB_DT(ACL_FLOAT)));
    ACLSTUB_RETURN_ERROR_IF(!sq_weight_nz(call), call, ACLNN_ERR_PARAM_INVALID,
                            "The current version does not support the scenario.weight Format expect is FRACTAL_NZ, but "
                            "got [%d].", (int)w->format);
    ACLSTUB_RETURN_ERROR_IF(aclStubIsPrivateFormat(x->format), call, ACLNN_ERR_PARAM_INVALID,
                            "The current version does not support the scenario.x Format Not support Private Format.");
    ACLSTUB_RETURN_ERROR_IF(aclStubIsPrivateFormat(out->format), call, ACLNN_ERR_PARAM_INVALID,
                            "The current version does not support the scenario.output Format Not support Private "
                            "Format.");
    if (bias) ACLSTUB_TRY(want_dtype(call, SQ_BIAS, ACLSTUB_DT(ACL_INT32)));
    int64_t k = x->dims[1], n = ws->dims[1];
    ACLSTUB_RETURN_ERROR_IF(k % 16 != 0 || n % 32 != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "a FRACTAL_NZ INT8 weight needs k (%lld) a multiple of 16 and n (%lld) a multiple of 32 "
                            "(the stub reads unpadded NZ blocks)", (long long)k, (long long)n);
    for (int i = 0; i < 10; i++)
        if (aclStubOpTensor(call, i)) ACLSTUB_TRY(aclStubOpCheckDimsNonNegative(call, i, ACLNN_ERR_PARAM_INVALID));
    aclStubOpIgnore(call, SQ_OFFSET);
    aclStubOpIgnore(call, SQ_OO);
    if (aclStubNumel(out) == 0 || aclStubNumel(gl) == 0 || aclStubNumel(os) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const float *c; /* (m, n) dequantised products */
    int64_t n2;     /* n / 2 */
    const aclStubTensorDesc *out, *os;
    int64_t r0;     /* the group's first row in out */
    float *tmp;     /* per row: n2 floats (rows of the group) */
} SqJob;

static void sq_rows(void *ctx, int64_t begin, int64_t end) {
    const SqJob *j = ctx;
    int64_t n2 = j->n2;
    for (int64_t i = begin; i < end; i++) {
        const float *c = j->c + i * 2 * n2;
        float *s = j->tmp + i * n2, mx = 0.0f;
        for (int64_t t = 0; t < n2; t++) {
            float a = c[t];
            s[t] = a / (1.0f + expf(-a)) * c[n2 + t];
            float v = fabsf(s[t]);
            if (v > mx || v != v) mx = v;
        }
        float scale = mx / 127.0f;
        int8_t *o = aclStubElem2(j->out, j->r0 + i, 0);
        int64_t ocs = j->out->strides[1];
        for (int64_t t = 0; t < n2; t++) {
            float q = rintf(s[t] / scale);
            o[t * ocs] = q != q ? 0 : q >= 127.0f ? 127 : q <= -128.0f ? -128 : (int8_t)q;
        }
        *(float *)aclStubElem1(j->os, j->r0 + i) = scale;
    }
}

static aclnnStatus sq_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, SQ_X), *w = aclStubOpTensor(call, SQ_W),
                            *ws = aclStubOpTensor(call, SQ_WS), *xs = aclStubOpTensor(call, SQ_XS),
                            *gl = aclStubOpTensor(call, SQ_GL), *out = aclStubOpTensor(call, SQ_OUT),
                            *os = aclStubOpTensor(call, SQ_OS), *bias = aclStubOpTensor(call, SQ_BIAS);
    int64_t m = x->dims[0], k = x->dims[1], n = ws->dims[1], groups = gl->dims[0], start = 0;
    int8_t *wnd = NULL;
    float *c = NULL, *tmp = NULL;
    for (int64_t g = 0; g < groups; g++) {
        int64_t end = group_end(gl, g);
        if (end < start || end > m)
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID,
                                     "groupList[%lld] = %lld: the cumulative rows must grow and stay within x's %lld "
                                     "rows", (long long)g, (long long)end, (long long)m);
        int64_t rows = end - start;
        if (rows == 0) continue;
        if (wnd == NULL) {
            wnd = aclStubKernelScratch(call, (size_t)(k * n));
            c = aclStubKernelScratch(call, sizeof(float) * (size_t)(m * n));
            tmp = aclStubKernelScratch(call, sizeof(float) * (size_t)(m * (n / 2)));
            if (wnd == NULL || c == NULL || tmp == NULL) return aclStubKernelOutOfMemory(call);
        }
        nz_expert_to_nd(w, g, k, n, wnd);
        aclStubTensorDesc xv = rows_of(x, start, rows), wv = dense2(ACL_INT8, wnd, k, n),
                          cv = dense2(ACL_FLOAT, c, rows, n), wsv = *ws, bv;
        wsv.offset += g * ws->strides[0];
        wsv.ndim = 1, wsv.dims[0] = n, wsv.strides[0] = ws->strides[1];
        aclStubMmDequant dq;
        memset(&dq, 0, sizeof dq);
        dq.scale = aclStubMatOfView(&wsv, 0, NULL, false, true);
        dq.offset.dtype = dq.bias.dtype = ACL_DT_UNDEFINED;
        aclStubTensorDesc xsv = rows_of(xs, start, rows);
        dq.pertoken.dtype = xsv.dtype, dq.pertoken.data = xsv.data, dq.pertoken.offset = xsv.offset;
        dq.pertoken.rs = xsv.strides[0];
        if (bias) {
            bv = *bias;
            bv.offset += g * bias->strides[0];
            bv.ndim = 1, bv.dims[0] = n, bv.strides[0] = bias->strides[1];
            dq.bias = aclStubMatOfView(&bv, 0, NULL, false, true);
        }
        aclStubMatmul mm;
        memset(&mm, 0, sizeof mm);
        mm.m = rows, mm.n = n, mm.k = k;
        mm.a = aclStubMatOfView(&xv, 0, NULL, false, true);
        mm.b = aclStubMatOfView(&wv, 0, NULL, false, false);
        mm.out = aclStubMatOfView(&cv, 0, NULL, false, true);
        mm.add.dtype = ACL_DT_UNDEFINED;
        mm.alpha = mm.beta = 1.0f;
        mm.compute = ACLSTUB_MM_INT;
        mm.result = ACL_INT32;
        mm.row_fn = aclStubMmDequantRow;
        mm.ctx = &dq;
        ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
        SqJob j = {c, n / 2, out, os, start, tmp};
        aclStubParallelFor(rows, 16, sq_rows, &j);
        start = end;
    }
    return OK;
}

static const SqRow kSqRow = {false}, kSqNzRow = {true};
static const aclStubFamilyOp kSq = {{"aclnnGroupedMatmulSwigluQuant", kSqParams, ACLSTUB_LEN(kSqParams), NULL,
                                     sq_check, sq_kernel, 0}, &kSqRow};
static const aclStubFamilyOp kSqNz = {{"aclnnGroupedMatmulSwigluQuantWeightNZ", kSqParams, ACLSTUB_LEN(kSqParams),
                                       NULL, sq_check, sq_kernel, 0}, &kSqNzRow};
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulSwigluQuant, kSq.def, (const aclTensor *, x), (const aclTensor *, weight),
                  (const aclTensor *, bias), (const aclTensor *, offset), (const aclTensor *, weightScale),
                  (const aclTensor *, xScale), (const aclTensor *, groupList), (aclTensor *, output),
                  (aclTensor *, outputScale), (aclTensor *, outputOffset))
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulSwigluQuantWeightNZ, kSqNz.def, (const aclTensor *, x),
                  (const aclTensor *, weight), (const aclTensor *, bias), (const aclTensor *, offset),
                  (const aclTensor *, weightScale), (const aclTensor *, xScale), (const aclTensor *, groupList),
                  (aclTensor *, output), (aclTensor *, outputScale), (aclTensor *, outputOffset))

/* ==== GroupedMatmulFinalizeRoutingWeightNz (+V2) ======================================================================= */

/*
 * A8W8 with an NZ weight (an (e, k, n) view of NZ data): the rows of x1 in groups of counts (groupListType 1), one
 * expert each; row i of a group gives v = float32(x1[i] @ w[e]) * scale[e] * (pertokenScale[i] * logit[i]) (the
 * per-row factor multiplied first, as the kernel broadcasts it), and out[rowIndex[i]] += v in row order. out starts
 * as zeros, rows [sharedInputOffset, sharedInputOffset + len) as sharedInput * sharedInputWeight. bias is
 * reserved (not used), as the docs say; the stub derives the NZ storage shape from the view (a tensor description
 * holds no storage shape).
 */
enum { FR_X1, FR_X2, FR_SCALE, FR_BIAS, FR_PT, FR_GL, FR_SHARED, FR_LOGIT, FR_ROW, FR_DTYPE, FR_SW, FR_SO, FR_TX1,
       FR_TX2, FR_GLT, FR_OUT, FR_N };
typedef struct {
    int p[FR_N];      /* parameter index of each role */
    int offset, tuning; /* V2's offsetOptional and tuningConfigOptional, -1 for V1 */
} FrRow;

static const aclStubParam kFrParams[] = {
    {.name = "x1", .role = ACLSTUB_INPUT},
    {.name = "x2", .role = ACLSTUB_INPUT},
    {.name = "scale", .role = ACLSTUB_INPUT},
    {.name = "bias", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "pertokenScaleOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "groupList", .role = ACLSTUB_INPUT},
    {.name = "sharedInput", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "logit", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "rowIndex", .role = ACLSTUB_INPUT},
    {.name = "dtype", .role = ACLSTUB_INT},
    {.name = "sharedInputWeight", .role = ACLSTUB_FLOAT},
    {.name = "sharedInputOffset", .role = ACLSTUB_INT},
    {.name = "transposeX1", .role = ACLSTUB_BOOL},
    {.name = "transposeX2", .role = ACLSTUB_BOOL},
    {.name = "groupListType", .role = ACLSTUB_INT},
    {.name = "out", .role = ACLSTUB_OUTPUT},
};
static const aclStubParam kFr2Params[] = {
    {.name = "x1", .role = ACLSTUB_INPUT},
    {.name = "x2", .role = ACLSTUB_INPUT},
    {.name = "scale", .role = ACLSTUB_INPUT},
    {.name = "bias", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "offsetOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "antiquantScaleOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "antiquantOffsetOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "pertokenScaleOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "groupList", .role = ACLSTUB_INPUT},
    {.name = "sharedInput", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "logit", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "rowIndex", .role = ACLSTUB_INPUT},
    {.name = "dtype", .role = ACLSTUB_INT},
    {.name = "sharedInputWeight", .role = ACLSTUB_FLOAT},
    {.name = "sharedInputOffset", .role = ACLSTUB_INT},
    {.name = "transposeX1", .role = ACLSTUB_BOOL},
    {.name = "transposeX2", .role = ACLSTUB_BOOL},
    {.name = "groupListType", .role = ACLSTUB_INT},
    {.name = "tuningConfigOptional", .role = ACLSTUB_INT_ARRAY, .flags = ACLSTUB_NULLABLE},
    {.name = "out", .role = ACLSTUB_OUTPUT},
};
/*                          x1 x2 sc bi pt gl sh lo ri dt sw so t1 t2 glt out */
static const FrRow kFrRow = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, -1, -1};
static const FrRow kFr2Row = {{0, 1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19}, 4, 18};

static const aclStubTensorDesc *fr_t(const aclStubOpCall *call, int role) {
    const FrRow *r = aclStubFamilyRow(call);
    return aclStubOpTensor(call, r->p[role]);
}

static aclnnStatus fr_dims(aclStubOpCall *call, int role, uint32_t rank) {
    const FrRow *r = aclStubFamilyRow(call);
    const aclStubTensorDesc *t = aclStubOpTensor(call, r->p[role]);
    if (t == NULL) return OK;
    return want_rank(call, r->p[role], rank);
}
static aclnnStatus fr_dtype(aclStubOpCall *call, int role, uint64_t set) {
    const FrRow *r = aclStubFamilyRow(call);
    return want_dtype(call, r->p[role], set);
}
static bool fr_empty(const aclStubTensorDesc *t) { return t != NULL && aclStubNumel(t) == 0; }

static aclnnStatus fr_check(aclStubOpCall *call) {
    const FrRow *r = aclStubFamilyRow(call);
    const aclStubTensorDesc *x1 = fr_t(call, FR_X1), *x2 = fr_t(call, FR_X2), *scale = fr_t(call, FR_SCALE),
                            *pt = fr_t(call, FR_PT), *gl = fr_t(call, FR_GL), *shared = fr_t(call, FR_SHARED),
                            *logit = fr_t(call, FR_LOGIT), *row = fr_t(call, FR_ROW), *out = fr_t(call, FR_OUT);
    bool int4 = x2->dtype == ACL_INT4 || x2->dtype == ACL_INT32;
    ACLSTUB_RETURN_ERROR_IF(r->offset >= 0 && int4 && pt == NULL, call, ACLNN_ERR_PARAM_NULLPTR,
                            "GroupedMatmulFinalizeRoutingWeightNz does not support nullptr for pertokenScale.");
    ACLSTUB_RETURN_ERROR_IF((shared == NULL) != (logit == NULL), call, ACLNN_ERR_PARAM_NULLPTR,
                            "GroupedMatmulFinalizeRoutingWeightNz do not support input nullptr.");
    ACLSTUB_RETURN_ERROR_IF(aclStubOpInt(call, r->p[FR_DTYPE]) != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "GroupedMatmulFinalizeRoutingWeightNz dtype must be 0, but is %lld.",
                            (long long)aclStubOpInt(call, r->p[FR_DTYPE]));
    ACLSTUB_RETURN_ERROR_IF(x2->ndim < 2, call, ACLNN_ERR_PARAM_INVALID,
                            "GroupedMatmulFinalizeRoutingWeightNz w's view dimNum should greater than 1, but is %u.",
                            x2->ndim);
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(call, r->p[FR_TX1]) || aclStubOpBool(call, r->p[FR_TX2]), call,
                            ACLNN_ERR_PARAM_INVALID, "GroupedMatmulFinalizeRoutingWeightNz transpose should be false");
    ACLSTUB_RETURN_ERROR_IF(x1->format != ACL_FORMAT_ND || x2->format != ACL_FORMAT_FRACTAL_NZ, call,
                            ACLNN_ERR_PARAM_INVALID,
                            "GroupedMatmulFinalizeRoutingWeightNzV2 do not support x1's format[%d], x2's format[%d]. "
                            "Only support x1: ND, x2: NZ", (int)x1->format, (int)x2->format);
    if (x2->storage_ndim > 0 && x2->ndim == 3) { /* CheckWeightNzStorageShape: the storage holds the NZ blocks */
        int64_t want = x2->dims[0] * ((x2->dims[2] + 31) / 32) * ((x2->dims[1] + 15) / 16) * 16 * 32, have = 1;
        for (uint32_t d = 0; d < x2->storage_ndim; d++) have *= x2->storage_dims[d];
        ACLSTUB_RETURN_ERROR_IF(!int4 && have != want, call, ACLNN_ERR_PARAM_INVALID,
                                "x2's storage shape holds %lld elements, but the NZ shape of its view needs %lld",
                                (long long)have, (long long)want);
    }
    ACLSTUB_RETURN_ERROR_IF(int4, call, ACLNN_ERR_PARAM_INVALID,
                            "A8W4 (an INT4/INT32 weight) is not implemented");
    ACLSTUB_RETURN_ERROR_IF(x2->storage_ndim > 0 && x2->storage_ndim < 5, call, ACLNN_ERR_PARAM_INVALID,
                            "x2's storage shape must have 5 to 9 dims (FRACTAL_NZ), but has %u", x2->storage_ndim);
    /* CheckDimRange (the NZ storage shape of an (e, k, n) view has 5 dims) */
    ACLSTUB_RETURN_ERROR_IF(x1->ndim < 2, call, ACLNN_ERR_PARAM_INVALID, "x1's dim num should be at least 2, but got %u.",
                            x1->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim < 2, call, ACLNN_ERR_PARAM_INVALID, "out's dim num should be at least 2, but got %u.",
                            out->ndim);
    ACLSTUB_TRY(fr_dims(call, FR_SCALE, 2));
    ACLSTUB_TRY(fr_dims(call, FR_PT, 1));
    ACLSTUB_TRY(fr_dims(call, FR_GL, 1));
    ACLSTUB_TRY(fr_dims(call, FR_SHARED, 2));
    ACLSTUB_TRY(fr_dims(call, FR_LOGIT, 1));
    ACLSTUB_TRY(fr_dims(call, FR_ROW, 1));
    /* CheckDtypeValid */
    ACLSTUB_TRY(fr_dtype(call, FR_X1, ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT4)));
    ACLSTUB_TRY(fr_dtype(call, FR_X2, ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT4)));
    ACLSTUB_TRY(fr_dtype(call, FR_SCALE, ACLSTUB_DT(ACL_FLOAT) | ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_BF16)));
    ACLSTUB_TRY(fr_dtype(call, FR_ROW, ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_INT32)));
    ACLSTUB_TRY(fr_dtype(call, FR_BIAS, ACLSTUB_DT(ACL_BF16)));
    ACLSTUB_TRY(fr_dtype(call, FR_PT, ACLSTUB_DT(ACL_FLOAT)));
    ACLSTUB_TRY(fr_dtype(call, FR_GL, ACLSTUB_DT(ACL_INT64)));
    ACLSTUB_TRY(fr_dtype(call, FR_SHARED, ACLSTUB_DT(ACL_BF16)));
    ACLSTUB_TRY(fr_dtype(call, FR_LOGIT, ACLSTUB_DT(ACL_FLOAT)));
    ACLSTUB_TRY(fr_dtype(call, FR_OUT, ACLSTUB_DT(ACL_FLOAT)));
    ACLSTUB_RETURN_ERROR_IF(x1->dtype != x2->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "x1 and x2 dtype should be same, actual x1 dtype is %s and x2 dtype is %s.",
                            aclStubDtypeName(x1->dtype), aclStubDtypeName(x2->dtype));
    /* CheckShape */
    ACLSTUB_RETURN_ERROR_IF(x1->ndim != 2 || x2->ndim != 3, call, ACLNN_ERR_PARAM_INVALID,
                            "input x Dims is %u, weight Dims is %u.", x1->ndim, x2->ndim);
    int64_t m = x1->dims[0], k = x1->dims[1], e = x2->dims[0], wk = x2->dims[1], n = x2->dims[2];
    ACLSTUB_RETURN_ERROR_IF(k != wk, call, ACLNN_ERR_PARAM_INVALID,
                            "x1 k dim and x2 k dim should be same, but x1 is %lld, x2 is %lld.", (long long)k,
                            (long long)wk);
    if (x2->storage_ndim >= 5) {
        int64_t k1 = x2->storage_dims[x2->storage_ndim - 3];
        ACLSTUB_RETURN_ERROR_IF((k + 15) / 16 * 16 != k1 * 16, call, ACLNN_ERR_PARAM_INVALID,
                                "AlignedK1 value %lld is not matched with k1 value times aligneValue, which is %lld.",
                                (long long)((k + 15) / 16 * 16), (long long)(k1 * 16));
    }
    ACLSTUB_RETURN_ERROR_IF(wk % 16 != 0 || n % 32 != 0 || n < 256, call, ACLNN_ERR_PARAM_INVALID,
                            "k dim %lld and n dim %lld do not support. only support k mod 16 equal 0, n mod 32 equal 0 "
                            "and n bigger or equal 256", (long long)wk, (long long)n);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "Out dim num should be equal to 2, but is %u.",
                            out->ndim);
    int64_t bs = out->dims[0], so = aclStubOpInt(call, r->p[FR_SO]), glt = aclStubOpInt(call, r->p[FR_GLT]);
    ACLSTUB_RETURN_ERROR_IF(bs > m || bs < 0, call, ACLNN_ERR_PARAM_INVALID,
                            "Out 1st dim should be less than or equal to x MDim , but out 1st dim is %lld", (long long)bs);
    ACLSTUB_RETURN_ERROR_IF(out->dims[1] != n, call, ACLNN_ERR_PARAM_INVALID,
                            "Out 2nd dim should be equal to weight NDim, but out 2nd dim is %lld, weight NDim is %lld.",
                            (long long)out->dims[1], (long long)n);
    ACLSTUB_RETURN_ERROR_IF(so < 0, call, ACLNN_ERR_PARAM_INVALID, "sharedInputOffset should bigger than or equal to 0");
    ACLSTUB_RETURN_ERROR_IF(glt != 1, call, ACLNN_ERR_PARAM_INVALID, "groupListType is 1, but is %lld", (long long)glt);
    ACLSTUB_RETURN_ERROR_IF(scale->dims[0] != e || scale->dims[1] != n, call, ACLNN_ERR_PARAM_INVALID,
                            "Scale fisrt dim should equal to weight EDim %lld, but actual is %lld. Scale last dim should "
                            "equal to weight NDim %lld or 1, but actual is %lld.", (long long)e,
                            (long long)scale->dims[0], (long long)n, (long long)scale->dims[1]);
    ACLSTUB_RETURN_ERROR_IF(pt && pt->dims[0] != m, call, ACLNN_ERR_PARAM_INVALID,
                            "pertokenScale fisrt dim should equal to x MDim %lld, but actual is %lld.", (long long)m,
                            (long long)pt->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(gl->dims[0] != e, call, ACLNN_ERR_PARAM_INVALID,
                            "groupList fisrt dim should equal to weight EDim %lld, but actual is %lld.", (long long)e,
                            (long long)gl->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(shared && (shared->dims[0] > bs || shared->dims[1] != n), call, ACLNN_ERR_PARAM_INVALID,
                            "shareInput fisrt dim should less than or equal to outputBS %lld, but actual is %lld. "
                            "shareInput last dim should equal to weight NDim %lld, but actual is %lld.", (long long)bs,
                            (long long)shared->dims[0], (long long)n, (long long)shared->dims[1]);
    ACLSTUB_RETURN_ERROR_IF(logit && logit->dims[0] != m, call, ACLNN_ERR_PARAM_INVALID,
                            "logit fisrt dim should equal to x MDim %lld, but actual is %lld.", (long long)m,
                            (long long)logit->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(row->dims[0] != m, call, ACLNN_ERR_PARAM_INVALID,
                            "rowIndex fisrt dim should equal to x MDim %lld, but actual is %lld.", (long long)m,
                            (long long)row->dims[0]);
    int64_t sl = shared ? shared->dims[0] : 0;
    ACLSTUB_RETURN_ERROR_IF(so + sl > bs, call, ACLNN_ERR_PARAM_INVALID,
                            "shareInputOffset add shareInputDim should be less than or equal to outputBS, but "
                            "shareInputOffset is %lld, weight is %lld.", (long long)(so + sl), (long long)bs);
    ACLSTUB_RETURN_ERROR_IF(fr_empty(pt), call, ACLNN_ERR_PARAM_INVALID,
                            "GroupedMatmulFinalizeRouting do not support pertokenScaleOptional size is 0.");
    ACLSTUB_RETURN_ERROR_IF(fr_empty(x1) || fr_empty(x2) || fr_empty(scale) || fr_empty(gl) || fr_empty(shared) ||
                                fr_empty(logit) || fr_empty(row),
                            call, ACLNN_ERR_PARAM_INVALID,
                            "GroupedMatmulFinalizeRouting WeightNz do not support input tensor size is 0.");
    /* CheckFormat */
    for (int role = FR_SCALE; role <= FR_ROW; role++) {
        const aclStubTensorDesc *t = fr_t(call, role);
        ACLSTUB_RETURN_ERROR_IF(t && t->format != ACL_FORMAT_ND, call, ACLNN_ERR_PARAM_INVALID,
                                "%s's format should be ND. actual is [%d].", aclStubOpName(call, r->p[role]),
                                (int)t->format);
    }
    if (r->offset >= 0 && aclStubOpTensor(call, r->offset))
        ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(call, r->offset)->format != ACL_FORMAT_ND, call,
                                ACLNN_ERR_PARAM_INVALID, "offset's format should be ND.");
    ACLSTUB_RETURN_ERROR_IF(out->format != ACL_FORMAT_ND, call, ACLNN_ERR_PARAM_INVALID,
                            "out's format should be ND. actual is [%d].", (int)out->format);
    if (r->tuning >= 0 && call->v[r->tuning].present && call->v[r->tuning].size > 0) {
        int64_t tc = call->v[r->tuning].ints[0];
        ACLSTUB_RETURN_ERROR_IF(tc < 0 || tc > m, call, ACLNN_ERR_PARAM_INVALID,
                                "GroupedMatmulFinalizeRouting Invalid tuningConfigOptional (%lld)! It should be a "
                                "non-negative num and smaller than (%lld)", (long long)tc, (long long)m);
    }
    aclStubOpIgnore(call, r->p[FR_BIAS]);
    if (r->offset >= 0)
        for (int i = r->offset; i < r->offset + 3; i++) aclStubOpIgnore(call, i);
    return OK;
}

typedef struct {
    const float *c;        /* (rows, n) products of the group */
    const aclStubTensorDesc *row, *out;
    int64_t r0, rows, n, bs;
} FrJob;
/* out[rowIndex[i]] += c[i] over the columns [begin, end), the rows in order */
static void fr_cols(void *ctx, int64_t begin, int64_t end) {
    const FrJob *j = ctx;
    for (int64_t i = 0; i < j->rows; i++) {
        int64_t dst = aclStubIndex1(j->row, j->r0 + i);
        const float *c = j->c + i * j->n;
        float *o = aclStubElem2(j->out, dst, 0);
        int64_t cs = j->out->strides[1];
        for (int64_t t = begin; t < end; t++) o[t * cs] += c[t];
    }
}

static aclnnStatus fr_kernel(const aclStubOpCall *call) {
    const FrRow *r = aclStubFamilyRow(call);
    const aclStubTensorDesc *x1 = fr_t(call, FR_X1), *x2 = fr_t(call, FR_X2), *scale = fr_t(call, FR_SCALE),
                            *pt = fr_t(call, FR_PT), *gl = fr_t(call, FR_GL), *shared = fr_t(call, FR_SHARED),
                            *logit = fr_t(call, FR_LOGIT), *row = fr_t(call, FR_ROW), *out = fr_t(call, FR_OUT);
    int64_t m = x1->dims[0], k = x1->dims[1], n = x2->dims[2], e = x2->dims[0], bs = out->dims[0];
    int64_t so = aclStubOpInt(call, r->p[FR_SO]), sl = shared ? shared->dims[0] : 0;
    float sw = (float)aclStubOpFloat(call, r->p[FR_SW]);
    /* every destination row first: nothing is written when one is out of range */
    int64_t total = 0;
    for (int64_t g = 0; g < e; g++) {
        int64_t cnt = group_end(gl, g);
        if (cnt < 0 || total + cnt > m)
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID,
                                     "groupList[%lld] = %lld: the counts must be non-negative and sum to at most x1's "
                                     "%lld rows", (long long)g, (long long)cnt, (long long)m);
        total += cnt;
    }
    for (int64_t i = 0; i < total; i++) {
        int64_t dst = aclStubIndex1(row, i);
        if (dst < 0 || dst >= bs)
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID, "rowIndex[%lld] = %lld is outside out's %lld rows",
                                     (long long)i, (long long)dst, (long long)bs);
    }
    for (int64_t i = 0; i < bs; i++)
        for (int64_t t = 0; t < n; t++) {
            float v = 0.0f;
            if (i >= so && i < so + sl) v = aclStubLoad2F32(shared, i - so, t) * sw;
            aclStubStore2F32(out, i, t, v);
        }
    if (total == 0) return OK;
    int8_t *wnd = aclStubKernelScratch(call, (size_t)(k * n));
    float *c = aclStubKernelScratch(call, sizeof(float) * (size_t)(m * n)),
          *fac = aclStubKernelScratch(call, sizeof(float) * (size_t)m);
    if (wnd == NULL || c == NULL || fac == NULL) return aclStubKernelOutOfMemory(call);
    for (int64_t i = 0; i < total; i++)
        fac[i] = pt && logit ? aclStubLoadF32(pt, i) * aclStubLoadF32(logit, i)
                 : pt        ? aclStubLoadF32(pt, i)
                 : logit     ? aclStubLoadF32(logit, i)
                             : 1.0f;
    int64_t start = 0;
    for (int64_t g = 0; g < e; g++) {
        int64_t rows = group_end(gl, g);
        if (rows == 0) continue;
        nz_expert_to_nd(x2, g, k, n, wnd);
        aclStubTensorDesc xv = rows_of(x1, start, rows), wv = dense2(ACL_INT8, wnd, k, n),
                          cv = dense2(ACL_FLOAT, c, rows, n), sv = *scale;
        sv.offset += g * scale->strides[0];
        sv.ndim = 1, sv.dims[0] = n, sv.strides[0] = scale->strides[1];
        aclStubMmDequant dq;
        memset(&dq, 0, sizeof dq);
        dq.scale = aclStubMatOfView(&sv, 0, NULL, false, true);
        dq.offset.dtype = dq.bias.dtype = ACL_DT_UNDEFINED;
        dq.pertoken.dtype = ACL_FLOAT, dq.pertoken.data = fac, dq.pertoken.offset = start, dq.pertoken.rs = 1;
        aclStubMatmul mm;
        memset(&mm, 0, sizeof mm);
        mm.m = rows, mm.n = n, mm.k = k;
        mm.a = aclStubMatOfView(&xv, 0, NULL, false, true);
        mm.b = aclStubMatOfView(&wv, 0, NULL, false, false);
        mm.out = aclStubMatOfView(&cv, 0, NULL, false, true);
        mm.add.dtype = ACL_DT_UNDEFINED;
        mm.alpha = mm.beta = 1.0f;
        mm.compute = ACLSTUB_MM_INT;
        mm.result = ACL_INT32;
        mm.row_fn = aclStubMmDequantRow;
        mm.ctx = &dq;
        ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
        FrJob j = {c, row, out, start, rows, n, bs};
        aclStubParallelFor(n, 256, fr_cols, &j);
        start += rows;
    }
    return OK;
}

static const aclStubFamilyOp kFr = {{"aclnnGroupedMatmulFinalizeRoutingWeightNz", kFrParams, ACLSTUB_LEN(kFrParams),
                                     NULL, fr_check, fr_kernel, 0}, &kFrRow};
static const aclStubFamilyOp kFr2 = {{"aclnnGroupedMatmulFinalizeRoutingWeightNzV2", kFr2Params,
                                      ACLSTUB_LEN(kFr2Params), NULL, fr_check, fr_kernel, 0}, &kFr2Row};
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulFinalizeRoutingWeightNz, kFr.def, (const aclTensor *, x1), (const aclTensor *, x2),
                  (const aclTensor *, scale), (const aclTensor *, bias), (const aclTensor *, pertokenScaleOptional),
                  (const aclTensor *, groupList), (const aclTensor *, sharedInput), (const aclTensor *, logit),
                  (const aclTensor *, rowIndex), (int64_t, dtype), (float, sharedInputWeight),
                  (int64_t, sharedInputOffset), (bool, transposeX1), (bool, transposeX2), (int64_t, groupListType),
                  (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulFinalizeRoutingWeightNzV2, kFr2.def, (const aclTensor *, x1), (aclTensor *, x2),
                  (const aclTensor *, scale), (const aclTensor *, bias), (const aclTensor *, offsetOptional),
                  (const aclTensor *, antiquantScaleOptional), (const aclTensor *, antiquantOffsetOptional),
                  (const aclTensor *, pertokenScaleOptional), (const aclTensor *, groupList),
                  (const aclTensor *, sharedInput), (const aclTensor *, logit), (const aclTensor *, rowIndex),
                  (int64_t, dtype), (float, sharedInputWeight), (int64_t, sharedInputOffset), (bool, transposeX1),
                  (bool, transposeX2), (int64_t, groupListType), (const aclIntArray *, tuningConfigOptional),
                  (aclTensor *, out))
