#!/usr/bin/env bash
# What `meson install` puts on a machine, as a display manager and a user
# find it: the binary, the session file, the example configuration and the
# manual pages baton(1) and baton-config(5). The pages must render without
# groff warnings, name every command-line option `baton --help` lists (and no
# other), every setting config.example shows, and the installed paths.
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
fail() { echo "install: FAIL: $*"; exit 1; }
for tool in groff man python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing (run tools/deps.sh --tests: groff-base, man-db)"
done
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --skip-subprojects --quiet --destdir "$dest" ||
  fail "meson install failed"
read -r prefix bindir datadir mandir <<<"$(meson introspect "$build" --buildoptions |
  python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["bindir"], o["datadir"], o["mandir"])')"
root=$dest$prefix
echo "install: into $prefix (bindir $bindir, datadir $datadir, mandir $mandir)"

[ -x "$root/$bindir/baton" ] || fail "no $prefix/$bindir/baton"
session=$root/$datadir/wayland-sessions/baton.desktop
[ -f "$session" ] || fail "no session file $prefix/$datadir/wayland-sessions/baton.desktop"
grep -qx 'Exec=baton --session' "$session" || fail "the session file does not run baton --session: $(cat "$session")"
grep -qx 'DesktopNames=baton;wlroots' "$session" ||
  fail "the session file does not name the wlroots desktop (xdg-desktop-portal 1.16 picks xdg-desktop-portal-wlr by it)"
cmp -s "$root/$datadir/xdg-desktop-portal/baton-portals.conf" "$src/baton-portals.conf" ||
  fail "$prefix/$datadir/xdg-desktop-portal/baton-portals.conf is not the source's baton-portals.conf"
cmp -s "$root/$datadir/baton/config.example" "$src/config.example" ||
  fail "$prefix/$datadir/baton/config.example is not the source's config.example"

man1=$root/$mandir/man1/baton.1 man5=$root/$mandir/man5/baton-config.5
for page in "$man1" "$man5"; do
  [ -f "$page" ] || fail "no manual page ${page#"$dest"}"
  ! grep -n '@[A-Z]*@' "$page" || fail "$(basename "$page") has unfilled placeholders"
  warnings=$(groff -man -ww -z "$page" 2>&1) || fail "groff cannot format $(basename "$page")"
  [ -z "$warnings" ] || fail "groff warns about $(basename "$page"): $warnings"
  # man renders it as a user reads it (no pager, a fixed width).
  text=$(MANPAGER=cat MANWIDTH=80 man -l "$page" 2>&1) || fail "man -l $(basename "$page") failed"
  echo "install: $(basename "$page"): $(wc -l <<<"$text") lines, e.g. \"$(sed -n '4p' <<<"$text" | sed 's/^ *//')\""
done
grep -q "$prefix/$datadir/baton/config.example" "$man1" "$man5" ||
  fail "the pages do not name the installed config.example"

# Every long option of --help in baton(1), and nothing --help lacks.
help_opts=$("$root/$bindir/baton" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u) ||
  help_opts=$("$build/compositor/baton" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
page_opts=$(grep -o '\\-\\-[a-z][a-z\\-]*' "$man1" | sed 's/\\-/-/g' | sort -u)
missing=$(comm -23 <(echo "$help_opts") <(echo "$page_opts"))
extra=$(comm -13 <(echo "$help_opts") <(echo "$page_opts"))
[ -z "$missing" ] || fail "baton(1) lacks options that --help lists: $(echo $missing)"
[ -z "$extra" ] || fail "baton(1) names options baton does not have: $(echo $extra)"
echo "install: baton(1) documents all $(wc -l <<<"$help_opts") options of --help"

# Every setting of config.example (commented-out ones too) in baton-config(5).
keys=$(sed -n -E 's/^#? ?([a-z_]+) = .*/\1/p; s/^\[\[?([a-z]+)\]\]?$/\1/p' "$src/config.example" | sort -u)
undocumented=""
for key in $keys; do
  grep -q -w -- "$key" "$man5" || undocumented="$undocumented $key"
done
[ -z "$undocumented" ] || fail "baton-config(5) lacks settings of config.example:$undocumented"
echo "install: baton-config(5) documents all $(wc -l <<<"$keys") settings and tables of config.example"
echo "install: PASS"
