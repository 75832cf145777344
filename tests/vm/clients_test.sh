#!/usr/bin/env bash
# Runs inside the guest: one baton (headless backend, Vulkan renderer on
# lavapipe, explicit sync on the virtio-gpu render node) and baton-dmabuf-client
# against it:
#  1. udmabuf / vgem / virtio-gpu buffers x explicit / implicit sync: no frame
#     presented before its fence, release points signalled before a buffer is
#     reused (the client fails otherwise), and baton's screenshot shows the
#     last frame's colour, never the "not rendered" magenta;
#  2. a client whose fence never signals is held (its frame never shows, baton
#     logs it) while a second client keeps presenting;
#  3. a bad timeline fd, conflicting acquire/release points, more imported
#     timelines or held commits than a client may have get protocol errors and
#     disconnect their clients while another client runs on;
#  4. a commit held when its surface is destroyed still gets its release
#     point: after its acquire fence, or at once if it never had one.
#  5. a linux-dmabuf v3 client sees XRGB8888 with the implicit modifier (and
#     with LINEAR: tools/sources/wlroots/0039) and
#     its udmabuf frames are shown; the same buffer from vgem and virtio-gpu
#     (exporter "drm": a GPU's layout only its driver knows) is refused:
#     `failed` for create, a protocol error for create_immed, logged.
# Why headless + Vulkan: baton's Vulkan swapchain does not serve the DRM
# backend yet, and pixman cannot import dma-bufs.
#
# usage: clients_test.sh BATON CLIENT COLOUR_CHECK OUT_DIR
set -uo pipefail
baton=$1 client=$2 check=$3 out=$4
test_name=clients
source "$(dirname "$0")/guest-test.sh"
source "$(dirname "$0")/guest-baton.sh"
start_vulkan_baton clients

# Waits for FILE to exist while baton and process PID live, up to 60 s.
wait_file() {
  for _ in $(seq 1200); do
    [ -e "$1" ] && return 0
    kill -0 $baton_pid 2>/dev/null || return 1
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

passed=0 failed=0
result() {  # NAME STATUS
  if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "clients: PASS $1"
  else failed=$((failed + 1)); echo "clients: FAILED $1"; fi
}

# 1. Every allocator with each sync mode. The last of 4 frames is #2060e0.
for sync in explicit implicit; do
  for alloc in udmabuf vgem virtio-gpu; do
    name="$alloc-$sync"
    echo "---- $client --alloc $alloc --sync $sync"
    rm -f "$work/done"
    "$client" --alloc "$alloc" --sync "$sync" --frames 4 --delay-ms 200 --hold-ms 20000 \
      --done-file "$work/done" >"$work/client.out" 2>&1 &
    client_pid=$!
    status=0
    if wait_file "$work/done" $client_pid; then
      screenshot "$out/dmabuf-$name.png" || { echo "no screenshot"; status=1; }
    else
      echo "the client never finished its frames"; status=1
    fi
    kill $client_pid 2>/dev/null  # ends the hold; it reports on SIGTERM with 143
    wait $client_pid
    cat "$work/client.out"
    grep -q "4 frames ($alloc, $sync sync), 0 presented before their fence" "$work/client.out" ||
      status=1
    # Frames 2 and 3 reuse the buffers of 0 and 1: their release points first.
    if [ $sync = explicit ] && [ "$(grep -c 'signalled before reuse' "$work/client.out")" != 2 ]; then
      echo "the client did not see both release points signalled"; status=1
    fi
    [ $status = 0 ] && { "$check" "$out/dmabuf-$name.png" 2060e0 58000 || status=1; }
    result "$name" $status
  done
done

# 2. A stuck client does not stall another.
echo "---- a client stuck on an unsignalled acquire point, another presenting meanwhile"
rm -f "$work/stalled"
# The stall lasts until the test ends it (SIGTERM), however slow the guest.
"$client" --alloc udmabuf --sync explicit --frames 6 --delay-ms 100 --stall-at 2 --hold-ms 600000 \
  --done-file "$work/stalled" &
stuck_pid=$!
status=0
wait_file "$work/stalled" $stuck_pid || { echo "the stalling client never stalled"; status=1; }
"$client" --alloc vgem --sync implicit --frames 8 --delay-ms 100 --hold-ms 0 || status=1
kill -0 $stuck_pid 2>/dev/null || { echo "the stall ended before the other client finished"; status=1; }
# baton logs a buffer stuck for 1 s; on a quick guest the other client can
# finish sooner (it did in 997 ms), so the stall goes on until the log says so.
for _ in $(seq 300); do
  grep -q "readiness gate: .*buffer not ready" "$log" && break
  sleep 0.1
done
kill -TERM $stuck_pid 2>/dev/null
wait $stuck_pid || status=1
grep "readiness gate: .*buffer not ready" "$log" || { echo "baton did not log the stuck buffer"; status=1; }
result stuck-client $status

# 2b. A client killed (SIGKILL) while its commit is held for an acquire
# point that never signals: baton drops the held commit with the client and
# the next client presents.
echo "---- a client killed while its commit is held"
rm -f "$work/stalled"
"$client" --alloc udmabuf --sync explicit --frames 6 --delay-ms 100 --stall-at 2 --hold-ms 20000 \
  --done-file "$work/stalled" >"$work/killed.out" 2>&1 &
killed_pid=$!
status=0
wait_file "$work/stalled" $killed_pid || { echo "the client never stalled"; status=1; }
kill -KILL $killed_pid
wait $killed_pid 2>/dev/null
"$client" --alloc vgem --sync explicit --frames 4 --delay-ms 50 --hold-ms 0 || status=1
kill -0 $baton_pid 2>/dev/null || { echo "baton died with the killed client"; status=1; }
result killed-while-held $status

# 3. Protocol errors for bad explicit-sync input; a good client runs on.
echo "---- misbehaving clients get protocol errors; a good client runs on"
# The good one stays connected until the test ends it (SIGTERM after its
# last frame), so it is there through every bad client however slow the guest.
rm -f "$work/good-done"
"$client" --alloc virtio-gpu --sync explicit --frames 12 --delay-ms 150 --hold-ms 600000 \
  --done-file "$work/good-done" &
good_pid=$!
status=0
sleep 1
"$client" --alloc udmabuf --sync explicit --misbehave bad-timeline || status=1
"$client" --alloc udmabuf --sync explicit --misbehave conflicting-points || status=1
"$client" --alloc udmabuf --sync explicit --misbehave many-timelines || status=1
"$client" --alloc udmabuf --sync explicit --misbehave many-held || status=1
kill -0 $good_pid 2>/dev/null || { echo "the good client ended before the bad ones were done"; status=1; }
wait_file "$work/good-done" $good_pid || { echo "the good client never finished its frames"; status=1; }
kill -TERM $good_pid 2>/dev/null
wait $good_pid || status=1
result protocol-errors $status

# 3b. Params holding plane 1 alone, destroyed unused: no protocol error, and
# baton closes the fd each carried (wlroots 0.19.2 leaked them; see
# tools/sources/wlroots/0006-linux-dmabuf-close-every-set-plane.patch). Its fd
# count must come back.
echo "---- params destroyed unused leave no fd in baton"
status=0
fds_before=$(ls /proc/$baton_pid/fd | wc -l)
"$client" --alloc udmabuf --sync implicit --misbehave unordered-planes || status=1
for _ in $(seq 100); do  # up to 10 s for the client's objects to go
  fds_after=$(ls /proc/$baton_pid/fd | wc -l)
  [ "$fds_after" -le "$fds_before" ] && break
  sleep 0.1
done
echo "clients: baton's open fds: $fds_before before the client, $fds_after after"
[ "$fds_after" -le "$fds_before" ] ||
  { echo "clients: baton kept $((fds_after - fds_before)) fds of 50 params"; status=1; }
result params-fds $status

# 3c. The client closes its dma-buf fds once baton has the buffers and
# draws on: baton holds its own, and the frames still come.
echo "---- dma-buf fds closed underneath"
status=0
"$client" --alloc vgem --sync explicit --frames 4 --delay-ms 50 --hold-ms 0 --close-fds yes ||
  status=1
result closed-fds $status

# 4. A commit held when its surface dies keeps its release point: after the
# producer's fence, or at once when the acquire point never got one.
echo "---- held commits whose surface is destroyed still release"
status=0
"$client" --alloc udmabuf --sync explicit --unshown fenced || status=1
"$client" --alloc udmabuf --sync explicit --unshown unsubmitted || status=1
result unshown-release $status

# 5. The implicit modifier: read as LINEAR from udmabuf, refused from "drm".
echo "---- linux-dmabuf v3 clients: the implicit modifier"
status=0
rm -f "$work/done"
"$client" --alloc udmabuf --sync implicit --implicit yes --frames 4 --delay-ms 100 \
  --hold-ms 20000 --done-file "$work/done" >"$work/client.out" 2>&1 &
client_pid=$!
if wait_file "$work/done" $client_pid; then
  screenshot "$out/dmabuf-implicit.png" || { echo "no screenshot"; status=1; }
else
  echo "the client never finished its frames"; status=1
fi
kill $client_pid 2>/dev/null
wait $client_pid
cat "$work/client.out"
grep -q "with the implicit modifier, XRGB8888 among them: yes" "$work/client.out" || status=1
grep -q "4 frames (udmabuf, implicit sync), 0 presented before their fence" "$work/client.out" ||
  status=1
[ $status = 0 ] && { "$check" "$out/dmabuf-implicit.png" 2060e0 58000 || status=1; }
result implicit-udmabuf $status
for alloc in vgem virtio-gpu; do
  status=0
  before=$(grep -c "refused a .* with the implicit modifier" "$log")
  "$client" --alloc $alloc --sync none --implicit refused || status=1
  after=$(grep -c "refused a .* with the implicit modifier" "$log")
  grep "refused a .* with the implicit modifier" "$log" | tail -1
  # create and create_immed: two refusals, each logged.
  [ $((after - before)) = 2 ] || { echo "baton logged $((after - before)) refusals, not 2"; status=1; }
  result implicit-refused-$alloc $status
done

kill -0 $baton_pid 2>/dev/null || fail "baton died during the tests"
kill -TERM $baton_pid
wait $baton_pid
rc=$?
[ $rc = 0 ] || [ $rc = 143 ] || { failed=$((failed + 1)); echo "clients: baton exited with $rc"; }
echo "clients: $passed passed, $failed failed"
[ $failed = 0 ]
