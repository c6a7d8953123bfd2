/*
 * Padding of ops-math conversion/: constant (any rank, negative pads crop), reflection, replication and circular
 * padding of the last 1, 2 or 3 dimensions and their backward operators. One table row per operator (mode,
 * padded dimensions, ranks, dtypes and the op_api's rule variants) drives one check and one kernel per direction.
 *
 * Forward: out[b, o] = self[b, map(o)] with one index map per padded dimension (reflect: mirror without the
 * edge, replicate: clamp, circular: modulo). Backward: gradInput[b, i] = the sum over the output positions o with
 * map(o) = i of gradOutput[b, o], accumulated in float32 (double for DOUBLE and COMPLEX128) in row-major order of
 * o (torch's CPU order), each plane of the leading dimensions independently (in parallel), rounded once.
 */
#include <complex.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_circular_pad2d.h"
#include "aclnnop/aclnn_circular_pad2d_backward.h"
#include "aclnnop/aclnn_circular_pad3d.h"
#include "aclnnop/aclnn_circular_pad3d_backward.h"
#include "aclnnop/aclnn_constant_pad_nd.h"
#include "aclnnop/aclnn_pad2d_backward.h"
#include "aclnnop/aclnn_reflection_pad1d.h"
#include "aclnnop/aclnn_reflection_pad1d_backward.h"
#include "aclnnop/aclnn_reflection_pad2d.h"
#include "aclnnop/aclnn_reflection_pad3d.h"
#include "aclnnop/aclnn_reflection_pad3d_backward.h"
#include "aclnnop/aclnn_replication_pad1d.h"
#include "aclnnop/aclnn_replication_pad1d_backward.h"
#include "aclnnop/aclnn_replication_pad2d.h"
#include "aclnnop/aclnn_replication_pad3d.h"
#include "aclnnop/aclnn_replication_pad3d_backward.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define MAX_K 3

#define CONST_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define REFLECT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define REPLICATE_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | ACLSTUB_DT_COMPLEX)
#define CIRCULAR_DT (ACLSTUB_DT_FLOATS | DT(ACL_INT32) | DT(ACL_INT8))
#define GRAD_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_COMPLEX)
#define CIRCULAR_GRAD_DT ACLSTUB_DT_FLOATS

typedef enum { REFLECT, REPLICATE, CIRCULAR } PadMode;

/* aclStubPadRow.flags */
#define PAD_FORMAT_FIRST 1u   /* the op_api checks formats before dtypes */
#define PAD_LESS_THAN_DIM 2u  /* every pad must be smaller than its dimension */
#define PAD_EMPTY_MIN_FAILS 4u /* an empty call with the smallest rank fails whatever its dimensions */
#define PAD_BF16_LIMITS 8u    /* bf16 gradients: pads >= 0 and (no H pad or every pad <= 7) */
#define PAD_NULL_INNER 16u    /* NULL arguments answer ACLNN_ERR_INNER_NULLPTR */
#define PAD_PRIVATE_FORMAT 32u /* private formats are refused */

typedef struct {
    PadMode mode;
    bool backward;
    int k; /* padded trailing dimensions */
    uint64_t dtypes;
    unsigned flags;
} PadRow;

typedef struct {
    int64_t pad[2 * MAX_K]; /* (before, after) per padded dimension, innermost first, as the caller gives them */
} PadPlan;

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* ---- forward and backward index maps --------------------------------------------------------------------------- */

static int64_t map_index(PadMode mode, int64_t o, int64_t before, int64_t n) {
    int64_t i = o - before;
    switch (mode) {
    case REFLECT:
        if (n == 1) return 0;
        for (;;) { /* a pad smaller than the dimension needs one reflection; crops need none */
            if (i < 0) i = -i;
            else if (i >= n) i = 2 * (n - 1) - i;
            else return i;
        }
    case REPLICATE: return i < 0 ? 0 : i >= n ? n - 1 : i;
    default: {
        int64_t m = i % n;
        return m < 0 ? m + n : m;
    }
    }
}

/* Index maps of the k padded dimensions, out position -> input position, innermost last, in scratch. */
static aclnnStatus build_maps(const aclStubOpCall *call, const PadRow *row, const PadPlan *plan,
                              const aclStubTensorDesc *in, const aclStubTensorDesc *out, int64_t **maps) {
    int64_t total = 0;
    for (int d = 0; d < row->k; d++) total += out->dims[out->ndim - row->k + d];
    int64_t *m = aclStubKernelScratch(call, (size_t)(total > 0 ? total : 1) * sizeof(int64_t));
    if (m == NULL) return aclStubKernelOutOfMemory(call);
    for (int d = 0; d < row->k; d++) { /* d: 0 = outermost padded dimension */
        uint32_t dim = out->ndim - row->k + d;
        int p = row->k - 1 - d; /* pads are given innermost first */
        maps[d] = m;
        for (int64_t o = 0; o < out->dims[dim]; o++) *m++ = map_index(row->mode, o, plan->pad[2 * p], in->dims[dim]);
    }
    return OK;
}

typedef struct {
    char *out;
    const char *in;
    int64_t *const *maps;
    int k;
    int64_t od[MAX_K], id[MAX_K]; /* padded dims of out and in */
    int64_t out_plane, in_plane, rows_per_plane;
    size_t es;
} PadFwdCtx;

/* One output row (all of the innermost padded dimension) at a time. */
static void pad_fwd_rows(void *arg, int64_t begin, int64_t end) {
    const PadFwdCtx *c = arg;
    int64_t es = (int64_t)c->es, last = c->od[c->k - 1];
    const int64_t *inner = c->maps[c->k - 1];
    for (int64_t r = begin; r < end; r++) {
        int64_t b = r / c->rows_per_plane, rest = r % c->rows_per_plane, in_off = 0, mult = c->id[c->k - 1];
        for (int d = c->k - 2; d >= 0; d--) {
            int64_t o = rest % c->od[d];
            rest /= c->od[d];
            in_off += c->maps[d][o] * mult;
            mult *= c->id[d];
        }
        const char *src = c->in + (b * c->in_plane + in_off) * es;
        char *dst = c->out + r * last * es;
        for (int64_t j = 0; j < last; j++) memcpy(dst + j * es, src + inner[j] * es, c->es);
    }
}

static aclnnStatus pad_forward(const aclStubOpCall *call, const PadRow *row, const PadPlan *plan,
                               const aclStubTensorDesc *self, const aclStubTensorDesc *out) {
    aclStubTensorDesc in, buf;
    int64_t *maps[MAX_K];
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_DT_UNDEFINED, &in));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    if (aclStubViewsOverlap(&in, &buf)) ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_DT_UNDEFINED, &in));
    ACLSTUB_TRY(build_maps(call, row, plan, self, out, maps));
    PadFwdCtx c;
    memset(&c, 0, sizeof c);
    c.out = aclStubViewBase(&buf);
    c.in = aclStubViewBase(&in);
    c.maps = maps;
    c.k = row->k;
    c.es = aclDataTypeSize(out->dtype);
    c.out_plane = c.in_plane = 1;
    for (int d = 0; d < row->k; d++) {
        c.od[d] = out->dims[out->ndim - row->k + d];
        c.id[d] = self->dims[self->ndim - row->k + d];
        c.out_plane *= c.od[d];
        c.in_plane *= c.id[d];
    }
    c.rows_per_plane = c.out_plane / c.od[row->k - 1];
    int64_t planes = aclStubNumel(out) / c.out_plane;
    aclStubParallelFor(planes * c.rows_per_plane, 65536 / (c.od[row->k - 1] * (int64_t)c.es + 1) + 1, pad_fwd_rows, &c);
    return aclStubOutputEnd(call, out, &buf);
}

/* ---- backward: per plane, the gradient of every output position added at its input position -------------------- */

typedef struct {
    void *gi;
    const void *go;
    int64_t *const *maps;
    int k;
    int64_t od[MAX_K], id[MAX_K], out_plane, in_plane;
    aclDataType acc; /* FLOAT, DOUBLE, COMPLEX64, COMPLEX128 */
} PadBwdCtx;

#define PAD_BWD_PLANE(T)                                                                                     \
    do {                                                                                                     \
        T *gi = (T *)c->gi + b * c->in_plane;                                                                \
        const T *go = (const T *)c->go + b * c->out_plane;                                                   \
        for (int64_t o = 0; o < c->out_plane; o++) {                                                         \
            int64_t rest = o, off = 0, mult = 1;                                                             \
            for (int d = c->k - 1; d >= 0; d--) {                                                            \
                off += c->maps[d][rest % c->od[d]] * mult;                                                   \
                rest /= c->od[d];                                                                            \
                mult *= c->id[d];                                                                            \
            }                                                                                                \
            gi[off] += go[o];                                                                                \
        }                                                                                                    \
    } while (0)

static void pad_bwd_planes(void *arg, int64_t begin, int64_t end) {
    const PadBwdCtx *c = arg;
    for (int64_t b = begin; b < end; b++) {
        switch (c->acc) {
        case ACL_DOUBLE: PAD_BWD_PLANE(double); break;
        case ACL_COMPLEX64: PAD_BWD_PLANE(float _Complex); break;
        case ACL_COMPLEX128: PAD_BWD_PLANE(double _Complex); break;
        default: PAD_BWD_PLANE(float); break;
        }
    }
}

static aclnnStatus pad_backward(const aclStubOpCall *call, const PadRow *row, const PadPlan *plan,
                                const aclStubTensorDesc *grad_out, const aclStubTensorDesc *grad_in) {
    aclDataType dt = grad_in->dtype;
    aclDataType acc = dt == ACL_DOUBLE || dt == ACL_COMPLEX64 || dt == ACL_COMPLEX128 ? dt : ACL_FLOAT;
    aclStubTensorDesc go, gi;
    ACLSTUB_TRY(aclStubContiguousIn(call, grad_out, acc, &go));
    ACLSTUB_TRY(aclStubOutputBegin(call, grad_in, acc, false, &gi));
    if (aclStubViewsOverlap(&go, &gi)) { /* a contiguous FLOAT gradOutput sharing memory with gradInput */
        aclStubTensorDesc c = go;
        c.data = aclStubKernelScratch(call, (size_t)aclStubNumel(&go) * aclDataTypeSize(acc));
        if (c.data == NULL) return aclStubKernelOutOfMemory(call);
        c.offset = 0;
        ACLSTUB_TRY(aclStubCopyView(call, &c, &go, ACL_DT_UNDEFINED));
        go = c;
    }
    memset(aclStubViewBase(&gi), 0, (size_t)aclStubNumel(grad_in) * aclDataTypeSize(acc));
    int64_t *maps[MAX_K];
    ACLSTUB_TRY(build_maps(call, row, plan, grad_in, grad_out, maps));
    PadBwdCtx c;
    memset(&c, 0, sizeof c);
    c.gi = aclStubViewBase(&gi);
    c.go = aclStubViewBase(&go);
    c.maps = maps;
    c.k = row->k;
    c.acc = acc;
    c.out_plane = c.in_plane = 1;
    for (int d = 0; d < row->k; d++) {
        c.od[d] = grad_out->dims[grad_out->ndim - row->k + d];
        c.id[d] = grad_in->dims[grad_in->ndim - row->k + d];
        c.out_plane *= c.od[d];
        c.in_plane *= c.id[d];
    }
    int64_t planes = aclStubNumel(grad_in) / c.in_plane;
    aclStubParallelFor(planes, 65536 / (c.out_plane + 1) + 1, pad_bwd_planes, &c);
    return aclStubOutputEnd(call, grad_in, &gi);
}

/* ---- checks ------------------------------------------------------------------------------------------------------- */

/* The empty-tensor rule: a zero among the non-batch dimensions fails; so does the smallest rank (no batch
 * dimension) for the forward operators, the replication and the 3-D backward ones. */
static aclnnStatus pad_empty(aclStubOpCall *call, const PadRow *row, const aclStubTensorDesc *self) {
    uint32_t min_rank = (uint32_t)row->k + 1;
    bool zero = false;
    for (uint32_t d = 1; d < self->ndim; d++) zero |= self->dims[d] == 0;
    bool fails = zero || (self->ndim == min_rank && (!row->backward || (row->flags & PAD_EMPTY_MIN_FAILS) ||
                                                      row->mode == REPLICATE));
    if (fails)
        return aclStubOpFail(call, INVALID, "expected a %uD or %uD tensor with possibly 0 batch size and other "
                             "non-zero dimensions", min_rank, min_rank + 1);
    return nothing(call);
}

static aclnnStatus pad_shape(aclStubOpCall *call, const PadRow *row, const aclStubTensorDesc *self,
                             const aclStubValue *padding, const aclStubTensorDesc *out, const char *out_name) {
    uint32_t min_rank = (uint32_t)row->k + 1, max_rank = (uint32_t)row->k + 2;
    if (self->ndim < min_rank || self->ndim > max_rank)
        return aclStubOpFail(call, INVALID, "argument 'self' must have %u or %u dimensions, got %u", min_rank, max_rank,
                             self->ndim);
    if (out->ndim != self->ndim)
        return aclStubOpFail(call, INVALID, "argument '%s' must have the %u dimensions of self, got %u", out_name,
                             self->ndim, out->ndim);
    if (padding->size != (uint64_t)(2 * row->k))
        return aclStubOpFail(call, INVALID, "padding length should be %d, but got %llu", 2 * row->k,
                             (unsigned long long)padding->size);
    if (row->flags & PAD_LESS_THAN_DIM)
        for (int p = 0; p < row->k; p++) {
            int64_t size = self->dims[self->ndim - 1 - p];
            if (padding->ints[2 * p] >= size || padding->ints[2 * p + 1] >= size)
                return aclStubOpFail(call, INVALID, "padding size should be less than the corresponding self dimension");
        }
    if ((row->flags & PAD_BF16_LIMITS) && self->dtype == ACL_BF16) {
        const int64_t *p = padding->ints;
        bool ok = p[0] >= 0 && p[1] >= 0 && p[2] >= 0 && p[3] >= 0 &&
                  ((p[2] == 0 && p[3] == 0) || (p[0] <= 7 && p[1] <= 7 && p[2] <= 7 && p[3] <= 7));
        if (!ok) return aclStubOpFail(call, INVALID, "bf16 supports no H padding or padding values of at most 7 only");
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
    for (int p = 0; p < row->k; p++) shape[self->ndim - 1 - p] += padding->ints[2 * p] + padding->ints[2 * p + 1];
    return aclStubCheckShapeIs(call, out_name, out, shape, self->ndim);
}

enum { PF_SELF, PF_PADDING, PF_OUT };

static aclnnStatus pad_forward_check(aclStubOpCall *call) {
    const PadRow *row = aclStubFamilyRow(call);
    const aclStubTensorDesc *self = T(PF_SELF), *out = T(PF_OUT);
    const aclStubValue *padding = &call->v[PF_PADDING];
    for (int pass = 0; pass < 2; pass++) {
        bool formats = (pass == 0) == ((row->flags & PAD_FORMAT_FIRST) != 0);
        if (formats) {
            if ((row->flags & PAD_PRIVATE_FORMAT) && aclStubIsPrivateFormat(self->format))
                return aclStubOpFail(call, INVALID, "format only supports ND, NCHW, NHWC, HWCN, NDHWC, NCDHW and NCL");
            if (self->format != out->format)
                return aclStubOpFail(call, INVALID, "format of input and output should be equal, self [%d], out [%d]",
                                     (int)self->format, (int)out->format);
        } else {
            ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, row->dtypes));
            ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, row->dtypes));
            ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
        }
    }
    ACLSTUB_TRY(pad_shape(call, row, self, padding, out, "out"));
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return pad_empty(call, row, self);
    memcpy(((PadPlan *)call->plan)->pad, padding->ints, (size_t)(2 * row->k) * sizeof(int64_t));
    return OK;
}

static aclnnStatus pad_forward_kernel(const aclStubOpCall *call) {
    return pad_forward(call, aclStubFamilyRow(call), call->plan, T(PF_SELF), T(PF_OUT));
}

enum { PB_GRAD_OUT, PB_SELF, PB_PADDING, PB_GRAD_IN };

static aclnnStatus pad_backward_check(aclStubOpCall *call) {
    const PadRow *row = aclStubFamilyRow(call);
    const aclStubTensorDesc *go = T(PB_GRAD_OUT), *self = T(PB_SELF), *gi = T(PB_GRAD_IN);
    const aclStubValue *padding = &call->v[PB_PADDING];
    if (row->flags & PAD_NULL_INNER) {
        static const char *const names[] = {"gradOutput", "self", "padding", "gradInput"};
        for (int i = 0; i < 4; i++)
            if (!call->v[i].present)
                return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL", names[i]);
    }
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "gradOutput", go, row->dtypes));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, row->dtypes));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "gradInput", gi, row->dtypes));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "gradOutput", go, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "gradInput", gi, "self", self));
    if (aclStubIsPrivateFormat(go->format) ||
        (row->mode != CIRCULAR && (aclStubIsPrivateFormat(self->format) || aclStubIsPrivateFormat(gi->format))))
        return aclStubOpFail(call, INVALID, "format only supports ND");
    if (go->format != self->format || go->format != gi->format)
        return aclStubOpFail(call, INVALID, "format of input and output should be equal");
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "gradInput", gi, self->dims, self->ndim));
    ACLSTUB_TRY(pad_shape(call, row, self, padding, go, "gradOutput"));
    if (aclStubNumel(go) == 0 || aclStubNumel(self) == 0 || aclStubNumel(gi) == 0) return pad_empty(call, row, self);
    memcpy(((PadPlan *)call->plan)->pad, padding->ints, (size_t)(2 * row->k) * sizeof(int64_t));
    return OK;
}

static aclnnStatus pad_backward_kernel(const aclStubOpCall *call) {
    return pad_backward(call, aclStubFamilyRow(call), call->plan, T(PB_GRAD_OUT), T(PB_GRAD_IN));
}

static const aclStubParam kPadFwdParams[] = {{"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
                                             {"padding", ACLSTUB_INT_ARRAY, 0, NULL, 0, 0, 0},
                                             {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubParam kPadBwdParams[] = {{"gradOutput", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
                                             {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
                                             {"padding", ACLSTUB_INT_ARRAY, 0, NULL, 0, 0, 0},
                                             {"gradInput", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
/* circular 3-D backward answers NULL arguments itself (with ACLNN_ERR_INNER_NULLPTR) */
static const aclStubParam kPadBwdNullableParams[] = {{"gradOutput", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
                                                     {"self", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
                                                     {"padding", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
                                                     {"gradInput", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};

#define PAD_FWD(NAME, MODE, K, DTYPES, FLAGS)                                                                \
    static const PadRow NAME##_row_ = {MODE, false, K, DTYPES, FLAGS};                                       \
    static const aclStubFamilyOp NAME##_op_ = {{#NAME, kPadFwdParams, 3, NULL, pad_forward_check,             \
                                                pad_forward_kernel, sizeof(PadPlan)}, &NAME##_row_};         \
    ACLSTUB_DEFINE_OP(NAME, NAME##_op_.def, (const aclTensor *, self), (const aclIntArray *, padding),        \
                      (aclTensor *, out))
#define PAD_BWD(NAME, MODE, K, DTYPES, FLAGS, PARAMS)                                                        \
    static const PadRow NAME##_row_ = {MODE, true, K, DTYPES, FLAGS};                                        \
    static const aclStubFamilyOp NAME##_op_ = {{#NAME, PARAMS, 4, NULL, pad_backward_check,                   \
                                                pad_backward_kernel, sizeof(PadPlan)}, &NAME##_row_};        \
    ACLSTUB_DEFINE_OP(NAME, NAME##_op_.def, (const aclTensor *, gradOutput), (const aclTensor *, self),       \
                      (const aclIntArray *, padding), (aclTensor *, gradInput))

PAD_FWD(aclnnReflectionPad1d, REFLECT, 1, REFLECT_DT, PAD_LESS_THAN_DIM)
PAD_FWD(aclnnReflectionPad2d, REFLECT, 2, REFLECT_DT, PAD_LESS_THAN_DIM)
PAD_FWD(aclnnReflectionPad3d, REFLECT, 3, REFLECT_DT, PAD_LESS_THAN_DIM)
PAD_FWD(aclnnReplicationPad1d, REPLICATE, 1, REPLICATE_DT, 0)
PAD_FWD(aclnnReplicationPad2d, REPLICATE, 2, REPLICATE_DT, PAD_FORMAT_FIRST)
PAD_FWD(aclnnReplicationPad3d, REPLICATE, 3, REPLICATE_DT, 0)
PAD_FWD(aclnnCircularPad2d, CIRCULAR, 2, CIRCULAR_DT, PAD_PRIVATE_FORMAT)
PAD_FWD(aclnnCircularPad3d, CIRCULAR, 3, CIRCULAR_DT, PAD_PRIVATE_FORMAT)

PAD_BWD(aclnnReflectionPad1dBackward, REFLECT, 1, GRAD_DT, PAD_LESS_THAN_DIM, kPadBwdParams)
PAD_BWD(aclnnReflectionPad2dBackward, REFLECT, 2, GRAD_DT, PAD_LESS_THAN_DIM | PAD_BF16_LIMITS, kPadBwdParams)
PAD_BWD(aclnnReflectionPad3dBackward, REFLECT, 3, GRAD_DT, PAD_LESS_THAN_DIM | PAD_EMPTY_MIN_FAILS, kPadBwdParams)
PAD_BWD(aclnnReplicationPad1dBackward, REPLICATE, 1, GRAD_DT, 0, kPadBwdParams)
PAD_BWD(aclnnReplicationPad2dBackward, REPLICATE, 2, GRAD_DT, PAD_BF16_LIMITS, kPadBwdParams)
PAD_BWD(aclnnReplicationPad3dBackward, REPLICATE, 3, GRAD_DT, PAD_EMPTY_MIN_FAILS, kPadBwdParams)
PAD_BWD(aclnnCircularPad2dBackward, CIRCULAR, 2, CIRCULAR_GRAD_DT, 0, kPadBwdParams)
PAD_BWD(aclnnCircularPad3dBackward, CIRCULAR, 3, CIRCULAR_GRAD_DT,
        PAD_LESS_THAN_DIM | PAD_EMPTY_MIN_FAILS | PAD_NULL_INNER, kPadBwdNullableParams)

/* ---- aclnnConstantPadNd ---------------------------------------------------------------------------------------------- */

enum { CP_SELF, CP_PAD, CP_VALUE, CP_OUT };

static aclnnStatus constant_pad_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(CP_SELF), *out = T(CP_OUT);
    const aclStubValue *pad = &call->v[CP_PAD];
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "self", self, "out", out));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, CONST_DT));
    if (self->format != out->format && self->format != ACL_FORMAT_ND)
        return aclStubOpFail(call, INVALID, "a self of format %d needs the same format for out (%d)", (int)self->format,
                             (int)out->format);
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, 8));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, 8));
    uint32_t n = self->ndim;
    if (out->ndim != n) return aclStubOpFail(call, INVALID, "dim of self [%u] and out [%u] can't be different", n, out->ndim);
    if (pad->size % 2) return aclStubOpFail(call, INVALID, "pad length must be divisible by 2");
    if (pad->size / 2 > n)
        return aclStubOpFail(call, INVALID, "pad length %llu must not be greater than twice the rank %u",
                             (unsigned long long)pad->size, n);
    bool positive = false, zero = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = n - 1 - i;
        int64_t size = self->dims[d];
        int64_t before = 2 * i < pad->size ? pad->ints[2 * i] : 0, after = 2 * i + 1 < pad->size ? pad->ints[2 * i + 1] : 0;
        int64_t m = before < after ? before : after;
        if (before + after < m) m = before + after;
        if (size + m < 0)
            return aclStubOpFail(call, INVALID, "the input size %lld plus padding %lld and %lld resulted in a negative "
                                 "output size at dimension %u", (long long)size, (long long)before, (long long)after, d);
        positive |= before > 0 || after > 0;
        if (out->dims[d] != size + before + after)
            return aclStubOpFail(call, INVALID, "the output has %lld elements at dimension %u; expected %lld",
                                 (long long)out->dims[d], d, (long long)(size + before + after));
        if (2 * i < pad->size && size + before + after == 0) zero = true;
    }
    if (zero && positive) return aclStubOpFail(call, INVALID, "an output size with zero elements is invalid");
    if (aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus constant_pad_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(CP_SELF), *out = T(CP_OUT);
    const aclStubValue *pad = &call->v[CP_PAD];
    aclStubTensorDesc src, dst = *out;
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_DT_UNDEFINED, &src));
    if (aclStubViewsOverlap(&src, out)) ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_DT_UNDEFINED, &src));
    if (aclStubViewsOverlap(&src, out)) { /* contiguous already: an explicit copy */
        aclStubTensorDesc c = src;
        c.data = aclStubKernelScratch(call, (size_t)aclStubNumel(self) * aclDataTypeSize(self->dtype));
        if (c.data == NULL) return aclStubKernelOutOfMemory(call);
        c.offset = 0;
        ACLSTUB_TRY(aclStubCopyView(call, &c, &src, ACL_DT_UNDEFINED));
        src = c;
    }
    ACLSTUB_TRY(aclStubFillView(call, out, call->v[CP_VALUE].dtype, call->v[CP_VALUE].scalar));
    for (uint32_t i = 0; i < self->ndim && 2 * i < pad->size; i++) {
        uint32_t d = self->ndim - 1 - i;
        int64_t before = pad->ints[2 * i], after = 2 * i + 1 < pad->size ? pad->ints[2 * i + 1] : 0;
        int64_t len = self->dims[d] + (before < 0 ? before : 0) + (after < 0 ? after : 0);
        if (len <= 0) return OK; /* nothing of self survives the crop */
        aclStubViewNarrow(&dst, d, before > 0 ? before : 0, len);
        aclStubViewNarrow(&src, d, before < 0 ? -before : 0, len);
    }
    return aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED);
}

static const aclStubParam kConstantPadParams[] = {{"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
                                                  {"pad", ACLSTUB_INT_ARRAY, 0, NULL, 0, 0, 0},
                                                  {"value", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
                                                  {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kConstantPad = {"aclnnConstantPadNd", kConstantPadParams, 4, NULL, constant_pad_check,
                                          constant_pad_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnConstantPadNd, kConstantPad, (const aclTensor *, self), (const aclIntArray *, pad),
                  (const aclScalar *, value), (aclTensor *, out))
