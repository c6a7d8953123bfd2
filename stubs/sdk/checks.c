/* The generic argument rules of the operator SDK and the messages they record. */
#include <stdio.h>
#include <string.h>

#include "aclstub/op_nz.h"
#include "sdk_internal.h"

aclnnStatus sdk_fail(aclnnStatus status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    aclStubSetErrMsgV(fmt, ap);
    va_end(ap);
    return status;
}

aclnnStatus aclStubCallFail(const aclStubOpCall *call, int in_kernel, aclnnStatus status, const char *fmt, ...) {
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    aclStubSetErrMsg("%s%s: %s", call->op->name, in_kernel ? "" : "GetWorkspaceSize", text);
    return status;
}

bool sdk_format_is_nd_like(aclFormat f) {
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_NCDHW ||
           f == ACL_FORMAT_NCL;
}

static aclnnStatus check_dtype(const aclStubOpCall *call, int i) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    uint64_t dtypes = call->op->params[i].dtypes;
    if (dtypes == 0) return OK;
    if ((unsigned)t->dtype >= 64 || !(dtypes & ACLSTUB_DT(t->dtype))) {
        char allowed[256] = "";
        for (int d = 0; d < 64; d++) {
            if (dtypes & ACLSTUB_DT(d)) {
                strncat(allowed, allowed[0] ? ", " : "", sizeof allowed - strlen(allowed) - 1);
                strncat(allowed, aclStubDtypeName((aclDataType)d), sizeof allowed - strlen(allowed) - 1);
            }
        }
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s (%d); supported: %s",
                             aclStubOpName(call, i), aclStubDtypeName(t->dtype), (int)t->dtype, allowed);
    }
    if (!sdk_format_is_nd_like(t->format) &&
        !((call->op->params[i].flags & ACLSTUB_NZ_INPUT) && aclStubIsNzFormat(t->format)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has format %d; only ND (or NCHW, NHWC, "
                             "NCDHW, NCL) is supported", aclStubOpName(call, i), (int)t->format);
    return OK;
}

static int param_index(const aclStubOpDef *op, const char *name) {
    for (size_t i = 0; i < op->num_params; i++)
        if (strcmp(op->params[i].name, name) == 0) return (int)i;
    return -1;
}

static aclnnStatus check_same_dtype(const aclStubOpCall *call, int i) {
    const char *ref_name = call->op->params[i].same_dtype_as;
    if (ref_name == NULL) return OK;
    int r = param_index(call->op, ref_name); /* validated with the table */
    const aclStubTensorDesc *t = call->v[i].tensor, *ref = r >= 0 ? call->v[r].tensor : NULL;
    if (ref == NULL || t->dtype == ref->dtype) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s but must match '%s' (%s)",
                         aclStubOpName(call, i), aclStubDtypeName(t->dtype), ref_name, aclStubDtypeName(ref->dtype));
}

static aclnnStatus check_contiguous(const aclStubOpCall *call, int i) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (aclStubNumel(t) == 0) return OK;
    int64_t expect = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != expect)
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "output '%s' is not contiguous (dimension %u has "
                                 "stride %lld, row-major needs %lld); non-contiguous outputs are not supported",
                                 aclStubOpName(call, i), d, (long long)t->strides[d], (long long)expect);
        if (__builtin_mul_overflow(expect, t->dims[d], &expect)) break; /* larger than any buffer anyway */
    }
    return OK;
}

static bool is_output(aclStubRole role) { return sdk_role_writes(role) && role != ACLSTUB_OUTPUT_LIST; }

aclnnStatus sdk_check_dtypes(const aclStubOpCall *call, int i) {
    if (call->v[i].tensor == NULL) return OK;
    ACLSTUB_TRY(check_dtype(call, i));
    return check_same_dtype(call, i);
}

aclnnStatus sdk_check_layout(const aclStubOpCall *call, int i) {
    const aclStubParam *p = &call->op->params[i];
    if (call->v[i].tensor == NULL || !is_output(p->role) || (p->flags & ACLSTUB_ANY_LAYOUT)) return OK;
    return check_contiguous(call, i);
}

aclnnStatus sdk_check_rank(const aclStubOpCall *call, int i) {
    const aclStubParam *p = &call->op->params[i];
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (t == NULL || p->max_rank == 0 || (t->ndim >= p->min_rank && t->ndim <= p->max_rank)) return OK;
    if (p->min_rank == p->max_rank)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' must be %u-D, got %u-D", p->name,
                             p->min_rank, t->ndim);
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' must have %u to %u dimensions, got %u",
                         p->name, p->min_rank, p->max_rank, t->ndim);
}

aclnnStatus aclStubOpCheckTensor(const aclStubOpCall *call, int i) {
    ACLSTUB_TRY(sdk_check_dtypes(call, i));
    return sdk_check_layout(call, i);
}

aclnnStatus aclStubOpCheckDimsNonNegative(const aclStubOpCall *call, int i, aclnnStatus status) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    if (t == NULL) return OK;
    for (uint32_t d = 0; d < t->ndim; d++)
        if (t->dims[d] < 0)
            return aclStubOpFail(call, status, "argument '%s' has a negative dimension (%lld at %u)",
                                 aclStubOpName(call, i), (long long)t->dims[d], d);
    return OK;
}

bool sdk_view_byte_range(const aclStubTensorDesc *t, int64_t *lo, int64_t *hi) {
    if (aclStubIsNzFormat(t->format)) return sdk_nz_byte_range(t, lo, hi);
    int64_t esize = (int64_t)aclDataTypeSize(t->dtype);
    int64_t min_e = t->offset, max_e = t->offset;
    for (uint32_t i = 0; i < t->ndim; i++) {
        int64_t span; /* dims are >= 1 in a non-empty view, so dims - 1 cannot overflow */
        if (__builtin_mul_overflow(t->dims[i] - 1, t->strides[i], &span)) return false;
        if (__builtin_add_overflow(span < 0 ? min_e : max_e, span, span < 0 ? &min_e : &max_e)) return false;
    }
    if (t->dtype == ACL_INT4) { /* two elements to a byte */
        *lo = min_e >= 0 ? min_e / 2 : -((1 - min_e) / 2);
        *hi = max_e / 2 + 1;
        return true;
    }
    if (__builtin_mul_overflow(min_e, esize, lo)) return false;
    if (__builtin_add_overflow(max_e, 1, &max_e) || __builtin_mul_overflow(max_e, esize, hi)) return false;
    return true;
}
