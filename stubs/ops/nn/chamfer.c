/*
 * aclnnChamferDistanceBackward of ops-nn loss/chamfer_distance_grad: the gradients of the chamfer distance of two
 * batches of 2-D point sets xyz1, xyz2 [B, N, 2] (the kernel takes one N for both sets, as the docs' shapes say)
 * given the forward's nearest-neighbour indices idx1, idx2 [B, N] (INT32, per batch, in [0, N)) and the incoming
 * gradients gradDist1, gradDist2 [B, N]. With d = xyz1[b, i] - xyz2[b, idx1[b, i]] and e = xyz2[b, j] -
 * xyz1[b, idx2[b, j]]:
 *   gradXyz1[b, i] += 2 gradDist1[b, i] d      gradXyz2[b, idx1[b, i]] -= 2 gradDist1[b, i] d
 *   gradXyz2[b, j] += 2 gradDist2[b, j] e      gradXyz1[b, idx2[b, j]] -= 2 gradDist2[b, j] e
 * in float32 (the op_api casts FLOAT16 to FLOAT and the results back to xyz1's dtype), accumulated in increasing
 * i, then j, one batch per task of the stub's threads (the device's default is non-deterministic; the stub's
 * order does not depend on the thread count). The op_api checks no shapes: tensors of other shapes, or an index
 * outside [0, N), fail the launch (ACLNN_ERR_PARAM_INVALID; an index-out-of-range finding in check mode) instead of
 * reading outside them, which is what a device would do.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "aclnnop/aclnn_chamfer_distance_backward.h"
#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"

#define DT ACLSTUB_DT
#define PTS (DT(ACL_FLOAT) | DT(ACL_FLOAT16))
#define T(i) (call->v[i].tensor)

enum { CD_XYZ1, CD_XYZ2, CD_IDX1, CD_IDX2, CD_G1, CD_G2, CD_OUT1, CD_OUT2 };
static const aclStubParam kChamferParams[] = {
    [CD_XYZ1] = {"xyz1", ACLSTUB_INPUT, PTS},
    [CD_XYZ2] = {"xyz2", ACLSTUB_INPUT, PTS},
    [CD_IDX1] = {"idx1", ACLSTUB_INPUT, DT(ACL_INT32)},
    [CD_IDX2] = {"idx2", ACLSTUB_INPUT, DT(ACL_INT32)},
    [CD_G1] = {"gradDist1", ACLSTUB_INPUT, PTS},
    [CD_G2] = {"gradDist2", ACLSTUB_INPUT, PTS},
    [CD_OUT1] = {"gradXyz1", ACLSTUB_OUTPUT, PTS, NULL, ACLSTUB_ANY_LAYOUT},
    [CD_OUT2] = {"gradXyz2", ACLSTUB_OUTPUT, PTS, NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus chamfer_check(aclStubOpCall *call) {
    for (int i = CD_XYZ1; i <= CD_G2; i++)
        if (aclStubNumel(T(i)) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* every tensor has its documented shape for xyz1's B and N */
static bool shapes_agree(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = T(CD_XYZ1);
    if (x->ndim != 3 || x->dims[2] != 2) return false;
    int64_t pts[3] = {x->dims[0], x->dims[1], 2};
    for (int i = CD_XYZ1; i <= CD_OUT2; i++) {
        bool point = i == CD_XYZ1 || i == CD_XYZ2 || i == CD_OUT1 || i == CD_OUT2;
        if (!aclStubShapeEqual(T(i)->dims, T(i)->ndim, pts, point ? 3 : 2)) return false;
    }
    return true;
}

typedef struct {
    const float *x1, *x2, *g1, *g2;
    const int32_t *i1, *i2;
    float *o1, *o2;
    int64_t n;
} ChamferCtx;

static void chamfer_batches(void *ctxp, int64_t begin, int64_t end) {
    const ChamferCtx *c = ctxp;
    int64_t n = c->n;
    for (int64_t b = begin; b < end; b++) {
        const float *x1 = c->x1 + b * n * 2, *x2 = c->x2 + b * n * 2, *g1 = c->g1 + b * n, *g2 = c->g2 + b * n;
        const int32_t *i1 = c->i1 + b * n, *i2 = c->i2 + b * n;
        float *o1 = c->o1 + b * n * 2, *o2 = c->o2 + b * n * 2;
        memset(o1, 0, sizeof(float) * (size_t)(n * 2));
        memset(o2, 0, sizeof(float) * (size_t)(n * 2));
        for (int64_t i = 0; i < n; i++) {
            int64_t k = i1[i];
            float g = 2.0f * g1[i], dx = (x1[2 * i] - x2[2 * k]) * g, dy = (x1[2 * i + 1] - x2[2 * k + 1]) * g;
            o1[2 * i] += dx, o1[2 * i + 1] += dy;
            o2[2 * k] -= dx, o2[2 * k + 1] -= dy;
        }
        for (int64_t j = 0; j < n; j++) {
            int64_t k = i2[j];
            float g = 2.0f * g2[j], dx = (x2[2 * j] - x1[2 * k]) * g, dy = (x2[2 * j + 1] - x1[2 * k + 1]) * g;
            o2[2 * j] += dx, o2[2 * j + 1] += dy;
            o1[2 * k] -= dx, o1[2 * k + 1] -= dy;
        }
    }
}

static aclnnStatus chamfer_kernel(const aclStubOpCall *call) {
    if (!shapes_agree(call)) {
        char s[160];
        const aclStubTensorDesc *x = T(CD_XYZ1);
        return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID,
                                 "the tensors must be xyz1, xyz2, gradXyz1, gradXyz2 [B, N, 2] and idx1, idx2, "
                                 "gradDist1, gradDist2 [B, N]; xyz1 is %s",
                                 aclStubShapeText(x->dims, x->ndim, s, sizeof s));
    }
    int64_t B = T(CD_XYZ1)->dims[0], N = T(CD_XYZ1)->dims[1];
    const int64_t *idx;
    aclStubTensorDesc in[6], out[2];
    for (int i = 0; i < 6; i++) {
        bool index = i == CD_IDX1 || i == CD_IDX2;
        if (index) ACLSTUB_TRY(aclStubIndexLoad(call, T(i), N, false, call->op->params[i].name, &idx));
        ACLSTUB_TRY(aclStubContiguousIn(call, T(i), index ? ACL_INT32 : ACL_FLOAT, &in[i]));
    }
    bool direct = T(CD_XYZ1)->dtype == ACL_FLOAT;
    for (int i = 0; i < 2; i++) {
        if (direct) {
            ACLSTUB_TRY(aclStubOutputBegin(call, T(CD_OUT1 + i), ACL_FLOAT, false, &out[i]));
            continue;
        }
        out[i] = *T(CD_OUT1 + i); /* float32 scratch of the output's shape */
        out[i].dtype = ACL_FLOAT;
        out[i].offset = 0;
        aclStubContiguousStrides(&out[i]);
        out[i].data = aclStubKernelScratch(call, sizeof(float) * (size_t)(B * N * 2));
        if (out[i].data == NULL) return aclStubKernelOutOfMemory(call);
    }
    ChamferCtx c = {(const float *)aclStubViewBase(&in[CD_XYZ1]), (const float *)aclStubViewBase(&in[CD_XYZ2]),
                    (const float *)aclStubViewBase(&in[CD_G1]),   (const float *)aclStubViewBase(&in[CD_G2]),
                    (const int32_t *)aclStubViewBase(&in[CD_IDX1]), (const int32_t *)aclStubViewBase(&in[CD_IDX2]),
                    (float *)aclStubViewBase(&out[0]),            (float *)aclStubViewBase(&out[1]),
                    N};
    aclStubParallelFor(B, 1, chamfer_batches, &c);
    /* results rounded to xyz1's dtype first (the op_api's Cast), then to each output's */
    for (int i = 0; i < 2; i++) {
        if (!direct) {
            ACLSTUB_TRY(aclStubCopyView(call, T(CD_OUT1 + i), &out[i], T(CD_XYZ1)->dtype));
            continue;
        }
        ACLSTUB_TRY(aclStubOutputEnd(call, T(CD_OUT1 + i), &out[i]));
    }
    return OK;
}

static const aclStubOpDef kChamfer = {"aclnnChamferDistanceBackward", kChamferParams, ACLSTUB_LEN(kChamferParams),
                                      NULL, chamfer_check, chamfer_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnChamferDistanceBackward, kChamfer, (const aclTensor *, xyz1), (const aclTensor *, xyz2),
                  (const aclTensor *, idx1), (const aclTensor *, idx2), (const aclTensor *, gradDist1),
                  (const aclTensor *, gradDist2), (aclTensor *, gradXyz1), (aclTensor *, gradXyz2))
