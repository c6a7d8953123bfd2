/*
 * Argument validation of aclnnMoeTokenPermute and aclnnMoeTokenPermuteGrad called from C
 * (specs ops/moe_token_permute.md section 4 and ops/moe_token_permute_grad.md section 4).
 *
 * Every case starts from a valid call on device tensors (aclrtMalloc + aclCreateTensor), changes one
 * argument and prints "<case> <status>": the status of phase 1, or of phase 2 when phase 1 succeeds (so
 * valid cases also run). At the end everything is destroyed and the stub's live-object counters are
 * printed as "<counter> <value>"; they must all be 0.
 */
#include "aclnnop/aclnn_moe_token_permute.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"
#include "validation_fixture.h"

/* ---- aclnnMoeTokenPermute: N = 4, K = 2, H = 3, T = 8, numOutTokens = 0 -> M = 8 ----------------------- */

typedef struct {
    const aclTensor *tokens, *indices;
    int64_t num_out;
    bool padded;
    const aclTensor *out, *sorted;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 4, 2), 0, false, T(ACL_FLOAT, 8, 3), T(ACL_INT32, 8), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenPermuteGetWorkspaceSize(a.tokens, a.indices, a.num_out, a.padded, a.out, a.sorted,
                                                         a.null_workspace_size ? NULL : &ws,
                                                         a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenPermute);
}

static void forward_cases(void) {
    Fwd a;
    static const int64_t strides_zero2[] = {0, 0}, strides_col[] = {1, 8}, strides_col4[] = {1, 4},
                         strides_2[] = {2};

    run_fwd("fwd_ok", fwd());
    a = fwd(); a.indices = T(ACL_INT64, 4, 2); run_fwd("fwd_ok_indices_int64", a);
    a = fwd(); a.tokens = T(ACL_FLOAT16, 4, 3); a.out = T(ACL_FLOAT16, 8, 3); run_fwd("fwd_ok_fp16", a);
    a = fwd(); a.tokens = T(ACL_BF16, 4, 3); a.out = T(ACL_BF16, 8, 3); run_fwd("fwd_ok_bf16", a);
    a = fwd(); a.tokens = T(ACL_INT8, 4, 3); a.out = T(ACL_INT8, 8, 3); run_fwd("fwd_ok_int8", a);
    a = fwd(); a.indices = T(ACL_INT32, 4); a.out = T(ACL_FLOAT, 4, 3); a.sorted = T(ACL_INT32, 4);
    run_fwd("fwd_ok_indices_1d", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4); a.out = T(ACL_FLOAT, 8, 1); run_fwd("fwd_ok_tokens_1d", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4, 3, 2); a.out = T(ACL_FLOAT, 8, 6); run_fwd("fwd_ok_tokens_3d", a);
    a = fwd(); a.out = T(ACL_FLOAT, 8, 3, 1); run_fwd("fwd_ok_out_3d", a);
    a = fwd(); a.num_out = 5; a.out = T(ACL_FLOAT, 5, 3); run_fwd("fwd_ok_num_out_positive", a);
    a = fwd(); a.num_out = -3; a.out = T(ACL_FLOAT, 5, 3); run_fwd("fwd_ok_num_out_negative", a);
    a = fwd(); a.num_out = 1000; run_fwd("fwd_ok_num_out_clamped", a);
    a = fwd(); a.num_out = INT64_MIN; a.out = T(ACL_FLOAT, 0, 3); run_fwd("fwd_ok_num_out_int64_min", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 1, 3); a.indices = T(ACL_INT32, 1, 512); a.out = T(ACL_FLOAT, 512, 3);
    a.sorted = T(ACL_INT32, 512); run_fwd("fwd_ok_topk_512", a);
    a = fwd(); a.tokens = TF(ACL_FLOAT, ACL_FORMAT_NCHW, 4, 3); a.out = TF(ACL_FLOAT, ACL_FORMAT_NHWC, 8, 3);
    run_fwd("fwd_ok_format_nchw", a);
    a = fwd(); a.tokens = TS(ACL_FLOAT, strides_col4, 4, 3); a.indices = TS(ACL_INT32, strides_col4, 4, 2);
    run_fwd("fwd_ok_strided_inputs", a);

    /* 1: NULL -> 161001 */
    a = fwd(); a.tokens = NULL; run_fwd("fwd_null_tokens", a);
    a = fwd(); a.indices = NULL; run_fwd("fwd_null_indices", a);
    a = fwd(); a.out = NULL; run_fwd("fwd_null_permute_tokens_out", a);
    a = fwd(); a.sorted = NULL; run_fwd("fwd_null_sorted_indices_out", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);

    /* 2: dtype, format, output layout -> 161002 */
    a = fwd(); a.tokens = T(ACL_INT32, 4, 3); a.out = T(ACL_INT32, 8, 3); run_fwd("fwd_tokens_int32", a);
    a = fwd(); a.tokens = T(ACL_DOUBLE, 4, 3); a.out = T(ACL_DOUBLE, 8, 3); run_fwd("fwd_tokens_double", a);
    a = fwd(); a.indices = T(ACL_FLOAT, 4, 2); run_fwd("fwd_indices_float", a);
    a = fwd(); a.indices = T(ACL_INT16, 4, 2); run_fwd("fwd_indices_int16", a);
    a = fwd(); a.out = T(ACL_BF16, 8, 3); run_fwd("fwd_out_dtype", a);
    a = fwd(); a.sorted = T(ACL_INT64, 8); run_fwd("fwd_sorted_int64", a);
    a = fwd(); a.tokens = TF(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 4, 3); run_fwd("fwd_tokens_format_nz", a);
    a = fwd(); a.sorted = TF(ACL_INT32, ACL_FORMAT_FRACTAL_NZ, 8); run_fwd("fwd_sorted_format_nz", a);
    a = fwd(); a.out = TS(ACL_FLOAT, strides_col, 8, 3); run_fwd("fwd_out_not_contiguous", a);
    a = fwd(); a.sorted = TS(ACL_INT32, strides_2, 8); run_fwd("fwd_sorted_not_contiguous", a);

    /* 4: tiling -> 561002 */
    a = fwd(); a.padded = true; run_fwd("fwd_padded_mode", a);
    a = fwd(); a.indices = T(ACL_INT32, 4, 2, 1); run_fwd("fwd_indices_3d", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 5, 3); run_fwd("fwd_tokens_rows", a);
    a = fwd(); a.indices = T(ACL_INT32, 4, 513); run_fwd("fwd_topk_513", a);
    /* T = 32768 * 512 = 2^24 >= 16777215; zero strides: phase 1 never reads the data */
    a = fwd(); a.tokens = TS(ACL_FLOAT, strides_zero2, 32768, 3); a.indices = TS(ACL_INT32, strides_zero2, 32768, 512);
    a.num_out = 1; a.out = T(ACL_FLOAT, 1, 3); run_fwd("fwd_T_at_limit", a);
    a = fwd(); a.out = T(ACL_FLOAT, 24); run_fwd("fwd_out_1d", a);
    a = fwd(); a.sorted = T(ACL_INT32, 8, 1); run_fwd("fwd_sorted_2d", a);
    a = fwd(); a.sorted = T(ACL_INT32, 9); run_fwd("fwd_sorted_length", a);
    a = fwd(); a.out = T(ACL_FLOAT, 8, 4); run_fwd("fwd_out_row_size", a);
    a = fwd(); a.out = T(ACL_FLOAT, 7, 3); run_fwd("fwd_out_rows", a);
    a = fwd(); a.num_out = 5; run_fwd("fwd_num_out_rows", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4, -3); run_fwd("fwd_tokens_negative_dim", a);

    /* 3 and section 5: empty tensors */
    a = fwd(); a.tokens = T(ACL_FLOAT, 0, 3); a.indices = T(ACL_INT32, 0, 2); a.out = T(ACL_FLOAT, 0, 3);
    a.sorted = T(ACL_INT32, 0); run_fwd("fwd_empty", a);
    a = fwd(); a.indices = T(ACL_INT32, 4, 0); a.out = T(ACL_FLOAT, 0, 3); a.sorted = T(ACL_INT32, 0);
    run_fwd("fwd_empty_k_0", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 0, 3); a.indices = T(ACL_INT32, 0, 2, 1); a.out = T(ACL_FLOAT, 0);
    a.sorted = T(ACL_INT32, 0); a.padded = true; a.num_out = -9; run_fwd("fwd_empty_skips_checks", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4, 0); a.out = T(ACL_FLOAT, 8, 0); run_fwd("fwd_hidden_0", a);
    a = fwd(); a.num_out = -8; a.out = T(ACL_FLOAT, 0, 3); run_fwd("fwd_no_rows_kept", a);
}

/* ---- aclnnMoeTokenPermuteGrad: P = 4, H = 3, L = 8, K = 2 -> out (4, 3) --------------------------------- */

typedef struct {
    const aclTensor *grad, *sorted;
    int64_t topk;
    bool padded;
    aclTensor *out;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 8), 2, false, T(ACL_FLOAT, 4, 3), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenPermuteGradGetWorkspaceSize(a.grad, a.sorted, a.topk, a.padded, a.out,
                                                             a.null_workspace_size ? NULL : &ws,
                                                             a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenPermuteGrad);
}

static void backward_cases(void) {
    Bwd a;
    static const int64_t strides_col[] = {1, 4}, strides_2[] = {2};

    run_bwd("bwd_ok", bwd());
    a = bwd(); a.grad = T(ACL_FLOAT16, 4, 3); a.out = T(ACL_FLOAT16, 4, 3); run_bwd("bwd_ok_fp16", a);
    a = bwd(); a.grad = T(ACL_BF16, 4, 3); a.out = T(ACL_BF16, 4, 3); run_bwd("bwd_ok_bf16", a);
    a = bwd(); a.topk = 1; a.out = T(ACL_FLOAT, 8, 3); run_bwd("bwd_ok_topk_1", a);
    a = bwd(); a.topk = 512; a.sorted = T(ACL_INT32, 1024); a.out = T(ACL_FLOAT, 2, 3); run_bwd("bwd_ok_topk_512", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 0, 3); run_bwd("bwd_ok_P_0", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 8, 3); run_bwd("bwd_ok_P_eq_L", a);
    a = bwd(); a.grad = TS(ACL_FLOAT, strides_col, 4, 3); a.sorted = TS(ACL_INT32, strides_2, 8);
    run_bwd("bwd_ok_strided_inputs", a);

    /* 1: NULL -> 161001 */
    a = bwd(); a.grad = NULL; run_bwd("bwd_null_grad", a);
    a = bwd(); a.sorted = NULL; run_bwd("bwd_null_sorted_indices", a);
    a = bwd(); a.out = NULL; run_bwd("bwd_null_out", a);
    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);

    /* 2, 3: dtype, format, output layout, paddedMode -> 161002 */
    a = bwd(); a.grad = T(ACL_INT32, 4, 3); a.out = T(ACL_INT32, 4, 3); run_bwd("bwd_grad_int32", a);
    a = bwd(); a.grad = T(ACL_INT8, 4, 3); a.out = T(ACL_INT8, 4, 3); run_bwd("bwd_grad_int8", a);
    a = bwd(); a.sorted = T(ACL_INT64, 8); run_bwd("bwd_sorted_int64", a);
    a = bwd(); a.out = T(ACL_FLOAT16, 4, 3); run_bwd("bwd_out_dtype", a);
    a = bwd(); a.sorted = TF(ACL_INT32, ACL_FORMAT_FRACTAL_NZ, 8); run_bwd("bwd_sorted_format_nz", a);
    a = bwd(); a.out = TS(ACL_FLOAT, strides_col, 4, 3); run_bwd("bwd_out_not_contiguous", a);
    a = bwd(); a.padded = true; run_bwd("bwd_padded_mode", a);
    a = bwd(); a.padded = true; a.sorted = T(ACL_INT32, 0); a.out = T(ACL_FLOAT, 0, 3);
    run_bwd("bwd_padded_mode_empty_out", a);

    /* 5: tiling -> 561002 */
    a = bwd(); a.topk = 0; run_bwd("bwd_topk_0", a);
    a = bwd(); a.topk = -1; run_bwd("bwd_topk_negative", a);
    a = bwd(); a.topk = 513; a.sorted = T(ACL_INT32, 1026); a.out = T(ACL_FLOAT, 2, 3); run_bwd("bwd_topk_513", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 12); run_bwd("bwd_grad_1d", a);
    a = bwd(); a.sorted = T(ACL_INT32, 8, 1); run_bwd("bwd_sorted_2d", a);
    a = bwd(); a.out = T(ACL_FLOAT, 12); run_bwd("bwd_out_1d", a);
    a = bwd(); a.out = T(ACL_FLOAT, 4, 4); run_bwd("bwd_out_cols", a);
    a = bwd(); a.sorted = T(ACL_INT32, 9); run_bwd("bwd_L_not_multiple", a);
    a = bwd(); a.out = T(ACL_FLOAT, 5, 3); run_bwd("bwd_out_rows", a);
    a = bwd(); a.sorted = T(ACL_INT32, 0); run_bwd("bwd_L_0_non_empty_out", a);
    a = bwd(); a.grad = T(ACL_FLOAT, -1, 3); run_bwd("bwd_grad_negative_dim", a);

    /* 4 and section 5: empty out -> success, nothing to do */
    a = bwd(); a.sorted = T(ACL_INT32, 0); a.out = T(ACL_FLOAT, 0, 3); run_bwd("bwd_empty", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 4, 0); a.out = T(ACL_FLOAT, 4, 0); run_bwd("bwd_hidden_0", a);
    a = bwd(); a.topk = 0; a.grad = T(ACL_FLOAT, 5); a.out = T(ACL_FLOAT, 0, 7); run_bwd("bwd_empty_skips_checks", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
