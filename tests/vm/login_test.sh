#!/usr/bin/env bash
# Runs inside the guest: a real login. baton is installed with meson install
# (to /usr/local in the guest's overlay); greetd, Debian's display manager,
# logs an ordinary user in on VT 1 and starts the session from the installed
# baton.desktop, whose Exec line it runs, unchanged. The seat comes from
# SEAT_MANAGER:
# - logind: the guest runs systemd (vm-run.sh --systemd), which starts greetd
#   as display-manager.service, the way a boot does; greetd's PAM stack
#   (pam_systemd) opens a logind session on seat0, VT 1, and baton takes its
#   devices from logind through libseat, with no environment of its own;
# - seatd: no systemd (the busybox guest): seatd runs, the user is in its
#   group, and the test makes the runtime directory logind would have made.
# Then:
# - baton runs as that user, on virtio-gpu, logging to the session log;
#   foot started in the session shows on the CRTC (login-SEAT_MANAGER-session.png);
# - a VT switch away and back inside the session (login-SEAT_MANAGER-vt-before.png,
#   login-SEAT_MANAGER-vt-after.png) leaves foot on the screen;
# - the exit binding (Super+Shift+E, typed on a uinput keyboard) ends the
#   session and greetd's greeter (agreety) takes VT 1 again;
# - a second login, typed at the greeter, starts baton again.
#
# usage: login_test.sh BUILD_DIR VM_UINPUT SCANOUT_DUMP OUT_DIR SEAT_MANAGER
set -uo pipefail
build=$1 uinput=$2 dump=$3 out=$4 seat_manager=$5
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name="login ($seat_manager)"
source "$here/guest-test.sh"
# What fail shows besides the tail of baton's log: greetd's and logind's
# side, and VT 1.
fail_hook() {
  [ -f "$log" ] && cp "$log" "$out/login-$seat_manager-baton.log"
  [ -f "$out/login-$seat_manager-greetd.log" ] && tail -n 10 "$out/login-$seat_manager-greetd.log"
  [ "$seat_manager" = logind ] && journalctl -b --no-pager -n 30 -u systemd-logind -u greetd
  # What VT 1's text console shows (the greeter's prompts and errors).
  [ -r /dev/vcs1 ] && echo "VT 1:" && fold -w 160 /dev/vcs1 | sed 's/ *$//' | grep .
}
case $seat_manager in
  logind)
    [ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd: run the guest with vm-run.sh --systemd"
    systemctl is-active --quiet systemd-logind || fail "systemd-logind is not running"
    udev_settle() { udevadm settle --timeout=60 || fail "udev did not settle"; }
    ;;
  seatd) source "$here/guest-udev.sh" ;;
  *) fail "unknown seat manager '$seat_manager' (logind or seatd)" ;;
esac
source "$here/guest-uinput.sh"
send keyboard kbd
udev_settle

# As an administrator would: meson install, then the user and the greeter.
meson install -C "$build" --no-rebuild --quiet >"$out/login-$seat_manager-install.log" 2>&1 ||
  { tail -n 5 "$out/login-$seat_manager-install.log"; fail "meson install failed"; }
ldconfig
session=/usr/local/share/wayland-sessions/baton.desktop
[ -x /usr/local/bin/baton ] && [ -f "$session" ] || fail "meson install did not install baton and $session"
# The guest sees the host's root with the rights of whoever runs the tests,
# who may not read the shadow files (CI does not): fresh ones, made from
# passwd and group, let useradd and PAM work.
rm -f /etc/shadow /etc/gshadow && pwconv && grpconv || fail "cannot make fresh shadow files"
# greetd in the guest only (vm-run.sh --deb): installed on the test machine
# it would become its display manager.
[ -n "${BATON_VM_DEBS:-}" ] || fail "no greetd package: run the guest with vm-run.sh --deb greetd"
# man-db's trigger would re-index every manual page over 9p (minutes under
# emulation): off, as its auto-update flag allows.
rm -f /var/lib/man-db/auto-update
# shellcheck disable=SC2086 # one path per package
dpkg -i $BATON_VM_DEBS >"$out/login-$seat_manager-dpkg.log" 2>&1 ||
  { tail -n 5 "$out/login-$seat_manager-dpkg.log"; fail "dpkg -i $BATON_VM_DEBS failed"; }
command -v greetd >/dev/null || fail "greetd is not installed after dpkg -i $BATON_VM_DEBS"
getent group video >/dev/null || groupadd video
useradd -m -G video -s /bin/sh batonuser || fail "useradd failed"
echo 'batonuser:baton' | chpasswd || fail "chpasswd failed"
uid=$(id -u batonuser)
# greetd runs the session file's Exec line, as a session chooser would.
exec_line=$(sed -n 's/^Exec=//p' "$session")
[ -n "$exec_line" ] || fail "$session has no Exec line"
start=$exec_line
if [ "$seat_manager" = seatd ]; then
  # What logind would make: the user's runtime directory.
  mkdir -p "/run/user/$uid" && chown batonuser: "/run/user/$uid" && chmod 700 "/run/user/$uid"
  rm -f /run/seatd.sock
  seatd -g video -l error >"$out/login-$seat_manager-seatd.log" 2>&1 &
  seatd_pid=$!
  for _ in $(seq 100); do [ -S /run/seatd.sock ] && break; sleep 0.05; done
  [ -S /run/seatd.sock ] || fail "seatd did not start"
  start="env XDG_RUNTIME_DIR=/run/user/$uid LIBSEAT_BACKEND=seatd $exec_line"
fi
mkdir -p /etc/greetd
cat >/etc/greetd/config.toml <<CONF
[terminal]
vt = 1
[default_session]
command = "/usr/sbin/agreety --cmd '$start'"
user = "_greetd"
[initial_session]
command = "$start"
user = "batonuser"
CONF
log=/home/batonuser/.local/state/baton/log
wait_running() {
  for _ in $(seq 600); do grep -q "running on WAYLAND_DISPLAY" "$log" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
started=$(date +%s.%N)
if [ "$seat_manager" = logind ]; then
  # As at boot: systemd starts the display manager's unit (dpkg enabled it
  # as display-manager.service); its output goes to the journal.
  systemctl start display-manager.service || fail "systemd could not start display-manager.service"
  [ "$(systemctl show -p Id --value display-manager.service)" = greetd.service ] ||
    fail "display-manager.service is not greetd.service"
  greetd_pid=
else
  greetd >"$out/login-$seat_manager-greetd.log" 2>&1 &
  greetd_pid=$!
fi
wait_running || fail "greetd's autologin did not start baton within 60 s"
login_s=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
pid=$(pgrep -x -n baton)
user=$(stat -c %U "/proc/$pid")
echo "login ($seat_manager): greetd logged batonuser in and baton was running after $login_s s (pid $pid, user $user)"
[ "$user" = batonuser ] || fail "baton runs as $user, not as the user who logged in"
grep -q "backend drm" "$log" || fail "baton is not on the DRM backend: $(grep -a 'running on' "$log")"
grep -q "Seat opened with backend '$seat_manager'" "$log" ||
  fail "baton did not take the seat through $seat_manager: $(grep -a "Seat opened" "$log")"
echo "login ($seat_manager): $(grep -a -o "baton [0-9.]*: this session's log is .*" "$log")"
# The logind session baton (pid $1) runs in, as $found_session: its cgroup is
# the session's scope.
logind_session() {
  local id
  id=$(sed -n 's|^0::.*/session-\(.*\)\.scope$|\1|p' "/proc/$1/cgroup")
  [ -n "$id" ] || fail "baton (pid $1) is in no logind session: $(cat "/proc/$1/cgroup")"
  local want prop props
  props=$(loginctl show-session "$id" -p Name -p Seat -p VTNr -p Active -p Remote -p Service -p State)
  for want in Name=batonuser Seat=seat0 VTNr=1 Active=yes Remote=no Service=greetd State=active; do
    grep -qx "$want" <<<"$props" || fail "logind session $id: $want expected, got: $(echo $props)"
  done
  found_session=$id
}
if [ "$seat_manager" = logind ]; then
  logind_session "$pid"
  session_id=$found_session
  echo "login ($seat_manager): baton runs in logind session $session_id: $(loginctl show-session "$session_id" \
    -p Name -p Seat -p VTNr -p Active -p Service -p Type -p Class | tr '\n' ' ')"
  # pam_systemd, not the test, gave the session its runtime directory.
  [ "$(findmnt -n -o FSTYPE "/run/user/$uid")" = tmpfs ] && [ "$(stat -c %U "/run/user/$uid")" = batonuser ] ||
    fail "logind made no runtime directory /run/user/$uid for the session"
  grep -qz "^XDG_RUNTIME_DIR=/run/user/$uid$" "/proc/$pid/environ" ||
    fail "baton's XDG_RUNTIME_DIR is not the session's /run/user/$uid"
fi

# A terminal in the session, as the user.
runuser -u batonuser -- env XDG_RUNTIME_DIR="/run/user/$uid" WAYLAND_DISPLAY=wayland-0 \
  foot --override=font=monospace:size=14 sh -c 'echo "logged in as $(id -un) through greetd"; sleep 600' \
  >"$out/login-$seat_manager-foot.log" 2>&1 &
# baton logs nothing when a window maps. foot's window is up within a few
# seconds on a quiet machine, far later on a busy one: the picture kept for
# the VT switch is taken once foot's dark window fills the screen's middle
# and two scanouts half a second apart are the same.
session_png=$out/login-$seat_manager-session.png
: >"$session_png.prev"
for _ in $(seq 240); do
  "$dump" virtio_gpu "$session_png" >/dev/null || fail "no scanout to read"
  "$build/tests/vm/vm-colour-check" "$session_png" 111111 100000 >/dev/null &&
    cmp -s "$session_png" "$session_png.prev" && break
  cp "$session_png" "$session_png.prev"
  sleep 0.5
done
cmp -s "$session_png" "$session_png.prev" ||
  fail "foot's window was not on the screen, still, within 2 minutes ($session_png)"
rm -f "$session_png.prev"
echo "login ($seat_manager): the session's screen: $shared_out/login-$seat_manager-session.png"

# A VT switch inside the session.
cp "$out/login-$seat_manager-session.png" "$out/login-$seat_manager-vt-before.png"
busybox chvt 2 || fail "chvt 2 failed"
for _ in $(seq 600); do grep -q "session paused" "$log" && break; sleep 0.1; done
busybox chvt 1 || fail "chvt 1 failed"
for _ in $(seq 600); do grep -q "session resumed" "$log" && break; sleep 0.1; done
grep -q "session resumed" "$log" || fail "baton did not resume after the VT switch (60 s)"
# The same pixels: foot where it was, as it was (one PNG writer, so the
# same picture is the same bytes), once baton has drawn again (30 s at most).
for _ in $(seq 60); do
  "$dump" virtio_gpu "$out/login-$seat_manager-vt-after.png" >/dev/null || fail "no scanout after the VT switch"
  cmp -s "$out/login-$seat_manager-vt-before.png" "$out/login-$seat_manager-vt-after.png" && break
  sleep 0.5
done
cmp -s "$out/login-$seat_manager-vt-before.png" "$out/login-$seat_manager-vt-after.png" ||
  fail "the screen changed over the VT switch (login-$seat_manager-vt-before.png, login-$seat_manager-vt-after.png)"
echo "login ($seat_manager): after a VT switch away and back the screen is the same picture (login-$seat_manager-vt-after.png)"

# Leaving: Super+Shift+E, baton's exit binding; greetd's greeter comes back.
send press kbd 125; send press kbd 42; send key kbd 18; send release kbd 42; send release kbd 125
for _ in $(seq 600); do pgrep -x baton >/dev/null || break; sleep 0.1; done
pgrep -x baton >/dev/null && fail "the exit binding did not end the session (60 s)"
grep -q "baton exits (status 0)" "$log" || fail "baton did not exit cleanly: $(tail -n 3 "$log")"
cp "$log" "$out/login-$seat_manager-baton-first.log"
grep -a -A3 "baton crashed" "$log" && fail "baton crashed on its way out (login-$seat_manager-baton-first.log)"
for _ in $(seq 600); do pgrep -x agreety >/dev/null && break; sleep 0.1; done
pgrep -x agreety >/dev/null || fail "greetd's greeter did not come back after the session ended"
echo "login ($seat_manager): the exit binding ended the session; greetd's greeter (agreety) is back on VT 1"
if [ "$seat_manager" = logind ]; then
  for _ in $(seq 600); do
    state=$(loginctl show-session "$session_id" -p State --value 2>/dev/null)
    [ "$state" = active ] || break
    sleep 0.1
  done
  [ "$state" = active ] && fail "logind session $session_id is still active after the session ended"
  echo "login ($seat_manager): logind session $session_id is ${state:-gone} after the exit binding"
fi

# A second login at the greeter: user name and password typed on VT 1.
type_word() {  # evdev key codes, then Enter
  local code
  for code in "$@"; do send key kbd "$code"; done
  send key kbd 28
}
# The second baton renames the first one's log to log.old a moment after it
# starts; until then $log is still the first log, which says "running" too.
# So the second session counts only once $log is a new file (a new inode).
first_log_inode=$(stat -c %i "$log")
second_log_running() {
  [ "$(stat -c %i "$log" 2>/dev/null)" != "$first_log_inode" ] &&
    grep -q "running on WAYLAND_DISPLAY" "$log" && pgrep -x baton >/dev/null
}
# What VT 1 shows before its cursor: the prompt the greeter waits at. Keys
# typed before it reads could be thrown away (a password prompt may flush
# the input as it turns echo off), so each word waits for its prompt.
vt1_prompt() {
  local header lines cols x y
  header=$(od -An -tu1 -N4 /dev/vcsa1)  # rows, columns, cursor x and y
  read -r lines cols x y <<<"$header"
  dd if=/dev/vcs1 bs=1 skip=$((y * cols)) count="$x" 2>/dev/null
}
wait_for_prompt() {
  for _ in $(seq 300); do [[ "$(vt1_prompt)" == *"$1"* ]] && return 0; sleep 0.1; done
  fail "the greeter on VT 1 did not ask '$1' within 30 s (it shows: '$(vt1_prompt)')"
}
wait_for_prompt "login:"
type_word 48 30 20 24 49 22 31 18 19   # batonuser
wait_for_prompt "assword:"
type_word 48 30 20 24 49               # baton
for _ in $(seq 600); do second_log_running && break; sleep 0.1; done
second_log_running || fail "the second login typed at the greeter did not start baton"
grep -q "running on WAYLAND_DISPLAY" "$log.old" || fail "the first session's log was not kept as log.old"
echo "login ($seat_manager): a second login typed at the greeter started baton again (the first session's log is log.old)"
if [ "$seat_manager" = logind ]; then
  logind_session "$(pgrep -x -n baton)"
  second=$found_session
  [ "$second" != "$session_id" ] || fail "the second login reused logind session $second"
  echo "login ($seat_manager): the second login is logind session $second, active on seat0 VT 1"
fi

kill "$(pgrep -x -n baton)" 2>/dev/null
[ -n "$greetd_pid" ] && kill "$greetd_pid" 2>/dev/null
[ -n "${seatd_pid:-}" ] && kill "$seatd_pid" 2>/dev/null
echo "login ($seat_manager): PASS"
