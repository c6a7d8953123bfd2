/*
 * aclnnCast of ops-math math/cast: self converted to the dtype attribute with the device's Cast rules
 * (aclStubCastStrided), every pair of the Atlas A2/A3 list. The op_api writes the converted tensor into out with
 * a view copy and checks nothing of out's dtype; a dtype of out other than the attribute gets the attribute's
 * values converted once more.
 */
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_cast.h"

/* DTYPE_SUPPORT_LIST_DEFAULT of aclnn_cast.cpp (DAV_2201): self and the dtype attribute */
#define CAST_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)

enum { SELF, DTYPE, OUT };

static aclDataType cast_result(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    return (aclDataType)call->v[DTYPE].i;
}

static aclnnStatus cast_check(aclStubOpCall *call) {
    int64_t to = call->v[DTYPE].i;
    char buf[256];
    ACLSTUB_RETURN_ERROR_IF(to < 0 || to >= 64 || !(CAST_DT & ACLSTUB_DT(to)), call, ACLNN_ERR_PARAM_INVALID,
                            "the param dtype %s (%lld) is not implemented; supported: %s",
                            aclStubDtypeName((aclDataType)to), (long long)to,
                            aclStubDtypeSetName(CAST_DT, buf, sizeof buf));
    return OK;
}

/* The iterator's loop: values arrive converted to out's dtype; copy their bytes (ctx: the element size). */
static void copy_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    size_t size = *(const size_t *)ctx;
    if (s[0] == (int64_t)size && s[1] == (int64_t)size) {
        memcpy(d[0], d[1], (size_t)n * size);
        return;
    }
    for (int64_t i = 0; i < n; i++) memcpy(d[0] + i * s[0], d[1] + i * s[1], size);
}
static const aclStubEwLoops COPY = {{[ACLSTUB_CT_F32] = copy_loop}}; /* not run by the engine: cast_kernel's */

static const aclStubElementwise CAST = {1, CAST_DT, ACLSTUB_EW_OUT_ANY, &COPY, cast_check, cast_result};

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->dims[d];
    }
    return true;
}

typedef struct {
    char *dst;
    const char *src;
    aclDataType to, from;
    size_t dsize, ssize;
} Flat;

static void flat_range(void *arg, int64_t begin, int64_t end) {
    const Flat *f = arg;
    int64_t ds = (int64_t)f->dsize, ss = (int64_t)f->ssize;
    aclStubCastStrided(f->dst + begin * ds, ds, f->to, f->src + begin * ss, ss, f->from, end - begin);
}

static aclnnStatus cast_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[SELF].tensor, *y = call->v[OUT].tensor;
    aclDataType to = aclStubEwPlanOf(call)->compute;
    if (!aclStubCanConvert(x->dtype) || !aclStubCanConvert(to) || !aclStubCanConvert(y->dtype))
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "no conversion from %s to %s", aclStubDtypeName(x->dtype),
                                 aclStubDtypeName(y->dtype));
    if (y->dtype == to && contiguous(x) && contiguous(y)) {
        Flat f = {(char *)y->data + y->offset * (int64_t)aclDataTypeSize(y->dtype),
                  (const char *)x->data + x->offset * (int64_t)aclDataTypeSize(x->dtype), to, x->dtype,
                  aclDataTypeSize(to), aclDataTypeSize(x->dtype)};
        aclStubParallelFor(aclStubNumel(y), 1 << 16, flat_range, &f);
        return OK;
    }
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 1;
    it.tensor[0] = y;
    it.tensor[1] = x;
    it.loop_dtype[0] = it.loop_dtype[1] = y->dtype;
    it.has_via[1] = to != x->dtype && to != y->dtype;
    it.via[1] = to;
    size_t size = aclDataTypeSize(y->dtype);
    return aclStubIterRun(call, &it, copy_loop, &size);
}

static const aclStubParam CAST_PARAMS[] = {
    [SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [DTYPE] = {"dtype", ACLSTUB_DTYPE, 0, NULL, 0, 0, 0},
    [OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubFamilyOp CAST_OP = {{"aclnnCast", CAST_PARAMS, ACLSTUB_LEN(CAST_PARAMS), NULL,
                                         aclStubEwCheck, cast_kernel, sizeof(aclStubEwPlan)}, &CAST};
ACLSTUB_DEFINE_OP(aclnnCast, CAST_OP.def, (const aclTensor *, self), (const aclDataType, dtype), (aclTensor *, out))
