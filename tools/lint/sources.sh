#!/usr/bin/env bash
# Prints baton's own C++ sources, one per line, relative to the repository:
# what the lint tests check. Tests and benchmarks are ours too; generated
# code and the wlroots subproject are not.
set -euo pipefail
cd "$(dirname "$0")/../.."
git ls-files -- '*.cpp' '*.hpp' 2>/dev/null ||
  find util sync handoff protocols renderer backend compositor bench tests -name '*.[ch]pp'
