/*
 * Argument validation of aclnnMoeTokenPermuteWithEp and aclnnMoeTokenPermuteWithEpGrad called from C
 * (specs ops/moe_token_permute_with_ep.md section 4 and ops/moe_token_permute_with_ep_grad.md section 4).
 *
 * Every case starts from a valid call on device tensors (aclrtMalloc + aclCreateTensor), changes one
 * argument and prints "<case> <status>": the status of phase 1, or of phase 2 when phase 1 succeeds (so
 * valid cases also run). At the end everything is destroyed and the stub's live-object counters are
 * printed as "<counter> <value>"; they must all be 0.
 */
#include "aclnnop/aclnn_moe_token_permute_with_ep.h"
#include "aclnnop/aclnn_moe_token_permute_with_ep_grad.h"
#include "validation_fixture.h"

/* ---- aclnnMoeTokenPermuteWithEp: N = 4, K = 2, H = 3, L = 8, range [1, 5) -> n = 4 ---------------------- */

typedef struct {
    const aclTensor *tokens, *indices, *probs;
    const aclIntArray *range;
    int64_t num_out;
    bool padded;
    const aclTensor *out, *sorted, *pout;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 4, 2), T(ACL_FLOAT, 4, 2), RANGE(1, 5), 0, false,
             T(ACL_FLOAT, 4, 3), T(ACL_INT32, 8), T(ACL_FLOAT, 4), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenPermuteWithEpGetWorkspaceSize(
        a.tokens, a.indices, a.probs, a.range, a.num_out, a.padded, a.out, a.sorted, a.pout,
        a.null_workspace_size ? NULL : &ws, a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenPermuteWithEp);
}

static void forward_cases(void) {
    Fwd a;
    static const int64_t strides_zero2[] = {0, 0}, strides_col[] = {1, 4};

    run_fwd("fwd_ok", fwd());
    a = fwd(); a.probs = NULL; run_fwd("fwd_ok_probs_null", a);
    a = fwd(); a.indices = T(ACL_INT64, 4, 2); run_fwd("fwd_ok_indices_int64", a);
    a = fwd(); a.tokens = T(ACL_BF16, 4, 3); a.probs = T(ACL_BF16, 4, 2); a.out = T(ACL_BF16, 4, 3);
    a.pout = T(ACL_BF16, 4); run_fwd("fwd_ok_bf16", a);
    a = fwd(); a.tokens = T(ACL_FLOAT16, 4, 3); a.probs = T(ACL_FLOAT16, 4, 2); a.out = T(ACL_FLOAT16, 4, 3);
    a.pout = T(ACL_FLOAT16, 4); run_fwd("fwd_ok_fp16", a);
    a = fwd(); a.indices = T(ACL_INT32, 4); a.probs = T(ACL_FLOAT, 4); a.range = RANGE(1, 3);
    a.out = T(ACL_FLOAT, 2, 3); a.sorted = T(ACL_INT32, 4); a.pout = T(ACL_FLOAT, 2); run_fwd("fwd_ok_indices_1d", a);
    a = fwd(); a.range = NULL; a.num_out = 8; a.out = T(ACL_FLOAT, 8, 3); a.pout = T(ACL_FLOAT, 8);
    run_fwd("fwd_ok_range_null", a);
    a = fwd(); a.range = RANGE(6, 2); run_fwd("fwd_ok_range_wraps", a);
    a = fwd(); a.num_out = INT64_MIN; run_fwd("fwd_ok_num_out_ignored", a);
    a = fwd(); a.out = T(ACL_FLOAT, 4, 3, 1); run_fwd("fwd_ok_out_3d", a);
    a = fwd(); a.probs = NULL; a.pout = T(ACL_FLOAT, 7, 2); run_fwd("fwd_ok_pout_unchecked_without_probs", a);

    /* 1: NULL -> 161001 */
    a = fwd(); a.tokens = NULL; run_fwd("fwd_null_tokens", a);
    a = fwd(); a.indices = NULL; run_fwd("fwd_null_indices", a);
    a = fwd(); a.out = NULL; run_fwd("fwd_null_permute_tokens_out", a);
    a = fwd(); a.sorted = NULL; run_fwd("fwd_null_sorted_indices_out", a);
    a = fwd(); a.probs = NULL; a.pout = NULL; run_fwd("fwd_null_permute_probs_out", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);

    /* 2: dtype, format, output layout -> 161002 */
    a = fwd(); a.tokens = T(ACL_INT32, 4, 3); run_fwd("fwd_tokens_int32", a);
    a = fwd(); a.tokens = T(ACL_DOUBLE, 4, 3); run_fwd("fwd_tokens_double", a);
    a = fwd(); a.indices = T(ACL_FLOAT, 4, 2); run_fwd("fwd_indices_float", a);
    a = fwd(); a.indices = T(ACL_INT16, 4, 2); run_fwd("fwd_indices_int16", a);
    a = fwd(); a.probs = T(ACL_FLOAT16, 4, 2); run_fwd("fwd_probs_dtype", a);
    a = fwd(); a.out = T(ACL_BF16, 4, 3); run_fwd("fwd_out_dtype", a);
    a = fwd(); a.sorted = T(ACL_INT64, 8); run_fwd("fwd_sorted_int64", a);
    a = fwd(); a.pout = T(ACL_FLOAT16, 4); run_fwd("fwd_pout_dtype", a);
    a = fwd(); a.tokens = TF(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 4, 3); run_fwd("fwd_tokens_format_nz", a);
    a = fwd(); a.out = TS(ACL_FLOAT, strides_col, 4, 3); run_fwd("fwd_out_not_contiguous", a);

    /* 3..8: tiling -> 561002 */
    a = fwd(); a.padded = true; run_fwd("fwd_padded_mode", a);
    a = fwd(); a.range = RANGE(1, 5, 6); run_fwd("fwd_range_size_3", a);
    a = fwd(); a.range = RANGE(1); run_fwd("fwd_range_size_1", a);
    a = fwd(); a.range = int_array(0, NULL); run_fwd("fwd_range_size_0", a);
    a = fwd(); a.range = RANGE(-1, 5); run_fwd("fwd_range_start_negative", a);
    a = fwd(); a.range = RANGE(9, 5); run_fwd("fwd_range_start_above_L", a);
    a = fwd(); a.range = RANGE(1, -1); run_fwd("fwd_range_end_negative", a);
    a = fwd(); a.range = RANGE(1, 9); run_fwd("fwd_range_end_above_L", a);
    /* A NULL range is the OpDef default [0, 0]: all L = 8 rows; numOutTokens is never read. */
    a = fwd(); a.range = NULL; a.num_out = -1; a.out = T(ACL_FLOAT, 8, 3); a.pout = T(ACL_FLOAT, 8);
    run_fwd("fwd_ok_range_null_num_out_negative", a);
    a = fwd(); a.range = NULL; a.num_out = 9; a.out = T(ACL_FLOAT, 8, 3); a.pout = T(ACL_FLOAT, 8);
    run_fwd("fwd_ok_range_null_num_out_above_L", a);
    a = fwd(); a.range = NULL; a.num_out = 4; run_fwd("fwd_range_null_out_rows_not_L", a);
    a = fwd(); a.indices = T(ACL_INT32, 4, 2, 1); run_fwd("fwd_indices_3d", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 5, 3); run_fwd("fwd_tokens_rows", a);
    a = fwd(); a.indices = T(ACL_INT32, 4, 0); a.probs = NULL; a.range = NULL; run_fwd("fwd_topk_0", a);
    a = fwd(); a.indices = T(ACL_INT32, 4, 513); a.probs = NULL; run_fwd("fwd_topk_513", a);
    /* L = 32768 * 512 = 2^24 >= 16777215; zero strides: phase 1 never reads the data */
    a = fwd(); a.tokens = TS(ACL_FLOAT, strides_zero2, 32768, 3); a.indices = TS(ACL_INT32, strides_zero2, 32768, 512);
    a.probs = NULL; a.range = NULL; run_fwd("fwd_L_at_limit", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 8); run_fwd("fwd_probs_rank", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 5, 2); run_fwd("fwd_probs_rows", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 4, 3); run_fwd("fwd_probs_cols", a);
    a = fwd(); a.out = T(ACL_FLOAT, 12); run_fwd("fwd_out_1d", a);
    a = fwd(); a.out = T(ACL_FLOAT, 4, 4); run_fwd("fwd_out_row_size", a);
    a = fwd(); a.out = T(ACL_FLOAT, 5, 3); run_fwd("fwd_out_rows", a);
    a = fwd(); a.sorted = T(ACL_INT32, 8, 1); run_fwd("fwd_sorted_2d", a);
    a = fwd(); a.sorted = T(ACL_INT32, 9); run_fwd("fwd_sorted_length", a);
    a = fwd(); a.pout = T(ACL_FLOAT, 4, 1); run_fwd("fwd_pout_2d", a);
    a = fwd(); a.pout = T(ACL_FLOAT, 5); run_fwd("fwd_pout_length", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4, 3, 1); run_fwd("fwd_tokens_3d", a);

    /* 9: empty tensors -> success, nothing to do */
    a = fwd(); a.tokens = T(ACL_FLOAT, 0, 3); a.indices = T(ACL_INT32, 0, 2); a.probs = T(ACL_FLOAT, 0, 2);
    a.range = NULL; a.out = T(ACL_FLOAT, 0, 3); a.sorted = T(ACL_INT32, 0); a.pout = T(ACL_FLOAT, 0);
    run_fwd("fwd_empty", a);
    a.padded = true; a.range = RANGE(7, 9); run_fwd("fwd_empty_skips_checks", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4, 0); a.out = T(ACL_FLOAT, 4, 0); run_fwd("fwd_hidden_0", a);
}

/* ---- aclnnMoeTokenPermuteWithEpGrad: L = 8, K = 2, N = 4, H = 3, range [1, 5) -> 4 gradient rows ------- */

typedef struct {
    const aclTensor *grad, *sorted, *pgrad;
    int64_t topk;
    const aclIntArray *range;
    bool padded;
    const aclTensor *out, *pout;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 8), T(ACL_FLOAT, 4), 2, RANGE(1, 5), false,
             T(ACL_FLOAT, 4, 3), T(ACL_FLOAT, 4, 2), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize(
        a.grad, a.sorted, a.pgrad, a.topk, a.range, a.padded, a.out, a.pout, a.null_workspace_size ? NULL : &ws,
        a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenPermuteWithEpGrad);
}

static void backward_cases(void) {
    Bwd a;
    static const int64_t strides_col[] = {1, 4};

    run_bwd("bwd_ok", bwd());
    a = bwd(); a.pgrad = NULL; run_bwd("bwd_ok_probs_grad_null", a);
    a = bwd(); a.grad = T(ACL_BF16, 4, 3); a.pgrad = T(ACL_BF16, 4); a.out = T(ACL_BF16, 4, 3);
    a.pout = T(ACL_BF16, 4, 2); run_bwd("bwd_ok_bf16", a);
    a = bwd(); a.grad = T(ACL_FLOAT16, 4, 3); a.pgrad = T(ACL_FLOAT16, 4); a.out = T(ACL_FLOAT16, 4, 3);
    a.pout = T(ACL_FLOAT16, 4, 2); run_bwd("bwd_ok_fp16", a);
    a = bwd(); a.padded = true; run_bwd("bwd_ok_padded_ignored", a);
    a = bwd(); a.range = NULL; a.grad = T(ACL_FLOAT, 3, 3); a.pgrad = T(ACL_FLOAT, 3); run_bwd("bwd_ok_range_null", a);
    a = bwd(); a.range = RANGE(6, 2); a.grad = T(ACL_FLOAT, 7, 3); a.pgrad = T(ACL_FLOAT, 7);
    run_bwd("bwd_ok_start_ge_end", a);
    a = bwd(); a.topk = 512; a.sorted = T(ACL_INT32, 512); a.out = T(ACL_FLOAT, 1, 3); a.pout = T(ACL_FLOAT, 1, 512);
    run_bwd("bwd_ok_topk_512", a);

    /* 1: NULL -> 161001 */
    a = bwd(); a.grad = NULL; run_bwd("bwd_null_grad", a);
    a = bwd(); a.sorted = NULL; run_bwd("bwd_null_sorted_indices", a);
    a = bwd(); a.out = NULL; run_bwd("bwd_null_token_grad_out", a);
    a = bwd(); a.pgrad = NULL; a.pout = NULL; run_bwd("bwd_null_probs_grad_out", a);
    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);

    /* 2: dtype, format, output layout -> 161002 */
    a = bwd(); a.grad = T(ACL_INT32, 4, 3); run_bwd("bwd_grad_int32", a);
    a = bwd(); a.sorted = T(ACL_INT64, 8); run_bwd("bwd_sorted_int64", a);
    a = bwd(); a.pgrad = T(ACL_FLOAT16, 4); run_bwd("bwd_probs_grad_dtype", a);
    a = bwd(); a.out = T(ACL_BF16, 4, 3); run_bwd("bwd_out_dtype", a);
    a = bwd(); a.pout = T(ACL_FLOAT16, 4, 2); run_bwd("bwd_pout_dtype", a);
    a = bwd(); a.sorted = TF(ACL_INT32, ACL_FORMAT_FRACTAL_NZ, 8); run_bwd("bwd_sorted_format_nz", a);
    a = bwd(); a.out = TS(ACL_FLOAT, strides_col, 4, 3); run_bwd("bwd_out_not_contiguous", a);

    /* 3, 4: tiling and stub-only shape rules -> 561002 */
    a = bwd(); a.topk = 0; run_bwd("bwd_topk_0", a);
    a = bwd(); a.topk = -1; run_bwd("bwd_topk_negative", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 12); run_bwd("bwd_grad_1d", a);
    a = bwd(); a.pgrad = T(ACL_FLOAT, 4, 1); run_bwd("bwd_probs_grad_2d", a);
    a = bwd(); a.topk = 513; run_bwd("bwd_topk_513", a);
    a = bwd(); a.range = RANGE(1, 5, 0); run_bwd("bwd_range_size_3", a);
    a = bwd(); a.range = int_array(0, NULL); run_bwd("bwd_range_size_0", a);
    a = bwd(); a.range = RANGE(-1, 3); run_bwd("bwd_range_start_negative", a);
    a = bwd(); a.range = RANGE(5, 9); run_bwd("bwd_range_end_above_L", a);
    a = bwd(); a.range = RANGE(1, 4); run_bwd("bwd_grad_rows", a);
    a = bwd(); a.pgrad = T(ACL_FLOAT, 5); run_bwd("bwd_probs_grad_length", a);
    a = bwd(); a.sorted = T(ACL_INT32, 9); run_bwd("bwd_L_not_multiple", a);
    a = bwd(); a.out = T(ACL_FLOAT, 5, 3); run_bwd("bwd_out_shape", a);
    a = bwd(); a.pout = T(ACL_FLOAT, 4, 3); run_bwd("bwd_pout_shape", a);

    /* 6: empty tensors -> success, nothing to do */
    a = bwd(); a.grad = T(ACL_FLOAT, 0, 3); a.sorted = T(ACL_INT32, 0); a.pgrad = T(ACL_FLOAT, 0); a.range = RANGE(0, 0);
    a.out = T(ACL_FLOAT, 0, 3); a.pout = T(ACL_FLOAT, 0, 2); run_bwd("bwd_empty", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 4, 0); a.out = T(ACL_FLOAT, 4, 0); run_bwd("bwd_hidden_0", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
