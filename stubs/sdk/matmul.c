/*
 * The matmul engine (aclstub/op_matmul.h): batched products on OpenBLAS, split into tiles fixed by the shape,
 * each tile one single-threaded BLAS call on one of the stub's threads.
 *
 * A tile is (item, rows [i0, i0 + tm), columns [j0, j0 + tn)); its product is accumulated over chunks of at most
 * KC columns of a (the BLAS adds each chunk to the float32 sums). An operand the BLAS cannot read as it is (not
 * FLOAT, rounded to another computation type, no unit stride, an int) is packed per tile and chunk into the
 * slot's scratch, in the order of its smaller stride so that packing reads memory in order. A slot is a share of
 * the tiles run by one thread, with its own scratch; which slot computes a tile changes nothing in the tile.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_matmul.h"
#include "sdk_internal.h"

/* The BLAS (sdk_blas: OpenBLAS of the scipy-openblas32 wheel, opened on first use). */
#define BLAS_ROW_MAJOR 101
#define BLAS_NO_TRANS 111
#define BLAS_TRANS 112

#define TM 256          /* rows of a tile */
#define TN_MIN 512      /* columns of a tile: at least, */
#define TN_MAX 4096     /* and at most */
#define KC 4096         /* the reduction is accumulated in chunks of at most KC */
#define GEMV_PANEL (INT64_C(1) << 18) /* one-row products: k chunks of at most this many elements of b per tile */
#define MIN_TILE_FLOPS (INT64_C(1) << 20) /* a slot gets at least this much work */


const char *aclStubMmComputeName(aclStubMmCompute compute) {
    static const char *const names[] = {"FLOAT", "HFLOAT32", "FLOAT16", "BF16", "INT32"};
    return (unsigned)compute < sizeof names / sizeof names[0] ? names[compute] : "?";
}

/* ---- rounding to the computation type ---------------------------------------------------------------- */

static inline float round_hf32(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) { /* finite: round the low 13 bits of the significand away */
        u += 0x0fffu + ((u >> 13) & 1u);
        u &= 0xffffe000u;
    }
    memcpy(&v, &u, 4);
    return v;
}

float aclStubMmRound(aclStubMmCompute compute, float v) {
    switch (compute) {
    case ACLSTUB_MM_HF32: return round_hf32(v);
    case ACLSTUB_MM_FP16: return aclStubF16ToF32(aclStubF32ToF16(v));
    case ACLSTUB_MM_BF16: return aclStubBf16ToF32(aclStubF32ToBf16(v));
    default: return v;
    }
}

static aclDataType compute_dtype(aclStubMmCompute c) {
    return c == ACLSTUB_MM_FP16 ? ACL_FLOAT16 : c == ACLSTUB_MM_BF16 ? ACL_BF16 : ACL_FLOAT;
}

/* Rounds a float32 row to the 16-bit type t and back (tmp: n uint16). */
static void round_row16(float *v, aclDataType t, uint16_t *tmp, int64_t n) {
    aclStubRowStoreF32(tmp, v, t, n);
    aclStubRowLoadF32(v, tmp, t, n);
}

/* ---- the cube's dtype rules ---------------------------------------------------------------------------- */

aclStubMmCompute aclStubMmComputeFor(aclDataType ta, aclDataType tb, int cmt) {
    bool f32 = ta == ACL_FLOAT || tb == ACL_FLOAT;
    bool mixed16 = !f32 && ta != tb; /* FLOAT16 with BF16 */
    if (cmt == 2) /* USE_FP16: every pair but BF16 with BF16 computes in FLOAT16 */
        return ta == ACL_BF16 && tb == ACL_BF16 ? ACLSTUB_MM_BF16 : ACLSTUB_MM_FP16;
    if (f32 || mixed16) return f32 && (cmt == 1 || cmt == 3) ? ACLSTUB_MM_HF32 : ACLSTUB_MM_FP32;
    return ta == ACL_BF16 ? ACLSTUB_MM_BF16 : ACLSTUB_MM_FP16;
}

aclDataType aclStubMmResultFor(aclStubMmCompute compute, aclDataType out_dtype, int cmt) {
    if (compute != ACLSTUB_MM_FP16 && compute != ACLSTUB_MM_BF16) return ACL_FLOAT;
    if (cmt == -1) return ACL_FLOAT; /* FP16FP32_KEEP_DTYPE: the cube writes float32 */
    if (out_dtype == ACL_FLOAT && cmt != 2) return ACL_FLOAT;
    return compute_dtype(compute);
}

aclnnStatus aclStubMmCheckCubeMathType(const aclStubOpCall *call, int cmt) {
    ACLSTUB_RETURN_ERROR_IF(cmt < -1 || cmt > 4, call, ACLNN_ERR_PARAM_INVALID,
                            "The value of cubeMathType only support {0: KEEP_DTYPE, 1: ALLOW_FP32_DOWN_PRECISION, "
                            "2: USE_FP16, 3: USE_HF32, 4: USE_FP32_ADD}, but got %d",
                            cmt);
    return OK;
}

/* ---- operands --------------------------------------------------------------------------------------- */

aclStubMat aclStubMatOfView(const aclStubTensorDesc *t, int nbatch, const int64_t *batch, bool trans,
                            bool vector_is_row) {
    aclStubMat m;
    memset(&m, 0, sizeof m);
    m.dtype = ACL_DT_UNDEFINED;
    if (t == NULL) return m;
    m.dtype = t->dtype;
    m.data = t->data;
    m.offset = t->offset;
    int nd = (int)t->ndim;
    if (nd == 0) return m; /* a 0-d view: one element */
    if (nd == 1) {
        if (vector_is_row)
            m.cs = t->strides[0];
        else
            m.rs = t->strides[0];
        return m;
    }
    int64_t r = t->strides[nd - 2], c = t->strides[nd - 1];
    if (t->dims[nd - 2] == 1) r = 0;
    if (t->dims[nd - 1] == 1) c = 0;
    m.rs = trans ? c : r;
    m.cs = trans ? r : c;
    for (int d = 0; d < nbatch; d++) {
        int td = nd - 2 - (nbatch - d);
        if (td >= 0 && t->dims[td] != 1 && batch[d] != 1) m.bs[d] = t->strides[td];
    }
    return m;
}

static int64_t item_offset(const aclStubMatmul *mm, const aclStubMat *x, int64_t item) {
    int64_t off = x->offset;
    for (int d = mm->nbatch; d-- > 0;) {
        int64_t size = mm->batch[d] > 0 ? mm->batch[d] : 1;
        off += (item % size) * x->bs[d];
        item /= size;
    }
    return off;
}

const void *aclStubMatElem(const aclStubMatmul *mm, const aclStubMat *x, int64_t item, int64_t i, int64_t j) {
    int64_t e = item_offset(mm, x, item) + i * x->rs + j * x->cs;
    return (const char *)x->data + e * (int64_t)aclDataTypeSize(x->dtype);
}

/* Element e of an INT4 stack (two to a byte, the even element low). */
static inline int int4_at(const void *data, int64_t e) {
    uint8_t byte = ((const uint8_t *)data)[e >> 1];
    int v = (e & 1) ? byte >> 4 : byte & 15;
    return v >= 8 ? v - 16 : v;
}

/* Can the BLAS read rows x cols of x as they are (FLOAT, no rounding), and how: *trans, *ld. */
static bool blas_ready(const aclStubMatmul *mm, const aclStubMat *x, int64_t rows, int64_t cols, bool *trans,
                       int64_t *ld) {
    if (x->dtype != ACL_FLOAT || mm->compute != ACLSTUB_MM_FP32) return false;
    int64_t rs = rows == 1 ? 0 : x->rs, cs = cols == 1 ? 0 : x->cs;
    if ((cs == 1 || cols == 1) && (rows == 1 || (rs >= cols && rs >= 1))) {
        *trans = false;
        *ld = rows == 1 ? (cols > 1 ? cols : 1) : rs;
    } else if ((rs == 1 || rows == 1) && (cols == 1 || (cs >= rows && cs >= 1))) {
        *trans = true;
        *ld = cols == 1 ? (rows > 1 ? rows : 1) : cs;
    } else {
        return false;
    }
    return *ld <= INT_MAX;
}

/* ---- a call ------------------------------------------------------------------------------------------------ */

typedef struct {
    const aclStubMatmul *mm;
    const aclStubBlasApi *blas;
    bool is_int;
    bool a_ready, b_ready, direct;
    bool a_trans, b_trans;
    int64_t lda, ldb;
    int64_t tm, tn, kc;
    int64_t mtiles, ntiles, items, tiles; /* tiles: of the whole call */
    int slots;
    size_t slot_bytes;
    char *scratch;
    size_t esize_out;
} Plan;

/* The per-slot scratch: packed a and b chunks, the tile's sums (and the running sum of sum_batches), a row. */
typedef struct {
    void *a, *b;     /* float or double */
    void *p;         /* tm * tn sums (float, or double for ints) */
    float *acc;      /* sum_batches */
    int32_t *q;      /* tn int32 sums */
    float *tmp;      /* tn floats */
    uint16_t *tmp16; /* KC or tn 16-bit values */
} Slot;

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

static Slot slot_of(const Plan *pl, int s) {
    Slot sl;
    size_t e = pl->is_int ? 8 : 4;
    char *p = pl->scratch + (size_t)s * pl->slot_bytes;
    size_t tmtn = (size_t)(pl->tm * pl->tn), span = (size_t)(pl->kc > pl->tn ? pl->kc : pl->tn);
    sl.a = p, p += round16(e * (size_t)(pl->tm * pl->kc));
    sl.b = p, p += round16(e * (size_t)(pl->kc * pl->tn));
    sl.p = p, p += round16(e * tmtn);
    sl.acc = (float *)(void *)p, p += round16(pl->mm->sum_batches ? 4 * tmtn : 0);
    sl.q = (int32_t *)(void *)p, p += round16(4 * (size_t)pl->tn);
    sl.tmp = (float *)(void *)p, p += round16(4 * (size_t)pl->tn);
    sl.tmp16 = (uint16_t *)(void *)p;
    (void)span;
    return sl;
}

static size_t slot_size(const Plan *pl) {
    size_t e = pl->is_int ? 8 : 4, tmtn = (size_t)(pl->tm * pl->tn);
    size_t span = (size_t)(pl->kc > pl->tn ? pl->kc : pl->tn);
    return round16(e * (size_t)(pl->tm * pl->kc)) + round16(e * (size_t)(pl->kc * pl->tn)) + round16(e * tmtn) +
           round16(pl->mm->sum_batches ? 4 * tmtn : 0) + 2 * round16(4 * (size_t)pl->tn) + round16(2 * span);
}

/*
 * Packs rows [r0, r0 + rows) x columns [c0, c0 + cols) of item `off` of x into dst, rounded to the computation:
 * row-major (ld = cols) or, when *colmajor, column-major (ld = rows). Floats, or doubles for ints.
 */
static void pack(const Plan *pl, const aclStubMat *x, int64_t off, int64_t r0, int64_t rows, int64_t c0,
                 int64_t cols, void *dst, uint16_t *tmp16, bool *colmajor) {
    const aclStubMatmul *mm = pl->mm;
    int64_t rs = rows == 1 ? 0 : x->rs, cs = cols == 1 ? 0 : x->cs;
    bool cm = (rs < 0 ? -rs : rs) < (cs < 0 ? -cs : cs);
    *colmajor = cm;
    int64_t lines = cm ? cols : rows, len = cm ? rows : cols;
    int64_t step_line = cm ? x->cs : x->rs, step_elem = cm ? x->rs : x->cs;
    int64_t base = off + r0 * x->rs + c0 * x->cs;
    if (x->dtype == ACL_INT4) {
        double *d = dst;
        for (int64_t l = 0; l < lines; l++)
            for (int64_t e = 0; e < len; e++) d[l * len + e] = int4_at(x->data, base + l * step_line + e * step_elem);
        return;
    }
    size_t es = aclDataTypeSize(x->dtype);
    const char *src = (const char *)x->data;
    aclDataType via = compute_dtype(mm->compute);
    for (int64_t l = 0; l < lines; l++) {
        const char *s = src + (base + l * step_line) * (int64_t)es;
        int64_t sstride = step_elem * (int64_t)es;
        if (pl->is_int) {
            aclStubCastStrided((double *)dst + l * len, 8, ACL_DOUBLE, s, sstride, x->dtype, len);
            continue;
        }
        float *d = (float *)dst + l * len;
        if (via != ACL_FLOAT && via != x->dtype) {
            /* to the 16-bit computation type first (rounded once), then widened */
            aclStubCastStrided(tmp16, 2, via, s, sstride, x->dtype, len);
            aclStubRowLoadF32(d, tmp16, via, len);
        } else if (x->dtype == ACL_FLOAT16 || x->dtype == ACL_BF16) {
            /* exact widening: gathered into a contiguous line first when strided */
            const uint16_t *line = (const uint16_t *)s;
            if (sstride != 2) {
                for (int64_t e = 0; e < len; e++) tmp16[e] = *(const uint16_t *)(s + e * sstride);
                line = tmp16;
            }
            aclStubRowLoadF32(d, line, x->dtype, len);
        } else {
            aclStubCastStrided(d, 4, ACL_FLOAT, s, sstride, x->dtype, len);
            if (mm->compute == ACLSTUB_MM_HF32 && x->dtype == ACL_FLOAT)
                for (int64_t e = 0; e < len; e++) d[e] = round_hf32(d[e]);
        }
    }
}

/* sums[mr x nc] (+)= a-chunk @ b-chunk through the BLAS (ldc given). */
static void gemm(const Plan *pl, int64_t mr, int64_t nc, int64_t kk, const void *a, bool ta, int64_t lda,
                 const void *b, bool tb, int64_t ldb, bool accumulate, void *c, int64_t ldc) {
    int oa = ta ? BLAS_TRANS : BLAS_NO_TRANS, ob = tb ? BLAS_TRANS : BLAS_NO_TRANS;
    if (mr == 1) {
        /* one row: c = op(b)^T x, a matrix-vector product (reads b once, no packing); x is a's row */
        int incx = ta ? (int)lda : 1;
        int tr = tb ? BLAS_NO_TRANS : BLAS_TRANS, rows = tb ? (int)nc : (int)kk, cols = tb ? (int)kk : (int)nc;
        if (pl->is_int)
            pl->blas->cblas_dgemv(BLAS_ROW_MAJOR, tr, rows, cols, 1.0, b, (int)ldb, a, incx, accumulate ? 1.0 : 0.0, c, 1);
        else
            pl->blas->cblas_sgemv(BLAS_ROW_MAJOR, tr, rows, cols, 1.0f, b, (int)ldb, a, incx, accumulate ? 1.0f : 0.0f, c,
                              1);
        return;
    }
    if (nc == 1) {
        /* one column: c = op(a) y, y being b's column; c's entries ldc apart */
        int incy = tb ? 1 : (int)ldb;
        int tr = ta ? BLAS_TRANS : BLAS_NO_TRANS, rows = ta ? (int)kk : (int)mr, cols = ta ? (int)mr : (int)kk;
        if (pl->is_int)
            pl->blas->cblas_dgemv(BLAS_ROW_MAJOR, tr, rows, cols, 1.0, a, (int)lda, b, incy, accumulate ? 1.0 : 0.0, c,
                              (int)ldc);
        else
            pl->blas->cblas_sgemv(BLAS_ROW_MAJOR, tr, rows, cols, 1.0f, a, (int)lda, b, incy, accumulate ? 1.0f : 0.0f, c,
                              (int)ldc);
        return;
    }
    if (pl->is_int)
        pl->blas->cblas_dgemm(BLAS_ROW_MAJOR, oa, ob, (int)mr, (int)nc, (int)kk, 1.0, a, (int)lda, b, (int)ldb,
                          accumulate ? 1.0 : 0.0, c, (int)ldc);
    else
        pl->blas->cblas_sgemm(BLAS_ROW_MAJOR, oa, ob, (int)mr, (int)nc, (int)kk, 1.0f, a, (int)lda, b, (int)ldb,
                          accumulate ? 1.0f : 0.0f, c, (int)ldc);
}

/* The product of one tile of one item into c (ldc), chunk by chunk over the reduction. */
static void tile_product(const Plan *pl, const Slot *sl, int64_t item, int64_t i0, int64_t mr, int64_t j0,
                         int64_t nc, void *c, int64_t ldc) {
    const aclStubMatmul *mm = pl->mm;
    size_t e = pl->is_int ? 8 : 4;
    if (mm->k == 0 || mm->skip_product) {
        for (int64_t r = 0; r < mr; r++) memset((char *)c + (size_t)(r * ldc) * e, 0, (size_t)nc * e);
        return;
    }
    int64_t aoff = item_offset(mm, &mm->a, item), boff = item_offset(mm, &mm->b, item);
    for (int64_t k0 = 0; k0 < mm->k; k0 += pl->kc) {
        int64_t kk = mm->k - k0 < pl->kc ? mm->k - k0 : pl->kc;
        const void *a, *b;
        bool ta, tb;
        int64_t lda, ldb;
        if (pl->a_ready) {
            a = (const float *)mm->a.data + aoff + i0 * mm->a.rs + k0 * mm->a.cs;
            ta = pl->a_trans, lda = pl->lda;
        } else {
            pack(pl, &mm->a, aoff, i0, mr, k0, kk, sl->a, sl->tmp16, &ta);
            a = sl->a, lda = ta ? mr : kk;
        }
        if (pl->b_ready) {
            b = (const float *)mm->b.data + boff + k0 * mm->b.rs + j0 * mm->b.cs;
            tb = pl->b_trans, ldb = pl->ldb;
        } else {
            pack(pl, &mm->b, boff, k0, kk, j0, nc, sl->b, sl->tmp16, &tb);
            b = sl->b, ldb = tb ? kk : nc;
        }
        gemm(pl, mr, nc, kk, a, ta, lda < 1 ? 1 : lda, b, tb, ldb < 1 ? 1 : ldb, k0 > 0, c, ldc);
    }
}

/* The default epilogue of one row (float computations). */
static void epilogue_row(const Plan *pl, const Slot *sl, const aclStubMmRow *row) {
    const aclStubMatmul *mm = pl->mm;
    float *v = row->f;
    int64_t n = row->n;
    if (mm->skip_product)
        for (int64_t j = 0; j < n; j++) v[j] = 0.0f;
    else if (mm->alpha != 1.0f)
        for (int64_t j = 0; j < n; j++) v[j] = mm->alpha * v[j];
    if (mm->add.dtype != ACL_DT_UNDEFINED) {
        int64_t off = item_offset(mm, &mm->add, mm->sum_batches ? 0 : row->item) + row->i * mm->add.rs +
                      row->j0 * mm->add.cs;
        size_t es = aclDataTypeSize(mm->add.dtype);
        aclStubCastStrided(sl->tmp, 4, ACL_FLOAT, (const char *)mm->add.data + off * (int64_t)es,
                           mm->add.cs * (int64_t)es, mm->add.dtype, n);
        if (mm->beta != 1.0f)
            for (int64_t j = 0; j < n; j++) sl->tmp[j] = mm->beta * sl->tmp[j];
        if (mm->skip_product)
            memcpy(v, sl->tmp, (size_t)n * 4);
        else
            for (int64_t j = 0; j < n; j++) v[j] = v[j] + sl->tmp[j];
    }
    if (row->out_cs == 1 && (mm->out.dtype == ACL_FLOAT16 || mm->out.dtype == ACL_BF16))
        aclStubRowStoreF32(row->out, v, mm->out.dtype, n); /* the same rounding, vectorised */
    else if (row->out_cs == 1 && mm->out.dtype == ACL_FLOAT)
        memcpy(row->out, v, (size_t)n * 4);
    else
        aclStubCastStrided(row->out, row->out_cs * (int64_t)pl->esize_out, mm->out.dtype, v, 4, ACL_FLOAT, n);
}

static void finish_tile(const Plan *pl, const Slot *sl, int64_t item, int64_t i0, int64_t mr, int64_t j0,
                        int64_t nc, void *sums) {
    const aclStubMatmul *mm = pl->mm;
    int64_t ooff = item_offset(mm, &mm->out, mm->sum_batches ? 0 : item);
    for (int64_t r = 0; r < mr; r++) {
        aclStubMmRow row = {item, i0 + r, j0, nc, NULL, NULL, NULL, mm->out.cs, sl->tmp};
        row.out = (char *)mm->out.data + (ooff + (i0 + r) * mm->out.rs + j0 * mm->out.cs) * (int64_t)pl->esize_out;
        if (pl->is_int) {
            const double *d = (const double *)sums + r * nc;
            for (int64_t j = 0; j < nc; j++) sl->q[j] = (int32_t)(uint32_t)(uint64_t)(int64_t)d[j];
            row.q = sl->q;
            if (mm->row_fn != NULL)
                mm->row_fn(mm, &row);
            else
                aclStubCastStrided(row.out, row.out_cs * (int64_t)pl->esize_out, mm->out.dtype, sl->q, 4, ACL_INT32,
                                   nc);
            continue;
        }
        row.f = (float *)sums + r * nc;
        if (mm->result != ACL_FLOAT && !mm->sum_batches) round_row16(row.f, mm->result, sl->tmp16, nc);
        if (mm->row_fn != NULL)
            mm->row_fn(mm, &row);
        else
            epilogue_row(pl, sl, &row);
    }
}

static void run_tile(const Plan *pl, const Slot *sl, int64_t t) {
    const aclStubMatmul *mm = pl->mm;
    int64_t ni = t % pl->ntiles, mi = (t / pl->ntiles) % pl->mtiles, item = t / pl->ntiles / pl->mtiles;
    int64_t i0 = mi * pl->tm, j0 = ni * pl->tn;
    int64_t mr = mm->m - i0 < pl->tm ? mm->m - i0 : pl->tm, nc = mm->n - j0 < pl->tn ? mm->n - j0 : pl->tn;
    if (pl->direct) {
        float *c = (float *)mm->out.data + item_offset(mm, &mm->out, item) + i0 * mm->out.rs + j0;
        int64_t ldc = mr == 1 && mm->out.rs < nc ? nc : mm->out.rs;
        tile_product(pl, sl, item, i0, mr, j0, nc, c, ldc);
        return;
    }
    if (!mm->sum_batches) {
        tile_product(pl, sl, item, i0, mr, j0, nc, sl->p, nc);
        finish_tile(pl, sl, item, i0, mr, j0, nc, sl->p);
        return;
    }
    /* the sum over the batch, in batch order, of the products each rounded to the result type */
    if (pl->items == 0)
        for (int64_t r = 0; r < mr; r++) memset(sl->acc + r * nc, 0, (size_t)nc * 4);
    for (int64_t b = 0; b < pl->items; b++) {
        float *p = sl->p;
        tile_product(pl, sl, b, i0, mr, j0, nc, p, nc);
        for (int64_t r = 0; r < mr; r++) {
            float *row = p + r * nc, *acc = sl->acc + r * nc;
            if (mm->result != ACL_FLOAT) round_row16(row, mm->result, sl->tmp16, nc);
            if (b == 0)
                memcpy(acc, row, (size_t)nc * 4);
            else
                for (int64_t j = 0; j < nc; j++) acc[j] = acc[j] + row[j];
        }
    }
    finish_tile(pl, sl, 0, i0, mr, j0, nc, sl->acc);
}

typedef struct {
    const Plan *pl;
    int64_t per_slot_tiles_num, per_slot_den; /* slot s runs tiles [s * tiles / slots, (s + 1) * tiles / slots) */
} SlotJob;

static void run_slots(void *ctx, int64_t begin, int64_t end) {
    const SlotJob *job = ctx;
    const Plan *pl = job->pl;
    int64_t sum_tiles = pl->mm->sum_batches ? pl->mtiles * pl->ntiles : pl->tiles;
    for (int64_t s = begin; s < end; s++) {
        Slot sl = slot_of(pl, (int)s);
        int64_t t0 = s * sum_tiles / pl->slots, t1 = (s + 1) * sum_tiles / pl->slots;
        for (int64_t t = t0; t < t1; t++) run_tile(pl, &sl, t);
    }
}

aclnnStatus aclStubMatmulRun(const aclStubOpCall *call, const aclStubMatmul *mm) {
    if (mm->m <= 0 || mm->n <= 0) return OK;
    const char *no_blas = NULL;
    const aclStubBlasApi *blas = sdk_blas(&no_blas);
    if (blas == NULL) return aclStubKernelFail(call, ACLNN_ERR_INNER, "%s", no_blas);
    Plan pl;
    memset(&pl, 0, sizeof pl);
    pl.blas = blas;
    pl.mm = mm;
    pl.is_int = mm->compute == ACLSTUB_MM_INT;
    pl.esize_out = aclDataTypeSize(mm->out.dtype);
    pl.items = 1;
    for (int d = 0; d < mm->nbatch; d++) pl.items *= mm->batch[d] > 0 ? mm->batch[d] : 0;
    if (pl.items == 0 && !mm->sum_batches) return OK; /* an empty sum over the batch is zero */
    if (mm->m > INT_MAX || mm->n > INT_MAX)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "a product of %lld x %lld is larger than the BLAS takes",
                                 (long long)mm->m, (long long)mm->n);
    pl.tm = mm->m < TM ? mm->m : TM;
    int64_t k1 = mm->k > 0 ? mm->k : 1;
    int64_t tn = ((INT64_C(1) << 21) / (pl.tm * k1) + 63) / 64 * 64;
    tn = tn < TN_MIN ? TN_MIN : tn > TN_MAX ? TN_MAX : tn;
    pl.tn = mm->n < tn ? mm->n : tn;
    pl.kc = mm->k < KC ? (mm->k > 0 ? mm->k : 1) : KC;
    if (mm->m == 1 && pl.kc * pl.tn > GEMV_PANEL) /* a matrix-vector product: packed panels that stay in cache */
        pl.kc = GEMV_PANEL / pl.tn < 64 ? 64 : GEMV_PANEL / pl.tn / 64 * 64;
    pl.mtiles = (mm->m + pl.tm - 1) / pl.tm;
    pl.ntiles = (mm->n + pl.tn - 1) / pl.tn;
    pl.tiles = pl.items * pl.mtiles * pl.ntiles;
    pl.a_ready = !pl.is_int && blas_ready(mm, &mm->a, mm->m, mm->k, &pl.a_trans, &pl.lda);
    pl.b_ready = !pl.is_int && blas_ready(mm, &mm->b, mm->k, mm->n, &pl.b_trans, &pl.ldb);
    pl.direct = !pl.is_int && mm->out.dtype == ACL_FLOAT && mm->result == ACL_FLOAT && mm->alpha == 1.0f &&
                mm->add.dtype == ACL_DT_UNDEFINED && !mm->sum_batches && !mm->skip_product && mm->row_fn == NULL &&
                (mm->n == 1 || mm->out.cs == 1) && (mm->m == 1 || (mm->out.rs >= mm->n && mm->out.rs <= INT_MAX));

    int64_t work_tiles = mm->sum_batches ? pl.mtiles * pl.ntiles : pl.tiles;
    int64_t tile_flops = pl.tm * pl.tn * k1 * (mm->sum_batches ? pl.items : 1);
    int64_t per_slot = tile_flops >= MIN_TILE_FLOPS ? 1 : MIN_TILE_FLOPS / (tile_flops > 0 ? tile_flops : 1);
    int64_t slots = (work_tiles + per_slot - 1) / per_slot;
    int threads = aclStubNumThreads();
    pl.slots = (int)(slots < threads ? (slots > 0 ? slots : 1) : threads);
    pl.slot_bytes = slot_size(&pl);
    pl.scratch = aclStubKernelScratch(call, pl.slot_bytes * (size_t)pl.slots);
    if (pl.scratch == NULL) return aclStubKernelOutOfMemory(call);
    SlotJob job = {&pl, 0, 0};
    aclStubParallelFor(pl.slots, 1, run_slots, &job);
    return OK;
}

/* ---- the vector unit's dot product ------------------------------------------------------------------------- */

aclnnStatus aclStubMmDot(const aclStubOpCall *call, const aclStubTensorDesc *x, const aclStubTensorDesc *y,
                         aclDataType t, void *out, aclDataType out_dtype) {
    int64_t n = aclStubNumel(x);
    unsigned char result[16] = {0};
    if (t == ACL_INT8 || t == ACL_UINT8 || t == ACL_INT32) {
        int64_t acc = 0, a, b;
        for (int64_t i = 0; i < n; i++) {
            aclStubCastStrided(&a, 0, ACL_INT64, aclStubElem1(x, i), 0, x->dtype, 1);
            aclStubCastStrided(&b, 0, ACL_INT64, aclStubElem1(y, i), 0, y->dtype, 1);
            acc = (int64_t)((uint64_t)acc + (uint64_t)a * (uint64_t)b);
        }
        aclStubCastStrided(result, 0, t, &acc, 0, ACL_INT64, 1);
    } else {
        float *v = aclStubKernelScratch(call, sizeof(float) * (size_t)(2 * n + 1));
        if (v == NULL) return aclStubKernelOutOfMemory(call);
        float *w = v + n;
        uint16_t h;
        /* each operand as t (rounded once when it was wider), then widened */
        for (int64_t i = 0; i < n; i++) {
            if (t == ACL_FLOAT) {
                aclStubCastStrided(&v[i], 0, ACL_FLOAT, aclStubElem1(x, i), 0, x->dtype, 1);
                aclStubCastStrided(&w[i], 0, ACL_FLOAT, aclStubElem1(y, i), 0, y->dtype, 1);
            } else {
                aclStubCastStrided(&h, 0, t, aclStubElem1(x, i), 0, x->dtype, 1);
                v[i] = aclStubLoadPtrF32(t, &h);
                aclStubCastStrided(&h, 0, t, aclStubElem1(y, i), 0, y->dtype, 1);
                w[i] = aclStubLoadPtrF32(t, &h);
            }
        }
        aclStubRowMulF32(v, v, w, n);
        float sum = n > 0 ? aclStubReduceSumF32(v, n) : 0.0f;
        aclStubStorePtrF32(t, result, sum);
    }
    aclStubCastStrided(out, 0, out_dtype, result, 0, t, 1);
    return OK;
}

/* ---- dequantisation of integer products --------------------------------------------------------------------- */

static float scale_value(const aclStubMat *m, const void *p) {
    switch (m->dtype) {
    case ACL_UINT64:
    case ACL_INT64: {
        uint64_t u;
        memcpy(&u, p, 8);
        return aclStubQuantParamScale(u);
    }
    default: return aclStubLoadPtrF32(m->dtype, p);
    }
}

static inline int8_t round_int8(float v) {
    v = v == v ? v : 0.0f;
    float r = __builtin_rintf(v);
    r = r < 127.0f ? r : 127.0f;
    r = r > -128.0f ? r : -128.0f;
    return (int8_t)(int32_t)r;
}

void aclStubMmDequantRow(const aclStubMatmul *mm, const aclStubMmRow *row) {
    const aclStubMmDequant *dq = mm->ctx;
    int64_t n = row->n, item = row->item, i = row->i;
    float *v = row->tmp;
    bool int_bias = dq->bias.dtype == ACL_INT32, float_bias = dq->bias.dtype != ACL_DT_UNDEFINED && !int_bias;
    float pt = dq->pertoken.dtype != ACL_DT_UNDEFINED
                   ? aclStubLoadPtrF32(dq->pertoken.dtype, aclStubMatElem(mm, &dq->pertoken, item, i, 0))
                   : 1.0f;
    bool has_pt = dq->pertoken.dtype != ACL_DT_UNDEFINED;
    size_t es = aclDataTypeSize(mm->out.dtype);
    for (int64_t c = 0; c < n; c++) {
        int64_t j = row->j0 + c;
        int32_t a = row->q[c];
        if (int_bias) a = (int32_t)((uint32_t)a + (uint32_t) * (const int32_t *)aclStubMatElem(mm, &dq->bias, item, 0, j));
        char *o = (char *)row->out + c * row->out_cs * (int64_t)es;
        if (mm->out.dtype == ACL_INT32) {
            memcpy(o, &a, 4);
            continue;
        }
        const void *sp = aclStubMatElem(mm, &dq->scale, item, 0, j);
        float f = (float)a * scale_value(&dq->scale, sp);
        if (has_pt) f = f * pt;
        if (float_bias) f = f + aclStubLoadPtrF32(dq->bias.dtype, aclStubMatElem(mm, &dq->bias, item, 0, j));
        if (mm->out.dtype == ACL_INT8) {
            float off = 0.0f;
            if (dq->offset.dtype != ACL_DT_UNDEFINED)
                off = aclStubLoadPtrF32(dq->offset.dtype, aclStubMatElem(mm, &dq->offset, item, 0, j));
            else if (dq->scale.dtype == ACL_UINT64 || dq->scale.dtype == ACL_INT64) {
                uint64_t u;
                memcpy(&u, sp, 8);
                off = (float)aclStubQuantParamOffset(u);
            }
            *(int8_t *)o = round_int8(f + off);
            continue;
        }
        v[c] = f;
    }
    if (mm->out.dtype != ACL_INT32 && mm->out.dtype != ACL_INT8)
        aclStubCastStrided(row->out, row->out_cs * (int64_t)es, mm->out.dtype, v, 4, ACL_FLOAT, n);
}

/* ---- weight-only dequantisation -------------------------------------------------------------------------------- */

typedef struct {
    const aclStubTensorDesc *w, *scale, *offset;
    int64_t group, n;
    aclDataType dtype;
    uint16_t *dst;
} Antiquant;

/* Rows of a dequantisation parameter: 1 unless it is (groups, n). */
static int64_t param_rows(const aclStubTensorDesc *t) { return t->ndim == 2 ? t->dims[0] : 1; }

static float param_value(const aclStubTensorDesc *t, int64_t r, int64_t c) {
    int64_t rows = param_rows(t), cols = aclStubNumel(t) / rows;
    const void *p = aclStubElemAt(t, (rows == 1 ? 0 : r) * cols + (cols == 1 ? 0 : c));
    if (t->dtype == ACL_UINT64 || t->dtype == ACL_INT64) {
        uint64_t u;
        memcpy(&u, p, 8);
        return aclStubQuantParamScale(u);
    }
    if (t->dtype == ACL_INT32) return (float)*(const int32_t *)p;
    return aclStubLoadPtrF32(t->dtype, p);
}

static void antiquant_rows(void *ctx, int64_t begin, int64_t end) {
    const Antiquant *a = ctx;
    aclStubMmCompute c16 = a->dtype == ACL_BF16 ? ACLSTUB_MM_BF16 : ACLSTUB_MM_FP16;
    for (int64_t r = begin; r < end; r++) {
        int64_t grp = a->group > 0 ? r / a->group : 0;
        for (int64_t c = 0; c < a->n; c++) {
            int64_t e = a->w->offset + r * a->w->strides[0] + c * a->w->strides[1];
            float v = a->w->dtype == ACL_INT4 ? (float)int4_at(a->w->data, e) : (float)((const int8_t *)a->w->data)[e];
            if (a->offset) v = aclStubMmRound(c16, v + param_value(a->offset, grp, c));
            v = v * param_value(a->scale, grp, c);
            aclStubStorePtrF32(a->dtype, &a->dst[r * a->n + c], v);
        }
    }
}

void aclStubMmAntiquantWeight(const aclStubTensorDesc *w, const aclStubTensorDesc *scale,
                              const aclStubTensorDesc *offset, int64_t group, aclDataType dtype, void *dst) {
    Antiquant a = {w, scale, offset, group, w->dims[1], dtype, dst};
    aclStubParallelFor(w->dims[0], 64, antiquant_rows, &a);
}
