/*
 * aclnnCoalesceSparse of ops-math conversion/coalesce_sparse (a generated API, no document: its README and the
 * operator's definition give the semantics): the second half of a COO tensor's coalesce. For each of the n entries
 * (indices [n, m], values [n, ...]) with its slot u = uniqueIndices[i]:
 *   newIndices[u, :] = indices[i, :]      newValues[u, ...] += values[i, ...]
 * newValues is accumulated into as it is (the README: the caller zeroes it first). Additions are in values' dtype,
 * one at a time in increasing i (the device adds atomically in its own order); INT32 wraps. uniqueLen is not read
 * (the kernel takes the slots from uniqueIndices). The definition's dtype rows: uniqueLen and uniqueIndices one of
 * INT32/INT64, indices INT32/INT64, values FLOAT/FLOAT16/INT32, each output its input's dtype. The tiling checks
 * no shapes: shapes that do not fit together, or a slot outside the outputs, fail the launch (ACLNN_ERR_PARAM_INVALID;
 * an index-out-of-range finding in check mode).
 */
#include <string.h>

#include "aclnnop/aclnn_coalesce_sparse.h"
#include "aclstub/op_index.h"
#include "aclstub/op_reduce.h"

#define DT ACLSTUB_DT
#define IDX (DT(ACL_INT32) | DT(ACL_INT64))
#define VALS (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_INT32))
#define T(i) (call->v[i].tensor)

enum { CS_LEN, CS_UNIQUE, CS_INDICES, CS_VALUES, CS_NEW_INDICES, CS_NEW_VALUES };
static const aclStubParam kCoalesceParams[] = {
    [CS_LEN] = {"uniqueLen", ACLSTUB_INPUT, IDX},
    [CS_UNIQUE] = {"uniqueIndices", ACLSTUB_INPUT, IDX},
    [CS_INDICES] = {"indices", ACLSTUB_INPUT, IDX},
    [CS_VALUES] = {"values", ACLSTUB_INPUT, VALS},
    [CS_NEW_INDICES] = {"newIndices", ACLSTUB_OUTPUT, IDX, NULL, ACLSTUB_ANY_LAYOUT},
    [CS_NEW_VALUES] = {"newValues", ACLSTUB_INPLACE, VALS, NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus coalesce_check(aclStubOpCall *call) {
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, CS_UNIQUE, T(CS_LEN)->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, CS_NEW_INDICES, T(CS_INDICES)->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, CS_NEW_VALUES, T(CS_VALUES)->dtype));
    if (T(CS_INDICES)->ndim == 2 && T(CS_INDICES)->dims[0] == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static int64_t rows_of(const aclStubTensorDesc *t) { return t->ndim ? t->dims[0] : 1; }

static aclnnStatus coalesce_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *ix = T(CS_INDICES), *v = T(CS_VALUES), *ni = T(CS_NEW_INDICES), *nv = T(CS_NEW_VALUES);
    const aclStubTensorDesc *u = T(CS_UNIQUE);
    int64_t n = ix->ndim == 2 ? ix->dims[0] : -1, m = ix->ndim == 2 ? ix->dims[1] : 0;
    int64_t vs = rows_of(v) ? aclStubNumel(v) / rows_of(v) : 0;
    int64_t out_rows = rows_of(ni) < rows_of(nv) ? rows_of(ni) : rows_of(nv);
    bool fits = n >= 0 && u->ndim == 1 && u->dims[0] >= n && rows_of(v) >= n && ni->ndim == 2 && ni->dims[1] == m &&
                (rows_of(nv) ? aclStubNumel(nv) / rows_of(nv) : 0) == vs;
    if (!fits)
        return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID, "indices must be [n, m], uniqueIndices 1-D with at "
                                 "least n entries, values [n, ...], newIndices [rows, m] and newValues [rows, ...] with values' "
                                 "trailing shape");
    const int64_t *slot;
    aclStubTensorDesc u1 = *u;
    aclStubViewNarrow(&u1, 0, 0, n); /* the first n slots */
    ACLSTUB_TRY(aclStubIndexLoad(call, &u1, out_rows, false, "uniqueIndices", &slot));
    aclStubTensorDesc src_i, src_v, dst_i, dst_v;
    ACLSTUB_TRY(aclStubContiguousIn(call, ix, ACL_DT_UNDEFINED, &src_i));
    ACLSTUB_TRY(aclStubContiguousIn(call, v, ACL_DT_UNDEFINED, &src_v));
    ACLSTUB_TRY(aclStubOutputBegin(call, ni, ACL_DT_UNDEFINED, true, &dst_i));
    ACLSTUB_TRY(aclStubOutputBegin(call, nv, ACL_DT_UNDEFINED, true, &dst_v));
    size_t is = aclDataTypeSize(ix->dtype);
    const char *pi = aclStubViewBase(&src_i), *pv = aclStubViewBase(&src_v);
    char *qi = aclStubViewBase(&dst_i), *qv = aclStubViewBase(&dst_v);
    for (int64_t i = 0; i < n; i++) {
        int64_t s = slot[i];
        memcpy(qi + (size_t)(s * m) * is, pi + (size_t)(i * m) * is, (size_t)m * is);
        for (int64_t k = 0; k < vs; k++) {
            int64_t a = s * vs + k, b = i * vs + k;
            switch (v->dtype) {
            case ACL_INT32:
                ((int32_t *)(void *)qv)[a] = (int32_t)((uint32_t)((int32_t *)(void *)qv)[a] +
                                                       (uint32_t)((const int32_t *)(const void *)pv)[b]);
                break;
            case ACL_FLOAT: ((float *)(void *)qv)[a] += ((const float *)(const void *)pv)[b]; break;
            default: { /* FLOAT16: each addition rounded to FLOAT16 */
                uint16_t *q = (uint16_t *)(void *)qv + a;
                *q = aclStubF32ToF16(aclStubF16ToF32(*q) + aclStubF16ToF32(((const uint16_t *)(const void *)pv)[b]));
            }
            }
        }
    }
    ACLSTUB_TRY(aclStubOutputEnd(call, ni, &dst_i));
    return aclStubOutputEnd(call, nv, &dst_v);
}

static const aclStubOpDef kCoalesce = {"aclnnCoalesceSparse", kCoalesceParams, ACLSTUB_LEN(kCoalesceParams), NULL,
                                       coalesce_check, coalesce_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnCoalesceSparse, kCoalesce, (const aclTensor *, uniqueLen), (const aclTensor *, uniqueIndices),
                  (const aclTensor *, indices), (const aclTensor *, values), (const aclTensor *, newIndices),
                  (const aclTensor *, newValues))
