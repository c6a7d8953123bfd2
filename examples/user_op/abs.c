/*
 * aclnnAbs on the CPU stub, written with the operator SDK (aclstub/op_sdk.h): the parameter table, the
 * operator's own check (shapes) and the kernel. NULL arguments, liveness, data types, formats, ranks,
 * executors, workspaces, streams and phase-2 re-checks come from the SDK.
 *
 *   cc -std=gnu11 -O2 -shared -fPIC -Iinclude abs.c $(python -m aclnn_py config --sdk) -o libuser_abs.so
 */
#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_abs.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "abs_element reads the sign from the last byte");

enum { SELF, OUT };

#define ABS_DTYPES                                                                                              \
    (ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_DOUBLE) | ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT16) |                 \
     ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_INT64) | ACLSTUB_DT(ACL_UINT8) | ACLSTUB_DT(ACL_BOOL))

static const aclStubParam PARAMS[] = {
    [SELF] = {"self", ACLSTUB_INPUT, ABS_DTYPES, .max_rank = 8},
    /* out may be any strided view: the kernel writes through its strides */
    [OUT] = {"out", ACLSTUB_OUTPUT, ABS_DTYPES, "self", ACLSTUB_ANY_LAYOUT, .max_rank = 8},
};

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *self = aclStubOpTensor(c, SELF), *out = aclStubOpTensor(c, OUT);
    bool same_shape = self->ndim == out->ndim;
    for (uint32_t d = 0; same_shape && d < self->ndim; d++) same_shape = self->dims[d] == out->dims[d];
    ACLSTUB_RETURN_ERROR_IF(!same_shape, c, ACLNN_ERR_PARAM_INVALID, "out must have the shape of self");
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

/* |x| of one element of `size` bytes: floating types clear the sign bit, signed integers negate (the most
 * negative value stays itself, as two's complement hardware does), UINT8 and BOOL are copied. */
static void abs_element(void *dst, const void *src, aclDataType dtype, size_t size) {
    unsigned char bytes[8];
    memcpy(bytes, src, size);
    bool is_float = dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_DOUBLE;
    bool is_signed = dtype == ACL_INT8 || dtype == ACL_INT16 || dtype == ACL_INT32 || dtype == ACL_INT64;
    bool negative = (bytes[size - 1] & 0x80) != 0; /* little-endian: the sign is the top bit of the last byte */
    if (is_float) {
        bytes[size - 1] &= 0x7f;
    } else if (is_signed && negative) {
        unsigned carry = 1; /* two's complement negation: invert, add one */
        for (size_t i = 0; i < size; i++) {
            unsigned v = (unsigned)(unsigned char)~bytes[i] + carry;
            bytes[i] = (unsigned char)v;
            carry = v >> 8;
        }
    }
    memcpy(dst, bytes, size);
}

typedef struct {
    const aclStubTensorDesc *self, *out;
    size_t size;
} Ctx;

static void abs_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *c = arg;
    for (int64_t i = begin; i < end; i++)
        abs_element(aclStubElemAt(c->out, i), aclStubElemAt(c->self, i), c->self->dtype, c->size);
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    Ctx c = {aclStubOpTensor(call, SELF), aclStubOpTensor(call, OUT), aclDataTypeSize(aclStubOpTensor(call, SELF)->dtype)};
    aclStubParallelFor(aclStubNumel(c.out), 4096, abs_range, &c);
    return OK;
}

static const aclStubOpDef OP = {"aclnnAbs", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, 0};

ACLSTUB_DEFINE_OP(aclnnAbs, OP, (const aclTensor *, self), (aclTensor *, out))
