/*
 * Check mode's configuration and findings. ACLNN_CHECK (read once when the library loads) names the tools;
 * findings are deduplicated by (tool, class, API call, call site) and counted, every one of them kept.
 * ACLNN_CHECK_REPORT names the JSON report ("%p" in it becomes the process id); without it a summary goes to
 * stderr at exit. ACLNN_CHECK_ERROR_EXITCODE makes a process with findings (errors, not warnings) exit with
 * that status. A client can also switch check mode on and collect findings in-process (aclStubCheckStart /
 * Collect).
 *
 * The report is a journal: written when the library loads (so a process that loaded the stub is known even
 * if it finds nothing), extended as each distinct finding appears, with each count rewritten in place as it
 * grows; at a normal exit it is rewritten whole with "complete": true. A process that leaves through _exit()
 * (a multiprocessing fork worker does) or dies by a signal therefore leaves a report of everything found up
 * to then, with "complete": false (and no leakcheck, which runs at exit). The file is valid JSON after every
 * write: a finding is written together with the closing brackets after it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define COUNT_WIDTH 20 /* digits of a count in the journal, padded with spaces: rewritten in place */

unsigned aclStubCheckTools;
_Thread_local unsigned check_api_quiet;

typedef struct {
    unsigned tool;
    char *what, *call, *message;
    const CheckSite *site;
    const CheckSite *related;
    const char *related_label;
    uint64_t count;
    uint64_t hash;
    off_t count_at; /* where the journal holds its count (0: not written) */
} Finding;

static pthread_mutex_t findings_lock = PTHREAD_MUTEX_INITIALIZER;
static Finding *findings;
static size_t finding_count, finding_capacity;
static size_t *index_slots; /* open addressing: finding index + 1, 0 = empty */
static size_t index_capacity;
static uint64_t dropped; /* distinct findings that could not be kept (out of host memory) */
static uint64_t error_count; /* occurrences of findings that are errors, not warnings */
static int error_exitcode = -1;

static const struct {
    const char *name;
    unsigned bit;
} TOOLS[] = {{"memcheck", CHECK_MEM},   {"initcheck", CHECK_INIT}, {"synccheck", CHECK_SYNC},
             {"leakcheck", CHECK_LEAK}, {"apicheck", CHECK_API},   {"all", CHECK_ALL}};

/* Classes that report legal but suspicious use: warnings, not errors. */
static const char *const WARNINGS[] = {"padding-access"};

static bool is_warning(const char *what) {
    for (size_t i = 0; i < sizeof WARNINGS / sizeof WARNINGS[0]; i++)
        if (strcmp(what, WARNINGS[i]) == 0) return true;
    return false;
}

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

/* ---- the journal (findings_lock held) ------------------------------------------------------------------ */

static int journal_fd = -1;
static off_t journal_end;          /* where the next finding goes (the closing brackets start there) */
static char journal_pattern[4096]; /* ACLNN_CHECK_REPORT */

static void expand_path(const char *pattern, char *path, size_t cap) {
    size_t o = 0;
    for (const char *p = pattern; *p && o + 24 < cap; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            o += (size_t)snprintf(path + o, cap - o, "%ld", (long)getpid());
            p++;
        } else {
            path[o++] = *p;
        }
    }
    path[o] = '\0';
}

static bool write_at(const char *text, size_t len, off_t at) {
    while (len > 0) {
        ssize_t n = pwrite(journal_fd, text, len, at);
        if (n <= 0) return false;
        text += n;
        len -= (size_t)n;
        at += n;
    }
    return true;
}

static void text_tools(CheckText *t) {
    unsigned tools = __atomic_load_n(&aclStubCheckTools, __ATOMIC_RELAXED);
    check_text_put(t, "[");
    int k = 0;
    for (unsigned bit = 1; bit < CHECK_ALL; bit <<= 1)
        if (tools & bit) check_text_put(t, "%s\"%s\"", k++ ? ", " : "", tool_name(bit));
    check_text_put(t, "]");
}

static void text_header(CheckText *t, bool complete) {
    check_text_put(t, "{\"version\": 2, \"pid\": %ld, \"complete\": %s, \"tools\": ", (long)getpid(),
                   complete ? "true" : "false");
    text_tools(t);
    check_text_put(t, ", \"findings\": [");
}

/* One finding as a JSON object; *count_offset: where its count's digits start in the text. */
static void text_finding(CheckText *t, const Finding *f, size_t *count_offset) {
    check_text_put(t, "\n{\"tool\": \"%s\", \"what\": ", tool_name(f->tool));
    check_text_string(t, f->what);
    check_text_put(t, ", \"severity\": \"%s\", \"call\": ", is_warning(f->what) ? "warning" : "error");
    check_text_string(t, f->call);
    check_text_put(t, ", \"count\": ");
    if (count_offset != NULL) *count_offset = t->len;
    check_text_put(t, "%*llu, \"message\": ", COUNT_WIDTH, (unsigned long long)f->count);
    check_text_string(t, f->message ? f->message : "(out of memory)");
    check_text_put(t, ", \"site\": ");
    check_text_site(t, f->site);
    if (f->related) {
        check_text_put(t, ", \"related\": {\"label\": ");
        check_text_string(t, f->related_label);
        check_text_put(t, ", \"site\": ");
        check_text_site(t, f->related);
        check_text_put(t, "}");
    }
    check_text_put(t, "}");
}

static void text_trailer(CheckText *t) { check_text_put(t, "], \"dropped\": %llu}\n", (unsigned long long)dropped); }

/* Append finding i and the closing brackets after it. */
static void journal_append_locked(size_t i) {
    if (journal_fd < 0) return;
    CheckText t = {NULL, 0, 0};
    size_t count_offset = 0;
    if (i > 0) check_text_put(&t, ",");
    text_finding(&t, &findings[i], &count_offset);
    size_t body = t.len;
    text_trailer(&t);
    if (t.p != NULL && write_at(t.p, t.len, journal_end)) {
        findings[i].count_at = journal_end + (off_t)count_offset;
        journal_end += (off_t)body;
    }
    free(t.p);
}

static void journal_count_locked(const Finding *f) {
    if (journal_fd < 0 || f->count_at == 0) return;
    char digits[COUNT_WIDTH + 1];
    snprintf(digits, sizeof digits, "%*llu", COUNT_WIDTH, (unsigned long long)f->count);
    write_at(digits, COUNT_WIDTH, f->count_at);
}

/* The whole report, in place of the journal. */
static void journal_rewrite_locked(bool complete) {
    if (journal_fd < 0) return;
    CheckText t = {NULL, 0, 0};
    text_header(&t, complete);
    for (size_t i = 0; i < finding_count; i++) {
        size_t count_offset = 0;
        if (i > 0) check_text_put(&t, ",");
        text_finding(&t, &findings[i], &count_offset);
        findings[i].count_at = (off_t)count_offset;
    }
    journal_end = (off_t)t.len;
    text_trailer(&t);
    if (t.p == NULL || ftruncate(journal_fd, 0) != 0 || !write_at(t.p, t.len, 0)) {
        fprintf(stderr, "aclnn check: cannot write the report (%s)\n", journal_pattern);
        for (size_t i = 0; i < finding_count; i++) findings[i].count_at = 0;
    }
    free(t.p);
}

static void journal_open(void) {
    char path[sizeof journal_pattern + 32];
    expand_path(journal_pattern, path, sizeof path);
    journal_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (journal_fd < 0) {
        fprintf(stderr, "aclnn check: cannot write the report to %s\n", path);
        return;
    }
    journal_rewrite_locked(false);
}

/* ---- findings -------------------------------------------------------------------------------------------- */

static uint64_t hash_string(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

static uint64_t finding_hash(unsigned tool, const char *what, const char *call, const CheckSite *site) {
    uint64_t h = (UINT64_C(0xcbf29ce484222325) ^ tool) * UINT64_C(0x100000001b3);
    h = (h ^ (uint64_t)(uintptr_t)site) * UINT64_C(0x100000001b3);
    return hash_string(hash_string(h, what), call);
}

static bool index_grow_locked(void) {
    size_t cap = index_capacity ? index_capacity * 2 : 1024;
    size_t *fresh = calloc(cap, sizeof *fresh);
    if (fresh == NULL) return false;
    for (size_t i = 0; i < finding_count; i++) {
        size_t j = (size_t)findings[i].hash & (cap - 1);
        while (fresh[j] != 0) j = (j + 1) & (cap - 1);
        fresh[j] = i + 1;
    }
    free(index_slots);
    index_slots = fresh;
    index_capacity = cap;
    return true;
}

void check_add_finding(unsigned tool, const char *what, const char *call, const CheckSite *site,
                       const CheckSite *related, const char *related_label, const char *message) {
    uint64_t h = finding_hash(tool, what, call, site);
    bool error = !is_warning(what);
    pthread_mutex_lock(&findings_lock);
    if (error) error_count++;
    size_t j = index_capacity ? (size_t)h & (index_capacity - 1) : 0;
    for (; index_capacity && index_slots[j] != 0; j = (j + 1) & (index_capacity - 1)) {
        Finding *f = &findings[index_slots[j] - 1];
        if (f->hash == h && f->tool == tool && f->site == site && strcmp(f->what, what) == 0 &&
            strcmp(f->call, call) == 0) {
            f->count++;
            journal_count_locked(f);
            pthread_mutex_unlock(&findings_lock);
            return;
        }
    }
    bool room = (finding_count + 1) * 2 <= index_capacity || index_grow_locked();
    if (room && finding_count == finding_capacity) {
        size_t cap = finding_capacity ? finding_capacity * 2 : 256;
        Finding *grown = realloc(findings, cap * sizeof *grown);
        if (grown != NULL) {
            findings = grown;
            finding_capacity = cap;
        }
        room = grown != NULL;
    }
    Finding f = {tool, strdup(what), strdup(call), strdup(message), site, related, related_label, 1, h, 0};
    if (!room || f.what == NULL || f.call == NULL) {
        free(f.what);
        free(f.call);
        free(f.message);
        dropped++;
        if (journal_fd >= 0) journal_rewrite_locked(false);
    } else {
        for (j = (size_t)h & (index_capacity - 1); index_slots[j] != 0; j = (j + 1) & (index_capacity - 1)) {}
        index_slots[j] = finding_count + 1;
        findings[finding_count++] = f;
        journal_append_locked(finding_count - 1);
    }
    pthread_mutex_unlock(&findings_lock);
}

static void clear_findings_locked(void) {
    for (size_t i = 0; i < finding_count; i++) {
        free(findings[i].what);
        free(findings[i].call);
        free(findings[i].message);
    }
    finding_count = 0;
    dropped = 0;
    error_count = 0;
    if (index_slots != NULL) memset(index_slots, 0, index_capacity * sizeof *index_slots);
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

void aclStubCheckReportAt(const void *site, unsigned tool, const char *what, const char *call, const char *fmt, ...) {
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    check_add_finding(tool, what, call, site != NULL ? site : check_site_here(), NULL, NULL, message);
}

/* ---- API errors (apicheck) -------------------------------------------------------------------------------- */

/* A call that is about to return an error status recorded its message ("<function>: <what went wrong>").
 * Reported at once with the native call site, unless a Python client is attached: the client reports the
 * error itself, with its Python call site and the status, through aclStubCheckApiError (a Python call site
 * must not be taken here, where the stub may hold its locks). Errors of queued work are not API errors of
 * the call that runs them: they surface at the synchronisation that reports them. */
void check_api_error(const char *message) {
    if (check_api_quiet != 0 || check_site_hook_installed()) return;
    char call[128];
    size_t n = strcspn(message, ": ");
    if (n == 0 || n >= sizeof call || message[n] != ':') n = 0;
    memcpy(call, message, n);
    call[n] = '\0';
    check_add_finding(CHECK_API, "api-error", n ? call : "(unknown call)", check_site_native(), NULL, NULL, message);
}

void aclStubCheckApiError(const char *call, int status, const char *message) {
    if (!CHECK_ON(CHECK_API) || call == NULL) return;
    char text[1280];
    snprintf(text, sizeof text, "%s returned %d: %s", call, status, message ? message : "(no message)");
    check_add_finding(CHECK_API, "api-error", call, check_site_here(), NULL, NULL, text);
}

/* ---- the report ------------------------------------------------------------------------------------------ */

/* JSON of every finding so far; clears them when `take`. */
static char *report_json(bool take) {
    CheckText t = {NULL, 0, 0};
    pthread_mutex_lock(&findings_lock);
    text_header(&t, true);
    for (size_t i = 0; i < finding_count; i++) {
        if (i > 0) check_text_put(&t, ",");
        text_finding(&t, &findings[i], NULL);
    }
    text_trailer(&t);
    if (take) {
        clear_findings_locked();
        journal_rewrite_locked(false); /* what a client took is no longer the process's to report */
    }
    pthread_mutex_unlock(&findings_lock);
    return t.p;
}

static void summarise_on_stderr(void) {
    pthread_mutex_lock(&findings_lock);
    uint64_t total = 0;
    for (size_t i = 0; i < finding_count; i++) {
        const Finding *f = &findings[i];
        char where[512];
        check_site_summary(f->site, where, sizeof where);
        fprintf(stderr, "aclnn check: %s %s%s in %s (%llu time%s) at %s\n  %s\n", tool_name(f->tool), f->what,
                is_warning(f->what) ? " (warning)" : "", f->call, (unsigned long long)f->count,
                f->count == 1 ? "" : "s", where, f->message ? f->message : "");
        total += f->count;
    }
    fprintf(stderr, "aclnn check: %zu distinct finding(s), %llu occurrence(s)", finding_count,
            (unsigned long long)total);
    if (dropped > 0) fprintf(stderr, "; %llu more could not be kept (out of memory)", (unsigned long long)dropped);
    fprintf(stderr, "\n");
    pthread_mutex_unlock(&findings_lock);
}

static void at_exit(void) {
    if (__atomic_load_n(&aclStubCheckTools, __ATOMIC_RELAXED) == 0 && journal_fd < 0) return;
    if (CHECK_ON(CHECK_LEAK)) check_leaks("process exit");
    pthread_mutex_lock(&findings_lock);
    bool journal = journal_fd >= 0;
    if (journal) {
        journal_rewrite_locked(true);
        close(journal_fd);
        journal_fd = -1;
    }
    bool errors = error_count > 0;
    pthread_mutex_unlock(&findings_lock);
    if (!journal && journal_pattern[0] == '\0') summarise_on_stderr();
    if (error_exitcode >= 0 && errors) {
        fflush(NULL);
        _exit(error_exitcode);
    }
}

/* The check module's state stays consistent across fork(): its locks are held while the process forks.
 * Registered before the runtime's handlers (constructor priority), so that this prepare runs after the
 * runtime's has taken rt_lock, under which check locks are taken. A forked child reports only what it
 * does itself, in its own report (its file, when the name has %p). */
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
    clear_findings_locked();
    if (journal_fd >= 0) {
        close(journal_fd); /* the parent's */
        journal_fd = -1;
        if (strstr(journal_pattern, "%p") != NULL) journal_open();
    }
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
                        "leakcheck, apicheck, all; comma-separated); check mode stays off\n", spec);
        return;
    }
    const char *code = getenv("ACLNN_CHECK_ERROR_EXITCODE");
    if (code != NULL && code[0] != '\0') error_exitcode = atoi(code) & 0xff;
    aclStubCheckTools = (unsigned)tools;
    const char *report = getenv("ACLNN_CHECK_REPORT");
    if (report != NULL && report[0] != '\0' && strlen(report) < sizeof journal_pattern) {
        strcpy(journal_pattern, report);
        journal_open();
    }
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
