#!/usr/bin/env bash
# Adds bookworm-backports (binaries) and trixie (deb-src only, for the wlroots
# source package) to apt, reusing the mirror URI the machine is already
# configured with, so no host name lives in this repository.
set -euo pipefail

list=/etc/apt/sources.list.d/baton.sources
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -E "$@"; fi; }

if [ -f "$list" ]; then exit 0; fi
uri=$(bash "$(dirname "$0")/mirror-uri.sh")
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
