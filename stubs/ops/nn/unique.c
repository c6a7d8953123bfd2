/*
 * Data-dependent outputs of ops-nn index/: Nonzero, NonzeroV2, Unique, Unique2, UniqueConsecutive and UniqueDim.
 * The caller allocates each output at its largest size; the kernel writes the result at the front and gives the
 * output tensor its real view shape (aclStubKernelSetOutputShape), which the caller reads with aclGetViewShape
 * after synchronizing, as on a device. An output too small for the result fails the kernel (ACLNN_ERR_PARAM_INVALID)
 * instead of writing past it.
 *
 * Unique values always come sorted ascending (the device's sorting kernel sorts whatever `sorted` says), -0.0
 * equals +0.0, and NaNs sort last, each its own value (torch's rule).
 */
#include <math.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_nonzero.h"
#include "aclnnop/aclnn_nonzero_v2.h"
#include "aclnnop/aclnn_unique.h"
#include "aclnnop/aclnn_unique2.h"
#include "aclnnop/aclnn_unique_consecutive.h"
#include "aclnnop/aclnn_unique_dim.h"

#define MAX_DIM 8
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID

#define NONZERO_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define UNIQUE_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define UNIQUE_CONSECUTIVE_DT (UNIQUE_DT | ACLSTUB_DT_COMPLEX)

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* ---- element keys: one int64 per element that sorts like the values -------------------------------------------------- */

static int64_t double_key(double d) {
    if (isnan(d)) d = NAN; /* one (positive, quiet) NaN: sorts after +inf */
    if (d == 0.0) d = 0.0; /* -0.0 equals +0.0 */
    int64_t b;
    memcpy(&b, &d, 8);
    return b >= 0 ? b : (b ^ INT64_MAX);
}

/* keys[i] for the n contiguous elements of dtype dt at p; nan[i] set for NaN elements (distinct from each other). */
static bool element_keys(const void *p, aclDataType dt, int64_t n, int64_t *keys, bool *nan) {
    for (int64_t i = 0; i < n; i++) {
        nan[i] = false;
        switch (dt) {
        case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: case ACL_DOUBLE: {
            double d;
            aclStubCastStrided(&d, 0, ACL_DOUBLE, (const char *)p + i * (int64_t)aclDataTypeSize(dt), 0, dt, 1);
            nan[i] = isnan(d);
            keys[i] = double_key(d);
            break;
        }
        case ACL_UINT64: {
            uint64_t u;
            memcpy(&u, (const char *)p + i * 8, 8);
            keys[i] = (int64_t)(u ^ UINT64_C(0x8000000000000000));
            break;
        }
        default:
            if (!aclStubIsIntegral(dt, true)) return false;
            aclStubCastStrided(&keys[i], 0, ACL_INT64, (const char *)p + i * (int64_t)aclDataTypeSize(dt), 0, dt, 1);
        }
    }
    return true;
}

/* ---- aclnnNonzero, aclnnNonzeroV2 ---------------------------------------------------------------------------------- */

static aclnnStatus nonzero_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(1);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, NONZERO_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, DT(ACL_INT64)));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    for (uint32_t d = 0; d < self->ndim; d++)
        if (self->dims[d] > INT32_MAX) return aclStubOpFail(call, INVALID, "a dimension of self exceeds %d", INT32_MAX);
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus nonzero_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(1);
    bool transpose = strcmp(call->op->name, "aclnnNonzeroV2") == 0; /* V2: (D, N) */
    aclStubTensorDesc x;
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_BOOL, &x)); /* "not zero" (NaN included) */
    const uint8_t *nz = (const uint8_t *)aclStubViewBase(&x);
    int64_t total = aclStubNumel(self), count = 0, d = self->ndim;
    for (int64_t i = 0; i < total; i++) count += nz[i] != 0;
    if (count * (d > 0 ? d : 1) > aclStubNumel(out))
        return aclStubKernelFail(call, INVALID, "out holds %lld elements; the %lld nonzero positions need %lld",
                                 (long long)aclStubNumel(out), (long long)count, (long long)(count * d));
    int64_t *o = (int64_t *)aclStubViewBase(out), k = 0;
    int64_t idx[ACLSTUB_MAX_DIMS] = {0};
    for (int64_t i = 0; i < total; i++) {
        if (nz[i]) {
            for (int64_t j = 0; j < d; j++) o[transpose ? j * count + k : k * d + j] = idx[j];
            k++;
        }
        for (int64_t j = d; j-- > 0;) {
            if (++idx[j] < self->dims[j]) break;
            idx[j] = 0;
        }
    }
    int64_t shape[2] = {transpose ? d : count, transpose ? count : d};
    aclStubKernelSetOutputShape(call, 1, shape, 2);
    return OK;
}

static const aclStubParam kNonzeroParams[] = {IN("self"), OUT("out")};
static const aclStubOpDef kNonzero = {"aclnnNonzero", kNonzeroParams, 2, NULL, nonzero_check, nonzero_kernel, 0};
static const aclStubOpDef kNonzeroV2 = {"aclnnNonzeroV2", kNonzeroParams, 2, NULL, nonzero_check, nonzero_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnNonzero, kNonzero, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnNonzeroV2, kNonzeroV2, (const aclTensor *, self), (aclTensor *, out))

/* ---- unique over slices of a (outer, n, inner) block: n slices of `outer x inner` elements along the middle --------- */

typedef struct {
    int64_t outer, n, inner; /* the unique'd dimension is n; flat: outer = inner = 1 */
    bool sort, counts, inverse, flat;
    int value, inverse_out, counts_out; /* parameter indices */
    int dim;                            /* the unique'd dimension of self (not flat) */
} UniquePlan;

/* Order of the n slices (stable, lexicographic over each slice's elements in (outer, inner) order). */
typedef struct {
    const int64_t *keys; /* (outer, n, inner) */
    const bool *nan;
    int64_t outer, n, inner;
    const char *raw; /* complex elements: equality of their bytes (they are never sorted) */
    size_t es;
} SliceSet;

static int slice_cmp(const SliceSet *s, int64_t a, int64_t b) {
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < s->inner; i++) {
            int64_t ka = s->keys[(o * s->n + a) * s->inner + i], kb = s->keys[(o * s->n + b) * s->inner + i];
            if (ka != kb) return ka < kb ? -1 : 1;
        }
    return 0;
}

static bool slice_equal(const SliceSet *s, int64_t a, int64_t b) {
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < s->inner; i++) {
            int64_t ia = (o * s->n + a) * s->inner + i, ib = (o * s->n + b) * s->inner + i;
            if (s->nan[ia] || s->nan[ib]) return false;
            if (s->raw ? memcmp(s->raw + ia * (int64_t)s->es, s->raw + ib * (int64_t)s->es, s->es) != 0
                       : s->keys[ia] != s->keys[ib])
                return false;
        }
    return true;
}

/* Stable merge sort of order[0 .. n) by slice_cmp (tmp: n entries). */
static void slice_sort(const SliceSet *s, int64_t *order, int64_t *tmp, int64_t n) {
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = slice_cmp(s, order[j], order[i]) < 0 ? order[j++] : order[i++];
            while (i < mid) tmp[k++] = order[i++];
            while (j < hi) tmp[k++] = order[j++];
        }
        memcpy(order, tmp, (size_t)n * sizeof *order);
    }
}

static aclnnStatus unique_kernel(const aclStubOpCall *call) {
    const UniquePlan *plan = call->plan;
    const aclStubTensorDesc *self = T(0), *vout = T(plan->value);
    aclStubTensorDesc x;
    ACLSTUB_TRY(aclStubContiguousIn(call, self, ACL_DT_UNDEFINED, &x));
    int64_t total = aclStubNumel(self), n = plan->n, slice = plan->outer * plan->inner;
    size_t es = aclDataTypeSize(self->dtype);
    int64_t *keys = aclStubKernelScratch(call, (size_t)total * sizeof(int64_t));
    bool *nan = aclStubKernelScratch(call, (size_t)total);
    int64_t *order = aclStubKernelScratch(call, (size_t)n * 3 * sizeof(int64_t));
    if (!keys || !nan || !order) return aclStubKernelOutOfMemory(call);
    int64_t *tmp = order + n, *group = order + 2 * n;
    const char *data = aclStubViewBase(&x);
    if (aclStubIsComplex(self->dtype)) { /* unique_consecutive only: equality of the raw parts */
        for (int64_t i = 0; i < total; i++) {
            double re = aclStubScalarToDouble(self->dtype, data + i * (int64_t)es), im = aclStubScalarImag(self->dtype, data + i * (int64_t)es);
            keys[i] = 0;
            nan[i] = isnan(re) || isnan(im);
        }
    } else if (!element_keys(data, self->dtype, total, keys, nan)) {
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "unique: no keys for data type %s", aclStubDtypeName(self->dtype));
    }
    SliceSet s = {keys, nan, plan->outer, n, plan->inner, aclStubIsComplex(self->dtype) ? data : NULL, es};
    for (int64_t i = 0; i < n; i++) order[i] = i;
    if (plan->sort) slice_sort(&s, order, tmp, n);
    /* groups of equal neighbours in `order` */
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) {
            if (!slice_equal(&s, order[i], order[i - 1])) k++;
        }
        group[i] = k;
    }
    int64_t groups = n > 0 ? k + 1 : 0;
    if (groups * slice > aclStubNumel(vout))
        return aclStubKernelFail(call, INVALID, "valueOut holds %lld elements; the %lld unique values need %lld",
                                 (long long)aclStubNumel(vout), (long long)groups, (long long)(groups * slice));
    /* values: the first slice of each group, written as (outer, groups, inner) */
    char *vo = aclStubViewBase(vout);
    int64_t *counts = tmp; /* reused: per group */
    memset(counts, 0, (size_t)(groups > 0 ? groups : 1) * sizeof *counts);
    for (int64_t i = 0; i < n; i++) {
        int64_t g = group[i];
        if (counts[g]++ == 0)
            for (int64_t o = 0; o < plan->outer; o++)
                memcpy(vo + (o * groups + g) * plan->inner * (int64_t)es, data + (o * n + order[i]) * plan->inner * (int64_t)es,
                       (size_t)plan->inner * es);
    }
    int64_t vshape[ACLSTUB_MAX_DIMS];
    uint32_t vnd = 1;
    if (plan->flat) {
        vshape[0] = groups;
    } else {
        vnd = self->ndim;
        memcpy(vshape, self->dims, vnd * sizeof vshape[0]);
        vshape[plan->dim] = groups;
    }
    aclStubKernelSetOutputShape(call, plan->value, vshape, vnd);
    if (plan->inverse && plan->inverse_out >= 0 && T(plan->inverse_out)) {
        const aclStubTensorDesc *inv = T(plan->inverse_out);
        if (aclStubNumel(inv) < n) return aclStubKernelFail(call, INVALID, "inverseOut holds fewer than %lld elements", (long long)n);
        int64_t *io = (int64_t *)aclStubViewBase(inv);
        for (int64_t i = 0; i < n; i++) io[order[i]] = group[i];
    }
    if (plan->counts && plan->counts_out >= 0 && T(plan->counts_out)) {
        const aclStubTensorDesc *c = T(plan->counts_out);
        if (aclStubNumel(c) < groups) return aclStubKernelFail(call, INVALID, "countsOut holds fewer than %lld elements", (long long)groups);
        memcpy(aclStubViewBase(c), counts, (size_t)groups * sizeof(int64_t));
        aclStubKernelSetOutputShape(call, plan->counts_out, &groups, 1);
    }
    return OK;
}

/* Output rules every unique shares: int64 index outputs, contiguous outputs (the device writes them raw). */
static aclnnStatus unique_outputs(aclStubOpCall *call, int value, int inverse, int counts) {
    if (inverse >= 0) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "inverseOut", T(inverse), DT(ACL_INT64)));
    if (counts >= 0) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "countsOut", T(counts), DT(ACL_INT64)));
    int outs[3] = {value, inverse, counts};
    for (int k = 0; k < 3; k++)
        if (outs[k] >= 0 && !aclStubViewIsContiguous(T(outs[k])))
            return aclStubOpFail(call, INVALID, "output '%s' must be contiguous", aclStubOpName(call, outs[k]));
    return OK;
}

enum { U_SELF, U_SORTED, U_INVERSE, U_VALUE, U_INVERSE_OUT };

static aclnnStatus unique_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(U_SELF);
    bool inverse = call->v[U_INVERSE].b;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, UNIQUE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "inverseOut", T(U_INVERSE_OUT), DT(ACL_INT64)));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (inverse) ACLSTUB_TRY(aclStubCheckShapeIs(call, "inverseOut", T(U_INVERSE_OUT), self->dims, self->ndim));
    if (aclStubNumel(self) == 0) return nothing(call);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "valueOut", T(U_VALUE), "self", self));
    ACLSTUB_TRY(unique_outputs(call, U_VALUE, U_INVERSE_OUT, -1));
    *(UniquePlan *)call->plan = (UniquePlan){1, aclStubNumel(self), 1, true, false, inverse, true, U_VALUE,
                                             U_INVERSE_OUT, -1, -1};
    return OK;
}

static const aclStubParam kUniqueParams[] = {IN("self"), ATTR("sorted", ACLSTUB_BOOL), ATTR("returnInverse", ACLSTUB_BOOL),
                                             OUT("valueOut"), OUT("inverseOut")};
static const aclStubOpDef kUnique = {"aclnnUnique", kUniqueParams, 5, NULL, unique_check, unique_kernel, sizeof(UniquePlan)};
ACLSTUB_DEFINE_OP(aclnnUnique, kUnique, (const aclTensor *, self), (bool, sorted), (bool, returnInverse),
                  (aclTensor *, valueOut), (aclTensor *, inverseOut))

enum { U2_SELF, U2_SORTED, U2_INVERSE, U2_COUNTS, U2_VALUE, U2_INVERSE_OUT, U2_COUNTS_OUT };

static aclnnStatus unique2_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(U2_SELF);
    bool inverse = call->v[U2_INVERSE].b, counts = call->v[U2_COUNTS].b;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, UNIQUE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "inverseOut", T(U2_INVERSE_OUT), DT(ACL_INT64)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "countsOut", T(U2_COUNTS_OUT), DT(ACL_INT64)));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    if (inverse || counts) ACLSTUB_TRY(aclStubCheckShapeIs(call, "inverseOut", T(U2_INVERSE_OUT), self->dims, self->ndim));
    if (counts) ACLSTUB_TRY(aclStubCheckShapeIs(call, "countsOut", T(U2_COUNTS_OUT), T(U2_VALUE)->dims, T(U2_VALUE)->ndim));
    if (aclStubNumel(self) == 0) return nothing(call);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "valueOut", T(U2_VALUE), "self", self));
    ACLSTUB_TRY(unique_outputs(call, U2_VALUE, U2_INVERSE_OUT, U2_COUNTS_OUT));
    *(UniquePlan *)call->plan = (UniquePlan){1, aclStubNumel(self), 1, true, counts, inverse, true, U2_VALUE,
                                             U2_INVERSE_OUT, U2_COUNTS_OUT, -1};
    return OK;
}

static const aclStubParam kUnique2Params[] = {IN("self"), ATTR("sorted", ACLSTUB_BOOL), ATTR("returnInverse", ACLSTUB_BOOL),
                                              ATTR("returnCounts", ACLSTUB_BOOL), OUT("valueOut"), OUT("inverseOut"),
                                              OUT("countsOut")};
static const aclStubOpDef kUnique2 = {"aclnnUnique2", kUnique2Params, 7, NULL, unique2_check, unique_kernel,
                                      sizeof(UniquePlan)};
ACLSTUB_DEFINE_OP(aclnnUnique2, kUnique2, (const aclTensor *, self), (bool, sorted), (bool, returnInverse),
                  (bool, returnCounts), (aclTensor *, valueOut), (aclTensor *, inverseOut), (aclTensor *, countsOut))

#define NONE_DIM 1000 /* UniqueConsecutive's "no dim": the flattened tensor */

enum { UC_SELF, UC_INVERSE, UC_COUNTS, UC_DIM, UC_VALUE, UC_INVERSE_OUT, UC_COUNTS_OUT };

static aclnnStatus unique_consecutive_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(UC_SELF);
    int64_t dim = call->v[UC_DIM].i;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, UNIQUE_CONSECUTIVE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "valueOut", T(UC_VALUE), UNIQUE_CONSECUTIVE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "valueOut", T(UC_VALUE), "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "inverseOut", T(UC_INVERSE_OUT), DT(ACL_INT64) | DT(ACL_INT32)));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "countsOut", T(UC_COUNTS_OUT), "inverseOut", T(UC_INVERSE_OUT)));
    if (dim != NONE_DIM && !aclStubWrapDim(&dim, self->ndim))
        return aclStubOpFail(call, INVALID, "dim %lld is out of range (1000 for none)", (long long)call->v[UC_DIM].i);
    if (aclStubNumel(self) == 0) return nothing(call);
    ACLSTUB_TRY(unique_outputs(call, UC_VALUE, -1, -1));
    if (T(UC_INVERSE_OUT)->dtype != ACL_INT64)
        return aclStubOpFail(call, INVALID, "this version writes int64 indices only");
    UniquePlan *plan = call->plan;
    bool flat = dim == NONE_DIM;
    *plan = (UniquePlan){flat ? 1 : aclStubDimProduct(self->dims, 0, dim), flat ? aclStubNumel(self) : self->dims[dim],
                         flat ? 1 : aclStubDimProduct(self->dims, dim + 1, self->ndim), false, call->v[UC_COUNTS].b,
                         call->v[UC_INVERSE].b, flat, UC_VALUE, UC_INVERSE_OUT, UC_COUNTS_OUT, flat ? -1 : (int)dim};
    return OK;
}

static const aclStubParam kUniqueConsecutiveParams[] = {IN("self"), ATTR("returnInverse", ACLSTUB_BOOL),
                                                        ATTR("returnCounts", ACLSTUB_BOOL), ATTR("dim", ACLSTUB_INT),
                                                        OUT("valueOut"), OUT("inverseOut"), OUT("countsOut")};
static const aclStubOpDef kUniqueConsecutive = {"aclnnUniqueConsecutive", kUniqueConsecutiveParams, 7, NULL,
                                                unique_consecutive_check, unique_kernel, sizeof(UniquePlan)};
ACLSTUB_DEFINE_OP(aclnnUniqueConsecutive, kUniqueConsecutive, (const aclTensor *, self), (bool, returnInverse),
                  (bool, returnCounts), (int64_t, dim), (aclTensor *, valueOut), (aclTensor *, inverseOut),
                  (aclTensor *, countsOut))

enum { UD_SELF, UD_SORTED, UD_INVERSE, UD_DIM, UD_VALUE, UD_INVERSE_OUT, UD_COUNTS_OUT };

static aclnnStatus unique_dim_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(UD_SELF);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, UNIQUE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "inverseOut", T(UD_INVERSE_OUT), DT(ACL_INT64)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "countsOut", T(UD_COUNTS_OUT), DT(ACL_INT64)));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "valueOut", T(UD_VALUE), "self", self));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t n = self->ndim, dim = call->v[UD_DIM].i;
    int64_t hi = n - 1 > -n ? n - 1 : -n, lo = n - 1 < -n ? n - 1 : -n;
    if (dim > hi || dim < lo) return aclStubOpFail(call, INVALID, "dim must be in [%lld, %lld], got %lld", (long long)lo,
                                                   (long long)hi, (long long)dim);
    if (aclStubNumel(self) == 0) return nothing(call);
    if (dim < 0) dim += n;
    ACLSTUB_TRY(unique_outputs(call, UD_VALUE, UD_INVERSE_OUT, UD_COUNTS_OUT));
    *(UniquePlan *)call->plan = (UniquePlan){aclStubDimProduct(self->dims, 0, dim), self->dims[dim],
                                             aclStubDimProduct(self->dims, dim + 1, n), true, true,
                                             call->v[UD_INVERSE].b, false, UD_VALUE, UD_INVERSE_OUT, UD_COUNTS_OUT,
                                             (int)dim};
    return OK;
}

static const aclStubParam kUniqueDimParams[] = {IN("self"), ATTR("sorted", ACLSTUB_BOOL),
                                                ATTR("returnInverse", ACLSTUB_BOOL), ATTR("dim", ACLSTUB_INT),
                                                OUT("valueOut"), OUT("inverseOut"), OUT("countsOut")};
static const aclStubOpDef kUniqueDim = {"aclnnUniqueDim", kUniqueDimParams, 7, NULL, unique_dim_check, unique_kernel,
                                        sizeof(UniquePlan)};
ACLSTUB_DEFINE_OP(aclnnUniqueDim, kUniqueDim, (const aclTensor *, self), (bool, sorted), (bool, returnInverse),
                  (int64_t, dim), (aclTensor *, valueOut), (aclTensor *, inverseOut), (aclTensor *, countsOut))
