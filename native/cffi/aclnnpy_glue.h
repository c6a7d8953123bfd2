/*
 * What the generated part of the extension (build_native.py) provides loader.c and fastpath.c: the table of
 * late-bound symbols and the per-operator dispatch of the one-call path, derived from the headers' C types.
 * Not seen by Python. The limits below bound the dispatch: an operator with more parameters of a kind is
 * left out of the one-call path by the generator.
 */
#ifndef ACLNNPY_GLUE_H_
#define ACLNNPY_GLUE_H_

#include "aclnnpy.h"

#define ACLNNPY_MAX_TENSORS 16
#define ACLNNPY_MAX_ATTRS 16
#define ACLNNPY_MAX_ARRAYS 4

/* The late-bound symbols: names, the current address of each (a "not bound" stub until aclnnpy_bind), the
 * stubs themselves, and the library each one was bound from (-1: missing). */
extern ACLNNPY_API const int aclnnpy_num_symbols;
extern ACLNNPY_API const char *const aclnnpy_symbol_names[];
extern ACLNNPY_API void *aclnnpy_ptrs[];
extern ACLNNPY_API void *const aclnnpy_unbound[];
extern ACLNNPY_API int aclnnpy_origin[];

/* The operators of the one-call path: per operator, its parameter kinds in C order (T tensor, A attribute,
 * R aclIntArray), both phases' names, and both phases called with typed arguments. */
extern ACLNNPY_API const int aclnnpy_num_ops;
extern ACLNNPY_API const char *const aclnnpy_op_kinds[];
extern ACLNNPY_API const char *const aclnnpy_gws_names[];
extern ACLNNPY_API const char *const aclnnpy_exec_names[];
ACLNNPY_API aclnnStatus aclnnpy_gws(int op, aclTensor **t, const int64_t *a, aclIntArray **r, uint64_t *ws,
                                    aclOpExecutor **ex);
ACLNNPY_API aclnnStatus aclnnpy_exec(int op, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s);

#endif /* ACLNNPY_GLUE_H_ */
