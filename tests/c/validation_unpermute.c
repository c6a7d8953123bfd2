/*
 * Argument validation of aclnnMoeTokenUnpermute and aclnnMoeTokenUnpermuteGrad called from C
 * (specs ops/moe_token_unpermute.md section 4 and ops/moe_token_unpermute_grad.md section 4): the misuse only
 * C can express (NULL workspaceSize or executor, NULL or any restoreShapeOptional) and one case per rule.
 *
 * Every case starts from a valid call on device tensors, changes one argument and prints "<case> <status>"
 * (phase 1's status, or phase 2's when phase 1 succeeds). The stub's live-object counters come last.
 */
#include "aclnnop/aclnn_moe_token_unpermute.h"
#include "aclnnop/aclnn_moe_token_unpermute_grad.h"
#include "validation_fixture.h"

/* ---- aclnnMoeTokenUnpermute: P = 8, H = 3, T = 4, K = 2 --------------------------------------------------- */

typedef struct {
    const aclTensor *permuted, *sorted, *probs;
    bool padded;
    const aclIntArray *restore;
    aclTensor *out;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_BF16, 8, 3), T(ACL_INT32, 8), T(ACL_FLOAT, 4, 2), false, NULL, T(ACL_BF16, 4, 3), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenUnpermuteGetWorkspaceSize(a.permuted, a.sorted, a.probs, a.padded, a.restore, a.out,
                                                           a.null_workspace_size ? NULL : &ws,
                                                           a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenUnpermute);
}

static void forward_cases(void) {
    Fwd a;
    static const int64_t strides_col[] = {1, 4};

    run_fwd("fwd_ok", fwd());
    a = fwd(); a.restore = RANGE(1); run_fwd("fwd_ok_restore_shape_1", a);
    a = fwd(); a.restore = RANGE(16, 16); run_fwd("fwd_ok_restore_shape_16_16", a);
    a = fwd(); a.probs = NULL; a.out = T(ACL_BF16, 8, 3); run_fwd("fwd_ok_no_probs", a);
    a = fwd(); a.probs = T(ACL_FLOAT16, 4, 2); run_fwd("fwd_ok_probs_fp16", a);
    a = fwd(); a.permuted = T(ACL_BF16, 0, 3); run_fwd("fwd_ok_P_0", a);

    a = fwd(); a.permuted = NULL; run_fwd("fwd_null_permuted_tokens", a);
    a = fwd(); a.sorted = NULL; run_fwd("fwd_null_sorted_indices", a);
    a = fwd(); a.out = NULL; run_fwd("fwd_null_out", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);

    a = fwd(); a.sorted = T(ACL_INT64, 8); run_fwd("fwd_sorted_int64", a);
    a = fwd(); a.out = T(ACL_FLOAT, 4, 3); run_fwd("fwd_out_dtype", a);
    a = fwd(); a.probs = T(ACL_INT32, 4, 2); run_fwd("fwd_probs_int32", a);
    a = fwd(); a.out = TS(ACL_BF16, strides_col, 4, 3); run_fwd("fwd_out_not_contiguous", a);
    a = fwd(); a.padded = true; run_fwd("fwd_padded_mode", a);

    a = fwd(); a.permuted = T(ACL_BF16, 24); run_fwd("fwd_tokens_1d", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 1, 513); a.sorted = T(ACL_INT32, 513); a.out = T(ACL_BF16, 1, 3);
    run_fwd("fwd_topk_513", a);
    a = fwd(); a.sorted = T(ACL_INT32, 9); run_fwd("fwd_L_not_TK", a);
    a = fwd(); a.out = T(ACL_BF16, 5, 3); run_fwd("fwd_out_rows", a);
    a = fwd(); a.permuted = T(ACL_BF16, -8, 3); run_fwd("fwd_negative_dim", a);

    a = fwd(); a.out = T(ACL_BF16, 4, 0); a.permuted = T(ACL_BF16, 8, 0); run_fwd("fwd_empty_hidden", a);
}

/* ---- aclnnMoeTokenUnpermuteGrad: P = 8, H = 3, T = 4, K = 2 ---------------------------------------------- */

typedef struct {
    const aclTensor *permuted, *grad, *sorted, *probs;
    bool padded;
    const aclIntArray *restore;
    aclTensor *ptg, *pg;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 8, 3), T(ACL_FLOAT, 4, 3), T(ACL_INT32, 8), T(ACL_BF16, 4, 2), false, NULL,
             T(ACL_FLOAT, 8, 3), T(ACL_BF16, 4, 2), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenUnpermuteGradGetWorkspaceSize(a.permuted, a.grad, a.sorted, a.probs, a.padded,
                                                               a.restore, a.ptg, a.pg,
                                                               a.null_workspace_size ? NULL : &ws,
                                                               a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenUnpermuteGrad);
}

static void backward_cases(void) {
    Bwd a;
    static const int64_t strides_col[] = {1, 8};

    run_bwd("bwd_ok", bwd());
    a = bwd(); a.restore = RANGE(1, 1); run_bwd("bwd_ok_restore_shape", a);
    a = bwd(); a.probs = NULL; a.grad = T(ACL_FLOAT, 8, 3); a.pg = T0(ACL_FLOAT); run_bwd("bwd_ok_no_probs_0d", a);
    a = bwd(); a.probs = NULL; a.grad = T(ACL_FLOAT, 8, 3); a.pg = T(ACL_FLOAT16, 2, 5);
    run_bwd("bwd_ok_no_probs_any_shape", a);

    a = bwd(); a.permuted = NULL; run_bwd("bwd_null_permute_tokens", a);
    a = bwd(); a.grad = NULL; run_bwd("bwd_null_grad", a);
    a = bwd(); a.sorted = NULL; run_bwd("bwd_null_sorted_indices", a);
    a = bwd(); a.ptg = NULL; run_bwd("bwd_null_permuted_tokens_grad_out", a);
    a = bwd(); a.pg = NULL; run_bwd("bwd_null_probs_grad_out", a);
    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);

    a = bwd(); a.grad = T(ACL_BF16, 4, 3); run_bwd("bwd_grad_dtype", a);
    a = bwd(); a.pg = T(ACL_FLOAT, 4, 2); run_bwd("bwd_probs_grad_dtype", a);
    a = bwd(); a.sorted = T(ACL_INT64, 8); run_bwd("bwd_sorted_int64", a);
    a = bwd(); a.ptg = TS(ACL_FLOAT, strides_col, 8, 3); run_bwd("bwd_ptg_not_contiguous", a);
    a = bwd(); a.padded = true; run_bwd("bwd_padded_mode", a);

    a = bwd(); a.grad = T(ACL_FLOAT, 12); run_bwd("bwd_grad_1d", a);
    a = bwd(); a.permuted = T(ACL_FLOAT, 0, 3); a.ptg = T(ACL_FLOAT, 0, 3); run_bwd("bwd_P_0", a);
    a = bwd(); a.probs = T(ACL_BF16, 1, 513); a.pg = T(ACL_BF16, 1, 513); a.grad = T(ACL_FLOAT, 1, 3);
    a.sorted = T(ACL_INT32, 513); run_bwd("bwd_topk_513", a);
    a = bwd(); a.sorted = T(ACL_INT32, 9); run_bwd("bwd_ok_L_above_TK", a); /* the tail is never read */
    a = bwd(); a.sorted = T(ACL_INT32, 7); run_bwd("bwd_L_below_TK", a);
    a = bwd(); a.ptg = T(ACL_FLOAT, 8, 4); run_bwd("bwd_ptg_shape", a);
    a = bwd(); a.pg = T(ACL_BF16, 2, 4); run_bwd("bwd_probs_grad_shape", a);

    a = bwd(); a.probs = NULL; a.grad = T(ACL_FLOAT, 8, 3); a.permuted = T(ACL_FLOAT, 0, 3);
    a.ptg = T(ACL_FLOAT, 0, 3); a.pg = T(ACL_FLOAT, 0); run_bwd("bwd_empty", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
