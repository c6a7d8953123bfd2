import time, numpy as np, torch, aclnn_py, sys
sys.path.insert(0, "benchmarks")
from opsets import nn_activation
torch.set_num_threads(2)
def best(f, n=9):
    t = []
    for _ in range(n):
        s = time.perf_counter(); f(); t.append(time.perf_counter() - s)
    return min(t)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
rng = np.random.default_rng(0)
for c in nn_activation.CASES:
    xs = [rng.uniform(*c.domain, N).astype(np.float32) for _ in range(c.arity)]
    if c.name == "sigmoid_backward": xs[1] = rng.uniform(0, 1, N).astype(np.float32)
    out = np.empty(N, np.float32)
    ts = [torch.from_numpy(x) for x in xs]
    f_ours = lambda: aclnn_py.run(c.op, *xs, *c.attrs, out=np.empty(N, np.float32))
    f_torch = lambda: c.torch_fn(*ts)
    f_ours(); f_torch()
    a, b = best(f_ours), best(f_torch)
    print(f"{c.name:20s} ours {a*1e3:8.2f} ms  torch {b*1e3:8.2f} ms  ratio(torch/ours) {b/a:5.2f}")
