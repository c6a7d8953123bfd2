/*
 * The NaN rule of every arithmetic kernel (the numpy references follow it too): a op b is a made quiet when
 * a (the running value, or the left operand of the formula) is NaN, whatever b is; otherwise the IEEE result
 * (a NaN b comes out quiet). Hardware returns either operand's payload for NaN op NaN depending on operand
 * order, which compilers are free to swap, so the rule is applied explicitly. Integer operations only, so
 * the loops around these vectorise.
 */
#ifndef ACLNN_STUB_NAN_RULE_H_
#define ACLNN_STUB_NAN_RULE_H_

#include <stdint.h>
#include <string.h>

static inline float stub_keep_left_nan(float a, float r) {
    uint32_t ua, ur;
    memcpy(&ua, &a, 4);
    memcpy(&ur, &r, 4);
    uint32_t a_is_nan = (int32_t)(ua & 0x7fffffffu) > 0x7f800000 ? 0xffffffffu : 0u;
    ur = (ur & ~a_is_nan) | ((ua | 0x400000u) & a_is_nan);
    memcpy(&r, &ur, 4);
    return r;
}

static inline float stub_add_f32(float a, float b) { return stub_keep_left_nan(a, a + b); }
static inline float stub_mul_f32(float a, float b) { return stub_keep_left_nan(a, a * b); }

#endif /* ACLNN_STUB_NAN_RULE_H_ */
