/*
 * The feed-forward operators of ops-transformer ffn/ffn: aclnnFFN, aclnnFFNV2 (expert tokens as an int array, V2
 * with tokensIndexFlag) and aclnnFFNV3 (expert tokens as an INT64 tensor), the non-quantised modes, on the matmul
 * engine (aclstub/op_matmul.h).
 *
 * y = activation(x @ W1 + b1) @ W2 + b2, per expert over its consecutive rows of x (flattened to (rows, k1)) when
 * expert tokens are given (counts, or with tokensIndexFlag cumulative ends). In float32: the 16-bit products exact,
 * summed in float32, the bias added, the activation applied (fastgelu x / (1 + exp(-1.702|x|)) * exp(0.851 (x -
 * |x|)), relu, silu, gelu with the tanh approximation; the GLU forms geglu, swiglu, reglu activate the first half
 * of the columns and multiply by the second); the intermediate rounded once to x's dtype (the second product's
 * operand), the second product summed in float32 with b2 and rounded once to y. The quantised (INT8 x) and
 * weight-only quantised (INT8/INT4 weights) modes pass the op_api's checks up to their own and are then refused as
 * not implemented.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "aclnnop/aclnn_ffn.h"
#include "aclnnop/aclnn_ffn_v2.h"
#include "aclnnop/aclnn_ffn_v3.h"
#include "aclstub/op_matmul.h"
#include "aclstub/op_reduce.h"

enum { FF_X, FF_W1, FF_W2, FF_ET, FF_B1, FF_B2, FF_SCALE, FF_OFFSET, FF_DQ1, FF_DQ2, FF_AQS1, FF_AQS2, FF_AQO1,
       FF_AQO2, FF_ACT, FF_PREC };
typedef struct {
    int flag, y; /* tokensIndexFlag (-1: V1) and y */
    bool tensor_tokens;
} FfRow;

typedef enum { A_FASTGELU, A_RELU, A_SILU, A_GELU, A_GEGLU, A_SWIGLU, A_REGLU, A_INVALID } Act;
static const char *const kActNames[] = {"fastgelu", "relu", "silu", "gelu", "geglu", "swiglu", "reglu"};

static Act act_of(const char *s) {
    if (s == NULL) return A_INVALID;
    for (int a = 0; a < A_INVALID; a++) {
        size_t n = strlen(kActNames[a]);
        if (strlen(s) != n) continue;
        size_t i = 0;
        while (i < n && tolower((unsigned char)s[i]) == kActNames[a][i]) i++;
        if (i == n) return (Act)a;
    }
    return A_INVALID;
}

static float act_scalar(Act a, float x) {
    switch (a) {
    case A_FASTGELU: {
        float ax = fabsf(x);
        return x / (1.0f + expf(-1.702f * ax)) * expf(0.851f * (x - ax));
    }
    case A_RELU:
    case A_REGLU: return x > 0.0f ? x : (x != x ? x : 0.0f);
    case A_SILU:
    case A_SWIGLU: return x / (1.0f + expf(-x));
    case A_GELU:
    case A_GEGLU: return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    default: return x;
    }
}

typedef struct {
    Act act;
    bool glu, experts;
    int64_t e, tokens[1024]; /* expert tokens as counts (array forms, read in phase 1) */
} FfPlan;

static aclnnStatus ff_dtype_is(aclStubOpCall *call, int i, aclDataType want, const char *what) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    ACLSTUB_RETURN_ERROR_IF(t && t->dtype != want, call, ACLNN_ERR_PARAM_INVALID, "%s: %s's dtype %s should be %s",
                            what, aclStubOpName(call, i), aclStubDtypeName(t->dtype), aclStubDtypeName(want));
    return OK;
}
static aclnnStatus ff_same(aclStubOpCall *call, int i, int j) {
    const aclStubTensorDesc *a = aclStubOpTensor(call, i), *b = aclStubOpTensor(call, j);
    ACLSTUB_RETURN_ERROR_IF(a->dtype != b->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "%s's dtype %s and %s's dtype %s should be the same", aclStubOpName(call, i),
                            aclStubDtypeName(a->dtype), aclStubOpName(call, j), aclStubDtypeName(b->dtype));
    return OK;
}
static bool any_of(const aclStubOpCall *call, int from, int to) {
    for (int i = from; i <= to; i++)
        if (aclStubOpTensor(call, i)) return true;
    return false;
}

static aclnnStatus ff_bias(aclStubOpCall *call, int bi, int wi, const FfPlan *p) {
    const aclStubTensorDesc *b = aclStubOpTensor(call, bi), *w = aclStubOpTensor(call, wi);
    if (b == NULL) return OK;
    uint32_t want = p->experts ? 2 : 1;
    ACLSTUB_RETURN_ERROR_IF(b->ndim != want, call, ACLNN_ERR_PARAM_INVALID,
                            "%s DimNum dim should be (2: has experts, 1: no experts), %s DimNum dim is %u",
                            aclStubOpName(call, bi), aclStubOpName(call, bi), b->ndim);
    int64_t wn = w->dims[w->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(b->dims[want - 1] != wn, call, ACLNN_ERR_PARAM_INVALID,
                            "%s last dim should be %lld, but %s last dim is %lld", aclStubOpName(call, bi),
                            (long long)wn, aclStubOpName(call, bi), (long long)b->dims[want - 1]);
    ACLSTUB_RETURN_ERROR_IF(p->experts && b->dims[0] != p->e, call, ACLNN_ERR_PARAM_INVALID,
                            "%s first dim should be %lld, but %s first dim is %lld", aclStubOpName(call, bi),
                            (long long)p->e, aclStubOpName(call, bi), (long long)b->dims[0]);
    return OK;
}
static aclnnStatus ff_bias_dtype(aclStubOpCall *call, aclDataType want, const char *what) {
    ACLSTUB_TRY(ff_dtype_is(call, FF_B1, want, what));
    return ff_dtype_is(call, FF_B2, want, what);
}

static int64_t rows_before_last(const aclStubTensorDesc *t) {
    int64_t n = 1;
    for (uint32_t d = 0; d + 1 < t->ndim; d++) n *= t->dims[d];
    return n;
}

static aclnnStatus ff_check(aclStubOpCall *call) {
    const FfRow *r = aclStubFamilyRow(call);
    FfPlan *p = call->plan;
    const aclStubTensorDesc *x = aclStubOpTensor(call, FF_X), *w1 = aclStubOpTensor(call, FF_W1),
                            *w2 = aclStubOpTensor(call, FF_W2), *y = aclStubOpTensor(call, r->y);
    p->act = act_of(call->v[FF_ACT].s);
    ACLSTUB_RETURN_ERROR_IF(p->act == A_INVALID, call, ACLNN_ERR_PARAM_INVALID,
                            "the activation type %s is not supported by ffn operator, please select right activation "
                            "according to the document", call->v[FF_ACT].s ? call->v[FF_ACT].s : "(null)");
    p->glu = p->act >= A_GEGLU;
    const aclStubTensorDesc *dq1 = aclStubOpTensor(call, FF_DQ1), *dq2 = aclStubOpTensor(call, FF_DQ2);
    ACLSTUB_RETURN_ERROR_IF(dq1 && dq2 && dq1->dtype != dq2->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "deqScale1 and deqScale2 should have the same dtype");
    /* expert tokens: an int array (V1, V2: checked against x's rows) or an INT64 tensor (V3: read by the kernel) */
    bool flag = r->flag >= 0 && aclStubOpBool(call, r->flag);
    p->experts = false;
    p->e = 0;
    if (r->tensor_tokens) {
        const aclStubTensorDesc *et = aclStubOpTensor(call, FF_ET);
        if (et && !(et->ndim >= 1 && et->dims[0] == 0)) {
            p->experts = true;
            p->e = et->ndim ? et->dims[0] : 1;
            ACLSTUB_RETURN_ERROR_IF(et->dtype != ACL_INT64 || et->ndim != 1 || p->e > 1024, call,
                                    ACLNN_ERR_PARAM_INVALID,
                                    "expertTokensOptional must be a 1-D INT64 tensor of at most 1024 experts");
        } else if (et) {
            aclStubOpIgnore(call, FF_ET);
        }
    } else if (call->v[FF_ET].present && call->v[FF_ET].size > 0) {
        uint64_t n = call->v[FF_ET].size;
        const int64_t *v = call->v[FF_ET].ints;
        ACLSTUB_RETURN_ERROR_IF(n > 1024, call, ACLNN_ERR_PARAM_INVALID, "at most 1024 experts, but got %llu",
                                (unsigned long long)n);
        int64_t total = 0, prev = 0, bs = rows_before_last(x);
        for (uint64_t i = 0; i < n; i++) {
            if (flag) {
                ACLSTUB_RETURN_ERROR_IF(v[i] < 0, call, ACLNN_ERR_PARAM_INVALID,
                                        "Expert tokens index should not be smaller than zero, but %lld is found.",
                                        (long long)v[i]);
                ACLSTUB_RETURN_ERROR_IF(v[i] < prev, call, ACLNN_ERR_PARAM_INVALID,
                                        "Expert tokens indices should not be decremental, but two consecutive numbers "
                                        "%lld and %lld are found.", (long long)prev, (long long)v[i]);
                p->tokens[i] = v[i] - prev;
                prev = v[i];
                total = v[i];
            } else {
                ACLSTUB_RETURN_ERROR_IF(v[i] < 0, call, ACLNN_ERR_PARAM_INVALID,
                                        "Expert tokens should not be smaller than zero, but %lld is found.",
                                        (long long)v[i]);
                p->tokens[i] = v[i];
                total += v[i];
            }
        }
        ACLSTUB_RETURN_ERROR_IF(total != bs, call, ACLNN_ERR_PARAM_INVALID,
                                "Total number of expert tokens should be equal to the product of all x dimensions "
                                "excluding the last one. But they are %lld and %lld respectively.", (long long)total,
                                (long long)bs);
        p->experts = true;
        p->e = (int64_t)n;
    }
    /* CheckFormat, CheckY */
    static const int kFmt[] = {FF_X, FF_W1, FF_W2};
    for (int k = 0; k < 3; k++)
        ACLSTUB_RETURN_ERROR_IF(aclStubIsPrivateFormat(aclStubOpTensor(call, kFmt[k])->format), call,
                                ACLNN_ERR_PARAM_INVALID, "format of %s %d is invalid.", aclStubOpName(call, kFmt[k]),
                                (int)aclStubOpTensor(call, kFmt[k])->format);
    ACLSTUB_RETURN_ERROR_IF(aclStubIsPrivateFormat(y->format), call, ACLNN_ERR_PARAM_INVALID,
                            "format of y %d is invalid.", (int)y->format);
    ACLSTUB_RETURN_ERROR_IF(y->ndim != x->ndim, call, ACLNN_ERR_PARAM_INVALID,
                            "y's dimNum should be equal to x's dimNum, x dimNum is %u, y dimNum is %u", x->ndim, y->ndim);
    /* CheckFmapWeightShape */
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2 || x->ndim > 8, call, ACLNN_ERR_PARAM_INVALID,
                            "x dim should within 2 ~ 8, but x dim is %u", x->ndim);
    uint32_t wd = p->experts ? 3 : 2;
    ACLSTUB_RETURN_ERROR_IF(w1->ndim < 2 || w2->ndim < 2, call, ACLNN_ERR_PARAM_INVALID,
                            "weight1 and weight2 need at least 2 dims");
    int64_t k1 = w1->dims[w1->ndim == wd ? wd - 2 : 0], n1 = w1->dims[w1->ndim == wd ? wd - 1 : 1],
            k2 = w2->dims[w2->ndim == wd ? wd - 2 : 0], n2 = w2->dims[w2->ndim == wd ? wd - 1 : 1];
    ACLSTUB_RETURN_ERROR_IF(k1 > 65535 || k2 > 65535, call, ACLNN_ERR_PARAM_INVALID,
                            "kDimValue of weight1 %lld and weight2 %lld should both be equal to or less than 65535",
                            (long long)k1, (long long)k2);
    ACLSTUB_RETURN_ERROR_IF(w1->ndim != wd, call, ACLNN_ERR_PARAM_INVALID,
                            "weight1 DimNum dim should be (3: has experts, 2: no experts), but got %u", w1->ndim);
    ACLSTUB_RETURN_ERROR_IF(w2->ndim != wd, call, ACLNN_ERR_PARAM_INVALID,
                            "weight2 DimNum dim should be (3: has experts, 2: no experts), but got %u", w2->ndim);
    ACLSTUB_RETURN_ERROR_IF(x->dims[x->ndim - 1] != k1, call, ACLNN_ERR_PARAM_INVALID,
                            "x KDimValue[%lld] is not equal to weight1 kDimValue[%lld]", (long long)x->dims[x->ndim - 1],
                            (long long)k1);
    if (p->glu) {
        ACLSTUB_RETURN_ERROR_IF(n1 % 2 != 0, call, ACLNN_ERR_PARAM_INVALID,
                                "weight1 NDimValue should be even number in glu case, but your weight1 NDimVakue is "
                                "%lld", (long long)n1);
        ACLSTUB_RETURN_ERROR_IF(k2 != n1 / 2, call, ACLNN_ERR_PARAM_INVALID,
                                "weight2 KDimValue should be equal to half of weight1 NDimValue in glu case, but your "
                                "weight2 kDimValue is %lld and your weight1 NDimValue is  %lld", (long long)k2,
                                (long long)n1);
    } else {
        ACLSTUB_RETURN_ERROR_IF(k1 != n2, call, ACLNN_ERR_PARAM_INVALID,
                                "weight1 KDimValue[%lld] is not equal to weight2 NDimValue[%lld]", (long long)k1,
                                (long long)n2);
        ACLSTUB_RETURN_ERROR_IF(n1 != k2, call, ACLNN_ERR_PARAM_INVALID,
                                "weight1 NDimValue[%lld] is not equal to weight2 KDimValue[%lld]", (long long)n1,
                                (long long)k2);
        if (p->experts) {
            ACLSTUB_RETURN_ERROR_IF(w1->dims[0] != p->e, call, ACLNN_ERR_PARAM_INVALID,
                                    "weight1 length should be %lld, but got %lld", (long long)p->e,
                                    (long long)w1->dims[0]);
            ACLSTUB_RETURN_ERROR_IF(w2->dims[0] != p->e, call, ACLNN_ERR_PARAM_INVALID,
                                    "weight2 length should be %lld, but got %lld", (long long)p->e,
                                    (long long)w2->dims[0]);
        }
    }
    ACLSTUB_TRY(ff_bias(call, FF_B1, FF_W1, p));
    ACLSTUB_TRY(ff_bias(call, FF_B2, FF_W2, p));
    /* CheckOptionalParams */
    ACLSTUB_RETURN_ERROR_IF(x->dtype != ACL_FLOAT16 && x->dtype != ACL_BF16 && x->dtype != ACL_INT8, call,
                            ACLNN_ERR_PARAM_INVALID, "x's dtype %s should be FLOAT16, BF16 or INT8",
                            aclStubDtypeName(x->dtype));
    ACLSTUB_TRY(ff_same(call, FF_W1, FF_W2));
    ACLSTUB_RETURN_ERROR_IF(w1->dtype != ACL_FLOAT16 && w1->dtype != ACL_BF16 && w1->dtype != ACL_INT8 &&
                                w1->dtype != ACL_INT4,
                            call, ACLNN_ERR_PARAM_INVALID, "weight1's dtype %s should be FLOAT16, BF16, INT8 or INT4",
                            aclStubDtypeName(w1->dtype));
    int64_t prec = aclStubOpInt(call, FF_PREC);
    bool quant = any_of(call, FF_SCALE, FF_DQ2), antiquant = any_of(call, FF_AQS1, FF_AQO2);
    if (p->glu) {
        ACLSTUB_RETURN_ERROR_IF(x->dtype != ACL_FLOAT16 || w1->dtype != ACL_FLOAT16 || w2->dtype != ACL_FLOAT16, call,
                                ACLNN_ERR_PARAM_INVALID, "x, weight1 and weight2 only support dtype float16 without "
                                "expert tokens");
        ACLSTUB_RETURN_ERROR_IF(prec != 1, call, ACLNN_ERR_PARAM_INVALID, "Detected glu, inner precision is not right!");
        ACLSTUB_RETURN_ERROR_IF(p->experts, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected glu, expert tokens should be nullptr, but current it is not nullptr!");
        ACLSTUB_TRY(ff_bias_dtype(call, ACL_FLOAT16, "Detected glu, bias dtype is not right!"));
    } else if (x->dtype == ACL_BF16) {
        ACLSTUB_TRY(ff_dtype_is(call, r->y, ACL_BF16, "bfloat16 x"));
        ACLSTUB_RETURN_ERROR_IF(w1->dtype == ACL_INT8 || w1->dtype == ACL_INT4, call, ACLNN_ERR_PARAM_INVALID,
                                "the weight-only quantised FFN (INT8/INT4 weights) is not implemented");
        ACLSTUB_RETURN_ERROR_IF(w1->dtype != ACL_BF16, call, ACLNN_ERR_PARAM_INVALID,
                                "weight1's dtype %s is not supported with a bfloat16 x", aclStubDtypeName(w1->dtype));
        ACLSTUB_RETURN_ERROR_IF(prec != 0, call, ACLNN_ERR_PARAM_INVALID,
                                "FFN bfloat16 is only support high precision now!");
        ACLSTUB_RETURN_ERROR_IF(quant, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected high precision, but quant inputs is not empty!");
        ACLSTUB_RETURN_ERROR_IF(antiquant, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected high precision, but antiquant inputs is not empty!");
        ACLSTUB_TRY(ff_bias_dtype(call, ACL_FLOAT, "Detected high precision, bias dtype is not right!"));
    } else if (x->dtype == ACL_INT8) {
        ACLSTUB_TRY(ff_dtype_is(call, FF_W1, ACL_INT8, "int8 x"));
        ACLSTUB_TRY(ff_bias_dtype(call, ACL_INT32, "Detected QUANT, bias dtype is not right!"));
        ACLSTUB_RETURN_ERROR_IF(y->dtype != ACL_BF16 && y->dtype != ACL_FLOAT16, call, ACLNN_ERR_PARAM_INVALID,
                                "y's dtype %s is not supported with an int8 x", aclStubDtypeName(y->dtype));
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "the quantised FFN (INT8 x) is not implemented");
    } else {
        ACLSTUB_TRY(ff_dtype_is(call, r->y, ACL_FLOAT16, "float16 x"));
        ACLSTUB_RETURN_ERROR_IF(w1->dtype == ACL_INT8 || w1->dtype == ACL_INT4, call, ACLNN_ERR_PARAM_INVALID,
                                "the weight-only quantised FFN (INT8/INT4 weights) is not implemented");
        ACLSTUB_TRY(ff_dtype_is(call, FF_W1, ACL_FLOAT16, "float16 x"));
        ACLSTUB_RETURN_ERROR_IF(quant, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected quant input, but quant inputs is not empty!");
        ACLSTUB_RETURN_ERROR_IF(antiquant, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected antiquant input, but quant inputs is not empty!");
        ACLSTUB_TRY(ff_bias_dtype(call, ACL_FLOAT16, "bias dtype is not right!"));
    }
    /* the stub's rule: y has the shape the product gives (the op_api compares ranks only) */
    bool yok = y->dims[y->ndim - 1] == n2;
    for (uint32_t d = 0; yok && d + 1 < x->ndim; d++) yok = y->dims[d] == x->dims[d];
    ACLSTUB_RETURN_ERROR_IF(!yok, call, ACLNN_ERR_PARAM_INVALID,
                            "y must have x's shape with its last dim %lld (weight2's n)", (long long)n2);
    for (int i = FF_SCALE; i <= FF_AQO2; i++) aclStubOpIgnore(call, i);
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* ---- kernel --------------------------------------------------------------------------------------------------------- */

typedef struct {
    const aclStubTensorDesc *bias; /* 1-D view of the expert's bias, or NULL */
} BiasCtx;

/* v + bias, narrowed once to the output */
static void bias_row(const aclStubMatmul *mm, const aclStubMmRow *row) {
    const BiasCtx *c = mm->ctx;
    float *v = row->f;
    if (c->bias)
        for (int64_t j = 0; j < row->n; j++)
            v[j] = v[j] + aclStubLoadPtrF32(c->bias->dtype, aclStubElem1(c->bias, row->j0 + j));
    aclStubCastStrided(row->out, row->out_cs * (int64_t)aclDataTypeSize(mm->out.dtype), mm->out.dtype, v, 4, ACL_FLOAT,
                       row->n);
}

typedef struct {
    Act act;
    bool glu;
    const float *h; /* (rows, n1) */
    int64_t n1, nout;
    aclDataType dt;
    void *hq; /* (rows, nout) of dt */
} ActJob;
static void act_rows(void *ctx, int64_t begin, int64_t end) {
    const ActJob *j = ctx;
    size_t es = aclDataTypeSize(j->dt);
    for (int64_t i = begin; i < end; i++) {
        float *h = (float *)(uintptr_t)(j->h + i * j->n1);
        if (j->glu)
            for (int64_t c = 0; c < j->nout; c++) h[c] = act_scalar(j->act, h[c]) * h[j->nout + c];
        else
            for (int64_t c = 0; c < j->nout; c++) h[c] = act_scalar(j->act, h[c]);
        aclStubCastStrided((char *)j->hq + (size_t)(i * j->nout) * es, (int64_t)es, j->dt, h, 4, ACL_FLOAT, j->nout);
    }
}

/* An expert's (k, n) matrix, or its bias row, as a view (e < 0: no experts). */
static aclStubTensorDesc expert(const aclStubTensorDesc *t, int64_t e) {
    aclStubTensorDesc v = *t;
    if (e < 0) return v;
    v.offset += e * t->strides[0];
    v.ndim = t->ndim - 1;
    memmove(v.dims, t->dims + 1, sizeof(int64_t) * v.ndim);
    memmove(v.strides, t->strides + 1, sizeof(int64_t) * v.ndim);
    return v;
}

/* x as a (rows, k) view when its leading dims merge; false otherwise. */
static bool flat2(const aclStubTensorDesc *t, aclStubTensorDesc *v) {
    *v = *t;
    int64_t rows = 1;
    for (uint32_t d = 0; d + 1 < t->ndim; d++) {
        rows *= t->dims[d];
        if (d + 2 < t->ndim && t->dims[d + 1] != 1 && t->dims[d] != 1 && t->strides[d] != t->strides[d + 1] * t->dims[d + 1])
            return false;
    }
    v->ndim = 2;
    v->dims[0] = rows, v->dims[1] = t->dims[t->ndim - 1];
    v->strides[0] = t->strides[t->ndim - 2], v->strides[1] = t->strides[t->ndim - 1];
    return true;
}

static aclnnStatus ff_kernel(const aclStubOpCall *call) {
    const FfRow *r = aclStubFamilyRow(call);
    const FfPlan *p = call->plan;
    const aclStubTensorDesc *x = aclStubOpTensor(call, FF_X), *w1 = aclStubOpTensor(call, FF_W1),
                            *w2 = aclStubOpTensor(call, FF_W2), *y = aclStubOpTensor(call, r->y),
                            *b1 = aclStubOpTensor(call, FF_B1), *b2 = aclStubOpTensor(call, FF_B2);
    int64_t rows = rows_before_last(x), k1 = x->dims[x->ndim - 1], n1 = w1->dims[w1->ndim - 1],
            k2 = w2->dims[w2->ndim - 2], n2 = w2->dims[w2->ndim - 1];
    aclStubTensorDesc xv, yv;
    if (!flat2(x, &xv)) { /* a copy with row-major strides */
        void *buf = aclStubKernelScratch(call, (size_t)(rows * k1) * aclDataTypeSize(x->dtype));
        if (buf == NULL) return aclStubKernelOutOfMemory(call);
        size_t es = aclDataTypeSize(x->dtype);
        for (int64_t i = 0; i < rows * k1; i++) memcpy((char *)buf + (size_t)i * es, aclStubElemAt(x, i), es);
        memset(&xv, 0, sizeof xv);
        xv.dtype = x->dtype, xv.ndim = 2, xv.data = buf, xv.dims[0] = rows, xv.dims[1] = k1, xv.strides[0] = k1,
        xv.strides[1] = 1;
    }
    if (!flat2(y, &yv)) return aclStubKernelFail(call, ACLNN_ERR_INNER, "y's rows do not merge");
    /* expert groups as counts */
    int64_t counts[1024], ne = p->experts ? p->e : 1;
    if (!p->experts) {
        counts[0] = rows;
    } else if (r->tensor_tokens) {
        const aclStubTensorDesc *et = aclStubOpTensor(call, FF_ET);
        bool flag = r->flag >= 0 && aclStubOpBool(call, r->flag);
        int64_t prev = 0, total = 0;
        for (int64_t g = 0; g < ne; g++) {
            int64_t v = aclStubIndex1(et, g);
            counts[g] = flag ? v - prev : v;
            prev = v;
            total += counts[g];
            if (counts[g] < 0 || total > rows)
                return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID,
                                         "expertTokensOptional[%lld] = %lld: the tokens must be non-negative and add "
                                         "up to at most x's %lld rows", (long long)g, (long long)v, (long long)rows);
        }
    } else {
        memcpy(counts, p->tokens, sizeof(int64_t) * (size_t)ne);
    }
    int64_t nout = p->glu ? n1 / 2 : n1;
    size_t es = aclDataTypeSize(x->dtype);
    float *h = aclStubKernelScratch(call, sizeof(float) * (size_t)(rows * n1));
    void *hq = aclStubKernelScratch(call, es * (size_t)(rows * nout));
    if (h == NULL || hq == NULL) return aclStubKernelOutOfMemory(call);
    int64_t start = 0;
    for (int64_t g = 0; g < ne; g++) {
        int64_t m = counts[g], e = p->experts ? g : -1;
        if (m == 0) continue;
        aclStubTensorDesc xg = xv, w1g = expert(w1, e), w2g = expert(w2, e), b1g, b2g, hv, hqv, yg = yv;
        xg.offset += start * xv.strides[0], xg.dims[0] = m;
        yg.offset += start * yv.strides[0], yg.dims[0] = m;
        memset(&hv, 0, sizeof hv);
        hv.dtype = ACL_FLOAT, hv.ndim = 2, hv.data = h, hv.dims[0] = m, hv.dims[1] = n1, hv.strides[0] = n1,
        hv.strides[1] = 1;
        hqv = hv;
        hqv.dtype = x->dtype, hqv.data = hq, hqv.dims[1] = nout, hqv.strides[0] = nout;
        if (b1) b1g = expert(b1, e);
        if (b2) b2g = expert(b2, e);
        BiasCtx c1 = {b1 ? &b1g : NULL}, c2 = {b2 ? &b2g : NULL};
        aclStubMatmul mm;
        memset(&mm, 0, sizeof mm);
        mm.m = m, mm.k = k1, mm.n = n1;
        mm.a = aclStubMatOfView(&xg, 0, NULL, false, true);
        mm.b = aclStubMatOfView(&w1g, 0, NULL, false, false);
        mm.out = aclStubMatOfView(&hv, 0, NULL, false, true);
        mm.add.dtype = ACL_DT_UNDEFINED;
        mm.alpha = mm.beta = 1.0f;
        mm.compute = aclStubMmComputeFor(x->dtype, w1->dtype, 0);
        mm.result = ACL_FLOAT;
        mm.row_fn = bias_row;
        mm.ctx = &c1;
        ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
        ActJob aj = {p->act, p->glu, h, n1, nout, x->dtype, hq};
        aclStubParallelFor(m, 16, act_rows, &aj);
        mm.k = k2, mm.n = n2;
        mm.a = aclStubMatOfView(&hqv, 0, NULL, false, true);
        mm.b = aclStubMatOfView(&w2g, 0, NULL, false, false);
        mm.out = aclStubMatOfView(&yg, 0, NULL, false, true);
        mm.compute = aclStubMmComputeFor(x->dtype, w2->dtype, 0);
        mm.ctx = &c2;
        ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
        start += m;
    }
    return OK;
}

#define T(NAME) {.name = NAME, .role = ACLSTUB_OPTIONAL_INPUT}
#define COMMON_HEAD                                                                                               \
    {.name = "x", .role = ACLSTUB_INPUT}, {.name = "weight1", .role = ACLSTUB_INPUT},                             \
        {.name = "weight2", .role = ACLSTUB_INPUT}
static const aclStubParam kFfParams[] = {
    COMMON_HEAD, {.name = "expertTokens", .role = ACLSTUB_INT_ARRAY, .flags = ACLSTUB_NULLABLE}, T("bias1"), T("bias2"),
    T("scale"), T("offset"), T("deqScale1"), T("deqScale2"), T("antiquantScale1"), T("antiquantScale2"),
    T("antiquantOffset1"), T("antiquantOffset2"), {.name = "activation", .role = ACLSTUB_STRING},
    {.name = "innerPrecise", .role = ACLSTUB_INT}, {.name = "y", .role = ACLSTUB_OUTPUT}};
static const aclStubParam kFf2Params[] = {
    COMMON_HEAD, {.name = "expertTokens", .role = ACLSTUB_INT_ARRAY, .flags = ACLSTUB_NULLABLE}, T("bias1"), T("bias2"),
    T("scale"), T("offset"), T("deqScale1"), T("deqScale2"), T("antiquantScale1"), T("antiquantScale2"),
    T("antiquantOffset1"), T("antiquantOffset2"), {.name = "activation", .role = ACLSTUB_STRING},
    {.name = "innerPrecise", .role = ACLSTUB_INT}, {.name = "tokensIndexFlag", .role = ACLSTUB_BOOL},
    {.name = "y", .role = ACLSTUB_OUTPUT}};
static const aclStubParam kFf3Params[] = {
    COMMON_HEAD, T("expertTokensOptional"), T("bias1Optional"), T("bias2Optional"), T("scaleOptional"),
    T("offsetOptional"), T("deqScale1Optional"), T("deqScale2Optional"), T("antiquantScale1Optional"),
    T("antiquantScale2Optional"), T("antiquantOffset1Optional"), T("antiquantOffset2Optional"),
    {.name = "activation", .role = ACLSTUB_STRING}, {.name = "innerPrecise", .role = ACLSTUB_INT},
    {.name = "tokensIndexFlag", .role = ACLSTUB_BOOL}, {.name = "y", .role = ACLSTUB_OUTPUT}};
static const FfRow kFfRow = {-1, 16, false}, kFf2Row = {16, 17, false}, kFf3Row = {16, 17, true};
static const aclStubFamilyOp kFf = {{"aclnnFFN", kFfParams, ACLSTUB_LEN(kFfParams), NULL, ff_check, ff_kernel,
                                     sizeof(FfPlan)}, &kFfRow};
static const aclStubFamilyOp kFf2 = {{"aclnnFFNV2", kFf2Params, ACLSTUB_LEN(kFf2Params), NULL, ff_check, ff_kernel,
                                      sizeof(FfPlan)}, &kFf2Row};
static const aclStubFamilyOp kFf3 = {{"aclnnFFNV3", kFf3Params, ACLSTUB_LEN(kFf3Params), NULL, ff_check, ff_kernel,
                                      sizeof(FfPlan)}, &kFf3Row};

#define FF_TENSORS(B1, B2, SC, OF, D1, D2, AS1, AS2, AO1, AO2)                                                      \
    (const aclTensor *, B1), (const aclTensor *, B2), (const aclTensor *, SC), (const aclTensor *, OF),               \
        (const aclTensor *, D1), (const aclTensor *, D2), (const aclTensor *, AS1), (const aclTensor *, AS2),         \
        (const aclTensor *, AO1), (const aclTensor *, AO2)
ACLSTUB_DEFINE_OP(aclnnFFN, kFf.def, (const aclTensor *, x), (const aclTensor *, weight1), (const aclTensor *, weight2),
                  (const aclIntArray *, expertTokens),
                  FF_TENSORS(bias1, bias2, scale, offset, deqScale1, deqScale2, antiquantScale1, antiquantScale2,
                             antiquantOffset1, antiquantOffset2),
                  (const char *, activation), (int64_t, innerPrecise), (const aclTensor *, y))
ACLSTUB_DEFINE_OP(aclnnFFNV2, kFf2.def, (const aclTensor *, x), (const aclTensor *, weight1),
                  (const aclTensor *, weight2), (const aclIntArray *, expertTokens),
                  FF_TENSORS(bias1, bias2, scale, offset, deqScale1, deqScale2, antiquantScale1, antiquantScale2,
                             antiquantOffset1, antiquantOffset2),
                  (const char *, activation), (int64_t, innerPrecise), (bool, tokensIndexFlag), (const aclTensor *, y))
ACLSTUB_DEFINE_OP(aclnnFFNV3, kFf3.def, (const aclTensor *, x), (const aclTensor *, weight1),
                  (const aclTensor *, weight2), (const aclTensor *, expertTokensOptional),
                  FF_TENSORS(bias1Optional, bias2Optional, scaleOptional, offsetOptional, deqScale1Optional,
                             deqScale2Optional, antiquantScale1Optional, antiquantScale2Optional,
                             antiquantOffset1Optional, antiquantOffset2Optional),
                  (const char *, activation), (int64_t, innerPrecise), (bool, tokensIndexFlag), (const aclTensor *, y))
