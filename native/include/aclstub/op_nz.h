/*
 * The FRACTAL_NZ weight layout of the operator SDK (libnnopbase): what aclnnTransMatmulWeight and
 * aclnnNpuFormatCast write, and what the matmul operators read when a weight comes in that format.
 *
 * A matrix of R rows and C columns (the last two dimensions of the physical matrix; leading dimensions are
 * batches, each its own NZ block) is stored as the 4-D array [C1, R1, R0, C0] with R0 = 16, C1 = ceil(C / C0),
 * R1 = ceil(R / 16): element (r, c) is at ((c / C0) * R1 + r / 16) * 16 * C0 + (r % 16) * C0 + c % C0 (in
 * elements, after the batch offset b * C1 * R1 * 16 * C0 and the tensor's offset). C0 holds 32 bytes: 16 for
 * 2-byte types, 32 for 1-byte types, 64 for INT4 (two to a byte), 8 for 4-byte types, unless the storage shape's
 * last dimension says otherwise (aclnnNpuFormatCast's additionalDtype, FRACTAL_NZ_C0_x). Padding is zeros.
 * The storage shape is [..., C1, R1, 16, C0].
 *
 * The physical matrix is the view's last two dimensions, or their transpose when the view is a transposed one
 * (unit stride along the rows, a larger one along the columns): a weight (n, k) viewed as (k, n) is stored as the
 * NZ blocks of (n, k), as aclnnTransMatmulWeight leaves it.
 *
 * Operators take an NZ input by flagging it ACLSTUB_NZ_INPUT (aclstub/op_sdk.h): the SDK unpacks it to an ND
 * buffer before the kernel runs (one pass over the weight on the stub's threads) and the kernel sees ND.
 */
#ifndef ACLSTUB_OP_NZ_H_
#define ACLSTUB_OP_NZ_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FRACTAL_NZ (29) and the FRACTAL_NZ_C0_x formats (50..54). */
ACLSTUB_API bool aclStubIsNzFormat(aclFormat format);

/* C0 of a dtype: 32 bytes of it (INT4: 64; 8-byte and unknown sizes: 16). */
ACLSTUB_API int64_t aclStubNzC0(aclDataType dtype);

/* The geometry of an NZ tensor: batch matrices of rows x cols (the physical matrix), its C0, R1 and C1. */
typedef struct {
    int64_t batch, rows, cols;
    int64_t c0, r1, c1;
    bool transposed; /* the view's last two dimensions are the transpose of the physical matrix */
} aclStubNzGeom;

/*
 * The NZ geometry of view t of rank >= 2 (its dims, strides and, when its storage shape has 4 or more dimensions,
 * the storage's last dimension as C0; otherwise c0, or aclStubNzC0(t->dtype) when c0 is 0). false when t has
 * rank < 2.
 */
ACLSTUB_API bool aclStubNzGeometry(const aclStubTensorDesc *t, int64_t c0, aclStubNzGeom *g);

/* Elements an NZ buffer of geometry g holds (with its padding). */
ACLSTUB_API int64_t aclStubNzNumel(const aclStubNzGeom *g);

/*
 * The NZ storage shape of a view of `ndim` dims (ndim >= 2, the physical matrix the last two) with C0 c0:
 * [dims[0 .. ndim-2), ceil(dims[ndim-1] / c0), ceil(dims[ndim-2] / 16), 16, c0] into out (ndim + 2 entries).
 */
ACLSTUB_API void aclStubNzStorageShape(const int64_t *dims, uint32_t ndim, int64_t c0, int64_t *out);

/*
 * Pack: the physical matrices of g from a contiguous row-major ND buffer src (batch x rows x cols elements of
 * dtype) into the NZ buffer dst (aclStubNzNumel(g) elements, padding zeroed). Unpack: the reverse. Both run on the
 * stub's threads; INT4 elements are two to a byte (the even element in the low half-byte).
 */
ACLSTUB_API void aclStubNzPack(const aclStubNzGeom *g, aclDataType dtype, const void *src, void *dst);
ACLSTUB_API void aclStubNzUnpack(const aclStubNzGeom *g, aclDataType dtype, const void *src, void *dst);

/*
 * From a kernel: *nd = an ND description of t (t itself when it is not NZ): for an NZ t, its physical matrices
 * unpacked into kernel scratch, with t's view dims and a row-major (or, for a transposed view, the transposed)
 * layout. OK, or out of memory.
 */
ACLSTUB_API aclnnStatus aclStubNzAsNd(const aclStubOpCall *call, const aclStubTensorDesc *t, aclStubTensorDesc *nd);

#ifdef __cplusplus
}
#endif

#endif /* ACLSTUB_OP_NZ_H_ */
