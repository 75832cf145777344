#!/usr/bin/env bash
# Fetches WLCS 1.7's runner (Debian 13's wlcs package) and the C and C++
# runtimes it was built for, and unpacks them under CACHE, once. Prints the
# path of a script that runs that runner with those runtimes.
#
# usage: fetch-runner.sh CACHE
#
# Why not Debian 12's wlcs 1.5: its helper that makes a visible xdg-shell
# window attaches a buffer before the first configure, which xdg-shell makes
# a protocol error, so every test built on it (about 590) could only fail
# against a compositor that keeps the rule. WLCS 1.6 waits for the configure,
# and 1.5 and 1.6 fail, where 1.7 skips, tests of extensions a compositor does
# not offer. No newer WLCS source is in the mirror (the pool has only 1.5's
# .dsc, without its tarball), but Debian 13's binary package is.
#
# It needs glibc 2.38 and libstdc++ 14, newer than Debian 12's, so it runs
# under Debian 13's dynamic loader with Debian 13's libc and libstdc++ first
# on its library path; the rest (wayland, and baton-wlcs.so with wlroots,
# pixman...) is this system's, built for an older glibc, which a newer one
# runs. baton-wlcs.so is built against Debian 12's wlcs headers: 1.7's three
# headers are byte for byte the same.
#
# The files come by pool path from the mirror the apt configuration names,
# each checked against the sha256 pinned here (apt-helper refuses another).
# libc6 gets security updates, after which the mirror may drop an older one:
# several are pinned, newest first, and the first one found is used.
set -euo pipefail
cache=$(realpath -m "${1:?usage: fetch-runner.sh CACHE}")
here=$(cd "$(dirname "$0")" && pwd)
dest="$cache/wlcs-1.7.0"
mkdir -p "$cache"
exec 9>"$cache/.fetch.lock"
flock 9

if [ -x "$dest/run-wlcs" ]; then
  echo "$dest/run-wlcs"
  exit 0
fi

die() {
  echo "fetch-runner: $*" >&2
  exit 1
}
for tool in dpkg-deb /usr/lib/apt/apt-helper; do
  command -v "$tool" >/dev/null || die "$tool is missing (a Debian system has it)"
done
uri=$(bash "$here/../../tools/mirror-uri.sh") || die "no Debian mirror in the apt configuration"

work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

# fetch_one POOL-DIR FILE=SHA256 [FILE=SHA256...]: the first that downloads.
fetch_one() {
  local pool=$1 entry file
  shift
  for entry in "$@"; do
    file=${entry%%=*}
    if /usr/lib/apt/apt-helper download-file "$uri/pool/main/$pool/$file" "$work/$file" \
      "SHA256:${entry#*=}" >"$work/fetch.log" 2>&1; then
      echo "$work/$file"
      return 0
    fi
  done
  grep -E '^(E|Err)' "$work/fetch.log" >&2 || cat "$work/fetch.log" >&2
  die "could not fetch any of $* from $uri/pool/main/$pool (404 or checksum mismatch, above)"
}

# A failed $(...) does not stop the script by itself: each one is checked.
debs=()
fetch_into_debs() {
  local deb
  deb=$(fetch_one "$@") || exit 1
  debs+=("$deb")
}
fetch_into_debs w/wlcs wlcs_1.7.0-1_amd64.deb=92ff15572e0078c2b52eaf4340c615adac903a541231d84f3a39cb37c81d64b2
fetch_into_debs g/glibc \
  libc6_2.41-12+deb13u5_amd64.deb=b59b0625cd1a791375d40dab23a4d5d3d0641e3d0a773501becdc3725b7f99cf \
  libc6_2.41-12+deb13u4_amd64.deb=967aa62605721081c3eb2a17650611a792aa802d76a6511d1840242623d204c9 \
  libc6_2.41-12+deb13u3_amd64.deb=8ffd13165b9ee3f067e2ee670df718e48c1bdaa18676ac93d1de761dbbb3913c \
  libc6_2.41-12_amd64.deb=6cff801097cd0eb2126b60e533f37afdc78456efacdf2bfae62877f00c795d0b
fetch_into_debs g/gcc-14 libstdc++6_14.2.0-19_amd64.deb=ab1fa05837aa7a92aae748fd07a18a35f7d18bb4a71c4724fe2bbf0e32089de0
fetch_into_debs g/gcc-14 libgcc-s1_14.2.0-19_amd64.deb=3c71917b490d1a17aed43196a2787a256ecf060526cdb20216a74bedc061b150
root="$work/root"
for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$root"; done
lib="$dest/usr/lib/x86_64-linux-gnu"
cat >"$root/run-wlcs" <<EOF
#!/bin/sh
# WLCS 1.7's runner under Debian 13's loader, libc and libstdc++ (fetch-runner.sh).
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$lib/wlcs/wlcs" "\$@"
EOF
chmod +x "$root/run-wlcs"
# Without a module the runner prints its usage and exits 1: it started.
rlib="$root/usr/lib/x86_64-linux-gnu"
banner=$("$rlib/ld-linux-x86-64.so.2" --library-path "$rlib" "$rlib/wlcs/wlcs" 2>&1 || true)
grep -q 'Conformance Suite test runner' <<<"$banner" ||
  die "the fetched runner does not start here: $(head -n 3 <<<"$banner")"
rm -rf "$dest"
mv "$root" "$dest"
echo "fetch-runner: $(basename -a "${debs[@]}" | tr '\n' ' ')unpacked in $dest" >&2
echo "$dest/run-wlcs"
