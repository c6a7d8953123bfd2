/*
 * Argument validation of aclnnMoeTokenUnpermuteWithEp and aclnnMoeTokenUnpermuteWithEpGrad called from C
 * (specs ops/moe_token_unpermute_with_ep.md section 4 and ops/moe_token_unpermute_with_ep_grad.md section 4):
 * what only C can pass (NULL out-parameters, values beyond what Python sends) and one case per rule.
 *
 * Every case starts from a valid call on device tensors (aclrtMalloc + aclCreateTensor), changes one
 * argument and prints "<case> <status>": the status of phase 1, or of phase 2 when phase 1 succeeds (so
 * valid cases also run). At the end everything is destroyed and the stub's live-object counters are
 * printed as "<counter> <value>"; they must all be 0.
 */
#include "aclnnop/aclnn_moe_token_unpermute_with_ep.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_ep_grad.h"
#include "validation_fixture.h"

/* ---- aclnnMoeTokenUnpermuteWithEp: N = 4, K = 2, H = 3, L = 8, range [1, 5) -> 4 permuted rows --------- */

typedef struct {
    const aclTensor *tokens, *sorted, *probs;
    int64_t topk;
    const aclIntArray *range;
    bool padded;
    const aclIntArray *restore;
    const aclTensor *out;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 8), T(ACL_FLOAT, 4, 2), 2, RANGE(1, 5), false, NULL,
             T(ACL_FLOAT, 4, 3), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize(
        a.tokens, a.sorted, a.probs, a.topk, a.range, a.padded, a.restore, a.out, a.null_workspace_size ? NULL : &ws,
        a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenUnpermuteWithEp);
}

static void forward_cases(void) {
    Fwd a;
    run_fwd("fwd_ok", fwd());
    a = fwd(); a.probs = NULL; run_fwd("fwd_ok_probs_null", a);
    a = fwd(); a.tokens = T(ACL_BF16, 4, 3); a.out = T(ACL_BF16, 4, 3); a.probs = T(ACL_FLOAT16, 4, 2);
    run_fwd("fwd_ok_mixed_dtypes", a);
    a = fwd(); a.range = NULL; run_fwd("fwd_ok_range_null", a);
    a = fwd(); a.restore = RANGE(16, 16); a.padded = true; run_fwd("fwd_ok_restore_shape_and_padded_ignored", a);
    a = fwd(); a.topk = INT64_C(2) + (INT64_C(1) << 32); run_fwd("fwd_ok_topk_low_32_bits", a);
    a = fwd(); a.range = RANGE(INT64_MIN, INT64_MIN + 4); run_fwd("fwd_ok_window_far_below_ranks", a);

    /* 1: NULL -> 161001 */
    a = fwd(); a.tokens = NULL; run_fwd("fwd_null_permuted_tokens", a);
    a = fwd(); a.sorted = NULL; run_fwd("fwd_null_sorted_indices", a);
    a = fwd(); a.out = NULL; run_fwd("fwd_null_out", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);

    /* 2: dtype and format -> 161002 */
    a = fwd(); a.tokens = T(ACL_INT32, 4, 3); run_fwd("fwd_tokens_int32", a);
    a = fwd(); a.sorted = T(ACL_INT64, 8); run_fwd("fwd_sorted_int64", a);
    a = fwd(); a.probs = T(ACL_DOUBLE, 4, 2); run_fwd("fwd_probs_double", a);
    a = fwd(); a.out = T(ACL_BF16, 4, 3); run_fwd("fwd_out_dtype", a);
    a = fwd(); a.tokens = TF(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 4, 3); run_fwd("fwd_tokens_format_nz", a);

    /* 4, 5: tiling and stub-only rules -> 561002 */
    a = fwd(); a.topk = INT64_C(1) << 32; run_fwd("fwd_topk_low_32_bits_0", a);
    a = fwd(); a.topk = -1; run_fwd("fwd_topk_negative", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 2, 4); run_fwd("fwd_probs_cols", a);
    a = fwd(); a.range = RANGE(1, 5, 6); run_fwd("fwd_range_size_3", a);
    a = fwd(); a.range = RANGE(INT64_MIN, INT64_MAX); run_fwd("fwd_ok_window_overflowing", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 3, 3); run_fwd("fwd_ok_window_beyond_rows", a); /* the vendor accepts it */
    a = fwd(); a.out = T(ACL_FLOAT, 5, 3); run_fwd("fwd_out_shape", a);

    /* 3: empty out -> success, nothing to do */
    a = fwd(); a.out = T(ACL_FLOAT, 0, 3); a.topk = 0; run_fwd("fwd_empty", a);
}

/* ---- aclnnMoeTokenUnpermuteWithEpGrad: N = 4, K = 2, H = 3, L = 8, range [1, 5) -> 4 window rows ------- */

typedef struct {
    const aclTensor *grad, *sorted, *tokens, *probs;
    bool padded;
    const aclIntArray *restore, *range;
    int64_t topk;
    const aclTensor *ptg, *pg;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 8), T(ACL_FLOAT, 4, 3), T(ACL_FLOAT, 4, 2), false, NULL, RANGE(1, 5), 1,
             T(ACL_FLOAT, 4, 3), T(ACL_FLOAT, 4, 2), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenUnpermuteWithEpGradGetWorkspaceSize(
        a.grad, a.sorted, a.tokens, a.probs, a.padded, a.restore, a.range, a.topk, a.ptg, a.pg,
        a.null_workspace_size ? NULL : &ws, a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenUnpermuteWithEpGrad);
}

static void backward_cases(void) {
    Bwd a;
    run_bwd("bwd_ok", bwd());
    a = bwd(); a.probs = NULL; a.tokens = NULL; a.topk = 2; run_bwd("bwd_ok_probs_null", a);
    a = bwd(); a.range = NULL; run_bwd("bwd_ok_range_null_empty_window", a);
    a = bwd(); a.range = RANGE(INT64_MIN, INT64_MAX); run_bwd("bwd_ok_range_clamped", a);
    a = bwd(); a.probs = T(ACL_BF16, 4, 2); a.pg = T(ACL_BF16, 4, 2); run_bwd("bwd_ok_mixed_dtypes", a);

    /* 1: NULL -> 161001 */
    a = bwd(); a.grad = NULL; run_bwd("bwd_null_grad", a);
    a = bwd(); a.ptg = NULL; run_bwd("bwd_null_permuted_tokens_grad_out", a);
    a = bwd(); a.pg = NULL; a.probs = NULL; run_bwd("bwd_null_probs_grad_out_without_probs", a);
    a = bwd(); a.tokens = NULL; run_bwd("bwd_null_permuted_tokens_with_probs", a);
    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);

    /* 2: dtype -> 161002 */
    a = bwd(); a.tokens = T(ACL_FLOAT16, 4, 3); run_bwd("bwd_permuted_tokens_dtype", a);
    a = bwd(); a.pg = T(ACL_FLOAT16, 4, 2); run_bwd("bwd_probs_grad_dtype", a);

    /* 4, 5: tiling and stub-only rules -> 561002 */
    a = bwd(); a.probs = NULL; a.topk = INT64_C(1) << 32; run_bwd("bwd_topk_above_512", a);
    a = bwd(); a.range = RANGE(5, 2); run_bwd("bwd_range_end_below_start", a);
    a = bwd(); a.ptg = T(ACL_FLOAT, 3, 3); run_bwd("bwd_permuted_tokens_grad_rows", a);

    /* 3: both outputs empty -> success, nothing to do */
    a = bwd(); a.ptg = T(ACL_FLOAT, 0, 3); a.pg = T(ACL_FLOAT, 0, 2); run_bwd("bwd_empty", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
