#!/usr/bin/env bash
# Prints the Debian mirror URI this machine's apt configuration already uses
# (deb822 .sources first, then a one-line sources.list), so that nothing in
# the repository names a host. Exits 1 with a reason when there is none.
set -euo pipefail

uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
      awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
  uri=$(grep -hE '^deb ' /etc/apt/sources.list |
        awk '{for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) {print $i; exit}}' |
        grep -E '/debian/?$' | head -n1 || true)
fi
if [ -z "$uri" ]; then
  echo "baton setup: no Debian mirror found in the apt configuration (/etc/apt/sources.list*)" >&2
  exit 1
fi
printf '%s\n' "${uri%/}"
