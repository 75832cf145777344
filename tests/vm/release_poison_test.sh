#!/usr/bin/env bash
# Runs inside the guest: no buffer goes back to its client while baton still
# reads it, proven by what KMS scans out. baton (DRM backend on DRIVER, Vulkan
# renderer on lavapipe, explicit sync on virtio-gpu's render node) shows
# baton-dmabuf-client --on-release poison, which paints each buffer 0xf0f000
# the instant it comes back (its own release point per buffer, or
# wl_buffer.release), with explicit sync, implicit sync (vgem dma-bufs) and
# wl_shm in turn, beside a second client redrawing as fast as it can so
# that renders are always in flight. Meanwhile vm-scanout-dump --watch reads
# the CRTC's framebuffer again and again: no sample may hold a poison pixel,
# nor the clients' "not yet rendered" magenta (a frame shown before its
# acquire fence signalled), and samples must show the clients' colours (the
# watch saw them on screen).
#
# The same with the client fullscreen and alone: on vkms its buffers go to
# the screen as they are (direct scanout), and a buffer comes back only after
# the flip that replaced it.
#
# With `yuv`, only video frames: the poisoning client's udmabufs hold NV12,
# then P010 (two planes each, its colours written as BT.601 limited-range
# Y'CbCr), composited (no plane here takes YUV), windowed beside the busy
# client: the watch takes a colour within 2 steps of 255 as that colour.
#
# With `late-gpu`, every cell runs on the test GPU (tests/late_gpu: lavapipe
# whose fences are real and pending, each batch 5 ms late): render-done
# reaches KMS pending, release points carry the reads' fence, and client
# dma-bufs go back with baton's reads still running, held by render-done as
# their READ fence; the implicit-sync poisoner waits on its dma-buf before
# writing, as such clients must. Its files go to OUT_DIR/late-gpu.
#
# With `tearing` (DRIVER vkms_async), the fullscreen cells with the client
# asking for async presentation (tearing-control), gate on and off: every
# flip of its buffers is an async one, and the rules hold the same.
#
# usage: release_poison_test.sh BUILD DRIVER OUT_DIR [yuv|late-gpu|tearing]
#   DRIVER: virtio_gpu (honours IN_FENCE_FD, cannot scan out client
#   buffers), vkms (no timelines: the event loop waits for render-done),
#   vkms_nofence (refuses IN_FENCE_FD), vkms_timeline (honours it),
#   vkms_async (vkms_timeline with async flips)
set -uo pipefail
build=$(realpath "$1") driver=$2 out=$3 mode=${4:-all}
if [ "$mode" = late-gpu ]; then
  out=$out/late-gpu
  export VK_ADD_LAYER_PATH=$build/tests/late_gpu VK_INSTANCE_LAYERS=VK_LAYER_BATON_late_gpu
  export BATON_LATE_GPU_DELAY_MS=5
fi
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=release-poison
source "$here/guest-test.sh"
source "$here/guest-seat.sh"
client=$build/tests/clients/baton-dmabuf-client
dump=$build/tests/vm/vm-scanout-dump
card=$(drm_node "$driver" card) || fail "no $driver card: $card"
render=$(drm_node virtio_gpu render) || fail "no virtio-gpu render node for explicit sync: $render"

# 640x480: lavapipe composes on the guest's two emulated CPUs.
printf '[[output]]\nname = "*"\nmode = "640x480"\n' >"$out/release-poison.toml"
export WAYLAND_DISPLAY=baton-poison
# Starts baton on the card, logging to LOG, with any further options.
start_baton() {
  local to=$1
  shift
  launch_baton "$to" env WLR_DRM_DEVICES="$card" "$build/compositor/baton" --backend drm \
    --renderer vulkan --drm-device "$render" --socket "$WAYLAND_DISPLAY" \
    --config "$out/release-poison.toml" "$@"
}
# Stops it and prints its frame-fence summary into $summary.
stop_baton() {
  kill -TERM $baton_pid
  wait $baton_pid
  # -a: the guest's shared folder has been seen to leave a run of NUL bytes
  # in a log, and grep then answers "binary file matches" instead of the line.
  summary=$(grep -a -o "output [^ ]*: [0-9]* commits carried.*" "$log")
  echo "$summary"
}
start_baton "$out/release-poison-$driver.log"

# One cell: the poisoning client (and, windowed, the busy one) on the
# compositor at $WAYLAND_DISPLAY, the scanout watched meanwhile.
run_cell() {
  local sync=$1 alloc=$2 layout=$3 tag fullscreen busy_pid watch_pid client_pid
  local watch_rc client_rc watched poisoned samples green blue reason
  # The client's frames and how long each fence stays unsignalled.
  local frames=${cell_frames:-40} delay=${cell_delay_ms:-5}
  tag=$driver-$sync${cell_suffix:-}
  [ "$alloc" = shm ] && tag=$driver-shm
  [ "$layout" = nested ] && tag=$tag-nested
  fullscreen=()
  busy_pid=
  [ "$layout" = fullscreen ] && tag=$tag-fullscreen fullscreen=(--fullscreen yes)
  # Watching from before the clients start (a directly scanned-out client
  # runs its 40 frames in well under a second) until they are done: stopped
  # then, so that it spans them however slow the machine is. 90 s bounds it.
  "$dump" "$driver" --watch 90 "${cell_forbidden:-f0f000,ff00ff}" 20c040,2060e0 "$out/release-poison-$tag.png" \
    >"$out/release-poison-$tag-watch.out" 2>&1 &
  watch_pid=$!
  for _ in $(seq 200); do
    grep -q "^scanout-watch: started" "$out/release-poison-$tag-watch.out" && break
    kill -0 $watch_pid 2>/dev/null || break
    sleep 0.1
  done
  # Fullscreen: alone and covering the output, baton may scan it out directly.
  if [ "$layout" != fullscreen ]; then
    # The busy one: explicit sync, no delay, as many frames as the test lasts.
    "$client" --alloc vgem --sync explicit --frames 400 --delay-ms 0 --hold-ms 0 \
      >"$out/release-poison-$tag-busy.out" 2>&1 &
    busy_pid=$!
  fi
  # The client keeps its last frame up for a second before it goes, so the
  # watch sees it however fast the frames before it passed.
  "$client" --alloc "$alloc" --sync "$sync" --frames "$frames" --delay-ms "$delay" --hold-ms 1000 --on-release poison \
    "${fullscreen[@]}" --early-by "${cell_early_by:-frame}" --format "${cell_format:-XRGB8888}" ${cell_extra:-} \
    >"$out/release-poison-$tag.out" 2>&1 &
  client_pid=$!
  wait $client_pid
  client_rc=$?
  kill -TERM $watch_pid 2>/dev/null
  wait $watch_pid
  watch_rc=$?
  if [ -n "$busy_pid" ]; then
    kill $busy_pid 2>/dev/null
    wait $busy_pid 2>/dev/null
  fi
  cat "$out/release-poison-$tag-watch.out"
  tail -n 2 "$out/release-poison-$tag.out"
  watched=$(grep "samples of" "$out/release-poison-$tag-watch.out")
  poisoned=$(sed -n 's/^dmabuf-client: \([0-9]*\) buffers painted.*/\1/p' "$out/release-poison-$tag.out")
  read -r samples green blue <<<"$(sed -E 's/^scanout-watch: ([0-9]+) samples.*, ([0-9]+) showed 20c040, ([0-9]+) showed 2060e0$/\1 \2 \3/' \
    <<<"$watched")"
  reason=
  if [ $client_rc != 0 ]; then reason="the poisoning client failed ($client_rc): $(tail -n 1 "$out/release-poison-$tag.out")"
  elif [ "${poisoned:-0}" -lt $((frames * 3 / 4)) ]; then reason="only ${poisoned:-0} buffers came back to be poisoned"
  elif [ $watch_rc != 0 ]; then reason="the scanout showed poison or magenta (first: $out/release-poison-$tag.png): $watched"
  # Coverage, not safety: the watch must have looked while the clients were
  # up. Its rate falls with the machine's load (118 samples quiet, 38 on a
  # busy CI machine), so a few suffice. Windowed, the busy client keeps both
  # colours coming for the whole cell: each must have been seen. Fullscreen,
  # the lone client's 40 frames can all pass between two samples on a loaded
  # machine (a clean-clone run beside a fuzzer saw 5 of one colour and none
  # of the other): only its last frame, held a second, is sure to be seen.
  elif [ "${samples:-0}" -lt 5 ]; then
    reason="the watch took too few samples: $watched"
  elif [ "$layout" = fullscreen ] && [ $((${green:-0} + ${blue:-0})) -lt 2 ]; then
    reason="the watch did not see the client on screen: $watched"
  elif [ "$layout" != fullscreen ] && { [ "${green:-0}" -lt 1 ] || [ "${blue:-0}" -lt 1 ]; }; then
    reason="the watch did not see the clients on screen often enough: $watched"
  fi
  if [ -n "$reason" ]; then
    failed=$((failed + 1))
    echo "release-poison: FAILED $tag: $reason"
  else
    echo "release-poison: PASS $tag: $poisoned buffers poisoned the instant they came back; no poison and no unready frame in $samples scanout samples"
  fi
}

failed=0
if [ "$mode" = tearing ]; then
  # The poisoning client fullscreen with tearing-control's async hint, on a
  # driver that takes async flips (vkms_async): its buffers are scanned out
  # by async flips, still each only once its acquire fence signalled, and
  # given back only after the flip that replaced it.
  for sync in explicit implicit; do
    cell_extra="--tearing yes" cell_suffix=-tearing run_cell "$sync" vgem fullscreen
  done
  stop_baton
  async=$(sed -n 's/.*: \([0-9]*\) async (tearing) page flips.*/\1/p' "$log")
  echo "release-poison: ${async:-0} async flips on $driver"
  [ "${async:-0}" -ge 40 ] || { failed=$((failed + 1)); echo "release-poison: FAILED: only ${async:-0} async flips"; }
  # The gate off, each fence held 300 ms: the client's acquire fence rides
  # the async flip as its IN_FENCE_FD, and no flip may precede it.
  start_baton "$out/release-poison-$driver-tearing-gate-off.log" --readiness-gate off
  cell_frames=8 cell_delay_ms=300 cell_suffix=-tearing-gate-off cell_early_by=flip \
    cell_forbidden=f0f000 cell_extra="--tearing yes" run_cell explicit vgem fullscreen
  stop_baton
  read -r async fenced <<<"$(sed -E -n 's/.*: ([0-9]+) async \(tearing\) page flips, ([0-9]+) with IN_FENCE_FD.*/\1 \2/p' "$log")"
  echo "release-poison: gate off: ${async:-0} async flips on $driver, ${fenced:-0} with the client's acquire fence as IN_FENCE_FD"
  [ "${fenced:-0}" -ge 5 ] || { failed=$((failed + 1)); echo "release-poison: FAILED: only ${fenced:-0} async flips carried the acquire fence"; }
  stop_seat
  [ $failed = 0 ] || fail "$failed tearing checks on $driver"
  echo "release-poison: PASS ($driver, tearing)"
  exit 0
fi
if [ "$mode" = yuv ]; then
  for format in NV12 P010; do
    cell_format=$format cell_suffix=-$format run_cell explicit udmabuf window
    cell_format=$format cell_suffix=-$format run_cell implicit udmabuf window
  done
  stop_baton
  stop_seat
  [ $failed = 0 ] || fail "$failed YUV checks on $driver"
  echo "release-poison: PASS ($driver, NV12 and P010)"
  exit 0
fi
for cell in explicit:vgem:window implicit:vgem:window none:shm:window \
  explicit:vgem:fullscreen implicit:vgem:fullscreen; do
  IFS=: read -r sync alloc layout <<<"$cell"
  run_cell "$sync" "$alloc" "$layout"
done

# Nested: a second baton is a client of this one and the clients run inside
# it. It hands the parent Vulkan images exported as dma-bufs, with
# render-done as the acquire point and the parent's release point before a
# slot is drawn into again; what it shows must obey the same rules on KMS.
nested_log=$out/release-poison-$driver-nested.log
printf '[[output]]\nname = "*"\nmode = "600x300"\n' >"$out/release-poison-nested.toml"
"$build/compositor/baton" --backend wayland --renderer vulkan --socket baton-poison-nested \
  --config "$out/release-poison-nested.toml" --background '#303030' >"$nested_log" 2>&1 &
nested_pid=$!
if ! baton_running "$nested_log" $nested_pid; then
  failed=$((failed + 1))
  tail -n 20 "$nested_log"
  echo "release-poison: FAILED $driver-nested: the nested baton did not start"
else
  WAYLAND_DISPLAY=baton-poison-nested run_cell explicit vgem nested
  WAYLAND_DISPLAY=baton-poison-nested run_cell implicit vgem nested
  WAYLAND_DISPLAY=baton-poison-nested run_cell none shm nested
  kill -TERM $nested_pid
  wait $nested_pid
  grep -a "vulkan swapchain:" "$nested_log"
  nested_summary=$(grep -a -o "output [^ ]*: [0-9]* commits carried.*" "$nested_log")
  echo "$nested_summary"
  acquired=$(sed -n 's/^output [^ ]*: \([0-9]*\) commits carried.*/\1/p' <<<"$nested_summary")
  if ! grep -q "slots are Vulkan images exported as dma-bufs .* for the parent compositor" "$nested_log"; then
    failed=$((failed + 1))
    echo "release-poison: FAILED $driver-nested: the nested baton's slots are not exported dma-bufs"
  elif [ "${acquired:-0}" -lt 20 ]; then
    failed=$((failed + 1))
    echo "release-poison: FAILED $driver-nested: only ${acquired:-0} nested commits carried render-done as the parent's acquire point"
  fi
fi
stop_baton
# vkms takes the clients' vgem buffers as framebuffers: the fullscreen runs
# must really have been scanned out, not composited. (virtio-gpu cannot
# scan out another device's memory: there they are composited.)
direct=$(sed -n 's/.*; \([0-9]*\) frames scanned out a client buffer directly.*/\1/p' <<<"$summary")
echo "release-poison: ${direct:-?} frames on $driver scanned out a client buffer directly"
if [ "$driver" != virtio_gpu ] && [ "${direct:-0}" -lt 40 ]; then
  failed=$((failed + 1))
  echo "release-poison: FAILED: only ${direct:-0} frames were scanned out directly on $driver"
fi

# The readiness gate off (wlroots' latching: a commit applies once its acquire
# point has a fence), each fence held 300 ms: now baton's own waits are all
# that keep the client's unfinished (magenta) buffers off the screen. For a
# composited frame that is the render's wait on the GPU; for a directly
# scanned-out one, the client's acquire fence as the plane's IN_FENCE_FD
# where the driver takes one (vkms_timeline: KMS then ignores the dma-buf's
# implicit fences), the event loop's wait where it refuses it
# (vkms_nofence), and the implicit fence baton put into the dma-buf where
# there are no timelines (vkms).
#
# The watch reads the framebuffer of the CRTC's committed state, which a
# commit waiting for its in-fence has already replaced: it still catches
# poison, but an unready frame is caught by the flips (--early-by flip: no
# frame's wp_presentation time, the KMS flip's, may precede its fence).
start_baton "$out/release-poison-$driver-gate-off.log" --readiness-gate off
cell_frames=8 cell_delay_ms=300 cell_suffix=-gate-off cell_early_by=flip cell_forbidden=f0f000 \
  run_cell explicit vgem window
cell_frames=8 cell_delay_ms=300 cell_suffix=-gate-off cell_early_by=flip cell_forbidden=f0f000 \
  run_cell explicit vgem fullscreen
stop_baton
read -r direct acquire_in_fence acquire_loop <<<"$(sed -E -n \
  's/.*; ([0-9]+) frames scanned out a client buffer directly \(([0-9]+) with .*, ([0-9]+) after .*/\1 \2 \3/p' \
  <<<"$summary")"
echo "release-poison: gate off on $driver: ${direct:-?} frames scanned out directly, ${acquire_in_fence:-?} with the client's acquire fence as IN_FENCE_FD, ${acquire_loop:-?} after the loop waited for it"
case $driver in
  vkms_timeline) [ "${acquire_in_fence:-0}" -ge 6 ] || {
    failed=$((failed + 1))
    echo "release-poison: FAILED: only ${acquire_in_fence:-0} direct scanouts carried the client's acquire fence as IN_FENCE_FD"
  } ;;
  vkms_nofence) [ "${acquire_loop:-0}" -ge 6 ] && [ "${acquire_in_fence:-0}" = 0 ] || {
    failed=$((failed + 1))
    echo "release-poison: FAILED: the event loop did not wait for the client's acquire fences (${acquire_loop:-0}; ${acquire_in_fence:-0} in-fences on a driver refusing them)"
  } ;;
esac
if [ "$driver" != virtio_gpu ] && [ "${direct:-0}" -lt 6 ]; then
  failed=$((failed + 1))
  echo "release-poison: FAILED: only ${direct:-0} frames were scanned out directly on $driver with the gate off"
fi
stop_seat
if [ "$mode" = late-gpu ]; then
  # The cells above ran on the test GPU, its fences pending (the first
  # baton's log: the windowed and fullscreen cells).
  first_log=$out/release-poison-$driver.log
  grep -a -E "late-gpu: [0-9]+ batches|release points carried|went back before their reads" "$first_log"
  read -r exported pending <<<"$(sed -E -n 's/^late-gpu: [0-9]+ batches; ([0-9]+) sync_files exported, ([0-9]+) of them pending.*/\1 \2/p' "$first_log")"
  carried=$(sed -E -n 's/.*handoff: ([0-9]+) release points carried.*/\1/p' "$first_log")
  early=$(sed -E -n "s/.*; ([0-9]+) client dma-bufs went back before their reads finished.*/\1/p" "$first_log")
  grep -q "vulkan: using 'late GPU over" "$first_log" || { failed=$((failed + 1)); echo "release-poison: FAILED: baton did not run on the test GPU"; }
  [ "${pending:-0}" -ge 20 ] || { failed=$((failed + 1)); echo "release-poison: FAILED: only ${pending:-0} of ${exported:-0} exported fences were pending"; }
  [ "${carried:-0}" -ge 10 ] || { failed=$((failed + 1)); echo "release-poison: FAILED: only ${carried:-0} release points carried the reads' fence"; }
  [ "${early:-0}" -ge 10 ] || { failed=$((failed + 1)); echo "release-poison: FAILED: only ${early:-0} client dma-bufs went back held by their READ fence"; }
fi
[ $failed = 0 ] || fail "$failed checks on $driver"
if [ "$mode" = late-gpu ]; then echo "release-poison: PASS ($driver, on the test GPU)"; else echo "release-poison: PASS ($driver)"; fi
