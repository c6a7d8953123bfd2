"""A kernel that fails inside queued work reports it at the next synchronisation, as a device reports a
failed kernel: the gather kernels whose worker threads cannot get their buffers fail with a status instead of
writing rows of zeros (tests/c/kernel_out_of_memory.c refuses one allocation size while armed)."""

from pathlib import Path

from helpers_ops import run_c_validation

SOURCE = Path(__file__).resolve().parent / "c" / "kernel_out_of_memory.c"
CASES = {"permute_grad_fails", "permute_grad_no_zero_rows", "permute_grad_runs_when_memory_is_there",
         "unpermute_with_ep_fails_rows", "unpermute_with_ep_fails_weights"}


def test_out_of_memory_in_a_kernel_is_a_failure(tmp_path_factory):
    results = run_c_validation(SOURCE, tmp_path_factory, werror=True)
    assert set(results) == CASES
    assert [name for name, ok in results.items() if ok != 1] == []
