#!/usr/bin/env bash
# Runs inside the guest: real input devices drive baton. vm-uinput makes a
# keyboard, a mouse and a touchpad through /dev/uinput; udev tags them and
# libinput (wlroots' libinput backend, on a seatd seat) hands them to baton on
# virtio-gpu's KMS. What clients get is checked from their side:
# - foot: keys typed land in a file with the configured layout (de: the keys
#   labelled Z and Y on a US keyboard give "y" and "z"), and a held key
#   repeats at the configured rate;
# - baton-input-probe (fullscreen): flat acceleration moves the pointer 1:1,
#   adaptive at speed 1 further; natural_scroll turns the wheel's direction;
#   tap-to-click makes a touchpad tap a click, and without it nothing;
#   the settings change on a config reload (SIGHUP); a three-finger swipe,
#   a two-finger pinch and three resting fingers on the touchpad reach the
#   window as swipe, pinch and hold gestures (pointer-gestures);
#   a touchscreen tap reaches it at the spot touched (wl_touch); a pen on a
#   tablet reaches it as a tablet tool with its pressure (tablet-v2);
# - a keyboard plugged in while baton runs types into the focused window;
#   unplugged, baton drops it.
#
# usage: input_test.sh BATON VM_UINPUT INPUT_PROBE OUT_DIR
set -uo pipefail
baton=$1 uinput=$2 probe=$3 out=$4
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=input
source "$here/guest-test.sh"
source "$here/guest-seat.sh"
unset WLR_LIBINPUT_NO_DEVICES  # this test has devices; none found is a failure
source "$here/guest-udev.sh"
source "$here/guest-uinput.sh"

# The devices, before baton starts.
send keyboard kbd
send mouse mouse
send touchpad pad
send touchscreen screen
send tablet pen
udev_settle

write_config() {  # PROFILE SPEED NATURAL TAP
  cat >"$out/input.toml" <<CONF
[[input]]
type = "keyboard"
xkb_layout = "de"
repeat_rate = 20
repeat_delay = 250

[[input]]
type = "pointer"
accel_profile = "$1"
accel = $2
natural_scroll = $3

[[input]]
type = "touchpad"
tap = $4
CONF
}
write_config flat 0.0 true true

export WAYLAND_DISPLAY=baton-input
launch_baton "$out/input-baton.log" \
  "$baton" --backend drm --renderer pixman --socket "$WAYLAND_DISPLAY" --config "$out/input.toml"
for device in "keyboard baton-test kbd" "pointer baton-test mouse" "pointer baton-test pad" \
  "touch baton-test screen" "tablet baton-test pen"; do
  grep -q "input: $device added" "$log" || fail "baton did not pick up the $device"
done
echo "input: baton took the keyboard, the mouse, the touchpad, the touchscreen and the tablet through libinput"

# --- foot: layout and key repeat --------------------------------------------
typed=$out/input-typed.txt
rm -f "$typed"
foot --override=font=monospace:size=10 sh -c "stty -echo; cat > '$typed'" >"$out/input-foot.log" 2>&1 &
foot_pid=$!
# foot may map between two typed keys (the first goes to nobody), so a
# warm-up line (KEY_1, Enter) is typed until one arrives: then foot has the
# keyboard, and the line that matters is typed once.
for attempt in $(seq 20); do
  sleep 1
  kill -0 $foot_pid 2>/dev/null || fail "foot exited: $(tail -n 3 "$out/input-foot.log")"
  send key kbd 2    # KEY_1
  send key kbd 28   # Enter
  sleep 0.5
  grep -q 1 "$typed" 2>/dev/null && break
done
grep -q 1 "$typed" 2>/dev/null || fail "nothing typed into foot reached its file in 20 attempts"
lines=$(wc -l <"$typed")
send key kbd 44   # KEY_Z: "y" with the de layout
send key kbd 21   # KEY_Y: "z"
send key kbd 28   # Enter
for _ in $(seq 200); do [ "$(wc -l <"$typed")" -gt "$lines" ] && break; sleep 0.1; done
first=$(sed -n "$((lines + 1))p" "$typed")
lines=$((lines + 1))
echo "input: typed KEY_Z KEY_Y into foot; it read \"$first\" (after $attempt warm-up lines while it started)"
[ "$first" = yz ] || fail "foot read \"$first\", not \"yz\" as the de layout gives"
# Held for 1.5 s: 250 ms delay, then 20 per second, about 25 more. A busy
# guest may hold it longer than asked: the upper bound is from the time
# between press and release as measured here.
pressed_ns=$(date +%s%N)
send press kbd 30   # KEY_A
sleep 1.5
send release kbd 30
held_ms=$((($(date +%s%N) - pressed_ns) / 1000000))
send key kbd 28
for _ in $(seq 200); do [ "$(wc -l <"$typed")" -gt "$lines" ] && break; sleep 0.1; done
repeats=$(sed -n "$((lines + 1))p" "$typed" | tr -cd a | wc -c)
most=$((held_ms * 20 / 1000 + 3))
echo "input: KEY_A held ${held_ms} ms gave $repeats a's (repeat 20/s after 250 ms: at most $most)"
[ "$repeats" -ge 10 ] || fail "a held key gave only $repeats characters: no key repeat"
[ "$repeats" -le "$most" ] || fail "a held key gave $repeats characters in $held_ms ms: faster than 20/s"
kill $foot_pid 2>/dev/null
wait $foot_pid 2>/dev/null

# --- the probe: pointer settings ----------------------------------------------
events=$out/input-probe.txt
"$probe" >"$events" 2>&1 &
probe_pid=$!
for _ in $(seq 200); do grep -q "^ready" "$events" && break; sleep 0.1; done
grep -q "^ready" "$events" || fail "the input probe did not show its window: $(tail -n 2 "$events")"
echo "input: probe $(grep "^ready" "$events")"
grep -q "^repeat-info 20 250$" "$events" ||
  fail "clients were not told the configured key repeat (20/s after 250 ms): $(grep "^repeat-info" "$events")"
mark() { wc -l <"$events"; }
since() { tail -n +"$(($1 + 1))" "$events"; }
# wait_probe MARK PATTERN: until the probe prints a line matching PATTERN
# after MARK; 20 s at most (a liveness bound: a busy TCG guest is slow).
wait_probe() {
  for _ in $(seq 200); do
    since "$1" | grep -q "$2" && return 0
    sleep 0.1
  done
  return 1
}
# until N motion events came after MARK (20 s at most)
wait_motions() {
  for _ in $(seq 200); do
    [ "$(since "$1" | grep -c "^motion ")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
# x of the last motion event after line $1
last_x() { since "$1" | sed -n 's/^motion \([-0-9.]*\) .*/\1/p' | tail -n 1; }

# Into the top-left corner, then 25 motions of 4 units to the right. Each
# step waits for the probe to see the motions, not for a fixed time.
pointer_run() {
  local m
  m=$(mark)
  send move mouse -400 -400 10 4
  wait_probe "$m" "^motion 0.00 0.00$"
  sleep 0.2
  m=$(mark)
  send move mouse 4 0 25 8
  wait_motions "$m" 25
  sleep 0.2
  last_x "$m"
}
flat_x=$(pointer_run)
echo "input: flat profile, speed 0: 25 x 4 units moved the pointer to x=$flat_x"
[ -n "$flat_x" ] || fail "the probe saw no pointer motion"
awk -v x="$flat_x" 'BEGIN { exit !(x >= 99 && x <= 101) }' ||
  fail "flat acceleration at speed 0 should move 1:1 (x=100), the pointer went to x=$flat_x"

# Natural scrolling: a wheel click towards the user scrolls the content up.
m=$(mark)
send wheel mouse -1
wait_probe "$m" "^axis vertical"
natural=$(since "$m" | sed -n 's/^axis vertical \([-0-9.]*\)$/\1/p' | head -n 1)
echo "input: natural_scroll on: one wheel click down gave axis $natural"
awk -v v="${natural:-0}" 'BEGIN { exit !(v < 0) }' || fail "natural scrolling did not invert the wheel (axis ${natural:-none})"

# Tap to click.
m=$(mark)
send tap pad
wait_probe "$m" "^button 272 pressed" || fail "a touchpad tap with tap = true gave no click"
echo "input: tap = true: a touchpad tap clicked (button 272)"

# The other way round, after a reload.
write_config adaptive 1.0 false false
kill -HUP $baton_pid
wait_for_log "configuration reloaded" || fail "baton did not reload its configuration on SIGHUP (60 s)"
sleep 0.5
fast_x=$(pointer_run)
echo "input: adaptive profile, speed 1: the same motions moved the pointer to x=$fast_x"
awk -v x="${fast_x:-0}" 'BEGIN { exit !(x > 130) }' ||
  fail "adaptive acceleration at speed 1 should move further than 1:1 (x=${fast_x:-none})"
m=$(mark)
send wheel mouse -1
wait_probe "$m" "^axis vertical"
plain=$(since "$m" | sed -n 's/^axis vertical \([-0-9.]*\)$/\1/p' | head -n 1)
echo "input: natural_scroll off: one wheel click down gave axis $plain"
awk -v v="${plain:-0}" 'BEGIN { exit !(v > 0) }' || fail "without natural scrolling the wheel should scroll down (axis ${plain:-none})"
m=$(mark)
send tap pad
sleep 1
! since "$m" | grep -q "^button 272" || fail "a tap clicked although tap = false"
echo "input: tap = false: a touchpad tap did not click"

# A three-finger swipe to the right: libinput's gesture, through baton, to
# the window under the pointer (pointer-gestures-v1).
m=$(mark)
send swipe pad 3 300 0 15
wait_probe "$m" "^swipe-end\|^swipe-cancelled"
swipe=$(since "$m" | grep "^swipe-")
swipe_dx=$(sed -n 's/^swipe-update \([-0-9.]*\) .*/\1/p' <<<"$swipe" | awk '{s += $1} END {print s + 0}')
grep -q "^swipe-begin 3" <<<"$swipe" && grep -q "^swipe-end" <<<"$swipe" ||
  fail "a three-finger swipe on the touchpad did not reach the window: '${swipe:-nothing}'"
awk -v d="$swipe_dx" 'BEGIN { exit !(d > 0) }' || fail "the swipe went right, the window heard dx $swipe_dx"
echo "input: a three-finger swipe reached the window: begin 3, updates summing to dx $swipe_dx, end"

# Two fingers spreading from 15 to 75 mm apart: libinput's pinch, through
# baton, to the window under the pointer, its scale growing.
m=$(mark)
send pinch pad 600 15
wait_probe "$m" "^pinch-end\|^pinch-cancelled" ||
  fail "a two-finger pinch on the touchpad did not reach the window: '$(since "$m" | head -n 3)'"
pinch=$(since "$m" | grep "^pinch-")
grep -q "^pinch-begin 2" <<<"$pinch" && grep -q "^pinch-end" <<<"$pinch" ||
  fail "the pinch reached the window as '$(head -n 1 <<<"$pinch") ... $(tail -n 1 <<<"$pinch")'"
scale=$(sed -n 's/^pinch-update \([0-9.]*\)$/\1/p' <<<"$pinch" | tail -n 1)
awk -v s="$scale" 'BEGIN { exit !(s > 1.5) }' ||
  fail "the fingers spread from 15 to 75 mm; the window's last scale was '${scale:-none}'"
echo "input: a two-finger pinch outwards reached the window: begin 2, scale $scale at its last update, end"

# Three fingers resting, then lifted: libinput's hold gesture (its begin once
# they rest, its end when they lift), through baton, to the window.
m=$(mark)
send hold pad 3 600
wait_probe "$m" "^hold-end\|^hold-cancelled" ||
  fail "three resting fingers gave the window no hold gesture: '$(since "$m" | head -n 3)'"
hold=$(since "$m" | grep "^hold-")
[ "$(head -n 1 <<<"$hold")" = "hold-begin 3" ] && grep -q "^hold-end" <<<"$hold" ||
  fail "the hold reached the window as '$(tr '\n' ' ' <<<"$hold")'"
echo "input: three resting fingers reached the window as a hold gesture: begin 3, end"

# A touchscreen tap at a quarter of the way across and half way down: the
# fullscreen window gets the point there, in its own coordinates (wl_touch).
m=$(mark)
send touch screen 2500 5000
wait_probe "$m" "^touch-up"
down=$(since "$m" | sed -n 's/^touch-down [0-9]* \([-0-9.]*\) \([-0-9.]*\)$/\1 \2/p' | head -n 1)
since "$m" | grep -q "^touch-up" || fail "a touchscreen tap did not reach the window (down: '${down:-none}', no up)"
read -r tx ty <<<"$down"
awk -v x="$tx" -v y="$ty" 'BEGIN { exit !(x > 310 && x < 330 && y > 390 && y < 410) }' ||
  fail "a touchscreen tap at (25%, 50%) of 1280x800 reached the window at ($tx, $ty), not near (320, 400)"
echo "input: a touchscreen tap at 25%,50% reached the window at $tx,$ty (wl_touch down and up)"

# A pen on the tablet at three quarters across and half way down, pressed at
# 600 of 1023: the fullscreen window gets it as a tablet tool (tablet-v2)
# there, with its pressure.
m=$(mark)
send pen pen 7500 5000 600
wait_probe "$m" "^tablet-proximity-out"
pen=$(since "$m" | grep "^tablet-")
grep -q "^tablet-proximity-in" <<<"$pen" && grep -q "^tablet-up" <<<"$pen" &&
  grep -q "^tablet-proximity-out" <<<"$pen" ||
  fail "the pen did not reach the window as a tablet tool: '${pen:-nothing}'"
read -r px py <<<"$(sed -n 's/^tablet-down \([-0-9.]*\) \([-0-9.]*\)$/\1 \2/p' <<<"$pen" | head -n 1)"
awk -v x="$px" -v y="$py" 'BEGIN { exit !(x > 940 && x < 980 && y > 390 && y < 410) }' ||
  fail "the pen at (75%, 50%) of 1280x800 touched down at (${px:-?}, ${py:-?}), not near (960, 400)"
pressure=$(sed -n 's/^tablet-pressure //p' <<<"$pen" | sort -n | tail -n 1)
awk -v p="${pressure:-0}" 'BEGIN { exit !(p > 30000 && p < 48000) }' ||
  fail "the pen pressed at 600/1023 gave pressure ${pressure:-none}, not about 38000/65535"
echo "input: a pen at 75%,50% touched the window at $px,$py with pressure $pressure/65535 (tablet-v2)"

# --- hotplug --------------------------------------------------------------------
# udev initialises a new device before libinput takes it; on a busy host
# that has taken over 10 s under emulation, so only 60 s without it fails.
send keyboard kbd2
wait_for_log "input: keyboard baton-test kbd2 added" || fail "baton did not pick up a keyboard plugged in (60 s)"
m=$(mark)
send key kbd2 30
wait_probe "$m" "^key 30 pressed" || fail "the keyboard plugged in did not type into the focused window"
send destroy kbd2
wait_for_log "input: keyboard baton-test kbd2 removed" || fail "baton kept a keyboard that was unplugged (60 s)"
m=$(mark)
send key kbd 30
wait_probe "$m" "^key 30 pressed" || fail "the first keyboard stopped typing after the second left"
echo "input: a keyboard plugged in typed into the probe; unplugged, baton dropped it; the first still types"

kill $probe_pid 2>/dev/null
finish_baton
echo "input: PASS"
