/*
 * The reduction engine (aclstub/op_reduce.h). A reduction is laid out as its kept dimensions (one result per
 * position) and its reduced dimensions (the terms of a result, in row-major order), both in the logical order
 * of the view, with size-1 dimensions dropped and neighbours merged where the strides allow. Work items are
 * (result, chunk of ACLSTUB_REDUCE_CHUNK terms) pairs: rows when the terms of a result are read one after the
 * other, columns (up to COLS_BYTES of accumulators side by side) when the view's unit-stride dimension is a kept
 * one.
 * Every item is computed the same way whoever computes it, so results do not depend on the thread count, and the
 * term order is the logical one whatever the strides, so they do not depend on the layout either.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_reduce.h"
#include "cpu_dispatch.h"

#define CHUNK ACLSTUB_REDUCE_CHUNK
#define LANES ACLSTUB_REDUCE_LANES
#define COLS_BYTES 4096                  /* accumulators side by side in a column item (1024 floats) */
#define COLS_MAX 1024
#define MAXD (ACLSTUB_MAX_DIMS + 1)      /* a complex view gains a dimension of its two parts */
#define WORK_MIN 32768                   /* terms below which a range runs on one thread */

typedef enum { ACC_F32, ACC_F64, ACC_I64, ACC_C64, ACC_C128 } AccKind; /* complex: products only */
typedef enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_COUNT } AccOp;
typedef enum { MAP_NONE, MAP_ABS, MAP_SQUARE, MAP_POW, MAP_NONZERO, MAP_NAN_ZERO, MAP_EXP_SHIFT, MAP_SQDEV } MapKind;

/* ---- accumulation kernels, one per (accumulator type, operation), written once by macros ---------------- */

#define C_SUM(a, b) ((a) + (b))
#define C_PROD(a, b) ((a) * (b))
/* NaN sticks: once the accumulator is NaN neither test replaces it; a NaN term replaces anything */
#define C_MAX(a, b) (((b) > (a) || (b) != (b)) ? (b) : (a))
#define C_MIN(a, b) (((b) < (a) || (b) != (b)) ? (b) : (a))

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"

/* The lane sum of one chunk of m <= CHUNK contiguous terms, the lanes combined by the adjacent-pair tree. */
#define DEF_ROW(NAME, T, INIT, COMB)                                                                         \
    STUB_CLONED static T NAME##_row(const T *x, int64_t m) {                                                \
        T acc[LANES];                                                                                        \
        for (int j = 0; j < LANES; j++) acc[j] = INIT;                                                       \
        int64_t i = 0;                                                                                       \
        for (; i + LANES <= m; i += LANES)                                                                   \
            for (int j = 0; j < LANES; j++) acc[j] = COMB(acc[j], x[i + j]);                                 \
        for (int j = 0; i + j < m; j++) acc[j] = COMB(acc[j], x[i + j]);                                     \
        for (int n = LANES; n > 1; n /= 2)                                                                   \
            for (int j = 0; j < n / 2; j++) acc[j] = COMB(acc[2 * j], acc[2 * j + 1]);                       \
        return acc[0];                                                                                       \
    }                                                                                                        \
    /* lane += row, element by element (one term of side-by-side results) */                                  \
    STUB_CLONED static void NAME##_col(T *lane, const T *row, int64_t w) {                                  \
        for (int64_t j = 0; j < w; j++) lane[j] = COMB(lane[j], row[j]);                                     \
    }                                                                                                        \
    /* the LANES rows of lanes (COLS_BYTES apart) of a column item combined by the tree, into row 0 */       \
    static void NAME##_coltree(T *lanes, int64_t w) {                                                        \
        const int64_t stride = COLS_BYTES / (int64_t)sizeof(T);                                              \
        for (int n = LANES; n > 1; n /= 2)                                                                   \
            for (int k = 0; k < n / 2; k++) {                                                                \
                T *d = lanes + k * stride;                                                                   \
                const T *a = lanes + 2 * k * stride, *b = a + stride;                                        \
                for (int64_t j = 0; j < w; j++) d[j] = COMB(a[j], b[j]);                                     \
            }                                                                                                \
    }                                                                                                        \
    /* m <= LANES terms: the same value as the lane tree (idle lanes hold INIT, which COMB leaves unchanged) */ \
    static inline T NAME##_small(const T *x, int64_t m) {                                                    \
        T v[LANES];                                                                                          \
        for (int64_t j = 0; j < m; j++) v[j] = COMB(INIT, x[j]);                                             \
        for (int64_t n = m; n > 1; n = (n + 1) / 2) {                                                        \
            for (int64_t j = 0; j < n / 2; j++) v[j] = COMB(v[2 * j], v[2 * j + 1]);                         \
            if (n % 2) v[n / 2] = v[n - 1];                                                                  \
        }                                                                                                    \
        return v[0];                                                                                         \
    }                                                                                                        \
    /* rows of m <= LANES terms, row r at x + r * stride: the small tree of each, vectorised across rows */   \
    STUB_CLONED static void NAME##_rows(T *dst, const T *x, int64_t stride, int64_t rows, int64_t m) {      \
        T v[LANES][64];                                                                                      \
        for (int64_t r0 = 0; r0 < rows; r0 += 64) {                                                          \
            int64_t b = rows - r0 < 64 ? rows - r0 : 64;                                                     \
            for (int64_t r = 0; r < b; r++)                                                                  \
                for (int64_t j = 0; j < m; j++) v[j][r] = x[(r0 + r) * stride + j];                          \
            for (int64_t j = 0; j < m; j++)                                                                  \
                for (int64_t r = 0; r < b; r++) v[j][r] = COMB(INIT, v[j][r]);                               \
            for (int64_t n = m; n > 1; n = (n + 1) / 2) {                                                    \
                for (int64_t j = 0; j < n / 2; j++)                                                          \
                    for (int64_t r = 0; r < b; r++) v[j][r] = COMB(v[2 * j][r], v[2 * j + 1][r]);           \
                if (n % 2)                                                                                   \
                    for (int64_t r = 0; r < b; r++) v[n / 2][r] = v[n - 1][r];                               \
            }                                                                                                \
            for (int64_t r = 0; r < b; r++) dst[r0 + r] = v[0][r];                                           \
        }                                                                                                    \
    }                                                                                                        \
    static void NAME##_fill(T *v, int64_t n) {                                                               \
        for (int64_t j = 0; j < n; j++) v[j] = INIT;                                                         \
    }                                                                                                        \
    /* the adjacent-pair tree over n chunk results (v overwritten), an odd last value passed up */           \
    static T NAME##_tree(T *v, int64_t n) {                                                                  \
        while (n > 1) {                                                                                      \
            for (int64_t j = 0; j < n / 2; j++) v[j] = COMB(v[2 * j], v[2 * j + 1]);                         \
            if (n % 2) v[n / 2] = v[n - 1];                                                                  \
            n = (n + 1) / 2;                                                                                 \
        }                                                                                                    \
        return v[0];                                                                                         \
    }

DEF_ROW(sum_f32, float, 0.0f, C_SUM)
DEF_ROW(prod_f32, float, 1.0f, C_PROD)
DEF_ROW(max_f32, float, -INFINITY, C_MAX)
DEF_ROW(min_f32, float, INFINITY, C_MIN)
DEF_ROW(sum_f64, double, 0.0, C_SUM)
DEF_ROW(prod_f64, double, 1.0, C_PROD)
DEF_ROW(max_f64, double, -INFINITY, C_MAX)
DEF_ROW(min_f64, double, INFINITY, C_MIN)
DEF_ROW(sum_i64, int64_t, 0, C_SUM)
DEF_ROW(prod_i64, int64_t, 1, C_PROD)
DEF_ROW(max_i64, int64_t, INT64_MIN, C_MAX)
DEF_ROW(min_i64, int64_t, INT64_MAX, C_MIN)
DEF_ROW(prod_c64, float _Complex, 1.0f, C_PROD)
DEF_ROW(prod_c128, double _Complex, 1.0, C_PROD)

#pragma GCC diagnostic pop

/* Dispatch on (accumulator, operation) once per chunk or row, never per element. */
#define ACC_SWITCH(acc, op, F, ...)                                                                          \
    switch ((acc) * OP_COUNT + (op)) {                                                                       \
    case ACC_F32 * OP_COUNT + OP_SUM: F(sum_f32, float, __VA_ARGS__); break;                                 \
    case ACC_F32 * OP_COUNT + OP_PROD: F(prod_f32, float, __VA_ARGS__); break;                               \
    case ACC_F32 * OP_COUNT + OP_MAX: F(max_f32, float, __VA_ARGS__); break;                                 \
    case ACC_F32 * OP_COUNT + OP_MIN: F(min_f32, float, __VA_ARGS__); break;                                 \
    case ACC_F64 * OP_COUNT + OP_SUM: F(sum_f64, double, __VA_ARGS__); break;                                \
    case ACC_F64 * OP_COUNT + OP_PROD: F(prod_f64, double, __VA_ARGS__); break;                              \
    case ACC_F64 * OP_COUNT + OP_MAX: F(max_f64, double, __VA_ARGS__); break;                                \
    case ACC_F64 * OP_COUNT + OP_MIN: F(min_f64, double, __VA_ARGS__); break;                                \
    case ACC_I64 * OP_COUNT + OP_SUM: F(sum_i64, int64_t, __VA_ARGS__); break;                               \
    case ACC_I64 * OP_COUNT + OP_PROD: F(prod_i64, int64_t, __VA_ARGS__); break;                             \
    case ACC_I64 * OP_COUNT + OP_MAX: F(max_i64, int64_t, __VA_ARGS__); break;                               \
    case ACC_C64 * OP_COUNT + OP_PROD: F(prod_c64, float _Complex, __VA_ARGS__); break;                      \
    case ACC_C128 * OP_COUNT + OP_PROD: F(prod_c128, double _Complex, __VA_ARGS__); break;                   \
    default: F(min_i64, int64_t, __VA_ARGS__); break;                                                        \
    }

#define DO_ROW(NAME, T, dst, x, m) (*(T *)(dst) = NAME##_row((const T *)(x), (m)))
#define DO_SMALL(NAME, T, dst, x, m) (*(T *)(dst) = NAME##_small((const T *)(x), (m)))
#define DO_ROWS(NAME, T, dst, x, stride, rows, m) NAME##_rows((T *)(dst), (const T *)(x), (stride), (rows), (m))
#define DO_COL(NAME, T, lane, row, w) NAME##_col((T *)(lane), (const T *)(row), (w))
#define DO_COLTREE(NAME, T, lanes, w) NAME##_coltree((T *)(lanes), (w))
#define DO_FILL(NAME, T, v, n) NAME##_fill((T *)(v), (n))
#define DO_TREE(NAME, T, dst, v, n) (*(T *)(dst) = NAME##_tree((T *)(v), (n)))

/* ---- element maps (applied to converted terms before they are combined) ---------------------------------- */

/* dst[j] = map(src[j]) for j < n; shift[j * ss] is the per-result shift of EXP_SHIFT and SQDEV. */
#define DEF_MAP(T, SFX, ABS, EXP, POW)                                                                       \
    STUB_CLONED static void map_##SFX(MapKind map, T *dst, const T *src, int64_t n, const T *shift,          \
                                      int64_t ss, double p) {                                                \
        switch (map) {                                                                                       \
        case MAP_ABS:                                                                                        \
            for (int64_t j = 0; j < n; j++) dst[j] = ABS(src[j]);                                            \
            break;                                                                                           \
        case MAP_SQUARE:                                                                                     \
            for (int64_t j = 0; j < n; j++) dst[j] = src[j] * src[j];                                        \
            break;                                                                                           \
        case MAP_POW:                                                                                        \
            for (int64_t j = 0; j < n; j++) dst[j] = (T)POW((double)ABS(src[j]), p);                         \
            break;                                                                                           \
        case MAP_NONZERO:                                                                                    \
            for (int64_t j = 0; j < n; j++) dst[j] = src[j] != 0 ? (T)1 : (T)0;                              \
            break;                                                                                           \
        case MAP_NAN_ZERO:                                                                                   \
            for (int64_t j = 0; j < n; j++) dst[j] = src[j] != src[j] ? (T)0 : src[j];                       \
            break;                                                                                           \
        case MAP_EXP_SHIFT:                                                                                  \
            for (int64_t j = 0; j < n; j++) dst[j] = (T)EXP((double)(src[j] - shift[j * ss]));               \
            break;                                                                                           \
        case MAP_SQDEV:                                                                                      \
            for (int64_t j = 0; j < n; j++) {                                                                \
                T d = src[j] - shift[j * ss];                                                                \
                dst[j] = d * d;                                                                              \
            }                                                                                                \
            break;                                                                                           \
        default:                                                                                             \
            if (dst != src) memcpy(dst, src, (size_t)n * sizeof(T));                                         \
            break;                                                                                           \
        }                                                                                                    \
    }
DEF_MAP(float, f32, fabsf, exp, pow)
DEF_MAP(double, f64, fabs, exp, pow)

static void apply_map(AccKind acc, MapKind map, void *dst, const void *src, int64_t n, const void *shift, int64_t ss,
                      double p) {
    if (acc == ACC_F32)
        map_f32(map, dst, src, n, shift, ss, p);
    else if (acc == ACC_F64)
        map_f64(map, dst, src, n, shift, ss, p);
    else if (dst != src)
        memcpy(dst, src, (size_t)n * 8);
}

/* ---- the layout --------------------------------------------------------------------------------------- */

typedef struct {
    const char *base;    /* the view's first element */
    aclDataType dtype;   /* of the stored elements (a complex view: its real part type) */
    int64_t esize;
    aclDataType via;     /* ACL_DT_UNDEFINED, or the dtype terms are rounded to first */
    aclDataType acc_dt;  /* FLOAT, DOUBLE or INT64 */
    AccKind acc;
    int64_t asize;       /* bytes of an accumulator */
    int nk, nr;
    int64_t ksize[MAXD], kstride[MAXD]; /* kept dimensions (strides in bytes) */
    int64_t rsize[MAXD], rstride[MAXD]; /* reduced dimensions */
    int64_t n_out, n, nchunks;
    bool direct;         /* rows: the terms of a result are contiguous accumulators, read in place */
    int col;             /* column items: the kept dimension of unit stride, else -1 */
    int64_t col_step;    /* results between neighbours along it */
    int64_t cols;        /* results side by side in a column item */
    int64_t ntiles;      /* tiles of cols results along it */
    int64_t nouter;      /* positions of the other kept dimensions */
} Geo;

static AccKind acc_of(aclDataType compute, aclDataType *acc_dt) {
    if (compute == ACL_COMPLEX64 || compute == ACL_COMPLEX128) { /* a complex view kept whole (products) */
        *acc_dt = compute;
        return compute == ACL_COMPLEX64 ? ACC_C64 : ACC_C128;
    }
    if (compute == ACL_DOUBLE) {
        *acc_dt = ACL_DOUBLE;
        return ACC_F64;
    }
    if (aclStubIsFloating(compute) || aclStubIsComplex(compute)) {
        *acc_dt = ACL_FLOAT;
        return ACC_F32;
    }
    *acc_dt = ACL_INT64;
    return ACC_I64;
}

/* Kept and reduced dimensions of t over mask, merged; false when a complex part type is unknown. */
static void build_geo(Geo *g, const aclStubTensorDesc *t, uint64_t mask, aclDataType compute, aclDataType via_bool,
                      bool split_complex) {
    memset(g, 0, sizeof *g);
    aclDataType dtype = t->dtype;
    int64_t esize = (int64_t)aclDataTypeSize(dtype);
    int64_t sizes[MAXD], strides[MAXD];
    bool red[MAXD];
    int nd = 0;
    for (uint32_t d = 0; d < t->ndim; d++) {
        sizes[nd] = t->dims[d];
        strides[nd] = t->strides[d] * esize;
        red[nd] = (mask >> d) & 1u;
        nd++;
    }
    if (aclStubIsComplex(dtype) && split_complex) { /* the real and imaginary parts as a kept dimension of two */
        dtype = dtype == ACL_COMPLEX128 ? ACL_DOUBLE : ACL_FLOAT;
        esize /= 2;
        sizes[nd] = 2;
        strides[nd] = esize;
        red[nd] = false;
        nd++;
        if (compute == ACL_COMPLEX64 || compute == ACL_COMPLEX128) compute = dtype;
    }
    g->base = (const char *)t->data + t->offset * (int64_t)aclDataTypeSize(t->dtype);
    g->dtype = dtype;
    g->esize = esize;
    g->acc = acc_of(compute, &g->acc_dt);
    g->asize = (int64_t)aclDataTypeSize(g->acc_dt);
    if (via_bool != ACL_DT_UNDEFINED)
        g->via = via_bool;
    else
        g->via = (compute != dtype && compute != g->acc_dt) ? compute : ACL_DT_UNDEFINED;
    g->n_out = 1;
    g->n = 1;
    for (int d = 0; d < nd; d++) {
        if (sizes[d] == 1) continue;
        int64_t *sz = red[d] ? g->rsize : g->ksize, *st = red[d] ? g->rstride : g->kstride;
        int *cnt = red[d] ? &g->nr : &g->nk;
        /* merge with the previous dimension of the same kind when it is its logical neighbour */
        int prev = d - 1;
        while (prev >= 0 && sizes[prev] == 1) prev--;
        if (prev >= 0 && red[prev] == red[d] && *cnt > 0 && st[*cnt - 1] == strides[d] * sizes[d]) {
            sz[*cnt - 1] *= sizes[d];
            st[*cnt - 1] = strides[d];
        } else {
            sz[*cnt] = sizes[d];
            st[*cnt] = strides[d];
            (*cnt)++;
        }
        if (red[d])
            g->n *= sizes[d];
        else
            g->n_out *= sizes[d];
    }
    g->nchunks = (g->n + CHUNK - 1) / CHUNK;
    g->direct = g->via == ACL_DT_UNDEFINED && g->dtype == g->acc_dt && g->nr <= 1 &&
                (g->nr == 0 || g->rstride[0] == g->esize);
    g->col = -1;
    if (g->nr > 0 && !(g->nr >= 1 && g->rstride[g->nr - 1] == g->esize)) {
        for (int k = 0; k < g->nk; k++)
            if (g->kstride[k] == g->esize && g->ksize[k] >= 4) g->col = k;
    }
    if (g->col >= 0) {
        g->col_step = 1;
        for (int k = g->col + 1; k < g->nk; k++) g->col_step *= g->ksize[k];
        g->cols = COLS_BYTES / g->asize;
        g->ntiles = (g->ksize[g->col] + g->cols - 1) / g->cols;
        g->nouter = g->n_out / g->ksize[g->col];
    }
}

/* n terms at src (byte stride stride) as accumulators at dst. */
static bool load_run(const Geo *g, void *dst, const char *src, int64_t stride, int64_t n) {
    if (g->via == ACL_DT_UNDEFINED) {
        if ((g->dtype == ACL_FLOAT16 || g->dtype == ACL_BF16) && g->acc_dt == ACL_FLOAT && stride == 2) {
            aclStubRowLoadF32(dst, src, g->dtype, n);
            return true;
        }
        return aclStubCastStrided(dst, g->asize, g->acc_dt, src, stride, g->dtype, n);
    }
    unsigned char tmp[256 * 16];
    int64_t vs = (int64_t)aclDataTypeSize(g->via);
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        if (!aclStubCastStrided(tmp, vs, g->via, src + i * stride, stride, g->dtype, m) ||
            !aclStubCastStrided((char *)dst + i * g->asize, g->asize, g->acc_dt, tmp, vs, g->via, m))
            return false;
    }
    return true;
}

/* Byte offset of reduced term r (row-major over the reduced dimensions). */
static int64_t term_offset(const Geo *g, int64_t r, int64_t *idx) {
    int64_t off = 0;
    for (int d = g->nr; d-- > 0;) {
        idx[d] = r % g->rsize[d];
        r /= g->rsize[d];
        off += idx[d] * g->rstride[d];
    }
    return off;
}

/* Steps idx (and *off) by one term. */
static inline void term_next(const Geo *g, int64_t *idx, int64_t *off) {
    for (int d = g->nr; d-- > 0;) {
        *off += g->rstride[d];
        if (++idx[d] < g->rsize[d]) return;
        *off -= idx[d] * g->rstride[d];
        idx[d] = 0;
    }
}

/* Terms [r0, r0 + m) of the result whose first term is at base, as accumulators: in place when direct, else
 * gathered into buf. NULL when a conversion failed. */
static const void *load_terms(const Geo *g, const char *base, int64_t r0, int64_t m, void *buf) {
    if (g->direct) return base + (g->nr ? r0 * g->esize : 0);
    if (g->nr == 0) return load_run(g, buf, base, g->esize, m) ? buf : NULL;
    int64_t idx[MAXD];
    int64_t off = term_offset(g, r0, idx);
    int last = g->nr - 1;
    for (int64_t pos = 0; pos < m;) {
        int64_t run = g->rsize[last] - idx[last];
        if (run > m - pos) run = m - pos;
        if (!load_run(g, (char *)buf + pos * g->asize, base + off, g->rstride[last], run)) return NULL;
        pos += run;
        off += (run - 1) * g->rstride[last];
        idx[last] += run - 1;
        term_next(g, idx, &off);
    }
    return buf;
}


/* ---- passes ------------------------------------------------------------------------------------------- */

typedef struct {
    const Geo *g;
    AccOp op;
    MapKind map;
    double p;
    const void *shift;   /* per result (accumulator type), for EXP_SHIFT and SQDEV */
    bool find;           /* argmax: part gets the first index of shift's value instead */
    void *part;          /* n_out * nchunks accumulators (int64 indices when find), result-major */
    int64_t slot;        /* bytes of a part entry */
    int failed;
} Pass;

/* First term of x[0 .. m) equal to target (or NaN when target is NaN), -1 if none. */
#define DEF_FIND(T, SFX)                                                                                     \
    static int64_t find_##SFX(const T *x, int64_t m, T t) {                                                  \
        if (t != t) {                                                                                        \
            for (int64_t i = 0; i < m; i++)                                                                  \
                if (x[i] != x[i]) return i;                                                                  \
        } else {                                                                                             \
            for (int64_t i = 0; i < m; i++)                                                                  \
                if (x[i] == t) return i;                                                                     \
        }                                                                                                    \
        return -1;                                                                                           \
    }                                                                                                        \
    static void findcol_##SFX(int64_t *idx, const T *x, int64_t w, const T *t, int64_t ts, int64_t r) {     \
        for (int64_t j = 0; j < w; j++) {                                                                    \
            T v = t[j * ts];                                                                                 \
            if (idx[j] < 0 && (x[j] == v || (v != v && x[j] != x[j]))) idx[j] = r;                           \
        }                                                                                                    \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
DEF_FIND(float, f32)
DEF_FIND(double, f64)
DEF_FIND(int64_t, i64)
#pragma GCC diagnostic pop

static int64_t find_first(AccKind acc, const void *x, int64_t m, const void *t) {
    if (acc == ACC_F32) return find_f32(x, m, *(const float *)t);
    if (acc == ACC_F64) return find_f64(x, m, *(const double *)t);
    return find_i64(x, m, *(const int64_t *)t);
}

/* Byte offset of result o's first term (row-major over the kept dimensions), its index in kidx. */
static int64_t result_offset(const Geo *g, int64_t o, int64_t *kidx) {
    int64_t off = 0;
    for (int d = g->nk; d-- > 0;) {
        kidx[d] = o % g->ksize[d];
        o /= g->ksize[d];
        off += kidx[d] * g->kstride[d];
    }
    return off;
}

/* Steps kidx (and *off) to the next result. */
static inline void result_next(const Geo *g, int64_t *kidx, int64_t *off) {
    for (int d = g->nk; d-- > 0;) {
        *off += g->kstride[d];
        if (++kidx[d] < g->ksize[d]) return;
        *off -= kidx[d] * g->kstride[d];
        kidx[d] = 0;
    }
}

static void row_items(void *arg, int64_t begin, int64_t end) {
    Pass *ps = arg;
    const Geo *g = ps->g;
    _Alignas(64) unsigned char buf[CHUNK * 8], mapped[CHUNK * 8];
    int64_t o = begin / g->nchunks, c = begin % g->nchunks;
    int64_t kidx[MAXD];
    int64_t base_off = result_offset(g, o, kidx);
    if (g->nchunks == 1 && g->n <= LANES && g->direct && ps->map == MAP_NONE && !ps->find && g->nk <= 1 &&
        (g->nk == 0 || g->kstride[0] % g->asize == 0)) {
        /* short contiguous rows evenly spaced: small trees, many rows at a time */
        int64_t stride = g->nk ? g->kstride[0] / g->asize : 0;
        const char *x = g->base + base_off;
        char *dst = (char *)ps->part + begin * ps->slot;
        ACC_SWITCH(g->acc, ps->op, DO_ROWS, dst, x, stride, end - begin, g->n)
        return;
    }
    if (g->nchunks == 1 && g->n <= LANES && g->direct && ps->map == MAP_NONE && !ps->find) {
        /* short contiguous rows: one small tree each */
        for (int64_t item = begin; item < end; item++) {
            const char *x = g->base + base_off;
            char *dst = (char *)ps->part + item * ps->slot;
            ACC_SWITCH(g->acc, ps->op, DO_SMALL, dst, x, g->n)
            result_next(g, kidx, &base_off);
        }
        return;
    }
    for (int64_t item = begin; item < end; item++) {
        int64_t r0 = c * CHUNK, m = g->n - r0 < CHUNK ? g->n - r0 : CHUNK;
        const void *x = load_terms(g, g->base + base_off, r0, m, buf);
        if (x == NULL) {
            __atomic_store_n(&ps->failed, 1, __ATOMIC_RELAXED);
            return;
        }
        const char *shift = ps->shift ? (const char *)ps->shift + o * g->asize : NULL;
        char *dst = (char *)ps->part + item * ps->slot;
        if (ps->find) {
            int64_t i = find_first(g->acc, x, m, shift);
            *(int64_t *)(void *)dst = i < 0 ? INT64_MAX : r0 + i;
        } else {
            if (ps->map != MAP_NONE) {
                apply_map(g->acc, ps->map, mapped, x, m, shift, 0, ps->p);
                x = mapped;
            }
            if (m <= LANES)
                ACC_SWITCH(g->acc, ps->op, DO_SMALL, dst, x, m)
            else
                ACC_SWITCH(g->acc, ps->op, DO_ROW, dst, x, m)
        }
        if (++c == g->nchunks) {
            c = 0;
            o++;
            result_next(g, kidx, &base_off);
        }
    }
}

/* Column items: item = (outer * ntiles + tile) * nchunks + chunk; the lanes (LANES rows of COLS_BYTES) on the
 * heap, one block per range. */
static void col_items(void *arg, int64_t begin, int64_t end) {
    Pass *ps = arg;
    const Geo *g = ps->g;
    _Alignas(64) unsigned char rowbuf[COLS_BYTES], mapped[COLS_BYTES];
    unsigned char *lanes = ps->find ? NULL : aligned_alloc(64, LANES * COLS_BYTES);
    int64_t *found = ps->find ? malloc(COLS_MAX * sizeof(int64_t)) : NULL;
    if (lanes == NULL && found == NULL) {
        __atomic_store_n(&ps->failed, 2, __ATOMIC_RELAXED);
        return;
    }
    int64_t cs = g->ksize[g->col], cols = g->cols;
    bool convert = g->via != ACL_DT_UNDEFINED || g->dtype != g->acc_dt;
    for (int64_t item = begin; item < end; item++) {
        int64_t c = item % g->nchunks, tile = item / g->nchunks % g->ntiles, outer = item / g->nchunks / g->ntiles;
        /* the first result of the tile: outer spread over the kept dimensions other than col */
        int64_t o0 = 0, base_off = 0, rest = outer, mul = 1;
        for (int d = g->nk; d-- > 0;) {
            int64_t i;
            if (d == g->col) {
                i = tile * cols;
            } else {
                i = rest % g->ksize[d];
                rest /= g->ksize[d];
            }
            o0 += i * mul;
            mul *= g->ksize[d];
            base_off += i * g->kstride[d];
        }
        int64_t w = cs - tile * cols < cols ? cs - tile * cols : cols;
        int64_t r0 = c * CHUNK, m = g->n - r0 < CHUNK ? g->n - r0 : CHUNK;
        const char *shift = ps->shift ? (const char *)ps->shift + o0 * g->asize : NULL;
        int64_t idx[MAXD];
        int64_t off = term_offset(g, r0, idx);
        if (ps->find)
            for (int64_t j = 0; j < w; j++) found[j] = -1;
        else
            for (int l = 0; l < LANES; l++) ACC_SWITCH(g->acc, ps->op, DO_FILL, lanes + l * COLS_BYTES, w)
        for (int64_t r = 0; r < m; r++) {
            const char *src = g->base + base_off + off;
            const void *row = src;
            if (convert) {
                if (!load_run(g, rowbuf, src, g->esize, w)) {
                    __atomic_store_n(&ps->failed, 1, __ATOMIC_RELAXED);
                    break;
                }
                row = rowbuf;
            }
            if (ps->find) {
                if (g->acc == ACC_F32)
                    findcol_f32(found, row, w, (const float *)(const void *)shift, g->col_step, r0 + r);
                else if (g->acc == ACC_F64)
                    findcol_f64(found, row, w, (const double *)(const void *)shift, g->col_step, r0 + r);
                else
                    findcol_i64(found, row, w, (const int64_t *)(const void *)shift, g->col_step, r0 + r);
            } else {
                if (ps->map != MAP_NONE) {
                    apply_map(g->acc, ps->map, mapped, row, w, shift, g->col_step, ps->p);
                    row = mapped;
                }
                ACC_SWITCH(g->acc, ps->op, DO_COL, lanes + (r % LANES) * COLS_BYTES, row, w)
            }
            term_next(g, idx, &off);
        }
        if (!ps->find) ACC_SWITCH(g->acc, ps->op, DO_COLTREE, lanes, w)
        for (int64_t j = 0; j < w; j++) {
            char *dst = (char *)ps->part + ((o0 + j * g->col_step) * g->nchunks + c) * ps->slot;
            if (ps->find)
                *(int64_t *)(void *)dst = found[j] < 0 ? INT64_MAX : found[j];
            else
                memcpy(dst, lanes + j * g->asize, (size_t)g->asize);
        }
    }
    free(lanes);
    free(found);
}

/* The chunk results of every result combined into res[o] (accumulators, or int64 indices). */
typedef struct {
    const Geo *g;
    AccOp op;
    bool find;
    char *part, *res;
} Combine;

static void combine_range(void *arg, int64_t begin, int64_t end) {
    Combine *cb = arg;
    const Geo *g = cb->g;
    for (int64_t o = begin; o < end; o++) {
        if (cb->find) {
            const int64_t *v = (const int64_t *)(const void *)cb->part + o * g->nchunks;
            int64_t best = INT64_MAX;
            for (int64_t c = 0; c < g->nchunks; c++) best = v[c] < best ? v[c] : best;
            ((int64_t *)(void *)cb->res)[o] = best;
            continue;
        }
        char *v = cb->part + o * g->nchunks * g->asize, *dst = cb->res + o * g->asize;
        ACC_SWITCH(g->acc, cb->op, DO_TREE, dst, v, g->nchunks)
    }
}

static int64_t min_items(const Geo *g, bool col) {
    int64_t per = (g->n < CHUNK ? g->n : CHUNK) * (col ? g->cols : 1);
    int64_t k = WORK_MIN / (per > 0 ? per : 1);
    return k > 0 ? k : 1;
}

/* One pass: res[o] = the combination of result o's mapped terms (accumulators, or first indices when find:
 * INT64_MAX when a result has no match). */
static aclnnStatus run_pass(const aclStubOpCall *call, const Geo *g, Pass *ps, char *res) {
    bool col = g->col >= 0;
    int64_t items = col ? g->nouter * g->ntiles * g->nchunks : g->n_out * g->nchunks;
    ps->slot = ps->find ? 8 : g->asize;
    bool one = g->nchunks == 1;
    char *part = one ? res : aclStubKernelScratch(call, (size_t)(g->n_out * g->nchunks * ps->slot));
    if (part == NULL) return aclStubKernelOutOfMemory(call);
    ps->part = part;
    ps->failed = 0;
    aclStubParallelFor(items, min_items(g, col), col ? col_items : row_items, ps);
    if (ps->failed == 2) return aclStubKernelOutOfMemory(call);
    if (ps->failed) return aclStubKernelFail(call, ACLNN_ERR_INNER, "cannot convert %s to %s",
                                             aclStubDtypeName(g->dtype), aclStubDtypeName(g->acc_dt));
    if (!one) {
        Combine cb = {g, ps->op, ps->find, part, res};
        aclStubParallelFor(g->n_out, 4096, combine_range, &cb);
    }
    return OK;
}

/* ---- finishing and storing ------------------------------------------------------------------------------ */

static double get(const Geo *g, const char *res, int64_t o) {
    if (g->acc == ACC_F32) return ((const float *)(const void *)res)[o];
    if (g->acc == ACC_F64) return ((const double *)(const void *)res)[o];
    return (double)((const int64_t *)(const void *)res)[o];
}
static void put(const Geo *g, char *res, int64_t o, double v) {
    if (g->acc == ACC_F32)
        ((float *)(void *)res)[o] = (float)v;
    else if (g->acc == ACC_F64)
        ((double *)(void *)res)[o] = v;
    else if (g->acc == ACC_C64)
        ((float _Complex *)(void *)res)[o] = (float)v;
    else if (g->acc == ACC_C128)
        ((double _Complex *)(void *)res)[o] = v;
    else
        ((int64_t *)(void *)res)[o] = (int64_t)v;
}

#define COPY_AS(T)                                                                                           \
    do {                                                                                                     \
        if (strides[0] == (int64_t)sizeof(T) && strides[1] == (int64_t)sizeof(T))                            \
            memcpy(data[0], data[1], (size_t)n * sizeof(T));                                                 \
        else                                                                                                 \
            for (int64_t i = 0; i < n; i++)                                                                  \
                *(T *)(void *)(data[0] + i * strides[0]) = *(const T *)(const void *)(data[1] + i * strides[1]); \
    } while (0)
static void copy_loop(char **data, const int64_t *strides, int64_t n, const void *ctx) {
    size_t size = *(const size_t *)ctx;
    switch (size) {
    case 1: COPY_AS(uint8_t); break;
    case 2: COPY_AS(uint16_t); break;
    case 4: COPY_AS(uint32_t); break;
    case 8: COPY_AS(uint64_t); break;
    default:
        for (int64_t i = 0; i < n; i++) memcpy(data[0] + i * strides[0], data[1] + i * strides[1], size);
    }
}

/* out (any strides and dtype) = the results res (contiguous, dtype dt), rounded to via first when it is set. */
static aclnnStatus store(const aclStubOpCall *call, const aclStubTensorDesc *out, const void *res, aclDataType dt,
                         aclDataType via) {
    if ((const char *)res == (const char *)out->data + out->offset * (int64_t)aclDataTypeSize(out->dtype))
        return OK; /* computed in place */
    aclStubTensorDesc src = *out;
    src.dtype = dt;
    src.offset = 0;
    src.data = (void *)res;
    int64_t s = 1;
    for (uint32_t d = out->ndim; d-- > 0;) {
        src.strides[d] = s;
        s *= out->dims[d];
    }
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 1;
    it.tensor[0] = out;
    it.tensor[1] = &src;
    it.loop_dtype[0] = it.loop_dtype[1] = dt;
    if (via != ACL_DT_UNDEFINED && via != dt && via != out->dtype) {
        it.has_via[0] = true;
        it.via[0] = via;
    }
    size_t size = aclDataTypeSize(dt);
    return aclStubIterRun(call, &it, copy_loop, &size);
}

static bool is_contiguous(const aclStubTensorDesc *t) {
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->dims[d];
    }
    return true;
}

static void fill_value(const Geo *g, char *res, double v) {
    for (int64_t o = 0; o < g->n_out; o++) put(g, res, o, v);
}

/* Single-pass results finished in place: mean, log, norm roots. */
typedef struct {
    const Geo *g;
    aclStubReduceOp op;
    double p;
    char *res;
} Finish;

static void finish_range(void *arg, int64_t begin, int64_t end) {
    const Finish *f = arg;
    const Geo *g = f->g;
    float *r32 = (float *)(void *)f->res;
    for (int64_t o = begin; o < end; o++) {
        switch (f->op) {
        case ACLSTUB_RED_MEAN:
            if (g->acc == ACC_F32)
                r32[o] = r32[o] / (float)g->n;
            else if (g->acc == ACC_F64)
                ((double *)(void *)f->res)[o] /= (double)g->n;
            else
                ((int64_t *)(void *)f->res)[o] /= g->n;
            break;
        case ACLSTUB_RED_LOGSUM: put(g, f->res, o, log(get(g, f->res, o))); break;
        case ACLSTUB_RED_NORM:
            if (f->p == 2)
                put(g, f->res, o, g->acc == ACC_F32 ? (double)sqrtf(r32[o]) : sqrt(get(g, f->res, o)));
            else if (f->p != 0 && f->p != 1 && !isinf(f->p))
                put(g, f->res, o, pow(get(g, f->res, o), 1.0 / f->p));
            break;
        default: break;
        }
    }
}

aclnnStatus aclStubReduceRun(const aclStubOpCall *call, const aclStubReduce *r) {
    const aclStubTensorDesc *self = r->self;
    const aclStubTensorDesc *out = r->out ? r->out : r->out2;
    if (self == NULL || out == NULL || r->op >= ACLSTUB_RED_COUNT)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "reduction without its tensors");
    if (aclStubNumel(out) == 0) return OK;
    aclStubReduceOp op = r->op;
    bool cprod = aclStubIsComplex(self->dtype) && op == ACLSTUB_RED_PROD;
    bool complex = aclStubIsComplex(self->dtype) && !cprod; /* sums: reduced as pairs of real parts */
    if ((complex && op != ACLSTUB_RED_SUM && op != ACLSTUB_RED_MEAN) ||
        (cprod && (r->compute != ACL_COMPLEX64 && r->compute != ACL_COMPLEX128)))
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "no complex kernel for this reduction");
    bool boolish = op == ACLSTUB_RED_ALL || op == ACLSTUB_RED_ANY || op == ACLSTUB_RED_COUNT_NONZERO;
    bool index = op == ACLSTUB_RED_ARGMAX || op == ACLSTUB_RED_ARGMIN;
    bool stats = op == ACLSTUB_RED_VAR || op == ACLSTUB_RED_STD || op == ACLSTUB_RED_INVSTD;
    bool two = stats || op == ACLSTUB_RED_LOGSUMEXP || index;
    aclDataType compute = boolish ? ACL_INT64 : r->compute;
    Geo g;
    build_geo(&g, self, r->dims, compute, boolish ? ACL_BOOL : ACL_DT_UNDEFINED, !cprod);
    if (g.n_out != aclStubNumel(out) * (complex ? 2 : 1))
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "reduction output has %lld elements, expected %lld",
                                 (long long)aclStubNumel(out), (long long)g.n_out);
    aclDataType via = boolish ? (op == ACLSTUB_RED_COUNT_NONZERO ? ACL_INT64 : ACL_BOOL) : r->compute;
    /* results straight into out when it is contiguous and holds accumulators */
    bool direct = !complex && !two && r->out && r->out->dtype == g.acc_dt && (via == g.acc_dt || !boolish) &&
                  compute == g.acc_dt && is_contiguous(r->out);
    char *res = direct ? (char *)r->out->data + r->out->offset * g.asize
                       : aclStubKernelScratch(call, (size_t)(g.n_out * g.asize));
    char *res2 = NULL; /* VAR/STD: the mean; LOGSUMEXP: the maximum; ARGMAX/ARGMIN: int64 indices */
    if (res == NULL) return aclStubKernelOutOfMemory(call);
    if (two) {
        res2 = aclStubKernelScratch(call, (size_t)(g.n_out * 8));
        if (res2 == NULL) return aclStubKernelOutOfMemory(call);
    }
    double n = (double)g.n;
    Pass ps;
    memset(&ps, 0, sizeof ps);
    ps.g = &g;

    if (g.n == 0) { /* nothing reduced: the empty set's value */
        double v = 0.0;
        switch (op) {
        case ACLSTUB_RED_PROD:
        case ACLSTUB_RED_ALL: v = 1.0; break;
        case ACLSTUB_RED_MEAN:
        case ACLSTUB_RED_VAR:
        case ACLSTUB_RED_STD:
        case ACLSTUB_RED_INVSTD:
        case ACLSTUB_RED_MAX:
        case ACLSTUB_RED_MIN:
        case ACLSTUB_RED_ARGMAX:
        case ACLSTUB_RED_ARGMIN: v = g.acc == ACC_I64 ? 0.0 : NAN; break;
        case ACLSTUB_RED_LOGSUM:
        case ACLSTUB_RED_LOGSUMEXP: v = -INFINITY; break;
        case ACLSTUB_RED_NORM: v = r->p < 0 ? INFINITY : 0.0; break;
        default: break;
        }
        fill_value(&g, res, v);
        if (index)
            memset(res2, 0, (size_t)(g.n_out * 8));
        else if (two)
            fill_value(&g, res2, NAN);
    } else {
        switch (op) {
        case ACLSTUB_RED_NANSUM: ps.op = OP_SUM; ps.map = MAP_NAN_ZERO; break;
        case ACLSTUB_RED_PROD: ps.op = OP_PROD; break;
        case ACLSTUB_RED_MAX:
        case ACLSTUB_RED_ANY:
        case ACLSTUB_RED_ARGMAX:
        case ACLSTUB_RED_LOGSUMEXP: ps.op = OP_MAX; break;
        case ACLSTUB_RED_MIN:
        case ACLSTUB_RED_ALL:
        case ACLSTUB_RED_ARGMIN: ps.op = OP_MIN; break;
        case ACLSTUB_RED_NORM:
            if (isinf(r->p)) {
                ps.op = r->p > 0 ? OP_MAX : OP_MIN;
                ps.map = MAP_ABS;
            } else {
                ps.op = OP_SUM;
                ps.map = r->p == 0 ? MAP_NONZERO : r->p == 1 ? MAP_ABS : r->p == 2 ? MAP_SQUARE : MAP_POW;
                ps.p = r->p;
            }
            break;
        default: ps.op = OP_SUM; break; /* SUM, MEAN, LOGSUM, COUNT_NONZERO; VAR and STD start with the mean */
        }
        ACLSTUB_TRY(run_pass(call, &g, &ps, res));
        if (!two) {
            Finish f = {&g, op, r->p, res};
            if (op == ACLSTUB_RED_MEAN || op == ACLSTUB_RED_LOGSUM || op == ACLSTUB_RED_NORM)
                aclStubParallelFor(g.n_out, 65536, finish_range, &f);
        } else {
            /* res holds the first pass (sums or extremes); it becomes the shift of the second */
            for (int64_t o = 0; o < g.n_out; o++) {
                if (stats) {
                    if (g.acc == ACC_F32)
                        ((float *)(void *)res)[o] /= (float)g.n;
                    else
                        put(&g, res, o, get(&g, res, o) / n);
                } else if (op == ACLSTUB_RED_LOGSUMEXP) {
                    double m = get(&g, res, o);
                    ((double *)(void *)res2)[o] = m;
                    if (isinf(m)) put(&g, res, o, 0.0);
                }
            }
            Pass p2;
            memset(&p2, 0, sizeof p2);
            p2.g = &g;
            p2.shift = res;
            if (index) {
                p2.find = true;
            } else {
                p2.op = OP_SUM;
                p2.map = op == ACLSTUB_RED_LOGSUMEXP ? MAP_EXP_SHIFT : MAP_SQDEV;
            }
            char *res3 = aclStubKernelScratch(call, (size_t)(g.n_out * 8));
            if (res3 == NULL) return aclStubKernelOutOfMemory(call);
            ACLSTUB_TRY(run_pass(call, &g, &p2, index ? res2 : res3));
            if (index) {
                for (int64_t o = 0; o < g.n_out; o++) {
                    int64_t *i = (int64_t *)(void *)res2 + o;
                    if (*i == INT64_MAX) *i = 0;
                }
            } else if (op == ACLSTUB_RED_LOGSUMEXP) {
                for (int64_t o = 0; o < g.n_out; o++) {
                    double m = ((const double *)(const void *)res2)[o], s = get(&g, res3, o);
                    put(&g, res, o, m != m ? m : log(s) + (isinf(m) ? 0.0 : m));
                }
            } else { /* VAR, STD, INVSTD: res2 = the mean, res = the variance (or what derives from it) */
                /* no degrees of freedom left: NaN for a single term, +inf otherwise (the op_api's fills) */
                double dof = n - r->correction;
                memcpy(res2, res, (size_t)(g.n_out * g.asize));
                for (int64_t o = 0; o < g.n_out; o++) {
                    double v;
                    if (dof <= 0) {
                        v = g.n <= 1 ? NAN : INFINITY;
                    } else if (g.acc == ACC_F32) {
                        float var = ((const float *)(const void *)res3)[o] / (float)dof;
                        v = op == ACLSTUB_RED_STD      ? (double)sqrtf(var)
                            : op == ACLSTUB_RED_INVSTD ? 1.0 / sqrt((double)(var + (float)r->eps))
                                                       : (double)var;
                    } else {
                        double var = get(&g, res3, o) / dof;
                        v = op == ACLSTUB_RED_STD      ? sqrt(var)
                            : op == ACLSTUB_RED_INVSTD ? 1.0 / sqrt(var + r->eps)
                                                       : var;
                    }
                    put(&g, res, o, v);
                }
            }
        }
    }
    if (complex) { /* the parts were reduced as floats: store them as the complex dtype's parts */
        aclStubTensorDesc view = *out;
        if (!aclStubIsComplex(out->dtype) || r->compute != self->dtype)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "complex reductions write their own dtype only");
        view.dtype = g.acc_dt;
        view.dims[view.ndim] = 2;
        view.strides[view.ndim] = 1;
        for (uint32_t d = 0; d < out->ndim; d++) view.strides[d] = out->strides[d] * 2;
        view.offset = out->offset * 2;
        view.ndim++;
        return store(call, &view, res, g.acc_dt, ACL_DT_UNDEFINED);
    }
    if (r->out) ACLSTUB_TRY(store(call, r->out, res, g.acc_dt, via));
    if (r->out2 && res2)
        ACLSTUB_TRY(store(call, r->out2, res2, index ? ACL_INT64 : g.acc_dt, index ? ACL_DT_UNDEFINED : via));
    return OK;
}

/* ---- checks -------------------------------------------------------------------------------------------- */

aclnnStatus aclStubReduceDim(const aclStubOpCall *call, const char *what, int64_t d, uint32_t n, bool unique,
                             uint64_t *mask) {
    int64_t rank = n > 0 ? (int64_t)n : 1;
    if (d < -rank || d >= rank)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s %lld must be in the range of [%lld, %lld]", what,
                             (long long)d, (long long)-rank, (long long)(rank - 1));
    int64_t pos = d < 0 ? d + rank : d;
    if (unique && ((*mask >> pos) & 1u))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "dim %lld appears multiple times in the list of dims",
                             (long long)pos);
    if (n > 0) *mask |= UINT64_C(1) << pos;
    return OK;
}

aclnnStatus aclStubReduceDims(const aclStubOpCall *call, int dims_param, uint32_t n, bool unique, uint64_t *mask) {
    const aclStubValue *v = &call->v[dims_param];
    *mask = 0;
    uint64_t seen = 0;
    for (uint64_t i = 0; i < v->size; i++) {
        ACLSTUB_TRY(aclStubReduceDim(call, "dim", v->ints[i], n, unique, &seen));
        if (n == 0 && unique) { /* a 0-d tensor: dims 0 and -1 are one dimension */
            if (seen & 2u)
                return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "dim 0 appears multiple times in the list of dims");
            seen |= 2u;
        }
    }
    *mask = n > 0 ? seen : 0;
    return OK;
}

void aclStubReduceShape(const aclStubTensorDesc *self, uint64_t mask, bool keepdim, int64_t *dims, uint32_t *ndim) {
    uint32_t k = 0;
    for (uint32_t d = 0; d < self->ndim; d++) {
        if ((mask >> d) & 1u) {
            if (keepdim) dims[k++] = 1;
        } else {
            dims[k++] = self->dims[d];
        }
    }
    *ndim = k;
}

aclnnStatus aclStubCheckShape(const aclStubOpCall *call, int i, const int64_t *dims, uint32_t n) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (t == NULL || aclStubShapeEqual(t->dims, t->ndim, dims, n)) return OK;
    char a[256], b[256];
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "the shape of '%s' is %s; expected %s",
                         call->op->params[i].name, aclStubShapeText(t->dims, t->ndim, a, sizeof a),
                         aclStubShapeText(dims, n, b, sizeof b));
}

aclnnStatus aclStubCheckParamDtypeIn(const aclStubOpCall *call, int i, uint64_t set) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (t == NULL || ((unsigned)t->dtype < 64 && (set & ACLSTUB_DT(t->dtype)))) return OK;
    char buf[512];
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Tensor %s not implemented for %s, should be in dtype support "
                         "list [%s]", call->op->params[i].name, aclStubDtypeName(t->dtype),
                         aclStubDtypeSetName(set, buf, sizeof buf));
}

aclnnStatus aclStubCheckDtypeIs(const aclStubOpCall *call, int i, aclDataType dtype) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (t == NULL || t->dtype == dtype) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Tensor %s expected dtype is %s but found %s",
                         call->op->params[i].name, aclStubDtypeName(dtype), aclStubDtypeName(t->dtype));
}

aclnnStatus aclStubCheckMaxDim(const aclStubOpCall *call, int i, uint32_t max_dim) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (t == NULL || t->ndim <= max_dim) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "The %s tensor cannot be larger than %u dimensions",
                         call->op->params[i].name, max_dim);
}

bool aclStubIsPrivateFormat(aclFormat f) {
    switch ((int)f) {
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0:
    case 33: /* FRACTAL_Z_3D */
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8: return true;
    default: return false;
    }
}

aclnnStatus aclStubCheckFormat(const aclStubOpCall *call, int i) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (t == NULL || !aclStubIsPrivateFormat(t->format)) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Format only support ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NCL; "
                         "%s has format %d", call->op->params[i].name, (int)t->format);
}

aclnnStatus aclStubCopy(const aclStubOpCall *call, const aclStubTensorDesc *out, const aclStubTensorDesc *in) {
    if (aclStubNumel(out) == 0) return OK;
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 1;
    it.tensor[0] = out;
    it.tensor[1] = in;
    it.loop_dtype[0] = it.loop_dtype[1] = out->dtype;
    size_t size = aclDataTypeSize(out->dtype);
    return aclStubIterRun(call, &it, copy_loop, &size);
}

aclnnStatus aclStubFill(const aclStubOpCall *call, const aclStubTensorDesc *out, double value) {
    if (aclStubNumel(out) == 0) return OK;
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = 1;
    it.tensor[0] = out;
    it.loop_dtype[0] = it.loop_dtype[1] = out->dtype;
    it.scalar[1].dtype = ACL_DOUBLE;
    memcpy(it.scalar[1].value, &value, sizeof value);
    size_t size = aclDataTypeSize(out->dtype);
    return aclStubIterRun(call, &it, copy_loop, &size);
}

/* ---- row sums for operators' kernels ------------------------------------------------------------------------ */

#define CHUNKED_SUM(T, NAME)                                                                                 \
    T parts[64] = {0};                                                                                         \
    T *v = parts;                                                                                            \
    int64_t nc = (n + CHUNK - 1) / CHUNK;                                                                    \
    if (n <= 0) return 0;                                                                                    \
    if (nc > 64) {                                                                                           \
        v = malloc((size_t)nc * sizeof(T));                                                                  \
        if (v == NULL) { /* no memory for the chunk sums: fold them in order (a different, documented order) */ \
            T s = 0;                                                                                         \
            for (int64_t c = 0; c < nc; c++)                                                                 \
                s += NAME##_row(x + c * CHUNK, n - c * CHUNK < CHUNK ? n - c * CHUNK : CHUNK);               \
            return s;                                                                                        \
        }                                                                                                    \
    }                                                                                                        \
    for (int64_t c = 0; c < nc; c++) {                                                                       \
        int64_t m = n - c * CHUNK < CHUNK ? n - c * CHUNK : CHUNK;                                           \
        v[c] = m <= LANES ? NAME##_small(x + c * CHUNK, m) : NAME##_row(x + c * CHUNK, m);                   \
    }                                                                                                        \
    T s = NAME##_tree(v, nc);                                                                                \
    if (v != parts) free(v);                                                                                 \
    return s;

float aclStubSumF32(const float *x, int64_t n) {
    if (n <= LANES) return n > 0 ? sum_f32_small(x, n) : 0.0f;
    if (n <= CHUNK) return sum_f32_row(x, n);
    CHUNKED_SUM(float, sum_f32)
}
double aclStubSumF64(const double *x, int64_t n) {
    if (n <= LANES) return n > 0 ? sum_f64_small(x, n) : 0.0;
    if (n <= CHUNK) return sum_f64_row(x, n);
    CHUNKED_SUM(double, sum_f64)
}

float aclStubMaxF32(const float *x, int64_t n) {
    if (n <= 0) return -INFINITY;
    if (n <= LANES) { /* short rows: a plain loop (maxss), NaN noted aside */
        float m = -INFINITY;
        int nan = 0;
        for (int64_t i = 0; i < n; i++) {
            m = x[i] > m ? x[i] : m;
            nan |= x[i] != x[i];
        }
        return nan ? NAN : m;
    }
    float m = -INFINITY;
    for (int64_t c = 0; c < n; c += CHUNK) {
        int64_t k = n - c < CHUNK ? n - c : CHUNK;
        float v = k <= LANES ? max_f32_small(x + c, k) : max_f32_row(x + c, k);
        m = C_MAX(m, v);
    }
    return m;
}

float aclStubTreeF32(float *v, int64_t n) { return n > 0 ? sum_f32_tree(v, n) : 0.0f; }
double aclStubTreeF64(double *v, int64_t n) { return n > 0 ? sum_f64_tree(v, n) : 0.0; }

/* ---- exp ------------------------------------------------------------------------------------------------ */

/* exp of x in [-110, 90] (or NaN) without branches; see aclStubExpF32. */
static inline float exp_core(float xf) {
    double x = xf;
    const double magic = 6755399441055744.0; /* 1.5 * 2^52: adding it rounds to an integer in the low bits */
    double t = x * 1.4426950408889634 + magic;
    double k = t - magic;
    int64_t bits;
    memcpy(&bits, &t, 8);
    bits -= INT64_C(0x4338000000000000); /* the bits of magic: what is left is k */
    double r = x - k * 0.6931471805598903 - k * 5.497923018708371e-14; /* ln 2 split in two */
    double p = 1.6059043836821613e-10;                                     /* 1/13!, ..., 1/2!, 1, 1 */
    p = p * r + 2.08767569878681e-09;
    p = p * r + 2.505210838544172e-08;
    p = p * r + 2.755731922398589e-07;
    p = p * r + 2.7557319223985893e-06;
    p = p * r + 2.48015873015873e-05;
    p = p * r + 0.0001984126984126984;
    p = p * r + 0.001388888888888889;
    p = p * r + 0.008333333333333333;
    p = p * r + 0.041666666666666664;
    p = p * r + 0.16666666666666666;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    int64_t sb = (bits + 1023) * (INT64_C(1) << 52);
    double scale;
    memcpy(&scale, &sb, 8);
    return (float)(p * scale);
}

static inline float exp_clamp(float x) {
    x = x < -110.0f ? -110.0f : x; /* NaN passes both */
    return x > 90.0f ? 90.0f : x;
}

float aclStubExpF32(float x) { return exp_core(exp_clamp(x)); }

STUB_CLONED void aclStubExpRowF32(float *y, const float *x, float shift, int64_t n) {
    float t[256];
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        for (int64_t j = 0; j < m; j++) t[j] = exp_clamp(x[i + j] - shift);
        for (int64_t j = 0; j < m; j++) y[i + j] = exp_core(t[j]);
    }
}
