/*
 * The high-level call in one C call: device buffers, host-to-device copies, tensors, both phases, the
 * workspace, synchronisation, device-to-host copies and the clean-up, so a numpy-in/numpy-out call pays
 * the Python-to-C crossing once. Included into the generated extension source after the redirect macros
 * (every ACL call below goes through the late-bound table) and after the generated per-operator
 * dispatch (aclnnpy_op_kinds, aclnnpy_gws, aclnnpy_exec and their names).
 *
 * meta, per parameter of the operator in C order (kinds: T tensor, A attribute, R aclIntArray):
 *   T: present, then if present: is_output (0 input, 1 output the operator may leave partly unwritten, 2 output it
 *      writes entirely), dtype, ndim, offset, nbytes, dims[ndim], strides[ndim]
 *   A: value (bools as 0/1)
 *   R: present, then if present: n, values[n]
 * host: one pointer per T parameter: the contiguous bytes of an input, or where an output is copied.
 * Device buffers come from the pool (memory_pool.c). flags (aclnnpy.h): ACLNNPY_ZERO_OUTPUTS zero fresh blocks of
 * outputs the operator may leave partly unwritten too (reused ones always are; outputs it writes entirely never
 * are), for libraries whose aclrtMalloc does not zero-fill; ACLNNPY_LEND lend
 * the host buffers themselves to the stub's device (aclStubLendHostMemory) so that nothing is copied. A buffer
 * that cannot be lent (not aligned to its elements, or overlapping device memory: another tensor of the call,
 * a span another thread has lent, an aclrtMalloc block) is copied as the copying path does, an output likewise
 * copied back: the copy's host side may be lent memory (to a copy it is host memory), so it cannot fail where
 * the copying path succeeds.
 */
#include "aclnn/opdev/op_errno.h"
#include "aclstub/aclstub.h"
#include "aclnnpy_glue.h"

/* ---- the one-call operator invocation ---------------------------------------------------------------- */

#define ACLNNPY_FAIL(fn)  \
    do {                  \
        *failed = (fn);   \
        goto cleanup;     \
    } while (0)

/* The tensor's device bytes: the host buffer itself when lending works, else a pool block (an input copied in,
 * an output zeroed where asked). A device tensor's data must be aligned to its elements; a misaligned host
 * buffer is copied to an aligned block. */
static int aclnnpy_device_bytes(aclrtStream stream, void *host, int64_t nbytes, size_t esize, int is_output, int flags,
                                void **dev, int *lent, const char **failed) {
    int status, fresh;
    if ((flags & ACLNNPY_LEND) && (esize <= 1 || (uintptr_t)host % esize == 0) &&
        aclStubLendHostMemory(host, (size_t)nbytes, dev) == 0) {
        *lent = 1;
        return 0;
    }
    if ((status = aclnnpy_pool_malloc(stream, (uint64_t)nbytes, dev, &fresh))) {
        *failed = "aclrtMalloc";
    } else if (!is_output) {
        /* the bytes may be lent already (the same array twice): then they are device memory */
        aclrtMemcpyKind kind = (flags & ACLNNPY_LEND) ? ACL_MEMCPY_DEFAULT : ACL_MEMCPY_HOST_TO_DEVICE;
        if ((status = aclrtMemcpy(*dev, (size_t)nbytes, host, (size_t)nbytes, kind)))
            *failed = "aclrtMemcpy";
    } else if (is_output == 1 && ((flags & ACLNNPY_ZERO_OUTPUTS) || !fresh)) {
        if ((status = aclrtMemset(*dev, (size_t)nbytes, 0, (size_t)nbytes))) *failed = "aclrtMemset";
    }
    return status;
}

int aclnnpy_run(int op, void *const *host, const int64_t *meta, aclrtStream stream, int flags, const char **failed) {
    aclTensor *t[ACLNNPY_MAX_TENSORS] = {0};
    void *dev[ACLNNPY_MAX_TENSORS] = {0};
    int lent[ACLNNPY_MAX_TENSORS] = {0};
    int64_t nbytes[ACLNNPY_MAX_TENSORS] = {0};
    int is_output[ACLNNPY_MAX_TENSORS] = {0};
    int64_t attrs[ACLNNPY_MAX_ATTRS] = {0};
    aclIntArray *arrays[ACLNNPY_MAX_ARRAYS] = {0};
    int nt = 0, na = 0, nr = 0, status = 0;
    aclOpExecutor *executor = NULL;
    int own_executor = 0;
    uint64_t ws_size = 0;
    void *ws = NULL;
    *failed = NULL;
    if (op < 0 || op >= aclnnpy_num_ops) return ACLNN_ERR_PARAM_INVALID;

    for (const char *k = aclnnpy_op_kinds[op]; *k; k++) {
        if (*k == 'A') {
            attrs[na++] = *meta++;
        } else if (*k == 'R') {
            int i = nr++;
            if (*meta++) {
                int64_t n = *meta++;
                arrays[i] = aclCreateIntArray(meta, (uint64_t)n);
                meta += n;
                if (!arrays[i]) {
                    status = ACLNN_ERR_INNER_NULLPTR;
                    ACLNNPY_FAIL("aclCreateIntArray");
                }
            }
        } else {
            int i = nt++;
            if (!*meta++) continue;
            is_output[i] = (int)meta[0];
            aclDataType dtype = (aclDataType)meta[1];
            uint64_t ndim = (uint64_t)meta[2];
            int64_t offset = meta[3];
            nbytes[i] = meta[4];
            const int64_t *dims = meta + 5, *strides = meta + 5 + ndim;
            meta += 5 + 2 * ndim;
            if (nbytes[i] > 0 &&
                (status = aclnnpy_device_bytes(stream, host[i], nbytes[i], aclDataTypeSize(dtype), is_output[i], flags,
                                               &dev[i], &lent[i], failed)))
                goto cleanup;
            t[i] = aclCreateTensor(dims, ndim, dtype, strides, offset, ACL_FORMAT_ND, dims, ndim, dev[i]);
            if (!t[i]) {
                status = ACLNN_ERR_INNER_NULLPTR;
                ACLNNPY_FAIL("aclCreateTensor");
            }
        }
    }
    if ((status = aclnnpy_gws(op, t, attrs, arrays, &ws_size, &executor))) ACLNNPY_FAIL(aclnnpy_gws_names[op]);
    /* Phase 2 consumes a one-shot executor only when it gets as far as running it: after an early
     * failure (a dead stream, say) the executor is still live. A repeatable executor is never consumed,
     * so the clean-up below destroys it whichever way phase 2 ends. Where the library refuses to make it
     * repeatable, phase 2 owns it as usual. */
    own_executor = aclSetAclOpExecutorRepeatable(executor) == 0;
    if (ws_size && (status = aclnnpy_workspace(stream, ws_size, &ws))) {
        if (!own_executor) aclDestroyAclOpExecutor(executor);
        ACLNNPY_FAIL("aclrtMalloc");
    }
    if ((status = aclnnpy_exec(op, ws, ws_size, executor, stream))) ACLNNPY_FAIL(aclnnpy_exec_names[op]);
    if ((status = aclrtSynchronizeStream(stream))) ACLNNPY_FAIL("aclrtSynchronizeStream");
    for (int i = 0; i < nt; i++) {
        if (is_output[i] && nbytes[i] > 0 && !lent[i]) {
            status = aclrtMemcpy(host[i], (size_t)nbytes[i], dev[i], (size_t)nbytes[i],
                                 (flags & ACLNNPY_LEND) ? ACL_MEMCPY_DEFAULT : ACL_MEMCPY_DEVICE_TO_HOST);
            if (status) ACLNNPY_FAIL("aclrtMemcpy");
        }
    }
cleanup:
    if (own_executor) aclDestroyAclOpExecutor(executor);
    for (int i = 0; i < nt; i++) {
        if (t[i]) aclDestroyTensor(t[i]);
        if (lent[i])
            aclStubReclaimHostMemory(dev[i]); /* waits for queued work that still uses it (after a failure) */
        else
            aclnnpy_pool_free(stream, dev[i], (uint64_t)nbytes[i]);
    }
    for (int i = 0; i < nr; i++)
        if (arrays[i]) aclDestroyIntArray(arrays[i]);
    return status;
}
