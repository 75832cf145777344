#!/usr/bin/env bash
# Installs what is missing and builds baton into build/. Quick when nothing
# changed: deps.sh only asks dpkg, and ninja has nothing to do.
# usage: build.sh [--tests]   (--tests: also what the test suite runs)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh "$@"
if [ ! -f build/build.ninja ]; then
  meson setup build --wrap-mode=nodownload >build-setup.log 2>&1 || {
    cat build-setup.log >&2
    exit 1
  }
  rm -f build-setup.log
fi
ninja -C build >/dev/null || ninja -C build
