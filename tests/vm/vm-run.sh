#!/usr/bin/env bash
# Boots bookworm-backports' kernel under qemu (TCG) with the host's root
# filesystem as the guest's (read-only 9p + tmpfs overlay), runs ONE command
# there as root, streams its output and exits with its exit code.
#
# usage: vm-run.sh [options] [--] COMMAND [ARGS...]
#   --cache DIR     kernel + initramfs cache (default ~/.cache/baton-vm; a
#                   set $BATON_VM_CACHE wins); the kernel is fetched on first use
#   --modules LIST  comma-separated modules to modprobe first (vgem,virtio_gpu);
#                   vkms, vkms_nofence, vkms_timeline, vkms_async and vkms_vrr are built by
#                   fetch-vkms.sh when named
#   --gpu           add a virtio-gpu-pci device (KMS, one 1280x800 output)
#   --gpu-outputs N the same with N outputs (connectors Virtual-1..N)
#   --share DIR     share host DIR read-write at the same path (at most 8)
#   --env K=V       environment for the command (repeatable)
#   --lavapipe      Vulkan through Mesa's lavapipe only (VK_DRIVER_FILES);
#                   with /dev/udmabuf it can import and export dma-bufs
#   --systemd       systemd as the guest's PID 1 (udev, dbus, logind), the
#                   command a unit of it; without, a busybox init runs it
#   --deb PACKAGE   a Debian package for the guest only (repeatable): fetched
#                   into the cache with apt-get download on first use, its
#                   path in $BATON_VM_DEBS for the command to dpkg -i
#   --timeout SECS  whole-VM limit (default 330: under the 420 s meson gives a
#                   kernel test, with room for a busy host to run a test at
#                   twice its quiet time)
#   --memory SIZE   guest RAM (default 1G)    --cpus N   vCPUs (default nproc)
# The guest's cwd is the caller's; the guest has /dev/udmabuf (built in); its
# /run is a fresh tmpfs; every other path outside --share directories is an
# overlay whose writes vanish: write results into a --share directory.
# env: BATON_VM_QEMU (the qemu binary), BATON_VM_CACHE (a cache kept beyond
# one build: CI keeps one between runs, so it is used instead of --cache),
# BATON_VM_KEEP_LOG (a file to copy the guest's serial console log to).
# Exit status: the command's; 124 when the VM ran out of time; 125 when the
# command never ran (qemu missing, no kernel, boot failure: the reason is
# printed, with the guest's kernel log). A command still running a minute
# before the limit gets its processes printed ("vm-run: still running: PID
# STATE WCHAN COMMAND" and each one's kernel stack) with the kernel's
# messages, blocked tasks included, while the guest can still show them.
set -uo pipefail
here=$(dirname "$(realpath "$0")")
cache=${XDG_CACHE_HOME:-$HOME/.cache}/baton-vm
init=busybox modules="" gpu=0 lavapipe=0 timeout=330 memory=1G cpus=$(nproc)
shares=() envs=() debs=()
usage() { sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2; shift 2 ;;
    --modules) modules=${2//,/ }; shift 2 ;;
    --gpu) gpu=1; shift ;;
    --gpu-outputs) gpu=$2; shift 2 ;;
    --share) mkdir -p "$2"; shares+=("$(realpath "$2")"); shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --lavapipe) lavapipe=1; shift ;;
    --systemd) init=systemd; shift ;;
    --deb) debs+=("$2"); shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --) shift; break ;;
    -h | --help) usage ;;
    -*) echo "vm-run: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage
cache=${BATON_VM_CACHE:-$cache}
[ ${#shares[@]} -le 8 ] || { echo "vm-run: at most 8 --share directories" >&2; exit 2; }
cannot_run() { echo "vm-run: FAILED before the guest command ran: $*" >&2; exit 125; }

qemu=$(command -v "${BATON_VM_QEMU:-qemu-system-x86_64}") ||
  cannot_run "${BATON_VM_QEMU:-qemu-system-x86_64} is not installed (tools/deps.sh --tests installs qemu-system-x86)"
if [ $lavapipe = 1 ]; then
  icd=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json 2>/dev/null | head -n 1)
  [ -n "$icd" ] || cannot_run "lavapipe is not installed (mesa-vulkan-drivers from bookworm-backports)"
  envs+=("VK_DRIVER_FILES=$icd")
fi
kpkg=$("$here/fetch-kernel.sh" "$cache") || cannot_run "no guest kernel (see fetch-kernel above)"
kver=$(ls "$kpkg/lib/modules")
# vkms is not in Debian's kernel: built and installed into it on first use.
case " $modules " in
  *" vkms "* | *" vkms_nofence "* | *" vkms_timeline "* | *" vkms_async "* | *" vkms_vrr "*)
    "$here/fetch-vkms.sh" "$cache" || cannot_run "vkms could not be built (see fetch-vkms above)" ;;
esac
vmlinuz=$(ls "$kpkg"/boot/vmlinuz-* | head -n 1)
deb_paths=()
for pkg in "${debs[@]+"${debs[@]}"}"; do
  mkdir -p "$cache/debs"
  deb=$(ls "$cache/debs/${pkg}_"*.deb 2>/dev/null | head -n 1)
  if [ -z "$deb" ]; then
    (cd "$cache/debs" && apt-get download -q "$pkg" >/dev/null 2>&1)
    deb=$(ls "$cache/debs/${pkg}_"*.deb 2>/dev/null | head -n 1)
    [ -n "$deb" ] || cannot_run "apt-get download $pkg fetched nothing (apt-get update, as root, first)"
  fi
  deb_paths+=("$(realpath "$deb")")
done
[ ${#deb_paths[@]} -gt 0 ] && envs+=("BATON_VM_DEBS=${deb_paths[*]}")

# Named by what it is made of, not by dates: a fresh clone's files are all
# newer than a kept cache's initramfs.
recipe=$(cat "$here/init" "$here/mkinitramfs.sh" | sha256sum | cut -c1-12)
initrd="$cache/initramfs-$kver-$recipe.cpio.gz"
(
  flock 9
  if [ ! -f "$initrd" ]; then
    rm -f "$cache"/initramfs-*.cpio.gz
    "$here/mkinitramfs.sh" "$kpkg" "$initrd"
  fi
) 9>"$cache/.initramfs.lock" || cannot_run "building the initramfs failed"

ctl=$(mktemp -d "$cache/run.XXXXXX")
trap '[ -n "${BATON_VM_KEEP_LOG:-}" ] && cp "$ctl/kernel.log" "$BATON_VM_KEEP_LOG"; rm -rf "$ctl"' EXIT
# Mesa's shader cache, kept in the cache between boots: without it every
# boot's first baton on lavapipe compiles its shaders again (about 6 s of a
# TCG guest). The guest starts from a copy in its tmpfs /run and, when the
# command changed it, hands it back; the last boot to finish wins (it is
# only a cache: Mesa names each entry by its driver's build and the shader,
# so a stale entry is never used). One tar file each way: the guest's 9p
# takes about 0.1 s per file, and the cache is a hundred files.
shader_cache=$cache/mesa-shader-cache.tar
if [ -f "$shader_cache" ]; then
  (flock 9 && cp "$shader_cache" "$ctl/mesa-in.tar") 9>"$cache/.mesa-shader-cache.lock"
fi
{
  echo ': >/run/baton-vm/started'
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  echo 'export HOME=/root LANG=C.UTF-8 XDG_RUNTIME_DIR=/run/user/0'
  echo 'mkdir -p -m 700 /run/user/0'
  echo 'export MESA_SHADER_CACHE_DIR=/run/mesa-shader-cache MESA_SHADER_CACHE_MAX_SIZE=128M'
  echo 'mkdir -p /run/mesa-shader-cache'
  echo 'tar -xf /run/baton-vm/mesa-in.tar -C /run/mesa-shader-cache 2>/dev/null'
  echo 'shaders() { find /run/mesa-shader-cache -type f -printf "%s %T@ %p
" | sort | md5sum; }'
  echo 'shaders_before=$(shaders)'
  for e in "${envs[@]+"${envs[@]}"}"; do printf 'export %q\n' "$e"; done
  for m in $modules; do printf 'modprobe %q || echo "vm-run: modprobe %q failed" >&2\n' "$m" "$m"; done
  printf 'cd %q || exit 125\n' "$PWD"
  echo 'dmesg_before=$(dmesg | wc -l)'
  # Repeated kernel messages (vkms' "vblank timer overrun" on a loaded
  # host) shown once with a count, so that the rest still fits.
  echo 'squeeze() { awk '"'"'{ m = $0; sub(/^\[[^]]*\] /, "", m) } m == last { n++; next } { if (n) print "    (and " n " more times)"; n = 0; last = m; print } END { if (n) print "    (and " n " more times)" }'"'"'; }'
  # A command still running shortly before the VM's time runs out: what
  # each process is doing, from the kernel's side, while it can be seen.
  printf 'watch_limit=%q\n' "$((timeout > 120 ? timeout - 60 : timeout / 2))"
  cat <<'WATCHDOG'
( sleep "$watch_limit"
  echo "vm-run: still running after ${watch_limit}s (this VM's limit is near); its processes:"
  for p in /proc/[0-9]*; do
    cmd=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null | cut -c1-120)
    [ -n "$cmd" ] || continue
    echo "vm-run: still running: ${p#/proc/} $(cut -d' ' -f3 "$p/stat" 2>/dev/null) $(cat "$p/wchan" 2>/dev/null) $cmd"
    sed 's/^/    /' "$p/stack" 2>/dev/null | head -n 12
  done
  echo w >/proc/sysrq-trigger 2>/dev/null
  echo "---- guest kernel messages so far (blocked tasks last)"
  dmesg | tail -n +$((dmesg_before + 1)) | squeeze | tail -n 80 ) >&2 &
watchdog=$!
WATCHDOG
  printf '%q ' "$@"; echo
  echo 'rc=$?'
  echo 'kill $watchdog 2>/dev/null'
  echo '[ "$(shaders)" = "$shaders_before" ] || tar -cf /run/baton-vm/mesa-out.tar -C /run/mesa-shader-cache .'
  # A failing test's kernel messages are usually the interesting part.
  echo 'if [ $rc != 0 ] && [ $rc != 77 ]; then echo "---- guest kernel messages during the command"; dmesg | tail -n +$((dmesg_before + 1)) | squeeze | tail -n 60; fi >&2'
  echo 'echo $rc >/run/baton-vm/rc'
} >"$ctl/job.sh"

append="console=ttyS0 quiet loglevel=4 panic=-1 rdinit=/init baton.moddir=$kpkg/lib/modules/$kver baton.init=$init"
# /dev/kvm on the CI machines is a nested PVM that stock kernels cannot run on.
# -cpu qemu64, not max: with AVX2 and SSE4.2 in CPUID, glibc's string and
# memory functions and lavapipe's LLVM code take vector paths that TCG
# emulates slowly. Measured on 2026-12-06 (qemu 10.0, 2 cores): a warm
# `vulkaninfo --summary` 1.8 s against 4.0 s, release-poison-vkms 95 s
# against 107 s, vk-dmabuf-client 77 s against 88 s. Debian's builds need
# only the x86-64 baseline.
cmd=("$qemu" -nodefaults -no-user-config -display none -no-reboot
  -machine q35 -accel tcg,tb-size=256 -cpu qemu64 -m "$memory" -smp "$cpus"
  -kernel "$vmlinuz" -initrd "$initrd"
  -serial "file:$ctl/kernel.log"
  -device virtio-serial-pci -chardev stdio,id=con,signal=off -device virtconsole,chardev=con
  -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap
  -virtfs "local,path=$ctl,mount_tag=ctl,security_model=none")
i=0
for dir in "${shares[@]+"${shares[@]}"}"; do
  cmd+=(-virtfs "local,path=$dir,mount_tag=share$i,security_model=none")
  append+=" baton.share$i=$dir"
  i=$((i + 1))
done
[ "$gpu" = 1 ] && cmd+=(-device virtio-gpu-pci)
if [ "$gpu" -gt 1 ]; then
  cmd+=(-device "virtio-gpu-pci,max_outputs=$gpu")
  # Without a display window qemu reports only the first output connected:
  # the others are forced on (their modes are the kernel's no-EDID ones).
  for ((i = 2; i <= gpu; i++)); do append+=" video=Virtual-$i:e"; done
fi
cmd+=(-append "$append")

# Stock kernels under TCG very rarely hang or oops early in boot (seen once
# in sched_clock_cpu). A boot that has not started the command within
# boot_limit seconds is abandoned and tried once more; the command itself
# is never run twice.
boot_limit=${BATON_VM_BOOT_TIMEOUT:-90}
for attempt in 1 2; do
  rm -f "$ctl/started" "$ctl/kernel.log"
  timeout -k 5 "$timeout" "${cmd[@]}" </dev/null &
  qpid=$!
  for _ in $(seq $((boot_limit * 10))); do
    [ -f "$ctl/started" ] && break
    kill -0 $qpid 2>/dev/null || break
    sleep 0.1
  done
  if [ -f "$ctl/started" ]; then
    wait $qpid
    qrc=$?
    break
  fi
  kill $qpid 2>/dev/null
  wait $qpid
  qrc=$?
  echo "vm-run: the guest did not start the command within ${boot_limit}s (boot $attempt of 2); its kernel log:" >&2
  tail -n 40 "$ctl/kernel.log" >&2 2>/dev/null
done
if [ -f "$ctl/rc" ]; then
  if [ -f "$ctl/mesa-out.tar" ]; then
    (flock 9 && mv "$ctl/mesa-out.tar" "$shader_cache") 9>"$cache/.mesa-shader-cache.lock"
  fi
  exit "$(cat "$ctl/rc")"
fi
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
  echo "vm-run: FAILED: the VM ran out of its ${timeout}s" >&2
  rc=124
else
  echo "vm-run: FAILED: the guest command never finished (qemu exit status $qrc)" >&2
  rc=125
fi
echo "---- guest kernel log ----" >&2
cat "$ctl/kernel.log" >&2 2>/dev/null
exit $rc
