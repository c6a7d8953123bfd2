/* aclnnConvertWeightToINT4Pack (ops-nn matmul/convert_weight_to_int4_pack). */
#ifndef ACLNNOP_ACLNN_CONVERT_WEIGHT_TO_INT4_PACK_H_
#define ACLNNOP_ACLNN_CONVERT_WEIGHT_TO_INT4_PACK_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConvertWeightToINT4PackGetWorkspaceSize(
    const aclTensor *weight, aclTensor *weightInt4Pack, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnConvertWeightToINT4Pack(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CONVERT_WEIGHT_TO_INT4_PACK_H_ */
