/*
 * Argument validation of aclnnMoeFinalizeRoutingV2 and aclnnMoeFinalizeRoutingV2Grad called from C (specs
 * ops/moe_finalize_routing_v2.md and ops/moe_finalize_routing_v2_grad.md, section 4), with the misuse only C
 * can express (NULL out-parameters), and index tensors holding every kind of bad row index (the kernels must
 * skip them without touching memory they do not own; the sanitizer build checks that).
 *
 * Every case starts from a valid call on device tensors, changes one argument and prints "<case> <status>":
 * the status of phase 1, or of phase 2 when phase 1 succeeds. The live-object counters come last.
 */
#include <string.h>

#include "aclnnop/aclnn_moe_finalize_routing_v2.h"
#include "aclnnop/aclnn_moe_finalize_routing_v2_grad.h"
#include "validation_fixture.h"

/* An INT32 tensor holding `values` (n of them): 1-D when rows is 0, else (rows, n / rows). */
static aclTensor *int_tensor(int64_t rows, int64_t n, const int32_t *values) {
    void *data = device_block((size_t)n * sizeof(int32_t));
    if (aclrtMemcpy(data, (size_t)n * 4, values, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
        fail("aclrtMemcpy");
    bool flat = rows == 0;
    int64_t cols = flat ? n : n / rows;
    int64_t dims[2] = {flat ? n : rows, cols}, strides[2] = {flat ? 1 : cols, 1};
    aclTensor *t = aclCreateTensor(dims, flat ? 1 : 2, ACL_INT32, strides, 0, ACL_FORMAT_ND, dims, flat ? 1 : 2, data);
    if (!t || num_tensors == MAX_OBJECTS) fail("aclCreateTensor");
    tensors[num_tensors++] = t;
    return t;
}

static const int32_t WILD_ROWS[6] = {INT32_MIN, -1, 6, INT32_MAX, 5, 0};
static const int32_t WILD_EXPERTS[6] = {INT32_MIN, 2, -1, INT32_MAX, 1, 0};

/* ---- aclnnMoeFinalizeRoutingV2: N = 3, K = 2, H = 4, E = 2, dropPadMode 0 -------------------------------- */

typedef struct {
    const aclTensor *ex, *idx, *x1, *x2, *bias, *scales, *eidx;
    int64_t mode;
    const aclTensor *out;
    bool null_workspace_size, null_executor;
} Fwd;

static Fwd fwd(void) {
    Fwd a = {T(ACL_FLOAT, 6, 4), T(ACL_INT32, 6), T(ACL_FLOAT, 3, 4), T(ACL_FLOAT, 3, 4), T(ACL_FLOAT, 2, 4),
             T(ACL_FLOAT, 3, 2), T(ACL_INT32, 3, 2), 0, T(ACL_FLOAT, 3, 4), false, false};
    return a;
}

static void run_fwd(const char *name, Fwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeFinalizeRoutingV2GetWorkspaceSize(a.ex, a.idx, a.x1, a.x2, a.bias, a.scales, a.eidx,
                                                               a.mode, a.out, a.null_workspace_size ? NULL : &ws,
                                                               a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeFinalizeRoutingV2);
}

static void forward_cases(void) {
    Fwd a;
    static const int64_t strides_col[] = {1, 6};

    run_fwd("fwd_ok", fwd());
    for (int64_t mode = 0; mode < 4; mode++) {
        char name[64];
        snprintf(name, sizeof name, "fwd_ok_wild_indices_mode_%lld", (long long)mode);
        a = fwd();
        a.mode = mode;
        if (mode % 2) a.ex = T(ACL_FLOAT, 2, 3, 4);
        a.idx = int_tensor(0, 6, WILD_ROWS);
        a.eidx = int_tensor(3, 6, WILD_EXPERTS);
        run_fwd(name, a);
    }
    a = fwd(); a.ex = T(ACL_BF16, 6, 4); a.x1 = T(ACL_BF16, 3, 4); a.x2 = T(ACL_BF16, 3, 4); a.bias = T(ACL_BF16, 2, 4);
    a.out = T(ACL_BF16, 3, 4); run_fwd("fwd_ok_bf16_float_scales", a);
    a = fwd(); a.ex = TS(ACL_FLOAT, strides_col, 6, 4); run_fwd("fwd_ok_strided_expanded_x", a);

    a = fwd(); a.ex = NULL; run_fwd("fwd_null_expanded_x", a);
    a = fwd(); a.out = NULL; run_fwd("fwd_null_out", a);
    a = fwd(); a.null_workspace_size = true; run_fwd("fwd_null_workspace_size", a);
    a = fwd(); a.null_executor = true; run_fwd("fwd_null_executor", a);

    a = fwd(); a.scales = T(ACL_FLOAT16, 3, 2); run_fwd("fwd_scales_dtype", a);
    a = fwd(); a.out = TS(ACL_FLOAT, strides_col, 3, 4); run_fwd("fwd_out_not_contiguous", a);

    a = fwd(); a.mode = 4; run_fwd("fwd_drop_pad_mode_4", a);
    a = fwd(); a.x1 = NULL; run_fwd("fwd_x2_without_x1", a);
    a = fwd(); a.eidx = NULL; run_fwd("fwd_bias_without_expert_idx", a);
    a = fwd(); a.scales = T(ACL_FLOAT, 2, 2); a.bias = NULL; a.eidx = NULL; run_fwd("fwd_scales_fewer_rows", a);
    a = fwd(); a.out = T(ACL_FLOAT, 3, 5); run_fwd("fwd_out_cols", a);
}

/* ---- aclnnMoeFinalizeRoutingV2Grad: N = 3, K = 2, L = 6, H = 4, E = 2 ---------------------------------- */

typedef struct {
    const aclTensor *gy, *idx, *ex, *scales, *eidx, *bias;
    int64_t mode, active, experts, capacity;
    const aclTensor *gex, *gsc;
    bool null_workspace_size, null_executor;
} Bwd;

static Bwd bwd(void) {
    Bwd a = {T(ACL_FLOAT, 3, 4), T(ACL_INT32, 6), T(ACL_FLOAT, 6, 4), T(ACL_FLOAT, 3, 2), T(ACL_INT32, 3, 2),
             T(ACL_FLOAT, 2, 4), 0, 0, 0, 0, T(ACL_FLOAT, 6, 4), T(ACL_FLOAT, 3, 2), false, false};
    return a;
}

static void run_bwd(const char *name, Bwd a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus s = aclnnMoeFinalizeRoutingV2GradGetWorkspaceSize(
        a.gy, a.idx, a.ex, a.scales, a.eidx, a.bias, a.mode, a.active, a.experts, a.capacity, a.gex, a.gsc,
        a.null_workspace_size ? NULL : &ws, a.null_executor ? NULL : &ex);
    report(name, s, ws, ex, aclnnMoeFinalizeRoutingV2Grad);
}

static void backward_cases(void) {
    Bwd a;

    run_bwd("bwd_ok", bwd());
    a = bwd(); a.idx = int_tensor(0, 6, WILD_ROWS); a.eidx = int_tensor(3, 6, WILD_EXPERTS);
    run_bwd("bwd_ok_wild_indices", a);
    a = bwd(); a.mode = 1; a.experts = 2; a.capacity = 3; a.ex = T(ACL_FLOAT, 2, 3, 4); a.gex = T(ACL_FLOAT, 2, 3, 4);
    a.idx = int_tensor(0, 6, WILD_ROWS); a.eidx = int_tensor(3, 6, WILD_EXPERTS);
    run_bwd("bwd_ok_drop_pad_wild_indices", a);
    a = bwd(); a.active = 4; a.ex = T(ACL_FLOAT, 4, 4); a.gex = T(ACL_FLOAT, 4, 4); a.idx = int_tensor(0, 6, WILD_ROWS);
    run_bwd("bwd_ok_active_wild_indices", a);
    a = bwd(); a.gy = T(ACL_FLOAT, 6, 4); a.scales = NULL; a.idx = int_tensor(0, 6, WILD_ROWS);
    run_bwd("bwd_ok_without_scales_wild_indices", a);

    a = bwd(); a.gy = NULL; run_bwd("bwd_null_grad_y", a);
    a = bwd(); a.gsc = NULL; run_bwd("bwd_null_grad_scales", a);
    a = bwd(); a.null_workspace_size = true; run_bwd("bwd_null_workspace_size", a);
    a = bwd(); a.null_executor = true; run_bwd("bwd_null_executor", a);

    a = bwd(); a.scales = T(ACL_FLOAT16, 3, 2); run_bwd("bwd_scales_dtype", a);
    a = bwd(); a.gsc = T(ACL_BF16, 3, 2); run_bwd("bwd_grad_scales_dtype", a);

    a = bwd(); a.ex = NULL; run_bwd("bwd_scales_without_expanded_x", a);
    a = bwd(); a.mode = 2; run_bwd("bwd_drop_pad_mode_2", a);
    a = bwd(); a.mode = 1; a.capacity = 3; a.ex = T(ACL_FLOAT, 2, 3, 4); a.gex = T(ACL_FLOAT, 2, 3, 4);
    run_bwd("bwd_drop_pad_expert_num_0", a);
    a = bwd(); a.gex = T(ACL_FLOAT, 6, 4, 1); run_bwd("bwd_grad_expanded_x_3d_in_mode_0", a);
    a = bwd(); a.gsc = T(ACL_FLOAT, 6); run_bwd("bwd_grad_scales_1d", a);
}

int main(void) { return run_validation(forward_cases, backward_cases); }
