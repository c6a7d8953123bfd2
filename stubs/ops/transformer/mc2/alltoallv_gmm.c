/*
 * The expert-parallel grouped matmuls fused with an all-to-all-v, with an optional shared-expert matmul:
 *
 *   aclnnAlltoAllvGroupedMatMul   ataOut = alltoallv(gmmX), permuteOut = permute(ataOut), gmmY = permuteOut @ W[e]
 *   aclnnGroupedMatMulAlltoAllv   gmmY = gmmX @ W[e], y = alltoallv(unpermute(gmmY))
 *   both                          mmY = mmX @ mmWeight (when mmX, mmWeight and mmY are given)
 *
 * With E local experts per rank and W ranks, sendCounts[r * E + e] rows go to (or come from) expert e of rank r and
 * recvCounts[r * E + e] rows come from (go to) rank r for this rank's expert e. Token-side rows (gmmX of the
 * first operator, y of the second) are rank-major: the rows for rank 0's experts 0 .. E-1, then rank 1's, ...
 * Expert-side rows (permuteOut and gmmY of the first, gmmX of the second) are expert-major: expert 0's rows from
 * ranks 0 .. W-1, then expert 1's, ... as the kernels' offsets place them. Every pair of ranks must agree on the
 * counts between them (the exchange checks it). The products run on the matmul engine (16-bit operands multiplied
 * exactly, accumulated in float32, rounded once); transGmmWeight / transMmWeight: the weights are given as
 * (E, N1, H1) / (N2, H2) and used transposed.
 */
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_allto_allv_grouped_mat_mul.h"
#include "aclnnop/aclnn_grouped_mat_mul_allto_allv.h"
#include "aclstub/op_matmul.h"
#include "hccl/hccl_comm.h"
#include "stub_hccl.h"

#define OK ACLNN_SUCCESS
#define F16 (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))
#define CNT (ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_INT64))
#define NONE (-1)
#define MAX_COUNTS 256

/* Parameter positions, shared by both operators up to transMmWeight. */
enum { GMM_X, GMM_W, SEND_T, RECV_T, MM_X, MM_W, GROUP, EP_WORLD, SEND, RECV, TRANS_GMM, TRANS_MM };

typedef struct {
    bool comm_first; /* AlltoAllvGroupedMatMul */
    int flag, gmm_y, mm_y, permute_out; /* NONE when absent */
} AgRow;

typedef struct {
    HcclComm comm;
    int64_t w, e;   /* ranks, local experts */
    int64_t tokens; /* token-side rows */
    int64_t a;      /* expert-side rows */
    int64_t h, n;   /* gmm's k and n */
} AgPlan;

static const char *shp(const aclStubTensorDesc *t, char *buf, size_t size) {
    return aclStubShapeText(t->dims, t->ndim, buf, size);
}

static aclnnStatus ag_check(aclStubOpCall *call) {
    const AgRow *row = aclStubFamilyRow(call);
    AgPlan *p = call->plan;
    const aclnnStatus nul = ACLNN_ERR_PARAM_NULLPTR, bad = ACLNN_ERR_PARAM_INVALID;
    const aclStubTensorDesc *x = aclStubOpTensor(call, GMM_X), *wt = aclStubOpTensor(call, GMM_W);
    const aclStubTensorDesc *mx = aclStubOpTensor(call, MM_X), *mw = aclStubOpTensor(call, MM_W);
    const aclStubTensorDesc *my = aclStubOpTensor(call, row->mm_y), *y = aclStubOpTensor(call, row->gmm_y);
    const aclStubTensorDesc *po = row->permute_out != NONE ? aclStubOpTensor(call, row->permute_out) : NULL;
    const char *group = call->v[GROUP].s;
    char b1[96], b2[96];
    /* the op_api's CheckNullStatus (every failure 161001) and the group name's length */
    ACLSTUB_RETURN_ERROR_IF(call->v[SEND_T].present || call->v[RECV_T].present, call, nul,
                            "sendCountsTensorOptional and recvCountsTensorOptional should be empty.");
    ACLSTUB_RETURN_ERROR_IF(group == NULL || group[0] == '\0', call, nul, "Required group name is Empty.");
    ACLSTUB_RETURN_ERROR_IF(!((mx && mw && my) || (!mx && !mw && !my)), call, nul,
                            "mmXOptional, mmWeightOptional and mmYOptional should all be null or all not be null");
    if (row->flag != NONE)
        ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(call, row->flag) == (po == NULL), call, nul,
                                "Optional output flag does not match optional output ptr!");
    ACLSTUB_RETURN_ERROR_IF(strnlen(group, 128) >= 128, call, bad, "Required group name exceeds 128.");
    /* the inner operator's rules */
    bool tg = aclStubOpBool(call, TRANS_GMM), tm = aclStubOpBool(call, TRANS_MM);
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2 || wt->ndim != 3, call, bad, "gmmX must be 2-D and gmmWeight 3-D, got %s "
                            "and %s", shp(x, b1, sizeof b1), shp(wt, b2, sizeof b2));
    p->e = wt->dims[0];
    p->h = tg ? wt->dims[2] : wt->dims[1];
    p->n = tg ? wt->dims[1] : wt->dims[2];
    ACLSTUB_RETURN_ERROR_IF(x->dims[1] != p->h, call, bad, "gmmX %s and gmmWeight %s (transGmmWeight %d) disagree on "
                            "H1", shp(x, b1, sizeof b1), shp(wt, b2, sizeof b2), (int)tg);
    p->w = aclStubOpInt(call, EP_WORLD);
    uint64_t ns = call->v[SEND].size, nr = call->v[RECV].size;
    ACLSTUB_RETURN_ERROR_IF(p->w < 2 || p->e <= 0 || (int64_t)ns != p->e * p->w || (int64_t)nr != p->e * p->w ||
                                ns > MAX_COUNTS,
                            call, bad, "sendCounts and recvCounts must hold e * epWorldSize = %lld * %lld (at most %d) "
                            "values, got %llu and %llu", (long long)p->e, (long long)p->w, MAX_COUNTS,
                            (unsigned long long)ns, (unsigned long long)nr);
    int64_t ssum = 0, rsum = 0;
    for (uint64_t i = 0; i < ns; i++) {
        ACLSTUB_RETURN_ERROR_IF(call->v[SEND].ints[i] < 0 || call->v[RECV].ints[i] < 0, call, bad,
                                "sendCounts and recvCounts must not be negative");
        ssum += call->v[SEND].ints[i];
        rsum += call->v[RECV].ints[i];
    }
    /* token side: what this rank sends (first operator) or receives (second); expert side: the other */
    p->tokens = row->comm_first ? ssum : rsum;
    p->a = row->comm_first ? rsum : ssum;
    int64_t x_rows = row->comm_first ? p->tokens : p->a, y_rows = row->comm_first ? p->a : p->tokens;
    ACLSTUB_RETURN_ERROR_IF(x->dims[0] != x_rows, call, bad, "gmmX has %lld rows; sendCounts add up to %lld",
                            (long long)x->dims[0], (long long)x_rows);
    ACLSTUB_RETURN_ERROR_IF(y->ndim != 2 || y->dims[0] != y_rows || y->dims[1] != p->n, call, bad,
                            "%s must be (%lld, %lld), got %s", call->op->params[row->gmm_y].name, (long long)y_rows,
                            (long long)p->n, shp(y, b1, sizeof b1));
    if (po != NULL)
        ACLSTUB_RETURN_ERROR_IF(po->ndim != 2 || po->dims[0] != p->a || po->dims[1] != p->h, call, bad,
                                "permuteOutOptional must be (%lld, %lld), got %s", (long long)p->a, (long long)p->h,
                                shp(po, b1, sizeof b1));
    if (mx != NULL) {
        int64_t h2 = tm ? mw->dims[1] : mw->dims[0], n2 = tm ? mw->dims[0] : mw->dims[1];
        ACLSTUB_RETURN_ERROR_IF(mx->ndim != 2 || mw->ndim != 2 || mx->dims[1] != h2, call, bad,
                                "mmXOptional %s and mmWeightOptional %s (transMmWeight %d) do not multiply",
                                shp(mx, b1, sizeof b1), shp(mw, b2, sizeof b2), (int)tm);
        ACLSTUB_RETURN_ERROR_IF(my->ndim != 2 || my->dims[0] != mx->dims[0] || my->dims[1] != n2, call, bad,
                                "mmYOptional must be (%lld, %lld), got %s", (long long)mx->dims[0], (long long)n2,
                                shp(my, b1, sizeof b1));
    }
    HcclComm comm = aclStubHcclCommByName(group);
    if (comm == NULL) {
        const char *why = aclGetRecentErrMsg();
        return aclStubCallFail(call, 0, bad, "group '%s' names no communicator: %s", group, why ? why : "(none)");
    }
    uint32_t size = 0;
    ACLSTUB_RETURN_ERROR_IF(HcclGetRankSize(comm, &size) != HCCL_SUCCESS, call, bad, "group '%s' was destroyed", group);
    ACLSTUB_RETURN_ERROR_IF((int64_t)size != p->w, call, bad, "epWorldSize (%lld) is not the size of group '%s' (%u)",
                            (long long)p->w, group, size);
    p->comm = comm;
    return aclStubOpWaitsForPeers(call);
}

/* ---- the kernel ------------------------------------------------------------------------------------------- */

typedef struct {
    const void *send;
    void *recv;
    uint64_t *sc, *sd, *rc, *rd;
} AgX;

static HcclResult ag_exchange(HcCtx *ctx, void *arg) {
    AgX *x = arg;
    return aclStubHcclAlltoAllvBytes(ctx, "alltoallv grouped matmul", x->send, x->sc, x->sd, x->recv, x->rc, x->rd);
}

static aclStubTensorDesc rows_view(aclDataType dt, void *data, int64_t rows, int64_t cols) {
    aclStubTensorDesc t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.format = ACL_FORMAT_ND;
    t.ndim = 2;
    t.data = data;
    t.dims[0] = rows, t.dims[1] = cols;
    t.strides[0] = cols, t.strides[1] = 1;
    return t;
}

/* out (rows, n) = a (rows, k) @ b, each a 2-D view; b transposed when trans. */
static aclnnStatus product(const aclStubOpCall *call, const aclStubTensorDesc *a, const aclStubTensorDesc *b,
                           bool trans, const aclStubTensorDesc *out) {
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.m = a->dims[0], mm.k = a->dims[1], mm.n = out->dims[1];
    if (mm.m == 0 || mm.n == 0) return OK;
    mm.a = aclStubMatOfView(a, 0, mm.batch, false, true);
    mm.b = aclStubMatOfView(b, 0, mm.batch, trans, false);
    mm.out = aclStubMatOfView(out, 0, mm.batch, false, true);
    mm.add.dtype = ACL_DT_UNDEFINED;
    mm.compute = a->dtype == ACL_BF16 ? ACLSTUB_MM_BF16 : ACLSTUB_MM_FP16;
    mm.result = out->dtype;
    mm.alpha = 1.0f, mm.beta = 1.0f;
    return aclStubMatmulRun(call, &mm);
}

/* The rows of expert ex's weight as a 2-D view of the 3-D gmmWeight. */
static aclStubTensorDesc expert_weight(const aclStubTensorDesc *w, int64_t ex) {
    aclStubTensorDesc t = *w;
    t.ndim = 2;
    t.offset = w->offset + ex * w->strides[0];
    t.dims[0] = w->dims[1], t.dims[1] = w->dims[2];
    t.strides[0] = w->strides[1], t.strides[1] = w->strides[2];
    return t;
}

static aclnnStatus ag_kernel(const aclStubOpCall *call) {
    const AgRow *row = aclStubFamilyRow(call);
    const AgPlan *p = call->plan;
    const aclStubTensorDesc *x = aclStubOpTensor(call, GMM_X), *wt = aclStubOpTensor(call, GMM_W);
    const aclStubTensorDesc *y = aclStubOpTensor(call, row->gmm_y);
    const aclStubTensorDesc *po = row->permute_out != NONE ? aclStubOpTensor(call, row->permute_out) : NULL;
    const int64_t *send = call->v[SEND].ints, *recv = call->v[RECV].ints;
    bool tg = aclStubOpBool(call, TRANS_GMM);
    int64_t w = p->w, e = p->e;
    aclDataType dt = x->dtype;
    size_t es = aclDataTypeSize(dt);

    /* The shared expert first: it does not depend on the exchange. */
    const aclStubTensorDesc *mx = aclStubOpTensor(call, MM_X);
    if (mx != NULL)
        ACLSTUB_TRY(product(call, mx, aclStubOpTensor(call, MM_W), aclStubOpBool(call, TRANS_MM),
                            aclStubOpTensor(call, row->mm_y)));

    /* Row offsets of (rank r, expert ex) on this rank's token side (rank-major) and expert side (expert-major). */
    int64_t *buf = aclStubKernelScratch(call, (size_t)(2 * w * e + e + 1) * sizeof(int64_t));
    uint64_t *sc = aclStubKernelScratch(call, (size_t)(4 * w) * sizeof(uint64_t));
    if (buf == NULL || sc == NULL) return aclStubKernelOutOfMemory(call);
    int64_t *s_tok = buf, *s_exp = buf + w * e; /* first rows of (rank, expert) on each side */
    int64_t *g_rows = buf + 2 * w * e;          /* rows per local expert on the expert side */
    const int64_t *tok_counts = row->comm_first ? send : recv, *exp_counts = row->comm_first ? recv : send;
    int64_t acc = 0;
    for (int64_t i = 0; i < w * e; i++) s_tok[i] = acc, acc += tok_counts[i];
    acc = 0;
    for (int64_t ex = 0; ex < e; ex++) {
        g_rows[ex] = 0;
        for (int64_t r = 0; r < w; r++) {
            s_exp[r * e + ex] = acc;
            acc += exp_counts[r * e + ex];
            g_rows[ex] += exp_counts[r * e + ex];
        }
    }
    uint64_t *sd = sc + w, *rc = sc + 2 * w, *rd = sc + 3 * w;
    size_t row_in = (size_t)p->h * es, row_out = (size_t)p->n * es;

    if (row->comm_first) {
        /* all-to-all-v of gmmX's rows, expert by expert, into the permuted (expert-major) rows */
        char *perm = po != NULL ? (char *)po->data + (size_t)po->offset * es
                                : aclStubKernelScratch(call, (size_t)p->a * row_in + 1);
        char *xs = aclStubKernelScratch(call, (size_t)p->tokens * row_in + 1);
        if (perm == NULL || xs == NULL) return aclStubKernelOutOfMemory(call);
        aclStubTensorDesc xs_d = rows_view(dt, xs, p->tokens, p->h);
        if (p->tokens > 0) {
            int64_t *idx = aclStubKernelScratch(call, (size_t)p->tokens * sizeof(int64_t));
            if (idx == NULL) return aclStubKernelOutOfMemory(call);
            for (int64_t i = 0; i < p->tokens; i++) idx[i] = i;
            aclStubCopyRows(&xs_d, 0, x, idx, p->tokens);
        }
        for (int64_t ex = 0; ex < e; ex++) {
            for (int64_t r = 0; r < w; r++) {
                sc[r] = (uint64_t)send[r * e + ex] * row_in, sd[r] = (uint64_t)s_tok[r * e + ex] * row_in;
                rc[r] = (uint64_t)recv[r * e + ex] * row_in, rd[r] = (uint64_t)s_exp[r * e + ex] * row_in;
            }
            AgX xx = {xs, perm, sc, sd, rc, rd};
            char msg[1024];
            if (aclStubHcclRun(p->comm, call->op->name, ag_exchange, &xx, msg, sizeof msg) != HCCL_SUCCESS)
                return aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over group failed: %s", msg);
        }
        /* the grouped product over the permuted rows */
        int64_t at = 0;
        for (int64_t ex = 0; ex < e; ex++) {
            aclStubTensorDesc a = rows_view(dt, perm + (size_t)at * row_in, g_rows[ex], p->h);
            aclStubTensorDesc o = rows_view(y->dtype, (char *)y->data + (size_t)(y->offset + at * p->n) * es,
                                            g_rows[ex], p->n);
            aclStubTensorDesc b = expert_weight(wt, ex);
            ACLSTUB_TRY(product(call, &a, &b, tg, &o));
            at += g_rows[ex];
        }
        return OK;
    }

    /* GroupedMatMulAlltoAllv: the grouped product over gmmX (expert-major), then the rows back to their ranks */
    char *g = aclStubKernelScratch(call, (size_t)p->a * row_out + 1);
    if (g == NULL) return aclStubKernelOutOfMemory(call);
    int64_t at = 0;
    for (int64_t ex = 0; ex < e; ex++) {
        aclStubTensorDesc a = *x;
        a.offset = x->offset + at * x->strides[0];
        a.dims[0] = g_rows[ex];
        aclStubTensorDesc o = rows_view(dt, g + (size_t)at * row_out, g_rows[ex], p->n);
        aclStubTensorDesc b = expert_weight(wt, ex);
        ACLSTUB_TRY(product(call, &a, &b, tg, &o));
        at += g_rows[ex];
    }
    char *yd = (char *)y->data + (size_t)y->offset * es;
    for (int64_t ex = 0; ex < e; ex++) {
        for (int64_t r = 0; r < w; r++) {
            sc[r] = (uint64_t)send[r * e + ex] * row_out, sd[r] = (uint64_t)s_exp[r * e + ex] * row_out;
            rc[r] = (uint64_t)recv[r * e + ex] * row_out, rd[r] = (uint64_t)s_tok[r * e + ex] * row_out;
        }
        AgX xx = {g, yd, sc, sd, rc, rd};
        char msg[1024];
        if (aclStubHcclRun(p->comm, call->op->name, ag_exchange, &xx, msg, sizeof msg) != HCCL_SUCCESS)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over group failed: %s", msg);
    }
    return OK;
}

#define T(NAME, ROLE, DT, SAME) {.name = NAME, .role = ROLE, .dtypes = DT, .same_dtype_as = SAME}
#define COMMON_PARAMS                                                                                                 \
    T("gmmX", ACLSTUB_INPUT, F16, NULL), T("gmmWeight", ACLSTUB_INPUT, F16, "gmmX"),                                  \
        T("sendCountsTensorOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL),                                               \
        T("recvCountsTensorOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL), T("mmXOptional", ACLSTUB_OPTIONAL_INPUT, F16, \
                                                                          "gmmX"),                                    \
        T("mmWeightOptional", ACLSTUB_OPTIONAL_INPUT, F16, "gmmX"), {.name = "group", .role = ACLSTUB_STRING},         \
        {.name = "epWorldSize", .role = ACLSTUB_INT}, {.name = "sendCounts", .role = ACLSTUB_INT_ARRAY},               \
        {.name = "recvCounts", .role = ACLSTUB_INT_ARRAY}, {.name = "transGmmWeight", .role = ACLSTUB_BOOL},           \
        {.name = "transMmWeight", .role = ACLSTUB_BOOL}

static const aclStubParam kAgParams[] = {
    COMMON_PARAMS, {.name = "permuteOutFlag", .role = ACLSTUB_BOOL}, T("gmmY", ACLSTUB_OUTPUT, F16, "gmmX"),
    T("mmYOptional", ACLSTUB_OPTIONAL_OUTPUT, F16, "gmmX"), T("permuteOutOptional", ACLSTUB_OPTIONAL_OUTPUT, F16, "gmmX"),
};
static const AgRow kAgRow = {true, 12, 13, 14, 15};
static const aclStubParam kGaParams[] = {
    COMMON_PARAMS, T("y", ACLSTUB_OUTPUT, F16, "gmmX"), T("mmYOptional", ACLSTUB_OPTIONAL_OUTPUT, F16, "gmmX"),
};
static const AgRow kGaRow = {false, NONE, 12, 13, NONE};

static const aclStubFamilyOp kAlltoAllvGroupedMatMul = {
    {"aclnnAlltoAllvGroupedMatMul", kAgParams, ACLSTUB_LEN(kAgParams), NULL, ag_check, ag_kernel, sizeof(AgPlan)},
    &kAgRow};
static const aclStubFamilyOp kGroupedMatMulAlltoAllv = {
    {"aclnnGroupedMatMulAlltoAllv", kGaParams, ACLSTUB_LEN(kGaParams), NULL, ag_check, ag_kernel, sizeof(AgPlan)},
    &kGaRow};

ACLSTUB_DEFINE_OP(aclnnAlltoAllvGroupedMatMul, kAlltoAllvGroupedMatMul.def, (const aclTensor *, gmmX),
                  (const aclTensor *, gmmWeight), (const aclTensor *, sendCountsTensorOptional),
                  (const aclTensor *, recvCountsTensorOptional), (const aclTensor *, mmXOptional),
                  (const aclTensor *, mmWeightOptional), (const char *, group), (int64_t, epWorldSize),
                  (const aclIntArray *, sendCounts), (const aclIntArray *, recvCounts), (bool, transGmmWeight),
                  (bool, transMmWeight), (bool, permuteOutFlag), (aclTensor *, gmmY), (aclTensor *, mmYOptional),
                  (aclTensor *, permuteOutOptional))
ACLSTUB_DEFINE_OP(aclnnGroupedMatMulAlltoAllv, kGroupedMatMulAlltoAllv.def, (const aclTensor *, gmmX),
                  (const aclTensor *, gmmWeight), (const aclTensor *, sendCountsTensorOptional),
                  (const aclTensor *, recvCountsTensorOptional), (const aclTensor *, mmXOptional),
                  (const aclTensor *, mmWeightOptional), (const char *, group), (int64_t, epWorldSize),
                  (const aclIntArray *, sendCounts), (const aclIntArray *, recvCounts), (bool, transGmmWeight),
                  (bool, transMmWeight), (aclTensor *, y), (aclTensor *, mmYOptional))
