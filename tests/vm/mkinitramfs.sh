#!/usr/bin/env bash
# Builds the guest's initramfs: static busybox, the few modules needed to
# reach the root filesystem (virtio console, 9p, overlayfs) and tests/vm/init.
#
# usage: mkinitramfs.sh KERNEL_PKG_DIR OUT.cpio.gz
set -euo pipefail
# depmod and modprobe live in /usr/sbin, outside an ordinary user's PATH.
export PATH="$PATH:/usr/sbin:/sbin"
here=$(dirname "$(realpath "$0")")
kpkg=$(realpath "$1")
out=$(realpath -m "$2")
kver=$(ls "$kpkg/lib/modules")
busybox=$(command -v busybox) || { echo "mkinitramfs: busybox-static is missing" >&2; exit 1; }
if ldd "$busybox" >/dev/null 2>&1; then  # ldd fails on static executables
  echo "mkinitramfs: $busybox is dynamically linked: install busybox-static" >&2
  exit 1
fi

stage=$(mktemp -d "${out%/*}/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,lower,rw,newroot,modules}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$here/init" "$stage/init"
chmod 755 "$stage/init"

# Modules in dependency order; built-in ones print no insmod line.
for m in virtio_pci virtio_console 9pnet_virtio 9p overlay; do
  modprobe -d "$kpkg" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
  cp "$ko" "$stage/modules/"
  basename "$ko" >>"$stage/modules/order"
done
touch "$stage/modules/order"

(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
