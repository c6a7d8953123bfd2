/*
 * aclnnLogit and aclnnLogitGrad of ops-nn loss/ on the elementwise engine. Both are generated APIs (no op_api):
 * the operator's definition for Atlas A2/A3 takes BF16, FLOAT16 and FLOAT with one dtype for every tensor, and the
 * attribute eps is a float32 attribute (the double argument is rounded to float first). Tensors have one shape
 * (no broadcasting); an empty input is nothing to do.
 *   logit       z = eps < 0 ? x : clamp(x, eps, 1 - eps);  y = log(z / (1 - z))
 *   logit grad  eps < 0: NaN where x < 0 or x > 1; eps >= 0: 0 where x < eps or x > 1 - eps;
 *               elsewhere dy / (x (1 - x))
 * 16-bit inputs are widened exactly and computed as float32; FLOAT computes in double and is rounded once (the
 * correctly rounded result: the device's approximation of log is not documented).
 */
#include <math.h>

#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_logit.h"
#include "aclnnop/aclnn_logit_grad.h"

#define FLOATS ACLSTUB_DT_FLOATS
#define SAME (ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_SHAPE | ACLSTUB_EW_EMPTY_BEFORE_SHAPES)

/* eps is a float attribute of the operator */
static aclnnStatus float_eps(aclStubOpCall *call) {
    aclStubEwPlan *plan = (aclStubEwPlan *)call->plan;
    plan->ctx.f[0] = (float)plan->ctx.f[0];
    return OK;
}

static inline double logit_of(double x, double eps) {
    double z = x;
    if (eps >= 0) z = x < eps ? eps : x > 1 - eps ? 1 - eps : x;
    return log(z / (1 - z));
}

static inline double logit_grad_of(double dy, double x, double eps) {
    if (eps < 0) {
        if (x < 0 || x > 1) return NAN;
    } else if (x < eps || x > 1 - eps) {
        return 0.0;
    }
    return dy / (x * (1 - x));
}

ACLSTUB_EW_UNARY(logit_loops, ACLSTUB_EW_FLOATS, logit_of((double)x, d0))
static const aclStubElementwise LOGIT = {1, FLOATS, SAME, &logit_loops, float_eps, NULL};
ACLSTUB_EW_OP(aclnnLogit, LOGIT, (const aclTensor *, input), (double, eps), (const aclTensor *, out))

/* operands in the prototype's order: a = x, b = dy */
ACLSTUB_EW_BINARY(logit_grad_loops, ACLSTUB_EW_FLOATS, logit_grad_of((double)b, (double)a, d0))
static const aclStubElementwise LOGIT_GRAD = {2, FLOATS, SAME | ACLSTUB_EW_TENSOR_OPERANDS, &logit_grad_loops,
                                              float_eps, NULL};
ACLSTUB_EW_OP(aclnnLogitGrad, LOGIT_GRAD, (const aclTensor *, x), (const aclTensor *, dy), (double, eps),
              (const aclTensor *, out))
