/*
 * Row copy shared by the forward operators (see aclStubCopyRows in aclstub/op_sdk.h). A gather reads a
 * source row once per output row that copies it (K times in a top-K permute); when source rows are
 * contiguous the copy runs source-major instead: each source row is read once and written to all of its
 * output rows, so the copy moves only the bytes it must. Every output row is written by exactly one source
 * row, so source ranges run in parallel without races.
 */
#include <stdlib.h>

#include "stub_internal.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

typedef struct {
    const aclStubTensorDesc *out, *src;
    const int64_t *src_rows;
    int64_t out_row0, c;
    size_t esize;
    bool src_rows_contiguous; /* each source row is C adjacent elements */
    bool stream;              /* use non-temporal stores */
    bool zeros_only;          /* write the ACLSTUB_ROW_ZERO rows only (the scatter wrote the others) */
    const int64_t *first;     /* scatter: output rows of source row r are dests[first[r] .. first[r + 1]) */
    const int64_t *dests;
} CopyCtx;

void aclStubCopyBytes(void *dst_, const void *src_, size_t n, bool stream) {
    char *dst = dst_;
    const char *src = src_;
#if defined(__x86_64__)
    if (stream) {
        size_t i = (16 - ((uintptr_t)dst & 15)) & 15; /* streaming stores need 16-byte aligned destinations */
        if (i > n) i = n;
        memcpy(dst, src, i);
        for (; i + 64 <= n; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + i)), b = _mm_loadu_si128((const __m128i *)(src + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32)), d = _mm_loadu_si128((const __m128i *)(src + i + 48));
            _mm_stream_si128((__m128i *)(dst + i), a);
            _mm_stream_si128((__m128i *)(dst + i + 16), b);
            _mm_stream_si128((__m128i *)(dst + i + 32), c);
            _mm_stream_si128((__m128i *)(dst + i + 48), d);
        }
        for (; i + 16 <= n; i += 16) _mm_stream_si128((__m128i *)(dst + i), _mm_loadu_si128((const __m128i *)(src + i)));
        memcpy(dst + i, src + i, n - i);
        return;
    }
#endif
    (void)stream;
    memcpy(dst, src, n);
}

void aclStubStreamFence(void) {
#if defined(__x86_64__)
    _mm_sfence(); /* streamed stores are visible before the pool reports the chunk done */
#endif
}

/* Copy source row r element by element, walking its trailing dimensions in row-major order. */
static void copy_strided_row(const CopyCtx *x, char *dst, int64_t r) {
    const aclStubTensorDesc *s = x->src;
    int64_t idx[ACLSTUB_MAX_DIMS] = {0};
    uint32_t nd = s->ndim;
    int64_t base = s->offset + r * s->strides[0];
    for (int64_t e = 0; e < x->c; e++) {
        int64_t off = base;
        for (uint32_t d = 1; d < nd; d++) off += idx[d] * s->strides[d];
        memcpy(dst + e * (int64_t)x->esize, (const char *)s->data + off * (int64_t)x->esize, x->esize);
        for (uint32_t d = nd; d-- > 1;) { /* odometer increment */
            if (++idx[d] < s->dims[d]) break;
            idx[d] = 0;
        }
    }
}

static char *out_row(const CopyCtx *x, int64_t j) {
    return (char *)x->out->data + (x->out->offset + (x->out_row0 + j) * x->c) * (int64_t)x->esize;
}

static const char *src_row(const CopyCtx *x, int64_t r) {
    return (const char *)x->src->data + (x->src->offset + r * x->src->strides[0]) * (int64_t)x->esize;
}

static void copy_range(void *arg, int64_t begin, int64_t end) {
    const CopyCtx *x = arg;
    size_t row_bytes = (size_t)x->c * x->esize;
    for (int64_t j = begin; j < end; j++) {
        int64_t r = x->src_rows[j];
        if (r == ACLSTUB_ROW_KEEP || (x->zeros_only && r != ACLSTUB_ROW_ZERO)) continue;
        char *dst = out_row(x, j);
        if (r == ACLSTUB_ROW_ZERO)
            memset(dst, 0, row_bytes);
        else if (x->src_rows_contiguous)
            aclStubCopyBytes(dst, src_row(x, r), row_bytes, x->stream);
        else
            copy_strided_row(x, dst, r);
    }
    if (x->stream) aclStubStreamFence();
}

/* Source rows [begin, end): each is read once and written to every output row that copies it. */
static void scatter_range(void *arg, int64_t begin, int64_t end) {
    const CopyCtx *x = arg;
    size_t row_bytes = (size_t)x->c * x->esize;
    for (int64_t r = begin; r < end; r++) {
        const char *src = src_row(x, r);
        for (int64_t i = x->first[r]; i < x->first[r + 1]; i++) aclStubCopyBytes(out_row(x, x->dests[i]), src, row_bytes, x->stream);
    }
    if (x->stream) aclStubStreamFence();
}

/*
 * The source-major copy: a counting sort of the output rows by source row, then one parallel pass over the
 * source rows. false (nothing written) when it does not apply: too many source rows for the output rows
 * (building the index would cost more than it saves), an index outside the source, or no memory.
 */
static bool scatter_rows(CopyCtx *x, int64_t m) {
    int64_t n_src = x->src->ndim ? x->src->dims[0] : 1;
    if (n_src > 4 * m + 1024) return false;
    int64_t *first = calloc((size_t)n_src + 1, sizeof *first), *dests = malloc((size_t)m * sizeof *dests);
    bool ok = first && dests, zeros = false;
    for (int64_t j = 0; ok && j < m; j++) {
        int64_t r = x->src_rows[j];
        if (r == ACLSTUB_ROW_ZERO)
            zeros = true;
        else if (r != ACLSTUB_ROW_KEEP && (r < 0 || r >= n_src))
            ok = false;
        else if (r != ACLSTUB_ROW_KEEP)
            first[r + 1]++;
    }
    if (ok) {
        for (int64_t r = 0; r < n_src; r++) first[r + 1] += first[r];
        /* Each source row's output rows in ascending order; first[r] walks up to first[r + 1] here... */
        for (int64_t j = 0; j < m; j++) {
            int64_t r = x->src_rows[j];
            if (r >= 0) dests[first[r]++] = j;
        }
        /* ...and is restored by shifting every entry down one place. */
        memmove(first + 1, first, (size_t)n_src * sizeof *first);
        first[0] = 0;
        x->first = first;
        x->dests = dests;
        int64_t per_src = first[n_src] / (n_src ? n_src : 1) + 1;
        aclStubParallelFor(n_src, 1 + (int64_t)(65536 / ((size_t)x->c * x->esize * (size_t)per_src + 1)), scatter_range, x);
        if (zeros) {
            x->zeros_only = true;
            aclStubParallelFor(m, 1 + (int64_t)(65536 / ((size_t)x->c * x->esize + 1)), copy_range, x);
        }
    }
    free(first);
    free(dests);
    return ok;
}

void aclStubCopyRows(const aclStubTensorDesc *out, int64_t out_row0, const aclStubTensorDesc *src, const int64_t *src_rows, int64_t m) {
    int64_t c = 1;
    bool contiguous = true;
    for (uint64_t d = src->ndim; d-- > 1;) {
        if (src->dims[d] != 1 && src->strides[d] != c) contiguous = false;
        c *= src->dims[d];
    }
    if (m <= 0 || c <= 0) return;
    size_t esize = aclDataTypeSize(src->dtype);
    CopyCtx x = {out, src, src_rows, out_row0, c, esize, contiguous, (int64_t)esize * c * m >= ACLSTUB_STREAM_MIN_BYTES,
                 false, NULL, NULL};
    if (contiguous && scatter_rows(&x, m)) return;
    aclStubParallelFor(m, 1 + (int64_t)(65536 / ((size_t)c * x.esize + 1)), copy_range, &x);
}
