#!/usr/bin/env bash
# Runs inside the guest: tearing that keeps its fences.
#   1. On vkms_async (vkms_timeline that takes atomic async flips and
#      completes them at once), a fullscreen client of vgem dma-bufs (scanned
#      out directly: composition under emulation takes ~200 ms a frame and
#      would hide any difference) with tearing-control's async hint, drawing
#      at each frame callback, then the same client without the hint, in one
#      baton run. With the hint its frames are presented less than one
#      refresh after their commit (median and p90), sooner than without it,
#      and no torn frame's feedback has the vsync flag; baton's exit lines
#      count the async flips (one per new frame, none without new content)
#      and the frames scanned out directly.
#      The hinted client again with fifo-v1 barriers on every commit (as a
#      FIFO swapchain presents): torn still, but never two updates in one
#      refresh cycle of the vsync grid (fifo-v1 clears a barrier at the
#      latching deadline that follows the update; a torn update may go late
#      in a cycle and the next early in the following one, which the
#      protocol allows).
#   2. A hinted fullscreen wl_shm client (composited: render-done is the
#      in-fence) on the test GPU (each batch held 5 ms, its fences real vgem
#      fences): async flips carry render-done as IN_FENCE_FD still pending at
#      commit, no flip is reported while its fence is pending, and none is
#      stamped before the fence signalled.
#   3. On vkms_timeline and on plain vkms (no timelines), which refuse async
#      flips: the refusal is logged once and the hinted client's frames
#      still flow (at vblank).
#
# usage: tearing_test.sh BUILD OUT_DIR
set -uo pipefail
build=$(realpath "$1") out=$2/tearing
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=tearing
source "$here/guest-test.sh"
source "$here/guest-seat.sh"
source "$here/guest-latency.sh"
client=$build/tests/clients/baton-latency-client
async_card=$(drm_node vkms_async card) || fail "no vkms_async card: $async_card"
timeline_card=$(drm_node vkms_timeline card) || fail "no vkms_timeline card: $timeline_card"
plain_card=$(drm_node vkms card) || fail "no vkms card: $plain_card"
render=$(drm_node virtio_gpu render) || fail "no virtio-gpu render node: $render"
printf '[[output]]\nname = "*"\nmode = "640x480"\n' >"$out/tearing.toml"
export WAYLAND_DISPLAY=baton-tearing


start_baton() {  # NAME CARD [ENV...]
  local name=$1 card=$2
  shift 2
  launch_baton "$out/$name.log" env WLR_DRM_DEVICES="$card" "$@" "$build/compositor/baton" \
    --backend drm --renderer vulkan --drm-device "$render" --socket "$WAYLAND_DISPLAY" \
    --config "$out/tearing.toml"
}
run_client() {  # NAME [OPTIONS...]: the client's summary in $out/NAME.out
  local name=$1
  shift
  "$client" --fullscreen --delay 0 "$@" >"$out/$name.out" 2>&1 ||
    fail "the $name client failed: $(tail -n 1 "$out/$name.out")"
  grep -a "latency-client:" "$out/$name.out"
}
stop_baton() {
  kill -TERM "$baton_pid"
  wait "$baton_pid"
  baton_pid=
  grep -a -E "async \(tearing\)|in-fences were still pending" "$log"
}

# 1. Torn flips against vsynced ones, on vkms_async.
start_baton async "$async_card"
run_client torn --tearing --alloc vgem --frames 120 --warmup 20
run_client vsynced --alloc vgem --frames 120 --warmup 20
run_client torn-fifo --tearing --fifo --alloc vgem --frames 60 --warmup 10
stop_baton
torn_median=$(summary "$out/torn.out" median_ms) torn_p90=$(summary "$out/torn.out" p90_ms)
torn_vsync=$(summary "$out/torn.out" vsync) torn_frames=$(summary "$out/torn.out" frames)
refresh=$(summary "$out/vsynced.out" refresh_ms)
sync_median=$(summary "$out/vsynced.out" median_ms) sync_p90=$(summary "$out/vsynced.out" p90_ms)
sync_vsync=$(summary "$out/vsynced.out" vsync) sync_frames=$(summary "$out/vsynced.out" frames)
async_flips=$(field '.*: ([0-9]+) async \(tearing\) page flips.*')
direct=$(field '.*; ([0-9]+) frames scanned out a client buffer directly.*')
echo "tearing: vkms_async: torn median ${torn_median} ms, p90 ${torn_p90} ms; vsynced median" \
  "${sync_median} ms, p90 ${sync_p90} ms; refresh ${refresh} ms; ${async_flips:-0} async flips;" \
  "${direct:-0} frames scanned out directly"
[ "${torn_vsync:-1}" = 0 ] || fail "${torn_vsync:-?} of $torn_frames torn frames had the vsync flag"
[ "${sync_vsync:-0}" = "$sync_frames" ] || fail "only ${sync_vsync:-0} of $sync_frames vsynced frames had the vsync flag"
less "$torn_median" "$refresh" || fail "torn median $torn_median ms is not under one refresh ($refresh ms)"
less "$torn_median" "$sync_median" || fail "torn median $torn_median ms is not under the vsynced $sync_median ms"
less "$torn_p90" "$sync_p90" || fail "torn p90 $torn_p90 ms is not under the vsynced $sync_p90 ms"
[ "${async_flips:-0}" -ge 100 ] || fail "only ${async_flips:-0} async flips"
# One torn flip per new frame: the hinted runs commit 140 + 70 frames.
[ "${async_flips:-0}" -le 231 ] || fail "$async_flips async flips for 210 new frames: flips without new content"
torn_interval=$(summary "$out/torn.out" interval_median_ms)
fifo_interval=$(summary "$out/torn-fifo.out" interval_median_ms)
fifo_cycle=$(summary "$out/torn-fifo.out" cycle_max)
torn_cycle=$(summary "$out/torn.out" cycle_max)
fifo_vsync=$(summary "$out/torn-fifo.out" vsync)
echo "tearing: with fifo barriers: presented every ${fifo_interval} ms (median), at most" \
  "${fifo_cycle} in a refresh cycle; without them every ${torn_interval} ms, up to" \
  "${torn_cycle} in a cycle; ${fifo_vsync:-?} with the vsync flag"
[ "${fifo_vsync:-1}" = 0 ] || fail "${fifo_vsync:-?} torn fifo frames had the vsync flag"
[ "${fifo_cycle:-0}" = 1 ] || fail "with fifo barriers, ${fifo_cycle:-?} torn frames were presented in one refresh cycle"
[ "${direct:-0}" -ge 200 ] || fail "only ${direct:-0} frames were scanned out directly"

# 2. Pending in-fences on async flips, on the test GPU.
start_baton async-late-gpu "$async_card" VK_ADD_LAYER_PATH="$build/tests/late_gpu" \
  VK_INSTANCE_LAYERS=VK_LAYER_BATON_late_gpu BATON_LATE_GPU_DELAY_MS=5
run_client late-gpu --tearing --frames 40 --warmup 5
stop_baton
grep -q "vulkan: using 'late GPU over" "$log" || fail "baton did not run on the test GPU"
async_flips=$(field '.*: ([0-9]+) async \(tearing\) page flips.*')
async_pending=$(field '.*with IN_FENCE_FD \(([0-9]+) of those still pending.*')
flips=$(field '.*pending when committed; ([0-9]+) flips of commits with one.*')
unsignalled=$(field '.*flips of commits with one: ([0-9]+) reported while.*')
stamped=$(field '.*still pending, ([0-9]+) stamped before its signal time.*')
least=$(field '.*flip minus fence signal time at least (-?[0-9.]+) ms.*')
echo "tearing: test GPU at 5 ms: ${async_flips:-0} async flips, ${async_pending:-0} with their" \
  "in-fence pending at commit; ${flips:-0} flips timed, ${unsignalled:-?} reported with it" \
  "pending, ${stamped:-?} stamped before it (flip minus fence at least ${least:-?} ms)"
[ "${async_flips:-0}" -ge 30 ] || fail "only ${async_flips:-0} async flips on the test GPU"
[ $((${async_pending:-0} * 2)) -ge "$async_flips" ] || fail "only ${async_pending:-0} of $async_flips async flips had a pending in-fence"
[ "${flips:-0}" -ge 30 ] || fail "only ${flips:-0} flips were timed against their in-fence"
[ "${unsignalled:-1}" = 0 ] || fail "${unsignalled:-?} flips were reported with their in-fence pending"
[ "${stamped:-1}" = 0 ] || fail "${stamped:-?} flips were stamped before their in-fence signalled"

# 3. Drivers without async flips: refused once, frames flow at vblank.
for refusing in vkms_timeline vkms; do
  card=$timeline_card
  [ $refusing = vkms ] && card=$plain_card
  start_baton "refused-$refusing" "$card"
  run_client "refused-$refusing" --tearing --alloc vgem --frames 60 --warmup 5
  stop_baton
  refusals=$(grep -a -c "refused an async (tearing) page flip" "$log")
  async_flips=$(field '.*: ([0-9]+) async \(tearing\) page flips.*')
  at_vblank=$(field '.*; ([0-9]+) frames that asked to tear flipped at vblank.*')
  echo "tearing: $refusing: refusal logged $refusals time(s), ${async_flips:-0} async flips," \
    "${at_vblank:-0} frames that asked to tear flipped at vblank"
  [ "$refusals" = 1 ] || fail "$refusing: the refusal was logged $refusals times, not once"
  [ "${async_flips:-1}" = 0 ] || fail "$refusing: ${async_flips:-?} async flips on a driver without them"
  [ "${at_vblank:-0}" -ge 60 ] || fail "$refusing: only ${at_vblank:-0} frames flipped at vblank"
done
stop_seat
echo "tearing: PASS"
