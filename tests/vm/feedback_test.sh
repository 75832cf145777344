#!/usr/bin/env bash
# Runs inside the guest: per-surface linux-dmabuf feedback as
# baton-feedback-client sees it, with baton on vkms through the DRM backend
# (Vulkan renderer on lavapipe): fullscreen, the surface's feedback leads
# with a scanout tranche equal to the primary plane's IN_FORMATS (read by the
# client with libdrm) as far as the renderer imports them; windowed again,
# the default feedback.
# Headless and nested outputs give no scanout tranche: tested in-process
# (tests/protocol/test_dmabuf_feedback.cpp); `baton-feedback-client
# --expect none` checks it against a real baton.
#
# usage: feedback_test.sh BATON CLIENT OUT_DIR
set -uo pipefail
baton=$1 client=$2 out=$3
test_name=feedback
source "$(dirname "$0")/guest-test.sh"
source "$(dirname "$0")/guest-seat.sh"

node=$(drm_node vkms card) || fail "no vkms card: $node"
export WLR_DRM_DEVICES=$node
export WAYLAND_DISPLAY=baton-feedback-test
launch_baton "$out/feedback-drm-baton.log" "$baton" --backend drm --renderer vulkan \
  --socket "$WAYLAND_DISPLAY"
grep "buffers:" "$log"
grep -q "linux-dmabuf-v1 on" "$log" || fail "baton on vkms does not advertise linux-dmabuf-v1"
"$client" --expect scanout vkms || fail "fullscreen on vkms"
finish_baton
echo "feedback: PASS"
