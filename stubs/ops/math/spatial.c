/*
 * ops-math math/affine_grid: aclnnAffineGrid (torch.nn.functional.affine_grid). theta (N, 2, 3) with size
 * (N, C, H, W) gives out (N, H, W, 2); theta (N, 3, 4) with size (N, C, D, H, W) gives out (N, D, H, W, 3):
 * out[n, ..., :] = theta[n] @ (x_w, y_h[, z_d], 1), the base coordinates spanning [-1, 1] (align_corners: the
 * corner pixels' centres, -1 + 2i / (s - 1), 0 for a size of 1; otherwise the pixels' edges, (2i + 1) / s - 1).
 * Computed in double and rounded once to FLOAT, then to out's dtype.
 */
#include "aclstub/op_index.h"
#include "aclnnop/aclnn_affine_grid.h"

#define INVALID ACLNN_ERR_PARAM_INVALID

enum { AG_THETA, AG_SIZE, AG_ALIGN, AG_OUT };

static aclnnStatus affine_grid_check(aclStubOpCall *call) {
    const aclStubTensorDesc *theta = call->v[AG_THETA].tensor, *out = call->v[AG_OUT].tensor;
    const int64_t *size = call->v[AG_SIZE].ints;
    uint64_t ns = call->v[AG_SIZE].size;
    char a[256], b[256];
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "theta", theta, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "theta", theta));
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(theta) == 0, call, INVALID, "Expected theta to be not null tensor.");
    ACLSTUB_RETURN_ERROR_IF(ns != 4 && ns != 5, call, INVALID, "AffineGridGenerator needs 4d or 5d size(input).");
    int64_t rows = ns == 4 ? 2 : 3;
    ACLSTUB_RETURN_ERROR_IF(theta->ndim != 3 || theta->dims[1] != rows || theta->dims[2] != rows + 1 ||
                                theta->dims[0] != size[0],
                            call, INVALID, "Expected a batch of %s affine matrices of shape Nx%lldx%lld for size %s. "
                            "Got %s.", ns == 4 ? "2D" : "3D", (long long)rows, (long long)rows + 1,
                            aclStubShapeText(size, (uint32_t)ns, a, sizeof a),
                            aclStubShapeText(theta->dims, theta->ndim, b, sizeof b));
    int64_t want[5];
    uint32_t nw = 0;
    want[nw++] = size[0];
    for (uint64_t i = 2; i < ns; i++) want[nw++] = size[i];
    want[nw++] = rows;
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, want, nw));
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const double *theta;
    float *out;
    int64_t d, h, w, k; /* k = 2 or 3 coordinates */
    bool align;
} GridCtx;

static double base_coord(int64_t i, int64_t s, bool align) {
    if (align) return s <= 1 ? 0.0 : -1.0 + 2.0 * (double)i / (double)(s - 1);
    return (2.0 * (double)i + 1.0) / (double)s - 1.0;
}

static void affine_grid_rows(void *arg, int64_t begin, int64_t end) {
    const GridCtx *c = arg;
    int64_t k = c->k;
    for (int64_t row = begin; row < end; row++) { /* row = (n, d, h) */
        int64_t hh = row % c->h, dd = (row / c->h) % c->d, n = row / (c->h * c->d);
        const double *th = c->theta + n * k * (k + 1);
        double y = base_coord(hh, c->h, c->align), z = base_coord(dd, c->d, c->align);
        float *o = c->out + row * c->w * k;
        for (int64_t ww = 0; ww < c->w; ww++) {
            double x = base_coord(ww, c->w, c->align);
            double p[4] = {x, y, k == 3 ? z : 1.0, 1.0};
            for (int64_t r = 0; r < k; r++) {
                double s = 0.0;
                for (int64_t q = 0; q <= k; q++) s += th[r * (k + 1) + q] * p[q];
                o[ww * k + r] = (float)s;
            }
        }
    }
}

static aclnnStatus affine_grid_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *out = call->v[AG_OUT].tensor;
    aclStubTensorDesc th, buf;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[AG_THETA].tensor, ACL_DOUBLE, &th));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_FLOAT, false, &buf));
    uint32_t r = out->ndim;
    GridCtx c = {(const double *)aclStubViewBase(&th), (float *)aclStubViewBase(&buf), r == 5 ? out->dims[1] : 1,
                 out->dims[r - 3], out->dims[r - 2], out->dims[r - 1], call->v[AG_ALIGN].b};
    aclStubParallelFor(out->dims[0] * c.d * c.h, 1 + 4096 / (c.w * c.k), affine_grid_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kAffineGridParams[] = {
    [AG_THETA] = {"theta", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [AG_SIZE] = {"size", ACLSTUB_INT_ARRAY, 0, NULL, 0, 0, 0},
    [AG_ALIGN] = {"alignCorners", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [AG_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kAffineGrid = {"aclnnAffineGrid", kAffineGridParams, ACLSTUB_LEN(kAffineGridParams), NULL,
                                         affine_grid_check, affine_grid_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnAffineGrid, kAffineGrid, (const aclTensor *, theta), (const aclIntArray *, size),
                  (bool, alignCorners), (aclTensor *, out))
