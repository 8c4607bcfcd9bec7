#!/usr/bin/env bash
# Builds bench/reduce_bench.c against a built libclip (default build-gpu) with the clip tool's
# own link line, then runs it: reduce_bench.sh [BUILD_DIR] [reduce_bench args...] < cases
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build-gpu}
shift || true
libs=$(sed 's/.*libclip\.a//' "$b/CMakeFiles/clip_tool.dir/link.txt")
cc -O2 -std=c11 -Iinclude bench/reduce_bench.c "$b/libclip.a" $libs -o "$b/reduce_bench"
exec "$b/reduce_bench" "$@"
