#!/usr/bin/env bash
# The late-client benchmark (issue: a slow client never stalls the desktop).
# Runs inside the qemu guest: baton on vkms (DRM backend, Vulkan renderer on
# lavapipe, explicit sync on virtio-gpu's render node), three explicit-sync
# clients redrawing as fast as baton presents them, and one whose frames come
# 500 ms late (its acquire fence signals 500 ms after each commit). Twice:
# with baton's readiness gate, and with --readiness-gate off (wlroots' latch
# at materialization: the render waits for the late fence on the GPU).
# Reports per run: frames of the on-time clients, their fence-to-present
# latency (median, max), frames later than 100 ms (missed: a refresh is
# 16.7 ms), and the longest the main loop took to answer a round trip
# (baton-loop-probe), plus baton's own frame-fence summary. Writes the traces
# and a PNG of one frame to OUT.
#
# From the host (meson benchmark, not part of the test suite):
#   meson test -C build --benchmark late-client
# or by hand:
#   tests/vm/vm-run.sh --cache build/tests/vm/cache --lavapipe --gpu \
#     --modules vgem,virtio_gpu,vkms --share OUT -- bench/late_client.sh build OUT
set -uo pipefail
build=$(realpath "$1") out=$2
mkdir -p "$out"
fail() { echo "late-client: FAIL: $*"; exit 1; }
source "$(dirname "$(realpath "$0")")/../tests/vm/guest-seat.sh"
client=$build/tests/clients/baton-dmabuf-client
probe=$build/tests/clients/baton-loop-probe
vkms=$("$build/tests/vm/vm-scanout-dump" vkms --card) || fail "no vkms card: $vkms"
render=
for node in /sys/class/drm/renderD*; do
  [ "$(basename "$(readlink -f "$node/device/driver")")" = virtio-pci ] && render=/dev/dri/$(basename "$node")
done
[ -n "$render" ] || fail "no virtio-gpu render node for explicit sync"

run() {  # MODE: on | off
  local mode=$1 log=$out/late-client-$mode.log trace=$out/late-client-$mode.json
  export WAYLAND_DISPLAY=baton-late-$mode
  WLR_DRM_DEVICES=$vkms "$build/compositor/baton" --backend drm --renderer vulkan \
    --drm-device "$render" --socket "$WAYLAND_DISPLAY" --readiness-gate "$mode" \
    --trace "$trace" >"$log" 2>&1 &
  local baton_pid=$!
  for _ in $(seq 1200); do
    grep -q "running on WAYLAND_DISPLAY" "$log" && break
    kill -0 $baton_pid 2>/dev/null || { cat "$log"; fail "baton exited at start-up"; }
    sleep 0.05
  done
  local pids=() i
  for i in 1 2 3; do
    "$client" --alloc vgem --sync explicit --frames 120 --delay-ms 0 --hold-ms 0 \
      >"$out/late-client-$mode-ontime-$i.out" 2>&1 &
    pids+=($!)
  done
  "$client" --alloc vgem --sync explicit --frames 12 --delay-ms 500 --hold-ms 0 \
    >"$out/late-client-$mode-late.out" 2>&1 &
  local late_pid=$!
  "$probe" 6 >"$out/late-client-$mode-probe.out" 2>&1
  for pid in "${pids[@]}" $late_pid; do wait "$pid"; done
  kill -TERM $baton_pid
  wait $baton_pid
  # Fence-to-present latency of the on-time clients' frames.
  cat "$out"/late-client-$mode-ontime-*.out |
    sed -nE 's/.*fence signalled at ([0-9.]+) ms, presented at ([0-9.]+) ms.*/\1 \2/p' |
    awk '{ print $2 - $1 }' | sort -n >"$out/late-client-$mode-latency.txt"
  local n median max missed loop summary late_frames
  n=$(wc -l <"$out/late-client-$mode-latency.txt")
  [ "$n" -gt 0 ] || fail "the on-time clients presented nothing ($mode): $(cat "$out"/late-client-$mode-ontime-1.out | tail -3)"
  median=$(awk -v n="$n" 'NR == int((n + 1) / 2) { print; exit }' "$out/late-client-$mode-latency.txt")
  max=$(tail -n 1 "$out/late-client-$mode-latency.txt")
  missed=$(awk '$1 > 100' "$out/late-client-$mode-latency.txt" | wc -l)
  late_frames=$(grep -c "presented at" "$out/late-client-$mode-late.out")
  loop=$(grep -o "max [0-9.]* ms" "$out/late-client-$mode-probe.out")
  summary=$(grep -o "[0-9]* commits carried.*" "$log")
  printf '| %-3s | %4d | %7.1f | %7.1f | %6d | %2d | %-12s | %s |\n' "$mode" "$n" "$median" "$max" \
    "$missed" "$late_frames" "${loop:-?}" "$summary" >>"$out/late-client-table.md"
}

rm -f "$out/late-client-table.md"
echo '| gate | on-time frames | median ms | max ms | missed (>100 ms) | late frames | loop round trip | baton frame fences |' >"$out/late-client-table.md"
echo '|---|---|---|---|---|---|---|---|' >>"$out/late-client-table.md"
run on
run off
stop_seat
"$build/bench/baton-trace-png" "$out/late-client-on.json" "$out/late-client-on-frame.png" --frame 40
cat "$out/late-client-table.md"
