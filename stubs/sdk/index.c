/*
 * Data movement and the gather/scatter core of the indexing operators (aclstub/op_index.h): strided copies and
 * fills over the element iterator, contiguous staging of inputs and outputs, index validation, and the block
 * and element-wise gathers and scatters, split over the stub's threads along columns only.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclstub/op_index.h"
#include "check.h"
#include "sdk_internal.h"

/* ---- copies and fills ------------------------------------------------------------------------------------- */

/* Fixed-size element moves through memcpy (no aliasing assumptions; compiled to plain loads and stores). */
#define COPY_STRIDED(N)                                                                                      \
    do {                                                                                                     \
        if (s[0] == (N) && s[1] == 0) {                                                                      \
            unsigned char v[N];                                                                              \
            memcpy(v, d[1], N);                                                                              \
            for (int64_t i = 0; i < n; i++) memcpy(d[0] + i * (N), v, N);                                    \
        } else {                                                                                             \
            for (int64_t i = 0; i < n; i++) memcpy(d[0] + i * s[0], d[1] + i * s[1], N);                     \
        }                                                                                                    \
        return;                                                                                              \
    } while (0)

/* The copy loop of the element iterator: ctx is the element size. */
static void copy_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const int64_t es = (int64_t)*(const size_t *)ctx;
    if (s[0] == es && s[1] == es) {
        memcpy(d[0], d[1], (size_t)(n * es));
        return;
    }
    switch (es) {
    case 1: COPY_STRIDED(1);
    case 2: COPY_STRIDED(2);
    case 4: COPY_STRIDED(4);
    case 8: COPY_STRIDED(8);
    case 16: COPY_STRIDED(16);
    default:
        for (int64_t i = 0; i < n; i++) memcpy(d[0] + i * s[0], d[1] + i * s[1], (size_t)es);
    }
}

/*
 * Same-dtype copies whose source and destination are contiguous along different dimensions (a transpose):
 * 128 x 32 tiles, so both sides are read and written a cache line at a time. Dimension a is dst's unit-stride one,
 * b src's; the others are outer. Items of the parallel loop are (outer, strip of 128 b-rows).
 */
#define TILE 32   /* columns (a) per tile */
#define STRIP 128 /* rows (b) per item: each source page is visited nb / STRIP times */

typedef struct {
    char *dst;
    const char *src;
    int64_t na, nb, dsb, ssa; /* sizes of a and b; dst's stride along b, src's along a (elements) */
    int64_t outer, strips;
    uint32_t nd;               /* outer dimensions */
    int64_t odims[ACLSTUB_MAX_DIMS], ods[ACLSTUB_MAX_DIMS], oss[ACLSTUB_MAX_DIMS];
    size_t es;
} TileCtx;

#define TILE_MOVE(N)                                                                                         \
    for (int64_t j0 = 0; j0 < t->na; j0 += TILE) {                                                           \
        int64_t j1 = j0 + TILE < t->na ? j0 + TILE : t->na;                                                  \
        for (int64_t i = i0; i < i1; i++)                                                                    \
            for (int64_t j = j0; j < j1; j++) memcpy(d + (i * t->dsb + j) * (N), sp + (i + j * t->ssa) * (N), N); \
    }                                                                                                        \
    break;

static void tile_range(void *ctx, int64_t begin, int64_t end) {
    const TileCtx *t = ctx;
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / t->strips, i0 = (u % t->strips) * STRIP, i1 = i0 + STRIP < t->nb ? i0 + STRIP : t->nb;
        int64_t od = 0, os = 0, rest = o;
        for (uint32_t k = t->nd; k-- > 0;) {
            int64_t x = rest % t->odims[k];
            rest /= t->odims[k];
            od += x * t->ods[k];
            os += x * t->oss[k];
        }
        char *d = t->dst + od * (int64_t)t->es;
        const char *sp = t->src + os * (int64_t)t->es;
        switch (t->es) {
        case 1: TILE_MOVE(1)
        case 2: TILE_MOVE(2)
        case 4: TILE_MOVE(4)
        case 8: TILE_MOVE(8)
        case 16: TILE_MOVE(16)
        default: TILE_MOVE(t->es)
        }
    }
}

/* The tiled copy when it applies (true: done). */
static bool copy_tiled(const aclStubTensorDesc *dst, const aclStubTensorDesc *src) {
    if (dst->dtype != src->dtype || dst->ndim != src->ndim || dst->ndim < 2) return false;
    int a = -1, b = -1;
    for (uint32_t k = 0; k < dst->ndim; k++) {
        if (dst->dims[k] <= 1) continue;
        if (dst->strides[k] == 1) a = (int)k;
        if (src->strides[k] == 1) b = (int)k;
    }
    if (a < 0 || b < 0 || a == b || dst->dims[a] < 16 || dst->dims[b] < 16) return false;
    TileCtx t;
    memset(&t, 0, sizeof t);
    t.es = aclDataTypeSize(dst->dtype);
    t.dst = (char *)dst->data + dst->offset * (int64_t)t.es;
    t.src = (const char *)src->data + src->offset * (int64_t)t.es;
    t.na = dst->dims[a], t.nb = dst->dims[b], t.dsb = dst->strides[b], t.ssa = src->strides[a];
    t.outer = 1;
    for (uint32_t k = 0; k < dst->ndim; k++) {
        if ((int)k == a || (int)k == b) continue;
        t.odims[t.nd] = dst->dims[k], t.ods[t.nd] = dst->strides[k], t.oss[t.nd] = src->strides[k];
        t.outer *= dst->dims[k];
        t.nd++;
    }
    t.strips = (t.nb + STRIP - 1) / STRIP;
    aclStubParallelFor(t.outer * t.strips, 1 + 8192 / (STRIP * t.na), tile_range, &t);
    return true;
}

aclnnStatus aclStubCopyView(const aclStubOpCall *call, const aclStubTensorDesc *dst, const aclStubTensorDesc *src,
                            aclDataType via) {
    if (aclStubNumel(dst) == 0) return OK;
    if ((int)via < 0 && copy_tiled(dst, src)) return OK;
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 1;
    it.tensor[0] = dst;
    it.tensor[1] = src;
    it.loop_dtype[0] = it.loop_dtype[1] = dst->dtype;
    if ((int)via >= 0 && via != src->dtype && via != dst->dtype) {
        it.has_via[1] = true;
        it.via[1] = via;
    }
    size_t es = aclDataTypeSize(dst->dtype);
    return aclStubIterRun(call, &it, copy_loop, &es);
}

aclnnStatus aclStubFillView(const aclStubOpCall *call, const aclStubTensorDesc *dst, aclDataType dtype,
                            const void *value) {
    if (aclStubNumel(dst) == 0) return OK;
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 1;
    it.tensor[0] = dst;
    it.loop_dtype[0] = it.loop_dtype[1] = dst->dtype;
    it.scalar[1].dtype = dtype;
    size_t vs = aclDataTypeSize(dtype);
    memcpy(it.scalar[1].value, value, vs < sizeof it.scalar[1].value ? vs : sizeof it.scalar[1].value);
    size_t es = aclDataTypeSize(dst->dtype);
    return aclStubIterRun(call, &it, copy_loop, &es);
}

/* A contiguous description of t's shape in dtype dt over fresh kernel scratch. */
static aclnnStatus scratch_like(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dt,
                                aclStubTensorDesc *out) {
    *out = *t;
    out->dtype = dt;
    out->offset = 0;
    aclStubContiguousStrides(out);
    int64_t n = aclStubNumel(t);
    out->data = NULL;
    if (n == 0) return OK;
    if (n == INT64_MAX || (uint64_t)n > ((uint64_t)1 << 62) / aclDataTypeSize(dt))
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "a buffer of %lld elements is too large", (long long)n);
    out->data = aclStubKernelScratch(call, (size_t)n * aclDataTypeSize(dt));
    if (out->data == NULL) return aclStubKernelOutOfMemory(call);
    return OK;
}

aclnnStatus aclStubContiguousIn(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dtype,
                                aclStubTensorDesc *out) {
    aclDataType dt = (int)dtype < 0 ? t->dtype : dtype;
    if (dt == t->dtype && aclStubViewIsContiguous(t)) {
        *out = *t;
        aclStubContiguousStrides(out);
        return OK;
    }
    ACLSTUB_TRY(scratch_like(call, t, dt, out));
    return aclStubCopyView(call, out, t, ACL_DT_UNDEFINED);
}

aclnnStatus aclStubInputApart(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dtype,
                              const aclStubTensorDesc *avoid, aclStubTensorDesc *out) {
    ACLSTUB_TRY(aclStubContiguousIn(call, t, dtype, out));
    if (avoid == NULL || !aclStubViewsOverlap(out, avoid)) return OK;
    aclStubTensorDesc c;
    ACLSTUB_TRY(scratch_like(call, out, out->dtype, &c));
    ACLSTUB_TRY(aclStubCopyView(call, &c, out, ACL_DT_UNDEFINED));
    *out = c;
    return OK;
}

aclnnStatus aclStubOutputBegin(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dtype, bool load,
                               aclStubTensorDesc *buf) {
    aclDataType dt = (int)dtype < 0 ? t->dtype : dtype;
    if (dt == t->dtype && aclStubViewIsContiguous(t)) {
        *buf = *t;
        aclStubContiguousStrides(buf);
        return OK;
    }
    ACLSTUB_TRY(scratch_like(call, t, dt, buf));
    return load ? aclStubCopyView(call, buf, t, ACL_DT_UNDEFINED) : OK;
}

aclnnStatus aclStubOutputEnd(const aclStubOpCall *call, const aclStubTensorDesc *t, const aclStubTensorDesc *buf) {
    if (buf->data == t->data && buf->offset == t->offset && buf->dtype == t->dtype) return OK;
    return aclStubCopyView(call, t, buf, ACL_DT_UNDEFINED);
}

/* ---- indices ---------------------------------------------------------------------------------------------- */

aclnnStatus aclStubIndexOutOfRange(const aclStubOpCall *call, const char *what, int64_t value, int64_t entry,
                                   int64_t lo, int64_t hi) {
    const aclOpExecutor *w = (const aclOpExecutor *)((const char *)call - offsetof(aclOpExecutor, call));
    if (w->check_site != NULL)
        aclStubCheckReportAt(w->check_site, CHECK_MEM, "index-out-of-range", w->op->name,
                             "'%s'[%lld] = %lld is outside [%lld, %lld): a device may read or write out of bounds "
                             "with it; the stub fails the launch", what, (long long)entry, (long long)value,
                             (long long)lo, (long long)hi);
    return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID, "%s: index %lld (entry %lld) is out of range for a "
                             "dimension of size %lld", what, (long long)value, (long long)entry, (long long)hi);
}

/* t shares memory with a tensor the call writes (an output or in-place parameter, a tensor of an output list). */
static bool overlaps_written(const aclStubOpCall *call, const aclStubTensorDesc *t) {
    for (size_t i = 0; i < call->op->num_params; i++) {
        aclStubRole r = call->op->params[i].role;
        if (r == ACLSTUB_OUTPUT || r == ACLSTUB_OPTIONAL_OUTPUT || r == ACLSTUB_INPLACE) {
            if (call->v[i].tensor != NULL && aclStubViewsOverlap(call->v[i].tensor, t)) return true;
        } else if (r == ACLSTUB_OUTPUT_LIST) {
            for (uint64_t k = 0; k < call->v[i].size; k++)
                if (call->v[i].tensors[k].data != NULL && aclStubViewsOverlap(&call->v[i].tensors[k], t)) return true;
        }
    }
    return false;
}

aclnnStatus aclStubIndexLoad(const aclStubOpCall *call, const aclStubTensorDesc *idx, int64_t size,
                             bool wrap_negative, const char *what, const int64_t **out) {
    if (idx->dtype == ACL_INT64 && aclStubViewIsContiguous(idx) && !overlaps_written(call, idx)) {
        /* read in place when nothing needs wrapping and no output of the call shares its memory */
        const int64_t *v = (const int64_t *)aclStubViewBase(idx);
        int64_t n = aclStubNumel(idx), k = 0;
        while (k < n && v[k] >= 0 && v[k] < size) k++;
        if (k == n) {
            *out = v;
            return OK;
        }
    }
    aclStubTensorDesc buf;
    ACLSTUB_TRY(scratch_like(call, idx, ACL_INT64, &buf));
    ACLSTUB_TRY(aclStubCopyView(call, &buf, idx, ACL_DT_UNDEFINED));
    int64_t n = aclStubNumel(idx);
    int64_t *v = buf.data;
    for (int64_t k = 0; k < n; k++) {
        int64_t x = v[k];
        if (x < 0 && wrap_negative && x >= -size) x += size;
        if (x < 0 || x >= size)
            return aclStubIndexOutOfRange(call, what, v[k], k, wrap_negative ? -size : 0, size);
        v[k] = x;
    }
    *out = v;
    return OK;
}

/* ---- block gather ------------------------------------------------------------------------------------------ */

typedef struct {
    char *out;
    const char *src;
    const int64_t *idx;
    int64_t n, d;
    size_t row; /* bytes of one inner block */
} GatherCtx;

#define GATHER_ROWS(N)                                                                                       \
    for (int64_t r = begin; r < end; r++) {                                                                  \
        int64_t o = r / g->n, j = r % g->n;                                                                  \
        memcpy(g->out + r * (N), g->src + (o * g->d + g->idx[j]) * (N), N);                                  \
    }                                                                                                        \
    return;

static void gather_range(void *ctx, int64_t begin, int64_t end) {
    const GatherCtx *g = ctx;
    switch (g->row) {
    case 1: GATHER_ROWS(1)
    case 2: GATHER_ROWS(2)
    case 4: GATHER_ROWS(4)
    case 8: GATHER_ROWS(8)
    case 16: GATHER_ROWS(16)
    default:
        for (int64_t r = begin; r < end; r++) {
            int64_t o = r / g->n, j = r % g->n;
            memcpy(g->out + r * (int64_t)g->row, g->src + (o * g->d + g->idx[j]) * (int64_t)g->row, g->row);
        }
    }
}

void aclStubGatherBlocks(void *out, const void *src, const int64_t *idx, int64_t n, int64_t outer, int64_t d,
                         int64_t inner, size_t esize) {
    if (n <= 0 || outer <= 0 || inner <= 0) return;
    GatherCtx g = {out, src, idx, n, d, (size_t)inner * esize};
    int64_t rows = outer * n;
    int64_t min_rows = (int64_t)(65536 / g.row) + 1;
    aclStubParallelFor(rows, min_rows, gather_range, &g);
}

/* ---- scatter: typed combines ------------------------------------------------------------------------------- */

/* One combine of m elements: dst[k * ds] (op)= src[k * ss] (ss 0: a scalar); strides in elements. */
typedef void (*CombineFn)(char *dst, int64_t ds, const char *src, int64_t ss, int64_t m, aclStubScatterOp op,
                          double alpha);

#define NAN_MAX(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) > (b) ? (a) : (b))
#define NAN_MIN(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) < (b) ? (a) : (b))
#define INT_MAX_(a, b) ((a) > (b) ? (a) : (b))
#define INT_MIN_(a, b) ((a) < (b) ? (a) : (b))

#define COMBINE_LOOP(T, EXPR)                                                                                \
    for (int64_t k = 0; k < m; k++) {                                                                        \
        T a, b;                                                                                              \
        memcpy(&a, dst + k * ds * (int64_t)sizeof(T), sizeof(T));                                            \
        memcpy(&b, src + k * ss * (int64_t)sizeof(T), sizeof(T));                                            \
        a = (T)(EXPR);                                                                                       \
        memcpy(dst + k * ds * (int64_t)sizeof(T), &a, sizeof(T));                                            \
    }

#define COMBINE_REAL(NAME, T, MAXF, MINF, ALPHA_T)                                                           \
    static void NAME(char *dst, int64_t ds, const char *src, int64_t ss, int64_t m, aclStubScatterOp op,     \
                     double alpha) {                                                                         \
        const ALPHA_T al = (ALPHA_T)alpha;                                                                   \
        switch (op) {                                                                                        \
        case ACLSTUB_SCATTER_ADD:                                                                            \
            if (alpha == 1.0) {                                                                              \
                COMBINE_LOOP(T, a + b)                                                                       \
            } else {                                                                                         \
                COMBINE_LOOP(T, a + (T)(al * b))                                                             \
            }                                                                                                \
            break;                                                                                           \
        case ACLSTUB_SCATTER_MUL: COMBINE_LOOP(T, a * b) break;                                              \
        case ACLSTUB_SCATTER_MAX: COMBINE_LOOP(T, MAXF(a, b)) break;                                         \
        case ACLSTUB_SCATTER_MIN: COMBINE_LOOP(T, MINF(a, b)) break;                                         \
        default: COMBINE_LOOP(T, b) break;                                                                   \
        }                                                                                                    \
    }

COMBINE_REAL(combine_f32, float, NAN_MAX, NAN_MIN, float)
COMBINE_REAL(combine_f64, double, NAN_MAX, NAN_MIN, double)
COMBINE_REAL(combine_i8, int8_t, INT_MAX_, INT_MIN_, int64_t)
COMBINE_REAL(combine_i16, int16_t, INT_MAX_, INT_MIN_, int64_t)
COMBINE_REAL(combine_i32, int32_t, INT_MAX_, INT_MIN_, int64_t)
COMBINE_REAL(combine_i64, int64_t, INT_MAX_, INT_MIN_, int64_t)
COMBINE_REAL(combine_u8, uint8_t, INT_MAX_, INT_MIN_, int64_t)
COMBINE_REAL(combine_u16, uint16_t, INT_MAX_, INT_MIN_, int64_t)
COMBINE_REAL(combine_u32, uint32_t, INT_MAX_, INT_MIN_, int64_t)
COMBINE_REAL(combine_u64, uint64_t, INT_MAX_, INT_MIN_, int64_t)

/* BOOL: add is "or", mul is "and", max is "or", min is "and". */
static void combine_bool(char *dst, int64_t ds, const char *src, int64_t ss, int64_t m, aclStubScatterOp op,
                         double alpha) {
    bool scaled = alpha != 0.0;
    for (int64_t k = 0; k < m; k++) {
        bool a = dst[k * ds] != 0, b = src[k * ss] != 0;
        switch (op) {
        case ACLSTUB_SCATTER_ADD:
        case ACLSTUB_SCATTER_MAX: a = a || (b && scaled); break;
        case ACLSTUB_SCATTER_MUL:
        case ACLSTUB_SCATTER_MIN: a = a && b; break;
        default: a = b; break;
        }
        dst[k * ds] = (char)a;
    }
}

#define COMBINE_COMPLEX(NAME, T)                                                                             \
    static void NAME(char *dst, int64_t ds, const char *src, int64_t ss, int64_t m, aclStubScatterOp op,     \
                     double alpha) {                                                                         \
        switch (op) {                                                                                        \
        case ACLSTUB_SCATTER_ADD: COMBINE_LOOP(T, a + (alpha == 1.0 ? b : b * (T)alpha)) break;              \
        case ACLSTUB_SCATTER_MUL: COMBINE_LOOP(T, a * b) break;                                              \
        default: COMBINE_LOOP(T, b) break;                                                                   \
        }                                                                                                    \
    }
COMBINE_COMPLEX(combine_c64, float _Complex)
COMBINE_COMPLEX(combine_c128, double _Complex)

/* Any dtype, COPY only. */
static void combine_bytes(char *dst, int64_t ds, const char *src, int64_t ss, int64_t m, size_t es) {
    for (int64_t k = 0; k < m; k++) memcpy(dst + k * ds * (int64_t)es, src + k * ss * (int64_t)es, es);
}

static CombineFn combine_for(aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT: return combine_f32;
    case ACL_DOUBLE: return combine_f64;
    case ACL_INT8: return combine_i8;
    case ACL_INT16: return combine_i16;
    case ACL_INT32: return combine_i32;
    case ACL_INT64: return combine_i64;
    case ACL_UINT8: return combine_u8;
    case ACL_UINT16: return combine_u16;
    case ACL_UINT32: return combine_u32;
    case ACL_UINT64: return combine_u64;
    case ACL_BOOL: return combine_bool;
    case ACL_COMPLEX64: return combine_c64;
    case ACL_COMPLEX128: return combine_c128;
    default: return NULL;
    }
}

/* ---- block scatter ------------------------------------------------------------------------------------------ */

typedef struct {
    char *dst;
    const char *src; /* NULL: value */
    const char *value;
    const int64_t *idx;
    int64_t n, d, inner, block, blocks; /* a unit is (o, block b of `block` inner elements) */
    size_t es;
    CombineFn fn; /* NULL: byte copies */
    aclStubScatterOp op;
    double alpha;
} ScatterCtx;

static void scatter_range(void *ctx, int64_t begin, int64_t end) {
    const ScatterCtx *c = ctx;
    int64_t es = (int64_t)c->es;
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / c->blocks, i0 = (u % c->blocks) * c->block;
        int64_t m = c->inner - i0 < c->block ? c->inner - i0 : c->block;
        for (int64_t j = 0; j < c->n; j++) {
            char *dst = c->dst + ((o * c->d + c->idx[j]) * c->inner + i0) * es;
            const char *src = c->src ? c->src + ((o * c->n + j) * c->inner + i0) * es : c->value;
            int64_t ss = c->src ? 1 : 0;
            if (c->fn)
                c->fn(dst, 1, src, ss, m, c->op, c->alpha);
            else if (ss)
                memcpy(dst, src, (size_t)(m * es));
            else
                combine_bytes(dst, 1, src, 0, m, c->es);
        }
    }
}

/* Units of the column space: (outer x blocks of inner) with enough of them for the threads. */
static void column_units(int64_t outer, int64_t inner, int64_t *block, int64_t *blocks) {
    int64_t want = (int64_t)aclStubNumThreads() * 4;
    int64_t b = inner;
    if (outer < want && inner > 1024) {
        b = (inner * outer + want - 1) / want;
        if (b < 256) b = 256;
        if (b > inner) b = inner;
    }
    *block = b;
    *blocks = (inner + b - 1) / b;
}

aclnnStatus aclStubScatterBlocks(const aclStubOpCall *call, void *dst, const void *src, const void *value,
                                 const int64_t *idx, int64_t n, int64_t outer, int64_t d, int64_t inner,
                                 aclDataType dtype, aclStubScatterOp op, double alpha) {
    if (n <= 0 || outer <= 0 || inner <= 0) return OK;
    CombineFn fn = NULL;
    if (op != ACLSTUB_SCATTER_COPY) {
        fn = combine_for(dtype);
        if (fn == NULL)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "scatter: no combine for data type %s",
                                     aclStubDtypeName(dtype));
    }
    ScatterCtx c = {dst, src, value, idx, n, d, inner, 0, 0, aclDataTypeSize(dtype), fn, op, alpha};
    column_units(outer, inner, &c.block, &c.blocks);
    int64_t units = outer * c.blocks;
    int64_t work = n * c.block;
    aclStubParallelFor(units, work > 65536 ? 1 : 65536 / (work + 1) + 1, scatter_range, &c);
    return OK;
}

/* ---- element-wise gather / scatter --------------------------------------------------------------------------- */

/* Element offsets, in a tensor of shape `shape` (contiguous), of every multi-index of the sub-shape sub[from, to)
 * (row-major), into offs (prod(sub[from, to)) entries). */
static void sub_offsets(int64_t *offs, const int64_t *sub, const int64_t *shape, uint32_t r, uint32_t from,
                        uint32_t to) {
    int64_t strides[ACLSTUB_MAX_DIMS], s = 1;
    for (uint32_t d = r; d-- > 0;) {
        strides[d] = s;
        s *= shape[d];
    }
    int64_t count = aclStubDimProduct(sub, from, to);
    int64_t idx[ACLSTUB_MAX_DIMS] = {0};
    int64_t off = 0;
    for (int64_t k = 0; k < count; k++) {
        offs[k] = off;
        for (uint32_t d = to; d-- > from;) {
            if (++idx[d] < sub[d]) {
                off += strides[d];
                break;
            }
            off -= (sub[d] - 1) * strides[d];
            idx[d] = 0;
        }
    }
}

static int64_t row_stride(const int64_t *shape, uint32_t r, uint32_t dim) {
    return aclStubDimProduct(shape, dim + 1, r);
}

typedef struct {
    char *out;
    const char *src;
    const int64_t *idx, *out_o, *out_i, *src_o, *src_i; /* outer/inner offsets (elements) */
    int64_t outer, n, inner, src_step, out_step, idx_step;
    size_t es;
    /* scatter */
    const char *value;
    CombineFn fn;
    aclStubScatterOp op;
    aclDataType dtype;
    int64_t block, blocks;
} ElemCtx;

/* One (o, j) row of an element-wise gather with typed loads (no call per element). */
#define GATHER_ELEMS(T)                                                                                      \
    {                                                                                                        \
        T *ot = (T *)out;                                                                                    \
        const T *st = (const T *)src;                                                                        \
        if (c->inner == 1)                                                                                   \
            ot[0] = st[ix[0] * c->src_step + c->src_i[0]];                                                   \
        else                                                                                                 \
            for (int64_t i = 0; i < c->inner; i++) ot[i] = st[ix[i] * c->src_step + c->src_i[i]];           \
        break;                                                                                               \
    }

static void gather_elem_range(void *ctx, int64_t begin, int64_t end) {
    const ElemCtx *c = ctx;
    int64_t es = (int64_t)c->es;
    for (int64_t u = begin; u < end; u++) { /* u: (o, j) */
        int64_t o = u / c->n, j = u % c->n;
        const int64_t *ix = c->idx + (o * c->n + j) * c->inner;
        char *out = c->out + (o * c->n + j) * c->inner * es;
        const char *src = c->src + c->src_o[o] * es;
        switch (c->es) {
        case 1: GATHER_ELEMS(uint8_t)
        case 2: GATHER_ELEMS(uint16_t)
        case 4: GATHER_ELEMS(uint32_t)
        case 8: GATHER_ELEMS(uint64_t)
        default:
            for (int64_t i = 0; i < c->inner; i++)
                memcpy(out + i * es, src + (ix[i] * c->src_step + c->src_i[i]) * es, c->es);
        }
    }
}

/* inner == 1 (the gathered dimension is the last): one item per outer row, typed loads. */
#define GATHER_LAST(T)                                                                                       \
    {                                                                                                        \
        T *ot = (T *)c->out + o * c->n;                                                                      \
        const T *st = (const T *)c->src + c->src_o[o] + c->src_i[0];                                         \
        for (int64_t j = 0; j < c->n; j++) ot[j] = st[ix[j] * c->src_step];                                  \
        break;                                                                                               \
    }

static void gather_last_range(void *ctx, int64_t begin, int64_t end) {
    const ElemCtx *c = ctx;
    for (int64_t o = begin; o < end; o++) {
        const int64_t *ix = c->idx + o * c->n;
        switch (c->es) {
        case 1: GATHER_LAST(uint8_t)
        case 2: GATHER_LAST(uint16_t)
        case 4: GATHER_LAST(uint32_t)
        case 8: GATHER_LAST(uint64_t)
        default:
            for (int64_t j = 0; j < c->n; j++)
                memcpy(c->out + (o * c->n + j) * (int64_t)c->es,
                       c->src + (c->src_o[o] + ix[j] * c->src_step + c->src_i[0]) * (int64_t)c->es, c->es);
        }
    }
}

aclnnStatus aclStubGatherElements(const aclStubOpCall *call, void *out, const void *src, const int64_t *idx,
                                  const int64_t *ishape, const int64_t *sshape, uint32_t r, uint32_t dim,
                                  size_t esize) {
    int64_t outer = aclStubDimProduct(ishape, 0, dim), n = ishape[dim], inner = aclStubDimProduct(ishape, dim + 1, r);
    if (outer <= 0 || n <= 0 || inner <= 0) return OK;
    int64_t *offs = aclStubKernelScratch(call, (size_t)(outer + inner) * sizeof(int64_t));
    if (offs == NULL) return aclStubKernelOutOfMemory(call);
    sub_offsets(offs, ishape, sshape, r, 0, dim);
    sub_offsets(offs + outer, ishape, sshape, r, dim + 1, r);
    ElemCtx c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.src = src;
    c.idx = idx;
    c.src_o = offs;
    c.src_i = offs + outer;
    c.outer = outer;
    c.n = n;
    c.inner = inner;
    c.src_step = row_stride(sshape, r, dim);
    c.es = esize;
    if (inner == 1)
        aclStubParallelFor(outer, 32768 / n + 1, gather_last_range, &c);
    else
        aclStubParallelFor(outer * n, 32768 / inner + 1, gather_elem_range, &c);
    return OK;
}

/* dst[...] (op)= src[...] for one (o, j) row of the block [i0, i1), in type T, without a call per element. */
#define SCATTER_ELEM_ROW(T, EXPR)                                                                            \
    {                                                                                                        \
        T *ob = (T *)c->out + c->out_o[o];                                                                   \
        const T *sb = (const T *)c->src + c->src_o[o] + j * c->src_step;                                     \
        for (int64_t i = i0; i < i1; i++) {                                                                  \
            T *q = ob + ix[i] * c->out_step + c->out_i[i];                                                   \
            T v = sb[c->src_i[i]];                                                                           \
            EXPR;                                                                                            \
        }                                                                                                    \
        continue;                                                                                            \
    }

static void scatter_elem_range(void *ctx, int64_t begin, int64_t end) {
    const ElemCtx *c = ctx;
    int64_t es = (int64_t)c->es;
    for (int64_t u = begin; u < end; u++) { /* u: (o, block of inner) */
        int64_t o = u / c->blocks, i0 = (u % c->blocks) * c->block;
        int64_t i1 = c->inner - i0 < c->block ? c->inner : i0 + c->block;
        for (int64_t j = 0; j < c->n; j++) {
            if (c->src != NULL && (c->op == ACLSTUB_SCATTER_ADD || c->op == ACLSTUB_SCATTER_COPY)) {
                const int64_t *ix = c->idx + (o * c->n + j) * c->inner;
                bool add = c->op == ACLSTUB_SCATTER_ADD;
                switch (c->dtype) {
                case ACL_FLOAT:
                    if (add) SCATTER_ELEM_ROW(float, *q += v) else SCATTER_ELEM_ROW(float, *q = v)
                case ACL_DOUBLE:
                    if (add) SCATTER_ELEM_ROW(double, *q += v) else SCATTER_ELEM_ROW(double, *q = v)
                case ACL_INT32:
                    if (add) SCATTER_ELEM_ROW(int32_t, *q = (int32_t)((uint32_t)*q + (uint32_t)v))
                    else SCATTER_ELEM_ROW(int32_t, *q = v)
                case ACL_INT64:
                    if (add) SCATTER_ELEM_ROW(int64_t, *q = (int64_t)((uint64_t)*q + (uint64_t)v))
                    else SCATTER_ELEM_ROW(int64_t, *q = v)
                default: break;
                }
            }
            const int64_t *ix = c->idx + (o * c->n + j) * c->inner;
            for (int64_t i = i0; i < i1; i++) {
                char *dst = c->out + (c->out_o[o] + ix[i] * c->out_step + c->out_i[i]) * es;
                const char *src = c->src ? c->src + (c->src_o[o] + j * c->src_step + c->src_i[i]) * es : c->value;
                if (c->fn)
                    c->fn(dst, 0, src, 0, 1, c->op, 1.0);
                else
                    memcpy(dst, src, c->es);
            }
        }
    }
}

aclnnStatus aclStubScatterElements(const aclStubOpCall *call, void *dst, const int64_t *dshape, const void *src,
                                   const int64_t *sshape, const void *value, const int64_t *idx,
                                   const int64_t *ishape, uint32_t r, uint32_t dim, aclDataType dtype,
                                   aclStubScatterOp op) {
    int64_t outer = aclStubDimProduct(ishape, 0, dim), n = ishape[dim], inner = aclStubDimProduct(ishape, dim + 1, r);
    if (outer <= 0 || n <= 0 || inner <= 0) return OK;
    ElemCtx c;
    memset(&c, 0, sizeof c);
    if (op != ACLSTUB_SCATTER_COPY) {
        c.fn = combine_for(dtype);
        if (c.fn == NULL)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "scatter: no combine for data type %s",
                                     aclStubDtypeName(dtype));
    }
    int64_t *offs = aclStubKernelScratch(call, (size_t)(outer + inner) * 2 * sizeof(int64_t));
    if (offs == NULL) return aclStubKernelOutOfMemory(call);
    sub_offsets(offs, ishape, dshape, r, 0, dim);
    sub_offsets(offs + outer, ishape, dshape, r, dim + 1, r);
    c.out_o = offs;
    c.out_i = offs + outer;
    c.out_step = row_stride(dshape, r, dim);
    if (src) {
        sub_offsets(offs + outer + inner, ishape, sshape, r, 0, dim);
        sub_offsets(offs + 2 * outer + inner, ishape, sshape, r, dim + 1, r);
        c.src_o = offs + outer + inner;
        c.src_i = offs + 2 * outer + inner;
        c.src_step = row_stride(sshape, r, dim);
    }
    c.out = dst;
    c.src = src;
    c.value = value;
    c.idx = idx;
    c.outer = outer;
    c.n = n;
    c.inner = inner;
    c.es = aclDataTypeSize(dtype);
    c.op = op;
    c.dtype = dtype;
    column_units(outer, inner, &c.block, &c.blocks);
    int64_t work = n * c.block;
    aclStubParallelFor(outer * c.blocks, work > 32768 ? 1 : 32768 / (work + 1) + 1, scatter_elem_range, &c);
    return OK;
}

/* ---- checks ------------------------------------------------------------------------------------------------ */

aclnnStatus aclStubCheckDtypeIn(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t,
                                uint64_t dtypes) {
    if ((unsigned)t->dtype < 64 && (dtypes & ACLSTUB_DT(t->dtype))) return OK;
    char buf[320];
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s", name,
                         aclStubDtypeName(t->dtype), aclStubDtypeSetName(dtypes, buf, sizeof buf));
}

aclnnStatus aclStubCheckDtypeSame(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t,
                                  const char *ref_name, const aclStubTensorDesc *ref) {
    if (t->dtype == ref->dtype) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s but must have the data type "
                         "of '%s' (%s)", name, aclStubDtypeName(t->dtype), ref_name, aclStubDtypeName(ref->dtype));
}

aclnnStatus aclStubCheckMaxRank(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t,
                                uint32_t max_rank) {
    if (t->ndim <= max_rank) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has %u dimensions; at most %u are supported",
                         name, t->ndim, max_rank);
}

aclnnStatus aclStubCheckShapeIs(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t,
                                const int64_t *dims, uint32_t n) {
    if (aclStubShapeEqual(t->dims, t->ndim, dims, n)) return OK;
    char want[256], got[256];
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "shape of '%s' should be %s, but current is %s", name,
                         aclStubShapeText(dims, n, want, sizeof want), aclStubShapeText(t->dims, t->ndim, got, sizeof got));
}

bool aclStubViewsOverlap(const aclStubTensorDesc *a, const aclStubTensorDesc *b) {
    if (aclStubNumel(a) == 0 || aclStubNumel(b) == 0) return false;
    int64_t alo, ahi, blo, bhi;
    if (!sdk_view_byte_range(a, &alo, &ahi) || !sdk_view_byte_range(b, &blo, &bhi)) return true;
    intptr_t pa = (intptr_t)a->data, pb = (intptr_t)b->data;
    return pa + alo < pb + bhi && pb + blo < pa + ahi;
}

/* The finite range of a dtype as doubles; false for dtypes without one here. */
static bool dtype_range(aclDataType t, double *lo, double *hi, bool *is_int, bool *is_unsigned) {
    *is_int = aclStubIsIntegral(t, false);
    *is_unsigned = t == ACL_UINT8 || t == ACL_UINT16 || t == ACL_UINT32 || t == ACL_UINT64;
    switch (t) {
    case ACL_INT8: *lo = -128.0; *hi = 127.0; return true;
    case ACL_INT16: *lo = -32768.0; *hi = 32767.0; return true;
    case ACL_INT32: *lo = -2147483648.0; *hi = 2147483647.0; return true;
    case ACL_INT64: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; return true;
    case ACL_UINT8: *lo = 0; *hi = 255.0; return true;
    case ACL_UINT16: *lo = 0; *hi = 65535.0; return true;
    case ACL_UINT32: *lo = 0; *hi = 4294967295.0; return true;
    case ACL_UINT64: *lo = 0; *hi = 18446744073709551615.0; return true;
    case ACL_FLOAT16: *lo = -65504.0; *hi = 65504.0; return true;
    case ACL_BF16: *lo = -3.3895313892515355e38; *hi = 3.3895313892515355e38; return true;
    case ACL_FLOAT: *lo = -3.4028234663852886e38; *hi = 3.4028234663852886e38; return true;
    case ACL_DOUBLE: case ACL_COMPLEX128: *lo = -1.7976931348623157e308; *hi = 1.7976931348623157e308; return true;
    case ACL_COMPLEX64: *lo = -3.4028234663852886e38; *hi = 3.4028234663852886e38; return true;
    default: return false;
    }
}

static bool real_overflows(double v, aclDataType target) {
    double lo, hi;
    bool is_int, is_unsigned;
    if (!dtype_range(target, &lo, &hi, &is_int, &is_unsigned)) return false;
    if (!is_int && isinf(v)) return false;
    if (is_int && isnan(v)) return true;
    return v < lo || v > hi;
}

bool aclStubScalarOverflows(aclDataType dtype, const void *value, aclDataType target) {
    double lo, hi;
    bool is_int, is_unsigned;
    if (dtype == ACL_BOOL || !dtype_range(target, &lo, &hi, &is_int, &is_unsigned)) return false;
    if (aclStubIsIntegral(dtype, false)) {
        if (dtype == ACL_UINT64) {
            uint64_t u;
            memcpy(&u, value, 8);
            return (double)u > hi || (target == ACL_INT64 && u > (uint64_t)INT64_MAX);
        }
        int64_t x = aclStubScalarToInt64(dtype, value);
        if (target == ACL_INT64 || target == ACL_UINT64) return target == ACL_UINT64 && x < 0 && -(double)x > hi;
        if (is_unsigned && x < 0) return -(double)x > hi;
        return (double)x < lo || (double)x > hi;
    }
    if (aclStubIsComplex(dtype)) {
        double re = aclStubScalarToDouble(dtype, value), im = aclStubScalarImag(dtype, value);
        double eps = dtype == ACL_COMPLEX128 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
        if (!aclStubIsComplex(target) && fabs(im) >= eps) return true;
        return real_overflows(re, target) || real_overflows(im, target);
    }
    return real_overflows(aclStubScalarToDouble(dtype, value), target);
}
