/* aclnnScatterPaKvCache (ops-transformer attention/scatter_pa_kv_cache). */
#ifndef ACLNNOP_ACLNN_SCATTER_PA_KV_CACHE_H_
#define ACLNNOP_ACLNN_SCATTER_PA_KV_CACHE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnScatterPaKvCacheGetWorkspaceSize(
    const aclTensor *key, aclTensor *keyCacheRef, const aclTensor *slotMapping, const aclTensor *value,
    aclTensor *valueCacheRef, const aclTensor *compressLensOptional, const aclTensor *compressSeqOffsetOptional,
    const aclTensor *seqLensOptional, char *cacheModeOptional, char *scatterModeOptional,
    const aclIntArray *stridesOptional, const aclIntArray *offsetsOptional, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnScatterPaKvCache(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SCATTER_PA_KV_CACHE_H_ */
