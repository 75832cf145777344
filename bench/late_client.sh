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
test_name=late-client
export BATON_VM_SCANOUT_DUMP=${BATON_VM_SCANOUT_DUMP:-$build/tests/vm/vm-scanout-dump}
source "$(dirname "$(realpath "$0")")/../tests/vm/guest-test.sh"
source "$(dirname "$(realpath "$0")")/../tests/vm/guest-seat.sh"
client=$build/tests/clients/baton-dmabuf-client
probe=$build/tests/clients/baton-loop-probe
vkms=$(drm_node vkms card) || fail "no vkms card: $vkms"
render=$(drm_node virtio_gpu render) || fail "no virtio-gpu render node for explicit sync: $render"

# 640x480: lavapipe and vkms both compose on the guest's two emulated CPUs.
printf '[[output]]\nname = "*"\nmode = "640x480"\n' >"$out/late-client.toml"
# LATE_CLIENT_DEADLINE=off|auto|MS: the outputs' render_deadline (default auto).
[ -n "${LATE_CLIENT_DEADLINE:-}" ] &&
  printf 'render_deadline = "%s"\n' "$LATE_CLIENT_DEADLINE" >>"$out/late-client.toml"

run() {  # GATE (on | off) LATE (late | none)
  local mode=$1 late=$2
  local tag=$mode-$late
  local trace=$out/late-client-$tag.json
  export WAYLAND_DISPLAY=baton-late-$tag
  launch_baton "$out/late-client-$tag.log" env WLR_DRM_DEVICES="$vkms" "$build/compositor/baton" \
    --backend drm --renderer vulkan --drm-device "$render" --socket "$WAYLAND_DISPLAY" \
    --readiness-gate "$mode" --config "$out/late-client.toml" --trace "$trace"
  local pids=() i
  for i in 1 2 3; do
    "$client" --alloc vgem --sync explicit --frames 120 --delay-ms 0 --hold-ms 0 \
      >"$out/late-client-$tag-ontime-$i.out" 2>&1 &
    pids+=($!)
  done
  if [ "$late" = late ]; then
    "$client" --alloc vgem --sync explicit --frames 12 --delay-ms 500 --hold-ms 0 \
      >"$out/late-client-$tag-late.out" 2>&1 &
    pids+=($!)
  else
    : >"$out/late-client-$tag-late.out"
  fi
  # Past start-up (first frames compile lavapipe's pipelines) for 5 s.
  sleep 1.5
  "$probe" 5 >"$out/late-client-$tag-probe.out" 2>&1
  for pid in "${pids[@]}"; do wait "$pid"; done
  kill -TERM "$baton_pid"  # not finish_baton: the seat serves the next run too
  wait "$baton_pid"
  baton_pid=
  # Fence-to-present latency of the on-time clients' frames.
  cat "$out"/late-client-$tag-ontime-*.out |
    sed -nE 's/.*fence signalled at ([0-9.]+) ms, presented at ([0-9.]+) ms.*/\1 \2/p' |
    awk '{ print $2 - $1 }' | sort -n >"$out/late-client-$tag-latency.txt"
  # Output flips from the trace: the gap between two flips is how long the
  # screen showed one frame (16.7 ms at 60 Hz when nothing is late).
  grep -o '"name":"flip","ph":"i","pid":1,"tid":[0-9]*,"ts":[0-9.]*' "$trace" |
    sed 's/.*"ts"://' | awk 'NR > 1 { printf "%.1f\n", ($1 - prev) / 1000 } { prev = $1 }' |
    sort -n >"$out/late-client-$tag-flip-gaps.txt"
  local flips gap_median gap_max long_gaps
  flips=$(wc -l <"$out/late-client-$tag-flip-gaps.txt")
  gap_median=$(awk -v n="$flips" 'NR == int((n + 1) / 2) { print; exit }' "$out/late-client-$tag-flip-gaps.txt")
  gap_max=$(tail -n 1 "$out/late-client-$tag-flip-gaps.txt")
  long_gaps=$(awk '$1 > 300' "$out/late-client-$tag-flip-gaps.txt" | wc -l)
  local n median max missed loop summary late_frames
  n=$(wc -l <"$out/late-client-$tag-latency.txt")
  [ "$n" -gt 0 ] || fail "the on-time clients presented nothing ($mode): $(cat "$out"/late-client-$tag-ontime-1.out | tail -3)"
  median=$(awk -v n="$n" 'NR == int((n + 1) / 2) { print; exit }' "$out/late-client-$tag-latency.txt")
  max=$(tail -n 1 "$out/late-client-$tag-latency.txt")
  missed=$(awk '$1 > 100' "$out/late-client-$tag-latency.txt" | wc -l)
  late_frames=$(grep -c "presented at" "$out/late-client-$tag-late.out")
  loop=$(grep -o "max [0-9.]* ms" "$out/late-client-$tag-probe.out")
  summary=$(grep -a -o "[0-9]* commits carried.*" "$log")
  local busy steady
  busy=$(grep -a -o "longest dispatch [0-9.]* ms, [0-9]* dispatches over 1 ms" "$log" |
    sed -E 's/longest dispatch ([0-9.]+) ms, ([0-9]+) .*/\1 ms (\2 over 1 ms)/')
  # Past start-up (modeset, the first imports and pipeline compiles): the
  # longest "loop busy" span more than 2 s after the first flip.
  steady=$({
    grep -o '"name":"flip","ph":"i","pid":1,"tid":[0-9]*,"ts":[0-9.]*' "$trace" | head -n 1 |
      sed 's/.*"ts":/flip /'
    grep -o '"name":"loop busy","ph":"X","pid":1,"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*' "$trace" |
      sed -E 's/.*"ts":([0-9.]+),"dur":([0-9.]+)/busy \1 \2/'
  } | awk '$1 == "flip" { start = $2 + 2e6 } $1 == "busy" && start && $2 > start && $3 > m { m = $3 }
           END { printf "%.2f ms", m / 1000 }')
  printf '| %-3s | %-4s | %4d | %7.1f | %7.1f | %6d | %4d | %6.1f | %6.1f | %3d | %2d | %-12s | %s | %s |\n' \
    "$mode" "$late" "$n" "$median" "$max" "$missed" "$flips" "$gap_median" "$gap_max" "$long_gaps" \
    "$late_frames" "${loop:-?}" "${busy:-?}" "$steady" >>"$out/late-client-table.md"
  echo "late-client: $tag: $summary"
}

rm -f "$out/late-client-table.md"
echo '| gate | late client | on-time frames | fence to frame callback, median ms | max ms | over 100 ms | flips | flip gap median ms | max ms | gaps over 300 ms | late frames | loop round trip (probe) | longest loop dispatch (baton) | longest past start-up |' >"$out/late-client-table.md"
echo '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|' >>"$out/late-client-table.md"
run on none
run on late
run off late
stop_seat
"$build/bench/baton-trace-png" "$out/late-client-on-late.json" "$out/late-client-on-late-frame.png" --frame 40
cat "$out/late-client-table.md"
