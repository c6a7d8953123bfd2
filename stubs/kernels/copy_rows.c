/* Row gather shared by the forward operators (see aclStubCopyRows in aclstub/op_sdk.h). */
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

static void copy_range(void *arg, int64_t begin, int64_t end) {
    const CopyCtx *x = arg;
    size_t row_bytes = (size_t)x->c * x->esize;
    for (int64_t j = begin; j < end; j++) {
        int64_t r = x->src_rows[j];
        if (r == ACLSTUB_ROW_KEEP) continue;
        char *dst = (char *)x->out->data + (x->out->offset + (x->out_row0 + j) * x->c) * (int64_t)x->esize;
        if (r == ACLSTUB_ROW_ZERO)
            memset(dst, 0, row_bytes);
        else if (x->src_rows_contiguous)
            aclStubCopyBytes(dst, (const char *)x->src->data + (x->src->offset + r * x->src->strides[0]) * (int64_t)x->esize,
                     row_bytes, x->stream);
        else
            copy_strided_row(x, dst, r);
    }
    if (x->stream) aclStubStreamFence();
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
    CopyCtx x = {out, src, src_rows, out_row0, c, esize, contiguous, (int64_t)esize * c * m >= ACLSTUB_STREAM_MIN_BYTES};
    aclStubParallelFor(m, 1 + (int64_t)(65536 / ((size_t)c * x.esize + 1)), copy_range, &x);
}
