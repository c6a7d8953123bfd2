/* Late binding: dlopen the chosen library set, then fill the function-pointer table with dlsym.
 * The table, its symbol names and its "not bound" functions come from the generated part (aclnnpy_glue.h):
 * a slot is never NULL, so a call before binding, or to a symbol the libraries lack, returns an error
 * instead of jumping to address 0. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnpy_glue.h"

#define ACLNNPY_MAX_LIBS 64

static void *aclnnpy_handles[ACLNNPY_MAX_LIBS];
static char aclnnpy_handle_paths[ACLNNPY_MAX_LIBS][4096];
static int aclnnpy_num_handles;

/* dlopen one library of the chosen set, globally so later ones resolve against it. NULL or an error. */
const char *aclnnpy_open(const char *path) {
    if (aclnnpy_num_handles == ACLNNPY_MAX_LIBS) return "too many libraries";
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) return dlerror();
    strncpy(aclnnpy_handle_paths[aclnnpy_num_handles], path, sizeof aclnnpy_handle_paths[0] - 1);
    aclnnpy_handles[aclnnpy_num_handles++] = h;
    return NULL;
}

/* Look every symbol up in the opened libraries, first match wins. Returns how many are missing. */
int aclnnpy_bind(void) {
    int missing = 0;
    for (int i = 0; i < aclnnpy_num_symbols; i++) {
        void *found = NULL;
        aclnnpy_origin[i] = -1;
        for (int h = 0; h < aclnnpy_num_handles && !found; h++) {
            found = dlsym(aclnnpy_handles[h], aclnnpy_symbol_names[i]);
            if (found) aclnnpy_origin[i] = h;
        }
        aclnnpy_ptrs[i] = found ? found : aclnnpy_unbound[i];
        missing += found == NULL;
    }
    return missing;
}

int aclnnpy_symbol_count(void) { return aclnnpy_num_symbols; }

const char *aclnnpy_symbol_name(int index) {
    return index >= 0 && index < aclnnpy_num_symbols ? aclnnpy_symbol_names[index] : NULL;
}

/* Path of the library a symbol was bound from, NULL when it is missing. */
const char *aclnnpy_symbol_library(int index) {
    if (index < 0 || index >= aclnnpy_num_symbols || aclnnpy_origin[index] < 0) return NULL;
    return aclnnpy_handle_paths[aclnnpy_origin[index]];
}

/* Arrays that aclGetViewShape and friends hand over to the caller are released with free(). */
void aclnnpy_free(void *ptr) { free(ptr); }

/* Symbols looked up by name at run time (operators whose headers are found after the build). */
int aclnnpy_library_count(void) { return aclnnpy_num_handles; }

const char *aclnnpy_library_path(int library) {
    return library >= 0 && library < aclnnpy_num_handles ? aclnnpy_handle_paths[library] : NULL;
}

/* Address of NAME in one opened library (or what it depends on), NULL when absent. */
void *aclnnpy_symbol_in(int library, const char *name) {
    if (library < 0 || library >= aclnnpy_num_handles || !name) return NULL;
    return dlsym(aclnnpy_handles[library], name);
}

/* Address of NAME in the opened libraries, first match in opening order; *library is its index or -1. */
void *aclnnpy_symbol_address(const char *name, int *library) {
    for (int h = 0; h < aclnnpy_num_handles; h++) {
        void *found = aclnnpy_symbol_in(h, name);
        if (found) {
            if (library) *library = h;
            return found;
        }
    }
    if (library) *library = -1;
    return NULL;
}
