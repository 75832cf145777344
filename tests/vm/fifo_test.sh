#!/usr/bin/env bash
# Runs inside the guest: wp_fifo_v1 and wp_commit_timing_v1 from real
# clients, on a real vblank (vkms' hrtimer, 60 Hz), baton on the DRM backend.
#
# 1. Mesa's vkcube (lavapipe; FIFO is its default present mode, and Mesa
#    25's WSI uses fifo-v1 and commit-timing-v1 for it) at 64x64, its
#    protocol traffic logged by libwayland (WAYLAND_DEBUG=client):
#    - shown: every image it presents is on screen before the next replaces
#      it (no wp_presentation feedback discarded: FIFO never drops), its
#      presentation sequence numbers strictly increase, and at least one
#      step in ten is exactly one (a new image at the next refresh);
#    - hidden (its workspace switched away with Super+2 on a uinput
#      keyboard): it keeps handing over images, at least 2 a second and
#      never stopping for 3 s;
#    - shown again (Super+1): it is presented again at once.
# 2. baton-latency-client with commit-timing targets half a refresh past a
#    vblank: no frame is ever shown before its target, and most are shown at
#    the first vblank not before it; a target in the past is shown at the
#    next vblank. "Most" is judged against the same client without targets
#    in the same guest (below: liveness holds on a busy machine too).
#
# usage: fifo_test.sh BATON UINPUT LATENCY_CLIENT OUT
set -uo pipefail
baton=$1 uinput=$2 latency=$3 out=$4
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=fifo
source "$here/guest-test.sh"
source "$here/guest-seat.sh"
unset WLR_LIBINPUT_NO_DEVICES
source "$here/guest-udev.sh"
source "$here/guest-uinput.sh"
send keyboard kbd
udev_settle
command -v vkcube-wayland >/dev/null || fail "vkcube-wayland is missing (vulkan-tools)"

export WAYLAND_DISPLAY=baton-fifo
launch_baton "$out/fifo-baton.log" "$baton" --backend drm --renderer pixman --socket "$WAYLAND_DISPLAY"
grep -q "render deadline\|output" "$log" || true

trace=$out/fifo-vkcube.log
WAYLAND_DEBUG=client vkcube-wayland --width 64 --height 64 2>"$trace" >/dev/null &
cube=$!
presented() { grep -c 'wp_presentation_feedback#[0-9]*\.presented(' "$trace"; }
for _ in $(seq 600); do [ "$(presented)" -ge 30 ] && break; sleep 0.1; done
[ "$(presented)" -ge 30 ] || fail "vkcube presented fewer than 30 frames in 60 s"
grep -q 'wp_fifo_v1#[0-9]*\.wait_barrier' "$trace" ||
  fail "vkcube does not use wp_fifo_v1 (Mesa older than 24.3, or baton does not offer it)"

mark() { wc -l <"$trace"; }
segment() { sed -n "$(($1 + 1)),$2p" "$trace"; }  # lines FROM+1..TO
# Images vkcube handed over in a segment: each is an attach before a commit.
images() { grep -c 'wl_surface#[0-9]*\.attach(wl_buffer' ; }
# The longest gap between two images, in ms (libwayland's timestamps are ms).
longest_gap() {
  grep 'wl_surface#[0-9]*\.attach(wl_buffer' | sed 's/^\[\([0-9.]*\)\].*/\1/' |
    awk 'NR > 1 && $1 - last > gap { gap = $1 - last } { last = $1 } END { printf "%d", gap }'
}

shown_from=$(mark)
sleep 6
shown_to=$(mark)
shown=$(segment "$shown_from" "$shown_to")
discarded=$(grep -c 'wp_presentation_feedback#[0-9]*\.discarded(' <<<"$shown")
# presented(tv_sec_hi, tv_sec_lo, tv_nsec, refresh, seq_hi, seq_lo, flags)
# (No process substitution: the guest has no /dev/fd.)
stats=$(grep 'wp_presentation_feedback#[0-9]*\.presented(' <<<"$shown" |
  sed 's/.*presented(\(.*\))/\1/' | tr -d ' ' |
  awk -F, '{ seq = $5 * 4294967296 + $6 }
    NR > 1 { if (seq > last) inc++; if (seq == last + 1) { one++; run++; if (run > best) best = run } else run = 0 }
    { last = seq; n++ }
    END { printf "%d %d %d %d\n", n, inc + 1, one, best }')
read -r frames increasing steps_of_one longest_run <<<"$stats"
shown_images=$(images <<<"$shown")
echo "fifo: shown 6 s: $shown_images images, $frames presented, $discarded discarded;" \
  "sequence numbers increasing in $increasing of $frames, +1 steps $steps_of_one," \
  "longest run of +1 steps $longest_run"
[ "$frames" -ge 30 ] || fail "only $frames frames presented in 6 s while shown"
[ "$discarded" = 0 ] || fail "$discarded of vkcube's images were replaced before they were shown (FIFO never drops)"
[ "$increasing" = "$frames" ] || fail "presentation sequence numbers did not strictly increase"
# Liveness: a new image on screen at the very next refresh for at least one
# step in ten. Quiet, 96-98 % of steps are +1 (runs of 60 to 140); six CPU
# hogs beside the guest 87 %; the guest frozen 30 ms in every 100 ms 33-76 %
# (runs of 4 to 6: every freeze breaks a run, so the run is only printed). A
# compositor that shows FIFO frames every other refresh makes none.
[ $((steps_of_one * 10)) -ge $((frames - 1)) ] ||
  fail "vkcube got a new image on screen at the next refresh in only $steps_of_one of $((frames - 1)) steps"

send press kbd 125; send key kbd 3; send release kbd 125  # Super+2: another workspace
sleep 1
hidden_from=$(mark)
sleep 6
hidden_to=$(mark)
hidden=$(segment "$hidden_from" "$hidden_to")
hidden_images=$(images <<<"$hidden")
hidden_presented=$(grep -c 'wp_presentation_feedback#[0-9]*\.presented(' <<<"$hidden")
gap=$(longest_gap <<<"$hidden")
echo "fifo: hidden 6 s: $hidden_images images ($hidden_presented presented), longest gap ${gap} ms"
[ "$hidden_images" -gt 0 ] || fail "vkcube stalled on another workspace (no image in 6 s)"
# Hidden, a guest with the host busy gave 357 images in 6 s. Liveness at a
# small fraction of that, in absolute terms (the shown rate came from
# another window of time, under another load).
[ "$hidden_images" -ge 12 ] ||
  fail "hidden, vkcube ran at $hidden_images images in 6 s (at least 2/s asked)"
[ "$gap" -lt 3000 ] || fail "hidden, vkcube stopped for $gap ms"

send press kbd 125; send key kbd 2; send release kbd 125  # Super+1: back
back_from=$(mark)
back_started=$(date +%s)
for _ in $(seq 300); do
  back=$(segment "$back_from" "$(mark)")
  back_presented=$(grep -c 'wp_presentation_feedback#[0-9]*\.presented(' <<<"$back")
  [ "$back_presented" -ge 15 ] && break
  sleep 0.1
done
echo "fifo: shown again: $back_presented presented after $(($(date +%s) - back_started)) s"
[ "$back_presented" -ge 15 ] || fail "vkcube did not come back on screen ($back_presented frames in 30 s)"
kill "$cube"
wait "$cube" 2>/dev/null

# commit-timing from a client written from the XML, beside its peer: the
# same client committing each frame as soon as the previous one was
# presented, with no target (--after-present).
# - Never early, in any frame: a safety property, whatever the speed.
# - On time (at the first vblank not before the target; a target in the past
#   at the next vblank) is liveness, and how often a guest makes its vblanks
#   depends on the host: quiet, 98.5-99.5 % of targets and 97-100 % of past
#   targets; the host running a CI build and a fuzzer 97.3 % and 40 %; the
#   whole guest frozen 30 ms in every 100 ms (hypervisor steal, as on a
#   loaded CI host; vkms' vblank timer then overruns) 65 % and 77 %. So each
#   is judged against the peer, measured in rounds interleaved with it: at
#   least three quarters of the peer's share of frames at their first vblank
#   (or 75 % outright). A compositor that shows targeted frames a refresh
#   late scores near 0 % whatever the load.
declare -A frames_of on_time_of
run_latency() {  # NAME ARGS...: one run; adds its frames and on-time frames to NAME's
  local name=$1 line n early late
  shift
  line=$("$latency" "$@" --warmup 10 2>&1 | tail -n 1)
  echo "fifo: $name: $line"
  [[ $line == *SKIP* ]] && fail "baton offers no wp_commit_timing_manager_v1"
  n=$(grep -o ' frames=[0-9]*' <<<"$line" | cut -d= -f2)
  early=$(grep -o ' early=[0-9]*' <<<"$line" | cut -d= -f2)
  late=$(grep -o ' late=[0-9]*' <<<"$line" | cut -d= -f2)
  [ -n "$n" ] && [ -n "$early" ] && [ -n "$late" ] || fail "no result from the latency client: $line"
  [ "$early" = 0 ] || fail "$early frames were shown before their target ($name: $*)"
  on_time_of[$name]=$((${on_time_of[$name]:-0} + n - early - late))
  frames_of[$name]=$((${frames_of[$name]:-0} + n))
}
for _ in 1 2 3; do
  run_latency peer --after-present --frames 100
  run_latency target --target-offset 0.5 --frames 100
  run_latency past-target --past-target --frames 30
done
pct() { awk -v a="${on_time_of[$1]}" -v b="${frames_of[$1]}" 'BEGIN { printf "%.1f", 100 * a / b }'; }
peer_pct=$(pct peer)
least=$(awk -v p="$peer_pct" 'BEGIN { l = 0.75 * p; printf "%.1f", l < 75 ? l : 75 }')
echo "fifo: at their first vblank: peer $peer_pct % of ${frames_of[peer]} frames," \
  "targets $(pct target) % of ${frames_of[target]}, past targets $(pct past-target) %" \
  "of ${frames_of[past-target]} (at least $least % asked)"
for name in target past-target; do
  awk -v p="$(pct $name)" -v least="$least" 'BEGIN { exit !(p >= least) }' ||
    fail "only $(pct $name) % of $name frames were shown at the first vblank not before their target, the peer $peer_pct %"
done
finish_baton
echo "fifo: PASS"
