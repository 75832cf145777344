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
# asked for (SIGUSR1) once baton logged the rebuild, and the scanout must
# still show the client.
#
# BATON_TEST_DRM_DRIVER picks the card by driver (default virtio_gpu). On the
# Vulkan renderer the log's frame-fence summary must match the driver:
#   virtio_gpu    syncobj timelines, honours IN_FENCE_FD: every frame carries
#                 render-done as the in-fence, out-fences release the slots
#   vkms          no syncobj timelines: no wait point; the event loop waits
#                 for render-done before each commit (no CPU wait)
#   vkms_nofence  timelines, but refuses IN_FENCE_FD (EPERM): the refusal is
#                 found, logged once, and frames go without the in-fence
set -uo pipefail
baton=$1 check=$2 scanout_dump=$3 out=$4 renderer=${5:-auto} drill=${6:-}
extra=()
if [ "$drill" = gpu-loss ]; then
  # After weston-simple-shm connected and mapped, well before the shot.
  export BATON_TEST_GPU_LOSS_MS=3000
  extra=(--screenshot-delay 600000)  # none of its own: asked for after the rebuild
  renderer_tag=$renderer-gpu-loss
else
  renderer_tag=$renderer
fi
test_name=baton-drm
source "$(dirname "$0")/guest-test.sh"

command -v weston-simple-shm >/dev/null || fail "weston-simple-shm is not installed (weston)"
source "$(dirname "$0")/guest-seat.sh"

driver=${BATON_TEST_DRM_DRIVER:-virtio_gpu}
node=$(drm_node "$driver" card) || fail "no $driver card: $node"
export WLR_DRM_DEVICES=$node
card=$(basename "$node")
# Connector numbers are global: vkms' is Virtual-2 beside virtio-gpu's.
connector=$(cd /sys/class/drm && ls -d "$card"-Virtual-* 2>/dev/null | head -n 1)
connector=${connector#"$card"-}
mode=$(head -n 1 /sys/class/drm/"$card-$connector"/modes 2>/dev/null)
[ -n "$mode" ] || fail "no $driver connector (Virtual-N) with a mode in sysfs"
[ "$driver" = virtio_gpu ] || renderer_tag=$renderer_tag-$driver
width=${mode%x*} height=${mode#*x}
shot="$out/baton-drm-$renderer_tag.png" scanout="$out/baton-drm-$renderer_tag-scanout.png"
log="$out/baton-drm-$renderer_tag.log"
rm -f "$shot" "$scanout"
# (the guest has no /dev/fd for a tee: the log is printed on failure)
"$baton" --backend drm --renderer "$renderer" --screenshot "$shot" "${extra[@]}" \
  --startup weston-simple-shm 2>"$log" &
baton_pid=$!
if [ "$drill" = gpu-loss ]; then
  for _ in $(seq 1200); do
    grep -q "renderer: rebuilt on" "$log" && break
    kill -0 $baton_pid 2>/dev/null || break
    sleep 0.1
  done
  grep -q "renderer: rebuilt on" "$log" || { kill $baton_pid 2>/dev/null; fail "baton did not rebuild its renderer within 120 s"; }
  sleep 1  # the client's next frames on the new renderer
  kill -USR1 $baton_pid
fi
# Vulkan on lavapipe in an emulated guest starts slowly on a busy host.
for _ in $(seq 2400); do
  [ -s "$shot" ] && break
  kill -0 $baton_pid 2>/dev/null || break
  sleep 0.05
done
[ -s "$shot" ] || { kill $baton_pid 2>/dev/null; fail "baton wrote no screenshot within 120 s"; }
sleep 0.2  # the frame that drew the screenshot is on the screen by now
"$scanout_dump" "$driver" "$scanout"
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
if [ "$renderer" = vulkan ]; then
  summary=$(grep -a -o "output $connector: [0-9]* commits carried.*" "$log")
  [ -n "$summary" ] || fail "baton logged no frame-fence summary for $connector"
  echo "baton-drm: $summary"
  # (a here-string: the guest has no /dev/fd for process substitution)
  read -r in_fence point_waited loop_waited out_fences <<<"$(
    echo "$summary" | sed -E 's/.*: ([0-9]+) commits.*\(([0-9]+) waited.*, ([0-9]+) were.*, ([0-9]+) out-fences.*/\1 \2 \3 \4/')"
  refused=no
  grep -q "the driver refuses in-fences" "$log" && refused=yes
  # Slots: Vulkan's own images exported as dma-bufs where the display device
  # imports them (vkms); its dumb buffers where it refuses (virtio-gpu), found
  # by trying.
  exported=no
  grep -q "slots are Vulkan images exported as dma-bufs" "$log" && exported=yes
  case $driver in
    virtio_gpu)
      grep -q "a slot allocated by Vulkan cannot be scanned out (PRIME import" "$log" ||
        fail "virtio-gpu refuses foreign dma-bufs, but baton logged no fallback to dumb buffers"
      [ $exported = no ] || fail "baton claims virtio-gpu scans out Vulkan's exported slots"
      [ "$in_fence" -ge 3 ] || fail "only $in_fence commits carried render-done as IN_FENCE_FD"
      [ "$out_fences" -ge 2 ] || fail "only $out_fences out-fences were handed to slots"
      [ $refused = no ] || fail "virtio-gpu takes IN_FENCE_FD, but baton thought it refused it"
      [ "$drill" = gpu-loss ] || [ "$loop_waited" = 0 ] ||
        fail "$loop_waited frames waited for render-done instead of carrying it"
      ;;
    vkms)
      [ $exported = yes ] || fail "vkms imports dma-bufs, yet the slots are not Vulkan's exported images"
      [ "$in_fence" = 0 ] || fail "vkms has no timelines, yet $in_fence commits carried an in-fence"
      [ "$loop_waited" -ge 3 ] || fail "only $loop_waited commits waited for render-done"
      ;;
    vkms_timeline)
      [ $exported = yes ] || fail "vkms_timeline imports dma-bufs, yet the slots are not Vulkan's exported images"
      [ "$in_fence" -ge 3 ] || fail "only $in_fence commits carried render-done as IN_FENCE_FD"
      [ "$out_fences" -ge 2 ] || fail "only $out_fences out-fences were handed to slots"
      [ $refused = no ] || fail "vkms_timeline takes IN_FENCE_FD, but baton thought it refused it"
      [ "$loop_waited" = 0 ] || fail "$loop_waited frames waited for render-done instead of carrying it"
      ;;
    vkms_nofence)
      [ $exported = yes ] || fail "vkms_nofence imports dma-bufs, yet the slots are not Vulkan's exported images"
      [ $refused = yes ] || fail "the refused IN_FENCE_FD was not found and logged"
      [ "$(grep -c "the driver refuses in-fences" "$log")" = 1 ] || fail "the refusal was logged more than once"
      [ "$in_fence" = 0 ] || fail "$in_fence commits with IN_FENCE_FD succeeded on a driver refusing it"
      [ "$loop_waited" -ge 3 ] || fail "only $loop_waited commits waited for render-done"
      [ "$out_fences" -ge 2 ] || fail "only $out_fences out-fences were handed to slots"
      ;;
  esac
fi
if [ "$drill" = gpu-loss ]; then
  grep -q "renderer: rebuilt on vulkan" "$log" || fail "the renderer was not rebuilt after the loss"
  grep "uploaded again" "$log"
fi
slots=""
[ "$renderer" = vulkan ] && { [ "$exported" = yes ] && slots=", slots exported by Vulkan" || slots=", dumb-buffer slots"; }
echo "baton-drm: PASS ($renderer_tag on $driver: screenshot and scanout show the client at $mode$slots)"
