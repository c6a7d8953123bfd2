/* Phase 2 of every SDK operator: the two-phase rules (abi.md 4.6), the re-check of every recorded handle,
 * and the kernel queued on the stream with a work item that owns everything it reads. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "meta_internal.h"
#include "aclstub/op_nz.h"
#include "sdk_internal.h"

static bool same_description(const aclStubTensorDesc *a, const aclStubTensorDesc *b) {
    return a->dtype == b->dtype && a->format == b->format && a->ndim == b->ndim && a->offset == b->offset &&
           memcmp(a->dims, b->dims, a->ndim * sizeof a->dims[0]) == 0 &&
           memcmp(a->strides, b->strides, a->ndim * sizeof a->strides[0]) == 0;
}

/* The tensor behind token, as phase 1 saw it but with today's data pointer; its bytes inside one device block. */
aclnnStatus sdk_recheck_tensor(const char *op, const char *name, const void *token, aclStubTensorDesc *desc) {
    aclStubTensorDesc now;
    if (aclStubTensorDescribe(token, &now) != 1) {
        if (CHECK_ON(CHECK_MEM))
            aclStubCheckReport(CHECK_MEM, "tensor-destroyed-before-run", op, "tensor '%s' (%p) was destroyed after "
                               "%sGetWorkspaceSize and before %s", name, token, op, op);
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor '%s' (%p) was destroyed after %sGetWorkspaceSize", op,
                        name, token, op);
    }
    if (!same_description(&now, desc))
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor '%s' was changed after %sGetWorkspaceSize (shape, "
                        "strides, offset, data type or format)", op, name, op);
    desc->data = now.data; /* the one thing a caller may change between the phases */
    if (aclStubNumel(desc) == 0) return OK;
    if (desc->data == NULL)
        return sdk_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: tensor '%s' is not empty but its data pointer is NULL", op, name);
    size_t esize = aclDataTypeSize(desc->dtype);
    if (esize > 1 && esize <= 16 && (uintptr_t)desc->data % esize != 0)
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor '%s' data pointer %p is not aligned to its %zu-byte "
                        "elements", op, name, desc->data, esize);
    int64_t lo = 0, hi = 0;
    uintptr_t data = (uintptr_t)desc->data;
    bool ok = sdk_view_byte_range(desc, &lo, &hi);
    /* The first byte must not wrap below address 0 or past the top of the address space. */
    ok = ok && (lo >= 0 ? (uint64_t)lo <= UINTPTR_MAX - data : (uint64_t)0 - (uint64_t)lo <= data);
    if (!ok || !aclStubIsDeviceSpan((const char *)(data + (uintptr_t)lo), (size_t)((uint64_t)hi - (uint64_t)lo))) {
        if (ok && CHECK_ON(CHECK_MEM))
            aclStubCheckBadSpan(op, name, (const char *)(data + (uintptr_t)lo), (size_t)((uint64_t)hi - (uint64_t)lo));
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor '%s' addresses bytes [%p%+lld, %p%+lld) that are not "
                        "inside one aclrtMalloc block (host memory, freed memory, or a view larger than its buffer)",
                        op, name, desc->data, (long long)lo, desc->data, (long long)hi);
    }
    return OK;
}

static aclnnStatus recheck(aclOpExecutor *w) {
    const aclStubOpDef *op = w->op;
    for (size_t i = 0; i < op->num_params; i++) {
        const void *h = w->handles[i];
        aclStubValue *v = &w->values[i];
        const char *name = op->params[i].name;
        aclStubRole role = op->params[i].role;
        if (h == NULL) continue;
        if (v->tensor) {
            ACLSTUB_TRY(sdk_recheck_tensor(op->name, name, h, (aclStubTensorDesc *)(uintptr_t)v->tensor));
        } else if (role == ACLSTUB_SCALAR) {
            aclDataType dtype;
            unsigned char value[16];
            if (!meta_scalar_copy(h, &dtype, value))
                return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: scalar '%s' (%p) was destroyed after "
                                "%sGetWorkspaceSize", op->name, name, h, op->name);
        } else {
            ACLSTUB_TRY(sdk_list_recheck(w, i));
        }
    }
    return OK;
}

typedef struct SdkScratch {
    struct SdkScratch *next;
    max_align_t bytes[];
} SdkScratch;

void *aclStubKernelScratch(const aclStubOpCall *call, size_t bytes) {
    /* The call is the one inside the running work item (kernels only ever see that one). */
    aclOpExecutor *w = (aclOpExecutor *)((char *)call - offsetof(aclOpExecutor, call));
    SdkScratch *block = bytes <= SIZE_MAX - sizeof(SdkScratch) ? malloc(sizeof(SdkScratch) + bytes) : NULL;
    if (block == NULL) return NULL;
    block->next = w->scratch;
    w->scratch = block;
    return block->bytes;
}

void aclStubKernelSetOutputShape(const aclStubOpCall *call, int i, const int64_t *dims, uint32_t ndim) {
    aclOpExecutor *w = (aclOpExecutor *)((char *)call - offsetof(aclOpExecutor, call));
    if (i < 0 || (size_t)i >= w->op->num_params || w->handles[i] == NULL || !sdk_role_writes(w->op->params[i].role))
        return;
    (void)meta_tensor_set_view_shape(w->handles[i], dims, ndim);
}

void aclStubKernelCheckIndices(const aclStubOpCall *call, int param, int64_t n, int64_t lo, int64_t hi,
                               int64_t drop, const char *meaning) {
    const aclOpExecutor *w = (const aclOpExecutor *)((const char *)call - offsetof(aclOpExecutor, call));
    const aclStubTensorDesc *t = call->v[param].tensor;
    if (w->check_site == NULL || t == NULL || (t->dtype != ACL_INT32 && t->dtype != ACL_INT64)) return;
    int64_t numel = aclStubNumel(t), bad = 0, first = -1, value = 0;
    if (n > numel) n = numel;
    for (int64_t i = 0; i < n; i++) {
        const void *p = aclStubElemAt(t, i);
        int64_t v = t->dtype == ACL_INT64 ? *(const int64_t *)p : *(const int32_t *)p;
        if ((v >= lo && v < hi) || (drop != INT64_MIN && v == drop)) continue;
        if (bad++ == 0) {
            first = i;
            value = v;
        }
    }
    if (bad == 0) return;
    char marker[64] = "";
    if (drop != INT64_MIN) snprintf(marker, sizeof marker, " (or %lld, the drop marker)", (long long)drop);
    aclStubCheckReportAt(w->check_site, CHECK_MEM, "index-out-of-range", w->op->name,
                         "'%s'[%lld] = %lld is outside [%lld, %lld)%s, the %s%s: a device may read or write out "
                         "of bounds with it; the stub skips it", call->op->params[param].name, (long long)first,
                         (long long)value, (long long)lo, (long long)hi, marker, meaning,
                         bad > 1 ? " (and more indices of the launch)" : "");
}

static aclError run_kernel(void *arg);

/* One span per view the kernel reads or writes (both for an in-place tensor). */
static size_t add_view_span(aclStubCheckSpan *spans, size_t n, const char *name, const aclStubTensorDesc *t,
                            aclStubRole role) {
    int64_t lo, hi;
    if (t == NULL || t->data == NULL || aclStubNumel(t) == 0 || !sdk_view_byte_range(t, &lo, &hi)) return n;
    const char *start = (const char *)t->data + lo;
    if (role == ACLSTUB_INPLACE)
        spans[n++] = (aclStubCheckSpan){name, start, (size_t)(hi - lo), CHECK_READ, t};
    spans[n++] = (aclStubCheckSpan){name, start, (size_t)(hi - lo), sdk_role_writes(role) ? CHECK_WRITE : CHECK_READ, t};
    return n;
}

/* The device bytes the kernel reads (inputs) and writes (outputs, workspace): the number of spans, which the
 * caller's array must hold (kernel_span_capacity). */
static size_t kernel_span_capacity(const aclOpExecutor *w) {
    size_t n = 1; /* workspace */
    for (size_t i = 0; i < w->op->num_params; i++) {
        aclStubRole role = w->op->params[i].role;
        if (role == ACLSTUB_TENSOR_LIST || role == ACLSTUB_OUTPUT_LIST) n += w->values[i].size;
        else n += 2;
    }
    return n;
}

static size_t kernel_spans(const aclOpExecutor *w, aclStubCheckSpan *spans) {
    const aclStubOpDef *op = w->op;
    size_t n = 0;
    for (size_t i = 0; i < op->num_params; i++) {
        const aclStubValue *v = &w->values[i];
        aclStubRole role = op->params[i].role;
        if (w->handles[i] == NULL) continue;
        if (v->tensor) {
            n = add_view_span(spans, n, op->params[i].name, v->tensor, role);
        } else if (v->tensors) {
            for (uint64_t k = 0; k < v->size; k++) n = add_view_span(spans, n, op->params[i].name, &v->tensors[k], role);
        }
    }
    if (w->call.workspace_size > 0)
        spans[n++] = (aclStubCheckSpan){"workspace", w->call.workspace, (size_t)w->call.workspace_size, CHECK_WRITE,
                                        NULL};
    return n;
}

/* Queue the kernel with its spans: check mode tracks them, and lent host memory learns its users. */
static aclnnStatus launch(aclOpExecutor *w, aclrtStream stream) {
    aclStubCheckSpan local[2 * SDK_MAX_PARAMS + 1];
    size_t cap = kernel_span_capacity(w);
    aclStubCheckSpan *spans = cap <= sizeof local / sizeof local[0] ? local : malloc(cap * sizeof *spans);
    if (spans == NULL) {
        const char *name = w->op->name;
        sdk_executor_free(w);
        return sdk_fail(ACLNN_ERR_INNER, "%s: out of host memory for the work item", name);
    }
    size_t n = kernel_spans(w, spans);
    if (CHECK_ON(CHECK_MEM)) aclStubCheckPadding(w->op->name, spans, n);
    aclnnStatus status;
    if (w->waits_for_peers) /* never in the caller's thread: the peers' calls may come from this very thread */
        status = aclStubStreamLaunchQueued(stream, run_kernel, w, sdk_executor_free, w->op->name, spans, n);
    else if (CHECK_ON(CHECK_INIT | CHECK_SYNC))
        status = aclStubStreamLaunchChecked(stream, run_kernel, w, sdk_executor_free, w->op->name, spans, n);
    else
        status = aclStubStreamLaunchUsing(stream, run_kernel, w, sdk_executor_free, w->op->name, spans, n);
    if (spans != local) free(spans);
    return status;
}

/* ACLSTUB_NZ_INPUT operands in FRACTAL_NZ: the kernel sees them unpacked to ND (kernel scratch); saved[] keeps the
 * snapshots to put back. */
static aclError unpack_nz_inputs(aclOpExecutor *w, const aclStubTensorDesc **saved) {
    for (size_t i = 0; i < w->op->num_params; i++) {
        saved[i] = NULL;
        const aclStubTensorDesc *t = w->values[i].tensor;
        if (!(w->op->params[i].flags & ACLSTUB_NZ_INPUT) || t == NULL || !aclStubIsNzFormat(t->format)) continue;
        aclStubTensorDesc *nd = aclStubKernelScratch(&w->call, sizeof *nd);
        if (nd == NULL) return aclStubKernelOutOfMemory(&w->call);
        ACLSTUB_TRY(aclStubNzAsNd(&w->call, t, nd));
        saved[i] = t;
        w->values[i].tensor = nd;
    }
    return OK;
}

static aclError run_kernel(void *arg) {
    aclOpExecutor *w = arg;
    w->scratch = NULL;
    const aclStubTensorDesc *saved[SDK_MAX_PARAMS];
    aclError status = unpack_nz_inputs(w, saved);
    if (status == OK) status = w->op->kernel(&w->call);
    for (size_t i = 0; i < w->op->num_params; i++)
        if (saved[i]) w->values[i].tensor = saved[i];
    while (w->scratch) {
        SdkScratch *next = w->scratch->next;
        free(w->scratch);
        w->scratch = next;
    }
    return status;
}

aclnnStatus aclStubOpRun(const aclStubOpDef *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                         aclrtStream stream) {
    const char *name = op->name;
    if (executor == NULL) return sdk_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: argument 'executor' is NULL", name);
    if (workspaceSize > 0 && workspace == NULL)
        return sdk_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: argument 'workspace' is NULL but 'workspaceSize' is %llu", name,
                        (unsigned long long)workspaceSize);
    aclOpExecutor *ex = handle_acquire(&sdk_executors, executor);
    if (!ex)
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: argument 'executor' (%p) is not a live executor (already "
                        "consumed by a previous call, destroyed, or never created)", name, (void *)executor);
    aclnnStatus status = OK;
    if (ex->op != op && strcmp(ex->op->name, name) != 0)
        status = sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: argument 'executor' was created by %sGetWorkspaceSize, not by "
                          "%sGetWorkspaceSize", name, ex->op->name, name);
    else if (workspaceSize < ex->workspace_size) {
        if (CHECK_ON(CHECK_MEM))
            aclStubCheckReport(CHECK_MEM, "workspace-too-small", name, "'workspaceSize' is %llu but "
                               "%sGetWorkspaceSize asked for %llu bytes", (unsigned long long)workspaceSize, name,
                               (unsigned long long)ex->workspace_size);
        status = sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: argument 'workspaceSize' is %llu but %sGetWorkspaceSize asked "
                          "for %llu bytes", name, (unsigned long long)workspaceSize, name,
                          (unsigned long long)ex->workspace_size);
    } else if (!aclStubStreamIsLive(stream))
        status = sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: argument 'stream' (%p) is not a live stream", name, stream);
    bool repeatable = __atomic_load_n(&ex->repeatable, __ATOMIC_RELAXED);
    /* A repeatable executor stays; the work item is a copy, taken while no destroy can run. */
    aclOpExecutor *work = status == OK && repeatable ? sdk_block_copy(ex) : NULL;
    handle_release(&sdk_executors);
    if (status != OK) return status;
    if (repeatable && !work)
        return sdk_fail(ACLNN_ERR_INNER, "%s: out of host memory for the work item", name);
    /* Claiming a one-shot executor by removing it makes a concurrent second run fail cleanly. */
    if (!repeatable && (work = handle_remove(&sdk_executors, executor)) == NULL)
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: argument 'executor' (%p) was consumed concurrently", name,
                        (void *)executor);
    if (work->nothing_to_do || (status = recheck(work)) != OK) {
        sdk_executor_free(work);
        return status;
    }
    work->call.workspace = workspace;
    work->call.workspace_size = workspaceSize;
    work->check_site = CHECK_ON(CHECK_MEM) ? aclStubCheckSite() : NULL;
    if (workspaceSize > 0 && CHECK_ON(CHECK_MEM) && !aclStubIsDeviceSpan(workspace, (size_t)workspaceSize))
        aclStubCheckBadSpan(name, "workspace", workspace, (size_t)workspaceSize);
    return launch(work, stream);
}
