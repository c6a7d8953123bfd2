/*
 * A test operator on the operator SDK for every data type: out[i] = self[i] for even i, the scalar `value` for
 * odd i, element bytes copied as they are, so the tests see that tensors and scalars of any aclDataType reach an
 * operator through aclnn_py.run unchanged. The scalar must have the tensors' data type.
 */
#include <string.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_pytest_interleave.h"

enum { SELF, VALUE, OUT };

static const aclStubParam PARAMS[] = {
    [SELF] = {"self", ACLSTUB_INPUT, 0, .max_rank = 8},
    [VALUE] = {"value", ACLSTUB_SCALAR, 0},
    [OUT] = {"out", ACLSTUB_OUTPUT, 0, "self", 0, .max_rank = 8},
};

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *self = aclStubOpTensor(c, SELF), *out = aclStubOpTensor(c, OUT);
    ACLSTUB_RETURN_ERROR_IF(self->dtype != out->dtype || c->v[VALUE].dtype != self->dtype, c,
                            ACLNN_ERR_PARAM_INVALID, "self, value and out must have one data type");
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(self) != aclStubNumel(out), c, ACLNN_ERR_PARAM_INVALID,
                            "out must have as many elements as self");
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, SELF), *out = aclStubOpTensor(call, OUT);
    size_t size = aclDataTypeSize(self->dtype);
    for (int64_t i = 0; i < aclStubNumel(out); i++)
        memcpy(aclStubElemAt(out, i), i % 2 ? (const void *)call->v[VALUE].scalar : aclStubElemAt(self, i), size);
    return OK;
}

static const aclStubOpDef OP = {"aclnnPytestInterleave", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, 0};

ACLSTUB_DEFINE_OP(aclnnPytestInterleave, OP, (const aclTensor *, self), (const aclScalar *, value),
                  (aclTensor *, out))
