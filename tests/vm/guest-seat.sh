# Sourced inside the guest: starts seatd and exports LIBSEAT_BACKEND=seatd so
# baton's DRM backend gets a real seat. libseat's noop backend names its seat
# "noop", and wlroots only takes cards whose udev ID_SEAT (default "seat0")
# matches, so noop finds no GPU. Defines stop_seat; needs fail() defined.
command -v seatd >/dev/null || fail "seatd is not installed (tools/deps.sh --tests installs it)"
rm -f /run/seatd.sock
seatd -l error &
seatd_pid=$!
for _ in $(seq 100); do [ -S /run/seatd.sock ] && break; sleep 0.05; done
[ -S /run/seatd.sock ] || fail "seatd did not create /run/seatd.sock"
export LIBSEAT_BACKEND=seatd
# No input devices in the guest; wlroots' libinput backend must not insist.
export WLR_LIBINPUT_NO_DEVICES=1
stop_seat() { kill "$seatd_pid" 2>/dev/null; wait "$seatd_pid" 2>/dev/null; }
