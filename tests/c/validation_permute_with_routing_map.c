/*
 * Argument validation of aclnnMoeTokenPermuteWithRoutingMap and aclnnMoeTokenPermuteWithRoutingMapGrad called
 * from C (specs ops/moe_token_permute_with_routing_map.md section 4 and
 * ops/moe_token_permute_with_routing_map_grad.md section 4).
 *
 * Every case starts from a valid call on device tensors (aclrtMalloc + aclCreateTensor), changes one
 * argument and prints "<case> <status>": the status of phase 1, or of phase 2 when phase 1 succeeds (so
 * valid cases also run). At the end everything is destroyed and the stub's live-object counters are
 * printed as "<counter> <value>"; they must all be 0.
 */
#include "aclnnop/aclnn_moe_token_permute_with_routing_map.h"
#include "aclnnop/aclnn_moe_token_permute_with_routing_map_grad.h"
#include "validation_fixture.h"

/* ---- aclnnMoeTokenPermuteWithRoutingMap: T = 4, E = 2, H = 3, numOutTokens = 8 -> topK 2, n_out 8 ------- */

typedef struct {
    const aclTensor *tokens, *map, *probs;
    int64_t num_out;
    bool pad;
    aclTensor *out, *pout, *sorted;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT8, 4, 2), T(ACL_FLOAT, 4, 2), 8, false,
             T(ACL_FLOAT, 8, 3), T(ACL_FLOAT, 8), T(ACL_INT32, 8), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenPermuteWithRoutingMapGetWorkspaceSize(
        a.tokens, a.map, a.probs, a.num_out, a.pad, a.out, a.pout, a.sorted, a.null_workspace_size ? NULL : &ws,
        a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenPermuteWithRoutingMap);
}

static void forward_cases(void) {
    Fwd a;
    static const int64_t strides_col[] = {1, 8}, zero2[] = {0, 0}, zero1[] = {0};

    run_fwd("fwd_ok", fwd());
    a = fwd(); a.probs = NULL; a.pout = NULL; run_fwd("fwd_ok_probs_null", a);
    a = fwd(); a.map = T(ACL_BOOL, 4, 2); run_fwd("fwd_ok_bool_map", a);
    a = fwd(); a.tokens = T(ACL_BF16, 4, 3); a.probs = T(ACL_BF16, 4, 2); a.out = T(ACL_BF16, 8, 3);
    a.pout = T(ACL_BF16, 8); run_fwd("fwd_ok_bf16", a);
    a = fwd(); a.tokens = T(ACL_FLOAT16, 4, 3); a.probs = T(ACL_FLOAT16, 4, 2); a.out = T(ACL_FLOAT16, 8, 3);
    a.pout = T(ACL_FLOAT16, 8); run_fwd("fwd_ok_fp16", a);
    /* pad: align E = 2, numOutTokens 7 -> n_out 6, capacity 3 */
    a = fwd(); a.pad = true; a.num_out = 7; a.out = T(ACL_FLOAT, 6, 3); a.pout = T(ACL_FLOAT, 6);
    a.sorted = T(ACL_INT32, 6); run_fwd("fwd_ok_pad", a);
    /* non-pad: align T = 4, numOutTokens 7 -> n_out 4 */
    a = fwd(); a.num_out = 7; a.out = T(ACL_FLOAT, 4, 3); a.pout = T(ACL_FLOAT, 4); a.sorted = T(ACL_INT32, 4);
    run_fwd("fwd_ok_num_out_not_multiple", a);
    /* the op_api view-copies results into non-contiguous outputs */
    a = fwd(); a.out = TS(ACL_FLOAT, strides_col, 8, 3); run_fwd("fwd_ok_out_not_contiguous", a);
    a = fwd(); a.tokens = TF(ACL_FLOAT, ACL_FORMAT_NCHW, 4, 3); run_fwd("fwd_ok_format_nchw", a);

    /* 1, 2: NULL -> 161001 */
    a = fwd(); a.tokens = NULL; run_fwd("fwd_null_tokens", a);
    a = fwd(); a.map = NULL; run_fwd("fwd_null_routing_map", a);
    a = fwd(); a.out = NULL; run_fwd("fwd_null_permute_tokens_out", a);
    a = fwd(); a.sorted = NULL; run_fwd("fwd_null_sorted_indices_out", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);
    a = fwd(); a.pout = NULL; run_fwd("fwd_null_permute_probs_out_with_probs", a);

    /* 3..8: dtypes and formats -> 161002 (8 with NULL probs: the stub's 161001) */
    a = fwd(); a.tokens = T(ACL_INT32, 4, 3); run_fwd("fwd_tokens_int32", a);
    a = fwd(); a.tokens = T(ACL_DOUBLE, 4, 3); run_fwd("fwd_tokens_double", a);
    a = fwd(); a.out = T(ACL_INT8, 8, 3); run_fwd("fwd_out_int8", a);
    a = fwd(); a.tokens = TF(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 4, 3); run_fwd("fwd_tokens_format_nz", a);
    a = fwd(); a.map = T(ACL_INT32, 4, 2); run_fwd("fwd_routing_map_int32", a);
    a = fwd(); a.map = T(ACL_UINT8, 4, 2); run_fwd("fwd_routing_map_uint8", a);
    a = fwd(); a.map = T(ACL_FLOAT16, 4, 2); run_fwd("fwd_routing_map_fp16", a);
    a = fwd(); a.map = TF(ACL_INT8, ACL_FORMAT_FRACTAL_NZ, 4, 2); run_fwd("fwd_routing_map_format_nz", a);
    a = fwd(); a.out = T(ACL_BF16, 8, 3); run_fwd("fwd_out_dtype_differs", a);
    a = fwd(); a.sorted = T(ACL_INT64, 8); run_fwd("fwd_sorted_int64", a);
    a = fwd(); a.probs = T(ACL_INT32, 4, 2); run_fwd("fwd_probs_int32", a);
    a = fwd(); a.probs = T(ACL_FLOAT16, 4, 2); run_fwd("fwd_probs_dtype_differs", a);
    a = fwd(); a.pout = T(ACL_INT32, 8); run_fwd("fwd_pout_int32", a);
    a = fwd(); a.pout = T(ACL_FLOAT16, 8); run_fwd("fwd_pout_dtype_differs", a);
    a = fwd(); a.probs = NULL; run_fwd("fwd_pout_without_probs", a);

    /* 9..13 -> 161002 */
    a = fwd(); a.map = T(ACL_INT8, 8); run_fwd("fwd_routing_map_1d", a);
    a = fwd(); a.map = T(ACL_INT8, 4, 2, 1); run_fwd("fwd_routing_map_3d", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 8); run_fwd("fwd_probs_1d", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 4, 2, 1); run_fwd("fwd_probs_3d", a);
    a = fwd(); a.num_out = -1; run_fwd("fwd_num_out_negative", a);
    a = fwd(); a.num_out = 9; run_fwd("fwd_num_out_above_T_times_E", a);
    a = fwd(); a.map = TS(ACL_INT8, zero2, 16777215, 1); a.probs = NULL; a.pout = NULL; a.num_out = 0;
    a.out = T(ACL_FLOAT, 0, 3); a.sorted = T(ACL_INT32, 0); run_fwd("fwd_T_at_limit", a);
    a = fwd(); a.map = TS(ACL_INT8, zero2, 1, 16777215); a.probs = NULL; a.pout = NULL; a.num_out = 0;
    a.out = T(ACL_FLOAT, 0, 3); a.sorted = T(ACL_INT32, 0); run_fwd("fwd_E_at_limit", a);
    a = fwd(); a.out = T(ACL_FLOAT, 7, 3); run_fwd("fwd_out_rows", a);
    a = fwd(); a.pad = true; a.num_out = 7; a.out = T(ACL_FLOAT, 7, 3); a.pout = T(ACL_FLOAT, 6);
    a.sorted = T(ACL_INT32, 6); run_fwd("fwd_out_rows_pad", a);
    a = fwd(); a.pout = T(ACL_FLOAT, 7); run_fwd("fwd_pout_length", a);

    /* 14: empty -> success, nothing to do */
    a = fwd(); a.tokens = T(ACL_FLOAT, 0, 3); a.map = T(ACL_INT8, 0, 2); a.probs = T(ACL_FLOAT, 0, 2); a.num_out = 0;
    a.out = T(ACL_FLOAT, 0, 3); a.pout = T(ACL_FLOAT, 0); a.sorted = T(ACL_INT32, 0); run_fwd("fwd_empty_T_0", a);
    a = fwd(); a.num_out = 3; a.out = T(ACL_FLOAT, 0, 3); a.pout = T(ACL_FLOAT, 0); a.sorted = T(ACL_INT32, 0);
    a.tokens = T(ACL_FLOAT, 5, 3, 1); run_fwd("fwd_empty_n_out_0_skips_later_checks", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4, 0); a.out = T(ACL_FLOAT, 8, 0); run_fwd("fwd_hidden_0", a);

    /* 15: tiling -> 561103 */
    a = fwd(); a.tokens = T(ACL_FLOAT, 5, 3); run_fwd("fwd_tokens_rows", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 1, 3); a.map = T(ACL_INT8, 1, 513); a.probs = NULL; a.pout = NULL;
    a.num_out = 513; a.out = T(ACL_FLOAT, 513, 3); a.sorted = T(ACL_INT32, 513); run_fwd("fwd_topk_513", a);
    a.pad = true; run_fwd("fwd_topk_513_pad", a);
    /* T * topK = 8388608 * 2 = 2^24 >= 16777215 */
    a = fwd(); a.tokens = TS(ACL_FLOAT, zero2, 8388608, 3); a.map = TS(ACL_INT8, zero2, 8388608, 2); a.probs = NULL;
    a.pout = NULL; a.num_out = 16777216; a.out = TS(ACL_FLOAT, zero2, 16777216, 3);
    a.sorted = TS(ACL_INT32, zero1, 16777216); run_fwd("fwd_sort_length_at_limit", a);

    /* 16: stub-only shapes -> 161002 */
    a = fwd(); a.tokens = T(ACL_FLOAT, 4); run_fwd("fwd_tokens_1d", a);
    a = fwd(); a.tokens = T(ACL_FLOAT, 4, 3, 1); run_fwd("fwd_tokens_3d", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 4, 3); run_fwd("fwd_probs_cols", a);
    a = fwd(); a.probs = T(ACL_FLOAT, 5, 2); run_fwd("fwd_probs_rows", a);
    a = fwd(); a.out = T(ACL_FLOAT, 8); run_fwd("fwd_out_1d", a);
    a = fwd(); a.out = T(ACL_FLOAT, 8, 4); run_fwd("fwd_out_cols", a);
    a = fwd(); a.out = T(ACL_FLOAT, 8, 3, 1); run_fwd("fwd_out_3d", a);
    a = fwd(); a.sorted = T(ACL_INT32, 8, 1); run_fwd("fwd_sorted_2d", a);
    a = fwd(); a.sorted = T(ACL_INT32, 9); run_fwd("fwd_sorted_length", a);
    a = fwd(); a.pout = T(ACL_FLOAT, 8, 1); run_fwd("fwd_pout_2d", a);
}

/* ---- aclnnMoeTokenPermuteWithRoutingMapGrad: P = 8, H = 3, T = 4, E = 2, non-pad -> topK 2 ----------------- */

typedef struct {
    const aclTensor *grad, *pgrad, *sorted, *map;
    int64_t experts, tokens;
    bool pad;
    aclTensor *out, *pout;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 8, 3), T(ACL_FLOAT, 8), T(ACL_INT32, 8), T(ACL_INT8, 4, 2), 2, 4, false,
             T(ACL_FLOAT, 4, 3), T(ACL_FLOAT, 4, 2), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenPermuteWithRoutingMapGradGetWorkspaceSize(
        a.grad, a.pgrad, a.sorted, a.map, a.experts, a.tokens, a.pad, a.out, a.pout,
        a.null_workspace_size ? NULL : &ws, a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenPermuteWithRoutingMapGrad);
}

static void backward_cases(void) {
    Bwd a;
    static const int64_t strides_col[] = {1, 4};

    run_bwd("bwd_ok", bwd());
    a = bwd(); a.pgrad = NULL; a.map = NULL; a.pout = NULL; run_bwd("bwd_ok_probs_grad_null", a);
    a = bwd(); a.pgrad = NULL; a.map = NULL; a.pout = T(ACL_FLOAT16, 7, 7); run_bwd("bwd_ok_pout_unchecked", a);
    a = bwd(); a.pout = NULL; run_bwd("bwd_ok_probs_grad_without_pout", a);
    a = bwd(); a.map = T(ACL_BOOL, 4, 2); run_bwd("bwd_ok_bool_map", a);
    a = bwd(); a.grad = T(ACL_BF16, 8, 3); a.pgrad = T(ACL_BF16, 8); a.out = T(ACL_BF16, 4, 3);
    a.pout = T(ACL_BF16, 4, 2); run_bwd("bwd_ok_bf16", a);
    a = bwd(); a.grad = T(ACL_FLOAT16, 8, 3); a.pgrad = T(ACL_FLOAT16, 8); a.out = T(ACL_FLOAT16, 4, 3);
    a.pout = T(ACL_FLOAT16, 4, 2); run_bwd("bwd_ok_fp16", a);
    a = bwd(); a.pad = true; run_bwd("bwd_ok_pad", a);
    a = bwd(); a.pad = true; a.map = T(ACL_INT8, 3, 5); run_bwd("bwd_ok_pad_map_shape_unchecked", a);
    /* pad mode has no topK: P / T = 600 */
    a = bwd(); a.pad = true; a.tokens = 1; a.grad = T(ACL_FLOAT, 600, 3); a.pgrad = T(ACL_FLOAT, 600);
    a.sorted = T(ACL_INT32, 600); a.out = T(ACL_FLOAT, 1, 3); a.pout = T(ACL_FLOAT, 1, 2);
    run_bwd("bwd_ok_pad_large_ratio", a);

    /* 1: attributes, checked before the NULL checks -> 161002 */
    a = bwd(); a.experts = 0; run_bwd("bwd_num_experts_0", a);
    a = bwd(); a.experts = -1; run_bwd("bwd_num_experts_negative", a);
    a = bwd(); a.tokens = 0; run_bwd("bwd_tokens_num_0", a);
    a = bwd(); a.tokens = -4; run_bwd("bwd_tokens_num_negative", a);
    a = bwd(); a.experts = 0; a.grad = NULL; run_bwd("bwd_attributes_before_nulls", a);

    /* 2, 3: NULL -> 161001 */
    a = bwd(); a.grad = NULL; run_bwd("bwd_null_grad", a);
    a = bwd(); a.sorted = NULL; run_bwd("bwd_null_sorted_indices", a);
    a = bwd(); a.out = NULL; run_bwd("bwd_null_tokens_grad_out", a);
    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);
    a = bwd(); a.map = NULL; run_bwd("bwd_null_routing_map_with_probs_grad", a);
    a.pad = true; run_bwd("bwd_null_routing_map_with_probs_grad_pad", a);

    /* 4..7: dtypes and formats -> 161002 */
    a = bwd(); a.grad = T(ACL_INT32, 8, 3); run_bwd("bwd_grad_int32", a);
    a = bwd(); a.grad = T(ACL_DOUBLE, 8, 3); run_bwd("bwd_grad_double", a);
    a = bwd(); a.grad = TF(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 8, 3); run_bwd("bwd_grad_format_nz", a);
    a = bwd(); a.pgrad = T(ACL_INT32, 8); run_bwd("bwd_probs_grad_int32", a);
    a = bwd(); a.pgrad = T(ACL_FLOAT16, 8); run_bwd("bwd_probs_grad_dtype_differs", a);
    a = bwd(); a.map = T(ACL_INT32, 4, 2); run_bwd("bwd_routing_map_int32", a);
    a = bwd(); a.map = T(ACL_UINT8, 4, 2); run_bwd("bwd_routing_map_uint8", a);
    a = bwd(); a.sorted = T(ACL_INT64, 8); run_bwd("bwd_sorted_int64", a);
    a = bwd(); a.sorted = T(ACL_FLOAT, 8); run_bwd("bwd_sorted_float", a);

    /* 8: ranks -> 161002 */
    a = bwd(); a.grad = T(ACL_FLOAT, 24); run_bwd("bwd_grad_1d", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 8, 3, 1); run_bwd("bwd_grad_3d", a);
    a = bwd(); a.map = T(ACL_INT8, 8); run_bwd("bwd_routing_map_1d", a);
    a = bwd(); a.map = T(ACL_INT8, 4, 2, 1); run_bwd("bwd_routing_map_3d", a);
    a = bwd(); a.pgrad = T(ACL_FLOAT, 8, 1); run_bwd("bwd_probs_grad_2d", a);

    /* 9: empty -> success, nothing to do */
    a = bwd(); a.grad = T(ACL_FLOAT, 0, 3); a.pgrad = T(ACL_FLOAT, 0); a.sorted = T(ACL_INT32, 0);
    run_bwd("bwd_empty_P_0", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 8, 0); a.out = T(ACL_FLOAT, 4, 0); run_bwd("bwd_hidden_0", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 0, 3); a.sorted = T(ACL_INT32, 5); a.pgrad = T(ACL_FLOAT, 2);
    a.out = T(ACL_FLOAT, 7, 3); run_bwd("bwd_empty_skips_later_checks", a);

    /* 10: tiling -> 561103 */
    a = bwd(); a.tokens = 1; a.grad = T(ACL_FLOAT, 513, 3); a.pgrad = T(ACL_FLOAT, 513); a.sorted = T(ACL_INT32, 513);
    a.map = T(ACL_INT8, 1, 2); a.out = T(ACL_FLOAT, 1, 3); a.pout = T(ACL_FLOAT, 1, 2); run_bwd("bwd_topk_513", a);

    /* 11: stub-only -> 161002 */
    a = bwd(); a.out = T(ACL_BF16, 4, 3); run_bwd("bwd_out_dtype_differs", a);
    a = bwd(); a.out = TS(ACL_FLOAT, strides_col, 4, 3); run_bwd("bwd_out_not_contiguous", a);
    a = bwd(); a.out = T(ACL_FLOAT, 5, 3); run_bwd("bwd_out_rows", a);
    a = bwd(); a.out = T(ACL_FLOAT, 4, 4); run_bwd("bwd_out_cols", a);
    a = bwd(); a.sorted = T(ACL_INT32, 8, 1); run_bwd("bwd_sorted_2d", a);
    a = bwd(); a.sorted = T(ACL_INT32, 9); run_bwd("bwd_sorted_length", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 9, 3); a.pgrad = T(ACL_FLOAT, 9); a.sorted = T(ACL_INT32, 9);
    run_bwd("bwd_P_not_multiple_of_T", a);
    a = bwd(); a.grad = T(ACL_FLOAT, 2, 3); a.pgrad = T(ACL_FLOAT, 2); a.sorted = T(ACL_INT32, 2);
    run_bwd("bwd_P_below_T", a);
    a = bwd(); a.pgrad = T(ACL_FLOAT, 7); run_bwd("bwd_probs_grad_length", a);
    a = bwd(); a.pout = T(ACL_FLOAT16, 4, 2); run_bwd("bwd_pout_dtype_differs", a);
    a = bwd(); a.pout = TS(ACL_FLOAT, strides_col, 4, 2); run_bwd("bwd_pout_not_contiguous", a);
    a = bwd(); a.pout = T(ACL_FLOAT, 4, 3); run_bwd("bwd_pout_shape", a);
    a = bwd(); a.pout = T(ACL_FLOAT, 8); run_bwd("bwd_pout_1d", a);
    a = bwd(); a.map = T(ACL_INT8, 4, 3); run_bwd("bwd_routing_map_shape", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
