/* Scalar fp16 conversions for kernels (bf16 ones are inline in aclstub/op_sdk.h). */
#include "stub_internal.h"

float aclStubF16ToF32(uint16_t h) {
    _Float16 f;
    memcpy(&f, &h, 2);
    return (float)f;
}

uint16_t aclStubF32ToF16(float f) {
    _Float16 h = (_Float16)f; /* round to nearest even, subnormals kept, overflow to inf (abi.md 7.2) */
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}
