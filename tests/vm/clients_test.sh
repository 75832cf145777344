#!/usr/bin/env bash
# Runs inside the guest: baton on the virtio-gpu card (DRM backend) with
# baton-dmabuf-client as its session, once per allocator and sync mode. Each
# run passes when every frame was presented only after its fence signalled.
#
# usage: clients_test.sh BATON CLIENT
# exit: 0 all ran and passed; 1 any failed; 77 none could run (the reason
# is printed: e.g. baton does not advertise linux-dmabuf-v1 yet).
set -uo pipefail
baton=$1 client=$2
fail() { echo "clients: FAIL: $*"; exit 1; }
source "$(dirname "$0")/guest-seat.sh"

passed=0 failed=0 skipped=0
for sync in explicit implicit; do
  for alloc in udmabuf vgem virtio-gpu; do
    echo "---- $client --alloc $alloc --sync $sync"
    timeout 60 "$baton" --backend drm --exit-with-session \
      --startup "$client --alloc $alloc --sync $sync --frames 4 --delay-ms 200"
    rc=$?
    case $rc in
      0) passed=$((passed + 1)) ;;
      77) skipped=$((skipped + 1)); echo "clients: SKIPPED $alloc/$sync (reason above)" ;;
      *) failed=$((failed + 1)); echo "clients: FAILED $alloc/$sync (baton/client status $rc)" ;;
    esac
  done
done
stop_seat
echo "clients: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] || exit 1
[ $passed = 0 ] && [ $skipped -gt 0 ] && exit 77
exit 0
