#!/usr/bin/env bash
# Runs inside the guest: each argument is one test command (a string run by
# bash), in order, in one boot. Prints a result line per command and fails
# when any failed, so one VM boot serves several tests.
failed=0
summary=()
for test in "$@"; do
  name=${test%% *}
  echo "==== vm test: $test"
  start=${EPOCHREALTIME/./}
  bash -c "$test"
  rc=$?
  us=$((${EPOCHREALTIME/./} - start))
  case $rc in
    0) verdict=PASS ;;
    77) verdict=SKIP ;;
    *) verdict="FAIL (exit $rc)"; failed=1 ;;
  esac
  summary+=("$(printf '%-14s %4d.%02ds  %s' "$verdict" $((us / 1000000)) $((us / 10000 % 100)) "${name##*/}")")
done
echo "==== vm results"
printf '  %s\n' "${summary[@]}"
exit $failed
