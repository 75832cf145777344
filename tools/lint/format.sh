#!/usr/bin/env bash
# Lint test: every C++ file is as clang-format (.clang-format) would write it.
# On drift it names the files and exits 1; `tools/lint/format.sh --fix`
# rewrites them in place.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
command -v clang-format >/dev/null || { echo "clang-format is missing (tools/deps.sh --tests installs it)"; exit 1; }
mapfile -t files < <(bash tools/lint/sources.sh)
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# Batches of 32 files per clang-format, as many at once as there are cores
# (one process per file, one at a time, took 44 s of CI's suite). Each drift
# is a warning that names its file; any other failure is shown as it is.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '%s\0' "${files[@]}" | xargs -0 -n 32 -P "$(nproc)" clang-format --dry-run >"$out" 2>&1
status=$?
mapfile -t drift < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' "$out" | sort -u)
if [ $status -ne 0 ] && [ ${#drift[@]} -eq 0 ]; then
  echo "clang-format failed (exit $status):"
  head -n 20 "$out"
  exit 1
fi
if [ ${#drift[@]} -gt 0 ]; then
  echo "clang-format: ${#drift[@]} of ${#files[@]} files differ from .clang-format (fix: bash tools/lint/format.sh --fix):"
  printf '  %s\n' "${drift[@]}"
  clang-format --dry-run "${drift[0]}" 2>&1 | head -n 20
  exit 1
fi
echo "clang-format: ${#files[@]} files as .clang-format writes them"
