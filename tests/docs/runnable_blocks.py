#!/usr/bin/env python3
"""Runs the shell blocks of README.md and docs/*.md that are marked runnable.

usage: runnable_blocks.py SOURCE_DIR BUILD_DIR [--list]

A fenced ```sh (or ```bash) block whose fence line comes right after the line
`<!-- runnable -->` is run with bash (`set -euo pipefail` first), from a
folder that looks like the source root with `build/` being BUILD_DIR: the
source root itself when BUILD_DIR is SOURCE_DIR/build, otherwise a temporary
folder of links to the source root's entries and to BUILD_DIR as `build`.
BATON_SOURCE_DIR and BATON_BUILD_DIR are set for the blocks too.

A block marked `<!-- ci: ... -->` is run by CI (.ci/run), not here (the two
commands: tools/test runs this test). Each of its command lines must appear
in .ci/run, so the docs cannot name a command CI no longer runs.

Fails with FILE:LINE of each block that fails, of a marker that is not right
above a shell fence, and when no runnable block is found at all. Prints how
many blocks it ran, checked and left unmarked. --list only lists them.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

RUNNABLE = "<!-- runnable -->"
CI = re.compile(r"^<!-- ci: .+ -->$")
SHELL_FENCE = re.compile(r"^```(sh|bash)\s*$")
BLOCK_TIMEOUT_S = 180


class Block:
    def __init__(self, path, line, kind, text):
        self.path, self.line, self.kind, self.text = path, line, kind, text

    def where(self):
        return f"{self.path}:{self.line}"


def parse(source_dir, rel):
    """(blocks, errors) of one Markdown file; a block's line is its fence's."""
    blocks, errors = [], []
    with open(os.path.join(source_dir, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    marker = None  # (kind, line number) of a marker on the line before
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("```"):
            fence_line = i + 1
            lang_ok = SHELL_FENCE.match(line) is not None
            body = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                errors.append(f"{rel}:{fence_line}: a fence that never closes")
            kind = marker[0] if marker else "unmarked"
            if marker and not lang_ok:
                errors.append(f"{rel}:{marker[1]}: marked block is not a ```sh or ```bash block")
            elif lang_ok or marker:
                blocks.append(Block(rel, fence_line, kind, "\n".join(body) + "\n"))
            marker = None
        elif line == RUNNABLE:
            marker = ("runnable", i + 1)
        elif CI.match(line):
            marker = ("ci", i + 1)
        else:
            if marker:
                errors.append(f"{rel}:{marker[1]}: marker not on the line right above a fence")
            marker = None
            if line.startswith("<!--") and re.search(r"\brun|^<!--\s*ci\b", line):
                errors.append(f"{rel}:{i + 1}: a marker spelt otherwise than "
                              f"'{RUNNABLE}' or '<!-- ci: WHY -->': {line}")
        i += 1
    if marker:
        errors.append(f"{rel}:{marker[1]}: marker at the end of the file")
    return blocks, errors


def markdown_files(source_dir):
    files = ["README.md"]
    docs = os.path.join(source_dir, "docs")
    if os.path.isdir(docs):
        files += sorted("docs/" + n for n in os.listdir(docs) if n.endswith(".md"))
    return [f for f in files if os.path.isfile(os.path.join(source_dir, f))]


def commands(text):
    """The command lines of a block: comments and blank lines dropped."""
    out = []
    for line in text.split("\n"):
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def work_dir(source_dir, build_dir, scratch):
    """A folder where `build/` is build_dir and everything else the source's."""
    if os.path.realpath(build_dir) == os.path.realpath(os.path.join(source_dir, "build")):
        return source_dir
    farm = os.path.join(scratch, "source")
    os.mkdir(farm)
    for name in os.listdir(source_dir):
        if name != "build":
            os.symlink(os.path.join(source_dir, name), os.path.join(farm, name))
    os.symlink(build_dir, os.path.join(farm, "build"))
    return farm


def run_block(block, cwd, env, scratch):
    script = os.path.join(scratch, "block.sh")
    with open(script, "w") as f:
        f.write("set -euo pipefail\n" + block.text)
    log_path = os.path.join(scratch, "block.log")
    started = time.monotonic()
    # Output to a file, not a pipe: a client the block started may outlive it
    # holding the pipe. Its own session, so whatever it left is ended after.
    with open(log_path, "w") as log:
        proc = subprocess.Popen(["bash", script], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = proc.wait(timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            status = None
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    with open(log_path, errors="replace") as f:
        output = f.read()
    return status, output, time.monotonic() - started


def main(argv):
    args = [a for a in argv[1:] if a != "--list"]
    if len(args) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    source_dir, build_dir = (os.path.realpath(a) for a in args)
    blocks, errors = [], []
    files = markdown_files(source_dir)
    for rel in files:
        found, errs = parse(source_dir, rel)
        blocks += found
        errors += errs
    runnable = [b for b in blocks if b.kind == "runnable"]
    ci_blocks = [b for b in blocks if b.kind == "ci"]
    unmarked = [b for b in blocks if b.kind == "unmarked"]
    if "--list" in argv:
        for b in blocks:
            print(f"{b.where()}: {b.kind}: {' ; '.join(commands(b.text))}")
        return 0

    with open(os.path.join(source_dir, ".ci", "run"), encoding="utf-8") as f:
        ci_script = f.read()
    for b in ci_blocks:
        for cmd in commands(b.text):
            if cmd not in ci_script:
                errors.append(f"{b.where()}: marked as run by CI, but .ci/run does not run '{cmd}'")
    if not runnable:
        errors.append("no block marked '" + RUNNABLE + "' in " + ", ".join(files))

    env = dict(os.environ)
    env["BATON_SOURCE_DIR"], env["BATON_BUILD_DIR"] = source_dir, build_dir
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        os.makedirs(runtime, mode=0o700, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="baton-docs-") as scratch:
        cwd = work_dir(source_dir, build_dir, scratch)
        print(f"docs: running {len(runnable)} blocks in {cwd} (build/ = {build_dir})")
        for b in runnable:
            status, output, took = run_block(b, cwd, env, scratch)
            if status == 0:
                print(f"docs: {b.where()}: ok ({took:.1f} s)")
                continue
            failed += 1
            why = f"timed out after {BLOCK_TIMEOUT_S} s" if status is None else f"exited {status}"
            print(f"docs: {b.where()}: FAILED ({why}); the block:")
            print("".join("  | " + l + "\n" for l in b.text.rstrip("\n").split("\n")))
            tail = output.rstrip("\n").split("\n")[-40:]
            print("  its output (last 40 lines):")
            print("".join("  > " + l + "\n" for l in tail))
            errors.append(f"{b.where()}: runnable block {why}")
    print(f"docs: ran {len(runnable)} runnable blocks, {len(runnable) - failed} passed, "
          f"{failed} failed; {len(ci_blocks)} run by CI checked against .ci/run; "
          f"{len(unmarked)} shell blocks unmarked (they need a GPU, a display, root or "
          f"a display manager); {len(files)} files")
    for e in errors:
        print(f"docs: FAIL: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
