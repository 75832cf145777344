#!/usr/bin/env bash
# Runs inside the guest: Mesa's vkcube (lavapipe, Mesa 25's Wayland WSI),
# made fullscreen with Super+F on a uinput keyboard as a user would, in its
# present modes under tearing and under variable refresh. What each mode
# asks of the compositor (read from vkcube's own protocol traffic,
# WAYLAND_DEBUG=client):
#   - FIFO: fifo-v1 barriers and commit-timing; never torn, never two new
#     images in one refresh cycle, none replaced unseen;
#   - MAILBOX: no hint, vsynced (not torn);
#   - IMMEDIATE: tearing-control's async hint.
# Mesa asks for presentation feedback only in FIFO, so what reached the
# screen is read from baton's trace (--trace: each output commit, whether
# it was an async flip, and each flip), over the seconds measured.
# 1. On vkms_async (tearing = "fullscreen", the default): every one of
#    IMMEDIATE's commits is an async (torn) flip; none of FIFO's or
#    MAILBOX's is. FIFO's feedback all carries the vsync flag, its sequence
#    numbers strictly increase and none is discarded.
# 2. On vkms_vrr with adaptive_sync = "on" (a 48-144 Hz panel): in each
#    mode the flips follow vkcube, not the mode's 60 Hz grid (most flip
#    intervals not a whole number of refreshes; FIFO with VRR off in the
#    same boot as the reference, where most are); FIFO's feedback reports
#    the panel's fastest refresh (presentation-time version 2, which Mesa
#    binds); IMMEDIATE, which this driver cannot tear, is logged as refused
#    once and still flows. The driver's count of the panel's own refreshes
#    below its range is printed (vkcube under emulation runs below 48 fps,
#    so baton's repeats keep the panel in range).
# The output is a small custom mode so that vkcube and the composition keep
# a rate in an emulated guest.
#
# 3. (In the tearing run.) The pointer moved over a tearing fullscreen
#    surface: every commit still tears, none is refused, and the cursor is
#    in the scanned-out primary plane (drawn into the frame while tearing).
#
# usage: vkcube_modes_test.sh BUILD UINPUT OUT_DIR
set -uo pipefail
build=$(realpath "$1") uinput=$2 out=$3/vkcube-modes
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=vkcube-modes
source "$here/guest-test.sh"
source "$here/guest-seat.sh"
source "$here/guest-latency.sh"
unset WLR_LIBINPUT_NO_DEVICES
source "$here/guest-udev.sh"
source "$here/guest-uinput.sh"
send keyboard kbd
send mouse mouse
udev_settle
command -v vkcube-wayland >/dev/null || fail "vkcube-wayland is missing (vulkan-tools)"
async_card=$(drm_node vkms_async card) || fail "no vkms_async card: $async_card"
vrr_card=$(drm_node vkms_vrr card) || fail "no vkms_vrr card: $vrr_card"
render=$(drm_node virtio_gpu render) || fail "no virtio-gpu render node: $render"
[ -d /sys/kernel/debug/dri ] || mount -t debugfs debugfs /sys/kernel/debug
counters=/sys/kernel/debug/dri/${vrr_card##*card}/vkms_vrr
[ -r "$counters" ] || fail "no vkms_vrr debugfs file ($counters)"
gaps() { sed -n 's/^vrr_gaps=//p' "$counters"; }
scanout_dump=$BATON_VM_SCANOUT_DUMP
export WAYLAND_DISPLAY=baton-vkcube
seconds=${BATON_VKCUBE_SECONDS:-5}

start_baton() {  # NAME CARD [OUTPUT SETTINGS...]
  local name=$1 card=$2
  shift 2
  { printf '[[output]]\nname = "*"\nmode = "320x240@60"\n'; printf '%s\n' "$@"; } >"$out/$name.toml"
  trace=$out/$name.json
  launch_baton "$out/$name.log" env WLR_DRM_DEVICES="$card" "$build/compositor/baton" \
    --backend drm --renderer vulkan --drm-device "$render" --socket "$WAYLAND_DISPLAY" \
    --config "$out/$name.toml" --trace "$trace"
}
stop_baton() {
  kill -TERM "$baton_pid"
  wait "$baton_pid"
  baton_pid=
}
# CLOCK_MONOTONIC in microseconds, as the trace stamps (the guest never
# suspends, so boot time is the same clock), to 10 ms.
now_us() { awk '{ printf "%d", $1 * 1000000 }' /proc/uptime; }

# cube NAME MODE: runs vkcube in present mode MODE (0 IMMEDIATE, 1 MAILBOX,
# 2 FIFO), makes it fullscreen, and measures $seconds seconds once it is:
# its protocol traffic in $out/NAME.seg, the window in $out/NAME.window.
cube() {
  local name=$1 mode=$2 log=$out/$1.trace
  WAYLAND_DEBUG=client vkcube-wayland --present_mode "$mode" --width 64 --height 64 \
    2>"$log" >/dev/null &
  local pid=$!
  attached() { grep -c 'wl_surface#[0-9]*\.attach(wl_buffer' "$log"; }
  for _ in $(seq 600); do [ "$(attached)" -ge 3 ] && break; sleep 0.1; done
  [ "$(attached)" -ge 3 ] || fail "$name: vkcube handed over fewer than 3 images in 60 s"
  send press kbd 125; send key kbd 33; send release kbd 125  # Super+F
  for _ in $(seq 300); do grep -q 'xdg_toplevel#[0-9]*\.configure(320, 240' "$log" && break; sleep 0.1; done
  grep -q 'xdg_toplevel#[0-9]*\.configure(320, 240' "$log" || fail "$name: Super+F did not make vkcube fullscreen"
  sleep 1.5  # its new swapchain, and adaptive sync or tearing settled
  local from lines
  lines=$(wc -l <"$log")
  from=$(now_us)
  [ -n "${before_gaps:-}" ] && before_gaps=$(gaps)
  sleep "$seconds"
  [ -n "${before_gaps:-}" ] && gaps_seen=$(($(gaps) - before_gaps))
  echo "$from $(now_us)" >"$out/$name.window"
  sed -n "$((lines + 1)),\$p" "$log" >"$out/$name.seg"
  kill "$pid"
  wait "$pid" 2>/dev/null
}

# flips NAME: "commits async flips on_grid_pct median_ms" in NAME's window of
# $trace (on_grid_pct: flip intervals within 8 % of a whole number of
# refreshes of $grid_ns).
flips() {
  local from to
  read -r from to <"$out/$1.window"
  awk -v from="$from" -v to="$to" -v grid="${grid_ns:-16666667}" '
    { if (!match($0, /"ts":[0-9.]+/)) next; ts = substr($0, RSTART + 5, RLENGTH - 5) + 0 }
    ts < from || ts > to { next }
    /"name":"output commit"/ { commits++; if (/"async":true/) async++ }
    /"name":"flip"/ {
      if (n++) { d = (ts - last) * 1000; iv[++m] = d; r = d / grid
        if (r - int(r + 0.5) < 0.08 && int(r + 0.5) - r < 0.08) on++ }
      last = ts
    }
    END {
      for (i = 2; i <= m; i++)  # insertion sort: mawk has no asort
        for (j = i; j > 1 && iv[j - 1] > iv[j]; j--) { x = iv[j]; iv[j] = iv[j - 1]; iv[j - 1] = x }
      printf "%d %d %d %d %.3f\n", commits, async, n, m ? 100 * on / m : 0,
        m ? iv[int((m + 1) / 2)] / 1e6 : 0
    }' "$trace"
}
# feedback NAME: "frames vsync increasing discarded refresh_ns" of FIFO's
# presentation feedback in NAME's segment.
# presented(tv_sec_hi, tv_sec_lo, tv_nsec, refresh, seq_hi, seq_lo, flags)
feedback() {
  local seg=$out/$1.seg discarded
  discarded=$(grep -c 'wp_presentation_feedback#[0-9]*\.discarded(' "$seg")
  grep 'wp_presentation_feedback#[0-9]*\.presented(' "$seg" | sed 's/.*presented(\(.*\))/\1/' |
    tr -d ' ' | awk -F, -v discarded="$discarded" '
      { seq = $5 * 4294967296 + $6 }
      NR > 1 && seq > last { inc++ }
      { if ($7 % 2 == 1) vs++; last = seq; refresh = $4; n++ }
      END { printf "%d %d %d %d %d\n", n, vs, inc + 1, discarded, refresh }'
}

# 1. Tearing on vkms_async.
start_baton tearing "$async_card"
cube tear-fifo 2
cube tear-mailbox 1
cube tear-immediate 0
# 3. The pointer over a tearing fullscreen surface (baton-latency-client,
#    vgem dma-bufs, one colour a frame, with the async hint), moved by a
#    uinput mouse for 2 s: every commit still tears (an async flip may not
#    move the cursor plane, so the cursor is drawn into the frame), the
#    kernel refuses none, and the scanout's primary plane shows the
#    cursor's white while the client's colours never are white.
"$build/tests/clients/baton-latency-client" --fullscreen --tearing --delay 0 --alloc vgem \
  --frames 400 --warmup 10 >"$out/cursor-client.out" 2>&1 &
cursor_client=$!
for _ in $(seq 600); do grep -q "warm-up done" "$out/cursor-client.out" && break; sleep 0.05; done
grep -q "warm-up done" "$out/cursor-client.out" || fail "the tearing client never warmed up"
"$scanout_dump" vkms_async --watch 30 ff00ff ffffff >"$out/cursor-watch.out" 2>&1 &
watch_pid=$!
for _ in $(seq 600); do grep -q "^scanout-watch: started" "$out/cursor-watch.out" && break; sleep 0.05; done
from=$(now_us)
send move mouse -2 -1 60 30
echo "$from $(now_us)" >"$out/cursor.window"
kill -TERM "$watch_pid"
wait "$watch_pid"
# Frames composited for the cursor send frame callbacks too, so the client
# may replace a buffer before a frame shows it (discarded feedback, as for
# any client that tears): that alone is not a failure here.
wait "$cursor_client" || tail -n 1 "$out/cursor-client.out" | grep -q "frames discarded$" ||
  fail "the tearing client failed: $(tail -n 1 "$out/cursor-client.out")"
stop_baton
for name in tear-fifo tear-mailbox tear-immediate; do
  read -r commits async flipped _ median <<<"$(flips $name)"
  echo "vkcube-modes: $name: $commits commits in $seconds s, $async of them async (torn);" \
    "$flipped flips, every $median ms (median)"
  [ "$commits" -ge 5 ] || fail "$name: only $commits commits in $seconds s"
  if [ $name = tear-immediate ]; then
    [ "$async" = "$commits" ] || fail "IMMEDIATE: only $async of $commits commits were torn"
  else
    [ "$async" = 0 ] || fail "$name: $async of $commits commits were torn"
  fi
done
read -r frames vsync increasing discarded _ <<<"$(feedback tear-fifo)"
echo "vkcube-modes: tear-fifo feedback: $frames presented, $vsync with the vsync flag," \
  "sequence increasing in $increasing, $discarded discarded"
[ "$frames" -ge 5 ] || fail "FIFO: only $frames frames presented"
[ "$vsync" = "$frames" ] || fail "FIFO: only $vsync of $frames frames had the vsync flag"
[ "$increasing" = "$frames" ] || fail "FIFO: sequence numbers did not strictly increase"
[ "$discarded" = 0 ] || fail "FIFO: $discarded images replaced unseen"
read -r commits async _ _ _ <<<"$(flips cursor)"
refusals=$(grep -a -c "refused an async (tearing) page flip" "$log")
watched=$(grep "^scanout-watch: [0-9]* samples" "$out/cursor-watch.out")
read -r samples white <<<"$(sed -E 's/^scanout-watch: ([0-9]+) samples.*, ([0-9]+) showed ffffff$/\1 \2/' <<<"$watched")"
echo "vkcube-modes: the pointer over a tearing surface: $async of $commits commits torn," \
  "$refusals refused; the cursor's white in $white of $samples scanouts"
[ "$commits" -ge 5 ] || fail "only $commits commits while the pointer moved"
[ "$async" = "$commits" ] || fail "only $async of $commits commits tore while the pointer moved"
[ "$refusals" = 0 ] || fail "the kernel refused an async flip while the pointer moved"
[ "${white:-0}" -ge 1 ] || fail "the cursor was never in the scanned-out frame ($watched)"

# 2. VRR on vkms_vrr: FIFO with VRR off (the reference), then each mode on.
start_baton vrr-off "$vrr_card" 'adaptive_sync = "off"'
cube vrr-off-fifo 2
stop_baton
grid_ns=$(feedback vrr-off-fifo | cut -d ' ' -f 5)  # the mode's refresh
read -r _ _ off_flips off_grid off_median <<<"$(flips vrr-off-fifo)"
echo "vkcube-modes: vrr-off-fifo: $off_flips flips, every $off_median ms (median)," \
  "$off_grid % a whole number of refreshes of $grid_ns ns"
less 80 "$off_grid" || fail "VRR off: only $off_grid % of the flip intervals were whole refreshes"
start_baton vrr-on "$vrr_card" 'adaptive_sync = "on"'
before_gaps=$(gaps)
for mode in fifo:2 mailbox:1 immediate:0; do
  cube "vrr-${mode%:*}" "${mode#*:}"
  eval "gaps_${mode%:*}=$gaps_seen"
done
stop_baton
grep -a -q "variable refresh on" "$log" || fail "VRR never turned on"
for name in fifo mailbox immediate; do
  read -r commits _ flipped grid median <<<"$(flips vrr-$name)"
  eval "mode_gaps=\$gaps_$name"
  echo "vkcube-modes: vrr-$name: $commits commits, $flipped flips in $seconds s, every $median ms" \
    "(median), $grid % a whole number of refreshes; the panel's own refreshes below its range: $mode_gaps"
  [ "$flipped" -ge 5 ] || fail "vrr-$name: only $flipped flips in $seconds s"
  less "$grid" 50 || fail "vrr-$name: under VRR $grid % of the flip intervals were whole refreshes"
done
read -r frames _ increasing discarded refresh <<<"$(feedback vrr-fifo)"
held=$(sed -E -n 's/.*, ([0-9]+) of those while a frame waited for its fences.*/\1/p' "$log" | head -n 1)
repeats=$(sed -E -n 's/.*held to the minimum interval, ([0-9]+) repeats.*/\1/p' "$log" | head -n 1)
echo "vkcube-modes: vrr-fifo feedback: $frames presented, refresh $refresh ns, sequence increasing" \
  "in $increasing, $discarded discarded; baton's repeats: ${repeats:-0}, ${held:-0} of them while" \
  "a frame waited for its fences (composition on lavapipe beside vkcube takes tens of ms)"
[ "$refresh" = 6944444 ] || fail "FIFO under VRR: feedback reported a refresh of $refresh ns, not the fastest (6944444)"
# A repeat while a frame waits flips first; the frame follows it, never lost.
[ "${held:-0}" -ge 1 ] || fail "no repeat went out while a frame waited for its fences"
[ "$increasing" = "$frames" ] || fail "FIFO under VRR: sequence numbers did not strictly increase"
[ "$discarded" = 0 ] || fail "FIFO under VRR: $discarded images replaced unseen"
refusals=$(grep -a -c "refused an async (tearing) page flip" "$log")
echo "vkcube-modes: vrr: IMMEDIATE's refusal on vkms_vrr logged $refusals time(s)"
[ "$refusals" = 1 ] || fail "vkms_vrr's refusal of async flips was logged $refusals times, not once"
stop_seat
echo "vkcube-modes: PASS"
