#!/usr/bin/env bash
# Runs inside the guest: screen sharing end to end (tests/screencast: the
# portal's D-Bus calls as a browser makes them, PipeWire, a frame compared
# with baton's screenshot) with baton on the Vulkan renderer (lavapipe)
# naming the virtio-gpu render node. Its headless slots are then dma-bufs,
# wlr-screencopy offers a dma-buf format, and Debian 12's
# xdg-desktop-portal-wlr 0.7 starts the share, which it refuses on the host:
# here a refusal fails.
#
# usage: screencast_test.sh BATON OUT_DIR
set -uo pipefail
baton=$1 out=$2
test_name=screencast
source "$(dirname "$0")/guest-test.sh"
render=$(drm_node virtio_gpu render) || fail "no render node for virtio-gpu: $render"
export BATON_EXE=$baton SCREENCAST_NO_SKIP=1 SCREENCAST_STEP_TIMEOUT=60 SCREENCAST_LOG_DIR=$out
export BATON_EXTRA_ARGS="--renderer vulkan --drm-device $render"
"$(dirname "$0")/../screencast/screencast.sh" 2>&1 | tee "$out/screencast.log"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "the share did not pass (status $status; the log above)"
grep -F 'screencast: PASS' "$out/screencast.log"
