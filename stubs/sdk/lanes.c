/*
 * Operations along one dimension (aclstub/op_reduce.h, aclStubLanesRun): every position of the other dimensions
 * is a lane; a lane of each operand is handed to the operation as contiguous values of its computation type,
 * read in place when it already is one (unit stride, same dtype), else gathered and converted into a buffer of
 * the thread computing it (and written back, converted, for outputs). Lanes run on the stub's threads, each one
 * computed whole by one thread, so results do not depend on the thread count.
 */
#include <stdlib.h>
#include <string.h>

#include "aclstub/op_reduce.h"

#define MAX_OPS ACLSTUB_LANES_MAX

typedef struct {
    const aclStubLanes *l;
    int nops, nouter;
    int64_t osize[ACLSTUB_MAX_DIMS];           /* the other dimensions of tensor 0 */
    int64_t ostride[MAX_OPS][ACLSTUB_MAX_DIMS]; /* bytes, per operand */
    char *base[MAX_OPS];
    int64_t n[MAX_OPS], step[MAX_OPS];         /* lane length and byte stride along dim */
    int64_t esize[MAX_OPS], tsize[MAX_OPS];
    bool direct[MAX_OPS];
    int failed;                                /* 1: conversion, 2: memory */
} Lanes;

/* n values of dtype st at src (byte stride ss) into dst of dtype dt (byte stride ds), through via. */
static bool convert(char *dst, int64_t ds, aclDataType dt, const char *src, int64_t ss, aclDataType st, aclDataType via,
                    int64_t n) {
    if (via == ACL_DT_UNDEFINED || via == st || via == dt) {
        if ((st == ACL_FLOAT16 || st == ACL_BF16) && dt == ACL_FLOAT && ss == 2 && ds == 4) {
            aclStubRowLoadF32((float *)(void *)dst, src, st, n);
            return true;
        }
        if (st == ACL_FLOAT && (dt == ACL_FLOAT16 || dt == ACL_BF16) && ss == 4 && ds == 2) {
            aclStubRowStoreF32(dst, (const float *)(const void *)src, dt, n);
            return true;
        }
        return aclStubCastStrided(dst, ds, dt, src, ss, st, n);
    }
    unsigned char tmp[256 * 16];
    int64_t vs = (int64_t)aclDataTypeSize(via);
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        if (!aclStubCastStrided(tmp, vs, via, src + i * ss, ss, st, m) ||
            !aclStubCastStrided(dst + i * ds, ds, dt, tmp, vs, via, m))
            return false;
    }
    return true;
}

static void lane_range(void *arg, int64_t begin, int64_t end) {
    Lanes *ls = arg;
    const aclStubLanes *l = ls->l;
    int nin = l->num_inputs;
    char *buf[MAX_OPS] = {NULL};
    for (int k = 0; k < ls->nops; k++) {
        if (ls->direct[k] || ls->n[k] == 0) continue;
        buf[k] = malloc((size_t)(ls->n[k] * ls->tsize[k]));
        if (buf[k] == NULL) {
            __atomic_store_n(&ls->failed, 2, __ATOMIC_RELAXED);
            goto done;
        }
    }
    int64_t idx[ACLSTUB_MAX_DIMS];
    int64_t rest = begin;
    for (int d = ls->nouter; d-- > 0;) {
        idx[d] = rest % ls->osize[d];
        rest /= ls->osize[d];
    }
    char *at[MAX_OPS];
    for (int k = 0; k < ls->nops; k++) {
        at[k] = ls->base[k];
        for (int d = 0; d < ls->nouter; d++) at[k] += idx[d] * ls->ostride[k][d];
    }
    for (int64_t lane = begin; lane < end; lane++) {
        void *ptr[MAX_OPS];
        for (int k = 0; k < ls->nops; k++) {
            if (ls->direct[k] || ls->n[k] == 0) {
                ptr[k] = at[k];
                continue;
            }
            ptr[k] = buf[k];
            if (k < nin && !convert(buf[k], ls->tsize[k], l->type[k], at[k], ls->step[k], l->tensor[k]->dtype,
                                    l->via[k], ls->n[k])) {
                __atomic_store_n(&ls->failed, 1, __ATOMIC_RELAXED);
                goto done;
            }
        }
        l->fn(l->ctx, ptr, ls->n, lane);
        for (int k = nin; k < ls->nops; k++) {
            if (ls->direct[k] || ls->n[k] == 0) continue;
            if (!convert(at[k], ls->step[k], l->tensor[k]->dtype, buf[k], ls->tsize[k], l->type[k], l->via[k],
                         ls->n[k])) {
                __atomic_store_n(&ls->failed, 1, __ATOMIC_RELAXED);
                goto done;
            }
        }
        /* next lane: the last other dimension first */
        for (int d = ls->nouter; d-- > 0;) {
            for (int k = 0; k < ls->nops; k++) at[k] += ls->ostride[k][d];
            if (++idx[d] < ls->osize[d]) break;
            for (int k = 0; k < ls->nops; k++) at[k] -= idx[d] * ls->ostride[k][d];
            idx[d] = 0;
        }
    }
done:
    for (int k = 0; k < ls->nops; k++) free(buf[k]);
}

aclnnStatus aclStubLanesRun(const aclStubOpCall *call, const aclStubLanes *l) {
    Lanes ls;
    memset(&ls, 0, sizeof ls);
    ls.l = l;
    ls.nops = l->num_inputs + l->num_outputs;
    if (ls.nops < 1 || ls.nops > MAX_OPS || l->fn == NULL)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "lanes: %d operands (1 to %d) and a function",
                                 ls.nops, MAX_OPS);
    const aclStubTensorDesc *t0 = l->tensor[0];
    int nd = (int)t0->ndim;
    int64_t dim = nd == 0 ? 0 : l->dim;
    if (dim < 0 || (nd > 0 && dim >= nd))
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "lanes: dim %lld of a %d-D tensor", (long long)dim, nd);
    int64_t lanes = 1;
    for (int d = 0; d < nd; d++) {
        if (d == dim) continue;
        ls.osize[ls.nouter++] = t0->dims[d];
        lanes *= t0->dims[d];
    }
    for (int k = 0; k < ls.nops; k++) {
        const aclStubTensorDesc *t = l->tensor[k];
        if (t == NULL || (int)t->ndim != nd)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "lanes: operand %d has a different rank", k);
        ls.esize[k] = (int64_t)aclDataTypeSize(t->dtype);
        ls.tsize[k] = (int64_t)aclDataTypeSize(l->type[k]);
        ls.base[k] = (char *)t->data + t->offset * ls.esize[k];
        ls.n[k] = nd ? t->dims[dim] : 1;
        ls.step[k] = nd ? t->strides[dim] * ls.esize[k] : ls.esize[k];
        int j = 0;
        for (int d = 0; d < nd; d++) {
            if (d == dim) continue;
            if (t->dims[d] != t0->dims[d])
                return aclStubKernelFail(call, ACLNN_ERR_INNER, "lanes: operand %d differs off the lane dimension", k);
            ls.ostride[k][j++] = t->strides[d] * ls.esize[k];
        }
        bool conv = t->dtype != l->type[k] || (l->via[k] != ACL_DT_UNDEFINED && l->via[k] != t->dtype);
        ls.direct[k] = !conv && (ls.n[k] <= 1 || ls.step[k] == ls.esize[k]);
        if (conv && (!aclStubCanConvert(t->dtype) || !aclStubCanConvert(l->type[k])))
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "lanes: cannot convert %s to %s",
                                     aclStubDtypeName(t->dtype), aclStubDtypeName(l->type[k]));
    }
    if (lanes == 0) return OK;
    int64_t per = ls.n[0] > 0 ? ls.n[0] : 1;
    int64_t work = per * (l->work_per_element > 0 ? l->work_per_element : 1);
    int64_t min_chunk = 32768 / work;
    aclStubParallelFor(lanes, min_chunk > 0 ? min_chunk : 1, lane_range, &ls);
    if (ls.failed == 2) return aclStubKernelOutOfMemory(call);
    if (ls.failed) return aclStubKernelFail(call, ACLNN_ERR_INNER, "lanes: element conversion failed");
    return OK;
}
