/*
 * RReluWithNoise of ops-nn activation/leaky_relu (aclnn_rrelu_with_noise): the randomised leaky relu.
 *
 * Not training: out = self where self > 0, else self * (lower + upper) / 2 (the op_api's LeakyRelu, the slope a
 * float sum of the two scalars as floats, halved). Training: noise_i = a_i where self_i < 0, else 1, with a_i drawn
 * uniformly from [lower, upper); out = self * noise. The noise is written over the first numel(self) elements of
 * noise in row-major order (noise may hold more elements than self; the rest are left as they are).
 *
 * The draws are the stub's: a Philox4x32-10 stream keyed by seed, its 128-bit counter starting at offset (element i
 * takes word i % 4 of block offset + i / 4), 24 random bits per value: u = bits * 2^-24, a = lower + u * (upper -
 * lower) in float, then rounded to self's type. A device's generator (DSARandomUniform or StatelessRandomUniformV2)
 * draws other values; the same (seed, offset) gives the same noise on the stub, run after run.
 */
#include <string.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_rrelu_with_noise.h"

#define DT ACLSTUB_DT

/* The op_api's lists (Atlas A2/A3): tensors FLOAT, FLOAT16, BF16; the scalars also DOUBLE. */
#define TENSOR_DT ACLSTUB_DT_FLOATS
#define SCALAR_DT (ACLSTUB_DT_FLOATS | DT(ACL_DOUBLE))

enum { RR_SELF, RR_NOISE, RR_LOWER, RR_UPPER, RR_TRAINING, RR_SEED, RR_OFFSET, RR_OUT, RR_N };
enum { RI_SELF, RI_NOISE, RI_LOWER, RI_UPPER, RI_TRAINING, RI_SEED, RI_OFFSET, RI_N };

typedef struct {
    float lower, upper;
    bool training;
    uint64_t seed, offset;
} RreluPlan;

/* The output's index in the table: out, or self for the in-place variant. */
static int out_index(const aclStubOpCall *call) { return call->op->num_params == RR_N ? RR_OUT : RR_SELF; }

static aclnnStatus dtype_in(const aclStubOpCall *call, int i, aclDataType dtype, uint64_t set) {
    char buf[128];
    if ((unsigned)dtype >= 64 || !(set & DT(dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                             aclStubOpName(call, i), aclStubDtypeName(dtype),
                             aclStubDtypeSetName(set, buf, sizeof buf));
    return ACLNN_SUCCESS;
}

static aclnnStatus same_as_out(const aclStubOpCall *call, int i, int o) {
    const aclStubTensorDesc *t = call->v[i].tensor, *y = call->v[o].tensor;
    ACLSTUB_RETURN_ERROR_IF(t->dtype != y->dtype, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s but "
                            "must have the output's %s", aclStubOpName(call, i), aclStubDtypeName(t->dtype),
                            aclStubDtypeName(y->dtype));
    return ACLNN_SUCCESS;
}

static aclnnStatus same_format(const aclStubOpCall *call, int i, int o) {
    const aclStubTensorDesc *t = call->v[i].tensor, *y = call->v[o].tensor;
    ACLSTUB_RETURN_ERROR_IF(t->format != y->format, call, ACLNN_ERR_PARAM_INVALID, "Input tensor %s's format[%d] "
                            "should be same with output's format[%d].", aclStubOpName(call, i), (int)t->format,
                            (int)y->format);
    return ACLNN_SUCCESS;
}

/* The op_api's order: dtypes (self, noise, lower, upper, out, then self and noise against out), shapes (out is
 * self's shape; training: noise holds at least numel(self) elements), formats (self and noise are out's). */
static aclnnStatus rrelu_check(aclStubOpCall *call) {
    int o = out_index(call);
    const aclStubTensorDesc *x = call->v[RR_SELF].tensor, *noise = call->v[RR_NOISE].tensor,
                            *y = call->v[o].tensor;
    ACLSTUB_TRY(dtype_in(call, RR_SELF, x->dtype, TENSOR_DT));
    ACLSTUB_TRY(dtype_in(call, RR_NOISE, noise->dtype, TENSOR_DT));
    ACLSTUB_TRY(dtype_in(call, RR_LOWER, call->v[RR_LOWER].dtype, SCALAR_DT));
    ACLSTUB_TRY(dtype_in(call, RR_UPPER, call->v[RR_UPPER].dtype, SCALAR_DT));
    if (o != RR_SELF) ACLSTUB_TRY(dtype_in(call, o, y->dtype, TENSOR_DT));
    ACLSTUB_TRY(same_as_out(call, RR_SELF, o));
    ACLSTUB_TRY(same_as_out(call, RR_NOISE, o));
    char a[128], b[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "shape of out should be %s, but current is %s",
                            aclStubShapeText(x->dims, x->ndim, a, sizeof a),
                            aclStubShapeText(y->dims, y->ndim, b, sizeof b));
    bool training = aclStubOpBool(call, RR_TRAINING);
    ACLSTUB_RETURN_ERROR_IF(training && aclStubNumel(x) > aclStubNumel(noise), call, ACLNN_ERR_PARAM_INVALID,
                            "tensor size of self larger than noise, self: %lld, noise: %lld.",
                            (long long)aclStubNumel(x), (long long)aclStubNumel(noise));
    ACLSTUB_TRY(same_format(call, RR_SELF, o));
    ACLSTUB_TRY(same_format(call, RR_NOISE, o));
    RreluPlan *p = call->plan;
    p->lower = (float)aclStubOpScalarF64(call, RR_LOWER);
    p->upper = (float)aclStubOpScalarF64(call, RR_UPPER);
    p->training = training;
    p->seed = (uint64_t)aclStubOpInt(call, RR_SEED);
    p->offset = (uint64_t)aclStubOpInt(call, RR_OFFSET);
    if (aclStubNumel(x) == 0 || aclStubNumel(noise) == 0) return aclStubOpNothingToDo(call);
    return ACLNN_SUCCESS;
}

/* Philox4x32-10: one 128-bit block of counter ctr under key. */
static void philox(uint32_t ctr[4], uint32_t k0, uint32_t k1) {
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0], p1 = (uint64_t)0xCD9E8D57u * ctr[2];
        uint32_t c0 = (uint32_t)(p1 >> 32) ^ ctr[1] ^ k0, c2 = (uint32_t)(p0 >> 32) ^ ctr[3] ^ k1;
        ctr[0] = c0;
        ctr[1] = (uint32_t)p1;
        ctr[2] = c2;
        ctr[3] = (uint32_t)p0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

static float round_to(aclDataType dtype, float f) {
    if (dtype == ACL_FLOAT) return f;
    return dtype == ACL_BF16 ? aclStubBf16ToF32(aclStubF32ToBf16(f)) : aclStubF16ToF32(aclStubF32ToF16(f));
}

static aclnnStatus rrelu_kernel(const aclStubOpCall *call) {
    const RreluPlan *p = call->plan;
    const aclStubTensorDesc *x = call->v[RR_SELF].tensor, *noise = call->v[RR_NOISE].tensor,
                            *y = call->v[out_index(call)].tensor;
    int64_t n = aclStubNumel(x);
    if (!p->training) {
        float slope = (p->lower + p->upper) / 2;
        for (int64_t i = 0; i < n; i++) {
            float v = aclStubLoadPtrF32(x->dtype, aclStubElemAt(x, i));
            aclStubStorePtrF32(y->dtype, aclStubElemAt(y, i), v > 0 ? v : v * slope);
        }
        return ACLNN_SUCCESS;
    }
    uint32_t k0 = (uint32_t)p->seed, k1 = (uint32_t)(p->seed >> 32), block[4] = {0, 0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        if (i % 4 == 0) {
            uint64_t c = p->offset + (uint64_t)i / 4;
            block[0] = (uint32_t)c;
            block[1] = (uint32_t)(c >> 32);
            block[2] = block[3] = 0;
            philox(block, k0, k1);
        }
        float u = (float)(block[i % 4] >> 8) * 0x1p-24f;
        float v = aclStubLoadPtrF32(x->dtype, aclStubElemAt(x, i));
        float r = v < 0 ? round_to(x->dtype, p->lower + u * (p->upper - p->lower)) : 1.0f;
        aclStubStorePtrF32(noise->dtype, aclStubElemAt(noise, i), r);
        aclStubStorePtrF32(y->dtype, aclStubElemAt(y, i), v * r);
    }
    return ACLNN_SUCCESS;
}

/* noise is read and written (the training noise): an in-place tensor to the runtime. */
static const aclStubParam RR_PARAMS[] = {
    [RR_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [RR_NOISE] = {"noise", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    [RR_LOWER] = {"lower", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [RR_UPPER] = {"upper", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [RR_TRAINING] = {"training", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [RR_SEED] = {"seed", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [RR_OFFSET] = {"offset", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [RR_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef RR_OP = {"aclnnRReluWithNoise", RR_PARAMS, RR_N, NULL, rrelu_check, rrelu_kernel,
                                   sizeof(RreluPlan)};
ACLSTUB_DEFINE_OP(aclnnRReluWithNoise, RR_OP, (const aclTensor *, self), (const aclTensor *, noise),
                  (const aclScalar *, lower), (const aclScalar *, upper), (bool, training), (int64_t, seed),
                  (int64_t, offset), (aclTensor *, out))

static const aclStubParam RI_PARAMS[] = {
    [RI_SELF] = {"self", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    [RI_NOISE] = {"noise", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    [RI_LOWER] = {"lower", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [RI_UPPER] = {"upper", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [RI_TRAINING] = {"training", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [RI_SEED] = {"seed", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [RI_OFFSET] = {"offset", ACLSTUB_INT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef RI_OP = {"aclnnInplaceRReluWithNoise", RI_PARAMS, RI_N, NULL, rrelu_check, rrelu_kernel,
                                   sizeof(RreluPlan)};
ACLSTUB_DEFINE_OP(aclnnInplaceRReluWithNoise, RI_OP, (const aclTensor *, self), (const aclTensor *, noise),
                  (const aclScalar *, lower), (const aclScalar *, upper), (bool, training), (int64_t, seed),
                  (int64_t, offset))
