/*
 * 1-bit Adam packing of ops-math math/: aclnnSignBitsPack (a FLOAT/FLOAT16 vector to UINT8 bytes, bit i of byte j
 * set when element 8j + i is >= 0, bytes filled from their least significant bit, the last byte padded with 0
 * bits) and aclnnSignBitsUnpack (UINT8 bytes to FLOAT/FLOAT16 +1.0 for a set bit, -1.0 for a clear one). out is
 * [size, n / size] in both; an out holding fewer elements than the op writes (the op_api checks only its first
 * dimension, and a device would write past it) is refused.
 */
#include "ew_math.h"

#include "aclnnop/aclnn_sign_bits_pack.h"
#include "aclnnop/aclnn_sign_bits_unpack.h"

enum { P_SELF, P_SIZE, P_OUT };
enum { U_SELF, U_SIZE, U_DTYPE, U_OUT };

static aclnnStatus shapes_and_formats(aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubTensorDesc *out,
                                      int64_t size, int64_t packed, int64_t written) {
    ACLSTUB_RETURN_ERROR_IF(self->format != ACL_FORMAT_ND || out->format != ACL_FORMAT_ND, call,
                            ACLNN_ERR_PARAM_INVALID, "self and out should have format ND");
    ACLSTUB_RETURN_ERROR_IF(size <= 0, call, ACLNN_ERR_PARAM_INVALID, "size value must be bigger than zero");
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "self dims %u should be 1", self->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "out dims %u should be 2", out->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] < 0 || out->dims[1] < 0 || self->dims[0] < 0, call, ACLNN_ERR_PARAM_INVALID,
                            "dimensions should not be negative");
    ACLSTUB_RETURN_ERROR_IF(packed % size != 0, call, ACLNN_ERR_PARAM_INVALID, "%lld elements cannot be divided by "
                            "size %lld", (long long)packed, (long long)size);
    ACLSTUB_RETURN_ERROR_IF(out->dims[0] != size, call, ACLNN_ERR_PARAM_INVALID, "out's first dimension %lld should be "
                            "size %lld", (long long)out->dims[0], (long long)size);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(self) > 0 && out->dims[0] * out->dims[1] < written, call,
                            ACLNN_ERR_PARAM_INVALID, "out holds %lld elements; the operator writes %lld",
                            (long long)(out->dims[0] * out->dims[1]), (long long)written);
    return OK;
}

static aclnnStatus pack_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *out = aclStubOpTensor(call, P_OUT);
    ACLSTUB_RETURN_ERROR_IF(self->dtype != ACL_FLOAT && self->dtype != ACL_FLOAT16, call, ACLNN_ERR_PARAM_INVALID,
                            "self dtype %s should be ACL_FLOAT or ACL_FLOAT16", aclStubDtypeName(self->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != ACL_UINT8, call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be ACL_UINT8",
                            aclStubDtypeName(out->dtype));
    int64_t n = self->ndim == 1 ? self->dims[0] : 0, bytes = (n + 7) / 8;
    ACLSTUB_TRY(shapes_and_formats(call, self, out, aclStubOpInt(call, P_SIZE), bytes, bytes));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus pack_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, P_SELF), *out = aclStubOpTensor(call, P_OUT);
    int64_t n = self->dims[0], cols = out->dims[1];
    for (int64_t j = 0; j < (n + 7) / 8; j++) {
        uint8_t byte = 0;
        for (int64_t i = 0; i < 8 && 8 * j + i < n; i++)
            if (aclStubLoadF32(self, 8 * j + i) >= 0) byte |= (uint8_t)(1u << i);
        *(uint8_t *)aclStubElem2(out, j / cols, j % cols) = byte;
    }
    return OK;
}

static aclnnStatus unpack_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, U_SELF), *out = aclStubOpTensor(call, U_OUT);
    aclDataType dtype = (aclDataType)aclStubOpInt(call, U_DTYPE);
    ACLSTUB_RETURN_ERROR_IF(self->dtype != ACL_UINT8, call, ACLNN_ERR_PARAM_INVALID, "self dtype %s should be "
                            "ACL_UINT8", aclStubDtypeName(self->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != ACL_FLOAT && out->dtype != ACL_FLOAT16, call, ACLNN_ERR_PARAM_INVALID,
                            "out dtype %s should be ACL_FLOAT or ACL_FLOAT16", aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != dtype, call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be dtype %s",
                            aclStubDtypeName(out->dtype), aclStubDtypeName(dtype));
    int64_t n = self->ndim == 1 ? self->dims[0] : 0;
    ACLSTUB_TRY(shapes_and_formats(call, self, out, aclStubOpInt(call, U_SIZE), 8 * n, 8 * n));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus unpack_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, U_SELF), *out = aclStubOpTensor(call, U_OUT);
    int64_t n = self->dims[0], cols = out->dims[1];
    for (int64_t j = 0; j < n; j++) {
        uint8_t byte = *(const uint8_t *)aclStubElem1(self, j);
        for (int64_t i = 0; i < 8; i++) {
            int64_t k = 8 * j + i;
            aclStubStorePtrF32(out->dtype, aclStubElem2(out, k / cols, k % cols), (byte >> i) & 1u ? 1.0f : -1.0f);
        }
    }
    return OK;
}

static const aclStubParam kPackParams[] = {
    [P_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [P_SIZE] = {"size", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [P_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubParam kUnpackParams[] = {
    [U_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [U_SIZE] = {"size", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [U_DTYPE] = {"dtype", ACLSTUB_DTYPE, 0, NULL, 0, 0, 0},
    [U_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kPack = {"aclnnSignBitsPack", kPackParams, ACLSTUB_LEN(kPackParams), NULL, pack_check,
                                   pack_kernel, 0};
static const aclStubOpDef kUnpack = {"aclnnSignBitsUnpack", kUnpackParams, ACLSTUB_LEN(kUnpackParams), NULL,
                                     unpack_check, unpack_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnSignBitsPack, kPack, (const aclTensor *, self), (int64_t, size), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnSignBitsUnpack, kUnpack, (const aclTensor *, self), (int64_t, size), (aclDataType, dtype),
                  (aclTensor *, out))
