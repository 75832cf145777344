#!/usr/bin/env bash
# Runs inside the guest: screen sharing end to end (tests/screencast: the
# portal's D-Bus calls as a browser makes them, PipeWire, a frame compared
# with baton's screenshot) with Debian 12's xdg-desktop-portal 1.16 and
# xdg-desktop-portal-wlr 0.7.0, once per place baton shows: `headless` (the
# Vulkan renderer on lavapipe naming the virtio-gpu render node) or a DRM
# driver's output (vkms, virtio_gpu; a seat from seatd, the Vulkan renderer).
# In each, baton's slots are dma-bufs, wlr-screencopy offers a dma-buf
# format, and xdpw 0.7 starts the share it refuses on the host: here a
# refusal fails.
#
# usage: screencast_test.sh BATON OUT_DIR WHERE...
set -uo pipefail
baton=$1 out=$2
shift 2
test_name=screencast
source "$(dirname "$0")/guest-test.sh"
render=$(drm_node virtio_gpu render) || fail "no render node for virtio-gpu: $render"
export BATON_EXE=$baton SCREENCAST_NO_SKIP=1 SCREENCAST_STEP_TIMEOUT=60
# A liveness bound: quietly 30-50 distinct frames in 3 s in the TCG guest, 12
# with both host cores busy; the stream must move, not keep that pace.
export SCREENCAST_MIN_FRAMES=4
export BATON_EXTRA_ARGS="--renderer vulkan --drm-device $render"
seat=0

# share WHERE: one end-to-end run; its output and daemon logs in $out/WHERE/.
share() {
  local where=$1
  mkdir -p "$out/$where"
  unset SCREENCAST_BACKEND SCREENCAST_OUTPUT SCREENCAST_SIZE WLR_DRM_DEVICES
  if [ "$where" != headless ]; then
    [ $seat = 1 ] || { source "$(dirname "$0")/guest-seat.sh"; seat=1; }
    local node card connector
    node=$(drm_node "$where" card) || fail "no $where card: $node"
    card=$(basename "$node")
    connector=$(cd /sys/class/drm && ls -d "$card"-Virtual-* 2>/dev/null | head -n 1)
    export WLR_DRM_DEVICES=$node SCREENCAST_BACKEND=drm SCREENCAST_OUTPUT=${connector#"$card"-}
    SCREENCAST_SIZE=$(head -n 1 /sys/class/drm/"$connector"/modes 2>/dev/null)
    export SCREENCAST_SIZE
    [ -n "$SCREENCAST_SIZE" ] || fail "no $where connector (Virtual-N) with a mode in sysfs"
  fi
  echo "---- screen sharing on $where"
  SCREENCAST_LOG_DIR=$out/$where "$(dirname "$0")/../screencast/screencast.sh" 2>&1 |
    tee "$out/$where/screencast.log"
  [ "${PIPESTATUS[0]}" = 0 ] || fail "the share on $where did not pass (the log above)"
}

for where in "$@"; do share "$where"; done
[ $seat = 1 ] && stop_seat
echo "screencast: PASS on $*"
