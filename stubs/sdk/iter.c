/*
 * The element iterator of the operator SDK (op_sdk.h, aclStubIterRun): broadcasting strided operands over
 * output 0's shape, dimensions merged where every operand allows it, dtypes converted a block at a time, and
 * the flattened range split over the stub's threads. The inner loop sees pointers and byte strides only.
 */
#include <stdio.h>
#include <string.h>

#include "sdk_internal.h"

#define MAX_OPS ACLSTUB_ITER_MAX_OPERANDS
#define VIA_BLOCK 256        /* elements passed through a "via" dtype at a time (16 bytes at most each) */
#define AREA_BYTES 32768     /* the stack area the converted operands of one block share */
#define MAX_BLOCK 1024       /* elements converted at a time at most (fewer when the operands are wide) */
#define PARALLEL_MIN 32768   /* elements below which one thread does the whole range */

bool aclStubBroadcastShape(const int64_t *a, uint32_t na, const int64_t *b, uint32_t nb, int64_t *out,
                           uint32_t *nout) {
    uint32_t n = na > nb ? na : nb;
    for (uint32_t i = 0; i < n; i++) {
        int64_t x = i < n - na ? 1 : a[i - (n - na)], y = i < n - nb ? 1 : b[i - (n - nb)];
        if (x != y && x != 1 && y != 1) return false;
        out[i] = x == 1 ? y : x;
    }
    *nout = n;
    return true;
}

const char *aclStubShapeText(const int64_t *dims, uint32_t n, char *buf, size_t size) {
    if (size == 0) return buf;
    size_t used = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)dims[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
    return buf;
}

typedef struct {
    int nops, nout;
    int ndim;
    int64_t shape[ACLSTUB_MAX_DIMS];
    int64_t stride[MAX_OPS][ACLSTUB_MAX_DIMS]; /* bytes */
    char *base[MAX_OPS];
    aclDataType dtype[MAX_OPS], loop[MAX_OPS], via[MAX_OPS];
    bool has_via[MAX_OPS];
    bool convert[MAX_OPS];
    bool any_convert;
    aclStubLoopFn fn;
    const void *ctx;
    unsigned char scalar[MAX_OPS][16] __attribute__((aligned(16))); /* scalar operands in their loop dtype */
    aclnnStatus status;                 /* a conversion failed (set by any thread) */
} Plan;

/* Casts n elements src -> dst, through via when has_via. */
static bool convert(char *dst, int64_t ds, aclDataType dt, const char *src, int64_t ss, aclDataType st, bool has_via,
                    aclDataType via, int64_t n) {
    if (!has_via || via == st || via == dt) return aclStubCastStrided(dst, ds, dt, src, ss, st, n);
    unsigned char tmp[VIA_BLOCK * 16];
    int64_t vs = (int64_t)aclDataTypeSize(via);
    for (int64_t i = 0; i < n; i += VIA_BLOCK) {
        int64_t m = n - i < VIA_BLOCK ? n - i : VIA_BLOCK;
        if (!aclStubCastStrided(tmp, vs, via, src + i * ss, ss, st, m) ||
            !aclStubCastStrided(dst + i * ds, ds, dt, tmp, vs, via, m))
            return false;
    }
    return true;
}

/* One contiguous run of n elements of the innermost dimension starting at the pointers p. */
static void run_segment(Plan *pl, char **p, int64_t n) {
    int64_t strides[MAX_OPS];
    if (!pl->any_convert) {
        for (int k = 0; k < pl->nops; k++) strides[k] = pl->stride[k][pl->ndim - 1];
        pl->fn(p, strides, n, pl->ctx);
        return;
    }
    /* one stack area shared by the converted operands: blocks as long as it allows, at most MAX_BLOCK */
    unsigned char area[AREA_BYTES] __attribute__((aligned(64)));
    unsigned char *buf[MAX_OPS];
    int64_t per_element = 0;
    for (int k = 0; k < pl->nops; k++)
        if (pl->convert[k]) per_element += (int64_t)aclDataTypeSize(pl->loop[k]);
    int64_t block = per_element ? AREA_BYTES / per_element : MAX_BLOCK;
    block = (block > MAX_BLOCK ? MAX_BLOCK : block) & ~(int64_t)15;
    for (int k = 0, used = 0; k < pl->nops; k++) {
        buf[k] = area + used;
        if (pl->convert[k]) used += (int)(block * (int64_t)aclDataTypeSize(pl->loop[k]));
    }
    for (int64_t i = 0; i < n; i += block) {
        int64_t m = n - i < block ? n - i : block;
        char *data[MAX_OPS];
        for (int k = 0; k < pl->nops; k++) {
            int64_t s = pl->stride[k][pl->ndim - 1];
            char *at = p[k] + i * s;
            if (!pl->convert[k]) {
                data[k] = at;
                strides[k] = s;
                continue;
            }
            int64_t ls = (int64_t)aclDataTypeSize(pl->loop[k]);
            data[k] = (char *)buf[k];
            strides[k] = ls;
            if (k >= pl->nout &&
                !convert(data[k], ls, pl->loop[k], at, s, pl->dtype[k], pl->has_via[k], pl->via[k], m))
                __atomic_store_n(&pl->status, ACLNN_ERR_INNER, __ATOMIC_RELAXED);
        }
        pl->fn(data, strides, m, pl->ctx);
        for (int k = 0; k < pl->nout; k++) {
            if (!pl->convert[k]) continue;
            int64_t ls = (int64_t)aclDataTypeSize(pl->loop[k]);
            if (!convert(p[k] + i * pl->stride[k][pl->ndim - 1], pl->stride[k][pl->ndim - 1], pl->dtype[k],
                         data[k], ls, pl->loop[k], pl->has_via[k], pl->via[k], m))
                __atomic_store_n(&pl->status, ACLNN_ERR_INNER, __ATOMIC_RELAXED);
        }
    }
}

/* Elements [begin, end) of the flattened (row-major) iteration space. */
static void run_range(void *arg, int64_t begin, int64_t end) {
    Plan *pl = arg;
    int nd = pl->ndim;
    int64_t idx[ACLSTUB_MAX_DIMS];
    char *p[MAX_OPS];
    int64_t rest = begin;
    for (int d = nd; d-- > 0;) {
        idx[d] = rest % pl->shape[d];
        rest /= pl->shape[d];
    }
    for (int k = 0; k < pl->nops; k++) {
        p[k] = pl->base[k];
        for (int d = 0; d < nd; d++) p[k] += idx[d] * pl->stride[k][d];
    }
    int64_t at = begin;
    while (at < end) {
        int64_t n = pl->shape[nd - 1] - idx[nd - 1];
        if (n > end - at) n = end - at;
        run_segment(pl, p, n);
        at += n;
        /* advance the multi-index by n along the last dimension, carrying into the outer ones */
        for (int k = 0; k < pl->nops; k++) p[k] += n * pl->stride[k][nd - 1];
        idx[nd - 1] += n;
        for (int d = nd - 1; d > 0 && idx[d] == pl->shape[d]; d--) {
            for (int k = 0; k < pl->nops; k++) p[k] += pl->stride[k][d - 1] - pl->shape[d] * pl->stride[k][d];
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

aclnnStatus aclStubIterRun(const aclStubOpCall *call, const aclStubIter *it, aclStubLoopFn fn, const void *ctx) {
    Plan pl;
    memset(&pl, 0, sizeof pl);
    pl.nout = it->num_outputs;
    pl.nops = it->num_outputs + it->num_inputs;
    if (pl.nout < 1 || pl.nops > MAX_OPS || it->tensor[0] == NULL)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "element iterator: %d outputs and %d inputs (1 to %d "
                                 "operands, output 0 a tensor)", it->num_outputs, it->num_inputs, MAX_OPS);
    const aclStubTensorDesc *out = it->tensor[0];
    if (aclStubNumel(out) == 0) return OK;
    pl.fn = fn;
    pl.ctx = ctx;
    pl.status = OK;

    /* Byte strides of every operand over the output's dimensions (0 where it broadcasts). */
    int nd = (int)out->ndim;
    for (int k = 0; k < pl.nops; k++) {
        const aclStubTensorDesc *t = it->tensor[k];
        pl.loop[k] = it->loop_dtype[k];
        pl.has_via[k] = it->has_via[k];
        pl.via[k] = it->via[k];
        if (t == NULL) {
            if (k < pl.nout)
                return aclStubKernelFail(call, ACLNN_ERR_INNER, "element iterator: output %d is not a tensor", k);
            union { /* the scalar's bytes sit at offset 4 of aclStubScalarDesc: an aligned copy for the cast */
                max_align_t align;
                unsigned char bytes[sizeof it->scalar[k].value];
            } value;
            memcpy(value.bytes, it->scalar[k].value, sizeof value.bytes);
            if (!convert((char *)pl.scalar[k], 0, pl.loop[k], (const char *)value.bytes, 0, it->scalar[k].dtype,
                         pl.has_via[k], pl.via[k], 1))
                return aclStubKernelFail(call, ACLNN_ERR_INNER, "cannot convert a %s scalar to %s",
                                         aclStubDtypeName(it->scalar[k].dtype), aclStubDtypeName(pl.loop[k]));
            pl.base[k] = (char *)pl.scalar[k];
            pl.dtype[k] = pl.loop[k];
            continue;
        }
        int64_t esize = (int64_t)aclDataTypeSize(t->dtype);
        pl.dtype[k] = t->dtype;
        pl.base[k] = (char *)t->data + t->offset * esize;
        for (int d = 0; d < nd; d++) {
            int sd = d - (nd - (int)t->ndim);
            pl.stride[k][d] = sd < 0 || (t->dims[sd] == 1 && out->dims[d] != 1) ? 0 : t->strides[sd] * esize;
        }
        pl.convert[k] = t->dtype != pl.loop[k];
        if (pl.convert[k] && (!aclStubCanConvert(t->dtype) || !aclStubCanConvert(pl.loop[k])))
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "cannot convert %s to %s", aclStubDtypeName(t->dtype),
                                     aclStubDtypeName(pl.loop[k]));
        pl.any_convert |= pl.convert[k];
    }

    /* Drop dimensions of size 1, then merge neighbours every operand steps through as one. */
    for (int d = 0; d < nd; d++) {
        if (out->dims[d] == 1) continue;
        if (pl.ndim > 0) {
            int last = pl.ndim - 1;
            bool merge = true;
            for (int k = 0; k < pl.nops && merge; k++) merge = pl.stride[k][last] == pl.stride[k][d] * out->dims[d];
            if (merge) {
                pl.shape[last] *= out->dims[d];
                for (int k = 0; k < pl.nops; k++) pl.stride[k][last] = pl.stride[k][d];
                continue;
            }
        }
        pl.shape[pl.ndim] = out->dims[d];
        for (int k = 0; k < pl.nops; k++) pl.stride[k][pl.ndim] = pl.stride[k][d];
        pl.ndim++;
    }
    if (pl.ndim == 0) { /* every dimension is 1: one element */
        pl.ndim = 1;
        pl.shape[0] = 1;
        for (int k = 0; k < pl.nops; k++) pl.stride[k][0] = 0;
    }

    int64_t total = aclStubNumel(out);
    if (total < PARALLEL_MIN)
        run_range(&pl, 0, total);
    else
        aclStubParallelFor(total, PARALLEL_MIN, run_range, &pl);
    if (pl.status != OK) return aclStubKernelFail(call, pl.status, "element conversion failed");
    return OK;
}
