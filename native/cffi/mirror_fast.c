/*
 * The compiled mirror: what every generated wrapper of mirror_gen.py shares. A wrapper converts the arguments
 * a ported C sample passes (ints, lists of ints, cffi handles, None) straight to C, calls the function with
 * out-parameters on its own stack and checks the status; anything else (keywords, a numpy array, a host span,
 * an int out of range, any error) goes to the Python wrapper of aclnn_py._mirror, which holds every rule and
 * every message. So the compiled path only ever takes inputs the Python path accepts, with the same result.
 *
 * cffi objects are read and made through the C API that cffi's _cffi_backend exports to compiled modules.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* The generated tables are shared within this module only. */
#define MIRROR_HIDDEN __attribute__((visibility("hidden")))

/* Longest list of ints converted on the stack; a longer one takes the Python path. */
#define MIRROR_MAX_INTS 64

typedef PyObject *(*mirror_from_pointer_fn)(char *, PyObject *);
typedef char *(*mirror_to_pointer_fn)(PyObject *, PyObject *);

static mirror_from_pointer_fn mirror_from_pointer; /* cffi: a cdata of a C type (index 10 of its exports) */
static mirror_to_pointer_fn mirror_to_pointer;     /* cffi: a pointer from a cdata, type-checked (index 11) */
static PyTypeObject *mirror_cdata_type;            /* ffi.CData: every cffi object is an instance */
static PyObject **mirror_ctypes;                   /* ffi.typeof of each mirror_pointer_types[] entry */
static PyObject *mirror_raise_status;              /* errors.raise_status(status, function, family) */
static PyObject *mirror_check_handle;              /* errors.check_handle(handle, function) */
static PyObject *mirror_typeof;                    /* ffi.typeof */
static PyObject *mirror_families[2];               /* AclError, AclnnError */

/* Per wrapped function (by its generated index): the C function and the Python wrapper it falls back on. */
static void **mirror_functions;
static PyObject **mirror_slow;

static PyObject *mirror_fallback(int fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return PyObject_Vectorcall(mirror_slow[fn], args, (size_t)nargs, kwnames);
}

/* Each converter returns 0 with the C value, or 1: not a case of the compiled path (no exception set). */

static int mirror_signed(PyObject *o, long long lo, long long hi, long long *out) {
    int overflow;
    long long v;
    if (!PyLong_CheckExact(o))
        return 1;
    v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 1;
    }
    if (v < lo || v > hi)
        return 1;
    *out = v;
    return 0;
}

static int mirror_unsigned(PyObject *o, unsigned long long hi, unsigned long long *out) {
    unsigned long long v;
    if (!PyLong_CheckExact(o))
        return 1;
    v = PyLong_AsUnsignedLongLong(o); /* raises for a negative int or one beyond 64 bits */
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 1;
    }
    if (v > hi)
        return 1;
    *out = v;
    return 0;
}

static int mirror_bool(PyObject *o, int *out) {
    if (o == Py_True || o == Py_False) {
        *out = o == Py_True;
        return 0;
    }
    return 1;
}

/* A cffi pointer of (or convertible to) C type `ctype` by cffi's own rules; None is NULL. */
static int mirror_pointer(PyObject *o, int ctype, void **out) {
    char *p;
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    if (!PyObject_TypeCheck(o, mirror_cdata_type))
        return 1;
    p = mirror_to_pointer(o, mirror_ctypes[ctype]);
    if (p == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        return 1;
    }
    *out = p;
    return 0;
}

/* Pointer ctypes seen so far (strong references): most calls find theirs here without asking for its kind. */
#define MIRROR_KNOWN_POINTERS 16
static PyObject *mirror_known_pointers[MIRROR_KNOWN_POINTERS];

static int mirror_is_pointer_ctype(PyObject *ct) {
    PyObject *kind;
    int i, is_pointer;
    for (i = 0; i < MIRROR_KNOWN_POINTERS && mirror_known_pointers[i] != NULL; i++)
        if (mirror_known_pointers[i] == ct)
            return 1;
    kind = PyObject_GetAttrString(ct, "kind");
    if (kind == NULL) {
        PyErr_Clear();
        return 0;
    }
    is_pointer = PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "pointer") == 0;
    Py_DECREF(kind);
    if (is_pointer && i < MIRROR_KNOWN_POINTERS) {
        Py_INCREF(ct);
        mirror_known_pointers[i] = ct;
    }
    return is_pointer;
}

/* An address C reads or writes a counted span through: None (NULL) or a cffi pointer, whose extent is unknown
   to Python as to C. A cffi array (its size is checked), a host span and the rest take the Python path. */
static int mirror_address(PyObject *o, int ctype, void **out) {
    PyObject *ct;
    int is_pointer;
    if (o == Py_None || !PyObject_TypeCheck(o, mirror_cdata_type))
        return mirror_pointer(o, ctype, out);
    ct = PyObject_CallOneArg(mirror_typeof, o);
    if (ct == NULL) {
        PyErr_Clear();
        return 1;
    }
    is_pointer = mirror_is_pointer_ctype(ct);
    Py_DECREF(ct);
    return is_pointer ? mirror_pointer(o, ctype, out) : 1;
}

/* A list or tuple of ints in the int64 range, copied into `buf` (C copies what it reads). An empty one becomes
   a one-element array, as the Python path makes it, so C never gets NULL for it. */
static int mirror_int64s(PyObject *o, int64_t *buf, int64_t **out, Py_ssize_t *len) {
    Py_ssize_t n, i;
    PyObject **items;
    if (!PyList_CheckExact(o) && !PyTuple_CheckExact(o))
        return 1;
    n = PySequence_Fast_GET_SIZE(o);
    if (n > MIRROR_MAX_INTS)
        return 1;
    items = PySequence_Fast_ITEMS(o);
    for (i = 0; i < n; i++) {
        long long v;
        if (mirror_signed(items[i], INT64_MIN, INT64_MAX, &v))
            return 1;
        buf[i] = (int64_t)v;
    }
    if (n == 0)
        buf[0] = 0;
    *out = buf;
    *len = n;
    return 0;
}

/* The results. */

static PyObject *mirror_status(int32_t status, const char *function, int family) {
    PyObject *r = PyObject_CallFunction(mirror_raise_status, "lsO", (long)status, function, mirror_families[family]);
    Py_XDECREF(r);
    if (r != NULL)
        PyErr_Format(PyExc_SystemError, "%s: error status %ld raised nothing", function, (long)status);
    return NULL;
}

static PyObject *mirror_handle(void *handle, int ctype, const char *function) {
    PyObject *obj = mirror_from_pointer((char *)handle, mirror_ctypes[ctype]);
    PyObject *r;
    if (obj == NULL || handle != NULL)
        return obj;
    r = PyObject_CallFunction(mirror_check_handle, "Os", obj, function); /* raises for NULL */
    Py_DECREF(obj);
    return r;
}

/* A tuple of `n` new references (out-parameters in C order); NULL if one of them failed. */
static PyObject *mirror_outs(int n, ...) {
    PyObject *tuple = PyTuple_New(n), *item;
    int i, failed = tuple == NULL;
    va_list ap;
    va_start(ap, n);
    for (i = 0; i < n; i++) {
        item = va_arg(ap, PyObject *);
        if (item == NULL || failed) {
            failed = 1;
            Py_XDECREF(item);
            continue;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    va_end(ap);
    if (failed) {
        Py_XDECREF(tuple);
        return NULL;
    }
    return tuple;
}

/* Module functions (the tables they fill come from the generated part). */

extern MIRROR_HIDDEN PyMethodDef mirror_defs[];        /* one per wrapped function, by index */
extern MIRROR_HIDDEN const char *const mirror_names[];
extern MIRROR_HIDDEN const char *const mirror_pointer_types[];
extern MIRROR_HIDDEN const int mirror_count, mirror_pointer_type_count;

static PyObject *mirror_init(PyObject *self, PyObject *args) {
    PyObject *ctypes, *cdata_type, *type_of, *raise_status, *check_handle, *acl_error, *aclnn_error, *backend, *capsule;
    void **exports;
    Py_ssize_t i;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!OOOOO", &PyTuple_Type, &ctypes, &PyType_Type, &cdata_type, &type_of,
                          &raise_status, &check_handle, &acl_error, &aclnn_error))
        return NULL;
    if (PyTuple_GET_SIZE(ctypes) != mirror_pointer_type_count) {
        PyErr_SetString(PyExc_ValueError, "init: one ctype per entry of POINTER_TYPES");
        return NULL;
    }
    if (mirror_ctypes != NULL)
        Py_RETURN_NONE; /* initialised once per process */
    backend = PyImport_ImportModule("_cffi_backend");
    if (backend == NULL)
        return NULL;
    capsule = PyObject_GetAttrString(backend, "_C_API");
    Py_DECREF(backend);
    if (capsule == NULL)
        return NULL;
    exports = (void **)PyCapsule_GetPointer(capsule, "cffi");
    Py_DECREF(capsule);
    if (exports == NULL)
        return NULL;
    mirror_functions = PyMem_Calloc((size_t)mirror_count, sizeof *mirror_functions);
    mirror_slow = PyMem_Calloc((size_t)mirror_count, sizeof *mirror_slow);
    mirror_ctypes = PyMem_Calloc((size_t)mirror_pointer_type_count + 1, sizeof *mirror_ctypes);
    if (mirror_functions == NULL || mirror_slow == NULL || mirror_ctypes == NULL)
        return PyErr_NoMemory();
    mirror_from_pointer = (mirror_from_pointer_fn)exports[10];
    mirror_to_pointer = (mirror_to_pointer_fn)exports[11];
    Py_INCREF(cdata_type);
    mirror_cdata_type = (PyTypeObject *)cdata_type;
    for (i = 0; i < mirror_pointer_type_count; i++) {
        mirror_ctypes[i] = PyTuple_GET_ITEM(ctypes, i);
        Py_INCREF(mirror_ctypes[i]);
    }
    Py_INCREF(type_of);
    mirror_typeof = type_of;
    Py_INCREF(raise_status);
    mirror_raise_status = raise_status;
    Py_INCREF(check_handle);
    mirror_check_handle = check_handle;
    Py_INCREF(acl_error);
    mirror_families[0] = acl_error;
    Py_INCREF(aclnn_error);
    mirror_families[1] = aclnn_error;
    Py_RETURN_NONE;
}

/* wrap(name, python_wrapper, address, module): the compiled function `name`, calling C at `address` and
   falling back on `python_wrapper`; None when `name` has no compiled wrapper. */
static PyObject *mirror_wrap(PyObject *self, PyObject *args) {
    const char *name, *module;
    PyObject *slow, *address, *module_name, *fn;
    void *ptr;
    int i;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOOs", &name, &slow, &address, &module))
        return NULL;
    if (mirror_ctypes == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "wrap: call init first");
        return NULL;
    }
    for (i = 0; i < mirror_count && strcmp(mirror_names[i], name) != 0; i++)
        ;
    if (i == mirror_count)
        Py_RETURN_NONE;
    ptr = PyLong_AsVoidPtr(address);
    if (ptr == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "wrap: NULL function address");
        return NULL;
    }
    if (mirror_slow[i] == NULL) { /* first wrap wins: every later one is the same function */
        Py_INCREF(slow);
        mirror_slow[i] = slow;
        mirror_functions[i] = ptr;
    }
    module_name = PyUnicode_FromString(module);
    if (module_name == NULL)
        return NULL;
    fn = PyCFunction_NewEx(&mirror_defs[i], NULL, module_name);
    Py_DECREF(module_name);
    return fn;
}

static PyObject *mirror_strings(const char *const *items, int n) {
    PyObject *tuple = PyTuple_New(n);
    int i;
    for (i = 0; tuple != NULL && i < n; i++) {
        PyObject *s = PyUnicode_FromString(items[i]);
        if (s == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, s);
    }
    return tuple;
}

static PyMethodDef mirror_module_methods[] = {
    {"init", mirror_init, METH_VARARGS,
     "init(ctypes, cdata_type, typeof, raise_status, check_handle, AclError, AclnnError): once, before wrap; "
     "ctypes are ffi.typeof of POINTER_TYPES in order."},
    {"wrap", mirror_wrap, METH_VARARGS,
     "wrap(name, python_wrapper, address, module): the compiled wrapper of C function `name` at `address`, or "
     "None if it has none."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef mirror_module = {
    PyModuleDef_HEAD_INIT, "_mirror",
    "The compiled mirror-layer wrappers (generated by mirror_gen.py; see mirror_fast.c).", -1,
    mirror_module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__mirror(void) {
    PyObject *m = PyModule_Create(&mirror_module), *types, *names;
    if (m == NULL)
        return NULL;
    types = mirror_strings(mirror_pointer_types, mirror_pointer_type_count);
    if (types == NULL || PyModule_AddObject(m, "POINTER_TYPES", types) < 0) {
        Py_XDECREF(types);
        Py_DECREF(m);
        return NULL;
    }
    names = mirror_strings(mirror_names, mirror_count); /* the C functions with a compiled wrapper */
    if (names == NULL || PyModule_AddObject(m, "NAMES", names) < 0) {
        Py_XDECREF(names);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
