/*
 * The reduction engine of the operator SDK: reductions over a set of dimensions (sum, mean, product, max/min,
 * all/any, nansum, variance and standard deviation, norms, log-sum-exp, arg max/min, count of non-zeros) and
 * operations along one dimension (softmax, scans, sort), with the op_api's dimension rules for the checks.
 *
 *   aclStubReduce r = {ACLSTUB_RED_SUM, self, mask, ACL_FLOAT};
 *   r.out = call->v[OUT].tensor;
 *   return aclStubReduceRun(call, &r);
 *
 * Order of a floating sum (and product) over the N elements a result reduces, taken in the row-major order of
 * the reduced dimensions of the logical view (so the result depends on the shape and the reduced dimensions,
 * never on strides or the thread count): the N terms are split into chunks of ACLSTUB_REDUCE_CHUNK consecutive
 * terms; in a chunk, term i goes to lane i mod ACLSTUB_REDUCE_LANES, every lane starting at +0.0 (1.0 for
 * products) and adding its terms in order; the lanes are combined by an adjacent-pair tree (lane 0 + lane 1,
 * lane 2 + lane 3, ..., then the same on the half-length list, down to one value); the chunk results are
 * combined by the same adjacent-pair tree, an odd last value passing unchanged to the next level. 16-bit
 * floats accumulate in float32, FLOAT in float32, DOUBLE in float64, integers and BOOL in int64 (sums and
 * products wrap, so they equal the device's wrapping arithmetic in the narrower type); the result is rounded
 * once to the computation dtype, then cast to the output's dtype.
 *
 * The header is valid C11 and C++.
 */
#ifndef ACLSTUB_OP_REDUCE_H_
#define ACLSTUB_OP_REDUCE_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACLSTUB_REDUCE_CHUNK 4096
#define ACLSTUB_REDUCE_LANES 32

typedef enum {
    ACLSTUB_RED_SUM,           /* the sum (order above); an empty set gives 0 */
    ACLSTUB_RED_MEAN,          /* the sum divided by N in the accumulation type; empty: NaN */
    ACLSTUB_RED_PROD,          /* the product (same order); empty: 1 */
    ACLSTUB_RED_MAX,           /* the largest value; a NaN anywhere gives NaN */
    ACLSTUB_RED_MIN,           /* the smallest value; a NaN anywhere gives NaN */
    ACLSTUB_RED_ALL,           /* BOOL: every element non-zero (NaN is non-zero); empty: true */
    ACLSTUB_RED_ANY,           /* BOOL: some element non-zero; empty: false */
    ACLSTUB_RED_NANSUM,        /* the sum with NaN terms counted as +0.0 */
    ACLSTUB_RED_COUNT_NONZERO, /* the number of non-zero elements */
    ACLSTUB_RED_VAR,           /* sum((x - mean)^2) / max(N - correction, 0), two passes; out2: the mean */
    ACLSTUB_RED_STD,           /* sqrt of VAR; out2: the mean */
    ACLSTUB_RED_NORM,          /* p-norm: inf max|x|, -inf min|x|, 0 count of non-zeros, else (sum |x|^p)^(1/p) */
    ACLSTUB_RED_LOGSUM,        /* log(sum) */
    ACLSTUB_RED_LOGSUMEXP,     /* m + log(sum(exp(x - m))), m the maximum (0 when it is infinite) */
    ACLSTUB_RED_ARGMAX,        /* out: the maximum (may be NULL), out2: the index of its first occurrence in the
                                  reduced order; NaN counts as the largest value */
    ACLSTUB_RED_ARGMIN,        /* the same with the minimum; NaN counts as the smallest value */
    ACLSTUB_RED_INVSTD,        /* 1 / sqrt(VAR + eps) (batch-norm statistics); out2: the mean */
    ACLSTUB_RED_COUNT
} aclStubReduceOp;

typedef struct {
    aclStubReduceOp op;
    const aclStubTensorDesc *self;
    uint64_t dims;       /* bit d: dimension d of self is reduced (0: every result is one element) */
    aclDataType compute; /* the dtype the op_api computes in: self is cast to it first (FLOAT16 values of a FLOAT
                            self are rounded to FLOAT16, for instance) and the result is rounded to it */
    const aclStubTensorDesc *out;  /* self's shape without the reduced dimensions, or with them as 1 (any strides) */
    const aclStubTensorDesc *out2; /* ARGMAX/ARGMIN: the indices; VAR/STD: the mean (optional) */
    double p;                      /* NORM */
    double correction;             /* VAR, STD, INVSTD */
    double eps;                    /* INVSTD */
} aclStubReduce;

/* From a kernel: computes r (every thread of the stub's pool; results independent of the thread count). */
ACLSTUB_API aclnnStatus aclStubReduceRun(const aclStubOpCall *call, const aclStubReduce *r);

/* ---- the op_api's dimension rules, for check ---------------------------------------------------------- */

/* A dimension d of a rank-n tensor as the op_api wraps it: valid in [-max(n,1), max(n,1) - 1]; *mask gets its
 * bit. ACLNN_ERR_PARAM_INVALID with "<what> <d> must be in the range of [lo, hi]" otherwise; a repeated
 * dimension too when unique is set. */
ACLSTUB_API aclnnStatus aclStubReduceDim(const aclStubOpCall *call, const char *what, int64_t d, uint32_t n,
                                         bool unique, uint64_t *mask);
/* Every entry of an int array parameter (dims) through aclStubReduceDim; an empty array sets no bit. */
ACLSTUB_API aclnnStatus aclStubReduceDims(const aclStubOpCall *call, int dims_param, uint32_t n, bool unique,
                                          uint64_t *mask);
/* The shape of a reduction of self over mask: reduced dimensions removed, or kept as 1. */
ACLSTUB_API void aclStubReduceShape(const aclStubTensorDesc *self, uint64_t mask, bool keepdim, int64_t *dims,
                                    uint32_t *ndim);
/* ACLNN_ERR_PARAM_INVALID unless tensor parameter i has the shape dims[0..n). */
ACLSTUB_API aclnnStatus aclStubCheckShape(const aclStubOpCall *call, int i, const int64_t *dims, uint32_t n);
/* The op_api's common tensor checks (ACLNN_ERR_PARAM_INVALID, its messages): tensor parameter i's dtype in set
 * (OP_CHECK_DTYPE_NOT_SUPPORT), equal to dtype (OP_CHECK_DTYPE_NOT_MATCH), and at most max_dim dimensions
 * (OP_CHECK_MAX_DIM). A NULL tensor passes. */
ACLSTUB_API aclnnStatus aclStubCheckParamDtypeIn(const aclStubOpCall *call, int i, uint64_t set);
ACLSTUB_API aclnnStatus aclStubCheckDtypeIs(const aclStubOpCall *call, int i, aclDataType dtype);
ACLSTUB_API aclnnStatus aclStubCheckMaxDim(const aclStubOpCall *call, int i, uint32_t max_dim);
/* op::IsPrivateFormat: the device's tiled layouts (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...), refused where the op_api
 * refuses them; aclStubCheckFormat fails for tensor parameter i in such a format. */
ACLSTUB_API bool aclStubIsPrivateFormat(aclFormat format);
ACLSTUB_API aclnnStatus aclStubCheckFormat(const aclStubOpCall *call, int i);
/* From a kernel: out = in (one shape, any strides and dtypes; values converted as the device's Cast). */
ACLSTUB_API aclnnStatus aclStubCopy(const aclStubOpCall *call, const aclStubTensorDesc *out,
                                    const aclStubTensorDesc *in);
/* From a kernel: every element of out (any strides and dtype) set to value (converted as the device's Cast). */
ACLSTUB_API aclnnStatus aclStubFill(const aclStubOpCall *call, const aclStubTensorDesc *out, double value);
/* The mask of every dimension of a rank-n tensor. */
static inline uint64_t aclStubAllDims(uint32_t n) { return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1; }

/* ---- sums of contiguous rows in the engine's order (for operators' own kernels) ------------------------- */

/* The sum of x[0 .. n) in the order above (lanes, chunks, trees), +0.0 for n == 0. */
ACLSTUB_API float aclStubSumF32(const float *x, int64_t n);
ACLSTUB_API double aclStubSumF64(const double *x, int64_t n);
/* The adjacent-pair tree over v[0 .. n) (an odd last value passed up; v overwritten): how chunk sums combine. */
ACLSTUB_API float aclStubTreeF32(float *v, int64_t n);
ACLSTUB_API double aclStubTreeF64(double *v, int64_t n);
/* max of x[0 .. n) (NaN if any; -inf for n == 0) */
ACLSTUB_API float aclStubMaxF32(const float *x, int64_t n);

/*
 * exp(x) for float32 values, computed in float64 (Cody-Waite reduction, a degree-13 polynomial, error below 1e-15)
 * and rounded once: the correctly rounded result but for values within 1e-15 of a rounding boundary. NaN stays
 * NaN, overflow gives +inf, underflow 0. aclStubExpRowF32 is the vectorised row form: y[i] = exp(x[i] - shift)
 * (x - shift rounded to float32 first; y may be x).
 */
ACLSTUB_API float aclStubExpF32(float x);
ACLSTUB_API void aclStubExpRowF32(float *y, const float *x, float shift, int64_t n);

/* ---- operations along one dimension ------------------------------------------------------------------- */

#define ACLSTUB_LANES_MAX 4

/*
 * One lane: bufs[k] holds operand k's lane (inputs first, then outputs) as n[k] contiguous values of
 * lanes->type[k]; lane is the lane's index (row-major over the other dimensions). Called once per lane, from
 * any thread of the stub's pool; ctx is the caller's. Outputs may be read in place: the function writes every
 * value of its output lanes.
 */
typedef void (*aclStubLaneFn)(const void *ctx, void *const *bufs, const int64_t *n, int64_t lane);

typedef struct {
    int num_inputs, num_outputs;
    /* inputs first, then outputs: one rank, equal sizes off dim (a caller keeps a reduced dimension as size 1) */
    const aclStubTensorDesc *tensor[ACLSTUB_LANES_MAX];
    aclDataType type[ACLSTUB_LANES_MAX]; /* what the lane function reads or writes (FLOAT for 16-bit data) */
    aclDataType via[ACLSTUB_LANES_MAX];  /* ACL_DT_UNDEFINED, or a dtype values pass through (op_api casts) */
    int64_t dim;                         /* the lane dimension (any for a 0-d tensor: one lane of one value) */
    aclStubLaneFn fn;
    const void *ctx;
    int64_t work_per_element;            /* rough cost, for the thread split (1 = a copy) */
} aclStubLanes;

/* From a kernel: fn over every lane of tensor[0] along dim, strided lanes gathered into (and scattered from)
 * contiguous buffers, lanes already contiguous in the function's type used in place. */
ACLSTUB_API aclnnStatus aclStubLanesRun(const aclStubOpCall *call, const aclStubLanes *l);

/*
 * Sorting one lane of FLOAT, DOUBLE or INT64 values (16-bit floats widened to FLOAT, narrower integers to INT64):
 * ascending puts NaN last, descending puts it first; -0.0 ties with +0.0; ties keep their index order (stable).
 * aclStubArgsortLane writes the n indices in sorted order; aclStubTopkLane the first k of that order (the k
 * largest when largest, else the k smallest), sorted. false when out of memory or for another type.
 */
ACLSTUB_API bool aclStubArgsortLane(const void *vals, aclDataType type, int64_t n, bool descending, int64_t *order);
ACLSTUB_API bool aclStubTopkLane(const void *vals, aclDataType type, int64_t n, int64_t k, bool largest,
                                 int64_t *order);

/* t viewed with a dimension of size 1 inserted at dim (a keepdim view of a reduced output). */
static inline aclStubTensorDesc aclStubUnsqueezed(const aclStubTensorDesc *t, uint32_t dim) {
    aclStubTensorDesc v = *t;
    for (uint32_t d = t->ndim; d > dim; d--) {
        v.dims[d] = t->dims[d - 1];
        v.strides[d] = t->strides[d - 1];
    }
    v.dims[dim] = 1;
    v.strides[dim] = 1;
    v.ndim = t->ndim + 1;
    return v;
}

#ifdef __cplusplus
} /* extern "C" */
#else
#include "aclstub/op_elementwise.h"

/* An operator whose parameter table is read off its prototype ((type, name) pairs: const aclTensor * an input,
 * aclTensor * an output of any strides, numbers, arrays and scalars by their C type), with its own check and
 * kernel and a plan of PLAN_SIZE bytes (C only). */
#define ACLSTUB_OP_FROM_PROTO(NAME, CHECK, KERNEL, PLAN_SIZE, ...)                                            \
    static const aclStubParam NAME##_params_[] = {ACLSTUB_MAP_(ACLSTUB_PARAM_OF_, __VA_ARGS__)};              \
    static const aclStubOpDef NAME##_def_ = {#NAME, NAME##_params_, ACLSTUB_LEN(NAME##_params_), NULL, CHECK, \
                                             KERNEL, PLAN_SIZE};                                               \
    ACLSTUB_DEFINE_OP(NAME, NAME##_def_, __VA_ARGS__)
/* The same with parameter NULLABLE_PARAM (an array or scalar) allowed to be NULL. */
#define ACLSTUB_OP_FROM_PROTO_NULLABLE(NAME, CHECK, KERNEL, PLAN_SIZE, NULLABLE_PARAM, ...)                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")                      \
    static const aclStubParam NAME##_params_[] = {ACLSTUB_MAP_(ACLSTUB_PARAM_OF_, __VA_ARGS__),               \
                                                  [NULLABLE_PARAM].flags = ACLSTUB_NULLABLE};                  \
    _Pragma("GCC diagnostic pop")                                                                              \
    static const aclStubOpDef NAME##_def_ = {#NAME, NAME##_params_, ACLSTUB_LEN(NAME##_params_), NULL, CHECK, \
                                             KERNEL, PLAN_SIZE};                                               \
    ACLSTUB_DEFINE_OP(NAME, NAME##_def_, __VA_ARGS__)
#endif

#endif /* ACLSTUB_OP_REDUCE_H_ */
