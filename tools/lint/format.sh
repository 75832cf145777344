#!/usr/bin/env bash
# Lint test: every C++ file is as clang-format (.clang-format) would write it.
# On drift it names the files and exits 1; `tools/lint/format.sh --fix`
# rewrites them in place.
set -uo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "clang-format is missing (tools/deps.sh --tests installs it)"; exit 1; }
mapfile -t files < <(bash tools/lint/sources.sh)
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
drift=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || drift+=("$f")
done
if [ ${#drift[@]} -gt 0 ]; then
  echo "clang-format: ${#drift[@]} of ${#files[@]} files differ from .clang-format (fix: bash tools/lint/format.sh --fix):"
  printf '  %s\n' "${drift[@]}"
  clang-format --dry-run "${drift[0]}" 2>&1 | head -n 20
  exit 1
fi
echo "clang-format: ${#files[@]} files as .clang-format writes them"
