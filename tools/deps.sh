#!/usr/bin/env bash
# Installs what baton needs to build and run on Debian 12 (with --tests, also
# what its test suite runs), and fetches wlroots 0.19 (and wayland 1.23.1's
# scanner) as meson subprojects when the system lacks them.
# Idempotent: when everything is present it only runs dpkg-query and returns.
#
# usage: deps.sh [--tests]
set -euo pipefail
cd "$(dirname "$0")/.."
lists=(tools/deps.d/*.list)
case "${1:-}" in
  --tests) lists+=(tools/deps.d/tests/*.list) ;;
  "") ;;
  *) echo "usage: deps.sh [--tests]" >&2; exit 2 ;;
esac

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -E "$@"; fi; }

# Packages whose bookworm version is too old: taken from bookworm-backports.
backports=(
  libwayland-dev libwayland-bin wayland-protocols libdrm-dev libdisplay-info-dev
  libgbm-dev meson libxcb-errors-dev weston mesa-vulkan-drivers
)
# Everything else comes from bookworm itself.
bookworm=(
  ninja-build pkgconf g++ dpkg-dev python3 libexpat1-dev libegl-dev libgles-dev libvulkan-dev glslang-tools libinput-dev
  libxkbcommon-dev libpixman-1-dev libseat-dev libudev-dev hwdata xwayland
  liblcms2-dev libpng-dev libgtest-dev libgmock-dev
  libxcb1-dev libx11-xcb-dev libxcb-composite0-dev libxcb-dri3-dev libxcb-ewmh-dev
  libxcb-icccm4-dev libxcb-image0-dev libxcb-present-dev libxcb-render0-dev
  libxcb-render-util0-dev libxcb-res0-dev libxcb-shm0-dev libxcb-xfixes0-dev
  libxcb-xinput-dev foot fonts-dejavu-core adwaita-icon-theme
)
# Minimum versions for the backports set (what wlroots 0.19 requires).
declare -A minimum=(
  [libwayland-dev]=1.23 [wayland-protocols]=1.41 [libdrm-dev]=2.4.122
  [meson]=1.3 [libdisplay-info-dev]=0.2 [weston]=12
)


# Subsystems list their own packages in tools/deps.d/*.list, and what only
# their tests run in tools/deps.d/tests/*.list (one per line, "bpo:" marks a
# package taken from bookworm-backports).
for list in "${lists[@]}"; do
  [ -f "$list" ] || continue
  while read -r entry; do
    case "$entry" in ''|'#'*) continue ;; bpo:*) backports+=("${entry#bpo:}") ;; *) bookworm+=("$entry") ;; esac
  done <"$list"
done

missing=()
for pkg in "${backports[@]}" "${bookworm[@]}"; do
  have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$pkg" 2>/dev/null || true)
  if [ "${have%% *}" != installed ]; then
    missing+=("$pkg")
  elif [ -n "${minimum[$pkg]:-}" ] && dpkg --compare-versions "${have#* }" lt "${minimum[$pkg]}"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "baton setup: installing ${missing[*]}"
  bash tools/apt-sources.sh
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq -t bookworm-backports \
    --no-install-recommends "${backports[@]}" "${bookworm[@]}" >/dev/null
fi

# wlroots 0.19 and wayland 1.23.1's scanner: the system's when pkg-config
# finds them, else Debian's source packages, fetched by pool path and checked
# against pinned sums (tools/sources/fetch.sh says why).
bash tools/sources/fetch.sh
