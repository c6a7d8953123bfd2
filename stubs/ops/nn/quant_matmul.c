/*
 * Quantised matrix products of ops-nn matmul/ (quant_matmul, quant_batch_matmul_v3, quant_batch_matmul_v4,
 * weight_quant_batch_matmul_v2), Atlas A2/A3 modes:
 *   aclnnQuantMatmul, aclnnQuantMatmulV2 (int8 x int8 + int32 bias, a UINT64 dequantisation scale, FLOAT16 out),
 *   aclnnQuantMatmulV3, V4, V5: int8 or int4 (INT4, or eight to an INT32) operands, exact int32 sums; per-tensor or
 *     per-channel scale (FLOAT, BF16 or a UINT64/INT64 parameter of aclnnTransQuantParam), per-token scale, int32 or
 *     float bias, the INT8 output's offset (aclStubMmDequantRow); V5 also the pergroup-perblock (G-B) mode and the
 *     A8W4 mode of an INT8 x1 and an INT32 x2 of packed int4 (K-G per group of 256 k, or per channel);
 *   aclnnWeightQuantBatchMatmulV2, V3: FLOAT16/BF16 activations times an int8/int4 weight dequantised per tensor,
 *     per channel or per group, ((w + offset) * scale rounded to x's dtype), plus bias, optionally quantised to INT8.
 */
#include <math.h>
#include <string.h>

#include "aclstub/op_nz.h"
#include "aclnnop/aclnn_batchmatmul_quant.h"
#include "aclnnop/aclnn_quant_matmul.h"
#include "aclnnop/aclnn_quant_matmul_v3.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "aclnnop/aclnn_quant_matmul_v5.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v3.h"
#include "aclstub/op_matmul.h"

#define DT ACLSTUB_DT
#define X_DT (DT(ACL_INT8) | DT(ACL_INT32) | DT(ACL_INT4))
#define SCALE_DT (DT(ACL_UINT64) | DT(ACL_INT64) | DT(ACL_FLOAT) | DT(ACL_BF16))
#define BIAS_DT (DT(ACL_INT32) | DT(ACL_BF16) | DT(ACL_FLOAT16) | DT(ACL_FLOAT))
#define OUT_DT (DT(ACL_FLOAT16) | DT(ACL_INT8) | DT(ACL_BF16) | DT(ACL_INT32))
#define MAX_DIMS 6

static char shape_buf[2][160];
static const char *shp(int k, const aclStubTensorDesc *t) {
    return aclStubShapeText(t->dims, t->ndim, shape_buf[k & 1], sizeof shape_buf[0]);
}

/* An INT32 view of packed int4 values (eight to an int32, the first in the low bits) as an INT4 view. */
static aclStubTensorDesc int4_view(const aclStubTensorDesc *t) {
    aclStubTensorDesc v = *t;
    if (t->dtype != ACL_INT32) return v;
    v.dtype = ACL_INT4;
    v.offset = t->offset * 8;
    for (uint32_t d = 0; d < t->ndim; d++) v.strides[d] = t->strides[d] * 8;
    if (t->ndim > 0) {
        v.dims[t->ndim - 1] = t->dims[t->ndim - 1] * 8;
        v.strides[t->ndim - 1] = 1;
    }
    return v;
}

/* (rows, cols) of a view's matrix with the transpose flag applied: m or k of x1, k or n of x2. */
static int64_t mat_dim(const aclStubTensorDesc *t, bool trans, bool rows) {
    int64_t r = t->dims[t->ndim - 2], c = t->dims[t->ndim - 1];
    return (rows != trans) ? r : c;
}

/* A 1-D view as a row (per column j) or a column (per row i) of the product, broadcast when of size 1. */
static aclStubMat vec_mat(const aclStubTensorDesc *t, bool per_column) {
    aclStubMat m;
    memset(&m, 0, sizeof m);
    m.dtype = ACL_DT_UNDEFINED;
    if (t == NULL) return m;
    m.dtype = t->dtype;
    m.data = t->data;
    m.offset = t->offset;
    int64_t s = aclStubNumel(t) == 1 ? 0 : t->strides[t->ndim - 1];
    if (per_column)
        m.cs = s;
    else
        m.rs = s;
    return m;
}

/* ---- the common part of QuantMatmulV3/V4/V5 ------------------------------------------------------------------- */

typedef struct {
    const aclStubTensorDesc *x1, *x2, *scale, *offset, *pertoken, *bias, *out;
    bool t1, t2;
    int64_t group; /* V5's groupSize (0: none) */
    const aclStubTensorDesc *x1_offset, *y_scale, *y_offset;
} QmmArgs;

typedef struct {
    int nbatch;
    int64_t batch[ACLSTUB_MM_MAX_BATCH];
    int64_t m, k, n;
} QmmShape;

/* The operands as the engine reads them (packed int4 unpacked by view), and the product's shape. */
static bool qmm_shape(const QmmArgs *q, aclStubTensorDesc *x1, aclStubTensorDesc *x2, QmmShape *s) {
    *x1 = int4_view(q->x1);
    *x2 = int4_view(q->x2);
    s->m = mat_dim(x1, q->t1, true);
    s->k = mat_dim(x1, q->t1, false);
    s->n = mat_dim(x2, q->t2, false);
    uint32_t nb = 0;
    if (!aclStubBroadcastShape(x1->dims, x1->ndim - 2, x2->dims, x2->ndim - 2, s->batch, &nb)) return false;
    s->nbatch = (int)nb;
    return true;
}

static bool is_gb_mode(const QmmArgs *q) {
    return q->pertoken != NULL && q->pertoken->ndim == 2 && q->scale->ndim == 2 && q->x2->dtype != ACL_INT32;
}

/* V5's A8W4 mode: INT8 x1, INT32 x2 (eight int4 to an int32 along n). */
static bool is_a8w4_mode(const QmmArgs *q) {
    return q->group >= 0 && q->x1->dtype == ACL_INT8 && q->x2->dtype == ACL_INT32;
}

static aclnnStatus qmm_check(aclStubOpCall *call, const QmmArgs *q) {
    char buf[256];
    const aclStubTensorDesc *x1 = q->x1, *x2 = q->x2, *scale = q->scale, *out = q->out;
    ACLSTUB_RETURN_ERROR_IF(!((x1->dtype == ACL_INT8 && x2->dtype == ACL_INT8) ||
                              ((x1->dtype == ACL_INT4 || x1->dtype == ACL_INT32) && x1->dtype == x2->dtype)),
                            call, ACLNN_ERR_PARAM_INVALID,
                            "x1 and x2 dtype should be same (INT8, INT4 or INT32), actual x1 dtype is %s and x2 dtype "
                            "is %s.",
                            aclStubDtypeName(x1->dtype), aclStubDtypeName(x2->dtype));
    if (q->offset != NULL) {
        ACLSTUB_RETURN_ERROR_IF(q->offset->dtype != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID,
                                "offset's dtype should be FLOAT, but it is %s", aclStubDtypeName(q->offset->dtype));
        ACLSTUB_RETURN_ERROR_IF(out->dtype != ACL_INT8, call, ACLNN_ERR_PARAM_INVALID,
                                "Offset only exists when out dtype is INT8, actual dtype is %s.",
                                aclStubDtypeName(out->dtype));
    }
    bool a4w4 = x1->dtype != ACL_INT8;
    ACLSTUB_RETURN_ERROR_IF(q->pertoken != NULL && q->pertoken->dtype != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID,
                            "pertokenScale's dtype should be FLOAT, but it is %s", aclStubDtypeName(q->pertoken->dtype));
    /* the Atlas A2/A3 combinations of scale, bias and out dtypes */
    bool packed_scale = scale->dtype == ACL_UINT64 || scale->dtype == ACL_INT64;
    if (out->dtype == ACL_INT8 || (out->dtype == ACL_FLOAT16 && q->pertoken == NULL && !a4w4 && packed_scale))
        ACLSTUB_RETURN_ERROR_IF(!packed_scale || q->pertoken != NULL, call, ACLNN_ERR_PARAM_INVALID,
                                "out dtype %s needs a UINT64/INT64 scale and no pertokenScale (scale is %s)",
                                aclStubDtypeName(out->dtype), aclStubDtypeName(scale->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype == ACL_BF16 && packed_scale, call, ACLNN_ERR_PARAM_INVALID,
                            "out dtype BF16 needs a FLOAT or BF16 scale, but it is %s", aclStubDtypeName(scale->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype == ACL_FLOAT16 && !packed_scale && q->pertoken == NULL, call,
                            ACLNN_ERR_PARAM_INVALID,
                            "out dtype FLOAT16 with a %s scale needs pertokenScale", aclStubDtypeName(scale->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype == ACL_INT32 && (packed_scale || (q->bias && q->bias->dtype != ACL_INT32)),
                            call, ACLNN_ERR_PARAM_INVALID,
                            "out dtype INT32 needs a FLOAT/BF16 scale and an INT32 bias (scale %s)",
                            aclStubDtypeName(scale->dtype));
    ACLSTUB_RETURN_ERROR_IF(q->bias && q->bias->dtype != ACL_INT32 && out->dtype != ACL_BF16 &&
                                !(out->dtype == ACL_FLOAT16 && q->bias->dtype != ACL_BF16 && q->pertoken != NULL),
                            call, ACLNN_ERR_PARAM_INVALID, "bias dtype %s is not supported with out dtype %s",
                            aclStubDtypeName(q->bias->dtype), aclStubDtypeName(out->dtype));
    /* dims */
    ACLSTUB_RETURN_ERROR_IF(x1->ndim < 2 || x1->ndim > MAX_DIMS || x2->ndim < 2 || x2->ndim > MAX_DIMS ||
                                out->ndim < 2 || out->ndim > MAX_DIMS,
                            call, ACLNN_ERR_PARAM_INVALID, "x1 %s, x2 %s and out must have 2 to 6 dimensions",
                            shp(0, x1), shp(1, x2));
    bool gb = is_gb_mode(q);
    ACLSTUB_RETURN_ERROR_IF(!gb && scale->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "scale must be 1-D, got %s",
                            shp(0, scale));
    aclStubTensorDesc v1, v2;
    QmmShape s;
    bool ok = qmm_shape(q, &v1, &v2, &s);
    int64_t k2 = mat_dim(&v2, q->t2, true);
    if (a4w4) {
        ACLSTUB_RETURN_ERROR_IF(s.k % 2 != 0, call, ACLNN_ERR_PARAM_INVALID,
                                "x1_k should be a positive even number in a4w4 scenario, but now x1_k is %lld.",
                                (long long)s.k);
        ACLSTUB_RETURN_ERROR_IF(q->t1, call, ACLNN_ERR_PARAM_INVALID,
                                "TransposeX1 should be false in a4w4 scenario, but now is true.");
        ACLSTUB_RETURN_ERROR_IF(x2->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "x2 should be 2-d in a4w4, but is %u.",
                                x2->ndim);
        ACLSTUB_RETURN_ERROR_IF((x1->dtype == ACL_INT32 && x1->strides[x1->ndim - 1] != 1) ||
                                    (x2->dtype == ACL_INT32 && x2->strides[x2->ndim - 1] != 1),
                                call, ACLNN_ERR_PARAM_INVALID, "packed INT32 operands must have a unit last stride");
    }
    ACLSTUB_RETURN_ERROR_IF(s.k != k2, call, ACLNN_ERR_PARAM_INVALID,
                            "x1 k dim and x2 k dim should be same, but x1 is %lld, x2 is %lld.", (long long)s.k,
                            (long long)k2);
    if (!gb) {
        ACLSTUB_RETURN_ERROR_IF(scale->dims[0] != s.n && scale->dims[0] != 1, call, ACLNN_ERR_PARAM_INVALID,
                                "Scale last dim should equal to x2 n dim %lld or 1, but actual is %lld.",
                                (long long)s.n, (long long)scale->dims[0]);
        if (q->offset)
            ACLSTUB_RETURN_ERROR_IF(q->offset->ndim != 1 || (q->offset->dims[0] != s.n && q->offset->dims[0] != 1), call,
                                    ACLNN_ERR_PARAM_INVALID, "Offset must be 1-D of %lld or 1, got %s", (long long)s.n,
                                    shp(0, q->offset));
        if (q->pertoken)
            ACLSTUB_RETURN_ERROR_IF(q->pertoken->ndim != 1 || q->pertoken->dims[0] != s.m, call, ACLNN_ERR_PARAM_INVALID,
                                    "PertokenScaleOptional 1st dim should be equal to x1 m dim %lld, but it is %s.",
                                    (long long)s.m, shp(0, q->pertoken));
    } else {
        int64_t gk = (s.k + 127) / 128, gn = (s.n + 127) / 128;
        int64_t gs = q->group & INT64_C(0xFFFFFFFFFFFF); /* groupSizeK | groupSizeN << 16 | groupSizeM << 32 */
        ACLSTUB_RETURN_ERROR_IF(gs != 0 && gs != ((INT64_C(1) << 32) | (INT64_C(128) << 16) | 128), call,
                                ACLNN_ERR_PARAM_INVALID, "groupSize %lld is not [groupSizeM 1, groupSizeN 128, "
                                "groupSizeK 128]", (long long)q->group);
        ACLSTUB_RETURN_ERROR_IF(q->pertoken->dims[0] != s.m || q->pertoken->dims[1] != gk, call,
                                ACLNN_ERR_PARAM_INVALID, "x1Scale must be [%lld, %lld], got %s", (long long)s.m,
                                (long long)gk, shp(0, q->pertoken));
        ACLSTUB_RETURN_ERROR_IF(!(scale->dims[0] == gk && scale->dims[1] == gn) &&
                                    !(scale->dims[0] == gn && scale->dims[1] == gk),
                                call, ACLNN_ERR_PARAM_INVALID, "x2Scale must be [%lld, %lld], got %s", (long long)gn,
                                (long long)gk, shp(0, scale));
        ACLSTUB_RETURN_ERROR_IF(out->dtype != ACL_BF16, call, ACLNN_ERR_PARAM_INVALID,
                                "the pergroup-perblock mode writes BF16, not %s", aclStubDtypeName(out->dtype));
    }
    ACLSTUB_RETURN_ERROR_IF(!ok, call, ACLNN_ERR_PARAM_INVALID, "the batch dims of x1 %s and x2 %s can not broadcast",
                            shp(0, x1), shp(1, x2));
    if (q->bias) {
        const aclStubTensorDesc *b = q->bias;
        ACLSTUB_RETURN_ERROR_IF(b->ndim != 1 && b->ndim != 3, call, ACLNN_ERR_PARAM_INVALID,
                                "Bias dim-num should equal 3 or 1, but it is %u.", b->ndim);
        if (b->ndim == 1) {
            ACLSTUB_RETURN_ERROR_IF(b->dims[0] != s.n, call, ACLNN_ERR_PARAM_INVALID,
                                    "Bias 1st dim should be equal to x2 n dim %lld, but it is %lld.", (long long)s.n,
                                    (long long)b->dims[0]);
        } else {
            ACLSTUB_RETURN_ERROR_IF(s.nbatch != 1 || b->dims[0] != s.batch[0] || b->dims[1] != 1 || b->dims[2] != s.n,
                                    call, ACLNN_ERR_PARAM_INVALID, "Bias %s must be [batch, 1, %lld] with one batch dim",
                                    shp(0, b), (long long)s.n);
        }
    }
    /* out: (batch..., m, n); 2-D operands also accept a (m, 1, n) out */
    int64_t want[ACLSTUB_MM_MAX_BATCH + 2];
    int r = 0;
    for (int d = 0; d < s.nbatch; d++) want[r++] = s.batch[d];
    want[r++] = s.m, want[r++] = s.n;
    bool special = out->ndim == 3 && r == 2 && out->dims[0] == s.m && out->dims[1] == 1 && out->dims[2] == s.n;
    ACLSTUB_RETURN_ERROR_IF(!special && !aclStubShapeEqual(out->dims, out->ndim, want, (uint32_t)r), call,
                            ACLNN_ERR_PARAM_INVALID, "out's shape %s should be %s", shp(0, out),
                            aclStubShapeText(want, (uint32_t)r, buf, sizeof buf));
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(x1) == 0 || aclStubNumel(x2) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "QuantMatmul not support to process empty tensor currently.");
    return OK;
}

/* The pergroup-perblock (G-B) mode: the int32 sum of each 128-long slice of k, times x1Scale[i, g] * x2Scale[g, j/128],
 * accumulated in float32 over the slices; then + bias, rounded to out. */
typedef struct {
    const aclStubTensorDesc *s1, *s2;
    bool s2_nk; /* x2Scale given as (ceil(n/128), ceil(k/128)) */
    bool a8w4;  /* the A8W4 mode: x2Scale's parameter per (group, column) or per column only, no x1Scale here */
    int64_t g, gsize;
    float *acc;
    int64_t n;
} GbCtx;

static void gb_row(const aclStubMatmul *mm, const aclStubMmRow *row) {
    const GbCtx *c = mm->ctx;
    float *acc = c->acc + row->i * c->n + row->j0;
    if (c->a8w4) {
        for (int64_t k = 0; k < row->n; k++) {
            int64_t j = row->j0 + k;
            uint64_t u;
            memcpy(&u, c->s2->ndim == 2 ? aclStubElem2(c->s2, c->g, j) : aclStubElem1(c->s2, j), 8);
            float v = (float)row->q[k] * aclStubQuantParamScale(u);
            acc[k] = c->g == 0 ? v : acc[k] + v;
        }
        return;
    }
    float s1 = aclStubLoad2F32(c->s1, row->i, c->g);
    for (int64_t k = 0; k < row->n; k++) {
        int64_t j = row->j0 + k, bj = j / 128;
        float s2 = c->s2_nk ? aclStubLoad2F32(c->s2, bj, c->g) : aclStubLoad2F32(c->s2, c->g, bj);
        float v = (float)row->q[k] * (s1 * s2);
        acc[k] = c->g == 0 ? v : acc[k] + v;
    }
}

static aclnnStatus qmm_run(const aclStubOpCall *call, const QmmArgs *q) {
    aclStubTensorDesc x1, x2;
    QmmShape s;
    qmm_shape(q, &x1, &x2, &s);
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.nbatch = s.nbatch;
    memcpy(mm.batch, s.batch, sizeof s.batch);
    mm.m = s.m, mm.n = s.n, mm.k = s.k;
    mm.a = aclStubMatOfView(&x1, s.nbatch, s.batch, q->t1, true);
    mm.b = aclStubMatOfView(&x2, s.nbatch, s.batch, q->t2, false);
    aclStubTensorDesc out = *q->out;
    if (out.ndim == 3 && s.nbatch == 0) { /* the (m, 1, n) out of 2-D operands */
        out.ndim = 2;
        out.dims[1] = out.dims[2], out.strides[1] = out.strides[2];
    }
    mm.out = aclStubMatOfView(&out, s.nbatch, s.batch, false, true);
    mm.compute = ACLSTUB_MM_INT;
    mm.result = ACL_INT32;
    mm.add.dtype = ACL_DT_UNDEFINED;
    mm.alpha = mm.beta = 1.0f;
    bool a8w4 = is_a8w4_mode(q);
    if (!is_gb_mode(q) && !a8w4) {
        aclStubMmDequant dq;
        dq.scale = vec_mat(q->scale, true);
        dq.offset = vec_mat(q->offset, true);
        dq.pertoken = vec_mat(q->pertoken, false);
        dq.bias = q->bias && q->bias->ndim == 3 ? aclStubMatOfView(q->bias, s.nbatch, s.batch, false, true)
                                                : vec_mat(q->bias, true);
        mm.row_fn = aclStubMmDequantRow;
        mm.ctx = &dq;
        return aclStubMatmulRun(call, &mm);
    }
    int64_t gsize = !a8w4 ? 128 : q->scale->ndim == 2 ? 256 : s.k;
    int64_t gk = (s.k + gsize - 1) / gsize, gn = (s.n + 127) / 128;
    GbCtx c = {q->pertoken, q->scale, !a8w4 && q->scale->dims[0] == gn && q->scale->dims[1] == gk, a8w4, 0, gsize,
               NULL, s.n};
    c.acc = aclStubKernelScratch(call, sizeof(float) * (size_t)(s.m * s.n));
    if (c.acc == NULL) return aclStubKernelOutOfMemory(call);
    int64_t dims[2] = {s.m, s.n};
    aclStubTensorDesc acc_view;
    memset(&acc_view, 0, sizeof acc_view);
    acc_view.dtype = ACL_FLOAT, acc_view.ndim = 2, acc_view.data = c.acc;
    acc_view.dims[0] = dims[0], acc_view.dims[1] = dims[1], acc_view.strides[0] = s.n, acc_view.strides[1] = 1;
    mm.out = aclStubMatOfView(&acc_view, 0, s.batch, false, true);
    mm.row_fn = gb_row;
    mm.ctx = &c;
    aclStubMat a0 = mm.a, b0 = mm.b;
    for (c.g = 0; c.g < gk; c.g++) {
        int64_t k0 = c.g * gsize;
        mm.k = s.k - k0 < gsize ? s.k - k0 : gsize;
        mm.a.offset = a0.offset + k0 * a0.cs;
        mm.b.offset = b0.offset + k0 * b0.rs;
        ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
    }
    const aclStubTensorDesc *b = q->bias;
    for (int64_t i = 0; i < s.m; i++) {
        float *row = c.acc + i * s.n;
        if (b != NULL)
            for (int64_t j = 0; j < s.n; j++) row[j] = row[j] + aclStubLoadF32(b, j);
        if (a8w4) { /* ((x1 @ (x2 * x2Scale)) + yOffset) * x1Scale */
            float s1 = aclStubLoadF32(q->pertoken, i);
            for (int64_t j = 0; j < s.n; j++) row[j] = (row[j] + aclStubLoadF32(q->y_offset, j)) * s1;
        }
        aclStubCastStrided(aclStubElem2(&out, i, 0), out.strides[1] * (int64_t)aclDataTypeSize(out.dtype), out.dtype,
                           row, 4, ACL_FLOAT, s.n);
    }
    return OK;
}

/* ---- aclnnQuantMatmulV3, V4 ------------------------------------------------------------------------------------- */

enum { Q_X1, Q_X2, Q_SCALE, Q_OFFSET, Q_PERTOKEN, Q_BIAS, Q_T1, Q_T2, Q_OUT, Q_COUNT };
static const aclStubParam kV4Params[] = {
    [Q_X1] = {"x1", ACLSTUB_INPUT, X_DT},
    [Q_X2] = {"x2", ACLSTUB_INPUT, X_DT, NULL, ACLSTUB_NZ_INPUT},
    [Q_SCALE] = {"scale", ACLSTUB_INPUT, SCALE_DT},
    [Q_OFFSET] = {"offset", ACLSTUB_OPTIONAL_INPUT, 0},
    [Q_PERTOKEN] = {"pertokenScaleOptional", ACLSTUB_OPTIONAL_INPUT, 0},
    [Q_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT, BIAS_DT},
    [Q_T1] = {"transposeX1", ACLSTUB_BOOL},
    [Q_T2] = {"transposeX2", ACLSTUB_BOOL},
    [Q_OUT] = {"out", ACLSTUB_OUTPUT, OUT_DT, NULL, ACLSTUB_ANY_LAYOUT},
};
/* V3: the same without pertokenScaleOptional */
enum { Q3_X1, Q3_X2, Q3_SCALE, Q3_OFFSET, Q3_BIAS, Q3_T1, Q3_T2, Q3_OUT };
static const aclStubParam kV3Params[] = {
    [Q3_X1] = {"x1", ACLSTUB_INPUT, X_DT},
    [Q3_X2] = {"x2", ACLSTUB_INPUT, X_DT, NULL, ACLSTUB_NZ_INPUT},
    [Q3_SCALE] = {"scale", ACLSTUB_INPUT, SCALE_DT},
    [Q3_OFFSET] = {"offset", ACLSTUB_OPTIONAL_INPUT, 0},
    [Q3_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT, BIAS_DT},
    [Q3_T1] = {"transposeX1", ACLSTUB_BOOL},
    [Q3_T2] = {"transposeX2", ACLSTUB_BOOL},
    [Q3_OUT] = {"out", ACLSTUB_OUTPUT, OUT_DT, NULL, ACLSTUB_ANY_LAYOUT},
};

static QmmArgs v4_args(const aclStubOpCall *call) {
    QmmArgs q;
    memset(&q, 0, sizeof q);
    bool v3 = call->op->params == kV3Params;
    q.x1 = aclStubOpTensor(call, v3 ? Q3_X1 : Q_X1);
    q.x2 = aclStubOpTensor(call, v3 ? Q3_X2 : Q_X2);
    q.scale = aclStubOpTensor(call, v3 ? Q3_SCALE : Q_SCALE);
    q.offset = aclStubOpTensor(call, v3 ? Q3_OFFSET : Q_OFFSET);
    q.pertoken = v3 ? NULL : aclStubOpTensor(call, Q_PERTOKEN);
    q.bias = aclStubOpTensor(call, v3 ? Q3_BIAS : Q_BIAS);
    q.t1 = aclStubOpBool(call, v3 ? Q3_T1 : Q_T1);
    q.t2 = aclStubOpBool(call, v3 ? Q3_T2 : Q_T2);
    q.out = aclStubOpTensor(call, v3 ? Q3_OUT : Q_OUT);
    return q;
}

static aclnnStatus v4_check(aclStubOpCall *call) {
    QmmArgs q = v4_args(call);
    ACLSTUB_RETURN_ERROR_IF(q.pertoken && q.pertoken->ndim != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "pertokenScaleOptional must be 1-D, got %s", shp(0, q.pertoken));
    return qmm_check(call, &q);
}
static aclnnStatus v4_kernel(const aclStubOpCall *call) {
    QmmArgs q = v4_args(call);
    return qmm_run(call, &q);
}

static const aclStubOpDef kV3 = {"aclnnQuantMatmulV3", kV3Params, ACLSTUB_LEN(kV3Params), NULL, v4_check, v4_kernel, 0};
static const aclStubOpDef kV4 = {"aclnnQuantMatmulV4", kV4Params, ACLSTUB_LEN(kV4Params), NULL, v4_check, v4_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnQuantMatmulV3, kV3, (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, scale),
                  (const aclTensor *, offset), (const aclTensor *, bias), (bool, transposeX1), (bool, transposeX2),
                  (const aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnQuantMatmulV4, kV4, (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, scale),
                  (const aclTensor *, offset), (const aclTensor *, pertokenScaleOptional), (const aclTensor *, bias),
                  (bool, transposeX1), (bool, transposeX2), (const aclTensor *, out))

/* ---- aclnnQuantMatmulV5 ---------------------------------------------------------------------------------------- */

enum { V5_X1, V5_X2, V5_X1S, V5_X2S, V5_YS, V5_X1O, V5_X2O, V5_YO, V5_BIAS, V5_T1, V5_T2, V5_GROUP, V5_OUT };
static const aclStubParam kV5Params[] = {
    [V5_X1] = {"x1", ACLSTUB_INPUT, X_DT},
    [V5_X2] = {"x2", ACLSTUB_INPUT, X_DT, NULL, ACLSTUB_NZ_INPUT},
    [V5_X1S] = {"x1Scale", ACLSTUB_OPTIONAL_INPUT, 0},
    [V5_X2S] = {"x2Scale", ACLSTUB_INPUT, SCALE_DT},
    [V5_YS] = {"yScale", ACLSTUB_OPTIONAL_INPUT, 0},
    [V5_X1O] = {"x1Offset", ACLSTUB_OPTIONAL_INPUT, 0},
    [V5_X2O] = {"x2Offset", ACLSTUB_OPTIONAL_INPUT, 0},
    [V5_YO] = {"yOffset", ACLSTUB_OPTIONAL_INPUT, 0},
    [V5_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT, BIAS_DT},
    [V5_T1] = {"transposeX1", ACLSTUB_BOOL},
    [V5_T2] = {"transposeX2", ACLSTUB_BOOL},
    [V5_GROUP] = {"groupSize", ACLSTUB_INT},
    [V5_OUT] = {"out", ACLSTUB_OUTPUT, OUT_DT, NULL, ACLSTUB_ANY_LAYOUT},
};

static QmmArgs v5_args(const aclStubOpCall *call) {
    QmmArgs q;
    memset(&q, 0, sizeof q);
    q.x1 = aclStubOpTensor(call, V5_X1);
    q.x2 = aclStubOpTensor(call, V5_X2);
    q.scale = aclStubOpTensor(call, V5_X2S);
    q.pertoken = aclStubOpTensor(call, V5_X1S);
    q.offset = aclStubOpTensor(call, V5_X2O);
    q.bias = aclStubOpTensor(call, V5_BIAS);
    q.t1 = aclStubOpBool(call, V5_T1);
    q.t2 = aclStubOpBool(call, V5_T2);
    q.group = aclStubOpInt(call, V5_GROUP);
    q.out = aclStubOpTensor(call, V5_OUT);
    q.x1_offset = aclStubOpTensor(call, V5_X1O);
    q.y_scale = aclStubOpTensor(call, V5_YS);
    q.y_offset = aclStubOpTensor(call, V5_YO);
    return q;
}

/* An optional tensor given and not empty. */
static bool given(const aclStubTensorDesc *t) { return t != NULL && aclStubNumel(t) != 0; }

/* The A8W4 mode's checks in its op_api's order: x1Offset and x2Offset absent (ACLNN_ERR_PARAM_NULLPTR, as its
 * existence check reports them), transposeX1 false, groupSize 256 with a 2-D x2Scale (K-G) or 0 with a 1-D one (per
 * channel), 2-D x1, x2 and out, x1Scale of x2Scale's rank, a 1-D yOffset; x1Scale and yOffset present, no bias or
 * yScale; the dtypes; k in [1, 29576], aligned to 256 (K-G) or 2; x1Scale (m, 1) or (m), x2Scale (ceil(k / 256), n)
 * or (n), yOffset (n), out (m, n). The device's docs give x2 as (k, n / 8), untransposed; a transposed x2 is
 * refused. */
static aclnnStatus a8w4_check(aclStubOpCall *call, const QmmArgs *q) {
    const aclStubTensorDesc *x1 = q->x1, *x2 = q->x2, *s1 = q->pertoken, *s2 = q->scale, *yo = q->y_offset,
                            *out = q->out;
    ACLSTUB_RETURN_ERROR_IF(given(q->x1_offset) || q->offset, call, ACLNN_ERR_PARAM_NULLPTR,
                            "The value of %s must be empty tensor or nullptr",
                            given(q->x1_offset) ? "x1Offset" : "x2Offset");
    ACLSTUB_RETURN_ERROR_IF(q->t1, call, ACLNN_ERR_PARAM_INVALID, "Only support transposeX1 is false.");
    ACLSTUB_RETURN_ERROR_IF(q->t2, call, ACLNN_ERR_PARAM_INVALID,
                            "an INT32 x2 of packed int4 is (k, n / 8): transposeX2 must be false");
    ACLSTUB_RETURN_ERROR_IF(s2->ndim == 1 && q->group != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "A8W4 [int8/4] perchannel only support groupSize equal to 0.");
    ACLSTUB_RETURN_ERROR_IF(s2->ndim != 1 && q->group != 256, call, ACLNN_ERR_PARAM_INVALID,
                            "A8W4 [int8/4] pergroup only support groupSize equal to 256.");
    ACLSTUB_RETURN_ERROR_IF(x1->ndim != 2 || x2->ndim != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "The dimension of x1 %s and x2 %s should be 2.", shp(0, x1), shp(1, x2));
    ACLSTUB_RETURN_ERROR_IF(s2->ndim != 1 && s2->ndim != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "In A8W4 [int8/4] mode, the dimension of x2Scale should be 1 or 2. Actual x2Scale "
                            "dimension: %u", s2->ndim);
    ACLSTUB_RETURN_ERROR_IF(s1 && s1->ndim != s2->ndim, call, ACLNN_ERR_PARAM_INVALID,
                            "In A8W4 [int8/4] mode, the dimension of x1Scale should equal to that of x2Scale.");
    ACLSTUB_RETURN_ERROR_IF(q->y_scale && q->y_scale->ndim != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "The dimension of yScale should be 2.");
    ACLSTUB_RETURN_ERROR_IF(yo && yo->ndim != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "The dimension of yOffset should be 1. Actual yOffset dimension: %u.", yo->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "The dimension of y should be 2. Actual y dimension: %u.", out->ndim);
    ACLSTUB_RETURN_ERROR_IF(s1 == NULL || aclStubNumel(s1) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "In A8W4_Int mode, x1Scale does not support empty tensor or nullptr.");
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(s2) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "x2Scale does not support empty tensor or nullptr.");
    ACLSTUB_RETURN_ERROR_IF(q->bias || q->y_scale, call, ACLNN_ERR_PARAM_INVALID,
                            "In A8W4_Int mode, bias and yScale must be null.");
    ACLSTUB_RETURN_ERROR_IF(yo == NULL || aclStubNumel(yo) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "In A8W4_Int mode, yOffset does not support empty tensor or nullptr.");
    ACLSTUB_RETURN_ERROR_IF(s1->dtype != ACL_FLOAT || (s2->dtype != ACL_UINT64 && s2->dtype != ACL_INT64) ||
                                yo->dtype != ACL_FLOAT || (out->dtype != ACL_FLOAT16 && out->dtype != ACL_BF16),
                            call, ACLNN_ERR_PARAM_INVALID,
                            "A8W4 takes a FLOAT x1Scale, a UINT64/INT64 x2Scale, a FLOAT yOffset and a FLOAT16/BF16 "
                            "out (x1Scale %s, x2Scale %s, yOffset %s, out %s)", aclStubDtypeName(s1->dtype),
                            aclStubDtypeName(s2->dtype), aclStubDtypeName(yo->dtype), aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(x2->strides[1] != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "a packed INT32 weight must have a unit last stride");
    int64_t m = x1->dims[0], k = x1->dims[1], k2 = x2->dims[0], n = x2->dims[1] * 8;
    ACLSTUB_RETURN_ERROR_IF(m <= 0, call, ACLNN_ERR_PARAM_INVALID, "the m-dim must > 0, which is %lld", (long long)m);
    ACLSTUB_RETURN_ERROR_IF(k <= 0 || k > 29576, call, ACLNN_ERR_PARAM_INVALID,
                            "the k-dim must in [1, 29576], which is %lld", (long long)k);
    ACLSTUB_RETURN_ERROR_IF(n <= 0, call, ACLNN_ERR_PARAM_INVALID, "the n-dim must be at least 1, which is %lld",
                            (long long)n);
    ACLSTUB_RETURN_ERROR_IF(k != k2, call, ACLNN_ERR_PARAM_INVALID,
                            "the k dim of x1 and x2 must be same, which are %lld and %lld", (long long)k,
                            (long long)k2);
    int64_t align = s2->ndim == 1 ? 2 : 256, groups = (k + 255) / 256;
    ACLSTUB_RETURN_ERROR_IF(k % align != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "the k dim must be align to %lld, which is %lld", (long long)align, (long long)k);
    ACLSTUB_RETURN_ERROR_IF(s1->dims[0] != m || (s1->ndim == 2 && s1->dims[1] != 1), call, ACLNN_ERR_PARAM_INVALID,
                            "The x1scale shape must be [%lld, 1] (pergroup) or [%lld] (perchannel), which is %s",
                            (long long)m, (long long)m, shp(0, s1));
    ACLSTUB_RETURN_ERROR_IF(s2->ndim == 2 ? s2->dims[0] != groups || s2->dims[1] != n : s2->dims[0] != n, call,
                            ACLNN_ERR_PARAM_INVALID, "The x2scale shape must be [%lld, %lld] or [%lld], which is %s",
                            (long long)groups, (long long)n, (long long)n, shp(0, s2));
    ACLSTUB_RETURN_ERROR_IF(yo->dims[0] != n, call, ACLNN_ERR_PARAM_INVALID,
                            "The yOffset shape must be [%lld], which is [%lld]", (long long)n, (long long)yo->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != m || out->dims[1] != n, call, ACLNN_ERR_PARAM_INVALID,
                            "The out shape must be [%lld, %lld], which is %s", (long long)m, (long long)n, shp(0, out));
    return OK;
}

static aclnnStatus v5_check(aclStubOpCall *call) {
    QmmArgs q = v5_args(call);
    if (is_a8w4_mode(&q)) return a8w4_check(call, &q);
    /* the op_api's existence check, whose failures it reports as ACLNN_ERR_PARAM_NULLPTR */
    bool ys = given(q.y_scale), x1o = given(q.x1_offset);
    ACLSTUB_RETURN_ERROR_IF(ys || x1o || given(q.y_offset), call, ACLNN_ERR_PARAM_NULLPTR,
                            "The value of %s must be empty tensor or nullptr (yOffset: the A8W4 mode of an INT32 x2 "
                            "only)", ys ? "yScale" : x1o ? "x1Offset" : "yOffset");
    ACLSTUB_RETURN_ERROR_IF(q.pertoken && q.pertoken->ndim != 1 && !is_gb_mode(&q), call, ACLNN_ERR_PARAM_INVALID,
                            "x1Scale must be 1-D (or 2-D with a 2-D x2Scale), got %s", shp(0, q.pertoken));
    return qmm_check(call, &q);
}
static aclnnStatus v5_kernel(const aclStubOpCall *call) {
    QmmArgs q = v5_args(call);
    return qmm_run(call, &q);
}

static const aclStubOpDef kV5 = {"aclnnQuantMatmulV5", kV5Params, ACLSTUB_LEN(kV5Params), NULL, v5_check, v5_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnQuantMatmulV5, kV5, (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, x1Scale),
                  (const aclTensor *, x2Scale), (const aclTensor *, yScale), (const aclTensor *, x1Offset),
                  (const aclTensor *, x2Offset), (const aclTensor *, yOffset), (const aclTensor *, bias),
                  (bool, transposeX1), (bool, transposeX2), (int64_t, groupSize), (aclTensor *, out))

/* aclnnQuantMatmulWeightNz: V5's parameters and computation with x2 in FRACTAL_NZ (required; k and n not 1). */
static aclnnStatus wnz_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x2 = aclStubOpTensor(call, V5_X2);
    ACLSTUB_RETURN_ERROR_IF(!aclStubIsNzFormat(x2->format), call, ACLNN_ERR_PARAM_INVALID,
                            "the format of x2 must be FRACTAL_NZ, got %d", (int)x2->format);
    ACLSTUB_RETURN_ERROR_IF(x2->ndim < 2 || x2->dims[x2->ndim - 1] == 1 || x2->dims[x2->ndim - 2] == 1, call,
                            ACLNN_ERR_PARAM_INVALID, "when the format of x2 is FRACTAL_NZ, the k dimension and n "
                            "dimension of x2 can not be 1, got %s", shp(0, x2));
    return v5_check(call);
}
static const aclStubOpDef kWnz = {"aclnnQuantMatmulWeightNz", kV5Params, ACLSTUB_LEN(kV5Params), NULL, wnz_check,
                                  v5_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnQuantMatmulWeightNz, kWnz, (const aclTensor *, x1), (const aclTensor *, x2),
                  (const aclTensor *, x1Scale), (const aclTensor *, x2Scale), (const aclTensor *, yScale),
                  (const aclTensor *, x1Offset), (const aclTensor *, x2Offset), (const aclTensor *, yOffset),
                  (const aclTensor *, bias), (bool, transposeX1), (bool, transposeX2), (int64_t, groupSize),
                  (aclTensor *, out))

/* ---- aclnnQuantMatmul, aclnnQuantMatmulV2 ------------------------------------------------------------------------- */

/*
 * out (FLOAT16) = (x1 @ x2 + bias) * deqScale, INT8 operands, an INT32 bias; V1 takes one float deqScale, V2 a UINT64
 * tensor of quantisation parameters of n rounded up to 16 entries (aclnnTransQuantParam). Their op_api reports NULL
 * arguments with ACLNN_ERR_INNER_NULLPTR.
 */
enum { QV_X1, QV_X2, QV_BIAS, QV_DEQ, QV_ADJ1, QV_ADJ2, QV_OUT };
static const aclStubParam kQv2Params[] = {
    [QV_X1] = {"x1", ACLSTUB_OPTIONAL_INPUT, 0},
    [QV_X2] = {"x2", ACLSTUB_OPTIONAL_INPUT, 0},
    [QV_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT, 0},
    [QV_DEQ] = {"deqScale", ACLSTUB_OPTIONAL_INPUT, 0},
    [QV_ADJ1] = {"adjX1", ACLSTUB_BOOL},
    [QV_ADJ2] = {"adjX2", ACLSTUB_BOOL},
    [QV_OUT] = {"out", ACLSTUB_OPTIONAL_OUTPUT, 0},
};
enum { Q1_X1, Q1_X2, Q1_BIAS, Q1_DEQ, Q1_OUT };
static const aclStubParam kQv1Params[] = {
    [Q1_X1] = {"x1", ACLSTUB_OPTIONAL_INPUT, 0},
    [Q1_X2] = {"x2", ACLSTUB_OPTIONAL_INPUT, 0},
    [Q1_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT, 0},
    [Q1_DEQ] = {"deqScale", ACLSTUB_FLOAT},
    [Q1_OUT] = {"out", ACLSTUB_OPTIONAL_OUTPUT, 0},
};

typedef struct {
    uint64_t deq; /* V1: the float scale as a quantisation parameter */
} Qv1Plan;

static aclnnStatus qv_check(aclStubOpCall *call) {
    bool v2 = call->op->params == kQv2Params;
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, v2 ? QV_X1 : Q1_X1), *x2 = aclStubOpTensor(call, v2 ? QV_X2 : Q1_X2),
                            *bias = aclStubOpTensor(call, v2 ? QV_BIAS : Q1_BIAS),
                            *deq = v2 ? aclStubOpTensor(call, QV_DEQ) : NULL,
                            *out = aclStubOpTensor(call, v2 ? QV_OUT : Q1_OUT);
    ACLSTUB_RETURN_ERROR_IF(x1 == NULL || x2 == NULL || out == NULL || (v2 && deq == NULL), call,
                            ACLNN_ERR_INNER_NULLPTR, "x1, x2, deqScale and out must not be nullptr");
    ACLSTUB_RETURN_ERROR_IF(x1->dtype != ACL_INT8 || x2->dtype != ACL_INT8 || (bias && bias->dtype != ACL_INT32) ||
                                (deq && deq->dtype != ACL_UINT64) || out->dtype != ACL_FLOAT16,
                            call, ACLNN_ERR_PARAM_INVALID,
                            "x1 and x2 must be INT8, bias INT32, deqScale UINT64 and out FLOAT16");
    bool t1 = v2 && aclStubOpBool(call, QV_ADJ1), t2 = v2 && aclStubOpBool(call, QV_ADJ2);
    ACLSTUB_RETURN_ERROR_IF(x1->ndim < 2 || x2->ndim < 2 || x1->ndim > 3 || x2->ndim > 3, call,
                            ACLNN_ERR_PARAM_INVALID, "x1 %s and x2 %s must have 2 or 3 dimensions", shp(0, x1),
                            shp(1, x2));
    int64_t m = mat_dim(x1, t1, true), k = mat_dim(x1, t1, false), k2 = mat_dim(x2, t2, true),
            n = mat_dim(x2, t2, false);
    ACLSTUB_RETURN_ERROR_IF(k != k2, call, ACLNN_ERR_PARAM_INVALID, "the k of x1 (%lld) and x2 (%lld) differ",
                            (long long)k, (long long)k2);
    ACLSTUB_RETURN_ERROR_IF(bias && (bias->ndim != 1 || bias->dims[0] != n), call, ACLNN_ERR_PARAM_INVALID,
                            "bias must be [%lld], got %s", (long long)n, shp(0, bias));
    ACLSTUB_RETURN_ERROR_IF(deq && (deq->ndim != 1 || deq->dims[0] != (n + 15) / 16 * 16), call,
                            ACLNN_ERR_PARAM_INVALID, "deqScale shape %s is invalid (n = %lld rounded up to 16)",
                            shp(0, deq), (long long)n);
    int64_t b[ACLSTUB_MM_MAX_BATCH + 2];
    uint32_t nb;
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(x1->dims, x1->ndim - 2, x2->dims, x2->ndim - 2, b, &nb), call,
                            ACLNN_ERR_PARAM_INVALID, "the batch dims of x1 and x2 can not broadcast");
    b[nb] = m, b[nb + 1] = n;
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, b, nb + 2), call, ACLNN_ERR_PARAM_INVALID,
                            "out's shape %s does not match the product", shp(0, out));
    if (!v2) {
        float f = (float)aclStubOpFloat(call, Q1_DEQ);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        ((Qv1Plan *)call->plan)->deq = (bits & 0xFFFFE000u) | (UINT64_C(1) << 46);
    }
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus qv_kernel(const aclStubOpCall *call) {
    bool v2 = call->op->params == kQv2Params;
    QmmArgs q;
    memset(&q, 0, sizeof q);
    q.x1 = aclStubOpTensor(call, v2 ? QV_X1 : Q1_X1);
    q.x2 = aclStubOpTensor(call, v2 ? QV_X2 : Q1_X2);
    q.bias = aclStubOpTensor(call, v2 ? QV_BIAS : Q1_BIAS);
    q.out = aclStubOpTensor(call, v2 ? QV_OUT : Q1_OUT);
    q.t1 = v2 && aclStubOpBool(call, QV_ADJ1);
    q.t2 = v2 && aclStubOpBool(call, QV_ADJ2);
    aclStubTensorDesc deq;
    if (v2) {
        q.scale = aclStubOpTensor(call, QV_DEQ);
    } else {
        memset(&deq, 0, sizeof deq);
        deq.dtype = ACL_UINT64, deq.ndim = 1, deq.dims[0] = 1, deq.strides[0] = 1;
        deq.data = &((Qv1Plan *)call->plan)->deq;
        q.scale = &deq;
    }
    return qmm_run(call, &q);
}

static const aclStubOpDef kQv1 = {"aclnnQuantMatmul", kQv1Params, ACLSTUB_LEN(kQv1Params), NULL, qv_check, qv_kernel,
                                  sizeof(Qv1Plan)};
static const aclStubOpDef kQv2 = {"aclnnQuantMatmulV2", kQv2Params, ACLSTUB_LEN(kQv2Params), NULL, qv_check, qv_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnQuantMatmul, kQv1, (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, bias),
                  (float, deqScale), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnQuantMatmulV2, kQv2, (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, bias),
                  (const aclTensor *, deqScale), (bool, adjX1), (bool, adjX2), (aclTensor *, out))

/* ---- aclnnWeightQuantBatchMatmulV2, V3 ------------------------------------------------------------------------------ */

/*
 * y = x @ ((weight + antiquantOffset) * antiquantScale) + bias, each step of the dequantisation rounded to x's dtype
 * (FLOAT16 or BF16); the scale and offset per tensor (1 entry), per channel (n) or per group of antiquantGroupSize
 * rows of k ((ceil(k / group), n)); a UINT64/INT64 scale is a quantisation parameter's float32. With quantScale
 * (a UINT64 parameter per tensor or channel) y is INT8: round-half-even(acc * scale + offset), saturated.
 */
enum { W_X, W_WEIGHT, W_SCALE, W_OFFSET, W_QSCALE, W_QOFFSET, W_BIAS, W_GROUP, W_Y, W_INNER };
static const aclStubParam kWqParams[] = {
    [W_X] = {"x", ACLSTUB_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16)},
    [W_WEIGHT] = {"weight", ACLSTUB_INPUT, DT(ACL_INT8) | DT(ACL_INT4) | DT(ACL_INT32), NULL, ACLSTUB_NZ_INPUT},
    [W_SCALE] = {"antiquantScale", ACLSTUB_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_UINT64) | DT(ACL_INT64)},
    [W_OFFSET] = {"antiquantOffsetOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_INT32)},
    [W_QSCALE] = {"quantScaleOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_UINT64)},
    [W_QOFFSET] = {"quantOffsetOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT)},
    [W_BIAS] = {"biasOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_BF16)},
    [W_GROUP] = {"antiquantGroupSize", ACLSTUB_INT},
    [W_Y] = {"y", ACLSTUB_OUTPUT, DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_INT8)},
};
/* V3: innerPrecise between antiquantGroupSize and y */
enum { W3_GROUP = 7, W3_INNER, W3_Y };
static const aclStubParam kWq3Params[] = {
    [W_X] = {"x", ACLSTUB_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16)},
    [W_WEIGHT] = {"weight", ACLSTUB_INPUT, DT(ACL_INT8) | DT(ACL_INT4) | DT(ACL_INT32), NULL, ACLSTUB_NZ_INPUT},
    [W_SCALE] = {"antiquantScale", ACLSTUB_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_UINT64) | DT(ACL_INT64)},
    [W_OFFSET] = {"antiquantOffsetOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_INT32)},
    [W_QSCALE] = {"quantScaleOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_UINT64)},
    [W_QOFFSET] = {"quantOffsetOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT)},
    [W_BIAS] = {"biasOptional", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_BF16)},
    [W3_GROUP] = {"antiquantGroupSize", ACLSTUB_INT},
    [W3_INNER] = {"innerPrecise", ACLSTUB_INT},
    [W3_Y] = {"y", ACLSTUB_OUTPUT, DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_INT8)},
};

typedef struct {
    const aclStubTensorDesc *x, *w, *scale, *offset, *qscale, *qoffset, *bias, *y;
    int64_t group;
} WqArgs;

static WqArgs wq_args(const aclStubOpCall *call) {
    bool v3 = call->op->params == kWq3Params;
    WqArgs a = {aclStubOpTensor(call, W_X),      aclStubOpTensor(call, W_WEIGHT), aclStubOpTensor(call, W_SCALE),
                aclStubOpTensor(call, W_OFFSET), aclStubOpTensor(call, W_QSCALE), aclStubOpTensor(call, W_QOFFSET),
                aclStubOpTensor(call, W_BIAS),   aclStubOpTensor(call, v3 ? W3_Y : W_Y),
                aclStubOpInt(call, v3 ? W3_GROUP : W_GROUP)};
    return a;
}

/* The rows of the dequantisation parameters a weight row k reads: 1 (per tensor or channel) or groups. */
static int64_t wq_param_rows(const aclStubTensorDesc *t) { return t->ndim == 2 ? t->dims[0] : 1; }
static int64_t wq_param_cols(const aclStubTensorDesc *t) { return aclStubNumel(t) / wq_param_rows(t); }

static aclnnStatus wq_check(aclStubOpCall *call) {
    WqArgs a = wq_args(call);
    aclStubTensorDesc w = int4_view(a.w);
    ACLSTUB_RETURN_ERROR_IF(a.x->ndim != 2 || a.w->ndim != 2 || a.y->ndim != 2, call, ACLNN_ERR_PARAM_INVALID,
                            "x %s, weight %s and y must be 2-D", shp(0, a.x), shp(1, a.w));
    ACLSTUB_RETURN_ERROR_IF(a.w->dtype == ACL_INT32 && a.w->strides[1] != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "a packed INT32 weight must have a unit last stride");
    int64_t m = a.x->dims[0], k = a.x->dims[1], n = w.dims[1];
    ACLSTUB_RETURN_ERROR_IF(w.dims[0] != k, call, ACLNN_ERR_PARAM_INVALID,
                            "the k of x (%lld) and weight (%lld) differ", (long long)k, (long long)w.dims[0]);
    ACLSTUB_RETURN_ERROR_IF(k < 1 || k > 65535 || n < 1 || n > 65535 || m < 1, call, ACLNN_ERR_PARAM_INVALID,
                            "k (%lld) and n (%lld) must be in [1, 65535] and m at least 1", (long long)k, (long long)n);
    ACLSTUB_RETURN_ERROR_IF(a.scale->dtype != ACL_UINT64 && a.scale->dtype != ACL_INT64 && a.scale->dtype != a.x->dtype,
                            call, ACLNN_ERR_PARAM_INVALID, "antiquantScale's dtype %s must be x's %s (or UINT64/INT64)",
                            aclStubDtypeName(a.scale->dtype), aclStubDtypeName(a.x->dtype));
    int64_t g = a.group;
    ACLSTUB_RETURN_ERROR_IF(g != 0 && (g < 32 || g > k - 1 || g % 32 != 0), call, ACLNN_ERR_PARAM_INVALID,
                            "antiquantGroupSize %lld must be 0 or a multiple of 32 in [32, k - 1]", (long long)g);
    int64_t rows = wq_param_rows(a.scale), cols = wq_param_cols(a.scale);
    ACLSTUB_RETURN_ERROR_IF(a.scale->ndim > 2 || (cols != n && cols != 1) ||
                                (g == 0 ? rows != 1 : (rows != (k + g - 1) / g || cols != n)),
                            call, ACLNN_ERR_PARAM_INVALID,
                            "antiquantScale %s must be [1], [n], [1, n] or, per group, [ceil(k / group), n]",
                            shp(0, a.scale));
    if (a.offset)
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(a.offset->dims, a.offset->ndim, a.scale->dims, a.scale->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "antiquantOffsetOptional %s must have antiquantScale's shape",
                                shp(0, a.offset));
    ACLSTUB_RETURN_ERROR_IF(a.qoffset && !a.qscale, call, ACLNN_ERR_PARAM_INVALID,
                            "quantOffsetOptional needs quantScaleOptional");
    ACLSTUB_RETURN_ERROR_IF((a.qscale != NULL) != (a.y->dtype == ACL_INT8), call, ACLNN_ERR_PARAM_INVALID,
                            "y is INT8 exactly when quantScaleOptional is given");
    ACLSTUB_RETURN_ERROR_IF(a.y->dtype != ACL_INT8 && a.y->dtype != a.x->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "y's dtype %s must be x's %s", aclStubDtypeName(a.y->dtype), aclStubDtypeName(a.x->dtype));
    if (a.bias)
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(a.bias) != n || a.bias->ndim > 2, call, ACLNN_ERR_PARAM_INVALID,
                                "biasOptional %s must be [n] or [1, n]", shp(0, a.bias));
    int64_t want[2] = {m, n};
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(a.y->dims, 2, want, 2), call, ACLNN_ERR_PARAM_INVALID,
                            "y's shape %s must be [%lld, %lld]", shp(0, a.y), (long long)m, (long long)n);
    return OK;
}

static aclnnStatus wq_kernel(const aclStubOpCall *call) {
    WqArgs a = wq_args(call);
    aclStubTensorDesc w = int4_view(a.w);
    int64_t m = a.x->dims[0], k = a.x->dims[1], n = w.dims[1];
    uint16_t *wq = aclStubKernelScratch(call, sizeof(uint16_t) * (size_t)(k * n));
    if (wq == NULL) return aclStubKernelOutOfMemory(call);
    aclStubMmAntiquantWeight(&w, a.scale, a.offset, a.group, a.x->dtype, wq);
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.m = m, mm.n = n, mm.k = k;
    mm.a = aclStubMatOfView(a.x, 0, mm.batch, false, true);
    aclStubTensorDesc wv;
    memset(&wv, 0, sizeof wv);
    wv.dtype = a.x->dtype, wv.ndim = 2, wv.data = wq, wv.dims[0] = k, wv.dims[1] = n, wv.strides[0] = n,
    wv.strides[1] = 1;
    mm.b = aclStubMatOfView(&wv, 0, mm.batch, false, false);
    mm.compute = a.x->dtype == ACL_BF16 ? ACLSTUB_MM_BF16 : ACLSTUB_MM_FP16;
    mm.alpha = mm.beta = 1.0f;
    mm.add.dtype = ACL_DT_UNDEFINED;
    if (a.bias) {
        mm.add = vec_mat(a.bias, true);
        mm.result = ACL_FLOAT;
    } else {
        mm.result = a.y->dtype == ACL_INT8 ? ACL_FLOAT : a.x->dtype;
    }
    if (a.y->dtype != ACL_INT8) {
        mm.out = aclStubMatOfView(a.y, 0, mm.batch, false, true);
        return aclStubMatmulRun(call, &mm);
    }
    /* INT8 y: the float32 result, then quantised per channel */
    float *acc = aclStubKernelScratch(call, sizeof(float) * (size_t)(m * n));
    if (acc == NULL) return aclStubKernelOutOfMemory(call);
    aclStubTensorDesc av = wv;
    av.dtype = ACL_FLOAT, av.data = acc, av.dims[0] = m;
    mm.out = aclStubMatOfView(&av, 0, mm.batch, false, true);
    ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            uint64_t u;
            memcpy(&u, aclStubElemAt(a.qscale, aclStubNumel(a.qscale) == 1 ? 0 : j), 8);
            float off = a.qoffset ? aclStubLoadPtrF32(ACL_FLOAT, aclStubElemAt(a.qoffset, aclStubNumel(a.qoffset) == 1
                                                                                             ? 0 : j))
                                  : (float)aclStubQuantParamOffset(u);
            float v = acc[i * n + j] * aclStubQuantParamScale(u) + off;
            v = v == v ? __builtin_rintf(v) : 0.0f;
            v = v < 127.0f ? v : 127.0f;
            v = v > -128.0f ? v : -128.0f;
            *(int8_t *)aclStubElem2(a.y, i, j) = (int8_t)(int32_t)v;
        }
    }
    return OK;
}

static const aclStubOpDef kWq2 = {"aclnnWeightQuantBatchMatmulV2", kWqParams, ACLSTUB_LEN(kWqParams), NULL, wq_check,
                                  wq_kernel, 0};
static const aclStubOpDef kWq3 = {"aclnnWeightQuantBatchMatmulV3", kWq3Params, ACLSTUB_LEN(kWq3Params), NULL, wq_check,
                                  wq_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnWeightQuantBatchMatmulV2, kWq2, (const aclTensor *, x), (const aclTensor *, weight),
                  (const aclTensor *, antiquantScale), (const aclTensor *, antiquantOffsetOptional),
                  (const aclTensor *, quantScaleOptional), (const aclTensor *, quantOffsetOptional),
                  (const aclTensor *, biasOptional), (int, antiquantGroupSize), (const aclTensor *, y))
ACLSTUB_DEFINE_OP(aclnnWeightQuantBatchMatmulV3, kWq3, (const aclTensor *, x), (const aclTensor *, weight),
                  (const aclTensor *, antiquantScale), (const aclTensor *, antiquantOffsetOptional),
                  (const aclTensor *, quantScaleOptional), (const aclTensor *, quantOffsetOptional),
                  (const aclTensor *, biasOptional), (int, antiquantGroupSize), (int, innerPrecise),
                  (const aclTensor *, y))

/* ---- aclnnBatchMatmulQuant ---------------------------------------------------------------------------------------- */

/*
 * out (INT8) = Quant(x1 @ x2 + bias): FLOAT16 operands multiplied exactly and summed in float32, the FLOAT16 bias
 * added, then round-half-even(v * scale + offset) saturated to [-128, 127] with the scale and offset of the UINT64
 * quantisation parameter (aclnnTransQuantParam), one for every column or one for all.
 */
enum { BQ_X1, BQ_X2, BQ_PARAM, BQ_BIAS, BQ_T1, BQ_T2, BQ_OUT };
static const aclStubParam kBqParams[] = {
    [BQ_X1] = {"x1", ACLSTUB_INPUT, DT(ACL_FLOAT16)},
    [BQ_X2] = {"x2", ACLSTUB_INPUT, DT(ACL_FLOAT16)},
    [BQ_PARAM] = {"quantParam", ACLSTUB_INPUT, DT(ACL_UINT64)},
    [BQ_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT16)},
    [BQ_T1] = {"transposeX1", ACLSTUB_BOOL},
    [BQ_T2] = {"transposeX2", ACLSTUB_BOOL},
    [BQ_OUT] = {"out", ACLSTUB_OUTPUT, DT(ACL_INT8), NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus bq_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, BQ_X1), *x2 = aclStubOpTensor(call, BQ_X2),
                            *qp = aclStubOpTensor(call, BQ_PARAM), *bias = aclStubOpTensor(call, BQ_BIAS),
                            *out = aclStubOpTensor(call, BQ_OUT);
    bool t1 = aclStubOpBool(call, BQ_T1), t2 = aclStubOpBool(call, BQ_T2);
    ACLSTUB_RETURN_ERROR_IF(x1->ndim < 2 || x2->ndim < 2, call, ACLNN_ERR_PARAM_INVALID,
                            "x1 %s and x2 %s must have at least 2 dimensions", shp(0, x1), shp(1, x2));
    uint32_t r = x1->ndim;
    int64_t k1 = t1 ? x1->dims[r - 2] : x1->dims[r - 1], k2 = t2 ? x2->dims[x2->ndim - 1] : x2->dims[x2->ndim - 2];
    int64_t m = t1 ? x1->dims[r - 1] : x1->dims[r - 2], n = t2 ? x2->dims[x2->ndim - 2] : x2->dims[x2->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(x1->ndim != x2->ndim || x1->ndim > 6, call, ACLNN_ERR_PARAM_INVALID,
                            "The dims of the two inputs should be same and be less than 7, now they are %s, %s",
                            shp(0, x1), shp(1, x2));
    int64_t n16 = (n + 15) / 16 * 16;
    ACLSTUB_RETURN_ERROR_IF(qp->ndim != 1 || (qp->dims[0] != 1 && qp->dims[0] != n16), call, ACLNN_ERR_PARAM_INVALID,
                            "quantParam %s must be 1-D with 1 or %lld (n aligned to 16) entries", shp(0, qp),
                            (long long)n16);
    ACLSTUB_RETURN_ERROR_IF(bias && (bias->ndim != 1 || bias->dims[0] != n), call, ACLNN_ERR_PARAM_INVALID,
                            "bias %s must be 1-D with n = %lld entries", shp(0, bias), (long long)n);
    ACLSTUB_RETURN_ERROR_IF(k1 != k2, call, ACLNN_ERR_PARAM_INVALID, "The k-axis of the two inputs are different %s, %s",
                            shp(0, x1), shp(1, x2));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != r || out->dims[r - 2] != m || out->dims[r - 1] != n, call,
                            ACLNN_ERR_PARAM_INVALID, "The last two dim of out shape %s need equal [%lld, %lld]",
                            shp(0, out), (long long)m, (long long)n);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(x1) == 0 || aclStubNumel(x2) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "aclnnBatchMatmulQuant do not support empty tensor!");
    /* the stub's rule: out holds the broadcast batch (the op_api's ViewCopy into out) */
    for (uint32_t d = 0; d + 2 < r; d++) {
        int64_t a = x1->dims[d], b = x2->dims[d];
        ACLSTUB_RETURN_ERROR_IF((a != b && a != 1 && b != 1) || out->dims[d] != (a > b ? a : b), call,
                                ACLNN_ERR_PARAM_INVALID, "the batch dimensions of x1 %s, x2 %s and out %s do not "
                                "broadcast", shp(0, x1), shp(1, x2), shp(0, out));
    }
    return OK;
}

typedef struct {
    const aclStubTensorDesc *param, *bias;
} BqCtx;

static void bq_row(const aclStubMatmul *mm, const aclStubMmRow *row) {
    const BqCtx *c = mm->ctx;
    int64_t np = aclStubNumel(c->param);
    for (int64_t j = 0; j < row->n; j++) {
        int64_t col = row->j0 + j;
        float v = row->f[j];
        if (c->bias) v += aclStubF16ToF32(*(const uint16_t *)aclStubElem1(c->bias, col));
        uint64_t u;
        memcpy(&u, aclStubElem1(c->param, np == 1 ? 0 : col), 8);
        v = v * aclStubQuantParamScale(u) + (float)aclStubQuantParamOffset(u);
        v = v == v ? __builtin_rintf(v) : 0.0f;
        v = v < 127.0f ? (v > -128.0f ? v : -128.0f) : 127.0f;
        *((int8_t *)row->out + j * row->out_cs) = (int8_t)(int32_t)v;
    }
}

static aclnnStatus bq_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, BQ_X1), *x2 = aclStubOpTensor(call, BQ_X2),
                            *out = aclStubOpTensor(call, BQ_OUT);
    bool t1 = aclStubOpBool(call, BQ_T1), t2 = aclStubOpBool(call, BQ_T2);
    uint32_t r = x1->ndim;
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.nbatch = (int)r - 2;
    for (int d = 0; d < mm.nbatch; d++) mm.batch[d] = out->dims[d];
    mm.m = out->dims[r - 2], mm.n = out->dims[r - 1];
    mm.k = t1 ? x1->dims[r - 2] : x1->dims[r - 1];
    mm.a = aclStubMatOfView(x1, mm.nbatch, mm.batch, t1, true);
    mm.b = aclStubMatOfView(x2, mm.nbatch, mm.batch, t2, false);
    mm.out = aclStubMatOfView(out, mm.nbatch, mm.batch, false, true);
    mm.add.dtype = ACL_DT_UNDEFINED;
    mm.compute = ACLSTUB_MM_FP16;
    mm.result = ACL_FLOAT;
    mm.alpha = mm.beta = 1.0f;
    BqCtx c = {aclStubOpTensor(call, BQ_PARAM), aclStubOpTensor(call, BQ_BIAS)};
    mm.row_fn = bq_row, mm.ctx = &c;
    return aclStubMatmulRun(call, &mm);
}

static const aclStubOpDef kBq = {"aclnnBatchMatmulQuant", kBqParams, ACLSTUB_LEN(kBqParams), NULL, bq_check, bq_kernel,
                                 0};
ACLSTUB_DEFINE_OP(aclnnBatchMatmulQuant, kBq, (const aclTensor *, x1), (const aclTensor *, x2),
                  (const aclTensor *, quantParam), (const aclTensor *, bias), (bool, transposeX1),
                  (bool, transposeX2), (aclTensor *, out))
