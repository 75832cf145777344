#!/usr/bin/env bash
# Lint test: clang-tidy (.clang-tidy's checks, every finding an error) over
# baton's own .cpp files, with the build's compile_commands.json.
#
# usage: tidy.sh BUILD_DIR [FILE...]   (default: every .cpp of baton's own)
set -uo pipefail
build=$(realpath "${1:?usage: tidy.sh BUILD_DIR [FILE...]}")
shift
cd "$(dirname "$0")/../.."
command -v clang-tidy >/dev/null || { echo "clang-tidy is missing (tools/deps.sh --tests installs it)"; exit 1; }
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json"; exit 1; }
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(bash tools/lint/sources.sh | grep '\.cpp$')
fi
# Only what this build compiles: a file meson left out (tests/wlcs/ without
# the wlcs package) has no flags, and clang-tidy would report its includes
# as missing. Named, not dropped silently.
mapfile -t built < <(python3 -c '
import json, os, sys
build, root = sys.argv[1], os.getcwd()
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    print(os.path.relpath(path, root))
' "$build" | sort -u)
# A set, not `printf | grep -q`: under pipefail grep's early exit could fail
# printf with SIGPIPE on a busy machine, and a built file was then skipped.
declare -A is_built=()
for f in "${built[@]}"; do is_built[$f]=1; done
kept=()
for f in "${files[@]}"; do
  if [ -n "${is_built[$f]:-}" ]; then kept+=("$f"); else echo "clang-tidy: not built here, not checked: $f"; fi
done
files=("${kept[@]}")
# Several files to one clang-tidy run, as many runs at once as there are
# cores: tidy_units.py says why and how.
exec python3 tools/lint/tidy_units.py "$build" "${files[@]}"
