#!/usr/bin/env bash
# Runs inside the guest: baton on a virtio-gpu card with two outputs
# (Virtual-1 and Virtual-2), driven by a uinput mouse and keyboard. What each
# output's CRTC scans out is the oracle (vm-scanout-dump ... CONNECTOR):
# - the two outputs side by side in the layout (wlr-randr);
# - a window opens on the output the pointer is on;
# - a workspace per output: Super+2 there hides its window, the other
#   output's stays; Super+1 brings it back;
# - a window dragged (Super + left button) from one output to the other;
# - wlr-randr --off on an output moves its window to the other output, where
#   it keeps presenting; --on brings the output back, empty, and the moved
#   window stays where it went;
# - an output configured off is never lit, and a config reload lights it.
#
# usage: outputs_test.sh BATON VM_UINPUT INPUT_PROBE SCANOUT_DUMP COLOUR_CHECK OUT_DIR
set -uo pipefail
baton=$1 uinput=$2 probe=$3 dump=$4 check=$5 out=$6
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=outputs
source "$here/guest-test.sh"
source "$here/guest-seat.sh"
unset WLR_LIBINPUT_NO_DEVICES
source "$here/guest-udev.sh"
source "$here/guest-uinput.sh"
send mouse mouse
send keyboard kbd
udev_settle
command -v wlr-randr >/dev/null || fail "wlr-randr is missing (tools/deps.sh --tests installs it)"

# Flat acceleration: the pointer moves exactly as far as the mouse says.
# Virtual-2 is forced on (vm-run.sh) and would take the largest of the
# kernel's no-EDID modes: the same size as Virtual-1.
printf '[[input]]\ntype = "pointer"\naccel_profile = "flat"\naccel = 0.0\n[[output]]\nname = "Virtual-2"\nmode = "1280x800"\n' \
  >"$out/outputs.toml"
export WAYLAND_DISPLAY=baton-outputs
launch_baton "$out/outputs-baton.log" \
  "$baton" --backend drm --renderer pixman --socket "$WAYLAND_DISPLAY" --config "$out/outputs.toml"

randr=$(wlr-randr 2>&1)
for name in Virtual-1 Virtual-2; do
  grep -q "^$name" <<<"$randr" || fail "wlr-randr does not list $name: $randr"
done
positions=$(grep -o "Position: [0-9]*,[0-9]*" <<<"$randr" | tr '\n' ' ')
echo "outputs: wlr-randr lists Virtual-1 and Virtual-2, at $positions"
[ "$positions" = "Position: 0,0 Position: 1280,0 " ] || fail "the outputs are not side by side: $positions"

shows() {  # OUTPUT COLOUR: OUTPUT's CRTC shows COLOUR (a 400x300 window's worth)
  "$dump" virtio_gpu "$out/outputs-$1.png" "Virtual-$1" >/dev/null &&
    "$check" "$out/outputs-$1.png" "$2" 100000 >/dev/null
}
expect() {  # OUTPUT(1|2) COLOUR yes|no WHAT
  local seen=no
  for _ in $(seq 100); do
    if shows "$1" "$2"; then seen=yes; else seen=no; fi
    [ $seen = "$3" ] && return 0
    sleep 0.2
  done
  cp "$out/outputs-$1.png" "$out/outputs-failed.png" 2>/dev/null
  fail "$4 (Virtual-$1, $2 seen: $seen; picture in outputs-failed.png)"
}
# Pointer to an absolute spot: into the top-left corner, then along.
point_at() {
  send move mouse -120 -120 30 2
  local x=$1 y=$2
  while [ "$x" -gt 0 ] || [ "$y" -gt 0 ]; do
    local dx=$((x > 100 ? 100 : x)) dy=$((y > 100 ? 100 : y))
    send move mouse "$dx" "$dy" 1 2
    x=$((x - dx)) y=$((y - dy))
  done
  sleep 0.2
}
start_probe() {  # COLOUR: a 400x300 window that redraws every frame
  "$probe" --windowed --animate --colour "$1" >"$out/outputs-probe-$1.txt" 2>&1 &
  probe_pids+=($!)
  for _ in $(seq 200); do grep -q "^ready" "$out/outputs-probe-$1.txt" && break; sleep 0.1; done
  grep -q "^ready" "$out/outputs-probe-$1.txt" || fail "the $1 window did not appear"
}
probe_pids=()
green=20c040 blue=2060e0 amber=e0a020

point_at 640 400
start_probe $green
expect 1 $green yes "the first window is not on Virtual-1, where the pointer is"
expect 2 $green no "the first window is on Virtual-2 too"
point_at 1920 400
start_probe $blue
expect 2 $blue yes "a window opened with the pointer on Virtual-2 is not there"
expect 1 $blue no "a window opened with the pointer on Virtual-2 is on Virtual-1"
echo "outputs: each window opened on the output the pointer was on"

# Super+2 on Virtual-2 (where the pointer is): its workspace 2, empty.
super_key() { send press kbd 125; send key kbd "$1"; send release kbd 125; }
super_key 3   # KEY_2
expect 2 $blue no "workspace 2 of Virtual-2 still shows its workspace 1 window"
expect 1 $green yes "switching Virtual-2's workspace hid Virtual-1's window"
super_key 2   # KEY_1
expect 2 $blue yes "back on workspace 1, Virtual-2's window did not come back"
echo "outputs: Super+2 on Virtual-2 showed its empty workspace 2 while Virtual-1 kept its window; Super+1 brought it back"

# Drag the blue window (centred on Virtual-2) by its middle onto Virtual-1.
point_at 1920 400
send press kbd 125
send press mouse 272
for _ in $(seq 13); do send move mouse -100 0 1 8; done
send release mouse 272
send release kbd 125
expect 1 $blue yes "the dragged window did not arrive on Virtual-1"
expect 2 $blue no "the dragged window is still on Virtual-2"
echo "outputs: a window dragged with Super+button went from Virtual-2 to Virtual-1"

# A window on Virtual-2, then Virtual-2 off: the window must move, not vanish.
point_at 1920 400
start_probe $amber
expect 2 $amber yes "the third window is not on Virtual-2"
off=$(wlr-randr --output Virtual-2 --off 2>&1) || fail "wlr-randr --off failed: $off"
wlr-randr 2>&1 | grep -A8 "^Virtual-2" | grep -q "Enabled: no" || fail "wlr-randr still shows Virtual-2 on"
expect 1 $amber yes "turning Virtual-2 off lost its window (not on Virtual-1)"
frames_before=$(sed -n 's/^frames //p' "$out/outputs-probe-$amber.txt" | tail -n 1)
# The probe prints every 10th frame: wait for the next such line (30 s).
for _ in $(seq 300); do
  frames_after=$(sed -n 's/^frames //p' "$out/outputs-probe-$amber.txt" | tail -n 1)
  [ "${frames_after:-0}" -gt "${frames_before:-0}" ] && break
  sleep 0.1
done
[ "${frames_after:-0}" -gt "${frames_before:-0}" ] ||
  fail "the window moved off Virtual-2 stopped presenting ($frames_before -> $frames_after frames)"
echo "outputs: Virtual-2 off: its window moved to Virtual-1 and presents there ($frames_before -> $frames_after frames)"
# Where and how: a client learns neither for an output that is off (the
# protocol sends no position or mode for it), and wlr-randr --on alone would
# put it at 0,0, over Virtual-1 (it comes back in its preferred mode).
on=$(wlr-randr --output Virtual-2 --on --pos 1280,0 2>&1) || fail "wlr-randr --on failed: $on"
wlr-randr 2>&1 | grep -A8 "^Virtual-2" | grep -q "Enabled: yes" || fail "wlr-randr does not show Virtual-2 on again"
expect 2 $amber no "Virtual-2 on again shows a window that moved away"
expect 1 $amber yes "the window moved to Virtual-1 is gone after Virtual-2 came back"
for pid in "${probe_pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a window's client died"; done
echo "outputs: Virtual-2 on again; all three windows still there"

kill "${probe_pids[@]}" 2>/dev/null
finish_baton

# Configured off from the start: Virtual-2 is never lit (no modeset for it
# in baton's log), and it still comes on later. The kernel gave it no mode
# yet, so baton picks its preferred one (wlroots refuses an output without).
printf '[[output]]\nname = "Virtual-2"\nenabled = false\n' >"$out/outputs-off.toml"
source "$here/guest-seat.sh"  # finish_baton stopped seatd
launch_baton "$out/outputs-off-baton.log" "$baton" --backend drm --renderer pixman \
  --socket "$WAYLAND_DISPLAY" --config "$out/outputs-off.toml" --background "#$amber"
wlr-randr 2>&1 | grep -A8 "^Virtual-2" | grep -q "Enabled: no" ||
  fail "Virtual-2, configured off, is on: $(wlr-randr 2>&1)"
! grep -q "connector Virtual-2: Modesetting" "$out/outputs-off-baton.log" ||
  fail "Virtual-2, configured off, was lit first: $(grep 'Virtual-2: Modesetting' "$out/outputs-off-baton.log")"
# On by a config reload that names no mode (wlr-randr --on would send one).
printf '[[output]]\nname = "Virtual-2"\nenabled = true\nposition = [1280, 0]\n' >"$out/outputs-off.toml"
kill -HUP "$baton_pid"
wait_for_log "configuration reloaded" 30 >/dev/null || fail "baton did not reload its config"
expect 2 $amber yes "Virtual-2, turned on by the reload, does not show baton's background"
wlr-randr 2>&1 | grep -A8 "^Virtual-2" | grep -q "Enabled: yes" || fail "wlr-randr does not show Virtual-2 on"
echo "outputs: Virtual-2 configured off was never lit; a reload with enabled = true lit it"
finish_baton
echo "outputs: PASS"
