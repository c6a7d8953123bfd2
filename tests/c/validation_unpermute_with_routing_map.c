/*
 * Argument validation of aclnnMoeTokenUnpermuteWithRoutingMap and aclnnMoeTokenUnpermuteWithRoutingMapGrad called
 * from C (specs ops/moe_token_unpermute_with_routing_map.md section 4 and
 * ops/moe_token_unpermute_with_routing_map_grad.md section 4): the misuse only C can commit (NULL out-parameters
 * and tensors, arguments in the wrong order of the checks) and valid calls of every mode, run through phase 2.
 * Each case prints "<case> <status>"; at the end everything is destroyed and the stub's live-object counters are
 * printed as "<counter> <value>"; they must all be 0.
 */
#include "aclnnop/aclnn_moe_token_unpermute_with_routing_map.h"
#include "aclnnop/aclnn_moe_token_unpermute_with_routing_map_grad.h"
#include "validation_fixture.h"

/* ---- forward: P = L = 4 rows, H = 3, T = 2 tokens, E = 2 experts (topK 2; capacity 2 in padded mode) ---- */

typedef struct {
    const aclTensor *x, *si, *map, *probs;
    bool pad;
    const aclIntArray *restore;
    aclTensor *out, *oi, *tid, *pp;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 4), T(ACL_INT8, 2, 2), T(ACL_FLOAT, 2, 2), false, RANGE(2, 3),
             T(ACL_FLOAT, 2, 3), T(ACL_INT32, 4), T(ACL_INT32, 4), T(ACL_FLOAT, 4), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize(
        a.x, a.si, a.map, a.probs, a.pad, a.restore, a.out, a.oi, a.tid, a.pp, a.null_workspace_size ? NULL : &ws,
        a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenUnpermuteWithRoutingMap);
}

static void forward_cases(void) {
    Fwd a;
    static const int64_t col[] = {1, 2};

    run_fwd("fwd_ok", fwd());
    a = fwd(); a.probs = NULL; a.map = NULL; a.pp = NULL; run_fwd("fwd_ok_no_probs", a);
    a = fwd(); a.oi = NULL; a.tid = NULL; run_fwd("fwd_ok_index_outputs_null", a);
    a = fwd(); a.pad = true; run_fwd("fwd_ok_pad", a);
    a = fwd(); a.pad = true; a.probs = NULL; a.pp = NULL; run_fwd("fwd_ok_pad_no_probs", a);
    a = fwd(); a.out = TS(ACL_FLOAT, col, 2, 3); run_fwd("fwd_ok_out_not_contiguous", a);
    a = fwd(); a.x = T(ACL_BF16, 4, 3); a.probs = T(ACL_BF16, 2, 2); a.out = T(ACL_BF16, 2, 3);
    a.pp = T(ACL_BF16, 4); run_fwd("fwd_ok_bf16", a);
    a = fwd(); a.x = T(ACL_FLOAT, 0, 3); run_fwd("fwd_empty_writes_nothing", a);

    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);
    a = fwd(); a.x = NULL; run_fwd("fwd_null_permuted_tokens", a);
    a = fwd(); a.si = NULL; run_fwd("fwd_null_sorted_indices", a);
    a = fwd(); a.probs = NULL; a.pp = NULL; a.restore = NULL; run_fwd("fwd_null_probs_and_restore_shape", a);
    a = fwd(); a.out = NULL; run_fwd("fwd_null_unpermuted_tokens", a);
    /* the dtype rules come before the NULL output, the NULL output before the ranks */
    a = fwd(); a.out = NULL; a.x = T(ACL_INT32, 4, 3); run_fwd("fwd_dtype_before_null_output", a);
    a = fwd(); a.out = NULL; a.x = T(ACL_FLOAT, 4, 3, 1); run_fwd("fwd_null_output_before_ranks", a);
    a = fwd(); a.map = NULL; run_fwd("fwd_null_routing_map_with_probs", a);
    a = fwd(); a.pad = true; a.oi = NULL; run_fwd("fwd_pad_null_out_index", a);
    a = fwd(); a.pad = true; a.pp = NULL; run_fwd("fwd_pad_null_permute_probs", a);
}

/* ---- backward: T = 2 tokens, H = 3, P = 4 rows, E = 2 experts ---- */

typedef struct {
    const aclTensor *g, *oi, *tid, *map, *x, *probs;
    bool pad;
    const aclIntArray *restore;
    const aclTensor *out, *pg;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 2, 3), T(ACL_INT32, 4), T(ACL_INT32, 4), T(ACL_INT8, 2, 2), T(ACL_FLOAT, 4, 3),
             T(ACL_FLOAT, 2, 2), false, NULL, T(ACL_FLOAT, 4, 3), T(ACL_FLOAT, 2, 2), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeTokenUnpermuteWithRoutingMapGradGetWorkspaceSize(
        a.g, a.oi, a.tid, a.map, a.x, a.probs, a.pad, a.restore, a.out, a.pg, a.null_workspace_size ? NULL : &ws,
        a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeTokenUnpermuteWithRoutingMapGrad);
}

static void backward_cases(void) {
    Bwd a;

    run_bwd("bwd_ok", bwd());
    a = bwd(); a.probs = NULL; a.map = NULL; a.x = NULL; a.pg = NULL; run_bwd("bwd_ok_no_probs", a);
    a = bwd(); a.pg = NULL; run_bwd("bwd_ok_probs_grad_null", a);
    a = bwd(); a.pad = true; run_bwd("bwd_ok_pad", a);
    a = bwd(); a.restore = RANGE(7); run_bwd("bwd_ok_restore_shape_never_read", a);
    a = bwd(); a.x = T(ACL_FLOAT16, 4, 3); a.g = T(ACL_FLOAT16, 2, 3); a.probs = T(ACL_FLOAT16, 2, 2);
    a.out = T(ACL_FLOAT16, 4, 3); a.pg = T(ACL_FLOAT16, 2, 2); run_bwd("bwd_ok_fp16", a);

    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);
    a = bwd(); a.g = NULL; run_bwd("bwd_null_grad", a);
    a = bwd(); a.oi = NULL; run_bwd("bwd_null_out_index", a);
    a = bwd(); a.tid = NULL; run_bwd("bwd_null_permute_token_id", a);
    a = bwd(); a.out = NULL; run_bwd("bwd_null_permuted_tokens_grad_out", a);
    a = bwd(); a.map = NULL; run_bwd("bwd_null_routing_map_with_probs", a);
    a = bwd(); a.x = NULL; run_bwd("bwd_null_permuted_tokens_with_probs", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
