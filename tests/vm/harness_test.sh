#!/usr/bin/env bash
# The harness itself: a missing qemu fails loudly with status 125, the guest
# command's exit status comes back, the guest has the kernel interfaces the
# other tests need, and the host's files are read-only to the guest.
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
exit $((failures > 0))
