#!/usr/bin/env bash
# Runs inside the guest: video from producers that are not baton's. The
# kernel's vivid test driver makes colour bars; GStreamer 1.22's
# `v4l2src io-mode=dmabuf` exports vivid's buffers as dma-bufs
# (VIDIOC_EXPBUF; exporter videobuf2_vmalloc) and `waylandsink
# fullscreen=true` hands them to baton (headless, Vulkan on lavapipe) as
# dma-bufs, in XR24 (BGRx).
# baton's screenshot must equal the frame vivid produced (v4l2-ctl
# --stream-to; vm-video-frame-check, which also converts NV12 and YUYV
# frames by the tests' own BT.601 limited-range reference) within 2 steps of
# 255 away from colour edges, and the renderer's count of client dma-buf
# imports and of commits reusing one must have risen with the frames (a
# producer that fell back to wl_shm would leave it at 0).
#
# Not here, and why (docs/video-buffers.md): vivid's YUV frames. GStreamer
# 1.22's waylandsink negotiates a system-memory format only when the
# compositor's wl_shm offers it (then sends dma-buf memory as a dma-buf),
# and baton's wl_shm offers no YUV format; weston-simple-dmabuf-v4l exports
# its buffers read-only, which lavapipe cannot import (it maps an imported
# dma-buf for writing: VK_ERROR_INVALID_EXTERNAL_HANDLE).
#
# usage: video_test.sh BATON FRAME_CHECK OUT_DIR
set -uo pipefail
baton=$1 check=$2 out=$3
test_name=video
source "$(dirname "$0")/guest-test.sh"
source "$(dirname "$0")/guest-baton.sh"

for tool in gst-launch-1.0 gst-inspect-1.0 v4l2-ctl; do
  command -v $tool >/dev/null || fail "$tool is missing (tools/deps.sh --tests installs it)"
done
# Only the plugins used here: GStreamer otherwise loads every installed plugin
# to build its registry, about 0.1 s a file over the guest's 9p root.
gst_plugins=$(mktemp -d)
for plugin in coreelements video4linux2 waylandsink; do
  ln -s "/usr/lib/$(uname -m)-linux-gnu/gstreamer-1.0/libgst$plugin.so" "$gst_plugins/"
done
export GST_PLUGIN_SYSTEM_PATH_1_0=$gst_plugins GST_REGISTRY_1_0=$gst_plugins/registry.bin
for element in v4l2src waylandsink; do
  gst-inspect-1.0 --exists $element || fail "GStreamer has no $element (tools/deps.sh --tests)"
done
dev=
for node in /sys/class/video4linux/video*; do
  [ "$(cat "$node/name" 2>/dev/null)" = vivid-000-vid-cap ] && dev=/dev/$(basename "$node")
done
[ -n "$dev" ] || fail "no vivid capture device (vm-run.sh --modules vivid)"
# The colour bars without vivid's text, whose frame counter changes each frame.
v4l2-ctl -d "$dev" -c osd_text_mode=2 || fail "vivid took no osd_text_mode control"

width=640 height=360
start_vulkan_baton video --headless-size ${width}x${height}

# The renderer's count, logged as baton exits: client dma-bufs imported, and
# commits that reused an import.
imports() { sed -n 's/.*vulkan: \([0-9]*\) client dma-bufs imported, \([0-9]*\) commits.*/\1 \2/p' "$log"; }

# show V4L2_FORMAT NAME COMMAND...: vivid set to V4L2_FORMAT, its reference
# frame captured, then COMMAND (the producer) shows it until baton's
# screenshot matches; its output in $out/video-NAME-V4L2_FORMAT.log.
show() {
  local v4l2=$1 name=$2 raw="$work/$1.raw" shot_file="$out/video-$2-$1.png" result fmt
  shift 2
  # vivid's frame. Its colorimetry is its own (controls, not S_FMT): for
  # its default sRGB colorspace a Y'CbCr format is BT.601, limited range,
  # what baton reads a buffer as when its client says nothing. Checked, so
  # that a vivid that says otherwise fails here rather than in the pixels.
  v4l2-ctl -d "$dev" --set-fmt-video="width=$width,height=$height,pixelformat=$v4l2" \
    --stream-mmap --stream-skip=2 --stream-count=1 --stream-to="$raw" ||
    fail "v4l2-ctl could not capture a $v4l2 frame from vivid"
  fmt=$(v4l2-ctl -d "$dev" --get-fmt-video)
  echo "$fmt" | grep -E "Width/Height|Pixel Format|Encoding|Quantization"
  echo "$fmt" | grep -q "Width/Height *: *$width/$height" || fail "vivid did not take ${width}x$height"
  if [ "$v4l2" != XR24 ]; then
    echo "$fmt" | grep -q "Encoding.*601" && echo "$fmt" | grep -q "Quantization.*Limited" ||
      fail "vivid's $v4l2 frames are not BT.601 limited range, what the check converts from"
  fi
  "$@" >"$out/video-$name-$v4l2.log" 2>&1 &
  local pid=$!
  # A liveness bound: the picture is there within seconds quietly.
  for _ in $(seq 60); do
    kill -0 $pid 2>/dev/null || {
      tail -n 20 "$out/video-$name-$v4l2.log"
      fail "$name ($v4l2) exited before its frame was shown"
    }
    screenshot "$shot_file" || fail "baton wrote no screenshot"
    result=$("$check" "$raw" "$v4l2" $width $height "$shot_file") && break
    result="not yet: $result"
    sleep 0.5
  done
  echo "$name: $result"
  # A few seconds more of frames, for the import count.
  sleep 3
  kill -INT $pid
  wait $pid
  [[ $result != "not yet"* ]] ||
    fail "baton's screenshot never matched vivid's $v4l2 frame shown by $name: ${result#not yet: }"
}

show XR24 gstreamer gst-launch-1.0 v4l2src device="$dev" io-mode=dmabuf ! \
  "video/x-raw,format=BGRx,width=$width,height=$height" ! waylandsink fullscreen=true sync=false
finish_baton
read -r imported reused <<<"$(imports)"
echo "video: baton imported ${imported:-no} client dma-bufs, ${reused:-no} commits reused an import"
[ -n "${imported:-}" ] || fail "baton logged no count of client dma-buf imports"
# v4l2src keeps at least 2 buffers; the frames after the first of each reuse
# its import (vivid's 30 fps for 3 s and more; a third of that suffices on a
# busy machine).
[ "$imported" -ge 2 ] || fail "only $imported client dma-bufs imported"
[ "$((imported + reused))" -ge 10 ] ||
  fail "only $((imported + reused)) dma-buf commits: did the frames fall back to wl_shm?"
echo "video: PASS (vivid's XR24 frames through GStreamer as dma-bufs, shown as vivid made them)"
