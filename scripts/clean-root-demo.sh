#!/usr/bin/env bash
# The README's first command on a machine that has nothing but Debian 12's base system: makes a
# clean root with debootstrap (minbase, from the Debian mirror apt uses on this machine), puts a
# fresh clone of this repository's HEAD in it, bind-mounts what PoCL needs (/proc, /sys, /dev),
# runs `bash scripts/demo.sh` inside with chroot, and checks that it wrote a PNG.
#   scripts/clean-root-demo.sh [ROOT_DIR (default /tmp/clip-clean-root)]
# Needs root (debootstrap, mount, chroot) and git; installs debootstrap when missing. Only
# committed files reach the clean root, as on a user's `git clone`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/tmp/clip-clean-root}
suite=bookworm

if ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi
# The first Debian archive this machine's apt reads (deb822 sources or a one-line list).
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] ||
  mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}

unmount_all() {
  for m in dev sys proc; do
    mountpoint -q "$root/$m" 2>/dev/null && umount -R "$root/$m"
  done
  return 0
}
trap unmount_all EXIT
unmount_all
rm -rf "$root"
echo "clean root: debootstrap --variant=minbase $suite $root $mirror"
debootstrap --variant=minbase "$suite" "$root" "$mirror" >"${root%/}.debootstrap.log" 2>&1 ||
  { tail -20 "${root%/}.debootstrap.log"; exit 1; }
git clone -q . "$root/clip"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount --bind /proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
echo "clean root: bash scripts/demo.sh"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c 'cd /clip && bash scripts/demo.sh'
png=$root/clip/build/demo.png
sig=$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
if [ "$sig" != 89504e470d0a1a0a ]; then
  echo "clean root: $png is missing or not a PNG"
  exit 1
fi
echo "clean root: demo wrote $png ($(stat -c %s "$png") bytes)"
