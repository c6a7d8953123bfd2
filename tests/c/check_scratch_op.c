/*
 * aclnnScratchCopy: out = self through a workspace as large as self (an operator on the operator SDK that
 * asks for a workspace, for the seeded workspace bug of check mode).
 */
#include "aclstub/op_sdk.h"

enum { SELF, OUT };

static const aclStubParam PARAMS[] = {
    [SELF] = {"self", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
    [OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "self"},
};

static aclnnStatus check(aclStubOpCall *c) {
    const aclStubTensorDesc *self = aclStubOpTensor(c, SELF);
    aclStubOpRequestWorkspace(c, (uint64_t)aclStubNumel(self) * aclDataTypeSize(self->dtype));
    return OK;
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, SELF), *out = aclStubOpTensor(call, OUT);
    size_t esize = aclDataTypeSize(self->dtype);
    char *scratch = call->workspace;
    for (int64_t i = 0; i < aclStubNumel(self); i++) memcpy(scratch + i * esize, aclStubElemAt(self, i), esize);
    for (int64_t i = 0; i < aclStubNumel(out); i++) memcpy(aclStubElemAt(out, i), scratch + i * esize, esize);
    return OK;
}

static const aclStubOpDef OP = {"aclnnScratchCopy", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, 0};

ACLSTUB_DEFINE_OP(aclnnScratchCopy, OP, (const aclTensor *, self), (aclTensor *, out))
