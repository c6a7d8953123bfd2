/*
 * Argument validation of aclnnMoeInitRoutingV3 called from C (spec ops/moe_init_routing_v3.md, sections 4 and 5):
 * what only a C caller can pass (NULL handles and out-parameters, a destroyed int array) and the official sample's
 * declarations. Every case starts from a valid call, changes one argument and prints "<case> <status>" (phase 2
 * runs when phase 1 succeeds); the live-object counters printed last must all be 0.
 */
#include "aclnnop/aclnn_moe_init_routing_v3.h"
#include "validation_fixture.h"

/* N = 4, K = 2, H = 3, T = 8, E = 4: dropless, counts per expert, no quantisation */
typedef struct {
    const aclTensor *x, *idx, *scale, *offset;
    int64_t active, cap, e, mode, type;
    bool flag;
    int64_t quant;
    const aclIntArray *range;
    int64_t rit;
    const aclTensor *ex, *ri, *cnt, *es;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 4, 3), T(ACL_INT32, 4, 2), NULL, NULL, -1, -1, 4, 0, 1, true, -1, RANGE(0, 4), 0,
             T(ACL_FLOAT, 8, 3), T(ACL_INT32, 8), T(ACL_INT64, 4), T(ACL_FLOAT, 8), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeInitRoutingV3GetWorkspaceSize(
        a.x, a.idx, a.scale, a.offset, a.active, a.cap, a.e, a.mode, a.type, a.flag, a.quant, a.range, a.rit, a.ex,
        a.ri, a.cnt, a.es, a.null_workspace_size ? NULL : &ws, a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeInitRoutingV3);
}

/* The official sample's call: x FLOAT (3, 2), ids (3, 4), per-token scales, quantMode -1, scatter index. */
static Fwd official(aclDataType expanded_dtype, const aclTensor *offset) {
    Fwd a = {T(ACL_FLOAT, 3, 2), T(ACL_INT32, 3, 4), T(ACL_FLOAT, 3), offset, 12, 4, 256, 0, 1, true, -1,
             RANGE(0, 4), 1, T(expanded_dtype, 12, 2), T(ACL_INT32, 12), T(ACL_INT64, 4), T(ACL_FLOAT, 12),
             false, false};
    return a;
}

static void forward_cases(void) {
    Fwd a;
    run_fwd("fwd_ok", fwd());
    a = fwd(); a.quant = 1; a.ex = T(ACL_INT8, 8, 3); a.scale = T(ACL_FLOAT, 1, 3); run_fwd("fwd_ok_dynamic", a);
    a = fwd(); a.quant = 0; a.ex = T(ACL_INT8, 8, 3); a.scale = T(ACL_FLOAT, 1); a.offset = T(ACL_FLOAT, 1);
    run_fwd("fwd_ok_static", a);
    a = fwd(); a.mode = 1; a.cap = 2; a.ex = T(ACL_FLOAT, 4, 2, 3); run_fwd("fwd_ok_drop_pad", a);
    a = fwd(); a.range = NULL; run_fwd("fwd_ok_range_null_array", a);

    a = fwd(); a.x = NULL; run_fwd("fwd_null_x", a);
    a = fwd(); a.idx = NULL; run_fwd("fwd_null_expert_idx", a);
    a = fwd(); a.ex = NULL; run_fwd("fwd_null_expanded_x", a);
    a = fwd(); a.ri = NULL; run_fwd("fwd_null_row_idx", a);
    a = fwd(); a.cnt = NULL; a.flag = false; run_fwd("fwd_null_counts", a);
    a = fwd(); a.es = NULL; run_fwd("fwd_null_expanded_scale", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);
    a = fwd(); a.quant = -2; run_fwd("fwd_quant_mode_minus_2", a);

    /* The official declaration: INT8 expandedX with quantMode -1 (a device writes FLOAT rows past its end). */
    run_fwd("fwd_official_int8_expanded_x", official(ACL_INT8, T(ACL_FLOAT, 1)));
    /* Its offset of shape (3,) is never read with quantMode -1: accepted. */
    run_fwd("fwd_official_offset_shape_3", official(ACL_FLOAT, T(ACL_FLOAT, 3)));

    /* A destroyed int array is refused, not read. */
    const int64_t values[2] = {0, 4};
    aclIntArray *gone = aclCreateIntArray(values, 2);
    if (!gone || aclDestroyIntArray(gone) != ACL_SUCCESS) fail("aclCreateIntArray");
    a = fwd(); a.range = gone; run_fwd("fwd_range_destroyed", a);
}

static void no_backward_cases(void) {}

int main(void) { return run_validation(forward_cases, no_backward_cases); }
