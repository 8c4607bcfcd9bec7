"""Not part of the suite (pytest collects test_*.py): ctest python_pytest_asan_canary runs it
through sanitized_pytest.sh and passes only when that reports these leaks as clip's, so the leak
check of python_pytest_asan is shown able to fail."""
import clipcl
from clipcl._ffi import ffi, lib


def test_data_objects_made_and_dropped():
    pd = ffi.new("clip_data **")
    dims = ffi.new("size_t[]", [64, 64])
    for _ in range(8):
        assert lib.clip_data_create(clipcl.default_app()._p, 0, 2, dims, pd) == 0
    pd[0] = ffi.NULL  # the only pointer to the last one gone, as to the others: none destroyed
