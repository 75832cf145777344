#!/usr/bin/env python3
"""Runs WLCS over baton-wlcs.so and checks it against the two lists.

usage: run_wlcs.py RUNNER MODULE EXPECTED_FAILURES SKIPPED_BY_POLICY
       run_wlcs.py --fetch-runner FETCH_SCRIPT CACHE MODULE EXPECTED_FAILURES SKIPPED_BY_POLICY
       run_wlcs.py --missing

--fetch-runner: the runner is the one FETCH_SCRIPT (fetch-runner.sh) unpacks
under CACHE and names; when it cannot, this fails with its reason.

Every WLCS test is in one of three places:
- on neither list: it must pass (or be skipped by WLCS itself);
- on EXPECTED_FAILURES, naming a cause: it must fail, and for that cause:
  the cause's pattern must match what the test printed up to and with its
  first failure (a libwayland protocol error line, gtest's assertion or
  exception text). A listed test that passes, or fails for another reason,
  fails this test, with the test's name, its cause and what it printed;
- on SKIPPED_BY_POLICY: a test of a protocol baton does not offer on
  purpose. It is not run, and is counted.

The list files (docs/wlcs.md says how to keep them):
    @cause NAME: PATTERN  # why          (EXPECTED_FAILURES: a Python regex)
    @policy NAME  # why                  (SKIPPED_BY_POLICY)
    Suite.test  @NAME  # optional note
    ~Suite.test  @NAME                   (flaky: a pass is accepted too)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

RUN = '[ RUN      ] '


class ListError(Exception):
    pass


def read_list(path, keyword):
    """(definitions, tests, flaky): definitions {name: (pattern or None, why)},
    tests {test: name}; flaky is the set of tests marked '~'."""
    definitions, tests, flaky = {}, {}, set()
    problems = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            where = f'{os.path.basename(path)}:{number}'
            body, _, why = line.rstrip('\n').partition('  # ')
            body = body.strip()
            if not body or body.startswith('#'):
                continue
            if body.startswith('@'):
                word, _, rest = body.partition(' ')
                if word != '@' + keyword:
                    problems.append(f'{where}: expected "@{keyword} NAME ...", got "{word}"')
                    continue
                if keyword == 'cause':
                    name, colon, pattern = rest.partition(': ')
                    if not colon or not pattern.strip():
                        problems.append(f'{where}: "@cause NAME: PATTERN  # why"')
                        continue
                    try:
                        compiled = re.compile(pattern.strip(), re.MULTILINE)
                    except re.error as e:
                        problems.append(f'{where}: the pattern of @{name} is no regex: {e}')
                        continue
                else:
                    name, compiled = rest.strip(), None
                name = name.strip()
                if name in definitions:
                    problems.append(f'{where}: @{name} is defined twice')
                if not why.strip():
                    problems.append(f'{where}: @{name} says no why ("  # why" after it)')
                definitions[name] = (compiled, why.strip())
                continue
            parts = body.split()
            if len(parts) != 2 or not parts[1].startswith('@'):
                problems.append(f'{where}: expected "Suite.test  @NAME", got "{body}"')
                continue
            test, name = parts[0], parts[1][1:]
            if test.startswith('~'):
                test = test[1:]
                flaky.add(test)
            if name not in definitions:
                problems.append(f'{where}: {test} names @{name}, defined by no "@{keyword}" line'
                                ' above it')
            if test in tests:
                problems.append(f'{where}: {test} is listed twice')
            tests[test] = name
    unused = sorted(set(definitions) - set(tests.values()))
    problems += [f'{os.path.basename(path)}: @{name} is defined but no test names it'
                 for name in unused]
    if problems:
        more = f'\n... and {len(problems) - 20} more' if len(problems) > 20 else ''
        raise ListError('\n'.join(problems[:20]) + more)
    return definitions, tests, flaky


# Tests that fail by WLCS's 10 s timeout mostly wait: shards run side by side.
SHARDS = 16


def sections(log):
    """{test name: what the runner printed from its RUN line to the next}."""
    out = {}
    for chunk in log.split(RUN)[1:]:
        name = chunk.split('\n', 1)[0].strip()
        out[name] = RUN + chunk
    return out


def first_failure(printed, reported=''):
    """What a test printed up to the end of its first failure report (gtest's
    'file:line: Failure' block, which ends at a blank line). WLCS's printer
    shows a missing extension as a skip, without the failure its report
    holds: then all it printed, and `reported`, the report's first failure."""
    match = re.search(r'^.*: Failure\n', printed, re.MULTILINE)
    if not match:
        # The report writes 'file:line\n', the printer 'file:line: Failure\n'.
        return printed + re.sub(r'^(.*:\d+|unknown file)\n', r'\1: Failure\n', reported, count=1)
    end = printed.find('\n\n', match.end())
    return printed if end < 0 else printed[:end + 1]


def run(runner, module, pattern, shards=SHARDS):
    """({test name: 'passed' | 'failed' | 'skipped'}, {failed test: what it
    printed up to its first failure}, the output of the shards that died
    before writing their report (those tests are absent))."""
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for index in range(shards):
            report = os.path.join(tmp, f'{index}.json')
            env = dict(os.environ, GTEST_TOTAL_SHARDS=str(shards), GTEST_SHARD_INDEX=str(index))
            log = open(os.path.join(tmp, f'{index}.log'), 'w+', errors='replace')
            procs.append((report, log, subprocess.Popen(
                [runner, module, '--gtest_filter=' + pattern, '--gtest_output=json:' + report],
                stdout=log, stderr=subprocess.STDOUT, env=env)))
        results, printed, died = {}, {}, ''
        for report, log, proc in procs:
            proc.wait()
            log.seek(0)
            text = log.read()
            log.close()
            if not os.path.exists(report):
                died += text
                continue
            output = sections(text)
            with open(report) as f:
                data = json.load(f)
            for suite in data.get('testsuites', []):
                for test in suite.get('testsuite', []):
                    name = suite['name'] + '.' + test['name']
                    if test.get('failures'):
                        results[name] = 'failed'
                        printed[name] = first_failure(output.get(name, ''),
                                                      test['failures'][0].get('failure', ''))
                    elif test.get('result') in ('SKIPPED', 'SUPPRESSED'):
                        results[name] = 'skipped'
                    else:
                        results[name] = 'passed'
    return results, printed, died


def indent(text, lines=14):
    kept = text.rstrip('\n').split('\n')
    if len(kept) > lines:
        kept = [f'[... {len(kept) - lines} lines before]'] + kept[-lines:]
    return '\n'.join('    | ' + line for line in kept)


def main():
    if sys.argv[1:] == ['--missing']:
        print('SKIP: the wlcs package is not installed (tools/deps.sh --tests installs it)')
        return 77
    args = sys.argv[1:]
    if args and args[0] == '--fetch-runner':
        fetched = subprocess.run(['bash', args[1], args[2]], stdout=subprocess.PIPE, text=True)
        if fetched.returncode != 0:
            print('wlcs: FAIL: no WLCS runner (fetch-runner.sh, above, says why)')
            return 1
        args = [fetched.stdout.strip()] + args[3:]
    if len(args) != 4:
        print(__doc__)
        return 2
    runner, module, expected_path, policy_path = args
    try:
        causes, expected, flaky = read_list(expected_path, 'cause')
        policies, skipped, _ = read_list(policy_path, 'policy')
    except ListError as e:
        print(f'wlcs: FAIL: the lists are malformed:\n{e}')
        return 1
    start = time.monotonic()
    listing = subprocess.run([runner, module, '--gtest_list_tests'], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
    every, suite = [], ''
    for line in listing.splitlines():
        if not line.strip():
            continue
        if not line.startswith(' '):
            suite = line.split()[0]
        else:
            every.append(suite + line.split()[0])
    known = set(every)
    problems = [f'{name}: on {os.path.basename(path)} but WLCS has no such test'
                for path, names in ((expected_path, expected), (policy_path, skipped))
                for name in names if name not in known]
    problems += [f'{name}: on both lists' for name in expected if name in skipped]

    # (a) everything on neither list must pass.
    off = list(expected) + list(skipped)
    results, printed, died = run(runner, module, '-' + ':'.join(off) if off else '*')
    if died:
        print(died)
        problems.append('a runner died running the tests on neither list (output above)')
    passed = sum(1 for r in results.values() if r == 'passed')
    skipped_by_wlcs = sum(1 for r in results.values() if r == 'skipped')
    failed = sorted(name for name, result in results.items() if result == 'failed')
    for name in failed:
        problems.append(f'{name}: FAILED, and is on no list. It printed:\n'
                        + indent(printed.get(name, '')))

    # (b) the expected failures; if a crash took a runner down, its tests one by one.
    listed, printed, died = run(runner, module, ':'.join(expected)) if expected else ({}, {}, '')
    for name in expected:
        if name not in listed and died:  # a crash fails a test, but which one?
            one, one_printed, one_died = run(runner, module, name, shards=1)
            listed[name] = one.get(name, 'failed')
            printed[name] = one_printed.get(name, first_failure(one_died))
    by_cause = {cause: 0 for cause in causes}
    unexpected, wrong_cause, flaky_passed = 0, 0, 0
    for name, cause in expected.items():
        result = listed.get(name)
        pattern, why = causes[cause]
        if result == 'failed':
            if pattern.search(printed.get(name, '')):
                by_cause[cause] += 1
                continue
            wrong_cause += 1
            problems.append(
                f'{name}: FAILED, but not for its listed cause @{cause} ({why}).\n'
                f'    expected a match for: {pattern.pattern}\n'
                f'    it printed, up to its first failure:\n' + indent(printed.get(name, '')))
        elif result == 'passed' and name in flaky:
            flaky_passed += 1
        elif result is not None:
            unexpected += 1
            problems.append(f'{name}: {result.upper()} but on the expected-failure list '
                            f'(@{cause}): take it off tests/wlcs/expected_failures.txt')
        else:
            problems.append(f'{name}: no result (its runner died; output above)')

    policy_counts = {policy: 0 for policy in policies}
    for policy in skipped.values():
        policy_counts[policy] += 1
    for problem in problems:
        print('PROBLEM:', problem)
    print('expected failures, by cause:')
    for cause, count in sorted(by_cause.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f'  {count:4}  @{cause}')
    print('skipped by policy (not run):')
    for policy, count in sorted(policy_counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f'  {count:4}  @{policy}')
    xfail = sum(by_cause.values())
    print(f'wlcs: {len(every)} tests: {passed} passed, {xfail} expected failures '
          f'(each for its cause), {len(skipped)} skipped by policy, {skipped_by_wlcs} skipped '
          f'by WLCS; {len(failed)} failed, {wrong_cause} failed for another cause, '
          f'{unexpected} unexpectedly passed, {flaky_passed} of {len(flaky)} flaky passed '
          f'({time.monotonic() - start:.1f} s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
