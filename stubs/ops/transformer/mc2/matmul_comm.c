/*
 * The MC2 matmul operators: a matmul fused with a collective over the communicator a group name stands for.
 *
 *   aclnnMatmulAllReduce, aclnnMatmulAllReduceV2      output = allreduce(x1 @ x2 + bias [+ x3])
 *   aclnnQuantMatmulAllReduce, aclnnQuantMatmulAllReduceV2, aclnnQuantMatmulAllReduceV3
 *                                                    output = allreduce(dequant(x1 @ x2 + bias) [+ x3])
 *     V3 with commQuantScale1/2, the low-bit communication: each rank's result quantised to INT8 per channel
 *     (v / scale1, rounded half to even, saturated), an all-to-all of row blocks (block r: rows
 *     [r * ceil(M / w), ...) of the M rows), each rank's block summed exactly in int32 and requantised
 *     (sum * (scale1 / scale2), both float32, rounded half to even, saturated), an all-gather of the blocks, and
 *     output = q * scale2 rounded to the output dtype.
 *   aclnnWeightQuantMatmulAllReduce                  output = allreduce(x1 @ antiquant(x2) + bias [+ x3])
 *   aclnnAllGatherMatmul                             gatherOut = allgather(x1), output = gatherOut @ x2 + bias
 *   aclnnMatmulReduceScatter                         output = reducescatter(x1 @ x2 + bias)
 *   aclnn[Inplace][Quant|WeightQuant]MatmulAllReduceAddRmsNorm
 *                                                    y = allreduce(product) + residual, normOut = rmsnorm(y) * gamma
 *
 * Each rank computes its product on the matmul engine (16-bit operands multiplied exactly and accumulated in
 * float32, the bias added to the float32 sums, rounded once to the output dtype), adds x3 in the output dtype (the
 * kernels add it to the rounded product before they communicate), and the collective then sums the ranks' results
 * in rank order, each step rounded to the output dtype, as HCCL's reductions do. The exchange runs on the
 * communicator's engine (libhccl's aclStubHcclRun), after what was queued on it before.
 *
 * The quantised operators take x2 in FRACTAL_NZ too (aclnnTransMatmulWeight's layout, unpacked by the SDK).
 *
 * The AddRmsNorm tail is aclnnAddRmsNorm's rule: v = mm_out + residual in float32, y = v rounded once, the sum of
 * squares of v accumulated in 16 lanes (element j in lane j % 16, the lanes then added in order), rstd =
 * 1 / sqrt(sum / n + epsilon), normOut = (v * rstd) * gamma rounded once. The in-place variants write y into
 * residual.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_all_gather_matmul.h"
#include "aclnnop/aclnn_matmul_all_reduce.h"
#include "aclnnop/aclnn_matmul_all_reduce_v2.h"
#include "aclnnop/aclnn_matmul_reduce_scatter.h"
#include "aclnnop/aclnn_quant_matmul_all_reduce.h"
#include "aclnnop/aclnn_quant_matmul_all_reduce_v2.h"
#include "aclnnop/aclnn_quant_matmul_all_reduce_v3.h"
#include "aclnnop/aclnn_weight_quant_matmul_all_reduce.h"
#include "aclnnop/aclnn_inplace_matmul_all_reduce_add_rms_norm.h"
#include "aclnnop/aclnn_inplace_quant_matmul_all_reduce_add_rms_norm.h"
#include "aclnnop/aclnn_inplace_weight_quant_matmul_all_reduce_add_rms_norm.h"
#include "aclnnop/aclnn_matmul_all_reduce_add_rms_norm.h"
#include "aclnnop/aclnn_quant_matmul_all_reduce_add_rms_norm.h"
#include "aclnnop/aclnn_weight_quant_matmul_all_reduce_add_rms_norm.h"
#include "acl/acl.h"
#include "aclstub/op_matmul.h"
#include "hccl/hccl_comm.h"
#include "stub_hccl.h"

#define OK ACLNN_SUCCESS
#define F16 (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))
#define I8 ACLSTUB_DT(ACL_INT8)
#define DEQ (ACLSTUB_DT(ACL_UINT64) | ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_BF16) | ACLSTUB_DT(ACL_FLOAT))
#define WQ (ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT4))
#define NONE (-1)

typedef enum { ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER } Coll;
typedef enum { PLAIN, QUANT, WEIGHT_QUANT } Kind;

/* A row of the family: the collective, the kind of product, and where each parameter is (NONE: absent). */
typedef struct {
    Coll coll;
    Kind kind;
    int x1, x2, bias, x3, dequant, pertoken, ascale, aoffset, group, reduce_op, gather_index, stream_mode, gsize,
        out, gather_out;
    int cq1, cq2;                             /* V3's commQuantScale1/2 (NONE: other operators) */
    bool arn;                                 /* the AddRmsNorm tail: */
    int residual, gamma, eps, norm_out;       /* out is y (residual for the in-place variants) */
} McRow;

typedef struct {
    HcclComm comm;
    uint32_t nranks, rank;
    int nbatch;      /* 1 for a 3-D x1 */
    int64_t batch;   /* its leading dim */
    int64_t m, k, n; /* of one batch item's product (AllGatherMatmul: the gathered rows) */
} McPlan;

static const char *shape_text(const aclStubTensorDesc *t, char *buf, size_t size) {
    return aclStubShapeText(t->dims, t->ndim, buf, size);
}

/* The communicator of the group (resolved when phase 1 runs, on the caller's device), its size and this rank. */
static aclnnStatus resolve_group(aclStubOpCall *call, const McRow *row, McPlan *p) {
    const char *group = call->v[row->group].s;
    ACLSTUB_RETURN_ERROR_IF(group == NULL || group[0] == '\0', call, ACLNN_ERR_PARAM_NULLPTR, "group is empty");
    ACLSTUB_RETURN_ERROR_IF(strnlen(group, 128) >= 128, call, ACLNN_ERR_PARAM_INVALID,
                            "group is longer than 127 characters");
    HcclComm comm = aclStubHcclCommByName(group);
    if (comm == NULL) {
        const char *why = aclGetRecentErrMsg();
        return aclStubCallFail(call, 0, ACLNN_ERR_PARAM_INVALID, "group '%s' names no communicator: %s", group,
                               why ? why : "(no message)");
    }
    if (HcclGetRankSize(comm, &p->nranks) != HCCL_SUCCESS || HcclGetRankId(comm, &p->rank) != HCCL_SUCCESS)
        return aclStubCallFail(call, 0, ACLNN_ERR_PARAM_INVALID, "group '%s' was destroyed", group);
    p->comm = comm;
    return OK;
}

/* x1 transposed (a view whose last two dims have the column stride of a transpose): the op_api's
 * IsTransposeLastTwoDims. */
static bool is_transposed(const aclStubTensorDesc *t) {
    if (t->ndim < 2) return false;
    int64_t r = t->dims[t->ndim - 2], c = t->dims[t->ndim - 1];
    return t->strides[t->ndim - 2] == 1 && t->strides[t->ndim - 1] == r && r > 1 && c > 1;
}

/* ---- the checks ------------------------------------------------------------------------------------------- */

static aclnnStatus check_attrs(aclStubOpCall *call, const McRow *row) {
    if (row->reduce_op != NONE) {
        const char *op = call->v[row->reduce_op].s;
        ACLSTUB_RETURN_ERROR_IF(op == NULL || strcmp(op, "sum") != 0, call, ACLNN_ERR_PARAM_INVALID,
                                "Expected reduceOp to be sum, but got %s.", op ? op : "(null)");
    }
    int64_t sm = aclStubOpInt(call, row->stream_mode);
    ACLSTUB_RETURN_ERROR_IF(sm != 1, call, ACLNN_ERR_PARAM_INVALID, "Expected streamMode to be 1, but got %lld.",
                            (long long)sm);
    return OK;
}

/* MatmulAllReduceCheckShape and its quantised twins: x1 2-3-D, x2 2-D (k, n), output x1's shape with n last, bias
 * (n), x3 output's shape. */
static aclnnStatus check_all_reduce_shapes(aclStubOpCall *call, const McRow *row) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, row->x1), *x2 = aclStubOpTensor(call, row->x2);
    const aclStubTensorDesc *out = aclStubOpTensor(call, row->out);
    const aclStubTensorDesc *bias = row->bias != NONE ? aclStubOpTensor(call, row->bias) : NULL;
    const aclStubTensorDesc *x3 = row->x3 != NONE ? aclStubOpTensor(call, row->x3) : NULL;
    char b1[96], b2[96];
    const aclnnStatus bad = ACLNN_ERR_PARAM_INVALID;
    ACLSTUB_RETURN_ERROR_IF(x2->ndim != 2, call, bad, "x2 must be 2-D, got %u-D", x2->ndim);
    ACLSTUB_RETURN_ERROR_IF(x1->ndim < 2 || x1->ndim > 3, call, bad, "x1 must be 2-D or 3-D, got %u-D", x1->ndim);
    uint32_t r = x1->ndim;
    ACLSTUB_RETURN_ERROR_IF(x1->dims[r - 1] != x2->dims[0], call, bad,
                            "Expected last dim of x1 to be equal to first dim of x2, but got x1 shape: %s, x2 shape: "
                            "%s.", shape_text(x1, b1, sizeof b1), shape_text(x2, b2, sizeof b2));
    int64_t want[3];
    memcpy(want, x1->dims, r * sizeof *want);
    want[r - 1] = x2->dims[1];
    bool same = out->ndim == r;
    for (uint32_t d = 0; same && d < r; d++) same = out->dims[d] == want[d];
    ACLSTUB_RETURN_ERROR_IF(!same, call, bad, "Expected output to be %s, but got %s.",
                            aclStubShapeText(want, r, b1, sizeof b1), shape_text(out, b2, sizeof b2));
    if (x3 != NULL && row->kind == PLAIN) {
        same = x3->ndim == out->ndim;
        for (uint32_t d = 0; same && d < r; d++) same = x3->dims[d] == out->dims[d];
        ACLSTUB_RETURN_ERROR_IF(!same, call, bad, "x3 %s must have output's shape %s", shape_text(x3, b1, sizeof b1),
                                shape_text(out, b2, sizeof b2));
    }
    if (bias != NULL) {
        ACLSTUB_RETURN_ERROR_IF(bias->ndim != 1 || bias->dims[0] != want[r - 1], call, bad,
                                "bias must be (%lld), got %s", (long long)want[r - 1], shape_text(bias, b1, sizeof b1));
    }
    if (x3 != NULL && row->kind != PLAIN) {
        same = x3->ndim == out->ndim;
        for (uint32_t d = 0; same && d < r; d++) same = x3->dims[d] == out->dims[d];
        ACLSTUB_RETURN_ERROR_IF(!same, call, bad, "x3 %s must have output's shape %s", shape_text(x3, b1, sizeof b1),
                                shape_text(out, b2, sizeof b2));
    }
    return OK;
}

/* QuantMatmulAllReduceCheckDtypeValid's rules beyond the tables, and the scales' shapes. */
static aclnnStatus check_quant(aclStubOpCall *call, const McRow *row) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, row->x1), *out = aclStubOpTensor(call, row->out);
    const aclStubTensorDesc *deq = aclStubOpTensor(call, row->dequant);
    const aclStubTensorDesc *pt = row->pertoken != NONE ? aclStubOpTensor(call, row->pertoken) : NULL;
    const aclnnStatus bad = ACLNN_ERR_PARAM_INVALID;
    ACLSTUB_RETURN_ERROR_IF((out->dtype == ACL_BF16 || deq->dtype == ACL_BF16) && deq->dtype != out->dtype, call, bad,
                            "dequantScale (%s) must have output's dtype %s when either is BFLOAT16",
                            aclStubDtypeName(deq->dtype), aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(pt != NULL && out->dtype == ACL_FLOAT16 && deq->dtype != pt->dtype, call, bad,
                            "dequantScale (%s) must have pertokenScale's dtype %s with a FLOAT16 output",
                            aclStubDtypeName(deq->dtype), aclStubDtypeName(pt->dtype));
    if (row->cq1 != NONE && aclStubOpTensor(call, row->cq1) != NULL && aclStubOpTensor(call, row->cq2) != NULL) {
        aclDataType d1 = aclStubOpTensor(call, row->cq1)->dtype, d2 = aclStubOpTensor(call, row->cq2)->dtype;
        ACLSTUB_RETURN_ERROR_IF(d1 != out->dtype || d2 != out->dtype, call, bad, "commQuantScale1Optional (%s) and "
                                "commQuantScale2Optional (%s) must have output's dtype %s", aclStubDtypeName(d1),
                                aclStubDtypeName(d2), aclStubDtypeName(out->dtype));
    }
    ACLSTUB_TRY(check_attrs(call, row));
    ACLSTUB_TRY(check_all_reduce_shapes(call, row));
    char b1[96];
    int64_t n = out->dims[out->ndim - 1];
    bool ok = (deq->ndim == 1 && (deq->dims[0] == 1 || deq->dims[0] == n)) ||
              (deq->ndim == 2 && deq->dims[0] == 1 && deq->dims[1] == n);
    ACLSTUB_RETURN_ERROR_IF(!ok, call, bad, "Expected dequantScale be [1] or [n] or [1,n] with n = %lld, but got "
                            "dequantScale shape: %s.", (long long)n, shape_text(deq, b1, sizeof b1));
    const aclStubTensorDesc *c1 = row->cq1 != NONE ? aclStubOpTensor(call, row->cq1) : NULL;
    const aclStubTensorDesc *c2 = row->cq2 != NONE ? aclStubOpTensor(call, row->cq2) : NULL;
    if (c1 != NULL || c2 != NULL) {
        ACLSTUB_RETURN_ERROR_IF(c1 == NULL || c2 == NULL, call, bad, "comm_quantScale_1 and comm_quant_scale_2 "
                                "should both not be nullptr.");
        for (int i = 0; i < 2; i++) {
            const aclStubTensorDesc *c = i ? c2 : c1;
            ok = (c->ndim == 1 && c->dims[0] == n) || (c->ndim == 2 && c->dims[0] == 1 && c->dims[1] == n);
            ACLSTUB_RETURN_ERROR_IF(!ok || c1->ndim != c2->ndim, call, bad, "Expected commQuantScale1 and "
                                    "commQuantScale2 be [n] or [1,n] with n = %lld, but got commQuantScale%d "
                                    "shape: %s.",
                                    (long long)n, i + 1, shape_text(c, b1, sizeof b1));
        }
    }
    if (pt != NULL) {
        int64_t m = 1;
        for (uint32_t d = 0; d + 1 < x1->ndim; d++) m *= x1->dims[d];
        ACLSTUB_RETURN_ERROR_IF(pt->ndim != 1 || pt->dims[0] != m, call, bad, "Expected pertokenScale be [%lld], but "
                                "got pertokenScale shape: %s.", (long long)m, shape_text(pt, b1, sizeof b1));
    }
    return OK;
}

/* The weight-only quantisation's scales: antiquantScale (n) or (1, n) per channel, (1) per tensor, or
 * (ceil(k / group), n) per group; antiquantOffset the same shape; antiquantGroupSize 0 or a multiple of 32 in
 * [32, k - 1]. */
static aclnnStatus check_weight_quant(aclStubOpCall *call, const McRow *row) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, row->x1), *x2 = aclStubOpTensor(call, row->x2);
    const aclStubTensorDesc *sc = aclStubOpTensor(call, row->ascale);
    const aclStubTensorDesc *off = aclStubOpTensor(call, row->aoffset);
    const aclnnStatus bad = ACLNN_ERR_PARAM_INVALID;
    char b1[96], b2[96];
    ACLSTUB_RETURN_ERROR_IF(sc->dtype != x1->dtype, call, bad, "antiquantScale (%s) must have x1's dtype %s",
                            aclStubDtypeName(sc->dtype), aclStubDtypeName(x1->dtype));
    ACLSTUB_RETURN_ERROR_IF(off != NULL && off->dtype != x1->dtype, call, bad,
                            "antiquantOffset (%s) must have x1's dtype %s", aclStubDtypeName(off->dtype),
                            aclStubDtypeName(x1->dtype));
    ACLSTUB_TRY(check_attrs(call, row));
    ACLSTUB_TRY(check_all_reduce_shapes(call, row));
    int64_t k = x2->dims[0], n = x2->dims[1], g = aclStubOpInt(call, row->gsize);
    ACLSTUB_RETURN_ERROR_IF(g != 0 && (g % 32 != 0 || g < 32 || g > k - 1), call, bad,
                            "antiquantGroupSize (%lld) must be 0 or a multiple of 32 in [32, k - 1 = %lld]",
                            (long long)g, (long long)(k - 1));
    bool ok;
    if (g > 0)
        ok = sc->ndim == 2 && sc->dims[0] == (k + g - 1) / g && sc->dims[1] == n;
    else
        ok = (sc->ndim == 1 && (sc->dims[0] == 1 || sc->dims[0] == n)) ||
             (sc->ndim == 2 && sc->dims[0] == 1 && sc->dims[1] == n);
    ACLSTUB_RETURN_ERROR_IF(!ok, call, bad, "antiquantScale %s must be [1], [n] or [1, n] (per channel) or "
                            "[ceil(k / antiquantGroupSize), n] (per group), with k = %lld, n = %lld",
                            shape_text(sc, b1, sizeof b1), (long long)k, (long long)n);
    if (off != NULL) {
        ok = off->ndim == sc->ndim;
        for (uint32_t d = 0; ok && d < sc->ndim; d++) ok = off->dims[d] == sc->dims[d];
        ACLSTUB_RETURN_ERROR_IF(!ok, call, bad, "antiquantOffset %s must have antiquantScale's shape %s",
                                shape_text(off, b1, sizeof b1), shape_text(sc, b2, sizeof b2));
    }
    return OK;
}

/* AllGatherMatmul's and MatmulReduceScatter's CheckShape (after the empty-x1 exit): 2-D, x1 not transposed, k in
 * [256, 65535), n of x2 and output equal; then the rows the collective implies. */
static aclnnStatus check_gather_scatter_shapes(aclStubOpCall *call, const McRow *row, const McPlan *p) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, row->x1), *x2 = aclStubOpTensor(call, row->x2);
    const aclStubTensorDesc *out = aclStubOpTensor(call, row->out);
    const aclStubTensorDesc *bias = row->bias != NONE ? aclStubOpTensor(call, row->bias) : NULL;
    const aclnnStatus bad = ACLNN_ERR_PARAM_INVALID;
    ACLSTUB_RETURN_ERROR_IF(x1->ndim != 2, call, bad, "x1 must be 2-D, got %u-D", x1->ndim);
    ACLSTUB_RETURN_ERROR_IF(x2->ndim != 2, call, bad, "x2 must be 2-D, got %u-D", x2->ndim);
    ACLSTUB_RETURN_ERROR_IF(is_transposed(x1), call, bad, "The x1 should not be transposed, but it is transposed.");
    int64_t k = x1->dims[1];
    ACLSTUB_RETURN_ERROR_IF(k != x2->dims[0], call, bad, "The k-axis of x1 and x2 should be same, but x1's k-axis is: "
                            "%lld and x2's k-axis is: %lld.", (long long)k, (long long)x2->dims[0]);
    const aclStubTensorDesc *go = row->gather_out != NONE ? aclStubOpTensor(call, row->gather_out) : NULL;
    if (go != NULL && aclStubNumel(go) > 0) {
        ACLSTUB_RETURN_ERROR_IF(go->ndim != 2 || go->dims[1] != k, call, bad, "The k-axis of x1 and gatherOut should "
                                "be same, but x1's k-axis is: %lld and gatherOut's k-axis is: %lld.", (long long)k,
                                (long long)(go->ndim == 2 ? go->dims[1] : -1));
    }
    ACLSTUB_RETURN_ERROR_IF(k < 256 || k >= 65535, call, bad, "The k-axis should be in range[256, 65535), but it is: "
                            "%lld.", (long long)k);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2 || out->dims[1] != x2->dims[1], call, bad,
                            "The n-axis of x2 and output should be same, but x2's n-axis is: %lld and output's n-axis "
                            "is: %lld.", (long long)x2->dims[1], (long long)(out->ndim == 2 ? out->dims[1] : -1));
    if (bias != NULL)
        ACLSTUB_RETURN_ERROR_IF(bias->ndim != 1 || bias->dims[0] != x2->dims[1], call, bad,
                                "bias must be (%lld)", (long long)x2->dims[1]);
    /* the shapes the collective implies (the infershape's rules) */
    int64_t m = x1->dims[0], w = p->nranks;
    if (row->coll == ALL_GATHER) {
        ACLSTUB_RETURN_ERROR_IF(out->dims[0] != m * w, call, bad, "output must have m * rank_size = %lld * %lld rows, "
                                "got %lld", (long long)m, (long long)w, (long long)out->dims[0]);
        if (go != NULL && aclStubNumel(go) > 0)
            ACLSTUB_RETURN_ERROR_IF(go->dims[0] != m * w, call, bad, "gatherOut must have m * rank_size = %lld rows, "
                                    "got %lld", (long long)(m * w), (long long)go->dims[0]);
    } else {
        ACLSTUB_RETURN_ERROR_IF(m % w != 0, call, bad, "the rows of x1 (%lld) must be a multiple of rank_size (%lld)",
                                (long long)m, (long long)w);
        ACLSTUB_RETURN_ERROR_IF(out->dims[0] != m / w, call, bad, "output must have m / rank_size = %lld rows, got "
                                "%lld", (long long)(m / w), (long long)out->dims[0]);
    }
    return OK;
}

/* The AddRmsNorm variants: ArnCheckShape, the k = 0 and empty exits, streamMode; then the inner operator's rules
 * (dtypes, reduceOp, the shapes of residual, gamma, y and normOut). */
static aclnnStatus check_arn(aclStubOpCall *call, const McRow *row) {
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, row->x1), *x2 = aclStubOpTensor(call, row->x2);
    const aclStubTensorDesc *res = aclStubOpTensor(call, row->residual), *g = aclStubOpTensor(call, row->gamma);
    const aclStubTensorDesc *y = aclStubOpTensor(call, row->out), *no = aclStubOpTensor(call, row->norm_out);
    const aclnnStatus bad = ACLNN_ERR_PARAM_INVALID;
    char b1[96], b2[96];
    ACLSTUB_RETURN_ERROR_IF(x1->ndim < 1 || x2->ndim < 1 || res->ndim < 1, call, bad,
                            "dim of x1, x2 and residual should greater than 1.");
    ACLSTUB_RETURN_ERROR_IF(x1->dims[x1->ndim - 1] != x2->dims[0], call, bad, "Expected last dim of x1 to be equal to "
                            "first dim of x2, but got x1 shape: %s, x2 shape: %s.", shape_text(x1, b1, sizeof b1),
                            shape_text(x2, b2, sizeof b2));
    ACLSTUB_RETURN_ERROR_IF(res->dims[res->ndim - 1] != x2->dims[x2->ndim - 1], call, bad, "Expected last dim of "
                            "residual to be equal to last dim of x2, but got residual shape: %s, x2 shape: %s.",
                            shape_text(res, b1, sizeof b1), shape_text(x2, b2, sizeof b2));
    if (aclStubNumel(x1) == 0 || aclStubNumel(x2) == 0 || aclStubNumel(res) == 0 || aclStubNumel(g) == 0) {
        ACLSTUB_RETURN_ERROR_IF(x1->dims[x1->ndim - 1] == 0, call, bad, "%s does not support k = 0.",
                                call->op->name + 5);
        return aclStubOpNothingToDo(call);
    }
    int64_t sm = aclStubOpInt(call, row->stream_mode);
    ACLSTUB_RETURN_ERROR_IF(sm != 1, call, bad, "Expected streamMode to be 1, but got %lld.", (long long)sm);
    if (row->kind == QUANT) ACLSTUB_TRY(check_quant(call, row));
    else if (row->kind == WEIGHT_QUANT) ACLSTUB_TRY(check_weight_quant(call, row));
    else {
        ACLSTUB_TRY(check_attrs(call, row));
        ACLSTUB_TRY(check_all_reduce_shapes(call, row));
    }
    bool same = res->ndim == y->ndim && no->ndim == y->ndim;
    for (uint32_t d = 0; same && d < y->ndim; d++) same = res->dims[d] == y->dims[d] && no->dims[d] == y->dims[d];
    ACLSTUB_RETURN_ERROR_IF(!same, call, bad, "residual, y and normOut must have the product's shape %s",
                            shape_text(y, b1, sizeof b1));
    ACLSTUB_RETURN_ERROR_IF(g->ndim != 1 || g->dims[0] != y->dims[y->ndim - 1], call, bad, "gamma must be (%lld), "
                            "got %s", (long long)y->dims[y->ndim - 1], shape_text(g, b1, sizeof b1));
    return OK;
}

static aclnnStatus mc_check(aclStubOpCall *call) {
    const McRow *row = aclStubFamilyRow(call);
    McPlan *p = call->plan;
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, row->x1), *x2 = aclStubOpTensor(call, row->x2);
    const aclStubTensorDesc *out = aclStubOpTensor(call, row->out);
    if (row->arn) {
        ACLSTUB_TRY(check_arn(call, row));
    } else if (row->kind == QUANT) {
        ACLSTUB_TRY(check_quant(call, row));
    } else if (row->kind == WEIGHT_QUANT) {
        ACLSTUB_TRY(check_weight_quant(call, row));
    } else if (row->coll == ALL_REDUCE) {
        ACLSTUB_TRY(check_attrs(call, row));
        ACLSTUB_RETURN_ERROR_IF(x2->format == ACL_FORMAT_FRACTAL_NZ, call, ACLNN_ERR_PARAM_INVALID,
                                "non-quantization scenarios unsupport weigth NZ");
        ACLSTUB_TRY(check_all_reduce_shapes(call, row));
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) == 0, call, ACLNN_ERR_PARAM_INVALID,
                                "output is empty (m or n is 0), which is unsupported");
    } else {
        ACLSTUB_TRY(check_attrs(call, row));
        ACLSTUB_RETURN_ERROR_IF(x1->ndim >= 2 && x1->dims[x1->ndim - 1] == 0, call, ACLNN_ERR_PARAM_INVALID,
                                "X1 is empty tensor with zero dimK, which is unsupported.");
        if (aclStubNumel(x1) == 0 || (row->coll == REDUCE_SCATTER && aclStubNumel(x2) == 0))
            return aclStubOpNothingToDo(call); /* the op_api's empty-tensor exit: no communication */
    }
    if (row->coll == ALL_GATHER) {
        int64_t gi = aclStubOpInt(call, row->gather_index);
        ACLSTUB_RETURN_ERROR_IF(gi != 0, call, ACLNN_ERR_INNER_TILING_ERROR, "gatherIndex (%lld) must be 0 (x1 is "
                                "gathered)", (long long)gi);
    }
    ACLSTUB_TRY(resolve_group(call, row, p));
    if (row->coll != ALL_REDUCE) ACLSTUB_TRY(check_gather_scatter_shapes(call, row, p));
    if (row->gather_out != NONE && aclStubOpTensor(call, row->gather_out) != NULL &&
        aclStubNumel(aclStubOpTensor(call, row->gather_out)) == 0)
        aclStubOpIgnore(call, row->gather_out);
    p->nbatch = x1->ndim == 3 ? 1 : 0;
    p->batch = x1->ndim == 3 ? x1->dims[0] : 1;
    p->m = x1->dims[x1->ndim - 2] * (row->coll == ALL_GATHER ? (int64_t)p->nranks : 1);
    p->k = x1->dims[x1->ndim - 1];
    p->n = x2->dims[1];
    (void)out;
    return aclStubOpWaitsForPeers(call); /* the kernel exchanges with the other ranks: never run inline */
}

/* ---- the kernel ------------------------------------------------------------------------------------------- */

static aclStubTensorDesc contiguous(aclDataType dt, void *data, const int64_t *dims, uint32_t ndim) {
    aclStubTensorDesc t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.format = ACL_FORMAT_ND;
    t.ndim = ndim;
    t.data = data;
    int64_t s = 1;
    for (int d = (int)ndim - 1; d >= 0; d--) {
        t.dims[d] = dims[d];
        t.strides[d] = s;
        s *= dims[d];
    }
    return t;
}

/* Sum, in rank order, count elements of each of n ranks' blocks (src: n * count elements), every step rounded to
 * dt; into dst (contiguous). */
typedef struct {
    const char *src;
    char *dst;
    int64_t count;
    uint32_t n;
    aclDataType dt;
} SumCtx;

#define SUM_CHUNK 512
static void sum_range(void *vctx, int64_t b, int64_t e) {
    const SumCtx *c = vctx;
    size_t es = aclDataTypeSize(c->dt);
    float acc[SUM_CHUNK];
    for (int64_t i = b * SUM_CHUNK; i < e * SUM_CHUNK && i < c->count; i += SUM_CHUNK) {
        int64_t len = c->count - i < SUM_CHUNK ? c->count - i : SUM_CHUNK;
        char *dst = c->dst + (size_t)i * es;
        aclStubRowLoadF32(acc, c->src + (size_t)i * es, c->dt, len);
        for (uint32_t r = 1; r < c->n; r++) {
            aclStubRowAddF32(acc, c->src + ((size_t)r * (size_t)c->count + (size_t)i) * es, c->dt, len);
            aclStubRowStoreF32(dst, acc, c->dt, len);
            aclStubRowLoadF32(acc, dst, c->dt, len);
        }
        aclStubRowStoreF32(dst, acc, c->dt, len);
    }
}

static void rank_sum(const char *src, void *dst, int64_t count, uint32_t n, aclDataType dt) {
    SumCtx c = {src, dst, count, n, dt};
    aclStubParallelFor((count + SUM_CHUNK - 1) / SUM_CHUNK, 64, sum_range, &c);
}

/* The exchange: every rank's `bytes` to every rank (all-gather), or block i to rank i (all-to-all, blocks of
 * `bytes`). */
typedef struct {
    bool all_to_all;
    const void *send;
    void *recv;
    uint64_t bytes;
    uint32_t n;
} Xchg;

static HcclResult exchange(HcCtx *ctx, void *arg) {
    Xchg *x = arg;
    if (!x->all_to_all) return aclStubHcclAllGatherBytes(ctx, "mc2 all-gather", x->send, x->recv, x->bytes);
    uint64_t counts[x->n], displs[x->n];
    for (uint32_t i = 0; i < x->n; i++) counts[i] = x->bytes, displs[i] = (uint64_t)i * x->bytes;
    return aclStubHcclAlltoAllvBytes(ctx, "mc2 reduce-scatter", x->send, counts, displs, x->recv, counts, displs);
}

static aclnnStatus run_exchange(const aclStubOpCall *call, const McPlan *p, Xchg *x) {
    char msg[1024];
    HcclResult hr = aclStubHcclRun(p->comm, call->op->name, exchange, x, msg, sizeof msg);
    if (hr != HCCL_SUCCESS) return aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over group failed: %s", msg);
    return OK;
}

/* x (contiguous, dt) += x3 elementwise, rounded to dt. */
typedef struct {
    char *x;
    const aclStubTensorDesc *x3;
    int64_t n; /* row length */
    aclDataType dt;
} AddCtx;

static void add_rows(void *vctx, int64_t b, int64_t e) {
    const AddCtx *c = vctx;
    size_t es = aclDataTypeSize(c->dt);
    float acc[SUM_CHUNK], tmp[SUM_CHUNK];
    int64_t rows_per = c->x3->ndim == 3 ? c->x3->dims[1] : 0;
    for (int64_t r = b; r < e; r++) {
        const aclStubTensorDesc *t = c->x3;
        for (int64_t j = 0; j < c->n; j += SUM_CHUNK) {
            int64_t len = c->n - j < SUM_CHUNK ? c->n - j : SUM_CHUNK;
            char *dst = c->x + ((size_t)r * (size_t)c->n + (size_t)j) * es;
            aclStubRowLoadF32(acc, dst, c->dt, len);
            for (int64_t q = 0; q < len; q++) {
                int64_t at = t->ndim == 3 ? (r / rows_per) * t->strides[0] + (r % rows_per) * t->strides[1] +
                                                (j + q) * t->strides[2]
                                          : r * t->strides[0] + (j + q) * t->strides[1];
                const char *src = (const char *)t->data + (size_t)(t->offset + at) * aclDataTypeSize(t->dtype);
                tmp[q] = aclStubLoadPtrF32(t->dtype, src);
            }
            for (int64_t q = 0; q < len; q++) acc[q] += tmp[q];
            aclStubRowStoreF32(dst, acc, c->dt, len);
        }
    }
}

/* The AddRmsNorm tail over rows of n (mm_out contiguous; residual, y, normOut contiguous outputs or inputs). */
typedef struct {
    const char *mm;
    const aclStubTensorDesc *res, *g, *y, *no;
    float eps;
    int64_t n;
    aclDataType dt;
    float *gamma;
    int failed;
} ArnCtx;

static float sum_squares(const float *x, int64_t n) {
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) lanes[k] += x[j + k] * x[j + k];
    for (int k = 0; j + k < n; k++) lanes[k] += x[j + k] * x[j + k];
    float s = 0.0f;
    for (int k = 0; k < 16; k++) s += lanes[k];
    return s;
}

static void arn_rows(void *vctx, int64_t b, int64_t e) {
    ArnCtx *c = vctx;
    int64_t n = c->n;
    size_t es = aclDataTypeSize(c->dt);
    float *v = malloc((size_t)(2 * n + 1) * sizeof(float));
    if (v == NULL) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    float *t = v + n;
    for (int64_t r = b; r < e; r++) {
        aclStubRowLoadF32(v, c->mm + (size_t)(r * n) * es, c->dt, n);
        aclStubRowLoadF32(t, (const char *)c->res->data + (size_t)(c->res->offset + r * n) * es, c->dt, n);
        for (int64_t j = 0; j < n; j++) v[j] += t[j];
        aclStubRowStoreF32((char *)c->y->data + (size_t)(c->y->offset + r * n) * es, v, c->dt, n);
        float rs = 1.0f / sqrtf(sum_squares(v, n) / (float)n + c->eps);
        for (int64_t j = 0; j < n; j++) t[j] = (v[j] * rs) * c->gamma[j];
        aclStubRowStoreF32((char *)c->no->data + (size_t)(c->no->offset + r * n) * es, t, c->dt, n);
    }
    free(v);
}

/* V3's low-bit all-reduce (see the top of the file). */
static int8_t sat8(float v) {
    if (v != v) return 0;
    float r = nearbyintf(v);
    return r > 127.0f ? 127 : r < -128.0f ? -128 : (int8_t)r;
}

typedef struct {
    uint32_t n, me;
    int64_t rows, cols, per; /* per: rows of a block */
    const int8_t *q;         /* this rank's quantised rows */
    int8_t *recv;            /* the blocks of this rank's rows from every rank, in rank order */
    int8_t *mine;            /* this rank's requantised block */
    int8_t *all;             /* every block, gathered */
    const float *ratio;      /* scale1 / scale2 per column */
} CqX;

static int64_t block_rows(const CqX *x, uint32_t r) {
    int64_t b = (int64_t)r * x->per, e = b + x->per;
    if (b > x->rows) b = x->rows;
    if (e > x->rows) e = x->rows;
    return e - b;
}

static HcclResult cq_exchange(HcCtx *ctx, void *arg) {
    CqX *x = arg;
    uint32_t n = x->n;
    uint64_t sc[n], sd[n], rc[n], rd[n];
    int64_t mine = block_rows(x, x->me);
    for (uint32_t i = 0; i < n; i++) {
        sc[i] = (uint64_t)(block_rows(x, i) * x->cols), sd[i] = (uint64_t)((int64_t)i * x->per * x->cols);
        rc[i] = (uint64_t)(mine * x->cols), rd[i] = (uint64_t)i * rc[i];
    }
    HcclResult ret = aclStubHcclAlltoAllvBytes(ctx, "mc2 low-bit all-to-all", x->q, sc, sd, x->recv, rc, rd);
    if (ret != HCCL_SUCCESS) return ret;
    for (int64_t e = 0; e < mine * x->cols; e++) {
        int32_t sum = 0;
        for (uint32_t i = 0; i < n; i++) sum += x->recv[(size_t)i * (size_t)(mine * x->cols) + (size_t)e];
        x->mine[e] = sat8((float)sum * x->ratio[e % x->cols]);
    }
    for (uint32_t i = 0; i < n; i++) {
        sc[i] = (uint64_t)(mine * x->cols), sd[i] = 0;
        rc[i] = (uint64_t)(block_rows(x, i) * x->cols), rd[i] = (uint64_t)((int64_t)i * x->per * x->cols);
    }
    return aclStubHcclAlltoAllvBytes(ctx, "mc2 low-bit all-gather", x->mine, sc, sd, x->all, rc, rd);
}

static aclnnStatus comm_quant_all_reduce(const aclStubOpCall *call, const McPlan *p, const char *local, int64_t rows,
                                         const aclStubTensorDesc *c1, const aclStubTensorDesc *c2,
                                         const aclStubTensorDesc *out) {
    int64_t n = p->n, count = rows * n;
    aclDataType dt = out->dtype;
    size_t es = aclDataTypeSize(dt);
    float *s1 = aclStubKernelScratch(call, (size_t)(3 * n + 1) * sizeof(float)), *s2 = s1 + n, *ratio = s2 + n;
    CqX x = {p->nranks, p->rank, rows, n, (rows + p->nranks - 1) / p->nranks, NULL, NULL, NULL, NULL, ratio};
    int8_t *q = aclStubKernelScratch(call, (size_t)count + 1);
    x.recv = aclStubKernelScratch(call, (size_t)(x.per * n) * p->nranks + 1);
    x.mine = aclStubKernelScratch(call, (size_t)(x.per * n) + 1);
    x.all = aclStubKernelScratch(call, (size_t)count + 1);
    if (s1 == NULL || q == NULL || x.recv == NULL || x.mine == NULL || x.all == NULL)
        return aclStubKernelOutOfMemory(call);
    for (int64_t j = 0; j < n; j++) {
        s1[j] = aclStubLoadPtrF32(c1->dtype, aclStubElemFlat(c1, j, n));
        s2[j] = aclStubLoadPtrF32(c2->dtype, aclStubElemFlat(c2, j, n));
        ratio[j] = s1[j] / s2[j];
    }
    for (int64_t e = 0; e < count; e++)
        q[e] = sat8(aclStubLoadPtrF32(dt, local + (size_t)e * es) / s1[e % n]);
    x.q = q;
    char msg[1024];
    HcclResult hr = aclStubHcclRun(p->comm, call->op->name, cq_exchange, &x, msg, sizeof msg);
    if (hr != HCCL_SUCCESS) return aclStubKernelFail(call, ACLNN_ERR_INNER, "the exchange over group failed: %s", msg);
    char *o = (char *)out->data + (size_t)out->offset * es;
    for (int64_t e = 0; e < count; e++) aclStubStorePtrF32(dt, o + (size_t)e * es, (float)x.all[e] * s2[e % n]);
    return OK;
}

static aclnnStatus mc_kernel(const aclStubOpCall *call) {
    const McRow *row = aclStubFamilyRow(call);
    const McPlan *p = call->plan;
    const aclStubTensorDesc *x1 = aclStubOpTensor(call, row->x1), *x2 = aclStubOpTensor(call, row->x2);
    const aclStubTensorDesc *out = aclStubOpTensor(call, row->out);
    const aclStubTensorDesc *bias = row->bias != NONE ? aclStubOpTensor(call, row->bias) : NULL;
    const aclStubTensorDesc *x3 = row->x3 != NONE ? aclStubOpTensor(call, row->x3) : NULL;
    aclDataType dt = out->dtype;
    size_t es = aclDataTypeSize(dt);
    uint32_t w = p->nranks;
    int64_t rows = p->batch * p->m, count = rows * p->n;
    aclnnStatus st = OK;

    /* AllGatherMatmul: x1 of every rank first, in rank order. */
    aclStubTensorDesc gathered;
    const aclStubTensorDesc *a = x1;
    if (row->coll == ALL_GATHER) {
        int64_t m1 = x1->dims[0], k = p->k;
        size_t xes = aclDataTypeSize(x1->dtype);
        char *mine = aclStubKernelScratch(call, (size_t)(m1 * k) * xes);
        char *all = aclStubKernelScratch(call, (size_t)(m1 * k) * xes * w);
        int64_t *idx = aclStubKernelScratch(call, (size_t)m1 * sizeof *idx);
        if (mine == NULL || all == NULL || idx == NULL) return aclStubKernelOutOfMemory(call);
        for (int64_t i = 0; i < m1; i++) idx[i] = i;
        aclStubTensorDesc mine_d = contiguous(x1->dtype, mine, x1->dims, 2);
        aclStubCopyRows(&mine_d, 0, x1, idx, m1);
        Xchg x = {false, mine, all, (uint64_t)(m1 * k) * xes, w};
        ACLSTUB_TRY(run_exchange(call, p, &x));
        int64_t gd[2] = {m1 * w, k};
        gathered = contiguous(x1->dtype, all, gd, 2);
        a = &gathered;
        const aclStubTensorDesc *go = aclStubOpTensor(call, row->gather_out);
        if (go != NULL) memcpy((char *)go->data + (size_t)go->offset * xes, all, (size_t)(m1 * k) * xes * w);
    }

    /* The product of this rank, rounded to the output dtype: into out (AllGatherMatmul) or scratch. */
    char *local = NULL;
    aclStubTensorDesc local_d;
    const aclStubTensorDesc *dst = out;
    if (row->coll != ALL_GATHER) {
        local = aclStubKernelScratch(call, (size_t)count * es);
        if (local == NULL) return aclStubKernelOutOfMemory(call);
        int64_t dims[3] = {p->batch, p->m, p->n};
        local_d = p->nbatch ? contiguous(dt, local, dims, 3) : contiguous(dt, local, dims + 1, 2);
        dst = &local_d;
    }
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.nbatch = p->nbatch;
    mm.batch[0] = p->batch;
    mm.m = p->m, mm.n = p->n, mm.k = p->k;
    mm.a = aclStubMatOfView(a, p->nbatch, mm.batch, false, true);
    mm.out = aclStubMatOfView(dst, p->nbatch, mm.batch, false, true);
    mm.add.dtype = ACL_DT_UNDEFINED;
    mm.alpha = 1.0f, mm.beta = 1.0f;
    aclStubMmDequant dq;
    if (row->kind == QUANT) {
        const aclStubTensorDesc *deq = aclStubOpTensor(call, row->dequant);
        const aclStubTensorDesc *pt = row->pertoken != NONE ? aclStubOpTensor(call, row->pertoken) : NULL;
        memset(&dq, 0, sizeof dq);
        mm.b = aclStubMatOfView(x2, p->nbatch, mm.batch, false, false);
        aclStubTensorDesc d1 = *deq;
        if (d1.ndim == 2) { /* (1, n): a row */
            d1.ndim = 1;
            d1.dims[0] = d1.dims[1];
            d1.strides[0] = d1.strides[1];
        }
        if (d1.dims[0] == 1) d1.strides[0] = 0;
        dq.scale = aclStubMatOfView(&d1, 0, mm.batch, false, true);
        dq.offset.dtype = ACL_DT_UNDEFINED;
        if (pt != NULL) {
            dq.pertoken = aclStubMatOfView(pt, 0, mm.batch, false, false);
            if (p->nbatch) dq.pertoken.bs[0] = p->m * pt->strides[0];
        } else {
            dq.pertoken.dtype = ACL_DT_UNDEFINED;
        }
        dq.bias = bias ? aclStubMatOfView(bias, 0, mm.batch, false, true) : dq.offset;
        mm.compute = ACLSTUB_MM_INT;
        mm.result = ACL_FLOAT;
        mm.row_fn = aclStubMmDequantRow;
        mm.ctx = &dq;
    } else {
        const aclStubTensorDesc *b = x2;
        aclStubTensorDesc w_d;
        if (row->kind == WEIGHT_QUANT) {
            /* (w + offset) * scale rounded to x1's dtype, the weight the cube multiplies */
            char *wbuf = aclStubKernelScratch(call, (size_t)(p->k * p->n) * aclDataTypeSize(x1->dtype));
            if (wbuf == NULL) return aclStubKernelOutOfMemory(call);
            aclStubMmAntiquantWeight(x2, aclStubOpTensor(call, row->ascale), aclStubOpTensor(call, row->aoffset),
                                     aclStubOpInt(call, row->gsize), x1->dtype, wbuf);
            int64_t wd[2] = {p->k, p->n};
            w_d = contiguous(x1->dtype, wbuf, wd, 2);
            b = &w_d;
        }
        mm.b = aclStubMatOfView(b, p->nbatch, mm.batch, false, false);
        mm.compute = x1->dtype == ACL_BF16 ? ACLSTUB_MM_BF16 : ACLSTUB_MM_FP16;
        mm.result = ACL_FLOAT; /* the bias joins the float32 sums; one rounding to the output */
        if (bias != NULL) mm.add = aclStubMatOfView(bias, p->nbatch, mm.batch, false, true);
    }
    st = aclStubMatmulRun(call, &mm);
    if (st != OK) return st;
    if (row->coll == ALL_GATHER) return OK;

    if (x3 != NULL) {
        AddCtx c = {local, x3, p->n, dt};
        aclStubParallelFor(rows, 16, add_rows, &c);
    }

    const aclStubTensorDesc *c1 = row->cq1 != NONE ? aclStubOpTensor(call, row->cq1) : NULL;
    if (c1 != NULL) return comm_quant_all_reduce(call, p, local, rows, c1, aclStubOpTensor(call, row->cq2), out);

    /* The collective: every rank's block, summed in rank order. */
    if (row->coll == ALL_REDUCE) {
        char *all = aclStubKernelScratch(call, (size_t)count * es * w);
        if (all == NULL) return aclStubKernelOutOfMemory(call);
        Xchg x = {false, local, all, (uint64_t)count * es, w};
        ACLSTUB_TRY(run_exchange(call, p, &x));
        if (!row->arn) {
            rank_sum(all, (char *)out->data + (size_t)out->offset * es, count, w, dt);
            return OK;
        }
        rank_sum(all, local, count, w, dt); /* mm_out */
        ArnCtx c = {local, aclStubOpTensor(call, row->residual), aclStubOpTensor(call, row->gamma), out,
                    aclStubOpTensor(call, row->norm_out), (float)aclStubOpFloat(call, row->eps), p->n, dt, NULL, 0};
        c.gamma = aclStubKernelScratch(call, (size_t)p->n * sizeof(float));
        if (c.gamma == NULL) return aclStubKernelOutOfMemory(call);
        for (int64_t j = 0; j < p->n; j++) c.gamma[j] = aclStubLoadPtrF32(c.g->dtype, aclStubElem1(c.g, j));
        aclStubParallelFor(rows, 4, arn_rows, &c);
        if (c.failed) return aclStubKernelOutOfMemory(call);
    } else {
        int64_t block = count / w;
        char *all = aclStubKernelScratch(call, (size_t)count * es);
        if (all == NULL) return aclStubKernelOutOfMemory(call);
        Xchg x = {true, local, all, (uint64_t)block * es, w};
        ACLSTUB_TRY(run_exchange(call, p, &x));
        rank_sum(all, (char *)out->data + (size_t)out->offset * es, block, w, dt);
    }
    return OK;
}

/* ---- the operators ------------------------------------------------------------------------------------------ */

#define T(NAME, ROLE, DT, SAME) {.name = NAME, .role = ROLE, .dtypes = DT, .same_dtype_as = SAME}
#define TNZ(NAME, DT, SAME)                                                                                           \
    {.name = NAME, .role = ACLSTUB_INPUT, .dtypes = DT, .same_dtype_as = SAME, .flags = ACLSTUB_NZ_INPUT}
#define S(NAME) {.name = NAME, .role = ACLSTUB_STRING}
#define I(NAME) {.name = NAME, .role = ACLSTUB_INT}

static const aclStubParam kMarParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, F16, "x1"), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    S("group"), S("reduceOp"), I("commTurn"), I("streamMode"), T("output", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kMarRow = {ALL_REDUCE, PLAIN, 0, 1, 2, NONE, NONE, NONE, NONE, NONE, 3, 4, NONE, 6, NONE, 7, NONE,
                              NONE, NONE, false, NONE, NONE, NONE, NONE};

static const aclStubParam kMarV2Params[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, F16, "x1"), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    T("x3", ACLSTUB_OPTIONAL_INPUT, F16, "x1"), S("group"), S("reduceOp"), I("commTurn"), I("streamMode"),
    T("output", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kMarV2Row = {ALL_REDUCE, PLAIN, 0, 1, 2, 3, NONE, NONE, NONE, NONE, 4, 5, NONE, 7, NONE, 8, NONE,
                                NONE, NONE, false, NONE, NONE, NONE, NONE};

static const aclStubParam kQmarParams[] = {
    T("x1", ACLSTUB_INPUT, I8, NULL), TNZ("x2", I8, "x1"),
    T("bias", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL), T("x3", ACLSTUB_OPTIONAL_INPUT, F16, "output"),
    T("dequantScale", ACLSTUB_INPUT, DEQ, NULL), S("group"), S("reduceOp"), I("commTurn"), I("streamMode"),
    T("output", ACLSTUB_OUTPUT, F16, NULL),
};
static const McRow kQmarRow = {ALL_REDUCE, QUANT, 0, 1, 2, 3, 4, NONE, NONE, NONE, 5, 6, NONE, 8, NONE, 9, NONE, NONE,
                               NONE, false, NONE, NONE, NONE, NONE};

static const aclStubParam kQmarV2Params[] = {
    T("x1", ACLSTUB_INPUT, I8, NULL), TNZ("x2", I8, "x1"),
    T("biasOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL),
    T("x3Optional", ACLSTUB_OPTIONAL_INPUT, F16, "output"), T("dequantScale", ACLSTUB_INPUT, DEQ, NULL),
    T("pertokenScaleOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL), S("group"), S("reduceOp"),
    I("commTurn"), I("streamMode"), T("output", ACLSTUB_OUTPUT, F16, NULL),
};
static const McRow kQmarV2Row = {ALL_REDUCE, QUANT, 0, 1, 2, 3, 4, 5, NONE, NONE, 6, 7, NONE, 9, NONE, 10, NONE, NONE,
                                 NONE, false, NONE, NONE, NONE, NONE};

static const aclStubParam kQmarV3Params[] = {
    T("x1", ACLSTUB_INPUT, I8, NULL), TNZ("x2", I8, "x1"),
    T("biasOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL),
    T("x3Optional", ACLSTUB_OPTIONAL_INPUT, F16, "output"), T("dequantScale", ACLSTUB_INPUT, DEQ, NULL),
    T("pertokenScaleOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_FLOAT), NULL),
    T("commQuantScale1Optional", ACLSTUB_OPTIONAL_INPUT, F16, NULL),
    T("commQuantScale2Optional", ACLSTUB_OPTIONAL_INPUT, F16, NULL), S("group"), S("reduceOp"), I("commTurn"),
    I("streamMode"), T("output", ACLSTUB_OUTPUT, F16, NULL),
};
static const McRow kQmarV3Row = {ALL_REDUCE, QUANT, 0, 1, 2, 3, 4, 5, NONE, NONE, 8, 9, NONE, 11, NONE, 12, NONE, 6, 7,
                                 false, NONE, NONE, NONE, NONE};

static const aclStubParam kWqmarParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, WQ, NULL), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    T("antiquantScale", ACLSTUB_INPUT, F16, NULL), T("antiquantOffset", ACLSTUB_OPTIONAL_INPUT, F16, NULL),
    T("x3", ACLSTUB_OPTIONAL_INPUT, F16, "x1"), S("group"), S("reduceOp"), I("commTurn"), I("streamMode"),
    I("antiquantGroupSize"), T("output", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kWqmarRow = {ALL_REDUCE, WEIGHT_QUANT, 0, 1, 2, 5, NONE, NONE, 3, 4, 6, 7, NONE, 9, 10, 11, NONE,
                                NONE, NONE, false, NONE, NONE, NONE, NONE};

static const aclStubParam kAgmParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, F16, "x1"), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    S("group"), I("gatherIndex"), I("commTurn"), I("streamMode"), T("output", ACLSTUB_OUTPUT, F16, "x1"),
    T("gatherOut", ACLSTUB_OPTIONAL_OUTPUT, F16, "x1"),
};
static const McRow kAgmRow = {ALL_GATHER, PLAIN, 0, 1, 2, NONE, NONE, NONE, NONE, NONE, 3, NONE, 4, 6, NONE, 7, 8, NONE,
                              NONE, false, NONE, NONE, NONE, NONE};

static const aclStubParam kMrsParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, F16, "x1"), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    S("group"), S("reduceOp"), I("commTurn"), I("streamMode"), T("output", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kMrsRow = {REDUCE_SCATTER, PLAIN, 0, 1, 2, NONE, NONE, NONE, NONE, NONE, 3, 4, NONE, 6, NONE, 7,
                              NONE, NONE, NONE, false, NONE, NONE, NONE, NONE};

/* The AddRmsNorm variants (y, or residual in place, is the product's output; D: double epsilon). */
#define D(NAME) {.name = NAME, .role = ACLSTUB_FLOAT}
#define ARN_TAIL(OUT_SAME)                                                                                            \
    T("residual", ACLSTUB_INPUT, F16, OUT_SAME), T("gamma", ACLSTUB_INPUT, F16, "residual"), D("epsilon"),             \
        S("group"), S("reduceOp"), I("commTurn"), I("streamMode")
static const aclStubParam kArnParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, F16, "x1"), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    ARN_TAIL("x1"), T("y", ACLSTUB_OUTPUT, F16, "x1"), T("normOut", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kArnRow = {ALL_REDUCE, PLAIN, 0, 1, 2, NONE, NONE, NONE, NONE, NONE, 6, 7, NONE, 9, NONE, 10, NONE,
                              NONE, NONE, true, 3, 4, 5, 11};
static const aclStubParam kInplaceArnParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, F16, "x1"), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    ARN_TAIL("x1"), T("normOut", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kInplaceArnRow = {ALL_REDUCE, PLAIN, 0, 1, 2, NONE, NONE, NONE, NONE, NONE, 6, 7, NONE, 9, NONE, 3,
                                     NONE, NONE, NONE, true, 3, 4, 5, 10};

static const aclStubParam kQarnParams[] = {
    T("x1", ACLSTUB_INPUT, I8, NULL), TNZ("x2", I8, "x1"),
    T("bias", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL), T("dequantScale", ACLSTUB_INPUT, DEQ, NULL),
    ARN_TAIL(NULL), T("y", ACLSTUB_OUTPUT, F16, "residual"), T("normOut", ACLSTUB_OUTPUT, F16, "residual"),
};
static const McRow kQarnRow = {ALL_REDUCE, QUANT, 0, 1, 2, NONE, 3, NONE, NONE, NONE, 7, 8, NONE, 10, NONE, 11, NONE,
                               NONE, NONE, true, 4, 5, 6, 12};
static const aclStubParam kInplaceQarnParams[] = {
    T("x1", ACLSTUB_INPUT, I8, NULL), TNZ("x2", I8, "x1"),
    T("bias", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL), T("dequantScale", ACLSTUB_INPUT, DEQ, NULL),
    ARN_TAIL(NULL), T("normOut", ACLSTUB_OUTPUT, F16, "residual"),
};
static const McRow kInplaceQarnRow = {ALL_REDUCE, QUANT, 0, 1, 2, NONE, 3, NONE, NONE, NONE, 7, 8, NONE, 10, NONE, 4,
                                      NONE, NONE, NONE, true, 4, 5, 6, 11};

static const aclStubParam kWqarnParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, WQ, NULL), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    T("antiquantScale", ACLSTUB_INPUT, F16, NULL), T("antiquantOffset", ACLSTUB_OPTIONAL_INPUT, F16, NULL),
    ARN_TAIL("x1"), I("antiquantGroupSize"), T("y", ACLSTUB_OUTPUT, F16, "x1"),
    T("normOut", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kWqarnRow = {ALL_REDUCE, WEIGHT_QUANT, 0, 1, 2, NONE, NONE, NONE, 3, 4, 8, 9, NONE, 11, 12, 13,
                                NONE, NONE, NONE, true, 5, 6, 7, 14};
static const aclStubParam kInplaceWqarnParams[] = {
    T("x1", ACLSTUB_INPUT, F16, NULL), T("x2", ACLSTUB_INPUT, WQ, NULL), T("bias", ACLSTUB_OPTIONAL_INPUT, F16, "x1"),
    T("antiquantScale", ACLSTUB_INPUT, F16, NULL), T("antiquantOffset", ACLSTUB_OPTIONAL_INPUT, F16, NULL),
    ARN_TAIL("x1"), I("antiquantGroupSize"), T("normOut", ACLSTUB_OUTPUT, F16, "x1"),
};
static const McRow kInplaceWqarnRow = {ALL_REDUCE, WEIGHT_QUANT, 0, 1, 2, NONE, NONE, NONE, 3, 4, 8, 9, NONE, 11, 12, 5,
                                       NONE, NONE, NONE, true, 5, 6, 7, 13};

#define MC_OP(NAME, PARAMS, ROW)                                                                                      \
    static const aclStubFamilyOp k##NAME = {                                                                        \
        {#NAME, PARAMS, ACLSTUB_LEN(PARAMS), NULL, mc_check, mc_kernel, sizeof(McPlan)}, &ROW};
MC_OP(aclnnMatmulAllReduce, kMarParams, kMarRow)
MC_OP(aclnnMatmulAllReduceV2, kMarV2Params, kMarV2Row)
MC_OP(aclnnQuantMatmulAllReduce, kQmarParams, kQmarRow)
MC_OP(aclnnQuantMatmulAllReduceV2, kQmarV2Params, kQmarV2Row)
MC_OP(aclnnQuantMatmulAllReduceV3, kQmarV3Params, kQmarV3Row)
MC_OP(aclnnWeightQuantMatmulAllReduce, kWqmarParams, kWqmarRow)
MC_OP(aclnnAllGatherMatmul, kAgmParams, kAgmRow)
MC_OP(aclnnMatmulReduceScatter, kMrsParams, kMrsRow)
MC_OP(aclnnMatmulAllReduceAddRmsNorm, kArnParams, kArnRow)
MC_OP(aclnnInplaceMatmulAllReduceAddRmsNorm, kInplaceArnParams, kInplaceArnRow)
MC_OP(aclnnQuantMatmulAllReduceAddRmsNorm, kQarnParams, kQarnRow)
MC_OP(aclnnInplaceQuantMatmulAllReduceAddRmsNorm, kInplaceQarnParams, kInplaceQarnRow)
MC_OP(aclnnWeightQuantMatmulAllReduceAddRmsNorm, kWqarnParams, kWqarnRow)
MC_OP(aclnnInplaceWeightQuantMatmulAllReduceAddRmsNorm, kInplaceWqarnParams, kInplaceWqarnRow)

ACLSTUB_DEFINE_OP(aclnnMatmulAllReduce, kaclnnMatmulAllReduce.def, (const aclTensor *, x1), (const aclTensor *, x2),
                  (const aclTensor *, bias), (const char *, group), (const char *, reduceOp), (int64_t, commTurn),
                  (int64_t, streamMode), (const aclTensor *, output))
ACLSTUB_DEFINE_OP(aclnnMatmulAllReduceV2, kaclnnMatmulAllReduceV2.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, bias), (const aclTensor *, x3), (const char *, group),
                  (const char *, reduceOp), (int64_t, commTurn), (int64_t, streamMode), (const aclTensor *, output))
ACLSTUB_DEFINE_OP(aclnnQuantMatmulAllReduce, kaclnnQuantMatmulAllReduce.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, bias), (const aclTensor *, x3),
                  (const aclTensor *, dequantScale), (const char *, group), (const char *, reduceOp),
                  (int64_t, commTurn), (int64_t, streamMode), (const aclTensor *, output))
ACLSTUB_DEFINE_OP(aclnnQuantMatmulAllReduceV2, kaclnnQuantMatmulAllReduceV2.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, biasOptional), (const aclTensor *, x3Optional),
                  (const aclTensor *, dequantScale), (const aclTensor *, pertokenScaleOptional), (const char *, group),
                  (const char *, reduceOp), (int64_t, commTurn), (int64_t, streamMode), (const aclTensor *, output))
ACLSTUB_DEFINE_OP(aclnnQuantMatmulAllReduceV3, kaclnnQuantMatmulAllReduceV3.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, biasOptional), (const aclTensor *, x3Optional),
                  (const aclTensor *, dequantScale), (const aclTensor *, pertokenScaleOptional),
                  (const aclTensor *, commQuantScale1Optional), (const aclTensor *, commQuantScale2Optional),
                  (const char *, group), (const char *, reduceOp), (int64_t, commTurn), (int64_t, streamMode),
                  (const aclTensor *, output))
ACLSTUB_DEFINE_OP(aclnnWeightQuantMatmulAllReduce, kaclnnWeightQuantMatmulAllReduce.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, bias), (const aclTensor *, antiquantScale),
                  (const aclTensor *, antiquantOffset), (const aclTensor *, x3), (const char *, group),
                  (const char *, reduceOp), (int64_t, commTurn), (int64_t, streamMode), (int64_t, antiquantGroupSize),
                  (const aclTensor *, output))
ACLSTUB_DEFINE_OP(aclnnAllGatherMatmul, kaclnnAllGatherMatmul.def, (const aclTensor *, x1), (const aclTensor *, x2),
                  (const aclTensor *, bias), (const char *, group), (int64_t, gatherIndex), (int64_t, commTurn),
                  (int64_t, streamMode), (const aclTensor *, output), (const aclTensor *, gatherOut))
ACLSTUB_DEFINE_OP(aclnnMatmulReduceScatter, kaclnnMatmulReduceScatter.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, bias), (const char *, group), (const char *, reduceOp),
                  (int64_t, commTurn), (int64_t, streamMode), (const aclTensor *, output))

#define ARN_ARGS (const aclTensor *, residual), (const aclTensor *, gamma), (double, epsilon), (const char *, group), \
    (const char *, reduceOp), (int64_t, commTurn), (int64_t, streamMode)
ACLSTUB_DEFINE_OP(aclnnMatmulAllReduceAddRmsNorm, kaclnnMatmulAllReduceAddRmsNorm.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, bias), ARN_ARGS, (const aclTensor *, y),
                  (const aclTensor *, normOut))
ACLSTUB_DEFINE_OP(aclnnInplaceMatmulAllReduceAddRmsNorm, kaclnnInplaceMatmulAllReduceAddRmsNorm.def,
                  (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, bias), ARN_ARGS,
                  (const aclTensor *, normOut))
ACLSTUB_DEFINE_OP(aclnnQuantMatmulAllReduceAddRmsNorm, kaclnnQuantMatmulAllReduceAddRmsNorm.def,
                  (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, bias),
                  (const aclTensor *, dequantScale), ARN_ARGS, (const aclTensor *, y), (const aclTensor *, normOut))
ACLSTUB_DEFINE_OP(aclnnInplaceQuantMatmulAllReduceAddRmsNorm, kaclnnInplaceQuantMatmulAllReduceAddRmsNorm.def,
                  (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, bias),
                  (const aclTensor *, dequantScale), ARN_ARGS, (const aclTensor *, normOut))
ACLSTUB_DEFINE_OP(aclnnWeightQuantMatmulAllReduceAddRmsNorm, kaclnnWeightQuantMatmulAllReduceAddRmsNorm.def,
                  (const aclTensor *, x1), (const aclTensor *, x2), (const aclTensor *, bias),
                  (const aclTensor *, antiquantScale), (const aclTensor *, antiquantOffset), ARN_ARGS,
                  (int64_t, antiquantGroupSize), (const aclTensor *, y), (const aclTensor *, normOut))
ACLSTUB_DEFINE_OP(aclnnInplaceWeightQuantMatmulAllReduceAddRmsNorm,
                  kaclnnInplaceWeightQuantMatmulAllReduceAddRmsNorm.def, (const aclTensor *, x1),
                  (const aclTensor *, x2), (const aclTensor *, bias), (const aclTensor *, antiquantScale),
                  (const aclTensor *, antiquantOffset), ARN_ARGS, (int64_t, antiquantGroupSize),
                  (const aclTensor *, normOut))
