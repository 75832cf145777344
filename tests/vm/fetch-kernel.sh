#!/usr/bin/env bash
# Fetches bookworm-backports' kernel (linux-image-amd64 -> linux-image-6.12.x)
# with apt-get download and unpacks it with dpkg -x under CACHE, once.
# Prints the unpacked package directory (it holds boot/vmlinuz-* and
# lib/modules/VERSION with uncompressed modules and a fresh modules.dep).
#
# usage: fetch-kernel.sh CACHE
# The newest backports kernel is taken (backports keeps only that one); when
# apt's lists name a newer one than CACHE holds, it is fetched again.
set -euo pipefail
# depmod and modprobe live in /usr/sbin, outside an ordinary user's PATH.
export PATH="$PATH:/usr/sbin:/sbin"
cache=$(realpath -m "$1")
mkdir -p "$cache"
exec 9>"$cache/.fetch.lock"
flock 9  # parallel tests share one download

# The metapackage's version in bookworm-backports, as apt's lists have it
# (empty without lists): a kept cache follows backports to a new kernel.
newest=$(apt-cache madison linux-image-amd64 2>/dev/null |
  awk -F' *[|] *' '$3 ~ /bookworm-backports/ { print $2; exit }')
if [ -f "$cache/kernel/ready" ] &&
    { [ -z "$newest" ] || [ "$(cat "$cache/kernel/meta-version" 2>/dev/null)" = "$newest" ]; }; then
  cat "$cache/kernel/ready"
  exit 0
fi

die() { echo "fetch-kernel: $*" >&2; exit 1; }
for tool in apt-get dpkg-deb dpkg depmod xz; do
  command -v "$tool" >/dev/null || die "$tool is missing (run tools/deps.sh --tests)"
done

work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
# apt-get download warns about its sandbox user when run as root: not an error.
quiet_apt() { "$@" 2>&1 | { grep -v -e unsandboxed -e '^Get:' -e '^Fetched' || true; } >&2; }

# The metapackage names the versioned image package it stands for.
quiet_apt apt-get download -q linux-image-amd64/bookworm-backports
meta=$(ls linux-image-amd64_*.deb 2>/dev/null) ||
  die "apt-get could not download linux-image-amd64 from bookworm-backports" \
    "(is bookworm-backports configured? tools/apt-sources.sh adds it)"
dep=$(dpkg-deb -f "$meta" Depends | tr ',' '\n' | grep -o 'linux-image-[^ ]*-amd64 (= [^)]*)' | head -n1)
[ -n "$dep" ] || die "cannot read the image package from $meta's Depends"
pkg=${dep%% *}
ver=$(sed 's/.*(= \(.*\))/\1/' <<<"$dep")
quiet_apt apt-get download -q "$pkg=$ver"
deb=$(ls "${pkg}"_*.deb 2>/dev/null) || die "apt-get could not download $pkg=$ver"

dest="$cache/kernel/$pkg"
rm -rf "$cache/kernel"
mkdir -p "$cache/kernel"
dpkg -x "$deb" "$dest"
kver=$(ls "$dest/lib/modules")
# finit_module of .ko.xz decompresses in the guest, which is slow under TCG.
find "$dest/lib/modules" -name '*.ko.xz' -print0 | xargs -0 -r -P "$(nproc)" -n 100 xz -d
depmod -b "$dest" "$kver"
ls "$dest"/boot/vmlinuz-* >/dev/null || die "$deb has no boot/vmlinuz-*"
dpkg-deb -f "$meta" Version >"$cache/kernel/meta-version"
echo "$dest" >"$cache/kernel/ready"
echo "fetch-kernel: $pkg $ver unpacked in $dest" >&2
cat "$cache/kernel/ready"
