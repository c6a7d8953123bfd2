/*
 * ops-nn matmul/convert_weight_to_int4_pack: aclnnConvertWeightToINT4Pack, 4-bit weights held one to an INT32 (or a
 * FLOAT holding a FLOAT4_E2M1 value) packed two to a byte, as INT4 (or FLOAT4_E2M1) elements or eight to an INT32,
 * in ND or in FRACTAL_NZ (aclstub/op_nz.h: 32-byte C0, 16-row blocks of each group's (k, n) matrix). The checks are
 * its op_api's, in its order. The op_api packs during phase 1 (a device-to-host copy, a host loop, a copy back)
 * and its phase 2 does nothing; the stub packs in phase 2, like every other kernel, so the stream's order holds.
 */
#include <string.h>

#include "aclnnop/aclnn_convert_weight_to_int4_pack.h"
#include "aclstub/op_nz.h"

#define DT(x) ACLSTUB_DT(x)

enum { CW_WEIGHT, CW_PACK };
static const aclStubParam kCwParams[] = {
    [CW_WEIGHT] = {"weight", ACLSTUB_INPUT, 0},
    [CW_PACK] = {"weightInt4Pack", ACLSTUB_OUTPUT, 0},
};

typedef struct {
    bool nz;
    aclStubNzGeom g; /* the packed bytes as INT8 matrices (k, n / 2), C0 32 */
} CwPlan;

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->dims[d];
    }
    return true;
}

static aclnnStatus cw_check(aclStubOpCall *call) {
    CwPlan *plan = call->plan;
    const aclStubTensorDesc *w = call->v[CW_WEIGHT].tensor, *p = call->v[CW_PACK].tensor;
    ACLSTUB_RETURN_ERROR_IF(!contiguous(w) || !contiguous(p), call, ACLNN_ERR_PARAM_INVALID,
                            "the input weight and weightInt4Pack only support contiguous Tensor");
    ACLSTUB_RETURN_ERROR_IF(w->dtype != ACL_INT32 && w->dtype != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID,
                            "weight has data type %s; supported: INT32, FLOAT", aclStubDtypeName(w->dtype));
    ACLSTUB_RETURN_ERROR_IF(p->dtype != ACL_INT4 && p->dtype != ACL_INT32 && p->dtype != ACL_FLOAT4_E2M1 &&
                                p->dtype != ACL_FLOAT,
                            call, ACLNN_ERR_PARAM_INVALID, "weightInt4Pack has data type %s; supported: INT4, INT32, "
                            "FLOAT4_E2M1, FLOAT", aclStubDtypeName(p->dtype));
    bool int_pair = w->dtype == ACL_INT32 && (p->dtype == ACL_INT32 || p->dtype == ACL_INT4);
    bool fp_pair = w->dtype == ACL_FLOAT && (p->dtype == ACL_FLOAT || p->dtype == ACL_FLOAT4_E2M1);
    ACLSTUB_RETURN_ERROR_IF(!int_pair && !fp_pair, call, ACLNN_ERR_PARAM_INVALID,
                            "Invalid dtype combination: weight dtype: %s, weightInt4Pack dtype: %s. Supported "
                            "combination: weightInt4Pack dtype DT_INT32 or DT_INT4 with weight dtype DT_INT32. "
                            "weightInt4Pack dtype DT_FLOAT or DT_FLOAT4_E2M1 with weight dtype DT_FLOAT",
                            aclStubDtypeName(w->dtype), aclStubDtypeName(p->dtype));
    ACLSTUB_RETURN_ERROR_IF(w->format != ACL_FORMAT_ND, call, ACLNN_ERR_PARAM_INVALID,
                            "weight's format should be ND. Actual is [%d].", (int)w->format);
    ACLSTUB_RETURN_ERROR_IF(p->format != ACL_FORMAT_ND && p->format != ACL_FORMAT_FRACTAL_NZ, call,
                            ACLNN_ERR_PARAM_INVALID, "weightInt4Pack's format should be ND/NZ. Actual is [%d].",
                            (int)p->format);
    ACLSTUB_RETURN_ERROR_IF(w->ndim < 2 || w->ndim > 3, call, ACLNN_ERR_PARAM_INVALID,
                            "weight's dim should be in range [2, 3]. Actual is [%u].", w->ndim);
    ACLSTUB_RETURN_ERROR_IF(p->ndim < 2 || p->ndim > 3, call, ACLNN_ERR_PARAM_INVALID,
                            "weightInt4Pack's dim should be in range [2, 3]. Actual is [%u].", p->ndim);
    int64_t wk = w->dims[w->ndim - 2], wn = w->dims[w->ndim - 1];
    int64_t pk = p->dims[p->ndim - 2], pn = p->dims[p->ndim - 1];
    bool four_bit = p->dtype == ACL_INT4 || p->dtype == ACL_FLOAT4_E2M1;
    if (four_bit) {
        ACLSTUB_RETURN_ERROR_IF(wn % 2 != 0, call, ACLNN_ERR_PARAM_INVALID, "when weightInt4Pack's datatype is int4 "
                                "or fp4, the last dim of weight should be even, Actual is %lld", (long long)wn);
        ACLSTUB_RETURN_ERROR_IF(wk != pk || wn != pn, call, ACLNN_ERR_PARAM_INVALID,
                                "when weightInt4Pack's datatype is int4, weight's size should be the same as "
                                "weightInt4Pack's size, but [%lld, %lld] does not equal [%lld, %lld]",
                                (long long)wk, (long long)wn, (long long)pk, (long long)pn);
    } else {
        ACLSTUB_RETURN_ERROR_IF(wn % 8 != 0, call, ACLNN_ERR_PARAM_INVALID, "when weightInt4Pack's datatype is int32 "
                                "or fp32, the last dim of weight should be a multiple of 8, Actual is %lld",
                                (long long)wn);
        ACLSTUB_RETURN_ERROR_IF(wk != pk || wn / 8 != pn, call, ACLNN_ERR_PARAM_INVALID,
                                "when weightInt4Pack's datatype is int32 or fp32, weight's size first dim should be "
                                "the same as weightInt4Pack's size first dim, weight's size last dim should be the 8 "
                                "multiple as weightInt4Pack's size last dim but got weight [%lld, %lld], and "
                                "weightInt4Pack [%lld, %lld]", (long long)wk, (long long)wn, (long long)pk,
                                (long long)pn);
    }
    plan->nz = p->format == ACL_FORMAT_FRACTAL_NZ;
    if (plan->nz) {
        uint32_t sn = p->storage_ndim;
        ACLSTUB_RETURN_ERROR_IF(sn != 4 && sn != 5, call, ACLNN_ERR_PARAM_INVALID,
                                "when weightInt4Pack's format is FORMAT_FRACTAL_NZ, weightInt4Pack's storage dim num "
                                "should be [4] or [5], but actual is [%u]", sn);
        int64_t last = four_bit ? 64 : 8; /* 32 bytes of 4-bit values */
        const int64_t *sd = p->storage_dims + sn - 4;
        int64_t e0 = (pn + last - 1) / last, e1 = (pk + 15) / 16;
        ACLSTUB_RETURN_ERROR_IF(sd[0] != e0 || sd[1] != e1 || sd[2] != 16 || sd[3] != last, call,
                                ACLNN_ERR_PARAM_INVALID, "weightInt4Pack's storage shape should be [%lld,%lld,16,%lld]",
                                (long long)e0, (long long)e1, (long long)last);
        ACLSTUB_RETURN_ERROR_IF(wn == 0, call, ACLNN_ERR_PARAM_INVALID,
                                "The inner axis of weightInt4PackData should not be 0.");
        plan->g = (aclStubNzGeom){w->ndim == 3 ? w->dims[0] : 1, wk, wn / 2, 32, (wk + 15) / 16, (wn / 2 + 31) / 32,
                                  false};
    }
    if (aclStubNumel(w) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* FLOAT bits to FLOAT4_E2M1 as the op_api maps them: the top 10 bits of an exactly representable value, else 0. */
static unsigned fp4_of(uint32_t bits) {
    static const uint32_t table[16] = {0x00000000, 0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000,
                                       0x40800000, 0x40C00000, 0x80000000, 0xBF000000, 0xBF800000, 0xBFC00000,
                                       0xC0000000, 0xC0400000, 0xC0800000, 0xC0C00000};
    uint32_t key = bits & 0xFFC00000u;
    for (unsigned i = 0; i < 16; i++)
        if (table[i] == key) return i;
    return 0;
}

typedef struct {
    const uint32_t *src;
    unsigned char *dst;
    bool fp;
} PackJob;

static void pack_range(void *ctx, int64_t begin, int64_t end) {
    const PackJob *j = ctx;
    for (int64_t i = begin; i < end; i++) {
        uint32_t a = j->src[2 * i], b = j->src[2 * i + 1];
        unsigned lo = j->fp ? fp4_of(a) : (a & 0xfu), hi = j->fp ? fp4_of(b) : (b & 0xfu);
        j->dst[i] = (unsigned char)((hi << 4) | lo);
    }
}

static aclnnStatus cw_kernel(const aclStubOpCall *call) {
    const CwPlan *plan = call->plan;
    const aclStubTensorDesc *w = call->v[CW_WEIGHT].tensor, *p = call->v[CW_PACK].tensor;
    int64_t bytes = aclStubNumel(w) / 2;
    unsigned char *out = (unsigned char *)p->data;
    out += p->dtype == ACL_INT4 || p->dtype == ACL_FLOAT4_E2M1 ? p->offset / 2 : p->offset * 4;
    unsigned char *packed = out;
    if (plan->nz && (packed = aclStubKernelScratch(call, (size_t)bytes)) == NULL) return aclStubKernelOutOfMemory(call);
    PackJob job = {(const uint32_t *)w->data + w->offset, packed, w->dtype == ACL_FLOAT};
    aclStubParallelFor(bytes, 1 << 14, pack_range, &job);
    if (plan->nz) aclStubNzPack(&plan->g, ACL_INT8, packed, out);
    return OK;
}

static const aclStubOpDef kCw = {"aclnnConvertWeightToINT4Pack", kCwParams, ACLSTUB_LEN(kCwParams), NULL, cw_check,
                                 cw_kernel, sizeof(CwPlan)};
ACLSTUB_DEFINE_OP(aclnnConvertWeightToINT4Pack, kCw, (const aclTensor *, weight), (aclTensor *, weightInt4Pack))
