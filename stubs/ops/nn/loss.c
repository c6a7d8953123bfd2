/*
 * Pointwise losses of ops-nn loss/ and their backward operators on the loss family (../loss_common.h):
 * aclnnMseLoss, aclnnMseLossOut (mean and sum over dimension 0 only), aclnnL1Loss, aclnnSmoothL1Loss, aclnnSoftMarginLoss, aclnnBinaryCrossEntropy,
 * aclnnBinaryCrossEntropyWithLogits, their ...Backward operators, aclnnKlDivBackward, aclnnKlDivTargetBackward.
 */
#include "../loss_common.h"
#include "aclnnop/aclnn_binary_cross_entropy.h"
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_kl_div_backward.h"
#include "aclnnop/aclnn_kl_div_target_backward.h"
#include "aclnnop/aclnn_l1_loss.h"
#include "aclnnop/aclnn_l1_loss_backward.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "aclnnop/aclnn_mse_loss_out.h"
#include "aclnnop/aclnn_smooth_l1_loss.h"
#include "aclnnop/aclnn_smooth_l1_loss_backward.h"
#include "aclnnop/aclnn_soft_margin_loss.h"
#include "aclnnop/aclnn_soft_margin_loss_backward.h"

/* forward: (self, target, reduction, out) */
static const aclStubParam aclnnMseLoss_params_[] = {T_IN(self), T_IN(target), A_INT(reduction), T_OUT(out)};
static const LossRow MSE = {K_MSE, 0, -1, 0, 1, -1, -1, 2, -1, -1, 3};
LOSS_OP(aclnnMseLoss, MSE, (const aclTensor *, self), (const aclTensor *, target), (int64_t, reduction),
        (aclTensor *, out))

static const aclStubParam aclnnMseLossOut_params_[] = {T_IN(self), T_IN(target), A_INT(reduction), T_OUT(out)};
static const LossRow MSE_OUT = {K_MSE, F_DIM0, -1, 0, 1, -1, -1, 2, -1, -1, 3};
LOSS_OP(aclnnMseLossOut, MSE_OUT, (const aclTensor *, self), (const aclTensor *, target), (int64_t, reduction),
        (aclTensor *, out))

static const aclStubParam aclnnL1Loss_params_[] = {T_IN(self), T_IN(target), A_INT(reduction), T_OUT(out)};
static const LossRow L1 = {K_L1, F_INT64, -1, 0, 1, -1, -1, 2, -1, -1, 3};
LOSS_OP(aclnnL1Loss, L1, (const aclTensor *, self), (const aclTensor *, target), (int64_t, reduction),
        (aclTensor *, out))

static const aclStubParam aclnnSmoothL1Loss_params_[] = {T_IN(self), T_IN(target), A_INT(reduction), A_FLOAT(beta),
                                                         T_OUT(result)};
static const LossRow SMOOTH_L1 = {K_SMOOTH_L1, 0, -1, 0, 1, -1, -1, 2, 3, -1, 4};
LOSS_OP(aclnnSmoothL1Loss, SMOOTH_L1, (const aclTensor *, self), (const aclTensor *, target), (int64_t, reduction),
        (float, beta), (aclTensor *, result))

static const aclStubParam aclnnSoftMarginLoss_params_[] = {T_IN(self), T_IN(target), A_INT(reduction), T_OUT(out)};
static const LossRow SOFT_MARGIN = {K_SOFT_MARGIN, F_ANY_REDUCTION, -1, 0, 1, -1, -1, 2, -1, -1, 3};
LOSS_OP(aclnnSoftMarginLoss, SOFT_MARGIN, (const aclTensor *, self), (const aclTensor *, target),
        (int64_t, reduction), (aclTensor *, out))

static const aclStubParam aclnnBinaryCrossEntropy_params_[] = {
    {"self", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}, {"target", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    T_OPT(weight), A_INT(reduction), {"out", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const LossRow BCE = {K_BCE, F_SAME_SHAPE | F_SAME_DTYPE | F_NULL_INNER, -1, 0, 1, 2, -1, 3, -1, -1, 4};
LOSS_OP(aclnnBinaryCrossEntropy, BCE, (const aclTensor *, self), (const aclTensor *, target),
        (const aclTensor *, weight), (int64_t, reduction), (aclTensor *, out))

static const aclStubParam aclnnBinaryCrossEntropyWithLogits_params_[] = {
    T_IN(self), T_IN(target), T_OPT(weightOptional), T_OPT(posWeightOptional), A_INT(reduction), T_OUT(out)};
static const LossRow BCE_LOGITS = {K_BCE_LOGITS, F_SAME_SHAPE, -1, 0, 1, 2, 3, 4, -1, -1, 5};
LOSS_OP(aclnnBinaryCrossEntropyWithLogits, BCE_LOGITS, (const aclTensor *, self), (const aclTensor *, target),
        (const aclTensor *, weightOptional), (const aclTensor *, posWeightOptional), (int64_t, reduction),
        (aclTensor *, out))

/* backward: (gradOutput, self, target, ..., reduction, ..., out) */
static const aclStubParam aclnnMseLossBackward_params_[] = {T_IN(gradOutput), T_IN(self), T_IN(target),
                                                            A_INT(reduction), T_OUT(out)};
static const LossRow MSE_BACKWARD = {K_MSE, F_BACKWARD, 0, 1, 2, -1, -1, 3, -1, -1, 4};
LOSS_OP(aclnnMseLossBackward, MSE_BACKWARD, (const aclTensor *, gradOutput), (const aclTensor *, self),
        (const aclTensor *, target), (int64_t, reduction), (aclTensor *, out))

static const aclStubParam aclnnL1LossBackward_params_[] = {T_IN(gradOutput), T_IN(self), T_IN(target),
                                                           A_INT(reduction), T_OUT(gradInput)};
static const LossRow L1_BACKWARD = {K_L1, F_BACKWARD, 0, 1, 2, -1, -1, 3, -1, -1, 4};
LOSS_OP(aclnnL1LossBackward, L1_BACKWARD, (const aclTensor *, gradOutput), (const aclTensor *, self),
        (const aclTensor *, target), (int64_t, reduction), (aclTensor *, gradInput))

static const aclStubParam aclnnSmoothL1LossBackward_params_[] = {T_IN(gradOut), T_IN(self), T_IN(target),
                                                                 A_INT(reduction), A_FLOAT(beta), T_OUT(gradInput)};
static const LossRow SMOOTH_L1_BACKWARD = {K_SMOOTH_L1, F_BACKWARD, 0, 1, 2, -1, -1, 3, 4, -1, 5};
LOSS_OP(aclnnSmoothL1LossBackward, SMOOTH_L1_BACKWARD, (const aclTensor *, gradOut), (const aclTensor *, self),
        (const aclTensor *, target), (int64_t, reduction), (float, beta), (aclTensor *, gradInput))

static const aclStubParam aclnnSoftMarginLossBackward_params_[] = {T_IN(gradOutput), T_IN(self), T_IN(target),
                                                                   A_INT(reduction), T_OUT(out)};
static const LossRow SOFT_MARGIN_BACKWARD = {K_SOFT_MARGIN, F_BACKWARD, 0, 1, 2, -1, -1, 3, -1, -1, 4};
LOSS_OP(aclnnSoftMarginLossBackward, SOFT_MARGIN_BACKWARD, (const aclTensor *, gradOutput), (const aclTensor *, self),
        (const aclTensor *, target), (int64_t, reduction), (aclTensor *, out))

static const aclStubParam aclnnBinaryCrossEntropyBackward_params_[] = {
    T_IN(gradOutput), T_IN(self), T_IN(target), T_OPT(weightOptional), A_INT(reduction), T_OUT(out)};
static const LossRow BCE_BACKWARD = {K_BCE, F_BACKWARD | F_SAME_SHAPE, 0, 1, 2, 3, -1, 4, -1, -1, 5};
LOSS_OP(aclnnBinaryCrossEntropyBackward, BCE_BACKWARD, (const aclTensor *, gradOutput), (const aclTensor *, self),
        (const aclTensor *, target), (const aclTensor *, weightOptional), (int64_t, reduction), (aclTensor *, out))

static const aclStubParam aclnnBinaryCrossEntropyWithLogitsBackward_params_[] = {
    T_IN(gradOutput), T_IN(self),          T_IN(target), T_OPT(weightOptional), T_OPT(posWeightOptional),
    A_INT(reduction), T_OUT(out)};
static const LossRow BCE_LOGITS_BACKWARD = {K_BCE_LOGITS, F_BACKWARD | F_SAME_SHAPE, 0, 1, 2, 3, 4, 5, -1, -1, 6};
LOSS_OP(aclnnBinaryCrossEntropyWithLogitsBackward, BCE_LOGITS_BACKWARD, (const aclTensor *, gradOutput),
        (const aclTensor *, self), (const aclTensor *, target), (const aclTensor *, weightOptional),
        (const aclTensor *, posWeightOptional), (int64_t, reduction), (aclTensor *, out))

static const aclStubParam aclnnKlDivBackward_params_[] = {T_IN(gradOutput), T_IN(self),        T_IN(target),
                                                          A_INT(reduction), A_BOOL(logTarget), T_OUT(out)};
static const LossRow KL_DIV_BACKWARD = {K_KL_DIV, F_BACKWARD | F_ANY_REDUCTION | F_BATCHMEAN | F_OUT_SELF,
                                        0, 1, 2, -1, -1, 3, -1, 4, 5};
LOSS_OP(aclnnKlDivBackward, KL_DIV_BACKWARD, (const aclTensor *, gradOutput), (const aclTensor *, self),
        (const aclTensor *, target), (int64_t, reduction), (bool, logTarget), (aclTensor *, out))

static const aclStubParam aclnnKlDivTargetBackward_params_[] = {T_IN(gradOutput), T_IN(self),        T_IN(target),
                                                                A_INT(reduction), A_BOOL(logTarget), T_OUT(gradTarget)};
static const LossRow KL_TARGET_BACKWARD = {K_KL_TARGET, F_BACKWARD | F_ANY_REDUCTION | F_BATCHMEAN | F_OUT_TARGET,
                                           0, 1, 2, -1, -1, 3, -1, 4, 5};
LOSS_OP(aclnnKlDivTargetBackward, KL_TARGET_BACKWARD, (const aclTensor *, gradOutput), (const aclTensor *, self),
        (const aclTensor *, target), (int64_t, reduction), (bool, logTarget), (aclTensor *, gradTarget))
