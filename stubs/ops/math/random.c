/*
 * The random operators of ops-math random/: InplaceUniform, InplaceNormal, NormalTensorTensor / TensorFloat /
 * FloatTensor / FloatFloat, Bernoulli, BernoulliTensor, InplaceBernoulli, InplaceBernoulliTensor, Dropout,
 * DropoutGenMask, DropoutGenMaskV2, DropoutDoMask, Randperm and Multinomial, and the forms taking the seed and offset
 * as device tensors (InplaceUniformTensor, InplaceNormalTensor, DropoutGenMaskV2Tensor, MultinomialTensor), and
 * SimThreadExponential (a generated API: -ln(1 - u) / lambda from the float uniform u of each draw, computed in
 * double and rounded once; its tiling's rules: count >= 0 and count == numel(selfRef), else 561002).
 *
 * The generator is counter-based: Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
 * SC'11) keyed by the seed (key = low and high 32 bits of the seed). The stream of a seed is the sequence of
 * "draws" d = 0, 1, 2, ...: draw d is two 32-bit words, words 2 (d mod 2) and 2 (d mod 2) + 1 of the Philox block
 * whose 128-bit counter is (d / 2) (low word first). A call with offset o gives its element i (row-major order;
 * Multinomial: row r, category or sample k in row-major order; Randperm: swap step i) draw o + i, so results are the
 * same on every run and every thread count, and a call with offset o + n continues a call of n elements with
 * offset o. From a draw (w0, w1): a uniform u = w0 / 2^32 in [0, 1) (float results: 24 bits, double: 53 bits of
 * w0 w1); a normal value by Box-Muller, sqrt(-2 ln((w0 + 1) / 2^32)) cos(2 pi w1 / 2^32), computed in double;
 * a Bernoulli or dropout keep decision u >= p (keep) for float u of 24 bits. Results are rounded once to the output
 * dtype (integers by the device's Cast: truncated). A device uses its own generator layout, which its documents do
 * not give: these numbers have the right distribution and are reproducible, but are not the device's bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_bernoulli.h"
#include "aclnnop/aclnn_dropout.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "aclnnop/aclnn_multinomial.h"
#include "aclnnop/aclnn_normal.h"
#include "aclnnop/aclnn_normal_out.h"
#include "aclnnop/aclnn_random.h"
#include "aclnnop/aclnn_randperm.h"
#include "aclnnop/aclnn_sim_thread_exponential.h"
#include "aclnnop/aclnn_dropout_backward.h"
#include "aclnnop/aclnn_uniform.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define DT(x) ACLSTUB_DT(x)
#define MAX_DIMS 8

/* ---- Philox 4x32-10 ------------------------------------------------------------------------------------------- */

static void philox(uint64_t counter, uint64_t seed, uint32_t out[4]) {
    uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;
        c0 = n0, c1 = n1, c2 = n2, c3 = n3;
        k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

static void draw(uint64_t seed, uint64_t d, uint32_t w[2]) {
    uint32_t b[4];
    philox(d >> 1, seed, b);
    w[0] = b[(d & 1) * 2], w[1] = b[(d & 1) * 2 + 1];
}

/* consecutive draws share their Philox block: the block of the previous draw is kept */
typedef struct {
    uint64_t seed, counter;
    bool valid;
    uint32_t b[4];
} Stream;
static void stream_draw(Stream *s, uint64_t d, uint32_t w[2]) {
    if (!s->valid || s->counter != d >> 1) {
        philox(d >> 1, s->seed, s->b);
        s->counter = d >> 1, s->valid = true;
    }
    w[0] = s->b[(d & 1) * 2], w[1] = s->b[(d & 1) * 2 + 1];
}

static float uniform_f(const uint32_t w[2]) { return (float)(w[0] >> 8) * 0x1p-24f; }
static double uniform_d(const uint32_t w[2]) {
    return (double)(((uint64_t)w[0] << 21) ^ (w[1] >> 11)) * 0x1p-53;
}
static double normal_d(const uint32_t w[2]) {
    double u1 = ((double)w[0] + 1.0) * 0x1p-32, u2 = (double)w[1] * 0x1p-32;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- element-wise generation -------------------------------------------------------------------------------- */

/* The seed and offset: attributes, or (the ...Tensor variants) read from one-element device tensors when the kernel
 * runs, the offset attribute added to offsetTensor's value (the documented rule). */
typedef struct {
    uint64_t seed, offset;
    int seed_t, offset_t;
} SeedOffset;

typedef enum { G_UNIFORM, G_NORMAL, G_BERNOULLI, G_DROPOUT, G_DO_MASK, G_GEN_MASK, G_RANDOM, G_EXPONENTIAL } Gen;

typedef struct {
    Gen gen;
    uint64_t seed, offset;
    SeedOffset so;
    double a, b;          /* uniform: from, to; normal: mean, std; bernoulli / dropout: p */
    double scale;         /* dropout: the kept elements' factor */
    int64_t from;         /* random integers: from + [0, range) */
    uint64_t range;
    bool train;           /* dropout */
    int mean_t, std_t, prob_t, in_t, mask_t, out_t, mask_out_t; /* tensor parameters, -1 absent */
    int64_t total;        /* elements (GenMask: mask bits) */
    bool copy_only, zero_only; /* dropout with p = 0 / not training, p = 1 */
} Plan;

static const aclStubTensorDesc *T(const aclStubOpCall *c, int i) { return i >= 0 ? c->v[i].tensor : NULL; }

/* the index of the parameter named `name`, -1 when the operator has none */
static int param(const aclStubOpCall *c, const char *name) {
    for (size_t i = 0; i < c->op->num_params; i++)
        if (strcmp(c->op->params[i].name, name) == 0) return (int)i;
    return -1;
}

static aclnnStatus seed_offset(aclStubOpCall *c, SeedOffset *so, uint64_t dtypes) {
    int s = param(c, "seed"), st = param(c, "seedTensor"), o = param(c, "offset"), ot = param(c, "offsetTensor");
    *so = (SeedOffset){s >= 0 ? (uint64_t)c->v[s].i : 0, (uint64_t)c->v[o].i, st, ot};
    for (int k = 0; k < 2; k++) {
        int i = k ? ot : st;
        if (i < 0) continue;
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, i, dtypes));
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(T(c, i)) != 1, c, INVALID, "%s must have one element, got %lld",
                                c->op->params[i].name, (long long)aclStubNumel(T(c, i)));
    }
    return OK;
}

static void resolve(const aclStubOpCall *c, const SeedOffset *in, uint64_t *seed, uint64_t *offset) {
    *seed = in->seed, *offset = in->offset;
    if (in->seed_t >= 0) *seed = *(const uint64_t *)aclStubElemAt(T(c, in->seed_t), 0);
    if (in->offset_t >= 0) *offset += *(const uint64_t *)aclStubElemAt(T(c, in->offset_t), 0);
}

/* element i of t broadcast to a shape of ndim dims (trailing-aligned) */
static const void *bcast_at(const aclStubTensorDesc *t, const int64_t *dims, uint32_t ndim, int64_t i) {
    int64_t off = t->offset;
    for (uint32_t d = ndim; d-- > 0;) {
        int64_t k = i % dims[d];
        i /= dims[d];
        int td = (int)d - (int)(ndim - t->ndim);
        if (td >= 0 && t->dims[td] != 1) off += k * t->strides[td];
    }
    return (const char *)t->data + off * (int64_t)aclDataTypeSize(t->dtype);
}

static double load_d(const aclStubTensorDesc *t, const void *p) {
    return aclStubScalarToDouble(t->dtype, p);
}

static bool contiguous(const aclStubTensorDesc *t) {
    int64_t st = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != st) return false;
        st *= t->dims[d];
    }
    return true;
}

static void store_d(const aclStubTensorDesc *t, int64_t i, double v) {
    void *p = t->ndim == 0 || t->ndim > 1 ? aclStubElemAt(t, i) : aclStubElem1(t, i);
    if (t->dtype == ACL_FLOAT || t->dtype == ACL_FLOAT16 || t->dtype == ACL_BF16) aclStubStorePtrF32(t->dtype, p, (float)v);
    else aclStubStoreDouble(p, t->dtype, v);
}

typedef struct {
    const aclStubOpCall *c;
    const Plan *p;
} Ctx;

static void gen_range(void *arg, int64_t begin, int64_t end) {
    const Ctx *x = arg;
    const Plan *p = x->p;
    const aclStubOpCall *c = x->c;
    const aclStubTensorDesc *out = T(c, p->out_t);
    const int64_t *dims = out ? out->dims : NULL;
    uint32_t ndim = out ? out->ndim : 0;
    aclStubTensorDesc flat; /* a contiguous output as 1-D: cheap element addresses */
    if (out && contiguous(out)) {
        flat = *out;
        flat.ndim = 1, flat.dims[0] = aclStubNumel(out), flat.strides[0] = 1;
        out = &flat;
    }
    Stream st = {p->seed, 0, false, {0}};
    for (int64_t i = begin; i < end; i++) {
        uint32_t w[2];
        if (p->gen != G_DO_MASK) stream_draw(&st, p->offset + (uint64_t)i, w);
        switch (p->gen) {
        case G_UNIFORM: {
            double v = out->dtype == ACL_DOUBLE ? p->a + (p->b - p->a) * uniform_d(w)
                                                : (double)((float)p->a + ((float)p->b - (float)p->a) * uniform_f(w));
            store_d(out, i, v);
            break;
        }
        case G_NORMAL: {
            double m = p->mean_t >= 0 ? load_d(T(c, p->mean_t), bcast_at(T(c, p->mean_t), dims, ndim, i)) : p->a;
            double s = p->std_t >= 0 ? load_d(T(c, p->std_t), bcast_at(T(c, p->std_t), dims, ndim, i)) : p->b;
            store_d(out, i, m + s * normal_d(w));
            break;
        }
        case G_BERNOULLI: {
            double prob = p->prob_t >= 0 ? load_d(T(c, p->prob_t), bcast_at(T(c, p->prob_t), dims, ndim, i)) : p->a;
            store_d(out, i, (double)uniform_f(w) < prob ? 1.0 : 0.0);
            break;
        }
        case G_DROPOUT: case G_DO_MASK: {
            bool keep;
            if (p->gen == G_DROPOUT) {
                keep = (double)uniform_f(w) >= p->a;
            } else {
                const uint8_t *m = aclStubElemAt(T(c, p->mask_t), i / 8);
                keep = (*m >> (i % 8)) & 1;
            }
            const aclStubTensorDesc *in = T(c, p->in_t);
            float v = aclStubLoadPtrF32(in->dtype, aclStubElemAt(in, i));
            store_d(out, i, keep ? (double)(v * (float)p->scale) : 0.0);
            break;
        }
        case G_EXPONENTIAL: store_d(out, i, -log1p(-(double)uniform_f(w)) / p->a); break;
        case G_RANDOM: {
            uint64_t r = ((uint64_t)w[0] << 32) | w[1];
            int64_t v = p->from + (int64_t)(uint64_t)(((unsigned __int128)r * p->range) >> 64);
            if (out->dtype == ACL_INT64) *(int64_t *)aclStubElemAt(out, i) = v;
            else store_d(out, i, (double)v);
            break;
        }
        default: break;
        }
    }
}

/* GenMask and Dropout's mask: byte j holds the keep decisions of elements 8j .. 8j + 7, element 8j + k in bit k */
typedef struct {
    const Plan *p;
    const aclStubTensorDesc *mask;
} MaskCtx;
static void mask_range(void *arg, int64_t begin, int64_t end) {
    const MaskCtx *x = arg;
    for (int64_t j = begin; j < end; j++) {
        uint8_t byte = 0;
        for (int k = 0; k < 8; k++) {
            uint32_t w[2];
            draw(x->p->seed, x->p->offset + (uint64_t)(j * 8 + k), w);
            if ((double)uniform_f(w) >= x->p->a) byte |= (uint8_t)(1u << k);
        }
        *(uint8_t *)aclStubElemAt(x->mask, j) = byte;
    }
}

static aclnnStatus gen_kernel(const aclStubOpCall *c) {
    Plan q = *(const Plan *)c->plan;
    resolve(c, &q.so, &q.seed, &q.offset);
    const Plan *p = &q;
    if (p->gen == G_DROPOUT || p->gen == G_DO_MASK) {
        if (p->copy_only) return aclStubCopy(c, T(c, p->out_t), T(c, p->in_t));
        if (p->zero_only) return aclStubFill(c, T(c, p->out_t), 0.0);
    }
    if (p->gen == G_GEN_MASK || (p->gen == G_DROPOUT && p->mask_out_t >= 0)) {
        const aclStubTensorDesc *m = T(c, p->gen == G_GEN_MASK ? p->out_t : p->mask_out_t);
        MaskCtx mx = {p, m};
        aclStubParallelFor(aclStubNumel(m), 256, mask_range, &mx);
        if (p->gen == G_GEN_MASK) return OK;
    }
    Ctx x = {c, p};
    aclStubParallelFor(p->total, 4096, gen_range, &x);
    return OK;
}

/* ---- checks ------------------------------------------------------------------------------------------------- */

static Plan *new_plan(aclStubOpCall *c, Gen gen) {
    Plan *p = c->plan;
    *p = (Plan){.gen = gen, .mean_t = -1, .std_t = -1, .prob_t = -1, .in_t = -1, .mask_t = -1, .out_t = -1,
                .mask_out_t = -1};
    return p;
}

static aclnnStatus finish(aclStubOpCall *c, Plan *p) {
    p->total = aclStubNumel(T(c, p->out_t));
    return p->total == 0 ? aclStubOpNothingToDo(c) : OK;
}

#define UNIFORM_DT (DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_FLOAT16) | DT(ACL_INT16) | DT(ACL_INT8) | \
                    DT(ACL_UINT8) | DT(ACL_DOUBLE) | DT(ACL_BF16))
#define NORMAL_DT (UNIFORM_DT | DT(ACL_BOOL))
#define FLOATS4 (ACLSTUB_DT_FLOATS | DT(ACL_DOUBLE))

/* aclnnInplaceUniform(selfRef, from, to, seed, offset) */
static aclnnStatus uniform_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_UNIFORM);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, UNIFORM_DT));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, 0, MAX_DIMS));
    double from = c->v[1].f, to = c->v[2].f;
    ACLSTUB_RETURN_ERROR_IF(from > to, c, INVALID, "from cannot be greater than to, from is %f and to is %f", from, to);
    ACLSTUB_TRY(seed_offset(c, &p->so, DT(ACL_UINT64) | DT(ACL_INT64)));
    p->a = from, p->b = to, p->out_t = 0;
    return finish(c, p);
}

/* aclnnSimThreadExponential(selfRef, count, lambda, seed, offset): the tiling's rules (561002) */
static aclnnStatus exponential_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_EXPONENTIAL);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, ACLSTUB_DT_FLOATS));
    int64_t count = c->v[1].i;
    ACLSTUB_RETURN_ERROR_IF(count < 0, c, ACLNN_ERR_INNER_TILING_ERROR,
                            "Count %lld must be greater than or equal to 0.", (long long)count);
    ACLSTUB_RETURN_ERROR_IF(count != aclStubNumel(T(c, 0)), c, ACLNN_ERR_INNER_TILING_ERROR,
                            "Count %lld must be equal to the product of the elements in selfShape.", (long long)count);
    ACLSTUB_TRY(seed_offset(c, &p->so, DT(ACL_INT64)));
    p->a = (float)c->v[2].f, p->out_t = 0; /* lambd is a float attribute */
    return finish(c, p);
}

/* aclnnInplaceNormal(selfRef, mean, std, seed, offset) */
static aclnnStatus inplace_normal_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_NORMAL);
    ACLSTUB_RETURN_ERROR_IF(c->v[2].f < 0, c, INVALID, "std must be >= 0.0, got %f", c->v[2].f);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, NORMAL_DT));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, 0, MAX_DIMS));
    ACLSTUB_TRY(seed_offset(c, &p->so, DT(ACL_INT64)));
    p->a = c->v[1].f, p->b = c->v[2].f, p->out_t = 0;
    return finish(c, p);
}

/* aclnnNormal{Tensor,Float}{Tensor,Float}(mean, std, seed, offset, out), the op_api's shape rules: both tensors
 * broadcast to out's shape; a tensor mean broadcasts to it; a tensor std has out's shape (one element for an empty
 * out), never empty */
static aclnnStatus normal_out_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_NORMAL);
    bool mt = c->op->params[0].role == ACLSTUB_INPUT, st = c->op->params[1].role == ACLSTUB_INPUT;
    const aclStubTensorDesc *out = T(c, 4);
    char a[128], b[128];
    if (mt && st) {
        const aclStubTensorDesc *m = T(c, 0), *s = T(c, 1);
        for (int k = 0; k < 2; k++) ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, k, FLOATS4));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 4, FLOATS4));
        for (int k = 0; k < 2; k++) ACLSTUB_TRY(aclStubCheckMaxDim(c, k, MAX_DIMS));
        int64_t dims[ACLSTUB_MAX_DIMS];
        uint32_t n;
        ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(m->dims, m->ndim, s->dims, s->ndim, dims, &n), c, INVALID,
                                "mean %s and std %s cannot broadcast", aclStubShapeText(m->dims, m->ndim, a, sizeof a),
                                aclStubShapeText(s->dims, s->ndim, b, sizeof b));
        ACLSTUB_TRY(aclStubCheckShape(c, 4, dims, n));
        aclDataType pt = aclStubPromoteType(m->dtype, s->dtype);
        ACLSTUB_RETURN_ERROR_IF(pt == ACL_DT_UNDEFINED || !aclStubCanCast(pt, out->dtype), c, INVALID, "mean's "
                                "and std's result type cannot be cast to out's %s", aclStubDtypeName(out->dtype));
    } else if (mt) {
        const aclStubTensorDesc *m = T(c, 0);
        ACLSTUB_TRY(aclStubCheckMaxDim(c, 0, MAX_DIMS));
        ACLSTUB_TRY(aclStubCheckMaxDim(c, 4, MAX_DIMS));
        int64_t dims[ACLSTUB_MAX_DIMS];
        uint32_t n;
        ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(m->dims, m->ndim, out->dims, out->ndim, dims, &n) ||
                                !aclStubShapeEqual(dims, n, out->dims, out->ndim), c, INVALID, "mean %s must "
                                "broadcast to out's shape %s", aclStubShapeText(m->dims, m->ndim, a, sizeof a),
                                aclStubShapeText(out->dims, out->ndim, b, sizeof b));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, FLOATS4));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 4, FLOATS4));
    } else if (st) {
        const aclStubTensorDesc *s = T(c, 1);
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(s) == 0, c, INVALID, "std cannot be an empty tensor");
        if (!(aclStubNumel(out) == 0 && aclStubNumel(s) == 1))
            ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(s->dims, s->ndim, out->dims, out->ndim), c, INVALID, "std's "
                                    "shape %s must be out's %s", aclStubShapeText(s->dims, s->ndim, a, sizeof a),
                                    aclStubShapeText(out->dims, out->ndim, b, sizeof b));
        ACLSTUB_TRY(aclStubCheckMaxDim(c, 1, MAX_DIMS));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 1, FLOATS4));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 4, FLOATS4));
    } else {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 4, FLOATS4));
    }
    ACLSTUB_TRY(aclStubCheckMaxDim(c, 4, MAX_DIMS));
    if (!st) ACLSTUB_RETURN_ERROR_IF(c->v[1].f < 0, c, INVALID, "std must be >= 0.0, got %f", c->v[1].f);
    p->mean_t = mt ? 0 : -1, p->std_t = st ? 1 : -1;
    p->a = mt ? 0.0 : c->v[0].f, p->b = st ? 0.0 : c->v[1].f;
    p->so = (SeedOffset){(uint64_t)c->v[2].i, (uint64_t)c->v[3].i, -1, -1}, p->out_t = 4;
    return finish(c, p);
}

#define BERN_OUT_DT (DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_FLOAT16) | DT(ACL_INT16) | DT(ACL_INT8) | \
                     DT(ACL_UINT8) | DT(ACL_DOUBLE) | DT(ACL_BOOL) | DT(ACL_BF16))

/* aclnn[Inplace]Bernoulli[Tensor](self, prob, seed, offset[, out]) */
static aclnnStatus bernoulli_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_BERNOULLI);
    bool inplace = c->op->num_params == 4, tensor = c->op->params[1].role == ACLSTUB_INPUT;
    int out = inplace ? 0 : 4;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, BERN_OUT_DT));
    if (tensor) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 1, FLOATS4));
    } else {
        aclDataType pd = c->v[1].dtype;
        ACLSTUB_RETURN_ERROR_IF(pd >= 64 || !(FLOATS4 & DT(pd)), c, INVALID, "prob has data type %s; must be FLOAT, "
                                "FLOAT16, DOUBLE or BF16", aclStubDtypeName(pd));
    }
    if (!inplace) ACLSTUB_TRY(aclStubCheckDtypeIs(c, out, T(c, 0)->dtype));
    if (!tensor) {
        double prob = aclStubScalarToDouble(c->v[1].dtype, c->v[1].scalar);
        ACLSTUB_RETURN_ERROR_IF(!(prob >= 0 && prob <= 1), c, INVALID, "prob should be in range 0<=prob<=1, got %f",
                                prob);
        p->a = prob;
    } else {
        const aclStubTensorDesc *pr = T(c, 1), *s = T(c, 0);
        int64_t dims[ACLSTUB_MAX_DIMS];
        uint32_t n;
        ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(s->dims, s->ndim, pr->dims, pr->ndim, dims, &n) ||
                                !aclStubShapeEqual(dims, n, s->dims, s->ndim), c, INVALID, "prob must broadcast to "
                                "self's shape");
        ACLSTUB_TRY(aclStubCheckFormat(c, 1));
        p->prob_t = 1;
    }
    ACLSTUB_TRY(aclStubCheckFormat(c, 0));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, 0, MAX_DIMS));
    if (!inplace) ACLSTUB_TRY(aclStubCheckShape(c, out, T(c, 0)->dims, T(c, 0)->ndim));
    p->so = (SeedOffset){(uint64_t)c->v[2].i, (uint64_t)c->v[3].i, -1, -1}, p->out_t = out;
    return finish(c, p);
}

static int64_t mask_bytes(int64_t n) { return (n + 127) / 128 * 128 / 8; }

/* aclnnDropout(input, p, train, seed, offset, out, maskOut) */
static aclnnStatus dropout_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_DROPOUT);
    const aclStubTensorDesc *in = T(c, 0), *out = T(c, 5);
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(in->dtype, out->dtype), c, INVALID, "input's %s cannot be cast to out's "
                            "%s", aclStubDtypeName(in->dtype), aclStubDtypeName(out->dtype));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 6, DT(ACL_UINT8)));
    double prob = c->v[1].f;
    ACLSTUB_RETURN_ERROR_IF(!(prob >= 0 && prob <= 1), c, INVALID, "p must be between 0 and 1, got %f", prob);
    ACLSTUB_TRY(aclStubCheckMaxDim(c, 0, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckShape(c, 5, in->dims, in->ndim));
    int64_t need = mask_bytes(aclStubNumel(in));
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(T(c, 6)) != need, c, INVALID, "maskOut must have %lld elements (the element "
                            "count aligned to 128, in bits), got %lld", (long long)need, (long long)aclStubNumel(T(c, 6)));
    p->a = prob, p->scale = prob < 1 ? 1.0 / (1.0 - prob) : 0.0, p->train = c->v[2].b, p->so = (SeedOffset){(uint64_t)c->v[3].i, (uint64_t)c->v[4].i, -1, -1};
    p->in_t = 0, p->out_t = 5, p->mask_out_t = 6;
    if (prob == 0 || prob == 1 || !p->train) { /* maskOut left alone */
        aclStubOpIgnore(c, 6);
        p->mask_out_t = -1;
        p->copy_only = prob == 0 || !p->train;
        p->zero_only = !p->copy_only;
    }
    return finish(c, p);
}

/* aclnnDropoutGenMask(shape, prob, seed, offset, out) and V2 (..., probDataType, out) */
static aclnnStatus gen_mask_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_GEN_MASK);
    int out = param(c, "out"), pdt = param(c, "probDataType");
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, out, DT(ACL_UINT8)));
    double prob = c->v[1].f;
    ACLSTUB_RETURN_ERROR_IF(!(prob >= 0 && prob <= 1), c, INVALID, "prob must be between 0 and 1, got %f", prob);
    int64_t n = 1;
    for (uint64_t k = 0; k < c->v[0].size; k++) n *= c->v[0].ints[k];
    int64_t need = mask_bytes(n);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(T(c, out)) != need, c, INVALID, "out must have %lld elements (the element "
                            "count aligned to 128, in bits), got %lld", (long long)need,
                            (long long)aclStubNumel(T(c, out)));
    if (pdt >= 0) {
        aclDataType pd = c->v[pdt].dtype;
        ACLSTUB_RETURN_ERROR_IF(pd != ACL_FLOAT && pd != ACL_FLOAT16 && pd != ACL_BF16, c, INVALID, "probDataType "
                                "must be FLOAT, FLOAT16 or BF16, got %s", aclStubDtypeName(pd));
    }
    ACLSTUB_TRY(seed_offset(c, &p->so, DT(ACL_INT64)));
    p->a = prob, p->out_t = out;
    return finish(c, p);
}

/* aclnnDropoutDoMask(self, mask, prob, out) and aclnnDropoutBackward(gradOutput, mask, scale, out): the backward's
 * probability is 1 - 1 / scale (1 when scale is 0) */
static aclnnStatus do_mask_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_DO_MASK);
    const aclStubTensorDesc *self = T(c, 0), *out = T(c, 3);
    bool backward = param(c, "scale") >= 0;
    if (backward && aclStubNumel(self) == 0) return aclStubOpNothingToDo(c);
    if (!backward && (aclStubNumel(self) == 0 || aclStubNumel(T(c, 1)) == 0)) return aclStubOpNothingToDo(c);
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(self->dtype, out->dtype), c, INVALID, "self's %s cannot be cast to out's "
                            "%s", aclStubDtypeName(self->dtype), aclStubDtypeName(out->dtype));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 1, DT(ACL_UINT8)));
    double scale = c->v[2].f, prob = backward ? (scale == 0.0 ? 1.0 : 1.0 - 1.0 / scale) : scale;
    ACLSTUB_RETURN_ERROR_IF(!(prob >= 0 && prob <= 1), c, INVALID, backward ? "scale %f gives p = 1 - 1 / scale "
                            "outside [0, 1]" : "prob must be between 0 and 1, got %f", scale);
    ACLSTUB_TRY(aclStubCheckMaxDim(c, 0, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckShape(c, 3, self->dims, self->ndim));
    int64_t need = mask_bytes(aclStubNumel(self));
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(T(c, 1)) != need, c, INVALID, "mask must have %lld elements, got %lld",
                            (long long)need, (long long)aclStubNumel(T(c, 1)));
    p->a = prob, p->scale = backward ? scale : prob < 1 ? 1.0 / (1.0 - prob) : 0.0;
    p->in_t = 0, p->mask_t = 1, p->out_t = 3;
    p->copy_only = prob == 0, p->zero_only = prob == 1;
    return finish(c, p);
}

#define RANDOM_DT (UNIFORM_DT | DT(ACL_BOOL))

/* aclnnInplaceRandom[Tensor](selfRef, from, to, ...) and aclnnInplaceRandomWithoutFromTo[Tensor](selfRef, ...):
 * integers uniform in [from, to), or in [0, 2^digits] (floats: digits = the significand's bits) and [0, max]
 * (integers) without a range, as torch's random_() */
static aclnnStatus random_check(aclStubOpCall *c) {
    Plan *p = new_plan(c, G_RANDOM);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, RANDOM_DT));
    ACLSTUB_TRY(aclStubCheckMaxDim(c, 0, MAX_DIMS));
    int f = param(c, "from"), t = param(c, "to");
    if (f >= 0) {
        int64_t from = c->v[f].i, to = c->v[t].i;
        ACLSTUB_RETURN_ERROR_IF(from >= to, c, INVALID, "from %lld must be less than to %lld", (long long)from,
                                (long long)to);
        p->from = from, p->range = (uint64_t)to - (uint64_t)from;
    } else {
        int digits;
        switch (T(c, 0)->dtype) {
        case ACL_FLOAT: digits = 24; break;
        case ACL_FLOAT16: digits = 11; break;
        case ACL_BF16: digits = 8; break;
        case ACL_DOUBLE: digits = 53; break;
        case ACL_INT8: digits = 7; break;
        case ACL_UINT8: digits = 8; break;
        case ACL_INT16: digits = 15; break;
        case ACL_INT32: digits = 31; break;
        case ACL_INT64: digits = 63; break;
        default: digits = 1; break; /* BOOL */
        }
        bool floating = aclStubIsFloating(T(c, 0)->dtype);
        p->from = 0, p->range = floating ? (UINT64_C(1) << digits) + 1 : UINT64_C(1) << digits;
    }
    ACLSTUB_TRY(seed_offset(c, &p->so, DT(ACL_INT64)));
    p->out_t = 0;
    return finish(c, p);
}

/* ---- Randperm and Multinomial ------------------------------------------------------------------------------------ */

typedef struct {
    int64_t n, rows, categories, samples;
    uint64_t seed, offset;
    SeedOffset so;
    int out;
    bool replacement;
} PermPlan;

static aclnnStatus randperm_kernel(const aclStubOpCall *c) {
    PermPlan q = *(const PermPlan *)c->plan;
    resolve(c, &q.so, &q.seed, &q.offset);
    const PermPlan *p = &q;
    int64_t *v = aclStubKernelScratch(c, (size_t)(p->n + 1) * sizeof(int64_t));
    if (v == NULL) return aclStubKernelOutOfMemory(c);
    for (int64_t i = 0; i < p->n; i++) v[i] = i;
    /* Fisher-Yates: step s swaps position i = n - 1 - s with j uniform in [0, i] (draw offset + s, 64 bits) */
    for (int64_t i = p->n - 1, s = 0; i > 0; i--, s++) {
        uint32_t w[2];
        draw(p->seed, p->offset + (uint64_t)s, w);
        uint64_t r = ((uint64_t)w[0] << 32) | w[1];
        int64_t j = (int64_t)(((unsigned __int128)r * (uint64_t)(i + 1)) >> 64);
        int64_t t = v[i];
        v[i] = v[j], v[j] = t;
    }
    const aclStubTensorDesc *out = T(c, 3);
    for (int64_t i = 0; i < p->n; i++) store_d(out, i, (double)v[i]);
    return OK;
}

#define RANDPERM_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_INT32) | DT(ACL_DOUBLE) | DT(ACL_INT64) | DT(ACL_INT8) | \
                     DT(ACL_UINT8) | DT(ACL_INT16) | DT(ACL_BF16))

static aclnnStatus randperm_check(aclStubOpCall *c) {
    PermPlan *p = c->plan;
    int64_t n = c->v[0].i;
    ACLSTUB_RETURN_ERROR_IF(n < 0, c, INVALID, "n must be non-negative, got %lld", (long long)n);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 3, RANDPERM_DT));
    ACLSTUB_TRY(aclStubCheckShape(c, 3, &n, 1));
    *p = (PermPlan){.n = n, .so = {(uint64_t)c->v[1].i, (uint64_t)c->v[2].i, -1, -1}, .out = 3};
    return n == 0 ? aclStubOpNothingToDo(c) : OK;
}

typedef struct {
    const aclStubOpCall *c;
    const PermPlan *p;
    int failed;
} MultCtx;

static void multinomial_rows(void *arg, int64_t begin, int64_t end) {
    MultCtx *x = arg;
    const PermPlan *p = x->p;
    const aclStubTensorDesc *self = T(x->c, 0), *out = T(x->c, p->out);
    int64_t C = p->categories, K = p->samples;
    double *buf = malloc((size_t)(2 * C + 1) * sizeof(double));
    int64_t *order = malloc((size_t)(C + 1) * sizeof(int64_t));
    if (buf == NULL || order == NULL) {
        free(buf), free(order);
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        double *cum = buf, *key = buf + C, total = 0.0;
        for (int64_t j = 0; j < C; j++) {
            double w = load_d(self, aclStubElemAt(self, r * C + j));
            key[j] = w;
            total += w;
            cum[j] = total;
        }
        if (p->replacement) { /* inverse CDF: the first category whose running sum exceeds u * total */
            for (int64_t k = 0; k < K; k++) {
                uint32_t w[2];
                draw(p->seed, p->offset + (uint64_t)(r * K + k), w);
                double u = uniform_d(w) * total;
                int64_t lo = 0, hi = C - 1;
                while (lo < hi) {
                    int64_t mid = (lo + hi) / 2;
                    if (cum[mid] > u) hi = mid;
                    else lo = mid + 1;
                }
                while (lo > 0 && key[lo] <= 0) lo--; /* never a zero-weight category at the end of the row */
                *(int64_t *)aclStubElemAt(out, r * K + k) = lo;
            }
        } else { /* weighted sampling without replacement: the K largest keys log(u) / w (Efraimidis-Spirakis) */
            for (int64_t j = 0; j < C; j++) {
                uint32_t w[2];
                draw(p->seed, p->offset + (uint64_t)(r * C + j), w);
                double u = ((double)w[0] + 1.0) * 0x1p-32;
                key[j] = key[j] > 0 ? log(u) / key[j] : -INFINITY;
            }
            if (!aclStubTopkLane(key, ACL_DOUBLE, C, K, true, order)) {
                __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
                break;
            }
            for (int64_t k = 0; k < K; k++) *(int64_t *)aclStubElemAt(out, r * K + k) = order[k];
        }
    }
    free(buf);
    free(order);
}

static aclnnStatus multinomial_kernel(const aclStubOpCall *c) {
    PermPlan q = *(const PermPlan *)c->plan;
    resolve(c, &q.so, &q.seed, &q.offset);
    MultCtx x = {c, &q, 0};
    aclStubParallelFor(x.p->rows, 1, multinomial_rows, &x);
    return x.failed ? aclStubKernelOutOfMemory(c) : OK;
}

/* aclnnMultinomial(self, numsamples, replacement, seed, offset, out) */
static aclnnStatus multinomial_check(aclStubOpCall *c) {
    PermPlan *p = c->plan;
    int oi = param(c, "out");
    const aclStubTensorDesc *self = T(c, 0), *out = T(c, oi);
    int64_t k = c->v[1].i;
    bool repl = c->v[2].b;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, 0, FLOATS4));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(c, oi, DT(ACL_INT64)));
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 1 && self->ndim != 2, c, INVALID, "self must have 1 or 2 dimensions, got %u",
                            self->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != self->ndim, c, INVALID, "out must have self's %u dimensions", self->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->dims[out->ndim - 1] != k, c, INVALID, "out's last dimension must be numsamples "
                            "(%lld), got %lld", (long long)k, (long long)out->dims[out->ndim - 1]);
    ACLSTUB_RETURN_ERROR_IF(self->ndim == 2 && self->dims[0] != out->dims[0], c, INVALID, "out's first dimension must "
                            "be self's (%lld)", (long long)self->dims[0]);
    int64_t C = self->dims[self->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(k <= 0, c, INVALID, "numsamples must be > 0, got %lld", (long long)k);
    ACLSTUB_RETURN_ERROR_IF(!repl && k > C, c, INVALID, "numsamples (%lld) must be <= the number of categories (%lld) "
                            "without replacement", (long long)k, (long long)C);
    ACLSTUB_RETURN_ERROR_IF(C > (1 << 24), c, INVALID, "number of categories cannot exceed 2^24");
    *p = (PermPlan){.rows = self->ndim == 2 ? self->dims[0] : 1, .categories = C, .samples = k, .out = oi,
                    .replacement = repl};
    ACLSTUB_TRY(seed_offset(c, &p->so, DT(ACL_INT64)));
    return aclStubNumel(self) == 0 || aclStubNumel(out) == 0 ? aclStubOpNothingToDo(c) : OK;
}

/* ---- tables ------------------------------------------------------------------------------------------------- */

#define IN(n) {n, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define REF(n) {n, ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define OUT(n) {n, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define A(n, role) {n, role, 0, NULL, 0, 0, 0}
#define SEED_OFFSET A("seed", ACLSTUB_INT), A("offset", ACLSTUB_INT)

static const aclStubParam P_UNIFORM[] = {REF("selfRef"), A("from", ACLSTUB_FLOAT), A("to", ACLSTUB_FLOAT), SEED_OFFSET};
static const aclStubParam P_INORMAL[] = {REF("selfRef"), A("mean", ACLSTUB_FLOAT), A("std", ACLSTUB_FLOAT),
                                         SEED_OFFSET};
#define SEED_OFFSET_T IN("seedTensor"), IN("offsetTensor"), A("offset", ACLSTUB_INT)
static const aclStubParam P_UNIFORM_T[] = {REF("selfRef"), A("from", ACLSTUB_FLOAT), A("to", ACLSTUB_FLOAT),
                                           SEED_OFFSET_T};
static const aclStubParam P_INORMAL_T[] = {REF("selfRef"), A("mean", ACLSTUB_FLOAT), A("std", ACLSTUB_FLOAT),
                                           SEED_OFFSET_T};
static const aclStubParam P_GENMASK2_T[] = {A("shape", ACLSTUB_INT_ARRAY), A("prob", ACLSTUB_FLOAT), SEED_OFFSET_T,
                                            A("probDataType", ACLSTUB_DTYPE), OUT("out")};
static const aclStubParam P_MULT_T[] = {IN("self"), A("numsamples", ACLSTUB_INT), A("replacement", ACLSTUB_BOOL),
                                        SEED_OFFSET_T, OUT("out")};
static const aclStubParam P_NTT[] = {IN("mean"), IN("std"), SEED_OFFSET, OUT("out")};
static const aclStubParam P_NTF[] = {IN("mean"), A("std", ACLSTUB_FLOAT), SEED_OFFSET, OUT("out")};
static const aclStubParam P_NFT[] = {A("mean", ACLSTUB_FLOAT), IN("std"), SEED_OFFSET, OUT("out")};
static const aclStubParam P_NFF[] = {A("mean", ACLSTUB_FLOAT), A("std", ACLSTUB_FLOAT), SEED_OFFSET, OUT("out")};
static const aclStubParam P_BERN[] = {IN("self"), A("prob", ACLSTUB_SCALAR), SEED_OFFSET, OUT("out")};
static const aclStubParam P_BERN_T[] = {IN("self"), IN("prob"), SEED_OFFSET, OUT("out")};
static const aclStubParam P_IBERN[] = {REF("selfRef"), A("prob", ACLSTUB_SCALAR), SEED_OFFSET};
static const aclStubParam P_IBERN_T[] = {REF("selfRef"), IN("prob"), SEED_OFFSET};
static const aclStubParam P_DROPOUT[] = {IN("input"), A("p", ACLSTUB_FLOAT), A("train", ACLSTUB_BOOL), SEED_OFFSET,
                                        OUT("out"), OUT("maskOut")};
static const aclStubParam P_GENMASK[] = {A("shape", ACLSTUB_INT_ARRAY), A("prob", ACLSTUB_FLOAT), SEED_OFFSET,
                                        OUT("out")};
static const aclStubParam P_GENMASK2[] = {A("shape", ACLSTUB_INT_ARRAY), A("prob", ACLSTUB_FLOAT), SEED_OFFSET,
                                         A("probDataType", ACLSTUB_DTYPE), OUT("out")};
static const aclStubParam P_DOMASK[] = {IN("self"), IN("mask"), A("prob", ACLSTUB_FLOAT), OUT("out")};
static const aclStubParam P_RANDOM[] = {REF("selfRef"), A("from", ACLSTUB_INT), A("to", ACLSTUB_INT), SEED_OFFSET};
static const aclStubParam P_RANDOM_T[] = {REF("selfRef"), A("from", ACLSTUB_INT), A("to", ACLSTUB_INT), SEED_OFFSET_T};
static const aclStubParam P_RANDOM0[] = {REF("selfRef"), SEED_OFFSET};
static const aclStubParam P_RANDOM0_T[] = {REF("selfRef"), SEED_OFFSET_T};
static const aclStubParam P_DROPOUT_BWD[] = {IN("gradOutput"), IN("mask"), A("scale", ACLSTUB_FLOAT), OUT("out")};
static const aclStubParam P_EXPONENTIAL[] = {REF("selfRef"), A("count", ACLSTUB_INT), A("lambda", ACLSTUB_FLOAT),
                                            SEED_OFFSET};
static const aclStubParam P_RANDPERM[] = {A("n", ACLSTUB_INT), SEED_OFFSET, OUT("out")};
static const aclStubParam P_MULT[] = {IN("self"), A("numsamples", ACLSTUB_INT), A("replacement", ACLSTUB_BOOL),
                                     SEED_OFFSET, OUT("out")};

#define DEF(var, name, params, check, kernel, plan) \
    static const aclStubOpDef var = {name, params, ACLSTUB_LEN(params), NULL, check, kernel, sizeof(plan)}
DEF(D_UNIFORM, "aclnnInplaceUniform", P_UNIFORM, uniform_check, gen_kernel, Plan);
DEF(D_INORMAL, "aclnnInplaceNormal", P_INORMAL, inplace_normal_check, gen_kernel, Plan);
DEF(D_NTT, "aclnnNormalTensorTensor", P_NTT, normal_out_check, gen_kernel, Plan);
DEF(D_NTF, "aclnnNormalTensorFloat", P_NTF, normal_out_check, gen_kernel, Plan);
DEF(D_NFT, "aclnnNormalFloatTensor", P_NFT, normal_out_check, gen_kernel, Plan);
DEF(D_NFF, "aclnnNormalFloatFloat", P_NFF, normal_out_check, gen_kernel, Plan);
DEF(D_BERN, "aclnnBernoulli", P_BERN, bernoulli_check, gen_kernel, Plan);
DEF(D_BERN_T, "aclnnBernoulliTensor", P_BERN_T, bernoulli_check, gen_kernel, Plan);
DEF(D_IBERN, "aclnnInplaceBernoulli", P_IBERN, bernoulli_check, gen_kernel, Plan);
DEF(D_IBERN_T, "aclnnInplaceBernoulliTensor", P_IBERN_T, bernoulli_check, gen_kernel, Plan);
DEF(D_DROPOUT, "aclnnDropout", P_DROPOUT, dropout_check, gen_kernel, Plan);
DEF(D_GENMASK, "aclnnDropoutGenMask", P_GENMASK, gen_mask_check, gen_kernel, Plan);
DEF(D_GENMASK2, "aclnnDropoutGenMaskV2", P_GENMASK2, gen_mask_check, gen_kernel, Plan);
DEF(D_DOMASK, "aclnnDropoutDoMask", P_DOMASK, do_mask_check, gen_kernel, Plan);
DEF(D_UNIFORM_T, "aclnnInplaceUniformTensor", P_UNIFORM_T, uniform_check, gen_kernel, Plan);
DEF(D_INORMAL_T, "aclnnInplaceNormalTensor", P_INORMAL_T, inplace_normal_check, gen_kernel, Plan);
DEF(D_GENMASK2_T, "aclnnDropoutGenMaskV2Tensor", P_GENMASK2_T, gen_mask_check, gen_kernel, Plan);
DEF(D_MULT_T, "aclnnMultinomialTensor", P_MULT_T, multinomial_check, multinomial_kernel, PermPlan);
DEF(D_RANDOM, "aclnnInplaceRandom", P_RANDOM, random_check, gen_kernel, Plan);
DEF(D_RANDOM_T, "aclnnInplaceRandomTensor", P_RANDOM_T, random_check, gen_kernel, Plan);
DEF(D_RANDOM0, "aclnnInplaceRandomWithoutFromTo", P_RANDOM0, random_check, gen_kernel, Plan);
DEF(D_RANDOM0_T, "aclnnInplaceRandomWithoutFromToTensor", P_RANDOM0_T, random_check, gen_kernel, Plan);
DEF(D_DROPOUT_BWD, "aclnnDropoutBackward", P_DROPOUT_BWD, do_mask_check, gen_kernel, Plan);
DEF(D_EXPONENTIAL, "aclnnSimThreadExponential", P_EXPONENTIAL, exponential_check, gen_kernel, Plan);
DEF(D_RANDPERM, "aclnnRandperm", P_RANDPERM, randperm_check, randperm_kernel, PermPlan);
DEF(D_MULT, "aclnnMultinomial", P_MULT, multinomial_check, multinomial_kernel, PermPlan);

#define T_(n) (const aclTensor *, n)
#define M_(n) (aclTensor *, n)
ACLSTUB_DEFINE_OP(aclnnInplaceUniform, D_UNIFORM, T_(selfRef), (double, from), (double, to), (uint64_t, seed),
                  (uint64_t, offset))
ACLSTUB_DEFINE_OP(aclnnInplaceNormal, D_INORMAL, T_(selfRef), (float, mean), (float, std), (int64_t, seed),
                  (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnNormalTensorTensor, D_NTT, T_(mean), T_(std), (int64_t, seed), (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnNormalTensorFloat, D_NTF, T_(mean), (float, std), (int64_t, seed), (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnNormalFloatTensor, D_NFT, (float, mean), T_(std), (int64_t, seed), (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnNormalFloatFloat, D_NFF, (float, mean), (float, std), (int64_t, seed), (int64_t, offset),
                  M_(out))
ACLSTUB_DEFINE_OP(aclnnBernoulli, D_BERN, T_(self), (const aclScalar *, prob), (int64_t, seed), (int64_t, offset),
                  M_(out))
ACLSTUB_DEFINE_OP(aclnnBernoulliTensor, D_BERN_T, T_(self), T_(prob), (int64_t, seed), (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnInplaceBernoulli, D_IBERN, T_(selfRef), (const aclScalar *, prob), (int64_t, seed),
                  (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnInplaceBernoulliTensor, D_IBERN_T, T_(selfRef), T_(prob), (int64_t, seed), (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnDropout, D_DROPOUT, T_(input), (double, p), (bool, train), (int64_t, seed), (int64_t, offset),
                  M_(out), M_(maskOut))
ACLSTUB_DEFINE_OP(aclnnDropoutGenMask, D_GENMASK, (const aclIntArray *, shape), (double, prob), (int64_t, seed),
                  (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnDropoutGenMaskV2, D_GENMASK2, (const aclIntArray *, shape), (double, prob), (int64_t, seed),
                  (int64_t, offset), (aclDataType, probDataType), M_(out))
ACLSTUB_DEFINE_OP(aclnnDropoutDoMask, D_DOMASK, T_(self), T_(mask), (double, prob), M_(out))
ACLSTUB_DEFINE_OP(aclnnSimThreadExponential, D_EXPONENTIAL, M_(selfRef), (int64_t, count), (double, lambda),
                  (int64_t, seed), (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnRandperm, D_RANDPERM, (int64_t, n), (int64_t, seed), (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnMultinomial, D_MULT, T_(self), (int64_t, numsamples), (bool, replacement), (int64_t, seed),
                  (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnInplaceUniformTensor, D_UNIFORM_T, T_(selfRef), (double, from), (double, to), T_(seedTensor),
                  T_(offsetTensor), (uint64_t, offset))
ACLSTUB_DEFINE_OP(aclnnInplaceNormalTensor, D_INORMAL_T, T_(selfRef), (float, mean), (float, std), T_(seedTensor),
                  T_(offsetTensor), (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnDropoutGenMaskV2Tensor, D_GENMASK2_T, (const aclIntArray *, shape), (double, prob),
                  T_(seedTensor), T_(offsetTensor), (int64_t, offset), (aclDataType, probDataType), M_(out))
ACLSTUB_DEFINE_OP(aclnnMultinomialTensor, D_MULT_T, T_(self), (int64_t, numsamples), (bool, replacement),
                  T_(seedTensor), T_(offsetTensor), (int64_t, offset), M_(out))
ACLSTUB_DEFINE_OP(aclnnInplaceRandom, D_RANDOM, T_(selfRef), (int64_t, from), (int64_t, to), (int64_t, seed),
                  (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnInplaceRandomTensor, D_RANDOM_T, T_(selfRef), (int64_t, from), (int64_t, to), T_(seedTensor),
                  T_(offsetTensor), (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnInplaceRandomWithoutFromTo, D_RANDOM0, T_(selfRef), (int64_t, seed), (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnInplaceRandomWithoutFromToTensor, D_RANDOM0_T, T_(selfRef), T_(seedTensor), T_(offsetTensor),
                  (int64_t, offset))
ACLSTUB_DEFINE_OP(aclnnDropoutBackward, D_DROPOUT_BWD, T_(gradOutput), T_(mask), (double, scale), M_(out))
