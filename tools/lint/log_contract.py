#!/usr/bin/env python3
"""Lint: the log lines that tests grep for are still printed.

Shell tests (and a few C++ ones) find out what baton did by grepping its log
for fixed text: "running on WAYLAND_DISPLAY", "session resumed", ... A
reworded message would make such a test wait out its time limit, or, where a
test checks that a line is absent ("baton crashed"), pass without checking
anything. The table below lists each piece of text as it is spelled in the
production sources (format directives included, as a string literal or
several adjacent ones) and the tests that depend on it; where baton prints
it, a comment "tests grep this line: ..." says so.

This checks that every piece still occurs in a string literal of the
production sources (adjacent literals joined, comments ignored) and that
every test named still exists. Exit status 1, with what broke, otherwise.

usage: log_contract.py [REPO]   (default: the repository this file is in)
"""
import pathlib
import subprocess
import sys

# (text in the sources, tests that grep the log for it)
CONTRACT = [
    ("running on WAYLAND_DISPLAY",
     ["tests/vm/guest-test.sh", "tests/vm/login_test.sh", "tests/integration/test_cli.cpp",
      "tests/desktop/test_config_apply.cpp"]),
    ("(backend %s, renderer %s)",
     ["tests/vm/baton_drm_test.sh", "tests/vm/login_test.sh", "tests/renderer/nested_test.cpp"]),
    ("buffers: linux-dmabuf-v1 %s, linux-drm-syncobj-v1 %s",
     ["tests/vm/guest-baton.sh", "tests/screencast/screencast.sh",
      "tests/integration/test_cli.cpp"]),
    ("configuration reloaded",
     ["tests/vm/input_test.sh", "tests/desktop/test_config_apply.cpp"]),
    ("session paused (VT switch)", ["tests/vm/vt_switch_test.sh"]),
    ("session resumed", ["tests/vm/vt_switch_test.sh", "tests/vm/login_test.sh"]),
    ("input: %s %s added", ["tests/vm/input_test.sh", "tests/vm/vt_switch_test.sh"]),
    ("input: keyboard %s removed", ["tests/vm/input_test.sh"]),
    ("baton exits (status %d)", ["tests/vm/login_test.sh", "tests/integration/test_nested.cpp"]),
    ("baton crashed: ", ["tests/vm/login_test.sh"]),
    ("the backend was closed", ["tests/integration/test_nested.cpp"]),
    (") written to %s", ["tests/vm/guest-baton.sh", "tests/integration/test_nested.cpp"]),
    # The frame-fence summary: its numbers are read by position.
    ("output %s: %llu commits carried render-done as %s (%llu waited in the event loop",
     ["tests/vm/baton_drm_test.sh", "tests/vm/release_poison_test.sh"]),
    ("were committed after the event loop waited for render-done, %llu out-fences",
     ["tests/vm/baton_drm_test.sh"]),
    ("; %llu frames scanned out a client buffer directly", ["tests/vm/release_poison_test.sh"]),
    ("the driver refuses in-fences", ["tests/vm/baton_drm_test.sh"]),
    ("%zu memory planes) for the parent compositor",
     ["tests/vm/release_poison_test.sh"]),
    ("slots are Vulkan images exported as dma-bufs", ["tests/vm/baton_drm_test.sh"]),
    ("a slot allocated by Vulkan cannot be scanned out (%s)", ["tests/vm/baton_drm_test.sh"]),
    ("PRIME import", ["tests/vm/baton_drm_test.sh"]),
    ("renderer: rebuilt on %s", ["tests/vm/baton_drm_test.sh", "tests/renderer/nested_test.cpp"]),
    ("readiness gate: surface of client pid %d: buffer not ready", ["tests/vm/clients_test.sh"]),
    ("%llu client dma-bufs imported, %llu commits reused", ["tests/vm/vk_client_test.sh"]),
]

# Where baton's own log lines come from (not tests/, not bench/).
PRODUCTION = ("backend/", "compositor/", "handoff/", "protocols/", "renderer/", "sync/", "util/")


def string_literals(text):
    """The string literals of C++ source `text`, adjacent ones joined, as spelled."""
    out, joined, i, n = [], None, 0, len(text)

    def flush():
        nonlocal joined
        if joined is not None:
            out.append(joined)
            joined = None

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 2
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            joined = (joined or "") + text[i + 1:j]
            i = j + 1
        elif c == "'":
            flush()
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c.isspace():
            i += 1
        else:
            flush()
            i += 1
    flush()
    return out


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
    files = subprocess.run(["git", "-C", str(repo), "ls-files", "--", "*.cpp", "*.hpp"],
                           check=True, capture_output=True, text=True).stdout.split()
    literals = []
    for name in files:
        if name.startswith(PRODUCTION):
            literals += string_literals((repo / name).read_text(errors="replace"))
    broken = []
    for text, tests in CONTRACT:
        if not any(text in literal for literal in literals):
            where = ", ".join(PRODUCTION)
            broken.append(f'"{text}" is no longer printed (no string literal in {where} holds'
                          f' it), yet {", ".join(tests)} grep baton\'s log for it: keep the'
                          " wording, or change those tests and this table together")
        for test in tests:
            if not (repo / test).is_file():
                broken.append(f'{test}, listed as grepping the log for "{text}", does not exist')
    for line in broken:
        print(f"log contract broken: {line}")
    if broken:
        return 1
    print(f"log contract: {len(CONTRACT)} log texts that tests grep for are all printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
