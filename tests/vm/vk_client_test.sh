#!/usr/bin/env bash
# Runs inside the guest: one baton (headless backend, Vulkan renderer on
# lavapipe, linux-drm-syncobj-v1 on the virtio-gpu render node, as in
# clients_test.sh) and baton-vk-dmabuf-client, a Vulkan client on lavapipe that
# renders into exported dma-bufs and hands them over with its render-done
# sync_file. For explicit and implicit sync, each with the late hand-off
# (commit once the sync_file is exported: on lavapipe it is then already
# signalled) and the early one (commit while the render runs: explicit with an
# acquire point that materialises later, implicit with a stand-in write fence):
#  - no frame is presented before its render's sync_file signalled (the
#    client checks wp_presentation feedback against the fence's timestamp and
#    prints PASS/FAIL with the frame count and latencies);
#  - baton's screenshot (SIGUSR1) while the last frame is up shows the
#    client's last colour.
# Not run here: --sync none (a commit before the render is done), which is
# how this test was shown to fail.
#
# usage: vk_client_test.sh BATON CLIENT COLOUR_CHECK OUT_DIR [FRAMES] [RUNS]
#   RUNS: SYNC:HANDOFF words (default: every explicit/implicit x late/early)
set -uo pipefail
baton=$1 client=$2 check=$3 out=$4 frames=${5:-30}
runs=${6:-"explicit:late explicit:early implicit:late implicit:early"}
test_name=vk-client
source "$(dirname "$0")/guest-test.sh"
source "$(dirname "$0")/guest-baton.sh"
start_vulkan_baton vk-client

passed=0 failed=0 seed=0 previous="" exported=0
for run in $runs; do
  seed=$((seed + 7))  # each run ends on another colour than the one before
  sync=${run%%:*} handoff=${run##*:} name=${run/:/-}
  echo "---- $client --sync $sync --handoff $handoff --frames $frames"
  rm -f "$work/done"
  "$client" --sync "$sync" --handoff "$handoff" --frames "$frames" --seed $seed \
    --hold-ms 30000 \
    --done-file "$work/done" \
    >"$work/client.out" 2>&1 &
  client_pid=$!
  status=0 reason=""
  for _ in $(seq 1800); do  # up to 90 s for the frames
    [ -e "$work/done" ] && break
    kill -0 $client_pid 2>/dev/null || break
    kill -0 $baton_pid 2>/dev/null || break
    sleep 0.05
  done
  if [ -e "$work/done" ]; then
    screenshot "$out/vk-$name.png" || { status=1; reason="baton wrote no screenshot"; }
  else
    status=1 reason="the client never finished its frames"
  fi
  kill $client_pid 2>/dev/null  # ends the hold (the verdict is printed before it)
  wait $client_pid 2>/dev/null
  cat "$work/client.out"
  exported=$((exported + $(sed -n 's/^vk-dmabuf-client: \([0-9]*\) dma-bufs exported.*/\1/p' "$work/client.out" | head -n 1)))
  summary=$(grep -E "^vk-dmabuf-client: (PASS|FAIL):" "$work/client.out")
  if [ $status = 0 ]; then
    case "$summary" in
      *"PASS: $frames frames ($sync sync, $handoff hand-off), 0 presented before render done"*) ;;
      "") status=1 reason="the client printed no verdict" ;;
      *) status=1 reason="the client's verdict: ${summary#vk-dmabuf-client: }" ;;
    esac
  fi
  # The early hand-off is only a test of baton's waiting if the commits
  # really came before the renders were done.
  committed=$(sed -n 's/.* \([0-9]*\) committed before render done.*/\1/p' <<<"$summary")
  if [ $status = 0 ] && [ "$handoff" = early ] && [ "${committed:-0}" -lt $((frames / 2)) ]; then
    status=1 reason="only ${committed:-0} of $frames frames were committed before their render was done"
  fi
  colour=$(sed -n 's/^vk-dmabuf-client: last colour \([0-9a-f]\{6\}\)$/\1/p' "$work/client.out")
  if [ $status = 0 ] && [ "$colour" = "$previous" ]; then
    status=1 reason="this run's last colour $colour is the previous run's: the check would prove nothing"
  fi
  previous=$colour
  if [ $status = 0 ]; then
    # The window is 256x256: most of it must be the last frame's colour.
    "$check" "$out/vk-$name.png" "$colour" 58000 ||
      { status=1; reason="the screenshot does not show the last frame's colour $colour"; }
  fi
  if [ $status = 0 ]; then passed=$((passed + 1)); echo "vk-client: PASS $name"
  else failed=$((failed + 1)); echo "vk-client: FAILED $name: $reason"; fi
done

kill -0 $baton_pid 2>/dev/null || fail "baton died during the tests"
kill -TERM $baton_pid
wait $baton_pid
rc=$?
[ $rc = 0 ] || [ $rc = 143 ] || { failed=$((failed + 1)); echo "vk-client: baton exited with $rc"; }
# Each client cycles its few buffers: baton imports each once, not each commit
# (the screenshots above show the reused imports sample the new pixels).
imports=$(grep -a -o "[0-9]* client dma-bufs imported, [0-9]* commits reused" "$log")
echo "vk-client: baton: ${imports:-no import summary}; the clients exported $exported dma-bufs"
read -r imported _ _ _ reused _ <<<"$imports"
if [ -z "$imports" ] || [ "$imported" -gt "$exported" ] || [ "$reused" -lt $((frames * $(wc -w <<<"$runs") / 2)) ]; then
  failed=$((failed + 1))
  echo "vk-client: FAILED import cache: ${imports:-no summary} for $exported exported buffers and $((frames * $(wc -w <<<"$runs"))) commits"
fi
echo "vk-client: $passed passed, $failed failed"
[ $failed = 0 ]
