/* The FRACTAL_NZ layout (aclstub/op_nz.h): geometry, packing and unpacking on the stub's threads. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_nz.h"
#include "meta_internal.h"
#include "sdk_internal.h"

#define NZ_R0 16

bool aclStubIsNzFormat(aclFormat format) {
    return format == ACL_FORMAT_FRACTAL_NZ || ((int)format >= 50 && (int)format <= 54);
}

int64_t aclStubNzC0(aclDataType dtype) {
    if (dtype == ACL_INT4) return 64;
    size_t size = aclDataTypeSize(dtype);
    return size == 1 || size == 2 || size == 4 ? (int64_t)(32 / size) : 16;
}

bool aclStubNzGeometry(const aclStubTensorDesc *t, int64_t c0, aclStubNzGeom *g) {
    if (t == NULL || t->ndim < 2) return false;
    uint32_t n = t->ndim;
    int64_t vr = t->dims[n - 2], vc = t->dims[n - 1];
    g->transposed = t->strides[n - 2] == 1 && t->strides[n - 1] != 1 && vr > 1;
    g->rows = g->transposed ? vc : vr;
    g->cols = g->transposed ? vr : vc;
    g->batch = 1;
    for (uint32_t d = 0; d + 2 < n; d++) g->batch *= t->dims[d] > 0 ? t->dims[d] : 0;
    if (t->storage_ndim >= 4 && aclStubIsNzFormat(t->format) && t->storage_dims[t->storage_ndim - 1] > 0)
        c0 = t->storage_dims[t->storage_ndim - 1];
    g->c0 = c0 > 0 ? c0 : aclStubNzC0(t->dtype);
    g->r1 = (g->rows + NZ_R0 - 1) / NZ_R0;
    g->c1 = (g->cols + g->c0 - 1) / g->c0;
    return true;
}

int64_t aclStubNzNumel(const aclStubNzGeom *g) { return g->batch * g->c1 * g->r1 * NZ_R0 * g->c0; }

void aclStubNzStorageShape(const int64_t *dims, uint32_t ndim, int64_t c0, int64_t *out) {
    for (uint32_t d = 0; d + 2 < ndim; d++) out[d] = dims[d];
    out[ndim - 2] = (dims[ndim - 1] + c0 - 1) / c0;
    out[ndim - 1] = (dims[ndim - 2] + NZ_R0 - 1) / NZ_R0;
    out[ndim] = NZ_R0;
    out[ndim + 1] = c0;
}

/* One job: items are the column blocks (b, cb) of every batch matrix; each owns a contiguous run of the NZ buffer
 * (r1 * 16 rows of c0 elements). */
typedef struct {
    const aclStubNzGeom *g;
    size_t esize; /* 0: INT4 */
    const unsigned char *src;
    unsigned char *dst;
    bool pack;
} NzJob;

static inline unsigned nib_get(const unsigned char *p, int64_t i) { return (p[i >> 1] >> ((i & 1) * 4)) & 0xfu; }
static inline void nib_set(unsigned char *p, int64_t i, unsigned v) {
    unsigned shift = (unsigned)(i & 1) * 4;
    p[i >> 1] = (unsigned char)((p[i >> 1] & ~(0xfu << shift)) | ((v & 0xfu) << shift));
}

static void nz_range(void *ctx, int64_t begin, int64_t end) {
    const NzJob *j = ctx;
    const aclStubNzGeom *g = j->g;
    int64_t rows_p = g->r1 * NZ_R0, c0 = g->c0;
    for (int64_t item = begin; item < end; item++) {
        int64_t b = item / g->c1, cb = item % g->c1;
        int64_t col0 = cb * c0, width = g->cols - col0 < c0 ? g->cols - col0 : c0;
        int64_t nz0 = item * rows_p * c0; /* first element of the item's run */
        for (int64_t r = 0; r < rows_p; r++) {
            int64_t nz = nz0 + r * c0, nd = (b * g->rows + r) * g->cols + col0;
            bool real = r < g->rows;
            if (j->esize) {
                size_t es = j->esize;
                if (j->pack) {
                    unsigned char *d = j->dst + nz * (int64_t)es;
                    if (real) memcpy(d, j->src + nd * (int64_t)es, (size_t)width * es);
                    memset(d + (real ? width : 0) * (int64_t)es, 0, (size_t)(c0 - (real ? width : 0)) * es);
                } else if (real) {
                    memcpy(j->dst + nd * (int64_t)es, j->src + nz * (int64_t)es, (size_t)width * es);
                }
            } else if (j->pack) {
                for (int64_t c = 0; c < c0; c++) nib_set(j->dst, nz + c, real && c < width ? nib_get(j->src, nd + c) : 0);
            } else if (real) {
                for (int64_t c = 0; c < width; c++) nib_set(j->dst, nd + c, nib_get(j->src, nz + c));
            }
        }
    }
}

/* INT4 items share bytes at their edges when c0 or the row length is odd: such layouts run on one thread. */
static void nz_run(const aclStubNzGeom *g, aclDataType dtype, const void *src, void *dst, bool pack) {
    NzJob j = {g, dtype == ACL_INT4 ? 0 : aclDataTypeSize(dtype), src, dst, pack};
    int64_t items = g->batch * g->c1;
    if (items <= 0) return;
    bool shared_bytes = j.esize == 0 && (g->c0 % 2 != 0 || g->cols % 2 != 0);
    int64_t per_item = g->r1 * NZ_R0 * g->c0;
    if (shared_bytes || items * per_item < (1 << 16))
        nz_range(&j, 0, items);
    else
        aclStubParallelFor(items, (1 << 15) / per_item + 1, nz_range, &j);
}

void aclStubNzPack(const aclStubNzGeom *g, aclDataType dtype, const void *src, void *dst) {
    nz_run(g, dtype, src, dst, true);
}

void aclStubNzUnpack(const aclStubNzGeom *g, aclDataType dtype, const void *src, void *dst) {
    nz_run(g, dtype, src, dst, false);
}

static int64_t bytes_of(aclDataType dtype, int64_t n) {
    return dtype == ACL_INT4 ? (n + 1) / 2 : n * (int64_t)aclDataTypeSize(dtype);
}

aclnnStatus aclStubNzAsNd(const aclStubOpCall *call, const aclStubTensorDesc *t, aclStubTensorDesc *nd) {
    *nd = *t;
    aclStubNzGeom g;
    if (!aclStubIsNzFormat(t->format) || aclStubNumel(t) == 0 || !aclStubNzGeometry(t, 0, &g)) return OK;
    int64_t n = g.batch * g.rows * g.cols;
    void *buf = aclStubKernelScratch(call, (size_t)bytes_of(t->dtype, n > 0 ? n : 1));
    if (buf == NULL) return aclStubKernelOutOfMemory(call);
    const unsigned char *src = (const unsigned char *)t->data;
    if (t->dtype == ACL_INT4) {
        if (t->offset % 2 != 0)
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID, "an INT4 FRACTAL_NZ tensor must start on a byte");
        src += t->offset / 2;
    } else {
        src += t->offset * (int64_t)aclDataTypeSize(t->dtype);
    }
    aclStubNzUnpack(&g, t->dtype, src, buf);
    uint32_t r = t->ndim;
    nd->data = buf;
    nd->offset = 0;
    nd->format = ACL_FORMAT_ND;
    nd->storage_ndim = 0;
    nd->strides[r - 2] = g.transposed ? 1 : g.cols;
    nd->strides[r - 1] = g.transposed ? g.cols : 1;
    int64_t stride = g.rows * g.cols;
    for (uint32_t d = r - 2; d-- > 0;) {
        nd->strides[d] = stride;
        stride *= t->dims[d];
    }
    return OK;
}

/* The bytes an NZ view spans from its data pointer: its whole storage (sdk_view_byte_range). */
bool sdk_nz_byte_range(const aclStubTensorDesc *t, int64_t *lo, int64_t *hi) {
    aclStubNzGeom g;
    if (!aclStubIsNzFormat(t->format) || !aclStubNzGeometry(t, 0, &g)) return false;
    int64_t n = aclStubNzNumel(&g);
    *lo = t->dtype == ACL_INT4 ? t->offset / 2 : t->offset * (int64_t)aclDataTypeSize(t->dtype);
    *hi = *lo + bytes_of(t->dtype, n);
    return true;
}

/* ---- host functions ---- */

bool aclStubHostIntArray(const aclIntArray *array, int64_t *values, uint64_t capacity, uint64_t *size) {
    uint64_t n;
    if (array == NULL || !meta_int_array_size(array, &n)) return false;
    if (size) *size = n;
    if (values && capacity) {
        int64_t *all = malloc((n ? n : 1) * sizeof *all);
        if (all == NULL || !meta_int_array_copy(array, all, n)) {
            free(all);
            return false;
        }
        memcpy(values, all, (n < capacity ? n : capacity) * sizeof *all);
        free(all);
    }
    return true;
}

int aclStubHostTensor(const aclTensor *tensor, aclStubTensorDesc *desc) {
    return tensor == NULL ? 0 : aclStubTensorDescribe(tensor, desc);
}

aclnnStatus aclStubHostFail(const char *fn, aclnnStatus status, const char *fmt, ...) {
    char text[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    aclStubSetErrMsg("%s: %s", fn, text);
    return status;
}
