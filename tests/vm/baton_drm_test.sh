#!/usr/bin/env bash
# Runs inside the guest: baton on the virtio-gpu card through wlroots' DRM
# backend (seat from seatd, as on a real machine), maps weston-simple-shm,
# and its screenshot must show the client's pixels on the output's mode.
#
# usage: baton_drm_test.sh BATON SCREENSHOT_CHECK OUT_DIR
set -uo pipefail
baton=$1 check=$2 out=$3
fail() { echo "baton-drm: FAIL: $*"; exit 1; }

command -v weston-simple-shm >/dev/null || fail "weston-simple-shm is not installed (weston)"
source "$(dirname "$0")/guest-seat.sh"

mode=$(head -n 1 /sys/class/drm/card*-Virtual-1/modes 2>/dev/null)
[ -n "$mode" ] || fail "no virtio-gpu connector (Virtual-1) with a mode in sysfs"
png="$out/baton-drm.png"
rm -f "$png"
timeout 60 "$baton" --backend drm \
  --screenshot "$png" --exit-after-screenshot --startup weston-simple-shm
rc=$?
stop_seat
[ $rc = 124 ] && fail "baton did not exit within 60 s (no screenshot?)"
[ $rc = 0 ] || fail "baton exited with status $rc"
"$check" "$png" "${mode%x*}" "${mode#*x}" || fail "screenshot $png does not show the client"
echo "baton-drm: PASS ($png, mode $mode)"
