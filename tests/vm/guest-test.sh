# Sourced first by a guest test script, once it has set test_name (the word
# its FAIL line starts with). Defines:
# - fail MESSAGE: prints the tail of $log (baton's log, once one runs),
#   runs fail_hook if the script defined one (what else it has to show or
#   keep), prints "$test_name: FAIL: MESSAGE", stops that baton and exits 1;
# - baton_running LOG PID: waits up to 60 s for the baton PID writing LOG to
#   say it runs; false if it exits or the time runs out first;
# - launch_baton LOG COMMAND...: runs COMMAND (a baton and its options) in
#   the background with its output in LOG, sets log and baton_pid, and fails
#   unless it comes up;
# - wait_for_log PATTERN [SECONDS]: waits up to SECONDS (default 60: a
#   liveness bound, far above the quiet time) for PATTERN in $log; prints
#   how long it took, false if the time ran out;
# - finish_baton: stops that baton with SIGTERM (and the seat, where
#   guest-seat.sh started one) and fails unless it exits cleanly;
# - drm_node DRIVER card|render: prints the /dev/dri node, card or render
#   node, of the DRM device whose driver is DRIVER (virtio_gpu, vkms,
#   vkms_nofence, vgem...), as its DRM_IOCTL_VERSION names it (asked by
#   vm-scanout-dump, which vm-run.sh's caller names in BATON_VM_SCANOUT_DUMP);
#   false, with the reason, when there is none. The one way a guest test
#   finds a node: `node=$(drm_node virtio_gpu render) || fail "...: $node"`.
#
# A script that names its shared results folder in $out before sourcing
# this file gets $out pointed at a folder on the guest's own tmpfs instead;
# the shared folder is in $shared_out, and everything in $out is copied
# there when the script exits (fail included). Logs a test waits on live
# only in the guest: the 9p share has been seen, on a loaded CI machine, to
# stall a small write for over a minute and then store it as zeros (baton
# blocked on its log's "running on" line; a probe's "frames 20" lost).
if [ -n "${out:-}" ]; then
  shared_out=$out
  mkdir -p "$shared_out"
  out=$(mktemp -d /run/guest-out.XXXXXX)
  chmod 1777 "$out"  # as open as the share: clients run as other users write there too
  trap 'cp -R "$out"/. "$shared_out"/' EXIT
fi
log=/dev/null
baton_pid=
fail() {
  [ -s "$log" ] && tail -n 40 "$log"
  declare -F fail_hook >/dev/null && fail_hook
  echo "$test_name: FAIL: $*"
  [ -n "$baton_pid" ] && kill "$baton_pid" 2>/dev/null
  exit 1
}
baton_running() {
  for _ in $(seq 1200); do
    grep -q "running on WAYLAND_DISPLAY" "$1" && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
launch_baton() {
  log=$1
  shift
  "$@" >"$log" 2>&1 &
  baton_pid=$!
  baton_running "$log" $baton_pid || fail "baton did not come up (it exited, or 60 s passed)"
}
wait_for_log() {
  local pattern=$1 limit=${2:-60} start=$SECONDS
  while ! grep -q "$pattern" "$log"; do
    [ $((SECONDS - start)) -ge "$limit" ] && return 1
    sleep 0.1
  done
  echo "$test_name: \"$pattern\" after $((SECONDS - start)) s"
}
finish_baton() {
  kill -TERM "$baton_pid"
  wait "$baton_pid"
  local rc=$?
  baton_pid=
  declare -F stop_seat >/dev/null && stop_seat
  [ $rc = 0 ] || [ $rc = 143 ] || fail "baton exited with status $rc on SIGTERM"
}
drm_node() {
  [ -x "${BATON_VM_SCANOUT_DUMP:-}" ] || {
    echo "BATON_VM_SCANOUT_DUMP does not name vm-scanout-dump (see tests/vm/meson.build)"
    return 1
  }
  "$BATON_VM_SCANOUT_DUMP" "$1" "--$2"
}
