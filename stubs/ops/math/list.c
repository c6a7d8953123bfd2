/*
 * Elementwise reductions over a tensor list of ops-math math/: aclnnAddN, aclnnSum (AccumulateNV2), aclnnMaxN,
 * aclnnMinN. The tensors broadcast to out (AddN: one shape); the result accumulates in list order in FLOAT (FLOAT16,
 * BF16 and FLOAT lists: one rounding at the end), DOUBLE, or INT64 for integers (wrapping as the integer dtype would),
 * then is cast to out. maxN/minN propagate NaN.
 */
#include "ew_math.h"

#include "aclnnop/aclnn_add_n.h"
#include "aclnnop/aclnn_maxn.h"
#include "aclnnop/aclnn_minn.h"
#include "aclnnop/aclnn_sum.h"

enum { P_TENSORS, P_OUT };
static const aclStubParam kListParams[] = {
    [P_TENSORS] = {"tensors", ACLSTUB_TENSOR_LIST, 0, NULL, 0, 0, 0},
    [P_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};

typedef enum { REDUCE_ADD, REDUCE_MAX, REDUCE_MIN } Reduce;

typedef struct {
    Reduce reduce;
    uint64_t dtypes;        /* every tensor's and out's list */
    bool same_as_out;       /* every tensor of out's dtype (MaxN, MinN) */
    bool same_shapes;       /* AddN: one shape, no broadcasting */
    bool first_dtype_gate;  /* AddN: tensors[0] of another dtype than out ends its checks with success, and
                               tensors[0] in a private format is refused */
} ListRow;

typedef struct {
    aclDataType acc;      /* accumulation dtype */
    bool checked;         /* false: the op_api skipped its checks (AddN's dtype gate); the kernel verifies */
} ListPlan;

#define LIST_ROW(call) ((const ListRow *)aclStubFamilyRow(call))

static aclDataType acc_dtype(aclDataType t) {
    if (t == ACL_DOUBLE) return ACL_DOUBLE;
    if (aclStubIsFloating(t)) return ACL_FLOAT;
    return ACL_INT64;
}

/* the broadcast shape of the list (false: it does not broadcast) */
static bool list_shape(const aclStubValue *v, int64_t *shape, uint32_t *nd) {
    *nd = 0;
    for (uint64_t i = 0; i < v->size; i++) {
        int64_t next[ACLSTUB_MAX_DIMS];
        uint32_t nn;
        if (!aclStubBroadcastShape(shape, *nd, v->tensors[i].dims, v->tensors[i].ndim, next, &nn)) return false;
        memcpy(shape, next, nn * sizeof shape[0]);
        *nd = nn;
    }
    return true;
}

static aclnnStatus list_check(aclStubOpCall *call) {
    const ListRow *row = LIST_ROW(call);
    const aclStubValue *v = &call->v[P_TENSORS];
    const aclStubTensorDesc *out = aclStubOpTensor(call, P_OUT);
    ListPlan *plan = call->plan;
    char buf[160], buf2[160];
    for (uint64_t i = 0; i < v->size; i++)
        ACLSTUB_RETURN_ERROR_IF(v->tensors[i].dtype == ACL_DT_UNDEFINED, call, ACLNN_ERR_PARAM_NULLPTR,
                                "expected a proper tensor but got NULL for tensor %llu", (unsigned long long)i);
    /* the op_api reads tensors[0] (an empty list is read out of bounds on a device): refused */
    ACLSTUB_RETURN_ERROR_IF(v->size == 0, call, ACLNN_ERR_PARAM_INVALID, "the input tensor list should not be empty");
    if (row->first_dtype_gate && v->tensors[0].dtype != out->dtype) {
        plan->checked = false;
        plan->acc = acc_dtype(out->dtype);
        return OK;
    }
    plan->checked = true;
    ACLSTUB_RETURN_ERROR_IF(!ew_in(row->dtypes, out->dtype), call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be "
                            "in dtype support list [%s]", aclStubDtypeName(out->dtype),
                            aclStubDtypeSetName(row->dtypes, buf, sizeof buf));
    aclDataType p = v->tensors[0].dtype;
    for (uint64_t i = 0; i < v->size; i++) {
        aclDataType t = v->tensors[i].dtype;
        ACLSTUB_RETURN_ERROR_IF(!ew_in(row->dtypes, t), call, ACLNN_ERR_PARAM_INVALID, "tensor %llu dtype %s should be "
                                "in dtype support list [%s]", (unsigned long long)i, aclStubDtypeName(t),
                                aclStubDtypeSetName(row->dtypes, buf, sizeof buf));
        ACLSTUB_RETURN_ERROR_IF(row->same_as_out && t != out->dtype, call, ACLNN_ERR_PARAM_INVALID,
                                "tensor %llu dtype %s should be the out dtype %s", (unsigned long long)i,
                                aclStubDtypeName(t), aclStubDtypeName(out->dtype));
        p = aclStubPromoteType(p, t);
        ACLSTUB_RETURN_ERROR_IF(v->tensors[i].ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "tensor %llu has %u "
                                "dimensions; at most 8 are supported", (unsigned long long)i, v->tensors[i].ndim);
    }
    ACLSTUB_RETURN_ERROR_IF((int)p < 0, call, ACLNN_ERR_PARAM_INVALID, "the tensors' dtypes can not promote dtype");
    ACLSTUB_RETURN_ERROR_IF(out->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "out has %u dimensions; at most 8 are "
                            "supported", out->ndim);
    ACLSTUB_RETURN_ERROR_IF(row->first_dtype_gate && !(v->tensors[0].format == ACL_FORMAT_ND ||
                                                       v->tensors[0].format == ACL_FORMAT_NCHW ||
                                                       v->tensors[0].format == ACL_FORMAT_NHWC ||
                                                       v->tensors[0].format == ACL_FORMAT_HWCN ||
                                                       v->tensors[0].format == ACL_FORMAT_NDHWC ||
                                                       v->tensors[0].format == ACL_FORMAT_NCDHW),
                            call, ACLNN_ERR_PARAM_INVALID, "format only supports ND, NCHW, NHWC, HWCN, NDHWC, NCDHW");
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    if (row->same_shapes) {
        for (uint64_t i = 1; i < v->size; i++)
            ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(v->tensors[i].dims, v->tensors[i].ndim, v->tensors[0].dims,
                                                       v->tensors[0].ndim),
                                    call, ACLNN_ERR_PARAM_INVALID, "input tensors should have same shape");
        nd = v->tensors[0].ndim;
        memcpy(shape, v->tensors[0].dims, nd * sizeof shape[0]);
    } else {
        ACLSTUB_RETURN_ERROR_IF(!list_shape(v, shape, &nd), call, ACLNN_ERR_PARAM_INVALID,
                                "input tensors can not broadcast");
    }
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(shape, nd, out->dims, out->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "shape of out should be %s, but current is %s", aclStubShapeText(shape, nd, buf, sizeof buf),
                            aclStubShapeText(out->dims, out->ndim, buf2, sizeof buf2));
    plan->acc = acc_dtype(p);
    for (uint64_t i = 0; i < v->size; i++)
        if (aclStubNumel(&v->tensors[i]) == 0) return aclStubOpNothingToDo(call);
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

#define SET_ACC(X, ...)                                                                                       \
    X(f32, float, float, ACLSTUB_CT_F32, __VA_ARGS__) X(f64, double, double, ACLSTUB_CT_F64, __VA_ARGS__)      \
    X(i64, int64_t, int64_t, ACLSTUB_CT_I64, __VA_ARGS__)
#define EW_MAX(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))
#define EW_MIN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))
ACLSTUB_EW_UNARY(acc_copy_loops, SET_ACC, x)
ACLSTUB_EW_BINARY(acc_add_loops, SET_ACC, a + b)
ACLSTUB_EW_BINARY(acc_max_loops, SET_ACC, EW_MAX(a, b))
ACLSTUB_EW_BINARY(acc_min_loops, SET_ACC, EW_MIN(a, b))

static int acc_index(aclDataType t) {
    return t == ACL_FLOAT ? ACLSTUB_CT_F32 : t == ACL_DOUBLE ? ACLSTUB_CT_F64 : ACLSTUB_CT_I64;
}

/* one pass of the iterator: out (a view) = fn(inputs) in the accumulation dtype */
static aclnnStatus pass(const aclStubOpCall *call, const aclStubTensorDesc *dst, const aclStubTensorDesc *a,
                        const aclStubTensorDesc *b, aclDataType acc, aclStubLoopFn fn) {
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = b ? 2 : 1;
    it.tensor[0] = dst;
    it.tensor[1] = a;
    it.tensor[2] = b;
    it.loop_dtype[0] = it.loop_dtype[1] = it.loop_dtype[2] = acc;
    aclStubEwCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.compute = acc;
    return aclStubIterRun(call, &it, fn, &ctx);
}

static aclnnStatus list_kernel(const aclStubOpCall *call) {
    const ListRow *row = LIST_ROW(call);
    const ListPlan *plan = call->plan;
    const aclStubValue *v = &call->v[P_TENSORS];
    const aclStubTensorDesc *out = aclStubOpTensor(call, P_OUT);
    if (!plan->checked) { /* AddN's skipped checks: a result exists only for tensors of out's shape */
        for (uint64_t i = 0; i < v->size; i++)
            if (!aclStubShapeEqual(v->tensors[i].dims, v->tensors[i].ndim, out->dims, out->ndim) ||
                !aclStubCanConvert(v->tensors[i].dtype))
                return aclStubKernelFail(call, ACLNN_ERR_INNER, "tensor %llu does not match out (the op_api checked "
                                         "nothing: tensors[0] has another dtype than out)", (unsigned long long)i);
        if (aclStubNumel(out) == 0) return OK;
    }
    int64_t n = aclStubNumel(out);
    aclDataType acc = plan->acc;
    size_t esize = aclDataTypeSize(acc);
    void *buf = aclStubKernelScratch(call, (size_t)n * esize);
    if (buf == NULL) return aclStubKernelOutOfMemory(call);
    aclStubTensorDesc accd = *out;
    accd.dtype = acc;
    accd.offset = 0;
    accd.data = buf;
    int64_t step = 1;
    for (uint32_t d = out->ndim; d-- > 0;) {
        accd.strides[d] = step;
        step *= out->dims[d];
    }
    const aclStubEwLoops *op = row->reduce == REDUCE_ADD ? &acc_add_loops
                               : row->reduce == REDUCE_MAX ? &acc_max_loops : &acc_min_loops;
    int ct = acc_index(acc);
    ACLSTUB_TRY(pass(call, &accd, &v->tensors[0], NULL, acc, acc_copy_loops.fn[ct]));
    for (uint64_t i = 1; i < v->size; i++) ACLSTUB_TRY(pass(call, &accd, &accd, &v->tensors[i], acc, op->fn[ct]));
    return pass(call, out, &accd, NULL, acc, acc_copy_loops.fn[ct]);
}

#define ADD_N_DT (EW_DT(INT32) | EW_DT(INT64) | ACLSTUB_DT_FLOATS)
#define SUM_DT (EW_DT(FLOAT16) | EW_DT(FLOAT) | EW_DT(INT8) | EW_DT(INT32) | EW_DT(UINT8))
#define MAXN_DT (ACLSTUB_DT_FLOATS | EW_DT(INT8) | EW_DT(INT32) | EW_DT(INT64))

#define LIST_OP(NAME, REDUCE, DTYPES, SAME_AS_OUT, SAME_SHAPES, GATE)                                         \
    static const ListRow NAME##_row_ = {REDUCE, DTYPES, SAME_AS_OUT, SAME_SHAPES, GATE};                      \
    static const aclStubFamilyOp NAME##_def_ = {{#NAME, kListParams, ACLSTUB_LEN(kListParams), NULL, list_check, \
                                                 list_kernel, sizeof(ListPlan)},                              \
                                                &NAME##_row_};                                                \
    ACLSTUB_DEFINE_OP(NAME, NAME##_def_.def, (const aclTensorList *, tensors), (aclTensor *, out))

LIST_OP(aclnnAddN, REDUCE_ADD, ADD_N_DT, false, true, true)
LIST_OP(aclnnSum, REDUCE_ADD, SUM_DT, false, false, false)
LIST_OP(aclnnMaxN, REDUCE_MAX, MAXN_DT, true, false, false)
LIST_OP(aclnnMinN, REDUCE_MIN, MAXN_DT, true, false, false)
