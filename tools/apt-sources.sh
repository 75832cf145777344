#!/usr/bin/env bash
# Adds bookworm-backports (binaries) and trixie (deb-src only, for the wlroots
# source package) to apt, reusing the mirror URI the machine is already
# configured with, so no host name lives in this repository.
set -euo pipefail

list=/etc/apt/sources.list.d/baton.sources
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -E "$@"; fi; }

mirror_uri() {
  local uri
  uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(grep -hE '^deb ' /etc/apt/sources.list |
          awk '{for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) {print $i; exit}}' |
          grep -E '/debian/?$' | head -n1 || true)
  fi
  printf '%s' "$uri"
}

if [ -f "$list" ]; then exit 0; fi
uri=$(mirror_uri)
if [ -z "$uri" ]; then
  echo "baton setup: no Debian mirror found in the apt configuration" >&2
  exit 1
fi
as_root tee "$list" >/dev/null <<SRC
# Written by baton's tools/apt-sources.sh
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
# Only the deb-src of trixie is wanted; keep its binaries from ever winning.
as_root tee /etc/apt/preferences.d/baton-trixie >/dev/null <<PREF
Package: *
Pin: release n=trixie
Pin-Priority: -1
PREF
as_root apt-get update -qq
