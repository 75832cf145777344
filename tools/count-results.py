#!/usr/bin/env python3
"""Counts test cases in meson's JUnit log: GoogleTest programs contribute one
case per TEST, other programs one each. Prints the closing summary line."""
import json
import os
import sys
import xml.etree.ElementTree as ET


def log_entries(junit_path):
    """Each test program's entry in meson's JSON log (beside the JUnit one):
    name, result, return code and output. Empty when there is no log."""
    path = os.path.join(os.path.dirname(junit_path), "testlog.json")
    try:
        with open(path) as log:
            return [json.loads(line) for line in log]
    except OSError:
        return []


def program_results(junit_path):
    """Each test program's own result: name -> (result, return code)."""
    return {entry["name"]: (entry.get("result"), entry.get("returncode"))
            for entry in log_entries(junit_path)}


def skip_reasons_from_output(junit_path):
    """Non-GoogleTest programs skip with exit 77 and say why on a line
    containing SKIP; meson's JSON log keeps their output."""
    reasons = {}
    for entry in log_entries(junit_path):
        if entry.get("result") != "SKIP":
            continue
        said = [l for l in (entry.get("stdout") or "").splitlines() if "SKIP" in l]
        reasons[entry["name"]] = said[0].strip() if said else "(no reason printed)"
    return reasons


# Lines of a failed program's output that say why: a guest test's "NAME:
# FAIL: ...", vm-run's own verdict and what it saw running before the VM's
# time ran out, GoogleTest's failure and its values, a sanitizer's report.
WHY_MARKERS = (": FAIL: ", "vm-run: FAILED", "vm-run: still running", ": Failure", "Expected",
               "Which is", "Value of", "Actual", "timed out", "ERROR: AddressSanitizer",
               "runtime error:")


def unfinished_case(output):
    """The GoogleTest case that started and never finished (a hang, a crash)."""
    running = None
    for l in output.splitlines():
        if l.startswith("[ RUN      ] "):
            running = l[len("[ RUN      ] "):].strip()
        elif l.startswith(("[       OK ] ", "[  FAILED  ] ", "[  SKIPPED ] ")):
            running = None
    return running


def why_failed_from_output(junit_path):
    """The last few lines saying why each failed program failed: CI shows
    only the tail of the log, where the program's own output is long gone."""
    lines = []
    for entry in log_entries(junit_path):
        if entry.get("result") not in ("FAIL", "TIMEOUT", "ERROR"):
            continue
        output = (entry.get("stdout") or "") + "\n" + (entry.get("stderr") or "")
        said = [l.strip() for l in output.splitlines()
                if any(marker in l for marker in WHY_MARKERS)]
        running = unfinished_case(output)
        if running:
            said.append(f"the case that never finished: {running}")
        lines += [f"  why: {entry['name']}: {l[:240]}" for l in said[-6:]]
    return lines


def suite_counts_from_output(junit_path):
    """The conformance suite (WLCS) and the fuzzer's bounded run are one
    meson test each with figures of their own: their lines "wlcs: N tests:
    ..." and "fuzz: N executions ..." go into the summary."""
    lines = []
    for entry in log_entries(junit_path):
        lines += [l.strip() for l in (entry.get("stdout") or "").splitlines()
                  if l.startswith(("wlcs: ", "fuzz: "))]
    return lines


try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError) as error:
    print(f"cannot read test results: {error}")
    print("0 passed, 1 failed")
    sys.exit(1)

output_reasons = skip_reasons_from_output(sys.argv[1])
passed = failed = skipped = 0
skip_reasons = []
failed_cases = []  # (suite name, case name)
for suite in root.iter("testsuite"):
    for case in suite.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed_cases.append((suite.get("name") or "", case.get("name") or ""))
for case in root.iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif case.find("skipped") is not None:
        skipped += 1
        reason = case.find("skipped").get("message") or ""
        if not reason:
            reason = next((r for name, r in output_reasons.items() if name.endswith(case.get("name") or "")), "")
        skip_reasons.append(f"  skipped: {case.get('classname')}.{case.get('name')} {reason}".rstrip())
    else:
        passed += 1
# A program can fail with no failed case to show for it (a sanitizer's report
# at exit, a crash in teardown): that is one more failure, not a pass.
failed_programs = []
for name, (result, returncode) in program_results(sys.argv[1]).items():
    if result not in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"):
        continue
    # GoogleTest cases sit in suites named "<project>.<program>.<Suite>", a
    # plain program's one case is named after the program.
    if any(f".{name}." in suite or case == name for suite, case in failed_cases):
        continue
    failed += 1
    failed_programs.append(f"  failed: {name} ({result}, exit {returncode}) with no failed case")
# Every failed case by name, so that a log's tail says what failed.
failed_names = [f"  failed: {case if case == suite else f'{suite}.{case}'}"
                for suite, case in failed_cases]
why = why_failed_from_output(sys.argv[1])
for line in (skip_reasons + failed_names + failed_programs + why +
             suite_counts_from_output(sys.argv[1])):
    print(line)
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed or passed == 0 else 0)
