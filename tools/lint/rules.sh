#!/usr/bin/env bash
# Lint test: the house rules clang-tidy cannot see, over baton's own
# production code (everything but tests/):
#   - no hand-paired wl_signal_add / wl_list_remove (util/listener.hpp owns that);
#   - no naked close() of an fd (util/unique_fd owns that);
#   - no mutable globals: no `static` variable at namespace scope that is not
#     const/constexpr (function-local constants are fine);
#   - no strerror() by hand: errors are util/result.hpp's Error (last_error(),
#     Error::describe()), and util/result.cpp is the one place that calls it;
#   - kernel fence and timeline calls (dma-buf sync_file ioctls, SYNC_IOC_*,
#     drmSyncobj*) only in sync/, for the client and the output side alike;
#   - no header of handoff/ or protocols/ includes the Vulkan renderer: the
#     hand-off asks renderer/gpu_reads.hpp whether the GPU's reads are done;
#   - renderer/vulkan/introspection.hpp (test hooks) only in tests, the
#     benchmark and renderer.cpp, which defines them;
#   - the log lines tests grep for are still printed (tools/lint/log_contract.py);
#   - includes point down the layers (tools/lint/layers.py; the build runs it too).
set -uo pipefail
cd "$(dirname "$0")/../.."
mapfile -t files < <(bash tools/lint/sources.sh | grep -v '^tests/')
broken=0
report() {  # RULE, then grep -n output on stdin
  local hits
  hits=$(cat)
  if [ -n "$hits" ]; then
    echo "house rule broken: $1"
    printf '%s\n' "$hits" | sed 's/^/  /'
    broken=1
  fi
}
# (report reads from process substitutions: it must run in this shell.)
report "wl_signal_add / wl_list_remove by hand (use Listener)" < <(
  grep -nE '\bwl_(signal_add|list_remove)\(' "${files[@]}" | grep -v '^util/listener\.hpp:')
report "close() of an fd by hand (use UniqueFd)" < <(
  grep -nE '(^|[^_.>a-zA-Z])(::)?close\(( *[a-z_]*fd|[a-z_]+_\.get\(\))' "${files[@]}" |
    grep -v '^util/unique_fd\.')
report "a mutable global (the Server owns everything)" < <(
  grep -nE '^(static|namespace \{ static) [^(]*[=;]' "${files[@]}" | grep -vE '\b(const|constexpr)\b')
report "strerror() by hand (use last_error() / Error::describe())" < <(
  grep -nE '\bstrerror(_r|name_np)?\(' "${files[@]}" | grep -v '^util/result\.cpp:')
report "a kernel fence or timeline call outside sync/ (use sync::SyncFile, sync::Timeline)" < <(
  grep -nE '\b(DMA_BUF_IOCTL_[A-Z_]+|SYNC_IOC_[A-Z_]+|drmSyncobj[A-Za-z]+)\b' "${files[@]}" |
    grep -vE '^sync/|^[^:]*:[0-9]+: *//')
report "a hand-off or protocol header includes the Vulkan renderer (use renderer/gpu_reads.hpp)" < <(
  grep -nE '#include [<"](renderer/vulkan/|vulkan/)' "${files[@]}" | grep -E '^(handoff|protocols)/[^:]*\.hpp:')
report "production code includes the renderer's test hooks (introspection.hpp)" < <(
  grep -n '#include "renderer/vulkan/introspection.hpp"' "${files[@]}" |
    grep -vE '^(bench/|renderer/vulkan/renderer\.cpp:)')
python3 tools/lint/log_contract.py . || broken=1
python3 tools/lint/layers.py . || broken=1
if [ $broken = 1 ]; then exit 1; fi
echo "house rules: ${#files[@]} files keep them"
