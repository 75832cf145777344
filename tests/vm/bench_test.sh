#!/usr/bin/env bash
# Runs inside the guest: baton-bench composites the same frames through
# pixman, baton's Vulkan renderer (lavapipe) and wlroots' own GLES2 and Vulkan
# renderers, which need a DRM node: the virtio-gpu card is given. The table is
# printed; nothing is timed against a limit. Each requested renderer must
# either produce its rows or have said why it did not start, and the bench must
# exit 0. A wlroots renderer that did not start is reported on a SKIP line
# with its reason (and wlroots' own log lines about it). baton's renderer
# must also have run the video case (NV12 and XRGB8888 dma-bufs).
#
# usage: bench_test.sh BENCH [BENCH ARGS...]   (e.g. --frames 30 --windows 8)
set -uo pipefail
bench=$1
shift
test_name=vm-bench
source "$(dirname "$0")/guest-test.sh"

card=$(drm_node virtio_gpu card) || fail "no virtio-gpu card: $card"

renderers=pixman,vulkan,wlr-gles2,wlr-vulkan
out=/tmp/vm-bench.out err=/tmp/vm-bench.err
echo "vm-bench: $bench $* --renderer $renderers --drm-device $card"
"$bench" "$@" --renderer "$renderers" --drm-device "$card" >"$out" 2>"$err"
rc=$?
cat "$out"
# wlroots logs at debug level while its renderers start: keep what says
# what they ran on or why they refused.
echo "---- renderer set-up (stderr, filtered)"
grep -E '\[ERROR\]|GL renderer|Using DRM node|Ignoring physical device|libEGL warning|^vulkan' "$err" |
  awk '!seen[$0]++'
[ $rc = 0 ] || { tail -n 30 "$err"; fail "baton-bench exited with status $rc"; }

# A renderer's rows: its name, an output size, a window count, the kind of
# frame, then numbers.
rows() { awk -v r="$1" -v k="$2" '$1 == r && $4 == k && $5 ~ /^[0-9.]+$/' "$out" | wc -l; }
for entry in pixman:pixman vulkan:vk-rast vulkan:vk-comp wlr-gles2:wlr-gl wlr-vulkan:wlr-vk; do
  option=${entry%%:*} name=${entry#*:}
  reason=$(sed -n "s/^# $name: not started: //p" "$out")
  full=$(rows "$name" full) damage=$(rows "$name" damage64)
  n=$((full + damage))
  if [ "$full" -ge 1 ] && [ "$damage" = "$full" ]; then
    echo "vm-bench: $name ($option): ran, $n rows"
  elif [ -n "$reason" ] && [ "$n" = 0 ]; then
    echo "vm-bench: SKIP $name ($option) did not start in the guest: $reason"
  else
    fail "$name ($option): $n rows and no reason for not starting"
  fi
done
# The video case: the guest has /dev/udmabuf, so baton's renderer must have
# composited NV12 and XRGB8888 frames on each of its paths.
for name in vk-rast vk-comp; do
  for kind in video-nv12 video-xr24; do
    [ "$(rows "$name" "$kind")" = 1 ] ||
      fail "$name $kind: no row ($(grep "$name.*$kind" "$out" || echo 'not printed'))"
  done
done
echo "vm-bench: PASS"
