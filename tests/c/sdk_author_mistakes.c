/*
 * Mistakes an operator author can make with the operator SDK are clear 561000 errors, never crashes: a
 * table whose parameter kinds do not match the entry point, a same-dtype rule naming no tensor, a parameter
 * or an operator without a name (introspection with such tables loaded works too), and a skeleton whose
 * check still says "not implemented". Prints one line per case; exits non-zero on a mismatch.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclstub/aclstub.h"
#include "aclstub/op_sdk.h"

static aclnnStatus check_ok(aclStubOpCall *c) { return aclStubOpNothingToDo(c); }
static aclnnStatus kernel_none(const aclStubOpCall *c) { return aclStubKernelFail(c, ACLNN_ERR_INNER, "never runs"); }

/* The table says the first parameter is an int attribute; the entry point passes a tensor. */
static const aclStubParam WRONG_KIND[] = {[0] = {"self", ACLSTUB_INT}, [1] = {"out", ACLSTUB_OUTPUT}};
static const aclStubOpDef WRONG_KIND_OP = {"aclnnWrongKind", WRONG_KIND, 2, NULL, check_ok, kernel_none, 0};
ACLSTUB_DEFINE_OP(aclnnWrongKind, WRONG_KIND_OP, (const aclTensor *, self), (aclTensor *, out))

/* Three parameters declared, two passed. */
static const aclStubParam TOO_MANY[] = {[0] = {"self", ACLSTUB_INPUT}, [1] = {"out", ACLSTUB_OUTPUT},
                                       [2] = {"alpha", ACLSTUB_FLOAT}};
static const aclStubOpDef TOO_MANY_OP = {"aclnnTooMany", TOO_MANY, 3, NULL, check_ok, kernel_none, 0};
ACLSTUB_DEFINE_OP(aclnnTooMany, TOO_MANY_OP, (const aclTensor *, self), (aclTensor *, out))

/* A same-dtype rule naming an attribute. */
static const aclStubParam BAD_SAME[] = {[0] = {"self", ACLSTUB_INPUT}, [1] = {"k", ACLSTUB_INT},
                                       [2] = {"out", ACLSTUB_OUTPUT, 0, "k"}};
static const aclStubOpDef BAD_SAME_OP = {"aclnnBadSame", BAD_SAME, 3, NULL, check_ok, kernel_none, 0};
ACLSTUB_DEFINE_OP(aclnnBadSame, BAD_SAME_OP, (const aclTensor *, self), (int64_t, k), (aclTensor *, out))

/* A parameter without a name, after a same-dtype rule (whose lookup reads every name). */
static const aclStubParam NULL_NAME[] = {[0] = {"out", ACLSTUB_OUTPUT, 0, "self"}, [1] = {NULL, ACLSTUB_INPUT}};
static const aclStubOpDef NULL_NAME_OP = {"aclnnNullName", NULL_NAME, 2, NULL, check_ok, kernel_none, 0};
ACLSTUB_DEFINE_OP(aclnnNullName, NULL_NAME_OP, (aclTensor *, out), (const aclTensor *, self))

/* An operator without a name: loaded, registered, and described like any other (never read). */
static const aclStubParam UNNAMED[] = {[0] = {"self", ACLSTUB_INPUT}, [1] = {"out", ACLSTUB_OUTPUT}};
static const aclStubOpDef UNNAMED_OP = {NULL, UNNAMED, 2, NULL, check_ok, kernel_none, 0};
ACLSTUB_DEFINE_OP(aclnnUnnamed, UNNAMED_OP, (const aclTensor *, self), (aclTensor *, out))

static int failures;

static void expect(const char *what, aclnnStatus got, aclnnStatus want, const char *fragment) {
    const char *msg = aclGetRecentErrMsg();
    bool ok = got == want && msg && strstr(msg, fragment);
    printf("%s: %d %s\n", what, (int)got, ok ? "ok" : msg ? msg : "(no message)");
    failures += !ok;
}

int main(void) {
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
    int64_t dims[1] = {4};
    void *dev = NULL;
    if (aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 2;
    aclTensor *t = aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, dev);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    expect("kind", aclnnWrongKindGetWorkspaceSize(t, t, &ws, &ex), ACLNN_ERR_INNER, "'self' is an int64_t");
    expect("count", aclnnTooManyGetWorkspaceSize(t, t, &ws, &ex), ACLNN_ERR_INNER, "passes 2 arguments");
    expect("same", aclnnBadSameGetWorkspaceSize(t, 3, t, &ws, &ex), ACLNN_ERR_INNER, "not a tensor parameter");
    expect("null name", aclnnNullNameGetWorkspaceSize(t, t, &ws, &ex), ACLNN_ERR_INNER, "parameter 1 of the "
           "operator's table has no name");
    expect("unnamed", aclnnUnnamedGetWorkspaceSize(t, t, &ws, &ex), ACLNN_ERR_INNER, "table has no name");
    /* Introspection with these tables loaded: unknown and broken operators describe as nothing. */
    char text[512];
    int described = aclStubDescribeOp("aclnnNullName", text, sizeof text) == 1 &&
                    aclStubDescribeOp("aclnnNoSuchOperator", text, sizeof text) == 1 &&
                    aclStubDescribeOp("aclnnWrongKind", text, sizeof text) > 1 && strncmp(text, "self\tint\t", 9) == 0;
    for (size_t i = 0; aclStubRegisteredOp(i) != NULL; i++) described &= strcmp(aclStubRegisteredOp(i), "") != 0;
    printf("describe: %s\n", described ? "ok" : "wrong");
    failures += !described;
    aclDestroyTensor(t);
    aclrtFree(dev);
    aclrtResetDevice(0);
    aclFinalize();
    return failures ? 1 : 0;
}
