#!/usr/bin/env bash
# Runs inside the guest: DRM leases on virtio-gpu with two outputs. The
# config marks Virtual-2 leasable, as a user does for a headset whose
# connector lacks the kernel's non-desktop property. What each CRTC scans
# out is the oracle (vm-scanout-dump ... CONNECTOR):
# - Virtual-2 is offered for lease and is no desktop output (wlr-randr does
#   not list it); Virtual-1, a desktop output, is not offered;
# - a client leases Virtual-2 and lights it amber by its own modeset on the
#   lease fd, while baton keeps drawing Virtual-1;
# - while leased, Virtual-2 is offered to nobody else;
# - when the client releases the lease, the output comes back and is offered
#   again, and a new client can lease it.
#
# usage: lease_test.sh BATON LEASE_CLIENT SCANOUT_DUMP COLOUR_CHECK OUT_DIR
set -uo pipefail
baton=$1 client=$2 dump=$3 check=$4 out=$5
mkdir -p "$out"
here=$(dirname "$(realpath "$0")")
test_name=lease
source "$here/guest-test.sh"
source "$here/guest-seat.sh"

printf '[[output]]\nname = "Virtual-2"\nleasable = true\n' >"$out/lease.toml"
export WAYLAND_DISPLAY=baton-lease
launch_baton "$out/lease-baton.log" \
  "$baton" --backend drm --renderer pixman --background '#20c040' --socket "$WAYLAND_DISPLAY" \
  --config "$out/lease.toml"
wait_for_log "drm-lease: Virtual-2 is offered for lease" 20 ||
  fail "baton did not offer Virtual-2 for lease"
if command -v wlr-randr >/dev/null; then
  randr=$(wlr-randr 2>&1)
  grep -q "^Virtual-1" <<<"$randr" || fail "Virtual-1 is not a desktop output: $randr"
  grep -q "^Virtual-2" <<<"$randr" && fail "the leasable Virtual-2 is a desktop output: $randr"
  echo "lease: wlr-randr lists Virtual-1 only"
fi

shows() {  # CONNECTOR RRGGBB: its CRTC scans out mostly that colour
  "$dump" virtio_gpu "$out/lease-$1.png" "$1" >/dev/null &&
    "$check" "$out/lease-$1.png" "$2" 500000 >/dev/null
}

# A desktop connector is not for lease.
"$client" Virtual-1 e0a020 1 >"$out/lease-client-desktop.txt" 2>&1
rc=$?
[ $rc = 2 ] || fail "leasing the desktop output Virtual-1 did not fail as not offered (exit $rc): $(cat "$out/lease-client-desktop.txt")"
grep -q "^connector Virtual-1" "$out/lease-client-desktop.txt" && fail "Virtual-1 was offered for lease"
echo "lease: the desktop output Virtual-1 is not offered"

# The lease: the client's own modeset lights Virtual-2.
# It holds the lease until told (SIGTERM), however slow the guest is.
"$client" Virtual-2 e0a020 0 >"$out/lease-client-1.txt" 2>&1 &
client_pid=$!
for _ in $(seq 300); do grep -q "^shows" "$out/lease-client-1.txt" && break; sleep 0.1; done
grep -q "^shows Virtual-2 e0a020" "$out/lease-client-1.txt" ||
  fail "the lease of Virtual-2 did not light it: $(cat "$out/lease-client-1.txt")"
grep -q "drm-lease: leased 1 connector" "$log" || fail "baton did not log the lease"
lit=no
for _ in $(seq 20); do shows Virtual-2 e0a020 && { lit=yes; break; }; sleep 0.2; done
[ $lit = yes ] || fail "Virtual-2 does not scan out the lessee's amber (lease-Virtual-2.png)"
shows Virtual-1 20c040 || fail "Virtual-1 stopped showing baton's desktop during the lease"
echo "lease: $(grep '^shows' "$out/lease-client-1.txt"); Virtual-1 still shows baton's desktop"

# While leased, nobody else gets it.
"$client" Virtual-2 0000ff 1 >"$out/lease-client-2.txt" 2>&1
rc=$?
[ $rc = 2 ] || [ $rc = 3 ] || fail "a second lease of the leased Virtual-2 was not refused (exit $rc): $(cat "$out/lease-client-2.txt"); the first lessee (pid $client_pid$(kill -0 $client_pid 2>/dev/null && echo ", running" || echo ", gone")) printed: $(tr '\n' ' ' <"$out/lease-client-1.txt")"
echo "lease: a second client could not lease Virtual-2 while it was leased (exit $rc)"

# Released: offered again, and leased again.
kill -0 "$client_pid" 2>/dev/null ||
  fail "the first lessee ended before it was told to: $(tr '\n' ' ' <"$out/lease-client-1.txt")"
kill -TERM "$client_pid"
wait "$client_pid" || fail "the lease client failed: $(cat "$out/lease-client-1.txt")"
for _ in $(seq 300); do
  [ "$(grep -c 'drm-lease: Virtual-2 is offered for lease' "$log")" -ge 2 ] && break
  sleep 0.1
done
[ "$(grep -c 'drm-lease: Virtual-2 is offered for lease' "$log")" -ge 2 ] ||
  fail "Virtual-2 was not offered again after the lease ended"
"$client" Virtual-2 2060e0 1 >"$out/lease-client-3.txt" 2>&1 ||
  fail "Virtual-2 could not be leased again: $(cat "$out/lease-client-3.txt")"
echo "lease: released, Virtual-2 was offered again and leased again"

baton_running "$log" "$baton_pid" || fail "baton died"
finish_baton
echo "lease: PASS"
