#!/usr/bin/env python3
"""clang-tidy over baton's .cpp files, several files to one translation unit.

usage: tidy_units.py BUILD_DIR FILE...   (files relative to the repository)

Why: about 85 % of clang-tidy's time on one of our files goes to the headers
it includes (the checks' matchers walk the whole AST, libstdc++'s templates
and Vulkan's declarations included), the same headers in every file. A unit
that #includes a few .cpp files built with the same flags pays for them once.

The .cpp files of a unit are headers to clang-tidy: .clang-tidy's
HeaderFilterRegex names .cpp as well as .hpp, so their findings are reported
under their own paths. Files that do not compile together (two tests with a
constant of the same name, two programs' main) are parted along the compiler's
errors and run again, down to one file on its own if need be.

What a unit sees that one file does not: the bodies of functions defined in
the other files, so a check that follows calls (bugprone-exception-escape)
can find more. Compared on this code: on 28 files with probe lines for 21 of
the enabled checks, both ways reported the same 42 findings; on 22 files
with six whole check families, 2,313 of 2,314 findings were the same (one
magic number in a header's default argument only the per-file runs saw).

Prints every finding and a summary; exits 1 when there is any finding or any
clang-tidy failed.

BATON_TIDY_CACHE=DIR keeps a record of each unit that had no findings, named
by a hash over what decides clang-tidy's answer: its version, .clang-tidy,
the flags, and the content of every file the unit's files read. A unit whose
hash is recorded is not run again. Units with findings are never recorded,
so a finding shows on every run. CI keeps DIR between runs.

Which files a .cpp reads comes from the build, not from the preprocessor:
the compile commands write depfiles, and `ninja -t deps` lists for each
object the source and every header (generated protocol headers included)
that its last compile read. One call gives all of them; each file is hashed
once per run, whole and in binary. Preprocessing every unit only to name it
took about 100 s on CI's two cores; this takes about 1.5 s.

Why this is as safe as the preprocessed key it replaces: the preprocessor's
output is a function of the flags, the names and contents of the files it
read, and gcc's predefined macros (gcc's, which clang-tidy does not see).
The first two are in the hash, so whatever changed the preprocessed unit for
clang-tidy changes this hash too (and more: a change inside #if 0 or to an
include guard now runs the unit again). The list of files holds only while it describes the
tree as it is now, so a file's deps are used only when ninja marks them
VALID and no file in them is newer than the object; otherwise (never
compiled, compiled outside ninja, a source or header edited since) that file
is preprocessed as before (the summary counts those files). Not seen: a
compile that would now read other files while none it read has changed (a
new header earlier on the include path, shadowing one of the same name, or
__has_include of a file that appears). ninja would not recompile for that
either, nor would ccache's direct mode, which names a hit by the same list;
it needs a new file named like an existing header, so it is left as a limit.

What both keys assume: the files are those gcc reads with these flags (the
compile's compiler is the one in compile_commands.json), while clang-tidy
parses with clang. Clang's own headers (stddef.h, the intrinsics) go with
its version, which is hashed; baton's code has no __clang__ branches. What
is left is the libstdc++ clang chooses: the newest gcc installed, so
installing a newer g++ beside the one that builds changes clang's headers
and not the hash. CI's root has one gcc (12, which Debian 12's clang uses
too); elsewhere, delete DIR after installing another.
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

UNIT_SIZE = 8  # files per unit: few enough that both cores stay busy to the end
# Diagnostics in order: path, kind, the rest ("[clang-diagnostic-error]" at
# its end for what the compiler refused).
DIAGNOSTIC = re.compile(r"^(.*?):\d+:\d+: (error|fatal error|warning|note): (.*)$", re.M)
MAIN = re.compile(r"^int main\(", re.M)
FINDING = re.compile(r"(warning|error):")


def flags_of(entry):
    """The compile command without its source, output and dependency-file
    arguments, and the target's private include folder (-I...p) apart."""
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    # meson puts a compiler cache in front of the compiler when it finds one.
    if os.path.basename(args[0]) in ("ccache", "sccache"):
        args = args[1:]
    kept, private, skip = [], [], False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in ("-o", "-MF", "-MQ", "-MT", "-c"):
            skip = True
        elif arg in ("-MD", "-MMD") or arg == entry["file"]:
            pass
        elif arg.startswith("-I") and arg.endswith(".p"):
            private.append(arg)
        else:
            kept.append(arg)
    return args[0], tuple(kept), private


def defines_main(path):
    with open(path, errors="replace") as f:
        return MAIN.search(f.read()) is not None


def units(build, root, files):
    """Lists of (path, compile entry) that share flags: UNIT_SIZE at most, and
    at most one program (a file with main) each, since two would collide."""
    by_path = {}
    for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
        path = os.path.relpath(os.path.normpath(os.path.join(entry["directory"], entry["file"])), root)
        by_path[path] = entry
    groups = {}
    for path in files:
        compiler, flags, _ = flags_of(by_path[path])
        groups.setdefault((by_path[path]["directory"], compiler, flags), []).append((path, by_path[path]))
    out = []
    for members in groups.values():
        programs = [m for m in members if defines_main(m[0])]
        unit_list = [[m] for m in programs]
        for m in members:
            if m in programs:
                continue
            target = next((u for u in unit_list if len(u) < UNIT_SIZE), None)
            if target is None:
                target = []
                unit_list.append(target)
            target.append(m)
        out += unit_list
    # The largest first, so that no long run starts last on an idle machine.
    return sorted(out, key=len, reverse=True)


class Deps:
    """The files each object's last compile read, from ninja's deps log."""

    HEADER = re.compile(r"^(\S.*): #deps \d+, deps mtime \d+ \((VALID|STALE)\)$")

    def __init__(self, build):
        self.build = build
        self.files = self.parse(build)  # object's path -> the files it read
        self.digests = {}  # path -> sha256 of its content, one read per run
        self.mtimes = {}

    @classmethod
    def parse(cls, build):
        """{object: [file, ...]} of the VALID entries; STALE ones (the object
        was rewritten after its deps were logged) and "deps not found" are
        left out. Paths are as ninja prints them: relative to build."""
        try:
            run = subprocess.run(["ninja", "-C", build, "-t", "deps"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except FileNotFoundError:
            return {}
        files, current = {}, None
        for line in run.stdout.splitlines() if run.returncode == 0 else []:
            if line.startswith("    "):
                if current is not None:
                    current.append(line[4:])
                continue
            match = cls.HEADER.match(line)
            current = None
            if match and match[2] == "VALID":
                current = files[match[1]] = []
        return files

    def mtime(self, path):
        if path not in self.mtimes:
            try:
                self.mtimes[path] = os.stat(os.path.join(self.build, path)).st_mtime_ns
            except OSError:
                self.mtimes[path] = None
        return self.mtimes[path]

    def digest(self, path):
        if path not in self.digests:
            with open(os.path.join(self.build, path), "rb") as f:
                self.digests[path] = hashlib.sha256(f.read()).hexdigest()
        return self.digests[path]

    def of(self, entry):
        """The files entry's object read, or None when they may no longer be
        what a compile would read: no valid deps, the object gone, or one of
        the files changed (or vanished) since the object was made."""
        if entry.get("output") is None or os.path.realpath(entry["directory"]) != self.build:
            return None
        files = self.files.get(os.path.normpath(entry["output"]))
        made = self.mtime(entry["output"])
        if not files or made is None:
            return None
        for path in files:
            changed = self.mtime(path)
            if changed is None or changed > made:
                return None
        return files


class CleanUnits:
    """The record of units clang-tidy found clean (BATON_TIDY_CACHE)."""

    def __init__(self, folder, root, build):
        self.folder, self.root = folder, root
        self.preprocessed = 0  # files keyed the slow way, for the summary
        if folder:
            os.makedirs(folder, exist_ok=True)
            version = subprocess.run(["clang-tidy", "--version"], stdout=subprocess.PIPE, text=True).stdout
            with open(os.path.join(root, ".clang-tidy"), "rb") as f:
                self.salt = version.encode() + f.read()
            self.deps = Deps(build)

    def key(self, members):
        """The hash of a unit, or None when a file can neither be read nor
        preprocessed (then clang-tidy runs and reports whatever is wrong)."""
        if not self.folder:
            return None
        digest = hashlib.sha256(self.salt)
        for path, entry in members:
            _, flags, private = flags_of(entry)
            digest.update(repr((path, flags, private)).encode())
            part = self.read_files(entry)
            if part is None:
                part = self.preprocess(path, entry)
            if part is None:
                return None
            digest.update(part)
        return digest.hexdigest()

    def read_files(self, entry):
        """The files the compile read, each named and hashed; None without
        deps that can be trusted. Paths count: HeaderFilterRegex reads them."""
        files = self.deps.of(entry)
        if files is None:
            return None
        try:
            return b"deps\0" + "".join(f"{p}\0{self.deps.digest(p)}\0" for p in files).encode()
        except OSError:
            return None

    def preprocess(self, path, entry):
        """The file preprocessed with its comments (NOLINT lives there)."""
        self.preprocessed += 1
        compiler, flags, private = flags_of(entry)
        run = subprocess.run([compiler, *flags, *private, "-E", "-C", os.path.join(self.root, path)],
                             cwd=entry["directory"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return b"preprocessed\0" + run.stdout if run.returncode == 0 else None

    def known_clean(self, key):
        return key is not None and os.path.exists(os.path.join(self.folder, key))

    def record_clean(self, key):
        if key is not None:
            with open(os.path.join(self.folder, key), "w") as f:
                f.write("no findings\n")


class Runner:
    def __init__(self, build, root, work, clean_units):
        self.build, self.root, self.work = build, root, work
        self.clean_units = clean_units
        self.skipped = 0

    def check_unit(self, members):
        """check(), or nothing when the record says this very unit was clean."""
        key = self.clean_units.key(members)
        if self.clean_units.known_clean(key):
            self.skipped += 1
            return [""]
        outputs = self.check(members)
        if not any(FINDING.search(o) for o in outputs):
            self.clean_units.record_clean(key)
        return outputs

    def tidy(self, members):
        """clang-tidy on one unit: (conflicts(), output)."""
        folder = tempfile.mkdtemp(dir=self.work)
        source = os.path.join(folder, "unit.cpp")
        with open(source, "w") as f:
            for path, _ in members:
                f.write(f'#include "{os.path.join(self.root, path)}" // NOLINT(bugprone-suspicious-include)\n')
        directory = members[0][1]["directory"]
        compiler, flags, _ = flags_of(members[0][1])
        private = sorted({p for _, e in members for p in flags_of(e)[2]})
        command = [compiler, *flags, *private, "-c", source]
        with open(os.path.join(folder, "compile_commands.json"), "w") as f:
            json.dump([{"directory": directory, "file": source, "arguments": command}], f)
        # The unit lives outside the repository: name the configuration,
        # or clang-tidy would look for it beside the unit and run its defaults.
        config = "--config-file=" + os.path.join(self.root, ".clang-tidy")
        # Every compile error, not the first 20: each names two files to part.
        run = subprocess.run(["clang-tidy", config, "--extra-arg=-ferror-limit=0", "-p", folder, "--quiet", source],
                             cwd=self.root,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        output = run.stdout
        pairs = self.conflicts(members, directory, output)
        if pairs is None and run.returncode != 0 and not FINDING.search(output):
            output += f"\nerror: clang-tidy exited {run.returncode} on {[p for p, _ in members]}\n"
        return pairs, output

    def conflicts(self, members, directory, output):
        """None when the unit compiled; else the pairs (i, j), i < j, of files
        that cannot share a unit: a file with a compile error and the file its
        notes point at (where the name was defined first), or every file
        before it when no note names one; and files that collided with the
        same file. Nothing to keep apart when the error is in a header."""
        index = {os.path.join(self.root, p): i for i, (p, _) in enumerate(members)}
        errors = []  # [file index or None, set of files its notes point at]
        for path, kind, rest in DIAGNOSTIC.findall(output):
            at = index.get(os.path.realpath(os.path.join(directory, path)), -1)
            if kind == "note" and errors and errors[-1] is not None:
                errors[-1][1].add(at)
            elif kind == "note":
                pass
            elif rest.endswith("[clang-diagnostic-error]"):
                errors.append([at, set()])
            else:
                errors.append(None)  # a check's finding: its notes are its own
        errors = [e for e in errors if e is not None]
        if not errors:
            return None
        # Files whose errors point at the same file collided with it, most
        # likely over the same names (kRed in three tests): all kept apart.
        cliques = {}
        for at, noted in errors:
            if at < 0:
                return set()
            for j in {j for j in noted if j >= 0 and j != at} or set(range(at)):
                cliques.setdefault(j, {j}).add(at)
        return {(i, j) for clique in cliques.values() for i in clique for j in clique if i < j}

    def check(self, members):
        """Findings of these files: the unit's or, when its files do not
        compile together, those of smaller units that keep apart the files
        that collided. A single file's output stands as it is."""
        pairs, output = self.tidy(members)
        if pairs is None or len(members) == 1:
            return [output]
        parts = []  # greedily: each file to the first part it does not collide with
        for i, member in enumerate(members):
            part = next((p for p in parts if not any((min(i, j), max(i, j)) in pairs for j, _ in p)), None)
            if part is None:
                part = []
                parts.append(part)
            part.append((i, member))
        if len(parts) == 1:  # nothing to keep apart (an error in a header): halves
            half = len(members) // 2
            return self.check(members[:half]) + self.check(members[half:])
        return [o for p in parts for o in self.check([m for _, m in p])]


def main():
    build, files = os.path.realpath(sys.argv[1]), sys.argv[2:]
    root = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="baton-tidy-") as work:
        clean_units = CleanUnits(os.environ.get("BATON_TIDY_CACHE"), root, build)
        runner = Runner(build, root, work, clean_units)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            outputs = [o for batch in pool.map(runner.check_unit, units(build, root, files)) for o in batch]
        if runner.skipped:
            print(f"clang-tidy: {runner.skipped} units unchanged since a clean run (BATON_TIDY_CACHE), not run again")
        if clean_units.preprocessed:
            print(f"clang-tidy: {clean_units.preprocessed} files without valid ninja deps, preprocessed for the record")
    lines = sorted({line for o in outputs for line in o.splitlines() if FINDING.search(line)})
    for line in lines[:200]:
        print(line)
    if lines:
        print(f"clang-tidy: {len(lines)} findings in {len(files)} files (checks in .clang-tidy)")
        return 1
    print(f"clang-tidy: {len(files)} files in {len(outputs)} runs, no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
