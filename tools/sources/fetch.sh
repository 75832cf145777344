#!/usr/bin/env bash
# Unpacks the Debian source packages baton builds as meson subprojects, each
# only when the system lacks it and the right tree is not already there:
#   subprojects/wlroots  Debian's wlroots 0.19.2 (unless pkg-config finds a
#                        system wlroots-0.19), patched by the series in
#                        tools/sources/wlroots/: one patch per fix (Debian 12
#                        build fixes, then bug fixes), applied with patch -p1
#                        in the order its `series` file lists them. Each
#                        patch's header says what it fixes, how it was found,
#                        its test and its upstream status;
#                        docs/wlroots-patches.md has the table and says how to
#                        add one (at the end of the series).
#   subprojects/wayland  Debian's wayland 1.23.1, of which only wayland-scanner
#                        is built (bookworm-backports' 1.23.0 scanner writes
#                        wrong bitfield validators).
#   subprojects/wayland-protocols
#                        Debian's wayland-protocols 1.44 (unless the system's
#                        is 1.44 or newer), for one file only: the staging
#                        XML of wp_color_representation_v1, which 1.44 added
#                        and bookworm-backports' 1.43 lacks. Not built as a
#                        subproject; protocols/meson.build reads the XML.
# All are fetched by pool path from the mirror the apt configuration names:
# no index this machine reads lists wlroots 0.19.2. apt-helper refuses a file
# whose sha256 differs from the sum pinned here, and a 404 or a mismatch stops
# the set-up with what to do. A patch that does not apply stops it too, naming
# the patch.
# Each tree carries a stamp, .baton-source: the .dsc it came from and, for
# wlroots, a hash over the series file and every patch it lists, in order, so
# a patch changed, added, removed or reordered fetches and patches again.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tools/sources

fail() {
  local package
  case "$2" in
    wlroots) package='libwlroots-0.19-dev' ;;
    wayland) package='libwayland-bin 1.23.1' ;;
    *) package="$2" ;;
  esac
  cat >&2 <<MSG
baton setup: $1
  Install the system package that provides it (e.g. $package
  where your Debian has it), or unpack that source into subprojects/$2 and
  write its expected stamp there (see $here/fetch.sh). If the mirror changed
  a file, check the new one against Debian's signed .dsc before changing a
  pinned sum here.
MSG
  exit 1
}

# A broken series is the checkout's fault, not the system's: say so, not
# "install the package".
series_fail() {
  echo "baton setup: $1" >&2
  echo "  (docs/wlroots-patches.md says how the series works and how to add a patch)" >&2
  exit 1
}

# read_series DIR: sets `patches` to the files DIR/series lists, in order
# (quilt's format: one name a line; '#' starts a comment). Every patch is
# applied with -p1, so per-patch options are refused; a .patch in DIR that the
# series does not list is refused too, since it would silently not be applied.
read_series() {
  local dir=$1 line name extra file listed
  patches=()
  [ -f "$dir/series" ] || series_fail "$dir/series is missing"
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    name='' extra=''
    read -r name extra <<<"$line" || true
    [ -n "$name" ] || continue
    [ -z "$extra" ] ||
      series_fail "$dir/series: '$line': no options after a patch name (every patch is applied with -p1)"
    [ -f "$dir/$name" ] || series_fail "$dir/series lists $name, which is not in $dir"
    for listed in "${patches[@]}"; do
      [ "$listed" != "$name" ] || series_fail "$dir/series lists $name twice"
    done
    patches+=("$name")
  done <"$dir/series"
  [ "${#patches[@]}" -gt 0 ] || series_fail "$dir/series lists no patch"
  for file in "$dir"/*.patch; do
    [ -e "$file" ] || continue
    name=${file##*/}
    for listed in "${patches[@]}"; do
      [ "$listed" != "$name" ] || continue 2
    done
    series_fail "$file is not listed in $dir/series (add it at the end, or remove it)"
  done
}

# series_hash DIR: the first 16 hex digits of a sha256 over the series file
# and each patch it lists, in order (names and contents).
series_hash() {
  (cd "$1" && sha256sum series "${patches[@]}") | sha256sum | cut -c1-16
}

# apply_series SRC DIR DSC: applies DIR's patches, in order, to the tree SRC
# unpacked from DSC, and stops at the first that fails, naming it. No fuzz:
# each patch was made against the tree the ones before it leave, and a hunk
# that fits only with fuzz may land in the wrong place unnoticed.
apply_series() {
  local src=$1 dir=$2 dsc=$3 name n=0 log
  log=$(dirname "$src")/patch.log
  for name in "${patches[@]}"; do
    n=$((n + 1))
    if ! patch -d "$src" -p1 --forward --batch --fuzz=0 --no-backup-if-mismatch \
        --reject-file=- <"$dir/$name" >"$log" 2>&1; then
      sed 's/^/  patch: /' "$log" >&2
      cat >&2 <<MSG
baton setup: $dir/$name does not apply
  (patch $n of ${#patches[@]} in $dir/series, applied to $dsc
  after the $((n - 1)) before it; patch -p1 --fuzz=0 says why above).
  subprojects/ is left as it was. Remake that patch against the tree the
  patches before it leave (docs/wlroots-patches.md says how).
MSG
      return 1
    fi
  done
}

# fetch_source DIR POOL-PATH PATCH-DIR|- FILE=SHA256...
fetch_source() {
  local dir=$1 pool=$2 series=$3
  shift 3
  local dsc=${1%%=*}
  local stamp="$dsc"
  if [ "$series" != - ]; then
    read_series "$here/$series"
    stamp+=" + series $(series_hash "$here/$series")"
  fi
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
  if [ "$series" != - ]; then
    echo "baton setup: applying the ${#patches[@]} patches of $here/$series/series"
    if ! apply_series "$tmp/src" "$here/$series" "$dsc"; then
      rm -rf "$tmp"
      exit 1
    fi
  fi
  echo "$stamp" >"$tmp/src/.baton-source"
  mkdir -p subprojects
  rm -rf "subprojects/$dir"
  mv "$tmp/src" "subprojects/$dir"
  rm -rf "$tmp"
}

if ! pkg-config --exists 'wlroots-0.19'; then
  fetch_source wlroots pool/main/w/wlroots wlroots \
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
if ! pkg-config --atleast-version=1.44 wayland-protocols; then
  fetch_source wayland-protocols pool/main/w/wayland-protocols - \
    wayland-protocols_1.44-1.dsc=9d9c02137b9139920689c2df9371e8522fceebbc34a6b51352e063ba9425c627 \
    wayland-protocols_1.44.orig.tar.xz=3df1107ecf8bfd6ee878aeca5d3b7afd81248a48031e14caf6ae01f14eebb50e \
    wayland-protocols_1.44.orig.tar.xz.asc=0fbf0d8144aae643b214530d7a64902de979234e70405b8f8ad4c9ff77a2a415 \
    wayland-protocols_1.44-1.debian.tar.xz=4cb8b590a5cc7bf85bfb1f57da126f7f5e5f68d5bfd46fb3a9ff227bce07e731
fi
