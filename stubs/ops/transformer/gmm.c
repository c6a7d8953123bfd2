/*
 * Grouped matrix products of ops-transformer gmm/grouped_matmul: aclnnGroupedMatmul, V2, V3, V4, V5, on the matmul
 * engine (aclstub/op_matmul.h), one product per group.
 *
 * Groups: groupType -1 (x, weight and y lists of one entry per group, batch dims of x kept), 0 (the rows of x split by
 * the group list, one weight per group: a list of (k, n) or one (e, k, n) tensor) or 2 (the columns of x, i.e. k, split
 * by the group list; y is (groups, m, n)). The group list is cumulative (V1/V2 an int array, V3 an INT64 tensor; V4 and
 * V5 by groupListType: 0 cumulative, 1 counts, 2 (expert, count) pairs); output rows past the last group are not written.
 *
 * Each group: y = act(x @ w + bias) for FLOAT16/BF16/FLOAT (the product in float32, bias added in float32, the
 * activation (RELU, GELU_TANH, FAST_GELU, SILU) in float32, rounded once to y); INT8 x and weight: the dequantisation
 * epilogue of the engine (per-channel scale of the group, per-token scale of the group's rows, INT32 bias before the
 * scales); FLOAT16/BF16 x with INT8/INT4 weight: the weight dequantised per channel or per group of k
 * ((w + offset) * scale in x's dtype) before a 16-bit product.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_grouped_matmul.h"
#include "aclnnop/aclnn_grouped_matmul_v2.h"
#include "aclnnop/aclnn_grouped_matmul_v3.h"
#include "aclnnop/aclnn_grouped_matmul_v4.h"
#include "aclnnop/aclnn_grouped_matmul_v5.h"
#include "aclstub/op_matmul.h"

#define MAX_GROUPS 1024
#define NO_SPLIT (-1)
#define SPLIT_M 0
#define SPLIT_K 2

/* Which parameter holds what (-1: the API has none). */
typedef struct {
    int x, weight, bias, scale, offset, aq_scale, aq_offset, pertoken, group_list, split_item, group_type,
        group_list_type, act_type, y, act_input, act_qscale, act_qoffset, act_out, dyn_scale_out, tuning;
    int version; /* 1..5 */
} GmmRow;

/* One group's product: the list entries it reads and the part of them. */
typedef struct {
    int xi, wi, yi, bi;  /* list entries; bi -1: no bias */
    int64_t e;           /* the expert of a single (e, k, n) weight, -1 for a 2-D weight */
    int64_t xr0, yr0, m; /* rows of x and y from xr0 and yr0 (split M); m -1: every row (and batch dims) */
    int64_t k0, k1;      /* split K: columns [k0, k1) of x and rows of w; k1 -1: all */
    int64_t yslot;       /* split K: y's first index, -1 otherwise */
} Group;

typedef struct {
    int n;
    Group g[MAX_GROUPS];
} Groups;

static const aclStubTensorDesc *entry(const aclStubOpCall *call, int param, int64_t i) {
    if (param < 0 || !call->v[param].present || i < 0 || (uint64_t)i >= call->v[param].size) return NULL;
    const aclStubTensorDesc *t = &call->v[param].tensors[i];
    return t->dtype == ACL_DT_UNDEFINED ? NULL : t;
}
static uint64_t list_size(const aclStubOpCall *call, int param) {
    return param >= 0 && call->v[param].present ? call->v[param].size : 0;
}
/* An optional list counts as absent when empty or made only of empty tensors (the op_api's ResetEmptyTensor). */
static bool list_given(const aclStubOpCall *call, int param) {
    for (uint64_t i = 0; i < list_size(call, param); i++) {
        const aclStubTensorDesc *t = entry(call, param, (int64_t)i);
        if (t != NULL && aclStubNumel(t) > 0) return true;
    }
    return false;
}

static int64_t group_type_of(const aclStubOpCall *call, const GmmRow *r) {
    if (r->group_type >= 0) return aclStubOpInt(call, r->group_type);
    /* V1: -1 when x and y are both separated (or everything single), else split M */
    uint64_t nx = list_size(call, r->x), ny = list_size(call, r->y), nw = list_size(call, r->weight);
    return ((nx > 1 && ny > 1) || (nx == 1 && ny == 1 && nw == 1)) ? NO_SPLIT : SPLIT_M;
}

/* The group list as cumulative ends (and the experts of a sparse list); the count, or -1 when too long. */
static int64_t group_ends(const aclStubOpCall *call, const GmmRow *r, int64_t *ends, int64_t *experts, bool *sparse) {
    *sparse = false;
    if (r->group_list < 0 || !call->v[r->group_list].present) return 0;
    if (call->op->params[r->group_list].role == ACLSTUB_INT_ARRAY) {
        uint64_t n = call->v[r->group_list].size;
        if (n > MAX_GROUPS) return -1;
        for (uint64_t i = 0; i < n; i++) ends[i] = call->v[r->group_list].ints[i];
        return (int64_t)n;
    }
    const aclStubTensorDesc *t = call->v[r->group_list].tensor;
    if (t == NULL || t->data == NULL) return 0;
    int64_t type = r->group_list_type >= 0 ? aclStubOpInt(call, r->group_list_type) : 0;
    int64_t n = t->ndim ? t->dims[0] : 0;
    if (n > MAX_GROUPS) return -1;
    int64_t acc = 0;
    for (int64_t i = 0; i < n; i++) {
        if (type == 2) {
            experts[i] = aclStubIndexFlat(t, 2 * i, 2);
            acc += aclStubIndexFlat(t, 2 * i + 1, 2);
        } else {
            int64_t v = aclStubIndex1(t, i);
            acc = type == 1 ? acc + v : v;
        }
        ends[i] = acc;
    }
    *sparse = type == 2;
    return n;
}

/* The groups of a call whose group list is readable (phase 2; phase 1 only for int arrays and shapes). */
static void build_groups(const aclStubOpCall *call, const GmmRow *r, bool read_list, Groups *gs) {
    int64_t gt = group_type_of(call, r);
    uint64_t nx = list_size(call, r->x), nw = list_size(call, r->weight), ny = list_size(call, r->y),
             nb = list_given(call, r->bias) ? list_size(call, r->bias) : 0;
    int64_t ends[MAX_GROUPS], experts[MAX_GROUPS];
    bool sparse = false;
    int64_t ne = read_list ? group_ends(call, r, ends, experts, &sparse) : 0;
    if (ne < 0) ne = 0;
    gs->n = 0;
    if (gt == NO_SPLIT) {
        for (uint64_t i = 0; i < nx && i < nw && i < ny && i < MAX_GROUPS; i++)
            gs->g[gs->n++] = (Group){(int)i, (int)i, (int)i, nb ? (int)i : -1, -1, 0, 0, -1, 0, -1, -1};
        return;
    }
    const aclStubTensorDesc *w0 = entry(call, r->weight, 0), *x0 = entry(call, r->x, 0);
    bool single_w = nw == 1 && w0 != NULL && w0->ndim == 3;
    if (gt == SPLIT_M) {
        int64_t groups = nx > 1 ? (int64_t)nx : ny > 1 ? (int64_t)ny : ne ? ne : single_w ? w0->dims[0] : (int64_t)nw;
        int64_t start = 0;
        for (int64_t g = 0; g < groups && g < MAX_GROUPS; g++) {
            int64_t e = sparse ? experts[g] : g;
            Group G = {nx > 1 ? (int)g : 0, single_w ? 0 : (int)e, ny > 1 ? (int)g : 0, -1, single_w ? e : -1,
                       0, 0, 0, 0, -1, -1};
            if (nb) G.bi = nb > 1 ? (int)e : 0;
            if (nx > 1) {
                const aclStubTensorDesc *xg = entry(call, r->x, g);
                G.m = xg ? xg->dims[0] : 0;
                G.xr0 = 0, G.yr0 = ny > 1 ? 0 : start;
            } else if (ny > 1) {
                const aclStubTensorDesc *yg = entry(call, r->y, g);
                G.m = yg ? yg->dims[0] : 0;
                G.xr0 = start, G.yr0 = 0;
            } else {
                int64_t end = ne ? ends[g < ne ? g : ne - 1] : (x0 ? x0->dims[0] : 0);
                G.m = end > start ? end - start : 0;
                G.xr0 = G.yr0 = start;
            }
            start += G.m;
            gs->g[gs->n++] = G;
        }
        return;
    }
    /* SPLIT_K: y is (groups, m, n) */
    int64_t groups = ne ? ne : (int64_t)(nw > 1 ? nw : 1), start = 0;
    for (int64_t g = 0; g < groups && g < MAX_GROUPS; g++) {
        int64_t end = ne ? ends[g] : (x0 ? x0->dims[1] : 0);
        Group G = {0, nw > 1 ? (int)g : 0, 0, nb ? (nb > 1 ? (int)g : 0) : -1, single_w ? g : -1,
                   0, 0, -1, start, end > start ? end : start, g};
        start = G.k1;
        gs->g[gs->n++] = G;
    }
}

/* ---- views of a group ----------------------------------------------------------------------------------------- */

static aclStubTensorDesc rows_of_view(const aclStubTensorDesc *t, int64_t r0, int64_t m) {
    aclStubTensorDesc v = *t;
    if (m >= 0) {
        v.offset += r0 * t->strides[t->ndim - 2];
        v.dims[t->ndim - 2] = m;
    }
    return v;
}
static aclStubTensorDesc cols_of_view(const aclStubTensorDesc *t, int64_t c0, int64_t c1) {
    aclStubTensorDesc v = *t;
    if (c1 >= 0) {
        v.offset += c0 * t->strides[t->ndim - 1];
        v.dims[t->ndim - 1] = c1 - c0;
    }
    return v;
}
/* Entry e of the first dim of a view, one dim fewer (e < 0: the view). */
static aclStubTensorDesc pick(const aclStubTensorDesc *t, int64_t e) {
    aclStubTensorDesc v = *t;
    if (e < 0 || t->ndim < 2) return v;
    v.offset += e * t->strides[0];
    v.ndim = t->ndim - 1;
    memmove(v.dims, t->dims + 1, sizeof(int64_t) * v.ndim);
    memmove(v.strides, t->strides + 1, sizeof(int64_t) * v.ndim);
    return v;
}

typedef struct {
    aclStubTensorDesc x, w, y;
    bool has_bias;
    aclStubTensorDesc bias;
} GroupViews;

static bool group_views(const aclStubOpCall *call, const GmmRow *r, const Group *G, GroupViews *v) {
    const aclStubTensorDesc *x = entry(call, r->x, G->xi), *w = entry(call, r->weight, G->wi),
                            *y = entry(call, r->y, G->yi);
    if (x == NULL || w == NULL || y == NULL) return false;
    v->x = cols_of_view(x, G->k0, G->k1);
    v->x = rows_of_view(&v->x, G->xr0, G->m);
    aclStubTensorDesc wv = pick(w, G->e);
    v->w = G->k1 >= 0 ? rows_of_view(&wv, G->k0, G->k1 - G->k0) : wv;
    aclStubTensorDesc yv = pick(y, G->yslot);
    v->y = rows_of_view(&yv, G->yr0, G->m);
    const aclStubTensorDesc *b = G->bi >= 0 ? entry(call, r->bias, G->bi) : NULL;
    v->has_bias = b != NULL;
    if (b) v->bias = list_size(call, r->bias) == 1 && b->ndim == 2 ? pick(b, G->e >= 0 ? G->e : G->bi) : *b;
    return true;
}

/* ---- phase 1 ----------------------------------------------------------------------------------------------------- */

typedef enum { MODE_FLOAT, MODE_QUANT, MODE_ANTIQUANT } Mode;

static Mode mode_of(const aclStubOpCall *call, const GmmRow *r) {
    const aclStubTensorDesc *x = entry(call, r->x, 0), *w = entry(call, r->weight, 0);
    if (x && x->dtype == ACL_INT8) return MODE_QUANT;
    if (w && (w->dtype == ACL_INT8 || w->dtype == ACL_INT4 || w->dtype == ACL_INT32)) return MODE_ANTIQUANT;
    return MODE_FLOAT;
}

static aclnnStatus same_dtype(aclStubOpCall *call, int param, aclDataType want, const char *what) {
    for (uint64_t i = 0; i < list_size(call, param); i++) {
        const aclStubTensorDesc *t = entry(call, param, (int64_t)i);
        ACLSTUB_RETURN_ERROR_IF(t && t->dtype != want, call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: %s[%llu] has dtype %s, but %s is required", what, (unsigned long long)i,
                                aclStubDtypeName(t->dtype), aclStubDtypeName(want));
    }
    return OK;
}

static aclnnStatus gmm_check(aclStubOpCall *call) {
    const GmmRow *r = aclStubFamilyRow(call);
    uint64_t nx = list_size(call, r->x), nw = list_size(call, r->weight), ny = list_size(call, r->y);
    ACLSTUB_RETURN_ERROR_IF(nx == 0, call, ACLNN_ERR_PARAM_INVALID, "x must not be empty tensorlist.");
    ACLSTUB_RETURN_ERROR_IF(nw == 0, call, ACLNN_ERR_PARAM_INVALID, "weight must not be empty tensorlist.");
    ACLSTUB_RETURN_ERROR_IF(ny == 0, call, ACLNN_ERR_PARAM_INVALID, "y must not be empty tensorlist.");
    ACLSTUB_RETURN_ERROR_IF(nx > 128 || nw > 128 || ny > 128, call, ACLNN_ERR_PARAM_INVALID,
                            "Length of tensorList should not exceed 128");
    int64_t split = aclStubOpInt(call, r->split_item), gt = group_type_of(call, r);
    ACLSTUB_RETURN_ERROR_IF(gt == 1, call, ACLNN_ERR_PARAM_INVALID, "Not support split n dim now, groupType can not be 1.");
    ACLSTUB_RETURN_ERROR_IF(gt != NO_SPLIT && gt != SPLIT_M && gt != SPLIT_K, call, ACLNN_ERR_PARAM_INVALID,
                            "groupType only support -1/0/2 now, but given groupType is %lld", (long long)gt);
    ACLSTUB_RETURN_ERROR_IF(split < 0 || split > 3, call, ACLNN_ERR_PARAM_INVALID, "splitItem %lld is not in [0, 3]",
                            (long long)split);
    ACLSTUB_RETURN_ERROR_IF((split == 2 || split == 3) && gt == NO_SPLIT, call, ACLNN_ERR_PARAM_INVALID,
                            "When splitItem is 2/3, groupType can not be -1.");
    if (r->group_list_type >= 0) {
        int64_t glt = aclStubOpInt(call, r->group_list_type), act = aclStubOpInt(call, r->act_type);
        const aclStubTensorDesc *gl = r->group_list >= 0 ? call->v[r->group_list].tensor : NULL;
        ACLSTUB_RETURN_ERROR_IF(gl && (int64_t)gl->ndim != (glt == 2 ? 2 : 1), call, ACLNN_ERR_PARAM_INVALID,
                                "groupList dim only support 1 or 2 (only when groupListType is 2), but now groupList "
                                "dim is %u, groupListType is %lld.",
                                gl->ndim, (long long)glt);
        ACLSTUB_RETURN_ERROR_IF(act < 0, call, ACLNN_ERR_PARAM_INVALID, "actType must be larger or equal to 0");
        ACLSTUB_RETURN_ERROR_IF(act == GMM_ACT_TYPE_GELU_ERR_FUNC, call, ACLNN_ERR_PARAM_INVALID,
                                "Activation function not support GELU_ERR_FUNC now.");
        ACLSTUB_RETURN_ERROR_IF(act > GMM_ACT_TYPE_SILU, call, ACLNN_ERR_PARAM_INVALID,
                                "Activation function only support RELU/GELU_TANH/FASTGELU/SILU.");
        ACLSTUB_RETURN_ERROR_IF(glt == 2 && gt != SPLIT_M, call, ACLNN_ERR_PARAM_INVALID,
                                "When groupListType is 2 only support groupType 0, but get groupType %lld.",
                                (long long)gt);
        ACLSTUB_RETURN_ERROR_IF(glt < 0 || glt > 2, call, ACLNN_ERR_PARAM_INVALID, "groupListType shoule be 0 or 1.");
        ACLSTUB_RETURN_ERROR_IF(list_given(call, r->act_input) || list_given(call, r->act_qscale) ||
                                    list_given(call, r->act_qoffset) || list_size(call, r->act_out) ||
                                    list_size(call, r->dyn_scale_out),
                                call, ACLNN_ERR_PARAM_INVALID,
                                "activationInputOptional, activationQuantScaleOptional, activationQuantOffsetOptional, "
                                "activationFeatureOutOptional and dynQuantScaleOutOptional are reserved: pass nullptr");
    }
    if (r->group_list >= 0 && call->v[r->group_list].present) {
        if (call->op->params[r->group_list].role == ACLSTUB_INT_ARRAY) {
            const int64_t *gl = call->v[r->group_list].ints;
            uint64_t n = call->v[r->group_list].size;
            ACLSTUB_RETURN_ERROR_IF(n > 128, call, ACLNN_ERR_PARAM_INVALID,
                                    "When groupList type is int array, size of groupList %llu should be less than or "
                                    "equal to 128.", (unsigned long long)n);
            for (uint64_t i = 0; i < n; i++)
                ACLSTUB_RETURN_ERROR_IF(gl[i] < (i ? gl[i - 1] : 0), call, ACLNN_ERR_PARAM_INVALID,
                                        "groupListOptional should be non-negative and incremental.");
        } else {
            const aclStubTensorDesc *gl = call->v[r->group_list].tensor;
            ACLSTUB_RETURN_ERROR_IF(gl->dtype != ACL_INT64, call, ACLNN_ERR_PARAM_INVALID,
                                    "Invalid dtype: Only int64 is supported for groupList.");
            ACLSTUB_RETURN_ERROR_IF(gl->ndim >= 1 && gl->dims[0] > MAX_GROUPS, call, ACLNN_ERR_PARAM_INVALID,
                                    "When groupList type is tenosr, size of groupList %lld should be less than or equal "
                                    "to %d.", (long long)gl->dims[0], MAX_GROUPS);
        }
    }
    ACLSTUB_RETURN_ERROR_IF(gt == NO_SPLIT && (nx != nw || nx != ny), call, ACLNN_ERR_PARAM_INVALID,
                            "with groupType -1, x (%llu), weight (%llu) and y (%llu) must have one entry per group",
                            (unsigned long long)nx, (unsigned long long)nw, (unsigned long long)ny);
    ACLSTUB_RETURN_ERROR_IF(gt == NO_SPLIT && r->group_list >= 0 && r->version > 2 && call->v[r->group_list].present,
                            call, ACLNN_ERR_PARAM_INVALID, "groupListOptional should be nullptr when groupType is -1.");
    /* every tensor of the required lists present, dtypes */
    for (int p = 0; p < 3; p++) {
        int param = p == 0 ? r->x : p == 1 ? r->weight : r->y;
        for (uint64_t i = 0; i < list_size(call, param); i++)
            ACLSTUB_RETURN_ERROR_IF(entry(call, param, (int64_t)i) == NULL, call, ACLNN_ERR_PARAM_INVALID,
                                    "%s[%llu] is null, which is not supported.", aclStubOpName(call, param),
                                    (unsigned long long)i);
    }
    Mode mode = mode_of(call, r);
    aclDataType xt = entry(call, r->x, 0)->dtype, wt = entry(call, r->weight, 0)->dtype,
                yt = entry(call, r->y, 0)->dtype;
    ACLSTUB_TRY(same_dtype(call, r->x, xt, "x"));
    ACLSTUB_TRY(same_dtype(call, r->weight, wt, "weight"));
    ACLSTUB_TRY(same_dtype(call, r->y, yt, "y"));
    bool quant_given = list_given(call, r->scale) || list_given(call, r->offset) || list_given(call, r->pertoken);
    bool aq_given = list_given(call, r->aq_scale) || list_given(call, r->aq_offset);
    if (mode == MODE_FLOAT) {
        ACLSTUB_RETURN_ERROR_IF(xt != ACL_FLOAT16 && xt != ACL_BF16 && xt != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: x dtype %s is not supported", aclStubDtypeName(xt));
        ACLSTUB_TRY(same_dtype(call, r->weight, xt, "weight"));
        ACLSTUB_TRY(same_dtype(call, r->y, xt, "y"));
        if (list_given(call, r->bias)) ACLSTUB_TRY(same_dtype(call, r->bias, xt == ACL_BF16 ? ACL_FLOAT : xt, "bias"));
        ACLSTUB_RETURN_ERROR_IF(quant_given, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected nonquant, but quant inputs is not empty!");
        ACLSTUB_RETURN_ERROR_IF(aq_given, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected nonquant, but antiquant inputs is not empty!");
    } else if (mode == MODE_QUANT) {
        ACLSTUB_TRY(same_dtype(call, r->weight, ACL_INT8, "weight"));
        ACLSTUB_RETURN_ERROR_IF(gt == SPLIT_K, call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: quant cases do not support splited axis is K.");
        ACLSTUB_RETURN_ERROR_IF(list_given(call, r->offset), call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: offset must be nullptr in quant, but now is not nullptr.");
        ACLSTUB_RETURN_ERROR_IF(!list_given(call, r->scale), call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: scale must not be nullptr in quant, but now is nullptr.");
        ACLSTUB_RETURN_ERROR_IF(aq_given, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected quant, but antiquant inputs is not empty!");
        bool pt = list_given(call, r->pertoken);
        for (uint64_t i = 0; i < list_size(call, r->scale); i++) {
            const aclStubTensorDesc *s = entry(call, r->scale, (int64_t)i);
            if (s == NULL) continue;
            bool ok = pt ? ((s->dtype == ACL_BF16 && yt == ACL_BF16) || (s->dtype == ACL_FLOAT && yt == ACL_FLOAT16))
                         : (((s->dtype == ACL_INT64 || s->dtype == ACL_UINT64) && yt == ACL_INT8) ||
                            (s->dtype == ACL_BF16 && yt == ACL_BF16) || (s->dtype == ACL_FLOAT && yt == ACL_FLOAT16));
            ACLSTUB_RETURN_ERROR_IF(!ok, call, ACLNN_ERR_PARAM_INVALID,
                                    "scale[%llu] dtype %s does not match y dtype %s", (unsigned long long)i,
                                    aclStubDtypeName(s->dtype), aclStubDtypeName(yt));
        }
        if (pt) {
            ACLSTUB_RETURN_ERROR_IF(nx != 1 || ny != 1 || list_size(call, r->pertoken) != 1, call,
                                    ACLNN_ERR_PARAM_INVALID,
                                    "per-token quant case is only supported when x, weight and y are all single tensor");
            const aclStubTensorDesc *p = entry(call, r->pertoken, 0);
            ACLSTUB_RETURN_ERROR_IF(p->dtype != ACL_FLOAT || p->ndim != 1 || p->dims[0] != entry(call, r->x, 0)->dims[0],
                                    call, ACLNN_ERR_PARAM_INVALID,
                                    "perTokenScaleOptional must be a FLOAT [m] tensor, got %s",
                                    aclStubDtypeName(p->dtype));
        }
        if (list_given(call, r->bias)) ACLSTUB_TRY(same_dtype(call, r->bias, ACL_INT32, "bias"));
    } else {
        ACLSTUB_RETURN_ERROR_IF(xt != ACL_FLOAT16 && xt != ACL_BF16, call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: antiquant needs FLOAT16 or BF16 x, got %s", aclStubDtypeName(xt));
        ACLSTUB_TRY(same_dtype(call, r->y, xt, "y"));
        ACLSTUB_RETURN_ERROR_IF(!list_given(call, r->aq_scale), call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: antiquantScaleOptional is required for an integer weight");
        ACLSTUB_RETURN_ERROR_IF(quant_given, call, ACLNN_ERR_PARAM_INVALID,
                                "Detected antiquant, but quant inputs is not empty!");
        ACLSTUB_RETURN_ERROR_IF(wt == ACL_INT32, call, ACLNN_ERR_PARAM_INVALID,
                                "GMM: a packed INT32 weight is not supported here (use an INT4 view)");
        if (list_given(call, r->bias)) ACLSTUB_TRY(same_dtype(call, r->bias, xt == ACL_BF16 ? ACL_FLOAT : xt, "bias"));
    }
    /* shapes, group by group (the group list of a tensor is read in phase 2) */
    Groups *gs = malloc(sizeof *gs);
    if (gs == NULL) return aclStubOpFail(call, ACLNN_ERR_INNER, "out of host memory");
    bool list_tensor = r->group_list >= 0 && call->op->params[r->group_list].role != ACLSTUB_INT_ARRAY;
    build_groups(call, r, !list_tensor, gs);
    aclnnStatus st = OK;
    for (int g = 0; g < gs->n && st == OK; g++) {
        GroupViews v;
        if (!group_views(call, r, &gs->g[g], &v)) {
            st = aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "group %d has no x, weight or y", g);
            break;
        }
        int64_t xk = v.x.dims[v.x.ndim - 1], wk = v.w.dims[v.w.ndim - 2], n = v.w.dims[v.w.ndim - 1];
        if (v.w.ndim != 2 || v.x.ndim < 2 || v.y.ndim != v.x.ndim)
            st = aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "group %d: x %u-D, weight %u-D and y %u-D do not match",
                               g, v.x.ndim, v.w.ndim, v.y.ndim);
        else if (xk != wk && gs->g[g].k1 < 0)
            st = aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "group %d: the k of x (%lld) and weight (%lld) differ",
                               g, (long long)xk, (long long)wk);
        else if (v.y.dims[v.y.ndim - 1] != n)
            st = aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "group %d: y's last dim %lld must be n = %lld", g,
                               (long long)v.y.dims[v.y.ndim - 1], (long long)n);
        else if (gs->g[g].m < 0 && !aclStubShapeEqual(v.x.dims, v.x.ndim - 1, v.y.dims, v.y.ndim - 1))
            st = aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "group %d: y must have x's leading dims", g);
        else if (v.has_bias && aclStubNumel(&v.bias) != n)
            st = aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "group %d: bias must have n = %lld elements", g,
                               (long long)n);
    }
    /* rows of x and y the group list reaches */
    if (st == OK && gt == SPLIT_M && nx == 1 && ny == 1 && !list_tensor && gs->n > 0) {
        const Group *last = &gs->g[gs->n - 1];
        int64_t rows = entry(call, r->x, 0)->dims[0];
        if (last->xr0 + last->m > rows || last->yr0 + last->m > entry(call, r->y, 0)->dims[0])
            st = aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID,
                               "When splited axis is M, the last value of group list(%lld) must equal with x shape[0] "
                               "(%lld).", (long long)(last->xr0 + last->m), (long long)rows);
    }
    free(gs);
    return st;
}

/* ---- phase 2 -------------------------------------------------------------------------------------------------- */

static float activate(int act, float x) {
    switch (act) {
    case GMM_ACT_TYPE_RELU: return x > 0.0f ? x : (x != x ? x : 0.0f);
    case GMM_ACT_TYPE_GELU_TANH:
        return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    case GMM_ACT_TYPE_FAST_GELU: {
        float a = fabsf(x);
        return x / (1.0f + expf(-1.702f * a)) * expf(0.851f * (x - a));
    }
    case GMM_ACT_TYPE_SILU: return x / (1.0f + expf(-x));
    default: return x;
    }
}

typedef struct {
    int act;
    const aclStubTensorDesc *bias; /* the group's bias, or NULL */
} FloatCtx;

/* bias (float32 addition), activation, narrowed once to y */
static void float_row(const aclStubMatmul *mm, const aclStubMmRow *row) {
    const FloatCtx *c = mm->ctx;
    float *v = row->f;
    if (c->bias)
        for (int64_t j = 0; j < row->n; j++) v[j] = v[j] + aclStubLoadPtrF32(c->bias->dtype, aclStubElemAt(c->bias, row->j0 + j));
    if (c->act)
        for (int64_t j = 0; j < row->n; j++) v[j] = activate(c->act, v[j]);
    aclStubCastStrided(row->out, row->out_cs * (int64_t)aclDataTypeSize(mm->out.dtype), mm->out.dtype, v, 4, ACL_FLOAT,
                       row->n);
}

/* A 1-D per-column vector (n values, or 1) as a row of the product. */
static aclStubMat col_vec(const aclStubTensorDesc *t) {
    aclStubMat m;
    memset(&m, 0, sizeof m);
    m.dtype = ACL_DT_UNDEFINED;
    if (t == NULL) return m;
    m.dtype = t->dtype, m.data = t->data, m.offset = t->offset;
    m.cs = aclStubNumel(t) == 1 ? 0 : t->strides[t->ndim - 1];
    return m;
}

/* Entry of a per-group list: one tensor per group, or one (e, ...) tensor picked at the group's expert. */
static aclStubTensorDesc group_param(const aclStubOpCall *call, int param, const Group *G, int64_t gi, bool *present) {
    aclStubTensorDesc none;
    memset(&none, 0, sizeof none);
    *present = false;
    if (!list_given(call, param)) return none;
    uint64_t n = list_size(call, param);
    const aclStubTensorDesc *t = entry(call, param, n > 1 ? (G->e >= 0 ? G->e : gi) : 0);
    if (t == NULL) return none;
    *present = true;
    int64_t e = G->e >= 0 ? G->e : gi;
    return n == 1 && G->wi == 0 && G->e >= 0 && t->ndim >= 2 ? pick(t, e) : *t;
}

static aclnnStatus run_group(const aclStubOpCall *call, const GmmRow *r, const Group *G, int64_t gi) {
    GroupViews v;
    if (!group_views(call, r, G, &v)) return OK;
    int64_t nb = (int64_t)v.x.ndim - 2;
    int64_t batch[ACLSTUB_MM_MAX_BATCH];
    for (int64_t d = 0; d < nb; d++) batch[d] = v.x.dims[d];
    aclStubMatmul mm;
    memset(&mm, 0, sizeof mm);
    mm.nbatch = (int)nb;
    memcpy(mm.batch, batch, sizeof(int64_t) * (size_t)nb);
    mm.m = v.x.dims[v.x.ndim - 2], mm.k = v.x.dims[v.x.ndim - 1], mm.n = v.w.dims[1];
    if (mm.m == 0 || mm.n == 0) return OK;
    mm.a = aclStubMatOfView(&v.x, mm.nbatch, batch, false, true);
    mm.b = aclStubMatOfView(&v.w, mm.nbatch, batch, false, false);
    mm.out = aclStubMatOfView(&v.y, mm.nbatch, batch, false, true);
    mm.add.dtype = ACL_DT_UNDEFINED;
    mm.alpha = mm.beta = 1.0f;
    int act = r->act_type >= 0 ? (int)aclStubOpInt(call, r->act_type) : 0;
    Mode mode = mode_of(call, r);
    FloatCtx fc = {act, v.has_bias ? &v.bias : NULL};
    if (mode == MODE_FLOAT || mode == MODE_ANTIQUANT) {
        mm.compute = aclStubMmComputeFor(v.x.dtype, mode == MODE_FLOAT ? v.w.dtype : v.x.dtype, 0);
        mm.result = ACL_FLOAT;
        mm.row_fn = float_row;
        mm.ctx = &fc;
        if (mode == MODE_ANTIQUANT) {
            bool has_s, has_o;
            aclStubTensorDesc sc = group_param(call, r->aq_scale, G, gi, &has_s),
                              of = group_param(call, r->aq_offset, G, gi, &has_o);
            int64_t k = v.w.dims[0], n = v.w.dims[1];
            int64_t group = sc.ndim == 2 && sc.dims[0] > 1 ? (k + sc.dims[0] - 1) / sc.dims[0] : 0;
            uint16_t *wq = aclStubKernelScratch(call, sizeof(uint16_t) * (size_t)(k * n));
            if (wq == NULL) return aclStubKernelOutOfMemory(call);
            aclStubMmAntiquantWeight(&v.w, &sc, has_o ? &of : NULL, group, v.x.dtype, wq);
            aclStubTensorDesc wv;
            memset(&wv, 0, sizeof wv);
            wv.dtype = v.x.dtype, wv.ndim = 2, wv.data = wq, wv.dims[0] = k, wv.dims[1] = n, wv.strides[0] = n,
            wv.strides[1] = 1;
            mm.b = aclStubMatOfView(&wv, mm.nbatch, batch, false, false);
        }
        return aclStubMatmulRun(call, &mm);
    }
    /* W8A8: the int32 sums dequantised; an activation goes through float32 scratch */
    bool has_s;
    aclStubTensorDesc sc = group_param(call, r->scale, G, gi, &has_s);
    aclStubMmDequant dq;
    memset(&dq, 0, sizeof dq);
    dq.scale = col_vec(&sc);
    dq.offset.dtype = dq.pertoken.dtype = dq.bias.dtype = ACL_DT_UNDEFINED;
    if (v.has_bias) dq.bias = col_vec(&v.bias);
    const aclStubTensorDesc *pt = list_given(call, r->pertoken) ? entry(call, r->pertoken, 0) : NULL;
    if (pt) {
        dq.pertoken.dtype = pt->dtype, dq.pertoken.data = pt->data;
        dq.pertoken.offset = pt->offset + G->xr0 * pt->strides[0];
        dq.pertoken.rs = pt->strides[0];
    }
    mm.compute = ACLSTUB_MM_INT;
    mm.result = ACL_INT32;
    mm.row_fn = aclStubMmDequantRow;
    mm.ctx = &dq;
    if (act == 0) return aclStubMatmulRun(call, &mm);
    int64_t rows = 1;
    for (int64_t d = 0; d < nb; d++) rows *= batch[d];
    rows *= mm.m;
    float *tmp = aclStubKernelScratch(call, sizeof(float) * (size_t)(rows * mm.n));
    if (tmp == NULL) return aclStubKernelOutOfMemory(call);
    aclStubTensorDesc tv = v.y;
    tv.dtype = ACL_FLOAT, tv.data = tmp, tv.offset = 0;
    int64_t st = 1;
    for (uint32_t d = tv.ndim; d-- > 0;) tv.strides[d] = st, st *= tv.dims[d];
    mm.out = aclStubMatOfView(&tv, mm.nbatch, batch, false, true);
    ACLSTUB_TRY(aclStubMatmulRun(call, &mm));
    for (int64_t i = 0; i < rows * mm.n; i++) tmp[i] = activate(act, tmp[i]);
    for (int64_t i = 0; i < rows * mm.n; i++)
        aclStubStorePtrF32(v.y.dtype, aclStubElemAt(&v.y, i), tmp[i]);
    return OK;
}

static aclnnStatus gmm_kernel(const aclStubOpCall *call) {
    const GmmRow *r = aclStubFamilyRow(call);
    Groups *gs = aclStubKernelScratch(call, sizeof *gs);
    if (gs == NULL) return aclStubKernelOutOfMemory(call);
    build_groups(call, r, true, gs);
    /* a group list that overruns x or y (read only now for a tensor) is refused as the device's tiling would */
    int64_t gt = group_type_of(call, r);
    if (gt == SPLIT_M && list_size(call, r->x) == 1 && list_size(call, r->y) == 1 && gs->n > 0) {
        const Group *last = &gs->g[gs->n - 1];
        if (last->xr0 + last->m > entry(call, r->x, 0)->dims[0] || last->yr0 + last->m > entry(call, r->y, 0)->dims[0])
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID,
                                     "the group list reaches row %lld, past x's %lld rows",
                                     (long long)(last->xr0 + last->m), (long long)entry(call, r->x, 0)->dims[0]);
    }
    if (gt == SPLIT_K && gs->n > 0) {
        const Group *last = &gs->g[gs->n - 1];
        const aclStubTensorDesc *y = entry(call, r->y, 0);
        if (last->k1 > entry(call, r->x, 0)->dims[1] || gs->n > y->dims[0])
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID, "the group list overruns x's k or y's groups");
    }
    for (int g = 0; g < gs->n; g++) ACLSTUB_TRY(run_group(call, r, &gs->g[g], g));
    return OK;
}

/* ---- the entry points ------------------------------------------------------------------------------------------- */

#define TL(NAME) {.name = NAME, .role = ACLSTUB_TENSOR_LIST, .flags = ACLSTUB_NULLABLE}
#define TLR(NAME) {.name = NAME, .role = ACLSTUB_TENSOR_LIST}
#define OL(NAME) {.name = NAME, .role = ACLSTUB_OUTPUT_LIST, .flags = ACLSTUB_NULLABLE}
#define OLR(NAME) {.name = NAME, .role = ACLSTUB_OUTPUT_LIST}
#define I(NAME) {.name = NAME, .role = ACLSTUB_INT}

static const aclStubParam kV1Params[] = {
    TLR("x"), TLR("weight"), TL("biasOptional"), TL("scaleOptional"), TL("offsetOptional"),
    TL("antiquantScaleOptional"), TL("antiquantOffsetOptional"),
    {.name = "groupListOptional", .role = ACLSTUB_INT_ARRAY, .flags = ACLSTUB_NULLABLE}, I("splitItem"), OLR("y")};
static const aclStubParam kV2Params[] = {
    TLR("x"), TLR("weight"), TL("biasOptional"), TL("scaleOptional"), TL("offsetOptional"),
    TL("antiquantScaleOptional"), TL("antiquantOffsetOptional"),
    {.name = "groupListOptional", .role = ACLSTUB_INT_ARRAY, .flags = ACLSTUB_NULLABLE}, I("splitItem"),
    I("groupType"), OLR("y")};
static const aclStubParam kV3Params[] = {
    TLR("x"), TLR("weight"), TL("biasOptional"), TL("scaleOptional"), TL("offsetOptional"),
    TL("antiquantScaleOptional"), TL("antiquantOffsetOptional"),
    {.name = "groupListOptional", .role = ACLSTUB_OPTIONAL_INPUT}, I("splitItem"), I("groupType"), OLR("y")};
static const aclStubParam kV4Params[] = {
    TLR("x"), TLR("weight"), TL("biasOptional"), TL("scaleOptional"), TL("offsetOptional"),
    TL("antiquantScaleOptional"), TL("antiquantOffsetOptional"), TL("perTokenScaleOptional"),
    {.name = "groupListOptional", .role = ACLSTUB_OPTIONAL_INPUT}, TL("activationInputOptional"),
    TL("activationQuantScaleOptional"), TL("activationQuantOffsetOptional"), I("splitItem"), I("groupType"),
    I("groupListType"), I("actType"), OLR("out"), OL("activationFeatureOutOptional"), OL("dynQuantScaleOutOptional")};
static const aclStubParam kV5Params[] = {
    TLR("x"), TLR("weight"), TL("biasOptional"), TL("scaleOptional"), TL("offsetOptional"),
    TL("antiquantScaleOptional"), TL("antiquantOffsetOptional"), TL("perTokenScaleOptional"),
    {.name = "groupListOptional", .role = ACLSTUB_OPTIONAL_INPUT}, TL("activationInputOptional"),
    TL("activationQuantScaleOptional"), TL("activationQuantOffsetOptional"), I("splitItem"), I("groupType"),
    I("groupListType"), I("actType"), {.name = "tuningConfigOptional", .role = ACLSTUB_INT_ARRAY, .flags = ACLSTUB_NULLABLE},
    OLR("out"), OL("activationFeatureOutOptional"), OL("dynQuantScaleOutOptional")};

/*                          x  w  b  sc of aqs aqo pt gl si gt glt act  y  ain aqs aqo aout dyn tune ver */
static const GmmRow kV1Row = {0, 1, 2, 3, 4, 5, 6, -1, 7, 8, -1, -1, -1, 9, -1, -1, -1, -1, -1, -1, 1};
static const GmmRow kV2Row = {0, 1, 2, 3, 4, 5, 6, -1, 7, 8, 9, -1, -1, 10, -1, -1, -1, -1, -1, -1, 2};
static const GmmRow kV3Row = {0, 1, 2, 3, 4, 5, 6, -1, 7, 8, 9, -1, -1, 10, -1, -1, -1, -1, -1, -1, 3};
static const GmmRow kV4Row = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 9, 10, 11, 17, 18, -1, 4};
static const GmmRow kV5Row = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 17, 9, 10, 11, 18, 19, 16, 5};

#define GMM_OP(NAME, PARAMS, ROW)                                                                                 \
    static const aclStubFamilyOp k##NAME = {{#NAME, PARAMS, ACLSTUB_LEN(PARAMS), NULL, gmm_check, gmm_kernel, 0},  \
                                           &ROW};
GMM_OP(aclnnGroupedMatmul, kV1Params, kV1Row)
GMM_OP(aclnnGroupedMatmulV2, kV2Params, kV2Row)
GMM_OP(aclnnGroupedMatmulV3, kV3Params, kV3Row)
GMM_OP(aclnnGroupedMatmulV4, kV4Params, kV4Row)
GMM_OP(aclnnGroupedMatmulV5, kV5Params, kV5Row)

ACLSTUB_DEFINE_OP(aclnnGroupedMatmul, kaclnnGroupedMatmul.def, (const aclTensorList *, x), (const aclTensorList *, weight),
                  (const aclTensorList *, biasOptional), (const aclTensorList *, scaleOptional),
                  (const aclTensorList *, offsetOptional), (const aclTensorList *, antiquantScaleOptional),
                  (const aclTensorList *, antiquantOffsetOptional), (const aclIntArray *, groupListOptional),
                  (int64_t, splitItem), (const aclTensorList *, y))
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulV2, kaclnnGroupedMatmulV2.def, (const aclTensorList *, x),
                  (const aclTensorList *, weight), (const aclTensorList *, biasOptional),
                  (const aclTensorList *, scaleOptional), (const aclTensorList *, offsetOptional),
                  (const aclTensorList *, antiquantScaleOptional), (const aclTensorList *, antiquantOffsetOptional),
                  (const aclIntArray *, groupListOptional), (int64_t, splitItem), (int64_t, groupType),
                  (const aclTensorList *, y))
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulV3, kaclnnGroupedMatmulV3.def, (const aclTensorList *, x),
                  (const aclTensorList *, weight), (const aclTensorList *, biasOptional),
                  (const aclTensorList *, scaleOptional), (const aclTensorList *, offsetOptional),
                  (const aclTensorList *, antiquantScaleOptional), (const aclTensorList *, antiquantOffsetOptional),
                  (const aclTensor *, groupListOptional), (int64_t, splitItem), (int64_t, groupType),
                  (const aclTensorList *, y))
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulV4, kaclnnGroupedMatmulV4.def, (const aclTensorList *, x),
                  (const aclTensorList *, weight), (const aclTensorList *, biasOptional),
                  (const aclTensorList *, scaleOptional), (const aclTensorList *, offsetOptional),
                  (const aclTensorList *, antiquantScaleOptional), (const aclTensorList *, antiquantOffsetOptional),
                  (const aclTensorList *, perTokenScaleOptional), (const aclTensor *, groupListOptional),
                  (const aclTensorList *, activationInputOptional), (const aclTensorList *, activationQuantScaleOptional),
                  (const aclTensorList *, activationQuantOffsetOptional), (int64_t, splitItem), (int64_t, groupType),
                  (int64_t, groupListType), (int64_t, actType), (aclTensorList *, out),
                  (aclTensorList *, activationFeatureOutOptional), (aclTensorList *, dynQuantScaleOutOptional))
ACLSTUB_DEFINE_OP(aclnnGroupedMatmulV5, kaclnnGroupedMatmulV5.def, (const aclTensorList *, x),
                  (const aclTensorList *, weight), (const aclTensorList *, biasOptional),
                  (const aclTensorList *, scaleOptional), (const aclTensorList *, offsetOptional),
                  (const aclTensorList *, antiquantScaleOptional), (const aclTensorList *, antiquantOffsetOptional),
                  (const aclTensorList *, perTokenScaleOptional), (const aclTensor *, groupListOptional),
                  (const aclTensorList *, activationInputOptional), (const aclTensorList *, activationQuantScaleOptional),
                  (const aclTensorList *, activationQuantOffsetOptional), (int64_t, splitItem), (int64_t, groupType),
                  (int64_t, groupListType), (int64_t, actType), (aclIntArray *, tuningConfigOptional),
                  (aclTensorList *, out), (aclTensorList *, activationFeatureOutOptional),
                  (aclTensorList *, dynQuantScaleOutOptional))
