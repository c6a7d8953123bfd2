/*
 * The operator SDK of the aclnn-py CPU stub: how to add an aclnn operator to the stub in one small C file.
 * Not part of the CANN ABI; everything here lives in libnnopbase.so, so an operator library links with
 * -lnnopbase -lascendcl (`python -m aclnn_py config --sdk` prints the flags).
 *
 * An operator is a static table of its parameters (aclStubParam, in the order of the official prototype)
 * plus two functions of its own: `check` (shapes and attributes) and `kernel` (the computation).
 * ACLSTUB_DEFINE_OP then writes both official entry points:
 *
 *   enum { X, Y, OUT };
 *   static const aclStubParam kParams[] = {
 *       [X] = {"self", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS},
 *       [Y] = {"alpha", ACLSTUB_FLOAT},
 *       [OUT] = {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "self"},
 *   };
 *   static const aclStubOpDef kOp = {"aclnnFoo", kParams, 3, NULL, check, kernel, sizeof(Plan)};
 *   ACLSTUB_DEFINE_OP(aclnnFoo, kOp, (const aclTensor *, self), (double, alpha), (aclTensor *, out))
 *
 * Phase 1 (aclnnFooGetWorkspaceSize) then runs, in this order, with the official codes and messages
 * "<op>GetWorkspaceSize: argument '<name>' ...": the argument kinds against the table (a mismatch is a
 * mistake of the operator's author: 561000); op->precheck if any; NULL required tensors and out-parameters
 * (161001); liveness of every handle (161002); per tensor, its dtype set and ND-like format, then its
 * same-dtype rule (161002); contiguity of outputs (161002); rank rules (161002). It then snapshots every
 * tensor and array (aclStubTensorDesc: what check and kernel read, never the live object), calls
 * op->check, and creates the executor. Phase 2 (aclnnFoo) applies the two-phase rules (NULL, consumed or
 * foreign executor, workspace NULL or too small, dead stream), checks every recorded handle again (still
 * live, unchanged description, data inside one aclrtMalloc block, aligned) and queues op->kernel on the
 * stream with its own copy of every view, array and attribute.
 *
 * The header is valid C11 and C++; operator tables are most easily written in C (designated initializers).
 */
#ifndef ACLSTUB_OP_SDK_H_
#define ACLSTUB_OP_SDK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

#ifdef __cplusplus
#define ACLSTUB_EXTERN_C extern "C"
extern "C" {
#else
#define ACLSTUB_EXTERN_C
#endif

#define ACLSTUB_API __attribute__((visibility("default")))

/* ---- parameter tables ----------------------------------------------------------------------------- */

typedef enum {
    ACLSTUB_INPUT = 1,       /* const aclTensor *, must not be NULL */
    ACLSTUB_OPTIONAL_INPUT,  /* const aclTensor *, may be NULL */
    ACLSTUB_OUTPUT,          /* aclTensor * (or const), must not be NULL */
    ACLSTUB_OPTIONAL_OUTPUT, /* may be NULL */
    ACLSTUB_INT,             /* int64_t attribute */
    ACLSTUB_BOOL,            /* bool attribute */
    ACLSTUB_FLOAT,           /* double or float attribute */
    ACLSTUB_STRING,          /* const char * attribute (copied; NULL allowed) */
    ACLSTUB_DTYPE,           /* aclDataType attribute */
    ACLSTUB_INT_ARRAY,       /* const aclIntArray * (NULL allowed when flagged ACLSTUB_NULLABLE) */
    ACLSTUB_BOOL_ARRAY,      /* const aclBoolArray * (NULL allowed when flagged ACLSTUB_NULLABLE) */
    ACLSTUB_FLOAT_ARRAY,     /* const aclFloatArray * (NULL allowed when flagged ACLSTUB_NULLABLE) */
    ACLSTUB_SCALAR,          /* const aclScalar * (NULL allowed when flagged ACLSTUB_NULLABLE) */
    ACLSTUB_TENSOR_LIST,     /* const aclTensorList * of inputs (NULL allowed when flagged ACLSTUB_NULLABLE) */
    ACLSTUB_SCALAR_LIST,     /* const aclScalarList * (NULL allowed when flagged ACLSTUB_NULLABLE) */
    ACLSTUB_INPLACE,         /* aclTensor * read and written (selfRef of the in-place variants), not NULL */
    ACLSTUB_OUTPUT_LIST,     /* aclTensorList * of outputs (NULL allowed when flagged ACLSTUB_NULLABLE) */
    ACLSTUB_ROLE_END
} aclStubRole;

/* Number of entries of a static array (a parameter table). */
#define ACLSTUB_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Sets of data types (every aclDataType of interest is below 64). */
#define ACLSTUB_DT(x) (UINT64_C(1) << (x))
#define ACLSTUB_DT_FLOATS (ACLSTUB_DT(ACL_FLOAT) | ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_BF16))
#define ACLSTUB_DT_INDEX (ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_INT64))

/* aclStubParam.flags */
#define ACLSTUB_NULLABLE 1u      /* array/scalar/list parameters: NULL is allowed */
#define ACLSTUB_CHECK_LATER 2u   /* tensors: dtype, same-dtype and contiguity run when check() calls
                                    aclStubOpCheckTensor, not in the generic pass (op_api checks them late) */
#define ACLSTUB_ANY_LAYOUT 4u    /* outputs: strided outputs allowed (the kernel honours strides) */
#define ACLSTUB_NZ_INPUT 8u      /* inputs: a FRACTAL_NZ operand is accepted too (aclstub/op_nz.h); the kernel sees it
                                    unpacked to a contiguous ND view of its dtype (kernel scratch), its view's
                                    strides kept when its last two dimensions are a transposed view */

typedef struct {
    const char *name;          /* the official parameter name: used in every message */
    aclStubRole role;
    uint64_t dtypes;           /* tensors: accepted ACLSTUB_DT set; 0 = any (no dtype or format rule) */
    const char *same_dtype_as; /* tensors: another tensor parameter this one must match (either NULL passes) */
    unsigned flags;
    uint8_t min_rank, max_rank; /* tensors: accepted ranks; max_rank 0 = no rule */
} aclStubParam;

/* A copy of a tensor's description: what check and kernel read. The rank limit is nnopbase's (op::MAX_DIM_NUM). */
#define ACLSTUB_MAX_DIMS 25
#define ACLSTUB_MAX_STORAGE_DIMS 8
typedef struct {
    aclDataType dtype;
    aclFormat format;
    uint32_t ndim;
    int64_t offset; /* in elements */
    void *data;
    int64_t dims[ACLSTUB_MAX_DIMS];
    int64_t strides[ACLSTUB_MAX_DIMS]; /* in elements */
    /* The storage shape aclCreateTensor was given (what a private format such as FRACTAL_NZ lays out, see
     * aclstub/op_nz.h); storage_ndim 0 when it has more than ACLSTUB_MAX_STORAGE_DIMS dimensions. */
    uint32_t storage_ndim;
    int64_t storage_dims[ACLSTUB_MAX_STORAGE_DIMS];
} aclStubTensorDesc;

/* A copy of a scalar: its type and value bytes (aclCreateScalar's, at most 16). */
typedef struct {
    aclDataType dtype;
    unsigned char value[16];
} aclStubScalarDesc;

/* One parameter's value as check and kernel see it. */
typedef struct {
    const aclStubTensorDesc *tensor; /* tensors: NULL when absent (or ignored by check) */
    const int64_t *ints;             /* int arrays: the values (NULL when absent) */
    uint64_t size;                   /* arrays and lists: number of entries */
    int64_t i;                       /* INT attributes */
    double f;                        /* FLOAT attributes */
    bool b;                          /* BOOL attributes */
    const char *s;                   /* STRING attributes */
    aclDataType dtype;               /* DTYPE attributes; SCALAR: the scalar's type */
    unsigned char scalar[16];        /* SCALAR: the value's bytes */
    bool present;                    /* handles: not NULL */
    const aclStubTensorDesc *tensors; /* TENSOR_LIST, OUTPUT_LIST: one description per entry; a NULL entry has
                                         dtype ACL_DT_UNDEFINED, rank 0 and no data */
    const aclStubScalarDesc *scalars; /* SCALAR_LIST: one per entry (a NULL entry: dtype ACL_DT_UNDEFINED) */
    const float *floats;              /* FLOAT_ARRAY: the values */
    const bool *bools;                /* BOOL_ARRAY: the values */
} aclStubValue;

typedef struct aclStubOpDef aclStubOpDef;

/* What check writes and kernel reads. */
typedef struct {
    const aclStubOpDef *op;
    const aclStubValue *v;   /* v[i]: parameter i of op->params */
    void *plan;              /* op->plan_size zeroed bytes: check fills them, kernel reads them */
    void *workspace;         /* kernel: the caller's workspace (workspace_size bytes) */
    uint64_t workspace_size; /* check: the size asked so far; kernel: the size given */
} aclStubOpCall;

typedef aclnnStatus (*aclStubCheckFn)(aclStubOpCall *call);
typedef aclnnStatus (*aclStubKernelFn)(const aclStubOpCall *call);

struct aclStubOpDef {
    const char *name;            /* "aclnnFoo": messages say "aclnnFooGetWorkspaceSize: ..." */
    const aclStubParam *params;  /* in the order of the official prototype */
    size_t num_params;
    aclStubCheckFn precheck;     /* optional: before the generic checks; sees attributes only (tensors NULL) */
    aclStubCheckFn check;        /* after the generic checks: shapes and attributes */
    aclStubKernelFn kernel;      /* phase 2, on the stream; a non-zero return is the phase-2 status */
    size_t plan_size;
};

/* A family engine's operator: the definition and the row of the family's table it reads (the engine's check
 * and kernel find the row from call->op with aclStubFamilyRow). */
typedef struct {
    aclStubOpDef def;
    const void *row;
} aclStubFamilyOp;
static inline const void *aclStubFamilyRow(const aclStubOpCall *call) {
    return ((const aclStubFamilyOp *)(const void *)((const char *)call->op - offsetof(aclStubFamilyOp, def)))->row;
}

/* ---- helpers for check -------------------------------------------------------------------------------- */

/* Record "<op>GetWorkspaceSize: <message>" (in check) or "<op>: <message>" (in a kernel) for
 * aclGetRecentErrMsg and return status. */
ACLSTUB_API aclnnStatus aclStubCallFail(const aclStubOpCall *call, int in_kernel, aclnnStatus status, const char *fmt,
                                        ...) __attribute__((format(printf, 4, 5)));
#define aclStubOpFail(call, status, ...) aclStubCallFail((call), 0, (status), __VA_ARGS__)

/* zstd-style early returns: ACLSTUB_RETURN_ERROR_IF(k < 1, call, ACLNN_ERR_INNER_TILING_ERROR, "k = %lld ...", k) */
#define ACLSTUB_RETURN_ERROR_IF(cond, call, status, ...)                       \
    do {                                                                       \
        if (cond) return aclStubOpFail((call), (status), __VA_ARGS__);         \
    } while (0)
#define ACLSTUB_TRY(expr)                          \
    do {                                           \
        aclnnStatus aclstub_try_ = (expr);         \
        if (aclstub_try_ != OK) return aclstub_try_; \
    } while (0)

/* From check: every output is empty (or nothing else to do): phase 2 checks nothing and runs no kernel. */
ACLSTUB_API aclnnStatus aclStubOpNothingToDo(aclStubOpCall *call);
/* From check: the kernel waits for other ranks (an exchange through libhccl): phase 2 always queues it for a stream
 * worker. Other kernels run in the caller's thread when their stream is idle (their order, checks and failures
 * those of queued work), which a kernel that waits for a call still to come from the same thread would deadlock. */
ACLSTUB_API aclnnStatus aclStubOpWaitsForPeers(aclStubOpCall *call);
/* From check: the kernel needs `bytes` of the caller's workspace (phase 1 reports the largest request). */
ACLSTUB_API void aclStubOpRequestWorkspace(aclStubOpCall *call, uint64_t bytes);
/* From check: tensor parameter i is not used by this call: not recorded, not checked in phase 2, and
 * call->v[i].tensor is NULL for the kernel. */
ACLSTUB_API void aclStubOpIgnore(aclStubOpCall *call, int i);
/*
 * From check: tensor parameter i (an in-place tensor, or an output) now has storage format `format` and storage
 * shape dims[0 .. n), on the caller's aclTensor and in the call's snapshot alike, as an op_api's
 * SetStorageFormat/SetStorageShape do in phase 1 (aclnnTransMatmulWeight). Its view is unchanged.
 */
ACLSTUB_API aclnnStatus aclStubOpSetStorage(aclStubOpCall *call, int i, aclFormat format, const int64_t *dims,
                                            uint32_t n);
/* The generic dtype, same-dtype and contiguity rules of tensor parameter i (for ACLSTUB_CHECK_LATER). */
ACLSTUB_API aclnnStatus aclStubOpCheckTensor(const aclStubOpCall *call, int i);
/* 'status' when tensor parameter i (if present) has a negative dimension. */
ACLSTUB_API aclnnStatus aclStubOpCheckDimsNonNegative(const aclStubOpCall *call, int i, aclnnStatus status);

ACLSTUB_API const char *aclStubDtypeName(aclDataType dtype);

/* ---- host functions (no executor: aclnnCalculateMatmulWeightSize, aclnnNpuFormatCastCalculateSizeAndFormat) ---- */

/* The values of a live aclIntArray (up to capacity into values) and its size: false for anything else. */
ACLSTUB_API bool aclStubHostIntArray(const aclIntArray *array, int64_t *values, uint64_t capacity, uint64_t *size);
/* A snapshot of a live aclTensor: 1, 0 when not live, -1 above ACLSTUB_MAX_DIMS dimensions. */
ACLSTUB_API int aclStubHostTensor(const aclTensor *tensor, aclStubTensorDesc *desc);
/* Record "<fn>: <message>" for aclGetRecentErrMsg and return status. */
ACLSTUB_API aclnnStatus aclStubHostFail(const char *fn, aclnnStatus status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- data types: CANN's categories, promotion and cast rules ------------------------------------------ */

#define ACLSTUB_DT_INTS                                                                                      \
    (ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT16) | ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_INT64) |          \
     ACLSTUB_DT(ACL_UINT8))
#define ACLSTUB_DT_UINTS (ACLSTUB_DT(ACL_UINT16) | ACLSTUB_DT(ACL_UINT32) | ACLSTUB_DT(ACL_UINT64))
#define ACLSTUB_DT_COMPLEX (ACLSTUB_DT(ACL_COMPLEX64) | ACLSTUB_DT(ACL_COMPLEX128))
/* FLOAT, FLOAT16, BF16 and DOUBLE */
#define ACLSTUB_DT_REALS (ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_DOUBLE))

ACLSTUB_API bool aclStubIsFloating(aclDataType dtype);  /* DOUBLE, FLOAT, FLOAT16, BF16 and the 8/6/4-bit floats */
ACLSTUB_API bool aclStubIsComplex(aclDataType dtype);   /* COMPLEX32, COMPLEX64, COMPLEX128 */
ACLSTUB_API bool aclStubIsIntegral(aclDataType dtype, bool include_bool); /* INT8..INT64, UINT8..UINT64 */
/* op::PromoteType: the common type of two operands (ACL_DT_UNDEFINED when there is none; not symmetric for
 * unsigned types against complex ones, as CANN's table is not). */
ACLSTUB_API aclDataType aclStubPromoteType(aclDataType a, aclDataType b);
/* op::CanCast: complex to real, floating to integral and anything but BOOL to BOOL are refused. */
ACLSTUB_API bool aclStubCanCast(aclDataType from, aclDataType to);
/* The dtype list of a set as text ("ACL_FLOAT, ACL_FLOAT16"), for messages. */
ACLSTUB_API const char *aclStubDtypeSetName(uint64_t dtypes, char *buf, size_t size);

/* ---- scalars ---------------------------------------------------------------------------------------------- */

/* The value of a scalar (a SCALAR parameter's dtype and bytes, or a scalar-list entry) as the op_api's
 * aclScalar::ToDouble / ToInt64 / ToBool read it: floats converted, integers exact, complex values by their
 * real part, BOOL as 0/1; ToFloat is ToDouble rounded to float32. */
ACLSTUB_API double aclStubScalarToDouble(aclDataType dtype, const void *value);
ACLSTUB_API int64_t aclStubScalarToInt64(aclDataType dtype, const void *value);
ACLSTUB_API bool aclStubScalarToBool(aclDataType dtype, const void *value);
/* The imaginary part (0 for real types). */
ACLSTUB_API double aclStubScalarImag(aclDataType dtype, const void *value);
static inline double aclStubOpScalarF64(const aclStubOpCall *call, int i) {
    return aclStubScalarToDouble(call->v[i].dtype, call->v[i].scalar);
}
static inline int64_t aclStubOpScalarI64(const aclStubOpCall *call, int i) {
    return aclStubScalarToInt64(call->v[i].dtype, call->v[i].scalar);
}

/* ---- conversions between element types (the Cast the op_api inserts) ------------------------------------ */

/*
 * n elements from src (byte stride src_stride, dtype st) to dst (byte stride dst_stride, dtype dt), as the
 * device's Cast computes them: floats round to nearest even (FLOAT16 and BF16 included, DOUBLE and 64-bit integers
 * to 16-bit rounded once); floats to integers truncate toward zero, saturate at the integer's range, NaN gives 0;
 * integers to narrower integers wrap (two's complement); anything to BOOL is "not zero" (NaN is true, a complex
 * value is when either part is); complex to real keeps the real part, real to complex has a zero imaginary part. false (nothing written) for a pair this
 * version cannot convert (4-bit and 6-bit floats, strings).
 */
ACLSTUB_API bool aclStubCastStrided(void *dst, int64_t dst_stride, aclDataType dt, const void *src, int64_t src_stride,
                                    aclDataType st, int64_t n);
ACLSTUB_API bool aclStubCanConvert(aclDataType dtype);
/* One value of dtype dt at dst from a double (the same rules), e.g. a scalar converted to a compute type. */
ACLSTUB_API void aclStubStoreDouble(void *dst, aclDataType dt, double value);

static inline const aclStubTensorDesc *aclStubOpTensor(const aclStubOpCall *call, int i) { return call->v[i].tensor; }
static inline int64_t aclStubOpInt(const aclStubOpCall *call, int i) { return call->v[i].i; }
static inline bool aclStubOpBool(const aclStubOpCall *call, int i) { return call->v[i].b; }
static inline double aclStubOpFloat(const aclStubOpCall *call, int i) { return call->v[i].f; }
static inline const char *aclStubOpName(const aclStubOpCall *call, int i) { return call->op->params[i].name; }

/* Number of elements of a view; 0 for NULL or when any dimension is 0 or negative; INT64_MAX on overflow. */
static inline int64_t aclStubNumel(const aclStubTensorDesc *t) {
    if (t == NULL) return 0;
    int64_t n = 1;
    for (uint32_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] <= 0) return 0;
        if (__builtin_mul_overflow(n, t->dims[i], &n)) return INT64_MAX;
    }
    return n;
}

/* ---- helpers for kernels --------------------------------------------------------------------------------- */

/* From a kernel: record "<op>: <message>" and return status (e.g. ACLNN_ERR_INNER when out of memory). */
#define aclStubKernelFail(call, status, ...) aclStubCallFail((call), 1, (status), __VA_ARGS__)

/*
 * From a kernel (not from its parallel-for workers): `bytes` of host memory for the kernel's own buffers,
 * freed by the SDK when the kernel returns, so no exit path frees anything. NULL when out of memory:
 * return aclStubKernelOutOfMemory(call) then.
 */
ACLSTUB_API void *aclStubKernelScratch(const aclStubOpCall *call, size_t bytes);
#define aclStubKernelOutOfMemory(call) aclStubKernelFail((call), ACLNN_ERR_INNER, "out of host memory for the kernel's buffers")

/*
 * From a kernel: output parameter i gets the view shape dims[0 .. ndim) (row-major strides), as a device refreshes
 * the shape of a data-dependent output (nonzero, unique, masked_select) when the work runs; the caller allocates
 * the largest shape and reads the real one with aclGetViewShape after synchronizing. A tensor destroyed since
 * phase 2 is left alone.
 */
ACLSTUB_API void aclStubKernelSetOutputShape(const aclStubOpCall *call, int i, const int64_t *dims, uint32_t ndim);

/*
 * Run fn(ctx, begin, end) over [0, n) split into contiguous chunks, one per thread of the stub's pool.
 * Chunks depend on n and the thread count only, and every item must be computed independently of the
 * others, so results do not depend on the thread count. Calls from several threads are serialised.
 */
typedef void (*aclStubRangeFn)(void *ctx, int64_t begin, int64_t end);
ACLSTUB_API void aclStubParallelFor(int64_t n, int64_t min_chunk, aclStubRangeFn fn, void *ctx);
ACLSTUB_API int aclStubNumThreads(void);

/* ---- shapes ------------------------------------------------------------------------------------------------ */

/* The broadcast of shapes a (na dims) and b (nb dims) by numpy's rules into out (max(na, nb) dims, *nout);
 * false when a dimension pair is neither equal nor 1. */
ACLSTUB_API bool aclStubBroadcastShape(const int64_t *a, uint32_t na, const int64_t *b, uint32_t nb, int64_t *out,
                                       uint32_t *nout);
/* "[2, 3, 4]" into buf (always terminated); returns buf. */
ACLSTUB_API const char *aclStubShapeText(const int64_t *dims, uint32_t n, char *buf, size_t size);
static inline bool aclStubShapeEqual(const int64_t *a, uint32_t na, const int64_t *b, uint32_t nb) {
    if (na != nb) return false;
    for (uint32_t i = 0; i < na; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* ---- the element iterator (in the manner of PyTorch's TensorIterator and numpy's ufunc loops) ------------ */

#define ACLSTUB_ITER_MAX_OPERANDS 8

/*
 * An inner loop over n elements: data[k] points at operand k's first element and strides[k] is the byte step
 * between its elements (0 for a broadcast or scalar operand). Operands are the outputs first, then the inputs,
 * each in its loop dtype (the iterator converts the others block by block). ctx is the caller's.
 */
typedef void (*aclStubLoopFn)(char **data, const int64_t *strides, int64_t n, const void *ctx);

typedef struct {
    int num_outputs, num_inputs;
    /* per operand, outputs first: the view, or NULL for a scalar operand (value in scalar[k]) */
    const aclStubTensorDesc *tensor[ACLSTUB_ITER_MAX_OPERANDS];
    aclDataType loop_dtype[ACLSTUB_ITER_MAX_OPERANDS];   /* what the loop reads (inputs) or writes (outputs) */
    aclStubScalarDesc scalar[ACLSTUB_ITER_MAX_OPERANDS]; /* scalar operands, any dtype: converted to loop_dtype */
    /* When set, values pass through via[k] between the tensor's dtype and the loop's: an input is cast to via[k]
     * first, an output is rounded to via[k] first (a FLOAT16 computation run in float32, for instance). */
    bool has_via[ACLSTUB_ITER_MAX_OPERANDS];
    aclDataType via[ACLSTUB_ITER_MAX_OPERANDS];
} aclStubIter;

/*
 * Runs fn over every element of output 0's shape: inputs broadcast to it (trailing dimensions aligned), every
 * output of that shape, any strides. Dimensions are merged where every operand allows it, an operand whose
 * dtype differs from its loop dtype is converted (aclStubCastStrided) a block at a time, and large shapes run
 * on the stub's threads, each element computed once whatever the thread count. OK, or a kernel error status
 * (a dtype the iterator cannot convert).
 */
ACLSTUB_API aclnnStatus aclStubIterRun(const aclStubOpCall *call, const aclStubIter *it, aclStubLoopFn fn,
                                       const void *ctx);

/* Element pointers of views (offsets were checked against the device block in phase 2). */
static inline void *aclStubElem1(const aclStubTensorDesc *t, int64_t i) {
    return (char *)t->data + (t->offset + i * t->strides[0]) * (int64_t)aclDataTypeSize(t->dtype);
}
static inline void *aclStubElem2(const aclStubTensorDesc *t, int64_t i, int64_t j) {
    return (char *)t->data + (t->offset + i * t->strides[0] + j * t->strides[1]) * (int64_t)aclDataTypeSize(t->dtype);
}
/* Element i, in row-major order, of a non-empty view of any rank (0 <= i < aclStubNumel(t)). */
static inline void *aclStubElemAt(const aclStubTensorDesc *t, int64_t i) {
    int64_t off = t->offset;
    for (uint32_t d = t->ndim; d-- > 0;) {
        off += (i % t->dims[d]) * t->strides[d];
        i /= t->dims[d];
    }
    return (char *)t->data + off * (int64_t)aclDataTypeSize(t->dtype);
}
/* Element i of a 1-D view, or of the row-major flattening of a 2-D (rows, k) view. */
static inline void *aclStubElemFlat(const aclStubTensorDesc *t, int64_t i, int64_t k) {
    return t->ndim == 1 ? aclStubElem1(t, i) : aclStubElem2(t, i / k, i % k);
}
/* Integer elements of INT32/INT64 views. */
static inline int64_t aclStubIndex1(const aclStubTensorDesc *t, int64_t i) {
    const void *p = aclStubElem1(t, i);
    return t->dtype == ACL_INT64 ? *(const int64_t *)p : *(const int32_t *)p;
}
static inline int64_t aclStubIndexFlat(const aclStubTensorDesc *t, int64_t i, int64_t k) {
    const void *p = aclStubElemFlat(t, i, k);
    return t->dtype == ACL_INT64 ? *(const int64_t *)p : *(const int32_t *)p;
}

/* Scalar conversions with the device's rounding (round to nearest even; NaN stays NaN, quiet). */
ACLSTUB_API float aclStubF16ToF32(uint16_t h);
ACLSTUB_API uint16_t aclStubF32ToF16(float f);
static inline float aclStubBf16ToF32(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t aclStubF32ToBf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
/* A FLOAT/FLOAT16/BF16 element at p as float, and the narrowing store. */
static inline float aclStubLoadPtrF32(aclDataType dtype, const void *p) {
    if (dtype == ACL_FLOAT) return *(const float *)p;
    return dtype == ACL_BF16 ? aclStubBf16ToF32(*(const uint16_t *)p) : aclStubF16ToF32(*(const uint16_t *)p);
}
static inline void aclStubStorePtrF32(aclDataType dtype, void *p, float f) {
    if (dtype == ACL_FLOAT)
        *(float *)p = f;
    else
        *(uint16_t *)p = dtype == ACL_BF16 ? aclStubF32ToBf16(f) : aclStubF32ToF16(f);
}
/* Element i of a 1-D view, and element (i, j) of a 2-D view, as float; and their narrowing stores. */
static inline float aclStubLoadF32(const aclStubTensorDesc *t, int64_t i) {
    return aclStubLoadPtrF32(t->dtype, aclStubElem1(t, i));
}
static inline void aclStubStoreF32(const aclStubTensorDesc *t, int64_t i, float f) {
    aclStubStorePtrF32(t->dtype, aclStubElem1(t, i), f);
}
static inline float aclStubLoad2F32(const aclStubTensorDesc *t, int64_t i, int64_t j) {
    return aclStubLoadPtrF32(t->dtype, aclStubElem2(t, i, j));
}
static inline void aclStubStore2F32(const aclStubTensorDesc *t, int64_t i, int64_t j, float f) {
    aclStubStorePtrF32(t->dtype, aclStubElem2(t, i, j), f);
}

/*
 * Row kernels on contiguous rows (vectorised for the host CPU, chosen at run time). A sum with two NaN
 * operands takes the running sum's NaN, made quiet (the rule the numpy references follow).
 */
ACLSTUB_API void aclStubRowLoadF32(float *dst, const void *src, aclDataType dtype, int64_t n); /* dst = float(src) */
ACLSTUB_API void aclStubRowAddF32(float *dst, const void *src, aclDataType dtype, int64_t n);  /* dst += float(src) */
/*
 * The same sum with plain adds, which differ from the rule only in which NaN a NaN + NaN keeps: a NaN stays
 * NaN once in a sum, so a row whose final sums hold no NaN (aclStubRowAnyNaN) is exactly what
 * aclStubRowAddF32 gives. Sum fast, test the finished row, and redo only rows with a NaN exactly.
 */
ACLSTUB_API void aclStubRowAddF32Fast(float *dst, const void *src, aclDataType dtype, int64_t n);
ACLSTUB_API bool aclStubRowAnyNaN(const float *row, int64_t n);
ACLSTUB_API void aclStubRowAddZeroF32(float *dst, int64_t n); /* dst += +0.0f (turns -0.0 into +0.0) */
ACLSTUB_API void aclStubRowStoreF32(void *dst, const float *src, aclDataType dtype, int64_t n); /* narrowing */
/*
 * Weighted rows: each product is rounded to float32 before it is added (never fused). A product whose
 * left operand (the row element) is NaN is that NaN made quiet, like the sums.
 */
ACLSTUB_API void aclStubRowScaleF32(float *dst, const void *src, aclDataType dtype, float w, int64_t n); /* dst = float(src) * w */
ACLSTUB_API void aclStubRowScaleAddF32(float *dst, const void *src, aclDataType dtype, float w,
                                       int64_t n);                  /* dst += float(src) * w */
ACLSTUB_API void aclStubRowMulF32(float *dst, const float *a, const float *b, int64_t n); /* dst = a * b (dst may be a) */
/* dst = float(a) * b, a of dtype FLOAT, FLOAT16 or BF16 widened in the same pass (dst may be b; not a unless FLOAT) */
ACLSTUB_API void aclStubRowMulWidenF32(float *dst, const void *a, aclDataType dtype, const float *b, int64_t n);
/* Sum of v[0..n) by an adjacent-pair binary tree (the vector unit's block reductions), n a power of two
 * up to 8192; v is overwritten. */
ACLSTUB_API float aclStubRowTreeSumF32(float *v, int64_t n);
/*
 * aclStubRowScaleAddF32 with plain products and sums, which differ from the NaN rules only in the payload a NaN
 * keeps: a row without NaN is exactly the rule's; redo a row that holds one with the exact function.
 */
ACLSTUB_API void aclStubRowScaleAddF32Fast(float *dst, const void *src, aclDataType dtype, float w, int64_t n);
/* dst += float(narrow_dtype(float(src) * w)): the product rounded to the source's dtype first (exact rules) */
ACLSTUB_API void aclStubRowScaleAddRoundedF32(float *dst, const void *src, aclDataType dtype, float w, int64_t n);
/*
 * The sum of v[0 .. n) in the order of the AI Core's ReduceSum (n >= 1; v is overwritten): halving folds
 * of 8-aligned halves down to 4096, 512 or 64 elements, then the adjacent-pair tree (aclStubRowTreeSumF32);
 * below 64 elements one tree over 64 lanes whose idle lanes hold +0.0.
 */
ACLSTUB_API float aclStubReduceSumF32(float *v, int64_t n);
/* aclStubReduceSumF32 of consecutive chunks of `chunk` values (the last one shorter), the chunk sums added in
 * order to +0.0: how a device reduces rows too long for its unified buffer. Overwrites v. */
ACLSTUB_API float aclStubVectorReduceSumF32(float *v, int64_t n, int64_t chunk);

/*
 * INT8 quantisation of contiguous float32 rows (round half to even, saturate to [-128, 127], NaN -> 0):
 *   static:  dst = q(float32(float32(src * scale) + offset)), never a fused multiply-add;
 *   dynamic: xs *= smooth (when not NULL), ds = float32(max|xs| / 127), dst = q(float32(xs / ds)); returns ds
 *            (a row holding NaN has the first NaN's magnitude as its maximum). xs is overwritten.
 */
ACLSTUB_API void aclStubRowQuantInt8Static(int8_t *dst, const float *src, float scale, float offset, int64_t n);
ACLSTUB_API float aclStubRowQuantInt8Dynamic(int8_t *dst, float *xs, const float *smooth, int64_t n);

/* memcpy, with non-temporal stores when stream is set (end such a region with aclStubStreamFence). */
#define ACLSTUB_STREAM_MIN_BYTES ((int64_t)32 << 20)
ACLSTUB_API void aclStubCopyBytes(void *dst, const void *src, size_t n, bool stream);
ACLSTUB_API void aclStubStreamFence(void);

/*
 * Row gather: for j in [0, m), row (out_row0 + j) of `out` (contiguous rows of C elements, C = the product
 * of src's trailing dimensions) becomes a copy of row src_rows[j] of `src` (any rank, read through its
 * strides). ACLSTUB_ROW_ZERO writes zero bytes, ACLSTUB_ROW_KEEP leaves the row alone. Indices are trusted.
 */
#define ACLSTUB_ROW_ZERO (-1)
#define ACLSTUB_ROW_KEEP (-2)
ACLSTUB_API void aclStubCopyRows(const aclStubTensorDesc *out, int64_t out_row0, const aclStubTensorDesc *src,
                                 const int64_t *src_rows, int64_t m);

/*
 * Row gather-sum, the core of backward operators:
 *   out[t] = narrow( combine over k in [0, K) of src[idx[t*K + k] - lo] ),  index d valid when lo <= d < hi.
 * `init` decides how terms combine (and so the sign of zero sums).
 */
typedef enum {
    ACLSTUB_SUM_COPY_FIRST_SKIP,     /* acc = first term if valid else +0; invalid later terms skipped */
    ACLSTUB_SUM_COPY_FIRST_ADD_ZERO, /* acc = first term if valid else +0; invalid later terms add +0.0 */
    ACLSTUB_SUM_ZERO_INIT,           /* acc = +0, then every valid term is added */
} aclStubSumInit;

typedef struct {
    const aclStubTensorDesc *src; /* 2-D (rows, H), or 3-D (E, C, H) read as E*C rows */
    const aclStubTensorDesc *idx; /* 1-D INT32/INT64 view of N*K indices */
    const aclStubTensorDesc *out; /* contiguous (N, H) */
    int64_t k;
    int64_t lo, hi;
    aclStubSumInit init;
} aclStubGatherSum;
/* false when a thread could not get its buffers (out of memory): fail the kernel (aclStubKernelOutOfMemory). */
ACLSTUB_API bool aclStubRowGatherSum(const aclStubGatherSum *g);

/*
 * One output row of a (weighted) gather-sum: out[0 .. n) = narrow(sum), the sum in float32 starting at +0.0
 * (zero_init) or at the first term, then adding every later term in order. A term is a row of dtype elements
 * `inner` elements apart, times its weight when there are weights (the product rounded to float32 before it
 * is added, never fused), or +0.0 for a NULL row (unweighted sums only). The NaN rules of aclStubRowAddF32 and
 * aclStubRowScaleAddF32 hold. The terms are read together, a block at a time (vectorised for the host CPU).
 * stream: out may be written with non-temporal stores (end the region with aclStubStreamFence). next (may be
 * NULL): the next row's terms, fetched ahead while this row is summed.
 */
typedef struct {
    const void **rows;
    const float *weights; /* NULL: unweighted */
    int64_t n;
    bool zero_init;
} aclStubTerms;
ACLSTUB_API void aclStubRowSumTerms(void *out, const aclStubTerms *terms, int64_t inner, aclDataType dtype, int64_t n,
                                    bool stream, const aclStubTerms *next);

/* Stable ascending argsort of n int64 keys (ties in ascending position). false when out of memory. */
ACLSTUB_API bool aclStubStableArgsort(const int64_t *keys, int64_t n, int32_t *order);
/* An int64 key that sorts like float f (total order: -0.0 before +0.0, NaN last). */
static inline int64_t aclStubFloatSortKey(float f) {
    int32_t i;
    memcpy(&i, &f, 4);
    return i < 0 ? (int64_t)(int32_t)~(uint32_t)i - INT64_C(0x80000000) : (int64_t)i;
}

/* ---- weighted combines (the unpermute operators) ------------------------------------------------------- */

/* acc = first ? src * w : acc + src * w, every product and sum rounded to float32 (never fused). A product
 * is src's NaN made quiet when src is NaN, else w's when w is NaN; sums follow the rule above. */
ACLSTUB_API void aclStubRowMulAccF32(float *acc, const float *src, float w, bool first, int64_t n);
/* Row `row` of a 2-D FLOAT/FLOAT16/BF16 view (any strides) as row-length float32 values. */
ACLSTUB_API void aclStubRowLoadViewF32(float *dst, const aclStubTensorDesc *t, int64_t row);
/* The same row as float32 values without a copy when it already is one (a contiguous FLOAT row), else
 * converted into scratch (row-length floats); the result is read-only. */
ACLSTUB_API const float *aclStubRowViewF32(float *scratch, const aclStubTensorDesc *t, int64_t row);

/*
 * Weighted row gather-sum, the combine of the unpermute operators: for token t in [0, N) and slot k in
 * [0, K), with d = idx[t*K + k], the slot is taken when lo <= d < hi and w[t, k] != 0 (NaN is taken; a
 * skipped slot reads nothing). acc starts as src[d - lo] * w[t, k] of slot 0 when it is taken, else +0.0;
 * every later taken slot adds its product, in k order, in float32; out[t] = acc narrowed to out's dtype
 * (round to nearest even).
 */
typedef struct {
    const aclStubTensorDesc *src;     /* 2-D (rows, H), any strides; every taken d - lo is a row of it */
    const aclStubTensorDesc *idx;     /* 1-D INT32/INT64, at least N*K entries */
    const aclStubTensorDesc *weights; /* 2-D (N, K) FLOAT/FLOAT16/BF16, any strides */
    const aclStubTensorDesc *out;     /* contiguous (N, H), src's dtype */
    int64_t k, lo, hi;
} aclStubWeightedGatherSum;
ACLSTUB_API bool aclStubRowWeightedGatherSum(const aclStubWeightedGatherSum *g); /* false: out of memory */


/* ---- the entry points -------------------------------------------------------------------------------------- */

typedef enum {
    ACLSTUB_KIND_TENSOR = 1,
    ACLSTUB_KIND_INT_ARRAY,
    ACLSTUB_KIND_BOOL_ARRAY,
    ACLSTUB_KIND_FLOAT_ARRAY,
    ACLSTUB_KIND_SCALAR,
    ACLSTUB_KIND_TENSOR_LIST,
    ACLSTUB_KIND_SCALAR_LIST,
    ACLSTUB_KIND_INT,
    ACLSTUB_KIND_BOOL,
    ACLSTUB_KIND_FLOAT,
    ACLSTUB_KIND_STRING,
    ACLSTUB_KIND_DTYPE
} aclStubArgKind;

/* One boxed argument of a phase-1 call. */
typedef struct {
    aclStubArgKind kind;
    const void *handle;
    int64_t i;
    double f;
} aclStubArg;

ACLSTUB_API aclnnStatus aclStubOpPlan(const aclStubOpDef *op, const aclStubArg *args, size_t num_args,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
ACLSTUB_API aclnnStatus aclStubOpRun(const aclStubOpDef *op, void *workspace, uint64_t workspaceSize,
                                     aclOpExecutor *executor, aclrtStream stream);

/* The registry behind introspection (aclStubRegisteredOp / aclStubDescribeOp in aclstub.h); ACLSTUB_DEFINE_OP
 * registers its operator when the library loads and removes it when the library is unloaded. */
ACLSTUB_API void aclStubOpRegister(const aclStubOpDef *op);
ACLSTUB_API void aclStubOpUnregister(const aclStubOpDef *op);

#ifdef __cplusplus
} /* extern "C" */

inline aclStubArg aclStubBoxHandle_(aclStubArgKind k, const void *h) { aclStubArg a = {k, h, 0, 0.0}; return a; }
inline aclStubArg aclStubBox(const aclTensor *x) { return aclStubBoxHandle_(ACLSTUB_KIND_TENSOR, x); }
inline aclStubArg aclStubBox(const aclIntArray *x) { return aclStubBoxHandle_(ACLSTUB_KIND_INT_ARRAY, x); }
inline aclStubArg aclStubBox(const aclBoolArray *x) { return aclStubBoxHandle_(ACLSTUB_KIND_BOOL_ARRAY, x); }
inline aclStubArg aclStubBox(const aclFloatArray *x) { return aclStubBoxHandle_(ACLSTUB_KIND_FLOAT_ARRAY, x); }
inline aclStubArg aclStubBox(const aclScalar *x) { return aclStubBoxHandle_(ACLSTUB_KIND_SCALAR, x); }
inline aclStubArg aclStubBox(const aclTensorList *x) { return aclStubBoxHandle_(ACLSTUB_KIND_TENSOR_LIST, x); }
inline aclStubArg aclStubBox(const aclScalarList *x) { return aclStubBoxHandle_(ACLSTUB_KIND_SCALAR_LIST, x); }
inline aclStubArg aclStubBoxInt_(long long x) { aclStubArg a = {ACLSTUB_KIND_INT, 0, (int64_t)x, 0.0}; return a; }
inline aclStubArg aclStubBox(signed char x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(unsigned char x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(short x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(unsigned short x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(int x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(unsigned int x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(long x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(unsigned long x) { return aclStubBoxInt_((long long)x); }
inline aclStubArg aclStubBox(long long x) { return aclStubBoxInt_(x); }
inline aclStubArg aclStubBox(unsigned long long x) { return aclStubBoxInt_((long long)x); }
inline aclStubArg aclStubBox(bool x) { aclStubArg a = {ACLSTUB_KIND_BOOL, 0, x, 0.0}; return a; }
inline aclStubArg aclStubBox(double x) { aclStubArg a = {ACLSTUB_KIND_FLOAT, 0, 0, x}; return a; }
inline aclStubArg aclStubBox(float x) { aclStubArg a = {ACLSTUB_KIND_FLOAT, 0, 0, x}; return a; }
inline aclStubArg aclStubBox(const char *x) { return aclStubBoxHandle_(ACLSTUB_KIND_STRING, x); }
inline aclStubArg aclStubBox(aclDataType x) { aclStubArg a = {ACLSTUB_KIND_DTYPE, 0, (int64_t)x, 0.0}; return a; }
#define ACLSTUB_BOX_VALUE_(x) aclStubBox(x)
#else
static inline aclStubArg aclStubBoxTensor_(const aclTensor *x) { return (aclStubArg){ACLSTUB_KIND_TENSOR, x, 0, 0.0}; }
static inline aclStubArg aclStubBoxIntArray_(const aclIntArray *x) { return (aclStubArg){ACLSTUB_KIND_INT_ARRAY, x, 0, 0.0}; }
static inline aclStubArg aclStubBoxBoolArray_(const aclBoolArray *x) { return (aclStubArg){ACLSTUB_KIND_BOOL_ARRAY, x, 0, 0.0}; }
static inline aclStubArg aclStubBoxFloatArray_(const aclFloatArray *x) { return (aclStubArg){ACLSTUB_KIND_FLOAT_ARRAY, x, 0, 0.0}; }
static inline aclStubArg aclStubBoxScalar_(const aclScalar *x) { return (aclStubArg){ACLSTUB_KIND_SCALAR, x, 0, 0.0}; }
static inline aclStubArg aclStubBoxTensorList_(const aclTensorList *x) { return (aclStubArg){ACLSTUB_KIND_TENSOR_LIST, x, 0, 0.0}; }
static inline aclStubArg aclStubBoxScalarList_(const aclScalarList *x) { return (aclStubArg){ACLSTUB_KIND_SCALAR_LIST, x, 0, 0.0}; }
static inline aclStubArg aclStubBoxInt_(int64_t x) { return (aclStubArg){ACLSTUB_KIND_INT, NULL, x, 0.0}; }
static inline aclStubArg aclStubBoxBool_(bool x) { return (aclStubArg){ACLSTUB_KIND_BOOL, NULL, x, 0.0}; }
static inline aclStubArg aclStubBoxFloat_(double x) { return (aclStubArg){ACLSTUB_KIND_FLOAT, NULL, 0, x}; }
static inline aclStubArg aclStubBoxString_(const char *x) { return (aclStubArg){ACLSTUB_KIND_STRING, x, 0, 0.0}; }
/* Integer and enum arguments (an aclDataType is an int in C) box as integers; the table's role reads them. */
#define ACLSTUB_BOX_VALUE_(x)                                                                                 \
    _Generic((x),                                                                                            \
        const aclTensor *: aclStubBoxTensor_, aclTensor *: aclStubBoxTensor_,                                \
        const aclIntArray *: aclStubBoxIntArray_, aclIntArray *: aclStubBoxIntArray_,                        \
        const aclBoolArray *: aclStubBoxBoolArray_, aclBoolArray *: aclStubBoxBoolArray_,                    \
        const aclFloatArray *: aclStubBoxFloatArray_, aclFloatArray *: aclStubBoxFloatArray_,                \
        const aclScalar *: aclStubBoxScalar_, aclScalar *: aclStubBoxScalar_,                                \
        const aclTensorList *: aclStubBoxTensorList_, aclTensorList *: aclStubBoxTensorList_,                \
        const aclScalarList *: aclStubBoxScalarList_, aclScalarList *: aclStubBoxScalarList_,                \
        signed char: aclStubBoxInt_, unsigned char: aclStubBoxInt_, short: aclStubBoxInt_,                  \
        unsigned short: aclStubBoxInt_, int: aclStubBoxInt_, unsigned int: aclStubBoxInt_,                   \
        long: aclStubBoxInt_, unsigned long: aclStubBoxInt_, long long: aclStubBoxInt_,                      \
        unsigned long long: aclStubBoxInt_, bool: aclStubBoxBool_, double: aclStubBoxFloat_,                 \
        float: aclStubBoxFloat_, const char *: aclStubBoxString_, char *: aclStubBoxString_)(x)
#endif

/* Parameters of ACLSTUB_DEFINE_OP are (type, name) pairs in the order of the official prototype. */
#define ACLSTUB_DECL_(pair) ACLSTUB_DECL2_ pair
#define ACLSTUB_DECL2_(type, name) type name
#define ACLSTUB_BOX_(pair) ACLSTUB_BOX2_ pair
#define ACLSTUB_BOX2_(type, name) ACLSTUB_BOX_VALUE_(name)

/* ACLSTUB_MAP_(f, a, b, ...) expands to f(a), f(b), ... (up to 48 arguments). */
#define ACLSTUB_NARGS_(...) ACLSTUB_NARGS_N_(__VA_ARGS__, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define ACLSTUB_NARGS_N_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, n, ...) n
#define ACLSTUB_CAT_(a, b) ACLSTUB_CAT2_(a, b)
#define ACLSTUB_CAT2_(a, b) a##b
#define ACLSTUB_MAP_(f, ...) ACLSTUB_CAT_(ACLSTUB_MAP_, ACLSTUB_NARGS_(__VA_ARGS__))(f, __VA_ARGS__)
#define ACLSTUB_MAP_1(f, x) f(x)
#define ACLSTUB_MAP_2(f, x, ...) f(x), ACLSTUB_MAP_1(f, __VA_ARGS__)
#define ACLSTUB_MAP_3(f, x, ...) f(x), ACLSTUB_MAP_2(f, __VA_ARGS__)
#define ACLSTUB_MAP_4(f, x, ...) f(x), ACLSTUB_MAP_3(f, __VA_ARGS__)
#define ACLSTUB_MAP_5(f, x, ...) f(x), ACLSTUB_MAP_4(f, __VA_ARGS__)
#define ACLSTUB_MAP_6(f, x, ...) f(x), ACLSTUB_MAP_5(f, __VA_ARGS__)
#define ACLSTUB_MAP_7(f, x, ...) f(x), ACLSTUB_MAP_6(f, __VA_ARGS__)
#define ACLSTUB_MAP_8(f, x, ...) f(x), ACLSTUB_MAP_7(f, __VA_ARGS__)
#define ACLSTUB_MAP_9(f, x, ...) f(x), ACLSTUB_MAP_8(f, __VA_ARGS__)
#define ACLSTUB_MAP_10(f, x, ...) f(x), ACLSTUB_MAP_9(f, __VA_ARGS__)
#define ACLSTUB_MAP_11(f, x, ...) f(x), ACLSTUB_MAP_10(f, __VA_ARGS__)
#define ACLSTUB_MAP_12(f, x, ...) f(x), ACLSTUB_MAP_11(f, __VA_ARGS__)
#define ACLSTUB_MAP_13(f, x, ...) f(x), ACLSTUB_MAP_12(f, __VA_ARGS__)
#define ACLSTUB_MAP_14(f, x, ...) f(x), ACLSTUB_MAP_13(f, __VA_ARGS__)
#define ACLSTUB_MAP_15(f, x, ...) f(x), ACLSTUB_MAP_14(f, __VA_ARGS__)
#define ACLSTUB_MAP_16(f, x, ...) f(x), ACLSTUB_MAP_15(f, __VA_ARGS__)
#define ACLSTUB_MAP_17(f, x, ...) f(x), ACLSTUB_MAP_16(f, __VA_ARGS__)
#define ACLSTUB_MAP_18(f, x, ...) f(x), ACLSTUB_MAP_17(f, __VA_ARGS__)
#define ACLSTUB_MAP_19(f, x, ...) f(x), ACLSTUB_MAP_18(f, __VA_ARGS__)
#define ACLSTUB_MAP_20(f, x, ...) f(x), ACLSTUB_MAP_19(f, __VA_ARGS__)
#define ACLSTUB_MAP_21(f, x, ...) f(x), ACLSTUB_MAP_20(f, __VA_ARGS__)
#define ACLSTUB_MAP_22(f, x, ...) f(x), ACLSTUB_MAP_21(f, __VA_ARGS__)
#define ACLSTUB_MAP_23(f, x, ...) f(x), ACLSTUB_MAP_22(f, __VA_ARGS__)
#define ACLSTUB_MAP_24(f, x, ...) f(x), ACLSTUB_MAP_23(f, __VA_ARGS__)
#define ACLSTUB_MAP_25(f, x, ...) f(x), ACLSTUB_MAP_24(f, __VA_ARGS__)
#define ACLSTUB_MAP_26(f, x, ...) f(x), ACLSTUB_MAP_25(f, __VA_ARGS__)
#define ACLSTUB_MAP_27(f, x, ...) f(x), ACLSTUB_MAP_26(f, __VA_ARGS__)
#define ACLSTUB_MAP_28(f, x, ...) f(x), ACLSTUB_MAP_27(f, __VA_ARGS__)
#define ACLSTUB_MAP_29(f, x, ...) f(x), ACLSTUB_MAP_28(f, __VA_ARGS__)
#define ACLSTUB_MAP_30(f, x, ...) f(x), ACLSTUB_MAP_29(f, __VA_ARGS__)
#define ACLSTUB_MAP_31(f, x, ...) f(x), ACLSTUB_MAP_30(f, __VA_ARGS__)
#define ACLSTUB_MAP_32(f, x, ...) f(x), ACLSTUB_MAP_31(f, __VA_ARGS__)
#define ACLSTUB_MAP_33(f, x, ...) f(x), ACLSTUB_MAP_32(f, __VA_ARGS__)
#define ACLSTUB_MAP_34(f, x, ...) f(x), ACLSTUB_MAP_33(f, __VA_ARGS__)
#define ACLSTUB_MAP_35(f, x, ...) f(x), ACLSTUB_MAP_34(f, __VA_ARGS__)
#define ACLSTUB_MAP_36(f, x, ...) f(x), ACLSTUB_MAP_35(f, __VA_ARGS__)
#define ACLSTUB_MAP_37(f, x, ...) f(x), ACLSTUB_MAP_36(f, __VA_ARGS__)
#define ACLSTUB_MAP_38(f, x, ...) f(x), ACLSTUB_MAP_37(f, __VA_ARGS__)
#define ACLSTUB_MAP_39(f, x, ...) f(x), ACLSTUB_MAP_38(f, __VA_ARGS__)
#define ACLSTUB_MAP_40(f, x, ...) f(x), ACLSTUB_MAP_39(f, __VA_ARGS__)
#define ACLSTUB_MAP_41(f, x, ...) f(x), ACLSTUB_MAP_40(f, __VA_ARGS__)
#define ACLSTUB_MAP_42(f, x, ...) f(x), ACLSTUB_MAP_41(f, __VA_ARGS__)
#define ACLSTUB_MAP_43(f, x, ...) f(x), ACLSTUB_MAP_42(f, __VA_ARGS__)
#define ACLSTUB_MAP_44(f, x, ...) f(x), ACLSTUB_MAP_43(f, __VA_ARGS__)
#define ACLSTUB_MAP_45(f, x, ...) f(x), ACLSTUB_MAP_44(f, __VA_ARGS__)
#define ACLSTUB_MAP_46(f, x, ...) f(x), ACLSTUB_MAP_45(f, __VA_ARGS__)
#define ACLSTUB_MAP_47(f, x, ...) f(x), ACLSTUB_MAP_46(f, __VA_ARGS__)
#define ACLSTUB_MAP_48(f, x, ...) f(x), ACLSTUB_MAP_47(f, __VA_ARGS__)

/*
 * Both official entry points of operator NAME, whose table is the aclStubOpDef DEF: NAME##GetWorkspaceSize
 * with the given parameters followed by workspaceSize and executor, and NAME(workspace, workspaceSize,
 * executor, stream). Including the operator's official header in the same file makes the compiler check
 * the prototypes. The operator is registered for introspection while its library is loaded.
 */
#define ACLSTUB_DEFINE_OP(NAME, DEF, ...)                                                                    \
    ACLSTUB_EXTERN_C ACLSTUB_API aclnnStatus NAME##GetWorkspaceSize(                                         \
        ACLSTUB_MAP_(ACLSTUB_DECL_, __VA_ARGS__), uint64_t *workspaceSize, aclOpExecutor **executor) {       \
        const aclStubArg aclstub_args_[] = {ACLSTUB_MAP_(ACLSTUB_BOX_, __VA_ARGS__)};                        \
        return aclStubOpPlan(&(DEF), aclstub_args_, sizeof aclstub_args_ / sizeof aclstub_args_[0],          \
                             workspaceSize, executor);                                                       \
    }                                                                                                        \
    ACLSTUB_EXTERN_C ACLSTUB_API aclnnStatus NAME(void *workspace, uint64_t workspaceSize,                   \
                                                  aclOpExecutor *executor, aclrtStream stream) {             \
        return aclStubOpRun(&(DEF), workspace, workspaceSize, executor, stream);                             \
    }                                                                                                        \
    __attribute__((constructor)) static void NAME##_register_(void) { aclStubOpRegister(&(DEF)); }           \
    __attribute__((destructor)) static void NAME##_unregister_(void) { aclStubOpUnregister(&(DEF)); }

#endif /* ACLSTUB_OP_SDK_H_ */
