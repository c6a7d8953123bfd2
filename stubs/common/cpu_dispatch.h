/*
 * Run-time CPU dispatch for hot loops: a function marked STUB_CLONED is compiled for several x86-64 levels
 * and the best one for the host CPU is picked when the library loads, so one build runs anywhere (other
 * architectures, and sanitizer builds, get the single portable version).
 */
#ifndef ACLNN_STUB_CPU_DISPATCH_H_
#define ACLNN_STUB_CPU_DISPATCH_H_

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define STUB_CLONED __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define STUB_CLONED
#endif

#endif /* ACLNN_STUB_CPU_DISPATCH_H_ */
