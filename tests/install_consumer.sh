#!/usr/bin/env bash
# Installs the built clip into a temporary prefix and builds a user program against it twice:
# through find_package(clip) and through pkg-config; both must run and list a device.
# Usage: install_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
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
"$tmp/app/b/list_devices" | grep -q '^\*'
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# A shared libclip in a prefix off the loader's path: the programs below find it here (CMake's
# build above has its rpath).
export LD_LIBRARY_PATH="$tmp/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# shellcheck disable=SC2046
cc -std=c11 "$tmp/app/list_devices.c" $(pkg-config --cflags --libs --static clip) -o "$tmp/ld2"
"$tmp/ld2" | grep -q '^\*'
# Without --static: the shared libclip, which needs only OpenCL on the link line.
# shellcheck disable=SC2046
cc -std=c11 "$tmp/app/list_devices.c" $(pkg-config --cflags --libs clip) -o "$tmp/ld3"
"$tmp/ld3" | grep -q '^\*'
ldd "$tmp/ld3" | grep -q 'libclip\.so\.0'
"$tmp/prefix/bin/clip" list | grep -q '^scale'
echo "install_consumer: find_package and pkg-config builds run"
