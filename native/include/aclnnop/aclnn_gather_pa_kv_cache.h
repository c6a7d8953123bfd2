/* aclnnGatherPaKvCache (ops-transformer attention/gather_pa_kv_cache). */
#ifndef ACLNNOP_ACLNN_GATHER_PA_KV_CACHE_H_
#define ACLNNOP_ACLNN_GATHER_PA_KV_CACHE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGatherPaKvCacheGetWorkspaceSize(const aclTensor *keyCache, const aclTensor *valueCache,
                                                           const aclTensor *blockTables, const aclTensor *seqLens,
                                                           const aclTensor *keyRef, const aclTensor *valueRef,
                                                           const aclTensor *seqOffsetOptional, char *cacheMode,
                                                           const bool isSeqLensCumsum, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGatherPaKvCache(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GATHER_PA_KV_CACHE_H_ */
