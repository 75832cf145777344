#!/usr/bin/env bash
# Runs inside the guest: baton on the virtio-gpu card through wlroots' DRM
# backend (seat from seatd, as on a real machine) maps weston-simple-shm.
# Both baton's own screenshot and what the CRTC actually scans out must show
# the client's pixels, at the output's mode.
#
# usage: baton_drm_test.sh BATON SCREENSHOT_CHECK SCANOUT_DUMP OUT_DIR [RENDERER [gpu-loss]]
# RENDERER (auto, pixman, vulkan) is passed to --renderer; with vulkan the log
# must also say baton really ran on it. gpu-loss: the renderer loses its
# device 3 s after the client connected (BATON_TEST_GPU_LOSS_MS); the screenshot,
# taken after the rebuild, and the scanout must still show the client.
set -uo pipefail
baton=$1 check=$2 scanout_dump=$3 out=$4 renderer=${5:-auto} drill=${6:-}
extra=()
if [ "$drill" = gpu-loss ]; then
  # After weston-simple-shm connected and mapped, well before the shot.
  export BATON_TEST_GPU_LOSS_MS=3000
  extra=(--screenshot-delay 7000)
  renderer_tag=$renderer-gpu-loss
else
  renderer_tag=$renderer
fi
log=/dev/null
fail() {
  [ -s "$log" ] && tail -n 40 "$log"
  echo "baton-drm: FAIL: $*"
  exit 1
}

command -v weston-simple-shm >/dev/null || fail "weston-simple-shm is not installed (weston)"
source "$(dirname "$0")/guest-seat.sh"

mode=$(head -n 1 /sys/class/drm/card*-Virtual-1/modes 2>/dev/null)
[ -n "$mode" ] || fail "no virtio-gpu connector (Virtual-1) with a mode in sysfs"
width=${mode%x*} height=${mode#*x}
shot="$out/baton-drm-$renderer_tag.png" scanout="$out/baton-drm-$renderer_tag-scanout.png"
log="$out/baton-drm-$renderer_tag.log"
rm -f "$shot" "$scanout"
# (the guest has no /dev/fd for a tee: the log is printed on failure)
"$baton" --backend drm --renderer "$renderer" --screenshot "$shot" "${extra[@]}" \
  --startup weston-simple-shm 2>"$log" &
baton_pid=$!
for _ in $(seq 600); do
  [ -s "$shot" ] && break
  kill -0 $baton_pid 2>/dev/null || break
  sleep 0.05
done
[ -s "$shot" ] || { kill $baton_pid 2>/dev/null; fail "baton wrote no screenshot within 30 s"; }
sleep 0.2  # the frame that drew the screenshot is on the screen by now
"$scanout_dump" virtio_gpu "$scanout"
dump_rc=$?
kill -TERM $baton_pid
wait $baton_pid
rc=$?
stop_seat
[ $dump_rc = 0 ] || fail "could not read the scanout buffer"
"$check" "$shot" "$width" "$height" || fail "baton's screenshot $shot does not show the client"
"$check" "$scanout" "$width" "$height" || fail "the CRTC does not scan out the client ($scanout)"
[ $rc = 0 ] || [ $rc = 143 ] || fail "baton exited with status $rc on SIGTERM"
if [ "$renderer" = vulkan ]; then
  grep -q "backend drm, renderer vulkan" "$log" || fail "baton did not run on the Vulkan renderer"
fi
if [ "$drill" = gpu-loss ]; then
  grep -q "renderer: rebuilt on vulkan" "$log" || fail "the renderer was not rebuilt after the loss"
  grep "uploaded again" "$log"
fi
echo "baton-drm: PASS ($renderer_tag: screenshot and scanout show the client at $mode)"
