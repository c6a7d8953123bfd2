/*
 * aclnnGridSampler2D of ops-cv image/grid_sample: out[n, c, h, w] = input[n, c] sampled at the point grid[n, h, w]
 * = (x, y) in [-1, 1] (x across W, y across H), as torch.nn.functional.grid_sample defines it:
 *   unnormalise: alignCorners ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2
 *   paddingMode 0 zeros (taps outside read 0), 1 border (clamped to the edge), 2 reflection (mirrored at the
 *   corner pixels' centres with alignCorners, at the image's edges without, then clamped);
 *   interpolationMode 0 bilinear (4 taps), 1 nearest (round half to even), 2 bicubic (16 taps, A = -0.75, the
 *   padding rule applied per tap).
 * FLOAT16 and BF16 compute in float32 and are rounded once, DOUBLE in double. Each output point is computed
 * independently (its taps found once, then every channel), split over the stub's threads.
 */
#include <math.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_grid_sampler2d.h"

#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID

enum { GS_INPUT, GS_GRID, GS_INTERP, GS_PADDING, GS_ALIGN, GS_OUT };
enum { BILINEAR, NEAREST, BICUBIC };
enum { ZEROS, BORDER, REFLECTION };

typedef struct {
    const void *in, *grid;
    void *out;
    int64_t n, c, h, w, oh, ow;
    int interp, padding;
    bool align;
} GridCtx;

#define GRID_FNS(TYPE, FLOOR, FABS, FMOD, RINT)                                                             \
    static TYPE unnormalize_##TYPE(TYPE g, int64_t size, bool align) {                                        \
        return align ? (g + 1) / 2 * (TYPE)(size - 1) : ((g + 1) * (TYPE)size - 1) / 2;                       \
    }                                                                                                        \
    static TYPE reflect_##TYPE(TYPE x, int64_t twice_low, int64_t twice_high) {                              \
        if (twice_low == twice_high) return 0;                                                               \
        TYPE lo = (TYPE)twice_low / 2, span = (TYPE)(twice_high - twice_low) / 2;                            \
        x = FABS(x - lo);                                                                                    \
        TYPE extra = FMOD(x, span);                                                                          \
        TYPE flips = FLOOR(x / span);                                                                        \
        return FMOD(flips, 2) == 0 ? extra + lo : span - extra + lo;                                         \
    }                                                                                                        \
    static TYPE clip_##TYPE(TYPE x, int64_t size) {                                                          \
        TYPE hi = (TYPE)(size - 1);                                                                          \
        return x < 0 ? 0 : x > hi ? hi : x; /* NaN stays NaN: no tap is in bounds */                         \
    }                                                                                                        \
    static TYPE pad_##TYPE(TYPE x, int64_t size, int padding, bool align) {                                  \
        if (padding == BORDER) return clip_##TYPE(x, size);                                                  \
        if (padding == REFLECTION) {                                                                         \
            x = align ? reflect_##TYPE(x, 0, 2 * (size - 1)) : reflect_##TYPE(x, -1, 2 * size - 1);          \
            return clip_##TYPE(x, size);                                                                     \
        }                                                                                                    \
        return x;                                                                                            \
    }                                                                                                        \
    static TYPE cubic1_##TYPE(TYPE x) { return ((TYPE)1.25 * x - (TYPE)2.25) * x * x + 1; }                  \
    static TYPE cubic2_##TYPE(TYPE x) {                                                                      \
        return (((TYPE)-0.75 * x + (TYPE)3.75) * x - 6) * x + 3;                                              \
    }                                                                                                        \
    static void grid_points_##TYPE(void *arg, int64_t begin, int64_t end) {                                  \
        const GridCtx *c = arg;                                                                              \
        const TYPE *in = c->in, *grid = c->grid;                                                             \
        TYPE *out = c->out;                                                                                  \
        int64_t plane = c->h * c->w, oplane = c->oh * c->ow;                                                 \
        for (int64_t q = begin; q < end; q++) {                                                              \
            int64_t n = q / oplane, p = q % oplane;                                                          \
            const TYPE *src = in + n * c->c * plane;                                                         \
            TYPE *dst = out + n * c->c * oplane + p;                                                         \
            TYPE gx = grid[2 * q], gy = grid[2 * q + 1];                                                     \
            int64_t idx[16];                                                                                 \
            TYPE wt[16];                                                                                     \
            int taps = 0;                                                                                    \
            if (c->interp == BICUBIC) {                                                                      \
                TYPE x = unnormalize_##TYPE(gx, c->w, c->align), y = unnormalize_##TYPE(gy, c->h, c->align); \
                TYPE x0 = FLOOR(x), y0 = FLOOR(y), tx = x - x0, ty = y - y0;                                 \
                TYPE cx[4] = {cubic2_##TYPE(tx + 1), cubic1_##TYPE(tx), cubic1_##TYPE(1 - tx),               \
                              cubic2_##TYPE(2 - tx)};                                                        \
                TYPE cy[4] = {cubic2_##TYPE(ty + 1), cubic1_##TYPE(ty), cubic1_##TYPE(1 - ty),               \
                              cubic2_##TYPE(2 - ty)};                                                        \
                for (int i = 0; i < 4; i++)                                                                  \
                    for (int j = 0; j < 4; j++) {                                                            \
                        TYPE xx = pad_##TYPE(x0 - 1 + (TYPE)j, c->w, c->padding, c->align);                  \
                        TYPE yy = pad_##TYPE(y0 - 1 + (TYPE)i, c->h, c->padding, c->align);                  \
                        bool ok = xx >= 0 && xx < (TYPE)c->w && yy >= 0 && yy < (TYPE)c->h;                  \
                        idx[taps] = ok ? (int64_t)yy * c->w + (int64_t)xx : -1;                              \
                        wt[taps++] = cx[j] * cy[i];                                                          \
                    }                                                                                        \
            } else {                                                                                         \
                TYPE x = pad_##TYPE(unnormalize_##TYPE(gx, c->w, c->align), c->w, c->padding, c->align);     \
                TYPE y = pad_##TYPE(unnormalize_##TYPE(gy, c->h, c->align), c->h, c->padding, c->align);     \
                if (c->interp == NEAREST) {                                                                  \
                    TYPE xr = RINT(x), yr = RINT(y);                                                         \
                    bool ok = xr >= 0 && xr < (TYPE)c->w && yr >= 0 && yr < (TYPE)c->h;                      \
                    idx[0] = ok ? (int64_t)yr * c->w + (int64_t)xr : -1;                                     \
                    wt[0] = 1;                                                                               \
                    taps = 1;                                                                                \
                } else {                                                                                     \
                    TYPE x0 = FLOOR(x), y0 = FLOOR(y), x1 = x0 + 1, y1 = y0 + 1;                             \
                    TYPE cx[2] = {x1 - x, x - x0}, cy[2] = {y1 - y, y - y0};                                  \
                    for (int i = 0; i < 2; i++)                                                              \
                        for (int j = 0; j < 2; j++) {                                                        \
                            TYPE xx = j ? x1 : x0, yy = i ? y1 : y0;                                         \
                            bool ok = xx >= 0 && xx < (TYPE)c->w && yy >= 0 && yy < (TYPE)c->h;              \
                            idx[taps] = ok ? (int64_t)yy * c->w + (int64_t)xx : -1;                          \
                            wt[taps++] = cx[j] * cy[i];                                                      \
                        }                                                                                    \
                }                                                                                            \
            }                                                                                                \
            for (int64_t ch = 0; ch < c->c; ch++) {                                                          \
                const TYPE *s = src + ch * plane;                                                            \
                TYPE acc = 0;                                                                                \
                if (c->interp == NEAREST)                                                                    \
                    acc = idx[0] >= 0 ? s[idx[0]] : 0;                                                       \
                else                                                                                         \
                    for (int t = 0; t < taps; t++)                                                           \
                        if (idx[t] >= 0) acc += s[idx[t]] * wt[t];                                           \
                dst[ch * oplane] = acc;                                                                      \
            }                                                                                                \
        }                                                                                                    \
    }
GRID_FNS(float, floorf, fabsf, fmodf, nearbyintf)
GRID_FNS(double, floor, fabs, fmod, nearbyint)

static aclnnStatus grid_check(aclStubOpCall *call) {
    const aclStubTensorDesc *in = T(GS_INPUT), *grid = T(GS_GRID), *out = T(GS_OUT);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "grid", grid, "input", in));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "input", in));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "input", in, ACLSTUB_DT_REALS));
    int64_t interp = call->v[GS_INTERP].i, padding = call->v[GS_PADDING].i;
    if (interp < 0 || interp > 2)
        return aclStubOpFail(call, INVALID, "interpolationMode %lld should be in {0 (bilinear), 1 (nearest), "
                             "2 (bicubic)}", (long long)interp);
    if (padding < 0 || padding > 2)
        return aclStubOpFail(call, INVALID, "paddingMode %lld should be in {0 (zeros), 1 (border), 2 (reflection)}",
                             (long long)padding);
    static const char *const names[] = {"input", "grid", "out"};
    const aclStubTensorDesc *ts[] = {in, grid, out};
    for (int i = 0; i < 3; i++)
        if (ts[i]->ndim != 4)
            return aclStubOpFail(call, INVALID, "argument '%s' must have 4 dimensions, got %u", names[i], ts[i]->ndim);
    if (in->dims[0] != grid->dims[0] || in->dims[0] != out->dims[0])
        return aclStubOpFail(call, INVALID, "input, grid and out must have the same batch size");
    if (in->dims[1] != out->dims[1])
        return aclStubOpFail(call, INVALID, "input and out must have the same channel size");
    if (grid->dims[1] != out->dims[2] || grid->dims[2] != out->dims[3])
        return aclStubOpFail(call, INVALID, "grid and out must have the same H and W sizes");
    if (in->dims[2] == 0 || in->dims[3] == 0)
        return aclStubOpFail(call, INVALID, "input must have non-empty spatial dimensions");
    if (grid->dims[3] != 2)
        return aclStubOpFail(call, INVALID, "grid must have size 2 in its last dimension, got %lld",
                             (long long)grid->dims[3]);
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus grid_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *out = T(GS_OUT);
    bool wide = out->dtype == ACL_DOUBLE;
    aclDataType cdt = wide ? ACL_DOUBLE : ACL_FLOAT;
    aclStubTensorDesc in, grid, buf;
    ACLSTUB_TRY(aclStubInputApart(call, T(GS_INPUT), cdt, out, &in));
    ACLSTUB_TRY(aclStubInputApart(call, T(GS_GRID), cdt, out, &grid));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, cdt, false, &buf));
    GridCtx c = {aclStubViewBase(&in), aclStubViewBase(&grid), aclStubViewBase(&buf), in.dims[0], in.dims[1],
                 in.dims[2], in.dims[3], out->dims[2], out->dims[3], (int)call->v[GS_INTERP].i,
                 (int)call->v[GS_PADDING].i, call->v[GS_ALIGN].b};
    int64_t taps = c.interp == BICUBIC ? 16 : c.interp == BILINEAR ? 4 : 1;
    aclStubParallelFor(c.n * c.oh * c.ow, 8192 / (c.c * taps + 1) + 1, wide ? grid_points_double : grid_points_float,
                       &c);
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kGridParams[] = {
    {"input", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},          {"grid", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"interpolationMode", ACLSTUB_INT, 0, NULL, 0, 0, 0}, {"paddingMode", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    {"alignCorners", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},     {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kGridSampler2D = {"aclnnGridSampler2D", kGridParams, ACLSTUB_LEN(kGridParams), NULL,
                                            grid_check, grid_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnGridSampler2D, kGridSampler2D, (const aclTensor *, input), (const aclTensor *, grid),
                  (int64_t, interpolationMode), (int64_t, paddingMode), (bool, alignCorners), (aclTensor *, out))
