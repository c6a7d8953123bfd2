/* libopapi.so and libhccl.so hold nothing the MoE operators need; they exist so the official link line
 * (-lopapi ... -lhccl) resolves against the stub. */
int aclStubEmptyLibrary(void);
__attribute__((visibility("default"))) int aclStubEmptyLibrary(void) { return 0; }
