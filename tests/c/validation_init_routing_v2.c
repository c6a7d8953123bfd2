/*
 * Argument validation of aclnnMoeInitRoutingV2 and aclnnMoeInitRoutingV2Grad called from C
 * (specs ops/moe_init_routing_v2.md section 4 and ops/moe_init_routing_v2_grad.md section 4).
 *
 * Every case starts from a valid call on device tensors (aclrtMalloc + aclCreateTensor), changes one
 * argument and prints "<case> <status>": the status of phase 1, or of phase 2 when phase 1 succeeds (so
 * valid cases also run). At the end everything is destroyed and the stub's live-object counters are
 * printed as "<counter> <value>"; they must all be 0.
 */
#include "aclnnop/aclnn_moe_init_routing_v2.h"
#include "aclnnop/aclnn_moe_init_routing_v2_grad.h"
#include "validation_fixture.h"

/* ---- aclnnMoeInitRoutingV2: N = 4, K = 2, H = 3, T = 8, E = 3 ------------------------------------------
 * fwd(): dropless with cumulative counts; fwd1(): drop/pad, C = 2, before-capacity counts. */

typedef struct {
    const aclTensor *x, *idx;
    int64_t active, cap, e, mode, flag;
    bool before;
    const aclTensor *ex, *ri, *cnt, *bef;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 4, 2), 0, 0, 3, 0, 1, false,
             T(ACL_FLOAT, 8, 3), T(ACL_INT32, 8), T(ACL_INT32, 3), NULL, false, false};
    return a;
}

static Fwd fwd1(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 4, 2), 0, 2, 3, 1, 0, true,
             T(ACL_FLOAT, 3, 2, 3), T(ACL_INT32, 8), NULL, T(ACL_INT32, 3), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeInitRoutingV2GetWorkspaceSize(
        a.x, a.idx, a.active, a.cap, a.e, a.mode, a.flag, a.before, a.ex, a.ri, a.cnt, a.bef,
        a.null_workspace_size ? NULL : &ws, a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeInitRoutingV2);
}

static void forward_cases(void) {
    Fwd a;
    static const int64_t strides_col[] = {1, 4}, strides_zero2[] = {0, 0};

    run_fwd("fwd_ok", fwd());
    a = fwd(); a.flag = 2; run_fwd("fwd_ok_count_flag_2", a);
    a = fwd(); a.flag = 0; a.cnt = NULL; run_fwd("fwd_ok_flag_0_counts_null", a);
    a = fwd(); a.flag = 0; a.cnt = T(ACL_INT32, 7, 2); run_fwd("fwd_ok_flag_0_count_out_unchecked", a);
    a = fwd(); a.x = T(ACL_FLOAT16, 4, 3); a.ex = T(ACL_FLOAT16, 8, 3); run_fwd("fwd_ok_fp16", a);
    a = fwd(); a.x = T(ACL_BF16, 4, 3); a.ex = T(ACL_BF16, 8, 3); run_fwd("fwd_ok_bf16", a);
    a = fwd(); a.active = 5; a.ex = T(ACL_FLOAT, 5, 3); run_fwd("fwd_ok_active", a);
    a = fwd(); a.active = 100; run_fwd("fwd_ok_active_above_T", a);
    a = fwd(); a.cap = 100; a.before = true; run_fwd("fwd_ok_mode_0_ignores_capacity_and_before_flag", a);
    a = fwd(); a.e = 0; a.flag = 0; a.cnt = NULL; run_fwd("fwd_ok_expert_num_0_without_counts", a);
    a = fwd(); a.x = TS(ACL_FLOAT, strides_col, 4, 3); a.idx = TS(ACL_INT32, strides_col, 4, 2);
    run_fwd("fwd_ok_strided_inputs", a);
    run_fwd("fwd_ok_mode_1", fwd1());
    a = fwd1(); a.before = false; a.bef = NULL; run_fwd("fwd_ok_mode_1_before_flag_off", a);
    a = fwd1(); a.flag = 2; run_fwd("fwd_ok_mode_1_count_flag_ignored", a);
    a = fwd1(); a.cap = 4; a.ex = T(ACL_FLOAT, 3, 4, 3); run_fwd("fwd_ok_mode_1_capacity_N", a);

    /* 1: NULL -> 161001 */
    a = fwd(); a.x = NULL; run_fwd("fwd_null_x", a);
    a = fwd(); a.idx = NULL; run_fwd("fwd_null_expert_idx", a);
    a = fwd(); a.ex = NULL; run_fwd("fwd_null_expanded_x_out", a);
    a = fwd(); a.ri = NULL; run_fwd("fwd_null_expanded_row_idx_out", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);

    /* 2: dtype, format, output layout -> 161002 */
    a = fwd(); a.x = T(ACL_INT32, 4, 3); run_fwd("fwd_x_int32", a);
    a = fwd(); a.x = T(ACL_DOUBLE, 4, 3); run_fwd("fwd_x_double", a);
    a = fwd(); a.idx = T(ACL_INT64, 4, 2); run_fwd("fwd_expert_idx_int64", a);
    a = fwd(); a.idx = T(ACL_FLOAT, 4, 2); run_fwd("fwd_expert_idx_float", a);
    a = fwd(); a.ex = T(ACL_FLOAT16, 8, 3); run_fwd("fwd_expanded_x_dtype", a);
    a = fwd(); a.ri = T(ACL_INT64, 8); run_fwd("fwd_row_idx_int64", a);
    a = fwd(); a.cnt = T(ACL_INT64, 3); run_fwd("fwd_count_out_int64", a);
    a = fwd(); a.bef = T(ACL_FLOAT, 3); run_fwd("fwd_before_out_float_in_mode_0", a);
    a = fwd(); a.x = TF(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 4, 3); run_fwd("fwd_x_format_nz", a);
    a = fwd(); a.ri = TF(ACL_INT32, ACL_FORMAT_FRACTAL_NZ, 8); run_fwd("fwd_row_idx_format_nz", a);
    a = fwd(); a.ex = TS(ACL_FLOAT, strides_col, 8, 3); run_fwd("fwd_expanded_x_not_contiguous", a);

    /* 3: every output empty -> success, nothing to do, later checks skipped */
    a = fwd(); a.x = T(ACL_FLOAT, 0, 3); a.idx = T(ACL_INT32, 0, 2); a.ex = T(ACL_FLOAT, 0, 3);
    a.ri = T(ACL_INT32, 0); a.flag = 0; a.cnt = NULL; run_fwd("fwd_empty", a);
    a.mode = 7; a.flag = 9; a.cap = -1; a.e = -1; a.active = -1; run_fwd("fwd_empty_skips_checks", a);
    a = fwd(); a.x = T(ACL_FLOAT, 0, 3); a.idx = T(ACL_INT32, 0, 2); a.ex = T(ACL_FLOAT, 0, 3);
    a.ri = T(ACL_INT32, 0); run_fwd("fwd_N_0_with_counts", a);
    a = fwd(); a.x = T(ACL_FLOAT, 4, 0); a.ex = T(ACL_FLOAT, 8, 0); run_fwd("fwd_hidden_0", a);

    /* 4: tiling -> 561002 */
    a = fwd(); a.x = T(ACL_FLOAT, 4, 3, 1); run_fwd("fwd_x_3d", a);
    a = fwd(); a.x = T(ACL_FLOAT, 4); run_fwd("fwd_x_1d", a);
    a = fwd(); a.x = T(ACL_FLOAT, 5, 3); run_fwd("fwd_x_rows_differ", a);
    a = fwd(); a.x = T(ACL_FLOAT, -1, 3); a.idx = T(ACL_INT32, -1, 2); run_fwd("fwd_x_rows_negative", a);
    a = fwd(); a.x = T(ACL_FLOAT, 4, -3); run_fwd("fwd_x_cols_negative", a);
    a = fwd(); a.cap = -1; run_fwd("fwd_capacity_negative", a);
    a = fwd(); a.e = -1; a.flag = 0; a.cnt = NULL; run_fwd("fwd_expert_num_negative", a);
    a = fwd(); a.mode = 2; run_fwd("fwd_drop_pad_mode_2", a);
    a = fwd(); a.mode = -1; run_fwd("fwd_drop_pad_mode_negative", a);
    a = fwd1(); a.cap = 0; a.ex = T(ACL_FLOAT, 3, 0, 3); run_fwd("fwd_mode_1_capacity_0", a);
    a = fwd1(); a.e = 0; a.ex = T(ACL_FLOAT, 0, 2, 3); a.bef = T(ACL_INT32, 0); run_fwd("fwd_mode_1_experts_0", a);
    a = fwd(); a.flag = 3; run_fwd("fwd_count_flag_3", a);
    a = fwd(); a.flag = -1; run_fwd("fwd_count_flag_negative", a);
    a = fwd(); a.e = 0; a.cnt = T(ACL_INT32, 0); run_fwd("fwd_count_flag_without_experts", a);
    a = fwd1(); a.cap = 5; a.ex = T(ACL_FLOAT, 3, 5, 3); run_fwd("fwd_mode_1_capacity_above_N", a);
    a = fwd1(); a.e = INT64_C(1) << 30; a.cap = 4; run_fwd("fwd_mode_1_experts_times_capacity_above_int32", a);
    a = fwd(); a.active = -1; run_fwd("fwd_active_negative", a);
    a = fwd1(); a.active = -1; run_fwd("fwd_mode_1_active_negative", a);
    a = fwd(); a.idx = T(ACL_INT32, 4); a.ex = T(ACL_FLOAT, 4, 3); a.ri = T(ACL_INT32, 4);
    run_fwd("fwd_expert_idx_1d", a);
    a = fwd(); a.idx = T(ACL_INT32, 4, 2, 1); run_fwd("fwd_expert_idx_3d", a);
    a = fwd(); a.idx = T0(ACL_INT32); run_fwd("fwd_expert_idx_0d", a);
    a = fwd(); a.idx = T(ACL_INT32, 4, -2); run_fwd("fwd_expert_idx_cols_negative", a);
    /* T = 65536 * 32769 > INT32_MAX; zero strides and H = 0: nothing needs backing memory */
    a = fwd(); a.x = T(ACL_FLOAT, 65536, 0); a.idx = TS(ACL_INT32, strides_zero2, 65536, 32769);
    a.ex = T(ACL_FLOAT, INT64_C(65536) * 32769, 0); a.ri = TA(ACL_INT32, INT64_C(65536) * 32769); a.flag = 0;
    a.cnt = NULL; run_fwd("fwd_T_above_int32", a);
    a = fwd(); a.ex = T(ACL_FLOAT, 8, 3, 1); run_fwd("fwd_expanded_x_3d_in_mode_0", a);
    a = fwd(); a.ex = T(ACL_FLOAT, 7, 3); run_fwd("fwd_expanded_x_rows_not_T", a);
    a = fwd(); a.active = 5; run_fwd("fwd_expanded_x_rows_not_active", a);
    a = fwd(); a.active = 100; a.ex = T(ACL_FLOAT, 100, 3); run_fwd("fwd_expanded_x_rows_not_min_active_T", a);
    a = fwd(); a.ex = T(ACL_FLOAT, 8, 4); run_fwd("fwd_expanded_x_cols", a);
    a = fwd1(); a.ex = T(ACL_FLOAT, 6, 3); run_fwd("fwd_expanded_x_2d_in_mode_1", a);
    a = fwd1(); a.ex = T(ACL_FLOAT, 4, 2, 3); run_fwd("fwd_expanded_x_dim0_not_E", a);
    a = fwd1(); a.ex = T(ACL_FLOAT, 3, 3, 3); run_fwd("fwd_expanded_x_dim1_not_C", a);
    a = fwd1(); a.ex = T(ACL_FLOAT, 3, 2, 4); run_fwd("fwd_expanded_x_dim2_not_H", a);
    a = fwd(); a.ri = T(ACL_INT32, 8, 1); run_fwd("fwd_row_idx_2d", a);
    a = fwd(); a.ri = T(ACL_INT32, 9); run_fwd("fwd_row_idx_length", a);
    a = fwd(); a.cnt = NULL; run_fwd("fwd_count_out_null_when_requested", a);
    a = fwd(); a.cnt = T(ACL_INT32, 3, 1); run_fwd("fwd_count_out_2d", a);
    a = fwd(); a.cnt = T(ACL_INT32, 4); run_fwd("fwd_count_out_length", a);
    a = fwd1(); a.bef = NULL; run_fwd("fwd_before_out_null_when_requested", a);
    a = fwd1(); a.bef = T(ACL_INT32, 3, 1); run_fwd("fwd_before_out_2d", a);
    a = fwd1(); a.bef = T(ACL_INT32, 2); run_fwd("fwd_before_out_length", a);
}

/* ---- aclnnMoeInitRoutingV2Grad: L = 8, K = 2, N = 4, H = 3, dropless ----------------------------------- */

typedef struct {
    const aclTensor *grad, *idx;
    int64_t topk, mode, active;
    const aclTensor *out;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 8, 3), T(ACL_INT32, 8), 2, 0, 0, T(ACL_FLOAT, 4, 3), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeInitRoutingV2GradGetWorkspaceSize(a.grad, a.idx, a.topk, a.mode, a.active, a.out,
                                                               a.null_workspace_size ? NULL : &ws,
                                                               a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeInitRoutingV2Grad);
}

static void backward_cases(void) {
    Bwd a;
    static const int64_t strides_col[] = {1, 4};

    run_bwd("bwd_ok", bwd());
    a = bwd(); a.grad = T(ACL_FLOAT16, 8, 3); a.out = T(ACL_FLOAT16, 4, 3); run_bwd("bwd_ok_fp16", a);
    a = bwd(); a.grad = T(ACL_BF16, 8, 3); a.out = T(ACL_BF16, 4, 3); run_bwd("bwd_ok_bf16", a);
    a = bwd(); a.active = 5; a.grad = T(ACL_FLOAT, 5, 3); run_bwd("bwd_ok_active", a);
    a = bwd(); a.mode = 1; a.grad = T(ACL_FLOAT, 2, 3, 3); run_bwd("bwd_ok_drop_pad", a);
    a = bwd(); a.mode = 1; a.active = 9; a.grad = T(ACL_FLOAT, 2, 3, 3); run_bwd("bwd_ok_drop_pad_ignores_active", a);
    a = bwd(); a.mode = 1; a.grad = T(ACL_FLOAT, 0, 2, 3); run_bwd("bwd_ok_drop_pad_no_rows", a);
    a = bwd(); a.grad = TS(ACL_FLOAT, strides_col, 8, 3); run_bwd("bwd_ok_strided_grad", a);
    a = bwd(); a.topk = 1; a.out = T(ACL_FLOAT, 8, 3); run_bwd("bwd_ok_topk_1", a);

    /* 1: NULL -> 161001 */
    a = bwd(); a.grad = NULL; run_bwd("bwd_null_grad", a);
    a = bwd(); a.idx = NULL; run_bwd("bwd_null_row_idx", a);
    a = bwd(); a.out = NULL; run_bwd("bwd_null_out", a);
    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);

    /* 2: dtype, format, output layout -> 161002 */
    a = bwd(); a.grad = T(ACL_INT32, 8, 3); run_bwd("bwd_grad_int32", a);
    a = bwd(); a.idx = T(ACL_INT64, 8); run_bwd("bwd_row_idx_int64", a);
    a = bwd(); a.out = T(ACL_BF16, 4, 3); run_bwd("bwd_out_dtype", a);
    a = bwd(); a.grad = TF(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 8, 3); run_bwd("bwd_grad_format_nz", a);
    a = bwd(); a.out = TS(ACL_FLOAT, strides_col, 4, 3); run_bwd("bwd_out_not_contiguous", a);

    /* 3: empty out -> success, nothing to do, later checks skipped */
    a = bwd(); a.grad = T(ACL_FLOAT, 0, 3); a.idx = T(ACL_INT32, 0); a.out = T(ACL_FLOAT, 0, 3);
    run_bwd("bwd_empty", a);
    a.topk = 0; a.mode = 5; a.active = -1; a.grad = T(ACL_FLOAT, 7); run_bwd("bwd_empty_skips_checks", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 8, 0); a.out = T(ACL_FLOAT, 4, 0); run_bwd("bwd_hidden_0", a);

    /* 4, 5: tiling and the stub's stricter rank rule -> 561002 */
    a = bwd(); a.mode = 2; run_bwd("bwd_drop_pad_mode_2", a);
    a = bwd(); a.topk = 0; run_bwd("bwd_topk_0", a);
    a = bwd(); a.topk = -1; run_bwd("bwd_topk_negative", a);
    a = bwd(); a.active = -1; run_bwd("bwd_active_negative", a);
    a = bwd(); a.mode = 1; a.active = -1; a.grad = T(ACL_FLOAT, 2, 3, 3); run_bwd("bwd_drop_pad_active_negative", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 24); run_bwd("bwd_grad_1d", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 2, 2, 2, 3); run_bwd("bwd_grad_4d", a);
    a = bwd(); a.mode = 1; run_bwd("bwd_drop_pad_grad_2d", a);
    a = bwd(); a.idx = T(ACL_INT32, 8, 1); run_bwd("bwd_row_idx_2d", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 7, 3); run_bwd("bwd_dropless_rows_not_L", a);
    a = bwd(); a.active = 5; run_bwd("bwd_active_rows_not_active", a);
    a = bwd(); a.out = T(ACL_FLOAT, 12); run_bwd("bwd_out_1d", a);
    a = bwd(); a.out = T(ACL_FLOAT, 4, 3, 1); run_bwd("bwd_out_3d", a);
    a = bwd(); a.out = T(ACL_FLOAT, 4, 4); run_bwd("bwd_out_cols", a);
    a = bwd(); a.mode = 1; a.grad = T(ACL_FLOAT, 2, 4, 3); a.out = T(ACL_FLOAT, 4, 4);
    run_bwd("bwd_drop_pad_out_cols", a);
    a = bwd(); a.out = T(ACL_FLOAT, 5, 3); run_bwd("bwd_out_rows", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 0, 3); a.idx = T(ACL_INT32, 0); run_bwd("bwd_L_0", a);
    a = bwd(); a.mode = 1; a.grad = T(ACL_FLOAT, 2, -1, 3); run_bwd("bwd_drop_pad_grad_dim_negative", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 9, 3); a.idx = T(ACL_INT32, 9); run_bwd("bwd_L_not_multiple", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 8, 1, 3); a.out = T(ACL_FLOAT, 4, 1); run_bwd("bwd_dropless_grad_3d", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
