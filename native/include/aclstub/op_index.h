/*
 * Data movement and indexing on the operator SDK (op_sdk.h): views, strided copies and fills, and the
 * gather/scatter core of the indexing operators. Everything here runs inside a kernel (phase 2).
 *
 * Views are descriptions edited in place (no data moves): narrow, step, flip, permute and insert a
 * dimension. A copy (aclStubCopyView) is an elementwise identity over the element iterator: any strides,
 * broadcasting, the device's Cast between dtypes (optionally through an intermediate dtype), large copies on
 * the stub's threads, and contiguous runs moved with memcpy. The index kernels work on contiguous buffers:
 * aclStubContiguousIn gives a contiguous copy of an input (the input itself when it already is one),
 * aclStubOutputBegin/End give a contiguous buffer for an output and copy it into a strided output at the end.
 *
 * The gather/scatter core sees every tensor as (outer, dim, inner) blocks of contiguous elements:
 *   gather:  out[o, j, i] = src[o, idx[j], i]             (index_select, gather_v2, embedding, take)
 *   scatter: self[o, idx[j], i] (op)= src[o, j, i]        (index_add, index_copy, index_fill, index_put)
 * and the element-wise forms with an index of the source's rank (torch.gather / Tensor.scatter_).
 * Duplicate indices of a scatter apply in increasing position of the index (for the element-wise forms: in
 * increasing position along the scattered dimension): the last write wins, sums add in that order. Work is
 * split over the (outer, inner) columns, never along the indexed dimension, so results do not depend on the
 * thread count. Indices are validated first (aclStubIndexLoad): one out of range fails the kernel with
 * ACLNN_ERR_PARAM_INVALID and a message naming it (in check mode also an index-out-of-range finding); nothing
 * reads or writes out of bounds.
 */
#ifndef ACLSTUB_OP_INDEX_H_
#define ACLSTUB_OP_INDEX_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- dimensions ------------------------------------------------------------------------------------------ */

/* dim wrapped into [0, rank) when it lies in [-rank, rank); false otherwise. */
static inline bool aclStubWrapDim(int64_t *dim, int64_t rank) {
    if (*dim < -rank || *dim >= rank) return false;
    if (*dim < 0) *dim += rank;
    return true;
}
/* Product of dims [from, to) of a shape (1 for an empty range). */
static inline int64_t aclStubDimProduct(const int64_t *dims, int64_t from, int64_t to) {
    int64_t n = 1;
    for (int64_t d = from; d < to; d++) n *= dims[d];
    return n;
}
/* A view's elements are contiguous in row-major order (size-1 dimensions ignored). */
static inline bool aclStubViewIsContiguous(const aclStubTensorDesc *t) {
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->dims[d];
    }
    return true;
}
/* Row-major strides of a shape. */
static inline void aclStubContiguousStrides(aclStubTensorDesc *t) {
    int64_t s = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        t->strides[d] = s;
        s *= t->dims[d] > 0 ? t->dims[d] : 1;
    }
}
/* Pointer to the first element of a view. */
static inline char *aclStubViewBase(const aclStubTensorDesc *t) {
    return (char *)t->data + t->offset * (int64_t)aclDataTypeSize(t->dtype);
}

/* ---- checks in an op_api's own order (phase 1) -------------------------------------------------------------
 * Each returns OK or fails the call with ACLNN_ERR_PARAM_INVALID and a message naming `name` (a parameter, or
 * a list entry such as "tensors[2]"). */

/* t's dtype is in the set. */
ACLSTUB_API aclnnStatus aclStubCheckDtypeIn(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t,
                                            uint64_t dtypes);
/* t's dtype is ref's. */
ACLSTUB_API aclnnStatus aclStubCheckDtypeSame(const aclStubOpCall *call, const char *name,
                                              const aclStubTensorDesc *t, const char *ref_name,
                                              const aclStubTensorDesc *ref);
/* t has at most max_rank dimensions. */
ACLSTUB_API aclnnStatus aclStubCheckMaxRank(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t,
                                            uint32_t max_rank);
/* t's shape is dims[0 .. n). */
ACLSTUB_API aclnnStatus aclStubCheckShapeIs(const aclStubOpCall *call, const char *name, const aclStubTensorDesc *t,
                                            const int64_t *dims, uint32_t n);
/* nnopbase's private (fractal, C0-blocked) formats. */
static inline bool aclStubIsPrivateFormat(aclFormat f) {
    return f == ACL_FORMAT_NC1HWC0 || f == ACL_FORMAT_FRACTAL_Z || f == ACL_FORMAT_NC1HWC0_C04 ||
           f == ACL_FORMAT_FRACTAL_NZ || f == ACL_FORMAT_NDC1HWC0 || (int)f == 33 /* FRACTAL_Z_3D */ ||
           ((int)f >= ACL_FORMAT_FRACTAL_NZ_C0_16 && (int)f <= ACL_FORMAT_FRACTAL_NZ_C0_8);
}
/* The scalar (dtype, value bytes) does not fit dtype `target` (nnopbase's aclScalar::CheckOverflows): integers
 * outside the target's range (a negative integer into an unsigned type only when its magnitude exceeds the
 * maximum), floats outside the target's finite range (infinities fit floating targets, NaN fits them only),
 * complex values with an imaginary part into real types. */
ACLSTUB_API bool aclStubScalarOverflows(aclDataType dtype, const void *value, aclDataType target);
/* The byte ranges two non-empty views address overlap (the same buffer read and written). */
ACLSTUB_API bool aclStubViewsOverlap(const aclStubTensorDesc *a, const aclStubTensorDesc *b);

/* ---- views ------------------------------------------------------------------------------------------------ */

/* Elements [start, start + len) of dimension dim. */
static inline void aclStubViewNarrow(aclStubTensorDesc *t, uint32_t dim, int64_t start, int64_t len) {
    t->offset += start * t->strides[dim];
    t->dims[dim] = len;
}
/* len elements of dimension dim from start, step apart (step may be negative). */
static inline void aclStubViewStep(aclStubTensorDesc *t, uint32_t dim, int64_t start, int64_t len, int64_t step) {
    t->offset += start * t->strides[dim];
    t->dims[dim] = len;
    t->strides[dim] *= step;
}
/* Dimension dim read backwards. */
static inline void aclStubViewFlip(aclStubTensorDesc *t, uint32_t dim) {
    if (t->dims[dim] > 0) t->offset += (t->dims[dim] - 1) * t->strides[dim];
    t->strides[dim] = -t->strides[dim];
}
/* Dimension i of the result is dimension perm[i] of t (perm: a permutation of 0 .. ndim-1). */
static inline void aclStubViewPermute(aclStubTensorDesc *t, const int64_t *perm) {
    int64_t dims[ACLSTUB_MAX_DIMS], strides[ACLSTUB_MAX_DIMS];
    for (uint32_t i = 0; i < t->ndim; i++) {
        dims[i] = t->dims[perm[i]];
        strides[i] = t->strides[perm[i]];
    }
    memcpy(t->dims, dims, t->ndim * sizeof dims[0]);
    memcpy(t->strides, strides, t->ndim * sizeof strides[0]);
}
/* A new dimension at position dim (0 .. ndim) of the given size and stride (stride 0: a broadcast). */
static inline void aclStubViewInsertDim(aclStubTensorDesc *t, uint32_t dim, int64_t size, int64_t stride) {
    for (uint32_t d = t->ndim; d > dim; d--) {
        t->dims[d] = t->dims[d - 1];
        t->strides[d] = t->strides[d - 1];
    }
    t->dims[dim] = size;
    t->strides[dim] = stride;
    t->ndim++;
}
/* Dimension dim removed (offset kept: index 0 of it). */
static inline void aclStubViewRemoveDim(aclStubTensorDesc *t, uint32_t dim) {
    for (uint32_t d = dim; d + 1 < t->ndim; d++) {
        t->dims[d] = t->dims[d + 1];
        t->strides[d] = t->strides[d + 1];
    }
    t->ndim--;
}
/* The same elements with the row-major shape dims[0 .. ndim): only for a contiguous view. */
static inline void aclStubViewReshape(aclStubTensorDesc *t, const int64_t *dims, uint32_t ndim) {
    memmove(t->dims, dims, ndim * sizeof dims[0]);
    t->ndim = ndim;
    aclStubContiguousStrides(t);
}

/* ---- copies and fills ------------------------------------------------------------------------------------- */

/*
 * dst = src, src broadcast to dst's shape (trailing dimensions aligned), converted to dst's dtype as the
 * device's Cast does; through dtype `via` first when via is not ACL_DT_UNDEFINED (two casts, as an op_api
 * that casts to a promoted dtype and then to the output's). Any strides on both sides (dst must not overlap
 * itself or src). OK, or a kernel error for a dtype pair the stub cannot convert.
 */
ACLSTUB_API aclnnStatus aclStubCopyView(const aclStubOpCall *call, const aclStubTensorDesc *dst,
                                        const aclStubTensorDesc *src, aclDataType via);
/* Every element of dst = the value (dtype, bytes) converted to dst's dtype. */
ACLSTUB_API aclnnStatus aclStubFillView(const aclStubOpCall *call, const aclStubTensorDesc *dst, aclDataType dtype,
                                        const void *value);

/* A contiguous version of view t in *out: t itself when it is contiguous, else a copy in kernel scratch, in
 * dtype `dtype` (ACL_DT_UNDEFINED: t's own; another dtype: converted). */
ACLSTUB_API aclnnStatus aclStubContiguousIn(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dtype,
                                            aclStubTensorDesc *out);
/* aclStubContiguousIn, then a copy when the result shares memory with `avoid` (an output of the call), so a
 * kernel may read it while writing `avoid`. */
ACLSTUB_API aclnnStatus aclStubInputApart(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dtype,
                                          const aclStubTensorDesc *avoid, aclStubTensorDesc *out);
/*
 * A contiguous buffer for output t in *buf, of dtype `dtype` (ACL_DT_UNDEFINED: t's own): t itself when it is
 * contiguous with that dtype, else kernel scratch; with `load`, the buffer starts with t's values (in-place
 * operators). aclStubOutputEnd copies (and converts) the buffer into t when they differ.
 */
ACLSTUB_API aclnnStatus aclStubOutputBegin(const aclStubOpCall *call, const aclStubTensorDesc *t, aclDataType dtype,
                                           bool load, aclStubTensorDesc *buf);
ACLSTUB_API aclnnStatus aclStubOutputEnd(const aclStubOpCall *call, const aclStubTensorDesc *t,
                                         const aclStubTensorDesc *buf);

/* ---- indices ---------------------------------------------------------------------------------------------- */

/*
 * The n = numel(idx) entries of an INT32/INT64 index view (any strides, row-major order) as int64 in *out: kernel
 * scratch, or a contiguous INT64 index itself when no entry needs wrapping and no output of the call overlaps it.
 * Each must lie in [-size, size) when negatives wrap (then wrapped into [0, size)), else in [0, size); an entry
 * outside fails the kernel (aclStubIndexOutOfRange).
 */
ACLSTUB_API aclnnStatus aclStubIndexLoad(const aclStubOpCall *call, const aclStubTensorDesc *idx, int64_t size,
                                         bool wrap_negative, const char *what, const int64_t **out);

/*
 * Index `value` (entry `entry` of the index input) lies outside [lo, hi), the valid range of what it indexes:
 * fails the kernel with ACLNN_ERR_PARAM_INVALID and, in check mode, reports an index-out-of-range finding at the
 * call site that queued the kernel. For kernels that validate their own index tuples.
 */
ACLSTUB_API aclnnStatus aclStubIndexOutOfRange(const aclStubOpCall *call, const char *what, int64_t value,
                                               int64_t entry, int64_t lo, int64_t hi);

/* ---- gather / scatter on contiguous (outer, dim, inner) blocks --------------------------------------------- */

/* out[o, j, i] = src[o, idx[j], i] for o < outer, j < n, i < inner (elements of esize bytes; idx in [0, d)). */
ACLSTUB_API void aclStubGatherBlocks(void *out, const void *src, const int64_t *idx, int64_t n, int64_t outer,
                                     int64_t d, int64_t inner, size_t esize);

/* How a scatter combines a source element with the destination. */
typedef enum {
    ACLSTUB_SCATTER_COPY, /* dst = src (the last duplicate wins) */
    ACLSTUB_SCATTER_ADD,  /* dst += src (alpha * src when alpha != 1) */
    ACLSTUB_SCATTER_MUL,  /* dst *= src */
    ACLSTUB_SCATTER_MAX,  /* dst = max(dst, src) (NaN wins) */
    ACLSTUB_SCATTER_MIN,  /* dst = min(dst, src) (NaN wins) */
} aclStubScatterOp;

/*
 * dst[o, idx[j], i] (op)= src[o, j, i] (src NULL: the scalar value, bytes of dst's dtype) for o < outer, j < n,
 * i < inner; dst has d entries along the indexed dimension. dtype: dst's and src's (the compute dtype: FLOAT,
 * DOUBLE, the integers, BOOL, COMPLEX64/128; COPY takes any). alpha: ADD's factor (1 for none). Duplicates
 * apply in increasing j.
 */
ACLSTUB_API aclnnStatus aclStubScatterBlocks(const aclStubOpCall *call, void *dst, const void *src,
                                             const void *value, const int64_t *idx, int64_t n, int64_t outer,
                                             int64_t d, int64_t inner, aclDataType dtype, aclStubScatterOp op,
                                             double alpha);

/*
 * The element-wise forms along dimension `dim` of rank-r contiguous tensors: idx has shape ishape (r dims),
 * each entry an index into dim of the other tensor (validated, in [0, size)).
 *   gather:  out[p] = src[p with dim replaced by idx[p]]            (out has ishape; src has sshape)
 *   scatter: dst[p with dim replaced by idx[p]] (op)= src[p]         (src has sshape, read at p; dst dshape)
 * Scatter duplicates apply in increasing position along dim.
 */
ACLSTUB_API aclnnStatus aclStubGatherElements(const aclStubOpCall *call, void *out, const void *src,
                                              const int64_t *idx, const int64_t *ishape, const int64_t *sshape,
                                              uint32_t r, uint32_t dim, size_t esize);
ACLSTUB_API aclnnStatus aclStubScatterElements(const aclStubOpCall *call, void *dst, const int64_t *dshape,
                                               const void *src, const int64_t *sshape, const void *value,
                                               const int64_t *idx, const int64_t *ishape, uint32_t r, uint32_t dim,
                                               aclDataType dtype, aclStubScatterOp op);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ACLSTUB_OP_INDEX_H_ */
