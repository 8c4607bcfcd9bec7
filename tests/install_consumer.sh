#!/usr/bin/env bash
# Installs the built clip into a temporary prefix and builds a user program against it twice:
# through find_package(clip) and through pkg-config; both must run and list a device.
# Usage: install_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
# Say which step failed: ctest shows only this script's output.
trap 'echo "install_consumer: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR
# has PATTERN CMD...: CMD's output has a line matching PATTERN (the whole output is read, so CMD
# never meets a closed pipe; the output is shown when the line is missing).
has() {
  local pattern=$1 out
  shift
  out=$("$@" 2>&1) || { echo "install_consumer: $* failed (exit $?): $out" >&2; return 1; }
  grep -q -- "$pattern" <<<"$out" || { echo "install_consumer: $* printed no '$pattern': $out" >&2; return 1; }
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
mkdir "$tmp/app"
cp "$src/examples/list_devices.c" "$tmp/app/"
cat > "$tmp/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(clip REQUIRED)
add_executable(list_devices list_devices.c)
target_link_libraries(list_devices PRIVATE clip::clip)
CM
cmake -S "$tmp/app" -B "$tmp/app/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/app/b" >/dev/null
has '^\*' "$tmp/app/b/list_devices"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# A shared libclip in a prefix off the loader's path: the programs below find it here (CMake's
# build above has its rpath).
export LD_LIBRARY_PATH="$tmp/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# shellcheck disable=SC2046
cc -std=c11 "$tmp/app/list_devices.c" $(pkg-config --cflags --libs --static clip) -o "$tmp/ld2"
has '^\*' "$tmp/ld2"
# Without --static: the shared libclip, which needs only OpenCL on the link line.
# shellcheck disable=SC2046
cc -std=c11 "$tmp/app/list_devices.c" $(pkg-config --cflags --libs clip) -o "$tmp/ld3"
has '^\*' "$tmp/ld3"
has 'libclip\.so\.0' ldd "$tmp/ld3"
has '^scale' "$tmp/prefix/bin/clip" list
echo "install_consumer: find_package and pkg-config builds run"
