#!/usr/bin/env bash
# Runs inside the guest: video from producers that are not baton's. The
# kernel's vivid test driver makes colour bars; GStreamer 1.22's
# `v4l2src io-mode=dmabuf` exports vivid's buffers as dma-bufs
# (VIDIOC_EXPBUF; exporter videobuf2_vmalloc) and `waylandsink
# fullscreen=true` hands them to baton (headless, Vulkan on lavapipe) as
# dma-bufs, in XR24 (BGRx), NV12 (two planes in one dma-buf) and YUYV.
# waylandsink negotiates a format only when baton's wl_shm lists it (then
# sends dma-buf memory as a dma-buf), so the YUV runs need YUV on wl_shm
# (wlroots patch 0040).
# For each format baton's screenshot must equal the frame vivid produced
# (v4l2-ctl --stream-to; vm-video-frame-check converts NV12 and YUYV frames
# by the tests' own BT.601 limited-range reference) within 2 steps of 255
# away from colour edges, and the renderer's count of client dma-buf
# imports and of commits reusing one must have risen with the frames (a
# producer that fell back to wl_shm would leave it at 0): one baton a
# format, so each count is that format's.
#
# Not here, and why (docs/video-buffers.md): weston-simple-dmabuf-v4l
# exports its buffers read-only, which lavapipe cannot import (it maps an
# imported dma-buf for writing: VK_ERROR_INVALID_EXTERNAL_HANDLE).
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
for plugin in coreelements video4linux2 videotestsrc waylandsink; do
  ln -s "/usr/lib/$(uname -m)-linux-gnu/gstreamer-1.0/libgst$plugin.so" "$gst_plugins/"
done
export GST_PLUGIN_SYSTEM_PATH_1_0=$gst_plugins GST_REGISTRY_1_0=$gst_plugins/registry.bin
for element in v4l2src videotestsrc waylandsink; do
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

# The renderer's counts, logged as baton exits: client dma-bufs imported,
# commits that reused an import, and texture rectangles uploaded (copies).
imports() {
  sed -n 's/.*vulkan: \([0-9]*\) client dma-bufs imported, \([0-9]*\) commits.* \([0-9]*\) texture rectangles.*/\1 \2 \3/p' "$log"
}

# vivid_frame V4L2_FORMAT RAW: vivid set to V4L2_FORMAT, one frame of it in RAW.
vivid_frame() {
  local v4l2=$1 raw=$2 fmt
  # vivid's colorimetry is its own (controls, not S_FMT): for its default
  # sRGB colorspace a Y'CbCr format is BT.601, limited range, what baton
  # reads a buffer as when its client says nothing. Checked, so that a
  # vivid that says otherwise fails here rather than in the pixels.
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
}

# show RAW V4L2_FORMAT NAME COMMAND...: COMMAND (the producer) shows the
# frame RAW holds until baton's screenshot matches it; its output in
# $out/video-NAME-V4L2_FORMAT.log.
show() {
  local raw=$1 v4l2=$2 name=$3 result
  local shot_file="$out/video-$name-$v4l2.png"
  shift 3
  local log_file="$out/video-$name-$v4l2.log" starts=1
  "$@" >"$log_file" 2>&1 &
  local pid=$!
  # A liveness bound: the picture is there within seconds quietly.
  for _ in $(seq 60); do
    if ! kill -0 $pid 2>/dev/null; then
      # waylandsink 1.22 gives its window a short, fixed time for baton's
      # first configure; on a busy machine it can pass, and waylandsink stops
      # with "Window has no size set" (its window was never made). That
      # bound is GStreamer's: start it again, twice at most, and say so.
      if [ $starts -lt 3 ] && grep -q "Window has no size set" "$log_file"; then
        echo "$name ($v4l2): waylandsink gave up waiting for its first configure; starting it again"
        starts=$((starts + 1))
        "$@" >"$log_file" 2>&1 &
        pid=$!
        continue
      fi
      tail -n 20 "$log_file"
      fail "$name ($v4l2) exited before its frame was shown"
    fi
    screenshot "$shot_file" || fail "baton wrote no screenshot"
    result=$("$check" "$raw" "$v4l2" $width $height "$shot_file") && break
    result="not yet: $result"
    sleep 0.5
  done
  echo "$name: $result"
  # A few seconds more of frames, for the import count.
  sleep 1.5
  kill -INT $pid
  wait $pid
  [[ $result != "not yet"* ]] ||
    fail "baton's screenshot never matched vivid's $v4l2 frame shown by $name: ${result#not yet: }"
}

# One baton a format: vivid in V4L2_FORMAT, GStreamer asked for CAPS_FORMAT.
for pair in XR24:BGRx NV12:NV12 YUYV:YUY2; do
  v4l2=${pair%%:*} caps=${pair#*:}
  start_vulkan_baton "video-$v4l2" --headless-size ${width}x${height}
  vivid_frame "$v4l2" "$work/$v4l2.raw"
  show "$work/$v4l2.raw" "$v4l2" gstreamer gst-launch-1.0 v4l2src device="$dev" io-mode=dmabuf ! \
    "video/x-raw,format=$caps,width=$width,height=$height" ! waylandsink fullscreen=true sync=false
  finish_baton
  read -r imported reused _ <<<"$(imports)"
  echo "video $v4l2: baton imported ${imported:-no} client dma-bufs, ${reused:-no} commits reused an import"
  [ -n "${imported:-}" ] || fail "baton logged no count of client dma-buf imports ($v4l2)"
  # v4l2src keeps at least 2 buffers; the frames after the first of each reuse
  # its import (vivid's 30 fps for 1.5 s and more; a third of that suffices on a
  # busy machine).
  [ "$imported" -ge 2 ] || fail "only $imported client dma-bufs imported ($v4l2)"
  [ "$((imported + reused))" -ge 10 ] ||
    fail "only $((imported + reused)) dma-buf commits in $v4l2: did the frames fall back to wl_shm?"
done

# YUV through wl_shm: GStreamer's own test source makes frames in system
# memory, which waylandsink copies into wl_shm buffers in the format it
# negotiated. Its reference is the same source's first frame (its bars are
# still), made in BT.601 limited range (the caps say so: waylandsink 1.22
# tells a compositor nothing of colorimetry, and baton reads a YUV buffer
# so when its client says nothing).
start_vulkan_baton video-shm --headless-size ${width}x${height}
for pair in NV12:NV12 YUYV:YUY2; do
  v4l2=${pair%%:*} caps=${pair#*:}
  gst-launch-1.0 -v videotestsrc pattern=smpte num-buffers=1 ! \
    "video/x-raw,format=$caps,width=$width,height=$height,colorimetry=bt601" ! filesink location="$work/shm-$v4l2.raw" \
    >"$out/video-shm-reference-$v4l2.log" 2>&1 || fail "videotestsrc made no $caps frame"
  grep -q "colorimetry=(string)bt601" "$out/video-shm-reference-$v4l2.log" ||
    fail "videotestsrc's $caps frame is not BT.601 limited range: $(grep -o 'colorimetry=[^,]*' "$out/video-shm-reference-$v4l2.log" | head -1)"
  show "$work/shm-$v4l2.raw" "$v4l2" videotestsrc gst-launch-1.0 videotestsrc pattern=smpte ! \
    "video/x-raw,format=$caps,width=$width,height=$height,colorimetry=bt601" ! \
    waylandsink fullscreen=true sync=false
done
finish_baton
read -r imported reused uploaded <<<"$(imports)"
echo "video wl_shm: baton imported ${imported:-no} client dma-bufs, uploaded ${uploaded:-no} rectangles"
[ "${imported:-}" = 0 ] || fail "videotestsrc's frames reached baton as ${imported:-no} dma-bufs, not through wl_shm"
# A frame is two rectangles (a plane image each) in NV12, two in YUYV.
[ "${uploaded:-0}" -ge 20 ] || fail "only ${uploaded:-no} rectangles uploaded: did the frames reach baton?"
echo "video: PASS (vivid's XR24, NV12 and YUYV frames through GStreamer as dma-bufs, videotestsrc's NV12 and YUYV through wl_shm, each shown as its producer made it)"
