/*
 * aclnnInverse of ops-nn index/matrix_inverse: the inverse of each square matrix of a batch, on the LAPACK of the
 * linear algebra engine (aclstub/op_linalg.h; getrf then getri in float64 or complex128, one matrix per call on the
 * stub's threads). As the op_api builds it: FLOAT16 is cast to FLOAT first, the kernel's result (FLOAT, DOUBLE,
 * COMPLEX64 or COMPLEX128) is rounded once to its dtype and cast to out's dtype. A singular matrix (an exact zero
 * pivot; the docs give no result) gives a matrix of NaNs (complex: NaN real and imaginary parts).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_inverse.h"
#include "aclstub/op_linalg.h"
#include "aclstub/op_reduce.h"

#define DT ACLSTUB_DT
#define INV_DT (DT(ACL_FLOAT) | DT(ACL_DOUBLE) | DT(ACL_COMPLEX64) | DT(ACL_COMPLEX128) | DT(ACL_FLOAT16))

enum { P_SELF, P_OUT };
static const aclStubParam params[] = {
    [P_SELF] = {"self", ACLSTUB_INPUT, 0},
    [P_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, P_SELF), *out = aclStubOpTensor(call, P_OUT);
    char a[160], b[160];
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, P_SELF, INV_DT));
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(x->dtype, out->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "Result type %s can't be cast to the desired output type %s", aclStubDtypeName(x->dtype),
                            aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, out->dims, out->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "Expected out's shape %s to be equal to self's %s",
                            aclStubShapeText(out->dims, out->ndim, a, sizeof a),
                            aclStubShapeText(x->dims, x->ndim, b, sizeof b));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, P_SELF, 8));
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2, call, ACLNN_ERR_PARAM_INVALID,
                            "self must have at least 2 dimensions, got %u", x->ndim);
    int64_t n = x->dims[x->ndim - 1], m = x->dims[x->ndim - 2];
    ACLSTUB_RETURN_ERROR_IF(n != m, call, ACLNN_ERR_PARAM_INVALID,
                            "The input tensor must be batches of square matrices, but they are %lld by %lld matrices",
                            (long long)n, (long long)m);
    ACLSTUB_RETURN_ERROR_IF(n > INT32_MAX / 4, call, ACLNN_ERR_PARAM_INVALID, "matrices of order %lld are too large",
                            (long long)n);
    return OK;
}

typedef struct {
    const aclStubOpCall *call;
    atomic_int failed;
} Batch;

static void items(void *ctx, int64_t begin, int64_t end) {
    Batch *b = ctx;
    const aclStubTensorDesc *x = aclStubOpTensor(b->call, P_SELF), *out = aclStubOpTensor(b->call, P_OUT);
    int nb = (int)x->ndim - 2;
    int64_t n = x->dims[x->ndim - 1];
    bool cplx = x->dtype == ACL_COMPLEX64 || x->dtype == ACL_COMPLEX128;
    int w = cplx ? 2 : 1;
    aclDataType via = x->dtype == ACL_FLOAT16 ? ACL_FLOAT : x->dtype;
    double *a = malloc(sizeof(double) * (size_t)(n * n * w));
    if (a == NULL) {
        atomic_store(&b->failed, 1);
        return;
    }
    for (int64_t item = begin; item < end; item++) {
        int64_t rs, cs;
        const void *p = aclStubLinalgMatrix(x, 2, nb, x->dims, item, &rs, &cs);
        aclStubLinalgLoad(a, n, cplx, p, x->dtype, rs, cs, n, n);
        int info = aclStubLapackInverse(cplx, n, a, n);
        if (info == -1000) {
            atomic_store(&b->failed, 1);
            break;
        }
        if (info != 0)
            for (int64_t i = 0; i < n * n * w; i++) a[i] = NAN;
        void *q = aclStubLinalgMatrix(out, 2, nb, x->dims, item, &rs, &cs);
        aclStubLinalgStore(q, out->dtype, rs, cs, a, n, cplx, via, n, n);
    }
    free(a);
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    ACLSTUB_TRY(aclStubLinalgReady(call)); /* loads the LAPACK, or fails with the reason it cannot be loaded */
    const aclStubTensorDesc *x = aclStubOpTensor(call, P_SELF);
    int64_t count = 1;
    for (uint32_t d = 0; d + 2 < x->ndim; d++) count *= x->dims[d];
    Batch b = {call, 0};
    atomic_init(&b.failed, 0);
    aclStubParallelFor(count, 1, items, &b);
    return atomic_load(&b.failed) ? aclStubKernelOutOfMemory(call) : OK;
}

static const aclStubOpDef kInverse = {"aclnnInverse", params, ACLSTUB_LEN(params), NULL, check, kernel, 0};
ACLSTUB_DEFINE_OP(aclnnInverse, kInverse, (const aclTensor *, self), (aclTensor *, out))
