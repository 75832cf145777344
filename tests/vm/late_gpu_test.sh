#!/usr/bin/env bash
# Runs inside the guest: baton's frames on the test GPU (tests/late_gpu:
# lavapipe whose exported fences are real vgem fences, signalled once the
# work is done, each batch held DELAY ms first), on vkms_timeline, which
# honours IN_FENCE_FD. For each delay (0, 5 and 30 ms) an explicit-sync
# client redraws as fast as it is shown beside an implicit-sync one, and
# baton's exit lines must show:
#   - render-done reached KMS still pending (the sync_file's status at
#     commit time), for 5 and 30 ms on most commits;
#   - no flip was reported while its in-fence was still pending (the kernel
#     held the flip), and no flip is stamped before its fence's signal time
#     (presentation time minus the sync_file's signal timestamp >= 0 for
#     every frame; vkms_timeline latches a flip that missed its vblank at
#     the next one, tests/vm/vkms/vkms_timeline-latch-late-flips.patch);
#   - the event loop's thread never blocked on the GPU;
#   - release points carried the reads' fence, and client dma-bufs went back
#     with baton's reads still running, held by render-done as READ fence.
#
# usage: late_gpu_test.sh BUILD OUT_DIR
set -uo pipefail
build=$(realpath "$1") out=$2/late-gpu
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=late-gpu
source "$here/guest-test.sh"
source "$here/guest-seat.sh"
client=$build/tests/clients/baton-dmabuf-client
card=$(drm_node vkms_timeline card) || fail "no vkms_timeline card: $card"
render=$(drm_node virtio_gpu render) || fail "no virtio-gpu render node for explicit sync: $render"
printf '[[output]]\nname = "*"\nmode = "640x480"\n' >"$out/late-gpu.toml"
export WAYLAND_DISPLAY=baton-late-gpu
export VK_ADD_LAYER_PATH=$build/tests/late_gpu VK_INSTANCE_LAYERS=VK_LAYER_BATON_late_gpu

# number after `pattern` (a sed -E expression with one group) in the log
field() { sed -E -n "s/$1/\\1/p" "$log" | head -n 1; }

failed=0
for delay in 0 5 30; do
  export BATON_LATE_GPU_DELAY_MS=$delay
  launch_baton "$out/late-gpu-$delay.log" env WLR_DRM_DEVICES="$card" "$build/compositor/baton" \
    --backend drm --renderer vulkan --drm-device "$render" --socket "$WAYLAND_DISPLAY" \
    --config "$out/late-gpu.toml"
  "$client" --alloc vgem --sync explicit --frames 90 --delay-ms 0 --hold-ms 0 \
    >"$out/late-gpu-$delay-explicit.out" 2>&1 &
  explicit_pid=$!
  "$client" --alloc vgem --sync implicit --frames 40 --delay-ms 5 --hold-ms 0 --on-release poison \
    >"$out/late-gpu-$delay-implicit.out" 2>&1
  implicit_rc=$?
  wait $explicit_pid
  explicit_rc=$?
  kill -TERM $baton_pid
  wait $baton_pid
  grep -a -E "late-gpu: [0-9]+ batches|in-fences were|blocked on the GPU|release points carried|went back before" "$log"
  commits=$(field '.*: ([0-9]+) commits carried render-done as IN_FENCE_FD.*')
  pending=$(field '.*: ([0-9]+) in-fences were still pending when committed.*')
  flips=$(field '.*pending when committed; ([0-9]+) flips of commits with one.*')
  unsignalled=$(field '.*flips of commits with one: ([0-9]+) reported while.*')
  stamped=$(field '.*still pending, ([0-9]+) stamped before its signal time.*')
  least=$(field '.*flip minus fence signal time at least (-?[0-9.]+) ms.*')
  blocked=$(field '.*the event loop.s thread blocked on the GPU ([0-9]+) times.*')
  carried=$(field '.*handoff: ([0-9]+) release points carried.*')
  early=$(field '.*; ([0-9]+) client dma-bufs went back before their reads finished.*')
  reason=
  if [ $explicit_rc != 0 ] || [ $implicit_rc != 0 ]; then
    reason="a client failed (explicit $explicit_rc, implicit $implicit_rc): $(tail -n 1 "$out/late-gpu-$delay-explicit.out") / $(tail -n 1 "$out/late-gpu-$delay-implicit.out")"
  elif ! grep -q "vulkan: using 'late GPU over" "$log"; then reason="baton did not run on the test GPU"
  elif [ "${commits:-0}" -lt 30 ]; then reason="only ${commits:-0} commits carried render-done as IN_FENCE_FD"
  elif [ "$delay" != 0 ] && [ $((${pending:-0} * 2)) -lt "$commits" ]; then
    reason="only ${pending:-0} of $commits in-fences were pending when committed"
  elif [ "${flips:-0}" -lt 20 ]; then reason="only ${flips:-0} flips were timed against their in-fence"
  elif [ "${unsignalled:-1}" != 0 ]; then reason="${unsignalled:-?} flips were reported with their in-fence pending"
  elif [ "${stamped:-1}" != 0 ]; then reason="${stamped:-?} flips were stamped before their in-fence signalled"
  elif [ "${blocked:-1}" != 0 ]; then reason="the event loop blocked on the GPU ${blocked:-?} times"
  elif [ "$delay" != 0 ] && [ "${carried:-0}" -lt 20 ]; then reason="only ${carried:-0} release points carried the reads' fence"
  elif [ "$delay" != 0 ] && [ "${early:-0}" -lt 10 ]; then reason="only ${early:-0} client dma-bufs went back held by their READ fence"
  fi
  if [ -n "$reason" ]; then
    failed=$((failed + 1))
    echo "late-gpu: FAILED at $delay ms: $reason"
  else
    echo "late-gpu: PASS at $delay ms: $pending of $commits in-fences pending at commit, $flips flips none before its fence signalled (flip minus fence at least $least ms), 0 loop waits, $carried release points carrying the reads' fence, $early dma-bufs back under their READ fence"
  fi
done
stop_seat
[ $failed = 0 ] || fail "$failed delays"
echo "late-gpu: PASS"
