#!/usr/bin/env bash
# Unpacks the Debian source packages baton builds as meson subprojects, each
# only when the system lacks it and the right tree is not already there:
#   subprojects/wlroots  Debian's wlroots 0.19.2 (unless pkg-config finds a
#                        system wlroots-0.19), patched by wlroots-bookworm.patch
#                        for bookworm's pixman and wayland (it says how, why).
#   subprojects/wayland  Debian's wayland 1.23.1, of which only wayland-scanner
#                        is built (bookworm-backports' 1.23.0 scanner writes
#                        wrong bitfield validators).
# Both are fetched by pool path from the mirror the apt configuration names:
# no index this machine reads lists wlroots 0.19.2. apt-helper refuses a file
# whose sha256 differs from the sum pinned here, and a 404 or a mismatch stops
# the set-up with what to do.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tools/sources

fail() {
  cat >&2 <<MSG
baton setup: $1
  Install the system package that provides it (e.g. libwlroots-0.19-dev
  where your Debian has it), or unpack that source into subprojects/$2 and
  write its expected stamp there (see $here/fetch.sh). If the mirror changed
  a file, check the new one against Debian's signed .dsc before changing a
  pinned sum here.
MSG
  exit 1
}

# fetch_source DIR POOL-PATH PATCH|- FILE=SHA256...
fetch_source() {
  local dir=$1 pool=$2 patch=$3
  shift 3
  local dsc=${1%%=*}
  local stamp="$dsc"
  if [ "$patch" != - ]; then stamp+=" + $(sha256sum "$here/$patch" | cut -c1-16)"; fi
  if [ "$(cat "subprojects/$dir/.baton-source" 2>/dev/null)" = "$stamp" ]; then return 0; fi

  local uri tmp entry file sum
  uri=$(bash tools/mirror-uri.sh)
  tmp=$(mktemp -d)
  echo "baton setup: fetching Debian's ${dsc%.dsc} source from the apt mirror's pool"
  for entry in "$@"; do
    file=${entry%%=*} sum=${entry#*=}
    if ! /usr/lib/apt/apt-helper download-file "$uri/$pool/$file" "$tmp/$file" \
        "SHA256:$sum" >"$tmp/fetch.log" 2>&1; then
      grep -E '^(E|Err|  )' "$tmp/fetch.log" >&2 || cat "$tmp/fetch.log" >&2
      rm -rf "$tmp"
      fail "could not fetch $uri/$pool/$file with sha256 $sum (a 404 or a checksum mismatch, above)" "$dir"
    fi
  done
  if ! (cd "$tmp" && dpkg-source -x "$dsc" src >unpack.log 2>&1); then
    cat "$tmp/unpack.log" >&2
    rm -rf "$tmp"
    fail "dpkg-source could not unpack $dsc" "$dir"
  fi
  if [ "$patch" != - ] && ! patch -d "$tmp/src" -p1 --quiet <"$here/$patch"; then
    rm -rf "$tmp"
    fail "$here/$patch does not apply to $dsc" "$dir"
  fi
  echo "$stamp" >"$tmp/src/.baton-source"
  mkdir -p subprojects
  rm -rf "subprojects/$dir"
  mv "$tmp/src" "subprojects/$dir"
  rm -rf "$tmp"
}

if ! pkg-config --exists 'wlroots-0.19'; then
  fetch_source wlroots pool/main/w/wlroots wlroots-bookworm.patch \
    wlroots_0.19.2-1.dsc=5ecb5f88216a2e96e4f891db85cdab6dd013e869f1db7d8a0dbf763780752bf7 \
    wlroots_0.19.2.orig.tar.bz2=804bd3eab10f03556628c4e977351b0b1b17bc34084342dfaff5086c54ce1fa0 \
    wlroots_0.19.2-1.debian.tar.xz=dc443eff4b5a6cfd109c226774191036b20c4485bbb582afc69b76ef0024b000
fi
if ! pkg-config --atleast-version=1.23.1 wayland-scanner; then
  fetch_source wayland pool/main/w/wayland - \
    wayland_1.23.1-3.dsc=03b4da461e507338731b86183e989e0e9c3fa28f34d8739f0b30d8dd9b88bce8 \
    wayland_1.23.1.orig.tar.gz=158ec49af498f2558c7fbf7e8b070d010d4e270cc6076003a18a6c813f87e244 \
    wayland_1.23.1-3.diff.gz=f48a224e6d744d33ab00378b7a7f2b3ab6461706e30b722e320d047d880e70c8
fi
