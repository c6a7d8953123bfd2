/* What the unpermute operators' backward passes share (specs: ops/moe_token_unpermute*_grad.md, 3.3). */
#ifndef ACLNN_STUB_UNPERMUTE_COMMON_H_
#define ACLNN_STUB_UNPERMUTE_COMMON_H_

#include <stddef.h>
#include <stdint.h>

/*
 * Hidden elements per step of the probs gradient's reduction: the device cuts the hidden axis into chunks
 * that fit its unified buffer (tiling CoreSplitInfoProbIsNotNone), reduces each on its own and adds the
 * chunk sums in order, so every cut is one more float32 rounding. H itself when one chunk fits. tokens:
 * the rows the vector cores share; token_bytes, prob_bytes: element sizes of the tokens and probs.
 */
int64_t unpermute_probs_chunk(int64_t h, int64_t tokens, int64_t k, size_t token_bytes, size_t prob_bytes);

#endif /* ACLNN_STUB_UNPERMUTE_COMMON_H_ */
