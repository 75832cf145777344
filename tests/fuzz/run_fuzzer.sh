#!/usr/bin/env bash
# Runs the libFuzzer protocol fuzzer for a while and reports what it did.
#
# usage: run_fuzzer.sh FUZZER SECONDS [JOBS]
#   FUZZER   build-fuzz/tests/fuzz/baton-fuzz-protocol (tools/fuzz builds it)
#   SECONDS  how long each job fuzzes
#   JOBS     parallel jobs (default 1), each a process with its own Server
#
# Starts from the committed seed corpus (tests/fuzz/corpus, read only) and the
# crash regressions; new inputs go to a scratch corpus in the build tree.
# Prints one line: executions, executions per second, coverage (libFuzzer's
# edge count "cov" and feature count "ft"), corpus size, crashes. Exits 1 when
# an input crashed baton, leaked or made it stop answering; the input is kept
# under the build tree, and the line says where. Copy it to
# tests/fuzz/regressions/ with the fix, so that `fuzz-corpus` runs it for ever.
set -uo pipefail
fuzzer=$1 seconds=$2 jobs=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(cd "$(dirname "$fuzzer")" && pwd)/fuzz-run
rm -rf "$work/logs"
mkdir -p "$work/corpus" "$work/crashes" "$work/logs"
: "${XDG_RUNTIME_DIR:=$work/runtime}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}"
# A 16 MB quarantine for freed memory, not ASan's 256: with 256 a freed block
# comes back into use long after it left the cache, and allocation was the
# top of the profile (perf: 23% in the allocator). 5000 runs from the same
# inputs took 148 and 136 s with 256, 76 and 104 s with 16 (peak RSS 525 MB
# against 130). A use after free is still caught while the block is among
# the last 16 MB freed: about 20 inputs' worth (an input frees 0.8 MB).
case "$ASAN_OPTIONS" in
  *quarantine_size_mb=*) ;;
  *) ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=16" ;;
esac
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/../sanitizers/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}"

touch "$work/logs/.start"
start=$(date +%s)
pids=()
for ((j = 0; j < jobs; ++j)); do
  # -max_len: a few hundred actions. -timeout: inputs take a few ms, but one
  # took 13 s of wall time at nice 19 on a machine busy with a CI run (it
  # replays in 0.1 s): a minute is what a hang is. -entropic=0: libFuzzer's
  # entropic schedule keeps a count per feature, and with this target's ~10^5
  # features that bookkeeping took half the time (perf); without it a job ran
  # 290 inputs/s instead of 213 and reached more edges in the same 90 s.
  "$fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=60 -rss_limit_mb=4096 -entropic=0 \
    -print_final_stats=1 -artifact_prefix="$work/crashes/" \
    "$work/corpus" "$here/corpus" "$here/regressions" >"$work/logs/job-$j.log" 2>&1 &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
elapsed=$(($(date +%s) - start))

# A job that crashed prints its final stats twice (from the crash handler and
# at exit): the last of each job's, summed over the jobs.
sum_stat() {
  for log in "$work"/logs/job-*.log; do sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; done |
    awk '{s += $1} END {print s + 0}'
}
runs=$(sum_stat number_of_executed_units)
# Coverage of the job that saw most (each job counts its own).
cov=$(grep -ho 'cov: [0-9]*' "$work"/logs/job-*.log | awk '{if ($2 > m) m = $2} END {print m + 0}')
ft=$(grep -ho 'ft: [0-9]*' "$work"/logs/job-*.log | awk '{if ($2 > m) m = $2} END {print m + 0}')
corpus=$(find "$work/corpus" -type f | wc -l)
# libFuzzer keeps crash-, leak-, timeout- and oom- inputs there, and also
# slow-unit- ones: an input that took over 10 s, which on a machine busy with
# other work (this runs at nice 19) is the machine, not baton. Those are
# listed, not failed on; a hang is the 60 s timeout's.
new_artifacts() { find "$work/crashes" -type f -newer "$work/logs/.start" "$@"; }
crashes=$(new_artifacts ! -name 'slow-unit-*' | wc -l)
slow=$(new_artifacts -name 'slow-unit-*' | wc -l)
rate=$((runs / (elapsed > 0 ? elapsed : 1)))
echo "fuzz: $runs executions in ${elapsed}s ($rate/s, $jobs job(s)); coverage: cov $cov ft $ft;" \
  "corpus $corpus new inputs; crashes $crashes; slow units $slow"
new_artifacts -name 'slow-unit-*' -printf 'fuzz: a slow unit (over 10 s, replay it to see whether it still is): %p\n'

if [ "$failed" != 0 ] || [ "$crashes" != 0 ] || [ "$runs" = 0 ]; then
  for log in "$work"/logs/job-*.log; do
    if grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|fuzz: baton no longer|SUMMARY' "$log"; then
      echo "--- $log"
      grep -E -A40 'ERROR: |runtime error|fuzz: baton no longer' "$log" | head -80
    fi
  done
  new_artifacts ! -name 'slow-unit-*' -printf 'fuzz: crashing input kept: %p\n'
  [ "$runs" = 0 ] && echo "fuzz: FAIL: no executions (see $work/logs)"
  exit 1
fi
