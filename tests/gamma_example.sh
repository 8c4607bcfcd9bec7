#!/usr/bin/env bash
# The path a user walks, on the installed package: installs the built clip into a temporary
# prefix, then builds examples/gamma_plugin (its own CMakeLists.txt, find_package(clip)) twice,
# its C program linked to libclip.so and to libclip.a, and runs its ctest tests each time:
# values for f32/f64/c32/c64 against the host's pow/cpow, the conv2 -> gamma -> norm chain with
# no download between, a split over two PoCL devices bit for bit, `clip --plugin libgamma.so run
# gamma`, and clip.call('gamma', ...) in Octave through the installed gateway (those two skip,
# with the reason, where clip was built without MAT files or the gateway).
# Usage: gamma_example.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for link in shared static; do
  static=OFF
  [ "$link" = static ] && static=ON
  cmake -S "$src/examples/gamma_plugin" -B "$tmp/$link" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
        -DGAMMA_STATIC=$static >/dev/null
  cmake --build "$tmp/$link" >/dev/null
  ctest --test-dir "$tmp/$link" --output-on-failure
done
echo "gamma_example: the out-of-tree example built and passed against the installed clip (shared and static)"
