/*
 * Paged KV caches: ScatterPaKvCache (write this step's keys and values into their cache slots) and
 * GatherPaKvCache (read each sequence's tokens back out of its blocks into contiguous rows), in the "Norm"
 * layout: caches (blocks, blockSize, N, D), tokens (T, N, D). Slot s is row s % blockSize of block
 * s / blockSize; a negative slot is skipped (a padding token). Copies are bit exact.
 *
 * Not implemented (refused with ACLNN_ERR_PARAM_INVALID naming the argument): the PA_NZ cache layout, the
 * compressed scenarios (compressLens, compressSeqOffset, seqLens), the Nct scatter mode, strides/offsets.
 */
#include <string.h>

#include "aclstub/op_sdk.h"
#include "aclnnop/aclnn_gather_pa_kv_cache.h"
#include "aclnnop/aclnn_scatter_pa_kv_cache.h"

#define INVALID ACLNN_ERR_PARAM_INVALID
#define KV_DTYPES (ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT8))

static bool is_norm(const char *mode) { return mode == NULL || mode[0] == 0 || strcmp(mode, "Norm") == 0; }

/* row (block, pos) of a 4-D cache and row t of a 3-D token tensor hold N*D elements each */
static void copy_row(const aclStubTensorDesc *dst, int64_t d0, int64_t d1, const aclStubTensorDesc *src, int64_t s0,
                     int64_t s1, bool dst4, bool src4) {
    int64_t n = src4 ? src->dims[2] : src->dims[1], d = src->dims[src->ndim - 1];
    size_t es = aclDataTypeSize(src->dtype);
    for (int64_t h = 0; h < n; h++) {
        char *o = (char *)dst->data + (dst->offset + d0 * dst->strides[0] + (dst4 ? d1 * dst->strides[1] +
                  h * dst->strides[2] : h * dst->strides[1])) * (int64_t)es;
        const char *i = (const char *)src->data + (src->offset + s0 * src->strides[0] + (src4 ? s1 * src->strides[1] +
                        h * src->strides[2] : h * src->strides[1])) * (int64_t)es;
        int64_t so = src->strides[src->ndim - 1], oo = dst->strides[dst->ndim - 1];
        if (so == 1 && oo == 1) {
            memcpy(o, i, (size_t)d * es);
        } else {
            for (int64_t x = 0; x < d; x++) memcpy(o + x * oo * (int64_t)es, i + x * so * (int64_t)es, es);
        }
    }
}

/* tokens (T, N, D) against a cache (blocks, blockSize, N, D) */
static aclnnStatus check_pair(aclStubOpCall *c, int it, int ic) {
    const aclStubTensorDesc *t = aclStubOpTensor(c, it), *cache = aclStubOpTensor(c, ic);
    ACLSTUB_RETURN_ERROR_IF(t->ndim != 3, c, INVALID, "%s must be 3-D (tokens, N, D), got %u-D", aclStubOpName(c, it),
                            t->ndim);
    ACLSTUB_RETURN_ERROR_IF(cache->ndim != 4, c, INVALID, "%s must be 4-D (blocks, blockSize, N, D) in the Norm layout, "
                            "got %u-D", aclStubOpName(c, ic), cache->ndim);
    ACLSTUB_RETURN_ERROR_IF(cache->dims[2] != t->dims[1] || cache->dims[3] != t->dims[2], c, INVALID, "%s's (N, D) = "
                            "(%lld, %lld) must equal %s's (%lld, %lld)", aclStubOpName(c, ic), (long long)cache->dims[2],
                            (long long)cache->dims[3], aclStubOpName(c, it), (long long)t->dims[1],
                            (long long)t->dims[2]);
    ACLSTUB_RETURN_ERROR_IF(cache->dtype != t->dtype, c, INVALID, "%s must have %s's data type",
                            aclStubOpName(c, ic), aclStubOpName(c, it));
    return OK;
}

/* ---- ScatterPaKvCache ---------------------------------------------------------------------------------------- */

enum { SK, SKC, SSLOT, SV, SVC, SCL, SCO, SSL, SCM, SSM, SSTR, SOFF };
static const aclStubParam P_SCATTER[] = {
    [SK] = {"key", ACLSTUB_INPUT, KV_DTYPES, NULL, 0, 0, 0},
    [SKC] = {"keyCacheRef", ACLSTUB_INPLACE, KV_DTYPES, NULL, 0, 0, 0},
    [SSLOT] = {"slotMapping", ACLSTUB_INPUT, ACLSTUB_DT_INDEX, NULL, 0, 1, 1},
    [SV] = {"value", ACLSTUB_INPUT, KV_DTYPES, NULL, 0, 0, 0},
    [SVC] = {"valueCacheRef", ACLSTUB_INPLACE, KV_DTYPES, NULL, 0, 0, 0},
    [SCL] = {"compressLensOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [SCO] = {"compressSeqOffsetOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [SSL] = {"seqLensOptional", ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0},
    [SCM] = {"cacheModeOptional", ACLSTUB_STRING, 0, NULL, 0, 0, 0},
    [SSM] = {"scatterModeOptional", ACLSTUB_STRING, 0, NULL, 0, 0, 0},
    [SSTR] = {"stridesOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    [SOFF] = {"offsetsOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
};

static aclnnStatus scatter_check(aclStubOpCall *c) {
    for (int i = SCL; i <= SSL; i++)
        ACLSTUB_RETURN_ERROR_IF(c->v[i].present, c, INVALID, "%s (the compressed scenarios) is not supported by this "
                                "implementation; pass NULL", aclStubOpName(c, i));
    for (int i = SSTR; i <= SOFF; i++)
        ACLSTUB_RETURN_ERROR_IF(c->v[i].present && c->v[i].size > 0, c, INVALID, "%s is not supported by this "
                                "implementation; pass NULL", aclStubOpName(c, i));
    ACLSTUB_RETURN_ERROR_IF(!is_norm(c->v[SCM].s), c, INVALID, "cacheModeOptional '%s' is not supported (\"Norm\")",
                            c->v[SCM].s);
    const char *sm = c->v[SSM].s;
    ACLSTUB_RETURN_ERROR_IF(sm && sm[0] && strcmp(sm, "None") != 0, c, INVALID, "scatterModeOptional '%s' is not "
                            "supported (\"None\")", sm);
    ACLSTUB_TRY(check_pair(c, SK, SKC));
    ACLSTUB_TRY(check_pair(c, SV, SVC));
    const aclStubTensorDesc *k = aclStubOpTensor(c, SK), *v = aclStubOpTensor(c, SV), *s = aclStubOpTensor(c, SSLOT);
    const aclStubTensorDesc *kc = aclStubOpTensor(c, SKC), *vc = aclStubOpTensor(c, SVC);
    ACLSTUB_RETURN_ERROR_IF(v->dims[0] != k->dims[0] || s->dims[0] != k->dims[0], c, INVALID, "key, value and "
                            "slotMapping must have as many tokens (%lld, %lld, %lld)", (long long)k->dims[0],
                            (long long)v->dims[0], (long long)s->dims[0]);
    ACLSTUB_RETURN_ERROR_IF(kc->dims[0] != vc->dims[0] || kc->dims[1] != vc->dims[1], c, INVALID, "keyCacheRef and "
                            "valueCacheRef must have the same blocks and block size");
    if (k->dims[0] == 0 || aclStubNumel(kc) == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus scatter_kernel(const aclStubOpCall *c) {
    const aclStubTensorDesc *s = aclStubOpTensor(c, SSLOT), *kc = aclStubOpTensor(c, SKC);
    int64_t t = s->dims[0], bs = kc->dims[1], slots = kc->dims[0] * bs;
    for (int64_t i = 0; i < t; i++) {
        int64_t slot = aclStubIndex1(s, i);
        if (slot >= slots)
            return aclStubKernelFail(c, ACLNN_ERR_INNER, "slotMapping[%lld] = %lld is outside the cache's %lld slots",
                                     (long long)i, (long long)slot, (long long)slots);
    }
    for (int64_t i = 0; i < t; i++) {
        int64_t slot = aclStubIndex1(s, i);
        if (slot < 0) continue;
        copy_row(kc, slot / bs, slot % bs, aclStubOpTensor(c, SK), i, 0, true, false);
        copy_row(aclStubOpTensor(c, SVC), slot / bs, slot % bs, aclStubOpTensor(c, SV), i, 0, true, false);
    }
    return OK;
}

static const aclStubOpDef OP_SCATTER = {"aclnnScatterPaKvCache", P_SCATTER, ACLSTUB_LEN(P_SCATTER), NULL,
                                        scatter_check, scatter_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnScatterPaKvCache, OP_SCATTER, (const aclTensor *, key), (aclTensor *, keyCacheRef),
                  (const aclTensor *, slotMapping), (const aclTensor *, value), (aclTensor *, valueCacheRef),
                  (const aclTensor *, compressLensOptional), (const aclTensor *, compressSeqOffsetOptional),
                  (const aclTensor *, seqLensOptional), (char *, cacheModeOptional), (char *, scatterModeOptional),
                  (const aclIntArray *, stridesOptional), (const aclIntArray *, offsetsOptional))

/* ---- GatherPaKvCache ----------------------------------------------------------------------------------------- */

enum { GKC, GVC, GBT, GSL, GK, GV, GOFF, GCM, GCUM };
static const aclStubParam P_GATHER[] = {
    [GKC] = {"keyCache", ACLSTUB_INPUT, KV_DTYPES, NULL, 0, 0, 0},
    [GVC] = {"valueCache", ACLSTUB_INPUT, KV_DTYPES, NULL, 0, 0, 0},
    [GBT] = {"blockTables", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 2, 2},
    [GSL] = {"seqLens", ACLSTUB_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [GK] = {"keyRef", ACLSTUB_OUTPUT, KV_DTYPES, "keyCache", 0, 0, 0},
    [GV] = {"valueRef", ACLSTUB_OUTPUT, KV_DTYPES, "valueCache", 0, 0, 0},
    [GOFF] = {"seqOffsetOptional", ACLSTUB_OPTIONAL_INPUT, ACLSTUB_DT(ACL_INT32), NULL, 0, 1, 1},
    [GCM] = {"cacheMode", ACLSTUB_STRING, 0, NULL, 0, 0, 0},
    [GCUM] = {"isSeqLensCumsum", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
};

static aclnnStatus gather_check(aclStubOpCall *c) {
    ACLSTUB_RETURN_ERROR_IF(!is_norm(c->v[GCM].s), c, INVALID, "cacheMode '%s' is not supported (\"Norm\")",
                            c->v[GCM].s);
    ACLSTUB_TRY(check_pair(c, GK, GKC));
    ACLSTUB_TRY(check_pair(c, GV, GVC));
    const aclStubTensorDesc *bt = aclStubOpTensor(c, GBT), *sl = aclStubOpTensor(c, GSL), *off = aclStubOpTensor(c, GOFF);
    const aclStubTensorDesc *kc = aclStubOpTensor(c, GKC), *vc = aclStubOpTensor(c, GVC);
    bool cum = aclStubOpBool(c, GCUM);
    int64_t b = bt->dims[0];
    ACLSTUB_RETURN_ERROR_IF(sl->dims[0] != b + (cum ? 1 : 0), c, INVALID, "seqLens has %lld entries; must have %lld "
                            "(blockTables' batch%s)", (long long)sl->dims[0], (long long)(b + cum), cum ? " + 1" : "");
    ACLSTUB_RETURN_ERROR_IF(off && off->dims[0] != b, c, INVALID, "seqOffsetOptional must have one entry per batch");
    ACLSTUB_RETURN_ERROR_IF(kc->dims[0] != vc->dims[0] || kc->dims[1] != vc->dims[1], c, INVALID, "keyCache and "
                            "valueCache must have the same blocks and block size");
    ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(c, GK)->dims[0] != aclStubOpTensor(c, GV)->dims[0], c, INVALID, "keyRef and "
                            "valueRef must have as many tokens");
    if (b == 0 || aclStubOpTensor(c, GK)->dims[0] == 0) return aclStubOpNothingToDo(c);
    return OK;
}

static aclnnStatus gather_kernel(const aclStubOpCall *c) {
    const aclStubTensorDesc *bt = aclStubOpTensor(c, GBT), *sl = aclStubOpTensor(c, GSL), *off = aclStubOpTensor(c, GOFF);
    const aclStubTensorDesc *kc = aclStubOpTensor(c, GKC), *k = aclStubOpTensor(c, GK);
    bool cum = aclStubOpBool(c, GCUM);
    int64_t b = bt->dims[0], bs = kc->dims[1], tokens = k->dims[0], row = 0;
    /* validate every index first: nothing is written when one is out of range */
    for (int pass = 0; pass < 2; pass++) {
        row = 0;
        for (int64_t i = 0; i < b; i++) {
            int64_t len = cum ? aclStubIndex1(sl, i + 1) - aclStubIndex1(sl, i) : aclStubIndex1(sl, i);
            int64_t first = off ? aclStubIndex1(off, i) / bs : 0;
            for (int64_t t = 0; t < len; t++, row++) {
                int64_t col = first + t / bs;
                if (pass == 0) {
                    if (len < 0 || row >= tokens || col < 0 || col >= bt->dims[1])
                        return aclStubKernelFail(c, ACLNN_ERR_INNER, "batch %lld: token %lld needs %s", (long long)i,
                                                 (long long)t, row >= tokens ? "more rows than keyRef has" :
                                                 "a block beyond blockTables' columns");
                    int64_t blk = *(const int32_t *)aclStubElem2(bt, i, col);
                    if (blk < 0 || blk >= kc->dims[0])
                        return aclStubKernelFail(c, ACLNN_ERR_INNER, "blockTables[%lld, %lld] = %lld is outside the "
                                                 "cache's %lld blocks", (long long)i, (long long)col, (long long)blk,
                                                 (long long)kc->dims[0]);
                    continue;
                }
                int64_t blk = *(const int32_t *)aclStubElem2(bt, i, col);
                copy_row(k, row, 0, kc, blk, t % bs, false, true);
                copy_row(aclStubOpTensor(c, GV), row, 0, aclStubOpTensor(c, GVC), blk, t % bs, false, true);
            }
        }
    }
    return OK;
}

static const aclStubOpDef OP_GATHER = {"aclnnGatherPaKvCache", P_GATHER, ACLSTUB_LEN(P_GATHER), NULL, gather_check,
                                       gather_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnGatherPaKvCache, OP_GATHER, (const aclTensor *, keyCache), (const aclTensor *, valueCache),
                  (const aclTensor *, blockTables), (const aclTensor *, seqLens), (const aclTensor *, keyRef),
                  (const aclTensor *, valueRef), (const aclTensor *, seqOffsetOptional), (char *, cacheMode),
                  (const bool, isSeqLensCumsum))
