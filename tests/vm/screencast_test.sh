#!/usr/bin/env bash
# Runs inside the guest: screen sharing end to end (tests/screencast: the
# portal's D-Bus calls as a browser makes them, PipeWire, a frame compared
# with baton's screenshot) with Debian 12's xdg-desktop-portal 1.16 and
# xdg-desktop-portal-wlr 0.7.0, once per place baton shows: `headless` (the
# Vulkan renderer on lavapipe naming the virtio-gpu render node) or a DRM
# driver's output (vkms, virtio_gpu; a seat from seatd, the Vulkan renderer).
# In each, baton's slots are dma-bufs, wlr-screencopy offers a dma-buf
# format, and xdpw 0.7 starts the share it refuses on the host: here a
# refusal fails.
#
# On a DRM output xdpw asks which output to share as it does out of the box
# (no xdpw config): slurp, the chooser it tries first, lays its overlay over
# every output and a uinput mouse clicks in it. virtio_gpu has two outputs
# (vm-run.sh --gpu-outputs 2): the click picks Virtual-2, where the animating
# window opened, and the stream must be Virtual-2's. vkms has one: the click
# picks it.
#
# usage: screencast_test.sh BATON VM_UINPUT OUT_DIR WHERE...
set -uo pipefail
baton=$1 uinput=$2 out=$3
shift 3
test_name=screencast
source "$(dirname "$0")/guest-test.sh"
render=$(drm_node virtio_gpu render) || fail "no render node for virtio-gpu: $render"
# Two shares in one VM: each client is guarded at 2 minutes, so a hang is
# reported with its reason before the VM runs out.
export BATON_EXE=$baton SCREENCAST_NO_SKIP=1 SCREENCAST_STEP_TIMEOUT=60 SCREENCAST_CLIENT_TIMEOUT=120
# A liveness bound: quietly 30-50 distinct frames in 3 s in the TCG guest, 12
# with both host cores busy; the stream must move, not keep that pace.
export SCREENCAST_MIN_FRAMES=4
export BATON_EXTRA_ARGS="--renderer vulkan --drm-device $render"
seat=0

# ui CMD...: one command to vm-uinput, answered "ok". Through fds 7 and 6 (a
# fifo each way) rather than a coprocess, whose fds bash keeps from children:
# the hooks below run in screencast.sh's children.
ui() {
  local reply
  echo "$*" >&7
  read -r -t 30 reply <&6 || { echo "vm-uinput did not answer '$*'" >&2; return 1; }
  [[ $reply == ok* ]] || { echo "vm-uinput: $reply" >&2; return 1; }
  [ -z "${UI_TRACE:-}" ] || echo "ui: $* -> $reply ($(date +%T.%N))" >&2
}
# point_at X Y: the pointer to a spot of the layout: into the top-left corner,
# then along (flat acceleration: it moves exactly as far as the mouse says).
point_at() {
  ui move mouse -120 -120 30 2 || return 1
  local x=$1 y=$2
  while [ "$x" -gt 0 ] || [ "$y" -gt 0 ]; do
    local dx=$((x > 100 ? 100 : x)) dy=$((y > 100 ? 100 : y))
    ui move mouse "$dx" "$dy" 1 2 || return 1
    x=$((x - dx)) y=$((y - dy))
  done
  sleep 0.2
}
# click_in_chooser X Y: once xdpw has started slurp, clicks at X,Y until it
# has gone (a click before its overlay maps lands on the desktop instead).
click_in_chooser() {
  for _ in $(seq 600); do pgrep -x slurp >/dev/null && break; sleep 0.1; done
  pgrep -x slurp >/dev/null || { echo "chooser: xdpw started no slurp in 60 s"; return 1; }
  echo "chooser: slurp is up; clicking at $1,$2"
  point_at "$1" "$2" || return 1
  for _ in $(seq 60); do
    sleep 0.5
    pgrep -x slurp >/dev/null || { echo "chooser: slurp has gone"; return 0; }
    ui press mouse 272 && ui release mouse 272 || return 1
  done
  echo "chooser: slurp still up after 60 clicks"
  return 1
}
export -f ui point_at click_in_chooser
export UI_TRACE=1

# The DRM shares' input: udev (libinput takes only devices it has seen), a
# uinput mouse, and baton told to move the pointer without acceleration.
input_ready=0
input() {
  unset WLR_LIBINPUT_NO_DEVICES
  source "$(dirname "$0")/guest-udev.sh"
  command -v slurp >/dev/null || fail "slurp is missing (tools/deps.sh --tests installs it)"
  local fifos
  fifos=$(mktemp -d) && mkfifo "$fifos/in" "$fifos/out" || fail "no fifos for vm-uinput"
  "$uinput" <"$fifos/in" >"$fifos/out" 2>&1 &
  exec 7>"$fifos/in" 6<"$fifos/out"
  ui mouse mouse || fail "no uinput mouse"
  udev_settle
  # Virtual-2 would take the largest of the kernel's no-EDID modes.
  printf '[[input]]\ntype = "pointer"\naccel_profile = "flat"\naccel = 0.0\n[[output]]\nname = "Virtual-2"\nmode = "1280x800"\n' \
    >"$out/screencast.toml"
  export BATON_EXTRA_ARGS="$BATON_EXTRA_ARGS --config $out/screencast.toml"
  input_ready=1
}

# share WHERE: one end-to-end run; its output and daemon logs in $out/WHERE/.
share() {
  local where=$1
  mkdir -p "$out/$where"
  unset SCREENCAST_BACKEND SCREENCAST_OUTPUT SCREENCAST_SIZE WLR_DRM_DEVICES SCREENCAST_CHOOSER \
    SCREENCAST_BEFORE_CLIENT SCREENCAST_CHOOSE SCREENCAST_SHOT_INDEX
  if [ "$where" != headless ]; then
    [ $seat = 1 ] || { source "$(dirname "$0")/guest-seat.sh"; seat=1; }
    [ $input_ready = 1 ] || input
    local node card connectors connector x y index
    node=$(drm_node "$where" card) || fail "no $where card: $node"
    card=$(basename "$node")
    # (No process substitution: the guest has no /dev/fd.)
    read -r -a connectors <<<"$(cd /sys/class/drm && echo "$card"-Virtual-*)"
    [ -e "/sys/class/drm/${connectors[0]}" ] || fail "no $where connector (Virtual-N) in sysfs"
    # The last output (side by side in the layout, 1280 wide each here).
    index=$((${#connectors[@]} - 1))
    connector=${connectors[index]}
    export WLR_DRM_DEVICES=$node SCREENCAST_BACKEND=drm SCREENCAST_OUTPUT=${connector#"$card"-}
    SCREENCAST_SIZE=$(head -n 1 /sys/class/drm/"$connector"/modes 2>/dev/null)
    [ "$index" = 0 ] || SCREENCAST_SIZE=1280x800
    [ -n "$SCREENCAST_SIZE" ] || fail "no mode for $connector in sysfs"
    # The middle of the output to share.
    x=$((1280 * index + ${SCREENCAST_SIZE%x*} / 2)) y=$((${SCREENCAST_SIZE#*x} / 2))
    export SCREENCAST_SIZE SCREENCAST_CHOOSER=default SCREENCAST_SHOT_INDEX=$index
    export SCREENCAST_BEFORE_CLIENT="point_at $x $y" SCREENCAST_CHOOSE="click_in_chooser $x $y"
    echo "---- $where: ${#connectors[@]} output(s); the chooser is to pick $SCREENCAST_OUTPUT"
  fi
  echo "---- screen sharing on $where"
  SCREENCAST_LOG_DIR=$out/$where "$(dirname "$0")/../screencast/screencast.sh" 2>&1 |
    tee "$out/$where/screencast.log"
  [ "${PIPESTATUS[0]}" = 0 ] ||
    fail "the share on $where did not pass: $(grep -m 1 'screencast: FAIL' "$out/$where/screencast.log")"
  if [ "$where" != headless ]; then
    local picked
    picked=$(sed -n 's/.*output chooser selects //p' "$out/$where/xdg-desktop-portal-wlr.log" | head -n 1)
    [ "$picked" = "$SCREENCAST_OUTPUT" ] ||
      fail "xdpw's chooser picked '${picked:-nothing}', not $SCREENCAST_OUTPUT where it was clicked"
    echo "screencast: on $where the chooser (slurp) picked $picked, where the mouse clicked"
  fi
  passed+=("$where")
}

# Counted, not assumed: bash aborts a function on an expansion error (an
# unset variable) and goes on with the loop.
passed=()

for where in "$@"; do share "$where"; done
[ $seat = 1 ] && stop_seat
[ "${passed[*]}" = "$*" ] || fail "passed on '${passed[*]}' only, of $*"
echo "screencast: PASS on $*"
