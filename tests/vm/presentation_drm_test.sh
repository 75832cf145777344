#!/usr/bin/env bash
# Runs inside the guest: baton on virtio-gpu through wlroots' DRM backend;
# a client measures presentation-time feedback for 60 frames. On KMS every
# frame must be reported presented at vblank with the hardware's clock and
# completion (vsync, hw_clock, hw_completion), never discarded, in order.
# (zero_copy would need a scanned-out client dma-buf; an shm client is
# composited, so it must be absent.)
#
# usage: presentation_drm_test.sh BATON PROBE
set -uo pipefail
baton=$1 probe=$2
test_name=presentation-drm
source "$(dirname "$0")/guest-test.sh"
source "$(dirname "$0")/guest-seat.sh"

log=/tmp/presentation-drm.log
"$baton" --backend drm --renderer pixman --exit-with-session \
  -s "$probe --frames 60 --expect-flags vsync,hw_clock,hw_completion" >"$log" 2>&1
rc=$?
stop_seat
grep 'presentation-probe' "$log"
# (fail prints the tail of $log)
[ $rc = 0 ] || fail "the probe (through baton) exited with status $rc"
echo "presentation-drm: PASS"
