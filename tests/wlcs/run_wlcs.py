#!/usr/bin/env python3
"""Runs WLCS over baton-wlcs.so and checks the expected-failure list.

usage: run_wlcs.py RUNNER MODULE EXPECTED_FAILURES
       run_wlcs.py --fetch-runner FETCH_SCRIPT CACHE MODULE EXPECTED_FAILURES
       run_wlcs.py --missing

--fetch-runner: the runner is the one FETCH_SCRIPT (fetch-runner.sh) unpacks
under CACHE and names; when it cannot, this fails with its reason.

Every test off the list must pass (or be skipped by WLCS for an extension
baton does not offer); every test on it must fail. A listed test that
passes fails this test too, so the list only ever shrinks on purpose.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def read_list(path):
    """({test name: reason}, {flaky test name: reason}); lines are
    'Suite.test  # reason', and '~Suite.test  # reason' for a test seen both
    passing and failing (run, reported, but either result is accepted)."""
    expected, flaky = {}, {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            name, _, reason = line.partition('#')
            name = name.strip()
            if name.startswith('~'):
                flaky[name[1:]] = reason.strip()
            else:
                expected[name] = reason.strip()
    return expected, flaky


# Tests that fail by WLCS's 10 s timeout mostly wait: shards run side by side.
SHARDS = 16
MESSAGES = {}  # test name: its first failure, as gtest wrote it


def run(runner, module, pattern, shards=SHARDS):
    """{test name: 'passed' | 'failed' | 'skipped'}, and the output of the
    shards that died before writing their report (those tests are absent)."""
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for index in range(shards):
            report = os.path.join(tmp, f'{index}.json')
            env = dict(os.environ, GTEST_TOTAL_SHARDS=str(shards), GTEST_SHARD_INDEX=str(index))
            log = open(os.path.join(tmp, f'{index}.log'), 'w+')
            procs.append((report, log, subprocess.Popen(
                [runner, module, '--gtest_filter=' + pattern, '--gtest_output=json:' + report],
                stdout=log, stderr=subprocess.STDOUT, env=env)))
        results, died = {}, ''
        for report, log, proc in procs:
            proc.wait()
            log.seek(0)
            if not os.path.exists(report):
                died += log.read()
                continue
            with open(report) as f:
                data = json.load(f)
            for suite in data.get('testsuites', []):
                for test in suite.get('testsuite', []):
                    name = suite['name'] + '.' + test['name']
                    if test.get('failures'):
                        results[name] = 'failed'
                        MESSAGES[name] = test['failures'][0].get('failure', '')
                    elif test.get('result') in ('SKIPPED', 'SUPPRESSED'):
                        results[name] = 'skipped'
                    else:
                        results[name] = 'passed'
            log.close()
    return results, died


def main():
    if sys.argv[1:] == ['--missing']:
        print('SKIP: the wlcs package is not installed (tools/deps.sh --tests installs it)')
        return 77
    args = sys.argv[1:]
    if args[0] == '--fetch-runner':
        fetched = subprocess.run(['bash', args[1], args[2]], stdout=subprocess.PIPE, text=True)
        if fetched.returncode != 0:
            print('wlcs: FAIL: no WLCS runner (fetch-runner.sh, above, says why)')
            return 1
        args = [fetched.stdout.strip()] + args[3:]
    runner, module, list_path = args[:3]
    expected, flaky = read_list(list_path)
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
    problems = [f'{name}: on the list but WLCS has no such test'
                for name in list(expected) + list(flaky) if name not in every]

    # (a) everything off the list.
    results, died = run(runner, module, '-' + ':'.join(expected) if expected else '*')
    if died:
        print(died)
        problems.append('a runner died running the tests off the list (output above)')
    passed = sum(1 for n, r in results.items() if r == 'passed' and n not in flaky)
    skipped = sum(1 for r in results.values() if r == 'skipped')
    flaky_failed = sorted(name for name in flaky if results.get(name) == 'failed')
    for name in flaky_failed:
        print(f'flaky test failed (accepted: {flaky[name]}): {name}')
    failed = sorted(name for name, result in results.items()
                    if result == 'failed' and name not in flaky)
    for name in failed:
        problems.append(f'{name}: FAILED (not on the expected-failure list): '
                        + MESSAGES.get(name, '').replace('\n', ' ')[:300])

    # (b) the list; if a crash took a runner down, its tests one by one.
    listed, died = run(runner, module, ':'.join(expected)) if expected else ({}, '')
    for name in expected:
        if name not in listed and died:  # a crash fails a test, but which one?
            one, _ = run(runner, module, name, shards=1)
            listed[name] = one.get(name, 'failed')
    xfail, unexpected = 0, 0
    for name in expected:
        result = listed.get(name)
        if result == 'failed':
            xfail += 1
        elif result is not None:
            unexpected += 1
            problems.append(f'{name}: {result.upper()} but on the expected-failure list '
                            f'({expected[name]}): take it off tests/wlcs/expected_failures.txt')

    for problem in problems:
        print('PROBLEM:', problem)
    print(f'wlcs: {len(every)} tests: {passed} passed, {xfail} expected failures, '
          f'{len(failed)} failed, {unexpected} unexpectedly passed, '
          f'{len(flaky_failed)} of {len(flaky)} flaky failed, {skipped} skipped by WLCS '
          f'({time.monotonic() - start:.1f} s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
