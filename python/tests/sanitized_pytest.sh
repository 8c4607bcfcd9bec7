#!/bin/sh
# The pytest suite over a sanitizer build's libclip (ctest python_pytest_asan, in
# scripts/test.sh's ASan + UBSan stage): the interpreter is Debian's, not instrumented, so the
# sanitizer runtime is preloaded, and Python's allocations go through malloc (PYTHONMALLOC) so
# that AddressSanitizer sees every byte NumPy and cffi hand to clip.
#
# Memory errors and undefined behaviour anywhere stop the run (halt_on_error); a malloc too
# large returns NULL, as glibc's does, so that the suite's out-of-memory cases run as they do
# natively. Leaks: the interpreter keeps objects for the life of the process by design, so
# LeakSanitizer's report at exit is read, not trusted whole: every leak whose allocation stack passes through libclip fails
# the test (the OpenCL driver's own keep-alive allocations are suppressed by tests/lsan.supp, as
# in the C suite); leaks made by Python, NumPy or SciPy alone are counted and ignored.
#
# Usage: sanitized_pytest.sh PYTHON RUNTIME LIBCLIP SUPPRESSIONS TESTS_DIR [pytest args]
# (PYTHONPATH must name the package's directory, as for python_pytest).
set -u
py=$1 runtime=$2 lib=$3 supp=$4 tests=$5
shift 5
logs=$(mktemp -d)
trap '[ -n "${KEEP_LOGS:-}" ] || rm -rf "$logs"' EXIT
# CLIP_LIBRARY: clipcl opens this library. A sitecustomize opens it first through ctypes, which
# never closes it, so it stays mapped after cffi closes its own handle at exit: the leak report's
# stacks then name it (unmapped, they read "<unknown module>", and no leak would be seen as
# clip's). Subprocesses (the CLI, a Python child) inherit the preload, and their error reports
# land in the same folder, but leaks are looked for only in the pytest process: LeakSanitizer
# hung gcc (ctypes.util.find_library's child) at its exit, so the sitecustomize turns it off for
# every child the suite starts.
mkdir "$logs/site"
cat >"$logs/site/sitecustomize.py" <<'EOF'
import ctypes, os
_clip = ctypes.CDLL(os.environ["CLIP_LIBRARY"])
os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "").replace("detect_leaks=1",
                                                                       "detect_leaks=0")
EOF
# The CLI of a sanitizer build carries its own runtime, and stops at a second one preloaded.
if [ -n "${CLIP_TOOL:-}" ]; then
  printf '#!/bin/sh\nunset LD_PRELOAD\nexec "%s" "$@"\n' "$CLIP_TOOL" >"$logs/clip"
  chmod +x "$logs/clip"
  CLIP_TOOL=$logs/clip
  export CLIP_TOOL
fi
CLIP_TEST_SANITIZED=1 PYTHONPATH=$logs/site:${PYTHONPATH:-} CLIP_LIBRARY=$lib LD_PRELOAD=$runtime PYTHONMALLOC=malloc \
  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:allocator_may_return_null=1:log_path=$logs/report \
  LSAN_OPTIONS=suppressions=$supp:print_suppressions=0:use_tls=0:exitcode=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$py" -m pytest -q -p no:cacheprovider "$tests" "$@"
rc=$?
# One report file per process (ASan, LeakSanitizer and UBSan share the runtime and its log_path);
# records are separated by blank lines. A frame of clip's reads "in clip_data_create
# /src/lib/data.c:148" when symbolized, "(.../libclip.so.0+0x...)" when not: either marks the
# leak as clip's.
src=$(cd "$(dirname "$0")/../.." && pwd)
"$py" - "$logs" "$src/" <<'PY'
import glob, re, sys
clip, other, errors = [], 0, []
for path in sorted(glob.glob(sys.argv[1] + "/report.*")):
    text = open(path, errors="replace").read()
    if re.search(r"ERROR: AddressSanitizer|runtime error:", text):
        errors.append((path, text))
    for rec in re.split(r"\n\s*\n", text):
        if not re.match(r"\s*(Direct|Indirect) leak of", rec):
            continue
        if "libclip" in rec or " " + sys.argv[2] in rec:
            clip.append(rec)
        else:
            other += 1
for path, text in errors:
    print("sanitized_pytest: %s:\n%s" % (path, text[:6000]))
for rec in clip:
    print("sanitized_pytest: a leak through libclip:\n" + rec)
print("sanitized_pytest: %d leak records through libclip, %d elsewhere (Python, NumPy: ignored), "
      "%d sanitizer error reports" % (len(clip), other, len(errors)))
sys.exit(1 if clip or errors else 0)
PY
leaks=$?
[ $rc -eq 0 ] && [ $leaks -eq 0 ]
