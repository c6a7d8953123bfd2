/*
 * Rank table files (HcclCommInitClusterInfo): JSON with "status" ("completed"), "version", "server_count" and
 * "server_list", each server a "server_id" and a "device" list of {"device_id", "rank_id", ...}. Ranks are
 * numbered 0 .. N-1 over all servers. Every rank of the communicator reads the same file; the communicator's
 * rendezvous name comes from the file's content.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl_internal.h"

#define MAX_TABLE_BYTES (16u << 20)
#define MAX_NODES 200000

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

typedef struct JNode {
    JType type;
    const char *key; /* member name inside an object */
    char *str;       /* J_STR, J_NUM: the text */
    struct JNode *child, *next;
} JNode;

typedef struct {
    const char *p, *end;
    JNode *nodes;
    size_t used, cap;
    const char *error;
} Parser;

static JNode *node(Parser *ps, JType type) {
    if (ps->used == ps->cap) {
        ps->error = "too many values";
        return NULL;
    }
    JNode *n = &ps->nodes[ps->used++];
    memset(n, 0, sizeof *n);
    n->type = type;
    return n;
}

static void skip_ws(Parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

/* A string literal, unescaped in place (the buffer is ours); NULL on error. */
static char *parse_string(Parser *ps) {
    if (ps->p >= ps->end || *ps->p != '"') {
        ps->error = "expected a string";
        return NULL;
    }
    char *out = (char *)++ps->p, *w = out;
    while (ps->p < ps->end && *ps->p != '"') {
        char ch = *ps->p++;
        if (ch == '\\' && ps->p < ps->end) {
            char e = *ps->p++;
            ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
            if (e == 'u') { /* keep the escape as '?': names in rank tables are ASCII */
                ps->p += ps->end - ps->p >= 4 ? 4 : ps->end - ps->p;
                ch = '?';
            }
        }
        *w++ = ch;
    }
    if (ps->p >= ps->end) {
        ps->error = "unterminated string";
        return NULL;
    }
    ps->p++;
    *w = '\0';
    return out;
}

static JNode *parse_value(Parser *ps, int depth);

static JNode *parse_container(Parser *ps, int depth, bool object) {
    JNode *n = node(ps, object ? J_OBJ : J_ARR), *last = NULL;
    if (n == NULL) return NULL;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == (object ? '}' : ']')) {
        ps->p++;
        return n;
    }
    for (;;) {
        const char *key = NULL;
        skip_ws(ps);
        if (object) {
            key = parse_string(ps);
            if (key == NULL) return NULL;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                ps->error = "expected ':'";
                return NULL;
            }
            ps->p++;
        }
        JNode *v = parse_value(ps, depth + 1);
        if (v == NULL) return NULL;
        v->key = key;
        if (last)
            last->next = v;
        else
            n->child = v;
        last = v;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == (object ? '}' : ']')) {
            ps->p++;
            return n;
        }
        ps->error = object ? "expected ',' or '}'" : "expected ',' or ']'";
        return NULL;
    }
}

static JNode *parse_value(Parser *ps, int depth) {
    if (depth > 64) {
        ps->error = "nested too deeply";
        return NULL;
    }
    skip_ws(ps);
    if (ps->p >= ps->end) {
        ps->error = "unexpected end of file";
        return NULL;
    }
    char ch = *ps->p;
    if (ch == '{' || ch == '[') return parse_container(ps, depth, ch == '{');
    if (ch == '"') {
        JNode *n = node(ps, J_STR);
        if (n && (n->str = parse_string(ps)) == NULL) return NULL;
        return n;
    }
    static const struct {
        const char *text;
        JType type;
    } words[] = {{"true", J_BOOL}, {"false", J_BOOL}, {"null", J_NULL}};
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(words[i].text);
        if ((size_t)(ps->end - ps->p) >= len && strncmp(ps->p, words[i].text, len) == 0) {
            ps->p += len;
            return node(ps, words[i].type);
        }
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        JNode *n = node(ps, J_NUM);
        if (n == NULL) return NULL;
        const char *start = ps->p;
        while (ps->p < ps->end && strchr("+-.eE0123456789", *ps->p)) ps->p++;
        /* numbers are copied out: the buffer has no terminator after them */
        size_t len = (size_t)(ps->p - start);
        n->str = malloc(len + 1);
        if (n->str == NULL) {
            ps->error = "out of memory";
            return NULL;
        }
        memcpy(n->str, start, len);
        n->str[len] = '\0';
        return n;
    }
    ps->error = "unexpected character";
    return NULL;
}

static const JNode *member(const JNode *obj, const char *key) {
    if (obj == NULL || obj->type != J_OBJ) return NULL;
    for (const JNode *c = obj->child; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0) return c;
    return NULL;
}

/* An integer given as a number or a string of digits. */
static bool int_of(const JNode *n, long long *out) {
    if (n == NULL || (n->type != J_STR && n->type != J_NUM)) return false;
    char *end;
    errno = 0;
    long long v = strtoll(n->str, &end, 10);
    if (errno != 0 || end == n->str || *end != '\0') return false;
    *out = v;
    return true;
}

HcclResult hc_parse_rank_table(const char *func, const char *path, uint32_t rank, uint32_t *nranks, int32_t *device,
                               uint64_t *content_hash) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return hc_err(HCCL_E_OPEN_FILE_FAILURE, "%s: cannot open the rank table file '%s': %s", func, path,
                      strerror(errno));
    char *text = malloc(MAX_TABLE_BYTES + 1);
    size_t len = text ? fread(text, 1, MAX_TABLE_BYTES + 1, f) : 0;
    fclose(f);
    if (text == NULL) return hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
    if (len > MAX_TABLE_BYTES) {
        free(text);
        return hc_err(HCCL_E_PARA, "%s: the rank table file '%s' is larger than %u bytes", func, path,
                      MAX_TABLE_BYTES);
    }
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)text[i]) * UINT64_C(1099511628211);
    *content_hash = h;
    Parser ps = {text, text + len, calloc(MAX_NODES, sizeof(JNode)), 0, MAX_NODES, NULL};
    HcclResult ret = HCCL_SUCCESS;
    JNode *root = ps.nodes ? parse_value(&ps, 0) : NULL;
    if (ps.nodes == NULL) ret = hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
    else if (root == NULL || root->type != J_OBJ)
        ret = hc_err(HCCL_E_PARA, "%s: the rank table file '%s' is not a JSON object: %s (at byte %ld)", func, path,
                     ps.error ? ps.error : "not an object", (long)(ps.p - text));
    const JNode *status = member(root, "status"), *servers = member(root, "server_list");
    long long count = -1;
    if (ret == HCCL_SUCCESS && (status == NULL || status->type != J_STR || strcmp(status->str, "completed") != 0))
        ret = hc_err(HCCL_E_PARA, "%s: rank table '%s': \"status\" must be \"completed\"", func, path);
    if (ret == HCCL_SUCCESS && member(root, "version") == NULL)
        ret = hc_err(HCCL_E_PARA, "%s: rank table '%s' has no \"version\"", func, path);
    if (ret == HCCL_SUCCESS && (!int_of(member(root, "server_count"), &count) || count < 1))
        ret = hc_err(HCCL_E_PARA, "%s: rank table '%s': \"server_count\" must be a positive integer", func, path);
    if (ret == HCCL_SUCCESS && (servers == NULL || servers->type != J_ARR))
        ret = hc_err(HCCL_E_PARA, "%s: rank table '%s' has no \"server_list\" array", func, path);
    long long nservers = 0, total = 0;
    for (const JNode *s = servers ? servers->child : NULL; s && ret == HCCL_SUCCESS; s = s->next) {
        nservers++;
        const JNode *id = member(s, "server_id"), *devs = member(s, "device");
        if (id == NULL || id->type != J_STR || strlen(id->str) > 64)
            ret = hc_err(HCCL_E_PARA, "%s: rank table '%s': server %lld needs a \"server_id\" string of at most 64 "
                         "characters", func, path, nservers - 1);
        else if (devs == NULL || devs->type != J_ARR)
            ret = hc_err(HCCL_E_PARA, "%s: rank table '%s': server \"%s\" has no \"device\" array", func, path,
                         id->str);
        for (const JNode *d = devs ? devs->child : NULL; d && ret == HCCL_SUCCESS; d = d->next) total++;
    }
    if (ret == HCCL_SUCCESS && nservers != count)
        ret = hc_err(HCCL_E_PARA, "%s: rank table '%s': \"server_count\" is %lld but \"server_list\" holds %lld "
                     "server(s)", func, path, count, nservers);
    if (ret == HCCL_SUCCESS && (total < 1 || total > HC_MAX_RANKS))
        ret = hc_err(HCCL_E_PARA, "%s: rank table '%s' lists %lld device(s); 1 to %d are supported", func, path, total,
                     HC_MAX_RANKS);
    bool *seen = ret == HCCL_SUCCESS ? calloc((size_t)total, 1) : NULL;
    if (ret == HCCL_SUCCESS && seen == NULL) ret = hc_err(HCCL_E_MEMORY, "%s: out of host memory", func);
    bool found = false;
    for (const JNode *s = servers ? servers->child : NULL; s && ret == HCCL_SUCCESS; s = s->next)
        for (const JNode *d = member(s, "device")->child; d && ret == HCCL_SUCCESS; d = d->next) {
            long long dev = -1, rid = -1;
            if (!int_of(member(d, "device_id"), &dev) || dev < 0 || !int_of(member(d, "rank_id"), &rid))
                ret = hc_err(HCCL_E_PARA, "%s: rank table '%s': every device needs integer \"device_id\" and "
                             "\"rank_id\"", func, path);
            else if (rid < 0 || rid >= total || seen[rid])
                ret = hc_err(HCCL_E_PARA, "%s: rank table '%s': \"rank_id\" %lld is %s", func, path, rid,
                             rid < 0 || rid >= total ? "outside [0, number of devices)" : "listed twice");
            else {
                seen[rid] = true;
                if ((uint64_t)rid == rank) {
                    *device = (int32_t)dev;
                    found = true;
                }
            }
        }
    if (ret == HCCL_SUCCESS && !found)
        ret = hc_err(HCCL_E_PARA, "%s: argument 'rank' (%u) is not a rank_id of the rank table '%s' (%lld ranks)", func,
                     rank, path, total);
    if (ret == HCCL_SUCCESS) *nranks = (uint32_t)total;
    for (size_t i = 0; i < ps.used; i++)
        if (ps.nodes[i].type == J_NUM) free(ps.nodes[i].str);
    free(seen);
    free(ps.nodes);
    free(text);
    return ret;
}
