/*
 * Call sites of check mode: the frames of the calling program above the stub libraries (backtrace and
 * dladdr), or, for a Python program, the Python stack the client's hook returns. Sites are interned, so a
 * finding is deduplicated by comparing pointers, and live as long as the process.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_CAPTURE 48
#define MAX_FRAMES 8
#define MAX_SITES 65536
#define PY_STACK_CAP 1024

struct CheckSite {
    struct CheckSite *next; /* hash chain */
    uint64_t hash;
    int nframes;
    void *frames[MAX_FRAMES];
    char *python; /* the Python stack, or NULL */
};

static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static CheckSite *buckets[4096];
static size_t site_count;
static CheckSite unknown_site; /* when out of memory or past MAX_SITES */

/* Set by a Python client: fills buf with its current stack ("file:line in function" lines). */
typedef size_t (*CheckSiteHook)(char *buf, size_t cap);
static CheckSiteHook python_hook;

void aclStubCheckSetSiteHook(CheckSiteHook hook) { __atomic_store_n(&python_hook, hook, __ATOMIC_RELEASE); }

/* Frames in the stub's own libraries, or in the glue between a Python program and them, are not call sites. */
static bool is_glue_object(const char *path) {
    static const char *const names[] = {"libascendcl.", "libnnopbase.", "libopapi", "libhccl.", "_cffi.", "libffi",
                                        "_ctypes.", "libpython", "python3", "libasan.", "libubsan."};
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    if (base == NULL) return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strncmp(base, names[i], strlen(names[i])) == 0) return true;
    return false;
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * UINT64_C(0x100000001b3); }

static const CheckSite *intern(void *const *frames, int n, const char *python) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < n; i++) h = mix(h, (uint64_t)(uintptr_t)frames[i]);
    for (const char *p = python; p && *p; p++) h = mix(h, (unsigned char)*p);
    pthread_mutex_lock(&sites_lock);
    CheckSite **bucket = &buckets[h % (sizeof buckets / sizeof buckets[0])];
    for (CheckSite *s = *bucket; s; s = s->next)
        if (s->hash == h && s->nframes == n && (n == 0 || memcmp(s->frames, frames, (size_t)n * sizeof *frames) == 0) &&
            ((s->python == NULL && python == NULL) || (s->python && python && strcmp(s->python, python) == 0))) {
            pthread_mutex_unlock(&sites_lock);
            return s;
        }
    CheckSite *s = site_count < MAX_SITES ? calloc(1, sizeof *s) : NULL;
    if (s != NULL && python != NULL && (s->python = strdup(python)) == NULL) {
        free(s);
        s = NULL;
    }
    if (s == NULL) {
        pthread_mutex_unlock(&sites_lock);
        return &unknown_site;
    }
    s->hash = h;
    s->nframes = n;
    if (n > 0) memcpy(s->frames, frames, (size_t)n * sizeof *frames);
    s->next = *bucket;
    *bucket = s;
    site_count++;
    pthread_mutex_unlock(&sites_lock);
    return s;
}

/* Raw backtraces already seen -> their site, so a call site met again costs one backtrace() and a hash
 * lookup, not a dladdr per frame. Direct-mapped; a collision just recomputes. */
#define RAW_CACHE 4096
typedef struct {
    uint64_t hash;
    int n;
    void *frames[MAX_CAPTURE];
    const CheckSite *site;
} RawEntry;
static RawEntry *raw_cache;
static pthread_mutex_t raw_lock = PTHREAD_MUTEX_INITIALIZER;

static const CheckSite *raw_lookup(void *const *raw, int n, uint64_t h) {
    const CheckSite *site = NULL;
    pthread_mutex_lock(&raw_lock);
    const RawEntry *e = raw_cache ? &raw_cache[h % RAW_CACHE] : NULL;
    if (e && e->site && e->hash == h && e->n == n && memcmp(e->frames, raw, (size_t)n * sizeof *raw) == 0)
        site = e->site;
    pthread_mutex_unlock(&raw_lock);
    return site;
}

static void raw_store(void *const *raw, int n, uint64_t h, const CheckSite *site) {
    pthread_mutex_lock(&raw_lock);
    if (raw_cache == NULL) raw_cache = calloc(RAW_CACHE, sizeof *raw_cache);
    if (raw_cache != NULL) {
        RawEntry *e = &raw_cache[h % RAW_CACHE];
        e->hash = h;
        e->n = n;
        memcpy(e->frames, raw, (size_t)n * sizeof *raw);
        e->site = site;
    }
    pthread_mutex_unlock(&raw_lock);
}

/* The native frames of the caller above the stub and its glue. */
static const CheckSite *native_site(void) {
    void *raw[MAX_CAPTURE];
    int n = backtrace(raw, MAX_CAPTURE), first = 0;
    if (n <= 0) return intern(NULL, 0, NULL);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < n; i++) h = mix(h, (uint64_t)(uintptr_t)raw[i]);
    const CheckSite *site = raw_lookup(raw, n, h);
    if (site != NULL) return site;
    Dl_info info;
    while (first < n && dladdr(raw[first], &info) != 0 && is_glue_object(info.dli_fname)) first++;
    int kept = n - first < MAX_FRAMES ? n - first : MAX_FRAMES;
    site = intern(raw + first, kept, NULL);
    raw_store(raw, n, h, site);
    return site;
}

const CheckSite *check_site_here(void) {
    CheckSiteHook hook = __atomic_load_n(&python_hook, __ATOMIC_ACQUIRE);
    if (hook != NULL) {
        char py[PY_STACK_CAP];
        py[0] = '\0';
        size_t len = hook(py, sizeof py);
        py[len < sizeof py ? len : sizeof py - 1] = '\0';
        if (py[0] != '\0') return intern(NULL, 0, py);
    }
    return native_site();
}

/*
 * The runtime creates and releases streams, events and contexts with rt_lock held, and a Python hook must
 * not run there (it takes the interpreter's lock, which a thread holding it may be waiting on rt_lock with,
 * e.g. across fork). Those entry points capture their site before taking rt_lock (check_site_prepare); a
 * hook under rt_lock takes it (check_site_locked), or falls back to the native frames.
 */
static __thread const CheckSite *prepared;

void check_site_prepare(void) { prepared = check_site_here(); }

/* Kept until the next prepare: one call (aclrtResetDevice) may report several streams from one site. */
const CheckSite *check_site_locked(void) { return prepared != NULL ? prepared : native_site(); }

const CheckSite *check_site_native(void) { return native_site(); }

bool check_site_hook_installed(void) { return __atomic_load_n(&python_hook, __ATOMIC_ACQUIRE) != NULL; }

void check_sites_atfork_prepare(void) {
    pthread_mutex_lock(&sites_lock);
    pthread_mutex_lock(&raw_lock);
}

void check_sites_atfork_parent(void) {
    pthread_mutex_unlock(&raw_lock);
    pthread_mutex_unlock(&sites_lock);
}

void check_sites_atfork_child(void) {
    pthread_mutex_init(&raw_lock, NULL);
    pthread_mutex_init(&sites_lock, NULL);
}

/* ---- JSON ----------------------------------------------------------------------------------------------- */

static bool reserve(CheckText *t, size_t need) {
    if (need <= t->cap) return true;
    size_t n = t->cap ? t->cap : 4096;
    while (n < need) n *= 2;
    char *grown = realloc(t->p, n);
    if (grown == NULL) return false;
    t->p = grown;
    t->cap = n;
    return true;
}

/* Append a JSON string literal (quotes included). */
void check_text_string(CheckText *t, const char *s) {
    if (!reserve(t, t->len + 2 + 6 * strlen(s ? s : "") + 1)) return;
    char *o = t->p + t->len;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char)*p;
        } else if (*p < 0x20) {
            o += sprintf(o, "\\u%04x", *p);
        } else {
            *o++ = (char)*p;
        }
    }
    *o++ = '"';
    *o = '\0';
    t->len = (size_t)(o - t->p);
}

void check_text_put(CheckText *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(t, t->len + (size_t)n + 1)) return;
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* {"python": "...", "frames": [{"address", "object", "offset", "function"}]} */
void check_text_site(CheckText *t, const CheckSite *site) {
    check_text_put(t, "{\"python\": ");
    if (site->python)
        check_text_string(t, site->python);
    else
        check_text_put(t, "null");
    check_text_put(t, ", \"frames\": [");
    for (int i = 0; i < site->nframes; i++) {
        Dl_info info;
        memset(&info, 0, sizeof info);
        dladdr(site->frames[i], &info);
        uintptr_t addr = (uintptr_t)site->frames[i];
        check_text_put(t, "%s{\"address\": \"0x%llx\", \"object\": ", i ? ", " : "", (unsigned long long)addr);
        check_text_string(t, info.dli_fname ? info.dli_fname : "");
        check_text_put(t, ", \"offset\": \"0x%llx\", \"function\": ",
            (unsigned long long)(addr - (uintptr_t)info.dli_fbase));
        if (info.dli_sname)
            check_text_string(t, info.dli_sname);
        else
            check_text_put(t, "null");
        check_text_put(t, "}");
    }
    check_text_put(t, "]}");
}

/* One line for the text report: the first frame (or Python frame) of a site. */
void check_site_summary(const CheckSite *site, char *out, size_t cap) {
    if (site->python) {
        const char *nl = strchr(site->python, '\n');
        snprintf(out, cap, "%.*s", nl ? (int)(nl - site->python) : (int)strlen(site->python), site->python);
        return;
    }
    if (site->nframes == 0) {
        snprintf(out, cap, "(unknown)");
        return;
    }
    Dl_info info;
    memset(&info, 0, sizeof info);
    dladdr(site->frames[0], &info);
    snprintf(out, cap, "%s (%s+0x%llx)", info.dli_sname ? info.dli_sname : "??",
             info.dli_fname ? info.dli_fname : "??",
             (unsigned long long)((uintptr_t)site->frames[0] - (uintptr_t)info.dli_fbase));
}
