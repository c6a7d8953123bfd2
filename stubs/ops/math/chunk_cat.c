/*
 * ops-math conversion/chunk_cat: aclnnChunkCat (torch._chunk_cat, dim 0 only as the op_api allows): each
 * non-empty tensor, seen as (D0, R) with its trailing dimensions merged, is cut into numChunks row chunks of
 * ceil(D0 / numChunks) rows (the last ones zero-padded); out[c] is the concatenation, tensor after tensor, of
 * every tensor's chunk c flattened: out has shape (numChunks, sum of ceil(D0 / numChunks) * R). Strided copies
 * over the element iterator, converting to out's dtype.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_chunk_cat.h"

#define DT ACLSTUB_DT
#define INVALID ACLNN_ERR_PARAM_INVALID
#define CHUNK_CAT_DT ACLSTUB_DT_FLOATS

enum { CC_TENSORS, CC_DIM, CC_CHUNKS, CC_OUT };

static bool null_entry(const aclStubTensorDesc *t) { return (int)t->dtype < 0 && t->ndim == 0 && t->data == NULL; }

static aclnnStatus chunk_cat_precheck(aclStubOpCall *call) {
    if (call->v[CC_DIM].i != 0) return aclStubOpFail(call, INVALID, "dim only support 0 now.");
    return OK;
}

static aclnnStatus chunk_cat_check(aclStubOpCall *call) {
    const aclStubValue *list = &call->v[CC_TENSORS];
    const aclStubTensorDesc *out = call->v[CC_OUT].tensor;
    int64_t n = call->v[CC_CHUNKS].i;
    char a[256], b[256];
    if (list->size == 0) return aclStubOpNothingToDo(call);
    for (uint64_t k = 0; k < list->size; k++)
        if (null_entry(&list->tensors[k]))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'tensors[%llu]' is NULL", (unsigned long long)k);
    if (out == NULL) return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'out' is NULL");
    aclDataType dt = list->tensors[0].dtype;
    if (!(CHUNK_CAT_DT & DT(dt)))
        return aclStubOpFail(call, INVALID, "tensor 0 not implemented for %s, should be in dtype support list "
                             "[DT_FLOAT, DT_FLOAT16, DT_BF16].", aclStubDtypeName(dt));
    for (uint64_t k = 1; k < list->size; k++)
        if (list->tensors[k].dtype != dt) return aclStubOpFail(call, INVALID, "expects all input tensors with the same dtype.");
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, CHUNK_CAT_DT));
    if (dt == ACL_FLOAT && out->dtype != ACL_FLOAT)
        return aclStubOpFail(call, INVALID, "output dtype must be float when input dtype is float.");
    for (uint64_t k = 0; k < list->size; k++)
        if (aclStubIsPrivateFormat(list->tensors[k].format))
            return aclStubOpFail(call, INVALID, "Format only support ND, NCHW, NHWC, HWCN, NDHWC, NCDHW.");
    if (aclStubIsPrivateFormat(out->format))
        return aclStubOpFail(call, INVALID, "Format only support ND, NCHW, NHWC, HWCN, NDHWC, NCDHW.");
    for (uint64_t k = 0; k < list->size; k++) {
        if (list->tensors[k].ndim > 8)
            return aclStubOpFail(call, INVALID, "tensors[%llu] has more than 8 dimensions", (unsigned long long)k);
        if (list->tensors[k].ndim == 0)
            return aclStubOpFail(call, INVALID, "input tensor %llu dimnum is 0.", (unsigned long long)k);
    }
    int64_t width = 0, kept = 0;
    if (n <= 0) return aclStubOpFail(call, ACLNN_ERR_INNER_NULLPTR, "numChunks %lld must be positive", (long long)n);
    for (uint64_t k = 0; k < list->size; k++) {
        const aclStubTensorDesc *t = &list->tensors[k];
        if (aclStubNumel(t) == 0) continue;
        kept++;
        width += (t->dims[0] + n - 1) / n * (aclStubNumel(t) / t->dims[0]);
    }
    if (kept == 0) return aclStubOpNothingToDo(call);
    int64_t want[2] = {n, width};
    if (out->ndim != 2 || memcmp(out->dims, want, sizeof want) != 0)
        return aclStubOpFail(call, INVALID, "out shape %s is not the result's %s",
                             aclStubShapeText(out->dims, out->ndim, a, sizeof a), aclStubShapeText(want, 2, b, sizeof b));
    return OK;
}

static aclnnStatus chunk_cat_kernel(const aclStubOpCall *call) {
    const aclStubValue *list = &call->v[CC_TENSORS];
    const aclStubTensorDesc *out = call->v[CC_OUT].tensor;
    int64_t n = call->v[CC_CHUNKS].i, col = 0;
    uint64_t zero = 0;
    for (uint64_t k = 0; k < list->size; k++) {
        const aclStubTensorDesc *t = &list->tensors[k];
        if (aclStubNumel(t) == 0) continue;
        aclStubTensorDesc src;
        ACLSTUB_TRY(aclStubInputApart(call, t, ACL_DT_UNDEFINED, out, &src));
        int64_t rows = t->dims[0], r = aclStubNumel(t) / rows, cs = (rows + n - 1) / n;
        int64_t shape[2] = {rows, r};
        aclStubViewReshape(&src, shape, 2);
        for (int64_t c = 0; c < n; c++) {
            int64_t first = c * cs, present = first >= rows ? 0 : (rows - first < cs ? rows - first : cs);
            aclStubTensorDesc dst = *out;
            aclStubViewNarrow(&dst, 0, c, 1);
            aclStubViewRemoveDim(&dst, 0); /* (width,) */
            if (present > 0) {
                aclStubTensorDesc piece = dst, from = src;
                aclStubViewNarrow(&piece, 0, col, present * r);
                aclStubViewInsertDim(&piece, 0, present, r * piece.strides[0]);
                piece.dims[1] = r;
                aclStubViewNarrow(&from, 0, first, present);
                ACLSTUB_TRY(aclStubCopyView(call, &piece, &from, ACL_DT_UNDEFINED));
            }
            if (present < cs) {
                aclStubTensorDesc pad = dst;
                aclStubViewNarrow(&pad, 0, col + present * r, (cs - present) * r);
                ACLSTUB_TRY(aclStubFillView(call, &pad, ACL_INT64, &zero));
            }
        }
        col += cs * r;
    }
    return OK;
}

static const aclStubParam kChunkCatParams[] = {{"tensors", ACLSTUB_TENSOR_LIST, 0, NULL, 0, 0, 0},
                                               {"dim", ACLSTUB_INT, 0, NULL, 0, 0, 0},
                                               {"numChunks", ACLSTUB_INT, 0, NULL, 0, 0, 0},
                                               {"out", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}};
static const aclStubOpDef kChunkCat = {"aclnnChunkCat", kChunkCatParams, 4, chunk_cat_precheck, chunk_cat_check,
                                       chunk_cat_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnChunkCat, kChunkCat, (const aclTensorList *, tensors), (int64_t, dim), (int64_t, numChunks),
                  (aclTensor *, out))
