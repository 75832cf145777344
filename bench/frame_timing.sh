#!/usr/bin/env bash
# The frame-timing benchmark: how long a client's commit takes to reach the
# screen, and how often it misses the first vblank after it, depending on
# when in the frame the client commits. Runs inside the qemu guest on vkms
# (DRM backend; vkms' vblank is an hrtimer at 60 Hz, a real vblank).
#
# For each compositor setup below, baton-latency-client runs once per delay
# D (ms after its frame callback before it draws and commits: early, middle
# and late in the 16.7 ms frame), then once with wp_commit_timing_v1 targets
# (--target-offset 0.5, --past-target; a SKIP where the compositor lacks the
# protocol):
#   baton --renderer pixman, --render-deadline auto and off
#   baton --renderer vulkan (lavapipe), --render-deadline auto and off
#     (baton without --render-deadline: one run each, deadline "-")
#   sway 1.7 (Debian 12, wlroots 0.15), WLR_RENDERER=pixman
#   Weston (--backend=drm --renderer=pixman)
# All on vkms' Virtual-1 at 640x480 (vkms and the renderers all compose on
# the guest's two emulated CPUs). Prints one table (compositor, renderer,
# deadline, D, median and p90 commit->present, missed %) and writes it to
# OUT/frame-timing.txt; logs and each client's line go to OUT too.
#
# usage: frame_timing.sh BATON CLIENT OUT [SETUPS]
#   SETUPS: comma-separated subset of baton-pixman,baton-vulkan,sway,weston
#   (default all). env: FRAME_TIMING_FRAMES (90), FRAME_TIMING_WARMUP (30),
#   FRAME_TIMING_DELAYS ("0 4 8 12 14").
# From the host (meson benchmark, not part of the test suite):
#   meson test -C build --benchmark frame-timing
# or by hand (no virtio-gpu: vkms is the only card):
#   tests/vm/vm-run.sh --cache build/tests/vm/cache --lavapipe --modules vkms \
#     --timeout 590 --share OUT -- bench/frame_timing.sh \
#     build/compositor/baton build/tests/clients/baton-latency-client OUT
set -uo pipefail
baton=$(realpath "$1") client=$(realpath "$2") out=$3 setups=${4:-baton-pixman,baton-vulkan,sway,weston}
frames=${FRAME_TIMING_FRAMES:-90} warmup=${FRAME_TIMING_WARMUP:-30}
read -r -a delays <<<"${FRAME_TIMING_DELAYS:-0 4 8 12 14}"
mkdir -p "$out"
out=$(realpath "$out")
test_name=frame-timing
source "$(dirname "$(realpath "$0")")/../tests/vm/guest-test.sh"
table=$out/frame-timing.txt
rows=$out/frame-timing-rows.txt
: >"$rows"

card=$(drm_node vkms card) || fail "no vkms card (boot with --modules vkms): $card"
connector=$(cd /sys/class/drm && ls -d "$(basename "$card")"-Virtual-* | head -n 1)
connector=${connector#*-}
echo "frame-timing: vkms is $card, connector $connector; $frames frames per cell after $warmup warm-up"

# seatd: root's socket for baton and Weston; for sway, whose user must
# reach it, owned by that user.
seatd_pid=
start_seat() {  # [USER]
  stop_seat
  rm -f /run/seatd.sock
  if [ -n "${1:-}" ]; then seatd -l error -u "$1" -g "$1" & else seatd -l error & fi
  seatd_pid=$!
  for _ in $(seq 100); do [ -S /run/seatd.sock ] && return 0; sleep 0.05; done
  fail "seatd did not create /run/seatd.sock"
}
stop_seat() {
  [ -n "$seatd_pid" ] || return 0
  kill "$seatd_pid" 2>/dev/null
  wait "$seatd_pid" 2>/dev/null
  seatd_pid=
}
export LIBSEAT_BACKEND=seatd WLR_LIBINPUT_NO_DEVICES=1
export XDG_RUNTIME_DIR=/run/frame-timing
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

field() { sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<"$2"; }

# Runs the client's cells against WAYLAND_DISPLAY (in XDG_RUNTIME_DIR).
# COMPOSITOR RENDERER DEADLINE TAG
run_cells() {
  local comp=$1 renderer=$2 deadline=$3 tag=$4 d line rc f
  for d in "${delays[@]}" target past; do
    case $d in
      target) args=(--target-offset 0.5) label=T0.5 ;;
      past) args=(--past-target) label=past ;;
      *) args=(--delay "$d") label=$d ;;
    esac
    f=$out/frame-timing-$tag-$label.out
    timeout 120 "$client" "${args[@]}" --frames "$frames" --warmup "$warmup" --size 128x128 \
      >"$f" 2>&1
    rc=$?
    line=$(grep -a "^latency-client:" "$f" | tail -n 1)
    echo "frame-timing: $tag D=$label: ${line:-(no output, status $rc)}"
    if [ $rc = 0 ]; then
      local extra=
      if [ "$d" = target ] || [ "$d" = past ]; then
        extra="early $(field early "$line"), late $(field late "$line"), on time $(field on_time_pct "$line") %"
      fi
      printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' "$comp" "$renderer" \
        "$deadline" "$label" "$(field median_ms "$line")" "$(field p90_ms "$line")" \
        "$(field missed_pct "$line")" "$extra" >>"$rows"
    elif [ $rc = 2 ] && grep -q "SKIP" <<<"$line"; then
      printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' "$comp" "$renderer" \
        "$deadline" "$label" - - - "skip: no wp_commit_timing_manager_v1" >>"$rows"
    else
      [ $rc = 124 ] && line="timed out after 120 s"
      printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' "$comp" "$renderer" \
        "$deadline" "$label" - - - "FAIL (status $rc): ${line:-$(tail -n 1 "$f")}" >>"$rows"
    fi
  done
}

wait_for() {  # LOG PID PATTERN SECONDS: PATTERN in LOG, or PID gone
  local i
  for i in $(seq $(($4 * 20))); do
    grep -aq "$3" "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

stop_pid() {  # PID: SIGTERM, then SIGKILL after 10 s
  kill -TERM "$1" 2>/dev/null
  for _ in $(seq 200); do kill -0 "$1" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

printf '[[output]]\nname = "*"\nmode = "640x480"\n' >"$out/frame-timing-baton.toml"
baton_has_deadline=no
# Not `--help | grep -q`: under pipefail grep's early exit fails the pipe.
help=$("$baton" --help 2>&1)
[[ $help == *--render-deadline* ]] && baton_has_deadline=yes
echo "frame-timing: baton $("$baton" --version 2>/dev/null | head -n 1); --render-deadline: $baton_has_deadline"

run_baton() {  # RENDERER DEADLINE (auto | off | MS | -)
  local renderer=$1 deadline=$2 tag=baton-$1-${2/#-/none} extra=()
  [ "$deadline" != - ] && extra=(--render-deadline "$deadline")
  local log=$out/frame-timing-$tag.log
  start_seat
  export WAYLAND_DISPLAY=ft-$tag
  WLR_DRM_DEVICES=$card "$baton" --backend drm --renderer "$renderer" --socket "$WAYLAND_DISPLAY" \
    --config "$out/frame-timing-baton.toml" "${extra[@]}" >"$log" 2>&1 &
  local pid=$!
  if wait_for "$log" $pid "running on WAYLAND_DISPLAY" 60; then
    run_cells baton "$renderer" "$deadline" "$tag"
  else
    tail -n 20 "$log"
    printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' baton "$renderer" "$deadline" \
      - - - - "FAIL: baton did not start: $(tail -n 1 "$log")" >>"$rows"
  fi
  stop_pid $pid
  stop_seat
}

run_sway() {
  command -v sway >/dev/null || {
    printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' sway pixman - - - - - \
      "not installed (tools/deps.d/tests/bench.list)" >>"$rows"
    return
  }
  # sway refuses to run as root (it checks that it cannot get root back):
  # a user of its own, made in the guest's overlay (fresh shadow files, as
  # tests/vm/login_test.sh does: the host's may not be readable).
  if ! id ftuser >/dev/null 2>&1; then
    { rm -f /etc/shadow /etc/gshadow && pwconv && grpconv &&
      useradd -M -d /run/ftuser -s /bin/sh ftuser; } >"$out/frame-timing-useradd.log" 2>&1 ||
      fail "useradd: $(tail -n 1 "$out/frame-timing-useradd.log")"
  fi
  local uid runtime log=$out/frame-timing-sway.log conf=/run/ftuser/sway.conf
  uid=$(id -u ftuser)
  runtime=/run/user/$uid
  mkdir -p "$runtime" /run/ftuser && chown ftuser: "$runtime" /run/ftuser && chmod 700 "$runtime"
  cat >"$conf" <<EOF
output * mode 640x480
for_window [app_id="baton-latency-client"] floating enable
default_border none
exec touch /run/ftuser/sway-ready
EOF
  chown ftuser: "$conf"
  : >"$log" && chmod 666 "$log"
  rm -f /run/ftuser/sway-ready
  start_seat ftuser
  setpriv --reuid="$uid" --regid="$uid" --init-groups env -i PATH="$PATH" HOME=/run/ftuser \
    XDG_RUNTIME_DIR="$runtime" LIBSEAT_BACKEND=seatd WLR_BACKENDS=drm WLR_RENDERER=pixman \
    WLR_DRM_DEVICES="$card" WLR_LIBINPUT_NO_DEVICES=1 sway -c "$conf" >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1200); do
    [ -e /run/ftuser/sway-ready ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
  done
  local socket
  socket=$(cd "$runtime" 2>/dev/null && ls wayland-* 2>/dev/null | grep -v lock | head -n 1)
  if [ -e /run/ftuser/sway-ready ] && [ -n "$socket" ]; then
    # The client runs as root on sway's socket (root reaches the user's
    # runtime directory), like the other compositors' clients.
    XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=$socket run_cells sway pixman - sway-pixman
  else
    tail -n 20 "$log"
    printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' sway pixman - - - - - \
      "FAIL: sway did not start: $(grep -a -m1 -iE 'error|fail|refus' "$log" || tail -n 1 "$log")" >>"$rows"
  fi
  stop_pid $pid
  stop_seat
}

run_weston() {
  command -v weston >/dev/null || {
    printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' weston pixman - - - - - \
      "not installed" >>"$rows"
    return
  }
  local log=$out/frame-timing-weston.log ini=$out/frame-timing-weston.ini
  printf '[core]\nidle-time=0\n[shell]\npanel-position=none\n[output]\nname=%s\nmode=640x480\n' \
    "$connector" >"$ini"
  start_seat
  export WAYLAND_DISPLAY=ft-weston
  weston --backend=drm --renderer=pixman --drm-device="$(basename "$card")" \
    --continue-without-input --socket="$WAYLAND_DISPLAY" --config="$ini" --log="$log" \
    >"$log.stdout" 2>&1 &
  local pid=$!
  for _ in $(seq 1200); do
    [ -S "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
  done
  if [ -S "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" ] && kill -0 $pid 2>/dev/null; then
    sleep 1  # desktop-shell's helper client maps its background
    run_cells weston pixman - weston-pixman
  else
    tail -n 20 "$log" "$log.stdout"
    printf '| %-6s | %-6s | %-4s | %-4s | %6s | %6s | %6s | %s |\n' weston pixman - - - - - \
      "FAIL: weston did not start: $(grep -a -m1 -iE 'error|fail|fatal' "$log" "$log.stdout" | head -n 1)" >>"$rows"
  fi
  stop_pid $pid
  stop_seat
}

IFS=, read -r -a wanted <<<"$setups"
for setup in "${wanted[@]}"; do
  case $setup in
    baton-pixman | baton-vulkan)
      if [ $baton_has_deadline = yes ]; then
        run_baton "${setup#baton-}" auto
        run_baton "${setup#baton-}" off
      else
        run_baton "${setup#baton-}" -
      fi
      ;;
    sway) run_sway ;;
    weston) run_weston ;;
    *) fail "unknown setup $setup" ;;
  esac
done

{
  echo "frame-timing on vkms $connector 640x480@60 (qemu TCG guest): commit -> present of a 128x128 wl_shm window,"
  echo "D ms after each frame callback; $frames frames per cell after $warmup warm-up. missed: not shown at the first"
  echo "vblank after the commit. T0.5: wp_commit_timing_v1 target half a refresh past a vblank; past: a target in the past."
  echo "baton: $baton (--render-deadline $baton_has_deadline)"
  echo
  echo '| comp.  | render | dl   | D    | median | p90    | miss % | notes |'
  echo '|--------|--------|------|------|--------|--------|--------|-------|'
  cat "$rows"
} >"$table"
cat "$table"
