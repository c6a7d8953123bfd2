/*
 * One runtime and one operator registry, whichever stub libraries a program links or opens, and in which
 * order (tests/test_libraries.py builds this program with each official link line, and with none).
 *
 *   library_sets linked   the program is linked with a link line (with --no-as-needed, so every library
 *                         on it is loaded): one runtime (libascendcl.so and libacl_rt.so resolve to the
 *                         same functions and state), and the operators the line's libraries register, each
 *                         listed once
 *   library_sets dlopen   nothing linked: libacl_rt.so, then libascendcl.so, then every operator library
 *                         opened with RTLD_LOCAL, then closed one at a time
 *
 * Prints one "name value" line per check (1 = holds), and "op:<name> 1" per registered operator.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

typedef aclError (*InitFn)(const char *);
typedef aclError (*FinalizeFn)(void);
typedef const char *(*RegisteredFn)(size_t);
typedef size_t (*DescribeFn)(const char *, char *, size_t);

static void check(const char *name, int holds) { printf("%s %d\n", name, holds ? 1 : 0); }

static void *sym(void *handle, const char *name) {
    void *p = handle ? dlsym(handle, name) : NULL;
    if (p == NULL) fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
    return p;
}

/* The file the code at addr belongs to ends with suffix. */
static int defined_in(void *addr, const char *suffix) {
    Dl_info info;
    if (addr == NULL || dladdr(addr, &info) == 0 || info.dli_fname == NULL) return 0;
    size_t n = strlen(info.dli_fname), m = strlen(suffix);
    return n >= m && strcmp(info.dli_fname + n - m, suffix) == 0;
}

/* The registered operators, each printed once; the number of names listed more than once. */
static size_t list_ops(RegisteredFn registered, int print) {
    const char *names[4096];
    size_t n = 0, repeated = 0;
    for (const char *name; n < 4096 && (name = registered(n)) != NULL; n++) {
        for (size_t k = 0; k < n; k++) repeated += strcmp(names[k], name) == 0;
        names[n] = name;
        if (print) printf("op:%s 1\n", name);
    }
    return repeated;
}

static size_t count_ops(RegisteredFn registered) {
    size_t n = 0;
    while (registered(n) != NULL) n++;
    return n;
}

/* Both runtime names give the same aclInit, defined in libascendcl.so, and one state: the second aclInit,
 * through the other name, is a repeated initialisation. */
static void one_runtime(void *acl_rt, void *ascendcl, void *linked_init) {
    InitFn a = (InitFn)sym(acl_rt, "aclInit"), b = (InitFn)sym(ascendcl, "aclInit");
    FinalizeFn fin = (FinalizeFn)sym(ascendcl, "aclFinalize");
    check("same_aclInit", a != NULL && a == b && (linked_init == NULL || (void *)a == linked_init));
    check("aclInit_in_libascendcl", defined_in((void *)a, "/libascendcl.so"));
    check("aclStubCheckTools_shared", sym(acl_rt, "aclStubCheckTools") != NULL &&
                                          sym(acl_rt, "aclStubCheckTools") == sym(ascendcl, "aclStubCheckTools"));
    check("first_init", a != NULL && a(NULL) == ACL_SUCCESS);
    check("second_init_repeats", b != NULL && b(NULL) == ACL_ERROR_REPEAT_INITIALIZE);
    check("finalize", fin != NULL && fin() == ACL_SUCCESS);
}

static int linked(void) {
    /* Looked up rather than referenced, so the same source also builds with no stub library linked. */
    void *linked_init = dlsym(RTLD_DEFAULT, "aclInit");
    check("linked_runtime", linked_init != NULL);
    void *acl_rt = dlopen("libacl_rt.so", RTLD_NOW | RTLD_LOCAL);
    void *ascendcl = dlopen("libascendcl.so", RTLD_NOW | RTLD_LOCAL);
    void *nnopbase = dlopen("libnnopbase.so", RTLD_NOW | RTLD_NOLOAD);
    check("nnopbase_loaded", nnopbase != NULL);
    one_runtime(acl_rt, ascendcl, linked_init);
    RegisteredFn registered = (RegisteredFn)sym(nnopbase, "aclStubRegisteredOp");
    check("no_repeated_op", registered != NULL && list_ops(registered, 1) == 0);
    return 0;
}

static const char *const OP_LIBS[] = {"libopapi.so", "libopapi_math.so", "libopapi_nn.so", "libopapi_cv.so",
                                      "libopapi_transformer.so"};
#define NUM_OP_LIBS (sizeof OP_LIBS / sizeof OP_LIBS[0])

static int opened(void) {
    void *acl_rt = dlopen("libacl_rt.so", RTLD_NOW | RTLD_LOCAL); /* loads libascendcl.so, its filtee */
    void *ascendcl = dlopen("libascendcl.so", RTLD_NOW | RTLD_LOCAL);
    check("opened_runtime", acl_rt != NULL && ascendcl != NULL);
    one_runtime(acl_rt, ascendcl, NULL);

    void *handles[NUM_OP_LIBS];
    for (size_t i = 0; i < NUM_OP_LIBS; i++) {
        /* libopapi_transformer after libopapi: every operator it holds is already registered */
        handles[i] = dlopen(OP_LIBS[i], RTLD_NOW | RTLD_LOCAL);
        if (handles[i] == NULL) fprintf(stderr, "dlopen %s: %s\n", OP_LIBS[i], dlerror());
    }
    void *nnopbase = dlopen("libnnopbase.so", RTLD_NOW | RTLD_NOLOAD);
    RegisteredFn registered = (RegisteredFn)sym(nnopbase, "aclStubRegisteredOp");
    DescribeFn describe = (DescribeFn)sym(nnopbase, "aclStubDescribeOp");
    if (registered == NULL || describe == NULL) return 1;
    check("no_repeated_op", list_ops(registered, 1) == 0);
    size_t all = count_ops(registered);
    const char *first = all ? registered(0) : NULL;
    char name[256] = "";
    if (first) snprintf(name, sizeof name, "%s", first);
    size_t described = name[0] ? describe(name, NULL, 0) : 0;

    /* libopapi.so closed first: the operators stay listed while libopapi_transformer.so holds them, and
     * are described by its tables. */
    check("close_opapi", dlclose(handles[0]) == 0);
    check("still_listed_after_one_close", count_ops(registered) == all);
    check("still_described", !name[0] || describe(name, NULL, 0) == described);
    for (size_t i = 1; i < NUM_OP_LIBS; i++) check(OP_LIBS[i], handles[i] != NULL && dlclose(handles[i]) == 0);
    check("none_after_last_close", count_ops(registered) == 0);
    check("unknown_after_last_close", !name[0] || describe(name, NULL, 0) == 1);
    printf("listed_while_open %zu\n", all);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 2 && strcmp(argv[1], "linked") == 0) return linked();
    if (argc == 2 && strcmp(argv[1], "dlopen") == 0) return opened();
    fprintf(stderr, "usage: %s linked|dlopen\n", argv[0]);
    return 2;
}
