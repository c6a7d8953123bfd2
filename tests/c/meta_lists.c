/*
 * Float and bool arrays, tensor and scalar lists from C: one "<case> <value>" line per check (the Python
 * test holds the expected table), including the internal accessors the operator library uses, threads
 * racing on the same handles, fork() while another thread creates and destroys, and the live counters at
 * the end. Statuses: 0 OK, 161001 ACLNN_ERR_PARAM_NULLPTR, 161002 ACLNN_ERR_PARAM_INVALID.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../stubs/common/stub_internal.h"

static void report(const char *name, long long value) { printf("%s %lld\n", name, value); }

/* 1 when the recent error message mentions every word given. */
static int message_has(const char *a, const char *b) {
    const char *msg = aclGetRecentErrMsg();
    return msg != NULL && strstr(msg, a) != NULL && (b == NULL || strstr(msg, b) != NULL);
}

static aclTensor *small_tensor(void) {
    int64_t dims[2] = {2, 3};
    return aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, NULL);
}

static aclScalar *small_scalar(float v) { return aclCreateScalar(&v, ACL_FLOAT); }

static void arrays(void) {
    const float fv[3] = {1.5f, -2.0f, 3.25f};
    aclFloatArray *fa = aclCreateFloatArray(fv, 3);
    uint64_t size = 0;
    report("float_create", fa != NULL);
    report("float_size", aclGetFloatArraySize(fa, &size));
    report("float_size_value", (long long)size);
    float out[4] = {0, 0, 0, 0};
    uint64_t n = 0;
    report("float_values_ok", aclStubFloatArrayValues(fa, out, 4, &n));
    report("float_values_equal", n == 3 && memcmp(out, fv, sizeof fv) == 0 && out[3] == 0);
    float two[2] = {0, 0};
    report("float_values_capacity", aclStubFloatArrayValues(fa, two, 2, &n) && n == 3 && two[1] == -2.0f);
    report("float_size_only", aclStubFloatArrayValues(fa, NULL, 0, &n) && n == 3);
    report("float_size_null_out", aclGetFloatArraySize(fa, NULL));
    report("float_size_null_array", aclGetFloatArraySize(NULL, &size));
    report("float_size_null_array_message", message_has("aclGetFloatArraySize", "'array'"));
    report("float_as_bool_array", aclGetBoolArraySize((const aclBoolArray *)fa, &size));
    report("float_destroy", aclDestroyFloatArray(fa));
    report("float_destroy_again", aclDestroyFloatArray(fa));
    report("float_destroy_again_message", message_has("aclDestroyFloatArray", "not a live aclFloatArray"));
    report("float_size_dead", aclGetFloatArraySize(fa, &size));
    report("float_values_dead", aclStubFloatArrayValues(fa, out, 4, &n));
    report("float_destroy_null", aclDestroyFloatArray(NULL));
    report("float_null_with_size", aclCreateFloatArray(NULL, 3) == NULL);
    report("float_null_with_size_message", message_has("aclCreateFloatArray", "'value'"));
    report("float_too_large", aclCreateFloatArray(fv, (uint64_t)1 << 41) == NULL);
    report("float_too_large_message", message_has("aclCreateFloatArray", "'size'"));
    aclFloatArray *empty = aclCreateFloatArray(NULL, 0);
    report("float_empty", empty != NULL && aclGetFloatArraySize(empty, &size) == 0 && size == 0);
    report("float_empty_destroy", aclDestroyFloatArray(empty));
    int on_stack = 0;
    report("float_stack_pointer", aclDestroyFloatArray((const aclFloatArray *)&on_stack));

    /* Bytes other than 0 and 1 come back as proper bools. */
    const unsigned char bytes[4] = {0, 1, 2, 255};
    aclBoolArray *ba = aclCreateBoolArray((const bool *)bytes, 4);
    bool bv[4] = {true, false, false, false};
    report("bool_create", ba != NULL);
    report("bool_size", aclGetBoolArraySize(ba, &size) == 0 ? (long long)size : -1);
    report("bool_values_ok", aclStubBoolArrayValues(ba, bv, 4, &n));
    unsigned char raw[4];
    memcpy(raw, bv, sizeof raw);
    report("bool_values_normalised", raw[0] == 0 && raw[1] == 1 && raw[2] == 1 && raw[3] == 1);
    report("bool_as_float_array", aclDestroyFloatArray((const aclFloatArray *)ba));
    report("bool_destroy", aclDestroyBoolArray(ba));
    report("bool_destroy_again", aclDestroyBoolArray(ba));
}

static void tensor_lists(void) {
    uint64_t base = aclStubLiveTensors(), size = 0, n = 0;
    aclTensor *t0 = small_tensor(), *t1 = small_tensor();
    const aclTensor *elems[3] = {t0, NULL, t1};
    aclTensorList *list = aclCreateTensorList(elems, 3);
    report("tlist_create", list != NULL);
    report("tlist_size", aclGetTensorListSize(list, &size) == 0 ? (long long)size : -1);
    const aclTensor *copy[3] = {NULL, NULL, NULL};
    report("tlist_elements_ok", aclStubTensorListElements(list, copy, 3, &n));
    report("tlist_elements_equal", n == 3 && copy[0] == t0 && copy[1] == NULL && copy[2] == t1);
    report("tlist_size_null_list", aclGetTensorListSize(NULL, &size));
    report("tlist_size_null_list_message", message_has("aclGetTensorListSize", "'tensorList'"));
    report("tlist_as_scalar_list", aclGetScalarListSize((const aclScalarList *)list, &size));
    report("tlist_live", (long long)aclStubLiveTensorLists());
    report("tlist_destroy", aclDestroyTensorList(list));
    report("tlist_destroy_frees_tensors", (long long)(aclStubLiveTensors() - base));
    report("tlist_element_destroyed", aclDestroyTensor(t0));
    report("tlist_destroy_again", aclDestroyTensorList(list));
    report("tlist_elements_dead", aclStubTensorListElements(list, copy, 3, &n));

    /* A dead element is refused at creation and nothing is created. */
    report("tlist_dead_element", aclCreateTensorList(elems, 3) == NULL);
    report("tlist_dead_element_message", message_has("element 0", "not a live aclTensor"));
    const aclTensor *foreign[1] = {(const aclTensor *)&size};
    report("tlist_foreign_element", aclCreateTensorList(foreign, 1) == NULL);
    report("tlist_null_with_size", aclCreateTensorList(NULL, 2) == NULL);
    report("tlist_too_large", aclCreateTensorList(elems, UINT64_MAX) == NULL);

    /* The list owns its elements: one also destroyed on its own, or listed twice, is reported when the list is
     * destroyed, and the rest is still released. */
    aclTensor *a = small_tensor(), *b = small_tensor();
    const aclTensor *ab[2] = {a, b};
    list = aclCreateTensorList(ab, 2);
    aclDestroyTensor(a);
    report("tlist_element_destroyed_first", aclDestroyTensorList(list));
    report("tlist_element_destroyed_first_message", message_has("aclDestroyTensorList", "first: element 0"));
    a = small_tensor();
    const aclTensor *twice[3] = {a, NULL, a};
    list = aclCreateTensorList(twice, 3);
    report("tlist_twice_create", list != NULL);
    report("tlist_twice_destroy", aclDestroyTensorList(list));
    report("tlist_twice_message", message_has("1 of the 3 elements", "first: element 2"));
    report("tlist_leftover_tensors", (long long)(aclStubLiveTensors() - base));

    aclTensorList *empty = aclCreateTensorList(NULL, 0);
    report("tlist_empty", empty != NULL && aclGetTensorListSize(empty, &size) == 0 && size == 0);
    report("tlist_empty_destroy", aclDestroyTensorList(empty));
}

static void scalar_lists(void) {
    uint64_t base = aclStubLiveScalars(), size = 0, n = 0;
    aclScalar *s0 = small_scalar(1.0f), *s1 = small_scalar(2.0f);
    const aclScalar *elems[2] = {s0, s1};
    aclScalarList *list = aclCreateScalarList(elems, 2);
    report("slist_create", list != NULL);
    report("slist_size", aclGetScalarListSize(list, &size) == 0 ? (long long)size : -1);
    const aclScalar *copy[2] = {NULL, NULL};
    report("slist_elements_equal", aclStubScalarListElements(list, copy, 2, &n) && n == 2 && copy[0] == s0 &&
                                       copy[1] == s1);
    report("slist_destroy", aclDestroyScalarList(list));
    report("slist_destroy_frees_scalars", (long long)(aclStubLiveScalars() - base));
    report("slist_destroy_again", aclDestroyScalarList(list));
    report("slist_dead_element", aclCreateScalarList(elems, 2) == NULL);
    report("slist_dead_element_message", message_has("element 0", "not a live aclScalar"));
    const aclScalar *with_null[2] = {NULL, small_scalar(3.0f)};
    list = aclCreateScalarList(with_null, 2);
    report("slist_null_element", list != NULL);
    report("slist_null_element_destroy", aclDestroyScalarList(list));
    report("slist_size_null_out", aclGetScalarListSize(list, NULL));
    report("slist_leftover_scalars", (long long)(aclStubLiveScalars() - base));
}

/* Threads: each builds and destroys its own lists; then pairs race to destroy the same list. */
#define THREADS 4
#define ROUNDS 300

static void *churn(void *arg) {
    long failures = 0;
    for (int i = 0; i < ROUNDS; i++) {
        aclTensor *t = small_tensor();
        const aclTensor *elems[1] = {t};
        aclTensorList *list = aclCreateTensorList(elems, 1);
        float v = (float)i;
        aclFloatArray *fa = aclCreateFloatArray(&v, 1);
        float got = -1;
        uint64_t n = 0;
        failures += list == NULL || fa == NULL || !aclStubFloatArrayValues(fa, &got, 1, &n) || got != v;
        failures += aclDestroyTensorList(list) != 0 || aclDestroyFloatArray(fa) != 0;
    }
    (void)arg;
    return (void *)failures;
}

static aclTensorList *contested;
static pthread_barrier_t barrier;

static void *destroy_contested(void *arg) {
    pthread_barrier_wait(&barrier);
    *(aclnnStatus *)arg = aclDestroyTensorList(contested);
    return NULL;
}

static void threads(void) {
    pthread_t tid[THREADS];
    long failures = 0;
    for (int i = 0; i < THREADS; i++) pthread_create(&tid[i], NULL, churn, NULL);
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(tid[i], &r);
        failures += (long)r;
    }
    report("threads_churn_failures", failures);

    int exactly_one = 0;
    pthread_barrier_init(&barrier, NULL, 2);
    for (int round = 0; round < 50; round++) {
        aclTensor *t = small_tensor();
        const aclTensor *elems[1] = {t};
        contested = aclCreateTensorList(elems, 1);
        aclnnStatus st[2];
        pthread_t a, b;
        pthread_create(&a, NULL, destroy_contested, &st[0]);
        pthread_create(&b, NULL, destroy_contested, &st[1]);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        exactly_one += (st[0] == 0) + (st[1] == 0) == 1 && (st[0] == 161002 || st[1] == 161002);
    }
    pthread_barrier_destroy(&barrier);
    report("threads_racing_destroys_one_wins", exactly_one);
}

/* fork() while another thread creates and destroys arrays: the child's tables are usable. */
static volatile int stop_churn;

static void *array_churn(void *arg) {
    float v = 1.0f;
    while (!stop_churn) aclDestroyFloatArray(aclCreateFloatArray(&v, 1));
    (void)arg;
    return NULL;
}

static void fork_safety(void) {
    pthread_t tid;
    pthread_create(&tid, NULL, array_churn, NULL);
    int children_ok = 0;
    for (int i = 0; i < 20; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            float v = 2.0f;
            aclFloatArray *fa = aclCreateFloatArray(&v, 1);
            const aclTensor *none[1] = {NULL};
            aclTensorList *list = aclCreateTensorList(none, 1);
            _exit(fa != NULL && list != NULL && aclDestroyFloatArray(fa) == 0 && aclDestroyTensorList(list) == 0 ? 0
                                                                                                              : 1);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        children_ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    stop_churn = 1;
    pthread_join(tid, NULL);
    report("fork_children_ok", children_ok);
}

int main(void) {
    arrays();
    tensor_lists();
    scalar_lists();
    threads();
    fork_safety();
    report("live_float_arrays", (long long)aclStubLiveFloatArrays());
    report("live_bool_arrays", (long long)aclStubLiveBoolArrays());
    report("live_tensor_lists", (long long)aclStubLiveTensorLists());
    report("live_scalar_lists", (long long)aclStubLiveScalarLists());
    report("live_tensors", (long long)aclStubLiveTensors());
    report("live_scalars", (long long)aclStubLiveScalars());
    return 0;
}
