/* The body of a stub library that holds no function of its own yet (libhccl.so, an operator library of a
 * repository with no operators): it exists so the official link line (-lhccl, -lopapi_cv...) resolves. */
int aclStubEmptyLibrary(void);
__attribute__((visibility("default"))) int aclStubEmptyLibrary(void) { return 0; }
