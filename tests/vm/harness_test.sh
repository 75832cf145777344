#!/usr/bin/env bash
# The harness itself: a missing qemu fails loudly with status 125, the guest
# command's exit status comes back, the guest has the kernel interfaces the
# other tests need, the host's files are read-only to the guest, and a guest
# booted into systemd runs logind.
#
# usage: harness_test.sh VM_RUN CACHE SCRATCH_DIR
set -uo pipefail
vm_run=$1 cache=$2 scratch=$3
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

out=$(BATON_VM_QEMU=/nonexistent/qemu "$vm_run" --cache "$cache" -- true 2>&1)
rc=$?
check "missing qemu -> status 125 (got $rc)" test $rc = 125
check "missing qemu -> the reason is printed" grep -q "is not installed" <<<"$out"

mkdir -p "$scratch/share"
host_file="$scratch/written-by-guest"
rm -f "$host_file" "$scratch/share/shared-file"
"$vm_run" --cache "$cache" --gpu --modules vgem,virtio_gpu --share "$scratch/share" -- bash -c '
  kver=$(uname -r)
  echo "guest kernel $kver"
  case "$kver" in 6.1[2-9]* | 6.[2-9][0-9]* | [7-9].*) ;; *) echo "kernel older than 6.12"; exit 1 ;; esac
  test -c /dev/udmabuf || { echo "no /dev/udmabuf"; exit 1; }
  drivers=$(cut -d" " -f1 /sys/kernel/debug/dri/*/name | sort -u)
  echo "DRM drivers:" $drivers
  grep -qx vgem <<<"$drivers" && grep -qx virtio_gpu <<<"$drivers" || exit 1
  echo guest >"$1"
  echo shared >"$2"
  exit 42' guest "$host_file" "$scratch/share/shared-file" 2>&1
rc=$?
check "guest exit status comes back (42, got $rc)" test $rc = 42
check "guest writes to host paths stay in the guest" test ! -e "$host_file"
check "--share directories are writable" grep -qx shared "$scratch/share/shared-file"

# --systemd: systemd is PID 1 with logind and the system bus running, /tmp is
# still the host's (a checkout or build tree may live there), and the exit
# status still comes back.
tmp_file=$(mktemp /tmp/baton-vm-harness.XXXXXX)
"$vm_run" --cache "$cache" --systemd -- bash -c '
  echo "PID 1: $(cat /proc/1/comm), $(systemctl is-system-running)"
  [ "$(cat /proc/1/comm)" = systemd ] || exit 1
  systemctl is-active --quiet systemd-logind dbus || { echo "logind or dbus is not running"; exit 1; }
  loginctl list-seats --no-legend | grep -q seat0 || { echo "logind has no seat0"; exit 1; }
  test -f "$1" || { echo "the host file $1 is not in the guest'"'"'s /tmp"; exit 1; }
  exit 43' guest "$tmp_file" 2>&1
rc=$?
rm -f "$tmp_file"
check "--systemd: systemd and logind run, /tmp is the host's, the exit status comes back (43, got $rc)" test $rc = 43
exit $((failures > 0))
