# Sourced inside the guest by the dma-buf client tests: starts one baton on
# the headless backend with the Vulkan renderer (lavapipe) and explicit sync
# on virtio-gpu's render node, and defines screenshot().
#
# Needs $baton, $out and guest-test.sh; call start_vulkan_baton NAME [OPTION...]
# (more baton options, e.g. --headless-size). Sets render,
# work (a scratch directory), log ($out/NAME-baton.log), shot and baton_pid,
# and exports WAYLAND_DISPLAY=baton-NAME-test.
start_vulkan_baton() {
  render=$(drm_node virtio_gpu render) || fail "no render node for virtio-gpu: $render"

  mkdir -p "$out"
  work=$(mktemp -d)
  shot="$work/shot.png"
  local name=$1
  shift
  export WAYLAND_DISPLAY=baton-$name-test
  launch_baton "$out/$name-baton.log" "$baton" --backend headless --renderer vulkan \
    --drm-device "$render" --socket "$WAYLAND_DISPLAY" --screenshot "$shot" --screenshot-delay 600000 \
    "$@"
  grep "buffers:" "$log"
  grep -q "linux-dmabuf-v1 on, linux-drm-syncobj-v1 on" "$log" ||
    fail "baton does not advertise both linux-dmabuf-v1 and linux-drm-syncobj-v1"
}

# SIGUSR1: baton writes a screenshot now; copies it to $1.
screenshot() {
  local before
  before=$(grep -c "written to $shot" "$log")
  kill -USR1 $baton_pid
  for _ in $(seq 400); do
    [ "$(grep -c "written to $shot" "$log")" -gt "$before" ] && { cp "$shot" "$1"; return 0; }
    sleep 0.05
  done
  return 1
}
