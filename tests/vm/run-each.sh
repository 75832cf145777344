#!/usr/bin/env bash
# Runs inside the guest: each argument is one test command (a string run by
# bash), in order, in one boot. Prints a result line per command and fails
# when any failed, so one VM boot serves several tests. A command written
# "[NAME] COMMAND" is reported as NAME (several runs of one script apart).
# Exit status: 1 when any failed; else 77 (meson's skip) when any skipped,
# so that a skipped part is never hidden by the others' passes; else 0.
failed=0 skipped=0
summary=()
for test in "$@"; do
  name=${test%% *}
  name=${name##*/}
  if [[ $test == \[*\]\ * ]]; then
    name=${test%%]*} name=${name#[}
    test=${test#*] }
  fi
  echo "==== vm test: $name: $test"
  start=${EPOCHREALTIME/./}
  bash -c "$test"
  rc=$?
  us=$((${EPOCHREALTIME/./} - start))
  case $rc in
    0) verdict=PASS ;;
    77) verdict=SKIP; skipped=1 ;;
    *) verdict="FAIL (exit $rc)"; failed=1 ;;
  esac
  summary+=("$(printf '%-14s %4d.%02ds  %s' "$verdict" $((us / 1000000)) $((us / 10000 % 100)) "$name")")
done
echo "==== vm results"
printf '  %s\n' "${summary[@]}"
[ $failed = 1 ] && exit 1
[ $skipped = 1 ] && exit 77
exit 0
