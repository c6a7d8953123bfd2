/* aclnnKlDiv of ops-math math/kl_div_v2 on the loss family (../loss_common.h). */
#include "../loss_common.h"
#include "aclnnop/aclnn_kl_div.h"

static const aclStubParam aclnnKlDiv_params_[] = {T_IN(self), T_IN(target), A_INT(reduction), A_BOOL(logTarget),
                                                  T_OUT(out)};
static const LossRow KL_DIV = {K_KL_DIV, F_BATCHMEAN, -1, 0, 1, -1, -1, 2, -1, 3, 4};
LOSS_OP(aclnnKlDiv, KL_DIV, (const aclTensor *, self), (const aclTensor *, target), (int64_t, reduction),
        (bool, logTarget), (aclTensor *, out))

