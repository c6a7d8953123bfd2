/*
 * Check mode's configuration and findings. ACLNN_CHECK (read once when the library loads) names the tools;
 * findings are deduplicated by (tool, class, API call, call site) and counted; at process exit they are
 * written as JSON to ACLNN_CHECK_REPORT ("%p" in it becomes the process id), or summarised on stderr.
 * ACLNN_CHECK_ERROR_EXITCODE makes a process with findings exit with that status.
 * A client can also switch check mode on and collect findings in-process (aclStubCheckStart/Collect).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define MAX_FINDINGS 4096

unsigned aclStubCheckTools;

typedef struct {
    unsigned tool;
    const char *what;
    const char *call;
    const CheckSite *site;
    const CheckSite *related;
    const char *related_label;
    char *message;
    uint64_t count;
} Finding;

static pthread_mutex_t findings_lock = PTHREAD_MUTEX_INITIALIZER;
static Finding findings[MAX_FINDINGS];
static size_t finding_count;
static uint64_t dropped; /* distinct findings beyond MAX_FINDINGS */
static int error_exitcode = -1;

static const struct {
    const char *name;
    unsigned bit;
} TOOLS[] = {{"memcheck", CHECK_MEM}, {"initcheck", CHECK_INIT}, {"synccheck", CHECK_SYNC},
             {"leakcheck", CHECK_LEAK}, {"collcheck", CHECK_COLL}, {"all", CHECK_ALL}};

static const char *tool_name(unsigned bit) {
    for (size_t i = 0; i < sizeof TOOLS / sizeof TOOLS[0]; i++)
        if (TOOLS[i].bit == bit) return TOOLS[i].name;
    return "check";
}

/* "memcheck,initcheck" or "all" -> bits; -1 for an unknown name. */
static int parse_tools(const char *spec) {
    unsigned bits = 0;
    const char *p = spec;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        while (i < sizeof TOOLS / sizeof TOOLS[0] && !(strlen(TOOLS[i].name) == n && strncmp(p, TOOLS[i].name, n) == 0))
            i++;
        if (i == sizeof TOOLS / sizeof TOOLS[0]) return n == 0 ? (int)bits : -1;
        bits |= TOOLS[i].bit;
        p += n + (p[n] == ',');
    }
    return (int)bits;
}

/* The check module's state lock (allocations, clocks, handles); findings have their own, taken inside it. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
void check_lock(void) { pthread_mutex_lock(&state_lock); }
void check_unlock(void) { pthread_mutex_unlock(&state_lock); }

void check_add_finding(unsigned tool, const char *what, const char *call, const CheckSite *site,
                       const CheckSite *related, const char *related_label, const char *message) {
    pthread_mutex_lock(&findings_lock);
    size_t i = 0;
    while (i < finding_count && !(findings[i].tool == tool && findings[i].site == site &&
                                  strcmp(findings[i].what, what) == 0 && strcmp(findings[i].call, call) == 0))
        i++;
    if (i < finding_count) {
        findings[i].count++;
    } else if (finding_count < MAX_FINDINGS) {
        char *m = strdup(message);
        findings[finding_count++] = (Finding){tool, what, call, site, related, related_label, m, 1};
    } else {
        dropped++;
    }
    pthread_mutex_unlock(&findings_lock);
}

void aclStubCheckReport(unsigned tool, const char *what, const char *call, const char *fmt, ...) {
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    check_add_finding(tool, what, call, check_site_here(), NULL, NULL, message);
}

const void *aclStubCheckSite(void) { return check_site_here(); }

void aclStubCheckSiteText(const void *site, char *out, size_t cap) {
    if (cap == 0) return;
    if (site == NULL) {
        out[0] = '\0';
        return;
    }
    check_site_summary(site, out, cap);
}

void aclStubCheckReportAt(unsigned tool, const char *what, const char *call, const void *site, const char *message) {
    check_add_finding(tool, what, call, site != NULL ? site : check_site_here(), NULL, NULL, message);
}

/* ---- the report ------------------------------------------------------------------------------------------ */

/* JSON of every finding so far; clears them when `take`. */
static char *report_json(bool take) {
    CheckText t = {NULL, 0, 0};
    unsigned tools = __atomic_load_n(&aclStubCheckTools, __ATOMIC_RELAXED);
    check_text_put(&t, "{\"version\": 1, \"pid\": %ld, \"tools\": [", (long)getpid());
    int k = 0;
    for (unsigned bit = 1; bit < CHECK_ALL; bit <<= 1)
        if (tools & bit) check_text_put(&t, "%s\"%s\"", k++ ? ", " : "", tool_name(bit));
    check_text_put(&t, "], \"findings\": [");
    pthread_mutex_lock(&findings_lock);
    for (size_t i = 0; i < finding_count; i++) {
        const Finding *f = &findings[i];
        check_text_put(&t, "%s\n{\"tool\": \"%s\", \"what\": \"%s\", \"call\": ", i ? "," : "", tool_name(f->tool),
                       f->what);
        check_text_string(&t, f->call);
        check_text_put(&t, ", \"count\": %llu, \"message\": ", (unsigned long long)f->count);
        check_text_string(&t, f->message ? f->message : "(out of memory)");
        check_text_put(&t, ", \"site\": ");
        check_text_site(&t, f->site);
        if (f->related) {
            check_text_put(&t, ", \"related\": {\"label\": ");
            check_text_string(&t, f->related_label);
            check_text_put(&t, ", \"site\": ");
            check_text_site(&t, f->related);
            check_text_put(&t, "}");
        }
        check_text_put(&t, "}");
    }
    check_text_put(&t, "], \"dropped\": %llu}\n", (unsigned long long)dropped);
    if (take) {
        for (size_t i = 0; i < finding_count; i++) free(findings[i].message);
        finding_count = 0;
        dropped = 0;
    }
    pthread_mutex_unlock(&findings_lock);
    return t.p;
}

static void write_report_file(const char *pattern, const char *json) {
    char path[4096];
    size_t o = 0;
    for (const char *p = pattern; *p && o + 24 < sizeof path; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            o += (size_t)snprintf(path + o, sizeof path - o, "%ld", (long)getpid());
            p++;
        } else {
            path[o++] = *p;
        }
    }
    path[o] = '\0';
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "aclnn check: cannot write the report to %s\n", path);
        return;
    }
    fputs(json, f);
    fclose(f);
}

static void summarise_on_stderr(void) {
    pthread_mutex_lock(&findings_lock);
    uint64_t total = 0;
    for (size_t i = 0; i < finding_count; i++) {
        const Finding *f = &findings[i];
        char where[512];
        check_site_summary(f->site, where, sizeof where);
        fprintf(stderr, "aclnn check: %s %s in %s (%llu time%s) at %s\n  %s\n", tool_name(f->tool), f->what, f->call,
                (unsigned long long)f->count, f->count == 1 ? "" : "s", where, f->message ? f->message : "");
        total += f->count;
    }
    fprintf(stderr, "aclnn check: %zu distinct finding(s), %llu occurrence(s)\n", finding_count,
            (unsigned long long)total);
    pthread_mutex_unlock(&findings_lock);
}

static void at_exit(void) {
    if (__atomic_load_n(&aclStubCheckTools, __ATOMIC_RELAXED) == 0) return;
    if (CHECK_ON(CHECK_LEAK)) check_leaks("process exit");
    const char *path = getenv("ACLNN_CHECK_REPORT");
    if (path != NULL && path[0] != '\0') {
        char *json = report_json(false);
        if (json != NULL) write_report_file(path, json);
        free(json);
    } else {
        summarise_on_stderr();
    }
    if (error_exitcode >= 0 && finding_count > 0) {
        fflush(NULL);
        _exit(error_exitcode);
    }
}

/* The check module's state stays consistent across fork(): its locks are held while the process forks.
 * Registered before the runtime's handlers (constructor priority), so that this prepare runs after the
 * runtime's has taken rt_lock, under which check locks are taken. A forked child reports only what it
 * does itself. */
static void atfork_prepare(void) {
    pthread_mutex_lock(&state_lock);
    pthread_mutex_lock(&findings_lock);
    check_sites_atfork_prepare();
}

static void atfork_parent(void) {
    check_sites_atfork_parent();
    pthread_mutex_unlock(&findings_lock);
    pthread_mutex_unlock(&state_lock);
}

static void atfork_child(void) {
    check_sites_atfork_child();
    check_handles_atfork_child();
    check_blocks_atfork_child();
    pthread_mutex_init(&findings_lock, NULL);
    pthread_mutex_init(&state_lock, NULL);
    for (size_t i = 0; i < finding_count; i++) free(findings[i].message);
    finding_count = 0;
    dropped = 0;
}

__attribute__((constructor(101))) static void register_fork_handlers(void) {
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

__attribute__((constructor)) static void configure_from_environment(void) {
    const char *spec = getenv("ACLNN_CHECK");
    if (spec == NULL || spec[0] == '\0') return;
    int tools = parse_tools(spec);
    if (tools < 0) {
        fprintf(stderr, "aclnn check: ACLNN_CHECK=%s names an unknown tool (memcheck, initcheck, synccheck, "
                        "leakcheck, collcheck, all; comma-separated); check mode stays off\n", spec);
        return;
    }
    const char *code = getenv("ACLNN_CHECK_ERROR_EXITCODE");
    if (code != NULL && code[0] != '\0') error_exitcode = atoi(code) & 0xff;
    aclStubCheckTools = (unsigned)tools;
    atexit(at_exit);
}

/* ---- in-process use (the Python API) ----------------------------------------------------------------------- */

/* Replaces the tools in force. Memory and objects created before stay unknown to it (never reported). */
int aclStubCheckStart(const char *tools) {
    int bits = parse_tools(tools);
    if (bits >= 0) __atomic_store_n(&aclStubCheckTools, (unsigned)bits, __ATOMIC_RELAXED);
    return bits;
}

char *aclStubCheckCollect(int leaks) {
    if (leaks && CHECK_ON(CHECK_LEAK)) check_leaks("end of the check session");
    return report_json(true);
}

void aclStubCheckFreeText(char *text) { free(text); }

/* What the environment turned on included. */
void aclStubCheckStop(void) { __atomic_store_n(&aclStubCheckTools, 0u, __ATOMIC_RELAXED); }
