#!/usr/bin/env bash
# Screen sharing end to end, the way desktop users get it: a private session
# bus, PipeWire + WirePlumber, baton headless with an animating client,
# xdg-desktop-portal + xdg-desktop-portal-wlr on baton's socket, and
# portal_client.py going through the ScreenCast portal like a browser and
# comparing the PipeWire frames with baton's own screenshot.
# Needs BATON_EXE; the packages are in tools/deps.d/tests/screencast.list.
# BATON_EXTRA_ARGS: more baton options (words), e.g. the Vulkan renderer and
# a render node (tests/vm/screencast_test.sh); SCREENCAST_NO_SKIP=1 makes the
# skip below a failure (where a dma-buf capable renderer is expected).
# SCREENCAST_BACKEND=drm runs baton on the DRM backend (a seat and
# WLR_DRM_DEVICES ready) with SCREENCAST_OUTPUT (its connector) of
# SCREENCAST_SIZE (its mode) shared, instead of a 640x480 headless output.
# SCREENCAST_CHOOSER: `none` (the default) gives xdpw a config that shares
# SCREENCAST_OUTPUT without asking; `default` gives it none, so it asks as it
# does out of the box (slurp, else wofi, else bemenu, else the first output).
# SCREENCAST_BEFORE_CLIENT: a command run once baton is up, before the
# animating client starts (e.g. putting the pointer on the output to share,
# where the window then opens). SCREENCAST_CHOOSE: a command run in the
# background while the portal client runs (e.g. clicking in the chooser).
# SCREENCAST_SHOT_INDEX: the output whose screenshot the stream must equal
# (0, the first, unless told; baton writes output N's as baton-N.png).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${BATON_EXE:?BATON_EXE must name the baton binary}"
step_timeout=${SCREENCAST_STEP_TIMEOUT:-15}
# Debian's portal backend unless told otherwise (e.g. a newer upstream build).
xdpw=${XDPW_EXE:-/usr/libexec/xdg-desktop-portal-wlr}
backend=${SCREENCAST_BACKEND:-headless}
size=${SCREENCAST_SIZE:-640x480}
output=${SCREENCAST_OUTPUT:-HEADLESS-1}
background='#204060'
socket=baton-screencast

# A short path: the bus and PipeWire sockets live in it (108-byte limit).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/baton-screencast.XXXXXX")
run=$scratch/run
mkdir -m 700 "$run"
mkdir -p "$scratch/config/xdg-desktop-portal-wlr"

# Nothing of the calling user's session leaks in: no systemd user session is
# needed, every daemon finds the others through this runtime dir and bus.
export XDG_RUNTIME_DIR=$run
export XDG_CONFIG_HOME=$scratch/config XDG_STATE_HOME=$scratch/state
export XDG_CACHE_HOME=$scratch/cache XDG_DATA_HOME=$scratch/data
# What baton gives its session (compositor/launcher.cpp): xdg-desktop-portal
# 1.16 picks backends whose UseIn lists one of these desktops
# (/usr/share/xdg-desktop-portal/portals/wlr.portal lists wlroots).
export XDG_CURRENT_DESKTOP=baton:wlroots
export DBUS_SESSION_BUS_ADDRESS=unix:path=$run/bus
unset WAYLAND_DISPLAY DISPLAY PIPEWIRE_REMOTE PIPEWIRE_RUNTIME_DIR

# No chooser: xdpw shares the named output straight away.
if [ "${SCREENCAST_CHOOSER:-none}" = none ]; then
  cat >"$scratch/config/xdg-desktop-portal-wlr/config" <<EOF
[screencast]
chooser_type=none
output_name=$output
EOF
fi
shot=$scratch/baton.png
index=${SCREENCAST_SHOT_INDEX:-0}
[ "$index" = 0 ] || shot=$scratch/baton-$index.png

names=() pids=()
start() {  # start NAME CMD...: runs CMD in the background, its log in $scratch/NAME.log
  local name=$1
  shift
  "$@" >"$scratch/$name.log" 2>&1 &
  names+=("$name") pids+=($!)
  echo "screencast: started $name (pid $!)"
}

dump_logs() {
  for name in "${names[@]}"; do
    echo "----- $name.log (last 60 lines) -----"
    tail -n 60 "$scratch/$name.log" || true
  done
}

stop_pid() {  # TERM, then KILL after 3 s; CONT wakes a process the client froze
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  kill -CONT "$pid" 2>/dev/null || true
  for _ in $(seq 30); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  trap - EXIT
  # 77 is the skip below: it printed its reason.
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then dump_logs; fi
  # Services the bus started on demand (xdg-permission-store, ...) are the
  # bus daemon's children: stopped before it, by their ids.
  local activated=()
  if [ -n "${bus_pid:-}" ] && [ -r "/proc/$bus_pid/task/$bus_pid/children" ]; then
    read -r -a activated <"/proc/$bus_pid/task/$bus_pid/children" || true
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    [ "${pids[i]}" = "${bus_pid:-}" ] && for pid in "${activated[@]}"; do stop_pid "$pid"; done
    stop_pid "${pids[i]}"
  done
  wait 2>/dev/null || true
  # SCREENCAST_LOG_DIR: the daemons' logs, baton's screenshot and the
  # compared stream frame (stream.png) are kept there.
  [ -n "${SCREENCAST_LOG_DIR:-}" ] && cp "$scratch"/*.log "$scratch"/*.png "$SCREENCAST_LOG_DIR"/ 2>/dev/null
  rm -rf "$scratch"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "screencast: FAIL: $*" >&2
  exit 1
}

wait_for() {  # wait_for WHAT CHECK...: polls CHECK for up to $step_timeout s
  local what=$1
  shift
  for _ in $(seq $((step_timeout * 10))); do
    if "$@" >/dev/null 2>&1; then
      echo "screencast: $what: ready"
      return 0
    fi
    # A daemon that died will never become ready.
    for i in "${!pids[@]}"; do
      kill -0 "${pids[i]}" 2>/dev/null || fail "$what: ${names[i]} exited"
    done
    sleep 0.1
  done
  fail "$what: not ready after ${step_timeout} s"
}

bus_name_owned() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner "string:$1" | grep -q 'boolean true'
}

wireplumber_connected() {
  pw-cli ls Client | grep -qi wireplumber
}

started=$SECONDS

start dbus dbus-daemon --session --nofork --address="$DBUS_SESSION_BUS_ADDRESS"
bus_pid=${pids[-1]}
wait_for "session bus" test -S "$run/bus"

start pipewire pipewire
wait_for "pipewire" test -S "$run/pipewire-0"
start wireplumber wireplumber
wait_for "wireplumber" wireplumber_connected

# --screenshot only arms SIGUSR1 here: the automatic one waits ten minutes.
read -r -a extra_args <<<"${BATON_EXTRA_ARGS:-}"
backend_args=(--backend "$backend")
[ "$backend" = headless ] && backend_args+=(--headless-size "$size")
start baton "$BATON_EXE" "${backend_args[@]}" --socket "$socket" \
  --background "$background" --xwayland off --screenshot "$scratch/baton.png" \
  --screenshot-delay 600000 --startup "touch '$scratch/baton-ready'" "${extra_args[@]}"
baton_pid=${pids[-1]}
wait_for "baton" test -e "$scratch/baton-ready"

export WAYLAND_DISPLAY=$socket
if [ -n "${SCREENCAST_BEFORE_CLIENT:-}" ]; then
  bash -c "$SCREENCAST_BEFORE_CLIENT" || fail "SCREENCAST_BEFORE_CLIENT failed: $SCREENCAST_BEFORE_CLIENT"
fi
start weston-simple-shm weston-simple-shm
animator_pid=${pids[-1]}

start xdg-desktop-portal-wlr "$xdpw" --loglevel=DEBUG
wait_for "xdg-desktop-portal-wlr" bus_name_owned org.freedesktop.impl.portal.desktop.wlr
start xdg-desktop-portal /usr/libexec/xdg-desktop-portal --verbose
wait_for "xdg-desktop-portal" bus_name_owned org.freedesktop.portal.Desktop

# The client is bounded by per-step timeouts; this guards it as a whole
# (its steps: start, the chooser, frames, the still screen, the screenshot).
# Debian's python3: python3-dbus and python3-gi live there.
[ -n "${SCREENCAST_CHOOSE:-}" ] && start chooser bash -c "$SCREENCAST_CHOOSE"
status=0
timeout "${SCREENCAST_CLIENT_TIMEOUT:-$((step_timeout * 6 + 30))}" /usr/bin/python3 "$here/portal_client.py" --baton-pid "$baton_pid" \
  --screenshot "$shot" --animator-pid "$animator_pid" --size "$size" \
  --timeout "$step_timeout" --save-frame "$scratch/stream.png" \
  --min-frames "${SCREENCAST_MIN_FRAMES:-10}" || status=$?

# xdg-desktop-portal-wlr 0.7 (Debian 12 and 13) refuses to Start unless
# screencopy also offers a dma-buf (upstream issue #289; 0.8.0 dropped the
# check). wlroots offers one only when baton's outputs have a dma-buf
# allocator, i.e. a GPU render node; without one no share can start: skip,
# saying so, rather than fail on what this machine lacks.
no_dmabuf_line='unable to receive a valid format from wlr_screencopy'
if [ "$status" -ne 0 ] && [ "${SCREENCAST_NO_SKIP:-0}" != 1 ] &&
  grep -q "$no_dmabuf_line" "$scratch/xdg-desktop-portal-wlr.log" &&
  grep -q 'linux-dmabuf-v1 off' "$scratch/baton.log"; then
  package=$(dpkg-query -W -f='${Version}' xdg-desktop-portal-wlr 2>/dev/null || true)
  echo "screencast: SKIP (the FAIL above is why): $xdpw" \
    "(Debian package ${package:-absent}) refused to start the share:"
  grep -F "$no_dmabuf_line" "$scratch/xdg-desktop-portal-wlr.log"
  echo "screencast: baton has no dma-buf capable renderer here (no GPU render node):"
  grep -F 'linux-dmabuf-v1' "$scratch/baton.log"
  echo "screencast: xdg-desktop-portal-wlr 0.7 needs one; run with a GPU or XDPW_EXE=<xdpw >= 0.8>"
  exit 77
fi
# The consumer keeping every buffer: the portal then skips captures until one
# comes back (a stream that lags; its last picture can stay undelivered).
echo "screencast: xdg-desktop-portal-wlr ran out of PipeWire buffers" \
  "$(grep -c 'out of buffers' "$scratch/xdg-desktop-portal-wlr.log") times"
[ "$status" -eq 0 ] || fail "portal client (status $status; its output above, daemon logs below)"

# Which buffers the stream used: xdg-desktop-portal-wlr logs the type it
# negotiated with the consumer (0: wl_shm into PipeWire memfds, 1: dma-buf).
case $(sed -n 's/.*buffer_type: \([0-9]*\).*/\1/p' "$scratch/xdg-desktop-portal-wlr.log" | head -n 1) in
  0) echo "screencast: the stream's buffers: shm (PipeWire memfds; baton copies into wl_shm)" ;;
  1) echo "screencast: the stream's buffers: dma-buf (baton copies into the client's dma-bufs)" ;;
  *) echo "screencast: the stream's buffer type is not in xdg-desktop-portal-wlr's log" ;;
esac

echo "screencast: PASS in $((SECONDS - started)) s"
