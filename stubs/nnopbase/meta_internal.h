/* What the executor and the SDK (same library) read of nnopbase's private objects: copies, taken under
 * the registry lock, of live handles only. */
#ifndef ACLNN_STUB_META_INTERNAL_H_
#define ACLNN_STUB_META_INTERNAL_H_

#include "stub_internal.h"

/* Set the data address of a live tensor (fn names the caller in the message); 161002 when not live. */
aclnnStatus meta_tensor_set_data(const char *fn, const aclTensor *tensor, void *addr);
/* Give a live tensor the contiguous view shape dims[0 .. ndim) (a data-dependent output refreshed by the work
 * that wrote it); false when the tensor is not live or memory runs out. */
bool meta_tensor_set_view_shape(const aclTensor *tensor, const int64_t *dims, uint64_t ndim);
/* Number of values of a live int array; false when the handle is not live. */
bool meta_int_array_size(const aclIntArray *array, uint64_t *size);
/* Copy the values of a live int array of exactly `size` values; false otherwise. */
bool meta_int_array_copy(const aclIntArray *array, int64_t *dst, uint64_t size);
/* The type and value bytes of a live scalar; false when the handle is not live. */
bool meta_scalar_copy(const aclScalar *scalar, aclDataType *dtype, unsigned char value[16]);

#endif /* ACLNN_STUB_META_INTERNAL_H_ */
