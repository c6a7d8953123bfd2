/* Row gather shared by the forward operators (see op_copy_rows in op_common.h). */
#include "op_common.h"

typedef struct {
    const aclTensor *out, *src;
    const int64_t *src_rows;
    int64_t out_row0, c;
    size_t esize;
    bool src_rows_contiguous; /* each source row is C adjacent elements */
} CopyCtx;

/* Copy source row r element by element, walking its trailing dimensions in row-major order. */
static void copy_strided_row(const CopyCtx *x, char *dst, int64_t r) {
    const aclTensor *s = x->src;
    int64_t idx[STUB_MAX_INLINE_DIMS * 4] = {0};
    uint64_t nd = s->ndim;
    int64_t base = s->offset + r * s->strides[0];
    if (nd > sizeof idx / sizeof idx[0]) nd = sizeof idx / sizeof idx[0]; /* rank is validated far below this */
    for (int64_t e = 0; e < x->c; e++) {
        int64_t off = base;
        for (uint64_t d = 1; d < nd; d++) off += idx[d] * s->strides[d];
        memcpy(dst + e * (int64_t)x->esize, (const char *)s->data + off * (int64_t)x->esize, x->esize);
        for (uint64_t d = nd; d-- > 1;) { /* odometer increment */
            if (++idx[d] < s->dims[d]) break;
            idx[d] = 0;
        }
    }
}

static void copy_range(void *arg, int64_t begin, int64_t end) {
    const CopyCtx *x = arg;
    size_t row_bytes = (size_t)x->c * x->esize;
    for (int64_t j = begin; j < end; j++) {
        int64_t r = x->src_rows[j];
        if (r == OP_ROW_KEEP) continue;
        char *dst = (char *)x->out->data + (x->out->offset + (x->out_row0 + j) * x->c) * (int64_t)x->esize;
        if (r == OP_ROW_ZERO)
            memset(dst, 0, row_bytes);
        else if (x->src_rows_contiguous)
            memcpy(dst, (const char *)x->src->data + (x->src->offset + r * x->src->strides[0]) * (int64_t)x->esize,
                   row_bytes);
        else
            copy_strided_row(x, dst, r);
    }
}

void op_copy_rows(const aclTensor *out, int64_t out_row0, const aclTensor *src, const int64_t *src_rows, int64_t m) {
    int64_t c = 1;
    bool contiguous = true;
    for (uint64_t d = src->ndim; d-- > 1;) {
        if (src->dims[d] != 1 && src->strides[d] != c) contiguous = false;
        c *= src->dims[d];
    }
    if (m <= 0 || c <= 0) return;
    CopyCtx x = {out, src, src_rows, out_row0, c, aclDataTypeSize(src->dtype), contiguous};
    op_parallel_for(m, 1 + (int64_t)(65536 / ((size_t)c * x.esize + 1)), copy_range, &x);
}
