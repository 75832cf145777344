#!/usr/bin/env bash
# Installs what is missing and builds baton into build/. Quick when nothing
# changed: deps.sh only asks dpkg, and ninja has nothing to do.
# usage: build.sh [--tests]   (--tests: also what the test suite runs)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh "$@"
# Meson looks for optional dependencies once, at set-up. The suite's (wlcs,
# for the conformance suite) arrive with --tests, after `tools/run` set up
# build/: when what pkg-config finds has changed, build/ is set up again.
optional=$(pkg-config --exists wlcs && echo wlcs || true)
setup=()
if [ ! -f build/build.ninja ]; then
  setup=(meson setup build --wrap-mode=nodownload)
elif [ "$(cat build/.baton-optional-deps 2>/dev/null)" != "$optional" ]; then
  setup=(meson setup --reconfigure build --wrap-mode=nodownload)
fi
if [ ${#setup[@]} -gt 0 ]; then
  "${setup[@]}" >build-setup.log 2>&1 || {
    cat build-setup.log >&2
    exit 1
  }
  rm -f build-setup.log
  echo "$optional" >build/.baton-optional-deps
fi
ninja -C build >/dev/null || ninja -C build
