/*
 * What the stub libraries share with each other and nothing else: internal entry points exported by
 * libascendcl.so and libnnopbase.so for the operator library.
 * Every symbol here has the aclStub prefix so it can never collide with a CANN symbol.
 */
#ifndef ACLNN_STUB_INTERNAL_H_
#define ACLNN_STUB_INTERNAL_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "aclstub/aclstub.h"
#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STUB_API __attribute__((visibility("default")))
#define STUB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* ---- libascendcl.so ---------------------------------------------------------------------------- */

/* Record the calling thread's error text, returned (once) by aclGetRecentErrMsg. */
STUB_API void aclStubSetErrMsg(const char *fmt, ...) STUB_PRINTF(1, 2);
STUB_API void aclStubSetErrMsgV(const char *fmt, va_list ap);

/* true for NULL (the default stream) and for a stream created and not yet destroyed. */
STUB_API bool aclStubStreamIsLive(aclrtStream stream);

/* true when [ptr, ptr + size) lies inside one live aclrtMalloc block (size 0: ptr inside or at its end). */
STUB_API bool aclStubIsDeviceSpan(const void *ptr, size_t size);

/*
 * Queue work on a stream (NULL: the default stream): fn(arg) runs after every earlier item of the stream,
 * possibly after this call returns, so arg must own everything the work reads (never a caller's aclTensor).
 * release(arg), when not NULL, runs once after fn, or instead of it when the work is dropped. A non-zero
 * status from fn is reported the way a device reports a failure inside queued work (at synchronisation).
 * Returns ACL_SUCCESS, or an error code (and then release(arg) has already run).
 */
typedef aclError (*aclStubWorkFn)(void *arg);
STUB_API aclError aclStubStreamLaunch(aclrtStream stream, aclStubWorkFn fn, void *arg, void (*release)(void *arg));

/* ---- libnnopbase.so: float and bool arrays, tensor and scalar lists -------------------------------- */

/* Scalar liveness, for the elements of a scalar list (nnopbase/tensor.c). */
STUB_API bool aclStubScalarIsLive(const aclScalar *scalar);

/*
 * Values and element handles (nnopbase/arrays.c, lists.c): each function copies up to `capacity`
 * values or element handles into the caller's buffer (NULL when capacity is 0) and the full count into *size
 * (when not NULL); false, with nothing written, for anything but a live object. A list's element handles
 * may be NULL (an absent entry) or no longer live (destroyed since): check each before use.
 */
STUB_API bool aclStubFloatArrayValues(const aclFloatArray *array, float *values, uint64_t capacity, uint64_t *size);
STUB_API bool aclStubBoolArrayValues(const aclBoolArray *array, bool *values, uint64_t capacity, uint64_t *size);
STUB_API bool aclStubTensorListElements(const aclTensorList *list, const aclTensor **elements, uint64_t capacity,
                                        uint64_t *size);
STUB_API bool aclStubScalarListElements(const aclScalarList *list, const aclScalar **elements, uint64_t capacity,
                                        uint64_t *size);

/* ---- libnnopbase.so ---------------------------------------------------------------------------- */

/*
 * Tensors, scalars, arrays and executors are handle tokens (handle_table.h); their structs are private to
 * nnopbase. Operators read aclStubTensorDesc (aclstub/op_sdk.h): a copy of a tensor's description taken
 * under the registry's lock, never the live object (which the caller may change or destroy, even while
 * queued work runs). STUB_MAX_VIEW_DIMS is nnopbase's own limit (op::MAX_DIM_NUM).
 */
#define STUB_MAX_VIEW_DIMS ACLSTUB_MAX_DIMS

/* 1: *desc filled; 0: not a live tensor; -1: a live tensor of rank above STUB_MAX_VIEW_DIMS. */
STUB_API int aclStubTensorDescribe(const aclTensor *tensor, aclStubTensorDesc *desc);
/* Storage format and shape of a live tensor set in place (false: not live, or out of memory). */
STUB_API bool aclStubTensorSetStorage(const aclTensor *tensor, aclFormat format, const int64_t *dims, uint64_t n);

/*
 * From a kernel, in check mode (memcheck): the first n values (those the kernel reads, in row-major order)
 * of index tensor parameter `param` outside [lo, hi)
 * other than the drop marker `drop` (INT64_MIN: none) are reported
 * once per launch, as index-out-of-range at the call site that queued the kernel. `meaning` says what the
 * index addresses ("rows of permutedTokens"). Costs nothing outside check mode.
 */
STUB_API void aclStubKernelCheckIndices(const aclStubOpCall *call, int param, int64_t n, int64_t lo, int64_t hi,
                                        int64_t drop, const char *meaning);

/* Liveness: created by this library and not yet destroyed (never dereferences an unknown pointer). */
STUB_API bool aclStubTensorIsLive(const aclTensor *tensor);
STUB_API bool aclStubIntArrayIsLive(const aclIntArray *array);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_STUB_INTERNAL_H_ */
