"""Benchmarks of aclnn-py: operator kernels against memcpy, numpy and torch, and the client-side
overhead of the Python layers. Run ``python benchmarks/run.py --help``."""
