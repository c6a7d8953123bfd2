"""fork() while other threads are inside the tensor-meta API, the executor registry and the kernel pool:
the child can use all of them (their locks are reset in the child by pthread_atfork handlers)."""

from helpers_proc import run_json

CHILD_WORK = '''
import os, signal, threading
import numpy as np
import aclnn_py
from aclnn_py import acl, aclnn

NULL = aclnn_py._native.ffi.NULL
stop = threading.Event()


def meta_calls():
    """Tensors, arrays, scalars and phase-1 executors made and destroyed in a loop (no device memory)."""
    while not stop.is_set():
        g = acl.aclCreateTensor([6, 4], 2, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, [6, 4], 2, NULL)
        i = acl.aclCreateTensor([6], 1, acl.ACL_INT32, NULL, 0, acl.ACL_FORMAT_ND, [6], 1, NULL)
        o = acl.aclCreateTensor([3, 4], 2, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, [3, 4], 2, NULL)
        a = acl.aclCreateIntArray([1, 2, 3], 3)
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(g, i, 2, False, o)
        acl.aclDestroyAclOpExecutor(ex)
        for t in (g, i, o):
            acl.aclDestroyTensor(t)
        acl.aclDestroyIntArray(a)


def kernels():
    """High-level calls: the pool's locks are held while its workers run."""
    grad = np.ones((4096, 64), np.float32)
    idx = np.arange(4096, dtype=np.int32)
    while not stop.is_set():
        aclnn_py.moe_token_permute_grad(grad, idx, 2)


acl.aclStubSetNumThreads(2)
threads = [threading.Thread(target=f, daemon=True) for f in (meta_calls, meta_calls, kernels)]
for t in threads:
    t.start()
statuses = []
for _ in range(CHILDREN):
    pid = os.fork()
    if pid == 0:
        signal.alarm(20)  # a deadlocked child is killed and reported, never hangs the test
        try:
            g = acl.aclCreateTensor([6, 4], 2, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, [6, 4], 2, NULL)
            i = acl.aclCreateTensor([6], 1, acl.ACL_INT32, NULL, 0, acl.ACL_FORMAT_ND, [6], 1, NULL)
            o = acl.aclCreateTensor([3, 4], 2, acl.ACL_FLOAT, NULL, 0, acl.ACL_FORMAT_ND, [3, 4], 2, NULL)
            ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(g, i, 2, False, o)
            acl.aclSetAclOpExecutorRepeatable(ex)
            acl.aclDestroyAclOpExecutor(ex)
            for t in (g, i, o):
                acl.aclGetViewShape(t)
                acl.aclDestroyTensor(t)
            acl.aclDestroyIntArray(acl.aclCreateIntArray([4], 1))
            acl.aclStubSetNumThreads(2)
            acl.aclStubLiveTensors()
            os._exit(0)
        except BaseException:
            os._exit(3)
    statuses.append(os.waitpid(pid, 0)[1])
stop.set()
for t in threads:
    t.join()
emit({"statuses": statuses})
'''


def test_children_of_a_busy_parent_can_use_the_meta_api():
    children = 12
    result = run_json(f"CHILDREN = {children}\n" + CHILD_WORK, env={"ACLNN_PY_BACKEND": "stub"}, timeout=300)
    assert result["statuses"] == [0] * children
