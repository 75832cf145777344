#!/usr/bin/env bash
# Builds vkms for the guest kernel, which Debian ships without it
# (CONFIG_DRM_VKMS is not set), and installs it into the unpacked kernel.
# Two modules come out of one copy of drivers/gpu/drm/vkms:
#   vkms.ko          as the kernel's source has it
#   vkms_nofence.ko  driver (and platform device) named "vkms_nofence", whose
#                    planes refuse IN_FENCE_FD with EPERM, as NVIDIA's driver
#                    did before 560, and which has DRM syncobj timelines (as
#                    NVIDIA has), so wlroots hands compositors wait points
#                    on it; it can be loaded beside vkms
#   vkms_timeline.ko driver named "vkms_timeline": vkms with DRM syncobj
#                    timelines, so wlroots hands compositors wait points and
#                    the planes honour IN_FENCE_FD (the atomic helpers wait
#                    for it, and then ignore the dma-buf's implicit write
#                    fences): the in-fence is all that holds a flip; a flip
#                    that misses its vblank is latched at the next one, as
#                    on real hardware (vkms/vkms_timeline-latch-late-flips.patch)
#   vkms_async.ko    vkms_timeline that takes atomic async (tearing) page
#                    flips, with IN_FENCE_FD, and completes them at once
#                    (vkms/vkms_async-async-flips.patch)
#   vkms_vrr.ko      vkms_timeline as a VRR panel: vrr_capable, an EDID range
#                    of 48-144 Hz, flips under VRR_ENABLED as soon as the
#                    minimum frame time allows, gaps counted in debugfs
#                    (vkms/vkms_vrr-variable-refresh.patch)
# Sources: linux-source-X.Y, linux-headers-KVER(+ -common) and linux-kbuild of
# the very version fetch-kernel.sh unpacked, all by apt-get download + dpkg -x.
# The modules are kept in CACHE/vkms/KVER; the downloads are not kept.
#
# usage: fetch-vkms.sh CACHE
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
here=$(dirname "$(realpath "$0")")
cache=$(realpath -m "$1")
kpkg=$("$here/fetch-kernel.sh" "$cache")
kver=$(ls "$kpkg/lib/modules")
# Named by the hash of this script and its patches (vkms/): a build made by
# another recipe (a new variant, a changed patch) is never taken from a kept
# cache.
built="$cache/vkms/$kver-$(cat "$0" "$here"/vkms/*.patch | sha256sum | cut -c1-12)"
modules=(vkms vkms_nofence vkms_timeline vkms_async vkms_vrr)
die() { echo "fetch-vkms: $*" >&2; exit 1; }

exec 9>"$cache/.vkms.lock"
flock 9

build() {
  for tool in apt-get dpkg-deb make x86_64-linux-gnu-gcc-12 xz tar awk; do
    command -v "$tool" >/dev/null || die "$tool is missing (run tools/deps.sh --tests)"
  done
  local start=$SECONDS
  local work
  work=$(mktemp -d "$cache/vkms-build.XXXXXX")
  # shellcheck disable=SC2064  # $work is fixed now
  trap "rm -rf '$work'" EXIT
  cd "$work"
  quiet_apt() { "$@" 2>&1 | { grep -v -e unsandboxed -e '^Get:' -e '^Fetched' || true; } >&2; }

  # The headers package names the -common and kbuild packages it needs, and
  # has the image's version, which the source package must have too.
  quiet_apt apt-get download -q "linux-headers-$kver"
  local hdeb ver
  hdeb=$(ls linux-headers-"$kver"_*.deb 2>/dev/null) ||
    die "cannot download linux-headers-$kver (backports moved on? delete $cache/kernel)"
  ver=$(dpkg-deb -f "$hdeb" Version)
  local pkgs=("linux-source-${kver%.*-*}=$ver")  # 6.12.95+deb12-amd64 -> 6.12
  local dep
  for dep in $(dpkg-deb -f "$hdeb" Depends | tr ',' '\n' | grep -o 'linux-\(headers\|kbuild\)-[^ ]*'); do
    pkgs+=("$dep=$ver")
  done
  [ ${#pkgs[@]} = 3 ] || die "unexpected Depends in $hdeb: ${pkgs[*]}"
  quiet_apt apt-get download -q "${pkgs[@]}"
  local debs=(*.deb)
  [ ${#debs[@]} = 4 ] || die "apt-get download gave ${debs[*]}"
  echo "fetch-vkms: downloaded $(du -cm "${debs[@]}" | tail -n 1 | cut -f1) MiB: ${debs[*]}" >&2

  local deb
  for deb in linux-headers-*.deb linux-kbuild-*.deb; do dpkg -x "$deb" root; done
  local headers=$work/root/usr/src/linux-headers-$kver common
  common=$(ls -d "$work"/root/usr/src/linux-headers-*-common)
  # Its Makefile includes the -common tree at its installed path, /usr/src.
  printf 'include %s/Makefile\n' "$common" >"$headers/Makefile"

  # Only drivers/gpu/drm/vkms out of the 150 MB source tarball, streamed.
  local top=linux-source-${kver%.*-*}
  dpkg-deb --fsys-tarfile linux-source-*.deb | tar -xO "./usr/src/$top.tar.xz" |
    nice xz -dc | tar -x "$top/drivers/gpu/drm/vkms"
  mv "$top/drivers/gpu/drm/vkms" vkms
  cp -r vkms vkms_nofence
  cp -r vkms vkms_timeline
  cp -r vkms vkms_async
  cp -r vkms vkms_vrr

  # A variant: its own module, driver and platform-device name NAME, and
  # syncobj timelines (the DRM core implements them for any driver that sets
  # the flags). Run inside the variant's copy.
  variant() {
    local name=$1
    sed -i "s/^vkms-y\b/$name-y/; s/+= vkms\.o\$/+= $name.o/" Makefile
    sed -i "s/^\(#define DRIVER_NAME\s*\)\"vkms\"\$/\1\"$name\"/" vkms_drv.c
    sed -i 's/^\(\s*\.driver_features\s*=\s*DRIVER_MODESET | DRIVER_ATOMIC | DRIVER_GEM\),$/\1 | DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,/' vkms_drv.c
    grep -q 'DRIVER_GEM | DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,$' vkms_drv.c ||
      die "the syncobj timeline flags did not apply to $name's vkms_drv.c"
    [ "$(grep -c -e "^$name-y" -e "+= $name\.o\$" Makefile)" = 2 ] ||
      die "the module rename did not apply to $name's Makefile"
    grep -q "^#define DRIVER_NAME\s*\"$name\"\$" vkms_drv.c ||
      die "the driver rename did not apply to $name's vkms_drv.c"
  }
  # Applies tests/vm/vkms/PATCH to the copy DIR (each patch's header says
  # what it adds and what real hardware does that it mimics).
  apply() {
    patch -d "$1" -p1 --forward --batch --fuzz=0 --no-backup-if-mismatch \
      <"$here/vkms/$2" >patch.log 2>&1 || { cat patch.log >&2; die "vkms/$2 did not apply to $1"; }
  }
  (cd vkms_timeline && variant vkms_timeline)
  # ...plus flips latched at the vblank after when they miss theirs, so no
  # flip is stamped before its commit.
  apply vkms_timeline vkms_timeline-latch-late-flips.patch
  # vkms_async: vkms_timeline that also takes atomic async flips.
  (cd vkms_async && variant vkms_async)
  apply vkms_async vkms_timeline-latch-late-flips.patch
  apply vkms_async vkms_async-async-flips.patch
  # vkms_vrr: vkms_timeline as a VRR panel.
  (cd vkms_vrr && variant vkms_vrr)
  apply vkms_vrr vkms_timeline-latch-late-flips.patch
  apply vkms_vrr vkms_vrr-variable-refresh.patch

  cd vkms_nofence
  variant vkms_nofence
  # ...plus the plane check refusing a state that carries an IN_FENCE_FD (only
  # that one is in plane_state->fence at atomic_check time: prepare_fb adds
  # the buffer's implicit fences later, so those are still waited for).
  awk -v hook='if (!new_plane_state->fb || WARN_ON(!new_plane_state->crtc))' '
    index($0, hook) == 2 {
      print "\t/* vkms_nofence: no explicit in-fences, like NVIDIA before 560 */"
      print "\tif (new_plane_state->fence)"
      print "\t\treturn -EPERM;"
      print ""
      n++
    }
    { print }
    END { exit n != 1 }' vkms_plane.c >vkms_plane.c.new || die "the in-fence refusal did not apply to vkms_plane.c"
  mv vkms_plane.c.new vkms_plane.c
  cd ..

  local m
  for m in "${modules[@]}"; do
    # CONFIG_DRM_VKMS=m stands in for the config option Debian leaves unset;
    # no BTF for the modules: that needs pahole.
    nice make -C "$headers" M="$work/$m" -j"$(nproc)" CONFIG_DRM_VKMS=m \
      CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$m.log" 2>&1 ||
      { cat "$m.log" >&2; die "building $m.ko failed"; }
    [ "$(modinfo -F vermagic "$m/$m.ko" | cut -d' ' -f1)" = "$kver" ] ||
      die "$m.ko is not built for $kver"
  done
  mkdir -p "$built.tmp"
  for m in "${modules[@]}"; do cp "$m/$m.ko" "$built.tmp/"; done
  # Builds by other recipes or for other kernels go: one is kept.
  find "$cache/vkms" -mindepth 1 -maxdepth 1 ! -name "${built##*/}.tmp" -exec rm -rf {} +
  mv "$built.tmp" "$built"
  echo "fetch-vkms: built ${modules[*]} for $kver in $((SECONDS - start)) s" >&2
}

for m in "${modules[@]}"; do
  [ -f "$built/$m.ko" ] || { (build); break; }
done

# Into the unpacked kernel, where the guest's modprobe finds them after
# depmod; a re-fetched kernel gets them again from the cache.
updates="$kpkg/lib/modules/$kver/updates"
changed=0
for m in "${modules[@]}"; do
  if ! cmp -s "$built/$m.ko" "$updates/$m.ko"; then
    install -D -m 644 "$built/$m.ko" "$updates/$m.ko"
    changed=1
  fi
done
[ $changed = 0 ] || depmod -b "$kpkg" "$kver"
