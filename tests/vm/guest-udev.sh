# Sourced inside the guest: starts systemd-udevd and has it tag what exists,
# since libinput takes only devices udev has initialised. Defines
# udev_settle; needs fail() defined.
udevd=/lib/systemd/systemd-udevd
[ -x $udevd ] || fail "systemd-udevd is missing (tools/deps.sh --tests installs udev)"
$udevd --daemon --resolve-names=never || fail "systemd-udevd did not start"
udev_settle() { udevadm settle --timeout=60 || fail "udev did not settle"; }
udevadm trigger --action=add || fail "udevadm trigger failed"
udev_settle
